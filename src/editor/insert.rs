//! Where an insert goes, without a GUI: the palette's and quick-add's placement rules, the
//! drop target an insert form carries, and what is selected once the insert is done. The
//! editor's form (app/) asks these and draws the answers.

use super::document::edge_by_seq;
use super::geometry::GRID;
use super::node_type;
use super::preview::DropEdge;
use super::selection::Selection;
use crate::catalog::Catalog;
use crate::workflow::{After, Workflow};

/// Where an insert goes: at a point, into an edge (by `seq`), or downstream of a node.
#[derive(Debug, Clone, PartialEq)]
pub struct InsertPlace {
    pub at: (f64, f64),
    pub on_edge: Option<u64>,
    pub after: Option<String>,
}

/// Where an insert from the palette or quick-add goes, given the point it was asked at:
/// into the one selected edge (by `seq`), or downstream of the one selected node (to its
/// right, four grid steps clear, with that node's id), or at the point.
pub fn insert_place(wf: &Workflow, sel: &Selection, at: (f64, f64)) -> InsertPlace {
    if sel.nodes.is_empty()
        && let [seq] = sel.edges.iter().copied().collect::<Vec<_>>()[..]
    {
        return InsertPlace { at, on_edge: Some(seq), after: None };
    }
    if sel.edges.is_empty()
        && let [id] = sel.nodes.iter().collect::<Vec<_>>()[..]
        && let Some(ix) = wf.node(id)
    {
        let (x, y) = wf.graph[ix].position();
        let gap = f64::from(GRID) * 4.0;
        return InsertPlace {
            at: (x + crate::workflow::layout::NODE_W + gap, y),
            on_edge: None,
            after: Some(id.clone()),
        };
    }
    InsertPlace { at, on_edge: None, after: None }
}

/// What an insert form carries about its target: the edge it splices into (gone by now:
/// none) and the node it goes after, wired from that node's first declared output.
pub fn insert_target(
    wf: &Workflow,
    catalog: Option<&Catalog>,
    on_edge: Option<u64>,
    after: Option<String>,
) -> (Option<DropEdge>, Option<After>) {
    let on_edge = on_edge.and_then(|seq| {
        let e = &wf.graph[edge_by_seq(wf, seq)?];
        Some(DropEdge { id: e.id().to_owned(), source: e.source().to_owned(), target: e.target().to_owned() })
    });
    let after = after.and_then(|node| {
        let ix = wf.node(&node)?;
        let output = node_type::declared_outputs(catalog, wf.graph[ix].type_id()).next();
        Some(After { node, output: output.map(str::to_owned) })
    });
    (on_edge, after)
}

/// After an insert: select the inserted instance (the first new node's), so the inspector
/// offers its parameters. Nothing changes when the first node belongs to no instance.
pub fn select_inserted(wf: &Workflow, sel: &mut Selection, new_nodes: &[String]) {
    if let Some(first) = new_nodes.first()
        && let Some(inst) = wf.instance_of_node(first)
    {
        sel.clear();
        sel.instance = Some(inst.key());
        sel.nodes = inst.node_ids.into_iter().collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Trust;
    use crate::editor::document::Document;
    use crate::editor::preview::{Placement, request};
    use crate::pack::bundled;
    use serde_json::json;

    fn two_nodes() -> Workflow {
        Workflow::from_json(json!({
            "id": "wf", "name": "wf", "version": "1.0.0",
            "nodes": [
                {"id": "a", "typeId": "core.start", "name": "A", "position": {"x": 100, "y": 60}},
                {"id": "b", "typeId": "core.end", "name": "B", "position": {"x": 500, "y": 60}}
            ],
            "edges": [{"id": "e1", "sourceNodeId": "a", "targetNodeId": "b"}]
        }))
        .unwrap()
    }

    #[test]
    fn an_insert_goes_into_the_selected_edge_after_the_selected_node_or_at_the_point() {
        let wf = two_nodes();
        let mut sel = Selection::default();
        let at = (7.0, 9.0);
        assert_eq!(insert_place(&wf, &sel, at), InsertPlace { at, on_edge: None, after: None });
        let seq = wf.graph[wf.graph.edge_indices().next().unwrap()].seq;
        sel.edges.insert(seq);
        assert_eq!(insert_place(&wf, &sel, at), InsertPlace { at, on_edge: Some(seq), after: None });
        // An edge and a node selected: neither rule applies.
        sel.nodes.insert("a".to_owned());
        assert_eq!(insert_place(&wf, &sel, at), InsertPlace { at, on_edge: None, after: None });
        sel.edges.clear();
        // Right of `a` (x 100, a card 220 wide), four 20-unit grid steps clear, on its row.
        let right = 100.0 + crate::workflow::layout::NODE_W + 80.0;
        assert_eq!(crate::workflow::layout::NODE_W, 220.0);
        assert_eq!(
            insert_place(&wf, &sel, at),
            InsertPlace { at: (right, 60.0), on_edge: None, after: Some("a".into()) }
        );
        // Two nodes selected: at the point.
        sel.nodes.insert("b".to_owned());
        assert_eq!(insert_place(&wf, &sel, at).after, None);
    }

    #[test]
    fn the_target_names_the_edge_and_the_node_it_goes_after() {
        let wf = two_nodes();
        let seq = wf.graph[wf.graph.edge_indices().next().unwrap()].seq;
        let (edge, after) = insert_target(&wf, None, Some(seq), Some("a".to_owned()));
        let edge = edge.unwrap();
        assert_eq!((edge.id.as_str(), edge.source.as_str(), edge.target.as_str()), ("e1", "a", "b"));
        // Uncatalogued: no declared output to wire from.
        assert_eq!(after, Some(After { node: "a".to_owned(), output: None }));
        // An edge or node gone by now is no target.
        assert_eq!(insert_target(&wf, None, Some(seq + 100), Some("zz".to_owned())), (None, None));
    }

    #[test]
    fn after_an_insert_its_instance_is_selected() {
        let mut doc = Document::new(two_nodes(), None);
        let trust = Trust::default();
        let pack = bundled().packs.into_iter().find(|p| p.chain("support.triage").is_some()).unwrap();
        let values = json!({"queueName": "billing"}).as_object().unwrap().clone();
        let placement = Placement::Insert { at: (0.0, 300.0), on_edge: None, after: None };
        let outcome = doc.inline(request(&trust, &pack, "support.triage", values, "t001", &[], &placement)).unwrap();
        let mut sel = Selection::default();
        sel.nodes.insert("a".to_owned());
        select_inserted(doc.workflow(), &mut sel, &outcome.new_nodes);
        let inst = doc.workflow().instance_of_node(&outcome.new_nodes[0]).unwrap();
        assert_eq!(sel.instance, Some(inst.key()));
        let mut expected: Vec<String> = outcome.new_nodes.clone();
        expected.sort();
        assert_eq!(sel.nodes.iter().cloned().collect::<Vec<_>>(), expected, "the inserted nodes, and only they");
        // A node of no instance leaves the selection alone.
        select_inserted(doc.workflow(), &mut sel, &["a".to_owned()]);
        assert_eq!(sel.instance, Some(inst.key()));
    }
}

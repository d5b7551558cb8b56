//! What an insert will produce, before it happens, without drawing anything: the expansion
//! the form's values give (invalid values still substituted, so an author sees them land)
//! and ghost nodes at the places the splice will put them, with their rewritten ids and
//! edges. `app::preview_pane` draws the expansion; the canvas draws the ghosts.
//!
//! Placement comes from a dry-run splice into a copy of the workflow, so the ghosts are
//! exactly where the nodes will land; it only depends on the workflow, so it is redone
//! when the workflow changes, not on every keystroke.

use super::cards::card_sizes;
use crate::catalog::Trust;
use crate::error::Error;
use crate::expand::{Expansion, mint_expansion_id};
use crate::inline::{Destination, Expanded, ExpansionIdChoice, InlineRequest, expand_for};
use crate::pack::{Chain, Pack};
use crate::workflow::{After, SpliceOptions, Workflow};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// The preview drawn on the canvas.
#[derive(Debug, Clone)]
pub struct Ghost {
    pub title: String,
    pub nodes: Vec<GhostNode>,
    pub edges: Vec<GhostEdge>,
    pub selected: Option<usize>,
    /// Parent nodes the insert moves to make room (a splice into an edge), where they go.
    pub moved: Vec<(String, (f64, f64))>,
    /// The parent edge a splice replaces (its `seq`): drawn as going away, not as staying.
    pub replaced: Option<u64>,
}

#[derive(Debug, Clone)]
pub struct GhostNode {
    pub id: String,
    pub name: String,
    pub type_id: String,
    /// Top-left corner in canvas units, where the splice puts the node.
    pub pos: (f64, f64),
}

#[derive(Debug, Clone)]
pub struct GhostEdge {
    pub from: GhostEnd,
    pub to: GhostEnd,
}

#[derive(Debug, Clone)]
pub enum GhostEnd {
    Ghost(usize),
    Parent(String),
}

/// The parent edge a tile was dropped on: the chain replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DropEdge {
    pub id: String,
    pub source: String,
    pub target: String,
}

/// The splice options for an insert: the preview and the real insert use this one
/// function, so the ghosts stand exactly where the nodes will go.
pub fn splice_options(at: (f64, f64), on_edge: Option<&DropEdge>, after: Option<&After>) -> SpliceOptions {
    SpliceOptions {
        at: Some(at),
        between: on_edge.map(|e| (e.source.clone(), e.target.clone())),
        replace_edge: on_edge.map(|e| e.id.clone()),
        after: after.cloned(),
    }
}

/// After a chain is spliced into an edge it was dropped on, or downstream of a node, the
/// nodes from the edge's target (or right of the node) on move right to make room for it
/// ([`super::arrange::make_room`]); dropped anywhere else, the chain moves off any card or
/// frame it would cover ([`super::arrange::clear_drop`]). Cards are sized by the catalog's
/// ports. Layout, not
/// part of the inline pipeline: the CLI places nothing but the chain. The preview and the
/// real insert both come here.
///
/// Returns each moved node's id and the `position` it had (for undo).
pub fn make_room(
    wf: &mut Workflow,
    new_nodes: &[String],
    destination: &Destination,
    trust: &Trust,
) -> Vec<(String, Option<Value>)> {
    let Destination::Splice(opts) = destination else { return Vec::new() };
    let sizes = card_sizes(wf, &trust.catalog.as_ref());
    let moves = match (&opts.between, &opts.replace_edge, &opts.after) {
        (Some((source, target)), Some(_), _) => {
            super::arrange::make_room(wf, new_nodes, source, Some(target.as_str()), &sizes)
        }
        (None, _, Some(after)) => super::arrange::make_room(wf, new_nodes, &after.node, None, &sizes),
        // A plain drop: the chain moves off whatever it would cover.
        (None, None, None) => super::arrange::clear_drop(wf, new_nodes, &sizes),
        _ => return Vec::new(),
    };
    let mut moved = Vec::new();
    for (id, (x, y)) in moves {
        if let Some(ix) = wf.node(&id) {
            let node = &mut wf.graph[ix];
            let old = node.member("position");
            node.set_position(x, y);
            moved.push((id, old));
        }
    }
    moved
}

/// Where an expansion goes.
#[derive(Debug, Clone)]
pub enum Placement {
    /// A new instance at a drop point, optionally replacing the edge it was dropped on, or
    /// wired downstream of a node (quick-add with that node selected).
    Insert { at: (f64, f64), on_edge: Option<DropEdge>, after: Option<After> },
    /// An existing instance, re-expanded in place, its conflicts settled as chosen.
    Existing { key: String, resolutions: crate::instance::Resolutions },
}

/// The pipeline request for an insert or re-parameterisation, and for its preview: the
/// form's values under the expansionId the form shows, the loaded packs for external
/// sub-chain refs. The CLI builds the same request from its flags, so both run
/// [`crate::inline`] with the same inputs.
pub fn request<'a>(
    trust: &'a Trust,
    pack: &'a Pack,
    chain_id: &'a str,
    values: Map<String, Value>,
    expansion_id: &str,
    external: &'a [Pack],
    placement: &Placement,
) -> InlineRequest<'a> {
    let mut req = InlineRequest::new(trust, pack, chain_id, values);
    req.expansion_id = ExpansionIdChoice::Given(expansion_id.to_owned());
    req.external = external;
    req.destination = match placement {
        Placement::Insert { at, on_edge, after } => {
            Destination::Splice(splice_options(*at, on_edge.as_ref(), after.as_ref()))
        }
        Placement::Existing { key, resolutions } => {
            Destination::Reparameterise { key: key.clone(), resolutions: resolutions.clone() }
        }
    };
    req
}

/// Four hex digits whose expanded ids collide with nothing in the workflow (chain-packs
/// §4.2), minted when the form opens so the preview and the insert share them.
pub fn fresh_expansion_id(chain: &Chain, wf: &Workflow) -> Result<String, Error> {
    mint_expansion_id(chain, &|id| wf.contains_node(id))
}

/// Ghost nodes and edges from a dry run, or the refusal the real splice would give.
pub fn place(trust: &Trust, wf: &Workflow, exp: &Expansion, placement: &Placement) -> Result<Option<Ghost>, Error> {
    // An instance re-expanded in place keeps its nodes where they are: no ghosts.
    let Placement::Insert { at, on_edge, after } = placement else { return Ok(None) };
    let mut scratch = wf.clone();
    let destination = Destination::Splice(splice_options(*at, on_edge.as_ref(), after.as_ref()));
    let expanded = Expanded { expansion: exp.clone(), children: Vec::new(), base: None };
    let report = crate::inline::place(&mut scratch, expanded, &destination, trust)?;
    make_room(&mut scratch, &report.instance.node_ids, &destination, trust);
    let ids = &report.instance.node_ids;
    let nodes: Vec<GhostNode> = ids
        .iter()
        .filter_map(|id| {
            let node = &scratch.graph[scratch.node(id)?];
            let (x, y) = node.position();
            Some(GhostNode {
                id: id.clone(),
                name: node.name().to_owned(),
                type_id: node.type_id().to_owned(),
                pos: (x, y),
            })
        })
        .collect();
    let ghost_of: HashMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (id.as_str(), i)).collect();
    let end = |id: &str| match ghost_of.get(id) {
        Some(i) => GhostEnd::Ghost(*i),
        None => GhostEnd::Parent(id.to_owned()),
    };
    let new_edges: HashSet<&str> = report.instance.edge_ids.iter().map(String::as_str).collect();
    let edges = scratch
        .graph
        .edge_weights()
        .filter(|e| new_edges.contains(e.id()))
        .map(|e| GhostEdge { from: end(e.source()), to: end(e.target()) })
        .collect();
    // Parent nodes the insert moved to make room (none for an unwired insert).
    let moved = wf
        .graph
        .node_weights()
        .filter_map(|n| {
            let now = scratch.graph[scratch.node(n.id())?].position();
            (now != n.position()).then(|| (n.id().to_owned(), now))
        })
        .collect();
    let replaced = on_edge.as_ref().and_then(|e| wf.graph.edge_weights().find(|w| w.id() == e.id)).map(|w| w.seq);
    let title = format!("{} · {}", exp.label, exp.expansion_id);
    Ok(Some(Ghost { title, nodes, edges, selected: Some(0), moved, replaced }))
}

/// Expand for the preview: the pipeline up to the splice. Invalid values are still
/// substituted (defaults applied, no validation) so the author sees what they typed land in
/// the config.
pub fn expand_preview(
    trust: &Trust,
    pack: &Pack,
    chain: &Chain,
    wf: &Workflow,
    values: &Map<String, Value>,
    expansion_id: &str,
    valid: bool,
) -> Result<Expansion, Error> {
    let at = Placement::Insert { at: (0.0, 0.0), on_edge: None, after: None };
    let mut req = request(trust, pack, chain.chain_id(), values.clone(), expansion_id, &[], &at);
    // The caller holds the chain: where it sits in the pack spares the pipeline a lookup.
    if let Some(position) = pack.chains.iter().position(|c| std::ptr::eq(c, chain)) {
        req = req.with_chain_at(position);
    }
    req.preview = !valid;
    Ok(expand_for(Some(wf), req)?.expansion)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::bundled;
    use serde_json::json;

    fn triage() -> (Pack, Map<String, Value>) {
        let pack = bundled().packs.into_iter().find(|p| p.chain("support.triage").is_some()).unwrap();
        (pack, json!({"queueName": "billing", "owner": {"email": "a@b.c"}}).as_object().unwrap().clone())
    }

    #[test]
    fn ghosts_sit_where_the_splice_puts_nodes_and_refusals_surface() {
        let (pack, values) = triage();
        let wf = Workflow::new("t");
        let chain = pack.chain("support.triage").unwrap();
        let exp = expand_preview(&Trust::default(), &pack, chain, &wf, &values, "ab12", true).unwrap();
        let ghost =
            place(&Trust::default(), &wf, &exp, &Placement::Insert { at: (100.0, 200.0), on_edge: None, after: None })
                .unwrap()
                .unwrap();
        assert_eq!(ghost.nodes.len(), 4);
        assert_eq!(ghost.nodes[0].id, "support_triage_ab12_fetch");
        assert_eq!(ghost.nodes[0].pos, (100.0, 280.0));
        assert_eq!(ghost.edges.len(), 3);
    }

    #[test]
    fn a_splice_preview_shows_the_room_the_insert_makes() {
        let (pack, values) = triage();
        let wf = Workflow::from_json(json!({"id": "w", "name": "w", "version": "1",
            "nodes": [{"id": "a", "typeId": "core.noop", "position": {"x": 0, "y": 0}},
                      {"id": "b", "typeId": "core.noop", "position": {"x": 310, "y": 0}}],
            "edges": [{"id": "e1", "sourceNodeId": "a", "targetNodeId": "b"}]}))
        .unwrap();
        let chain = pack.chain("support.triage").unwrap();
        let exp = expand_preview(&Trust::default(), &pack, chain, &wf, &values, "ab12", true).unwrap();
        let trust = Trust::default();
        let on_edge = DropEdge { id: "e1".into(), source: "a".into(), target: "b".into() };
        let placement = Placement::Insert { at: (150.0, 0.0), on_edge: Some(on_edge), after: None };
        let ghost = place(&trust, &wf, &exp, &placement).unwrap().unwrap();
        let e1 = wf.graph.edge_weights().find(|e| e.id() == "e1").unwrap().seq;
        let mut doc = crate::editor::document::Document::new(wf, None);
        doc.inline(request(&trust, &pack, "support.triage", values, "ab12", &[], &placement)).unwrap();
        let real = doc.workflow();
        let b_after = real.graph[real.node("b").unwrap()].position();
        assert!(b_after.0 > 310.0, "the target moves right");
        assert_eq!(ghost.moved, vec![("b".to_owned(), b_after)], "the preview shows exactly that move");
        assert_eq!(ghost.replaced, Some(e1), "the edge the chain replaces");
        for g in &ghost.nodes {
            assert_eq!(g.pos, real.graph[real.node(&g.id).unwrap()].position());
        }
    }

    #[test]
    fn fresh_ids_avoid_existing_nodes() {
        let (pack, _) = triage();
        let chain = pack.chain("support.triage").unwrap();
        let id = fresh_expansion_id(chain, &Workflow::new("t")).unwrap();
        assert_eq!(id.len(), 4);
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
    }
}

//! What an insert will produce, before it happens, without drawing anything: the expansion
//! the form's values give (invalid values still substituted, so an author sees them land)
//! and ghost nodes at the places the splice will put them, with their rewritten ids and
//! edges. `app::preview_pane` draws the expansion; the canvas draws the ghosts.
//!
//! Placement comes from a dry-run splice into a copy of the workflow, so the ghosts are
//! exactly where the nodes will land; it only depends on the workflow, so it is redone
//! when the workflow changes, not on every keystroke.

use super::cards::{DeclaredPorts, card_sizes};
use crate::catalog::Trust;
use crate::error::Error;
use crate::expand::{ExpandOptions, Expansion, chain_id_slug, expand};
use crate::pack::{Chain, Pack};
use crate::params::apply_defaults;
use crate::workflow::{SpliceOptions, SpliceReport, Workflow, reparameterise, splice};
use serde_json::{Map, Value};

/// The preview drawn on the canvas.
#[derive(Debug, Clone)]
pub struct Ghost {
    pub title: String,
    pub nodes: Vec<GhostNode>,
    pub edges: Vec<GhostEdge>,
    pub selected: Option<usize>,
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
pub fn splice_options(at: (f64, f64), on_edge: Option<&DropEdge>) -> SpliceOptions {
    SpliceOptions {
        at: Some(at),
        between: on_edge.map(|e| (e.source.clone(), e.target.clone())),
        replace_edge: on_edge.map(|e| e.id.clone()),
    }
}

/// Splice as an insert does: at the drop point, or into the edge it was dropped on, and
/// then the nodes from the edge's target on move right to make room for the chain
/// ([`super::arrange::make_room`]), with cards sized by `ports`. The preview and the real
/// insert both come here.
pub fn insert_into(
    wf: &mut Workflow,
    exp: &Expansion,
    at: (f64, f64),
    on_edge: Option<&DropEdge>,
    ports: &dyn DeclaredPorts,
) -> Result<SpliceReport, Error> {
    let report = splice(wf, exp, &splice_options(at, on_edge))?;
    if let Some(edge) = on_edge {
        let sizes = card_sizes(wf, ports);
        let moves = super::arrange::make_room(wf, &report.instance.node_ids, &edge.source, &edge.target, &sizes);
        for (id, (x, y)) in moves {
            if let Some(ix) = wf.node(&id) {
                wf.graph[ix].set_position(x, y);
            }
        }
    }
    Ok(report)
}

/// Where an expansion goes.
#[derive(Debug, Clone)]
pub enum Placement {
    /// A new instance at a drop point, optionally replacing the edge it was dropped on.
    Insert { at: (f64, f64), on_edge: Option<DropEdge> },
    /// An existing instance, re-expanded in place.
    Existing { key: String },
}

/// The expansion options the editor uses for every preview and every insert, so what is
/// previewed is what is inserted, and both match `chainsmith inline` with the same inputs.
pub fn options<'a>(trust: &'a Trust, wf: &'a Workflow, expansion_id: &str, as_given: bool) -> ExpandOptions<'a> {
    ExpandOptions {
        expansion_id: Some(expansion_id.to_owned()),
        taken_ids: None,
        resolver: trust.resolver(),
        parent_compensation: wf.settings_compensation(),
        host: trust.host.clone(),
        params_as_given: as_given,
    }
}

/// Expand with the trust policy, then add its config and port findings, as the CLI does.
pub fn expand_checked(
    trust: &Trust,
    pack: &Pack,
    chain_id: &str,
    wf: &Workflow,
    values: Map<String, Value>,
    expansion_id: &str,
    as_given: bool,
) -> Result<Expansion, Error> {
    let mut exp = expand(pack, chain_id, values, &options(trust, wf, expansion_id, as_given))?;
    let checks = trust.check_expansion(&exp);
    if let Some(first) = checks.iter().find(|f| f.is_error()) {
        return Err(first.clone().into_error());
    }
    exp.warnings.extend(checks);
    Ok(exp)
}

/// Four hex digits whose expanded ids collide with nothing in the workflow (chain-packs §4.2).
pub fn fresh_expansion_id(chain: &Chain, wf: &Workflow) -> String {
    let slug = chain_id_slug(chain.chain_id());
    let free = |candidate: &str| {
        !chain
            .nodes()
            .iter()
            .filter_map(|n| n.get("id").and_then(Value::as_str))
            .any(|nid| wf.contains_node(&format!("{slug}_{candidate}_{nid}")))
    };
    for width in [4usize, 4, 4, 4, 6, 8, 12, 16] {
        let candidate: String =
            (0..width).map(|_| char::from_digit(rand::random_range(0..16u32), 16).expect("a hex digit")).collect();
        if free(&candidate) {
            return candidate;
        }
    }
    // Sixteen random hex digits colliding eight times in a row does not happen; if it does,
    // splice refuses the duplicate id with a message instead of overwriting anything.
    "0000000000000000".to_owned()
}

/// Ghost nodes and edges from a dry run, or the refusal the real splice would give; cards
/// sized by `ports`, as the insert will.
pub fn place(
    wf: &Workflow,
    exp: &Expansion,
    placement: &Placement,
    ports: &dyn DeclaredPorts,
) -> Result<Option<Ghost>, Error> {
    let mut scratch = wf.clone();
    match placement {
        Placement::Existing { key } => {
            reparameterise(&mut scratch, key, exp)?;
            Ok(None)
        }
        Placement::Insert { at, on_edge } => {
            let report = insert_into(&mut scratch, exp, *at, on_edge.as_ref(), ports)?;
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
            let end = |id: &str| match ids.iter().position(|n| n == id) {
                Some(i) => GhostEnd::Ghost(i),
                None => GhostEnd::Parent(id.to_owned()),
            };
            let edges = scratch
                .graph
                .edge_weights()
                .filter(|e| report.instance.edge_ids.iter().any(|id| id == e.id()))
                .map(|e| GhostEdge { from: end(e.source()), to: end(e.target()) })
                .collect();
            Ok(Some(Ghost { title: format!("{} · {}", exp.label, exp.expansion_id), nodes, edges, selected: Some(0) }))
        }
    }
}

/// Expand for the preview. Invalid values are still substituted (defaults applied, no
/// validation) so the author sees what they typed land in the config.
pub fn expand_preview(
    trust: &Trust,
    pack: &Pack,
    chain: &Chain,
    wf: &Workflow,
    values: &Map<String, Value>,
    expansion_id: &str,
    valid: bool,
) -> Result<Expansion, Error> {
    let mut values = values.clone();
    if !valid {
        apply_defaults(chain.parameters(), &mut values);
    }
    expand_checked(trust, pack, chain.chain_id(), wf, values, expansion_id, !valid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code;
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
        let none = crate::editor::cards::PortTable::default();
        let ghost = place(&wf, &exp, &Placement::Insert { at: (100.0, 200.0), on_edge: None }, &none).unwrap().unwrap();
        assert_eq!(ghost.nodes.len(), 4);
        assert_eq!(ghost.nodes[0].id, "support_triage_ab12_fetch");
        assert_eq!(ghost.nodes[0].pos, (100.0, 280.0));
        assert_eq!(ghost.edges.len(), 3);
        let err = place(&wf, &exp, &Placement::Existing { key: "nope_".into() }, &none).unwrap_err();
        assert_eq!(err.code, code::INVALID_REQUEST);
    }

    #[test]
    fn fresh_ids_avoid_existing_nodes() {
        let (pack, _) = triage();
        let chain = pack.chain("support.triage").unwrap();
        let id = fresh_expansion_id(chain, &Workflow::new("t"));
        assert_eq!(id.len(), 4);
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
    }
}

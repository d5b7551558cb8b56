//! The edges that connect a spliced fragment to the parent: from the node it goes after,
//! or between two nodes in place of the edges from one to the other.

use super::super::{Edge, Workflow};
use super::SpliceOptions;
use super::members::{canonical_edge, json_edge};
use crate::expand::Expansion;
use petgraph::stable_graph::EdgeIndex;
use serde_json::{Map, Value};

/// Wire the fragment (already added) as `opts` says: remove the `replaced` parent edges,
/// then add parent → every entry node and every exit node → parent. The new edge ids go on
/// `edge_ids`; the removed edges are returned.
pub(super) fn wire(
    wf: &mut Workflow,
    exp: &Expansion,
    opts: &SpliceOptions,
    replaced: &[EdgeIndex],
    edge_ids: &mut Vec<String>,
) -> Vec<Edge> {
    let (source, target) = match (&opts.between, &opts.after) {
        (Some((a, b)), _) => (a, Some(b)),
        (None, Some(after)) => (&after.node, None),
        (None, None) => return Vec::new(),
    };
    let removed_edges = wf.remove_all(&[], replaced).1;
    wf.forget_edges(removed_edges.iter().map(Edge::id));
    // One replaced edge hands its routing to the wiring: where it left the source (port,
    // condition) goes on the way in, where it entered the target (port, trigger rule) on
    // the way out. Wired after a node, the way in leaves from the port asked for.
    let carried: Option<Map<String, Value>> = match (removed_edges.as_slice(), &opts.after) {
        ([only], _) => Some(only.json()),
        (_, Some(after)) => after.output.as_ref().map(|port| {
            let mut json = Map::new();
            json.insert("sourceOutput".into(), Value::String(port.clone()));
            json
        }),
        _ => None,
    };
    let carry = |json: &mut Map<String, Value>, keys: &[&str]| {
        if let Some(old) = &carried {
            for key in keys {
                if let Some(v) = old.get(*key) {
                    json.insert((*key).to_owned(), v.clone());
                }
            }
        }
    };
    let mut ids = wf.edge_ids();
    for (k, entry) in exp.entry_nodes().into_iter().enumerate() {
        let id = ids.fresh(wf, &format!("{}in{}", exp.prefix, k + 1));
        edge_ids.push(id.clone());
        let mut json = json_edge(&id, source, &exp.id_map[entry].1);
        carry(&mut json, &["sourceOutput", "condition"]);
        wf.add_edge(canonical_edge(json));
    }
    if let Some(target) = target {
        for (k, exit) in exp.exit_nodes().into_iter().enumerate() {
            let id = ids.fresh(wf, &format!("{}out{}", exp.prefix, k + 1));
            edge_ids.push(id.clone());
            let mut json = json_edge(&id, &exp.id_map[exit].1, target);
            carry(&mut json, &["targetInput", "triggerRule"]);
            wf.add_edge(canonical_edge(json));
        }
    }
    removed_edges
}

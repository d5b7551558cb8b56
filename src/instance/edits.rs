//! An instance's user edits: the difference between its recorded expansion (the chain at the
//! recorded version, re-expanded with the recorded values and expansionId) and the workflow
//! as it is now. Nothing is stored besides the record: the edits are recomputed each time.

use crate::expand::Expansion;
use crate::workflow::merge3::differences;
use crate::workflow::{Edge, FragmentEdges, FragmentNodes, Instance, Workflow};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// Members that are the user's by construction: the id never changes, and positions are
/// placed by the splice, so they are never compared nor replaced.
pub(crate) const NOT_MERGED: [&str; 2] = ["id", "position"];

/// One thing the user did to an instance after it was inserted.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// A member of a node differs from the recorded expansion (`pointer` inside the node).
    Member { node_id: String, pointer: String, base: Option<Value>, mine: Option<Value> },
    /// A node of the recorded expansion is no longer in the workflow.
    NodeRemoved { node_id: String },
    /// An edge to or from the instance's nodes that neither the chain nor the wiring made.
    EdgeAdded { edge_id: String, source: String, target: String },
    /// An edge of the recorded expansion is no longer in the workflow.
    EdgeRemoved { source: String, target: String },
}

impl Edit {
    pub fn to_json(&self) -> Value {
        match self {
            Edit::Member { node_id, pointer, base, mine } => {
                json!({"kind": "member", "node": node_id, "member": pointer, "base": base, "mine": mine})
            }
            Edit::NodeRemoved { node_id } => json!({"kind": "nodeRemoved", "node": node_id}),
            Edit::EdgeAdded { edge_id, source, target } => {
                json!({"kind": "edgeAdded", "edge": edge_id, "source": source, "target": target})
            }
            Edit::EdgeRemoved { source, target } => json!({"kind": "edgeRemoved", "source": source, "target": target}),
        }
    }

    /// One line for people.
    pub fn describe(&self) -> String {
        match self {
            Edit::Member { node_id, pointer, mine, .. } => match mine {
                Some(v) => format!("{node_id} {pointer} set to {v}"),
                None => format!("{node_id} {pointer} removed"),
            },
            Edit::NodeRemoved { node_id } => format!("{node_id} removed"),
            Edit::EdgeAdded { source, target, .. } => format!("edge {source} → {target} added"),
            Edit::EdgeRemoved { source, target } => format!("edge {source} → {target} removed"),
        }
    }
}

/// An edge's identity inside a fragment: its ends and ports (fragment edge ids are numbered
/// in order, so they do not survive a new chain version that adds or removes an edge).
/// An empty port is none. Lent by the edge or expansion it is of.
pub(super) type EdgeKey<'a> = (&'a str, &'a str, &'a str, &'a str);

pub(super) fn edge_key(e: &Edge) -> EdgeKey<'_> {
    (e.source(), e.source_output().unwrap_or_default(), e.target(), e.target_input().unwrap_or_default())
}

/// A node object as compared: without the members that are never merged, and with absent
/// `config` and `inputs` read as `{}` (what a splice fills in).
pub(crate) fn comparable(node: &Map<String, Value>) -> Map<String, Value> {
    let mut out: Map<String, Value> =
        node.iter().filter(|(k, _)| !NOT_MERGED.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
    for member in ["config", "inputs"] {
        out.entry(member).or_insert_with(|| json!({}));
    }
    out
}

/// What the user changed in the instance, in fragment order: member edits and removed
/// nodes, then added and removed edges.
pub fn user_edits(wf: &Workflow, inst: &Instance, base: &Expansion) -> Vec<Edit> {
    edits_against(wf, inst, &FragmentNodes::new(base), &FragmentEdges::new(base))
}

/// [`user_edits`] against the recorded expansion's nodes and edges as a splice shapes them.
pub(super) fn edits_against(
    wf: &Workflow,
    inst: &Instance,
    base_nodes: &FragmentNodes,
    base_edges: &FragmentEdges,
) -> Vec<Edit> {
    let mut out = Vec::new();
    for i in 0..base_nodes.len() {
        let id = base_nodes.id(i);
        let Some(ix) = wf.node(id) else {
            out.push(Edit::NodeRemoved { node_id: id.to_owned() });
            continue;
        };
        let mut diffs = Vec::new();
        differences("", &comparable(&base_nodes.get(i)), &comparable(&wf.graph[ix].object()), &NOT_MERGED, &mut diffs);
        out.extend(diffs.into_iter().map(|(pointer, base, mine)| Edit::Member {
            node_id: id.to_owned(),
            pointer,
            base,
            mine,
        }));
    }
    let members: HashSet<&str> = (0..base_nodes.len()).map(|i| base_nodes.id(i)).filter(|id| !id.is_empty()).collect();
    let fragment: HashSet<EdgeKey> = (0..base_edges.len()).map(|i| base_edges.ends(i)).collect();
    let wiring: HashSet<&str> = inst.edge_ids.iter().map(String::as_str).collect();
    let mut present = HashSet::new();
    for e in wf.graph.edge_weights() {
        if !members.contains(e.source()) && !members.contains(e.target()) {
            continue;
        }
        let key = edge_key(e);
        if fragment.contains(&key) {
            present.insert(key);
        } else if !wiring.contains(e.id()) {
            out.push(Edit::EdgeAdded {
                edge_id: e.id().to_owned(),
                source: e.source().to_owned(),
                target: e.target().to_owned(),
            });
        }
    }
    for i in 0..base_edges.len() {
        let key = base_edges.ends(i);
        if !present.contains(&key) {
            out.push(Edit::EdgeRemoved { source: key.0.to_owned(), target: key.2.to_owned() });
        }
    }
    out
}

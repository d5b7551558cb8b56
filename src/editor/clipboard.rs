//! Copy and paste as JSON text: the copied nodes and the edges among them, tagged so that
//! text from elsewhere is never taken for a chainsmith selection.

use crate::workflow::{Edge, Workflow};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// Nodes and the edges among them, as the clipboard text that [`Command::Paste`] reads back.
pub fn clipboard_json(wf: &Workflow, ids: &HashSet<String>) -> Option<String> {
    let (nodes, edges) = selected_objects(wf, ids);
    if nodes.is_empty() {
        return None;
    }
    let wrap = |v: Objects| v.into_iter().map(Value::Object).collect::<Vec<_>>();
    let doc = json!({ CLIPBOARD_TAG: 1, "nodes": wrap(nodes), "edges": wrap(edges) });
    Some(serde_json::to_string_pretty(&doc).expect("JSON values serialise"))
}

/// The nodes named by `ids` and the edges among them, in file order (what a copy or a
/// duplicate takes).
pub fn selected_objects(wf: &Workflow, ids: &HashSet<String>) -> (Objects, Objects) {
    let nodes = wf
        .nodes_in_order()
        .into_iter()
        .filter(|ix| ids.contains(wf.graph[*ix].id()))
        .map(|ix| wf.graph[ix].object())
        .collect();
    let edges = wf
        .edges_in_order()
        .into_iter()
        .map(|e| &wf.graph[e])
        .filter(|e| ids.contains(e.source()) && ids.contains(e.target()))
        .map(Edge::json)
        .collect();
    (nodes, edges)
}

const CLIPBOARD_TAG: &str = "chainsmithClipboard";

/// JSON objects (nodes or edges) as the clipboard carries them.
pub type Objects = Vec<Map<String, Value>>;

/// Read clipboard text written by [`clipboard_json`]; anything else is not ours.
pub fn parse_clipboard(text: &str) -> Option<(Objects, Objects)> {
    let v: Value = serde_json::from_str(text).ok()?;
    v.get(CLIPBOARD_TAG)?;
    let objects = |k: &str| -> Vec<Map<String, Value>> {
        v.get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|x| x.as_object().cloned()).collect())
            .unwrap_or_default()
    };
    Some((objects("nodes"), objects("edges")))
}

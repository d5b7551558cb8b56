//! Copy and paste as JSON text: the copied nodes and the edges among them, tagged so that
//! text from elsewhere is never taken for a chainsmith selection.

use crate::workflow::Workflow;
use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// Nodes and the edges among them, as the clipboard text that [`Command::Paste`] reads back.
pub fn clipboard_json(wf: &Workflow, ids: &HashSet<String>) -> Option<String> {
    let mut nodes = Vec::new();
    for ix in wf.nodes_in_order() {
        if ids.contains(wf.graph[ix].id()) {
            nodes.push(Value::Object(wf.graph[ix].json.clone()));
        }
    }
    if nodes.is_empty() {
        return None;
    }
    let mut edges = Vec::new();
    for e in wf.edges_in_order() {
        let edge = &wf.graph[e];
        if ids.contains(edge.source()) && ids.contains(edge.target()) {
            edges.push(Value::Object(edge.json.clone()));
        }
    }
    let doc = json!({ CLIPBOARD_TAG: 1, "nodes": nodes, "edges": edges });
    Some(serde_json::to_string_pretty(&doc).expect("JSON values serialise"))
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

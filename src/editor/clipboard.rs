//! Copy and paste as JSON text: the copied nodes and the edges among them, tagged so that
//! text from elsewhere is never taken for a chainsmith selection.

use crate::workflow::{Edge, Node, Workflow};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Nodes and the edges among them, as the clipboard text that [`Command::Paste`] reads back.
/// Written from the nodes' and edges' own text: copying all 100,000 nodes of a workflow
/// through parsed objects first raised the editor's peak by 270 MiB.
pub fn clipboard_json(wf: &Workflow, ids: &HashSet<String>) -> Option<String> {
    let nodes: Vec<&Node> =
        wf.nodes_in_order().into_iter().map(|ix| &wf.graph[ix]).filter(|n| ids.contains(n.id())).collect();
    if nodes.is_empty() {
        return None;
    }
    let edges = selected_edges(wf, ids).collect();
    Some(serde_json::to_string_pretty(&Clipboard { tag: 1, nodes, edges }).expect("JSON values serialise"))
}

/// The clipboard document: the tag first, then the nodes and the edges.
#[derive(serde::Serialize)]
struct Clipboard<'a> {
    #[serde(rename = "chainsmithClipboard")]
    tag: u8,
    nodes: Vec<&'a Node>,
    edges: Vec<&'a Edge>,
}

/// The edges between nodes named by `ids`, in file order.
fn selected_edges<'a>(wf: &'a Workflow, ids: &'a HashSet<String>) -> impl Iterator<Item = &'a Edge> + 'a {
    wf.edges_in_order()
        .into_iter()
        .map(|e| &wf.graph[e])
        .filter(|e| ids.contains(e.source()) && ids.contains(e.target()))
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
    (nodes, selected_edges(wf, ids).map(Edge::json).collect())
}

const CLIPBOARD_TAG: &str = "chainsmithClipboard";

/// JSON objects (nodes or edges) as the clipboard carries them.
pub type Objects = Vec<Map<String, Value>>;

/// Read clipboard text written by [`clipboard_json`]; anything else is not ours.
pub fn parse_clipboard(text: &str) -> Option<(Objects, Objects)> {
    let Value::Object(mut doc) = serde_json::from_str(text).ok()? else { return None };
    doc.get(CLIPBOARD_TAG)?;
    // Taken out of the document, not copied: a paste of 100,000 nodes held them twice.
    let mut objects = |k: &str| -> Objects {
        match doc.remove(k) {
            Some(Value::Array(items)) => items
                .into_iter()
                .filter_map(|x| match x {
                    Value::Object(o) => Some(o),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    Some((objects("nodes"), objects("edges")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_text_is_what_serde_json_writes_for_the_objects() {
        // Parsed from text, so the number keeps its text (`arbitrary_precision`).
        let doc: Value = serde_json::from_str(
            r#"{"id": "w", "name": "W", "version": "1",
                "nodes": [
                    {"id": "a", "typeId": "t", "config": {"n": 1.50, "s": "é\"\n", "deep": [{"x": null}]},
                     "position": {"x": 1, "y": 2.5}},
                    {"id": "b", "typeId": "t", "name": "B"},
                    {"id": "c", "typeId": "t"}
                ],
                "edges": [
                    {"id": "e1", "sourceNodeId": "a", "targetNodeId": "b", "condition": {"type": "truthy", "left": "x"}},
                    {"id": "e2", "sourceNodeId": "b", "targetNodeId": "c"}
                ]}"#,
        )
        .unwrap();
        let wf = Workflow::from_json(doc).unwrap();
        let ids: HashSet<String> = ["a".to_owned(), "b".to_owned()].into();
        let (nodes, edges) = selected_objects(&wf, &ids);
        let wrap = |v: Objects| v.into_iter().map(Value::Object).collect::<Vec<_>>();
        let expected =
            serde_json::to_string_pretty(&json!({CLIPBOARD_TAG: 1, "nodes": wrap(nodes), "edges": wrap(edges)}))
                .unwrap();
        let text = clipboard_json(&wf, &ids).unwrap();
        assert_eq!(text, expected);
        let (nodes, edges) = parse_clipboard(&text).unwrap();
        assert_eq!(nodes.iter().map(|n| n["id"].clone()).collect::<Vec<_>>(), [json!("a"), json!("b")]);
        assert_eq!(edges.len(), 1, "only the edge between copied nodes");
        assert_eq!(nodes[0]["config"]["n"].to_string(), "1.50", "numbers keep their text");
        assert!(clipboard_json(&wf, &HashSet::new()).is_none());
        assert!(parse_clipboard("[1]").is_none() && parse_clipboard("{\"nodes\": []}").is_none());
    }
}

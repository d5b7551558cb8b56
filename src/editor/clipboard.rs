//! Copy and paste as JSON text: the copied nodes and the edges among them, tagged so that
//! text from elsewhere is never taken for a chainsmith selection.

use crate::workflow::{Edge, Node, Workflow};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Nodes and the edges among them, as the clipboard text that [`Command::Paste`] reads back.
/// Written from the nodes' and edges' own text: copying all 100,000 nodes of a workflow
/// through parsed objects first raised the editor's peak by 270 MiB.
pub fn clipboard_json(wf: &Workflow, ids: &HashSet<String>) -> Option<String> {
    let nodes: Vec<&Node> = selected_nodes(wf, ids).collect();
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

/// The nodes named by `ids`, in file order.
fn selected_nodes<'a>(wf: &'a Workflow, ids: &'a HashSet<String>) -> impl Iterator<Item = &'a Node> + 'a {
    wf.nodes_in_order().into_iter().map(|ix| &wf.graph[ix]).filter(|n| ids.contains(n.id()))
}

/// The edges between nodes named by `ids`, in file order.
fn selected_edges<'a>(wf: &'a Workflow, ids: &'a HashSet<String>) -> impl Iterator<Item = &'a Edge> + 'a {
    wf.edges_in_order()
        .into_iter()
        .map(|e| &wf.graph[e])
        .filter(|e| ids.contains(e.source()) && ids.contains(e.target()))
}

/// The nodes named by `ids` and the edges among them, in file order (what a copy or a
/// duplicate takes): copies that share their text with the workflow's.
pub fn selected(wf: &Workflow, ids: &HashSet<String>) -> (Vec<Node>, Vec<Edge>) {
    (selected_nodes(wf, ids).cloned().collect(), selected_edges(wf, ids).cloned().collect())
}

/// Read clipboard text written by [`clipboard_json`]; anything else is not ours. Each node
/// and edge is held compactly as soon as it is read (as parsed objects, the nodes of a
/// 100,000-node paste took over 200 MiB at once); members that are not objects are skipped.
pub fn parse_clipboard(text: &str) -> Option<(Vec<Node>, Vec<Edge>)> {
    #[derive(serde::Deserialize)]
    struct Clipboard {
        #[serde(rename = "chainsmithClipboard")]
        _tag: serde::de::IgnoredAny,
        #[serde(default)]
        nodes: Vec<Compact<Node>>,
        #[serde(default)]
        edges: Vec<Compact<Edge>>,
    }
    // An object only (serde would read a struct from a list as well).
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let clipboard: Clipboard = serde_json::from_str(text).ok()?;
    Some((held(clipboard.nodes), held(clipboard.edges)))
}

/// One element of the clipboard's `nodes` or `edges`: held compactly when it is an object.
struct Compact<T>(Option<T>);

fn held<T>(items: Vec<Compact<T>>) -> Vec<T> {
    items.into_iter().filter_map(|c| c.0).collect()
}

/// Nodes and edges, made from their objects.
trait FromObject {
    fn from_object(object: Map<String, Value>) -> Self;
}

impl FromObject for Node {
    fn from_object(object: Map<String, Value>) -> Self {
        Node::new(object, 0)
    }
}

impl FromObject for Edge {
    fn from_object(object: Map<String, Value>) -> Self {
        Edge::new(object, 0)
    }
}

impl<'de, T: FromObject> serde::Deserialize<'de> for Compact<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Self(match Value::deserialize(d)? {
            Value::Object(o) => Some(T::from_object(o)),
            _ => None,
        }))
    }
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
        let (nodes, edges) = selected(&wf, &ids);
        let nodes: Vec<Value> = nodes.iter().map(|n| Value::Object(n.object())).collect();
        let edges: Vec<Value> = edges.iter().map(|e| Value::Object(e.json())).collect();
        let expected =
            serde_json::to_string_pretty(&json!({"chainsmithClipboard": 1, "nodes": nodes, "edges": edges})).unwrap();
        let text = clipboard_json(&wf, &ids).unwrap();
        assert_eq!(text, expected);
        let (nodes, edges) = parse_clipboard(&text).unwrap();
        assert_eq!(nodes.iter().map(Node::id).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(edges.len(), 1, "only the edge between copied nodes");
        assert_eq!(nodes[0].object()["config"]["n"].to_string(), "1.50", "numbers keep their text");
        let mixed = r#"{"chainsmithClipboard": 1, "nodes": [3, {"id": "x"}, null], "edges": "no"}"#;
        assert!(parse_clipboard(mixed).is_none(), "edges that are not a list: not ours");
        let mixed = r#"{"chainsmithClipboard": 1, "nodes": [3, {"id": "x"}, null]}"#;
        let (nodes, edges) = parse_clipboard(mixed).unwrap();
        assert_eq!((nodes.len(), edges.len()), (1, 0), "members that are not objects are skipped");
        assert!(clipboard_json(&wf, &HashSet::new()).is_none());
        assert!(parse_clipboard("[1]").is_none() && parse_clipboard("{\"nodes\": []}").is_none());
    }
}

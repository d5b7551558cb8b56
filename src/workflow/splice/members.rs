//! Fragment nodes and edges shaped as the workflow's own JSON (chain-packs §6.3, §4.5).

use serde_json::{Map, Value, json};

/// A fragment node made into a WorkflowNode: `name`, `position`, `config` and `inputs` are
/// filled when absent (chain-packs §6.3); the required members lead, the rest follow in order.
pub(super) fn workflow_node(node: &Value, fragment_id: &str, pos: (f64, f64)) -> Map<String, Value> {
    let src = node.as_object().cloned().unwrap_or_default();
    let mut out = Map::with_capacity(src.len() + 4);
    out.insert("id".into(), src.get("id").cloned().unwrap_or(Value::Null));
    out.insert("typeId".into(), src.get("typeId").cloned().unwrap_or(Value::Null));
    out.insert("name".into(), src.get("name").cloned().unwrap_or_else(|| Value::String(fragment_id.to_owned())));
    out.insert("position".into(), json!({"x": super::super::coordinate(pos.0), "y": super::super::coordinate(pos.1)}));
    out.insert("config".into(), src.get("config").cloned().unwrap_or_else(|| json!({})));
    out.insert("inputs".into(), src.get("inputs").cloned().unwrap_or_else(|| json!({})));
    for (k, v) in src {
        if !out.contains_key(&k) {
            out.insert(k, v);
        }
    }
    out
}

/// The node and port (empty for none) a fragment edge's `from` or `to` names: `node.port`.
pub(super) fn edge_end<'e>(edge: &'e Value, key: &str) -> (&'e str, &'e str) {
    let text = edge.get(key).and_then(Value::as_str).unwrap_or_default();
    text.split_once('.').unwrap_or((text, ""))
}

/// A fragment edge (`from`/`to`) made into a WorkflowEdge (chain-packs §4.5).
pub(super) fn workflow_edge(edge: &Value, id: &str) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("id".into(), Value::String(id.to_owned()));
    for (key, node_key, port_key) in [("from", "sourceNodeId", "sourceOutput"), ("to", "targetNodeId", "targetInput")] {
        let (node, port) = edge_end(edge, key);
        out.insert(node_key.into(), Value::String(node.to_owned()));
        if !port.is_empty() {
            out.insert(port_key.into(), Value::String(port.to_owned()));
        }
    }
    for key in ["condition", "triggerRule"] {
        if let Some(v) = edge.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    canonical_edge(out)
}

/// Edge members in canonical order: id, source…, target…, condition, triggerRule, then
/// anything else as it was.
pub(super) fn canonical_edge(mut json: Map<String, Value>) -> Map<String, Value> {
    const ORDER: [&str; 7] =
        ["id", "sourceNodeId", "sourceOutput", "targetNodeId", "targetInput", "condition", "triggerRule"];
    let mut out = Map::with_capacity(json.len());
    for key in ORDER {
        if let Some(v) = json.remove(key) {
            out.insert(key.to_owned(), v);
        }
    }
    out.extend(json);
    out
}

/// A plain edge from `source` to `target`, default ports.
pub(super) fn json_edge(id: &str, source: &str, target: &str) -> Map<String, Value> {
    let Value::Object(m) = json!({"id": id, "sourceNodeId": source, "targetNodeId": target}) else { unreachable!() };
    m
}

//! Two workflows compared: the nodes and edges added and removed (by id), and for those in
//! both, each member that changed, as a JSON pointer inside the node or edge.

use crate::workflow::merge3::differences;
use crate::workflow::{ExportMode, Workflow};
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};

fn by_id(doc: &Value, list: &str) -> Vec<(String, Map<String, Value>)> {
    doc.get(list)
        .and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .filter_map(Value::as_object)
                .filter_map(|o| Some((o.get("id")?.as_str()?.to_owned(), o.clone())))
                .collect()
        })
        .unwrap_or_default()
}

fn compare(old: &Value, new: &Value, list: &str, what: &str) -> Value {
    let (a, b) = (by_id(old, list), by_id(new, list));
    let b_map: HashMap<&str, &Map<String, Value>> = b.iter().map(|(id, o)| (id.as_str(), o)).collect();
    let a_ids: HashSet<&str> = a.iter().map(|(id, _)| id.as_str()).collect();
    let mut removed = Vec::new();
    let mut changed = Vec::new();
    for (id, o) in &a {
        match b_map.get(id.as_str()) {
            None => removed.push(Value::String(id.clone())),
            Some(n) => {
                let mut diffs = Vec::new();
                differences("", o, n, &[], &mut diffs);
                changed.extend(
                    diffs
                        .into_iter()
                        .map(|(member, old, new)| json!({what: id, "member": member, "old": old, "new": new})),
                );
            }
        }
    }
    let added: Vec<Value> =
        b.iter().filter(|(id, _)| !a_ids.contains(id.as_str())).map(|(id, _)| Value::String(id.clone())).collect();
    json!({"added": added, "removed": removed, "changed": changed})
}

/// `{nodes: {added, removed, changed}, edges: {…}}` from `old` to `new`.
pub fn diff_workflows(old: &Workflow, new: &Workflow) -> Value {
    let (a, b) = (old.to_json(ExportMode::Faithful), new.to_json(ExportMode::Faithful));
    json!({"nodes": compare(&a, &b, "nodes", "node"), "edges": compare(&a, &b, "edges", "edge")})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_edges_and_members_added_removed_and_changed() {
        let old = Workflow::from_json(json!({"id": "w", "name": "w", "version": "1",
            "nodes": [{"id": "a", "typeId": "t", "config": {"x": 1}}, {"id": "b", "typeId": "t"}],
            "edges": [{"id": "e1", "sourceNodeId": "a", "targetNodeId": "b"}]}))
        .unwrap();
        let new = Workflow::from_json(json!({"id": "w", "name": "w", "version": "1",
            "nodes": [{"id": "a", "typeId": "t", "config": {"x": 2}}, {"id": "c", "typeId": "t"}],
            "edges": []}))
        .unwrap();
        let d = diff_workflows(&old, &new);
        assert_eq!(d["nodes"]["added"], json!(["c"]));
        assert_eq!(d["nodes"]["removed"], json!(["b"]));
        assert_eq!(d["nodes"]["changed"], json!([{"node": "a", "member": "/config/x", "old": 1, "new": 2}]));
        assert_eq!(d["edges"]["removed"], json!(["e1"]));
    }
}

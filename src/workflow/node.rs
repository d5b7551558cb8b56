//! A workflow node: its JSON object behind one accessor for reads and one for writes, so
//! how the object is held is this module's business alone.

use serde_json::{Map, Value, json};
use std::sync::Arc;

/// A node's JSON object, shared: copying a workflow (an undo snapshot, the lint worker's
/// copy, a dry run) shares every body with the original, and changing a node gives it a new
/// body, leaving the copies theirs.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeBody(Arc<Map<String, Value>>);

impl NodeBody {
    fn new(json: Map<String, Value>) -> Self {
        Self(Arc::new(json))
    }

    fn id(&self) -> &str {
        self.0.get("id").and_then(Value::as_str).unwrap_or_default()
    }

    /// Whether two bodies are one shared object (not merely equal).
    #[cfg(test)]
    pub fn shared_with(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A workflow node: its JSON object plus its position in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    body: NodeBody,
    pub seq: u64,
}

impl Node {
    pub fn new(json: Map<String, Value>, seq: u64) -> Self {
        Self { body: NodeBody::new(json), seq }
    }

    /// The body, to keep (undo) and put back with [`Self::swap_body`].
    pub fn body(&self) -> &NodeBody {
        &self.body
    }

    /// The JSON object, an owned copy.
    pub fn object(&self) -> Map<String, Value> {
        Map::clone(&self.body.0)
    }

    /// One top-level member, an owned copy.
    pub fn member(&self, key: &str) -> Option<Value> {
        self.body.0.get(key).cloned()
    }

    pub fn has_member(&self, key: &str) -> bool {
        self.body.0.contains_key(key)
    }

    /// Change the object: `change` gets it, and it is stored as the node's new body. The
    /// `id` is what the workflow finds the node by, so it stays as it was: if `change`
    /// alters, adds or removes it, the old state is put back.
    pub fn edit<R>(&mut self, change: impl FnOnce(&mut Map<String, Value>) -> R) -> R {
        let id = self.body.0.get("id").cloned();
        let json = Arc::make_mut(&mut self.body.0);
        let out = change(json);
        if json.get("id") != id.as_ref() {
            match id {
                Some(id) => json.insert("id".into(), id),
                None => json.shift_remove("id"),
            };
        }
        out
    }

    /// Put in a body this node had before (undo), returning the current one. A body with
    /// another `id` is not taken: the workflow's lookup finds the node by its `id`, so the
    /// node keeps its body and `body` is handed back.
    pub fn swap_body(&mut self, body: NodeBody) -> NodeBody {
        if body.id() != self.id() {
            return body;
        }
        std::mem::replace(&mut self.body, body)
    }

    pub fn id(&self) -> &str {
        self.body.id()
    }

    pub fn type_id(&self) -> &str {
        self.body.0.get("typeId").and_then(Value::as_str).unwrap_or_default()
    }

    pub fn name(&self) -> &str {
        self.body.0.get("name").and_then(Value::as_str).unwrap_or_default()
    }

    pub fn position(&self) -> (f64, f64) {
        let p = self.body.0.get("position");
        let axis = |k: &str| p.and_then(|p| p.get(k)).and_then(Value::as_f64).unwrap_or(0.0);
        (axis("x"), axis("y"))
    }

    pub fn set_position(&mut self, x: f64, y: f64) {
        self.edit(|json| {
            let pos = json.entry("position").or_insert(Value::Null);
            *pos = placed(pos.take(), x, y);
        });
    }

    /// How many arrays and objects are nested at the deepest point of the object, itself
    /// included, counted as [`crate::fsio::nesting`] counts.
    pub fn nesting(&self) -> usize {
        1 + self.body.0.values().map(crate::fsio::nesting).max().unwrap_or(0)
    }

    /// The child this node's `config` names (a sub-chain or a child workflow), if any.
    pub fn child_ref(&self) -> Option<ChildRef> {
        child_ref(self.body.0.get("config")?)
    }

    /// The string items of `capabilities`.
    pub fn capabilities(&self) -> Vec<String> {
        self.body
            .0
            .get("capabilities")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    }
}

impl serde::Serialize for Node {
    /// The JSON object, as [`Node::object`] gives it.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.body.0.serialize(s)
    }
}

/// What a node names as its child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChildRef {
    /// `config.subChainRef`: a sibling chainId, or an external ref's `chainId`.
    Chain(String),
    /// `config.workflowId`: a child workflow already co-expanded.
    Workflow(String),
}

/// The child a node's `config` names, if it names one.
fn child_ref(config: &Value) -> Option<ChildRef> {
    match config.get("subChainRef") {
        Some(Value::String(id)) => return Some(ChildRef::Chain(id.clone())),
        Some(Value::Object(r)) => return r.get("chainId")?.as_str().map(|id| ChildRef::Chain(id.to_owned())),
        _ => {}
    }
    config.get("workflowId")?.as_str().map(|id| ChildRef::Workflow(id.to_owned()))
}

/// A `position` member moved to (x, y): its other members kept, an object made of anything
/// that is not one.
pub(crate) fn placed(position: Value, x: f64, y: f64) -> Value {
    let mut pos = if position.is_object() { position } else { json!({}) };
    pos["x"] = coordinate(x);
    pos["y"] = coordinate(y);
    pos
}

/// A coordinate as JSON: two decimals (sub-pixel drag noise is not content), and an
/// integer when whole, as JavaScript hosts write it.
pub(crate) fn coordinate(v: f64) -> Value {
    let v = (v * 100.0).round() / 100.0;
    if v.fract() == 0.0 && v.abs() < 9.0e15 { json!(v as i64) } else { json!(v) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(v: Value) -> Node {
        let Value::Object(m) = v else { panic!("an object") };
        Node::new(m, 4)
    }

    #[test]
    fn reads_members_and_the_read_out_ones() {
        let n = node(json!({"id": "n1", "typeId": "core.noop", "name": "First", "position": {"x": 10, "y": -2.5},
            "capabilities": ["cacheable", 7, "side-effectful"], "config": {"subChainRef": {"chainId": "c.child"}}}));
        assert_eq!((n.id(), n.type_id(), n.name(), n.position(), n.seq), ("n1", "core.noop", "First", (10.0, -2.5), 4));
        assert_eq!(n.capabilities(), ["cacheable", "side-effectful"]);
        assert_eq!(n.member("config"), Some(json!({"subChainRef": {"chainId": "c.child"}})));
        assert!(n.has_member("position") && !n.has_member("inputs"));
        assert_eq!(n.member("inputs"), None);
        assert_eq!(n.child_ref(), Some(ChildRef::Chain("c.child".into())));
        assert_eq!(n.nesting(), 3);
        let keys: Vec<String> = n.object().keys().cloned().collect();
        assert_eq!(keys, ["id", "typeId", "name", "position", "capabilities", "config"]);
    }

    #[test]
    fn absent_or_mistyped_members_read_as_defaults() {
        let n = node(json!({"id": "n2", "typeId": 3, "position": {"x": "1"}, "config": {"workflowId": "wfc_x"}}));
        assert_eq!((n.type_id(), n.name(), n.position()), ("", "", (0.0, 0.0)));
        assert!(n.capabilities().is_empty());
        assert_eq!(n.child_ref(), Some(ChildRef::Workflow("wfc_x".into())));
        assert_eq!(node(json!({"id": "n3", "config": {"subChainRef": 5}})).child_ref(), None);
        assert_eq!(node(json!({"id": "n4"})).nesting(), 1);
    }

    #[test]
    fn edits_keep_the_id_and_leave_copies_alone() {
        let mut n = node(json!({"id": "n1", "name": "a", "config": {}}));
        let copy = n.clone();
        let old = n.edit(|m| {
            m.insert("id".into(), json!("other"));
            m.insert("name".into(), json!("b"))
        });
        assert_eq!(old, Some(json!("a")));
        assert_eq!(n.object(), *json!({"id": "n1", "name": "b", "config": {}}).as_object().unwrap());
        assert!(!n.body().shared_with(copy.body()));
        assert_eq!(copy.name(), "a");
        n.edit(|m| m.shift_remove("id"));
        assert_eq!(n.id(), "n1");
        // A node without an id (not yet in a workflow) does not get one.
        let mut loose = node(json!({"name": "x"}));
        loose.edit(|m| m.insert("id".into(), json!("sneaked")));
        assert_eq!(loose.object(), *json!({"name": "x"}).as_object().unwrap());
    }

    #[test]
    fn a_body_is_swapped_back_only_into_its_own_node() {
        let mut n = node(json!({"id": "n1", "name": "a"}));
        let before = n.body().clone();
        n.set_position(1.0, 2.0);
        let after = n.swap_body(before.clone());
        assert_eq!(n.object(), *json!({"id": "n1", "name": "a"}).as_object().unwrap());
        assert!(n.body().shared_with(&before));
        let other = node(json!({"id": "n2"})).body().clone();
        assert!(n.swap_body(other.clone()).shared_with(&other), "another node's body is handed back");
        assert_eq!(n.id(), "n1");
        assert_eq!(n.swap_body(after).id(), "n1");
        assert_eq!(n.position(), (1.0, 2.0));
    }

    #[test]
    fn moving_keeps_other_position_members_and_rounds() {
        let mut n = node(json!({"id": "n1", "position": {"z": 1, "y": 0}, "name": "a"}));
        n.set_position(1.004, 2.5);
        assert_eq!(serde_json::to_string(&n).unwrap(), r#"{"id":"n1","position":{"z":1,"y":2.5,"x":1},"name":"a"}"#);
        let mut bad = node(json!({"id": "n2", "position": [1, 2]}));
        bad.set_position(3.0, 4.0);
        assert_eq!(bad.member("position"), Some(json!({"x": 3, "y": 4})));
        assert_eq!(placed(Value::Null, -0.005, 1e16), json!({"x": -0.01, "y": 1e16}));
    }
}

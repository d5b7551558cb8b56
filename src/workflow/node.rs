//! A workflow node, held compactly: its JSON object as compact JSON text, plus the few
//! members read all the time (`id`, `typeId`, `name`, the position, which members are
//! there), read out once.
//!
//! A parsed object costs far more than its text: every member slot of a `serde_json::Map`
//! is over a hundred bytes, beside its hash table and a heap string per key, string and
//! number. As parsed objects the nodes of a 100,000-node workflow (~30 MB of JSON) took
//! ~190 MB. The text is what `serde_json` writes for the object, so member order and members
//! chainsmith does not know round-trip exactly, and parsing it gives the object back
//! unchanged (numbers keep their text: `arbitrary_precision`). Reads of anything else parse
//! on demand ([`Node::object`], [`Node::member`]); writes go through [`Node::edit`], which
//! stores the result again, read-out members included.

use super::text;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The string members kept beside the text, in this order.
const HOT: [&str; 3] = ["id", "typeId", "name"];
const ID: usize = 0;
const TYPE_ID: usize = 1;
const NAME: usize = 2;
/// Members whose presence is kept as a flag (bit `HOT.len() + i`): what the canvas asks of
/// every card (position, capability and compensation marks) and what the lints look into,
/// so a node without them is never parsed for them.
const FLAGGED: [&str; 6] = ["position", "capabilities", "compensation", "irreversibleEffect", "config", "inputs"];
/// Bit set when `config` names a child ([`Node::child_ref`]).
const CHILD: u16 = 1 << (HOT.len() + FLAGGED.len());
/// Bit set when `irreversibleEffect` is `true`.
const IRREVERSIBLE: u16 = CHILD << 1;

/// A node's JSON object, shared: copying a workflow (an undo snapshot, the lint worker's
/// copy, a dry run) shares every body with the original, and changing a node gives it a new
/// body, leaving the copies theirs.
#[derive(Debug, Clone)]
pub struct NodeBody(Arc<Stored>);

#[derive(Debug)]
struct Stored {
    /// The object as compact JSON, then the values of hot strings whose JSON text has
    /// escapes (the others are read from inside the text, between their quotes).
    buf: Box<str>,
    /// Where the text ends in `buf`.
    text_end: u32,
    /// Where each hot string's value lies in `buf`, when bit i of `flags` says it is there.
    hot: [(u32, u32); HOT.len()],
    /// `position.x` and `position.y` as numbers (0 when absent or not numbers).
    position: (f64, f64),
    /// Bit i: `HOT[i]` is a string; then one bit per [`FLAGGED`] member present;
    /// [`CHILD`]; [`IRREVERSIBLE`].
    flags: u16,
}

/// Offsets into a node's buffer: a node is part of a document read whole into memory, far
/// below 4 GiB.
fn offset(n: usize) -> u32 {
    u32::try_from(n).expect("a node's text fits in 4 GiB")
}

impl Stored {
    fn new(json: &Map<String, Value>) -> Self {
        // The text as serde_json writes it (`{"k":v,...}`), written member by member so
        // where each value lies is known.
        let mut buf: Vec<u8> = Vec::with_capacity(64);
        let mut spans = [None; HOT.len()];
        buf.push(b'{');
        for (i, (key, value)) in json.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            serde_json::to_writer(&mut buf, key).expect("a string always serialises");
            buf.push(b':');
            let start = buf.len();
            serde_json::to_writer(&mut buf, value).expect("a JSON value always serialises");
            if let Some(h) = HOT.iter().position(|k| k == key)
                && let Value::String(v) = value
            {
                spans[h] = Some((start, buf.len(), v));
            }
        }
        buf.push(b'}');
        let text_end = buf.len();
        let mut hot = [(0, 0); HOT.len()];
        let mut flags = 0u16;
        for (h, span) in spans.into_iter().enumerate() {
            let Some((start, end, v)) = span else { continue };
            flags |= 1 << h;
            // Unescaped, the value is its text between the quotes.
            hot[h] = if end - start == v.len() + 2 {
                (offset(start + 1), offset(end - 1))
            } else {
                let at = buf.len();
                buf.extend_from_slice(v.as_bytes());
                (offset(at), offset(buf.len()))
            };
        }
        for (f, key) in FLAGGED.iter().enumerate() {
            if json.contains_key(*key) {
                flags |= 1 << (HOT.len() + f);
            }
        }
        if json.get("config").and_then(child_ref).is_some() {
            flags |= CHILD;
        }
        if json.get("irreversibleEffect") == Some(&Value::Bool(true)) {
            flags |= IRREVERSIBLE;
        }
        let p = json.get("position");
        let axis = |k: &str| p.and_then(|p| p.get(k)).and_then(Value::as_f64).unwrap_or(0.0);
        let buf = String::from_utf8(buf).expect("serde_json writes UTF-8");
        Self { buf: buf.into_boxed_str(), text_end: offset(text_end), hot, position: (axis("x"), axis("y")), flags }
    }

    fn text(&self) -> &str {
        &self.buf[..self.text_end as usize]
    }

    fn hot(&self, h: usize) -> Option<&str> {
        let (start, end) = self.hot[h];
        (self.flags & (1 << h) != 0).then(|| &self.buf[start as usize..end as usize])
    }

    /// Whether a [`FLAGGED`] member is present; `None` for other names.
    fn flagged(&self, key: &str) -> Option<bool> {
        let f = FLAGGED.iter().position(|k| *k == key)?;
        Some(self.flags & (1 << (HOT.len() + f)) != 0)
    }
}

impl NodeBody {
    fn new(json: &Map<String, Value>) -> Self {
        Self(Arc::new(Stored::new(json)))
    }

    fn id(&self) -> &str {
        self.0.hot(ID).unwrap_or_default()
    }

    /// Whether two bodies are one shared object (not merely equal).
    #[cfg(test)]
    pub fn shared_with(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A workflow node: its JSON object plus its position in file order.
#[derive(Debug, Clone)]
pub struct Node {
    body: NodeBody,
    pub seq: u64,
}

impl Node {
    pub fn new(json: Map<String, Value>, seq: u64) -> Self {
        Self { body: NodeBody::new(&json), seq }
    }

    /// The body, to keep (undo) and put back with [`Self::swap_body`].
    pub fn body(&self) -> &NodeBody {
        &self.body
    }

    /// The JSON object, parsed from the text (an owned copy).
    pub fn object(&self) -> Map<String, Value> {
        text::object(self.text())
    }

    /// The object as compact JSON, exactly as `serde_json` writes it.
    pub fn text(&self) -> &str {
        self.body.0.text()
    }

    /// One top-level member, parsed alone.
    pub fn member(&self, key: &str) -> Option<Value> {
        if self.body.0.flagged(key) == Some(false) {
            return None;
        }
        text::member(self.text(), key)
    }

    pub fn has_member(&self, key: &str) -> bool {
        self.body
            .0
            .flagged(key)
            .unwrap_or_else(|| text::members(self.text()).is_some_and(|members| members.iter().any(|(k, _)| k == key)))
    }

    /// Change the object: `change` gets it parsed, and it is stored as the node's new body
    /// (the read-out members read again). The `id` is what the workflow finds the node by,
    /// so it stays as it was: if `change` alters, adds or removes it, the old state is put
    /// back. Copies of the workflow keep the old body.
    pub fn edit<R>(&mut self, change: impl FnOnce(&mut Map<String, Value>) -> R) -> R {
        let mut json = self.object();
        let id = json.get("id").cloned();
        let out = change(&mut json);
        if json.get("id") != id.as_ref() {
            match id {
                Some(id) => json.insert("id".into(), id),
                None => json.shift_remove("id"),
            };
        }
        self.body = NodeBody::new(&json);
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
        self.body.0.hot(TYPE_ID).unwrap_or_default()
    }

    pub fn name(&self) -> &str {
        self.body.0.hot(NAME).unwrap_or_default()
    }

    pub fn position(&self) -> (f64, f64) {
        self.body.0.position
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
        text::nesting(self.text())
    }

    /// Whether `irreversibleEffect` is `true`.
    pub fn is_irreversible(&self) -> bool {
        self.body.0.flags & IRREVERSIBLE != 0
    }

    /// The child this node's `config` names (a sub-chain or a child workflow), if any.
    pub fn child_ref(&self) -> Option<ChildRef> {
        if self.body.0.flags & CHILD == 0 {
            return None;
        }
        child_ref(&self.member("config")?)
    }

    /// The string items of `capabilities`.
    pub fn capabilities(&self) -> Vec<String> {
        let Some(Value::Array(items)) = self.member("capabilities") else { return Vec::new() };
        items
            .into_iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect()
    }
}

impl serde::Serialize for Node {
    /// The object as [`Node::object`] gives it, written from its text ([`text::Written`]).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        text::Written(self.text()).serialize(s)
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
    fn holds_the_text_serde_json_writes_and_reads_escaped_strings_back() {
        let text = r#"{"zeta":[1,{"b":2,"a":1}],"name":"line\none","id":"n\"1","x-vendor":{"k":null},"typeId":"t.\u0001","n":1.50}"#;
        let parsed: Map<String, Value> = serde_json::from_str(text).unwrap();
        let n = Node::new(parsed.clone(), 1);
        assert_eq!(n.text(), text);
        assert_eq!(n.object(), parsed);
        let keys: Vec<String> = n.object().keys().cloned().collect();
        assert_eq!(keys, ["zeta", "name", "id", "x-vendor", "typeId", "n"]);
        assert_eq!((n.id(), n.type_id(), n.name()), ("n\"1", "t.\u{1}", "line\none"));
        assert_eq!(n.member("n").unwrap().to_string(), "1.50", "numbers keep their text");
        assert!(n.has_member("x-vendor") && !n.has_member("x-other"));
        assert_eq!(n.member("x-vendor"), Some(json!({"k": null})));
        // Written out, pretty or compact, it is its object.
        assert_eq!(serde_json::to_string_pretty(&n).unwrap(), serde_json::to_string_pretty(&parsed).unwrap());
        assert_eq!(serde_json::to_string(&n).unwrap(), text);
        let empty = node(json!({"id": "", "name": ""}));
        assert_eq!((empty.id(), empty.name(), empty.text()), ("", "", r#"{"id":"","name":""}"#));
    }

    #[test]
    fn flags_follow_edits() {
        let mut n = node(json!({"id": "n1", "position": {"x": 1, "y": 2}}));
        assert!(!n.is_irreversible() && n.child_ref().is_none() && n.capabilities().is_empty());
        assert_eq!(n.member("compensation"), None);
        n.edit(|m| {
            m.insert("irreversibleEffect".into(), json!(true));
            m.insert("compensation".into(), json!({"nodeTypeId": "undo"}));
            m.insert("config".into(), json!({"workflowId": "wfc_a"}));
            m.shift_remove("position");
        });
        assert!(n.is_irreversible() && n.has_member("compensation") && !n.has_member("position"));
        assert_eq!((n.position(), n.child_ref()), ((0.0, 0.0), Some(ChildRef::Workflow("wfc_a".into()))));
        n.edit(|m| m.insert("irreversibleEffect".into(), json!("yes")));
        assert!(!n.is_irreversible() && n.has_member("irreversibleEffect"));
    }

    #[test]
    fn a_node_one_level_past_the_parser_limit_reads_back() {
        let mut deep = json!(1);
        for _ in 0..crate::fsio::MAX_JSON_NESTING {
            deep = json!([deep]);
        }
        let n = node(json!({"id": "n1", "config": deep}));
        assert_eq!(n.nesting(), crate::fsio::MAX_JSON_NESTING + 1);
        assert_eq!(n.member("config"), Some(deep.clone()));
        assert_eq!(n.object()["config"], deep);
        assert_eq!(serde_json::to_value(&n).unwrap(), json!({"id": "n1", "config": deep}));
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

//! A workflow edge, held compactly: its JSON object as compact JSON text plus the few string
//! members the graph reads, read out once.
//!
//! Edges are many and small (`{"id":"e1","sourceNodeId":"a","targetNodeId":"b"}` is 50
//! bytes), and a parsed object costs far more than its text: every member slot of a
//! `serde_json::Map` is over a hundred bytes, beside its hash table and a heap string per
//! key. As parsed objects the edges of a 100,000-node workflow took ~90 MB; as text they
//! take about a sixth. The text is what `serde_json` writes for the object, so member order
//! and members chainsmith does not know round-trip exactly, and parsing it gives the object
//! back unchanged (numbers keep their text: `arbitrary_precision`).

use serde_json::{Map, Value};
use std::sync::Arc;

/// The members whose string values are kept beside the text, in this order.
const HOT: [&str; 6] = ["id", "sourceNodeId", "targetNodeId", "sourceOutput", "targetInput", "triggerRule"];
const ID: usize = 0;
const SOURCE: usize = 1;
const TARGET: usize = 2;
const SOURCE_OUTPUT: usize = 3;
const TARGET_INPUT: usize = 4;
const TRIGGER_RULE: usize = 5;
/// Bit of [`Stored::flags`] set when the object has a `condition` member.
const HAS_CONDITION: u8 = 1 << HOT.len();

/// A workflow edge: its JSON object plus its position in file order. Cloning shares the
/// object (copying a workflow, an undo snapshot, costs a reference count per edge).
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    stored: Arc<Stored>,
    pub seq: u64,
}

#[derive(Debug, PartialEq)]
struct Stored {
    /// The hot members' string values one after another, then the object as compact JSON.
    buf: Box<str>,
    /// Where each hot member's value ends in `buf` (the first starts at 0; the text starts
    /// where the last ends).
    ends: [u32; HOT.len()],
    /// Bit i: `HOT[i]` is a string member; [`HAS_CONDITION`].
    flags: u8,
}

impl Edge {
    pub fn new(json: Map<String, Value>, seq: u64) -> Self {
        Self { stored: Arc::new(Stored::new(&json)), seq }
    }

    /// The JSON object, parsed from the text (an owned copy: edges are a few members).
    pub fn json(&self) -> Map<String, Value> {
        super::text::object(self.text())
    }

    /// The object as compact JSON, exactly as `serde_json` writes it.
    pub fn text(&self) -> &str {
        &self.stored.buf[self.stored.ends[HOT.len() - 1] as usize..]
    }

    /// Change the object: `change` gets it parsed, and it is stored again afterwards (the
    /// members the accessors read included). Copies of the workflow keep the old object.
    pub fn update<R>(&mut self, change: impl FnOnce(&mut Map<String, Value>) -> R) -> R {
        let mut json = self.json();
        let out = change(&mut json);
        self.stored = Arc::new(Stored::new(&json));
        out
    }

    /// A string member kept beside the text, `None` when it is absent or not a string.
    fn hot(&self, i: usize) -> Option<&str> {
        let s = &self.stored;
        let start = if i == 0 { 0 } else { s.ends[i - 1] as usize };
        (s.flags & (1 << i) != 0).then(|| &s.buf[start..s.ends[i] as usize])
    }

    pub fn id(&self) -> &str {
        self.hot(ID).unwrap_or_default()
    }

    /// `id` when it is a string (an empty one included).
    pub fn id_member(&self) -> Option<&str> {
        self.hot(ID)
    }

    pub fn source(&self) -> &str {
        self.hot(SOURCE).unwrap_or_default()
    }

    pub fn target(&self) -> &str {
        self.hot(TARGET).unwrap_or_default()
    }

    /// `sourceOutput` when it is a string.
    pub fn source_output(&self) -> Option<&str> {
        self.hot(SOURCE_OUTPUT)
    }

    /// `targetInput` when it is a string.
    pub fn target_input(&self) -> Option<&str> {
        self.hot(TARGET_INPUT)
    }

    /// The source port; the schema's default meaning is `output`.
    pub fn source_port(&self) -> &str {
        self.source_output().unwrap_or("output")
    }

    /// The target port; the schema's default meaning is `input`.
    pub fn target_port(&self) -> &str {
        self.target_input().unwrap_or("input")
    }

    pub fn trigger_rule(&self) -> Option<&str> {
        self.hot(TRIGGER_RULE)
    }

    /// How many arrays and objects are nested at the deepest point of the object, itself
    /// included, counted as [`crate::fsio::nesting`] counts.
    pub fn nesting(&self) -> usize {
        super::text::nesting(self.text())
    }

    /// Whether the object has a `condition` member (without parsing it).
    pub fn has_condition(&self) -> bool {
        self.stored.flags & HAS_CONDITION != 0
    }

    /// The `condition` member (parsed only for an edge that has one).
    pub fn condition(&self) -> Option<Value> {
        self.has_condition().then(|| self.json().shift_remove("condition")).flatten()
    }
}

impl Stored {
    fn new(json: &Map<String, Value>) -> Self {
        let text = serde_json::to_string(json).expect("a JSON object always serialises");
        let mut buf = String::new();
        let mut ends = [0; HOT.len()];
        let mut flags = 0;
        for (i, key) in HOT.into_iter().enumerate() {
            if let Some(Value::String(v)) = json.get(key) {
                buf.reserve_exact(v.len());
                buf.push_str(v);
                flags |= 1 << i;
            }
            // The values come from an object whose text is in memory beside them, so they
            // are far below 4 GiB together.
            ends[i] = u32::try_from(buf.len()).expect("an edge's ids and ports fit in 4 GiB");
        }
        if json.contains_key("condition") {
            flags |= HAS_CONDITION;
        }
        buf.reserve_exact(text.len());
        buf.push_str(&text);
        Self { buf: buf.into_boxed_str(), ends, flags }
    }
}

impl serde::Serialize for Edge {
    /// The object as [`Edge::json`] gives it, written from its text ([`super::text::Written`]):
    /// parsing every edge into a map made saving 100,000 edges a tenth of a second slower.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        super::text::Written(self.text()).serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edge(v: Value) -> Edge {
        let Value::Object(m) = v else { panic!("an object") };
        Edge::new(m, 7)
    }

    #[test]
    fn keeps_member_order_and_unknown_members() {
        let text = r#"{"zeta":[1,{"b":2,"a":1}],"targetNodeId":"b","x-vendor":{"k":null},"id":"e1","sourceNodeId":"a","n":1.50}"#;
        let parsed: Map<String, Value> = serde_json::from_str(text).unwrap();
        let e = Edge::new(parsed.clone(), 3);
        assert_eq!(e.text(), text);
        assert_eq!(e.json(), parsed);
        let keys: Vec<String> = e.json().keys().cloned().collect();
        assert_eq!(keys, ["zeta", "targetNodeId", "x-vendor", "id", "sourceNodeId", "n"]);
        assert_eq!((e.id(), e.source(), e.target(), e.seq), ("e1", "a", "b", 3));
        assert_eq!(serde_json::to_string_pretty(&e).unwrap(), serde_json::to_string_pretty(&parsed).unwrap());
    }

    /// Written from its text or parsed, an edge comes out as its parsed object would, pretty
    /// and compact.
    #[test]
    fn serialises_as_its_object_with_and_without_nested_values() {
        let cases = [
            json!({"id": "e1", "sourceNodeId": "a", "targetNodeId": "b"}),
            json!({"id": "e\"1", "k\u{e9}y\n": "v\u{1F600}\\", "n": 1.50, "big": 12345678901234567890u64, "t": true, "z": null}),
            json!({"id": "e2", "condition": {"type": "truthy", "left": "$.ok"}, "w": [1, [2, {}], []]}),
            json!({"empty": {}, "none": []}),
            json!({}),
        ];
        for v in cases {
            let e = edge(v.clone());
            assert_eq!(serde_json::to_string_pretty(&e).unwrap(), serde_json::to_string_pretty(&v).unwrap(), "{v}");
            assert_eq!(serde_json::to_string(&e).unwrap(), serde_json::to_string(&v).unwrap(), "{v}");
            assert_eq!(serde_json::to_value(&e).unwrap(), v);
        }
    }

    #[test]
    fn non_string_members_read_as_before() {
        let e = edge(json!({"id": 5, "sourceNodeId": null, "targetNodeId": ["b"], "sourceOutput": 1,
            "targetInput": {"p": "q"}, "triggerRule": true}));
        assert_eq!((e.id(), e.source(), e.target()), ("", "", ""));
        assert_eq!((e.source_port(), e.target_port()), ("output", "input"));
        assert_eq!((e.source_output(), e.target_input(), e.trigger_rule()), (None, None, None));
        assert_eq!(e.json()["id"], json!(5));
        let absent = edge(json!({}));
        assert_eq!((absent.id(), absent.source_port(), absent.target_port()), ("", "output", "input"));
        assert_eq!(absent.condition(), None);
    }

    #[test]
    fn escaped_and_empty_strings_read_unescaped() {
        let e = edge(json!({"id": "e\"1\\\n", "sourceNodeId": "", "targetNodeId": "b✓", "sourceOutput": "o",
            "targetInput": "", "triggerRule": "one_success"}));
        assert_eq!((e.id(), e.source(), e.target()), ("e\"1\\\n", "", "b✓"));
        assert_eq!((e.source_port(), e.target_input(), e.trigger_rule()), ("o", Some(""), Some("one_success")));
        assert_eq!(e.target_port(), "");
    }

    #[test]
    fn update_stores_the_change_and_reads_the_members_again() {
        let mut e = edge(json!({"id": "e1", "sourceNodeId": "a", "targetNodeId": "b", "label": "x"}));
        let copy = e.clone();
        let old = e.update(|m| {
            m.insert("sourceOutput".into(), json!("yes"));
            m.insert("condition".into(), json!({"type": "truthy", "left": "$.ok"}));
            m.insert("id".into(), json!("e9"));
            m.insert("label".into(), json!("y"))
        });
        assert_eq!(old, Some(json!("x")));
        assert_eq!((e.id(), e.source_port(), e.seq), ("e9", "yes", 7));
        assert_eq!(e.condition(), Some(json!({"type": "truthy", "left": "$.ok"})));
        assert!(e.has_condition());
        assert_eq!(
            e.text(),
            r#"{"id":"e9","sourceNodeId":"a","targetNodeId":"b","label":"y","sourceOutput":"yes","condition":{"type":"truthy","left":"$.ok"}}"#
        );
        // The copy still has the object it was made with.
        assert_eq!((copy.id(), copy.source_port(), copy.condition()), ("e1", "output", None));
        e.update(|m| m.shift_remove("condition"));
        assert_eq!((e.condition(), e.has_condition()), (None, false));
    }

    #[test]
    fn an_object_one_level_past_the_parser_limit_reads_back() {
        let mut deep = json!(1);
        for _ in 0..crate::fsio::MAX_JSON_NESTING {
            deep = json!([deep]);
        }
        let e = edge(json!({"id": "e1", "condition": deep}));
        assert_eq!(e.nesting(), crate::fsio::MAX_JSON_NESTING + 1);
        assert_eq!(e.condition(), Some(deep));
    }

    #[test]
    fn nesting_counts_as_the_parser_does() {
        let cases = [
            json!({}),
            json!({"id": "a[{", "x": [1, {"y": "\\\"]"}], "z": {"w": []}}),
            json!({"a": [[[]]], "b": "}}}}", "c": {"d": {"e": "\\"}}}),
        ];
        for v in cases {
            let e = edge(v.clone());
            assert_eq!(e.nesting(), crate::fsio::nesting(&v), "{v}");
        }
    }
}

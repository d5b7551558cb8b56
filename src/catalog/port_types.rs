//! Typed port compatibility: whether what an output port produces can go into an input
//! port, judged from the JSON types the catalog's output and input schemas declare for
//! them (node-packs §3: a port is a top-level property of the type's input or output
//! schema).
//!
//! The rule: a connection is compatible when **every JSON type the output port may
//! produce is accepted by the input port**. `integer` counts as a `number` (so an integer
//! output fits a number input), but not the other way round (a number may have a
//! fraction). A port whose schema says nothing about its type (no schema, `{}`, `true`, a
//! `$ref` that does not resolve locally, or a port the schema does not declare) produces
//! or accepts anything, so it is compatible with every port; an undeclared port is
//! reported separately as `edge_port_unknown`. `null` is a type like the others: an output
//! that may be `null` does not fit an input that refuses `null`. Only `type` (with local
//! `$ref`s followed and `anyOf`/`oneOf` branches united) is read; other keywords such as
//! `enum`, formats or bounds are the host's business at run time.

use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;

/// The seven JSON Schema types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum JsonType {
    Null,
    Boolean,
    Integer,
    Number,
    String,
    Array,
    Object,
}

impl JsonType {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "null" => Self::Null,
            "boolean" => Self::Boolean,
            "integer" => Self::Integer,
            "number" => Self::Number,
            "string" => Self::String,
            "array" => Self::Array,
            "object" => Self::Object,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Boolean => "boolean",
            Self::Integer => "integer",
            Self::Number => "number",
            Self::String => "string",
            Self::Array => "array",
            Self::Object => "object",
        }
    }
}

/// What a port schema admits: any value, or values of these types only (possibly none,
/// for the `false` schema).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortType {
    Any,
    Only(BTreeSet<JsonType>),
}

impl PortType {
    /// Whether a value of type `t` is admitted.
    fn admits(&self, t: JsonType) -> bool {
        match self {
            Self::Any => true,
            Self::Only(set) => set.contains(&t) || (t == JsonType::Integer && set.contains(&JsonType::Number)),
        }
    }
}

impl fmt::Display for PortType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Any => f.write_str("any type"),
            Self::Only(set) if set.is_empty() => f.write_str("nothing"),
            Self::Only(set) => {
                let names: Vec<&str> = set.iter().map(|t| t.as_str()).collect();
                f.write_str(&names.join(" or "))
            }
        }
    }
}

/// Local `$ref`s followed before giving up (a chain of refs, or a loop, ends as "any").
const MAX_REF_HOPS: usize = 32;

/// The schema `schema` stands for once its local `$ref`s (`#/...` into `root`) are followed.
fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> Option<&'a Value> {
    for _ in 0..MAX_REF_HOPS {
        let Some(reference) = schema.get("$ref").and_then(Value::as_str) else { return Some(schema) };
        // A `$ref` next to `type` still has that `type` applying; read it where it is.
        if schema.get("type").is_some() {
            return Some(schema);
        }
        let pointer = reference.strip_prefix('#')?;
        schema = root.pointer(pointer)?;
    }
    None
}

/// The types a schema's own `type` keyword admits, `None` when it has none (or an unknown name).
fn declared(schema: &Value) -> Option<BTreeSet<JsonType>> {
    match schema.get("type")? {
        Value::String(t) => Some(BTreeSet::from([JsonType::parse(t)?])),
        Value::Array(ts) => ts.iter().map(|t| t.as_str().and_then(JsonType::parse)).collect(),
        _ => None,
    }
}

/// What a port schema admits, read from `type`, a local `$ref`, or the union of
/// `anyOf`/`oneOf` branches that each declare a type (one level: a branch without its own
/// `type` makes the whole union "any").
pub fn port_type(root: &Value, schema: Option<&Value>) -> PortType {
    let Some(schema) = schema.and_then(|s| resolve(root, s)) else { return PortType::Any };
    match schema {
        Value::Bool(true) => return PortType::Any,
        Value::Bool(false) => return PortType::Only(BTreeSet::new()),
        _ => {}
    }
    if let Some(types) = declared(schema) {
        return PortType::Only(types);
    }
    for key in ["anyOf", "oneOf"] {
        let Some(branches) = schema.get(key).and_then(Value::as_array) else { continue };
        let mut union = BTreeSet::new();
        for branch in branches {
            match resolve(root, branch).and_then(declared) {
                Some(types) => union.extend(types),
                None => return PortType::Any,
            }
        }
        if !branches.is_empty() {
            return PortType::Only(union);
        }
    }
    PortType::Any
}

/// Why values from `output` cannot go into `input`: the output's types the input refuses.
/// `None` when the connection is compatible (see the module's rule).
pub fn incompatibility(output: &PortType, input: &PortType) -> Option<Vec<JsonType>> {
    let PortType::Only(produced) = output else {
        return None;
    };
    let refused: Vec<JsonType> = produced.iter().copied().filter(|t| !input.admits(*t)).collect();
    (!refused.is_empty()).then_some(refused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ty(schema: Value) -> PortType {
        port_type(&json!({}), Some(&schema))
    }

    fn fits(out: Value, inp: Value) -> bool {
        incompatibility(&ty(out), &ty(inp)).is_none()
    }

    #[test]
    fn same_types_fit_and_different_ones_do_not() {
        assert!(fits(json!({"type": "string"}), json!({"type": "string"})));
        assert!(!fits(json!({"type": "boolean"}), json!({"type": "string"})));
        assert!(!fits(json!({"type": "object"}), json!({"type": "array"})));
    }

    #[test]
    fn integer_widens_to_number_but_number_does_not_narrow() {
        assert!(fits(json!({"type": "integer"}), json!({"type": "number"})));
        assert!(!fits(json!({"type": "number"}), json!({"type": "integer"})));
        assert_eq!(
            incompatibility(&ty(json!({"type": "number"})), &ty(json!({"type": "integer"}))),
            Some(vec![JsonType::Number])
        );
    }

    #[test]
    fn untyped_or_missing_schemas_fit_anything() {
        assert!(fits(json!({}), json!({"type": "string"})));
        assert!(fits(json!({"type": "string"}), json!({})));
        assert!(fits(json!(true), json!({"type": "integer"})));
        assert_eq!(port_type(&json!({}), None), PortType::Any);
        // An unknown type name says nothing we can check.
        assert_eq!(ty(json!({"type": "date"})), PortType::Any);
    }

    #[test]
    fn every_produced_type_must_be_accepted() {
        assert!(!fits(json!({"type": ["string", "null"]}), json!({"type": "string"})));
        assert!(fits(json!({"type": ["string", "null"]}), json!({"type": ["null", "string", "number"]})));
        assert!(fits(json!({"type": "string"}), json!({"type": ["string", "null"]})));
        assert!(!fits(json!({"type": "string"}), json!(false)), "the false schema takes nothing");
        assert!(fits(json!(false), json!({"type": "string"})), "a port that never produces fits");
    }

    #[test]
    fn local_refs_and_unions_are_read() {
        let root = json!({"$defs": {"id": {"type": "integer"}, "loop": {"$ref": "#/$defs/loop"}}});
        assert_eq!(port_type(&root, Some(&json!({"$ref": "#/$defs/id"}))), PortType::Only([JsonType::Integer].into()));
        assert_eq!(port_type(&root, Some(&json!({"$ref": "#/$defs/loop"}))), PortType::Any, "a ref loop ends");
        assert_eq!(port_type(&root, Some(&json!({"$ref": "https://x.test/s.json"}))), PortType::Any);
        let union = json!({"anyOf": [{"type": "string"}, {"$ref": "#/$defs/id"}]});
        assert_eq!(port_type(&root, Some(&union)), PortType::Only([JsonType::String, JsonType::Integer].into()));
        assert_eq!(port_type(&root, Some(&json!({"oneOf": [{"type": "string"}, {}]}))), PortType::Any);
        assert_eq!(ty(json!({"type": ["integer", "string"]})).to_string(), "integer or string");
    }
}

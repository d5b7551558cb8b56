//! Promotion: a concrete value inside a chain's node becomes a parameter. The value is
//! replaced by a whole-value token `{{params.NAME}}` (so expansion puts back the typed value)
//! and `parameters.properties.NAME` gets the inferred type and the value as its default, so
//! expanding with defaults reproduces the chain exactly as it was extracted.

use super::is_param_name;
use crate::error::{Error, Result, code};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// One parameter to create (or to extend with more places).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Promotion {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// Where the value is: (fragment node id, JSON pointer inside the node).
    pub targets: Vec<(String, String)>,
}

impl Promotion {
    pub fn new(name: &str, node: &str, pointer: &str) -> Self {
        Self { name: name.to_owned(), targets: vec![(node.to_owned(), pointer.to_owned())], ..Default::default() }
    }
}

/// The JSON-Schema type of a value (`integer` for whole numbers written without a fraction).
pub fn infer_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Promote the values at `p.targets` in `chain` (a chain object) to parameter `p.name`.
/// All checks run first: a refusal leaves the chain unchanged.
pub fn promote(chain: &mut Map<String, Value>, p: &Promotion) -> Result<()> {
    promote_all(chain, std::slice::from_ref(p))
}

/// [`promote`] each of `promotions` in turn, finding nodes through one index of the
/// chain's node ids (a scan per target, and a copy of the fragment per promotion, made
/// 8,000 promotions take minutes). Each promotion is checked before it changes anything;
/// a refusal stops there, and the promotions before it stay applied.
pub fn promote_all(chain: &mut Map<String, Value>, promotions: &[Promotion]) -> Result<()> {
    let index: HashMap<String, usize> = chain_nodes(chain)
        .iter()
        .enumerate()
        .rev() // the first node with an id wins, as a scan from the front finds it
        .filter_map(|(i, n)| Some((n.get("id")?.as_str()?.to_owned(), i)))
        .collect();
    promote_all_at(chain, promotions, &|id| index.get(id).copied())
}

/// [`promote_all`] with the node a target names found by `position` (its place in
/// `dag.nodes`): extraction knows it from its own id lists, for workflow ids as well as
/// fragment ids, so neither the promotions nor the node ids are copied to find them.
pub(super) fn promote_all_at(
    chain: &mut Map<String, Value>,
    promotions: &[Promotion],
    position: &dyn Fn(&str) -> Option<usize>,
) -> Result<()> {
    reserve_properties(chain, promotions.len());
    for p in promotions {
        promote_one(chain, p, position)?;
    }
    Ok(())
}

/// Room in `parameters.properties` for `more` members at once: grown one insert at a time,
/// the map of thousands of parameters held up to twice its slots.
fn reserve_properties(chain: &mut Map<String, Value>, more: usize) {
    let props = chain.get_mut("parameters").and_then(|p| p.get_mut("properties"));
    if let Some(Value::Object(m)) = props {
        let old = std::mem::take(m);
        let mut sized = Map::with_capacity(old.len() + more);
        sized.extend(old);
        *m = sized;
    }
}

fn chain_nodes(chain: &Map<String, Value>) -> &[Value] {
    chain.get("dag").and_then(|d| d.get("nodes")).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

fn promote_one(chain: &mut Map<String, Value>, p: &Promotion, position: &dyn Fn(&str) -> Option<usize>) -> Result<()> {
    let name = p.name.as_str();
    if !is_param_name(name) {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!(
                "\"{name}\" cannot be a parameter name: a token names a parameter with [A-Za-z_][A-Za-z0-9_]* \
                 (letters, digits and _, not starting with a digit)"
            ),
        )
        .with("param", name));
    }
    let produced = chain.get("producedVariables").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if produced.iter().any(|pv| pv.get("name").and_then(Value::as_str) == Some(name)) {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!("\"{name}\" is a produced variable of this chain; a parameter may not share its name"),
        )
        .with("param", name));
    }
    if p.targets.is_empty() {
        return Err(Error::new(code::INVALID_REQUEST, format!("parameter \"{name}\" names no value to promote"))
            .with("param", name));
    }
    let existing = chain.get("parameters").and_then(|s| s.pointer(&format!("/properties/{name}"))).cloned();
    // Every target is read and checked before any is replaced.
    let nodes = chain_nodes(chain);
    let mut value: Option<Value> = existing.as_ref().and_then(|e| e.get("default")).cloned();
    let mut slots: Vec<(usize, &str)> = Vec::with_capacity(p.targets.len());
    for (node_id, pointer) in &p.targets {
        let Some(at) = position(node_id).filter(|&i| i < nodes.len()) else {
            return Err(Error::new(code::INVALID_REQUEST, format!("the chain has no node \"{node_id}\""))
                .with("nodeId", node_id.as_str())
                .with("param", name));
        };
        check_substituted(pointer).map_err(|msg| {
            Error::new(code::INVALID_REQUEST, format!("{node_id}:{pointer}: {msg}"))
                .with("nodeId", node_id.as_str())
                .with("pointer", pointer.as_str())
        })?;
        let found = nodes[at].pointer(pointer).ok_or_else(|| {
            Error::new(code::INVALID_REQUEST, format!("node \"{node_id}\" has no value at {pointer}"))
                .with("nodeId", node_id.as_str())
                .with("pointer", pointer.as_str())
        })?;
        match &value {
            Some(v) if *v != *found => {
                return Err(Error::new(
                    code::INVALID_REQUEST,
                    format!(
                        "{node_id}:{pointer} holds {found}, but parameter \"{name}\" stands for {v}; values sharing \
                         one parameter must be equal, or expanding with the default would change them"
                    ),
                )
                .with("nodeId", node_id.as_str())
                .with("pointer", pointer.as_str())
                .with("param", name));
            }
            Some(_) => {}
            None => value = Some(found.clone()),
        }
        slots.push((at, pointer));
    }
    let value = value.expect("at least one target was read");
    let nodes = chain
        .get_mut("dag")
        .and_then(|d| d.get_mut("nodes"))
        .and_then(Value::as_array_mut)
        .expect("every target was found in dag.nodes");
    for (at, pointer) in slots {
        if let Some(slot) = nodes[at].pointer_mut(pointer) {
            *slot = Value::String(["{{params.", name, "}}"].concat());
        }
    }
    // At its size: a chain of thousands of parameters holds thousands of these.
    let mut property = match existing {
        Some(Value::Object(m)) => m,
        _ => {
            let texts = usize::from(p.title.is_some()) + usize::from(p.description.is_some());
            let mut m = Map::with_capacity(2 + texts);
            m.insert("type".into(), Value::String(infer_type(&value).to_owned()));
            m
        }
    };
    for (key, text) in [("title", &p.title), ("description", &p.description)] {
        if let Some(t) = text {
            property.insert(key.into(), Value::String(t.clone()));
        }
    }
    property.entry("default").or_insert(value);

    let params = chain.entry("parameters").or_insert_with(|| json!({"type": "object"}));
    if !params.is_object() {
        *params = json!({"type": "object"});
    }
    let props = params.as_object_mut().expect("object").entry("properties").or_insert_with(|| json!({}));
    if !props.is_object() {
        *props = json!({});
    }
    props.as_object_mut().expect("object").insert(name.to_owned(), Value::Object(property));
    Ok(())
}

/// A value an "extract as chain" dialog offers to promote, with a suggested parameter name.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Fragment node id.
    pub node: String,
    /// Pointer inside the node.
    pub pointer: String,
    pub value: Value,
    /// Follows the token grammar and differs from every other candidate's and parameter's.
    pub name: String,
}

/// The strings, numbers and booleans in the nodes' `config` and `inputs` (strings that hold a
/// token already are left out), in node order. The chain is taken so that each node goes
/// once it is read: the list for 100,000 nodes is as large as the chain, and both whole at
/// once were the dialog's peak.
pub fn candidates(mut chain: Map<String, Value>) -> Vec<Candidate> {
    fn scalars(v: &Value, at: &str, out: &mut Vec<(String, Value)>) {
        crate::json_walk::walk(v, at, |loc, value| match value {
            Value::String(s) if !crate::grammar::token::tokens(s).is_empty() => false,
            Value::String(_) | Value::Number(_) | Value::Bool(_) => {
                out.push((loc.pointer(), value.clone()));
                false
            }
            // A PortValue's `type` says how to read it; only its `value` is content.
            Value::Object(m) if m.get("type").is_some_and(Value::is_string) && m.contains_key("value") => {
                scalars(&m["value"], &crate::error::pointer_join(&loc.pointer(), "value"), out);
                false
            }
            _ => true,
        });
    }
    let mut taken: std::collections::HashSet<String> = chain
        .get("parameters")
        .and_then(|p| p.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let nodes = match chain.get_mut("dag").and_then(|d| d.get_mut("nodes")) {
        Some(Value::Array(nodes)) => std::mem::take(nodes),
        _ => Vec::new(),
    };
    drop(chain);
    let mut out = Vec::new();
    for node in nodes {
        let id = node.get("id").and_then(Value::as_str).unwrap_or_default();
        let mut found = Vec::new();
        for key in ["config", "inputs"] {
            if let Some(v) = node.get(key) {
                scalars(v, &format!("/{key}"), &mut found);
            }
        }
        for (pointer, value) in found {
            let name = suggest_name(&pointer, id, &mut taken);
            out.push(Candidate { node: id.to_owned(), pointer, value, name });
        }
    }
    out
}

/// The pointer's last meaningful segment (not an index, not the generic `value`) as a
/// parameter name; the node id is added, then a number, until the name is free.
fn suggest_name(pointer: &str, node: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let clean = |s: &str| -> String {
        let mut out: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
        if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            out.insert(0, '_');
        }
        out
    };
    let segment = pointer
        .rsplit('/')
        .find(|s| {
            !s.is_empty() && !s.bytes().all(|b| b.is_ascii_digit()) && *s != "value" && *s != "config" && *s != "inputs"
        })
        .unwrap_or("value");
    let base = clean(segment);
    let mut name = base.clone();
    if taken.contains(&name) {
        name = clean(&format!("{base}_{node}"));
    }
    let stem = name.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{stem}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// Only values inside `config`, `inputs` and `compensation.inputMapping` are substituted.
fn check_substituted(pointer: &str) -> Result<(), String> {
    if ["/config/", "/inputs/", "/compensation/inputMapping/"].iter().any(|p| pointer.starts_with(p)) {
        Ok(())
    } else {
        Err("only values inside config, inputs or compensation.inputMapping are substituted on expansion \
             (the pointer must start with /config/, /inputs/ or /compensation/inputMapping/)"
            .to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain() -> Map<String, Value> {
        let Value::Object(m) = json!({"chainId": "c", "parameters": {"type": "object", "properties": {}},
            "producedVariables": [{"name": "plan", "producedBy": "a", "type": "object"}],
            "dag": {"nodes": [
                {"id": "a", "typeId": "core.x", "config": {"url": "https://x.test", "n": 3, "f": 0.5, "on": true,
                 "list": [1, 2], "deep": {"url": "https://x.test"}}},
                {"id": "b", "typeId": "core.y", "name": "B", "inputs": {"u": {"type": "static", "value": "https://x.test"}}}],
              "edges": []}})
        else {
            unreachable!()
        };
        m
    }

    #[test]
    fn values_become_typed_whole_value_tokens_with_defaults() {
        let mut c = chain();
        let mut url = Promotion::new("url", "a", "/config/url");
        url.targets.push(("a".into(), "/config/deep/url".into()));
        url.targets.push(("b".into(), "/inputs/u/value".into()));
        url.title = Some("Endpoint".into());
        promote(&mut c, &url).unwrap();
        for (name, ptr) in [("n", "/config/n"), ("f", "/config/f"), ("on", "/config/on"), ("list", "/config/list")] {
            promote(&mut c, &Promotion::new(name, "a", ptr)).unwrap();
        }
        assert_eq!(
            c["dag"]["nodes"][0]["config"],
            json!({"url": "{{params.url}}", "n": "{{params.n}}",
            "f": "{{params.f}}", "on": "{{params.on}}", "list": "{{params.list}}", "deep": {"url": "{{params.url}}"}})
        );
        assert_eq!(c["dag"]["nodes"][1]["inputs"]["u"]["value"], "{{params.url}}");
        assert_eq!(
            c["parameters"]["properties"],
            json!({
            "url": {"type": "string", "title": "Endpoint", "default": "https://x.test"},
            "n": {"type": "integer", "default": 3}, "f": {"type": "number", "default": 0.5},
            "on": {"type": "boolean", "default": true}, "list": {"type": "array", "default": [1, 2]}})
        );
    }

    #[test]
    fn refusals_name_what_is_wrong_and_change_nothing() {
        let before = chain();
        let cases = [
            (Promotion::new("my-url", "a", "/config/url"), "param"),
            (Promotion::new("1st", "a", "/config/url"), "param"),
            (Promotion::new("plan", "a", "/config/url"), "param"),
            (Promotion::new("u", "ghost", "/config/url"), "nodeId"),
            (Promotion::new("u", "a", "/config/nope"), "pointer"),
            (Promotion::new("u", "a", "/name"), "pointer"),
            (Promotion::new("u", "a", "/config"), "pointer"),
            (Promotion::new("u", "a", "config/url"), "pointer"),
        ];
        for (p, detail) in cases {
            let mut c = chain();
            let err = promote(&mut c, &p).unwrap_err();
            assert_eq!(err.code, code::INVALID_REQUEST, "{p:?}");
            assert!(err.details.contains_key(detail), "{p:?}: {err:?}");
            assert_eq!(c, before, "{p:?} changed the chain");
        }
        let mut c = chain();
        let mut differ = Promotion::new("v", "a", "/config/url");
        differ.targets.push(("a".into(), "/config/n".into()));
        assert!(promote(&mut c, &differ).unwrap_err().message.contains("must be equal"));
        assert_eq!(c, before);
    }

    #[test]
    fn candidates_are_scalars_with_free_grammatical_names() {
        let mut c = chain();
        promote(&mut c, &Promotion::new("n", "a", "/config/n")).unwrap();
        let found: Vec<(String, String, String)> =
            candidates(c.clone()).into_iter().map(|k| (k.node, k.pointer, k.name)).collect();
        let want = [
            ("a", "/config/url", "url"),
            ("a", "/config/f", "f"),
            ("a", "/config/on", "on"),
            ("a", "/config/list/0", "list"),
            ("a", "/config/list/1", "list_a"),
            ("a", "/config/deep/url", "url_a"),
            ("b", "/inputs/u/value", "u"),
        ];
        let want: Vec<(String, String, String)> =
            want.iter().map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned())).collect();
        assert_eq!(found, want, "the promoted `n` is a token now and its name is taken");
        let mut taken = std::collections::HashSet::from(["x".to_owned(), "x_n_1".to_owned()]);
        assert_eq!(suggest_name("/config/x", "n-1", &mut taken), "x_n_1_2");
        assert_eq!(suggest_name("/inputs/9lives", "n", &mut taken), "_9lives");
    }

    #[test]
    fn a_second_promotion_extends_the_parameter() {
        let mut c = chain();
        promote(&mut c, &Promotion::new("url", "a", "/config/url")).unwrap();
        promote(&mut c, &Promotion::new("url", "b", "/inputs/u/value")).unwrap();
        assert_eq!(c["parameters"]["properties"]["url"], json!({"type": "string", "default": "https://x.test"}));
        let err = promote(&mut c, &Promotion::new("url", "a", "/config/n")).unwrap_err();
        assert_eq!(err.details["pointer"], "/config/n");
    }
}

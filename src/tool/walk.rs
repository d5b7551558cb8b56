//! A schema-aware walk over a JSON Schema document, and what the projections need from it:
//! the RFC 0112 compact-subset check, sensitive fields, and credential scrubbing.
//!
//! The walk visits only positions that hold subschemas. Data keywords (`const`, `enum`,
//! `default`, `examples`) and unknown keywords are never entered, so a `{"$ref": …}` used as a
//! default value is data, and a property *named* `not` is a name, not a keyword.

use crate::error::{pointer_join, pointer_token};
use serde_json::{Map, Value};

/// Keywords the compact structural subset forbids at any depth (RFC 0112).
pub const COMPACT_FORBIDDEN: [&str; 7] =
    ["$ref", "oneOf", "allOf", "anyOf", "not", "patternProperties", "dependentSchemas"];

/// Maps of author-named subschemas, and what each value constrains in the instance.
const NAMED_MAPS: [(&str, Field); 6] = [
    ("properties", Field::Property),
    ("patternProperties", Field::AnyProperty),
    ("$defs", Field::Detached),
    ("definitions", Field::Detached),
    ("dependentSchemas", Field::Same),
    // Draft-07 `dependencies`: values are schemas or name lists; only schemas are entered.
    ("dependencies", Field::Same),
];

/// Keywords holding one subschema.
const SINGLE: [(&str, Field); 12] = [
    ("items", Field::Item),
    ("additionalProperties", Field::AnyProperty),
    ("unevaluatedProperties", Field::AnyProperty),
    ("propertyNames", Field::Detached),
    ("contains", Field::Item),
    ("if", Field::Same),
    ("then", Field::Same),
    ("else", Field::Same),
    ("not", Field::Same),
    ("contentSchema", Field::Detached),
    ("unevaluatedItems", Field::Item),
    ("additionalItems", Field::Item),
];

/// Keywords holding an array of subschemas (`items` is array-form in drafts before 2020-12).
const ARRAYS: [(&str, Field); 5] = [
    ("prefixItems", Field::Item),
    ("items", Field::Item),
    ("allOf", Field::Same),
    ("anyOf", Field::Same),
    ("oneOf", Field::Same),
];

/// How a subschema position relates to the instance location its parent constrains.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Field {
    /// The same instance value (applicators such as `allOf`, `if`).
    Same,
    /// The named property of the object.
    Property,
    /// Any (unnamed) property value of the object.
    AnyProperty,
    /// An element of the array.
    Item,
    /// No instance value (definitions, property names, decoded content).
    Detached,
}

/// How a subschema is reached from its parent: the keyword, and the property name or
/// array index under it when the keyword holds several.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Step<'a> {
    Root,
    Keyword(&'a str),
    Named(&'a str, &'a str),
    Indexed(&'a str, usize),
}

/// One visited subschema. Its pointer and instance field are built only when asked for
/// (through [`Subschemas`]): building them for every subschema copied each long property
/// name once per subschema below it.
#[derive(Debug, Clone, PartialEq)]
pub struct Subschema<'a> {
    pub schema: &'a Value,
    parent: Option<usize>,
    step: Step<'a>,
    relation: Field,
}

/// Every subschema of a document, in document order, the root first.
#[derive(Debug, Clone, PartialEq)]
pub struct Subschemas<'a> {
    nodes: Vec<Subschema<'a>>,
}

impl<'a> Subschemas<'a> {
    /// Visited subschemas with their indexes (for [`Self::pointer`] and [`Self::field`]).
    pub fn iter(&self) -> impl Iterator<Item = (usize, &Subschema<'a>)> {
        self.nodes.iter().enumerate()
    }

    /// The steps from the root to subschema `i`, root first.
    fn chain(&self, i: usize) -> Vec<&Subschema<'a>> {
        let mut out = Vec::new();
        let mut at = Some(i);
        while let Some(ix) = at {
            out.push(&self.nodes[ix]);
            at = self.nodes[ix].parent;
        }
        out.reverse();
        out
    }

    /// JSON pointer of subschema `i` from the walked root.
    pub fn pointer(&self, i: usize) -> String {
        let mut out = String::new();
        for node in self.chain(i) {
            match node.step {
                Step::Root => {}
                Step::Keyword(k) => push_token(&mut out, k),
                Step::Named(k, name) => {
                    push_token(&mut out, k);
                    push_token(&mut out, name);
                }
                Step::Indexed(k, index) => {
                    push_token(&mut out, k);
                    out.push('/');
                    out.push_str(&index.to_string());
                }
            }
        }
        out
    }

    /// The instance field subschema `i` constrains, dotted (`auth.token`, `items[]`,
    /// `map.*`); empty for the root, `None` where it constrains no instance value (e.g.
    /// under `$defs`).
    pub fn field(&self, i: usize) -> Option<String> {
        let mut out = String::new();
        for node in self.chain(i) {
            let join = |out: &mut String, segment: &str| {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(segment);
            };
            match (node.relation, node.step) {
                (Field::Detached, _) => return None,
                (Field::Property, Step::Named(_, name)) => join(&mut out, name),
                (Field::AnyProperty, _) => join(&mut out, "*"),
                (Field::Item, _) => out.push_str("[]"),
                _ => {}
            }
        }
        Some(out)
    }

    /// The last property name of subschema `i`'s field, when the field ends in one (not in
    /// `[]` or `*`) and constrains an instance value; built without copying the field.
    fn last_field_name(&self, i: usize) -> Option<&'a str> {
        let mut name = None;
        let mut decided = false;
        let mut at = Some(i);
        while let Some(ix) = at {
            let node = &self.nodes[ix];
            match (node.relation, node.step) {
                (Field::Detached, _) => return None,
                (Field::Property, Step::Named(_, n)) if !decided => {
                    name = Some(n).filter(|n| !n.is_empty());
                    decided = true;
                }
                (Field::AnyProperty | Field::Item, _) => decided = true,
                _ => {}
            }
            at = node.parent;
        }
        name
    }
}

fn push_token(out: &mut String, token: &str) {
    out.push('/');
    if token.contains(['~', '/']) {
        out.push_str(&pointer_token(token));
    } else {
        out.push_str(token);
    }
}

/// Every subschema of `root` (the root included), in document order.
///
/// Iterative, so a pathologically deep schema cannot overflow the stack.
pub fn subschemas(root: &Value) -> Subschemas<'_> {
    let mut nodes = Vec::new();
    let mut stack = vec![Subschema { schema: root, parent: None, step: Step::Root, relation: Field::Same }];
    while let Some(node) = stack.pop() {
        let index = nodes.len();
        let children = node.schema.as_object().map(|obj| children_of(obj, index)).unwrap_or_default();
        nodes.push(node);
        // Reversed so the pop order is document order.
        stack.extend(children.into_iter().rev());
    }
    Subschemas { nodes }
}

fn children_of(obj: &Map<String, Value>, parent: usize) -> Vec<Subschema<'_>> {
    let mut children = Vec::new();
    let mut push = |step, schema, relation| {
        children.push(Subschema { schema, parent: Some(parent), step, relation });
    };
    let is_schema = |v: &Value| v.is_object() || v.is_boolean();
    for (keyword, value) in obj {
        if let Some((_, relation)) = NAMED_MAPS.iter().find(|(k, _)| k == keyword) {
            for (name, sub) in value.as_object().into_iter().flatten().filter(|(_, v)| is_schema(v)) {
                push(Step::Named(keyword, name), sub, *relation);
            }
        }
        if let Some((_, relation)) = SINGLE.iter().find(|(k, _)| k == keyword)
            && is_schema(value)
        {
            push(Step::Keyword(keyword), value, *relation);
        }
        if let Some((_, relation)) = ARRAYS.iter().find(|(k, _)| k == keyword) {
            for (index, sub) in value.as_array().into_iter().flatten().enumerate().filter(|(_, v)| is_schema(v)) {
                push(Step::Indexed(keyword, index), sub, *relation);
            }
        }
    }
    children
}

/// Why a schema falls outside the compact structural subset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactOffence {
    /// Pointer (from the schema root) to the offending keyword, or to the root.
    pub pointer: String,
    pub message: String,
}

/// Every reason `schema` is not within the compact subset: the top-level shape
/// (`type: "object"` with a `properties` map) and each forbidden keyword at any depth.
pub fn compact_offences(schema: &Value) -> Vec<CompactOffence> {
    let mut out = Vec::new();
    let Some(root) = schema.as_object() else {
        out.push(CompactOffence { pointer: String::new(), message: "the input schema is not a JSON object".into() });
        return out;
    };
    if root.get("type") != Some(&Value::String("object".into())) {
        out.push(CompactOffence {
            pointer: "/type".into(),
            message: "the compact subset needs top-level `type: \"object\"`".into(),
        });
    }
    if !root.get("properties").is_some_and(Value::is_object) {
        out.push(CompactOffence {
            pointer: "/properties".into(),
            message: "the compact subset needs an explicit top-level `properties` map".into(),
        });
    }
    let all = subschemas(schema);
    for (i, node) in all.iter() {
        let Some(obj) = node.schema.as_object() else { continue };
        for keyword in COMPACT_FORBIDDEN.iter().filter(|k| obj.contains_key(**k)) {
            out.push(CompactOffence {
                pointer: pointer_join(&all.pointer(i), keyword),
                message: format!("`{keyword}` is outside the compact structural subset"),
            });
        }
    }
    out
}

/// Whether a subschema marks its value as sensitive: `x-openwop-sensitive: true`,
/// `writeOnly: true` or `format: "password"`.
pub fn is_marked_sensitive(schema: &Value) -> bool {
    schema.get("x-openwop-sensitive") == Some(&Value::Bool(true))
        || schema.get("writeOnly") == Some(&Value::Bool(true))
        || schema.get("format").and_then(Value::as_str) == Some("password")
}

/// The one notion of "sensitive" for listing, scrubbing and model-facing arguments: the
/// subschema is marked sensitive, or its property is named like a credential (`erpPassword`,
/// `token`, `auth.clientSecret`).
fn is_sensitive(all: &Subschemas, i: usize, schema: &Value) -> bool {
    is_marked_sensitive(schema) || all.last_field_name(i).is_some_and(is_credential_name)
}

/// The instance fields (dotted paths) that are sensitive, in document order.
pub fn sensitive_fields(schema: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let all = subschemas(schema);
    for (i, node) in all.iter() {
        if !is_sensitive(&all, i, node.schema) {
            continue;
        }
        if let Some(field) = all.field(i).filter(|f| !f.is_empty())
            && seen.insert(field.clone())
        {
            out.push(field);
        }
    }
    out
}

/// `schema` without its sensitive properties (and without their names in `required`), so a
/// model is never asked for a credential: the host supplies those. Also the pointers removed.
pub fn withhold_sensitive(schema: &Value) -> (Value, Vec<String>) {
    let all = subschemas(schema);
    let mut removed = Vec::new();
    // Names to drop per parent schema, so each `properties` map and `required` list is
    // rewritten once (removing one by one from an ordered map is quadratic).
    let mut by_parent: Vec<(String, std::collections::HashSet<&str>)> = Vec::new();
    let mut slot: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (i, node) in all.iter() {
        let (Step::Named("properties", name), Some(parent)) = (node.step, node.parent) else { continue };
        if !is_sensitive(&all, i, node.schema) {
            continue;
        }
        removed.push(all.pointer(i));
        let at = *slot.entry(parent).or_insert_with(|| {
            by_parent.push((all.pointer(parent), Default::default()));
            by_parent.len() - 1
        });
        by_parent[at].1.insert(name);
    }
    let mut out = schema.clone();
    for (pointer, names) in &by_parent {
        // A parent inside a property already withheld is gone, and so is its business.
        let Some(parent) = out.pointer_mut(pointer).and_then(Value::as_object_mut) else { continue };
        if let Some(props) = parent.get_mut("properties").and_then(Value::as_object_mut) {
            props.retain(|k, _| !names.contains(k.as_str()));
        }
        if let Some(required) = parent.get_mut("required").and_then(Value::as_array_mut) {
            required.retain(|v| v.as_str().is_none_or(|n| !names.contains(n)));
        }
    }
    (out, removed)
}

/// Text with credential material replaced by `[redacted]`: secret-shaped words, the values
/// of `name=value` / `name: value` pairs whose name is a credential's, and URL passwords.
/// The flag says whether anything was replaced.
pub fn scrub_text(text: &str) -> (String, bool) {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut credential_label = false;
    for piece in text.split_inclusive(char::is_whitespace) {
        let word = piece.trim_end();
        let space = &piece[word.len()..];
        let core = word.trim_matches(|c: char| {
            matches!(c, '(' | ')' | '"' | '\'' | ',' | ';' | '<' | '>' | '`' | '.' | '!' | '?')
        });
        let lead = &word[..word.find(core).unwrap_or(0)];
        let trail = &word[lead.len() + core.len()..];
        let replaced = if credential_label && !core.is_empty() {
            Some("[redacted]".to_owned())
        } else if looks_like_secret(core) {
            Some(match core.split_once("://") {
                Some((scheme, rest)) if url_has_password(core) => {
                    let (userinfo, host) = rest.split_once('@').unwrap_or(("", rest));
                    let user = userinfo.split(':').next().unwrap_or("");
                    format!("{scheme}://{user}:[redacted]@{host}")
                }
                _ => "[redacted]".to_owned(),
            })
        } else {
            core.split_once(['=', ':'])
                .filter(|(name, value)| is_credential_name(name) && !value.is_empty() && !value.starts_with("//"))
                .map(|(name, _)| format!("{name}{}[redacted]", &core[name.len()..name.len() + 1]))
        };
        // `password: hunter2` puts the value in the next word.
        credential_label = replaced.is_none()
            && (core.eq_ignore_ascii_case("bearer")
                || core.ends_with(':') && is_credential_name(&core[..core.len() - 1]));
        match replaced {
            Some(r) => {
                changed = true;
                out.push_str(lead);
                out.push_str(&r);
                out.push_str(trail);
            }
            None => out.push_str(word),
        }
        out.push_str(space);
    }
    (out, changed)
}

/// `schema` with credential material removed, plus the pointers of what was removed.
///
/// Two cases: sample values (`default`, `examples`) of a field that is marked sensitive or
/// named like a credential; and any data keyword (`default`, `examples`, `const`, `enum`)
/// whose content contains a string that looks like a secret.
pub fn scrub_credentials(schema: &Value) -> (Value, Vec<String>) {
    let mut doomed = Vec::new();
    let all = subschemas(schema);
    for (i, node) in all.iter() {
        let Some(obj) = node.schema.as_object() else { continue };
        let secret_field = || is_sensitive(&all, i, node.schema);
        for keyword in ["default", "examples", "const", "enum"] {
            let Some(data) = obj.get(keyword) else { continue };
            let sample = matches!(keyword, "default" | "examples");
            if (sample && secret_field()) || contains_secret(data) {
                doomed.push(pointer_join(&all.pointer(i), keyword));
            }
        }
    }
    let mut scrubbed = schema.clone();
    for pointer in &doomed {
        remove_at(&mut scrubbed, pointer);
    }
    (scrubbed, doomed)
}

fn remove_at(doc: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else { return };
    let key = last.replace("~1", "/").replace("~0", "~");
    if let Some(obj) = doc.pointer_mut(parent).and_then(Value::as_object_mut) {
        obj.shift_remove(&key);
    }
}

/// Property names that conventionally hold credentials (`apiKey`, `client_secret`, `authToken`).
pub fn is_credential_name(name: &str) -> bool {
    let squashed: String = name.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase();
    const EXACT: [&str; 3] = ["authorization", "credentials", "bearer"];
    const SUFFIXES: [&str; 8] =
        ["password", "passwd", "passphrase", "secret", "apikey", "token", "privatekey", "credential"];
    EXACT.contains(&squashed.as_str()) || SUFFIXES.iter().any(|s| squashed.ends_with(s))
}

/// Whether any string anywhere in `data` looks like a credential.
pub fn contains_secret(data: &Value) -> bool {
    let mut stack = vec![data];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) if looks_like_secret(s) => return true,
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    false
}

/// Well-known credential shapes: vendor key prefixes, PEM private keys, bearer/basic
/// authorisation values, JWTs, and URLs carrying a password.
pub fn looks_like_secret(s: &str) -> bool {
    let s = s.trim();
    const PREFIXES: [&str; 17] = [
        "sk-",
        "sk_live_",
        "sk_test_",
        "rk_live_",
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "glpat-",
        "xoxb-",
        "xoxp-",
        "xoxa-",
        "xapp-",
        "AIza",
        "ya29.",
    ];
    let token_after = |prefix: &str| {
        s.strip_prefix(prefix)
            .is_some_and(|rest| rest.len() >= 8 && !rest.contains(char::is_whitespace) && !rest.contains("{{"))
    };
    if PREFIXES.iter().any(|p| token_after(p)) {
        return true;
    }
    if s.len() == 20 && s.starts_with("AKIA") && s[4..].chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()) {
        return true;
    }
    if s.contains("-----BEGIN") && s.contains("PRIVATE KEY") {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    if ["bearer ", "basic ", "token "].iter().any(|p| lower.starts_with(p)) {
        let rest = s.split_once(' ').map(|(_, r)| r.trim()).unwrap_or("");
        return rest.len() >= 8 && !rest.contains(char::is_whitespace) && !rest.contains("{{");
    }
    if is_jwt(s) {
        return true;
    }
    url_has_password(s)
}

fn is_jwt(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 3
        && s.starts_with("eyJ")
        && parts.iter().all(|p| p.len() >= 4 && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
}

fn url_has_password(s: &str) -> bool {
    let Some((_, rest)) = s.split_once("://") else { return false };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.split_once(':').is_some_and(|(_, pw)| !pw.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn offending(schema: &Value) -> Vec<String> {
        compact_offences(schema).into_iter().map(|o| o.pointer).collect()
    }

    #[test]
    fn flat_object_schema_is_compact() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        assert!(offending(&schema).is_empty());
    }

    #[test]
    fn forbidden_keyword_deep_in_items_is_found() {
        let schema = json!({"type": "object", "properties": {
            "rows": {"type": "array", "items": {"type": "object", "properties": {
                "cell": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}]}}}}}}});
        assert_eq!(offending(&schema), ["/properties/rows/items/properties/cell/items/anyOf"]);
    }

    #[test]
    fn forbidden_keyword_in_defs_is_found() {
        let schema = json!({"type": "object", "properties": {}, "$defs": {"a": {"oneOf": [true, false]}}});
        assert_eq!(offending(&schema), ["/$defs/a/oneOf"]);
    }

    #[test]
    fn property_named_not_is_a_name() {
        let schema = json!({"type": "object", "properties": {"not": {"type": "boolean"}, "$ref": {"type": "string"}}});
        assert!(offending(&schema).is_empty());
    }

    #[test]
    fn ref_inside_default_and_other_data_keywords_is_data() {
        let schema = json!({"type": "object", "properties": {"link": {
            "type": "object",
            "default": {"$ref": "#/x", "not": 1},
            "examples": [{"oneOf": []}],
            "const": {"allOf": []},
            "enum": [{"anyOf": []}]}}});
        assert!(offending(&schema).is_empty());
    }

    #[test]
    fn boolean_subschemas_are_allowed_and_walked() {
        let schema = json!({"type": "object", "properties": {"any": true, "none": false},
            "additionalProperties": false, "items": true});
        assert!(offending(&schema).is_empty());
        let all = subschemas(&schema);
        let visited: Vec<_> = all.iter().map(|(i, _)| all.pointer(i)).collect();
        assert_eq!(visited, ["", "/properties/any", "/properties/none", "/additionalProperties", "/items"]);
    }

    #[test]
    fn every_offending_pointer_is_reported_including_nested_ones() {
        let schema = json!({"type": "object", "properties": {
            "a": {"oneOf": [{"not": {"type": "null"}}, {"$ref": "#/$defs/b"}]},
            "c": {"patternProperties": {"^x": {"dependentSchemas": {}}}}},
            "allOf": [true]});
        let mut got = offending(&schema);
        got.sort();
        assert_eq!(
            got,
            [
                "/allOf",
                "/properties/a/oneOf",
                "/properties/a/oneOf/0/not",
                "/properties/a/oneOf/1/$ref",
                "/properties/c/patternProperties",
                "/properties/c/patternProperties/^x/dependentSchemas",
            ]
        );
    }

    #[test]
    fn top_level_shape_is_required() {
        assert_eq!(offending(&json!({"properties": {}})), ["/type"]);
        assert_eq!(offending(&json!({"type": "object"})), ["/properties"]);
        assert_eq!(offending(&json!({"type": ["object"], "properties": []})), ["/type", "/properties"]);
        assert_eq!(offending(&json!(true)), [""]);
    }

    #[test]
    fn unknown_keywords_are_not_entered() {
        let schema = json!({"type": "object", "properties": {}, "x-ui": {"oneOf": []}, "title": "not"});
        assert!(offending(&schema).is_empty());
    }

    #[test]
    fn array_form_items_and_prefix_items_are_entered() {
        let schema = json!({"type": "object", "properties": {
            "t": {"items": [{"type": "string"}, {"not": {}}], "prefixItems": [{"$ref": "#"}]}}});
        let mut got = offending(&schema);
        got.sort();
        assert_eq!(got, ["/properties/t/items/1/not", "/properties/t/prefixItems/0/$ref"]);
    }

    #[test]
    fn pointers_escape_property_names() {
        let schema = json!({"type": "object", "properties": {"a/b~c": {"not": {}}}});
        assert_eq!(offending(&schema), ["/properties/a~1b~0c/not"]);
    }

    #[test]
    fn offender_at_great_depth_is_found() {
        let mut schema = json!({"not": {}});
        for _ in 0..500 {
            schema = json!({"type": "array", "items": schema});
        }
        let schema = json!({"type": "object", "properties": {"deep": schema}});
        let got = offending(&schema);
        assert_eq!(got.len(), 1);
        assert!(got[0].starts_with("/properties/deep/items/items/") && got[0].ends_with("/items/not"));
    }

    #[test]
    fn sensitive_fields_follow_properties_and_items() {
        let schema = json!({"type": "object", "properties": {
            "apiKey": {"type": "string", "x-openwop-sensitive": true},
            "login": {"type": "object", "properties": {"password": {"type": "string", "format": "password"}}},
            "hooks": {"type": "array", "items": {"type": "object", "properties": {"secret": {"writeOnly": true}}}},
            "plain": {"type": "string", "x-openwop-sensitive": false}},
            "$defs": {"hidden": {"writeOnly": true}}});
        assert_eq!(sensitive_fields(&schema), ["apiKey", "login.password", "hooks[].secret"]);
    }

    #[test]
    fn scrub_removes_secret_samples_and_secret_looking_data() {
        let schema = json!({"type": "object", "properties": {
            "apiKey": {"type": "string", "default": "abc"},
            "pw": {"type": "string", "writeOnly": true, "examples": ["hunter22"]},
            "maxTokens": {"type": "integer", "default": 512},
            "endpoint": {"type": "string", "default": "https://bot:s3cret@example.com/x"},
            "mode": {"enum": ["ghp_0123456789abcdefghij", "off"]},
            "model": {"type": "string", "default": "sk-short"}}});
        let (scrubbed, removed) = scrub_credentials(&schema);
        assert_eq!(
            removed,
            [
                "/properties/apiKey/default",
                "/properties/pw/examples",
                "/properties/endpoint/default",
                "/properties/mode/enum"
            ]
        );
        assert_eq!(scrubbed["properties"]["apiKey"], json!({"type": "string"}));
        assert_eq!(scrubbed["properties"]["maxTokens"]["default"], 512);
        assert_eq!(scrubbed["properties"]["model"]["default"], "sk-short");
        assert!(scrubbed["properties"]["mode"].get("enum").is_none());
    }

    #[test]
    fn credential_names_are_sensitive_like_marked_fields() {
        let schema = json!({"type": "object", "required": ["erpPassword", "topic"], "properties": {
            "erpPassword": {"type": "string"},
            "token": {"type": "string"},
            "auth": {"type": "object", "properties": {"clientSecret": {"type": "string"}, "user": {"type": "string"}}},
            "key": {"type": "string", "x-openwop-sensitive": true},
            "topic": {"type": "string"}}});
        assert_eq!(sensitive_fields(&schema), ["erpPassword", "token", "auth.clientSecret", "key"]);
        let (kept, removed) = withhold_sensitive(&schema);
        assert_eq!(
            removed,
            [
                "/properties/erpPassword",
                "/properties/token",
                "/properties/auth/properties/clientSecret",
                "/properties/key"
            ]
        );
        assert_eq!(
            kept,
            json!({"type": "object", "required": ["topic"], "properties": {
                "auth": {"type": "object", "properties": {"user": {"type": "string"}}},
                "topic": {"type": "string"}}})
        );
    }

    #[test]
    fn text_is_scrubbed_of_credentials() {
        let cases = [
            ("Call https://bot:hunter2@api.example.com/x now.", "Call https://bot:[redacted]@api.example.com/x now."),
            ("Uses key sk-live-abcdefghijklmnop.", "Uses key [redacted]."),
            ("Login with password=hunter2 (test).", "Login with password=[redacted] (test)."),
            ("token: abc123xyz then", "token: [redacted] then"),
            ("(Bearer-free) text with ghp_0123456789abcdefghij", "(Bearer-free) text with [redacted]"),
            ("send Bearer abcdefghijklmnop.", "send Bearer [redacted]."),
        ];
        for (text, want) in cases {
            assert_eq!(scrub_text(text), (want.to_owned(), true), "{text}");
        }
        for clean in ["Route a ticket, e.g. by priority.", "See https://example.com/a:b", "maxTokens: 5", ""] {
            assert_eq!(scrub_text(clean), (clean.to_owned(), false), "{clean}");
        }
    }

    #[test]
    fn secret_shapes() {
        for s in [
            "sk-proj-abcdefgh12345678",
            "AKIAABCDEFGHIJKLMNOP",
            "Bearer abcdefghijklmnop",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
            "-----BEGIN RSA PRIVATE KEY-----\nMII",
            "postgres://u:p@db:5432/x",
        ] {
            assert!(looks_like_secret(s), "{s}");
        }
        for s in
            ["sk-{{params.key}}xxxxxxxx", "hello world", "https://example.com/a:b@c", "Bearer {{params.t}}", "a.b.c"]
        {
            assert!(!looks_like_secret(s), "{s}");
        }
    }

    #[test]
    fn credential_names() {
        for n in ["apiKey", "api_key", "clientSecret", "authToken", "password", "Authorization", "private-key"] {
            assert!(is_credential_name(n), "{n}");
        }
        for n in ["maxTokens", "tokenLimit", "keyword", "secretary_name_x"] {
            assert!(!is_credential_name(n), "{n}");
        }
    }
}

//! The OpenWOP app's own chain expansion (interop §5), so that workflows the app wrote can
//! be recognised and re-parameterised here exactly as the app would redo them.
//!
//! The app differs from the reference library: its token pattern tolerates spaces and
//! leading digits, a whole-value token naming a missing value removes the member, and its
//! expansionId is a hash of the chain and the resolved values instead of a random tag.

use super::chain_id_slug;
use super::jsstring::{js_normalise_number, js_string};
use crate::pack::Chain;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// `metadata.source` of a workflow the app expanded from a chain.
pub const APP_SOURCE: &str = "workflow-chain-pack";

/// §5 step 1: for each declared parameter, in declaration order, the supplied value, else
/// the schema default, else nothing. Undeclared keys are dropped.
pub fn resolved_params(chain: &Chain, supplied: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, schema) in chain.parameter_properties().into_iter().flatten() {
        if let Some(v) = supplied.get(name).or_else(|| schema.get("default")) {
            out.insert(name.clone(), v.clone());
        }
    }
    out
}

/// The app's deterministic expansionId: the first 12 hex digits of
/// `sha256("<chainId>@<chainVersion>:" + canonical)`, where `canonical` is
/// `JSON.stringify(resolved, Object.keys(resolved).sort())`.
pub fn expansion_id_hash(chain: &Chain, supplied: &Map<String, Value>) -> String {
    let resolved = resolved_params(chain, supplied);
    let text = format!("{}@{}:{}", chain.chain_id(), chain.version(), canonical(&resolved));
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// `JSON.stringify(value, keys)` with `keys` the sorted top-level names. An array replacer
/// is a filter at every depth: a nested member survives only if its name is also a
/// top-level name, and members come out in the list's order.
pub fn canonical(resolved: &Map<String, Value>) -> String {
    let mut keys: Vec<&str> = resolved.keys().map(String::as_str).collect();
    // JavaScript sorts strings by UTF-16 code units.
    keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    let mut out = String::new();
    write_filtered(&Value::Object(resolved.clone()), &keys, &mut out);
    out
}

fn write_filtered(v: &Value, keys: &[&str], out: &mut String) {
    match v {
        Value::Object(m) => {
            out.push('{');
            let mut first = true;
            for k in keys {
                if let Some(x) = m.get(*k) {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(&Value::String((*k).to_owned()).to_string());
                    out.push(':');
                    write_filtered(x, keys, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_filtered(x, keys, out);
            }
            out.push(']');
        }
        Value::Number(n) => out.push_str(&super::jsstring::js_number(n)),
        // serde_json escapes strings as JSON.stringify does (lower-case \u00XX, `/` kept).
        other => out.push_str(&other.to_string()),
    }
}

/// JavaScript's `\s`.
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// The app's tokens `\{\{\s*params\.([a-zA-Z0-9_]+)\s*\}\}` in `s`: (start, end, name).
pub fn app_tokens(s: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(off) = s[from..].find("{{") {
        let start = from + off;
        from = start + 1;
        let rest = &s[start + 2..];
        let body = rest.trim_start_matches(js_space);
        let Some(after) = body.strip_prefix("params.") else { continue };
        let name_len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
        if name_len == 0 {
            continue;
        }
        let tail = after[name_len..].trim_start_matches(js_space);
        if !tail.starts_with("}}") {
            continue;
        }
        let end = s.len() - tail.len() + 2;
        out.push((start, end, &after[..name_len]));
        from = end;
    }
    out
}

/// Substitute one value with the app's rules; `None` means the member disappears.
pub fn app_substitute(v: &Value, params: &Map<String, Value>, required: &[&str]) -> Option<Value> {
    match v {
        Value::String(s) => {
            let found = app_tokens(s);
            if found.is_empty() {
                return Some(v.clone());
            }
            if let [(0, end, name)] = found.as_slice()
                && *end == s.len()
            {
                return params.get(*name).map(normalise);
            }
            let mut out = String::with_capacity(s.len());
            let mut last = 0;
            for (start, end, name) in found {
                out.push_str(&s[last..start]);
                match params.get(name) {
                    Some(x) => out.push_str(&js_string(x)),
                    None if required.contains(&name) => out.push_str(&format!("[missing: {name}]")),
                    None => {}
                }
                last = end;
            }
            out.push_str(&s[last..]);
            Some(Value::String(out))
        }
        Value::Array(items) => Some(Value::Array(
            items.iter().map(|x| app_substitute(x, params, required).unwrap_or(Value::Null)).collect(),
        )),
        Value::Object(m) => Some(Value::Object(
            m.iter().filter_map(|(k, x)| Some((k.clone(), app_substitute(x, params, required)?))).collect(),
        )),
        Value::Number(n) => Some(Value::Number(js_normalise_number(n))),
        other => Some(other.clone()),
    }
}

fn normalise(v: &Value) -> Value {
    app_substitute(v, &Map::new(), &[]).unwrap_or(Value::Null)
}

/// The node prefix the app uses: `<chainId, . → _>_<expansionId>_`.
pub fn node_prefix(chain_id: &str, expansion_id: &str) -> String {
    format!("{}_{expansion_id}_", chain_id_slug(chain_id))
}

/// The chain's nodes as the app expands them: id, typeId, and `config`, `inputs` and
/// `compensation.inputMapping` substituted with the app's rules. Keys as in the fragment.
pub fn app_expand_nodes(chain: &Chain, params: &Map<String, Value>, expansion_id: &str) -> Vec<Map<String, Value>> {
    let required: Vec<&str> = chain
        .parameters()
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let prefix = node_prefix(chain.chain_id(), expansion_id);
    chain
        .nodes()
        .iter()
        .filter_map(Value::as_object)
        .map(|node| {
            let mut out = Map::new();
            for (k, v) in node {
                match k.as_str() {
                    "id" => {
                        out.insert(k.clone(), Value::String(format!("{prefix}{}", v.as_str().unwrap_or_default())));
                    }
                    "config" | "inputs" => {
                        out.insert(k.clone(), app_substitute(v, params, &required).unwrap_or(Value::Null));
                    }
                    "compensation" => {
                        let mut c = v.clone();
                        if let Some(m) = c.get_mut("inputMapping") {
                            *m = app_substitute(m, params, &required).unwrap_or(Value::Null);
                        }
                        out.insert(k.clone(), c);
                    }
                    _ => {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chain(params: Value, nodes: Value) -> Chain {
        Chain::new(
            0,
            json!({"chainId": "vendor.example.ticket-triage", "version": "1.2.0", "parameters": params,
                   "dag": {"nodes": nodes}}),
        )
    }

    fn triage() -> Chain {
        let props = json!({"type": "object", "properties": {"queue": {"type": "string"}, "maxTickets": {"type": "integer"},
            "provider": {"type": "string"}, "filter": {"type": "object"}, "labels": {"type": "array"}}});
        chain(props, json!([]))
    }

    #[test]
    fn interop_section_5_vectors() {
        let c = triage();
        let obj = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            expansion_id_hash(&c, &obj(json!({"queue": "billing", "maxTickets": 40, "provider": "anthropic"}))),
            "fd9b00f727d5"
        );
        let nested = obj(json!({"queue": "billing", "filter": {"queue": "x", "tag": "vip"}, "labels": ["a", "b"]}));
        assert_eq!(
            canonical(&resolved_params(&c, &nested)),
            r#"{"filter":{"queue":"x"},"labels":["a","b"],"queue":"billing"}"#
        );
        assert_eq!(expansion_id_hash(&c, &nested), "5b8dde853a1d");
        assert_eq!(expansion_id_hash(&c, &Map::new()), "460073d53cbf");
    }

    #[test]
    fn defaults_fill_in_and_undeclared_keys_are_dropped() {
        let c = chain(json!({"properties": {"b": {"default": 2}, "a": {}}}), json!([]));
        let r = resolved_params(&c, json!({"a": 1, "zzz": 3}).as_object().unwrap());
        assert_eq!(Value::Object(r), json!({"b": 2, "a": 1}));
    }

    #[test]
    fn app_tokens_allow_spaces_and_leading_digits_not_hyphens() {
        let names = |s: &str| app_tokens(s).into_iter().map(|t| t.2.to_owned()).collect::<Vec<_>>();
        assert_eq!(names("{{ params.a }}{{params.9x}}{{params.a-b}}{{\tparams.c\n}}"), ["a", "9x", "c"]);
        assert!(names("{{params.}} {params.x}} {{ param.x }}").is_empty());
    }

    #[test]
    fn app_substitution_rules() {
        let params = json!({"n": 1e21, "list": ["a", "b"], "obj": {"k": 1}}).as_object().unwrap().clone();
        let v = json!({"whole": "{{ params.list }}", "gone": "{{params.none}}", "text": "{{params.n}}|{{params.list}}|{{params.obj}}",
                       "missing": "[{{params.none}}][{{params.need}}]", "arr": ["{{params.none}}", "x"]});
        let out = app_substitute(&v, &params, &["need"]).unwrap();
        assert_eq!(
            out,
            json!({"whole": ["a", "b"], "text": "1e+21|a,b|[object Object]", "missing": "[][[missing: need]]",
                   "arr": [null, "x"]})
        );
    }
}

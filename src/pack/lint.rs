//! Token lints: places where the author's intent and the expansion rules disagree.
//! All are warnings; none stops expansion.

use super::Chain;
use crate::error::{Finding, FindingCap, Severity, code};
use crate::grammar::token::{each_near_token, tokens};
use crate::json_walk::{self, Location, member};
use serde_json::Value;

/// Every substitutable string leaf of a chain: node `config`, `inputs` and
/// `compensation.inputMapping`, in order, each with its location (the pointer is built only
/// for strings that are reported).
pub fn substitutable_strings<'a>(chain: &'a Chain, mut visit: impl FnMut(&Location<'a, '_>, &'a str)) {
    for i in 0..chain.nodes().len() {
        node_substitutable_strings(chain, i, &mut visit);
    }
}

/// [`substitutable_strings`] of node `i` alone.
fn node_substitutable_strings<'a>(chain: &'a Chain, i: usize, visit: &mut impl FnMut(&Location<'a, '_>, &'a str)) {
    let node = &chain.nodes()[i];
    for (key, value) in [
        ("config", member(node, "config")),
        ("inputs", member(node, "inputs")),
        ("compensation/inputMapping", member(node, "compensation").and_then(|c| member(c, "inputMapping"))),
    ] {
        if let Some(v) = value {
            json_walk::strings(v, &format!("{}/dag/nodes/{i}/{key}", chain.pointer()), &mut *visit);
        }
    }
}

/// Whether a parameter's schema says it holds an object or an array.
pub fn is_structured(schema: &Value) -> bool {
    let is = |t: &str| t == "object" || t == "array";
    match schema.get("type") {
        Some(Value::String(t)) => is(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(is),
        _ => false,
    }
}

/// Longest near-token text quoted in a finding: one that runs to the end of a long string
/// is cut there (its pointer says where it is).
const MAX_QUOTED: usize = 200;

/// `text`, cut to [`MAX_QUOTED`] bytes at a character boundary, with `…` when cut.
fn quoted(text: &str) -> String {
    if text.len() <= MAX_QUOTED {
        return text.to_owned();
    }
    let end = (0..=MAX_QUOTED).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
    format!("{}…", &text[..end])
}

/// The chain's token lints; past [`MAX_LISTED_PER_CODE`](crate::error::MAX_LISTED_PER_CODE)
/// of a code, the rest are counted in one finding at the chain (nothing is built for them).
pub(super) fn lint_chain(chain: &Chain, findings: &mut Vec<Finding>) {
    let id = chain.chain_id();
    let declared = chain.parameter_properties();
    let scan = chain.scan();
    let mut cap = FindingCap::default();
    // Only the nodes the shared pass marked have anything to report.
    for &i in &scan.lint_nodes {
        node_substitutable_strings(chain, i, &mut |at, s| {
            let found = tokens(s);
            let whole = found.len() == 1 && found[0].start == 0 && found[0].end == s.len();
            for t in &found {
                let schema = declared.and_then(|d| d.get(t.name));
                let which = match schema {
                    None => code::TOKEN_UNDECLARED,
                    Some(schema) if !whole && is_structured(schema) => code::EMBEDDED_STRUCTURED,
                    Some(_) => continue,
                };
                if !cap.admit(which, Severity::Warning) {
                    continue;
                }
                let message = if which == code::TOKEN_UNDECLARED {
                    format!(
                        "token names parameter \"{}\", which `parameters` does not declare, so it expands to \"\": \
                         declare it (Add parameter) or fix the token's name",
                        t.name
                    )
                } else {
                    format!(
                        "parameter \"{}\" is an object or array embedded in text; it renders as JavaScript String() text such as \"[object Object]\" or \"a,b\"",
                        t.name
                    )
                };
                findings.push(Finding::warning(which, at.pointer(), message).in_chain(id).with("param", t.name));
            }
            each_near_token(s, |_, text| {
                if cap.admit(code::NEAR_TOKEN, Severity::Warning) {
                    let text = quoted(text);
                    findings.push(
                        Finding::warning(
                            code::NEAR_TOKEN,
                            at.pointer(),
                            format!(
                                "\"{text}\" looks like a parameter token but is not one (no spaces; names are [A-Za-z_][A-Za-z0-9_]*); it stays literal text"
                            ),
                        )
                        .in_chain(id)
                        .with("text", text),
                    );
                }
                true
            });
        });
    }
    if let Some(declared) = declared {
        for name in declared.keys() {
            if !scan.uses.contains_key(name.as_str()) && cap.admit(code::PARAM_UNUSED, Severity::Warning) {
                findings.push(
                    Finding::warning(
                        code::PARAM_UNUSED,
                        format!("{}/parameters/properties/{}", chain.pointer(), crate::error::pointer_token(name)),
                        format!(
                            "parameter \"{name}\" is declared but no token uses it: write {{{{params.{name}}}}} \
                             where its value belongs, or remove it"
                        ),
                    )
                    .in_chain(id)
                    .with("param", name.as_str()),
                );
            }
        }
    }
    findings.extend(cap.omitted(&chain.pointer()).map(|f| f.in_chain(id)));
}

#[cfg(test)]
mod tests {
    use crate::error::code;
    use crate::pack::{LoadOptions, load_bytes};
    use serde_json::json;
    use std::path::Path;

    #[test]
    fn each_lint_fires_with_its_pointer() {
        let m = json!({"name": "vendor.t.p", "version": "1.0.0", "kind": "workflow-chain",
            "engines": {"openwop": "*"}, "chains": [{
              "chainId": "c.one", "version": "1.0.0", "label": "L", "description": "D",
              "parameters": {"type": "object", "properties": {
                  "topic": {"type": "string"}, "tags": {"type": "array"}, "spare": {"type": "string"},
                  "cfg": {"type": ["object", "null"]}}},
              "dag": {"nodes": [{"id": "a", "typeId": "core.x",
                  "config": {"p": "About {{params.topic}} {{ params.topic }}", "t": "{{params.tags}}",
                             "e": "tags: {{params.tags}}", "u": "{{params.ghost}}", "c": "<<params.cfg>>!"},
                  "compensation": {"nodeTypeId": "core.y", "inputMapping": {"x": "{{params.a-b}}"}}}],
                  "edges": []}}]});
        let p = load_bytes(Path::new("p"), m.to_string().as_bytes(), LoadOptions::default()).unwrap();
        let got: Vec<_> = p.warnings().map(|f| (f.code, f.pointer.as_str())).collect();
        let want = [
            (code::NEAR_TOKEN, "/chains/0/dag/nodes/0/config/p"),
            (code::EMBEDDED_STRUCTURED, "/chains/0/dag/nodes/0/config/e"),
            (code::TOKEN_UNDECLARED, "/chains/0/dag/nodes/0/config/u"),
            (code::EMBEDDED_STRUCTURED, "/chains/0/dag/nodes/0/config/c"),
            (code::NEAR_TOKEN, "/chains/0/dag/nodes/0/compensation/inputMapping/x"),
            (code::PARAM_UNUSED, "/chains/0/parameters/properties/spare"),
        ];
        for w in want {
            assert!(got.contains(&w), "missing {w:?} in {got:?}");
        }
        assert_eq!(got.len(), want.len(), "{got:?}");
    }
}

//! One pass over every node's substitutable members (`config`, `inputs`,
//! `compensation.inputMapping`) that the semantic checks, the token lints and the expander's
//! size budget share.
//!
//! On a large chain each of them walking the nodes on its own was a third of an expansion's
//! run: the trees are far larger than the caches, so every walk reads them from memory
//! again. This pass reads them once, counts token uses, and notes the few nodes that have
//! something to report; the checks and lints then walk only those nodes, with pointers.

use super::Chain;
use crate::expand::token::{near_tokens, tokens};
use crate::json_walk::member;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// What the pass found in one chain.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scan {
    /// How many tokens name each parameter.
    pub uses: HashMap<String, u64>,
    /// Nodes (indexes into `dag.nodes`, ascending) with a string the token lints report.
    pub lint_nodes: Vec<usize>,
    /// Nodes (ascending) whose `config` or `inputs` read a variable the chain does not produce.
    pub variable_nodes: Vec<usize>,
}

/// A parameter name as the lints see it.
struct Name {
    uses: u64,
    /// Declared, and (when declared) an object or array in its schema.
    declared: bool,
    structured: bool,
}

pub(crate) fn scan(chain: &Chain) -> Scan {
    let declared = chain.parameter_properties();
    // As the variable check reads them: an entry without a name declares "".
    let produced: HashSet<&str> =
        chain.produced_variables().iter().map(|pv| pv.get("name").and_then(Value::as_str).unwrap_or("")).collect();
    let mut names: HashMap<&str, Name> = HashMap::new();
    let mut out = Scan::default();
    let mut stack: Vec<&Value> = Vec::new();
    for (i, node) in chain.nodes().iter().enumerate() {
        let (mut lint, mut variable) = (false, false);
        let mapping = member(node, "compensation").and_then(|c| member(c, "inputMapping"));
        for (root, reads_variables) in
            [(member(node, "config"), true), (member(node, "inputs"), true), (mapping, false)]
        {
            stack.extend(root);
            while let Some(v) = stack.pop() {
                match v {
                    Value::String(s) if opens_token_like(s) => {
                        lint |= note_tokens(s, declared, &mut names);
                    }
                    Value::Object(m) => {
                        variable |= reads_variables && reads_undeclared(v, &produced);
                        stack.extend(m.values());
                    }
                    Value::Array(items) => stack.extend(items),
                    _ => {}
                }
            }
        }
        if lint {
            out.lint_nodes.push(i);
        }
        if variable {
            out.variable_nodes.push(i);
        }
    }
    out.uses = names.into_iter().map(|(name, n)| (name.to_owned(), n.uses)).collect();
    out
}

/// Whether `s` holds `{{` or `<<`: every token and near-token opens with one.
fn opens_token_like(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr2_iter(b'{', b'<', b).any(|i| b.get(i + 1) == Some(&b[i]))
}

/// Count the tokens of `s`; whether a token lint reports it.
fn note_tokens<'a>(
    s: &'a str,
    declared: Option<&'a serde_json::Map<String, Value>>,
    names: &mut HashMap<&'a str, Name>,
) -> bool {
    let found = tokens(s);
    let whole = found.len() == 1 && found[0].start == 0 && found[0].end == s.len();
    let mut reported = false;
    for t in &found {
        let name = names.entry(t.name).or_insert_with(|| {
            let schema = declared.and_then(|d| d.get(t.name));
            Name { uses: 0, declared: schema.is_some(), structured: schema.is_some_and(super::is_structured) }
        });
        name.uses += 1;
        reported |= !name.declared || (!whole && name.structured);
    }
    reported || !near_tokens(s).is_empty()
}

/// Whether `v` is a `{type: "variable", variableName}` read of a variable not in `produced`.
fn reads_undeclared(v: &Value, produced: &HashSet<&str>) -> bool {
    member(v, "type").and_then(Value::as_str) == Some("variable")
        && member(v, "variableName").and_then(Value::as_str).is_some_and(|name| !produced.contains(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chain(nodes: Value) -> Chain {
        Chain::new(
            0,
            json!({"chainId": "c", "parameters": {"type": "object", "properties": {
                "topic": {"type": "string"}, "tags": {"type": "array"}}},
                "producedVariables": [{"name": "made", "producedBy": "a"}],
                "dag": {"nodes": nodes, "edges": []}}),
        )
    }

    #[test]
    fn counts_every_token_and_marks_only_nodes_with_something_to_report() {
        let c = chain(json!([
            {"id": "a", "config": {"p": "{{params.topic}} and <<params.topic>>", "t": "{{params.tags}}"}},
            {"id": "b", "config": {"p": "{{ params.topic }}"}},
            {"id": "c", "inputs": {"x": {"type": "variable", "variableName": "made"}}},
            {"id": "d", "inputs": {"x": {"type": "variable", "variableName": "ghost"}}},
            {"id": "e", "config": {"p": "tags: {{params.tags}}"}},
            {"id": "f", "config": {"p": "{{params.nobody}}"}},
            {"id": "g", "compensation": {"inputMapping": {"v": "{{params.topic}}",
                "r": {"type": "variable", "variableName": "ghost"}}}}
        ]));
        let s = scan(&c);
        assert_eq!(s.uses.get("topic"), Some(&3));
        assert_eq!(s.uses.get("tags"), Some(&2));
        assert_eq!(s.uses.get("nobody"), Some(&1));
        // b: a near-token; e: an array embedded in text; f: an undeclared name.
        assert_eq!(s.lint_nodes, [1, 4, 5]);
        // A read inside a compensation mapping is not a node read.
        assert_eq!(s.variable_nodes, [3]);
    }

    #[test]
    fn only_doubled_openers_count_as_token_like() {
        assert!(opens_token_like("a {{b"));
        assert!(opens_token_like("<<"));
        assert!(!opens_token_like("{ <a> {"));
        assert!(!opens_token_like("{<{<"));
    }
}

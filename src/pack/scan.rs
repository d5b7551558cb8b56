//! One pass over every node's substitutable members (`config`, `inputs`,
//! `compensation.inputMapping`) that the semantic checks, the token lints and the expander's
//! size budget share.
//!
//! On a large chain each of them walking the nodes on its own was a third of an expansion's
//! run: the trees are far larger than the caches, so every walk reads them from memory
//! again. This pass reads them once, counts token uses, and notes the few nodes that have
//! something to report; the checks and lints then walk only those nodes, with pointers.

use super::Chain;
use crate::expand::jsstring::js_integral;
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
    /// Distinct typeIds of nodes and node compensations, in first-use order.
    pub type_ids: Vec<String>,
    pub sites: Sites,
}

/// Where substitution has something to do: every string in a node's `config` or `inputs`
/// that holds `{{` or `<<` (a token, or text the leftover-token lint looks at) and every
/// number JavaScript would print differently (`1.0`). Substituting visits only these, not
/// every value of every node.
#[derive(Debug, Clone, Default)]
pub struct Sites {
    /// Each site as its length, then its path from the node (member and item indexes);
    /// each node's sites in document order.
    paths: Vec<u32>,
    /// Each node's sites: a range of `paths`.
    nodes: Vec<std::ops::Range<u32>>,
}

impl Sites {
    /// Node `i`'s site paths, in document order.
    pub fn of(&self, i: usize) -> impl Iterator<Item = &[u32]> {
        let range = self.nodes.get(i).cloned().unwrap_or(0..0);
        let mut rest = &self.paths[range.start as usize..range.end as usize];
        std::iter::from_fn(move || {
            let (len, tail) = rest.split_first()?;
            let (path, after) = tail.split_at(*len as usize);
            rest = after;
            Some(path)
        })
    }
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
    // Each entry: a value, how deep below its node it sits, and its index in its container.
    let mut stack: Vec<(&Value, usize, u32)> = Vec::new();
    let mut path: Vec<u32> = Vec::new();
    let mut type_ids = TypeIds::default();
    for (i, node) in chain.nodes().iter().enumerate() {
        let (mut lint, mut variable) = (false, false);
        let compensation = member(node, "compensation");
        type_ids.note(member(node, "typeId"));
        type_ids.note(compensation.and_then(|c| member(c, "nodeTypeId")));
        let mapping = compensation.and_then(|c| member(c, "inputMapping"));
        let sites_from = out.sites.paths.len();
        let members = node.as_object().into_iter().flatten();
        let substituted = members.enumerate().filter(|(_, (k, _))| *k == "config" || *k == "inputs");
        // Config and inputs are substituted (and read variables); the mapping is only linted.
        let roots = substituted.map(|(at, (_, v))| (v, Some(at as u32))).chain(mapping.map(|m| (m, None)));
        for (root, at) in roots {
            stack.push((root, 0, at.unwrap_or_default()));
            // `path[..depth]` always holds the indexes down to the popped value's container:
            // a container sets its own index as it is entered, before any of its children.
            while let Some((v, depth, index)) = stack.pop() {
                let site = match v {
                    Value::String(s) if opens_token_like(s) => {
                        lint |= note_tokens(s, declared, &mut names);
                        true
                    }
                    Value::Number(n) => js_integral(n).is_some(),
                    Value::Object(m) => {
                        path.truncate(depth);
                        path.push(index);
                        variable |= at.is_some() && reads_undeclared(v, &produced);
                        // Reversed, so they come off the stack in document order.
                        let children = m.values().enumerate().rev();
                        stack.extend(children.map(|(k, c)| (c, depth + 1, k as u32)));
                        false
                    }
                    Value::Array(items) => {
                        path.truncate(depth);
                        path.push(index);
                        stack.extend(items.iter().enumerate().rev().map(|(k, c)| (c, depth + 1, k as u32)));
                        false
                    }
                    _ => false,
                };
                if site && at.is_some() {
                    out.sites.paths.push(depth as u32 + 1);
                    out.sites.paths.extend_from_slice(&path[..depth]);
                    out.sites.paths.push(index);
                }
            }
        }
        out.sites.nodes.push(sites_from as u32..out.sites.paths.len() as u32);
        if lint {
            out.lint_nodes.push(i);
        }
        if variable {
            out.variable_nodes.push(i);
        }
    }
    out.uses = names.into_iter().map(|(name, n)| (name.to_owned(), n.uses)).collect();
    out.type_ids = type_ids.order.into_iter().map(str::to_owned).collect();
    out
}

/// Distinct strings in first-use order. A chain uses a handful of typeIds across thousands
/// of nodes, so a short list is searched before anything is hashed.
#[derive(Default)]
struct TypeIds<'a> {
    order: Vec<&'a str>,
    seen: HashSet<&'a str>,
}

impl<'a> TypeIds<'a> {
    const LISTED: usize = 16;

    fn note(&mut self, id: Option<&'a Value>) {
        let Some(id) = id.and_then(Value::as_str) else { return };
        if self.order.len() <= Self::LISTED {
            if !self.order.contains(&id) {
                self.order.push(id);
                if self.order.len() > Self::LISTED {
                    self.seen.extend(self.order.iter().copied());
                }
            }
        } else if self.seen.insert(id) {
            self.order.push(id);
        }
    }
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
        // Strings with `{{`/`<<` in config and inputs, by member and item index from the node.
        let sites = |i| s.sites.of(i).map(<[u32]>::to_vec).collect::<Vec<_>>();
        assert_eq!(sites(0), [vec![1, 0], vec![1, 1]]);
        assert_eq!(sites(1), [vec![1, 0]]);
        assert_eq!(sites(2), Vec::<Vec<u32>>::new());
        // The compensation mapping is carried with its own substitution.
        assert_eq!(sites(6), Vec::<Vec<u32>>::new());
    }

    #[test]
    fn sites_are_in_document_order_and_include_numbers_that_change() {
        let s = scan(&chain(json!([
            {"id": "a", "typeId": "t", "config": {"n": 1.0, "m": 1.5, "k": [2, 3.0, {"x": "<<params.topic>>"}],
                "p": "plain"}, "inputs": {"i": {"value": "{{params.topic}}"}}}
        ])));
        let sites: Vec<Vec<u32>> = s.sites.of(0).map(<[u32]>::to_vec).collect();
        assert_eq!(sites, [vec![2, 0], vec![2, 2, 1], vec![2, 2, 2, 0], vec![3, 0, 0]]);
    }

    #[test]
    fn type_ids_are_distinct_in_first_use_order_past_the_short_list() {
        let nodes: Vec<Value> = (0..60)
            .map(|i| {
                json!({"id": format!("n{i}"), "typeId": format!("t.{}", i % 25),
                "compensation": {"nodeTypeId": "t.undo"}})
            })
            .collect();
        let s = scan(&chain(Value::Array(nodes)));
        let mut want: Vec<String> = vec!["t.0".into(), "t.undo".into()];
        want.extend((1..25).map(|i| format!("t.{i}")));
        assert_eq!(s.type_ids, want);
    }

    #[test]
    fn only_doubled_openers_count_as_token_like() {
        assert!(opens_token_like("a {{b"));
        assert!(opens_token_like("<<"));
        assert!(!opens_token_like("{ <a> {"));
        assert!(!opens_token_like("{<{<"));
    }
}

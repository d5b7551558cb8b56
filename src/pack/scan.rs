//! One pass over every node's substitutable members (`config`, `inputs`,
//! `compensation.inputMapping`) that the semantic checks, the token lints and the expander's
//! size budget share.
//!
//! On a large chain each of them walking the nodes on its own was a third of an expansion's
//! run: the trees are far larger than the caches, so every walk reads them from memory
//! again. This pass reads them once, counts token uses, and notes the few nodes that have
//! something to report; the checks and lints then walk only those nodes, with pointers.

use super::Chain;
use super::checks::undeclared_read;
use crate::grammar::jsstring::js_integral;
use crate::grammar::token::{has_near_token, opens_token_like, tokens};
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
#[derive(Clone, Copy)]
struct Name {
    uses: u64,
    /// Declared, and (when declared) an object or array in its schema.
    declared: bool,
    structured: bool,
}

/// From this many nodes on, the pass is shared by two threads, in runs of [`RUN_NODES`].
const PARALLEL_NODES: usize = 2_000;
const RUN_NODES: usize = 256;

pub(crate) fn scan(chain: &Chain) -> Scan {
    let context = Context {
        declared: chain.parameter_properties(),
        // As the variable check reads them: an entry without a name declares "".
        produced: chain
            .produced_variables()
            .iter()
            .map(|pv| pv.get("name").and_then(Value::as_str).unwrap_or(""))
            .collect(),
    };
    let nodes = chain.nodes();
    if nodes.len() < PARALLEL_NODES {
        return scan_run(&context, 0, nodes).finish();
    }
    let runs =
        crate::parallel::share_in_order(nodes.chunks(RUN_NODES), |k, run| scan_run(&context, k * RUN_NODES, run));
    let mut parts = runs.into_iter();
    let first = parts.next().unwrap_or_default();
    parts.fold(first, Partial::append).finish()
}

/// What every run of the pass reads from the chain.
struct Context<'a> {
    declared: Option<&'a serde_json::Map<String, Value>>,
    produced: HashSet<&'a str>,
}

/// The pass over a run of nodes.
#[derive(Default)]
struct Partial<'a> {
    names: HashMap<&'a str, Name>,
    lint_nodes: Vec<usize>,
    variable_nodes: Vec<usize>,
    type_ids: TypeIds<'a>,
    sites: Sites,
}

impl<'a> Partial<'a> {
    /// This run followed by the `next` one.
    fn append(mut self, next: Partial<'a>) -> Self {
        for (name, n) in next.names {
            self.names.entry(name).or_insert(Name { uses: 0, ..n }).uses += n.uses;
        }
        self.lint_nodes.extend(next.lint_nodes);
        self.variable_nodes.extend(next.variable_nodes);
        for id in next.type_ids.order {
            self.type_ids.note(Some(id));
        }
        let offset = self.sites.paths.len() as u32;
        self.sites.paths.extend(next.sites.paths);
        self.sites.nodes.extend(next.sites.nodes.into_iter().map(|r| r.start + offset..r.end + offset));
        self
    }

    fn finish(self) -> Scan {
        Scan {
            uses: self.names.into_iter().map(|(name, n)| (name.to_owned(), n.uses)).collect(),
            lint_nodes: self.lint_nodes,
            variable_nodes: self.variable_nodes,
            type_ids: self.type_ids.order.into_iter().map(str::to_owned).collect(),
            sites: self.sites,
        }
    }
}

/// The pass over `nodes`, which are the chain's nodes `first..`.
fn scan_run<'a>(context: &Context<'a>, first: usize, nodes: &'a [Value]) -> Partial<'a> {
    let mut out = Partial::default();
    // Each entry: a value, how deep below its node it sits, and its index in its container.
    let mut stack: Vec<(&Value, usize, u32)> = Vec::new();
    let mut path: Vec<u32> = Vec::new();
    for (i, node) in (first..).zip(nodes) {
        let (mut lint, mut variable) = (false, false);
        let compensation = member(node, "compensation");
        out.type_ids.note(member(node, "typeId").and_then(Value::as_str));
        out.type_ids.note(compensation.and_then(|c| member(c, "nodeTypeId")).and_then(Value::as_str));
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
                        lint |= note_tokens(s, context.declared, &mut out.names);
                        true
                    }
                    Value::Number(n) => js_integral(n).is_some(),
                    Value::Object(m) => {
                        path.truncate(depth);
                        path.push(index);
                        let produced = |name: &str| context.produced.contains(name);
                        variable |= at.is_some() && undeclared_read(v, &produced).is_some();
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

    fn note(&mut self, id: Option<&'a str>) {
        let Some(id) = id else { return };
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
    reported || has_near_token(s)
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
    fn a_chain_shared_by_two_threads_scans_as_one_pass_would() {
        let n = PARALLEL_NODES + 3 * RUN_NODES + 7;
        let nodes: Vec<Value> = (0..n)
            .map(|i| {
                // A typeId first used in a late run, one lint hit and one bad read per far run.
                let type_id = if i >= n - 5 { "t.late".to_owned() } else { format!("t.{}", i % 3) };
                let text = if i == 3 || i == n - 2 { "{{ params.topic }}" } else { "{{params.topic}}" };
                let read = if i == 1 || i == n - 1 { "ghost" } else { "made" };
                json!({"id": format!("n{i}"), "typeId": type_id, "config": {"p": text, "k": [1.0, "x"]},
                    "inputs": {"v": {"type": "variable", "variableName": read}}})
            })
            .collect();
        let s = scan(&chain(Value::Array(nodes)));
        // Every node's text is a token but the two near-misses.
        assert_eq!(s.uses.get("topic"), Some(&(n as u64 - 2)));
        assert_eq!(s.lint_nodes, [3, n - 2]);
        assert_eq!(s.variable_nodes, [1, n - 1]);
        assert_eq!(s.type_ids, ["t.0", "t.1", "t.2", "t.late"]);
        for i in [0, RUN_NODES, n - 1] {
            let sites: Vec<Vec<u32>> = s.sites.of(i).map(<[u32]>::to_vec).collect();
            assert_eq!(sites, [vec![2, 0], vec![2, 1, 0]], "node {i}");
        }
    }
}

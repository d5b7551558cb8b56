//! Two versions of a pack compared chain by chain, each change classified by what it does
//! to a workflow that uses the chain (the table below, documented in docs/upgrade.md):
//! what can break a parent workflow or its saved values is major, what only adds or widens
//! is minor, words are patch.

use super::{Change, Level, PackDiff};
use crate::error::pointer_token;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// Every change kind and its level.
pub const KINDS: &[(&str, Level)] = &[
    ("chain_removed", Level::Major),
    ("parameter_removed", Level::Major),
    ("parameter_renamed", Level::Major),
    ("parameter_type_narrowed", Level::Major),
    ("enum_values_removed", Level::Major),
    ("bounds_tightened", Level::Major),
    ("pattern_added", Level::Major),
    ("parameter_required_without_default", Level::Major),
    ("parameter_schema_changed", Level::Major),
    ("entry_node_removed", Level::Major),
    ("exit_node_removed", Level::Major),
    ("output_removed", Level::Major),
    ("chain_added", Level::Minor),
    ("parameter_added", Level::Minor),
    ("parameter_made_optional", Level::Minor),
    ("parameter_type_widened", Level::Minor),
    ("enum_values_added", Level::Minor),
    ("bounds_loosened", Level::Minor),
    ("pattern_removed", Level::Minor),
    ("default_changed", Level::Minor),
    ("dag_changed", Level::Minor),
    ("output_added", Level::Minor),
    ("chain_changed", Level::Minor),
    ("requirements_changed", Level::Minor),
    ("text_changed", Level::Patch),
];

fn level(kind: &str) -> Level {
    KINDS.iter().find(|(k, _)| *k == kind).map_or(Level::Major, |(_, l)| *l)
}

/// Members that are words for people, not behaviour.
const TEXT: &[&str] = &[
    "label",
    "title",
    "description",
    "examples",
    "$comment",
    "author",
    "license",
    "homepage",
    "keywords",
    "readme",
    "tags",
    "icon",
];
/// Parameter schema keywords a lower or upper bound is written with.
const LOWER: &[&str] = &["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"];
const UPPER: &[&str] = &["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"];

/// Where changes go. Each holds the values it names as they are in the manifests (a copy
/// of every changed node was the largest part of comparing two versions of a long chain).
struct Out<'o, 'a> {
    changes: &'o mut Vec<Change<'a>>,
    chain_id: Option<&'a str>,
}

impl<'a> Out<'_, 'a> {
    fn push(&mut self, kind: &'static str, pointer: String, old: Option<&'a Value>, new: Option<&'a Value>) {
        self.push_values(kind, pointer, old.map(Cow::Borrowed), new.map(Cow::Borrowed));
    }

    /// A change whose sides are made for it (a name, the enum values removed).
    fn push_values(
        &mut self,
        kind: &'static str,
        pointer: String,
        old: Option<Cow<'a, Value>>,
        new: Option<Cow<'a, Value>>,
    ) {
        self.changes.push(Change { level: level(kind), kind, chain_id: self.chain_id, pointer, old, new });
    }
}

fn made(v: Value) -> Option<Cow<'static, Value>> {
    Some(Cow::Owned(v))
}

fn name(text: &str) -> Option<Cow<'static, Value>> {
    made(Value::String(text.to_owned()))
}

fn chains(manifest: &Value) -> Vec<(usize, &str, &Value)> {
    manifest
        .get("chains")
        .and_then(Value::as_array)
        .map(|l| l.iter().enumerate().filter_map(|(i, c)| Some((i, c.get("chainId")?.as_str()?, c))).collect())
        .unwrap_or_default()
}

/// The changes from manifest `old` to manifest `new`; with `only`, that chain's alone.
pub fn diff_packs<'a>(old: &'a Value, new: &'a Value, only: Option<&str>) -> PackDiff<'a> {
    let mut changes = Vec::new();
    if only.is_none() {
        let mut out = Out { changes: &mut changes, chain_id: None };
        let (o, n) = (old.as_object(), new.as_object());
        let keys = union(o, n);
        for key in keys {
            // Signing is how a version was published, not what it holds.
            if matches!(key.as_str(), "chains" | "version" | "signature" | "signing" | "name" | "kind") {
                continue;
            }
            let (a, b) = (old.get(&key), new.get(&key));
            if a != b {
                let kind = if TEXT.contains(&key.as_str()) { "text_changed" } else { "requirements_changed" };
                out.push(kind, format!("/{}", pointer_token(&key)), a, b);
            }
        }
    }
    let old_chains = chains(old);
    let new_chains = chains(new);
    let new_by_id: HashMap<&str, (usize, &Value)> = new_chains.iter().map(|(i, id, c)| (*id, (*i, *c))).collect();
    let old_ids: HashSet<&str> = old_chains.iter().map(|(_, id, _)| *id).collect();
    for (i, id, c) in &old_chains {
        if only.is_some_and(|o| o != *id) {
            continue;
        }
        let mut out = Out { changes: &mut changes, chain_id: Some(*id) };
        match new_by_id.get(id) {
            None => out.push_values("chain_removed", format!("/chains/{i}"), name(id), None),
            Some((j, n)) => diff_chain(&mut out, c, n, *j),
        }
    }
    for (j, id, _) in &new_chains {
        if !old_ids.contains(id) && only.is_none_or(|o| o == *id) {
            let mut out = Out { changes: &mut changes, chain_id: Some(*id) };
            out.push_values("chain_added", format!("/chains/{j}"), None, name(id));
        }
    }
    PackDiff { changes }
}

/// Keys of either object: `a`'s order, then `b`'s new ones.
fn union(a: Option<&Map<String, Value>>, b: Option<&Map<String, Value>>) -> Vec<String> {
    let mut keys: Vec<String> = a.map(|m| m.keys().cloned().collect()).unwrap_or_default();
    let seen: HashSet<String> = keys.iter().cloned().collect();
    keys.extend(b.into_iter().flat_map(|m| m.keys()).filter(|k| !seen.contains(*k)).cloned());
    keys
}

fn diff_chain<'a>(out: &mut Out<'_, 'a>, old: &'a Value, new: &'a Value, j: usize) {
    let at = format!("/chains/{j}");
    for key in union(old.as_object(), new.as_object()) {
        let (a, b) = (old.get(&key), new.get(&key));
        if a == b || key == "version" || key == "chainId" {
            continue;
        }
        match key.as_str() {
            "parameters" => diff_parameters(out, a, b, &format!("{at}/parameters")),
            "dag" => diff_dag(out, a, b, &format!("{at}/dag")),
            "outputs" => diff_outputs(out, a, b, &format!("{at}/outputs")),
            k if TEXT.contains(&k) => out.push("text_changed", format!("{at}/{}", pointer_token(k)), a, b),
            k => out.push("chain_changed", format!("{at}/{}", pointer_token(k)), a, b),
        }
    }
}

fn props(schema: Option<&Value>) -> Option<&Map<String, Value>> {
    schema.and_then(|s| s.get("properties")).and_then(Value::as_object)
}

fn required(schema: Option<&Value>) -> HashSet<String> {
    schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

fn diff_parameters<'a>(out: &mut Out<'_, 'a>, old: Option<&'a Value>, new: Option<&'a Value>, at: &str) {
    static NONE: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
    let (po, pn) = (props(old).unwrap_or(&NONE), props(new).unwrap_or(&NONE));
    let (ro, rn) = (required(old), required(new));
    let removed: Vec<&String> = po.keys().filter(|k| !pn.contains_key(*k)).collect();
    let mut added: Vec<&String> = pn.keys().filter(|k| !po.contains_key(*k)).collect();
    for name in removed {
        // The same schema under a new name is a rename: saved values under the old name
        // no longer apply either way.
        if let Some(pos) = added.iter().position(|a| pn[*a] == po[name]) {
            let to = added.remove(pos);
            out.push_values(
                "parameter_renamed",
                format!("{at}/properties/{}", pointer_token(to)),
                self::name(name),
                self::name(to),
            );
            continue;
        }
        out.push("parameter_removed", format!("{at}/properties/{}", pointer_token(name)), po.get(name.as_str()), None);
    }
    for name in added {
        let schema = &pn[name];
        let kind = if rn.contains(name) && schema.get("default").is_none() {
            "parameter_required_without_default"
        } else {
            "parameter_added"
        };
        out.push(kind, format!("{at}/properties/{}", pointer_token(name)), None, pn.get(name.as_str()));
    }
    for (name, a) in po {
        let Some(b) = pn.get(name) else { continue };
        let p = format!("{at}/properties/{}", pointer_token(name));
        diff_param(out, a, b, &p);
        match (ro.contains(name), rn.contains(name)) {
            (false, true) if b.get("default").is_none() => {
                out.push_values("parameter_required_without_default", format!("{at}/required"), None, self::name(name))
            }
            (true, false) => {
                out.push_values("parameter_made_optional", format!("{at}/required"), self::name(name), None)
            }
            _ => {}
        }
    }
    // Anything else of the parameters object (additionalProperties, …) may refuse values.
    for key in union(old.and_then(Value::as_object), new.and_then(Value::as_object)) {
        if matches!(key.as_str(), "properties" | "required") {
            continue;
        }
        let (a, b) = (old.and_then(|o| o.get(&key)), new.and_then(|n| n.get(&key)));
        if a != b {
            let kind = if TEXT.contains(&key.as_str()) { "text_changed" } else { "parameter_schema_changed" };
            out.push(kind, format!("{at}/{}", pointer_token(&key)), a, b);
        }
    }
}

/// The types a schema allows; `None` for any.
fn types(s: &Value) -> Option<HashSet<String>> {
    match s.get("type")? {
        Value::String(t) => Some([t.clone()].into()),
        Value::Array(l) => Some(l.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
        _ => None,
    }
}

/// Whether every type of `a` is allowed by `b` (an integer is a number).
fn types_within(a: &Option<HashSet<String>>, b: &Option<HashSet<String>>) -> bool {
    match (a, b) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(a), Some(b)) => a.iter().all(|t| b.contains(t) || (t == "integer" && b.contains("number"))),
    }
}

fn diff_param<'a>(out: &mut Out<'_, 'a>, a: &'a Value, b: &'a Value, at: &str) {
    if a == b {
        return;
    }
    let (ta, tb) = (types(a), types(b));
    if ta != tb {
        let kind = if types_within(&ta, &tb) { "parameter_type_widened" } else { "parameter_type_narrowed" };
        out.push(kind, format!("{at}/type"), a.get("type"), b.get("type"));
    }
    match (a.get("enum").and_then(Value::as_array), b.get("enum").and_then(Value::as_array)) {
        (Some(x), Some(y)) if x != y => {
            let gone: Vec<Value> = x.iter().filter(|v| !y.contains(v)).cloned().collect();
            let new: Vec<Value> = y.iter().filter(|v| !x.contains(v)).cloned().collect();
            if !gone.is_empty() {
                out.push_values("enum_values_removed", format!("{at}/enum"), made(Value::Array(gone)), None);
            }
            if !new.is_empty() {
                out.push_values("enum_values_added", format!("{at}/enum"), None, made(Value::Array(new)));
            }
        }
        (None, Some(_)) => out.push("enum_values_removed", format!("{at}/enum"), None, b.get("enum")),
        (Some(_), None) => out.push("enum_values_added", format!("{at}/enum"), a.get("enum"), None),
        _ => {}
    }
    for (keys, lower) in [(LOWER, true), (UPPER, false)] {
        for key in keys {
            let (x, y) = (a.get(*key), b.get(*key));
            if x == y {
                continue;
            }
            let tighter = match (x.and_then(Value::as_f64), y.and_then(Value::as_f64)) {
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(x), Some(y)) => (y > x) == lower,
                (None, None) => true,
            };
            let kind = if tighter { "bounds_tightened" } else { "bounds_loosened" };
            out.push(kind, format!("{at}/{key}"), x, y);
        }
    }
    match (a.get("pattern"), b.get("pattern")) {
        (x, y) if x == y => {}
        (x, None) => out.push("pattern_removed", format!("{at}/pattern"), x, None),
        (x, y) => out.push("pattern_added", format!("{at}/pattern"), x, y),
    }
    if a.get("default") != b.get("default") {
        out.push("default_changed", format!("{at}/default"), a.get("default"), b.get("default"));
    }
    let handled = ["type", "enum", "pattern", "default"];
    for key in union(a.as_object(), b.as_object()) {
        let k = key.as_str();
        if handled.contains(&k) || LOWER.contains(&k) || UPPER.contains(&k) {
            continue;
        }
        let (x, y) = (a.get(k), b.get(k));
        if x != y {
            let kind =
                if TEXT.contains(&k) || k.starts_with("x-") { "text_changed" } else { "parameter_schema_changed" };
            out.push(kind, format!("{at}/{}", pointer_token(k)), x, y);
        }
    }
}

fn diff_outputs<'a>(out: &mut Out<'_, 'a>, old: Option<&'a Value>, new: Option<&'a Value>, at: &str) {
    let (a, b) = (old.and_then(Value::as_object), new.and_then(Value::as_object));
    for key in union(a, b) {
        let (x, y) = (a.and_then(|m| m.get(&key)), b.and_then(|m| m.get(&key)));
        let p = format!("{at}/{}", pointer_token(&key));
        match (x, y) {
            (Some(_), None) => out.push("output_removed", p, x, None),
            (None, Some(_)) => out.push("output_added", p, None, y),
            (Some(x), Some(y)) if x != y => {
                let kind = if same_but(x, y, |k| TEXT.contains(&k)) { "text_changed" } else { "chain_changed" };
                out.push(kind, p, Some(x), Some(y));
            }
            _ => {}
        }
    }
}

/// Whether `a` and `b` are equal but for the object members `skip` names (compared in
/// place: the copies without them were a node's worth of allocations per changed node).
fn same_but(a: &Value, b: &Value, skip: impl Fn(&str) -> bool) -> bool {
    match (a.as_object(), b.as_object()) {
        (Some(x), Some(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            keys.filter(|k| !skip(k)).all(|k| x.get(k) == y.get(k))
        }
        _ => a == b,
    }
}

/// A fragment's nodes (index, id, node), and which are entry (no incoming edge) and exit
/// (no outgoing edge) nodes, read in place.
struct Shape<'a> {
    nodes: Vec<(usize, &'a str, &'a Value)>,
    entry: HashSet<&'a str>,
    exit: HashSet<&'a str>,
}

fn dag_list<'a>(dag: Option<&'a Value>, key: &str) -> &'a [Value] {
    dag.and_then(|d| d.get(key)).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

/// The node an edge end (`node` or `node.port`) names.
fn end_node<'a>(e: &'a Value, k: &str) -> &'a str {
    let t = e.get(k).and_then(Value::as_str).unwrap_or_default();
    t.split_once('.').map_or(t, |(n, _)| n)
}

fn shape(dag: Option<&Value>) -> Shape<'_> {
    let nodes: Vec<(usize, &str, &Value)> =
        dag_list(dag, "nodes").iter().enumerate().filter_map(|(i, n)| Some((i, n.get("id")?.as_str()?, n))).collect();
    let edges = dag_list(dag, "edges");
    let ends = |k: &str| -> HashSet<&str> {
        edges.iter().filter(|e| e.get(k).is_some_and(Value::is_string)).map(|e| end_node(e, k)).collect()
    };
    let (targets, sources) = (ends("to"), ends("from"));
    let entry = nodes.iter().filter(|(_, id, _)| !targets.contains(id)).map(|(_, id, _)| *id).collect();
    let exit = nodes.iter().filter(|(_, id, _)| !sources.contains(id)).map(|(_, id, _)| *id).collect();
    Shape { nodes, entry, exit }
}

fn diff_dag<'a>(out: &mut Out<'_, 'a>, old: Option<&'a Value>, new: Option<&'a Value>, at: &str) {
    let Shape { nodes: on, entry, exit } = shape(old);
    let nn = shape(new).nodes;
    let new_by_id: HashMap<&str, (usize, &Value)> = nn.iter().map(|(i, id, n)| (*id, (*i, *n))).collect();
    let old_ids: HashSet<&str> = on.iter().map(|(_, id, _)| *id).collect();
    for (i, id, n) in &on {
        match new_by_id.get(id) {
            None => {
                // Parent workflows wire to entry and exit nodes.
                let kind = if entry.contains(id) {
                    "entry_node_removed"
                } else if exit.contains(id) {
                    "exit_node_removed"
                } else {
                    "dag_changed"
                };
                out.push(kind, format!("{at}/nodes/{i}"), Some(n), None);
            }
            Some((j, m)) if m != n => {
                let words = |k: &str| matches!(k, "name" | "description" | "position");
                let kind = if same_but(n, m, words) { "text_changed" } else { "dag_changed" };
                out.push(kind, format!("{at}/nodes/{j}"), Some(n), Some(m));
            }
            _ => {}
        }
    }
    for (j, id, n) in &nn {
        if !old_ids.contains(id) {
            out.push("dag_changed", format!("{at}/nodes/{j}"), None, Some(n));
        }
    }
    let (eo, en) = (dag_list(old, "edges"), dag_list(new, "edges"));
    let key = |e: &Value| e.to_string();
    let so: HashSet<String> = eo.iter().map(key).collect();
    let sn: HashSet<String> = en.iter().map(key).collect();
    // An edge to or from a node removed or added goes with that node's change.
    let touches = |e: &Value, ids: &dyn Fn(&str) -> bool| ids(end_node(e, "from")) || ids(end_node(e, "to"));
    let gone = |id: &str| old_ids.contains(id) && !new_by_id.contains_key(id);
    let fresh = |id: &str| new_by_id.contains_key(id) && !old_ids.contains(id);
    for (i, e) in eo.iter().enumerate() {
        if !sn.contains(&key(e)) && !touches(e, &gone) {
            out.push("dag_changed", format!("{at}/edges/{i}"), Some(e), None);
        }
    }
    for (j, e) in en.iter().enumerate() {
        if !so.contains(&key(e)) && !touches(e, &fresh) {
            out.push("dag_changed", format!("{at}/edges/{j}"), None, Some(e));
        }
    }
}

//! Every refusal a splice can give, run before the first change: ids the workflow already
//! has, endpoints that are not there, a loop the wiring would close, a compensation policy
//! or a produced variable that clashes with the parent's. What passes is the [`Plan`] the
//! splice then carries out.

use super::super::Workflow;
use super::{SpliceOptions, fragment_edge_id};
use crate::error::{Error, Result, code};
use crate::expand::Expansion;
use petgraph::stable_graph::EdgeIndex;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet, VecDeque, hash_map};

/// What the checks found the splice must change besides adding the fragment.
pub(super) struct Plan {
    /// Parent edges the `between` wiring replaces.
    pub replaced: Vec<EdgeIndex>,
    /// The chain's compensation policy, when the parent has none yet.
    pub new_policy: Option<Value>,
    /// Produced variables the parent does not declare yet.
    pub new_variables: Vec<Value>,
}

pub(super) fn check(wf: &Workflow, exp: &Expansion, opts: &SpliceOptions) -> Result<Plan> {
    fresh_ids(wf, exp)?;
    endpoints(wf, opts)?;
    refuse_cycle(wf, exp, opts)?;
    let replaced = replaced_edges(wf, opts)?;
    let new_policy = compensation(wf, exp)?;
    let new_variables = produced_variables(wf, exp)?;
    Ok(Plan { replaced, new_policy, new_variables })
}

/// The fragment's node ids, its instance key and its edge ids must all be new.
fn fresh_ids(wf: &Workflow, exp: &Expansion) -> Result<()> {
    if let Some((_, taken)) = exp.id_map.iter().find(|(_, new)| wf.contains_node(new)) {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!("node id \"{taken}\" already exists in the workflow; choose another expansionId"),
        )
        .with("nodeId", taken.as_str())
        .with("expansionId", exp.expansion_id.as_str()));
    }
    // `qa.c` and `qa_c` share a prefix, so the same expansionId gives both one instance
    // key; recording the second would silently replace the first one's provenance.
    if let Some(other) = wf.instance(&exp.prefix) {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!(
                "the workflow already holds chain instance {} ({}); expansionId \"{}\" would give {} the same key; \
                 choose another expansionId",
                other.key(),
                other.chain_id,
                exp.expansion_id,
                exp.chain_id
            ),
        )
        .with("instance", exp.prefix.as_str())
        .with("expansionId", exp.expansion_id.as_str()));
    }
    let mut fresh = HashSet::new();
    if let Some((_, bad)) = exp.id_map.iter().find(|(_, new)| new.is_empty() || !fresh.insert(new.as_str())) {
        return Err(Error::new(code::INVALID_REQUEST, format!("the expansion repeats or omits node id \"{bad}\""))
            .with("nodeId", bad.as_str()));
    }
    // Fragment edge ids are fixed by the prefix (`prefix + "e" + n`); one the parent already
    // uses would be written twice.
    if let Some(id) = (1..=exp.edges.len()).map(|n| fragment_edge_id(exp, n)).find(|id| wf.has_edge_id(id)) {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!("edge id \"{id}\" already exists in the workflow; choose another expansionId"),
        )
        .with("edgeId", id.as_str())
        .with("expansionId", exp.expansion_id.as_str()));
    }
    Ok(())
}

/// The parent nodes the fragment is to be wired to exist, and it is wired one way only.
fn endpoints(wf: &Workflow, opts: &SpliceOptions) -> Result<()> {
    if let (Some((a, b)), Some(after)) = (&opts.between, &opts.after) {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!("a chain goes between {a} and {b} or after {}, not both", after.node),
        )
        .with("between", json!([a, b]))
        .with("after", after.node.as_str()));
    }
    let (ends, how): (Vec<&String>, &str) = match (&opts.between, &opts.after) {
        (Some((a, b)), _) => (vec![a, b], "wired between nodes"),
        (None, Some(after)) => (vec![&after.node], "wired after a node"),
        (None, None) => (Vec::new(), ""),
    };
    if let Some(end) = ends.into_iter().find(|end| !wf.contains_node(end)) {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!("the chain is to be {how}, but node \"{end}\" is not in the workflow"),
        )
        .with("nodeId", end.as_str()));
    }
    Ok(())
}

/// Wiring the fragment from `a` to `b` adds paths a → fragment → b, so it closes a cycle when
/// `b` is `a` or already reaches `a` (the user swapped the endpoints, or `b` is upstream).
/// Wiring after one node only adds paths into new nodes, which closes nothing.
fn refuse_cycle(wf: &Workflow, exp: &Expansion, opts: &SpliceOptions) -> Result<()> {
    let Some((a, b)) = &opts.between else { return Ok(()) };
    if exp.nodes.is_empty() {
        return Ok(());
    }
    let (ia, ib) = (wf.node(a).expect("checked"), wf.node(b).expect("checked"));
    // Breadth-first from b with back-links, so the message can show the path that closes.
    let mut came_from = HashMap::from([(ib, ib)]);
    let mut queue = VecDeque::from([ib]);
    while let Some(ix) = queue.pop_front() {
        if ix == ia {
            let mut path = vec![wf.graph[ia].id().to_owned()];
            let mut at = ia;
            while at != ib {
                at = came_from[&at];
                path.push(wf.graph[at].id().to_owned());
            }
            path.reverse();
            let reason = if a == b {
                format!("splicing between {a} and {a} would wire the chain from a node back into itself")
            } else {
                format!(
                    "splicing between {a} and {b} would close a loop: {b} already leads to {a} ({}); \
                     are the endpoints swapped?",
                    path.join(" → ")
                )
            };
            // A splice replaces a forward connection; a loopback is only ever drawn on purpose.
            return Err(Error::new(code::VALIDATION_ERROR, reason).with("between", json!([a, b])).with("cycle", path));
        }
        for next in wf.graph.neighbors_directed(ix, petgraph::Direction::Outgoing) {
            if let hash_map::Entry::Vacant(slot) = came_from.entry(next) {
                slot.insert(ix);
                queue.push_back(next);
            }
        }
    }
    Ok(())
}

/// The parent edges a `between` splice replaces.
fn replaced_edges(wf: &Workflow, opts: &SpliceOptions) -> Result<Vec<EdgeIndex>> {
    use petgraph::visit::EdgeRef;
    let Some((a, b)) = &opts.between else { return Ok(Vec::new()) };
    let (ia, ib) = (wf.node(a).expect("checked"), wf.node(b).expect("checked"));
    let direct = wf.graph.edges_connecting(ia, ib);
    match &opts.replace_edge {
        None => Ok(direct.map(|e| e.id()).collect()),
        Some(id) => {
            let found = direct.filter(|e| e.weight().id() == id).map(|e| e.id()).next();
            found.map(|e| vec![e]).ok_or_else(|| {
                Error::new(code::INVALID_REQUEST, format!("there is no edge \"{id}\" from {a} to {b}"))
                    .with("edgeId", id.as_str())
            })
        }
    }
}

/// The chain's compensation policy goes to a parent without one; a different one is refused.
fn compensation(wf: &Workflow, exp: &Expansion) -> Result<Option<Value>> {
    match (&exp.settings_compensation, wf.settings_compensation()) {
        (None, _) => Ok(None),
        (Some(chain), Some(parent)) if chain == parent => Ok(None),
        (Some(_), Some(parent)) => Err(Error::new(
            code::CHAIN_COMPENSATION_POLICY_CONFLICT,
            format!(
                "chain {} carries a compensation policy that differs from the workflow's settings.compensation",
                exp.chain_id
            ),
        )
        .with("chainId", exp.chain_id.as_str())
        .with("parentPolicy", parent.clone())),
        (Some(chain), None) => Ok(Some(chain.clone())),
    }
}

/// Produced variables to append (§5.6): skip exact duplicates, refuse a name clash.
fn produced_variables(wf: &Workflow, exp: &Expansion) -> Result<Vec<Value>> {
    let existing: Vec<(&str, &str)> = wf
        .member("variables")
        .and_then(Value::as_array)
        .map(|vs| {
            vs.iter()
                .filter_map(|v| Some((v.get("name")?.as_str()?, v.get("type")?.as_str().unwrap_or_default())))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    for pv in &exp.produced_variables {
        let name = pv.get("name").and_then(Value::as_str).unwrap_or_default();
        let ty = pv.get("type").and_then(Value::as_str).unwrap_or_default();
        match existing.iter().find(|(n, _)| *n == name) {
            Some((_, t)) if *t == ty => {}
            Some((_, t)) => {
                return Err(Error::new(
                    code::VARIABLE_UNDECLARED,
                    format!("chain {} produces variable \"{name}\" of type {ty}, but the workflow already declares it as {t}", exp.chain_id),
                )
                .with("variableName", name));
            }
            None => out.push(json!({"name": name, "type": ty})),
        }
    }
    Ok(out)
}

//! Newer versions of an instance's chain among the packs at hand, and the review of moving
//! an instance to one: both expansions side by side (nodes, members, edges), the chain's
//! changes as the semver check classifies them, the user's edits and conflicts, and the
//! values that carry over. Nothing here changes the workflow; applying is the inline
//! pipeline's re-expansion ([`crate::inline::Destination::Reparameterise`]), as the CLI's
//! `upgrade` runs it.

use super::edits::{Edit, NOT_MERGED, comparable, edge_key};
use super::upgrade::{carried_values, compare};
use crate::catalog::Trust;
use crate::diff::pack::diff_packs;
use crate::diff::{Change, Level, bump};
use crate::error::Result;
use crate::inline::{Destination, ExpansionIdChoice, InlineRequest, expand_for};
use crate::pack::{Chain, Pack};
use crate::workflow::merge3::{Conflict, differences};
use crate::workflow::{Instance, Workflow, fragment_edges, fragment_nodes};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// A newer version of an instance's chain that a loaded pack holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Available {
    pub key: String,
    pub chain_id: String,
    pub from: String,
    pub to: String,
    /// What the change needs by the semver check; the version numbers' bump when the
    /// recorded version is not at hand to compare with, or the check finds nothing.
    pub level: Level,
    /// The pack holding `to`, by its place in the list given.
    pub pack: usize,
}

/// The chain's versions among `packs`, newest first, each with the first pack holding it.
pub fn versions(packs: &[Pack], chain_id: &str) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for (i, p) in packs.iter().enumerate() {
        if let Some(c) = p.chain(chain_id)
            && !out.iter().any(|(v, _)| v == c.version())
        {
            out.push((c.version().to_owned(), i));
        }
    }
    out.sort_by(|a, b| compare(&b.0, &a.0));
    out
}

/// The newest version of `inst`'s chain among `packs` when it is above the recorded one;
/// `None` for a pinned instance.
pub fn available(inst: &Instance, packs: &[Pack]) -> Option<Available> {
    if inst.pinned {
        return None;
    }
    let (to, pack) = versions(packs, &inst.chain_id).into_iter().next()?;
    if compare(&to, &inst.chain_version) != std::cmp::Ordering::Greater {
        return None;
    }
    let base = super::base_pack(inst, packs.iter());
    let checked = base.map_or(Level::None, |b| diff_packs(&b.manifest, &packs[pack].manifest, Some(&inst.chain_id)).required());
    let level = match checked {
        Level::None => bump(&inst.chain_version, &to).unwrap_or(Level::Major),
        l => l,
    };
    Some(Available { key: inst.key(), chain_id: inst.chain_id.clone(), from: inst.chain_version.clone(), to, level, pack })
}

/// [`available`] for every instance of `wf`.
pub fn outdated(wf: &Workflow, packs: &[Pack]) -> Vec<Available> {
    wf.instances().iter().filter_map(|i| available(i, packs)).collect()
}

/// One node of the instance in the old and the new expansion.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeChange {
    Added(String),
    Removed(String),
    /// A member (JSON pointer inside the node) with its old and new value.
    Member { node: String, pointer: String, old: Option<Value>, new: Option<Value> },
}

/// What moving an instance to another version of its chain does, before it is done.
#[derive(Debug, Clone)]
pub struct Review {
    pub key: String,
    pub label: String,
    pub chain_id: String,
    pub from: String,
    pub to: String,
    pub level: Level,
    /// The nodes of both expansions side by side, in fragment order (old, then new).
    pub old_nodes: Vec<String>,
    pub new_nodes: Vec<String>,
    pub nodes: Vec<NodeChange>,
    /// Fragment edges as `source.port → target.port`.
    pub edges_added: Vec<String>,
    pub edges_removed: Vec<String>,
    /// The chain's changes between the two versions (parameters: type, enum, bounds,
    /// default, …), as `chainsmith diff` lists them; empty without the recorded version.
    pub changes: Vec<Change>,
    pub edits: Vec<Edit>,
    pub conflicts: Vec<Conflict>,
    /// The recorded values the new version still declares (what the form starts from).
    pub values: Map<String, Value>,
    /// Recorded values the new version no longer declares: they are dropped.
    pub dropped: Vec<String>,
}

/// Review moving instance `key` of `wf` to `target`'s version of its chain (the packs given
/// resolve the recorded version and external sub-chains). The values carried over are
/// substituted as given, so an invalid one still shows where it lands; the form checks them.
pub fn review_update(wf: &Workflow, key: &str, packs: &[Pack], target: &Pack, trust: &Trust) -> Result<Review> {
    let inst = super::merge::find(wf, key)?;
    let chain: &Chain = super::upgrade::target(key, &inst.chain_id, std::slice::from_ref(target), None)?
        .chain(&inst.chain_id)
        .expect("target holds the chain");
    let values = carried_values(&inst.params, chain, Map::new());
    let dropped = inst.params.keys().filter(|k| !values.contains_key(*k)).cloned().collect();
    let mut req = InlineRequest::new(trust, target, &inst.chain_id, values.clone());
    req.expansion_id = ExpansionIdChoice::Given(inst.expansion_id.clone());
    req.external = packs;
    req.preview = true;
    req.destination = Destination::Reparameterise { key: key.to_owned(), resolutions: Default::default() };
    let expanded = expand_for(Some(wf), req)?;
    let base = expanded.base.expect("a re-expansion computes its base");
    let new = expanded.expansion;
    let (edits, conflicts) = super::review(wf, key, &base, &new)?;

    let (old_frag, new_frag) = (fragment_nodes(&base), fragment_nodes(&new));
    let id = |n: &Map<String, Value>| n.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
    let new_by_id: HashMap<String, &Map<String, Value>> = new_frag.iter().map(|n| (id(n), n)).collect();
    let old_ids: HashSet<String> = old_frag.iter().map(id).collect();
    let mut nodes = Vec::new();
    for o in &old_frag {
        let node = id(o);
        let Some(n) = new_by_id.get(&node) else {
            nodes.push(NodeChange::Removed(node));
            continue;
        };
        let mut diffs = Vec::new();
        differences("", &comparable(o), &comparable(n), &NOT_MERGED, &mut diffs);
        nodes.extend(diffs.into_iter().map(|(pointer, old, new)| NodeChange::Member {
            node: node.clone(),
            pointer,
            old,
            new,
        }));
    }
    nodes.extend(new_frag.iter().map(id).filter(|n| !old_ids.contains(n)).map(NodeChange::Added));

    let edge_text = |k: (String, String, String, String)| format!("{}.{} → {}.{}", k.0, k.1, k.2, k.3);
    let (old_edges, new_edges) = (fragment_edges(&base), fragment_edges(&new));
    let old_keys: HashSet<_> = old_edges.iter().map(edge_key).collect();
    let new_keys: HashSet<_> = new_edges.iter().map(edge_key).collect();
    let edges_added = new_edges.iter().map(edge_key).filter(|k| !old_keys.contains(k)).map(edge_text).collect();
    let edges_removed = old_edges.iter().map(edge_key).filter(|k| !new_keys.contains(k)).map(edge_text).collect();

    let base_pack = super::base_pack(&inst, packs.iter());
    let changes = base_pack
        .map(|b| diff_packs(&b.manifest, &target.manifest, Some(&inst.chain_id)).changes)
        .unwrap_or_default();
    let checked = changes.iter().map(|c| c.level).max().unwrap_or(Level::None);
    let level = match checked {
        Level::None => bump(&inst.chain_version, chain.version()).unwrap_or(Level::None),
        l => l,
    };
    Ok(Review {
        key: key.to_owned(),
        label: inst.label.clone(),
        chain_id: inst.chain_id.clone(),
        from: inst.chain_version.clone(),
        to: chain.version().to_owned(),
        level,
        old_nodes: old_frag.iter().map(id).collect(),
        new_nodes: new_frag.iter().map(id).collect(),
        nodes,
        edges_added,
        edges_removed,
        changes,
        edits,
        conflicts,
        values,
        dropped,
    })
}

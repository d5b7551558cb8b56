//! Re-expanding an instance in place, keeping the user's edits: a three-way merge of the
//! recorded expansion (base), the workflow (mine) and the new expansion (new), node by node
//! and edge by edge. Nodes keep their ids (same chain, same expansionId) and positions, so
//! parent edges into and out of the instance stay attached to the same fragment nodes.
//!
//! Everything is worked out before the first change: with a conflict no resolution settles,
//! the workflow is left as it was and the refusal (`upgrade_conflict`) lists every conflict.

use super::edits::{EdgeKey, Edit, NOT_MERGED, comparable, edge_key, edits_against};
use crate::error::{Error, Finding, Result, code};
use crate::expand::Expansion;
use crate::workflow::merge3::{Conflict, Merge, Resolutions, Sides, conflict_error};
use crate::workflow::{
    Edge, FragmentEdges, FragmentNodes, Instance, Node, NodeBody, Workflow, produced_by_expanded_ids,
};
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};

/// What a re-expansion did, or would do.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The instance as recorded afterwards.
    pub instance: Instance,
    /// The user's edits found before the merge.
    pub edits: Vec<Edit>,
    /// Every conflict met (all settled, or nothing was applied).
    pub conflicts: Vec<Conflict>,
    /// Nodes the new version no longer has, and the edges removed (with those nodes, gone
    /// from the new version, or replaced by their new form), for undo.
    pub removed_nodes: Vec<Node>,
    pub removed_edges: Vec<Edge>,
    pub warnings: Vec<Finding>,
}

/// The changes, worked out before any is made. A node's new form is held as the body it
/// will have (compact text): as objects, a long chain's updated nodes were held twice over.
#[derive(Default)]
struct Plan {
    updates: Vec<(String, NodeBody)>,
    adds: Vec<Map<String, Value>>,
    removes: Vec<String>,
    edge_updates: Vec<(String, Map<String, Value>)>,
    edge_adds: Vec<Map<String, Value>>,
    edge_removes: Vec<String>,
}

/// The recorded and the new expansion shaped as a splice makes them, once per re-expansion
/// (each node and edge when asked for).
struct Fragments<'e> {
    base_nodes: FragmentNodes<'e>,
    new_nodes: FragmentNodes<'e>,
    base_edges: FragmentEdges<'e>,
    new_edges: FragmentEdges<'e>,
}

impl<'e> Fragments<'e> {
    fn new(base: &'e Expansion, new: &'e Expansion) -> Self {
        Self {
            base_nodes: FragmentNodes::new(base),
            new_nodes: FragmentNodes::new(new),
            base_edges: FragmentEdges::new(base),
            new_edges: FragmentEdges::new(new),
        }
    }
}

/// The instance `key` of `wf`, or `instance_not_found` naming it.
pub fn find(wf: &Workflow, key: &str) -> Result<Instance> {
    wf.instance(key).ok_or_else(|| {
        Error::new(code::INSTANCE_NOT_FOUND, format!("no chain instance \"{key}\" in this workflow"))
            .with("instance", key)
    })
}

/// Check that `base` is the instance's recorded expansion and `new` one of the same chain
/// under the same expansionId.
fn check(inst: &Instance, key: &str, base: &Expansion, new: &Expansion) -> Result<()> {
    if new.prefix != key || new.chain_id != inst.chain_id {
        return Err(Error::new(
            code::INSTANCE_PACK_MISMATCH,
            format!("the new expansion is of {} ({}), not of instance {key}", new.chain_id, new.prefix),
        )
        .with("instance", key)
        .with("chainId", new.chain_id.as_str()));
    }
    if base.prefix != key || base.chain_version != inst.chain_version {
        return Err(Error::new(
            code::INSTANCE_BASE_UNAVAILABLE,
            format!(
                "instance {key} was expanded from {}@{}; that version is needed to tell your edits apart",
                inst.chain_id, inst.chain_version
            ),
        )
        .with("instance", key)
        .with("version", inst.chain_version.as_str()));
    }
    Ok(())
}

/// The edits and conflicts of re-expanding `key` as `new`, without changing anything; the
/// conflicts carry no resolution (the editor lists them before applying).
pub fn review(wf: &Workflow, key: &str, base: &Expansion, new: &Expansion) -> Result<(Vec<Edit>, Vec<Conflict>)> {
    let inst = find(wf, key)?;
    check(&inst, key, base, new)?;
    let res = Resolutions::default();
    let mut merge = Merge::new(&res);
    let f = Fragments::new(base, new);
    plan(wf, &inst, &f, base, new, &mut merge);
    Ok((edits_against(wf, &inst, &f.base_nodes, &f.base_edges), merge.conflicts))
}

/// Re-expand instance `key` as `new`, keeping the user's edits (`base` is the recorded
/// expansion). Refused with nothing changed when a conflict is left unsettled.
pub fn reexpand(wf: &mut Workflow, key: &str, base: &Expansion, new: &Expansion, res: &Resolutions) -> Result<Merged> {
    let inst = find(wf, key)?;
    check(&inst, key, base, new)?;
    let f = Fragments::new(base, new);
    let edits = edits_against(wf, &inst, &f.base_nodes, &f.base_edges);
    let mut merge = Merge::new(res);
    let plan = plan(wf, &inst, &f, base, new, &mut merge);
    if merge.unresolved > 0 {
        return Err(conflict_error(key, &merge.conflicts));
    }
    let conflicts = merge.conflicts;

    for (id, body) in plan.updates {
        if let Some(ix) = wf.node(&id) {
            wf.graph[ix].swap_body(body);
        }
    }
    let gone: Vec<_> = plan.removes.iter().filter_map(|id| wf.node(id)).collect();
    let (removed_nodes, mut removed_edges) = wf.remove_all(&gone, &[]);
    for body in plan.adds {
        wf.add_node(body)?;
    }
    // A changed edge is replaced (removed, then added in its new form), so undo restores it
    // as it was like any removed edge.
    let replaced: Vec<&String> = plan.edge_updates.iter().map(|(id, _)| id).collect();
    let edge_ixs: Vec<_> = plan.edge_removes.iter().chain(replaced).flat_map(|id| wf.edges_by_id(id)).collect();
    let mut gone_edges = wf.remove_all(&[], &edge_ixs).1;
    let kept_ids: HashSet<String> = plan.edge_updates.iter().map(|(id, _)| id.clone()).collect();
    let mut added = Vec::new();
    for body in plan.edge_adds {
        added.push(body.get("id").and_then(Value::as_str).unwrap_or_default().to_owned());
        wf.add_edge(body);
    }
    for (_, body) in plan.edge_updates {
        wf.add_edge(body);
    }
    let forgotten: Vec<&str> =
        removed_edges.iter().chain(&gone_edges).map(Edge::id).filter(|id| !kept_ids.contains(*id)).collect();
    let forgotten: Vec<String> = forgotten.into_iter().map(str::to_owned).collect();
    wf.forget_edges(forgotten.iter().map(String::as_str));
    removed_edges.append(&mut gone_edges);

    let (fb, fnew) = (&f.base_edges, &f.new_edges);
    let fragment: HashSet<EdgeKey> =
        (0..fb.len()).map(|i| fb.ends(i)).chain((0..fnew.len()).map(|i| fnew.ends(i))).collect();
    let warnings = removed_edges
        .iter()
        .filter(|e| !fragment.contains(&edge_key(e)))
        .map(|e| {
            Finding::warning(
                code::INSTANCE_EDGE_DETACHED,
                format!("/edges/{}", e.id()),
                format!(
                    "edge {} ({} → {}) went with a node {}@{} no longer has",
                    e.id(),
                    e.source(),
                    e.target(),
                    new.chain_id,
                    new.chain_version
                ),
            )
        })
        .collect();

    let removed_ids: HashSet<&str> = forgotten.iter().map(String::as_str).collect();
    let mut instance = inst;
    instance.edge_ids.retain(|id| !removed_ids.contains(id.as_str()));
    instance.edge_ids.extend(added);
    instance.node_ids = new.id_map.iter().map(|(_, id)| id.clone()).collect();
    instance.params = new.params.clone();
    instance.pack_name = new.pack_name.clone();
    instance.pack_version = new.pack_version.clone();
    instance.chain_version = new.chain_version.clone();
    instance.label = new.label.clone();
    instance.produced_variables = produced_by_expanded_ids(new);
    instance.sub_chains = new.sub_chain_links.clone();
    wf.record_instance(instance.clone());
    Ok(Merged { instance, edits, conflicts, removed_nodes, removed_edges, warnings })
}

fn id_of(node: &Map<String, Value>) -> &str {
    node.get("id").and_then(Value::as_str).unwrap_or_default()
}

/// Work out the changes; conflicts go to `merge`.
fn plan(wf: &Workflow, inst: &Instance, f: &Fragments, base: &Expansion, new: &Expansion, merge: &mut Merge) -> Plan {
    let mut plan = Plan::default();
    let (base_nodes, new_nodes) = (&f.base_nodes, &f.new_nodes);
    let base_by_id: HashMap<&str, usize> = (0..base_nodes.len()).map(|i| (base_nodes.id(i), i)).collect();
    let new_ids: HashSet<&str> = (0..new_nodes.len()).map(|i| new_nodes.id(i)).collect();
    let offset = offset(wf, base_nodes);
    // The body a node's merged object is stored as (the workflow finds nodes by id, which
    // a merge keeps).
    let body = |json| Node::new(json, 0).body().clone();

    for k in 0..new_nodes.len() {
        let (id, n) = (new_nodes.id(k), &new_nodes.get(k));
        let b = base_by_id.get(id).map(|i| base_nodes.get(*i));
        let mine = wf.node(id).map(|ix| {
            let mut m = wf.graph[ix].object();
            for member in ["config", "inputs"] {
                m.entry(member).or_insert_with(|| json!({}));
            }
            m
        });
        match (b.as_ref(), mine) {
            (Some(b), Some(m)) => {
                let merged = merge.objects(id, "", &comparable(b), &m, &comparable(n), &NOT_MERGED);
                if merged != m {
                    plan.updates.push((id.to_owned(), body(merged)));
                }
            }
            // Removed by the user: it stays removed unless the new version changes it and
            // "take new" is chosen.
            (Some(b), None) => {
                let (b, n_cmp) = (comparable(b), comparable(n));
                if b != n_cmp
                    && merge
                        .conflict(
                            id,
                            "",
                            Sides { base: Some(&Value::Object(b)), mine: None, new: Some(&Value::Object(n_cmp)) },
                        )
                        .is_some()
                {
                    plan.adds.push(placed(n, offset));
                }
            }
            // A node of the user's under an id the new version now uses.
            (None, Some(m)) => {
                let (m_cmp, n_cmp) = (comparable(&m), comparable(n));
                if m_cmp != n_cmp
                    && merge.conflict(
                        id,
                        "",
                        Sides {
                            base: None,
                            mine: Some(&Value::Object(m_cmp.clone())),
                            new: Some(&Value::Object(n_cmp.clone())),
                        },
                    ) == Some(Value::Object(n_cmp))
                {
                    let mut body = comparable(n);
                    body.insert("id".into(), json!(id));
                    if let Some(p) = m.get("position") {
                        body.insert("position".into(), p.clone());
                    }
                    plan.updates.push((id.to_owned(), Node::new(body, 0).body().clone()));
                }
            }
            (None, None) => plan.adds.push(placed(n, offset)),
        }
    }
    for i in 0..base_nodes.len() {
        let id = base_nodes.id(i);
        if new_ids.contains(id) {
            continue;
        }
        let Some(ix) = wf.node(id) else { continue };
        let (b_cmp, m_cmp) = (comparable(&base_nodes.get(i)), comparable(&wf.graph[ix].object()));
        if b_cmp == m_cmp
            || merge
                .conflict(
                    id,
                    "",
                    Sides { base: Some(&Value::Object(b_cmp)), mine: Some(&Value::Object(m_cmp)), new: None },
                )
                .is_none()
        {
            plan.removes.push(id.to_owned());
        }
    }
    plan_edges(wf, inst, f, base, new, merge, &mut plan);
    plan
}

#[allow(clippy::too_many_arguments)]
fn plan_edges(
    wf: &Workflow,
    inst: &Instance,
    f: &Fragments,
    base: &Expansion,
    new: &Expansion,
    merge: &mut Merge,
    plan: &mut Plan,
) {
    let members: HashSet<&str> = base
        .id_map
        .iter()
        .chain(&new.id_map)
        .map(|(_, id)| id.as_str())
        .chain(inst.node_ids.iter().map(String::as_str))
        .collect();
    let mut present: HashMap<EdgeKey, &Edge> = HashMap::new();
    for e in wf.graph.edge_weights() {
        if members.contains(e.source()) || members.contains(e.target()) {
            present.entry(edge_key(e)).or_insert(e);
        }
    }
    let without_id = |e: &Map<String, Value>| -> Map<String, Value> {
        e.iter().filter(|(k, _)| k.as_str() != "id").map(|(k, v)| (k.clone(), v.clone())).collect()
    };
    let base_edges: HashMap<EdgeKey, usize> = (0..f.base_edges.len()).map(|i| (f.base_edges.ends(i), i)).collect();
    let new_keys: HashSet<EdgeKey> = (0..f.new_edges.len()).map(|i| f.new_edges.ends(i)).collect();
    let mut taken: HashSet<String> = HashSet::new();
    for k in 0..f.new_edges.len() {
        let key = f.new_edges.ends(k);
        match (base_edges.get(&key), present.get(&key)) {
            (Some(b), Some(m)) => {
                let (b, m, n) = (f.base_edges.get(*b), m.json(), f.new_edges.get(k));
                let id = id_of(&m).to_owned();
                let merged = merge.objects(&id, "", &without_id(&b), &m, &without_id(&n), &["id"]);
                if merged != m {
                    plan.edge_updates.push((id, merged));
                }
            }
            (None, None) => {
                let mut body = f.new_edges.get(k);
                let mut id = id_of(&body).to_owned();
                if wf.has_edge_id(&id) || taken.contains(&id) {
                    id = wf.fresh_edge_id(&id);
                }
                taken.insert(id.clone());
                body.insert("id".into(), json!(id));
                plan.edge_adds.push(body);
            }
            // Removed by the user (kept removed), or already added by the user.
            _ => {}
        }
    }
    for i in 0..f.base_edges.len() {
        let key = f.base_edges.ends(i);
        if new_keys.contains(&key) {
            continue;
        }
        let Some(m) = present.get(&key) else { continue };
        let m = m.json();
        let id = id_of(&m).to_owned();
        let (b_cmp, m_cmp) = (without_id(&f.base_edges.get(i)), without_id(&m));
        if b_cmp == m_cmp
            || merge
                .conflict(
                    &id,
                    "",
                    Sides { base: Some(&Value::Object(b_cmp)), mine: Some(&Value::Object(m_cmp)), new: None },
                )
                .is_none()
        {
            plan.edge_removes.push(id);
        }
    }
}

/// Where the instance sits: the mean offset from the fragment's relative positions to the
/// nodes' positions in the workflow; new nodes keep their place relative to the others.
fn offset(wf: &Workflow, base_nodes: &FragmentNodes) -> (f64, f64) {
    let (mut sx, mut sy, mut count) = (0.0, 0.0, 0.0);
    for i in 0..base_nodes.len() {
        if let Some(ix) = wf.node(base_nodes.id(i)) {
            let ((x, y), (rx, ry)) = (wf.graph[ix].position(), base_nodes.position(i));
            sx += x - rx;
            sy += y - ry;
            count += 1.0;
        }
    }
    if count > 0.0 {
        return (sx / count, sy / count);
    }
    wf.bounds().map_or((0.0, 0.0), |(_, min_y, max_x, _)| (max_x + 400.0, min_y))
}

fn placed(node: &Map<String, Value>, (dx, dy): (f64, f64)) -> Map<String, Value> {
    let mut out = node.clone();
    let p = node.get("position");
    let c = |k: &str| p.and_then(|p| p.get(k)).and_then(Value::as_f64).unwrap_or(0.0);
    out.insert("position".into(), json!({"x": (c("x") + dx).round(), "y": (c("y") + dy).round()}));
    out
}

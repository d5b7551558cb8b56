//! Splicing an expansion into the parent workflow (chain-packs §6, §4.5, §5.5–5.6).
//! All checks run before the first change, so a refusal leaves the workflow untouched.

use super::layout::{MAX_COORDINATE, NODE_W, clear_of, layered};
use super::provenance::Instance;
use super::{Edge, Workflow};
use crate::error::{Error, Finding, Result, code};
use crate::expand::Expansion;
use serde_json::{Map, Value, json};

/// Where and how to splice.
#[derive(Debug, Clone, Default)]
pub struct SpliceOptions {
    /// Drop point: fragment positions are offset by it. `None`: right of the existing nodes.
    pub at: Option<(f64, f64)>,
    /// Wire the fragment between these parent nodes, replacing the edges from the first to
    /// the second: first → every entry node, every exit node → second.
    pub between: Option<(String, String)>,
    /// With `between`: replace only the edge with this id (a tile dropped on one edge)
    /// instead of every edge from the first node to the second.
    pub replace_edge: Option<String>,
}

/// What a splice changed.
#[derive(Debug, Clone)]
pub struct SpliceReport {
    pub instance: Instance,
    /// Parent edges replaced by the wiring (for undo and for telling the user).
    pub removed_edges: Vec<Edge>,
    pub warnings: Vec<Finding>,
}

/// Splice `exp` into `wf`.
pub fn splice(wf: &mut Workflow, exp: &Expansion, opts: &SpliceOptions) -> Result<SpliceReport> {
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
    let mut fresh = std::collections::HashSet::new();
    if let Some((_, bad)) = exp.id_map.iter().find(|(_, new)| new.is_empty() || !fresh.insert(new.as_str())) {
        return Err(Error::new(code::INVALID_REQUEST, format!("the expansion repeats or omits node id \"{bad}\""))
            .with("nodeId", bad.as_str()));
    }
    if let Some((a, b)) = &opts.between {
        for end in [a, b] {
            if !wf.contains_node(end) {
                return Err(Error::new(
                    code::INVALID_REQUEST,
                    format!("the chain is to be wired between nodes, but node \"{end}\" is not in the workflow"),
                )
                .with("nodeId", end.as_str()));
            }
        }
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
    refuse_cycle(wf, exp, opts)?;
    let replaced = replaced_edges(wf, opts)?;
    let new_policy = match (&exp.settings_compensation, wf.settings_compensation()) {
        (None, _) => None,
        (Some(chain), Some(parent)) if chain == parent => None,
        (Some(_), Some(parent)) => {
            return Err(Error::new(
                code::CHAIN_COMPENSATION_POLICY_CONFLICT,
                format!(
                    "chain {} carries a compensation policy that differs from the workflow's settings.compensation",
                    exp.chain_id
                ),
            )
            .with("chainId", exp.chain_id.as_str())
            .with("parentPolicy", parent.clone()));
        }
        (Some(chain), None) => Some(chain.clone()),
    };
    let new_variables = produced_variables(wf, exp)?;

    let mut warnings = Vec::new();
    let positions = place(wf, exp, opts)?;
    let mut node_ids = Vec::with_capacity(exp.nodes.len());
    for ((frag_id, _), (node, pos)) in exp.id_map.iter().zip(exp.nodes.iter().zip(positions)) {
        let json = workflow_node(node, frag_id, pos);
        node_ids.push(json["id"].as_str().unwrap_or_default().to_owned());
        wf.add_node(json).expect("ids were checked unique and free above");
    }

    let mut edge_ids = Vec::new();
    for (i, edge) in exp.edges.iter().enumerate() {
        let json = workflow_edge(edge, &fragment_edge_id(exp, i + 1));
        let converted = Edge { json: json.clone(), seq: 0 };
        for end in [converted.source(), converted.target()] {
            if !wf.contains_node(end) {
                warnings.push(
                    Finding::warning(
                        code::EDGE_ENDPOINT_UNKNOWN,
                        format!("/edges/{i}"),
                        format!("fragment edge names \"{end}\", which is not a node of the workflow"),
                    )
                    .in_chain(&exp.chain_id),
                );
            }
        }
        edge_ids.push(converted.id().to_owned());
        wf.add_edge(json);
    }

    let mut removed_edges = Vec::new();
    if let Some((a, b)) = &opts.between {
        removed_edges = wf.remove_all(&[], &replaced).1;
        wf.forget_edges(removed_edges.iter().map(Edge::id));
        // One replaced edge hands its routing to the wiring: where it left the source (port,
        // condition) goes on the way in, where it entered the target (port, trigger rule) on
        // the way out.
        let carried = match removed_edges.as_slice() {
            [only] => Some(only.json.clone()),
            _ => None,
        };
        let carry = |json: &mut Map<String, Value>, keys: &[&str]| {
            if let Some(old) = &carried {
                for key in keys {
                    if let Some(v) = old.get(*key) {
                        json.insert((*key).to_owned(), v.clone());
                    }
                }
            }
        };
        let mut ids = wf.edge_ids();
        for (k, entry) in exp.entry_nodes().into_iter().enumerate() {
            let id = ids.fresh(wf, &format!("{}in{}", exp.prefix, k + 1));
            edge_ids.push(id.clone());
            let mut json = json_edge(&id, a, &exp.id_map[entry].1);
            carry(&mut json, &["sourceOutput", "condition"]);
            wf.add_edge(canonical_edge(json));
        }
        for (k, exit) in exp.exit_nodes().into_iter().enumerate() {
            let id = ids.fresh(wf, &format!("{}out{}", exp.prefix, k + 1));
            edge_ids.push(id.clone());
            let mut json = json_edge(&id, &exp.id_map[exit].1, b);
            carry(&mut json, &["targetInput", "triggerRule"]);
            wf.add_edge(canonical_edge(json));
        }
    }

    if !new_variables.is_empty() {
        let vars = wf.member_mut("variables");
        if !vars.is_array() {
            *vars = json!([]);
        }
        vars.as_array_mut().expect("array").extend(new_variables);
    }
    if let Some(policy) = new_policy {
        let settings = wf.member_mut("settings");
        if !settings.is_object() {
            *settings = json!({});
        }
        settings["compensation"] = policy;
    }

    let instance = Instance {
        pack_name: exp.pack_name.clone(),
        pack_version: exp.pack_version.clone(),
        chain_id: exp.chain_id.clone(),
        chain_version: exp.chain_version.clone(),
        expansion_id: exp.expansion_id.clone(),
        label: exp.label.clone(),
        params: exp.params.clone(),
        node_ids,
        edge_ids,
        produced_variables: produced_by_expanded_ids(exp),
    };
    wf.record_instance(instance.clone());
    Ok(SpliceReport { instance, removed_edges, warnings })
}

/// The id of the `n`th (from 1) fragment edge once inlined.
fn fragment_edge_id(exp: &Expansion, n: usize) -> String {
    format!("{}e{n}", exp.prefix)
}

/// Wiring the fragment from `a` to `b` adds paths a → fragment → b, so it closes a cycle when
/// `b` is `a` or already reaches `a` (the user swapped the endpoints, or `b` is upstream).
fn refuse_cycle(wf: &Workflow, exp: &Expansion, opts: &SpliceOptions) -> Result<()> {
    let Some((a, b)) = &opts.between else { return Ok(()) };
    if exp.nodes.is_empty() {
        return Ok(());
    }
    let (ia, ib) = (wf.node(a).expect("checked"), wf.node(b).expect("checked"));
    // Breadth-first from b with back-links, so the message can show the path that closes.
    let mut came_from = std::collections::HashMap::from([(ib, ib)]);
    let mut queue = std::collections::VecDeque::from([ib]);
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
            if let std::collections::hash_map::Entry::Vacant(slot) = came_from.entry(next) {
                slot.insert(ix);
                queue.push_back(next);
            }
        }
    }
    Ok(())
}

/// The parent edges a `between` splice replaces; checked before anything changes.
fn replaced_edges(wf: &Workflow, opts: &SpliceOptions) -> Result<Vec<petgraph::stable_graph::EdgeIndex>> {
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

/// Re-expand an instance in place with new parameter values. The expansion must come from
/// the same chain with the same expansionId, so ids and every edge to the outside stay;
/// only the parameter-dependent members (`config`, `inputs`, `compensation`) change.
pub fn reparameterise(wf: &mut Workflow, key: &str, exp: &Expansion) -> Result<Instance> {
    let mut instance = wf.instance(key).ok_or_else(|| {
        Error::new(code::INVALID_REQUEST, format!("no chain instance \"{key}\" in this workflow")).with("instance", key)
    })?;
    let new_ids: Vec<&str> = exp.id_map.iter().map(|(_, n)| n.as_str()).collect();
    if exp.prefix != key || new_ids != instance.node_ids.iter().map(String::as_str).collect::<Vec<_>>() {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!(
                "the new expansion of {} does not have the instance's node ids; remove and insert it again",
                exp.chain_id
            ),
        )
        .with("instance", key));
    }
    if let Some(missing) = new_ids.iter().find(|id| !wf.contains_node(id)) {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!("node \"{missing}\" of instance {key} was deleted; remove the instance and insert it again"),
        )
        .with("nodeId", *missing));
    }
    for (id, node) in new_ids.iter().zip(&exp.nodes) {
        let ix = wf.node(id).expect("checked above");
        let json = &mut wf.graph[ix].json;
        for member in ["config", "inputs", "compensation"] {
            match node.get(member) {
                Some(v) => {
                    json.insert(member.to_owned(), v.clone());
                }
                None if member == "compensation" => {
                    json.shift_remove(member);
                }
                None => {}
            }
        }
    }
    instance.params = exp.params.clone();
    instance.chain_version = exp.chain_version.clone();
    instance.pack_version = exp.pack_version.clone();
    wf.record_instance(instance.clone());
    Ok(instance)
}

/// Positions for the expanded nodes: fragment positions when every node has one, else a
/// layered layout; offset by the drop point and moved clear of existing nodes.
/// Refuses a placement any coordinate of which would leave ±[`MAX_COORDINATE`]: past it the
/// sums overflow to infinity, which JSON cannot hold (it was written as `null`).
fn place(wf: &Workflow, exp: &Expansion, opts: &SpliceOptions) -> Result<Vec<(f64, f64)>> {
    let given: Option<Vec<(f64, f64)>> = exp
        .nodes
        .iter()
        .map(|n| {
            let p = n.get("position")?;
            Some((p.get("x").and_then(Value::as_f64).unwrap_or(0.0), p.get("y").and_then(Value::as_f64).unwrap_or(0.0)))
        })
        .collect();
    let mut rel = given.unwrap_or_else(|| layered(&exp.graph, |w| *w));
    rel.truncate(exp.nodes.len());
    let origin = opts.at.unwrap_or_else(|| {
        if let Some((a, _)) = &opts.between
            && let Some(ix) = wf.node(a)
        {
            let (x, y) = wf.graph[ix].position();
            return (x + NODE_W + 90.0, y);
        }
        match wf.bounds() {
            None => (0.0, 0.0),
            Some((_, min_y, max_x, _)) => (max_x + NODE_W + 120.0, min_y),
        }
    });
    let mut abs: Vec<(f64, f64)> = rel.into_iter().map(|(x, y)| (origin.0 + x, origin.1 + y)).collect();
    let existing: Vec<(f64, f64)> = wf.graph.node_weights().map(super::Node::position).collect();
    clear_of(&mut abs, &existing);
    // NaN is out of range too.
    let out_of_range = |v: f64| v.is_nan() || v.abs() > MAX_COORDINATE;
    if let Some((x, y)) = abs.iter().find(|(x, y)| out_of_range(*x) || out_of_range(*y)) {
        let mut err = Error::new(
            code::INVALID_REQUEST,
            format!(
                "placing chain {} would put a node at ({x:e}, {y:e}); coordinates are limited to ±{MAX_COORDINATE:e}",
                exp.chain_id
            ),
        )
        .with("limit", MAX_COORDINATE);
        if let Some((ax, ay)) = opts.at {
            err = err.with("at", json!([ax, ay]));
        }
        return Err(err);
    }
    Ok(abs)
}

/// A fragment node made into a WorkflowNode: `name`, `position`, `config` and `inputs` are
/// filled when absent (chain-packs §6.3); the required members lead, the rest follow in order.
fn workflow_node(node: &Value, fragment_id: &str, pos: (f64, f64)) -> Map<String, Value> {
    let src = node.as_object().cloned().unwrap_or_default();
    let mut out = Map::with_capacity(src.len() + 4);
    out.insert("id".into(), src.get("id").cloned().unwrap_or(Value::Null));
    out.insert("typeId".into(), src.get("typeId").cloned().unwrap_or(Value::Null));
    out.insert("name".into(), src.get("name").cloned().unwrap_or_else(|| Value::String(fragment_id.to_owned())));
    out.insert("position".into(), json!({"x": super::coordinate(pos.0), "y": super::coordinate(pos.1)}));
    out.insert("config".into(), src.get("config").cloned().unwrap_or_else(|| json!({})));
    out.insert("inputs".into(), src.get("inputs").cloned().unwrap_or_else(|| json!({})));
    for (k, v) in src {
        if !out.contains_key(&k) {
            out.insert(k, v);
        }
    }
    out
}

/// A fragment edge (`from`/`to`) made into a WorkflowEdge (chain-packs §4.5).
fn workflow_edge(edge: &Value, id: &str) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("id".into(), Value::String(id.to_owned()));
    for (key, node_key, port_key) in [("from", "sourceNodeId", "sourceOutput"), ("to", "targetNodeId", "targetInput")] {
        let text = edge.get(key).and_then(Value::as_str).unwrap_or_default();
        let (node, port) = text.split_once('.').unwrap_or((text, ""));
        out.insert(node_key.into(), Value::String(node.to_owned()));
        if !port.is_empty() {
            out.insert(port_key.into(), Value::String(port.to_owned()));
        }
    }
    for key in ["condition", "triggerRule"] {
        if let Some(v) = edge.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    canonical_edge(out)
}

/// Edge members in canonical order: id, source…, target…, condition, triggerRule, then
/// anything else as it was.
fn canonical_edge(mut json: Map<String, Value>) -> Map<String, Value> {
    const ORDER: [&str; 7] =
        ["id", "sourceNodeId", "sourceOutput", "targetNodeId", "targetInput", "condition", "triggerRule"];
    let mut out = Map::with_capacity(json.len());
    for key in ORDER {
        if let Some(v) = json.remove(key) {
            out.insert(key.to_owned(), v);
        }
    }
    out.extend(json);
    out
}

fn json_edge(id: &str, source: &str, target: &str) -> Map<String, Value> {
    let Value::Object(m) = json!({"id": id, "sourceNodeId": source, "targetNodeId": target}) else { unreachable!() };
    m
}

/// The chain's produced variables with `producedBy` renamed as the nodes were.
fn produced_by_expanded_ids(exp: &Expansion) -> Vec<Value> {
    if exp.produced_variables.is_empty() {
        return Vec::new();
    }
    let renamed: std::collections::HashMap<&str, &str> =
        exp.id_map.iter().map(|(old, new)| (old.as_str(), new.as_str())).collect();
    exp.produced_variables
        .iter()
        .map(|pv| {
            let mut pv = pv.clone();
            let by = pv.get("producedBy").and_then(Value::as_str).and_then(|b| renamed.get(b));
            if let Some(new) = by {
                pv["producedBy"] = Value::String((*new).to_owned());
            }
            pv
        })
        .collect()
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

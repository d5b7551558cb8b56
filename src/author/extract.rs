//! Extraction: selected workflow nodes become a chain, undoing what expansion and splicing
//! did (chain-packs §4–6 read backwards). Ids lose their expansion prefix, edges go back to
//! `node.port` form, capabilities go back to the chain, and the produced variables the
//! nodes write are declared again.

use super::{ChainInfo, token_like};
use crate::error::{Error, Finding, Result, code, pointer_join};
use crate::expand::subchain::SubChainLink;
use crate::workflow::{Edge, Workflow};
use petgraph::stable_graph::NodeIndex;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};

/// The capabilities a chain may declare (chain-packs §2.3 rule 16).
const CHAIN_CAPABILITIES: [&str; 4] = ["streamable", "cacheable", "side-effectful", "mcp-exportable"];

/// WorkflowNode members a fragment node carries over (FragmentNode is closed). `id` and
/// `capabilities` are handled on their own.
const NODE_MEMBERS: [&str; 7] =
    ["typeId", "name", "position", "config", "inputs", "compensation", "irreversibleEffect"];

/// WorkflowEdge members a fragment edge carries over besides its ends.
const EDGE_MEMBERS: [&str; 2] = ["condition", "triggerRule"];

/// An edge with one end inside the selection: on expansion it becomes splice wiring.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundaryEdge {
    pub edge_id: String,
    /// `true` when the edge enters the selection, `false` when it leaves it.
    pub incoming: bool,
    /// The workflow node outside the selection.
    pub outside: String,
    /// The fragment id of the node inside.
    pub inside: String,
}

impl BoundaryEdge {
    pub fn to_json(&self) -> Value {
        json!({"edgeId": self.edge_id, "direction": if self.incoming { "in" } else { "out" },
               "outside": self.outside, "inside": self.inside})
    }
}

/// A chain built from a selection, before it is put into a pack.
#[derive(Debug, Clone)]
pub struct Extraction {
    /// The chain object (members in schema order).
    pub chain: Map<String, Value>,
    /// Workflow node id → fragment node id, in fragment order.
    pub ids: Vec<(String, String)>,
    pub boundary: Vec<BoundaryEdge>,
    /// Things the chain cannot carry or that will not survive expansion, with workflow pointers.
    pub warnings: Vec<Finding>,
    /// The chain instance whose fragment ids were restored, when there was one.
    pub instance: Option<String>,
}

#[cfg(test)]
impl Extraction {
    fn nodes(&self) -> &[Value] {
        self.chain
            .get("dag")
            .and_then(|d| d.get("nodes"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    fn edges(&self) -> &[Value] {
        self.chain
            .get("dag")
            .and_then(|d| d.get("edges"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }
}

/// Build a chain from the nodes `selection` names (all nodes when `None`), in file order.
pub fn extract(wf: &Workflow, selection: Option<&[String]>, info: &ChainInfo) -> Result<Extraction> {
    let order = wf.nodes_in_order();
    let selected = selected_in_file_order(wf, &order, selection)?;
    if selected.is_empty() {
        return Err(Error::new(code::INVALID_REQUEST, "select at least one node to extract a chain"));
    }
    let nodes: Vec<&crate::workflow::Node> = selected.iter().map(|i| &wf.graph[order[*i]]).collect();
    let (ids, instance) = fragment_ids(wf, &nodes);
    let rename: HashMap<&str, &str> = ids.iter().map(|(w, f)| (w.as_str(), f.as_str())).collect();
    let mut warnings = Vec::new();

    let origin = nodes
        .iter()
        .filter(|n| n.has_member("position"))
        .map(|n| n.position())
        .fold(None, |acc: Option<(f64, f64)>, (x, y)| Some(acc.map_or((x, y), |(a, b)| (a.min(x), b.min(y)))));
    // Child workflow ids a co-expansion wrote into `config.workflowId`, with the sub-chain
    // refs they replaced: a fragment may not pin a workflow (§2.7 rule 33), so they go back.
    let instances = wf.instances();
    let links: HashMap<&str, &SubChainLink> =
        instances.iter().flat_map(|i| &i.sub_chains).map(|l| (l.workflow_id.as_str(), l)).collect();
    let mut refs: HashMap<String, Value> = HashMap::new();
    let mut capabilities: Vec<String> = Vec::new();
    let mut capability_sets = HashSet::new();
    let mut frag_nodes = Vec::with_capacity(nodes.len());
    for (node, &i) in nodes.iter().zip(&selected) {
        let at = format!("/nodes/{i}");
        let json = node.object();
        let mut out = Map::new();
        out.insert("id".into(), Value::String(rename[node.id()].to_owned()));
        for key in NODE_MEMBERS {
            let Some(v) = json.get(key) else { continue };
            let v = match key {
                "position" => {
                    let (x, y) = node.position();
                    let (ox, oy) = origin.unwrap_or_default();
                    json!({"x": crate::workflow::coordinate(x - ox), "y": crate::workflow::coordinate(y - oy)})
                }
                "compensation" => rename_in_mapping(v.clone(), &rename),
                "config" => unpin_child_workflow(v.clone(), &links, &mut refs),
                _ => v.clone(),
            };
            out.insert(key.into(), v);
        }
        let caps = node.capabilities();
        capability_sets.insert(caps.clone());
        for cap in &caps {
            if !CHAIN_CAPABILITIES.contains(&cap.as_str()) {
                warnings.push(dropped(
                    &format!("{at}/capabilities"),
                    node.id(),
                    format!(
                        "capability \"{cap}\" is not one a chain can declare ({}); it is dropped",
                        CHAIN_CAPABILITIES.join(", ")
                    ),
                ));
            } else if !capabilities.contains(cap) {
                capabilities.push(cap.clone());
            }
        }
        for key in json.keys() {
            if key != "id" && key != "capabilities" && !NODE_MEMBERS.contains(&key.as_str()) {
                warnings.push(dropped(
                    &pointer_join(&at, key),
                    node.id(),
                    format!(
                        "node \"{}\" has `{key}`, which a chain fragment node cannot carry; it is dropped",
                        node.id()
                    ),
                ));
            }
        }
        for (ptr, s) in token_like::strings(&out) {
            warnings.push(token_like::finding(&format!("{at}{ptr}"), node.id(), &ptr, s));
        }
        // Built member by member and parsed from the node's text, its maps hold twice the
        // slots they fill; at its size the chain takes about half as much.
        let mut out = Value::Object(out);
        crate::json_walk::shrink_to_fit(&mut out);
        frag_nodes.push(out);
    }
    if capability_sets.len() > 1 {
        warnings.push(Finding::warning(
            code::CAPABILITIES_WIDENED,
            "/nodes",
            format!(
                "the selected nodes carry different capabilities; the chain declares all of them ({}), and \
                 expansion copies them onto every node",
                capabilities.join(", ")
            ),
        ));
    }

    let (frag_edges, boundary) = edges(wf, &rename, &mut warnings);
    let produced = produced_variables(wf, &rename, &frag_nodes, &selected)?;
    let sub_chains = sub_chain_refs(&frag_nodes, &refs);

    let chain = assemble(wf, info, frag_nodes, frag_edges, &capabilities, sub_chains, produced);
    Ok(Extraction { chain, ids, boundary, warnings, instance })
}

/// The file positions of the nodes `selection` names (all when `None`), sorted, once each.
fn selected_in_file_order(wf: &Workflow, order: &[NodeIndex], selection: Option<&[String]>) -> Result<Vec<usize>> {
    Ok(match selection {
        None => (0..order.len()).collect(),
        Some(ids) => {
            let file_index: HashMap<&str, usize> =
                order.iter().enumerate().map(|(i, ix)| (wf.graph[*ix].id(), i)).collect();
            let mut picked = Vec::with_capacity(ids.len());
            for id in ids {
                let i = *file_index.get(id.as_str()).ok_or_else(|| {
                    Error::new(code::INVALID_REQUEST, format!("the workflow has no node \"{id}\""))
                        .with("nodeId", id.as_str())
                })?;
                picked.push(i);
            }
            picked.sort_unstable();
            picked.dedup();
            picked
        }
    })
}

/// The chain's manifest entry from its parts, in the order the schema lists its members.
fn assemble(
    wf: &Workflow,
    info: &ChainInfo,
    frag_nodes: Vec<Value>,
    frag_edges: Vec<Value>,
    capabilities: &[String],
    sub_chains: Vec<Value>,
    produced: Vec<Value>,
) -> Map<String, Value> {
    let mut chain = Map::new();
    chain.insert("chainId".into(), Value::String(info.chain_id.clone()));
    chain.insert("version".into(), Value::String(info.version.clone().unwrap_or_else(|| "1.0.0".to_owned())));
    chain.insert("label".into(), Value::String(info.label.clone()));
    chain.insert("description".into(), Value::String(info.description.clone().unwrap_or_default()));
    chain.insert("parameters".into(), json!({"type": "object", "properties": {}}));
    // Moved in, not through `json!`, which would serialise the nodes into a second copy.
    let mut dag = Map::new();
    dag.insert("nodes".into(), Value::Array(frag_nodes));
    dag.insert("edges".into(), Value::Array(frag_edges));
    chain.insert("dag".into(), Value::Object(dag));
    if !capabilities.is_empty() {
        chain.insert("capabilities".into(), json!(capabilities));
    }
    if !sub_chains.is_empty() {
        chain.insert("subChains".into(), Value::Array(sub_chains));
    }
    if !produced.is_empty() {
        chain.insert("producedVariables".into(), Value::Array(produced));
    }
    // Node compensations ran under the workflow's policy; the chain carries it along, as
    // expansion would carry a chain's policy into the parent (§5.5).
    let compensates =
        chain["dag"]["nodes"].as_array().is_some_and(|ns| ns.iter().any(|n| n.get("compensation").is_some()));
    if compensates && let Some(policy) = wf.settings_compensation() {
        chain.insert("compensation".into(), policy.clone());
    }
    chain
}

fn dropped(pointer: &str, node_id: &str, message: String) -> Finding {
    Finding::warning(code::EXTRACT_MEMBER_DROPPED, pointer, message).with("nodeId", node_id)
}

/// Fragment ids: when every selected node belongs to one chain instance, its ids without the
/// expansion prefix (what the chain called them); otherwise the workflow ids made valid.
fn fragment_ids(wf: &Workflow, nodes: &[&crate::workflow::Node]) -> (Vec<(String, String)>, Option<String>) {
    let instances = wf.instances();
    let mut owner: HashMap<&str, usize> = HashMap::new();
    for (k, inst) in instances.iter().enumerate() {
        for id in &inst.node_ids {
            owner.entry(id.as_str()).or_insert(k);
        }
    }
    let first = owner.get(nodes[0].id()).copied();
    if let Some(k) = first
        && nodes.iter().all(|n| owner.get(n.id()) == Some(&k))
    {
        let key = instances[k].key();
        let stripped: Option<Vec<(String, String)>> = nodes
            .iter()
            .map(|n| {
                let frag = n.id().strip_prefix(key.as_str()).filter(|f| !f.is_empty())?;
                Some((n.id().to_owned(), frag.to_owned()))
            })
            .collect();
        if let Some(ids) = stripped {
            return (ids, Some(key));
        }
    }
    let mut taken: HashSet<String> = HashSet::new();
    let mut next_suffix: HashMap<String, usize> = HashMap::new();
    let ids = nodes
        .iter()
        .map(|n| {
            let base = valid_fragment_id(n.id());
            let mut id = base.clone();
            if taken.contains(&id) {
                let k = next_suffix.entry(base.clone()).or_insert(2);
                while taken.contains(&format!("{base}_{k}")) {
                    *k += 1;
                }
                id = format!("{base}_{k}");
                *k += 1;
            }
            taken.insert(id.clone());
            (n.id().to_owned(), id)
        })
        .collect();
    (ids, None)
}

/// A workflow id as a fragment id: characters other than ASCII letters, digits, `_` and `-`
/// become `_`. Edge endpoints split at the first `.`, and compensation references end an id
/// at the next `.`, so a fragment id must not contain one.
fn valid_fragment_id(id: &str) -> String {
    let out: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if out.is_empty() { "node".to_owned() } else { out }
}

/// Undo §4.4: `nodes.<id>.` references in `inputMapping` go back to fragment ids.
fn rename_in_mapping(mut compensation: Value, rename: &HashMap<&str, &str>) -> Value {
    if let Some(mapping) = compensation.get_mut("inputMapping") {
        rename_refs(mapping, rename);
    }
    compensation
}

fn rename_refs(v: &mut Value, rename: &HashMap<&str, &str>) {
    match v {
        Value::String(s) => {
            if let Some(new) = rename_node_refs(s, rename) {
                *s = new;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| rename_refs(x, rename)),
        Value::Object(m) => m.values_mut().for_each(|x| rename_refs(x, rename)),
        _ => {}
    }
}

/// The reference grammar expansion rewrites ([`crate::expand::node_ref_ids`]), renamed back.
fn rename_node_refs(s: &str, rename: &HashMap<&str, &str>) -> Option<String> {
    let mut out = String::new();
    let mut last = 0;
    for id in crate::expand::node_ref_ids(s) {
        if let Some(new) = rename.get(&s[id.clone()]) {
            out.push_str(&s[last..id.start]);
            out.push_str(new);
            last = id.end;
        }
    }
    if last == 0 {
        return None;
    }
    out.push_str(&s[last..]);
    Some(out)
}

/// Fragment edges between selected nodes, and the edges crossing the selection's boundary.
fn edges(wf: &Workflow, rename: &HashMap<&str, &str>, warnings: &mut Vec<Finding>) -> (Vec<Value>, Vec<BoundaryEdge>) {
    let mut all: Vec<&Edge> = wf.graph.edge_weights().chain(wf.dangling_edges()).collect();
    all.sort_by_key(|e| e.seq);
    let mut inner = Vec::new();
    let mut boundary = Vec::new();
    for (i, edge) in all.into_iter().enumerate() {
        match (rename.get(edge.source()), rename.get(edge.target())) {
            (Some(from), Some(to)) => {
                let json = edge.json();
                let carried = EDGE_MEMBERS.iter().filter(|k| json.contains_key(**k)).count();
                let mut out = Map::with_capacity(2 + carried);
                out.insert("from".into(), Value::String(endpoint(from, json.get("sourceOutput"))));
                out.insert("to".into(), Value::String(endpoint(to, json.get("targetInput"))));
                for key in EDGE_MEMBERS {
                    if let Some(v) = json.get(key) {
                        out.insert(key.into(), v.clone());
                    }
                }
                const CARRIED: [&str; 7] =
                    ["id", "sourceNodeId", "sourceOutput", "targetNodeId", "targetInput", "condition", "triggerRule"];
                for key in json.keys().filter(|k| !CARRIED.contains(&k.as_str())) {
                    warnings.push(
                        Finding::warning(
                            code::EXTRACT_MEMBER_DROPPED,
                            pointer_join(&format!("/edges/{i}"), key),
                            format!(
                                "edge \"{}\" has `{key}`, which a chain fragment edge cannot carry; it is dropped",
                                edge.id()
                            ),
                        )
                        .with("edgeId", edge.id()),
                    );
                }
                inner.push(Value::Object(out));
            }
            (Some(inside), None) => boundary.push(BoundaryEdge {
                edge_id: edge.id().to_owned(),
                incoming: false,
                outside: edge.target().to_owned(),
                inside: (*inside).to_owned(),
            }),
            (None, Some(inside)) => boundary.push(BoundaryEdge {
                edge_id: edge.id().to_owned(),
                incoming: true,
                outside: edge.source().to_owned(),
                inside: (*inside).to_owned(),
            }),
            (None, None) => {}
        }
    }
    inner.shrink_to_fit();
    (inner, boundary)
}

/// `node` or `node.port`; a missing or empty port is the schema default and stays implicit.
fn endpoint(node: &str, port: Option<&Value>) -> String {
    match port.and_then(Value::as_str).filter(|p| !p.is_empty()) {
        Some(p) => format!("{node}.{p}"),
        None => node.to_owned(),
    }
}

/// The produced variables of the selected nodes (from the instance records; a workflow does
/// not say which node writes a variable), and a refusal for any variable read that no
/// selected node produces: a chain may read only its own produced variables (§2.7 rule 37).
fn produced_variables(
    wf: &Workflow,
    rename: &HashMap<&str, &str>,
    frag_nodes: &[Value],
    file_indexes: &[usize],
) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    let mut names = HashSet::new();
    for inst in wf.instances() {
        for pv in inst.produced_variables {
            let by = pv.get("producedBy").and_then(Value::as_str).and_then(|b| rename.get(b));
            let name = pv.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
            if let Some(by) = by
                && names.insert(name)
            {
                let mut pv = pv.clone();
                pv["producedBy"] = Value::String((*by).to_owned());
                out.push(pv);
            }
        }
    }
    for (node, file_index) in frag_nodes.iter().zip(file_indexes) {
        for key in ["config", "inputs"] {
            let Some(v) = node.get(key) else { continue };
            let at = format!("/nodes/{file_index}/{key}");
            let reads = crate::pack::checks::undeclared_variable_reads(v, &at, |name| names.contains(name));
            if let Some((ptr, name)) = reads.into_iter().next() {
                let node_id = node.get("id").and_then(Value::as_str).unwrap_or_default();
                return Err(Error::new(
                    code::VARIABLE_UNDECLARED,
                    format!(
                        "node \"{node_id}\" reads variable \"{name}\" at {ptr}, and no selected node is recorded as \
                         producing it; a chain may read only variables its own nodes produce, so select the producer too"
                    ),
                )
                .with("variableName", name)
                .with("path", ptr));
            }
        }
    }
    Ok(out)
}

/// A node config whose `workflowId` is a child workflow a co-expansion minted: that member
/// becomes the `subChainRef` it replaced, and the ref is noted in `refs` (by chainId).
fn unpin_child_workflow(
    mut config: Value,
    links: &HashMap<&str, &SubChainLink>,
    refs: &mut HashMap<String, Value>,
) -> Value {
    let link = config.get("workflowId").and_then(Value::as_str).and_then(|id| links.get(id));
    if let (Some(link), Some(obj)) = (link, config.as_object_mut())
        && let Some(chain_id) = link.chain_id()
    {
        obj.shift_remove("workflowId");
        obj.insert("subChainRef".into(), Value::String(chain_id.to_owned()));
        refs.entry(chain_id.to_owned()).or_insert_with(|| link.reference.clone());
    }
    config
}

/// `subChains` for the nodes' `config.subChainRef`s in first-use order: the ref a
/// co-expansion recorded (an external one keeps its pack and version), else a sibling ref.
fn sub_chain_refs(nodes: &[Value], recorded: &HashMap<String, Value>) -> Vec<Value> {
    let mut seen = HashSet::new();
    nodes
        .iter()
        .filter_map(|n| n.pointer("/config/subChainRef").and_then(Value::as_str))
        .filter(|r| seen.insert(*r))
        .map(|r| json!({"ref": recorded.get(r).cloned().unwrap_or_else(|| Value::String(r.to_owned()))}))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wf(v: Value) -> Workflow {
        Workflow::from_json(v).unwrap()
    }

    fn info() -> ChainInfo {
        ChainInfo::new("t.extracted", "Extracted")
    }

    #[test]
    fn workflow_ids_are_made_valid_and_unique() {
        let w = wf(json!({"nodes": [
            {"id": "a.b", "typeId": "core.x"}, {"id": "a_b", "typeId": "core.x"}, {"id": "a b", "typeId": "core.x"},
            {"id": "ü", "typeId": "core.x"}, {"id": "a_b_2", "typeId": "core.x"}]}));
        let ex = extract(&w, None, &info()).unwrap();
        let frag: Vec<&str> = ex.ids.iter().map(|(_, f)| f.as_str()).collect();
        assert_eq!(frag, ["a_b", "a_b_2", "a_b_3", "_", "a_b_2_2"]);
        assert!(ex.instance.is_none());
    }

    #[test]
    fn positions_are_relative_to_the_selection_and_members_are_carried() {
        let w = wf(json!({"nodes": [
            {"id": "a", "typeId": "core.x", "name": "A", "position": {"x": 100, "y": 50}, "config": {"k": 1},
             "inputs": {"i": {"type": "static", "value": 2}}, "notes": "n", "capabilities": ["cacheable"]},
            {"id": "b", "typeId": "core.y", "name": "B", "position": {"x": 40.5, "y": 300}, "config": {},
             "inputs": {}, "irreversibleEffect": true, "capabilities": ["side-effectful", "custom"]},
            {"id": "c", "typeId": "core.z", "name": "C", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}}],
          "edges": [
            {"id": "e1", "sourceNodeId": "a", "sourceOutput": "out", "targetNodeId": "b", "targetInput": "in",
             "condition": {"type": "truthy", "left": "output.ok"}, "triggerRule": "any_success", "label": "L"},
            {"id": "e2", "sourceNodeId": "b", "targetNodeId": "c"},
            {"id": "e3", "sourceNodeId": "c", "targetNodeId": "a"}]}));
        let sel = vec!["b".to_owned(), "a".to_owned()];
        let ex = extract(&w, Some(&sel), &info()).unwrap();
        let nodes = ex.nodes();
        assert_eq!(
            nodes[0],
            json!({"id": "a", "typeId": "core.x", "name": "A", "position": {"x": 59.5, "y": 0},
            "config": {"k": 1}, "inputs": {"i": {"type": "static", "value": 2}}})
        );
        assert_eq!(nodes[1]["position"], json!({"x": 0, "y": 250}));
        assert_eq!(nodes[1]["irreversibleEffect"], true);
        assert_eq!(
            ex.edges(),
            [json!({"from": "a.out", "to": "b.in",
            "condition": {"type": "truthy", "left": "output.ok"}, "triggerRule": "any_success"})]
        );
        assert_eq!(ex.chain["capabilities"], json!(["cacheable", "side-effectful"]));
        let warned: Vec<(&str, &str)> = ex.warnings.iter().map(|f| (f.code, f.pointer.as_str())).collect();
        assert!(warned.contains(&(code::EXTRACT_MEMBER_DROPPED, "/nodes/0/notes")), "{warned:?}");
        assert!(warned.contains(&(code::EXTRACT_MEMBER_DROPPED, "/nodes/1/capabilities")), "{warned:?}");
        assert!(warned.contains(&(code::EXTRACT_MEMBER_DROPPED, "/edges/0/label")), "{warned:?}");
        assert!(warned.contains(&(code::CAPABILITIES_WIDENED, "/nodes")), "{warned:?}");
        let b: Vec<Value> = ex.boundary.iter().map(BoundaryEdge::to_json).collect();
        assert_eq!(
            b,
            [
                json!({"edgeId": "e2", "direction": "out", "outside": "c", "inside": "b"}),
                json!({"edgeId": "e3", "direction": "in", "outside": "c", "inside": "a"})
            ]
        );
    }

    #[test]
    fn unknown_and_empty_selections_are_refused() {
        let w = wf(json!({"nodes": [{"id": "a", "typeId": "core.x"}]}));
        let err = extract(&w, Some(&["nope".to_owned()]), &info()).unwrap_err();
        assert_eq!((err.code, err.details["nodeId"].as_str()), (code::INVALID_REQUEST, Some("nope")));
        assert_eq!(extract(&w, Some(&[]), &info()).unwrap_err().code, code::INVALID_REQUEST);
    }

    #[test]
    fn variable_reads_need_a_selected_producer() {
        let w = wf(json!({"nodes": [
            {"id": "r", "typeId": "core.x", "inputs": {"p": {"type": "variable", "variableName": "plan"}}}]}));
        let err = extract(&w, None, &info()).unwrap_err();
        assert_eq!(err.code, code::VARIABLE_UNDECLARED);
        assert_eq!(err.details["path"], "/nodes/0/inputs/p");
        assert_eq!(err.details["variableName"], "plan");
    }

    #[test]
    fn compensation_references_go_back_to_fragment_ids() {
        let mut rename = HashMap::new();
        rename.insert("w_x_k1_a", "a");
        assert_eq!(
            rename_node_refs("${nodes.w_x_k1_a.output.id} nodes.other.x mynodes.w_x_k1_a.y", &rename).unwrap(),
            "${nodes.a.output.id} nodes.other.x mynodes.w_x_k1_a.y"
        );
        assert_eq!(rename_node_refs("nodes.w_x_k1_a", &rename), None, "an id must end at a dot");
    }

    #[test]
    fn token_like_text_is_warned_with_its_pointer() {
        let w = wf(json!({"nodes": [{"id": "a", "typeId": "core.x", "config": {"t": ["x {{params.y}}"]}}]}));
        let ex = extract(&w, None, &info()).unwrap();
        let f = ex.warnings.iter().find(|f| f.code == code::TOKEN_LIKE_TEXT).unwrap();
        assert_eq!(f.pointer, "/nodes/0/config/t/0");
        assert_eq!(f.details["nodeId"], "a");
    }
}

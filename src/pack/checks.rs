//! Semantic checks the manifest schema cannot express (chain-packs §2.7, §4.3, §5.3).

use super::Chain;
use crate::error::{Finding, FindingCap, code, pointer_join};
use crate::json_walk::member;
use petgraph::graph::DiGraph;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

pub(super) fn check_pack(chains: &[Chain], findings: &mut Vec<Finding>) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut cap = FindingCap::default();
    for chain in chains {
        if let Some(first) = seen.insert(chain.chain_id(), chain.index) {
            cap.push(
                findings,
                Finding::error(
                    code::DUPLICATE_CHAIN_ID,
                    format!("{}/chainId", chain.pointer()),
                    format!(
                        "chainId \"{}\" is already used by /chains/{first}; chainIds must be unique within a pack",
                        chain.chain_id()
                    ),
                )
                .in_chain(chain.chain_id()),
            );
        }
        check_chain(chain, findings);
    }
    check_sub_chain_cycles(chains, findings);
    check_sub_chain_workflow_ids(chains, findings);
    findings.extend(cap.omitted("/chains"));
}

/// One chain's semantic checks, in the order their findings are listed; past
/// [`MAX_LISTED_PER_CODE`](crate::error::MAX_LISTED_PER_CODE) findings of a code, the rest
/// are counted in one finding at the chain.
fn check_chain(chain: &Chain, findings: &mut Vec<Finding>) {
    let id = chain.chain_id();
    let mut cap = FindingCap::default();
    let mut push = |f: Finding| {
        if cap.admit(f.code, f.severity) {
            findings.push(f.in_chain(id));
        }
    };
    check_parameters(chain, &mut push);
    let node_ids = check_nodes(chain, &mut push);
    check_edges(chain, &mut push);
    check_sub_chain_refs(chain, &mut push);
    check_variables(chain, &node_ids, &mut push);
    findings.extend(cap.omitted(&chain.pointer()).map(|f| f.in_chain(id)));
}

/// The parameter schema compiles, and its defaults satisfy it.
fn check_parameters(chain: &Chain, push: &mut dyn FnMut(Finding)) {
    // The common plain schema needs no compiled validator to tell that nothing is wrong.
    if crate::params::defaults_plainly_hold(chain.parameters()) {
        return;
    }
    let base = chain.pointer();
    if let Err(msg) = chain.params_validator() {
        push(Finding::error(
            code::PARAMETERS_SCHEMA_INVALID,
            format!("{base}/parameters"),
            format!("`parameters` is not a valid JSON Schema: {msg}"),
        ));
    } else {
        // A default the form would start from, and that expansion would refuse.
        for v in crate::params::default_violations(chain) {
            let (name, rest) = match v.pointer.strip_prefix('/') {
                Some(p) => p.split_once('/').map_or((p, String::new()), |(n, r)| (n, format!("/{r}"))),
                None => ("", String::new()),
            };
            let at = if name.is_empty() {
                format!("{base}/parameters/properties")
            } else {
                format!("{base}/parameters/properties/{name}/default{rest}")
            };
            push(
                Finding::error(code::CHAIN_PARAMETER_INVALID, at, format!("default value: {}", v.message))
                    .with("keyword", v.keyword),
            );
        }
    }
}

/// Node ids (present, unique, undotted), pinned workflow ids, compensation on irreversible
/// nodes. Returns the node ids.
fn check_nodes<'c>(chain: &'c Chain, push: &mut dyn FnMut(Finding)) -> HashSet<&'c str> {
    let id = chain.chain_id();
    let base = chain.pointer();
    let mut node_ids: HashSet<&str> = HashSet::new();
    for (i, node) in chain.nodes().iter().enumerate() {
        // Built only for a finding: most nodes have none.
        let np = || format!("{base}/dag/nodes/{i}");
        let Some(nid) = member(node, "id").and_then(Value::as_str).filter(|id| !id.is_empty()) else {
            // Checked here too because --skip-validation bypasses the schema, and an id-less
            // node could not be renamed, wired or spliced.
            push(Finding::error(code::INVALID_MANIFEST, np(), "a fragment node needs a non-empty string `id`"));
            continue;
        };
        if !node_ids.insert(nid) {
            push(
                Finding::error(
                    code::DUPLICATE_NODE_ID,
                    format!("{}/id", np()),
                    format!("node id \"{nid}\" appears twice in the fragment"),
                )
                .with("nodeId", nid),
            );
        }
        if nid.contains('.') {
            push(Finding::warning(
                code::DOTTED_NODE_ID,
                format!("{}/id", np()),
                format!(
                    "node id \"{nid}\" contains '.'; edge endpoints split at the first '.', so no edge can name it"
                ),
            ));
        }
        if member(node, "config").and_then(|c| member(c, "workflowId")).is_some() {
            push(Finding::error(
                code::CHAIN_FRAGMENT_PINS_WORKFLOW_ID,
                format!("{}/config/workflowId", np()),
                "a fragment node must not pin config.workflowId (use subChainRef)",
            ));
        }
        if member(node, "irreversibleEffect") == Some(&Value::Bool(true)) && member(node, "compensation").is_some() {
            push(
                Finding::error(
                    code::CHAIN_IRREVERSIBLE_WITH_COMPENSATION,
                    format!("{}/compensation", np()),
                    format!("node \"{nid}\" declares irreversibleEffect: true and also a compensation"),
                )
                .with("nodeId", nid)
                .with("chainId", id),
            );
        }
    }
    node_ids
}

/// Edge endpoints name fragment nodes, conditions are complete, loopbacks are pointed out.
fn check_edges(chain: &Chain, push: &mut dyn FnMut(Finding)) {
    let base = chain.pointer();
    let mut graph = DiGraph::<&str, usize>::with_capacity(chain.nodes().len(), chain.edges().len());
    let index: HashMap<&str, _> = chain
        .nodes()
        .iter()
        .filter_map(|n| member(n, "id").and_then(Value::as_str))
        .map(|nid| (nid, graph.add_node(nid)))
        .collect();
    for (i, edge) in chain.edges().iter().enumerate() {
        // Built only for a finding: most edges have none.
        let ep = || format!("{base}/dag/edges/{i}");
        let mut ends = [None, None];
        for (slot, key) in ["from", "to"].into_iter().enumerate() {
            let Some(end) = member(edge, key).and_then(Value::as_str) else { continue };
            let node = end.split_once('.').map_or(end, |(n, _)| n);
            match index.get(node) {
                Some(ix) => ends[slot] = Some(*ix),
                None => push(
                    Finding::warning(
                        code::EDGE_ENDPOINT_UNKNOWN,
                        pointer_join(&ep(), key),
                        format!("`{key}` \"{end}\" names no fragment node; it passes through unchanged and must name a parent node"),
                    )
                    .with("endpoint", end),
                ),
            }
        }
        if let [Some(a), Some(b)] = ends {
            graph.add_edge(a, b, i);
        }
        if let Some(cond) = member(edge, "condition")
            && matches!(member(cond, "type").and_then(Value::as_str), Some("truthy" | "falsy"))
            && member(cond, "left").and_then(Value::as_str).is_none_or(str::is_empty)
        {
            push(Finding::error(
                code::CHAIN_EDGE_CONDITION_INVALID,
                format!("{}/condition", ep()),
                "a truthy/falsy condition needs a non-empty `left`",
            ));
        }
    }
    for edge_index in loopback_edges(&graph) {
        let edge = &chain.edges()[edge_index];
        push(
            Finding::warning(
                code::FRAGMENT_CYCLE,
                format!("{base}/dag/edges/{edge_index}"),
                format!(
                    "edge {} → {} closes a cycle (a loopback); hosts bound it with settings.maxLoopbackIterations",
                    member(edge, "from").and_then(Value::as_str).unwrap_or("?"),
                    member(edge, "to").and_then(Value::as_str).unwrap_or("?")
                ),
            )
            .with("edgeIndex", edge_index),
        );
    }
}

/// Every `subChainRef` is declared in `subChains[]`.
fn check_sub_chain_refs(chain: &Chain, push: &mut dyn FnMut(Finding)) {
    let base = chain.pointer();
    let sub_refs: HashSet<&str> = chain.sub_chains().iter().filter_map(sub_chain_ref_id).collect();
    for (i, node) in chain.nodes().iter().enumerate() {
        if let Some(r) = member(node, "config").and_then(|c| member(c, "subChainRef")).and_then(Value::as_str)
            && !sub_refs.contains(r)
        {
            push(
                Finding::error(
                    code::SUB_CHAIN_UNRESOLVED,
                    format!("{base}/dag/nodes/{i}/config/subChainRef"),
                    format!("subChainRef \"{r}\" is not declared in subChains[]"),
                )
                .with("ref", r),
            );
        }
    }
}

/// Produced variables name a fragment node and no parameter; variable reads name a produced
/// variable.
fn check_variables(chain: &Chain, node_ids: &HashSet<&str>, push: &mut dyn FnMut(Finding)) {
    let base = chain.pointer();
    let params: HashSet<&str> =
        chain.parameter_properties().map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
    let mut produced: HashSet<&str> = HashSet::new();
    for (i, pv) in chain.produced_variables().iter().enumerate() {
        let pp = format!("{base}/producedVariables/{i}");
        let name = pv.get("name").and_then(Value::as_str).unwrap_or("");
        let by = pv.get("producedBy").and_then(Value::as_str).unwrap_or("");
        produced.insert(name);
        if !node_ids.contains(by) {
            push(
                Finding::error(
                    code::PRODUCED_VAR_PRODUCER_UNKNOWN,
                    format!("{pp}/producedBy"),
                    format!("produced variable \"{name}\" names producer \"{by}\", which is not a fragment node"),
                )
                .with("variableName", name)
                .with("producedBy", by),
            );
        }
        if params.contains(name) {
            push(
                Finding::error(
                    code::VARIABLE_UNDECLARED,
                    format!("{pp}/name"),
                    format!("produced variable \"{name}\" has the same name as a parameter"),
                )
                .with("variableName", name),
            );
        }
    }
    // Only the nodes the shared pass ([`super::scan`]) marked read an undeclared variable.
    for &i in &chain.scan().variable_nodes {
        let node = &chain.nodes()[i];
        for key in ["config", "inputs"] {
            if let Some(v) = member(node, key) {
                let at = format!("{base}/dag/nodes/{i}/{key}");
                for (ptr, name) in undeclared_variable_reads(v, &at, |name| produced.contains(name)) {
                    push(
                        Finding::error(
                            code::VARIABLE_UNDECLARED,
                            ptr,
                            format!("variable read \"{name}\" names no produced variable of this chain"),
                        )
                        .with("variableName", name),
                    );
                }
            }
        }
    }
}

/// The variable `value` reads when it is a `{type:"variable", variableName}` object whose
/// name `declared` refuses.
pub(crate) fn undeclared_read<'a>(value: &'a Value, declared: &impl Fn(&str) -> bool) -> Option<&'a str> {
    (member(value, "type").and_then(Value::as_str) == Some("variable"))
        .then(|| member(value, "variableName").and_then(Value::as_str))
        .flatten()
        .filter(|name| !declared(name))
}

/// Every `{type:"variable", variableName}` object inside `v` whose name `declared` refuses,
/// with its pointer (built only for those objects).
pub(crate) fn undeclared_variable_reads<'a>(
    v: &'a Value,
    at: &str,
    declared: impl Fn(&str) -> bool,
) -> Vec<(String, &'a str)> {
    let undeclared = |value: &'a Value| undeclared_read(value, &declared);
    let mut out = Vec::new();
    // Most reads name a declared variable: look first without keeping track of where.
    let mut stack = vec![v];
    let mut any = false;
    while let Some(value) = stack.pop() {
        if undeclared(value).is_some() {
            any = true;
            break;
        }
        match value {
            Value::Object(m) => stack.extend(m.values()),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    if !any {
        return out;
    }
    crate::json_walk::walk(v, at, |loc, value| {
        if let Some(name) = undeclared(value) {
            out.push((loc.pointer(), name));
        }
        true
    });
    out
}

/// The chainId a `subChains[]` entry refers to (string ref, or an external ref's chainId).
fn sub_chain_ref_id(entry: &Value) -> Option<&str> {
    match entry.get("ref")? {
        Value::String(s) => Some(s),
        Value::Object(o) => o.get("chainId").and_then(Value::as_str),
        _ => None,
    }
}

/// Edges that close a cycle, found as DFS back edges, by position in `dag.edges`.
fn loopback_edges(graph: &DiGraph<&str, usize>) -> Vec<usize> {
    let mut out: Vec<usize> =
        crate::graph::dfs(graph, graph.node_indices()).back_edges.into_iter().map(|e| graph[e]).collect();
    out.sort_unstable();
    out
}

/// Sibling sub-chain composition must be acyclic (RFC 0133).
fn check_sub_chain_cycles(chains: &[Chain], findings: &mut Vec<Finding>) {
    let mut graph = DiGraph::<usize, ()>::new();
    let index: HashMap<&str, _> = chains.iter().enumerate().map(|(i, c)| (c.chain_id(), graph.add_node(i))).collect();
    for chain in chains {
        let from = index[chain.chain_id()];
        for r in chain.sub_chains().iter().filter_map(sub_chain_ref_id) {
            if let Some(to) = index.get(r) {
                graph.add_edge(from, *to, ());
            }
        }
    }
    // kosaraju_scc walks with petgraph's iterative Dfs; tarjan_scc recurses per chain.
    let mut cyclic: Vec<usize> = petgraph::algo::kosaraju_scc(&graph)
        .into_iter()
        .filter(|scc| scc.len() > 1 || graph.contains_edge(scc[0], scc[0]))
        .flatten()
        .map(|ix| graph[ix])
        .collect();
    cyclic.sort_unstable();
    for i in cyclic {
        let chain = &chains[i];
        findings.push(
            Finding::error(
                code::SUB_CHAIN_CYCLE,
                format!("{}/subChains", chain.pointer()),
                format!("chain \"{}\" composes itself through subChains", chain.chain_id()),
            )
            .in_chain(chain.chain_id())
            .with("chainId", chain.chain_id()),
        );
    }
}

/// Chains used as sibling sub-chains must mint different child workflow ids: the id's slug
/// turns `.` into `_`, so `q.a.b` and `q.a_b` (same version) would register as one child
/// and one node would run the other chain. The id's tenant part is the same for all, so
/// comparing without it finds the same collisions.
fn check_sub_chain_workflow_ids(chains: &[Chain], findings: &mut Vec<Finding>) {
    let mut by_id: HashMap<&str, &Chain> = HashMap::new();
    for chain in chains {
        by_id.entry(chain.chain_id()).or_insert(chain);
    }
    let mut used: Vec<&Chain> = Vec::new();
    let mut seen = HashSet::new();
    for chain in chains {
        for entry in chain.sub_chains() {
            if let Some(Value::String(r)) = entry.get("ref")
                && let Some(child) = by_id.get(r.as_str())
                && seen.insert(child.index)
            {
                used.push(child);
            }
        }
    }
    used.sort_by_key(|c| c.index);
    let mut minted: HashMap<String, &Chain> = HashMap::new();
    for chain in used {
        let id = crate::ids::mint_child_workflow_id("", chain.chain_id(), chain.version());
        match minted.get(id.as_str()) {
            Some(first) if first.chain_id() != chain.chain_id() => {
                let shown =
                    crate::ids::mint_child_workflow_id(crate::ids::DEFAULT_TENANT, chain.chain_id(), chain.version());
                findings.push(
                    Finding::error(
                        code::SUB_CHAIN_WORKFLOW_ID_COLLISION,
                        format!("{}/chainId", chain.pointer()),
                        format!(
                            "sub-chains \"{}\" ({}) and \"{}\" ({}) both become child workflow \"{shown}\" (the \
                             id turns `.` into `_`): a host that co-expands sub-chains would run one for the other; \
                             rename one of them",
                            first.chain_id(),
                            first.pointer(),
                            chain.chain_id(),
                            chain.pointer()
                        ),
                    )
                    .in_chain(chain.chain_id())
                    .with("chainIds", vec![first.chain_id(), chain.chain_id()])
                    .with("workflowId", shown),
                );
            }
            Some(_) => {}
            None => _ = minted.insert(id, chain),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::error::code;
    use crate::pack::{LoadOptions, Pack, load_bytes};
    use serde_json::{Value, json};
    use std::path::Path;

    fn pack_with(chains: Value) -> Pack {
        let m = json!({"name": "vendor.t.p", "version": "1.0.0", "kind": "workflow-chain",
            "engines": {"openwop": "*"}, "chains": chains});
        load_bytes(Path::new("p"), m.to_string().as_bytes(), LoadOptions { skip_schema: true }).unwrap()
    }

    fn chain(nodes: Value, edges: Value) -> Value {
        json!({"chainId": "c.one", "version": "1.0.0", "label": "L", "description": "D",
               "parameters": {"type": "object", "properties": {}}, "dag": {"nodes": nodes, "edges": edges}})
    }

    fn codes(p: &Pack) -> Vec<&'static str> {
        p.findings.iter().map(|f| f.code).collect()
    }

    #[test]
    fn nodes_without_ids_are_refused_even_without_the_schema() {
        let p = pack_with(json!([chain(json!([{"typeId":"core.x"}, 7, {"id":"","typeId":"core.x"}]), json!([]))]));
        let ptrs: Vec<_> =
            p.errors().filter(|f| f.code == code::INVALID_MANIFEST).map(|f| f.pointer.as_str()).collect();
        assert_eq!(ptrs, ["/chains/0/dag/nodes/0", "/chains/0/dag/nodes/1", "/chains/0/dag/nodes/2"]);
    }

    #[test]
    fn duplicate_chain_and_node_ids() {
        let c = chain(json!([{"id":"a","typeId":"core.x"},{"id":"a","typeId":"core.y"}]), json!([]));
        let p = pack_with(json!([c.clone(), c]));
        let cs = codes(&p);
        assert!(cs.contains(&code::DUPLICATE_CHAIN_ID));
        assert_eq!(cs.iter().filter(|c| **c == code::DUPLICATE_NODE_ID).count(), 2);
    }

    #[test]
    fn unknown_endpoint_is_a_warning_not_an_error() {
        let p =
            pack_with(json!([chain(json!([{"id":"a","typeId":"core.x"}]), json!([{"from":"parent.out","to":"a"}]))]));
        let f = p.findings.iter().find(|f| f.code == code::EDGE_ENDPOINT_UNKNOWN).unwrap();
        assert!(!f.is_error());
        assert_eq!(f.pointer, "/chains/0/dag/edges/0/from");
        assert!(p.is_valid());
    }

    #[test]
    fn cycle_warning_names_the_loopback_edge() {
        let p = pack_with(json!([chain(
            json!([{"id":"a","typeId":"core.x"},{"id":"b","typeId":"core.x"},{"id":"c","typeId":"core.x"}]),
            json!([{"from":"a","to":"b.in"},{"from":"b.out","to":"c"},{"from":"c","to":"a.retry"}])
        )]));
        let cyc: Vec<_> = p.findings.iter().filter(|f| f.code == code::FRAGMENT_CYCLE).collect();
        assert_eq!(cyc.len(), 1);
        assert_eq!(cyc[0].pointer, "/chains/0/dag/edges/2");
        assert!(p.is_valid());
    }

    #[test]
    fn pins_irreversible_and_condition_rules() {
        let p = pack_with(json!([chain(
            json!([{"id":"a","typeId":"core.x","config":{"workflowId":"w"}},
                   {"id":"b","typeId":"core.x","irreversibleEffect":true,"compensation":{"nodeTypeId":"core.undo"}},
                   {"id":"c","typeId":"core.x","irreversibleEffect":false,"compensation":{"nodeTypeId":"core.undo"}}]),
            json!([{"from":"a","to":"b","condition":{"type":"truthy"}},
                   {"from":"b","to":"c","condition":{"type":"falsy","left":""}},
                   {"from":"a","to":"c","condition":{"type":"truthy","left":"output.ok","right":1}},
                   {"from":"a","to":"c","condition":{"type":"expression","expression":"x"}}])
        )]));
        let errs: Vec<_> = p.errors().map(|f| (f.code, f.pointer.as_str())).collect();
        assert!(errs.contains(&(code::CHAIN_FRAGMENT_PINS_WORKFLOW_ID, "/chains/0/dag/nodes/0/config/workflowId")));
        assert!(errs.contains(&(code::CHAIN_IRREVERSIBLE_WITH_COMPENSATION, "/chains/0/dag/nodes/1/compensation")));
        assert!(errs.contains(&(code::CHAIN_EDGE_CONDITION_INVALID, "/chains/0/dag/edges/0/condition")));
        assert!(errs.contains(&(code::CHAIN_EDGE_CONDITION_INVALID, "/chains/0/dag/edges/1/condition")));
        assert_eq!(errs.len(), 4, "{errs:?}");
    }

    #[test]
    fn parameters_that_are_not_a_schema() {
        let mut c = chain(json!([{"id":"a","typeId":"core.x"}]), json!([]));
        c["parameters"] = json!({"type": "no-such-type"});
        let p = pack_with(json!([c]));
        assert!(codes(&p).contains(&code::PARAMETERS_SCHEMA_INVALID));
    }

    #[test]
    fn sub_chain_refs_and_cycles() {
        let mut a = chain(json!([{"id":"n","typeId":"core.subWorkflow","config":{"subChainRef":"c.two"}}]), json!([]));
        a["subChains"] = json!([{"ref":"c.two"}]);
        let mut b =
            chain(json!([{"id":"n","typeId":"core.subWorkflow","config":{"subChainRef":"c.missing"}}]), json!([]));
        b["chainId"] = json!("c.two");
        b["subChains"] = json!([{"ref":"c.one"}]);
        let p = pack_with(json!([a, b]));
        let cs = codes(&p);
        assert_eq!(cs.iter().filter(|c| **c == code::SUB_CHAIN_CYCLE).count(), 2);
        assert_eq!(cs.iter().filter(|c| **c == code::SUB_CHAIN_UNRESOLVED).count(), 1);
    }

    #[test]
    fn produced_variables_rules() {
        let mut c = chain(
            json!([{"id":"gen","typeId":"core.x","inputs":{"p":{"type":"variable","variableName":"plan"}}},
                   {"id":"use","typeId":"core.x","config":{"deep":[{"type":"variable","variableName":"nope"}]}}]),
            json!([{"from":"gen","to":"use"}]),
        );
        c["parameters"] = json!({"type":"object","properties":{"topic":{"type":"string"}}});
        c["producedVariables"] = json!([{"name":"plan","producedBy":"gen","type":"object"},
                                         {"name":"topic","producedBy":"ghost","type":"string"}]);
        let p = pack_with(json!([c]));
        let errs: Vec<_> = p.errors().map(|f| (f.code, f.pointer.as_str())).collect();
        assert!(errs.contains(&(code::PRODUCED_VAR_PRODUCER_UNKNOWN, "/chains/0/producedVariables/1/producedBy")));
        assert!(errs.contains(&(code::VARIABLE_UNDECLARED, "/chains/0/producedVariables/1/name")));
        assert!(errs.contains(&(code::VARIABLE_UNDECLARED, "/chains/0/dag/nodes/1/config/deep/0")));
        assert_eq!(errs.len(), 3, "{errs:?}");
    }
}

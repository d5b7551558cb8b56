use super::*;
use crate::catalog::Catalog;
use crate::pack::{LoadOptions, load_bytes};
use crate::workflow::ExportMode;
use serde_json::json;
use std::path::Path;

fn pack(nodes: Value, parameters: Value) -> Pack {
    let chain = json!({"chainId": "acme.c", "version": "1.0.0", "label": "C", "description": "d",
        "parameters": parameters, "dag": {"nodes": nodes}});
    let m = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": [chain]});
    load_bytes(Path::new("/nonexistent/pack.json"), m.to_string().as_bytes(), LoadOptions::default()).unwrap()
}

/// A pack holding acme.c (a greeting) and `more` chains after it.
fn pack_of(more: Vec<Value>) -> Pack {
    let mut chains = vec![json!({"chainId": "acme.c", "version": "1.0.0", "label": "C", "description": "d",
        "parameters": {"type": "object"}, "dag": {"nodes": [{"id": "a", "typeId": "core.noop"}]}})];
    chains.extend(more);
    let m = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": chains});
    load_bytes(Path::new("/nonexistent/pack.json"), m.to_string().as_bytes(), LoadOptions::default()).unwrap()
}

fn greeting() -> Pack {
    pack(
        json!([{"id": "a", "typeId": "core.identity", "config": {"to": "{{params.to}}"}}]),
        json!({"type": "object", "properties": {"to": {"type": "string", "minLength": 3, "default": "world"}}}),
    )
}

fn values(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn the_pipeline_splices_what_expand_for_expands() {
    let (trust, pack) = (Trust::default(), greeting());
    let mut req = InlineRequest::new(&trust, &pack, "acme.c", values(json!({"to": "you"})));
    req.expansion_id = ExpansionIdChoice::Given("x1".into());
    let mut wf = Workflow::new("w");
    let expanded = expand_for(Some(&wf), req.clone()).unwrap();
    let out = inline(&mut wf, req.clone()).unwrap();
    assert_eq!(out.expansion.nodes, expanded.expansion.nodes);
    assert_eq!(out.instance.node_ids, ["acme_c_x1_a"]);
    let node = &wf.graph[wf.node("acme_c_x1_a").unwrap()];
    assert_eq!(node.object()["config"]["to"], "you");
    // The unsigned pack is the trust policy's warning, carried to the end.
    assert!(out.findings.iter().any(|f| f.code == code::PACK_UNSIGNED), "{:?}", out.findings);
}

#[test]
fn a_hash_id_is_the_apps_and_a_fresh_one_avoids_the_workflow() {
    let (trust, pack) = (Trust::default(), greeting());
    let mut req = InlineRequest::new(&trust, &pack, "acme.c", values(json!({"to": "you"})));
    req.expansion_id = ExpansionIdChoice::Hash;
    let want = crate::expand::app::expansion_id_hash(pack.chain("acme.c").unwrap(), &req.values);
    assert_eq!(expand_for(None, req.clone()).unwrap().expansion.expansion_id, want);
    // Every four-digit id is taken: the fresh one is wider.
    let nodes: Vec<Value> = (0..0x10000u32).map(|n| json!({"id": format!("acme_c_{n:04x}_a")})).collect();
    let mut wf =
        Workflow::from_json(json!({"id": "w", "name": "w", "version": "1", "nodes": nodes, "edges": []})).unwrap();
    req.expansion_id = ExpansionIdChoice::Fresh;
    let out = inline(&mut wf, req.clone()).unwrap();
    assert!(out.expansion.expansion_id.len() > 4, "{}", out.expansion.expansion_id);
    assert_eq!(wf.node_count(), 0x10001);
}

#[test]
fn a_preview_substitutes_values_that_are_not_valid_yet() {
    let (trust, pack) = (Trust::default(), greeting());
    let mut req = InlineRequest::new(&trust, &pack, "acme.c", values(json!({"to": "x"})));
    let refused = expand_for(None, req.clone()).unwrap_err();
    assert_eq!(refused.code, code::CHAIN_PARAMETER_INVALID);
    req.preview = true;
    assert_eq!(expand_for(None, req.clone()).unwrap().expansion.nodes[0]["config"]["to"], "x");
    req.values = Map::new();
    assert_eq!(expand_for(None, req.clone()).unwrap().expansion.nodes[0]["config"]["to"], "world", "defaults apply");
}

#[test]
fn every_blocking_trust_finding_is_listed() {
    let pack = pack(json!([{"id": "a", "typeId": "vendor.x.step"}, {"id": "b", "typeId": "vendor.y.step"}]), json!({}));
    let trust = Trust { catalog: Some(Catalog::new()), require_signed: true, ..Default::default() };
    let mut wf = Workflow::new("w");
    let err = inline(&mut wf, InlineRequest::new(&trust, &pack, "acme.c", Map::new())).unwrap_err();
    assert_eq!(err.code, code::PACK_UNSIGNED);
    let codes: Vec<&str> =
        err.details["errors"].as_array().unwrap().iter().map(|e| e["code"].as_str().unwrap()).collect();
    assert_eq!(codes, [code::PACK_UNSIGNED, code::CHAIN_UNRESOLVABLE_TYPEID, code::CHAIN_UNRESOLVABLE_TYPEID]);
    assert_eq!(wf.node_count(), 0);
}

#[test]
fn strict_config_findings_all_refuse_together() {
    let bad = |id: &str| json!({"id": id, "typeId": "core.dispatch", "config": {"fanOutPolicy": "parallel"}});
    let pack = pack(json!([bad("p"), bad("q")]), json!({}));
    let mut trust = Trust { catalog: Some(Catalog::new()), ..Default::default() };
    let mut wf = Workflow::new("w");
    let out = inline(&mut wf, InlineRequest::new(&trust, &pack, "acme.c", Map::new())).unwrap();
    let warned = out.findings.iter().filter(|f| f.code == code::NODE_CONFIG_INVALID).count();
    assert_eq!(warned, 2);
    trust.strict = true;
    let before = wf.to_json(ExportMode::Faithful);
    let err = inline(&mut wf, InlineRequest::new(&trust, &pack, "acme.c", Map::new())).unwrap_err();
    assert_eq!(err.code, code::NODE_CONFIG_INVALID);
    assert_eq!(err.details["errors"].as_array().unwrap().len(), 2);
    assert_eq!(wf.to_json(ExportMode::Faithful), before);
}

#[test]
fn reparameterising_keeps_ids_and_changes_config() {
    let (trust, pack) = (Trust::default(), greeting());
    let mut wf = Workflow::new("w");
    let mut req = InlineRequest::new(&trust, &pack, "acme.c", values(json!({"to": "you"})));
    req.expansion_id = ExpansionIdChoice::Given("r1".into());
    let first = inline(&mut wf, req.clone()).unwrap();
    req.values = values(json!({"to": "everyone"}));
    req.destination = Destination::Reparameterise { key: first.instance.key(), resolutions: Default::default() };
    let again = inline(&mut wf, req.clone()).unwrap();
    assert_eq!(again.instance.node_ids, first.instance.node_ids);
    assert!(again.children.is_empty() && again.removed_edges.is_empty());
    assert_eq!(wf.graph[wf.node("acme_c_r1_a").unwrap()].object()["config"]["to"], "everyone");
    assert_eq!(wf.node_count(), 1);
}

#[test]
fn the_host_node_limit_is_checked_on_the_expansion_and_the_workflow() {
    let pack = greeting();
    let mut trust = Trust::default();
    trust.host.max_node_executions = Some(1);
    let mut wf = Workflow::from_json(json!({"id": "w", "name": "w", "version": "1",
        "nodes": [{"id": "n", "typeId": "core.noop"}], "edges": []}))
    .unwrap();
    let out = inline(&mut wf, InlineRequest::new(&trust, &pack, "acme.c", Map::new())).unwrap();
    let limits: Vec<&str> =
        out.findings.iter().filter(|f| f.code == code::HOST_NODE_LIMIT_EXCEEDED).map(|f| f.message.as_str()).collect();
    assert_eq!(limits.len(), 1, "the expansion has 1 node, the workflow 2: {limits:?}");
    assert!(limits[0].starts_with("the workflow has 2 nodes"));
}

#[test]
fn a_given_pack_expands_as_a_lent_one_and_a_copy_of_it_keeps_its_nodes() {
    let trust = Trust::default();
    let lent = greeting();
    let mut req = InlineRequest::new(&trust, &lent, "acme.c", values(json!({"to": "you"})));
    req.expansion_id = ExpansionIdChoice::Given("x1".into());
    let want = expand_for(None, req.clone()).unwrap().expansion.nodes;
    assert_eq!(want[0]["config"]["to"], "you");

    // Handed over alone, its nodes are moved.
    let mut alone = InlineRequest::given(&trust, greeting(), "acme.c", values(json!({"to": "you"})));
    alone.expansion_id = ExpansionIdChoice::Given("x1".into());
    assert_eq!(expand_for(None, alone).unwrap().expansion.nodes, want);

    // Handed over while a copy still shares its manifest, they are copied.
    let kept = greeting();
    let mut shared = InlineRequest::given(&trust, kept.clone(), "acme.c", values(json!({"to": "you"})));
    shared.expansion_id = ExpansionIdChoice::Given("x1".into());
    assert_eq!(expand_for(None, shared).unwrap().expansion.nodes, want);
    assert_eq!(kept.chain("acme.c").unwrap().nodes(), greeting().chain("acme.c").unwrap().nodes());
}

/// Issue 35 item 2: a request finds its chain by id once, and passes it down; a co-expansion
/// finds each sub-chain once more, where the walk resolves its ref.
#[test]
fn one_request_looks_its_chain_up_once() {
    use crate::pack::lookups;
    let (trust, pack) = (Trust::default(), greeting());
    for preview in [false, true] {
        for id in [ExpansionIdChoice::Fresh, ExpansionIdChoice::Hash] {
            let mut req = InlineRequest::new(&trust, &pack, "acme.c", values(json!({"to": "you"})));
            req.preview = preview;
            req.expansion_id = id.clone();
            lookups::take();
            expand_for(Some(&Workflow::new("w")), req).unwrap();
            assert_eq!(lookups::take(), ["acme.c"], "preview {preview}, {id:?}");
        }
    }
    let req = InlineRequest::given(&trust, greeting(), "acme.c", values(json!({"to": "you"})));
    lookups::take();
    // The CLI reads the chain's form from the request before the pipeline runs.
    assert!(req.chain().is_some());
    expand_for(None, req).unwrap();
    assert_eq!(lookups::take(), ["acme.c"], "a given pack, read first as the CLI does");
    // A request whose chain changes after it was read finds the new one.
    let two = pack_of(vec![json!({"chainId": "acme.d", "version": "1.0.0", "label": "D", "description": "d",
        "parameters": {"type": "object"}, "dag": {"nodes": [{"id": "z", "typeId": "core.noop"}]}})]);
    let mut req = InlineRequest::new(&trust, &two, "acme.c", Map::new());
    assert!(req.chain().is_some());
    req.chain_id = "acme.d";
    assert_eq!(req.chain().unwrap().chain_id(), "acme.d");
    assert_eq!(expand_for(None, req).unwrap().expansion.chain_id, "acme.d");

    let m = json!({"name": "vendor.acme.tree", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": [
        {"chainId": "t.p", "version": "1.0.0", "label": "P", "description": "d",
         "parameters": {"type": "object", "properties": {"to": {"type": "string", "default": "x"}}},
         "subChains": [{"ref": "t.k"}],
         "dag": {"nodes": [{"id": "s", "typeId": "core.subWorkflow", "config": {"subChainRef": "t.k"}}]}},
        {"chainId": "t.k", "version": "1.0.0", "label": "K", "description": "d",
         "parameters": {"type": "object"},
         "dag": {"nodes": [{"id": "a", "typeId": "core.identity", "config": {"to": "{{params.to}}"}}]}}]});
    let tree =
        load_bytes(Path::new("/nonexistent/pack.json"), m.to_string().as_bytes(), LoadOptions::default()).unwrap();
    let mut co = Trust::default();
    co.host.sub_chains = true;
    lookups::take();
    let out = expand_for(None, InlineRequest::new(&co, &tree, "t.p", Map::new())).unwrap();
    assert_eq!(out.children.len(), 1);
    assert_eq!(lookups::take(), ["t.p", "t.k"]);
}

#[test]
fn an_external_sub_chain_is_looked_up_once() {
    use crate::pack::lookups;
    let load = |m: Value| {
        load_bytes(Path::new("/nonexistent/pack.json"), m.to_string().as_bytes(), LoadOptions::default()).unwrap()
    };
    let root = load(json!({"name": "vendor.acme.root", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": [
        {"chainId": "r.p", "version": "1.0.0", "label": "P", "description": "d",
         "parameters": {"type": "object"},
         "subChains": [{"ref": {"packName": "vendor.acme.lib", "chainId": "l.k", "version": "^1.0.0"}}],
         "dag": {"nodes": [{"id": "s", "typeId": "core.subWorkflow", "config": {"subChainRef": "l.k"}}]}}]}));
    let lib = load(json!({"name": "vendor.acme.lib", "version": "1.2.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": [
        {"chainId": "l.other", "version": "1.0.0", "label": "O", "description": "d",
         "parameters": {"type": "object"}, "dag": {"nodes": [{"id": "o", "typeId": "core.noop"}]}},
        {"chainId": "l.k", "version": "1.1.0", "label": "K", "description": "d",
         "parameters": {"type": "object"}, "dag": {"nodes": [{"id": "a", "typeId": "core.noop"}]}}]}));
    let mut co = Trust::default();
    co.host.sub_chains = true;
    let external = [lib];
    let mut req = InlineRequest::new(&co, &root, "r.p", Map::new());
    req.external = &external;
    lookups::take();
    let out = expand_for(None, req).unwrap();
    assert_eq!(out.children.len(), 1);
    assert_eq!(out.children[0].expansion.chain_id, "l.k");
    // The walk resolves the ref in the one external pack; its trust check reuses that.
    assert_eq!(lookups::take(), ["r.p", "l.k"]);
}

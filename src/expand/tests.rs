use super::*;
use crate::pack::{LoadOptions, load_bytes};
use serde_json::json;
use std::path::Path;

fn pack(chains: Value) -> Pack {
    let m = json!({"name": "vendor.t.p", "version": "2.0.0", "kind": "workflow-chain",
        "engines": {"openwop": "*"}, "chains": chains});
    load_bytes(Path::new("p"), m.to_string().as_bytes(), LoadOptions::default()).unwrap()
}

fn opts(id: &str) -> ExpandOptions<'static> {
    ExpandOptions { expansion_id: Some(id.to_owned()), ..Default::default() }
}

fn params(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn triage() -> Value {
    json!({
        "chainId": "vendor.example.support-triage", "version": "1.0.0",
        "label": "Triage queue", "description": "Classify a queue and page on urgent items.",
        "parameters": { "type": "object", "required": ["queueName"],
          "properties": { "queueName": {"type":"string"}, "maxTickets": {"type":"integer","default":25},
                          "labels": {"type":"array","items":{"type":"string"}}, "pagerRoom": {"type":"string"} } },
        "capabilities": ["side-effectful"],
        "dag": {
          "nodes": [
            { "id": "sort", "typeId": "core.ai.callPrompt",
              "config": { "systemPrompt": "Sort {{params.queueName}} tickets (max {{params.maxTickets}}).",
                          "batch": "{{params.maxTickets}}", "tags": "{{params.labels}}" },
              "inputs": { "queue": { "type": "static", "value": "{{params.queueName}}" } } },
            { "id": "page", "typeId": "vendor.example.pager.send",
              "config": { "room": "#{{params.pagerRoom}}", "note": "{{ params.queueName }}" } } ],
          "edges": [ { "from": "sort.urgent", "to": "page.payload", "triggerRule": "any_success",
                       "condition": { "type": "truthy", "left": "output.urgent" } } ] } })
}

#[test]
fn spec_worked_example() {
    let p = pack(json!([triage()]));
    let e = expand(
        &p,
        "vendor.example.support-triage",
        params(json!({"queueName":"billing","maxTickets":40,"labels":["vip","eu"]})),
        &opts("7c1e"),
    )
    .unwrap();
    let pre = "vendor_example_support-triage_7c1e_";
    assert_eq!(e.prefix, pre);
    assert_eq!(
        e.nodes[0],
        json!({"id": format!("{pre}sort"), "typeId": "core.ai.callPrompt",
            "config": {"systemPrompt": "Sort billing tickets (max 40).", "batch": 40, "tags": ["vip","eu"]},
            "inputs": {"queue": {"type": "static", "value": "billing"}},
            "capabilities": ["side-effectful"]})
    );
    assert_eq!(e.nodes[1]["config"], json!({"room": "#", "note": "{{ params.queueName }}"}));
    // Edge members come out as from, to, condition, triggerRule regardless of input order.
    assert_eq!(
        serde_json::to_string(&e.edges[0]).unwrap(),
        format!(
            r#"{{"from":"{pre}sort.urgent","to":"{pre}page.payload","condition":{{"type":"truthy","left":"output.urgent"}},"triggerRule":"any_success"}}"#
        )
    );
    assert_eq!(e.id_map_json(), json!({"sort": format!("{pre}sort"), "page": format!("{pre}page")}));
    assert!(e.warnings.iter().any(|w| w.code == code::LEFTOVER_TOKEN));
    assert!(
        e.warnings
            .iter()
            .any(|w| w.code == code::TYPEID_UNCHECKED && w.details["typeId"] == "vendor.example.pager.send")
    );
    assert_eq!(e.entry_nodes(), vec![0]);
    assert_eq!(e.exit_nodes(), vec![1]);
}

#[test]
fn member_order_matches_reference() {
    let mut c = triage();
    c["dag"]["nodes"][0] = json!({"id":"sort","typeId":"core.x","name":"S","position":{"x":1,"y":2},
        "config":{},"inputs":{},"compensation":{"nodeTypeId":"core.undo"}});
    let p = pack(json!([c]));
    let e = expand(&p, "vendor.example.support-triage", params(json!({"queueName":"q"})), &opts("x")).unwrap();
    let keys: Vec<&str> = e.nodes[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["id", "typeId", "name", "position", "config", "inputs", "capabilities", "compensation"]);
}

#[test]
fn absent_config_and_inputs_stay_absent_and_empty_capabilities_are_not_copied() {
    let c = json!({"chainId":"c.a","version":"1.0.0","label":"A","description":"d","capabilities":[],
        "parameters":{"type":"object","properties":{}},
        "dag":{"nodes":[{"id":"n","typeId":"core.identity"}],"edges":[]}});
    let e = expand(&pack(json!([c])), "c.a", Map::new(), &opts("t0k3")).unwrap();
    assert_eq!(e.nodes[0], json!({"id":"c_a_t0k3_n","typeId":"core.identity"}));
}

#[test]
fn edge_endpoints_split_at_first_dot_and_keep_foreign_refs() {
    let c = json!({"chainId":"c.a","version":"1.0.0","label":"A","description":"d",
        "parameters":{"type":"object","properties":{}},
        "dag":{"nodes":[{"id":"a","typeId":"core.x"},{"id":"b","typeId":"core.x"}],
               "edges":[{"from":"a.out.deep","to":"b"},{"from":"parentNode.x","to":"a._order"},{"from":"b","to":"a"}]}});
    let e = expand(&pack(json!([c])), "c.a", Map::new(), &opts("q")).unwrap();
    assert_eq!(e.edges[0], json!({"from":"c_a_q_a.out.deep","to":"c_a_q_b"}));
    assert_eq!(e.edges[1], json!({"from":"parentNode.x","to":"c_a_q_a._order"}));
    assert_eq!(e.graph.edge_count(), 2);
}

#[test]
fn edges_carry_only_ends_condition_and_trigger_rule_in_the_reference_order() {
    let cond = json!({"type": "truthy", "left": "output.ok"});
    let c = json!({"chainId":"c.a","version":"1.0.0","label":"A","description":"d",
        "parameters":{"type":"object","properties":{}},
        "dag":{"nodes":[{"id":"a","typeId":"core.x"},{"id":"b","typeId":"core.x"}],
               "edges":[{"from":"a","to":"b","condition":cond,"triggerRule":"all_success"},
                        {"triggerRule":"all_complete","to":"b","from":"a"},
                        {"from":"a","label":"x","to":"b"},
                        {"to":"b","from":"a"}]}});
    // An edge member outside the four fails the schema; `--skip-validation` lets it through.
    let m = json!({"name": "vendor.t.p", "version": "2.0.0", "kind": "workflow-chain",
        "engines": {"openwop": "*"}, "chains": [c]});
    let unchecked = LoadOptions { skip_schema: true };
    let p = load_bytes(Path::new("p"), m.to_string().as_bytes(), unchecked).unwrap();
    let e = expand(&p, "c.a", Map::new(), &opts("q")).unwrap();
    let order = |i: usize| e.edges[i].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(e.edges[0], json!({"from":"c_a_q_a","to":"c_a_q_b","condition":cond,"triggerRule":"all_success"}));
    assert_eq!(order(0), ["from", "to", "condition", "triggerRule"]);
    assert_eq!(order(1), ["from", "to", "triggerRule"]);
    assert_eq!(e.edges[2], json!({"from":"c_a_q_a","to":"c_a_q_b"}), "members outside the four are dropped");
    assert_eq!(order(3), ["from", "to"]);
}

#[test]
fn compensation_mapping_is_substituted_then_rewritten() {
    let c = json!({"chainId":"c.a","version":"1.0.0","label":"A","description":"d",
        "parameters":{"type":"object","properties":{"u":{"type":"string"}}},
        "compensation":{"triggers":["node-failure"]},
        "dag":{"nodes":[{"id":"reserve","typeId":"core.x","config":{"u":"{{params.u}}"},
            "compensation":{"nodeTypeId":"core.undo","inputMapping":{
                "url":"{{params.u}}", "a":"${nodes.reserve.output.id}", "b":"nodes.reserve.output",
                "c":"${nodes.other.output.x}", "d":"mynodes.reserve.x", "e":["nodes.reserve.y"], "f": "{{params.u}}"}}}],
            "edges":[]}});
    let e = expand(&pack(json!([c])), "c.a", params(json!({"u":"nodes.reserve.z"})), &opts("k")).unwrap();
    let m = &e.nodes[0]["compensation"]["inputMapping"];
    assert_eq!(m["url"], "c_a_k_reserve".replace("c_a_k_reserve", "nodes.c_a_k_reserve.z"));
    assert_eq!(m["a"], "${nodes.c_a_k_reserve.output.id}");
    assert_eq!(m["b"], "nodes.c_a_k_reserve.output");
    assert_eq!(m["c"], "${nodes.other.output.x}");
    assert_eq!(m["d"], "mynodes.reserve.x");
    assert_eq!(m["e"], json!(["nodes.c_a_k_reserve.y"]));
    // config is substituted but never ref-rewritten
    assert_eq!(e.nodes[0]["config"]["u"], "nodes.reserve.z");
    assert_eq!(e.settings_compensation, Some(json!({"triggers":["node-failure"]})));
}

fn policy_chain() -> Value {
    json!({"chainId":"c.p","version":"1.0.0","label":"P","description":"d",
        "parameters":{"type":"object","properties":{}},
        "compensation":{"triggers":["node-failure","run-cancel"],"orderingModel":"reverse-completion"},
        "dag":{"nodes":[{"id":"a","typeId":"core.x"}],"edges":[]}})
}

#[test]
fn policy_equal_in_any_member_order_is_kept_and_different_is_refused() {
    let p = pack(json!([policy_chain()]));
    let same = json!({"orderingModel":"reverse-completion","triggers":["node-failure","run-cancel"]});
    let o = ExpandOptions { parent_compensation: Some(&same), ..opts("a") };
    assert!(expand(&p, "c.p", Map::new(), &o).unwrap().settings_compensation.is_some());
    let other = json!({"triggers":["run-cancel","node-failure"]});
    let o = ExpandOptions { parent_compensation: Some(&other), ..opts("a") };
    let err = expand(&p, "c.p", Map::new(), &o).unwrap_err();
    assert_eq!(err.code, code::CHAIN_COMPENSATION_POLICY_CONFLICT);
    assert_eq!(err.details["chainId"], "c.p");
}

#[test]
fn host_without_compensation_refuses_policy() {
    let p = pack(json!([policy_chain()]));
    let o = ExpandOptions { host: HostProfile { compensation: false, ..Default::default() }, ..opts("a") };
    let err = expand(&p, "c.p", Map::new(), &o).unwrap_err();
    assert_eq!((err.code, &err.details["requiredCapability"]), (code::CAPABILITY_REQUIRED, &json!("compensation")));
}

#[test]
fn sub_chains_need_host_support() {
    let mut a = policy_chain();
    a["chainId"] = json!("c.s");
    a.as_object_mut().unwrap().remove("compensation");
    a["subChains"] = json!([{"ref":"c.p"}]);
    let p = pack(json!([a, policy_chain()]));
    assert_eq!(expand(&p, "c.s", Map::new(), &opts("a")).unwrap_err().code, code::SUB_CHAIN_UNSUPPORTED);
    let o = ExpandOptions { host: HostProfile::permissive(), ..opts("a") };
    assert!(expand(&p, "c.s", Map::new(), &o).is_ok());
}

#[test]
fn sensitive_parameter_in_a_token_is_refused() {
    let c = json!({"chainId":"c.a","version":"1.0.0","label":"A","description":"d",
        "parameters":{"type":"object","properties":{"key":{"type":"string","x-openwop-sensitive":true}}},
        "dag":{"nodes":[{"id":"a","typeId":"core.x","inputs":{"k":"Bearer {{params.key}}"}}],"edges":[]}});
    let err = expand(&pack(json!([c])), "c.a", params(json!({"key":"s3cr3t"})), &opts("a")).unwrap_err();
    assert_eq!(err.code, code::SENSITIVE_PARAM_NOT_DEFERRABLE);
    assert_eq!(err.details["position"], "/chains/0/dag/nodes/0/inputs/k");
    assert!(!err.message.contains("s3cr3t"));
}

struct Only(&'static [&'static str]);
impl TypeResolver for Only {
    fn resolves(&self, t: &str) -> bool {
        self.0.contains(&t)
    }
}

#[test]
fn unresolvable_type_ids_refuse_before_output() {
    let mut c = policy_chain();
    c["dag"]["nodes"] = json!([{"id":"a","typeId":"vendor.k.known","compensation":{"nodeTypeId":"vendor.k.undo"}}]);
    let p = pack(json!([c]));
    let r = Only(&["vendor.k.known"]);
    let o = ExpandOptions { resolver: Some(&r), ..opts("a") };
    let err = expand(&p, "c.p", Map::new(), &o).unwrap_err();
    assert_eq!(err.code, code::CHAIN_UNRESOLVABLE_TYPEID);
    assert_eq!((&err.details["typeId"], &err.details["chainId"]), (&json!("vendor.k.undo"), &json!("c.p")));
    let r = Only(&["vendor.k.known", "vendor.k.undo"]);
    let o = ExpandOptions { resolver: Some(&r), ..opts("a") };
    let e = expand(&p, "c.p", Map::new(), &o).unwrap();
    assert!(e.warnings.iter().all(|w| w.code != code::TYPEID_UNCHECKED));
}

#[test]
fn load_time_errors_refuse_the_chain() {
    let mut c = policy_chain();
    c["dag"]["nodes"][0]["irreversibleEffect"] = json!(true);
    c["dag"]["nodes"][0]["compensation"] = json!({"nodeTypeId":"core.undo"});
    let err = expand(&pack(json!([c])), "c.p", Map::new(), &opts("a")).unwrap_err();
    // The schema's if/then rejects the same node; the specific code is what the author reads.
    assert_eq!(err.code, code::CHAIN_IRREVERSIBLE_WITH_COMPENSATION, "{err:?}");
    let mut c = policy_chain();
    c["dag"]["nodes"][0]["config"] = json!({"workflowId": "wf-pinned"});
    let err = expand(&pack(json!([c])), "c.p", Map::new(), &opts("a")).unwrap_err();
    assert_eq!(err.code, code::CHAIN_FRAGMENT_PINS_WORKFLOW_ID, "{err:?}");
    assert_eq!(err.details["path"], "/chains/0/dag/nodes/0/config/workflowId");
}

#[test]
fn parameters_are_validated_with_defaults() {
    let p = pack(json!([triage()]));
    let err =
        expand(&p, "vendor.example.support-triage", params(json!({"maxTickets":"many"})), &opts("a")).unwrap_err();
    assert_eq!(err.code, code::CHAIN_PARAMETER_INVALID);
    assert_eq!(err.details["errors"].as_array().unwrap().len(), 2);
    let e = expand(&p, "vendor.example.support-triage", params(json!({"queueName":"q"})), &opts("a")).unwrap();
    assert_eq!(e.nodes[0]["config"]["batch"], 25);
    assert_eq!(e.params["maxTickets"], 25);
}

#[test]
fn generated_expansion_ids_are_hex_and_avoid_taken_ids() {
    let p = pack(json!([triage()]));
    let taken = |id: &str| !id.contains("_0");
    let o = ExpandOptions { taken_ids: Some(&taken), ..Default::default() };
    // Only ids containing "_0" are free, so the generator must retry until the id starts with 0.
    // One call draws 7 times, each free with odds 1/16, so it succeeds with odds ≈ 0.36; a
    // generator that never finds a free id fails 200 calls in a row (odds of a working one
    // doing so: 0.64^200 < 1e-38).
    let mut found = 0;
    for _ in 0..200 {
        match expand(&p, "vendor.example.support-triage", params(json!({"queueName":"q"})), &o) {
            Ok(e) => {
                assert!(e.expansion_id.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
                assert!(e.expansion_id.starts_with('0'));
                found += 1;
            }
            Err(e) => assert_eq!(e.code, code::INVALID_REQUEST),
        }
    }
    assert!(found > 0, "200 calls never found a free expansionId");
    let all_taken = |_: &str| true;
    let o = ExpandOptions { taken_ids: Some(&all_taken), ..Default::default() };
    let err = expand(&p, "vendor.example.support-triage", params(json!({"queueName":"q"})), &o).unwrap_err();
    assert_eq!(err.code, code::INVALID_REQUEST);
    let e = expand(&p, "vendor.example.support-triage", params(json!({"queueName":"q"})), &ExpandOptions::default())
        .unwrap();
    assert_eq!(e.expansion_id.len(), 4);
}

#[test]
fn bad_requests_are_coded() {
    let p = pack(json!([triage()]));
    assert_eq!(expand(&p, "nope", Map::new(), &opts("a")).unwrap_err().code, code::CHAIN_NOT_FOUND);
    assert_eq!(
        expand(&p, "vendor.example.support-triage", params(json!({"queueName":"q"})), &opts("a.b")).unwrap_err().code,
        code::INVALID_REQUEST
    );
    let node = load_bytes(
        Path::new("n"),
        br#"{"name":"vendor.t.n","version":"1.0.0","engines":{"openwop":"*"},"runtime":{"language":"javascript","entry":"x"},"nodes":[]}"#,
        LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(expand(&node, "x", Map::new(), &opts("a")).unwrap_err().code, code::PACK_KIND_INVALID);
}

#[test]
fn substitution_budget_refuses_amplification_before_substituting() {
    let mut c = triage();
    // 2,000 nodes × 2 uses of a 100 KB value is ~400 MB of text: refused up front.
    let node =
        json!({"id": "n", "typeId": "core.x", "config": {"a": "{{params.queueName}}", "b": "x<<params.queueName>>"}});
    c["dag"]["nodes"] = Value::Array(
        (0..2000)
            .map(|i| {
                let mut n = node.clone();
                n["id"] = json!(format!("n{i}"));
                n
            })
            .collect(),
    );
    c["dag"]["edges"] = json!([]);
    let p = pack(json!([c]));
    let chain_id = "vendor.example.support-triage";
    let big = params(json!({"queueName": "q".repeat(100_000)}));
    let err = expand(&p, chain_id, big, &opts("b1g0")).unwrap_err();
    assert_eq!(err.code, code::INVALID_REQUEST);
    assert_eq!(
        (err.details["param"].as_str(), err.details["limit"].as_u64()),
        (Some("queueName"), Some(MAX_SUBSTITUTED_BYTES))
    );
    assert!(err.message.contains("the limit is"), "{}", err.message);
    // The same chain with a modest value expands.
    let e = expand(&p, chain_id, params(json!({"queueName": "q".repeat(1000)})), &opts("b1g0")).unwrap();
    assert_eq!(e.nodes.len(), 2000);
    assert_eq!(p.chains[0].token_uses()["queueName"], 4000);
}

#[test]
fn leftover_token_warnings_point_at_each_string() {
    let mut c = triage();
    c["dag"]["nodes"][1]["config"] =
        json!({"a/b": ["x", "{{ params.queueName }}"], "deep": {"k~": "<<params.nope>>"}, "ok": "{{x}} <y>"});
    let p = pack(json!([c]));
    let e = expand(&p, "vendor.example.support-triage", params(json!({"queueName": "q"})), &opts("w1")).unwrap();
    let at: Vec<&str> =
        e.warnings.iter().filter(|w| w.code == code::LEFTOVER_TOKEN).map(|w| w.pointer.as_str()).collect();
    assert_eq!(at, ["/nodes/1/config/a~1b/1"]);
}

#[test]
fn leftover_tokens_a_value_brings_in_are_found() {
    let mut c = triage();
    c["dag"]["nodes"][1]["config"] = json!({"w": "{{params.queueName}}", "e": "to {{params.queueName}}", "n": "x"});
    let p = pack(json!([c]));
    let values = params(json!({"queueName": "{{params.z}}"}));
    let e = expand(&p, "vendor.example.support-triage", values, &opts("w1")).unwrap();
    let at: Vec<&str> =
        e.warnings.iter().filter(|w| w.code == code::LEFTOVER_TOKEN).map(|w| w.pointer.as_str()).collect();
    // Node 0 uses the parameter twice as well.
    let want =
        ["/nodes/0/config/systemPrompt", "/nodes/0/inputs/queue/value", "/nodes/1/config/w", "/nodes/1/config/e"];
    assert_eq!(at, want);
}

#[test]
fn preflight_applies_every_value_independent_refusal_without_expanding() {
    let p = pack(json!([policy_chain(), triage()]));
    let no_comp =
        ExpandOptions { host: HostProfile { compensation: false, ..Default::default() }, ..Default::default() };
    assert_eq!(preflight(&p, "c.p", &no_comp).unwrap_err().code, code::CAPABILITY_REQUIRED);
    assert_eq!(preflight(&p, "nope", &ExpandOptions::default()).unwrap_err().code, code::CHAIN_NOT_FOUND);
    // Missing required parameters are not a preflight matter.
    let (chain, warnings) = preflight(&p, "vendor.example.support-triage", &ExpandOptions::default()).unwrap();
    assert_eq!(chain.chain_id(), "vendor.example.support-triage");
    assert!(warnings.iter().any(|w| w.code == code::TYPEID_UNCHECKED));
}

#[test]
fn a_fragment_large_enough_for_two_threads_expands_every_node_and_edge_in_order() {
    let n = PARALLEL_EXPANSION_NODES + 501;
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            // Two nodes, one in each half, keep text the leftover-token lint reports.
            let text =
                if i == 10 || i == n - 3 { "{{ params.x }}".to_owned() } else { format!("{{{{params.x}}}}-{i}") };
            json!({"id": format!("n{i}"), "typeId": "core.x", "config": {"v": text, "f": 2.0}})
        })
        .collect();
    let mut edges: Vec<Value> =
        (1..n).map(|i| json!({"from": format!("n{}", i - 1), "to": format!("n{i}.in")})).collect();
    // An edge from a parent node, late in the list: it keeps its end and is no edge of the
    // fragment's graph, so the graph's edge weights skip its position.
    edges.insert(n - 10, json!({"from": "parent.out", "to": "n7"}));
    let c = json!({"chainId":"c.big","version":"1.0.0","label":"B","description":"d",
        "parameters":{"type":"object","properties":{"x":{"type":"string"}}},
        "dag":{"nodes": nodes, "edges": edges}});
    let e = expand(&pack(json!([c])), "c.big", params(json!({"x": "X"})), &opts("p")).unwrap();
    assert_eq!(e.nodes.len(), n);
    for (i, node) in e.nodes.iter().enumerate() {
        assert_eq!(node["id"], format!("c_big_p_n{i}"));
        assert_eq!(node["config"]["f"].to_string(), "2", "node {i}");
        if i != 10 && i != n - 3 {
            assert_eq!(node["config"]["v"], format!("X-{i}"));
        }
    }
    let leftovers: Vec<&str> =
        e.warnings.iter().filter(|w| w.code == code::LEFTOVER_TOKEN).map(|w| w.pointer.as_str()).collect();
    assert_eq!(leftovers, ["/nodes/10/config/v".to_owned(), format!("/nodes/{}/config/v", n - 3)]);
    assert_eq!(e.edges.len(), n);
    for (i, edge) in e.edges.iter().enumerate() {
        let (from, to) = match i {
            i if i < n - 10 => (format!("c_big_p_n{i}"), format!("c_big_p_n{}.in", i + 1)),
            i if i == n - 10 => ("parent.out".to_owned(), "c_big_p_n7".to_owned()),
            i => (format!("c_big_p_n{}", i - 1), format!("c_big_p_n{i}.in")),
        };
        assert_eq!((edge["from"].as_str(), edge["to"].as_str()), (Some(&*from), Some(&*to)), "edge {i}");
    }
    assert_eq!(e.graph.edge_count(), n - 1);
    for edge in petgraph::visit::IntoEdgeReferences::edge_references(&e.graph) {
        use petgraph::visit::EdgeRef;
        // Weights are edge positions; the parent edge's position is skipped.
        let at = *edge.weight();
        let from = if at < n - 10 { at } else { at - 1 };
        assert_ne!(at, n - 10);
        assert_eq!((edge.source().index(), edge.target().index()), (from, from + 1), "edge {at}");
    }
}

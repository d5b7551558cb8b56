use super::*;
use crate::error::Finding;
use crate::expand::{ExpandOptions, Expansion, expand};
use crate::pack::{LoadOptions, Pack, load_bytes};
use crate::schemas::Schema;
use serde_json::json;

fn parent() -> Workflow {
    Workflow::from_json(json!({
        "id": "inbox-daily", "name": "Daily inbox", "version": "1.0.0",
        "nodes": [
          {"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}, "x-future": 1},
          {"id": "done", "typeId": "core.end", "name": "End", "position": {"x": 600, "y": 0}, "config": {}, "inputs": {}}],
        "edges": [{"id": "e-start-done", "sourceNodeId": "start", "targetNodeId": "done"},
                  {"id": "ghost", "sourceNodeId": "start", "targetNodeId": "nowhere", "label": "kept"}],
        "triggers": [{"id": "t-manual", "type": "manual"}],
        "variables": [{"name": "inbox", "type": "array"}],
        "metadata": {"tags": ["support"]},
        "settings": {},
        "futureTopLevel": {"keep": true}
    }))
    .unwrap()
}

fn pack() -> Pack {
    let m = json!({"name": "vendor.t.p", "version": "2.0.0", "kind": "workflow-chain", "engines": {"openwop": "*"},
      "chains": [{"chainId": "t.two", "version": "1.1.0", "label": "Two step", "description": "d",
        "parameters": {"type": "object", "properties": {"topic": {"type": "string", "default": "x"}}},
        "capabilities": ["side-effectful"],
        "producedVariables": [{"name": "summary", "producedBy": "b", "type": "string"}],
        "compensation": {"triggers": ["node-failure"]},
        "dag": {"nodes": [
            {"id": "a", "typeId": "core.identity", "config": {"t": "{{params.topic}}"}},
            {"id": "b", "typeId": "core.identity", "name": "Bee", "inputs": {"v": {"type": "variable", "variableName": "summary"}}}],
          "edges": [{"from": "a.out", "to": "b.in", "triggerRule": "any_success"}]}}]});
    load_bytes(std::path::Path::new("p"), m.to_string().as_bytes(), LoadOptions { skip_schema: true }).unwrap()
}

fn expansion(id: &str, topic: &str) -> Expansion {
    let o = ExpandOptions { expansion_id: Some(id.into()), ..Default::default() };
    expand(&pack(), "t.two", json!({"topic": topic}).as_object().unwrap().clone(), &o).unwrap()
}

#[test]
fn round_trip_keeps_unknown_members_order_and_dangling_edges() {
    let wf = parent();
    let out = wf.to_json(ExportMode::Faithful);
    let keys: Vec<&str> = out.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["id", "name", "version", "nodes", "edges", "triggers", "variables", "metadata", "settings", "futureTopLevel"]
    );
    assert_eq!(out["nodes"][0]["x-future"], 1);
    assert_eq!(
        out["edges"][1],
        json!({"id": "ghost", "sourceNodeId": "start", "targetNodeId": "nowhere", "label": "kept"})
    );
    assert_eq!(Workflow::from_json(out.clone()).unwrap().to_json(ExportMode::Faithful), out);
}

#[test]
fn structural_problems_are_refused_with_paths() {
    let dup = json!({"nodes": [{"id": "a"}, {"id": "a"}], "edges": []});
    assert_eq!(Workflow::from_json(dup).unwrap_err().details["path"], "/nodes/1");
    assert_eq!(Workflow::from_json(json!([])).unwrap_err().code, code::VALIDATION_ERROR);
    assert_eq!(Workflow::from_json(json!({"nodes": {}})).unwrap_err().details["path"], "/nodes");
    assert_eq!(Workflow::from_json(json!({"nodes": [3]})).unwrap_err().details["path"], "/nodes/0");
}

#[test]
fn splice_between_rewires_and_fills_workflow_nodes() {
    let mut wf = parent();
    let exp = expansion("k1", "news");
    let report = splice(
        &mut wf,
        &exp,
        &SpliceOptions {
            at: Some((100.0, 300.0)),
            between: Some(("start".into(), "done".into())),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(report.removed_edges.len(), 1);
    let out = wf.to_json(ExportMode::Faithful);
    let a = &out["nodes"][2];
    assert_eq!(a["id"], "t_two_k1_a");
    assert_eq!(a["name"], "a", "name falls back to the fragment id");
    assert_eq!(a["inputs"], json!({}));
    assert_eq!(a["config"], json!({"t": "news"}));
    assert_eq!(a["capabilities"], json!(["side-effectful"]));
    assert_eq!(out["nodes"][3]["name"], "Bee");
    let edges = out["edges"].as_array().unwrap();
    assert!(edges.iter().all(|e| e["id"] != "e-start-done"));
    assert!(edges.contains(&json!({"id": "t_two_k1_e1", "sourceNodeId": "t_two_k1_a", "sourceOutput": "out",
        "targetNodeId": "t_two_k1_b", "targetInput": "in", "triggerRule": "any_success"})));
    assert!(edges.contains(&json!({"id": "t_two_k1_in1", "sourceNodeId": "start", "targetNodeId": "t_two_k1_a"})));
    assert!(edges.contains(&json!({"id": "t_two_k1_out1", "sourceNodeId": "t_two_k1_b", "targetNodeId": "done"})));
    assert_eq!(out["variables"], json!([{"name": "inbox", "type": "array"}, {"name": "summary", "type": "string"}]));
    assert_eq!(out["settings"]["compensation"], json!({"triggers": ["node-failure"]}));
    let inst = &out["metadata"]["customProperties"]["chainsmith"]["instances"][0];
    assert_eq!(inst["params"], json!({"topic": "news"}));
    assert_eq!(inst["nodeIds"], json!(["t_two_k1_a", "t_two_k1_b"]));
    assert_eq!(
        inst["producedVariables"],
        json!([{"name": "summary", "producedBy": "t_two_k1_b", "type": "string"}]),
        "the producer is recorded under its expanded id"
    );
    assert_eq!(out["metadata"]["tags"], json!(["support"]));
    // Positions are offset by the drop point and clear of existing cards.
    let positions: Vec<(f64, f64)> = out["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["position"]["x"].as_f64().unwrap(), n["position"]["y"].as_f64().unwrap()))
        .collect();
    for (i, p) in positions.iter().enumerate().skip(2) {
        assert!(p.1 >= 300.0, "node {i} at {p:?}");
        for q in &positions[..2] {
            assert!((p.0 - q.0).abs() >= layout::NODE_W || (p.1 - q.1).abs() >= layout::NODE_H);
        }
    }
}

#[test]
fn replacing_one_edge_hands_its_routing_to_the_wiring() {
    let mut wf = parent();
    let routed = json!({"id": "routed", "sourceNodeId": "start", "sourceOutput": "ok", "targetNodeId": "done",
        "targetInput": "in", "condition": {"type": "truthy", "left": "output.ok"}, "triggerRule": "any_success"});
    wf.add_edge(routed.as_object().unwrap().clone());
    let between = Some(("start".to_owned(), "done".to_owned()));
    let before = wf.to_json(ExportMode::Faithful);
    let missing = SpliceOptions { between: between.clone(), replace_edge: Some("nope".into()), ..Default::default() };
    assert_eq!(splice(&mut wf, &expansion("k1", "a"), &missing).unwrap_err().details["edgeId"], "nope");
    assert_eq!(wf.to_json(ExportMode::Faithful), before, "a refused splice changes nothing");

    let opts = SpliceOptions { between, replace_edge: Some("routed".into()), ..Default::default() };
    let report = splice(&mut wf, &expansion("k1", "a"), &opts).unwrap();
    assert_eq!(report.removed_edges.iter().map(|e| e.id()).collect::<Vec<_>>(), ["routed"]);
    let out = wf.to_json(ExportMode::Faithful);
    let edges = out["edges"].as_array().unwrap();
    assert!(edges.iter().any(|e| e["id"] == "e-start-done"), "the other edge between the same nodes stays");
    let wire_in = edges.iter().find(|e| e["id"] == "t_two_k1_in1").unwrap();
    assert_eq!(
        serde_json::to_string(wire_in).unwrap(),
        r#"{"id":"t_two_k1_in1","sourceNodeId":"start","sourceOutput":"ok","targetNodeId":"t_two_k1_a","condition":{"type":"truthy","left":"output.ok"}}"#
    );
    let wire_out = edges.iter().find(|e| e["id"] == "t_two_k1_out1").unwrap();
    assert_eq!(
        serde_json::to_string(wire_out).unwrap(),
        r#"{"id":"t_two_k1_out1","sourceNodeId":"t_two_k1_b","targetNodeId":"done","targetInput":"in","triggerRule":"any_success"}"#
    );
}

#[test]
fn splice_after_a_node_wires_it_to_the_entry_and_replaces_nothing() {
    let mut wf = parent();
    let after = |node: &str, output: Option<&str>| SpliceOptions {
        after: Some(After { node: node.into(), output: output.map(str::to_owned) }),
        ..Default::default()
    };
    let before = wf.to_json(ExportMode::Faithful);
    let err = splice(&mut wf, &expansion("k1", "a"), &after("nope", None)).unwrap_err();
    assert_eq!((err.code, err.details["nodeId"].clone()), (code::INVALID_REQUEST, json!("nope")));
    let both = SpliceOptions { between: Some(("start".into(), "done".into())), ..after("start", None) };
    assert_eq!(splice(&mut wf, &expansion("k1", "a"), &both).unwrap_err().code, code::INVALID_REQUEST);
    assert_eq!(wf.to_json(ExportMode::Faithful), before, "refusals change nothing");

    let report = splice(&mut wf, &expansion("k1", "a"), &after("start", Some("ok"))).unwrap();
    assert!(report.removed_edges.is_empty());
    let out = wf.to_json(ExportMode::Faithful);
    let edges = out["edges"].as_array().unwrap();
    assert!(edges.iter().any(|e| e["id"] == "e-start-done"), "the node's own edges stay");
    assert!(edges.contains(
        &json!({"id": "t_two_k1_in1", "sourceNodeId": "start", "sourceOutput": "ok", "targetNodeId": "t_two_k1_a"})
    ));
    assert!(!edges.iter().any(|e| e["sourceNodeId"] == "t_two_k1_b"), "the exit is left open");
    assert_eq!(report.instance.edge_ids, ["t_two_k1_e1", "t_two_k1_in1"]);
    // Without a drop point: right of the node it follows (start is at x 0, a card is 220 wide).
    let entry = &out["nodes"][2]["position"];
    assert!(entry["x"].as_f64().unwrap() >= layout::NODE_W, "{entry}");
    // No port asked for: the default one.
    splice(&mut wf, &expansion("k2", "a"), &after("done", None)).unwrap();
    let out = wf.to_json(ExportMode::Faithful);
    let wire = out["edges"].as_array().unwrap().iter().find(|e| e["id"] == "t_two_k2_in1").unwrap().clone();
    assert_eq!(wire, json!({"id": "t_two_k2_in1", "sourceNodeId": "done", "targetNodeId": "t_two_k2_a"}));
}

#[test]
fn refusals_leave_the_workflow_untouched() {
    let mut wf = parent();
    splice(&mut wf, &expansion("k1", "a"), &SpliceOptions::default()).unwrap();
    let before = wf.to_json(ExportMode::Faithful);
    let err = splice(&mut wf, &expansion("k1", "b"), &SpliceOptions::default()).unwrap_err();
    assert_eq!(err.code, code::INVALID_REQUEST);
    let err = splice(
        &mut wf,
        &expansion("k2", "b"),
        &SpliceOptions { between: Some(("start".into(), "nope".into())), ..Default::default() },
    )
    .unwrap_err();
    assert_eq!(err.details["nodeId"], "nope");
    // The core serves the CLI and the editor alike: its words name no command-line flag.
    assert!(!err.message.contains("--"), "{}", err.message);
    wf.member_mut("settings")["compensation"] = json!({"triggers": ["run-cancel"]});
    let changed = wf.to_json(ExportMode::Faithful);
    let err = splice(&mut wf, &expansion("k3", "b"), &SpliceOptions::default()).unwrap_err();
    assert_eq!(err.code, code::CHAIN_COMPENSATION_POLICY_CONFLICT);
    assert_eq!(wf.to_json(ExportMode::Faithful), changed);
    assert_ne!(before, changed);
}

fn between(a: &str, b: &str) -> SpliceOptions {
    SpliceOptions { between: Some((a.into(), b.into())), ..Default::default() }
}

#[test]
fn splicing_between_refuses_to_close_a_loop() {
    let mut wf = parent();
    splice(&mut wf, &expansion("k1", "a"), &between("start", "done")).unwrap();
    let before = wf.to_json(ExportMode::Faithful);
    // The same node twice, swapped endpoints, and B upstream of A through the first chain.
    for (a, b, cycle) in [
        ("start", "start", json!(["start"])),
        ("done", "start", json!(["start", "t_two_k1_a", "t_two_k1_b", "done"])),
        ("t_two_k1_b", "start", json!(["start", "t_two_k1_a", "t_two_k1_b"])),
    ] {
        let err = splice(&mut wf, &expansion("k2", "a"), &between(a, b)).unwrap_err();
        assert_eq!(err.code, code::VALIDATION_ERROR, "{a} {b}");
        assert_eq!((&err.details["between"], &err.details["cycle"]), (&json!([a, b]), &cycle), "{err:?}");
        assert_eq!(wf.to_json(ExportMode::Faithful), before, "a refusal changes nothing");
    }
    splice(&mut wf, &expansion("k2", "a"), &between("start", "t_two_k1_a")).unwrap();
}

#[test]
fn splicing_between_updates_the_provenance_of_the_edge_it_replaces() {
    let mut wf = parent();
    splice(&mut wf, &expansion("k1", "a"), &between("start", "done")).unwrap();
    assert!(wf.instance("t_two_k1_").unwrap().edge_ids.contains(&"t_two_k1_out1".to_owned()));
    let report = splice(&mut wf, &expansion("k2", "a"), &between("t_two_k1_b", "done")).unwrap();
    assert_eq!(report.removed_edges.iter().map(Edge::id).collect::<Vec<_>>(), ["t_two_k1_out1"]);
    let first = wf.instance("t_two_k1_").unwrap();
    assert_eq!(first.edge_ids, ["t_two_k1_e1", "t_two_k1_in1"], "the removed wiring is no longer listed");
    let saved = wf.to_json(ExportMode::Faithful);
    let edges: Vec<&str> = saved["edges"].as_array().unwrap().iter().filter_map(|e| e["id"].as_str()).collect();
    for instance in wf.instances() {
        assert!(instance.edge_ids.iter().all(|id| edges.contains(&id.as_str())), "{instance:?}");
    }
}

#[test]
fn produced_variable_name_clash_is_refused() {
    let mut wf = parent();
    wf.member_mut("variables").as_array_mut().unwrap().push(json!({"name": "summary", "type": "object"}));
    assert_eq!(
        splice(&mut wf, &expansion("k1", "a"), &SpliceOptions::default()).unwrap_err().code,
        code::VARIABLE_UNDECLARED
    );
}

#[test]
fn remove_instance_takes_its_nodes_and_edges() {
    let mut wf = parent();
    let before = wf.to_json(ExportMode::Faithful);
    let rep = splice(&mut wf, &expansion("k1", "a"), &SpliceOptions::default()).unwrap();
    wf.remove_instance(&rep.instance.key()).unwrap();
    let after = wf.to_json(ExportMode::Faithful);
    assert_eq!(after["nodes"], before["nodes"]);
    assert_eq!(after["edges"], before["edges"]);
    assert!(wf.instances().is_empty());
}

#[test]
fn lint_reports_leftovers_and_dangling_ends() {
    let mut wf = parent();
    splice(&mut wf, &expansion("k1", "{{params.x}}"), &SpliceOptions::default()).unwrap();
    let faithful = wf.lint(ExportMode::Faithful);
    let has = |code: &str, at: &str| faithful.iter().any(|f| f.code == code && f.pointer.starts_with(at));
    assert!(has(code::LEFTOVER_TOKEN, "/nodes/2/config/t"), "{faithful:?}");
    assert!(has(code::EDGE_ENDPOINT_UNKNOWN, "/edges/1/targetNodeId"));
    assert!(has(code::WORKFLOW_SCHEMA_VIOLATION, "/nodes/0"), "the parent's own x-future member: {faithful:?}");
    assert!(!has(code::VALIDATION_ERROR, "/nodes/3/inputs/v"), "variable PortValues are fine");
}

/// The faithful export keeps what the spec asks for (capabilities on every expanded node,
/// plain input values); the lint says so once, instead of a schema violation per node.
#[test]
fn faithful_lint_reports_the_known_departures_once() {
    let mut wf = Workflow::new("Flow");
    for id in ["k1", "k2", "k3"] {
        splice(&mut wf, &expansion(id, "a"), &SpliceOptions::default()).unwrap();
    }
    {
        let ix = wf.node("t_two_k1_a").unwrap();
        wf.graph[ix].edit(|json| json.insert("inputs".into(), json!({"title": "Sign-off", "n": 2})));
    }
    let lints = wf.lint(ExportMode::Faithful);
    assert!(lints.iter().all(|f| f.code != code::WORKFLOW_SCHEMA_VIOLATION && !f.is_error()), "{lints:?}");
    let departures: Vec<&Finding> = lints.iter().filter(|f| f.code == code::FAITHFUL_SCHEMA_DEPARTURE).collect();
    assert_eq!(departures.len(), 1, "{lints:?}");
    assert_eq!(
        (departures[0].details["capabilities"].as_u64(), departures[0].details["plainInputs"].as_u64()),
        (Some(6), Some(2))
    );
    assert_eq!(departures[0].severity, crate::error::Severity::Info);
    // What it means and what to do, in the menu's words (issue 37 item 11).
    let m = &departures[0].message;
    assert!(m.contains("6 nodes carry") && m.contains("File › Export expanded JSON (strict schema)"), "{m}");
}

#[test]
fn strict_export_removes_capabilities_and_wraps_plain_inputs() {
    let mut wf = Workflow::new("Flow");
    splice(&mut wf, &expansion("k1", "a"), &SpliceOptions::default()).unwrap();
    let inputs = json!({"title": "Request Sign-off", "n": 3, "list": [1, 2], "none": null,
        "kept": {"type": "variable", "variableName": "summary"}, "expr": {"type": "expression", "expression": "1"},
        "wrapped": {"type": "static", "value": {"type": "email"}}, "object": {"type": "email", "to": "x"}});
    {
        let ix = wf.node("t_two_k1_a").unwrap();
        wf.graph[ix].edit(|json| json.insert("inputs".into(), inputs));
    }
    let (doc, changes) = wf.strict_export().unwrap();
    assert!(doc["nodes"].as_array().unwrap().iter().all(|n| n.get("capabilities").is_none()));
    let got = &doc["nodes"][0]["inputs"];
    assert_eq!(got["title"], json!({"type": "static", "value": "Request Sign-off"}));
    assert_eq!(got["n"], json!({"type": "static", "value": 3}));
    assert_eq!(got["list"], json!({"type": "static", "value": [1, 2]}));
    assert_eq!(got["none"], json!({"type": "static", "value": null}));
    assert_eq!(got["object"], json!({"type": "static", "value": {"type": "email", "to": "x"}}));
    for kept in ["kept", "expr", "wrapped"] {
        assert_eq!(got[kept], wf.graph[wf.node("t_two_k1_a").unwrap()].object()["inputs"][kept], "{kept}");
    }
    let wrapped: Vec<&str> =
        changes.iter().filter(|f| f.code == code::STRICT_INPUT_WRAPPED).map(|f| f.pointer.as_str()).collect();
    assert_eq!(
        wrapped,
        [
            "/nodes/0/inputs/title",
            "/nodes/0/inputs/n",
            "/nodes/0/inputs/list",
            "/nodes/0/inputs/none",
            "/nodes/0/inputs/object"
        ]
    );
    assert_eq!(changes.iter().filter(|f| f.code == code::STRICT_CAPABILITIES_REMOVED).count(), 2);
    assert!(changes.iter().all(|f| f.severity == crate::error::Severity::Info));
    assert!(Schema::WorkflowDefinition.violations(&doc).is_empty());
}

#[test]
fn strict_export_refuses_what_stays_invalid_and_writes_nothing() {
    let mut wf = parent();
    splice(&mut wf, &expansion("k1", "a"), &SpliceOptions::default()).unwrap();
    {
        let ix = wf.node("done").unwrap();
        wf.graph[ix].edit(|json| json.insert("inputs".into(), json!({"bad": {"type": "static"}})));
    }
    let err = wf.strict_export().unwrap_err();
    assert_eq!(err.code, code::VALIDATION_ERROR);
    let paths: Vec<&str> =
        err.details["errors"].as_array().unwrap().iter().map(|e| e["path"].as_str().unwrap()).collect();
    for at in ["", "/nodes/0", "/nodes/1/inputs/bad"] {
        assert!(paths.contains(&at), "{at} missing from {paths:?}");
    }
    assert!(err.message.contains("/nodes/0") && err.message.contains("/nodes/1/inputs/bad"), "{}", err.message);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("strict.json");
    let refused = wf.save(&out, ExportMode::StrictSchema).unwrap_err();
    assert_eq!((refused.code, &refused.details["errors"]), (err.code, &err.details["errors"]));
    assert!(!out.exists(), "an invalid strict export is never written");
    wf.save(&out, ExportMode::Faithful).unwrap();
}

#[test]
fn new_workflow_is_schema_valid_once_it_has_a_node() {
    let mut wf = Workflow::new("My Flow!");
    assert_eq!(wf.id(), "my-flow");
    assert!(wf.schema_findings(ExportMode::Faithful).iter().any(|f| f.pointer == "/nodes"), "empty nodes[] is invalid");
    splice(&mut wf, &expansion("k1", "a"), &SpliceOptions::default()).unwrap();
    assert!(
        wf.schema_findings(ExportMode::StrictSchema).is_empty(),
        "{:?}",
        wf.schema_findings(ExportMode::StrictSchema)
    );
}

#[test]
fn slug_ids_match_the_pattern() {
    assert_eq!(slug_id("  "), "wf");
    assert_eq!(slug_id("9 lives"), "wf-9-lives");
    assert_eq!(slug_id("Über Flow"), "ber-flow");
    assert!(slug_id(&"x".repeat(500)).len() <= 128);
}

#[test]
fn atomic_save_and_load() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("wf.json");
    let wf = parent();
    wf.save(&p, ExportMode::Faithful).unwrap();
    assert_eq!(Workflow::load(&p).unwrap().to_json(ExportMode::Faithful), wf.to_json(ExportMode::Faithful));
}

#[test]
fn file_bytes_are_the_exported_document_and_schema_checks_cover_every_piece() {
    let wf = Workflow::from_json(json!({"id": "w", "name": "W", "version": "1.0.0", "extra": {"k": [1, 2]},
        "nodes": [{"id": "a", "typeId": "core.x", "name": "a", "position": {"x": 0, "y": 0}, "capabilities": ["c"],
                   "config": {"big": 123456789012345678901234567890_u128}, "inputs": {}, "later": 1},
                  {"id": "b", "typeId": "core.x"}],
        "edges": [{"id": "e1", "sourceNodeId": "a", "targetNodeId": "b"},
                  {"id": "e2", "sourceNodeId": "a", "targetNodeId": "ghost"},
                  {"id": "e3", "sourceNodeId": "b", "targetNodeId": "a", "bogus": true}],
        "triggers": [], "variables": [], "metadata": {}, "settings": {}}))
    .unwrap();
    let faithful = ExportMode::Faithful;
    assert_eq!(wf.to_file_bytes(faithful).unwrap(), crate::fsio::to_pretty_json(&wf.to_json(faithful)));
    // This document stays invalid in strict mode, so it is refused; a valid one streams the same.
    assert_eq!(wf.to_file_bytes(ExportMode::StrictSchema).unwrap_err().code, code::VALIDATION_ERROR);
    let mut valid = Workflow::new("Flow");
    splice(&mut valid, &expansion("k1", "a"), &SpliceOptions::default()).unwrap();
    {
        let ix = valid.node("t_two_k1_a").unwrap();
        valid.graph[ix].edit(|json| {
            json.insert("inputs".into(), json!({"title": "Sign-off", "v": {"type": "variable", "variableName": "x"}}))
        });
    }
    let strict = ExportMode::StrictSchema;
    assert_eq!(valid.to_file_bytes(strict).unwrap(), crate::fsio::to_pretty_json(&valid.to_json(strict)));
    // Piecewise checks find what checking the whole document finds.
    let whole: Vec<(String, String)> = crate::schemas::Schema::WorkflowDefinition
        .violations(&wf.to_json(ExportMode::Faithful))
        .into_iter()
        .map(|v| (v.pointer, v.message))
        .collect();
    let pieces: Vec<(String, String)> =
        wf.schema_findings(ExportMode::Faithful).into_iter().map(|f| (f.pointer, f.message)).collect();
    assert!(!whole.is_empty());
    let (mut whole, mut pieces) = (whole, pieces);
    whole.sort();
    pieces.sort();
    assert_eq!(pieces, whole);
}

/// Repeated edge ids are reported against the previous use, dangling edges included; ids that
/// are not strings are never compared, an empty string id is.
#[test]
fn repeated_edge_ids_are_each_reported() {
    let nodes = [json!({"id": "a", "typeId": "core.noop"}), json!({"id": "b", "typeId": "core.noop"})];
    let edge = |id: Value, to: &str| json!({"id": id, "sourceNodeId": "a", "targetNodeId": to});
    let edges = [
        edge(json!("e1"), "b"),
        edge(json!("e1"), "gone"),
        edge(json!(5), "b"),
        edge(json!(""), "b"),
        json!({"sourceNodeId": "a", "targetNodeId": "b"}),
        edge(json!("e1"), "b"),
        edge(json!(5), "b"),
        edge(json!(""), "b"),
        edge(json!("e2"), "b"),
    ];
    let wf =
        Workflow::from_json(json!({"id": "w", "name": "w", "version": "1", "nodes": nodes, "edges": edges})).unwrap();
    let repeats: Vec<(String, String)> = wf
        .lint(ExportMode::Faithful)
        .into_iter()
        .filter(|f| f.code == code::VALIDATION_ERROR && f.pointer.starts_with("/edges/"))
        .map(|f| (f.pointer, f.message))
        .collect();
    let expected = [
        ("/edges/1/id", "edge id \"e1\" repeats /edges/0"),
        ("/edges/5/id", "edge id \"e1\" repeats /edges/1"),
        ("/edges/7/id", "edge id \"\" repeats /edges/3"),
    ];
    assert_eq!(repeats, expected.map(|(p, m)| (p.to_owned(), m.to_owned())));
}

#[test]
fn edges_are_found_by_id_through_every_removal_and_restore() {
    // A hub with 40 edges (past the one-by-one removal), one id repeated, one dangling edge.
    let mut nodes = vec![json!({"id": "hub", "typeId": "core.noop"})];
    let mut edges = vec![json!({"id": "twice", "sourceNodeId": "hub", "targetNodeId": "n0"})];
    for i in 0..40 {
        nodes.push(json!({"id": format!("n{i}"), "typeId": "core.noop"}));
        edges.push(json!({"id": format!("e{i}"), "sourceNodeId": "hub", "targetNodeId": format!("n{i}")}));
    }
    edges.push(json!({"id": "twice", "sourceNodeId": "n1", "targetNodeId": "n2"}));
    edges.push(json!({"id": "lost", "sourceNodeId": "hub", "targetNodeId": "gone"}));
    let mut wf =
        Workflow::from_json(json!({"id": "w", "name": "w", "version": "1", "nodes": nodes, "edges": edges})).unwrap();
    assert_eq!(wf.edges_by_id("twice").len(), 2);
    assert!(wf.has_edge_id("lost") && wf.edges_by_id("lost").is_empty(), "dangling: taken, not in the graph");
    assert_eq!(wf.fresh_edge_id("e3"), "e3-2");
    let e5 = wf.edges_by_id("e5")[0];
    assert_eq!(wf.graph[e5].target(), "n5");
    let hub = wf.node("hub").unwrap();
    let (_, removed) = wf.remove_all(&[hub], &[]);
    assert_eq!(removed.len(), 41);
    assert!(!wf.has_edge_id("e5") && wf.edges_by_id("twice").len() == 1);
    for edge in removed {
        wf.restore_edge(edge);
    }
    // The hub is gone, so its edges come back dangling: taken, not in the graph.
    assert!(wf.has_edge_id("e5") && wf.edges_by_id("e5").is_empty());
    let only = wf.edges_by_id("twice")[0];
    wf.remove_edge(only);
    assert!(wf.has_edge_id("twice"), "the hub's copy is dangling now");
    wf.retain_dangling(|e| e.id() != "twice");
    assert!(!wf.has_edge_id("twice"));
    assert_eq!(wf.fresh_edge_id("twice"), "twice");
}

/// A file read member by member gives the workflow a whole-document read gives: same
/// members in the same order, same nodes, same edges (dangling ones and their order too).
#[test]
fn reading_member_by_member_matches_the_whole_document_read() {
    let dir = tempfile::tempdir().unwrap();
    let edges_first = r#"{"edges": [{"id": "e1", "sourceNodeId": "a", "targetNodeId": "b", "x": 1.50},
            {"id": "ghost", "sourceNodeId": "a", "targetNodeId": "nowhere"}],
        "id": "wf", "name": "W", "version": "1",
        "nodes": [{"id": "a", "typeId": "t", "config": {"n": 123456789012345678901234567890, "deep": [[{}], []]}},
                  {"id": "b", "typeId": "t", "inputs": {"in": {"type": "static", "value": "\u00e9"}}}],
        "id": "wf2", "metadata": {}}"#;
    let nodes_first = parent().to_file_bytes(ExportMode::Faithful).unwrap();
    for (name, text) in [("edges-first.json", edges_first.as_bytes()), ("nodes-first.json", &nodes_first)] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let streamed = Workflow::load(&path).unwrap();
        let whole = Workflow::load_whole(text, &path).unwrap();
        assert_eq!(
            streamed.to_file_bytes(ExportMode::Faithful).unwrap(),
            whole.to_file_bytes(ExportMode::Faithful).unwrap()
        );
        let seqs = |wf: &Workflow| -> Vec<(String, u64)> {
            let mut all: Vec<(String, u64)> = wf.graph.node_weights().map(|n| (n.id().to_owned(), n.seq)).collect();
            all.extend(wf.graph.edge_weights().chain(wf.dangling_edges()).map(|e| (e.id().to_owned(), e.seq)));
            all.sort();
            all
        };
        assert_eq!(seqs(&streamed), seqs(&whole), "{name}");
        assert_eq!(streamed.dangling_edges().len(), 1);
    }
    // A repeated top-level member keeps its first place and its last value, as serde_json does.
    let out = Workflow::load(&dir.path().join("edges-first.json")).unwrap().to_json(ExportMode::Faithful);
    let keys: Vec<&str> = out.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["edges", "id", "name", "version", "nodes", "metadata"]);
    assert_eq!(out["id"], "wf2");
    assert_eq!(out["nodes"][0]["config"]["n"].to_string(), "123456789012345678901234567890");
}

/// Every refusal of a file read member by member is the whole-document read's, word for word.
#[test]
fn reading_member_by_member_refuses_as_the_whole_document_read() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        r#"{"id": "w", "nodes": [{"id": "a"}, {"id": "a"}], "edges": []}"#,
        r#"{"id": "w", "nodes": [{"id": "a"}, 3], "edges": [5]}"#,
        r#"{"id": "w", "nodes": [{"id": "a"}], "edges": [{"id": "e"}, 5]}"#,
        r#"{"id": "w", "nodes": [{"name": "no id"}], "edges": []}"#,
        r#"{"id": "w", "nodes": {}, "edges": []}"#,
        r#"{"id": "w", "nodes": [3], "edges": [], "kind": "workflow-chain"}"#,
        r#"{"id": 7, "nodes": [], "edges": []}"#,
        r#"{"id": "w", "nodes": [{"id": "a"}], "edges": []"#,
        r#"[{"id": "w"}]"#,
        r#"12.5"#,
    ];
    for (i, text) in cases.iter().enumerate() {
        let path = dir.path().join(format!("{i}.json"));
        std::fs::write(&path, text).unwrap();
        let whole = Workflow::load_whole(text.as_bytes(), &path).map(|_| ()).unwrap_err();
        let read = Workflow::load(&path).map(|_| ()).unwrap_err();
        assert_eq!((read.code, &read.message, &read.details), (whole.code, &whole.message, &whole.details), "{text}");
    }
    // The repeated `nodes` member is read whole: the last one counts, as in any JSON value.
    let path = dir.path().join("twice.json");
    std::fs::write(&path, r#"{"id": "w", "nodes": [{"id": "a"}], "nodes": [{"id": "b"}], "edges": []}"#).unwrap();
    let wf = Workflow::load(&path).unwrap();
    assert!(wf.contains_node("b") && !wf.contains_node("a"));
}

/// A copy of a workflow (an undo snapshot, the lint worker's, a dry run) shares every node
/// and edge object with the original; changing one in the copy copies only that one.
#[test]
fn copies_share_objects_until_one_is_changed() {
    let wf = parent();
    let mut copy = wf.clone();
    let shared = |a: &Workflow, b: &Workflow, id: &str| {
        a.graph[a.node(id).unwrap()].body().shared_with(b.graph[b.node(id).unwrap()].body())
    };
    assert!(shared(&wf, &copy, "start") && shared(&wf, &copy, "done"));
    let e = wf.edges_by_id("e-start-done")[0];
    let edge_shared = |a: &Workflow, b: &Workflow| std::ptr::eq(a.graph[e].text(), b.graph[e].text());
    assert!(edge_shared(&wf, &copy));
    let ix = copy.node("start").unwrap();
    copy.graph[ix].set_position(5.0, 5.0);
    assert!(!shared(&wf, &copy, "start") && shared(&wf, &copy, "done"));
    copy.graph[e].update(|json| json.insert("label".into(), json!("copy")));
    assert!(!edge_shared(&wf, &copy));
    assert_eq!(wf.graph[e].json().get("label"), None, "the original edge is untouched");
    assert_eq!(wf.graph[wf.node("start").unwrap()].position(), (0.0, 0.0), "the original is untouched");
    assert_eq!(copy.graph[ix].position(), (5.0, 5.0));
}

/// The lookups (node ids, edge seqs and ids) are shared by a copy too, and each side's
/// structural edits stay its own.
#[test]
fn copies_share_lookups_until_one_adds_or_removes() {
    let mut wf = parent();
    let copy = wf.clone();
    assert!(Arc::ptr_eq(&wf.index, &copy.index) && Arc::ptr_eq(&wf.by_id, &copy.by_id));
    let ix = wf.node("done").unwrap();
    wf.graph[ix].set_position(9.0, 9.0);
    assert!(Arc::ptr_eq(&wf.index, &copy.index), "a move leaves the lookups shared");
    wf.remove_node(ix);
    assert!(!wf.contains_node("done") && copy.contains_node("done"));
    assert!(wf.edges_by_id("e-start-done").is_empty());
    assert_eq!(copy.edges_by_id("e-start-done").len(), 1, "the copy keeps its edge");
    let e = copy.edges_by_id("e-start-done")[0];
    assert_eq!(copy.edge_by_seq(copy.graph[e].seq), Some(e));
}

//! Nothing the user made is lost or silently changed: every file chainsmith writes can be
//! read back, and what it did not touch comes back byte for byte (issue 16, "Lost or
//! corrupted data with exit 0"). Each test runs the real binary.

mod common;

use common::cli::{envelope, ok_json, run, s};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A chain pack with one chain per `(chainId, fragment)`, written to `dir/name/pack.json`.
fn write_pack(dir: &Path, name: &str, chains: Vec<(&str, Value, Value)>) -> PathBuf {
    let chains: Vec<Value> = chains
        .into_iter()
        .map(|(id, params, dag)| {
            json!({"chainId": id, "version": "1.0.0", "label": id, "description": "d",
                   "parameters": params, "dag": dag})
        })
        .collect();
    let pack = json!({"name": "vendor.test.integrity", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": chains});
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("pack.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&pack).unwrap()).unwrap();
    path
}

fn no_params() -> Value {
    json!({"type": "object", "properties": {}})
}

/// The chain `t.two`, a → b, alone in the pack `dir/p`.
fn two_node_pack(dir: &Path) -> PathBuf {
    let dag = json!({"nodes": [{"id": "a", "typeId": "core.x"}, {"id": "b", "typeId": "core.x"}],
                     "edges": [{"from": "a", "to": "b"}]});
    write_pack(dir, "p", vec![("t.two", no_params(), dag)])
}

#[test]
fn a_drop_point_that_would_overflow_is_refused_with_a_code() {
    let dir = tempfile::tempdir().unwrap();
    let pack = two_node_pack(dir.path());
    let out_file = dir.path().join("out.json");
    let out = run(&["inline", "--new", "W", s(&pack), "--chain", "t.two", "--at", "1e307,5e306", "-o", s(&out_file)]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let env = envelope(&out);
    assert_eq!(env["error"], "invalid_request", "{env}");
    assert_eq!(env["details"]["limit"], 1.0e12, "{env}");
    assert!(!out_file.exists(), "nothing is written");
    // Inside the limit, every coordinate is a number.
    let out = run(&["inline", "--new", "W", s(&pack), "--chain", "t.two", "--at", "1e11,-1e11", "-o", s(&out_file)]);
    ok_json(&out);
    let saved: Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    for node in saved["nodes"].as_array().unwrap() {
        assert!(node["position"]["x"].is_number() && node["position"]["y"].is_number(), "{node}");
    }
}

#[test]
fn chains_whose_ids_share_a_slug_keep_both_provenance_records() {
    let dir = tempfile::tempdir().unwrap();
    let pack = write_pack(
        dir.path(),
        "p",
        vec![
            ("qa.c", no_params(), json!({"nodes": [{"id": "a", "typeId": "core.x"}], "edges": []})),
            ("qa_c", no_params(), json!({"nodes": [{"id": "b", "typeId": "core.x"}], "edges": []})),
        ],
    );
    let wf = dir.path().join("wf.json");
    ok_json(&run(&["inline", "--new", "W", s(&pack), "--chain", "qa.c", "--expansion-id", "x1", "-o", s(&wf)]));
    let before = std::fs::read(&wf).unwrap();
    let out = run(&["inline", s(&wf), s(&pack), "--chain", "qa_c", "--expansion-id", "x1", "-o", s(&wf)]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let env = envelope(&out);
    assert_eq!(
        (env["error"].as_str(), env["details"]["instance"].as_str()),
        (Some("invalid_request"), Some("qa_c_x1_"))
    );
    assert_eq!(std::fs::read(&wf).unwrap(), before, "the workflow is left as it was");
    // Another expansionId works, and both records are there.
    ok_json(&run(&["inline", s(&wf), s(&pack), "--chain", "qa_c", "--expansion-id", "x2", "-o", s(&wf)]));
    let saved: Value = serde_json::from_slice(&std::fs::read(&wf).unwrap()).unwrap();
    let chains: Vec<&str> = saved["metadata"]["customProperties"]["chainsmith"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["chainId"].as_str().unwrap())
        .collect();
    assert_eq!(chains, ["qa.c", "qa_c"]);
}

#[test]
fn fragment_edge_ids_never_repeat_a_parent_edge_id() {
    let dir = tempfile::tempdir().unwrap();
    let pack = two_node_pack(dir.path());
    // The parent already has an edge with the id the fragment edge would get.
    let wf = dir.path().join("wf.json");
    let parent = json!({"id": "w", "name": "W", "version": "1.0.0",
        "nodes": [{"id": "p", "typeId": "core.x", "name": "p", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
                  {"id": "q", "typeId": "core.x", "name": "q", "position": {"x": 0, "y": 200}, "config": {}, "inputs": {}}],
        "edges": [{"id": "t_two_e1_e1", "sourceNodeId": "p", "targetNodeId": "q"}]});
    std::fs::write(&wf, serde_json::to_vec_pretty(&parent).unwrap()).unwrap();
    let out_file = dir.path().join("out.json");
    let out = run(&["inline", s(&wf), s(&pack), "--chain", "t.two", "--expansion-id", "e1", "-o", s(&out_file)]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let env = envelope(&out);
    assert_eq!(
        (env["error"].as_str(), env["details"]["edgeId"].as_str()),
        (Some("invalid_request"), Some("t_two_e1_e1"))
    );
    assert!(!out_file.exists());
    let saved =
        ok_json(&run(&["inline", s(&wf), s(&pack), "--chain", "t.two", "--expansion-id", "e2", "-o", s(&out_file)]));
    assert_eq!(saved["edgeIds"], json!(["t_two_e2_e1"]));
}

#[test]
fn strict_schema_export_keeps_node_members_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("p/pack.json");
    std::fs::create_dir_all(pack.parent().unwrap()).unwrap();
    let manifest = json!({"name": "vendor.test.integrity", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": [{"chainId": "t.caps", "version": "1.0.0", "label": "l",
        "description": "d", "capabilities": ["streamable"], "parameters": no_params(),
        "dag": {"nodes": [{"id": "a", "typeId": "core.x"}], "edges": []}}]});
    std::fs::write(&pack, serde_json::to_vec(&manifest).unwrap()).unwrap();
    // Hand-written members after `capabilities` that a swap-remove would move.
    let wf = dir.path().join("wf.json");
    // (Schema-valid apart from `capabilities`: a strict export that stays invalid is refused.)
    let text = r#"{"id": "w", "name": "W", "version": "1.0.0", "nodes": [
        {"id": "n", "typeId": "core.x", "name": "n", "position": {"x": 0, "y": 0}, "capabilities": ["x"],
         "config": {}, "inputs": {}, "credentialsRef": "c", "settings": {"max": 1}}], "edges": [],
        "triggers": [], "variables": [], "settings": {}}"#;
    std::fs::write(&wf, text).unwrap();
    let out_file = dir.path().join("out.json");
    ok_json(&run(&[
        "inline",
        s(&wf),
        s(&pack),
        "--chain",
        "t.caps",
        "--strict-schema",
        "--at",
        "0,500",
        "-o",
        s(&out_file),
    ]));
    let saved: Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    let keys: Vec<&str> = saved["nodes"][0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["id", "typeId", "name", "position", "config", "inputs", "credentialsRef", "settings"]);
}

/// `levels` nested arrays around a number: the parser's nesting count of the value.
fn nested(levels: usize) -> Value {
    let text = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_legal_deep_parameter_is_saved_so_that_the_workflow_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let params = json!({"type": "object", "properties": {"v": {}}});
    let pack = write_pack(
        dir.path(),
        "p",
        vec![
            (
                "t.deep",
                params.clone(),
                json!({"nodes": [{"id": "a", "typeId": "core.x", "config": {"v": "{{params.v}}"}}], "edges": []}),
            ),
            (
                "t.deeper",
                params,
                json!({"nodes": [{"id": "a", "typeId": "core.x",
                "config": {"x": {"y": {"z": {"v": "{{params.v}}"}}}}}], "edges": []}),
            ),
        ],
    );
    // 1 + 121 levels: a params file the parser accepts (the limit is 127).
    let values = json!({"v": nested(121)});
    let params_file = dir.path().join("params.json");
    std::fs::write(&params_file, serde_json::to_vec(&values).unwrap()).unwrap();
    let wf = dir.path().join("wf.json");
    ok_json(&run(&["inline", "--new", "W", s(&pack), "--chain", "t.deep", "--params", s(&params_file), "-o", s(&wf)]));
    // What was written opens again, in chainsmith and in a plain JSON parser, with the
    // parameters intact.
    let again = dir.path().join("again.json");
    ok_json(&run(&["inline", s(&wf), s(&pack), "--chain", "t.deep", "--params", s(&params_file), "-o", s(&again)]));
    let saved: Value = serde_json::from_slice(&std::fs::read(&again).unwrap()).unwrap();
    let instances = saved["metadata"]["customProperties"]["chainsmith"]["instances"].as_array().unwrap();
    assert_eq!(instances.len(), 2);
    for inst in instances {
        let params: Value =
            serde_json::from_str(inst["params"].as_str().expect("deep params are kept as JSON text")).unwrap();
        assert_eq!(params, values);
    }
    assert_eq!(saved["nodes"][0]["config"]["v"], values["v"], "the node holds the value itself");
    // A node that would itself nest too deep is refused before writing.
    let refused = dir.path().join("refused.json");
    let out =
        run(&["inline", "--new", "W", s(&pack), "--chain", "t.deeper", "--params", s(&params_file), "-o", s(&refused)]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let env = envelope(&out);
    assert_eq!(
        (env["error"].as_str(), env["details"]["limit"].as_u64()),
        (Some("validation_error"), Some(127)),
        "{env}"
    );
    assert!(!refused.exists());
}

#[test]
fn numbers_in_untouched_nodes_keep_every_digit() {
    let dir = tempfile::tempdir().unwrap();
    let pack = write_pack(
        dir.path(),
        "p",
        vec![("t.one", no_params(), json!({"nodes": [{"id": "a", "typeId": "core.x"}], "edges": []}))],
    );
    let wf = dir.path().join("wf.json");
    let literals =
        ["123456789012345678901234567890", "-9223372036854775809", "0.1000000000000000055511151231257827", "1e400"];
    let text = format!(
        r#"{{"id": "w", "name": "W", "version": "1.0.0", "nodes": [{{"id": "n", "typeId": "core.x", "name": "n",
            "position": {{"x": 0, "y": 0}}, "config": {{"big": {}, "low": {}, "fine": {}, "huge": {}}}, "inputs": {{}}}}], "edges": []}}"#,
        literals[0], literals[1], literals[2], literals[3]
    );
    std::fs::write(&wf, text).unwrap();
    let out_file = dir.path().join("out.json");
    ok_json(&run(&["inline", s(&wf), s(&pack), "--chain", "t.one", "-o", s(&out_file)]));
    let written = std::fs::read_to_string(&out_file).unwrap();
    for (key, literal) in ["big", "low", "fine"].iter().zip(literals) {
        assert!(written.contains(&format!("\"{key}\": {literal}")), "{key}: {literal} not kept in\n{written}");
    }
    // Beyond f64 range: the value is kept (serde_json spells the exponent `e+400`).
    assert!(written.contains("\"huge\": 1e+400"), "{written}");
}

//! Chain instances re-parameterised and upgraded from the command line, keeping the user's
//! edits (issue 36): `chainsmith upgrade` (and its old name `reparam`), its conflicts and its
//! coded refusals, each of which writes nothing.

mod common;

use common::cli::{envelope, ok_json, run, s};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn support_desk() -> PathBuf {
    repo().join("packs/vendor.chainsmith.support-desk")
}

fn read(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn write(p: &Path, v: &Value) {
    std::fs::write(p, serde_json::to_vec_pretty(v).unwrap()).unwrap();
}

/// The bundled support-desk pack as version 1.1.0 of itself: the fetch node's timeout
/// changed, a node `audit` added after `log`, and `page` (an exit node) removed.
fn support_desk_1_1(dir: &Path) -> PathBuf {
    let mut m = read(&support_desk().join("pack.json"));
    m["version"] = json!("1.1.0");
    let chain = m["chains"].as_array_mut().unwrap().iter_mut().find(|c| c["chainId"] == "support.triage").unwrap();
    chain["version"] = json!("1.1.0");
    let dag = &mut chain["dag"];
    dag["nodes"][0]["config"]["timeoutMs"] = json!(30000);
    dag["nodes"].as_array_mut().unwrap().retain(|n| n["id"] != "page");
    dag["nodes"].as_array_mut().unwrap().push(json!({"id": "audit", "typeId": "vendor.chainsmith.sheet-append",
        "name": "Audit", "position": {"x": 930, "y": 170}, "config": {"sheet": "audit", "columns": ["id"]}, "inputs": {}}));
    dag["edges"].as_array_mut().unwrap().retain(|e| e["to"] != "page.payload");
    dag["edges"].as_array_mut().unwrap().push(json!({"from": "log.done", "to": "audit.row"}));
    let folder = dir.join("support-desk-1.1.0");
    std::fs::create_dir_all(&folder).unwrap();
    write(&folder.join("pack.json"), &m);
    folder
}

/// A workflow start → Triage queue (expansionId t001, queue billing) → finish.
fn triage_workflow(dir: &Path) -> PathBuf {
    let parent = dir.join("parent.json");
    write(
        &parent,
        &json!({"id": "p", "name": "P", "version": "1.0.0",
            "nodes": [{"id": "start", "typeId": "core.start", "position": {"x": 0, "y": 0}},
                      {"id": "finish", "typeId": "core.end", "position": {"x": 1600, "y": 0}}],
            "edges": [{"id": "go", "sourceNodeId": "start", "targetNodeId": "finish"}]}),
    );
    let wf = dir.join("wf.json");
    let pack = support_desk();
    let out = run(&[
        "inline", s(&parent), s(&pack), "--chain", "support.triage", "--set", "queueName=billing",
        "--expansion-id", "t001", "--between", "start", "finish", "-o", s(&wf),
    ]);
    ok_json(&out);
    wf
}

fn node<'a>(doc: &'a Value, id: &str) -> Option<&'a Value> {
    doc["nodes"].as_array().unwrap().iter().find(|n| n["id"] == id)
}

/// Set the Classify node's threshold by hand, as a user editing the file or the inspector.
fn edit_threshold(wf: &Path, value: f64) {
    let mut doc = read(wf);
    let classify = doc["nodes"].as_array_mut().unwrap().iter_mut().find(|n| n["id"] == "support_triage_t001_classify");
    classify.unwrap()["config"]["threshold"] = json!(value);
    write(wf, &doc);
}

#[test]
fn upgrade_keeps_a_manual_config_edit_and_records_the_new_version() {
    let dir = tempfile::tempdir().unwrap();
    let wf = triage_workflow(dir.path());
    edit_threshold(&wf, 0.9);
    let v11 = support_desk_1_1(dir.path());
    let out_path = dir.path().join("out.json");
    let out = run(&["upgrade", s(&wf), "--pack", s(&support_desk()), "--pack", s(&v11), "-o", s(&out_path), "--json"]);
    let summary = ok_json(&out);
    let inst = &summary["instances"][0];
    assert_eq!((inst["instance"].as_str(), inst["from"].as_str(), inst["to"].as_str()), (Some("support_triage_t001_"), Some("1.0.0"), Some("1.1.0")));
    assert_eq!(inst["edits"], json!([{"kind": "member", "node": "support_triage_t001_classify", "member": "/config/threshold", "base": 0.7, "mine": 0.9}]));

    let doc = read(&out_path);
    let classify = node(&doc, "support_triage_t001_classify").unwrap();
    assert_eq!(classify["config"]["threshold"], 0.9, "the manual edit is kept");
    assert_eq!(node(&doc, "support_triage_t001_fetch").unwrap()["config"]["timeoutMs"], 30000, "the new version's change");
    assert!(node(&doc, "support_triage_t001_page").is_none(), "removed by the new version");
    assert_eq!(node(&doc, "support_triage_t001_audit").unwrap()["config"]["sheet"], "audit", "added by the new version");
    let recorded = &doc["metadata"]["customProperties"]["chainsmith"]["instances"][0];
    assert_eq!((recorded["chainVersion"].as_str(), recorded["packVersion"].as_str()), (Some("1.1.0"), Some("1.1.0")));
    // The parent wiring stays on the same fragment nodes: start → fetch, log → finish.
    let edges: Vec<(&str, &str)> = doc["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["sourceNodeId"].as_str().unwrap(), e["targetNodeId"].as_str().unwrap()))
        .collect();
    for want in [("start", "support_triage_t001_fetch"), ("support_triage_t001_log", "finish"), ("support_triage_t001_log", "support_triage_t001_audit")] {
        assert!(edges.contains(&want), "{want:?} in {edges:?}");
    }
    assert!(!edges.iter().any(|(a, b)| a.ends_with("_page") || b.ends_with("_page")), "{edges:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("instance_edge_detached"), "page → finish went with page");
}

#[test]
fn a_member_changed_on_both_sides_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let wf = triage_workflow(dir.path());
    edit_threshold(&wf, 0.9);
    let out_path = dir.path().join("out.json");
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = ["upgrade", s(&wf), "--pack", s(&support_desk()), "--set", "threshold=0.8", "-o", s(&out_path)]
            .iter()
            .map(|x| x.to_string())
            .collect();
        a.extend(extra.iter().map(|x| x.to_string()));
        a
    };
    let go = |extra: &[&str]| run(&args(extra).iter().map(String::as_str).collect::<Vec<_>>());
    let out = go(&[]);
    let e = envelope(&out);
    assert_eq!(e["error"], "upgrade_conflict");
    assert_eq!(
        e["details"]["conflicts"],
        json!([{"node": "support_triage_t001_classify", "member": "/config/threshold", "mine": 0.9, "new": 0.8, "base": 0.7}])
    );
    assert!(!out_path.exists(), "nothing is written");

    ok_json(&go(&["--prefer", "mine", "--json"]));
    assert_eq!(node(&read(&out_path), "support_triage_t001_classify").unwrap()["config"]["threshold"], 0.9);
    let summary = ok_json(&go(&["--prefer", "new", "--json"]));
    assert_eq!(summary["instances"][0]["conflicts"][0]["chosen"], "new");
    let doc = read(&out_path);
    assert_eq!(node(&doc, "support_triage_t001_classify").unwrap()["config"]["threshold"], 0.8);
    assert_eq!(doc["metadata"]["customProperties"]["chainsmith"]["instances"][0]["params"]["threshold"], 0.8);
}

/// Item 1 from the command line: the old `reparam` re-expanded an OpenWOP app workflow
/// and replaced what was edited by hand; it now keeps it.
#[test]
fn reparam_keeps_a_hand_edit_of_an_app_workflow() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = repo().join("tests/fixtures/app");
    let mut doc = read(&fixture.join("ticket-triage.app-workflow.json"));
    doc["nodes"][1]["config"]["provider"] = json!("openai");
    let wf = dir.path().join("triage.json");
    write(&wf, &doc);
    let out_path = dir.path().join("out.json");
    let pack = fixture.join("ticket-triage.json");
    let out = run(&["reparam", s(&wf), "--pack", s(&pack), "--set", "queue=sales", "-o", s(&out_path)]);
    ok_json(&out);
    let written = read(&out_path);
    assert_eq!(written["nodes"][1]["config"]["provider"], "openai", "the hand edit is kept");
    assert_eq!(written["nodes"][0]["config"]["url"], "https://tickets.example/sales?limit=40", "the new value applies");
}

#[test]
fn bad_input_is_refused_with_a_code_naming_the_instance_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let wf = triage_workflow(dir.path());
    let v11 = support_desk_1_1(dir.path());
    let out_path = dir.path().join("out.json");
    let o = s(&out_path).to_owned();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--pack", s(&support_desk()), "--instance", "nope"], "instance_not_found"),
        (vec!["--pack", s(&support_desk()), "--to", "9.9.9"], "chain_version_not_found"),
        // Only the new version: the recorded one is needed to tell the edits apart.
        (vec!["--pack", s(&v11)], "instance_base_unavailable"),
        // A pack that does not hold the instance's chain.
        (vec!["--pack", s(&repo().join("packs/vendor.chainsmith.data-ops"))], "instance_pack_mismatch"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["upgrade", s(&wf)];
        args.extend(extra);
        args.extend(["-o", o.as_str()]);
        let e = envelope(&run(&args));
        assert_eq!(e["error"], want, "{args:?}: {e}");
        if want != "instance_not_found" {
            assert_eq!(e["details"]["instance"], "support_triage_t001_", "{e}");
        }
        assert!(!out_path.exists(), "{args:?} wrote nothing");
    }
}

//! `chainsmith chain extract`: the summary line, the pack it writes, and every refusal
//! (exit 1, the error envelope as the last stderr line, nothing written).

mod common;

use common::cli::{envelope, run, s};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Output;

/// `chainsmith chain extract WF --pack PACK --chain-id ID --label LABEL`, then `more`.
fn extract(wf: &str, pack: &Path, chain_id: &str, label: &str, more: &[&str]) -> Output {
    let mut args = vec!["chain", "extract", wf, "--pack", s(pack), "--chain-id", chain_id, "--label", label];
    args.extend_from_slice(more);
    run(&args)
}

/// The one stdout line of a successful run, as JSON.
fn summary(out: &Output) -> Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "one summary line: {text}");
    serde_json::from_str(&text).unwrap()
}

fn workflow() -> Value {
    json!({"id": "ops", "name": "Ops", "version": "1.0.0", "triggers": [], "variables": [], "metadata": {}, "settings": {},
      "nodes": [
        {"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
        {"id": "fetch", "typeId": "vendor.chainsmith.http-request", "name": "Fetch", "position": {"x": 200, "y": 100},
         "config": {"method": "GET", "url": "https://support.example.test/q", "timeoutMs": 1500}, "inputs": {}},
        {"id": "notify", "typeId": "vendor.chainsmith.pager-send", "name": "Notify", "position": {"x": 500, "y": 60},
         "config": {"room": "#ops", "fallback": "https://support.example.test/q"}, "inputs": {}},
        {"id": "reader", "typeId": "core.identity", "name": "Reader", "position": {"x": 800, "y": 0}, "config": {},
         "inputs": {"p": {"type": "variable", "variableName": "plan"}}}],
      "edges": [
        {"id": "e1", "sourceNodeId": "start", "targetNodeId": "fetch"},
        {"id": "e2", "sourceNodeId": "fetch", "sourceOutput": "body", "targetNodeId": "notify", "targetInput": "payload",
         "condition": {"type": "truthy", "left": "output.ok"}, "triggerRule": "any_success"}]})
}

fn write_workflow(dir: &Path) -> String {
    let p = dir.join("wf.json");
    std::fs::write(&p, serde_json::to_vec_pretty(&workflow()).unwrap()).unwrap();
    p.display().to_string()
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

#[test]
fn creates_a_pack_that_validates_and_expands_back_to_the_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let wf = write_workflow(dir.path());
    let pack = dir.path().join("tiles");
    let pack_dir = pack.to_str().unwrap();
    let out = extract(
        &wf,
        &pack,
        "acme.fetch-notify",
        "Fetch and notify",
        &[
            "--pack-name",
            "vendor.acme.tiles",
            "--description",
            "Fetch a queue and page.",
            "--nodes",
            "notify,fetch",
            "--param",
            "url=fetch:/config/url",
            "--param",
            "url=notify:/config/fallback",
            "--param",
            "timeout=fetch:/config/timeoutMs",
        ],
    );
    let s = summary(&out);
    assert_eq!(s["pack"], pack.join("pack.json").display().to_string());
    assert_eq!((s["packName"].as_str(), s["packCreated"].as_bool()), (Some("vendor.acme.tiles"), Some(true)));
    assert_eq!((s["placement"].as_str(), s["nodes"].as_u64(), s["edges"].as_u64()), (Some("added"), Some(2), Some(1)));
    assert_eq!(s["parameters"], json!(["url", "timeout"]));
    assert_eq!(s["boundaryEdges"], json!([{"edgeId": "e1", "direction": "in", "outside": "start", "inside": "fetch"}]));
    assert_eq!((s["chainVersion"].as_str(), s["packVersion"].as_str()), (Some("1.0.0"), Some("1.0.0")));

    let m = read_json(&pack.join("pack.json"));
    let chain = &m["chains"][0];
    assert_eq!(
        chain["parameters"]["properties"],
        json!({
        "url": {"type": "string", "default": "https://support.example.test/q"},
        "timeout": {"type": "integer", "default": 1500}})
    );
    assert_eq!(
        chain["dag"]["nodes"][0]["config"],
        json!({"method": "GET", "url": "{{params.url}}", "timeoutMs": "{{params.timeout}}"})
    );
    assert_eq!(chain["dag"]["nodes"][1]["position"], json!({"x": 300, "y": 0}));
    assert_eq!(
        chain["dag"]["edges"],
        json!([{"from": "fetch.body", "to": "notify.payload",
        "condition": {"type": "truthy", "left": "output.ok"}, "triggerRule": "any_success"}])
    );
    assert_eq!(run(&["validate", pack_dir]).status.code(), Some(0));

    let expanded = run(&["expand", pack_dir, "--chain", "acme.fetch-notify", "--expansion-id", "x1"]);
    assert!(expanded.status.success(), "{}", String::from_utf8_lossy(&expanded.stderr));
    let e: Value = serde_json::from_slice(&expanded.stdout).unwrap();
    let original = workflow();
    for (got, want) in e["nodes"].as_array().unwrap().iter().zip([&original["nodes"][1], &original["nodes"][2]]) {
        for key in ["typeId", "name", "config", "inputs"] {
            assert_eq!(got[key], want[key], "{key}");
        }
    }
    // Replacing the chain keeps its version, and the changed chain gets a suggested bump.
    let out = extract(&wf, &pack, "acme.fetch-notify", "Fetch only", &["--nodes", "fetch"]);
    let s = summary(&out);
    assert_eq!((s["placement"].as_str(), s["packCreated"].as_bool()), (Some("replaced"), Some(false)));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("version_bump_suggested at /chains/0/version"), "{stderr}");
    assert!(stderr.contains("2.0.0"), "removed parameters are a major change: {stderr}");
    let m = read_json(&pack.join("pack.json"));
    assert_eq!(
        (m["chains"][0]["label"].as_str(), m["chains"][0]["description"].as_str()),
        (Some("Fetch only"), Some("Fetch a queue and page."))
    );
    // Another chainId is added after it.
    let s = summary(&extract(&wf, &pack, "acme.notify", "Notify", &["--nodes", "notify", "--version", "0.3.0"]));
    assert_eq!((s["placement"].as_str(), s["chainVersion"].as_str()), (Some("added"), Some("0.3.0")));
    assert_eq!(read_json(&pack.join("pack.json"))["chains"].as_array().unwrap().len(), 2);
}

#[test]
fn an_inlined_chain_is_extracted_with_its_own_ids() {
    let dir = tempfile::tempdir().unwrap();
    let wf = dir.path().join("wf.json");
    let inline = run(&[
        "inline",
        "--new",
        "Desk",
        "packs/vendor.chainsmith.support-desk",
        "--chain",
        "support.triage",
        "--set",
        "queueName=billing",
        "--expansion-id",
        "k7",
        "-o",
        wf.to_str().unwrap(),
    ]);
    assert!(inline.status.success(), "{}", String::from_utf8_lossy(&inline.stderr));
    let pack = dir.path().join("again");
    let s = summary(&extract(
        wf.to_str().unwrap(),
        &pack,
        "support.triage",
        "Again",
        &["--pack-name", "vendor.acme.again"],
    ));
    assert_eq!(s["boundaryEdges"], json!([]));
    let m = read_json(&pack.join("pack.json"));
    let original =
        read_json(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/packs/vendor.chainsmith.support-desk/pack.json")));
    let ids = |c: &Value| c["dag"]["nodes"].as_array().unwrap().iter().map(|n| n["id"].clone()).collect::<Vec<_>>();
    assert_eq!(ids(&m["chains"][0]), ids(&original["chains"][0]));
    assert_eq!(m["chains"][0]["dag"]["edges"], original["chains"][0]["dag"]["edges"]);
}

/// Run `chain extract` expecting a refusal; the pack folder must be left as it was.
fn refused(dir: &Path, extra: &[&str], pack: &Path) -> Value {
    let wf = write_workflow(dir);
    let before = std::fs::read(pack.join("pack.json")).ok();
    let env = envelope(&extract(&wf, pack, "acme.x", "X", extra));
    assert_eq!(std::fs::read(pack.join("pack.json")).ok(), before, "a refusal writes nothing");
    env
}

#[test]
fn every_bad_input_is_refused_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new");
    let name = ["--pack-name", "vendor.acme.tiles"];
    // Every node but `reader`, whose variable read no selected node produces.
    let with = |more: &[&'static str]| [&name[..], &["--nodes", "start,fetch,notify"], more].concat();

    let e = refused(dir.path(), &[&name[..], &["--nodes", "fetch,ghost"]].concat(), &new);
    assert_eq!((e["error"].as_str(), e["details"]["nodeId"].as_str()), (Some("invalid_request"), Some("ghost")));
    let e = refused(dir.path(), &with(&["--param", "u=ghost:/config/url"]), &new);
    assert_eq!((e["error"].as_str(), e["details"]["nodeId"].as_str()), (Some("invalid_request"), Some("ghost")));
    let e = refused(dir.path(), &[&name[..], &["--nodes", "notify", "--param", "u=fetch:/config/url"]].concat(), &new);
    assert_eq!(e["details"]["nodeId"], "fetch", "a node outside the selection is unknown to the chain");
    let e = refused(dir.path(), &with(&["--param", "u=fetch:/config/nope"]), &new);
    assert_eq!(
        (e["error"].as_str(), e["details"]["pointer"].as_str()),
        (Some("invalid_request"), Some("/config/nope"))
    );
    let e = refused(dir.path(), &with(&["--param", "u=fetch:/name"]), &new);
    assert_eq!(e["details"]["pointer"], "/name", "names are never substituted");
    for bad in ["my-url", "1st", "a b"] {
        let arg = format!("{bad}=fetch:/config/url");
        let e = refused(dir.path(), &[&name[..], &["--nodes", "fetch", "--param", &arg]].concat(), &new);
        assert_eq!((e["error"].as_str(), e["details"]["param"].as_str()), (Some("invalid_request"), Some(bad)));
    }
    let e = refused(dir.path(), &with(&["--param", "u=fetch/config/url"]), &new);
    assert_eq!(e["details"]["param"], "u=fetch/config/url");
    let e =
        refused(dir.path(), &with(&["--param", "u=fetch:/config/url", "--param", "u=fetch:/config/timeoutMs"]), &new);
    assert!(e["message"].as_str().unwrap().contains("must be equal"), "{e}");
    let e = refused(dir.path(), &name, &new);
    assert_eq!(
        (e["error"].as_str(), e["details"]["variableName"].as_str()),
        (Some("variable_undeclared"), Some("plan"))
    );
    let e = refused(dir.path(), &["--nodes", "fetch"], &new);
    assert_eq!(e["error"], "invalid_request", "no pack and no --pack-name");
    let e = refused(dir.path(), &["--nodes", "fetch", "--pack-name", "acme"], &new);
    assert_eq!((e["error"].as_str(), e["details"]["path"].as_str()), (Some("invalid_manifest"), Some("/name")));
    let e = refused(dir.path(), &with(&["--version", "one"]), &new);
    assert_eq!(e["error"], "invalid_manifest");
    let paths: Vec<&str> =
        e["details"]["errors"].as_array().unwrap().iter().filter_map(|f| f["path"].as_str()).collect();
    assert!(paths.contains(&"/version") && paths.contains(&"/chains/0/version"), "{paths:?}");
    assert!(!new.exists(), "no pack folder is created by a refusal");

    // An existing pack: a different name, a chainId it already repeats, another kind.
    let existing = dir.path().join("existing");
    std::fs::create_dir(&existing).unwrap();
    let chain = json!({"chainId": "acme.x", "version": "1.0.0", "label": "X", "description": "d",
        "parameters": {"type": "object"}, "dag": {"nodes": [{"id": "a", "typeId": "core.identity"}]}});
    std::fs::write(
        existing.join("pack.json"),
        json!({"name": "vendor.acme.tiles", "version": "1.0.0",
        "kind": "workflow-chain", "engines": {"openwop": "*"}, "chains": [chain, chain]})
        .to_string(),
    )
    .unwrap();
    let e = refused(dir.path(), &["--nodes", "fetch"], &existing);
    assert_eq!((e["error"].as_str(), e["details"]["chainId"].as_str()), (Some("duplicate_chain_id"), Some("acme.x")));
    let e = refused(dir.path(), &["--nodes", "fetch", "--pack-name", "vendor.acme.other"], &existing);
    assert_eq!(
        (e["error"].as_str(), e["details"]["packName"].as_str()),
        (Some("invalid_request"), Some("vendor.acme.tiles"))
    );
    std::fs::write(existing.join("pack.json"), r#"{"name": "vendor.acme.nodes", "version": "1.0.0", "nodes": []}"#)
        .unwrap();
    assert_eq!(refused(dir.path(), &["--nodes", "fetch"], &existing)["error"], "pack_kind_invalid");

    let out = extract("/no/such/wf.json", &new, "a.b", "L", &["--pack-name", "vendor.acme.tiles"]);
    assert_eq!(envelope(&out)["error"], "invalid_request");
    // A pack folder that cannot be created is an io_error, and nothing is left behind.
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "x").unwrap();
    let e = refused(dir.path(), &["--nodes", "fetch", "--pack-name", "vendor.acme.tiles"], &blocker);
    assert_eq!(e["error"], "io_error");
    assert_eq!(std::fs::read(&blocker).unwrap(), b"x");
    let usage = run(&["chain", "extract", "wf.json", "--pack", "x", "--chain-id", "a.b"]);
    assert_eq!(usage.status.code(), Some(2), "a missing --label is a usage error");
}

/// A pack over the 16 MiB manifest limit (what every command refuses to read) is refused
/// before anything is written: no folder, no file, exit 1 with the limit's code.
#[test]
fn a_pack_over_the_manifest_limit_is_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let limit = chainsmith::pack::MAX_MANIFEST_BYTES as usize;
    // Eighteen 1 MiB strings: a 17 MiB workflow (under its own 64 MiB limit), a larger pack.
    let nodes: Vec<Value> = (0..18)
        .map(|i| json!({"id": format!("n{i}"), "typeId": "core.noop", "config": {"blob": "x".repeat(1 << 20)}}))
        .collect();
    let wf = dir.path().join("big.json");
    std::fs::write(
        &wf,
        serde_json::to_vec(&json!({"id": "w", "name": "w", "version": "1", "nodes": nodes, "edges": []})).unwrap(),
    )
    .unwrap();
    let pack = dir.path().join("big-pack");
    let out = extract(wf.to_str().unwrap(), &pack, "acme.big", "Big", &["--pack-name", "vendor.acme.big"]);
    let env = envelope(&out);
    assert_eq!(env["error"], "pack_manifest_invalid", "{env}");
    assert_eq!(env["details"]["limit"].as_u64(), Some(limit as u64), "{env}");
    assert!(env["details"]["size"].as_u64().unwrap() > limit as u64, "{env}");
    assert!(!pack.exists(), "nothing is created");

    // Into an existing pack: it is left as it was.
    let small = dir.path().join("small");
    summary(&extract(
        &write_workflow(dir.path()),
        &small,
        "acme.small",
        "Small",
        &["--pack-name", "vendor.acme.small", "--nodes", "fetch,notify"],
    ));
    let before = std::fs::read(small.join("pack.json")).unwrap();
    let out = extract(wf.to_str().unwrap(), &small, "acme.big", "Big", &[]);
    assert_eq!(envelope(&out)["error"], "pack_manifest_invalid");
    assert_eq!(std::fs::read(small.join("pack.json")).unwrap(), before);
}

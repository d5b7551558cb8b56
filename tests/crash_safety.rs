//! Crash safety of saves and exports: a failed write leaves the old file byte for byte and
//! says why, and members written by a newer (or older, or hand-editing) tool survive load →
//! splice → save unchanged.

use chainsmith::expand::{ExpandOptions, expand};
use chainsmith::pack::{LoadOptions, load_bytes};
use chainsmith::workflow::{ExportMode, SpliceOptions, Workflow, splice};
mod common;

use common::cli::{envelope, run};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

const SUPPORT: &str = "packs/vendor.chainsmith.support-desk/pack.json";

/// A workflow as a newer tool might write it: unknown members at every level, in an order
/// chainsmith would not choose, with values of every JSON type.
fn from_the_future() -> Value {
    json!({
        "x-generator": {"name": "chainsmith", "version": "9.0.0"},
        "id": "future-flow",
        "name": "Written by a newer tool",
        "version": "3.1.0",
        "schemaRevision": 7,
        "nodes": [
            {"typeId": "core.start", "id": "start", "x-ui": {"collapsed": true, "color": "#ff0"}, "name": "Start",
             "position": {"y": 10, "x": 0, "z": 3}, "config": {}, "inputs": {}, "futureFlags": [1, 2.5, null, false, "s"]},
            {"id": "end", "typeId": "core.end", "name": "End", "position": {"x": 900, "y": 10},
             "config": {"unknownOption": {"deep": [{"k": "v"}]}}, "inputs": {}, "retry": {"max": 3}}
        ],
        "edges": [
            {"id": "e1", "sourceNodeId": "start", "targetNodeId": "end", "x-style": "dashed", "weight": 0.25,
             "sourceOutput": "output", "priority": 18446744073709551615u64},
            {"targetNodeId": "gone", "id": "e2", "sourceNodeId": "start", "note": "points at a deleted node"}
        ],
        "triggers": [{"id": "t", "type": "schedule", "cron": "0 * * * *", "timezone": "Europe/Berlin"}],
        "variables": [{"name": "inbox", "type": "array", "scope": "run", "x-doc": "kept"}],
        "metadata": {"tags": ["a"], "owner": {"team": "ops"}, "customProperties": {"other-tool": {"state": [1, 2]}}},
        "settings": {"maxLoopbackIterations": 4, "x-sandbox": {"memoryMb": 512}, "timeoutMs": -1},
        "trailing": "member after settings"
    })
}

fn support_expansion(wf: &Workflow) -> chainsmith::expand::Expansion {
    let bytes = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(SUPPORT)).unwrap();
    let pack = load_bytes(Path::new(SUPPORT), &bytes, LoadOptions::default()).unwrap();
    let taken = |id: &str| wf.contains_node(id);
    let opts = ExpandOptions { taken_ids: Some(&taken), ..Default::default() };
    let params = json!({"queueName": "future"}).as_object().unwrap().clone();
    expand(&pack, "support.triage", params, &opts).unwrap()
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

#[test]
fn unknown_members_round_trip_through_load_splice_save() {
    let original = from_the_future();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wf.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&original).unwrap()).unwrap();

    let mut wf = Workflow::load(&path).unwrap();
    let exp = support_expansion(&wf);
    splice(&mut wf, &exp, &SpliceOptions::default()).unwrap();
    wf.save(&path, ExportMode::Faithful).unwrap();
    let saved: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();

    assert_eq!(keys(&saved), keys(&original), "top-level members and their order");
    for key in keys(&original) {
        if !["nodes", "edges", "metadata"].contains(&key) {
            assert_eq!(saved[key], original[key], "/{key}");
        }
    }
    // The original nodes and edges come first, unchanged, member order included.
    for list in ["nodes", "edges"] {
        for (i, item) in original[list].as_array().unwrap().iter().enumerate() {
            assert_eq!(&saved[list][i], item, "/{list}/{i}");
            assert_eq!(keys(&saved[list][i]), keys(item), "/{list}/{i} member order");
        }
    }
    assert_eq!(saved["nodes"].as_array().unwrap().len(), 2 + exp.nodes.len());
    // metadata keeps every member; chainsmith only adds its own provenance beside them.
    let meta = &saved["metadata"];
    assert_eq!(meta["tags"], original["metadata"]["tags"]);
    assert_eq!(meta["owner"], original["metadata"]["owner"]);
    assert_eq!(meta["customProperties"]["other-tool"], original["metadata"]["customProperties"]["other-tool"]);
    assert_eq!(meta["customProperties"]["chainsmith"]["instances"].as_array().unwrap().len(), 1);
    assert_eq!(saved["edges"][0]["priority"].as_u64(), Some(u64::MAX), "integers keep every digit");

    // A second load and save changes nothing at all.
    let again = Workflow::load(&path).unwrap();
    again.save(&path, ExportMode::Faithful).unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&std::fs::read(&path).unwrap()).unwrap(), saved);
}

#[test]
fn unknown_members_round_trip_through_cli_inline() {
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.json"), dir.path().join("out.json"));
    let original = from_the_future();
    std::fs::write(&input, original.to_string()).unwrap();
    let out = run(&["inline", input.to_str().unwrap(), SUPPORT, "--chain", "support.triage", "--set", "queueName=qq"]
        .into_iter()
        .chain(["--between", "start", "end", "-o", output.to_str().unwrap()])
        .collect::<Vec<_>>());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let saved: Value = serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap();
    assert_eq!(keys(&saved), keys(&original));
    assert_eq!(saved["nodes"][0], original["nodes"][0]);
    assert_eq!(saved["settings"], original["settings"]);
    assert_eq!(saved["trailing"], original["trailing"]);
    // --between replaced e1 (start → end); the dangling e2 stays exactly as it was.
    let edges = saved["edges"].as_array().unwrap();
    assert!(edges.iter().all(|e| e["id"] != "e1"));
    assert_eq!(edges[0], original["edges"][1]);
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn a_save_blocked_by_a_folder_keeps_everything_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let blocked = dir.path().join("wf.json");
    std::fs::create_dir(&blocked).unwrap();
    std::fs::write(blocked.join("inside"), b"keep me").unwrap();
    let wf = Workflow::from_json(from_the_future()).unwrap();
    let err = wf.save(&blocked, ExportMode::Faithful).unwrap_err();
    assert_eq!(err.code, "io_error");
    assert!(err.message.contains("could not replace") && err.message.contains("wf.json"), "{}", err.message);
    assert_eq!(std::fs::read(blocked.join("inside")).unwrap(), b"keep me");
    assert_eq!(files_in(dir.path()), ["wf.json"], "no temporary file is left behind");

    // A path whose folder is a file: nothing can be created there.
    let file = dir.path().join("plain");
    std::fs::write(&file, b"old").unwrap();
    let err = wf.save(&file.join("wf.json"), ExportMode::Faithful).unwrap_err();
    assert_eq!(err.code, "io_error");
    assert!(err.message.contains("Not a directory"), "{}", err.message);
    assert_eq!(std::fs::read(&file).unwrap(), b"old");
}

/// A write that fails half way (here: the file-size limit, as a full disk would) must leave
/// the previous export intact. RLIMIT_FSIZE holds for root too, unlike a read-only folder.
#[test]
fn a_write_failing_mid_file_leaves_the_previous_export_intact() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("out.json");
    let previous = b"{\"previous\": \"export\"}\n";
    std::fs::write(&out_path, previous).unwrap();
    let script = r#"ulimit -f 1 && trap '' XFSZ && exec "$0" "$@""#;
    // The binary runs under a shell that sets the limit; otherwise as `bin()` runs it.
    let out = Command::new("sh")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("OPENWOP_CONFIG_HOME")
        .args(["-c", script, env!("CARGO_BIN_EXE_chainsmith")])
        .args(["inline", "--new", "Big enough", SUPPORT, "--chain", "support.triage", "--set", "queueName=qq"])
        .args(["-o", out_path.to_str().unwrap()])
        .output()
        .unwrap();
    let env = envelope(&out);
    assert_eq!(env["error"], "io_error");
    let message = env["message"].as_str().unwrap();
    assert!(message.contains("could not write") && message.contains("File too large"), "{message}");
    assert_eq!(std::fs::read(&out_path).unwrap(), previous);
    assert_eq!(files_in(dir.path()), ["out.json"], "the partial temporary file is removed");
}

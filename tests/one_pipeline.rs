//! `chainsmith inline` and the editor's Insert run one pipeline: on the same workflow, pack,
//! values and expansionId they give the same nodes, ids, findings and refusals.

use chainsmith::catalog::{Catalog, Trust};
use chainsmith::editor::document::Document;
use chainsmith::editor::preview::{Placement, fresh_expansion_id, request};
use chainsmith::error::{Error, Severity};
use chainsmith::pack::{LoadOptions, Pack, load_path};
use chainsmith::workflow::{ExportMode, Workflow};
mod common;

use common::cli::{envelope, run};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

const SUPPORT: &str = "packs/vendor.chainsmith.support-desk/pack.json";
const NODES: &str = "packs/vendor.chainsmith.nodes";

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn load_pack(path: &Path) -> Pack {
    load_path(path, LoadOptions::default()).packs.remove(0)
}

fn write(dir: &Path, name: &str, value: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(value).unwrap()).unwrap();
    path.to_str().unwrap().to_owned()
}

/// A workflow with a start and an end node, plus `extra` nodes.
fn workflow(extra: impl Iterator<Item = String>) -> Value {
    let mut nodes = vec![
        json!({"id": "a", "typeId": "core.start", "name": "A", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}}),
        json!({"id": "b", "typeId": "core.end", "name": "B", "position": {"x": 400, "y": 0}, "config": {}, "inputs": {}}),
    ];
    nodes.extend(extra.map(|id| json!({"id": id, "typeId": "core.noop", "name": "x", "config": {}, "inputs": {}})));
    json!({"id": "wf", "name": "wf", "version": "1.0.0", "nodes": nodes,
        "edges": [{"id": "e1", "sourceNodeId": "a", "targetNodeId": "b"}],
        "triggers": [], "variables": [], "metadata": {}, "settings": {}})
}

fn values() -> Map<String, Value> {
    json!({"queueName": "billing"}).as_object().unwrap().clone()
}

/// The command line's insert: `inline WF` the Triage chain for queue billing, `more`, `-o OUT`.
fn cli_insert(wf_path: &str, out_path: &Path, more: &[&str]) -> Output {
    let args = ["inline", wf_path, SUPPORT, "--chain", "support.triage", "--set", "queueName=billing"];
    run(&[&args[..], more, &["-o", out_path.to_str().unwrap()]].concat())
}

/// The editor model's insert: the form's expansionId (minted against the workflow when the
/// form opens, unless one is given), then [`Document::inline`].
fn editor_insert(
    wf: &Value,
    trust: &Trust,
    pack: &Pack,
    chain_id: &str,
    values: Map<String, Value>,
    expansion_id: Option<&str>,
) -> (Document, Result<chainsmith::editor::document::Outcome, Error>) {
    let mut doc = Document::new(Workflow::from_json(wf.clone()).unwrap(), None);
    let chain = pack.chain(chain_id).unwrap();
    let id = expansion_id.map_or_else(|| fresh_expansion_id(chain, doc.workflow()).unwrap(), str::to_owned);
    let placement = Placement::Insert { at: (100.0, 300.0), on_edge: None, after: None };
    let req = request(trust, pack, chain_id, values, &id, &[], &placement);
    let out = doc.inline(req);
    (doc, out)
}

/// Codes of the findings the CLI printed on stderr (one line per code and severity).
fn printed_codes(text: &str) -> Vec<String> {
    let mut codes: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("warning ") || l.starts_with("info ") || l.starts_with("error "))
        .filter_map(|l| l.split_whitespace().nth(1).map(|c| c.trim_end_matches(':').to_owned()))
        .collect();
    codes.sort();
    codes.dedup();
    codes
}

#[test]
fn cli_and_editor_write_the_same_workflow_and_findings() {
    let dir = tempfile::tempdir().unwrap();
    let wf = workflow(std::iter::empty());
    let wf_path = write(dir.path(), "wf.json", &wf);
    let out_path = dir.path().join("out.json");
    let params = write(dir.path(), "params.json", &Value::Object(values()));
    let args = ["inline", &wf_path, SUPPORT, "--chain", "support.triage", "--params", &params];
    let out =
        run(&[&args[..], &["--expansion-id", "c0de", "--at", "100,300", "-o", out_path.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let written: Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();

    let pack = load_pack(&repo(SUPPORT));
    let (doc, outcome) = editor_insert(&wf, &Trust::default(), &pack, "support.triage", values(), Some("c0de"));
    let outcome = outcome.unwrap();
    assert_eq!(doc.workflow().to_json(ExportMode::Faithful), written, "the same workflow, byte for byte in JSON");
    assert_eq!(json!(outcome.new_nodes), summary["nodeIds"]);
    // The CLI adds the export's own lints to the pipeline's findings before printing.
    let mut findings = outcome.warnings.clone();
    findings.extend(doc.workflow().lint(ExportMode::Faithful));
    let mut codes: Vec<String> = findings.iter().map(|f| f.code.to_owned()).collect();
    codes.sort();
    codes.dedup();
    assert!(!codes.is_empty(), "this insert has findings to compare");
    assert_eq!(printed_codes(&stderr(&out)), codes);
    let counted = findings.iter().filter(|f| f.severity != Severity::Info).count();
    assert_eq!(summary["warnings"], counted);
}

/// Every four-digit expansionId of support.triage would give `fetch` an id the workflow
/// already has: both front ends must mint a wider one instead of colliding.
#[test]
fn minted_ids_avoid_every_existing_id_in_cli_and_editor() {
    let dir = tempfile::tempdir().unwrap();
    let taken = (0..0x10000u32).map(|n| format!("support_triage_{n:04x}_fetch"));
    let wf = workflow(taken);
    let wf_path = write(dir.path(), "wf.json", &wf);
    let out_path = dir.path().join("out.json");
    let out = cli_insert(&wf_path, &out_path, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(summary["expansionId"].as_str().unwrap().len() > 4, "{summary}");

    let pack = load_pack(&repo(SUPPORT));
    let (doc, outcome) = editor_insert(&wf, &Trust::default(), &pack, "support.triage", values(), None);
    let new_nodes = outcome.unwrap().new_nodes;
    assert_eq!(new_nodes.len(), 4);
    assert!(new_nodes[0].starts_with("support_triage_") && new_nodes[0].len() > "support_triage_0000_fetch".len());
    assert_eq!(doc.workflow().node_count(), 2 + 0x10000 + 4, "nothing was overwritten");
}

/// A given expansionId whose ids the workflow already has is refused the same way by both.
#[test]
fn a_colliding_given_id_is_refused_alike() {
    let dir = tempfile::tempdir().unwrap();
    let wf = workflow(std::iter::once("support_triage_ab12_fetch".to_owned()));
    let wf_path = write(dir.path(), "wf.json", &wf);
    let out_path = dir.path().join("out.json");
    let out = cli_insert(&wf_path, &out_path, &["--expansion-id", "ab12"]);
    let env = envelope(&out);
    assert!(!out_path.exists());

    let pack = load_pack(&repo(SUPPORT));
    let (doc, outcome) = editor_insert(&wf, &Trust::default(), &pack, "support.triage", values(), Some("ab12"));
    assert_eq!(outcome.unwrap_err().envelope(), env);
    assert_eq!(doc.workflow().to_json(ExportMode::Faithful), wf, "a refusal changes nothing");
    assert!(!doc.can_undo());
}

/// Two nodes with invalid config under `--strict`: both errors are reported at once, with
/// the same envelope from the CLI and the editor.
#[test]
fn several_errors_are_reported_at_once_alike() {
    let dir = tempfile::tempdir().unwrap();
    let bad = |id: &str| json!({"id": id, "typeId": "core.dispatch", "config": {"fanOutPolicy": "parallel"}});
    let chain = json!({"chainId": "acme.c", "version": "1.0.0", "label": "C", "description": "d",
        "parameters": {"type": "object", "properties": {}},
        "dag": {"nodes": [bad("p"), bad("q")], "edges": [{"from": "p", "to": "q"}]}});
    let manifest = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": [chain]});
    let pack_path = write(dir.path(), "pack.json", &manifest);
    let wf = workflow(std::iter::empty());
    let wf_path = write(dir.path(), "wf.json", &wf);
    let out_path = dir.path().join("out.json");
    let out = run(&[
        "inline",
        &wf_path,
        &pack_path,
        "--chain",
        "acme.c",
        "--catalog",
        NODES,
        "--strict",
        "--expansion-id",
        "e1",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    let env = envelope(&out);
    let paths: Vec<&str> =
        env["details"]["errors"].as_array().unwrap().iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["/nodes/0/config/fanOutPolicy", "/nodes/1/config/fanOutPolicy"], "{env}");

    let trust = Trust { catalog: Some(Catalog::load(&[repo(NODES)])), strict: true, ..Default::default() };
    let pack = load_pack(Path::new(&pack_path));
    let (_, outcome) = editor_insert(&wf, &trust, &pack, "acme.c", Map::new(), Some("e1"));
    assert_eq!(outcome.unwrap_err().envelope(), env);
}

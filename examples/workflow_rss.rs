//! Peak memory for a large workflow: writes a synthetic N-node workflow (default 20,000),
//! then loads it, splices a 1,000-node chain in, lints and saves it, printing the peak
//! resident set size (VmHWM) after each stage.
//!
//! `cargo run --release --example workflow_rss [-- NODES]` (Linux: reads /proc/self/status).

use chainsmith::expand::{ExpandOptions, expand};
use chainsmith::pack::{LoadOptions, load_bytes};
use chainsmith::workflow::{ExportMode, SpliceOptions, Workflow, splice};
use serde_json::{Value, json};
use std::path::Path;

fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap_or("VmHWM: 0 kB");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0)
}

fn report(stage: &str) {
    println!("{stage:<32} peak RSS {:>8.1} MiB", peak_kib() as f64 / 1024.0);
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    {
        let nodes: Vec<Value> = (0..n)
            .map(|i| {
                json!({"id": format!("w{i}"), "typeId": "core.ai.callPrompt", "name": format!("Node {i}"),
                    "position": {"x": (i % 100) * 320, "y": (i / 100) * 140},
                    "config": {"systemPrompt": format!("You handle step {i} of the pipeline."), "temperature": 0.2},
                    "inputs": {"in": {"type": "connection", "nodeId": format!("w{}", i.saturating_sub(1)), "port": "output"}}})
            })
            .collect();
        let edges: Vec<Value> = (1..n)
            .map(|i| json!({"id": format!("e{i}"), "sourceNodeId": format!("w{}", i - 1), "targetNodeId": format!("w{i}")}))
            .collect();
        let doc = json!({"id": "big", "name": "Big", "version": "1.0.0", "nodes": nodes, "edges": edges,
            "triggers": [], "variables": [], "metadata": {}, "settings": {}});
        std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len();
    report(&format!("generated {n} nodes ({:.1} MiB)", size as f64 / 1048576.0));

    let mut wf = Workflow::load(&path).unwrap();
    report("loaded");

    let chain_nodes: Vec<Value> = (0..1_000)
        .map(|i| json!({"id": format!("c{i}"), "typeId": "core.identity", "config": {"t": "{{params.t}}"}}))
        .collect();
    let chain_edges: Vec<Value> =
        (1..1_000).map(|i| json!({"from": format!("c{}", i - 1), "to": format!("c{i}")})).collect();
    let manifest = json!({"name": "vendor.rss.pack", "version": "1.0.0", "kind": "workflow-chain", "engines": {"openwop": "*"},
        "chains": [{"chainId": "rss.chain", "version": "1.0.0", "label": "R", "description": "d",
            "parameters": {"type": "object", "properties": {"t": {"type": "string"}}},
            "dag": {"nodes": chain_nodes, "edges": chain_edges}}]});
    let pack = load_bytes(Path::new("rss"), manifest.to_string().as_bytes(), LoadOptions::default()).unwrap();
    let params = json!({"t": "x"}).as_object().unwrap().clone();
    let exp = expand(&pack, "rss.chain", params, &ExpandOptions::default()).unwrap();
    splice(&mut wf, &exp, &SpliceOptions::default()).unwrap();
    report("spliced a 1,000-node chain");

    let findings = wf.lint(ExportMode::Faithful);
    report(&format!("linted ({} findings)", findings.len()));

    wf.save(&path, ExportMode::Faithful).unwrap();
    report("saved");
}

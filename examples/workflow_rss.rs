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

/// Print the stage's peak and start the next stage's count from the current size
/// (writing 5 to clear_refs resets VmHWM).
fn report(stage: &str, started: std::time::Instant) {
    println!(
        "{stage:<34} peak RSS {:>7.1} MiB  {:>7.1} ms",
        peak_kib() as f64 / 1024.0,
        started.elapsed().as_secs_f64() * 1e3
    );
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let started = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    // Written node by node, so generating leaves no big document behind in this process.
    {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        write!(out, r#"{{"id": "big", "name": "Big", "version": "1.0.0", "nodes": ["#).unwrap();
        for i in 0..n {
            let node = json!({"id": format!("w{i}"), "typeId": "core.ai.callPrompt", "name": format!("Node {i}"),
                "position": {"x": (i % 100) * 320, "y": (i / 100) * 140},
                "config": {"systemPrompt": format!("You handle step {i} of the pipeline."), "temperature": 0.2},
                "inputs": {"in": {"type": "connection", "nodeId": format!("w{}", i.saturating_sub(1)), "outputKey": "output"}}});
            write!(out, "{}{node}", if i == 0 { "" } else { ",\n" }).unwrap();
        }
        write!(out, r#"], "edges": ["#).unwrap();
        for i in 1..n {
            let edge =
                json!({"id": format!("e{i}"), "sourceNodeId": format!("w{}", i - 1), "targetNodeId": format!("w{i}")});
            write!(out, "{}{edge}", if i == 1 { "" } else { ",\n" }).unwrap();
        }
        write!(out, r#"], "triggers": [], "variables": [], "metadata": {{}}, "settings": {{}}}}"#).unwrap();
        out.flush().unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len();
    report(&format!("generated {n} nodes ({:.1} MiB)", size as f64 / 1048576.0), started);

    let t = std::time::Instant::now();
    let mut wf = Workflow::load(&path).unwrap();
    report("loaded", t);

    let chain_nodes: Vec<Value> = (0..1_000)
        .map(|i| json!({"id": format!("c{i}"), "typeId": "core.identity", "config": {"t": "{{params.t}}"}}))
        .collect();
    let chain_edges: Vec<Value> =
        (1..1_000).map(|i| json!({"from": format!("c{}", i - 1), "to": format!("c{i}")})).collect();
    let manifest = json!({"name": "vendor.rss.pack", "version": "1.0.0", "kind": "workflow-chain", "engines": {"openwop": "*"},
        "chains": [{"chainId": "rss.chain", "version": "1.0.0", "label": "R", "description": "d",
            "parameters": {"type": "object", "properties": {"t": {"type": "string"}}},
            "dag": {"nodes": chain_nodes, "edges": chain_edges}}]});
    let t = std::time::Instant::now();
    let pack = load_bytes(Path::new("rss"), manifest.to_string().as_bytes(), LoadOptions::default()).unwrap();
    let params = json!({"t": "x"}).as_object().unwrap().clone();
    let exp = expand(&pack, "rss.chain", params, &ExpandOptions::default()).unwrap();
    splice(&mut wf, &exp, &SpliceOptions::default()).unwrap();
    report("expanded and spliced 1,000 nodes", t);

    let t = std::time::Instant::now();
    let findings = wf.lint(ExportMode::Faithful);
    report(&format!("linted ({} findings)", findings.len()), t);

    let t = std::time::Instant::now();
    wf.save(&path, ExportMode::Faithful).unwrap();
    report("saved", t);
}

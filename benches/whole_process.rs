//! `chainsmith expand` against its floor, whole process: the release binary expanding a
//! synthetic 5,000-node chain (about 3.8 MB, heavy configs, 6,000 edges; schema validation
//! and semantic checks included), against a process that only reads the same file, parses
//! it with serde_json (the same features and the same allocator as chainsmith's) and
//! pretty-prints it.
//!
//! `cargo bench --bench whole_process` writes the chain to a temporary folder, runs the two
//! commands in turn (21 pairs after 3 warm-up pairs), output to /dev/null, and prints the
//! median wall time of each and the median of the per-pair ratios.
//! `cargo bench --bench whole_process -- --write FILE` only writes the chain.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The floor allocates as the chainsmith binary does (src/main.rs), so the ratio measures
/// the work, not the allocator: with the system allocator the floor itself is about a
/// third slower.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const PAIRS: usize = 21;
const WARM_UP: usize = 3;
const NODES: usize = 5_000;
const CHAIN: &str = "bench.heavy";

/// The chain: each node with a long prompt, tags, a nested options object and typed
/// inputs (tokens throughout), wired as a line plus a cross edge every fifth node.
fn heavy_pack() -> Value {
    let nodes: Vec<Value> = (0..NODES)
        .map(|i| {
            let type_id = ["core.identity", "core.noop", "core.transform"][i % 3];
            json!({"id": format!("n{i}"), "typeId": type_id,
                "name": format!("Step {i} ({{{{params.topic}}}})"),
                "position": {"x": (i / 25) * 320, "y": (i % 25) * 140},
                "config": {
                    "prompt": format!("You are step {i} of the {{{{params.topic}}}} pipeline. Read the ticket, \
                        classify it into one of {{{{params.count}}}} buckets, and write a two-line summary \
                        for the <<params.topic>> team."),
                    "limit": "{{params.count}}",
                    "tags": ["triage", "<<params.topic>>", format!("step-{i}"), "{{params.tags}}"],
                    "options": {"retry": {"attempts": 3, "backoffMs": 250 + i % 7}, "temperature": 0.2, "stop": ["\n\n", "END"], "flags": {"audit": true}}
                },
                "inputs": {
                    "ticket": {"type": "static", "value": "{{params.topic}}"},
                    "count": {"type": "static", "value": "{{params.count}}"},
                    "context": {"type": "variable", "variableName": "shared"}
                }})
        })
        .collect();
    let mut edges: Vec<Value> = (1..NODES)
        .map(|i| json!({"from": format!("n{}.out", i - 1), "to": format!("n{i}.in"), "triggerRule": "all_success"}))
        .collect();
    edges.extend((0..NODES - 7).step_by(4).take(6_000 - (NODES - 1)).map(|i| {
        json!({"from": format!("n{i}.alt"), "to": format!("n{}.in", i + 7),
            "condition": {"type": "truthy", "left": "output.escalate"}})
    }));
    json!({"name": "vendor.bench.heavy", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": "*"}, "chains": [{"chainId": CHAIN, "version": "1.0.0", "label": "Heavy",
        "description": "synthetic whole-process benchmark",
        "parameters": {"type": "object", "required": ["topic"], "properties": {
            "topic": {"type": "string", "minLength": 1}, "count": {"type": "integer", "minimum": 1, "default": 12},
            "tags": {"type": "array", "items": {"type": "string"}, "default": ["a", "b"]}}},
        "producedVariables": [{"name": "shared", "producedBy": "n0", "type": "object"}],
        "capabilities": ["cacheable"], "dag": {"nodes": nodes, "edges": edges}}]})
}

/// The floor: read, parse and pretty-print `file` to stdout, nothing else.
fn floor(file: &Path) {
    use std::io::Write;
    let bytes = std::fs::read(file).expect("read the pack");
    let value: Value = serde_json::from_slice(&bytes).expect("parse the pack");
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, &value).expect("write");
    out.flush().expect("flush");
}

fn time(cmd: &mut Command) -> Duration {
    let started = Instant::now();
    let status = cmd.stdout(Stdio::null()).status().expect("run");
    let took = started.elapsed();
    assert!(status.success(), "{cmd:?} failed");
    took
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--floor") {
        return floor(Path::new(&args[i + 1]));
    }
    let bytes = serde_json::to_vec(&heavy_pack()).expect("serialise");
    if let Some(i) = args.iter().position(|a| a == "--write") {
        return std::fs::write(&args[i + 1], &bytes).expect("write the pack");
    }
    let dir = std::env::temp_dir().join(format!("chainsmith-whole-process-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let pack: PathBuf = dir.join("pack.json");
    std::fs::write(&pack, &bytes).expect("write the pack");
    let me = std::env::current_exe().expect("own path");
    let expand = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_chainsmith"));
        c.arg("expand").arg(&pack).args(["--chain", CHAIN, "--set", "topic=billing", "--expansion-id", "b3nc"]);
        c
    };
    let floor = || {
        let mut c = Command::new(&me);
        c.arg("--floor").arg(&pack);
        c
    };
    for _ in 0..WARM_UP {
        time(&mut expand());
        time(&mut floor());
    }
    let (mut e, mut f, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..PAIRS {
        let te = time(&mut expand()).as_secs_f64() * 1000.0;
        let tf = time(&mut floor()).as_secs_f64() * 1000.0;
        ratios.push(te / tf);
        e.push(te);
        f.push(tf);
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "whole process, {NODES}-node chain ({:.1} MB, {PAIRS} pairs): chainsmith expand {:.1} ms, \
         serde_json floor {:.1} ms, ratio {:.2}x (median of pair ratios)",
        bytes.len() as f64 / 1e6,
        median(e),
        median(f),
        median(ratios)
    );
}

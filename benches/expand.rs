//! Expansion speed against its floor: serde_json parsing and serialising the same bytes.
//!
//! `expand/*` measures what `chainsmith expand` does in process: load the pack bytes
//! (parse, schema validation, semantic checks, lints), expand one chain and serialise the
//! result; `floor/*` measures serde_json `from_slice` + `to_vec` of exactly those bytes.
//! Whole-process figures (the ones docs/performance.md quotes) come from `benches/whole_process.rs`.

use chainsmith::catalog::HostProfile;
use chainsmith::expand::{ExpandOptions, expand};
use chainsmith::pack::{LoadOptions, Pack, load_bytes};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use std::hint::black_box;
use std::path::{Path, PathBuf};

/// A chain of `n` nodes: a layered DAG where each node has tokens in config and inputs.
fn synthetic_pack(n: usize) -> Vec<u8> {
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("n{i}"), "typeId": "core.identity", "name": format!("Step {i}"),
                "position": {"x": (i / 20) * 300, "y": (i % 20) * 120},
                "config": {"prompt": "Handle {{params.topic}} item {{params.count}} of batch", "limit": "{{params.count}}",
                           "tags": ["a", "b", "<<params.topic>>"], "nested": {"deep": {"flag": true, "n": 1.5}}},
                "inputs": {"in": {"type": "static", "value": "{{params.topic}}"}}})
        })
        .collect();
    let edges: Vec<Value> = (1..n)
        .map(|i| json!({"from": format!("n{}.out", (i - 1) / 2), "to": format!("n{i}.in"), "triggerRule": "all_success"}))
        .collect();
    let pack = json!({"name": "vendor.bench.big", "version": "1.0.0", "kind": "workflow-chain", "engines": {"openwop": "*"},
        "chains": [{"chainId": "bench.big", "version": "1.0.0", "label": "Big", "description": "synthetic",
            "parameters": {"type": "object", "properties": {"topic": {"type": "string"}, "count": {"type": "integer"}}},
            "capabilities": ["cacheable"], "dag": {"nodes": nodes, "edges": edges}}]});
    serde_json::to_vec(&pack).unwrap()
}

/// The real chain with the most nodes in the shared corpus, if the corpus is present.
fn largest_real_chain() -> Option<(Vec<u8>, String, Map<String, Value>)> {
    let dir = std::env::var_os("CHAINSMITH_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"))
        .join("corpus/vectors");
    let mut best: Option<(usize, PathBuf, String, Map<String, Value>)> = None;
    for entry in std::fs::read_dir(&dir).ok()?.flatten() {
        // Only the registry vectors sit directly here; `examples/` is a folder.
        let Ok(bytes) = std::fs::read(entry.path()) else { continue };
        let v: Value = serde_json::from_slice(&bytes).ok()?;
        let count = v["expected"]["nodes"].as_array().map_or(0, Vec::len);
        if best.as_ref().is_none_or(|b| count > b.0) {
            let pack = dir.parent()?.join(v["pack"].as_str()?);
            best = Some((count, pack, v["chainId"].as_str()?.to_owned(), v["params"].as_object()?.clone()));
        }
    }
    let (_, pack, chain, params) = best?;
    Some((std::fs::read(pack).ok()?, chain, params))
}

fn load(bytes: &[u8]) -> Pack {
    load_bytes(Path::new("bench"), bytes, LoadOptions::default()).unwrap()
}

fn bench_pair(c: &mut Criterion, name: &str, bytes: &[u8], chain: &str, params: &Map<String, Value>) {
    let opts = ExpandOptions {
        expansion_id: Some("b3nc".into()),
        host: HostProfile::permissive(),
        params_as_given: true,
        ..Default::default()
    };
    c.bench_function(&format!("expand/{name}"), |b| {
        b.iter(|| {
            let pack = load(black_box(bytes));
            let exp = expand(&pack, chain, params.clone(), &opts).unwrap();
            black_box(serde_json::to_vec(&exp).unwrap())
        })
    });
    c.bench_function(&format!("floor/{name}"), |b| {
        b.iter(|| {
            let v: Value = serde_json::from_slice(black_box(bytes)).unwrap();
            black_box(serde_json::to_vec(&v).unwrap())
        })
    });
}

fn benches(c: &mut Criterion) {
    let params = json!({"topic": "billing", "count": 40}).as_object().unwrap().clone();
    bench_pair(c, "synthetic-5000", &synthetic_pack(5000), "bench.big", &params);
    match largest_real_chain() {
        Some((bytes, chain, params)) => bench_pair(c, "largest-real", &bytes, &chain, &params),
        None => eprintln!("NOTICE: shared corpus absent; the largest-real-chain benchmark is skipped"),
    }
    let big = synthetic_pack(5000);
    c.bench_function("load+validate/synthetic-5000", |b| b.iter(|| black_box(load(&big))));
}

criterion_group! {
    name = expansion;
    config = Criterion::default().sample_size(30);
    targets = benches
}
criterion_main!(expansion);

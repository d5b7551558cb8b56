//! Speed at scale (issue 6 targets in brackets):
//! - `corpus/load+validate-all` — every corpus pack loaded and validated in one process,
//!   embedded schemas already compiled [≤ 300 ms];
//! - `splice/1000-into-10000` — splicing an expanded 1,000-node chain into a 10,000-node
//!   workflow, right of the existing nodes and dropped onto them [≤ 50 ms];
//! - `params/keystroke-largest-real-schema` — revalidating the largest real `parameters`
//!   schema after one edit, validator cached [≤ 1 ms].
//!
//! The corpus benchmarks need `../shared/corpus` (or `$CHAINSMITH_SHARED`) and are skipped
//! with a notice without it.

use chainsmith::catalog::HostProfile;
use chainsmith::expand::{ExpandOptions, Expansion, expand};
use chainsmith::pack::{LoadOptions, Pack, load_bytes, load_path};
use chainsmith::params::{FieldKind, Form, check};
use chainsmith::workflow::{SpliceOptions, Workflow, splice};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use std::hint::black_box;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("CHAINSMITH_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"))
        .join("corpus");
    if dir.join("registry/packs").is_dir() {
        Some(dir)
    } else {
        eprintln!("NOTICE: shared corpus absent at {}; corpus benchmarks are skipped", dir.display());
        None
    }
}

/// A chain of `n` nodes without positions (so splicing lays it out), a binary-tree DAG.
fn chain_pack(n: usize) -> Pack {
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("n{i}"), "typeId": "core.identity", "name": format!("Step {i}"),
                "config": {"prompt": "Handle {{params.topic}} item {{params.count}}", "limit": "{{params.count}}"},
                "inputs": {"in": {"type": "static", "value": "{{params.topic}}"}}})
        })
        .collect();
    let edges: Vec<Value> =
        (1..n).map(|i| json!({"from": format!("n{}.out", (i - 1) / 2), "to": format!("n{i}.in")})).collect();
    let manifest = json!({"name": "vendor.bench.scale", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": "*"}, "chains": [{"chainId": "bench.scale", "version": "1.0.0", "label": "Scale",
        "description": "synthetic", "parameters": {"type": "object", "properties": {
            "topic": {"type": "string"}, "count": {"type": "integer"}}},
        "dag": {"nodes": nodes, "edges": edges}}]});
    load_bytes(Path::new("bench"), manifest.to_string().as_bytes(), LoadOptions::default()).unwrap()
}

/// A workflow of `n` nodes on a grid, each wired to the next.
fn workflow(n: usize) -> Workflow {
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("w{i}"), "typeId": "core.identity", "name": format!("Node {i}"),
                "position": {"x": (i % 100) * 320, "y": (i / 100) * 140},
                "config": {"note": format!("existing node {i}")}, "inputs": {}})
        })
        .collect();
    let edges: Vec<Value> = (1..n)
        .map(|i| json!({"id": format!("e{i}"), "sourceNodeId": format!("w{}", i - 1), "targetNodeId": format!("w{i}")}))
        .collect();
    Workflow::from_json(json!({"id": "big", "name": "Big", "version": "1.0.0", "nodes": nodes, "edges": edges,
        "triggers": [], "variables": [], "metadata": {}, "settings": {}}))
    .unwrap()
}

fn expansion(pack: &Pack) -> Expansion {
    let opts =
        ExpandOptions { expansion_id: Some("5ca1".into()), host: HostProfile::permissive(), ..Default::default() };
    let params = json!({"topic": "billing", "count": 40}).as_object().unwrap().clone();
    expand(pack, "bench.scale", params, &opts).unwrap()
}

fn bench_splice(c: &mut Criterion) {
    let pack = chain_pack(1_000);
    let exp = expansion(&pack);
    let parent = workflow(10_000);
    let mut group = c.benchmark_group("splice");
    group.sample_size(20);
    for (name, at) in [("1000-into-10000", None), ("1000-into-10000-dropped-on-nodes", Some((3_000.0, 2_000.0)))] {
        let opts = SpliceOptions { at, ..Default::default() };
        group.bench_function(name, |b| {
            b.iter_batched(
                || parent.clone(),
                |mut wf| {
                    splice(&mut wf, &exp, &opts).unwrap();
                    wf
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.bench_function("expand+splice/1000-into-10000", |b| {
        b.iter_batched(
            || parent.clone(),
            |mut wf| {
                splice(&mut wf, &expansion(&pack), &SpliceOptions::default()).unwrap();
                wf
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn bench_corpus(c: &mut Criterion) {
    let Some(corpus) = corpus() else { return };
    let packs = corpus.join("registry/packs");
    let first = load_path(&packs, LoadOptions::default());
    assert_eq!(first.packs.len() + first.failures.len(), 140, "the corpus holds 140 packs");
    let mut group = c.benchmark_group("corpus");
    group.sample_size(20);
    group.bench_function("load+validate-all", |b| b.iter(|| black_box(load_path(&packs, LoadOptions::default()))));
    group.finish();

    // The chain with the largest `parameters` schema, its validator compiled once.
    let (pack, chain_id) = first
        .packs
        .iter()
        .flat_map(|p| p.chains.iter().map(move |c| (p, c)))
        .max_by_key(|(_, c)| c.parameters().to_string().len())
        .map(|(p, c)| (p.clone(), c.chain_id().to_owned()))
        .unwrap();
    let chain = pack.chain(&chain_id).unwrap();
    let form = Form::from_schema(chain.parameters());
    let mut values: Map<String, Value> = form.initial_values();
    for f in form.fields.iter().filter(|f| f.required) {
        values.entry(f.name.clone()).or_insert_with(|| json!("x"));
    }
    let typed =
        form.fields.iter().find(|f| matches!(f.kind, FieldKind::Text | FieldKind::MultilineText)).unwrap().name.clone();
    let mut values = Value::Object(values);
    assert!(check(chain, &values).unwrap().is_empty(), "the starting values are valid");
    let mut keystrokes = 0usize;
    c.bench_function("params/keystroke-largest-real-schema", |b| {
        b.iter(|| {
            keystrokes += 1;
            values[&typed] = Value::String("k".repeat(keystrokes % 64 + 1));
            black_box(check(chain, &values).unwrap())
        })
    });
    eprintln!("largest real parameters schema: {chain_id} ({} bytes)", chain.parameters().to_string().len());
}

criterion_group!(scale, bench_corpus, bench_splice);
criterion_main!(scale);

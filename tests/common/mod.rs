//! Shared helpers for integration tests: where the shared corpus lives.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::PathBuf;

pub mod big_chain;
#[cfg(unix)]
pub mod capped;
pub mod cli;
pub mod counting;
pub mod http;
pub mod registry;
pub mod support_desk;

/// `../shared` beside the checkout (or `$CHAINSMITH_SHARED`). Tests that read it carry
/// `#[needs(corpus)]` (tests/env probes for it), so they only
/// run when it is there, or when asked to with `--ignored`, which then fails here.
pub fn shared_dir() -> PathBuf {
    let dir = std::env::var_os("CHAINSMITH_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    assert!(dir.join("corpus/vectors").is_dir(), "the shared corpus is not at {}", dir.display());
    dir
}

pub fn corpus_dir() -> PathBuf {
    shared_dir().join("corpus")
}

/// A count over the corpus made by `scripts/corpus-counts.py` (not by chainsmith), from the
/// committed `tests/fixtures/corpus-counts.json`; `.ci/run` checks it is current.
pub fn corpus_count(name: &str) -> usize {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus-counts.json");
    let counts: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    counts[name].as_u64().unwrap_or_else(|| panic!("corpus-counts.json has no {name}")) as usize
}

/// Every file with the given extension under `dir`, sorted.
pub fn files_under(dir: &std::path::Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// JSON equality as the corpus README defines it: numbers by value, member order ignored.
pub fn json_eq(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

//! Shared helpers for integration tests: where the shared corpus lives.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::PathBuf;

#[cfg(unix)]
pub mod capped;

/// `../shared` beside the checkout (or `$CHAINSMITH_SHARED`). `None`, with a notice, when it
/// is absent; under `CHAINSMITH_REQUIRE_CORPUS=1` absence fails the test instead.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("CHAINSMITH_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    if dir.join("corpus/vectors").is_dir() {
        return Some(dir);
    }
    if std::env::var("CHAINSMITH_REQUIRE_CORPUS").as_deref() == Ok("1") {
        panic!("the shared corpus is required (CHAINSMITH_REQUIRE_CORPUS=1) but {} is absent", dir.display());
    }
    eprintln!(
        "NOTICE: shared corpus not found at {}; corpus-based checks are skipped (set CHAINSMITH_SHARED)",
        dir.display()
    );
    None
}

pub fn corpus_dir() -> Option<PathBuf> {
    shared_dir().map(|d| d.join("corpus"))
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

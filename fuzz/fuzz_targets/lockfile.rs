#![no_main]
//! Arbitrary bytes as a `pack-lock.json`: reading and validating answer without a panic, and
//! resolving what was read against the bundled packs as a registry folder gives findings,
//! never a crash. Lockfile paths (registry, fallbacks) may point anywhere; only local
//! folders are read, and the bundled packs are the primary registry.

use chainsmith::catalog::{Lockfile, ResolveOptions, resolve};
use chainsmith::pack::bundled_dir;
use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

static REGISTRY: LazyLock<Vec<PathBuf>> = LazyLock::new(|| vec![bundled_dir()]);

fuzz_target!(|data: &[u8]| {
    // A lockfile beside nothing: relative registry paths resolve under a folder that does
    // not exist, so fuzz input never walks the file system from the working directory.
    let source = Path::new("/nonexistent/chainsmith-fuzz/pack-lock.json");
    let Ok(lock) = Lockfile::from_bytes(source, data) else { return };
    let _ = lock.packs();
    let _ = lock.overrides();
    let opts = ResolveOptions { registries: REGISTRY.as_slice(), ..Default::default() };
    let resolution = resolve(&lock, &opts);
    let text = resolution.to_json_string();
    assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok(), "the resolution prints as JSON");
});

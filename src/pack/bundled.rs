//! The sample packs shipped in `packs/`, so a first start has tiles to drag.
//!
//! From a checkout the folder itself is loaded (node-pack schema files included);
//! a binary moved elsewhere falls back to the manifests embedded at build time.

use super::{LoadOptions, LoadOutcome, load_bytes, load_path};
use std::path::{Path, PathBuf};

const EMBEDDED: [(&str, &str); 4] = [
    ("vendor.chainsmith.support-desk", include_str!("../../packs/vendor.chainsmith.support-desk/pack.json")),
    ("vendor.chainsmith.data-ops", include_str!("../../packs/vendor.chainsmith.data-ops/pack.json")),
    ("vendor.chainsmith.travel-booking", include_str!("../../packs/vendor.chainsmith.travel-booking/pack.json")),
    ("vendor.chainsmith.nodes", include_str!("../../packs/vendor.chainsmith.nodes/pack.json")),
];

/// The folder the bundled packs were built from.
pub fn bundled_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("packs")
}

/// Load the bundled packs.
pub fn bundled() -> LoadOutcome {
    let dir = bundled_dir();
    if dir.is_dir() {
        return load_path(&dir, LoadOptions::default());
    }
    let mut out = LoadOutcome::default();
    for (name, text) in EMBEDDED {
        let label = Path::new("<bundled>").join(name).join("pack.json");
        match load_bytes(&label, text.as_bytes(), LoadOptions::default()) {
            Ok(p) => out.packs.push(p),
            Err(e) => out.failures.push(e),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::PackKind;

    #[test]
    fn bundled_packs_are_valid_and_cover_both_kinds() {
        let out = bundled();
        assert!(out.failures.is_empty(), "{:?}", out.failures);
        for p in &out.packs {
            assert!(p.is_valid(), "{}: {:?}", p.name(), p.errors().collect::<Vec<_>>());
        }
        assert_eq!(out.packs.iter().filter(|p| p.kind == PackKind::WorkflowChain).count(), 3);
        assert_eq!(out.packs.iter().filter(|p| p.kind == PackKind::Node).count(), 1);
    }
}

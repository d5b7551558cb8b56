//! The packs the editor has loaded, the trust policy over them and what it says of each:
//! the catalog of their node types (with the host's own, from Settings), the palette's
//! verdicts, and the copy of the catalog the lint worker reads.

use super::blockers::pack_reports;
use super::packs::Packs;
use crate::catalog::{Catalog, Trust, TrustReport};
use crate::error::Error;
use crate::pack::LoadOutcome;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct Library {
    pub packs: Packs,
    /// Manifests of the packs the editor started with (the palette groups them apart).
    pub samples: HashSet<PathBuf>,
    pub failures: Vec<Error>,
    /// The node-pack catalog of the loaded node packs, with the host profile and trust policy
    /// from the Settings window: what `chainsmith inline` uses with `--catalog` pointing at the
    /// same node packs and the same `--host` and trust flags.
    pub trust: Trust,
    /// Per pack: signature status and what blocks or warns (palette badges).
    pub reports: Vec<TrustReport>,
    /// Counts catalog rebuilds, so views cached against the catalog know when to redo.
    pub catalog_gen: u64,
    /// The catalog again, shared with the lint worker (copied when the catalog changes).
    pub lint_catalog: Option<Arc<Catalog>>,
}

impl Library {
    /// The packs the editor starts with; `trust` is the default policy until
    /// [`Library::refresh`] carries the settings' in.
    pub fn new(start: LoadOutcome) -> Self {
        Self {
            samples: start.packs.iter().map(|p| p.source.clone()).collect(),
            packs: Packs::new(start.packs),
            failures: start.failures,
            trust: Trust::default(),
            reports: Vec::new(),
            catalog_gen: 0,
            lint_catalog: None,
        }
    }

    /// Rebuild the catalog from the loaded node packs and the host's node-type catalog file
    /// (Settings), and re-check every pack against it.
    pub fn refresh(&mut self, node_catalog: Option<&Path>) {
        let mut catalog = Catalog::new();
        for p in self.packs.iter() {
            catalog.add_pack(p);
        }
        // A catalog file that went away is reported by the Settings window, not here.
        if let Some(file) = node_catalog {
            let _ = catalog.add_node_catalog(file);
        }
        self.trust.catalog = (!catalog.is_empty()).then_some(catalog);
        self.reports = pack_reports(&self.trust, &self.packs);
        self.lint_catalog = self.trust.catalog.clone().map(Arc::new);
        self.catalog_gen += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled_library() -> Library {
        Library::new(crate::pack::bundled())
    }

    #[test]
    fn the_start_packs_are_the_samples() {
        let lib = bundled_library();
        assert!(!lib.packs.is_empty());
        assert_eq!(lib.samples.len(), lib.packs.len());
        assert!(lib.packs.iter().all(|p| lib.samples.contains(&p.source)));
    }

    #[test]
    fn each_refresh_reports_every_pack_and_counts_a_new_catalog() {
        let mut lib = bundled_library();
        assert!(lib.reports.is_empty(), "nothing is checked before the first refresh");
        lib.refresh(None);
        assert_eq!(lib.reports.len(), lib.packs.len());
        assert_eq!(lib.catalog_gen, 1);
        lib.refresh(None);
        assert_eq!(lib.catalog_gen, 2);
        assert_eq!(lib.lint_catalog.is_some(), lib.trust.catalog.is_some());
    }
}

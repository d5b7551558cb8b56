//! What the target host and the known node packs provide, and whether a pack can be
//! trusted: the host profile that gates capability-dependent chains; the node-type
//! [`Catalog`] (typeId resolution, config/port schemas); dependency checks; lockfile
//! resolution against local registries; Ed25519 signature verification; and the [`Trust`]
//! policy that gathers all of it for one chain before expansion.

mod builtin;
mod deps;
mod lockfile;
mod node_types;
mod port_types;
mod signature;
mod trust;

pub use crate::host::{HostProfile, TypeResolver, capabilities_form, is_core};
pub use crate::range::Range;
pub use builtin::bundled_config_findings;
pub use deps::check_dependencies;
pub use lockfile::{LockedPack, Lockfile, Requirement, Resolution, ResolveOptions, ResolvedPack, resolve};
pub use node_types::{Catalog, CatalogPack, ChainResolution, NodeType, Ports};
pub use port_types::{JsonType, PortType, incompatibility, port_type};
pub use signature::{SignatureReport, SignatureStatus, TrustedKeys, verify_manifest, verify_pack};
pub use trust::{Trust, TrustReport};

use crate::error::{Error, Finding, Severity, code};
use std::path::{Component, Path, PathBuf};

/// The config schema chainsmith bundles for a reserved Core typeId (pinned or bare), if any.
pub fn builtin_config_schema(type_id: &str) -> Option<&'static serde_json::Value> {
    builtin::config_schema(crate::pack::v2::split_pin(type_id).0).map(crate::schemas::Schema::document)
}

/// `pack_kind_invalid` (an error) for a pack that holds node types under a kind that is not
/// `node` (`"nodes"`): its types are not catalogued.
fn mistyped_node_pack(pack: &crate::pack::Pack) -> Option<Finding> {
    let crate::pack::PackKind::Other(kind) = &pack.kind else { return None };
    pack.manifest.get("nodes").is_some_and(serde_json::Value::is_array).then(|| {
        Finding::error(
            code::PACK_KIND_INVALID,
            "/kind",
            format!(
                "{}: kind \"{kind}\" is not a pack kind; a node pack's kind is \"node\" (or absent), so its {} \
                 not catalogued",
                pack.source.display(),
                crate::words::count(pack.node_types().len(), "node type is", "node types are")
            ),
        )
        .with("kind", kind.as_str())
        .with("file", pack.source.display().to_string())
        .with("packName", pack.name())
    })
}

/// Resolve a manifest-relative reference inside the pack folder. Absolute paths, `..`
/// and symlinks that lead out of the folder are refused: a pack may only point at its
/// own files.
pub(crate) fn path_inside(dir: &Path, reference: &str) -> Result<PathBuf, String> {
    let rel = Path::new(reference);
    if reference.is_empty() {
        return Err("the reference is empty".into());
    }
    if rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(format!("\"{reference}\" leaves the pack folder (absolute path or `..`)"));
    }
    let joined = dir.join(rel);
    // A file that does not exist cannot escape; the caller reports it as missing.
    if let (Ok(real_dir), Ok(real)) = (dir.canonicalize(), joined.canonicalize())
        && !real.starts_with(&real_dir)
    {
        return Err(format!("\"{reference}\" is a link that leads out of the pack folder"));
    }
    Ok(joined)
}

/// Read a regular file of at most `limit` bytes (no folders, FIFOs or devices).
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    crate::fsio::read_limited(path, limit, code::INVALID_REQUEST).map_err(|e| e.message)
}

/// A refusal reported as a finding. `details.path` stays in the details: it may be a file
/// path or a JSON pointer, and only the caller knows which document the finding is about.
pub(crate) fn finding_from(err: Error, pointer: &str, severity: Severity) -> Finding {
    let mut f = Finding::error(err.code, pointer, err.message.clone());
    f.severity = severity;
    f.details = err.details;
    if let Some(chain) = f.details.get("chainId").and_then(|c| c.as_str()) {
        f.chain_id = Some(chain.to_owned());
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_stay_inside_the_pack_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("keys")).unwrap();
        std::fs::write(dir.path().join("keys/k.pem"), "x").unwrap();
        assert_eq!(path_inside(dir.path(), "keys/k.pem").unwrap(), dir.path().join("keys/k.pem"));
        assert_eq!(path_inside(dir.path(), "./missing").unwrap(), dir.path().join("./missing"));
        for bad in ["../x", "keys/../../x", "/etc/passwd", ""] {
            assert!(path_inside(dir.path(), bad).is_err(), "{bad}");
        }
        #[cfg(unix)]
        {
            let outside = tempfile::tempdir().unwrap();
            std::fs::write(outside.path().join("secret"), "s").unwrap();
            std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link")).unwrap();
            assert!(path_inside(dir.path(), "link").unwrap_err().contains("link"));
        }
    }

    #[test]
    fn bounded_reads_refuse_large_files_and_folders() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, [0u8; 10]).unwrap();
        assert_eq!(read_bounded(&f, 10).unwrap().len(), 10);
        assert!(read_bounded(&f, 9).unwrap_err().contains("limit"));
        assert!(read_bounded(dir.path(), 9).is_err());
        assert!(read_bounded(&dir.path().join("none"), 9).is_err());
    }
}

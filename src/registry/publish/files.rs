//! What a registry tarball carries: the pack folder's files its kind may ship (interop
//! §2.3), `pack.json` as published and its signature.

use crate::error::Result;
use crate::error::{Error, code};
use crate::pack::{MAX_MANIFEST_BYTES, Pack, PackKind};
use crate::registry::sign::SIGNATURE_FILE;
use std::collections::BTreeMap;
use std::path::Path;

/// Which files a registry tarball carries (interop §2.3).
fn allowed(kind: &PackKind, path: &str) -> bool {
    let chain_only = ["LICENSE", "README.md", SIGNATURE_FILE, "pack.json"];
    if *kind == PackKind::WorkflowChain {
        return chain_only.contains(&path);
    }
    let under = |dir: &str, exts: &[&str]| {
        path.strip_prefix(dir).is_some_and(|rest| !rest.contains('/') && exts.iter().any(|e| rest.ends_with(e)))
    };
    chain_only.contains(&path)
        || path == "index.mjs"
        || under("schemas/", &[".json"])
        || under("keys/", &[".pem", ".sig"])
        || under("prompts/", &[".md", ".txt"])
}

/// Files of the pack folder, two levels deep, as relative `/` paths (sorted).
fn list_files(dir: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let read = |d: &Path| -> Result<Vec<std::fs::DirEntry>> {
        let mut v: Vec<_> = std::fs::read_dir(d).map_err(|e| Error::io(d, &e))?.flatten().collect();
        v.sort_by_key(|e| e.file_name());
        Ok(v)
    };
    for entry in read(dir)? {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_file() {
            out.push(name);
        } else if ft.is_dir() && !name.starts_with('.') {
            for inner in read(&entry.path())? {
                if inner.file_type().is_ok_and(|t| t.is_file()) {
                    out.push(format!("{name}/{}", inner.file_name().to_string_lossy()));
                } else {
                    out.push(format!("{name}/{}/", inner.file_name().to_string_lossy()));
                }
            }
        } else {
            out.push(format!("{name}/"));
        }
    }
    Ok(out)
}

/// A tarball's contents: file bytes by path.
pub(super) type Files = BTreeMap<String, Vec<u8>>;

/// The tarball's files by path: the pack folder's files its kind may ship, `pack.json` as
/// published and its signature; and the paths left out.
pub(super) fn tarball_files(
    pack_dir: &Path,
    pack: &Pack,
    bytes: Vec<u8>,
    signature: Option<&[u8]>,
) -> Result<(Files, Vec<String>)> {
    let mut files = Files::new();
    let mut skipped = Vec::new();
    for rel in list_files(pack_dir)? {
        if rel == "pack.json" || rel == SIGNATURE_FILE {
            continue;
        }
        if rel.ends_with('/') || !allowed(&pack.kind, &rel) {
            skipped.push(rel);
            continue;
        }
        let data = crate::fsio::read_limited(&pack_dir.join(&rel), MAX_MANIFEST_BYTES, code::INVALID_REQUEST)?;
        files.insert(rel, data);
    }
    files.insert("pack.json".into(), bytes);
    if let Some(sig) = signature {
        files.insert(SIGNATURE_FILE.into(), sig.to_vec());
    }
    Ok((files, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tarball_allow_list() {
        let chain = PackKind::WorkflowChain;
        assert!(allowed(&chain, "README.md") && allowed(&chain, "keys/pack.json.sig"));
        assert!(!allowed(&chain, "index.mjs") && !allowed(&chain, "keys/pack.pub.pem"));
        let node = PackKind::Node;
        assert!(
            allowed(&node, "schemas/a.config.json") && allowed(&node, "prompts/p.md") && allowed(&node, "keys/k.pem")
        );
        assert!(!allowed(&node, "schemas/x/y.json") && !allowed(&node, "notes.txt"));
    }
}

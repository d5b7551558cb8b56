//! A registry version used as a pack: verified as `chainsmith verify` verifies it (integrity
//! before signature, keys from the registry's own keychain), then the `pack.json` inside
//! that verified tarball loaded, never another copy. The same for a folder and a URL; the
//! pack's `source` is where the tarball was read (a file or a URL), for messages.

use super::install::resolve_version;
use super::layout::Registry;
use super::verify::{Verified, verify};
use crate::error::{Error, Result, code};
use crate::pack::{LoadOptions, Pack, PackKind, load_bytes};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Where `name@version`'s tarball is read from: its file, or its URL.
pub fn tarball_location(registry: &Registry, name: &str, version: &str) -> Result<String> {
    Ok(registry.locate(&registry.fill(&registry.endpoints.version_tarball, name, version)?))
}

/// `name@version` verified, and the pack its tarball holds.
pub fn open_version(registry: &Registry, name: &str, version: &str) -> Result<(Verified, Pack)> {
    let verified = verify(registry, name, version)?;
    let at = tarball_location(registry, name, version)?;
    let manifest = verified.archive.manifest().ok_or_else(|| {
        Error::new(code::PACK_MANIFEST_INVALID, format!("{at}: the tarball has no pack.json")).with("path", at.as_str())
    })?;
    let pack = load_bytes(&PathBuf::from(&at), manifest, LoadOptions::default())?;
    Ok((verified, pack))
}

/// The pack names external sub-chain refs (`{packName, chainId, version}`) of `pack` name.
fn external_names(pack: &Pack) -> impl Iterator<Item = &str> {
    pack.chains.iter().flat_map(|c| c.sub_chains()).filter_map(|entry| match entry.get("ref") {
        Some(Value::Object(o)) => o.get("packName").and_then(Value::as_str),
        _ => None,
    })
}

/// The workflow-chain packs external sub-chain refs need, fetched from `registry`: each
/// named pack at the version an install without a spec takes (the ref's `version` range
/// selects a chain's own version, which the expander checks), then the packs their refs
/// name, until none is new. Packs already at hand (`known`) are not fetched; a name the
/// registry does not have is left for the expander to report as `sub_chain_unresolved`.
/// Every fetched pack is verified first; a refused one fails the whole.
pub fn external_packs(registry: &Registry, known: &[&Pack]) -> Result<Vec<Pack>> {
    let mut seen: BTreeSet<String> = known.iter().map(|p| p.name().to_owned()).collect();
    let mut wanted: Vec<String> = known.iter().flat_map(|p| external_names(p)).map(str::to_owned).collect();
    let mut out = Vec::new();
    while let Some(name) = wanted.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let version = match resolve_version(registry, &name, None) {
            Ok(v) => v,
            Err(e) if e.code == code::PACK_NOT_FOUND || e.code == code::PACK_VERSION_NOT_FOUND => continue,
            Err(e) => return Err(e),
        };
        let (_, pack) = open_version(registry, &name, &version)?;
        if pack.kind != PackKind::WorkflowChain {
            continue;
        }
        wanted.extend(external_names(&pack).map(str::to_owned));
        out.push(pack);
    }
    Ok(out)
}

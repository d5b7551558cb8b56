//! Packs read from a registry folder for comparing: one version's manifest out of its
//! verified tarball, and the check `pack publish` makes against the latest version.

use super::{Level, check_bump, pack::diff_packs};
use crate::error::{Error, Result, code};
use crate::pack::{LoadOptions, Pack, load_bytes};
use crate::registry::{self, Registry};
use serde_json::{Value, json};
use std::path::Path;

/// `name` at `spec` (a version, a range, or none for the latest) from the registry folder
/// `root`, its tarball verified first.
pub fn registry_pack(root: &Path, name: &str, spec: Option<&str>) -> Result<Pack> {
    let reg = Registry::open(root)?;
    let version = registry::resolve_version(&reg, name, spec)?;
    let verified = registry::verify(&reg, name, &version)?;
    let bytes = verified.archive.manifest().ok_or_else(|| {
        Error::new(code::PACK_NOT_FOUND, format!("{name}@{version} in {} has no pack.json", root.display()))
            .with("packName", name)
            .with("version", version.as_str())
    })?;
    load_bytes(&root.join(format!("{name}@{version}/pack.json")), bytes, LoadOptions::default())
}

/// Before publishing `pack` into `root`: compare it with the registry's latest version of
/// the same pack and refuse a version bump smaller than the changes need
/// (`version_bump_too_small`), unless `allow` says to publish anyway. What was checked, for
/// the publish output; `None` when there is nothing to compare with (a new registry or
/// pack, or a version below the latest: a backport).
pub fn publish_check(pack: &Pack, root: &Path, allow: bool) -> Result<Option<Value>> {
    if !Registry::is_registry_folder(root) {
        return Ok(None);
    }
    let reg = Registry::open(root)?;
    let Ok(latest) = registry::resolve_version(&reg, pack.name(), None) else { return Ok(None) };
    let newer = super::bump(&latest, pack.version()).is_ok();
    if !newer {
        return Ok(None);
    }
    let old = registry_pack(root, pack.name(), Some(&latest))?;
    let diff = diff_packs(&old.manifest, &pack.manifest, None);
    let (bump, overridden) = match check_bump(pack.name(), &latest, pack.version(), &diff) {
        Ok(level) => (level, false),
        Err(e) if allow && e.code == code::VERSION_BUMP_TOO_SMALL => (super::bump(&latest, pack.version())?, true),
        Err(e) => return Err(e.with("hint", "publish anyway with --allow-small-bump")),
    };
    Ok(Some(json!({
        "against": latest,
        "required": diff.required().as_str(),
        "bump": bump.as_str(),
        "overridden": overridden,
        "changes": diff.changes.iter().filter(|c| c.level > Level::None).count(),
    })))
}

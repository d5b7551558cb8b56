//! `chainsmith install`: resolve a version the way `openwop packs install` does (interop
//! §2.4), verify it, and write the OpenWOP install cache
//! (`<base>/<name>/<version>/<version>.{tgz,json}`, not extracted).
//!
//! The name is checked against the pack-name grammar before it names any file, and the
//! version is exact semver: the cache path is built from those checked parts only, and
//! never through a symbolic link below the base. Unsigned versions are refused unless
//! `allow_unsigned` (the OpenWOP CLI refuses them too).

use super::layout::Registry;
use super::verify::{SignatureCheck, verify};
use crate::error::{Error, Finding, Result, code};
use crate::fsio::contained::Folder;
use crate::range::Range;
use semver::Version;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// `name@spec` splits at the last `@`; no `@` means no spec.
pub fn split_spec(text: &str) -> (&str, Option<&str>) {
    match text.rfind('@') {
        Some(i) if i > 0 => (&text[..i], Some(&text[i + 1..]).filter(|s| !s.is_empty())),
        _ => (text, None),
    }
}

/// The manifest schemas' pack-name grammar:
/// `(core|vendor|community|private).<seg>(.<seg>)+`, the first segment after the namespace
/// `[a-z][a-z0-9_-]*`, later ones `[a-z][a-zA-Z0-9_-]*`; at most 255 bytes (one file name).
pub fn is_pack_name(name: &str) -> bool {
    let mut segments = name.split('.');
    let namespace_ok = matches!(segments.next(), Some("core" | "vendor" | "community" | "private"));
    let rest: Vec<&str> = segments.collect();
    let segment_ok = |seg: &str, upper: bool| {
        let mut chars = seg.chars();
        chars.next().is_some_and(|c| c.is_ascii_lowercase())
            && chars.all(|c| {
                c.is_ascii_lowercase()
                    || c.is_ascii_digit()
                    || c == '_'
                    || c == '-'
                    || (upper && c.is_ascii_uppercase())
            })
    };
    name.len() <= 255
        && namespace_ok
        && rest.len() >= 2
        && rest.iter().enumerate().all(|(i, seg)| segment_ok(seg, i > 0))
}

/// `pack_name_invalid` unless `name` is a pack name.
pub fn check_pack_name(name: &str) -> Result<()> {
    if is_pack_name(name) {
        return Ok(());
    }
    Err(Error::new(
        code::PACK_NAME_INVALID,
        format!(
            "\"{name}\" is not a pack name: (core|vendor|community|private) and at least two dot-separated segments of a-z 0-9 _ - (each starting with a letter)"
        ),
    )
    .with("packName", name))
}

/// The cache base: `--dir`, else `$OPENWOP_CONFIG_HOME/.openwop/packs`, else
/// `~/.openwop/packs`.
pub fn cache_base(dir: Option<&Path>) -> Option<PathBuf> {
    if let Some(d) = dir {
        return Some(d.to_path_buf());
    }
    let home = std::env::var_os("OPENWOP_CONFIG_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(crate::fsio::home_folder)?;
    Some(home.join(".openwop").join("packs"))
}

/// One row of a pack index's `versions[]`.
#[derive(Debug, Clone)]
struct Row {
    version: Version,
    text: String,
    yanked: bool,
}

fn rows(index: &Value) -> Vec<Row> {
    index
        .get("versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let text = r.get("version").and_then(Value::as_str)?;
            Some(Row {
                version: Version::parse(text).ok()?,
                text: text.to_owned(),
                yanked: r.get("yanked").and_then(Value::as_bool).unwrap_or(false),
            })
        })
        .collect()
}

/// Pick the version `spec` names: an exact version is a pin (the index is not read);
/// none or `latest` is the index's `latest` unless yanked, else the highest unyanked
/// stable, else the highest unyanked prerelease; a range is the highest unyanked match.
pub fn resolve_version(registry: &Registry, name: &str, spec: Option<&str>) -> Result<String> {
    let spec = spec.map(str::trim).filter(|s| !s.is_empty());
    if let Some(exact) = spec.filter(|s| Version::parse(s).is_ok()) {
        return Ok(exact.to_owned());
    }
    let index = registry.pack_index(name)?;
    let rows = rows(&index);
    let not_found = |what: String| {
        let available: Vec<&str> = rows.iter().map(|r| r.text.as_str()).collect();
        Error::new(code::PACK_VERSION_NOT_FOUND, format!("{name}: {what}"))
            .with("packName", name)
            .with("available", available)
    };
    let unyanked = || rows.iter().filter(|r| !r.yanked);
    match spec {
        None | Some("latest") => {
            let latest = index.get("latest").or_else(|| index.get("latestVersion")).and_then(Value::as_str);
            if let Some(row) = latest.and_then(|l| rows.iter().find(|r| r.text == l)).filter(|r| !r.yanked) {
                return Ok(row.text.clone());
            }
            let stable = unyanked().filter(|r| r.version.pre.is_empty()).max_by(|a, b| a.version.cmp(&b.version));
            let any = || unyanked().max_by(|a, b| a.version.cmp(&b.version));
            stable.or_else(any).map(|r| r.text.clone()).ok_or_else(|| not_found("every version is yanked".into()))
        }
        Some(range_text) => {
            let range = Range::parse(range_text).map_err(|msg| {
                Error::new(code::DEPENDENCY_RANGE_INVALID, format!("{name}@{range_text}: {msg}"))
                    .with("range", range_text)
            })?;
            unyanked()
                .filter(|r| range.matches(&r.version))
                .max_by(|a, b| a.version.cmp(&b.version))
                .map(|r| r.text.clone())
                .ok_or_else(|| not_found(format!("no unyanked version matches \"{range_text}\"")))
        }
    }
}

/// What an install did: the §2.4 summary plus warnings.
#[derive(Debug, Clone)]
pub struct Installed {
    pub name: String,
    pub version: String,
    pub tree: &'static str,
    pub integrity: String,
    pub signature: SignatureCheck,
    pub yanked: bool,
    pub deprecated: Option<String>,
    pub tarball: PathBuf,
    pub manifest: PathBuf,
    pub warnings: Vec<Finding>,
}

impl Installed {
    /// `{name, version, tree, integrity, signature, yanked, deprecated, tarball, manifest}`.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "version": self.version,
            "tree": self.tree,
            "integrity": self.integrity,
            "signature": self.signature.to_json(),
            "yanked": self.yanked,
            "deprecated": self.deprecated.as_ref().map_or(Value::Bool(false), |r| json!(r)),
            "tarball": self.tarball.display().to_string(),
            "manifest": self.manifest.display().to_string(),
        })
    }
}

/// How to install.
#[derive(Debug, Clone, Copy)]
pub struct InstallOptions {
    /// Install unsigned versions (with a warning); refused otherwise.
    pub allow_unsigned: bool,
    /// The target host's OpenWOP protocol major: a v2 manifest's `engines.openwop` must admit
    /// it (interop §3.2, refused at install on every path).
    pub protocol_major: u64,
}

impl Default for InstallOptions {
    fn default() -> Self {
        Self { allow_unsigned: false, protocol_major: 1 }
    }
}

/// Resolve, verify and write the cache.
pub fn install(registry: &Registry, spec_text: &str, base: &Path, opts: InstallOptions) -> Result<Installed> {
    let (name, spec) = split_spec(spec_text);
    check_pack_name(name)?;
    let version = resolve_version(registry, name, spec)?;
    let verified = verify(registry, name, &version)?;
    // Decided on the signed packed pack.json (the served manifest is checked against it).
    if verified.packed.v2 {
        let range = verified.packed.engines_openwop.as_deref().unwrap_or_default();
        let refusal = match crate::pack::v2::engine_admits(range, opts.protocol_major) {
            Ok(true) => None,
            Ok(false) => Some(format!(
                "{name}@{version}: engines.openwop \"{range}\" does not admit protocol major {}",
                opts.protocol_major
            )),
            Err(msg) => Some(format!("{name}@{version}: {msg}")),
        };
        if let Some(message) = refusal {
            return Err(Error::new(code::PACK_ENGINE_UNSUPPORTED, message)
                .with("packName", name)
                .with("version", version.as_str())
                .with("range", range)
                .with("protocolMajor", opts.protocol_major));
        }
    }
    let mut warnings = Vec::new();
    if verified.signature == SignatureCheck::Unsigned {
        let mut f = Finding::warning(code::PACK_UNSIGNED, "/signing", format!("{name}@{version} is unsigned"))
            .with("packName", name)
            .with("version", version.as_str());
        if !opts.allow_unsigned {
            f.message.push_str("; install refuses unsigned versions unless --allow-unsigned is given");
            return Err(f.into_error());
        }
        warnings.push(f);
    }
    if verified.yanked() {
        let reason = verified.manifest.get("yankedReason").and_then(Value::as_str).unwrap_or("no reason given");
        warnings.push(
            Finding::warning(
                code::PACK_VERSION_YANKED,
                "/yanked",
                format!("{name}@{version} is yanked ({reason}); installed because it was pinned"),
            )
            .with("packName", name),
        );
    }
    let deprecated = verified.deprecated();
    if let Some(reason) = &deprecated {
        let mut f =
            Finding::warning(code::PACK_VERSION_DEPRECATED, "", format!("{name}@{version} is deprecated: {reason}"))
                .with("packName", name);
        if let Some(next) = verified.manifest.get("supersededBy").and_then(Value::as_str) {
            f = f.with("supersededBy", next);
        }
        warnings.push(f);
    }

    // Both parts are checked: the pack-name grammar, and `resolve_version` returns only text
    // that parsed as exact semver (no `/`, no `..`). Each is one path segment.
    // Reached from one handle on the cache, name by name: a link anywhere below it is
    // refused or replaced, never written through, even one put there while installing.
    let folder = Folder::create(base)?.child(name, true)?.child(&version, true)?;
    let tarball = folder.write(&format!("{version}.tgz"), &verified.tarball)?;
    let manifest = folder.write(&format!("{version}.json"), &crate::fsio::to_pretty_json(&verified.manifest))?;
    Ok(Installed {
        name: name.to_owned(),
        version,
        tree: registry.tree.as_str(),
        integrity: verified.integrity.clone(),
        signature: verified.signature.clone(),
        yanked: verified.yanked(),
        deprecated,
        tarball,
        manifest,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_split_at_the_last_at() {
        assert_eq!(split_spec("a.b@1.0.0"), ("a.b", Some("1.0.0")));
        assert_eq!(split_spec("a.b"), ("a.b", None));
        assert_eq!(split_spec("a.b@"), ("a.b", None));
        assert_eq!(split_spec("a.b@^1 || ^2"), ("a.b", Some("^1 || ^2")));
        assert_eq!(split_spec("@scope/x@1"), ("@scope/x", Some("1")));
    }

    #[test]
    fn cache_base_prefers_the_flag() {
        assert_eq!(cache_base(Some(Path::new("/c"))), Some(PathBuf::from("/c")));
    }

    #[test]
    fn pack_names_follow_the_manifest_grammar() {
        for ok in ["vendor.acme.tiles", "community.local.wf-1", "core.openwop.workflows_x", "private.a.b.cD"] {
            assert!(is_pack_name(ok), "{ok}");
        }
        for bad in [
            "",
            "vendor.acme",
            "../../escaped/x",
            "vendor.acme/../x",
            "vendor.acme..x",
            "vendor.Acme.x",
            "other.acme.x",
            "vendor.acme.x/",
            "vendor.acme.1x",
            "vendor.acme.Xy",
            "vendor.acme.x\0",
        ] {
            assert!(!is_pack_name(bad), "{bad}");
        }
        assert!(!is_pack_name(&format!("vendor.acme.{}", "x".repeat(250))));
        assert_eq!(check_pack_name("../x").unwrap_err().code, code::PACK_NAME_INVALID);
    }
}

//! What a registry folder offers, for a browsing view: every pack of the registry index
//! with its versions (yanked, deprecated, how each is signed) and the verification state
//! of the version an install without a spec would take. Data only; the editor draws it.

use super::install::resolve_version;
use super::layout::{Registry, read_json};
use super::verify::{SignatureCheck, deprecation, verify};
use crate::error::{Error, Result, code};
use serde_json::Value;

/// One row of a pack index's `versions[]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionRow {
    pub version: String,
    pub yanked: bool,
    pub deprecated: Option<String>,
    /// `signingScheme` (v2) or `signingMethod` (v1), when the row names one.
    pub signing: Option<String>,
}

/// The state of the version an install would take.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    Verified {
        version: String,
        key_id: String,
    },
    Unsigned {
        version: String,
    },
    /// Refused: the error's code and message (`pack_integrity_failure`, …).
    Refused {
        version: Option<String>,
        error: Error,
    },
}

impl Check {
    /// A short label: `verified by K`, `unsigned`, or the refusal code.
    pub fn label(&self) -> String {
        match self {
            Check::Verified { key_id, .. } => format!("verified ({key_id})"),
            Check::Unsigned { .. } => "unsigned".into(),
            Check::Refused { error, .. } => error.code.to_owned(),
        }
    }

    pub fn is_refused(&self) -> bool {
        matches!(self, Check::Refused { .. })
    }
}

/// One pack of the registry.
#[derive(Debug, Clone, PartialEq)]
pub struct PackListing {
    pub name: String,
    pub kind: String,
    pub description: String,
    /// Oldest first, as the pack index lists them.
    pub versions: Vec<VersionRow>,
    pub check: Check,
}

/// List the packs of the registry index, verifying the version each would install.
pub fn list(registry: &Registry) -> Result<Vec<PackListing>> {
    let index_path = registry.registry_index_path()?;
    if !index_path.is_file() {
        return Err(Error::new(
            code::PACK_REGISTRY_UNREACHABLE,
            format!("{} has no registry index ({} is missing)", registry.root.display(), index_path.display()),
        )
        .with("path", index_path.display().to_string()));
    }
    let index = read_json(&index_path)?;
    let mut out = Vec::new();
    for row in index.get("packs").and_then(Value::as_array).into_iter().flatten() {
        let Some(name) = row.get("name").and_then(Value::as_str) else { continue };
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        let pack_index = registry.pack_index(name).unwrap_or(Value::Null);
        let versions = pack_index
            .get("versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|r| {
                Some(VersionRow {
                    version: r.get("version")?.as_str()?.to_owned(),
                    yanked: r.get("yanked").and_then(Value::as_bool).unwrap_or(false),
                    deprecated: deprecation(r),
                    signing: r
                        .get("signingScheme")
                        .or_else(|| r.get("signingMethod"))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                })
            })
            .collect();
        let check = match resolve_version(registry, name, None) {
            Err(error) => Check::Refused { version: None, error },
            Ok(version) => match verify(registry, name, &version) {
                Ok(v) => match v.signature {
                    SignatureCheck::Verified { key_id, .. } => Check::Verified { version, key_id },
                    SignatureCheck::Unsigned => Check::Unsigned { version },
                },
                Err(error) => Check::Refused { version: Some(version), error },
            },
        };
        let kind = Some(text(row, "kind")).filter(|k| !k.is_empty()).unwrap_or_else(|| text(&pack_index, "kind"));
        out.push(PackListing { name: name.to_owned(), kind, description: text(row, "description"), versions, check });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::publish::publish;
    use ed25519_dalek::SigningKey;
    use serde_json::json;

    /// The pack signed under a registry key is v2, whose typeIds are pinned.
    fn pinned(dir: std::path::PathBuf) -> std::path::PathBuf {
        let text = std::fs::read_to_string(dir.join("pack.json")).unwrap();
        std::fs::write(dir.join("pack.json"), text.replace("\"core.identity\"", "\"core.identity@1.0.0\"")).unwrap();
        dir
    }

    fn pack_dir(root: &std::path::Path, name: &str, version: &str) -> std::path::PathBuf {
        let dir = root.join(format!("{name}-{version}"));
        std::fs::create_dir_all(&dir).unwrap();
        let m = json!({"name": name, "version": version, "kind": "workflow-chain", "description": "d",
            "engines": {"openwop": ">=1.0.0"},
            "chains": [{"chainId": "t.c", "version": "1.0.0", "label": "C", "description": "d",
                "parameters": {"type": "object", "properties": {}},
                "dag": {"nodes": [{"id": "a", "typeId": "core.identity"}]}}]});
        std::fs::write(dir.join("pack.json"), m.to_string()).unwrap();
        dir
    }

    #[test]
    fn lists_versions_and_the_state_of_what_an_install_would_take() {
        let root = tempfile::tempdir().unwrap();
        let reg_dir = root.path().join("reg");
        let key = SigningKey::from_bytes(&[3u8; 32]);
        publish(&pinned(pack_dir(root.path(), "vendor.acme.a", "1.0.0")), &reg_dir, Some((&key, "k1"))).unwrap();
        publish(&pinned(pack_dir(root.path(), "vendor.acme.a", "1.1.0")), &reg_dir, Some((&key, "k1"))).unwrap();
        publish(&pack_dir(root.path(), "vendor.acme.b", "0.1.0"), &reg_dir, None).unwrap();
        // Yank 1.1.0 in the index, and break b's tarball.
        let reg = Registry::open(&reg_dir).unwrap();
        let index_path = reg.pack_index_path("vendor.acme.a").unwrap();
        let mut index: Value = serde_json::from_slice(&std::fs::read(&index_path).unwrap()).unwrap();
        index["versions"][1]["yanked"] = json!(true);
        std::fs::write(&index_path, index.to_string()).unwrap();
        let listing = list(&reg).unwrap();
        let names: Vec<&str> = listing.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["vendor.acme.a", "vendor.acme.b"]);
        let a = &listing[0];
        assert_eq!(a.kind, "workflow-chain");
        let rows: Vec<(&str, bool, Option<&str>)> =
            a.versions.iter().map(|r| (r.version.as_str(), r.yanked, r.signing.as_deref())).collect();
        assert_eq!(
            rows,
            [("1.0.0", false, Some("ed25519-canonical-json")), ("1.1.0", true, Some("ed25519-canonical-json"))]
        );
        // The index still names 1.1.0 latest, but it is yanked: 1.0.0 is what installs.
        assert_eq!(a.check, Check::Verified { version: "1.0.0".into(), key_id: "k1".into() });
        assert_eq!(listing[1].check.label(), "unsigned");

        std::fs::write(reg.tarball_path("vendor.acme.b", "0.1.0").unwrap(), b"broken").unwrap();
        let listing = list(&reg).unwrap();
        assert_eq!(listing[1].check.label(), code::PACK_INTEGRITY_FAILURE);
        assert!(listing[1].check.is_refused());
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(list(&Registry::open(empty.path()).unwrap()).unwrap_err().code, code::PACK_REGISTRY_UNREACHABLE);
    }
}

//! Verifying one published version (`chainsmith verify`, and before every install):
//! the tarball's integrity against its version manifest, then its signature in the order
//! and with the reasons of the OpenWOP CLI's `verifyV2` (interop §1.3).
//!
//! The tarball must read the same in every tool (one gzip member, nothing ambiguous, see
//! `tarball`), and its `pack.json` must be the version asked for. The key comes from the
//! issuing registry's `signingKeys[]` and must cover the pack's namespace: trust is per
//! registry. Only an `active` or `rotated` key verifies (its status is reported). The
//! recipe is the tree's, as the OpenWOP CLI reads it: in a v2 tree the
//! `ed25519-canonical-json` block only; in a v1 tree `method: "manual"` (the exact packed
//! `pack.json` bytes) or, without a method, the legacy whole-`.tgz` signature, so a v2
//! block relabelled into a v1 tree does not verify. Last, the served version manifest must
//! say what the verified packed `pack.json` says (`served`): nothing signs it.

use super::jcs;
use super::keys::{KeyUse, check_key_status};
use super::layout::{DISCOVERY_PATH, KeyEntry, MAX_SIGNATURE_BYTES, Registry, Tree};
use super::sign::{SIGNATURE_FILE, V2_SCHEME};
use super::tarball::{MAX_TARBALL_BYTES, PackArchive};
use crate::error::{Error, Result, code};
use crate::net::Body;
use base64::Engine;
use ed25519_dalek::{Signature, VerifyingKey};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// `sha256-<base64>`: the Subresource Integrity text registries publish.
pub fn sri(bytes: &[u8]) -> String {
    format!("sha256-{}", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(bytes)))
}

/// Lower-case hex SHA-256 (SBOM hashes).
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `expected` names these bytes. Only the SRI form registries publish
/// (`sha256-<base64>`, 51 characters) is read: the OpenWOP CLI compares that text exactly,
/// so the `sha256:<hex>` some tools write (interop Q10) never matches, here or there.
pub fn integrity_matches(expected: &str, bytes: &[u8]) -> bool {
    expected == sri(bytes)
}

/// Whether `text` has the SRI shape (`sha256-` and 44 base64 characters).
fn is_sri(text: &str) -> bool {
    text.strip_prefix("sha256-").is_some_and(|b64| {
        b64.len() == 44
            && b64.ends_with('=')
            && b64[..43].bytes().all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/')
    })
}

/// How a verified version is signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureCheck {
    /// Verified with a registry key that covers the pack's namespace.
    Verified { scheme: String, key_id: String, key_status: String },
    /// The version carries no `signing` block.
    Unsigned,
}

impl SignatureCheck {
    pub fn to_json(&self) -> Value {
        match self {
            SignatureCheck::Verified { scheme, key_id, key_status } => {
                json!({"status": "verified", "scheme": scheme, "keyId": key_id, "keyStatus": key_status})
            }
            SignatureCheck::Unsigned => json!({"status": "unsigned"}),
        }
    }
}

/// A version whose integrity (and signature, when signed) checked out.
#[derive(Debug, Clone)]
pub struct Verified {
    pub name: String,
    pub version: String,
    pub integrity: String,
    /// The version manifest as served: the packed `pack.json`'s members, plus or changed
    /// only in the registry's own (`served::REGISTRY_MEMBERS`).
    pub manifest: Value,
    /// What install decides on, read from the packed `pack.json`.
    pub packed: Packed,
    pub tarball: Vec<u8>,
    pub archive: PackArchive,
    pub signature: SignatureCheck,
}

impl Verified {
    pub fn yanked(&self) -> bool {
        self.manifest.get("yanked").and_then(Value::as_bool).unwrap_or(false)
    }

    /// The deprecation note, when the version is deprecated (`versionDeprecated`, or v1's
    /// `deprecated` as a boolean or a reason).
    pub fn deprecated(&self) -> Option<String> {
        deprecation(&self.manifest)
    }
}

/// What the packed (signed) `pack.json` says that install decides on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Packed {
    /// Its `signing` block is the v2 one (`keyId` or `scheme`): the v2 rules apply.
    pub v2: bool,
    /// `engines.openwop`, when it is a string.
    pub engines_openwop: Option<String>,
}

/// A deprecation flag or reason in a version manifest or an index row.
pub fn deprecation(v: &Value) -> Option<String> {
    let reason = v.get("deprecationReason").and_then(Value::as_str);
    for key in ["versionDeprecated", "deprecated"] {
        match v.get(key) {
            Some(Value::Bool(true)) => return Some(reason.unwrap_or("deprecated").to_owned()),
            Some(Value::String(s)) if !s.is_empty() => return Some(s.clone()),
            _ => {}
        }
    }
    None
}

fn integrity_failure(name: &str, version: &str, message: String) -> Error {
    Error::new(code::PACK_INTEGRITY_FAILURE, message).with("packName", name).with("version", version)
}

fn invalid(name: &str, version: &str, reason: &str, message: String) -> Error {
    Error::new(code::PACK_SIGNATURE_INVALID, format!("{name}@{version}: {message}"))
        .with("packName", name)
        .with("version", version)
        .with("reason", reason)
}

/// Integrity, the tarball, the packed identity, the signature, then the served manifest
/// against the packed one (docs/security.md). `Err` carries `pack_integrity_failure` or
/// `pack_signature_invalid` (with `details.reason`), `signature_not_available`,
/// `registry_discovery_missing`, `pack_registry_unreachable`, or the registry's not-found
/// codes.
pub fn verify(registry: &Registry, name: &str, version: &str) -> Result<Verified> {
    let manifest = registry.version_manifest(name, version)?;
    let tarball_resource = registry.fill(&registry.endpoints.version_tarball, name, version)?;
    let tarball_path = registry.locate(&tarball_resource);
    let Some(tarball) =
        registry.read(&tarball_resource, MAX_TARBALL_BYTES, code::PACK_INTEGRITY_FAILURE, Body::Fetch)?
    else {
        return Err(Error::new(
            code::PACK_VERSION_NOT_FOUND,
            format!("the registry has no tarball for {name}@{version} ({tarball_path} is missing)"),
        )
        .with("packName", name)
        .with("version", version)
        .with("path", tarball_path));
    };

    let actual = sri(&tarball);
    let Some(expected) = manifest.get("integrity").and_then(Value::as_str) else {
        return Err(integrity_failure(
            name,
            version,
            format!("the version manifest of {name}@{version} has no `integrity` (a `sha256-<base64>` string)"),
        )
        .with("reason", "integrity_missing")
        .with("actual", actual));
    };
    if !is_sri(expected) {
        return Err(integrity_failure(
            name,
            version,
            format!(
                "the version manifest of {name}@{version} gives integrity \"{expected}\"; only `sha256-<base64>` (44 base64 characters) is read, as the OpenWOP CLI reads it"
            ),
        )
        .with("reason", "integrity_format")
        .with("expected", expected)
        .with("actual", actual));
    }
    if !integrity_matches(expected, &tarball) {
        return Err(integrity_failure(
            name,
            version,
            format!("the tarball of {name}@{version} does not match its version manifest's integrity"),
        )
        .with("reason", "integrity_mismatch")
        .with("expected", expected)
        .with("actual", actual)
        .with("path", tarball_path.as_str()));
    }
    let archive = PackArchive::from_tgz(&tarball).map_err(|refusal| {
        integrity_failure(name, version, format!("{tarball_path}: {refusal}"))
            .with("reason", refusal.reason)
            .with("path", tarball_path.as_str())
    })?;
    let packed = check_packed_identity(&archive, name, version)?;

    let served_signature = registry.read(
        &registry.fill(&registry.endpoints.version_signature, name, version)?,
        MAX_SIGNATURE_BYTES,
        code::PACK_SIGNATURE_INVALID,
        Body::Fetch,
    )?;
    let signature = check_signature(registry, name, version, &manifest, &archive, &tarball, served_signature)?;
    check_served_manifest(&manifest, &archive, &signature, name, version)?;
    Ok(Verified {
        name: name.to_owned(),
        version: version.to_owned(),
        integrity: actual,
        manifest,
        packed,
        tarball,
        archive,
        signature,
    })
}

/// The served manifest says what the packed `pack.json` says, but for the registry's own
/// members; a served-only `signing` block is the legacy recipe's (it signs the whole
/// tarball, so the block cannot be inside it). Refused: `pack_integrity_failure`, reason
/// `served_manifest_mismatch`, with the pointer of the first difference.
fn check_served_manifest(
    manifest: &Value,
    archive: &PackArchive,
    signature: &SignatureCheck,
    name: &str,
    version: &str,
) -> Result<()> {
    let legacy = matches!(signature, SignatureCheck::Verified { scheme, .. } if scheme == "ed25519");
    let packed = archive.manifest().unwrap_or_default();
    let pointer = super::served::first_difference(manifest, packed, legacy).map_err(|msg| {
        integrity_failure(name, version, format!("{name}@{version}: the packed pack.json: {msg}"))
            .with("reason", "manifest_mismatch")
    })?;
    match pointer {
        None => Ok(()),
        Some(pointer) => Err(integrity_failure(
            name,
            version,
            format!(
                "{name}@{version}: the served version manifest differs from the signed pack.json in the tarball at \"{pointer}\"; \
                 only integrity, yanked, deprecation, advisory and file-address members may differ"
            ),
        )
        .with("reason", "served_manifest_mismatch")
        .with("pointer", pointer)),
    }
}

/// Every version, signed or not, must pack the `pack.json` of the name and version asked for:
/// what is installed under `<name>/<version>` is that pack and no other.
fn check_packed_identity(archive: &PackArchive, name: &str, version: &str) -> Result<Packed> {
    let mismatch = |message: String| {
        integrity_failure(name, version, format!("{name}@{version}: {message}")).with("reason", "manifest_mismatch")
    };
    let bytes = archive.manifest().ok_or_else(|| mismatch("the tarball has no pack.json".into()))?;
    let packed = Identity::read(bytes).map_err(|e| mismatch(format!("the packed pack.json is not JSON: {e}")))?;
    let (packed_name, packed_version) = (packed.text(&packed.name), packed.text(&packed.version));
    if packed_name.as_deref() != Some(name) || packed_version.as_deref() != Some(version) {
        return Err(mismatch(format!(
            "the packed pack.json is {}@{}",
            packed_name.as_deref().unwrap_or("(no name)"),
            packed_version.as_deref().unwrap_or("(no version)")
        ))
        .with("packedName", packed_name)
        .with("packedVersion", packed_version));
    }
    let v2 = packed
        .signing
        .as_ref()
        .and_then(Value::as_object)
        .is_some_and(|s| s.contains_key("keyId") || s.contains_key("scheme"));
    let engines_openwop =
        packed.engines.as_ref().and_then(|e| e.get("openwop")).and_then(Value::as_str).map(str::to_owned);
    Ok(Packed { v2, engines_openwop })
}

/// The members of a packed `pack.json` that say which version it is and who signed it,
/// read without building the rest of the document (which can be megabytes of chains, and
/// several times that as a value).
#[derive(serde::Deserialize)]
struct Identity {
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    version: Option<Value>,
    #[serde(default)]
    signing: Option<Value>,
    #[serde(default)]
    engines: Option<Value>,
}

impl Identity {
    fn read(bytes: &[u8]) -> serde_json::Result<Self> {
        serde_json::from_slice(bytes)
    }

    fn text(&self, member: &Option<Value>) -> Option<String> {
        member.as_ref().and_then(Value::as_str).map(str::to_owned)
    }

    fn signing_text(&self, pointer: &str) -> Option<&str> {
        self.signing.as_ref().and_then(|s| s.pointer(pointer)).and_then(Value::as_str)
    }
}

/// The signature checks on an archive whose integrity is already established.
pub fn check_signature(
    registry: &Registry,
    name: &str,
    version: &str,
    manifest: &Value,
    archive: &PackArchive,
    tarball: &[u8],
    served_signature: Option<Vec<u8>>,
) -> Result<SignatureCheck> {
    let Some(signing) = manifest.get("signing") else { return Ok(SignatureCheck::Unsigned) };
    if registry.document.is_none() {
        // The legacy `/v1/…` paths are read without a document, but no key is trusted
        // without its `signingKeys[]` (which key may sign which names).
        let doc = registry.root.join(DISCOVERY_PATH);
        return Err(Error::new(
            code::REGISTRY_DISCOVERY_MISSING,
            format!(
                "{name}@{version} is signed, but {} is missing: without the registry's signingKeys no key is trusted. \
                 Pass the registry's root folder (the one holding .well-known/) as --registry",
                doc.display()
            ),
        )
        .with("packName", name)
        .with("version", version)
        .with("path", doc.display().to_string()));
    }
    let empty = Map::new();
    let block = signing.as_object().unwrap_or(&empty);
    let named_key = ["keyId", "publicKeyRef"].into_iter().find_map(|k| block.get(k).and_then(Value::as_str));
    let bad = |reason: &str, message: String| {
        let e = invalid(name, version, reason, message);
        match named_key {
            Some(k) => e.with("keyId", k),
            None => e,
        }
    };
    let recipe = Recipe::of(block, registry.tree, &bad)?;
    let key_id = recipe.key_id;
    let (entry, key) = registry_key(registry, key_id, name, &bad)?;
    let signature_file = block.get("signatureRef").and_then(Value::as_str).unwrap_or(SIGNATURE_FILE);
    let in_archive = archive.file(signature_file).map(<[u8]>::to_vec);
    let signed =
        if recipe.scheme == "ed25519" { tarball } else { recipe.packed_manifest(archive, name, version, &bad)? };
    // (6) each signature is 64 raw bytes, checked before the served and packed ones are
    // compared (a served .sig with a byte added is a length fault, not another signature).
    for (what, sig) in [("served .sig", &served_signature), ("packed keys/pack.json.sig", &in_archive)] {
        if let Some(sig) = sig.as_ref().filter(|s| s.len() != 64) {
            return Err(bad(
                "signature_length",
                format!("the {what} is {} bytes; an Ed25519 signature is 64 raw bytes", sig.len()),
            ));
        }
    }
    let signature_bytes = match (served_signature, in_archive) {
        (Some(served), Some(packed)) if served != packed => {
            return Err(bad(
                "signature_mismatch",
                "the served .sig differs from keys/pack.json.sig in the tarball".into(),
            ));
        }
        (Some(s), _) | (None, Some(s)) => s,
        (None, None) => {
            return Err(Error::new(
                code::SIGNATURE_NOT_AVAILABLE,
                format!("{name}@{version} is signed, but no signature file is served or packed"),
            )
            .with("packName", name)
            .with("version", version));
        }
    };
    let raw = <[u8; 64]>::try_from(signature_bytes.as_slice())
        .map_err(|_| bad("signature_length", format!("the signature is {} bytes", signature_bytes.len())))?;
    // (7) Ed25519 over the exact bytes.
    key.verify_strict(signed, &Signature::from_bytes(&raw)).map_err(|_| {
        let mut message = format!("the Ed25519 signature does not verify with key \"{key_id}\"");
        if recipe.scheme == "ed25519" && block.contains_key("scheme") {
            message.push_str(
                "; in a v1 tree a `signing` block without `method` is the legacy recipe over the whole .tgz, \
                 and a v2 block is re-signed for v1 (`method: \"manual\"`), never relabelled",
            );
        }
        bad("signature_mismatch", message).with("keyId", key_id)
    })?;
    Ok(SignatureCheck::Verified {
        scheme: recipe.scheme.to_owned(),
        key_id: key_id.to_owned(),
        // The check above let only a string status through.
        key_status: entry.status.text().unwrap_or_default().to_owned(),
    })
}

/// How a `signing` block says the pack is signed.
struct Recipe<'a> {
    /// `V2_SCHEME`, `manual` (v1: the canonical manifest) or `ed25519` (legacy: the tarball).
    scheme: &'static str,
    key_id: &'a str,
    v2: bool,
}

impl<'a> Recipe<'a> {
    /// The tree decides, as in the OpenWOP CLI: a v2 tree reads only the v2 block; a v1 tree
    /// reads `method` (`manual`, else the legacy whole-tarball recipe, whatever else the
    /// block says) and the key id from `keyId`, else `publicKeyRef`.
    fn of(block: &'a Map<String, Value>, tree: Tree, bad: &dyn Fn(&str, String) -> Error) -> Result<Self> {
        let text = |k: &str| block.get(k).and_then(Value::as_str);
        if tree == Tree::V2 {
            // (1) a v2 block carries nothing of the v1 recipe, and names the one v2 scheme.
            if let Some(legacy) =
                ["method", "publicKeyRef", "signatureRef"].into_iter().find(|k| block.contains_key(*k))
            {
                return Err(bad(
                    "legacy_fields",
                    format!("the v2 `signing` block also carries the v1 field `{legacy}`"),
                ));
            }
            if text("scheme") != Some(V2_SCHEME) {
                return Err(bad("scheme", format!("`signing.scheme` must be \"{V2_SCHEME}\"")));
            }
            let key_id = text("keyId").ok_or_else(|| bad("unknown_key", "`signing.keyId` is missing".into()))?;
            return Ok(Self { scheme: V2_SCHEME, key_id, v2: true });
        }
        let scheme = match text("method") {
            Some("manual") => "manual",
            Some("sigstore") => {
                return Err(bad("unsupported_method", "Sigstore bundles are not verified by chainsmith".into()));
            }
            // The legacy recipe signs the whole tarball.
            Some("ed25519") | None => "ed25519",
            Some(other) => return Err(bad("unsupported_method", format!("signing method \"{other}\" is unknown"))),
        };
        let key_id = text("keyId")
            .or_else(|| text("publicKeyRef"))
            .ok_or_else(|| bad("unknown_key", "`signing.publicKeyRef` names no registry key".into()))?;
        Ok(Self { scheme, key_id, v2: false })
    }

    /// The packed `pack.json`, which v1 and v2 sign: it must be the version asked for,
    /// signed under the same key, (5) and for v2 exactly its canonical bytes.
    fn packed_manifest<'b>(
        &self,
        archive: &'b PackArchive,
        name: &str,
        version: &str,
        bad: &dyn Fn(&str, String) -> Error,
    ) -> Result<&'b [u8]> {
        let (v2, key_id) = (self.v2, self.key_id);
        let bytes =
            archive.manifest().ok_or_else(|| bad("manifest_mismatch", "the tarball has no pack.json".into()))?;
        // (4) the packed manifest is the version asked for, signed under the same key. A v2
        // manifest in canonical form (the one that can verify) is checked in one pass over
        // its bytes and only the members that name it are read; any other is parsed whole,
        // so that what it is refused for stays the same.
        if v2 && jcs::is_canonical(bytes) {
            let packed = Identity::read(bytes)
                .map_err(|e| bad("not_canonical", format!("pack.json: {}", crate::fsio::json_error_text(&e))))?;
            if packed.text(&packed.name).as_deref() != Some(name)
                || packed.text(&packed.version).as_deref() != Some(version)
                || packed.signing_text("/keyId") != Some(key_id)
            {
                return Err(bad(
                    "manifest_mismatch",
                    format!("the packed pack.json is not {name}@{version} signed with key \"{key_id}\""),
                ));
            }
            return Ok(bytes);
        }
        let is_asked_for = {
            let packed = jcs::parse_strict(bytes).map_err(|msg| {
                bad(if v2 { "not_canonical" } else { "manifest_mismatch" }, format!("pack.json: {msg}"))
            })?;
            let packed_key = if v2 {
                packed.pointer("/signing/keyId")
            } else {
                packed.pointer("/signing/keyId").or_else(|| packed.pointer("/signing/publicKeyRef"))
            };
            packed.get("name").and_then(Value::as_str) == Some(name)
                && packed.get("version").and_then(Value::as_str) == Some(version)
                && packed_key.and_then(Value::as_str) == Some(key_id)
        };
        if !is_asked_for {
            return Err(bad(
                "manifest_mismatch",
                format!("the packed pack.json is not {name}@{version} signed with key \"{key_id}\""),
            ));
        }
        if v2 && !jcs::is_canonical(bytes) {
            return Err(bad("not_canonical", "the packed pack.json is not in RFC 8785 canonical form".into()));
        }
        Ok(bytes)
    }
}

/// (2) The key is one of the registry's, (3) and it covers the pack's namespace.
fn registry_key<'r>(
    registry: &'r Registry,
    key_id: &str,
    name: &str,
    bad: &dyn Fn(&str, String) -> Error,
) -> Result<(&'r KeyEntry, VerifyingKey)> {
    let entry = registry.key(key_id).ok_or_else(|| {
        bad("unknown_key", format!("key \"{key_id}\" is not among the registry's signingKeys")).with("keyId", key_id)
    })?;
    // A revoked key is refused before anything it signed is looked at.
    check_key_status(key_id, &entry.status, KeyUse::Verify).map_err(|e| {
        let mut refusal = bad("key_revoked", e.message.clone());
        refusal.details.extend(e.details);
        refusal
    })?;
    if !entry.covers(name) {
        return Err(bad(
            "namespace",
            format!(
                "key \"{key_id}\" may not sign {name}: its permitted namespaces are {}",
                entry.permitted_namespaces.join(", ")
            ),
        )
        .with("keyId", key_id)
        .with("permittedNamespaces", entry.permitted_namespaces.clone()));
    }
    // A key URL off this registry's host, or out of its folder, is never fetched.
    registry.public_key_path(entry).map_err(|e| e.with("keyId", key_id).with("packName", name))?;
    let key = registry
        .public_key(entry)
        .map_err(|msg| bad("unknown_key", format!("key \"{key_id}\" cannot be read: {msg}")).with("keyId", key_id))?;
    Ok((entry, key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::keys::public_key_pem;
    use ed25519_dalek::{Signer, SigningKey};

    struct Fixture {
        _dir: tempfile::TempDir,
        registry: Registry,
        key: SigningKey,
    }

    /// A v2 registry whose key `k1` covers `vendor.acme.*`.
    fn fixture() -> Fixture {
        let mut f = v1_fixture();
        f.registry.tree = Tree::V2;
        f
    }

    /// The same registry read as a v1 tree.
    fn v1_fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let key = SigningKey::from_bytes(&[9u8; 32]);
        std::fs::create_dir_all(dir.path().join("keys")).unwrap();
        std::fs::write(dir.path().join("keys/k1.pub"), public_key_pem(&key.verifying_key())).unwrap();
        let doc = json!({"endpoints": {}, "signingKeys": [
            {"keyId": "k1", "permittedNamespaces": ["vendor.acme.*"], "status": "rotated"}]});
        let registry = Registry::from_document(dir.path(), doc).unwrap();
        Fixture { _dir: dir, registry, key }
    }

    /// A v2 manifest, its canonical bytes and an archive holding them with `sig`.
    fn signed(f: &Fixture, signing: Value, mutate: impl Fn(&mut Vec<u8>)) -> (Value, PackArchive, Vec<u8>) {
        let manifest = json!({"name": "vendor.acme.x", "version": "1.0.0", "signing": signing});
        let mut bytes = jcs::canonical(&manifest).unwrap();
        let sig = f.key.sign(&bytes).to_bytes().to_vec();
        mutate(&mut bytes);
        let archive = PackArchive {
            files: [("pack.json".to_owned(), bytes), (SIGNATURE_FILE.to_owned(), sig.clone())].into_iter().collect(),
        };
        (manifest, archive, sig)
    }

    fn reason(f: &Fixture, name: &str, signing: Value, mutate: impl Fn(&mut Vec<u8>)) -> Result<SignatureCheck> {
        let (manifest, archive, sig) = signed(f, signing, mutate);
        check_signature(&f.registry, name, "1.0.0", &manifest, &archive, b"tgz", Some(sig))
    }

    fn code_and_reason(r: Result<SignatureCheck>) -> (&'static str, String) {
        let e = r.unwrap_err();
        (e.code, e.details.get("reason").and_then(Value::as_str).unwrap_or_default().to_owned())
    }

    #[test]
    fn each_step_of_the_v2_order_has_its_reason() {
        let f = fixture();
        let v2 = json!({"keyId": "k1", "scheme": V2_SCHEME});
        let ok = reason(&f, "vendor.acme.x", v2.clone(), |_| {}).unwrap();
        // A rotated key still verifies, and says so.
        assert_eq!(
            ok,
            SignatureCheck::Verified { scheme: V2_SCHEME.into(), key_id: "k1".into(), key_status: "rotated".into() }
        );
        let invalid = code_and_reason;
        assert_eq!(
            invalid(reason(
                &f,
                "vendor.acme.x",
                json!({"keyId": "k1", "scheme": V2_SCHEME, "method": "manual"}),
                |_| {}
            )),
            (code::PACK_SIGNATURE_INVALID, "legacy_fields".into())
        );
        assert_eq!(invalid(reason(&f, "vendor.acme.x", json!({"keyId": "k1", "scheme": "rsa"}), |_| {})).1, "scheme");
        assert_eq!(
            invalid(reason(&f, "vendor.acme.x", json!({"keyId": "k9", "scheme": V2_SCHEME}), |_| {})).1,
            "unknown_key"
        );
        // The name asked for is outside the key's namespaces (the packed name is checked later).
        assert_eq!(invalid(reason(&f, "vendor.acmex.y", v2.clone(), |_| {})).1, "namespace");
        // Asking for another name than the packed one.
        let (manifest, archive, sig) = signed(&f, v2.clone(), |_| {});
        let r = check_signature(&f.registry, "vendor.acme.other", "1.0.0", &manifest, &archive, b"", Some(sig.clone()));
        assert_eq!(invalid(r).1, "manifest_mismatch");
        // Pretty-printed bytes are not canonical.
        let pretty =
            |b: &mut Vec<u8>| *b = serde_json::to_vec_pretty(&serde_json::from_slice::<Value>(b).unwrap()).unwrap();
        assert_eq!(invalid(reason(&f, "vendor.acme.x", v2.clone(), pretty)).1, "not_canonical");
        let (manifest, mut archive, _) = signed(&f, v2.clone(), |_| {});
        let short = vec![0u8; 63];
        archive.files.insert(SIGNATURE_FILE.into(), short.clone());
        let r = check_signature(&f.registry, "vendor.acme.x", "1.0.0", &manifest, &archive, b"", Some(short));
        assert_eq!(invalid(r).1, "signature_length");
        let zero = vec![0u8; 64];
        archive.files.insert(SIGNATURE_FILE.into(), zero.clone());
        let r = check_signature(&f.registry, "vendor.acme.x", "1.0.0", &manifest, &archive, b"", Some(zero));
        assert_eq!(invalid(r).1, "signature_mismatch");
        // The served .sig and the packed one must agree; with neither there is nothing to check.
        let r = check_signature(&f.registry, "vendor.acme.x", "1.0.0", &manifest, &archive, b"", Some(sig));
        assert_eq!(invalid(r).1, "signature_mismatch");
        archive.files.remove(SIGNATURE_FILE);
        let r = check_signature(&f.registry, "vendor.acme.x", "1.0.0", &manifest, &archive, b"", None);
        assert_eq!(r.unwrap_err().code, code::SIGNATURE_NOT_AVAILABLE);
    }

    #[test]
    fn legacy_signatures_cover_the_whole_tarball() {
        let f = v1_fixture();
        let manifest = json!({"name": "vendor.acme.x", "version": "1.0.0",
            "signing": {"method": "ed25519", "publicKeyRef": "k1"}});
        let tgz = b"the tarball bytes";
        let sig = f.key.sign(tgz).to_bytes().to_vec();
        let archive = PackArchive::default();
        let ok = check_signature(&f.registry, "vendor.acme.x", "1.0.0", &manifest, &archive, tgz, Some(sig.clone()));
        assert!(matches!(ok, Ok(SignatureCheck::Verified { ref scheme, .. }) if scheme == "ed25519"), "{ok:?}");
        let bad = check_signature(&f.registry, "vendor.acme.x", "1.0.0", &manifest, &archive, b"other", Some(sig));
        assert_eq!(code_and_reason(bad).1, "signature_mismatch");
        assert_eq!(
            check_signature(&f.registry, "n", "1", &json!({}), &archive, tgz, None).unwrap(),
            SignatureCheck::Unsigned
        );
        // Older registry manifests name the key `keyId` beside `method: "ed25519"`.
        let manifest = json!({"name": "vendor.acme.x", "version": "1.0.0",
            "signing": {"method": "ed25519", "keyId": "k1", "publicKeyUrl": "/keys/k1.pub"}});
        let sig = f.key.sign(tgz).to_bytes().to_vec();
        assert!(check_signature(&f.registry, "vendor.acme.x", "1.0.0", &manifest, &archive, tgz, Some(sig)).is_ok());
    }

    #[test]
    fn the_tree_decides_the_recipe_and_relabelled_blocks_do_not_verify() {
        // A v2 block and signature, moved into a v1 tree: the block has no `method`, so it
        // is the legacy recipe over the whole tarball, which the signature does not cover.
        let v1 = v1_fixture();
        let v2_block = json!({"keyId": "k1", "scheme": V2_SCHEME});
        let e = reason(&v1, "vendor.acme.x", v2_block, |_| {}).unwrap_err();
        assert_eq!(e.details["reason"], "signature_mismatch");
        assert!(e.message.contains("never relabelled"), "{}", e.message);
        // A v1 block in a v2 tree is refused as the CLI's verifyV2 refuses it.
        let v2 = fixture();
        let manual = json!({"method": "manual", "publicKeyRef": "k1", "signatureRef": SIGNATURE_FILE});
        assert_eq!(code_and_reason(reason(&v2, "vendor.acme.x", manual.clone(), |_| {})).1, "legacy_fields");
        assert_eq!(code_and_reason(reason(&v2, "vendor.acme.x", json!({"keyId": "k1"}), |_| {})).1, "scheme");
        // The same v1 block verifies in the v1 tree (the packed block names the key).
        let manifest = json!({"name": "vendor.acme.x", "version": "1.0.0", "signing": manual});
        let bytes = jcs::canonical(&manifest).unwrap();
        let sig = v1.key.sign(&bytes).to_bytes().to_vec();
        let archive = PackArchive {
            files: [("pack.json".to_owned(), bytes), (SIGNATURE_FILE.to_owned(), sig.clone())].into_iter().collect(),
        };
        let ok = check_signature(&v1.registry, "vendor.acme.x", "1.0.0", &manifest, &archive, b"", Some(sig));
        assert!(matches!(ok, Ok(SignatureCheck::Verified { ref scheme, .. }) if scheme == "manual"), "{ok:?}");
    }

    #[test]
    fn signature_lengths_are_checked_before_the_served_and_packed_ones_are_compared() {
        let f = fixture();
        let (manifest, archive, sig) = signed(&f, json!({"keyId": "k1", "scheme": V2_SCHEME}), |_| {});
        let mut longer = sig.clone();
        longer.push(b'\n');
        let r = check_signature(&f.registry, "vendor.acme.x", "1.0.0", &manifest, &archive, b"", Some(longer));
        assert_eq!(code_and_reason(r), (code::PACK_SIGNATURE_INVALID, "signature_length".into()));
    }

    #[test]
    fn integrity_is_read_in_the_sri_form_only() {
        let sri_text = sri(b"abc");
        assert_eq!(sri_text, "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
        assert!(is_sri(&sri_text));
        assert!(integrity_matches(&sri_text, b"abc") && !integrity_matches(&sri_text, b"abd"));
        // The hex form names the same digest, and is refused as the OpenWOP CLI refuses it.
        let hex = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert!(!integrity_matches(hex, b"abc") && !is_sri(hex));
        assert!(!integrity_matches("sha512-x", b"abc") && !is_sri("sha256-short="));
    }

    #[test]
    fn a_revoked_key_does_not_verify_and_every_refusal_names_the_key() {
        let mut f = fixture();
        let v2 = json!({"keyId": "k1", "scheme": V2_SCHEME});
        f.registry.keys[0].status = crate::registry::keys::KeyStatus::named("revoked");
        let e = reason(&f, "vendor.acme.x", v2.clone(), |_| {}).unwrap_err();
        assert_eq!(
            (e.code, e.details["reason"].as_str(), e.details["keyId"].as_str()),
            (code::PACK_SIGNATURE_INVALID, Some("key_revoked"), Some("k1"))
        );
        f.registry.keys[0].status = crate::registry::keys::KeyStatus::named("rotated");
        let pretty =
            |b: &mut Vec<u8>| *b = serde_json::to_vec_pretty(&serde_json::from_slice::<Value>(b).unwrap()).unwrap();
        let e = reason(&f, "vendor.acme.x", v2, pretty).unwrap_err();
        assert_eq!((e.details["reason"].as_str(), e.details["keyId"].as_str()), (Some("not_canonical"), Some("k1")));
    }
}

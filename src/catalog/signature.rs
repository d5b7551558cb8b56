//! Ed25519 detached signatures over `pack.json` (node-packs §4.3, chain-packs §11a) and
//! the trusted-keys folder.
//!
//! Verifiable offline: `method: "manual"` with in-pack file references, and the v2
//! `{keyId, scheme: "ed25519-canonical-json"}` shape when the trusted-keys folder holds a
//! file named after the key id (`<keyId>.pub` or `<keyId>.pem`); a v2 signature covers the
//! RFC 8785 canonical bytes, which `pack.json` must be exactly. Registry key ids in a v1
//! block, Sigstore and the legacy tarball signature are reported as unverifiable, never
//! guessed at (`chainsmith verify` checks registry keys). Packs loaded from a `.tgz` are
//! verified from the files inside the archive.

use super::{finding_from, path_inside, read_bounded};
use crate::error::{Error, Finding, Severity, code};
use crate::pack::{MAX_MANIFEST_BYTES, Pack};
use crate::registry::keys::parse_public_key;
use crate::registry::{PackArchive, is_tarball_path, jcs};
use base64::Engine;
use ed25519_dalek::{Signature, VerifyingKey};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A PEM public key is a few hundred bytes; anything far larger is not one.
const MAX_KEY_BYTES: u64 = 64 * 1024;
/// Base64 of 64 bytes is 88 characters; leave room for whitespace.
const MAX_SIGNATURE_BYTES: u64 = 4096;
/// Files read from a trusted-keys folder at most.
const MAX_TRUSTED_KEYS: usize = 10_000;
/// The archive layout puts the signature at the root (§4.1) when `signatureRef` is absent.
const DEFAULT_SIGNATURE_REF: &str = "pack.json.sig";

/// Public keys the user trusts (`--trusted-keys DIR`): a key is trusted when the same
/// public key bytes are in this set.
#[derive(Debug, Clone, Default)]
pub struct TrustedKeys {
    keys: Vec<(PathBuf, VerifyingKey)>,
    /// Files in the folder that are not PEM SPKI Ed25519 keys (skipped, reported).
    pub findings: Vec<Finding>,
}

impl TrustedKeys {
    /// Read every regular file in `dir` (not recursive) as a PEM SPKI Ed25519 public key.
    pub fn load(dir: &Path) -> Result<Self, Error> {
        let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, &e))?;
        let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
        files.sort();
        files.truncate(MAX_TRUSTED_KEYS);
        let mut out = Self::default();
        for path in files {
            let parsed = read_bounded(&path, MAX_KEY_BYTES).and_then(|bytes| parse_public_key(&bytes));
            match parsed {
                Ok(key) => out.keys.push((path, key)),
                Err(msg) => out.findings.push(
                    Finding::warning(code::TRUSTED_KEY_INVALID, "", format!("{}: {msg}", path.display()))
                        .with("path", path.display().to_string()),
                ),
            }
        }
        Ok(out)
    }

    /// Add one PEM key (the GUI's settings page adds keys one by one).
    pub fn add_pem(&mut self, label: &Path, pem: &[u8]) -> Result<(), Error> {
        let key = parse_public_key(pem).map_err(|msg| {
            Error::new(code::TRUSTED_KEY_INVALID, format!("{}: {msg}", label.display()))
                .with("path", label.display().to_string())
        })?;
        self.keys.push((label.to_path_buf(), key));
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// A trusted key stored under its key id: `<id>`, `<id>.pub`, `<id>.pem`, `<id>.pub.pem`.
    pub fn find_by_id(&self, key_id: &str) -> Option<(&Path, &VerifyingKey)> {
        self.keys.iter().find_map(|(p, k)| {
            let name = p.file_name()?.to_str()?;
            let stem = name.strip_suffix(".pem").unwrap_or(name);
            let stem = stem.strip_suffix(".pub").unwrap_or(stem);
            (stem == key_id).then_some((p.as_path(), k))
        })
    }

    /// The file a trusted key came from, when `key` is trusted.
    pub fn find(&self, key: &VerifyingKey) -> Option<&Path> {
        self.keys.iter().find(|(_, k)| k.as_bytes() == key.as_bytes()).map(|(p, _)| p.as_path())
    }
}

/// The verification outcome (editor badges: ✓ trusted, ⚠ untrusted/unsigned, ✗ invalid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureStatus {
    /// No `signing` block.
    Unsigned,
    /// The signature verifies with a key from the trusted-keys folder.
    Trusted { key: PathBuf },
    /// The signature verifies, but its key is not trusted.
    Untrusted,
    /// The signature does not verify, or the references are malformed or hostile.
    Invalid { reason: String },
    /// Signed, but the signature cannot be checked here (missing file, unsupported method).
    Unverifiable { reason: String },
}

impl SignatureStatus {
    /// A short stable word for JSON output and badges.
    pub fn as_str(&self) -> &'static str {
        match self {
            SignatureStatus::Unsigned => "unsigned",
            SignatureStatus::Trusted { .. } => "trusted",
            SignatureStatus::Untrusted => "untrusted",
            SignatureStatus::Invalid { .. } => "invalid",
            SignatureStatus::Unverifiable { .. } => "unverifiable",
        }
    }
}

/// The status, plus the finding it yields under the policy (`None` for a trusted signature).
#[derive(Debug, Clone, PartialEq)]
pub struct SignatureReport {
    pub status: SignatureStatus,
    pub finding: Option<Finding>,
}

/// Verify a loaded pack. Its `pack.json` is re-read (from its folder, or from inside its
/// `.tgz`) so the exact bytes are verified; bytes that no longer parse to the loaded
/// manifest make the signature unverifiable.
pub fn verify_pack(pack: &Pack, keys: &TrustedKeys, require_signed: bool) -> SignatureReport {
    let name = pack.name();
    if pack.manifest.get("signing").is_none() {
        return policy(name, SignatureStatus::Unsigned, "/signing", keys, require_signed);
    }
    let unverifiable =
        |reason: String| policy(name, SignatureStatus::Unverifiable { reason }, "/signing", keys, require_signed);
    let archive = if is_tarball_path(&pack.source) {
        match PackArchive::read(&pack.source) {
            Ok(a) => Some(a),
            Err(e) => return unverifiable(format!("cannot re-read the tarball to verify it: {}", e.message)),
        }
    } else {
        None
    };
    let bytes = match &archive {
        Some(a) => match a.manifest() {
            Some(b) => b.to_vec(),
            None => return unverifiable("the tarball no longer holds a pack.json".into()),
        },
        None => match read_bounded(&pack.source, MAX_MANIFEST_BYTES) {
            Ok(b) => b,
            Err(msg) => return unverifiable(format!("cannot re-read pack.json to verify it: {msg}")),
        },
    };
    if !pack.manifest_is(&bytes) {
        return unverifiable("pack.json changed on disk since it was loaded; reload it to verify".to_owned());
    }
    let files = match &archive {
        Some(a) => Files::Archive(a),
        None => Files::Dir(pack.dir().unwrap_or(Path::new(""))),
    };
    let (status, pointer) = check(&files, &bytes, pack.manifest.get("signing"), keys);
    policy(name, status, &pointer, keys, require_signed)
}

/// Verify `pack.json` bytes whose pack folder is `dir`.
pub fn verify_manifest(dir: &Path, bytes: &[u8], keys: &TrustedKeys, require_signed: bool) -> SignatureReport {
    let manifest: Value = match crate::fsio::json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            let reason = format!("pack.json is not valid JSON: {e}");
            return policy("", SignatureStatus::Unverifiable { reason }, "", keys, require_signed);
        }
    };
    let name = manifest.get("name").and_then(Value::as_str).unwrap_or_default();
    let (status, pointer) = check(&Files::Dir(dir), bytes, manifest.get("signing"), keys);
    policy(name, status, &pointer, keys, require_signed)
}

/// Where a pack's referenced files (keys, signatures) are read from.
enum Files<'a> {
    Dir(&'a Path),
    Archive(&'a PackArchive),
}

enum ReadFail {
    /// The reference points outside the pack: an invalid signature block.
    Escapes(String),
    /// The file is not there or cannot be read.
    Missing { message: String, absent: bool },
}

impl Files<'_> {
    fn read(&self, reference: &str, limit: u64) -> Result<Vec<u8>, ReadFail> {
        match self {
            Files::Dir(dir) => {
                let path = path_inside(dir, reference).map_err(ReadFail::Escapes)?;
                read_bounded(&path, limit).map_err(|message| ReadFail::Missing { message, absent: !path.exists() })
            }
            Files::Archive(archive) => {
                let rel = Path::new(reference);
                if reference.is_empty()
                    || rel
                        .components()
                        .any(|c| !matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir))
                {
                    return Err(ReadFail::Escapes(format!("\"{reference}\" leaves the pack (absolute path or `..`)")));
                }
                let name = reference.trim_start_matches("./");
                match archive.file(name) {
                    Some(b) if b.len() as u64 <= limit => Ok(b.to_vec()),
                    Some(b) => Err(ReadFail::Missing {
                        message: format!("{name} is {} bytes; the limit is {limit}", b.len()),
                        absent: false,
                    }),
                    None => Err(ReadFail::Missing { message: format!("the tarball holds no {name}"), absent: true }),
                }
            }
        }
    }
}

/// The status and the manifest pointer it concerns.
fn check(files: &Files, bytes: &[u8], signing: Option<&Value>, keys: &TrustedKeys) -> (SignatureStatus, String) {
    let unverifiable = |reason: String, at: &str| (SignatureStatus::Unverifiable { reason }, at.to_owned());
    let invalid = |reason: String, at: &str| (SignatureStatus::Invalid { reason }, at.to_owned());
    let Some(signing) = signing else { return (SignatureStatus::Unsigned, "/signing".into()) };
    let Some(obj) = signing.as_object() else {
        return invalid("`signing` must be an object".into(), "/signing");
    };
    if obj.contains_key("keyId") || obj.contains_key("scheme") {
        return check_v2(files, bytes, obj, keys);
    }
    match obj.get("method").and_then(Value::as_str) {
        // Without a method, file references can only mean the manual recipe.
        Some("manual") | None => {}
        Some("sigstore") => {
            return unverifiable("Sigstore bundles are not verified by chainsmith".into(), "/signing/method");
        }
        Some(other) => {
            return unverifiable(
                format!("signing method \"{other}\" is not supported (only \"manual\" is verified offline)"),
                "/signing/method",
            );
        }
    }
    let Some(key_ref) = obj.get("publicKeyRef").and_then(Value::as_str) else {
        return unverifiable("`signing.publicKeyRef` is missing".into(), "/signing/publicKeyRef");
    };
    let sig_ref = obj.get("signatureRef").and_then(Value::as_str).unwrap_or(DEFAULT_SIGNATURE_REF);

    let key_bytes = match files.read(key_ref, MAX_KEY_BYTES) {
        Ok(b) => b,
        Err(ReadFail::Escapes(msg)) => return invalid(format!("publicKeyRef {msg}"), "/signing/publicKeyRef"),
        Err(ReadFail::Missing { message, absent }) if absent && looks_like_key_id(key_ref) => {
            return unverifiable(
                format!(
                    "publicKeyRef \"{key_ref}\" looks like a registry key id, not a file in the pack ({message}); \
                     registry key sets are checked by `chainsmith verify --registry`"
                ),
                "/signing/publicKeyRef",
            );
        }
        Err(ReadFail::Missing { message, .. }) => {
            return unverifiable(format!("cannot read the public key: {message}"), "/signing/publicKeyRef");
        }
    };
    let key = match parse_public_key(&key_bytes) {
        Ok(k) => k,
        Err(msg) => return unverifiable(format!("{key_ref}: {msg}"), "/signing/publicKeyRef"),
    };
    let sig_bytes = match files.read(sig_ref, MAX_SIGNATURE_BYTES) {
        Ok(b) => b,
        Err(ReadFail::Escapes(msg)) => return invalid(format!("signatureRef {msg}"), "/signing/signatureRef"),
        Err(ReadFail::Missing { message, .. }) => {
            return unverifiable(format!("cannot read the signature: {message}"), "/signing/signatureRef");
        }
    };
    let signature = match decode_signature(&sig_bytes) {
        Ok(s) => s,
        Err(msg) => return invalid(format!("{sig_ref}: {msg}"), "/signing/signatureRef"),
    };
    // Strict verification also refuses small-order keys and non-canonical signatures.
    if key.verify_strict(bytes, &signature).is_err() {
        return invalid("the Ed25519 signature does not match the bytes of pack.json".into(), "/signing");
    }
    match keys.find(&key) {
        Some(path) => (SignatureStatus::Trusted { key: path.to_path_buf() }, "/signing".into()),
        None => (SignatureStatus::Untrusted, "/signing/publicKeyRef".into()),
    }
}

/// v2 `ed25519-canonical-json` (interop §1.1), in the order of §1.3 as far as it applies
/// without a registry: block shape, key, canonical bytes, a raw 64-byte signature.
fn check_v2(
    files: &Files,
    bytes: &[u8],
    obj: &serde_json::Map<String, Value>,
    keys: &TrustedKeys,
) -> (SignatureStatus, String) {
    let invalid = |reason: String, at: &str| (SignatureStatus::Invalid { reason }, at.to_owned());
    if let Some(legacy) = ["method", "publicKeyRef", "signatureRef"].into_iter().find(|k| obj.contains_key(*k)) {
        return invalid(format!("a v2 signing block must not carry the v1 field `{legacy}`"), "/signing");
    }
    if obj.get("scheme").and_then(Value::as_str) != Some(crate::registry::sign::V2_SCHEME) {
        return invalid(
            format!("`signing.scheme` must be \"{}\"", crate::registry::sign::V2_SCHEME),
            "/signing/scheme",
        );
    }
    let Some(key_id) = obj.get("keyId").and_then(Value::as_str) else {
        return invalid("`signing.keyId` is missing".into(), "/signing/keyId");
    };
    let Some((key_path, key)) = keys.find_by_id(key_id) else {
        let reason = format!(
            "key \"{key_id}\" is not in the trusted-keys folder (a file named {key_id}.pub or {key_id}.pem); \
             registry keys are checked by `chainsmith verify --registry`"
        );
        return (SignatureStatus::Unverifiable { reason }, "/signing/keyId".into());
    };
    if !jcs::is_canonical(bytes) {
        return invalid("pack.json is not in RFC 8785 canonical form, which a v2 signature covers".into(), "/signing");
    }
    let sig_bytes = match files.read(crate::registry::sign::SIGNATURE_FILE, MAX_SIGNATURE_BYTES) {
        Ok(b) => b,
        Err(ReadFail::Escapes(msg) | ReadFail::Missing { message: msg, .. }) => {
            return (
                SignatureStatus::Unverifiable { reason: format!("cannot read keys/pack.json.sig: {msg}") },
                "/signing".into(),
            );
        }
    };
    let Ok(raw) = <[u8; 64]>::try_from(sig_bytes.as_slice()) else {
        return invalid(
            format!("keys/pack.json.sig is {} bytes; a v2 signature is 64 raw bytes", sig_bytes.len()),
            "/signing",
        );
    };
    if key.verify_strict(bytes, &Signature::from_bytes(&raw)).is_err() {
        return invalid(format!("the Ed25519 signature does not verify with key \"{key_id}\""), "/signing");
    }
    (SignatureStatus::Trusted { key: key_path.to_path_buf() }, "/signing".into())
}

/// A registry key id (`openwop-team-1`) has no folder and no extension.
fn looks_like_key_id(reference: &str) -> bool {
    !reference.contains(['/', '\\']) && Path::new(reference).extension().is_none()
}

/// 64 raw bytes, or their base64 text (standard alphabet, padding optional).
fn decode_signature(bytes: &[u8]) -> Result<Signature, String> {
    if let Ok(raw) = <[u8; 64]>::try_from(bytes) {
        return Ok(Signature::from_bytes(&raw));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|_| format!("{} bytes: neither 64 raw bytes nor base64 text", bytes.len()))?;
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(&compact)
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(&compact))
        .map_err(|e| format!("not base64: {e}"))?;
    let raw = <[u8; 64]>::try_from(decoded.as_slice())
        .map_err(|_| format!("decodes to {} bytes; an Ed25519 signature is 64", decoded.len()))?;
    Ok(Signature::from_bytes(&raw))
}

/// Apply the trust policy: which statuses are errors, which warnings.
fn policy(
    name: &str,
    status: SignatureStatus,
    pointer: &str,
    keys: &TrustedKeys,
    require_signed: bool,
) -> SignatureReport {
    let severity = if require_signed { Severity::Error } else { Severity::Warning };
    let who = if name.is_empty() { "the pack".to_owned() } else { name.to_owned() };
    let err = match &status {
        SignatureStatus::Trusted { .. } => None,
        SignatureStatus::Unsigned => Some((
            code::PACK_UNSIGNED,
            severity,
            if require_signed {
                format!("{who} is unsigned, and signatures are required")
            } else {
                format!("{who} is unsigned; it is accepted without a signature")
            },
        )),
        SignatureStatus::Untrusted => Some((
            code::PACK_SIGNATURE_UNTRUSTED,
            severity,
            format!(
                "{who} carries a valid signature by a key that is not among the {}",
                crate::words::count(keys.len(), "trusted key", "trusted keys")
            ),
        )),
        SignatureStatus::Invalid { reason } => {
            Some((code::PACK_SIGNATURE_INVALID, Severity::Error, format!("signature of {who} is invalid: {reason}")))
        }
        SignatureStatus::Unverifiable { reason } => Some((
            code::PACK_SIGNATURE_UNVERIFIABLE,
            severity,
            format!("signature of {who} cannot be verified: {reason}"),
        )),
    };
    let finding = err.map(|(code, severity, message)| {
        let mut e = Error::new(code, message);
        if !name.is_empty() {
            e = e.with("packName", name);
        }
        finding_from(e, pointer, severity)
    });
    SignatureReport { status, finding }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::pkcs8::EncodePublicKey;
    use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
    use ed25519_dalek::{Signer, SigningKey};
    use serde_json::json;

    fn key() -> SigningKey {
        SigningKey::from_bytes(&rand::random::<[u8; 32]>())
    }

    fn pem(k: &SigningKey) -> String {
        k.verifying_key().to_public_key_pem(LineEnding::LF).unwrap()
    }

    /// A signed pack folder; returns its `pack.json` bytes.
    fn signed_pack(dir: &Path, k: &SigningKey, signing: Value, base64_sig: bool) -> Vec<u8> {
        let manifest = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "signing": signing});
        let bytes = serde_json::to_vec_pretty(&manifest).unwrap();
        std::fs::create_dir_all(dir.join("keys")).unwrap();
        std::fs::write(dir.join("pack.json"), &bytes).unwrap();
        std::fs::write(dir.join("keys/acme.pem"), pem(k)).unwrap();
        let sig = k.sign(&bytes).to_bytes();
        let sig_file: Vec<u8> = if base64_sig {
            format!("{}\n", base64::engine::general_purpose::STANDARD.encode(sig)).into_bytes()
        } else {
            sig.to_vec()
        };
        std::fs::write(dir.join("keys/pack.json.sig"), sig_file).unwrap();
        bytes
    }

    fn manual() -> Value {
        json!({"method": "manual", "publicKeyRef": "keys/acme.pem", "signatureRef": "keys/pack.json.sig"})
    }

    fn trusting(k: &SigningKey) -> TrustedKeys {
        let mut t = TrustedKeys::default();
        t.add_pem(Path::new("acme.pem"), pem(k).as_bytes()).unwrap();
        t
    }

    #[test]
    fn valid_signature_with_trusted_key_raw_and_base64() {
        for base64_sig in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let k = key();
            let bytes = signed_pack(dir.path(), &k, manual(), base64_sig);
            let r = verify_manifest(dir.path(), &bytes, &trusting(&k), true);
            assert_eq!(r.status, SignatureStatus::Trusted { key: PathBuf::from("acme.pem") });
            assert_eq!(r.finding, None);
        }
    }

    #[test]
    fn valid_but_untrusted_is_a_warning_or_an_error_when_required() {
        let dir = tempfile::tempdir().unwrap();
        let k = key();
        let bytes = signed_pack(dir.path(), &k, manual(), false);
        let r = verify_manifest(dir.path(), &bytes, &trusting(&key()), false);
        assert_eq!(r.status, SignatureStatus::Untrusted);
        let f = r.finding.unwrap();
        assert_eq!((f.code, f.severity), (code::PACK_SIGNATURE_UNTRUSTED, Severity::Warning));
        let f = verify_manifest(dir.path(), &bytes, &TrustedKeys::default(), true).finding.unwrap();
        assert_eq!(f.severity, Severity::Error);
    }

    #[test]
    fn tampered_bytes_are_invalid() {
        let dir = tempfile::tempdir().unwrap();
        let k = key();
        let mut bytes = signed_pack(dir.path(), &k, manual(), false);
        bytes.push(b'\n');
        let r = verify_manifest(dir.path(), &bytes, &trusting(&k), false);
        assert!(matches!(r.status, SignatureStatus::Invalid { .. }));
        let f = r.finding.unwrap();
        assert_eq!((f.code, f.severity), (code::PACK_SIGNATURE_INVALID, Severity::Error));
        // A signature by another key is just as invalid.
        let other = key().sign(&bytes).to_bytes();
        std::fs::write(dir.path().join("keys/pack.json.sig"), other).unwrap();
        assert!(matches!(
            verify_manifest(dir.path(), &bytes, &trusting(&k), false).status,
            SignatureStatus::Invalid { .. }
        ));
        // Garbage signature text is invalid, not a crash.
        std::fs::write(dir.path().join("keys/pack.json.sig"), "%%%").unwrap();
        assert!(matches!(
            verify_manifest(dir.path(), &bytes, &trusting(&k), false).status,
            SignatureStatus::Invalid { .. }
        ));
    }

    #[test]
    fn missing_or_unreadable_files_are_unverifiable() {
        let dir = tempfile::tempdir().unwrap();
        let k = key();
        let bytes = signed_pack(dir.path(), &k, manual(), false);
        std::fs::remove_file(dir.path().join("keys/pack.json.sig")).unwrap();
        let f = verify_manifest(dir.path(), &bytes, &trusting(&k), false).finding.unwrap();
        assert_eq!((f.code, f.pointer.as_str()), (code::PACK_SIGNATURE_UNVERIFIABLE, "/signing/signatureRef"));
        std::fs::write(dir.path().join("keys/acme.pem"), "not a key").unwrap();
        let f = verify_manifest(dir.path(), &bytes, &trusting(&k), false).finding.unwrap();
        assert_eq!((f.code, f.pointer.as_str()), (code::PACK_SIGNATURE_UNVERIFIABLE, "/signing/publicKeyRef"));
    }

    #[test]
    fn registry_key_ids_v2_shape_and_other_methods_are_unverifiable() {
        let dir = tempfile::tempdir().unwrap();
        let k = key();
        for signing in [
            json!({"method": "manual", "publicKeyRef": "openwop-team-1", "signatureRef": "keys/pack.json.sig"}),
            json!({"keyId": "openwop-team-1", "scheme": "ed25519-canonical-json"}),
            json!({"method": "sigstore"}),
            json!({"method": "ed25519", "publicKeyRef": "keys/acme.pem"}),
            json!({"method": "manual"}),
        ] {
            let bytes = signed_pack(dir.path(), &k, signing.clone(), false);
            let r = verify_manifest(dir.path(), &bytes, &trusting(&k), false);
            assert!(matches!(r.status, SignatureStatus::Unverifiable { .. }), "{signing}: {:?}", r.status);
            assert_eq!(r.finding.unwrap().code, code::PACK_SIGNATURE_UNVERIFIABLE);
        }
        let bytes = signed_pack(dir.path(), &k, json!({"publicKeyRef": "openwop-team-1"}), false);
        let f = verify_manifest(dir.path(), &bytes, &trusting(&k), false).finding.unwrap();
        assert!(f.message.contains("registry key id"), "{}", f.message);
    }

    #[test]
    fn references_outside_the_pack_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let k = key();
        let signing = json!({"method": "manual", "publicKeyRef": "../acme.pem", "signatureRef": "keys/pack.json.sig"});
        let bytes = signed_pack(&dir.path().join("p"), &k, signing, false);
        std::fs::write(dir.path().join("acme.pem"), pem(&k)).unwrap();
        let f = verify_manifest(&dir.path().join("p"), &bytes, &trusting(&k), false).finding.unwrap();
        assert_eq!((f.code, f.pointer), (code::PACK_SIGNATURE_INVALID, "/signing/publicKeyRef".to_owned()));
    }

    #[test]
    fn unsigned_is_a_warning_unless_signatures_are_required() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = br#"{"name": "vendor.acme.tiles"}"#;
        let r = verify_manifest(dir.path(), bytes, &TrustedKeys::default(), false);
        assert_eq!(r.status, SignatureStatus::Unsigned);
        assert_eq!(r.finding.as_ref().unwrap().severity, Severity::Warning);
        let f = verify_manifest(dir.path(), bytes, &TrustedKeys::default(), true).finding.unwrap();
        assert_eq!((f.code, f.severity), (code::PACK_UNSIGNED, Severity::Error));
        assert_eq!(f.details["packName"], "vendor.acme.tiles");
    }

    #[test]
    fn trusted_keys_folder_skips_non_keys() {
        let dir = tempfile::tempdir().unwrap();
        let k = key();
        std::fs::write(dir.path().join("a.pem"), pem(&k)).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
        let t = TrustedKeys::load(dir.path()).unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!(t.findings[0].code, code::TRUSTED_KEY_INVALID);
        assert_eq!(t.find(&k.verifying_key()), Some(dir.path().join("a.pem").as_path()));
        assert!(TrustedKeys::load(&dir.path().join("none")).is_err());
    }

    #[test]
    fn verify_pack_rereads_the_file_and_notices_changes() {
        let dir = tempfile::tempdir().unwrap();
        let k = key();
        signed_pack(dir.path(), &k, manual(), false);
        let pack = crate::pack::load_file(&dir.path().join("pack.json"), Default::default()).unwrap();
        assert!(matches!(verify_pack(&pack, &trusting(&k), true).status, SignatureStatus::Trusted { .. }));
        std::fs::write(dir.path().join("pack.json"), "{}").unwrap();
        assert!(matches!(verify_pack(&pack, &trusting(&k), true).status, SignatureStatus::Unverifiable { .. }));
    }

    #[test]
    fn a_manifest_changed_in_memory_is_not_vouched_for_by_the_file_it_was_read_from() {
        let dir = tempfile::tempdir().unwrap();
        let k = key();
        signed_pack(dir.path(), &k, manual(), false);
        let mut pack = crate::pack::load_file(&dir.path().join("pack.json"), Default::default()).unwrap();
        assert!(pack.loaded_from.is_some(), "a signed manifest keeps the digest of its bytes");
        assert!(matches!(verify_pack(&pack, &trusting(&k), true).status, SignatureStatus::Trusted { .. }));
        // The file is untouched, but the pack's own manifest no longer is what it holds.
        std::sync::Arc::make_mut(&mut pack.manifest)["version"] = json!("9.9.9");
        let status = verify_pack(&pack, &trusting(&k), true).status;
        assert!(
            matches!(&status, SignatureStatus::Unverifiable { reason } if reason.contains("changed")),
            "{status:?}"
        );
    }

    /// A v2-signed pack folder (signed by `pack sign --key-id`) and a trusted-keys folder
    /// holding its key as `<keyId>.pub`.
    fn v2_pack(dir: &Path, k: &SigningKey) -> (Vec<u8>, TrustedKeys) {
        let m = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
            "engines": {"openwop": ">=1.0.0 <3.0.0"},
            "chains": [{"chainId": "acme.c", "version": "1.0.0", "label": "C", "description": "d",
                "parameters": {"type": "object", "properties": {}},
                "dag": {"nodes": [{"id": "a", "typeId": "core.identity@1.0.0"}]}}]});
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("pack.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
        crate::registry::sign_pack(dir, k, crate::registry::Scheme::V2 { key_id: "acme-1" }).unwrap();
        let keys_dir = dir.parent().unwrap().join("trusted");
        std::fs::create_dir_all(&keys_dir).unwrap();
        std::fs::write(keys_dir.join("acme-1.pub"), pem(k)).unwrap();
        (std::fs::read(dir.join("pack.json")).unwrap(), TrustedKeys::load(&keys_dir).unwrap())
    }

    #[test]
    fn v2_signatures_verify_with_a_trusted_key_named_by_its_id() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("p");
        let k = key();
        let (bytes, trusted) = v2_pack(&dir, &k);
        let r = verify_manifest(&dir, &bytes, &trusted, true);
        assert_eq!(r.status, SignatureStatus::Trusted { key: root.path().join("trusted/acme-1.pub") });
        // Without the key file: unverifiable, never trusted.
        let r = verify_manifest(&dir, &bytes, &TrustedKeys::default(), false);
        assert!(matches!(r.status, SignatureStatus::Unverifiable { .. }), "{:?}", r.status);
        // Another canonical manifest under the same signature: invalid.
        let tampered = String::from_utf8(bytes.clone()).unwrap().replace("\"1.0.0\"}", "\"1.0.1\"}");
        assert_ne!(tampered.as_bytes(), bytes.as_slice());
        let r = verify_manifest(&dir, tampered.as_bytes(), &trusted, false);
        assert!(matches!(r.status, SignatureStatus::Invalid { .. }), "{:?}", r.status);
        // The same manifest pretty-printed is not the signed bytes.
        let pretty = serde_json::to_vec_pretty(&serde_json::from_slice::<Value>(&bytes).unwrap()).unwrap();
        let r = verify_manifest(&dir, &pretty, &trusted, false);
        assert!(
            matches!(&r.status, SignatureStatus::Invalid { reason } if reason.contains("canonical")),
            "{:?}",
            r.status
        );
        // A signature that is not 64 raw bytes.
        std::fs::write(dir.join("keys/pack.json.sig"), [1u8; 63]).unwrap();
        assert!(matches!(verify_manifest(&dir, &bytes, &trusted, false).status, SignatureStatus::Invalid { .. }));
    }

    #[test]
    fn packs_loaded_from_tarballs_verify_from_the_archive() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("p");
        let k = key();
        let (bytes, trusted) = v2_pack(&dir, &k);
        let sig = std::fs::read(dir.join("keys/pack.json.sig")).unwrap();
        let files = [("pack.json".to_owned(), bytes), ("keys/pack.json.sig".to_owned(), sig)].into_iter().collect();
        let tgz = root.path().join("p.tgz");
        std::fs::write(&tgz, crate::registry::tarball::build(&files).unwrap()).unwrap();
        let pack = crate::pack::load_file(&tgz, Default::default()).unwrap();
        assert!(pack.is_valid(), "{:?}", pack.findings);
        assert!(matches!(verify_pack(&pack, &trusted, true).status, SignatureStatus::Trusted { .. }));
        let mut files = files;
        files.insert("keys/pack.json.sig".into(), vec![0u8; 64]);
        std::fs::write(&tgz, crate::registry::tarball::build(&files).unwrap()).unwrap();
        assert!(matches!(verify_pack(&pack, &trusted, true).status, SignatureStatus::Invalid { .. }));
    }
}

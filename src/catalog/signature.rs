//! Ed25519 detached signatures over `pack.json` (node-packs §4.3, chain-packs §11a) and
//! the trusted-keys folder.
//!
//! Only `method: "manual"` with in-pack file references is verifiable offline. Registry
//! key ids, the v2 `{keyId, scheme}` shape, Sigstore and the legacy tarball signature are
//! reported as unverifiable, never guessed at.

use super::{finding_from, path_inside, read_bounded};
use crate::error::{Error, Finding, Severity, code};
use crate::pack::{MAX_MANIFEST_BYTES, Pack};
use base64::Engine;
use ed25519_dalek::pkcs8::DecodePublicKey;
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

    /// The file a trusted key came from, when `key` is trusted.
    pub fn find(&self, key: &VerifyingKey) -> Option<&Path> {
        self.keys.iter().find(|(_, k)| k.as_bytes() == key.as_bytes()).map(|(p, _)| p.as_path())
    }
}

fn parse_public_key(bytes: &[u8]) -> Result<VerifyingKey, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "a public key must be PEM text".to_owned())?;
    VerifyingKey::from_public_key_pem(text.trim()).map_err(|e| format!("not a PEM SPKI Ed25519 public key ({e})"))
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

/// Verify a loaded pack. Its `pack.json` is re-read so the exact bytes are verified;
/// bytes that no longer parse to the loaded manifest make the signature unverifiable.
pub fn verify_pack(pack: &Pack, keys: &TrustedKeys, require_signed: bool) -> SignatureReport {
    let name = pack.name();
    if pack.manifest.get("signing").is_none() {
        return policy(name, SignatureStatus::Unsigned, "/signing", keys, require_signed);
    }
    let bytes = match read_bounded(&pack.source, MAX_MANIFEST_BYTES) {
        Ok(b) => b,
        Err(msg) => {
            let reason = format!("cannot re-read pack.json to verify it: {msg}");
            return policy(name, SignatureStatus::Unverifiable { reason }, "/signing", keys, require_signed);
        }
    };
    if serde_json::from_slice::<Value>(&bytes).ok().as_ref() != Some(&pack.manifest) {
        let reason = "pack.json changed on disk since it was loaded; reload it to verify".to_owned();
        return policy(name, SignatureStatus::Unverifiable { reason }, "/signing", keys, require_signed);
    }
    verify_manifest(pack.dir().unwrap_or(Path::new("")), &bytes, keys, require_signed)
}

/// Verify `pack.json` bytes whose pack folder is `dir`.
pub fn verify_manifest(dir: &Path, bytes: &[u8], keys: &TrustedKeys, require_signed: bool) -> SignatureReport {
    let manifest: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            let reason = format!("pack.json is not valid JSON: {e}");
            return policy("", SignatureStatus::Unverifiable { reason }, "", keys, require_signed);
        }
    };
    let name = manifest.get("name").and_then(Value::as_str).unwrap_or_default();
    let (status, pointer) = check(dir, bytes, manifest.get("signing"), keys);
    policy(name, status, &pointer, keys, require_signed)
}

/// The status and the manifest pointer it concerns.
fn check(dir: &Path, bytes: &[u8], signing: Option<&Value>, keys: &TrustedKeys) -> (SignatureStatus, String) {
    let unverifiable = |reason: String, at: &str| (SignatureStatus::Unverifiable { reason }, at.to_owned());
    let invalid = |reason: String, at: &str| (SignatureStatus::Invalid { reason }, at.to_owned());
    let Some(signing) = signing else { return (SignatureStatus::Unsigned, "/signing".into()) };
    let Some(obj) = signing.as_object() else {
        return invalid("`signing` must be an object".into(), "/signing");
    };
    if obj.contains_key("keyId") || obj.contains_key("scheme") {
        return unverifiable(
            "v2 signing ({keyId, scheme}) signs RFC 8785 canonical bytes with a registry key; \
             registry key sets are not consulted offline"
                .into(),
            "/signing",
        );
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

    let key_path = match path_inside(dir, key_ref) {
        Ok(p) => p,
        Err(msg) => return invalid(format!("publicKeyRef {msg}"), "/signing/publicKeyRef"),
    };
    let key_bytes = match read_bounded(&key_path, MAX_KEY_BYTES) {
        Ok(b) => b,
        Err(msg) if !key_path.exists() && looks_like_key_id(key_ref) => {
            return unverifiable(
                format!(
                    "publicKeyRef \"{key_ref}\" looks like a registry key id, not a file in the pack ({msg}); \
                     registry key sets are not consulted offline"
                ),
                "/signing/publicKeyRef",
            );
        }
        Err(msg) => return unverifiable(format!("cannot read the public key: {msg}"), "/signing/publicKeyRef"),
    };
    let key = match parse_public_key(&key_bytes) {
        Ok(k) => k,
        Err(msg) => return unverifiable(format!("{}: {msg}", key_path.display()), "/signing/publicKeyRef"),
    };
    let sig_path = match path_inside(dir, sig_ref) {
        Ok(p) => p,
        Err(msg) => return invalid(format!("signatureRef {msg}"), "/signing/signatureRef"),
    };
    let sig_bytes = match read_bounded(&sig_path, MAX_SIGNATURE_BYTES) {
        Ok(b) => b,
        Err(msg) => return unverifiable(format!("cannot read the signature: {msg}"), "/signing/signatureRef"),
    };
    let signature = match decode_signature(&sig_bytes) {
        Ok(s) => s,
        Err(msg) => return invalid(format!("{}: {msg}", sig_path.display()), "/signing/signatureRef"),
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
            format!("{who} carries a valid signature by a key that is not among the {} trusted key(s)", keys.len()),
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
}

//! Registry facts restated from interop.md and the OpenWOP CLI, independently of chainsmith's
//! code: the SRI text of a tarball, the namespace rule, an SPKI Ed25519 key, the tree a
//! discovery document names, and what "inside the registry folder" means.

use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Component, Path};

/// `sha256-<base64>` of `bytes`.
pub fn sri(bytes: &[u8]) -> String {
    format!("sha256-{}", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(bytes)))
}

/// interop §1.2 rule 8: `a.b.*` covers names below `a.b.`; anything else covers itself.
pub fn covers(namespace: &str, name: &str) -> bool {
    match namespace.strip_suffix(".*") {
        Some(stem) => name.len() > stem.len() + 1 && name.starts_with(stem) && name.as_bytes()[stem.len()] == b'.',
        None => !namespace.ends_with('*') && namespace == name,
    }
}

/// The 12-byte DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410).
const SPKI_PREFIX: [u8; 12] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];

/// The 32 key bytes of a `BEGIN PUBLIC KEY` PEM holding an Ed25519 SPKI.
pub fn spki_key(pem: &[u8]) -> Option<[u8; 32]> {
    let text = std::str::from_utf8(pem).ok()?.trim();
    let body = text.strip_prefix("-----BEGIN PUBLIC KEY-----")?.strip_suffix("-----END PUBLIC KEY-----")?;
    let b64: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let der = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
    (der.len() == 44 && der[..12] == SPKI_PREFIX).then(|| der[12..].try_into().expect("32 bytes"))
}

/// Whether `sig` is an Ed25519 signature of `message` by `key`.
pub fn signature_verifies(key: &[u8; 32], message: &[u8], sig: &[u8]) -> bool {
    let Ok(key) = ed25519_dalek::VerifyingKey::from_bytes(key) else { return false };
    let Ok(sig) = <[u8; 64]>::try_from(sig) else { return false };
    key.verify_strict(message, &ed25519_dalek::Signature::from_bytes(&sig)).is_ok()
}

/// The templates the OpenWOP CLI requires of a tree.
const TEMPLATES: [&str; 5] = ["registryIndex", "packMetadata", "versionManifest", "versionTarball", "versionSignature"];

/// Whether the document names a whole v2 tree: `endpoints.v2` with all five string templates.
pub fn names_whole_v2(doc: &Value) -> bool {
    doc.pointer("/endpoints/v2")
        .and_then(Value::as_object)
        .is_some_and(|m| TEMPLATES.iter().all(|k| m.get(*k).is_some_and(Value::is_string)))
}

/// Whether `path` is `root` or below it, by components only (no `..`, no root jump).
pub fn inside(root: &Path, path: &Path) -> bool {
    path.strip_prefix(root).is_ok_and(|rest| rest.components().all(|c| matches!(c, Component::Normal(_))))
}

/// The `signingKeys[]` entry named `key_id` (the first, as a client looks it up).
pub fn key_entry<'a>(doc: &'a Value, key_id: &str) -> Option<&'a Value> {
    doc.get("signingKeys")?.as_array()?.iter().find(|k| k.get("keyId").and_then(Value::as_str) == Some(key_id))
}

#[cfg(test)]
mod tests {
    use super::covers;

    #[test]
    fn namespace_rule() {
        assert!(covers("vendor.acme.*", "vendor.acme.x"));
        assert!(!covers("vendor.acme.*", "vendor.acme"));
        assert!(!covers("vendor.acme.*", "vendor.acmex.y"));
        assert!(covers("vendor.acme.x", "vendor.acme.x"));
        assert!(!covers("vendor.*x", "vendor.ax"));
    }
}

//! Signing a pack folder (`chainsmith pack sign`).
//!
//! Both recipes sign the RFC 8785 canonical bytes of the whole `pack.json`, `signing`
//! block included, and write exactly those bytes back as `pack.json` (no final newline),
//! with the raw 64-byte signature in `keys/pack.json.sig` — the form registries serve
//! (interop §1.1, §1.5):
//! - v2 (`--key-id ID`): `signing = {keyId, scheme: "ed25519-canonical-json"}`; the key is
//!   found through the registry's `signingKeys[]` (or a trusted-keys file named `ID.pub`).
//! - v1 manual (no key id): `signing = {method: "manual", publicKeyRef, signatureRef}` with
//!   the public key written into the pack, so `validate --trusted-keys` can check it offline.
//!
//! Nothing is written through a symbolic link inside the pack folder (`pack.json`, `keys/`,
//! the files in it): a pack folder may come from someone else. Numbers JCS cannot carry
//! exactly are refused with their JSON pointer, never rounded and written back.

use super::jcs;
use super::keys::{self, KeyUse, check_key_status};
use super::layout::Registry;
use crate::error::{Error, Result, code};
use crate::fsio::contained::Folder;
use crate::pack::{LoadOptions, MAX_MANIFEST_BYTES, load_bytes};
use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

pub const V2_SCHEME: &str = "ed25519-canonical-json";
/// Where both recipes keep the signature inside the pack.
pub const SIGNATURE_FILE: &str = "keys/pack.json.sig";
/// The pack's folder for signing files, and the names of those files in it.
const KEYS_FOLDER: &str = "keys";
const SIGNATURE_NAME: &str = "pack.json.sig";
/// Where the v1 recipe puts the signer's public key inside the pack.
const V1_PUBLIC_KEY_FILE: &str = "keys/pack.pub.pem";
const V1_PUBLIC_KEY_NAME: &str = "pack.pub.pem";

/// Which signature to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme<'a> {
    /// v1 `method: "manual"` with the public key inside the pack.
    V1Manual,
    /// v2 `ed25519-canonical-json` under a registry key id.
    V2 { key_id: &'a str },
}

/// What `sign_pack` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    pub name: String,
    pub version: String,
    pub scheme: &'static str,
    pub key_id: Option<String>,
    pub manifest: PathBuf,
    pub signature: PathBuf,
    pub public_key: Option<PathBuf>,
}

/// Set the `signing` block and sign: returns the canonical `pack.json` bytes and the raw
/// signature over them. `manifest` must be a JSON object.
pub fn sign_manifest(manifest: &mut Value, key: &SigningKey, scheme: Scheme) -> Result<(Vec<u8>, [u8; 64])> {
    let obj = manifest
        .as_object_mut()
        .ok_or_else(|| Error::new(code::INVALID_MANIFEST, "a manifest is a JSON object").with("path", ""))?;
    let signing = match scheme {
        Scheme::V1Manual => json!({
            "method": "manual", "publicKeyRef": V1_PUBLIC_KEY_FILE, "signatureRef": SIGNATURE_FILE
        }),
        Scheme::V2 { key_id } => {
            check_key_id(key_id)?;
            json!({"keyId": key_id, "scheme": V2_SCHEME})
        }
    };
    obj.insert("signing".into(), signing);
    let bytes = jcs::canonical(manifest).map_err(|msg| Error::new(code::INVALID_MANIFEST, msg).with("path", ""))?;
    let signature = key.sign(&bytes).to_bytes();
    Ok((bytes, signature))
}

/// A key id is one URI path segment (`/keys/{keyId}.pub`): printable, no separators.
pub fn check_key_id(key_id: &str) -> Result<()> {
    let ok = !key_id.is_empty()
        && key_id.len() <= 128
        && key_id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '~' | ':'))
        && !key_id.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            code::INVALID_REQUEST,
            format!("key id \"{key_id}\" must be 1-128 characters of A-Z a-z 0-9 . _ - ~ : (not starting with a dot)"),
        )
        .with("keyId", key_id))
    }
}

/// The `pack.json` of a pack folder (or the file itself).
pub fn manifest_path(path: &Path) -> PathBuf {
    if path.is_dir() { path.join("pack.json") } else { path.to_path_buf() }
}

/// Whether `key` may sign `name` as registry key `key_id`: the key is one of the registry's
/// `signingKeys[]`, `active` ([`check_key_status`]), covers the name, and its published
/// public key is this private key's. `Err` is `pack_signature_invalid` with
/// `details.reason` (`unknown_key`, `key_revoked`, `key_not_active`, `namespace`,
/// `key_mismatch`) and the key id. Publishing under a registry key calls this too.
pub fn check_signer(registry: &Registry, key_id: &str, key: &SigningKey, name: &str) -> Result<()> {
    let refuse = |reason: &str, message: String| {
        Error::new(code::PACK_SIGNATURE_INVALID, message).with("reason", reason).with("keyId", key_id)
    };
    let entry = registry
        .key(key_id)
        .ok_or_else(|| refuse("unknown_key", format!("key \"{key_id}\" is not among the registry's signingKeys")))?;
    check_key_status(key_id, &entry.status, KeyUse::Sign)?;
    if !entry.covers(name) {
        return Err(refuse(
            "namespace",
            format!(
                "key \"{key_id}\" may not sign {name}: it may sign only {}; sign with a key whose namespaces \
                 cover {name}",
                entry.permitted_namespaces.join(", ")
            ),
        ));
    }
    let published = registry
        .public_key(entry)
        .map_err(|msg| refuse("unknown_key", format!("key \"{key_id}\" cannot be read: {msg}")))?;
    if published != key.verifying_key() {
        return Err(refuse(
            "key_mismatch",
            format!("the private key given is not registry key \"{key_id}\" (its public key differs)"),
        ));
    }
    Ok(())
}

/// Sign the pack at `path` (its folder or its `pack.json`) in place. A manifest with
/// errors is refused: a signature would freeze them.
pub fn sign_pack(path: &Path, key: &SigningKey, scheme: Scheme) -> Result<Signed> {
    sign_pack_for(path, key, scheme, None)
}

/// [`sign_pack`], and with `registry` the v2 key must be one that registry lets sign this
/// pack ([`check_signer`]).
pub fn sign_pack_for(path: &Path, key: &SigningKey, scheme: Scheme, registry: Option<&Registry>) -> Result<Signed> {
    let manifest_file = manifest_path(path);
    let dir = manifest_file.parent().map(Path::to_path_buf).unwrap_or_default();
    let manifest_name = manifest_file.file_name().and_then(|n| n.to_str()).unwrap_or("pack.json");
    // Every write goes through this one handle on the pack folder, so a link put into the
    // folder at any moment (`keys`, the signature, the manifest) is refused or replaced,
    // never written through.
    let folder = Folder::open(&dir)?;
    folder.refuse_link(manifest_name)?;
    let original = crate::fsio::read_limited(&manifest_file, MAX_MANIFEST_BYTES, code::PACK_MANIFEST_INVALID)?;
    let mut manifest = jcs::parse_strict_located(&original).map_err(|refusal| {
        let code = if refusal.number { code::NUMBER_NOT_SIGNABLE } else { code::PACK_MANIFEST_INVALID };
        let at = if refusal.number { refusal.pointer.clone() } else { manifest_file.display().to_string() };
        Error::new(code, format!("{}: {refusal}", manifest_file.display()))
            .with("path", at)
            .with("file", manifest_file.display().to_string())
    })?;
    // Each whole copy of a large manifest goes as soon as it is spent: the file read once
    // parsed, the parsed value once signed (the pack is loaded from the signed bytes).
    drop(original);
    if let Scheme::V2 { .. } = scheme {
        // Checked before the block is added: what install would refuse is never signed.
        crate::pack::v2::check_signable(&manifest).map_err(|e| e.with("file", manifest_file.display().to_string()))?;
    }
    let (bytes, signature) = sign_manifest(&mut manifest, key, scheme)?;
    drop(manifest);
    let pack = load_bytes(&manifest_file, &bytes, LoadOptions::default())?;
    if let Some(first) = pack.errors().next() {
        let count = pack.errors().count();
        return Err(first.clone().into_error().with("errors", count).with("file", manifest_file.display().to_string()));
    }
    if let (Some(registry), Scheme::V2 { key_id }) = (registry, scheme) {
        check_signer(registry, key_id, key, pack.name())?;
    }

    let keys_folder = folder.child(KEYS_FOLDER, true)?;
    let public_key = match scheme {
        Scheme::V1Manual => {
            Some(keys_folder.write(V1_PUBLIC_KEY_NAME, keys::public_key_pem(&key.verifying_key()).as_bytes())?)
        }
        Scheme::V2 { .. } => None,
    };
    let signature_file = keys_folder.write(SIGNATURE_NAME, &signature)?;
    // The manifest last: until it is replaced, the old pack.json stays whole.
    folder.write(manifest_name, &bytes)?;
    Ok(Signed {
        name: pack.name().to_owned(),
        version: pack.version().to_owned(),
        scheme: match scheme {
            Scheme::V1Manual => "manual",
            Scheme::V2 { .. } => V2_SCHEME,
        },
        key_id: match scheme {
            Scheme::V1Manual => None,
            Scheme::V2 { key_id } => Some(key_id.to_owned()),
        },
        manifest: manifest_file,
        signature: signature_file,
        public_key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;

    /// interop §1.4: seed 32 × 0x07.
    fn vector_key() -> SigningKey {
        SigningKey::from_bytes(&[7u8; 32])
    }

    const VECTOR_BYTES: &str = r#"{"chains":[{"chainId":"tiles.echo","dag":{"nodes":[{"config":{"value":"{{params.text}}"},"id":"say","typeId":"core.identity@1.0.0"}]},"description":"Say it back.","label":"Echo","parameters":{"properties":{"text":{"type":"string"}},"type":"object"},"version":"0.1.0"}],"engines":{"openwop":">=1.0.0 <3.0.0"},"kind":"workflow-chain","name":"community.example.tiles","signing":{"keyId":"example-1","scheme":"ed25519-canonical-json"},"version":"0.1.0"}"#;
    const VECTOR_SIGNATURE: &str =
        "ot9cxKRGDxWTngR+CmgBI9qp1QTLnZhbZGaXdmegj9ZyxCmt3hCyMWn0DBZ56ByAimWL3vORmOGTdnIxtA1FAw==";

    #[test]
    fn v2_signing_reproduces_the_interop_vector_in_memory() {
        let mut m: Value = serde_json::from_str(VECTOR_BYTES).unwrap();
        m.as_object_mut().unwrap().remove("signing");
        let (bytes, sig) = sign_manifest(&mut m, &vector_key(), Scheme::V2 { key_id: "example-1" }).unwrap();
        assert_eq!(bytes.len(), 449);
        assert_eq!(String::from_utf8(bytes).unwrap(), VECTOR_BYTES);
        assert_eq!(base64::engine::general_purpose::STANDARD.encode(sig), VECTOR_SIGNATURE);
    }

    #[test]
    fn bad_key_ids_and_invalid_packs_are_refused() {
        let mut m = json!({"name": "x"});
        for bad in ["", "a/b", "../k", ".hidden", "white space"] {
            assert!(sign_manifest(&mut m, &vector_key(), Scheme::V2 { key_id: bad }).is_err(), "{bad}");
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pack.json"), r#"{"name": "x", "kind": "workflow-chain"}"#).unwrap();
        let err = sign_pack(dir.path(), &vector_key(), Scheme::V1Manual).unwrap_err();
        assert_eq!(err.code, code::INVALID_MANIFEST);
        assert!(!dir.path().join(SIGNATURE_FILE).exists(), "nothing is written for an invalid pack");
        std::fs::write(dir.path().join("pack.json"), r#"{"name": "x", "name": "y"}"#).unwrap();
        assert_eq!(
            sign_pack(dir.path(), &vector_key(), Scheme::V1Manual).unwrap_err().code,
            code::PACK_MANIFEST_INVALID
        );
    }
}

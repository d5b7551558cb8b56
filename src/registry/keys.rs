//! Ed25519 key files: PKCS#8 PEM private keys (what `openssl genpkey -algorithm ed25519`
//! writes) and SPKI PEM public keys. Private key bytes never appear in a message: every
//! error names the file and the problem only. Also which registry keys may still verify and
//! sign (`signingKeys[].status`).

use crate::error::{Error, Result, code};
use base64::Engine;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePublicKey};
use ed25519_dalek::{SigningKey, VerifyingKey};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A PEM key is a few hundred bytes; anything far larger is not one.
const MAX_KEY_BYTES: u64 = 64 * 1024;

/// Read an Ed25519 PKCS#8 PEM private key.
pub fn read_signing_key(path: &Path) -> Result<SigningKey> {
    let bytes = crate::fsio::read_limited(path, MAX_KEY_BYTES, code::INVALID_REQUEST).map_err(Error::not_a_pack)?;
    let bytes = zeroize::Zeroizing::new(bytes);
    let refuse = |why: &str| {
        Error::new(code::INVALID_REQUEST, format!("{}: {why}", path.display())).with("path", path.display().to_string())
    };
    let text = std::str::from_utf8(&bytes).map_err(|_| refuse("a private key must be PEM text"))?;
    // The parser's own error text is not echoed: it could quote key material.
    SigningKey::from_pkcs8_pem(text.trim()).map_err(|_| {
        if text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED") {
            refuse(
                "the private key is encrypted (password-protected); chainsmith reads only unencrypted PKCS#8 PEM \
                 (\"BEGIN PRIVATE KEY\"): decrypt a copy with `openssl pkey -in KEY -out PLAIN.pem`",
            )
        } else {
            refuse("not an Ed25519 private key in PKCS#8 PEM form (\"BEGIN PRIVATE KEY\")")
        }
    })
}

/// Parse an SPKI PEM public key (`BEGIN PUBLIC KEY`).
pub fn parse_public_key(bytes: &[u8]) -> std::result::Result<VerifyingKey, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "a public key must be PEM text".to_owned())?;
    VerifyingKey::from_public_key_pem(text.trim()).map_err(|e| format!("not a PEM SPKI Ed25519 public key ({e})"))
}

/// The SPKI PEM text of a public key.
pub fn public_key_pem(key: &VerifyingKey) -> String {
    key.to_public_key_pem(LineEnding::LF).expect("an Ed25519 public key always encodes")
}

/// RFC 8410 PKCS#8 v1 DER of an Ed25519 key up to its 32-byte seed: version 0, algorithm
/// id-Ed25519, the seed as an OCTET STRING inside the privateKey OCTET STRING.
const PKCS8_V1_PREFIX: [u8; 16] =
    [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];

/// The PKCS#8 v1 PEM of a private key, byte for byte what `openssl genpkey -algorithm
/// ed25519` writes. The v2 form (public key embedded) is refused by OpenSSL 3.0, Node 20
/// and Python `cryptography`, so it is never written; both are read.
pub fn private_key_pem(key: &SigningKey) -> zeroize::Zeroizing<String> {
    let mut der = zeroize::Zeroizing::new(PKCS8_V1_PREFIX.to_vec());
    der.extend_from_slice(key.as_bytes());
    let body = zeroize::Zeroizing::new(base64::engine::general_purpose::STANDARD.encode(der.as_slice()));
    zeroize::Zeroizing::new(format!("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n", body.as_str()))
}

/// What a registry key is used for: its `status` decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyUse {
    /// Checking what the key signed. A rotated (any non-`active`) key still verifies
    /// (interop §1.3); a `revoked` one does not: what it signed is no longer trusted.
    Verify,
    /// Signing a new version: only an `active` key may.
    Sign,
}

/// Whether a registry key with this `status` may be used so. `Err` is
/// `pack_signature_invalid` with `details.reason` `key_revoked` (or `key_not_active` for
/// signing with a rotated key) and the key id. `verify`, `install`, `pack sign --registry`
/// and publishing call this one check.
pub fn check_key_status(key_id: &str, status: &str, key_use: KeyUse) -> Result<()> {
    let refuse = |reason: &str, message: String| {
        Err(Error::new(code::PACK_SIGNATURE_INVALID, message)
            .with("reason", reason)
            .with("keyId", key_id)
            .with("keyStatus", status))
    };
    match (status, key_use) {
        ("revoked", KeyUse::Verify) => refuse(
            "key_revoked",
            format!("key \"{key_id}\" is revoked in the registry's signingKeys: nothing it signed is trusted"),
        ),
        ("revoked", KeyUse::Sign) => {
            refuse("key_revoked", format!("key \"{key_id}\" is revoked in the registry's signingKeys; it may not sign"))
        }
        ("active", _) | (_, KeyUse::Verify) => Ok(()),
        (other, KeyUse::Sign) => refuse(
            "key_not_active",
            format!(
                "key \"{key_id}\" is \"{other}\" in the registry's signingKeys; only an active key signs new versions"
            ),
        ),
    }
}

/// The files `keygen` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPair {
    pub private_key: PathBuf,
    pub public_key: PathBuf,
}

/// Generate a key pair as `<prefix>.private.pem` (owner-only) and `<prefix>.public.pem`.
/// Existing files are never overwritten: losing a signing key cannot be undone.
pub fn generate(prefix: &Path) -> Result<KeyPair> {
    let with_suffix = |suffix: &str| {
        let mut s = prefix.as_os_str().to_owned();
        s.push(suffix);
        PathBuf::from(s)
    };
    let pair = KeyPair { private_key: with_suffix(".private.pem"), public_key: with_suffix(".public.pem") };
    for p in [&pair.private_key, &pair.public_key] {
        if std::fs::symlink_metadata(p).is_ok() {
            return Err(Error::new(
                code::INVALID_REQUEST,
                format!("{} exists; keygen never overwrites a key", p.display()),
            )
            .with("path", p.display().to_string()));
        }
    }
    // ThreadRng is a CSPRNG seeded from the operating system.
    let key = SigningKey::from_bytes(&rand::random::<[u8; 32]>());
    let private_pem = private_key_pem(&key);
    write_new(&pair.private_key, private_pem.as_bytes(), 0o600)?;
    // Created new too (never through a link planted after the check above).
    if let Err(e) = write_new(&pair.public_key, public_key_pem(&key.verifying_key()).as_bytes(), 0o644) {
        let _ = std::fs::remove_file(&pair.private_key);
        return Err(e);
    }
    Ok(pair)
}

/// Create a file with `mode`, failing if anything (a symbolic link too) is at `path`.
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let fail = |e: std::io::Error| {
        Error::new(code::IO_ERROR, format!("could not write {}: {e}", path.display()))
            .with("path", path.display().to_string())
    };
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let mut f = opts.open(path).map_err(fail)?;
    let written = f.write_all(bytes).and_then(|()| f.sync_all());
    if let Err(e) = written {
        drop(f);
        let _ = std::fs::remove_file(path);
        return Err(fail(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::Signer;

    #[test]
    fn generated_keys_read_back_and_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let pair = generate(&dir.path().join("acme")).unwrap();
        assert_eq!(pair.private_key, dir.path().join("acme.private.pem"));
        let key = read_signing_key(&pair.private_key).unwrap();
        let public = parse_public_key(&std::fs::read(&pair.public_key).unwrap()).unwrap();
        assert_eq!(public, key.verifying_key());
        public.verify_strict(b"m", &key.sign(b"m")).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&pair.private_key).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let again = generate(&dir.path().join("acme")).unwrap_err();
        assert!(again.message.contains("never overwrites"), "{}", again.message);
    }

    #[test]
    fn bad_private_keys_are_refused_without_echoing_them() {
        let dir = tempfile::tempdir().unwrap();
        let pair = generate(&dir.path().join("k")).unwrap();
        // A public key where a private one is expected.
        let err = read_signing_key(&pair.public_key).unwrap_err();
        assert_eq!(err.code, code::INVALID_REQUEST);
        let secret = "-----BEGIN PRIVATE KEY-----\nTUVTU0FHRVNFQ1JFVA==\n-----END PRIVATE KEY-----\n";
        let p = dir.path().join("bad.pem");
        std::fs::write(&p, secret).unwrap();
        let err = read_signing_key(&p).unwrap_err();
        assert!(!err.message.contains("TUVTU0FH"), "{}", err.message);
        assert_eq!(read_signing_key(&dir.path().join("none.pem")).unwrap_err().code, code::INVALID_REQUEST);
    }

    #[test]
    fn keygen_writes_pkcs8_v1_and_both_versions_read() {
        let dir = tempfile::tempdir().unwrap();
        let pair = generate(&dir.path().join("k")).unwrap();
        let pem = std::fs::read_to_string(&pair.private_key).unwrap();
        let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
        let der = base64::engine::general_purpose::STANDARD.decode(body).unwrap();
        // 48 bytes, version 0: no embedded public key.
        assert_eq!((der.len(), &der[..16]), (48, &PKCS8_V1_PREFIX[..]));
        let key = read_signing_key(&pair.private_key).unwrap();
        // A v2 file (public key embedded) still reads.
        use ed25519_dalek::pkcs8::EncodePrivateKey;
        let v2 = key.to_pkcs8_pem(LineEnding::LF).unwrap();
        let p = dir.path().join("v2.pem");
        std::fs::write(&p, v2.as_bytes()).unwrap();
        assert_eq!(read_signing_key(&p).unwrap().as_bytes(), key.as_bytes());
    }

    #[test]
    fn revoked_keys_neither_verify_nor_sign_and_rotated_ones_only_verify() {
        assert!(check_key_status("k", "active", KeyUse::Verify).is_ok());
        assert!(check_key_status("k", "active", KeyUse::Sign).is_ok());
        assert!(check_key_status("k", "rotated", KeyUse::Verify).is_ok());
        let reason = |e: Error| (e.code, e.details["reason"].as_str().unwrap().to_owned(), e.details["keyId"].clone());
        assert_eq!(
            reason(check_key_status("k", "rotated", KeyUse::Sign).unwrap_err()),
            (code::PACK_SIGNATURE_INVALID, "key_not_active".into(), "k".into())
        );
        for key_use in [KeyUse::Verify, KeyUse::Sign] {
            let e = check_key_status("k", "revoked", key_use).unwrap_err();
            assert_eq!(reason(e).1, "key_revoked");
        }
    }
}

//! Ed25519 key files: PKCS#8 PEM private keys (what `openssl genpkey -algorithm ed25519`
//! writes) and SPKI PEM public keys. Private key bytes never appear in a message: every
//! error names the file and the problem only.

use crate::error::{Error, Result, code};
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
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
    let private_pem = key.to_pkcs8_pem(LineEnding::LF).expect("an Ed25519 key always encodes");
    write_new_private(&pair.private_key, private_pem.as_bytes())?;
    if let Err(e) = crate::fsio::write_atomic(&pair.public_key, public_key_pem(&key.verifying_key()).as_bytes()) {
        let _ = std::fs::remove_file(&pair.private_key);
        return Err(e);
    }
    Ok(pair)
}

/// Create a file readable by its owner only, failing if it exists.
fn write_new_private(path: &Path, bytes: &[u8]) -> Result<()> {
    let fail = |e: std::io::Error| {
        Error::new(code::IO_ERROR, format!("could not write {}: {e}", path.display()))
            .with("path", path.display().to_string())
    };
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
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
}

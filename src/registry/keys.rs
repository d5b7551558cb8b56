//! Ed25519 key files: PKCS#8 PEM private keys (what `openssl genpkey -algorithm ed25519`
//! writes) and SPKI PEM public keys. Private key bytes never appear in a message: every
//! error names the file and the problem only. Also which registry keys may still verify and
//! sign (`signingKeys[].status`).

use crate::error::{Error, Result, code};
use base64::Engine;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePublicKey};
use ed25519_dalek::{SigningKey, VerifyingKey};
use serde_json::Value;
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
        } else if text.contains("-----BEGIN PUBLIC KEY-----") {
            refuse(&public_key_picked(path))
        } else {
            refuse(
                "not an Ed25519 private key in PKCS#8 PEM form (\"BEGIN PRIVATE KEY\"): pick the NAME.private.pem \
                 that Generate key… or `chainsmith keygen` wrote",
            )
        }
    })
}

/// What to say when the public half of a pair was picked to sign with: which file is the
/// private half (`keygen` names them NAME.private.pem and NAME.public.pem).
fn public_key_picked(path: &Path) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let private = match name.strip_suffix(".public.pem") {
        Some(stem) => format!("{stem}.private.pem beside it"),
        None => "the file that starts \"BEGIN PRIVATE KEY\"".to_owned(),
    };
    format!("this is the public key; pick the private one ({private})")
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

/// What a registry key is used for: its `status` and `notAfter` decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyUse {
    /// Checking what the key signed: an `active` key, or a `rotated` one (it signs nothing
    /// new, so what it signed was signed before the rotation; interop §1.3 lets it verify).
    Verify,
    /// Signing a new version: only an `active` key may.
    Sign,
}

/// A `signingKeys[]` entry's standing as the document gives it: `status` and `notAfter`
/// exactly as written (absent, or any JSON value), so that a refusal quotes what is there
/// and nothing is ever reported that the document does not contain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyStatus {
    pub status: Option<Value>,
    pub not_after: Option<Value>,
}

impl KeyStatus {
    /// An entry whose `status` is this text and which has no `notAfter`.
    pub fn named(status: &str) -> Self {
        Self { status: Some(Value::String(status.to_owned())), not_after: None }
    }

    /// The status, when it is a string.
    pub fn text(&self) -> Option<&str> {
        self.status.as_ref().and_then(Value::as_str)
    }
}

/// Whether a registry key with this standing may be used so, at the current time. Fails
/// closed: only the exact statuses `active` (both uses) and `rotated` (verifying only) pass.
/// `Err` is `pack_signature_invalid` with the key id, `details.keyStatus` when the document
/// has one, and `details.reason`: `key_revoked`; `key_not_active` (signing with a rotated
/// key); `key_status` (no status, not a string, or any other text, quoted); `key_expired`
/// (`notAfter` has passed) or `key_validity` (`notAfter` is not an RFC 3339 time).
/// `verify`, `install`, `pack sign --registry` and publishing call this one check.
pub fn check_key_status(key_id: &str, standing: &KeyStatus, key_use: KeyUse) -> Result<()> {
    let refuse = |reason: &str, message: String| {
        let mut e = Error::new(code::PACK_SIGNATURE_INVALID, message).with("reason", reason).with("keyId", key_id);
        if let Some(status) = &standing.status {
            e = e.with("keyStatus", status.clone());
        }
        Err(e)
    };
    let usable = "only \"active\" keys (and \"rotated\" ones, to verify what they signed) are used";
    match (standing.status.as_ref(), key_use) {
        (None, _) => {
            return refuse(
                "key_status",
                format!("key \"{key_id}\" has no `status` in the registry's signingKeys; {usable}"),
            );
        }
        (Some(Value::String(s)), KeyUse::Verify) if s == "revoked" => {
            return refuse(
                "key_revoked",
                format!("key \"{key_id}\" is revoked in the registry's signingKeys: nothing it signed is trusted"),
            );
        }
        (Some(Value::String(s)), KeyUse::Sign) if s == "revoked" => {
            return refuse(
                "key_revoked",
                format!("key \"{key_id}\" is revoked in the registry's signingKeys; it may not sign"),
            );
        }
        (Some(Value::String(s)), KeyUse::Sign) if s == "rotated" => {
            return refuse(
                "key_not_active",
                format!(
                    "key \"{key_id}\" is \"rotated\" in the registry's signingKeys; only an active key signs new versions"
                ),
            );
        }
        (Some(Value::String(s)), _) if s == "active" || s == "rotated" => {}
        (Some(other), _) => {
            return refuse(
                "key_status",
                format!("key \"{key_id}\" has status {other} in the registry's signingKeys; {usable}"),
            );
        }
    }
    let Some(not_after) = &standing.not_after else { return Ok(()) };
    let Some(limit) = not_after.as_str().and_then(unix_seconds) else {
        return refuse(
            "key_validity",
            format!("key \"{key_id}\" has notAfter {not_after}; it must be an RFC 3339 time (`2027-01-31T00:00:00Z`)"),
        )
        .map_err(|e| e.with("notAfter", not_after.clone()));
    };
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    if now > limit {
        return refuse("key_expired", format!("key \"{key_id}\" expired at {not_after} (its notAfter)"))
            .map_err(|e| e.with("notAfter", not_after.clone()));
    }
    Ok(())
}

/// An RFC 3339 time (`2027-01-31T12:00:00Z`, `…+02:00`, fractions of a second ignored) or a
/// bare date (its first instant, UTC) as seconds since the epoch; `None` for anything else.
fn unix_seconds(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        part.iter().all(u8::is_ascii_digit).then(|| part.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0')))
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || !(1..=12).contains(&month) {
        return None;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if day < 1 || day > month_days[(month - 1) as usize] {
        return None;
    }
    // Days since the epoch of a civil date (H. Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    if b.len() == 10 {
        return Some(days * 86_400);
    }
    if !matches!(b.get(10), Some(b'T' | b't')) || b.get(13) != Some(&b':') || b.get(16) != Some(&b':') {
        return None;
    }
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &b[19..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let digits = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let digits = [*h1, *h2, *m1, *m2];
            if !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let d = |c: u8| i64::from(c - b'0');
            let (h, m) = (d(*h1) * 10 + d(*h2), d(*m1) * 10 + d(*m2));
            if h > 23 || m > 59 {
                return None;
            }
            if *sign == b'+' { h * 3600 + m * 60 } else { -(h * 3600 + m * 60) }
        }
        _ => return None,
    };
    Some(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
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
                format!("{} exists, and a key is never overwritten: choose another name", p.display()),
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
        assert!(again.message.ends_with("a key is never overwritten: choose another name"), "{}", again.message);
    }

    #[test]
    fn bad_private_keys_are_refused_without_echoing_them() {
        let dir = tempfile::tempdir().unwrap();
        let pair = generate(&dir.path().join("k")).unwrap();
        // A public key where a private one is expected.
        let err = read_signing_key(&pair.public_key).unwrap_err();
        assert_eq!(err.code, code::INVALID_REQUEST);
        // Said as what it is, with the file to pick instead.
        assert!(
            err.message.ends_with("this is the public key; pick the private one (k.private.pem beside it)"),
            "{}",
            err.message
        );
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
        let named = KeyStatus::named;
        assert!(check_key_status("k", &named("active"), KeyUse::Verify).is_ok());
        assert!(check_key_status("k", &named("active"), KeyUse::Sign).is_ok());
        assert!(check_key_status("k", &named("rotated"), KeyUse::Verify).is_ok());
        let reason = |e: Error| (e.code, e.details["reason"].as_str().unwrap().to_owned(), e.details["keyId"].clone());
        assert_eq!(
            reason(check_key_status("k", &named("rotated"), KeyUse::Sign).unwrap_err()),
            (code::PACK_SIGNATURE_INVALID, "key_not_active".into(), "k".into())
        );
        for key_use in [KeyUse::Verify, KeyUse::Sign] {
            let e = check_key_status("k", &named("revoked"), key_use).unwrap_err();
            assert_eq!(reason(e).1, "key_revoked");
        }
    }

    #[test]
    fn any_other_status_fails_closed_and_is_quoted_as_written() {
        for key_use in [KeyUse::Verify, KeyUse::Sign] {
            for status in ["Revoked", "revoked ", "compromised", "expired", "disabled", "ACTIVE", ""] {
                let e = check_key_status("k", &KeyStatus::named(status), key_use).unwrap_err();
                assert_eq!(
                    (e.details["reason"].as_str(), e.details["keyStatus"].as_str()),
                    (Some("key_status"), Some(status))
                );
                assert!(e.message.contains(&format!("\"{status}\"")), "{}", e.message);
            }
            for status in
                [serde_json::json!(true), serde_json::json!(1), serde_json::json!({"s": "active"}), Value::Null]
            {
                let standing = KeyStatus { status: Some(status.clone()), not_after: None };
                let e = check_key_status("k", &standing, key_use).unwrap_err();
                assert_eq!((e.details["reason"].as_str(), &e.details["keyStatus"]), (Some("key_status"), &status));
            }
            // No status: nothing is reported as one.
            let e = check_key_status("k", &KeyStatus::default(), key_use).unwrap_err();
            assert_eq!(e.details["reason"], "key_status");
            assert!(e.details.get("keyStatus").is_none(), "{:?}", e.details);
        }
    }

    #[test]
    fn a_passed_not_after_refuses_and_an_unreadable_one_too() {
        let at = |t: &str| KeyStatus { status: Some("active".into()), not_after: Some(t.into()) };
        for future in ["2999-01-01", "2999-01-01T00:00:00Z", "2999-12-31T23:59:59.5+05:30"] {
            assert!(check_key_status("k", &at(future), KeyUse::Verify).is_ok(), "{future}");
        }
        for past in ["2001-01-01", "2020-02-29T12:00:00Z", "2026-01-01T00:00:00-01:00"] {
            for key_use in [KeyUse::Verify, KeyUse::Sign] {
                let e = check_key_status("k", &at(past), key_use).unwrap_err();
                assert_eq!(
                    (e.details["reason"].as_str(), e.details["notAfter"].as_str()),
                    (Some("key_expired"), Some(past))
                );
            }
        }
        for bad in ["tomorrow", "2027-02-30", "2027-01-01 00:00:00Z", "2027-01-01T00:00:00", "2027-1-01"] {
            let e = check_key_status("k", &at(bad), KeyUse::Verify).unwrap_err();
            assert_eq!(e.details["reason"], "key_validity", "{bad}");
        }
        let number = KeyStatus { status: Some("active".into()), not_after: Some(serde_json::json!(1)) };
        assert_eq!(check_key_status("k", &number, KeyUse::Verify).unwrap_err().details["reason"], "key_validity");
        // Independent epoch seconds (`date -u -d 2000-03-01T01:02:03Z +%s`).
        assert_eq!(unix_seconds("2000-03-01T01:02:03Z"), Some(951_872_523));
        assert_eq!(unix_seconds("1970-01-01"), Some(0));
        assert_eq!(unix_seconds("1970-01-01T01:00:00+01:00"), Some(0));
    }
}

#![no_main]
//! Arbitrary public keys, signatures and manifests: `KEY \0 SIGNATURE \0 MANIFEST`. The key
//! and the signature are written into a pack folder as the files a manual signature names,
//! the key is also offered as a trusted key, and the manifest bytes are verified under both
//! policies. Every answer is a status, never a panic; a "trusted" verdict needs the offered
//! key to parse.

use chainsmith::catalog::{SignatureStatus, TrustedKeys, verify_manifest};
use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// One pack folder per fuzzing process, reused by every input.
static DIR: LazyLock<PathBuf> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join(format!("chainsmith-fuzz-signature-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a writable temp folder");
    dir
});

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |b| *b == 0);
    let (key, sig, manifest) = (parts.next().unwrap_or(&[]), parts.next().unwrap_or(&[]), parts.next().unwrap_or(&[]));
    std::fs::write(DIR.join("key.pem"), key).expect("write the key");
    std::fs::write(DIR.join("pack.json.sig"), sig).expect("write the signature");
    let mut keys = TrustedKeys::default();
    let key_parses = keys.add_pem(Path::new("fuzz.pem"), key).is_ok();
    for require_signed in [false, true] {
        let report = verify_manifest(&DIR, manifest, &keys, require_signed);
        if matches!(report.status, SignatureStatus::Trusted { .. }) {
            assert!(key_parses, "a trusted signature needs a trusted key that parses");
        }
    }
});

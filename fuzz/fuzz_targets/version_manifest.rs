#![no_main]
//! Arbitrary published versions: `NAME@VERSION SEP DOC SEP MANIFEST SEP TGZ SEP SIG SEP KEY`,
//! written into a scratch registry folder where the discovery document's templates put them
//! (the key at every `signingKeys[]` entry's key path), then verified as `install` verifies.
//! A version that verifies is the one asked for, its tarball is the bytes its manifest's
//! `integrity` names, the files chainsmith read are what GNU tar and Python extract, and a
//! "verified" signature is one an independent Ed25519 check accepts: by a key of the
//! document that covers the name and is not revoked, over the packed `pack.json` as that
//! second reading extracts it (or the whole tarball for the legacy recipe).

use chainsmith::registry::{Registry, SignatureCheck, verify};
use chainsmith_fuzz::registry_oracle::{covers, key_entry, signature_verifies, spki_key, sri};
use chainsmith_fuzz::{put, scratch, tar_oracle};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let p = chainsmith_fuzz::parts(data, 6);
    let root = scratch("version_manifest");
    put(&root.join(".well-known/openwop-registry.json"), p[1]);
    let Ok(registry) = Registry::open(&root) else { return };
    let spec = String::from_utf8_lossy(p[0]).into_owned();
    let Some((name, version)) = spec.rsplit_once('@') else { return };
    for entry in &registry.keys {
        if let Ok(path) = registry.public_key_path(entry) {
            put(&path, p[5]);
        }
    }
    let files = [
        (registry.version_manifest_path(name, version), p[2]),
        (registry.tarball_path(name, version), p[3]),
        (registry.signature_path(name, version), p[4]),
    ];
    for (path, bytes) in &files {
        if let Ok(path) = path
            && !bytes.is_empty()
        {
            put(path, bytes);
        }
    }
    let Ok(verified) = verify(&registry, name, version) else { return };

    // What is on disk now (templates may name one file twice; the last write stands).
    let on_disk = |i: usize| files[i].0.as_ref().ok().and_then(|p| std::fs::read(p).ok());
    let manifest: Value =
        on_disk(0).and_then(|m| serde_json::from_slice(&m).ok()).expect("a verified version has a manifest");
    let tgz = on_disk(1).expect("a verified version has a tarball");
    assert_eq!((verified.name.as_str(), verified.version.as_str()), (name, version));
    assert_eq!(verified.tarball, tgz, "the tarball verified is the one served");
    assert_eq!(
        manifest.get("integrity").and_then(Value::as_str),
        Some(sri(&tgz).as_str()),
        "integrity names the tarball"
    );
    let extracted = match tar_oracle::read_tgz(&tgz) {
        Ok(files) => files,
        Err(why) => panic!("a verified tarball other tools read differently: {why}"),
    };
    assert_eq!(extracted, verified.archive.files, "the files verified are the files tar and Python extract");
    let packed: Value = serde_json::from_slice(&extracted["pack.json"]).expect("the packed pack.json is JSON");
    assert_eq!(
        (packed["name"].as_str(), packed["version"].as_str()),
        (Some(name), Some(version)),
        "the packed identity"
    );

    let SignatureCheck::Verified { scheme, key_id, key_status } = verified.signature else { return };
    let doc: Value = serde_json::from_slice(p[1]).expect("the document parsed");
    let entry = key_entry(&doc, &key_id).expect("the verifying key is in signingKeys");
    let namespaces = entry.get("permittedNamespaces").and_then(Value::as_array).cloned().unwrap_or_default();
    assert!(namespaces.iter().filter_map(Value::as_str).any(|ns| covers(ns, name)), "{key_id} covers {name}");
    match entry.get("status") {
        None => assert_eq!(key_status, "active"),
        Some(status) => assert_eq!(status.as_str(), Some(key_status.as_str()), "the status reported is the document's"),
    }
    assert!(matches!(key_status.as_str(), "active" | "rotated"), "key status {key_status:?} verifies");
    let key_path = registry.public_key_path(registry.key(&key_id).expect("the key")).expect("its path");
    let key = std::fs::read(key_path).ok().and_then(|pem| spki_key(&pem)).expect("an SPKI Ed25519 key");
    let sig_ref = manifest.pointer("/signing/signatureRef").and_then(Value::as_str).unwrap_or("keys/pack.json.sig");
    let sig = on_disk(2).or_else(|| extracted.get(sig_ref).cloned()).expect("a signature");
    let signed: &[u8] = if scheme == "ed25519" { &tgz } else { &extracted["pack.json"] };
    assert!(signature_verifies(&key, signed, &sig), "the {scheme} signature does not verify independently");
});

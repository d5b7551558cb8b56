//! Trust at the registry edges (`verify`, `install`): only the signed packed `pack.json`
//! decides (an edited served version manifest is refused, and nothing is cached); registry
//! keys fail closed on their `status` and `notAfter`; the tree decides the signing recipe,
//! so a v2 block relabelled into a v1 tree does not verify (here and in the OpenWOP client's
//! recipe, `tests/tools/openwop_verify.mjs`); refusals carry their exact reasons.
//!
//! Registries are written by `chainsmith pack publish` and then edited as an adversary
//! would. The test that runs Node is ignored without Node 18+ on PATH (build.rs).

use chainsmith_test_env::needs;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::cli::{envelope, ok_json, run, s};
use common::registry::keygen;

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn write_json(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

/// A one-chain pack folder; for a v2 tree its typeIds are pinned (v1 rules refuse pins).
fn chain_pack(root: &Path, name: &str, version: &str, engines: &str, pinned: bool) -> PathBuf {
    let dir = root.join(format!("src-{name}-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = json!({
        "name": name, "version": version, "kind": "workflow-chain", "description": "Fetch a page.",
        "license": "MIT", "engines": {"openwop": engines},
        "chains": [{"chainId": "tiles.fetch", "version": version, "label": "Fetch", "description": "Fetch it.",
            "parameters": {"type": "object", "properties": {"url": {"type": "string", "default": "https://example.test/"}}},
            "dag": {"nodes": [{"id": "get", "typeId": if pinned { "core.identity@1.0.0" } else { "core.identity" },
                "config": {"url": "https://example.test/{{params.url}}"}}]}}],
    });
    write_json(&dir.join("pack.json"), &manifest);
    dir
}

/// `ROOT/reg` holding `vendor.me.tiles` 1.0.0 ([`chain_pack`]) signed with a new key `me-1`,
/// published with `extra`.
fn signed_tiles(root: &Path, engines: &str, pinned: bool, extra: &[&str]) -> PathBuf {
    let key = keygen(root, "me");
    let reg = root.join("reg");
    publish(&chain_pack(root, "vendor.me.tiles", "1.0.0", engines, pinned), &reg, Some((&key, "me-1")), extra);
    reg
}

fn publish(pack: &Path, reg: &Path, signer: Option<(&str, &str)>, extra: &[&str]) -> Value {
    let mut args = vec!["pack", "publish", s(pack), "--registry", s(reg)];
    if let Some((key, key_id)) = signer {
        args.extend_from_slice(&["--key", key, "--key-id", key_id]);
    }
    args.extend_from_slice(extra);
    ok_json(&run(&args))
}

fn verify(reg: &Path, spec: &str) -> Output {
    run(&["verify", spec, "--registry", s(reg)])
}

fn install(reg: &Path, spec: &str, cache: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["install", spec, "--registry", s(reg), "--dir", s(cache)];
    args.extend_from_slice(extra);
    run(&args)
}

fn code_reason(e: &Value) -> (&str, &str) {
    (e["error"].as_str().unwrap_or_default(), e["details"]["reason"].as_str().unwrap_or_default())
}

/// Every file below `dir` (none when it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out
}

/// Item 1. The served `<version>.json` is signed by nothing: widening its engine range,
/// changing a node's URL or dropping the signing block is refused (with the pointer at
/// fault) by `verify` and `install`, and nothing is cached; what the registry may change
/// after publishing (yanked, deprecation) still installs, and the engine range decided on
/// is the packed one.
#[test]
fn an_edited_served_manifest_is_refused_and_only_the_packed_one_decides() {
    let dir = tempfile::tempdir().unwrap();
    let reg = signed_tiles(dir.path(), ">=2.0.0 <3.0.0", true, &[]);
    let served_path = reg.join("v2/packs/vendor.me.tiles/-/1.0.0.json");
    let original = read_json(&served_path);
    let cache = dir.path().join("cache");

    // As published, a protocol-1 host refuses it on the packed engine range.
    let e = envelope(&install(&reg, "vendor.me.tiles@1.0.0", &cache, &[]));
    assert_eq!(e["error"], "pack_engine_unsupported", "{e}");

    type Edit = fn(&mut Value);
    let edits: [(&str, Edit); 4] = [
        ("/engines/openwop", |m| m["engines"]["openwop"] = json!(">=1.0.0 <3.0.0")),
        ("/chains/0/dag/nodes/0/config/url", |m| {
            m["chains"][0]["dag"]["nodes"][0]["config"]["url"] = json!("https://attacker.test/{{params.url}}")
        }),
        ("/signing", |m| {
            m.as_object_mut().unwrap().remove("signing");
        }),
        ("/x-extra", |m| m["x-extra"] = json!("served only")),
    ];
    for (pointer, edit) in edits {
        let mut served = original.clone();
        edit(&mut served);
        write_json(&served_path, &served);
        let e = envelope(&verify(&reg, "vendor.me.tiles@1.0.0"));
        assert_eq!(code_reason(&e), ("pack_integrity_failure", "served_manifest_mismatch"), "{pointer}: {e}");
        assert_eq!(e["details"]["pointer"], pointer, "{e}");
        let e = envelope(&install(&reg, "vendor.me.tiles@1.0.0", &cache, &["--allow-unsigned"]));
        assert_eq!(code_reason(&e), ("pack_integrity_failure", "served_manifest_mismatch"), "{pointer}: {e}");
        assert_eq!(files(&cache), Vec::<PathBuf>::new(), "{pointer}: nothing is cached");
    }

    // The registry's own members may change: the version verifies, yanked and deprecated.
    let mut served = original.clone();
    served["yanked"] = json!(true);
    served["yankedReason"] = json!("broken");
    served["versionDeprecated"] = json!(true);
    served["deprecationReason"] = json!("use 2.x");
    write_json(&served_path, &served);
    let v = ok_json(&verify(&reg, "vendor.me.tiles@1.0.0"));
    assert_eq!((v["yanked"].as_bool(), v["deprecated"].as_str()), (Some(true), Some("use 2.x")), "{v}");
}

/// Item 1, the other way: a served manifest whose engine range a protocol-1 host admits is
/// installed only when the packed one admits it too, and the cached manifest is the served
/// one that matched it.
#[test]
fn the_cached_manifest_is_the_one_that_matched_the_signed_pack() {
    let dir = tempfile::tempdir().unwrap();
    let reg = signed_tiles(dir.path(), ">=1.0.0 <3.0.0", true, &[]);
    let cache = dir.path().join("cache");
    let out = ok_json(&install(&reg, "vendor.me.tiles@1.0.0", &cache, &[]));
    let cached = read_json(Path::new(out["manifest"].as_str().unwrap()));
    assert_eq!(cached, read_json(&reg.join("v2/packs/vendor.me.tiles/-/1.0.0.json")));
    assert_eq!(cached["engines"]["openwop"], ">=1.0.0 <3.0.0");
}

/// Item 3. Only `active` and `rotated` keys verify; any other status is refused and quoted
/// as the document writes it (a non-string one too, never reported as "active"); a key with
/// no status is refused without a status being reported; a passed `notAfter` refuses.
#[test]
fn registry_keys_fail_closed_on_status_and_not_after() {
    let dir = tempfile::tempdir().unwrap();
    let reg = signed_tiles(dir.path(), ">=1.0.0 <3.0.0", true, &[]);
    let doc_path = reg.join(".well-known/openwop-registry.json");
    let original = read_json(&doc_path);
    let with_key = |edit: &dyn Fn(&mut Value)| {
        let mut doc = original.clone();
        edit(&mut doc["signingKeys"][0]);
        write_json(&doc_path, &doc);
        verify(&reg, "vendor.me.tiles@1.0.0")
    };

    for status in ["Revoked", "revoked ", "compromised", "expired", "disabled"] {
        let e = envelope(&with_key(&|k| k["status"] = json!(status)));
        assert_eq!(code_reason(&e), ("pack_signature_invalid", "key_status"), "{status}: {e}");
        assert_eq!((e["details"]["keyStatus"].as_str(), e["details"]["keyId"].as_str()), (Some(status), Some("me-1")));
        assert!(e["message"].as_str().unwrap().contains(&format!("\"{status}\"")), "{e}");
    }
    for status in [json!(1), json!(true), json!({"state": "active"}), Value::Null] {
        let e = envelope(&with_key(&|k| k["status"] = status.clone()));
        assert_eq!(code_reason(&e), ("pack_signature_invalid", "key_status"), "{status}: {e}");
        assert_eq!(e["details"]["keyStatus"], status, "{e}");
    }
    let e = envelope(&with_key(&|k| {
        k.as_object_mut().unwrap().remove("status");
    }));
    assert_eq!(code_reason(&e), ("pack_signature_invalid", "key_status"), "{e}");
    assert!(e["details"].get("keyStatus").is_none(), "{e}");
    assert_eq!(envelope(&with_key(&|k| k["status"] = json!("revoked")))["details"]["reason"], "key_revoked");

    let e = envelope(&with_key(&|k| k["notAfter"] = json!("2020-01-01T00:00:00Z")));
    assert_eq!(code_reason(&e), ("pack_signature_invalid", "key_expired"), "{e}");
    assert_eq!(e["details"]["notAfter"], "2020-01-01T00:00:00Z");
    let e = envelope(&with_key(&|k| k["notAfter"] = json!("next year")));
    assert_eq!(code_reason(&e), ("pack_signature_invalid", "key_validity"), "{e}");

    // What verifies reports the status the document gives.
    let v = ok_json(&with_key(&|k| k["notAfter"] = json!("2999-01-01T00:00:00Z")));
    assert_eq!(v["signature"]["keyStatus"], "active");
    let v = ok_json(&with_key(&|k| k["status"] = json!("rotated")));
    assert_eq!(v["signature"]["keyStatus"], "rotated");
}

/// A v1 tree (written by `publish --tree v1`) holding a copy of a v2-signed version:
/// tarball, `.sig` and version manifest moved as they are, the `signing` block relabelled
/// by nothing but the tree it now sits in.
fn relabelled(root: &Path) -> PathBuf {
    let key = keygen(root, "me");
    let v2 = root.join("reg2");
    publish(&chain_pack(root, "vendor.me.tiles", "1.0.0", ">=1.0.0 <3.0.0", true), &v2, Some((&key, "me-1")), &[]);
    let v1 = root.join("reg1");
    publish(
        &chain_pack(root, "vendor.me.other", "1.0.0", ">=1.0.0 <3.0.0", false),
        &v1,
        Some((&key, "me-1")),
        &["--tree", "v1"],
    );
    let (from, to) = (v2.join("v2/packs/vendor.me.tiles/-"), v1.join("v1/packs/vendor.me.tiles/-"));
    std::fs::create_dir_all(&to).unwrap();
    for ext in ["tgz", "sig", "json"] {
        std::fs::copy(from.join(format!("1.0.0.{ext}")), to.join(format!("1.0.0.{ext}"))).unwrap();
    }
    let served = read_json(&to.join("1.0.0.json"));
    assert_eq!(served["signing"], json!({"keyId": "me-1", "scheme": "ed25519-canonical-json"}));
    v1
}

/// Item 6. In a v1 tree a block without `method` is the legacy whole-tarball recipe, so a
/// relabelled v2 block does not verify; a v1 block in a v2 tree is refused as the client's
/// verifyV2 refuses it.
#[test]
fn a_v2_block_relabelled_into_a_v1_tree_is_refused_and_a_v1_block_in_a_v2_tree_too() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = relabelled(dir.path());
    let e = envelope(&verify(&v1, "vendor.me.tiles@1.0.0"));
    assert_eq!(code_reason(&e), ("pack_signature_invalid", "signature_mismatch"), "{e}");
    assert!(e["message"].as_str().unwrap().contains("never relabelled"), "{e}");
    let e = envelope(&install(&v1, "vendor.me.tiles@1.0.0", &dir.path().join("cache"), &[]));
    assert_eq!(code_reason(&e), ("pack_signature_invalid", "signature_mismatch"), "{e}");
    // The v1 version itself still verifies with the v1 recipe.
    let v = ok_json(&verify(&v1, "vendor.me.other@1.0.0"));
    assert_eq!(v["signature"]["scheme"], "manual");

    // The other way: the v1 version moved into the v2 tree.
    let v2 = dir.path().join("reg2");
    let (from, to) = (v1.join("v1/packs/vendor.me.other/-"), v2.join("v2/packs/vendor.me.other/-"));
    std::fs::create_dir_all(&to).unwrap();
    for ext in ["tgz", "sig", "json"] {
        std::fs::copy(from.join(format!("1.0.0.{ext}")), to.join(format!("1.0.0.{ext}"))).unwrap();
    }
    let e = envelope(&verify(&v2, "vendor.me.other@1.0.0"));
    assert_eq!(code_reason(&e), ("pack_signature_invalid", "legacy_fields"), "{e}");
}

/// Item 6, against the OpenWOP client's own install recipe on the same folder.
#[needs(node)]
#[test]
fn the_openwop_recipe_refuses_the_relabelled_block_too() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = relabelled(dir.path());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/openwop_verify.mjs");
    let verdict = |spec: &str| -> Value {
        let out = Command::new("node").arg(&script).arg(&v1).arg(spec).output().unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "node: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = verdict("vendor.me.tiles@1.0.0");
    assert_eq!((v["accepted"].as_bool(), v["step"].as_str()), (Some(false), Some("signature")), "{v}");
    let v = verdict("vendor.me.other@1.0.0");
    assert_eq!((v["accepted"].as_bool(), v["recipe"].as_str()), (Some(true), Some("manual")), "{v}");
}

/// Item 10. Each refusal has its exact reason: no `integrity` (`integrity_missing`); a
/// served `.sig` one byte longer (`signature_length`, not a mismatch with the packed one);
/// a key URL on another host (`pack_registry_unreachable`).
#[test]
fn refusal_reasons_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let reg = signed_tiles(dir.path(), ">=1.0.0 <3.0.0", true, &[]);
    let at = reg.join("v2/packs/vendor.me.tiles/-");

    let served = read_json(&at.join("1.0.0.json"));
    let mut without = served.clone();
    without.as_object_mut().unwrap().remove("integrity");
    write_json(&at.join("1.0.0.json"), &without);
    let e = envelope(&verify(&reg, "vendor.me.tiles@1.0.0"));
    assert_eq!(code_reason(&e), ("pack_integrity_failure", "integrity_missing"), "{e}");
    write_json(&at.join("1.0.0.json"), &served);

    let sig = std::fs::read(at.join("1.0.0.sig")).unwrap();
    assert_eq!(sig.len(), 64);
    std::fs::write(at.join("1.0.0.sig"), [sig.as_slice(), b"\n"].concat()).unwrap();
    let e = envelope(&verify(&reg, "vendor.me.tiles@1.0.0"));
    assert_eq!(code_reason(&e), ("pack_signature_invalid", "signature_length"), "{e}");
    std::fs::write(at.join("1.0.0.sig"), &sig).unwrap();
    ok_json(&verify(&reg, "vendor.me.tiles@1.0.0"));

    let doc_path = reg.join(".well-known/openwop-registry.json");
    let mut doc = read_json(&doc_path);
    doc["signingKeys"][0]["publicKeyUrl"] = json!("https://elsewhere.test/keys/me-1.pub");
    write_json(&doc_path, &doc);
    let e = envelope(&verify(&reg, "vendor.me.tiles@1.0.0"));
    assert_eq!(e["error"], "pack_registry_unreachable", "{e}");
    assert_eq!(e["details"]["keyId"], "me-1", "{e}");
}

/// Item 10. A v1 registry folder without a discovery document is read through the legacy
/// `/v1/…` paths: an unsigned version installs with `--allow-unsigned`, and a signed one is
/// refused as `registry_discovery_missing` (no `signingKeys[]`, so no key is trusted),
/// naming the document and what to pass.
#[test]
fn a_registry_without_a_discovery_document_reads_the_legacy_paths_and_trusts_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let reg = signed_tiles(dir.path(), ">=1.0.0 <3.0.0", false, &["--tree", "v1"]);
    publish(
        &chain_pack(dir.path(), "vendor.me.plain", "1.0.0", ">=1.0.0 <3.0.0", false),
        &reg,
        None,
        &["--tree", "v1"],
    );
    std::fs::remove_file(reg.join(".well-known/openwop-registry.json")).unwrap();

    let cache = dir.path().join("cache");
    let out = ok_json(&install(&reg, "vendor.me.plain", &cache, &["--allow-unsigned"]));
    assert_eq!((out["version"].as_str(), out["tree"].as_str()), (Some("1.0.0"), Some("v1")), "{out}");
    for e in
        [envelope(&verify(&reg, "vendor.me.tiles@1.0.0")), envelope(&install(&reg, "vendor.me.tiles", &cache, &[]))]
    {
        assert_eq!(e["error"], "registry_discovery_missing", "{e}");
        let message = e["message"].as_str().unwrap();
        assert!(message.contains("openwop-registry.json") && message.contains("--registry"), "{message}");
    }
}

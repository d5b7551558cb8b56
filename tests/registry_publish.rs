//! `pack publish` as a registry writer: what it writes is read by the OpenWOP client's own
//! install recipe (restated in Node, `tests/tools/openwop_verify.mjs`) in a v1 and a v2
//! tree; a new key never takes a namespace the registry's keys hold unless asked; a publish
//! is all or nothing (a failure at any step leaves the folder byte for byte as it was, and
//! an interrupted one is finished by a retry); parallel publishes into one folder keep
//! every index row.
//!
//! The tests that run Node are ignored without Node 18+ on PATH (`#[needs(node)]`, probed by tests/env);
//! CI installs it and sets `CHAINSMITH_REQUIRE_NODE=1`.

use chainsmith_test_env::needs;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod common;
use common::cli::{bin, envelope, ok_json, run, s};
use common::registry::{chain_pack, grants, keygen, openwop, publish, published_base, read_json};

fn accepted(reg: &Path, spec: &str) -> Value {
    let v = openwop(reg, spec, None);
    assert_eq!(v["accepted"], true, "{spec} in {}: {v}", reg.display());
    v
}

/// Every path under `dir` with its bytes (`None` for a folder).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().to_path_buf();
            if e.file_type().unwrap().is_dir() {
                out.insert(rel, None);
                stack.push(p);
            } else {
                out.insert(rel, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

fn assert_same(before: &BTreeMap<PathBuf, Option<Vec<u8>>>, dir: &Path, what: &str) {
    let after = snapshot(dir);
    let changed: Vec<&PathBuf> =
        before.keys().chain(after.keys()).filter(|k| before.get(*k) != after.get(*k)).collect();
    assert!(changed.is_empty(), "{what}: the registry folder changed: {changed:?}");
}

fn versions(index: &Value) -> Vec<&str> {
    index["versions"].as_array().unwrap().iter().map(|r| r["version"].as_str().unwrap()).collect()
}

#[needs(node)]
#[test]
fn the_openwop_recipe_installs_what_publish_writes_in_a_v2_and_a_v1_tree() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "me");

    // v2: a new folder.
    let v2 = dir.path().join("reg2");
    for version in ["1.0.0", "1.1.0", "2.0.0-rc.1"] {
        ok_json(&publish(&chain_pack(dir.path(), "vendor.me.tiles", version, true), &v2, &key, "me-1", &[]));
    }
    let latest = accepted(&v2, "vendor.me.tiles");
    assert_eq!(
        (latest["version"].as_str(), latest["tree"].as_str(), latest["recipe"].as_str(), latest["keyId"].as_str()),
        (Some("1.1.0"), Some("v2"), Some("ed25519-canonical-json"), Some("me-1"))
    );
    assert_eq!(accepted(&v2, "vendor.me.tiles@1.0.0")["version"], "1.0.0");
    assert_eq!(accepted(&v2, "vendor.me.tiles@~1.0")["version"], "1.0.0");
    assert_eq!(accepted(&v2, "vendor.me.tiles@>=2.0.0-rc.0")["version"], "2.0.0-rc.1");
    // The document names only the tree written: the client's `--tree v1` is told so, not
    // sent to a v1 index that does not exist.
    let doc = read_json(&v2.join(".well-known/openwop-registry.json"));
    assert!(doc["endpoints"]["v2"].is_object() && doc["endpoints"].get("registryIndex").is_none(), "{doc}");
    let v = openwop(&v2, "vendor.me.tiles", Some("v1"));
    assert_eq!((v["accepted"].as_bool(), v["step"].as_str()), (Some(false), Some("discovery")), "{v}");

    // v1: a new folder written with --tree v1 takes the v1 manual recipe.
    let v1 = dir.path().join("reg1");
    for version in ["1.0.0", "1.1.0"] {
        let out =
            publish(&chain_pack(dir.path(), "vendor.me.old", version, false), &v1, &key, "me-1", &["--tree", "v1"]);
        assert_eq!(ok_json(&out)["tree"], "v1");
    }
    let latest = accepted(&v1, "vendor.me.old");
    assert_eq!(
        (latest["version"].as_str(), latest["tree"].as_str(), latest["recipe"].as_str()),
        (Some("1.1.0"), Some("v1"), Some("manual"))
    );
    accepted(&v1, "vendor.me.old@1.0.0");
    let manifest = read_json(&v1.join("v1/packs/vendor.me.old/-/1.1.0.json"));
    assert_eq!(
        manifest["signing"],
        json!({"method": "manual", "publicKeyRef": "me-1", "signatureRef": "keys/pack.json.sig"})
    );
    let index = read_json(&v1.join("v1/packs/vendor.me.old/index.json"));
    let row = &index["versions"][1];
    assert_eq!((row["signingMethod"].as_str(), row["signingKeyId"].as_str()), (Some("manual"), Some("me-1")), "{row}");
    assert!(row.get("signingScheme").is_none() && row["deprecated"] == false, "{row}");
    let doc = read_json(&v1.join(".well-known/openwop-registry.json"));
    assert!(doc["endpoints"].get("v2").is_none() && doc["endpoints"]["registryIndex"] == "/v1/index.json", "{doc}");
    // chainsmith reads it the same way.
    let v = ok_json(&run(&["verify", "vendor.me.old@1.1.0", "--registry", s(&v1)]));
    assert_eq!((v["tree"].as_str(), v["signature"]["scheme"].as_str()), (Some("v1"), Some("manual")));

    // Tampered versions are refused, at the step that catches them.
    let tgz = v2.join("v2/packs/vendor.me.tiles/-/1.1.0.tgz");
    let mut bytes = std::fs::read(&tgz).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&tgz, bytes).unwrap();
    assert_eq!(openwop(&v2, "vendor.me.tiles@1.1.0", None)["step"], "integrity");
    for sig in [v2.join("v2/packs/vendor.me.tiles/-/1.0.0.sig"), v1.join("v1/packs/vendor.me.old/-/1.0.0.sig")] {
        let mut bytes = std::fs::read(&sig).unwrap();
        bytes[0] ^= 1;
        std::fs::write(&sig, bytes).unwrap();
    }
    assert_eq!(openwop(&v2, "vendor.me.tiles@1.0.0", None)["step"], "signature");
    assert_eq!(openwop(&v1, "vendor.me.old@1.0.0", None)["step"], "signature");
}

/// The tree a registry's discovery document names decides the recipe: publishing into a
/// v1 registry built by Python and OpenSSL (tests/tools/make_registry.py) with its own key
/// signs v1 `manual`, and the client then installs both the new pack and the old one.
#[needs(node, registry_tools)]
#[test]
fn publishing_into_an_existing_v1_registry_keeps_it_installable() {
    let root = tempfile::tempdir().unwrap();
    common::registry::tool_script("make_registry.py", &[s(root.path())]);
    let v1 = root.path().join("v1reg");
    let key = root.path().join("private/good-1.pem");
    accepted(&v1, "vendor.acme.legacy");
    let pack = chain_pack(root.path(), "vendor.acme.fresh", "1.0.0", false);
    let published = ok_json(&publish(&pack, &v1, s(&key), "good-1", &[]));
    assert_eq!(published["tree"], "v1");
    let v = accepted(&v1, "vendor.acme.fresh");
    assert_eq!((v["tree"].as_str(), v["recipe"].as_str()), (Some("v1"), Some("manual")));
    accepted(&v1, "vendor.acme.legacy");
    let index = read_json(&v1.join("v1/index.json"));
    let names: Vec<&str> = index["packs"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["vendor.acme.fresh", "vendor.acme.legacy"]);
    // A pack signed for the v2 tree is not relabelled for this one.
    let signed = chain_pack(root.path(), "vendor.acme.v2only", "1.0.0", true);
    ok_json(&run(&["pack", "sign", s(&signed), "--key", s(&key), "--key-id", "good-1"]));
    let before = snapshot(&v1);
    let e = envelope(&run(&["pack", "publish", s(&signed), "--registry", s(&v1)]));
    assert_eq!(e["error"], "registry_tree_mismatch", "{e}");
    assert_same(&before, &v1, "a v2-signed pack refused by a v1 tree");
}

/// The corpus's real chain packs, published into a v1 tree laid out as the OpenWOP
/// registry's own (flat endpoints, one key for the project's namespaces): the client
/// installs every one.
#[needs(node, corpus)]
#[test]
fn corpus_packs_published_into_a_v1_tree_install_with_the_openwop_recipe() {
    let corpus = common::corpus_dir().join("registry/packs");
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "team");
    let reg = dir.path().join("registry");
    let mut names: Vec<String> = std::fs::read_dir(&corpus)
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("pack.json").is_file())
        .filter(|e| read_json(&e.path().join("pack.json"))["kind"] == "workflow-chain")
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let namespaces: std::collections::BTreeSet<String> =
        names.iter().map(|n| format!("{}.*", n.split('.').take(2).collect::<Vec<_>>().join("."))).collect();
    let templates = |t: &str| format!("/v1/packs/{{name}}/{t}");
    let doc = json!({"registryVersion": "1.0.0", "protocolVersion": "1.0", "name": "corpus registry",
        "endpoints": {"registryIndex": "/v1/index.json", "packMetadata": templates("index.json"),
            "versionManifest": templates("-/{version}.json"), "versionTarball": templates("-/{version}.tgz"),
            "versionSignature": templates("-/{version}.sig"), "publicKey": "/keys/{keyId}.pub"},
        "signingKeys": [{"keyId": "team-1", "algorithm": "ed25519", "publicKeyUrl": "/keys/team-1.pub",
            "permittedNamespaces": namespaces, "status": "active"}]});
    std::fs::create_dir_all(reg.join(".well-known")).unwrap();
    std::fs::create_dir_all(reg.join("keys")).unwrap();
    std::fs::write(reg.join(".well-known/openwop-registry.json"), doc.to_string()).unwrap();
    let public = std::fs::read(dir.path().join("team.public.pem")).unwrap();
    std::fs::write(reg.join("keys/team-1.pub"), public).unwrap();
    for name in &names {
        let out = publish(&corpus.join(name), &reg, &key, "team-1", &[]);
        assert_eq!(ok_json(&out)["tree"], "v1", "{name}");
        let verdict = accepted(&reg, name);
        assert_eq!(verdict["recipe"], "manual", "{name}");
    }
    let index = read_json(&reg.join("v1/index.json"));
    assert_eq!(index["packCount"].as_u64(), Some(names.len() as u64));
    assert_eq!(names.len(), common::corpus_count("registryChainPacks"));
}

#[test]
fn a_new_key_may_not_take_a_namespace_the_registry_holds_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (owner, intruder) = (keygen(dir.path(), "owner"), keygen(dir.path(), "intruder"));
    let reg = dir.path().join("reg");
    ok_json(&publish(&chain_pack(dir.path(), "vendor.acme.one", "1.0.0", true), &reg, &owner, "acme-1", &[]));

    let two = chain_pack(dir.path(), "vendor.acme.two", "1.0.0", true);
    let before = snapshot(&reg);
    let e = envelope(&publish(&two, &reg, &intruder, "intruder-1", &[]));
    assert_eq!(e["error"], "pack_namespace_unauthorized", "{e}");
    assert_eq!(
        (e["details"]["heldBy"].as_str(), e["details"]["namespace"].as_str()),
        (Some("acme-1"), Some("vendor.acme.*"))
    );
    assert!(e["message"].as_str().unwrap().contains("--share-namespace"), "{e}");
    assert_same(&before, &reg, "a refused namespace");
    // A narrower name inside the held namespace is refused too.
    let deeper = chain_pack(dir.path(), "vendor.acme.two.deeper", "1.0.0", true);
    assert_eq!(envelope(&publish(&deeper, &reg, &intruder, "intruder-1", &[]))["error"], "pack_namespace_unauthorized");
    // The listed key outside its namespaces.
    let other = chain_pack(dir.path(), "vendor.beta.x", "1.0.0", true);
    let e = envelope(&publish(&other, &reg, &owner, "acme-1", &[]));
    assert_eq!(e["error"], "pack_namespace_unauthorized");
    let message = e["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("it may sign only vendor.acme.*; sign with a key whose namespaces cover vendor.beta.x"),
        "{e}"
    );
    assert_same(&before, &reg, "refusals");
    // A namespace nobody holds is granted when asked; sharing is granted when asked, with a warning.
    ok_json(&publish(&other, &reg, &intruder, "beta-1", &["--grant-namespace"]));
    let out = publish(&two, &reg, &intruder, "intruder-1", &["--share-namespace"]);
    ok_json(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("pack_namespace_unauthorized"));
    assert_eq!(
        grants(&reg),
        json!([["acme-1", ["vendor.acme.*"]], ["beta-1", ["vendor.beta.*"]], ["intruder-1", ["vendor.acme.*"]]])
    );
    ok_json(&run(&["verify", "vendor.acme.two@1.0.0", "--registry", s(&reg)]));
}

#[test]
fn a_revoked_or_rotated_key_signs_no_new_version() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k");
    let reg = dir.path().join("reg");
    ok_json(&publish(&chain_pack(dir.path(), "vendor.acme.one", "1.0.0", true), &reg, &key, "acme-1", &[]));
    let doc_path = reg.join(".well-known/openwop-registry.json");
    for (status, reason) in [("revoked", "key_revoked"), ("rotated", "key_not_active")] {
        let mut doc = read_json(&doc_path);
        doc["signingKeys"][0]["status"] = json!(status);
        std::fs::write(&doc_path, doc.to_string()).unwrap();
        let before = snapshot(&reg);
        let e =
            envelope(&publish(&chain_pack(dir.path(), "vendor.acme.one", "1.1.0", true), &reg, &key, "acme-1", &[]));
        assert_eq!(
            (e["error"].as_str(), e["details"]["reason"].as_str(), e["details"]["keyStatus"].as_str()),
            (Some("pack_signature_invalid"), Some(reason), Some(status)),
            "{e}"
        );
        assert_same(&before, &reg, status);
        // What a rotated key signed still verifies (interop §1.3); nothing a revoked one
        // signed is trusted.
        let verified = run(&["verify", "vendor.acme.one@1.0.0", "--registry", s(&reg)]);
        if status == "rotated" {
            ok_json(&verified);
        } else {
            assert_eq!(envelope(&verified)["details"]["reason"], "key_revoked");
        }
    }
}

/// Each step of a publish's commit fails in turn on a real obstacle (a folder where its
/// file goes): the registry folder is left byte for byte as it was, and once the obstacle
/// is gone the same publish succeeds.
#[test]
fn a_publish_failing_at_any_step_leaves_the_registry_as_it_was_and_a_retry_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let common::registry::Base { key, base, next, fresh: fresh_pack } = published_base(dir.path());
    let version = "v2/packs/vendor.acme.tiles/-/1.1.0";
    // (file in the way, pack, key id); the key file step needs a key id new to the
    // registry, the document step a document to write.
    let cases = [
        (format!("{version}.tgz"), &next, "acme-1"),
        (format!("{version}.sig"), &next, "acme-1"),
        (format!("{version}.sbom.json"), &next, "acme-1"),
        ("keys/beta-1.pub".to_owned(), &fresh_pack, "beta-1"),
        (".well-known/openwop-registry.json".to_owned(), &fresh_pack, "beta-1"),
        (format!("{version}.json"), &next, "acme-1"),
        ("v2/packs/vendor.acme.tiles/index.json".to_owned(), &next, "acme-1"),
        ("v2/packs/vendor.beta.fresh/index.json".to_owned(), &fresh_pack, "beta-1"),
        ("v2/index.json".to_owned(), &next, "acme-1"),
    ];
    for (i, (obstacle, pack, key_id)) in cases.iter().enumerate() {
        let reg = dir.path().join(format!("reg{i}"));
        copy_tree(&base, &reg);
        let target = reg.join(obstacle);
        let aside = target.with_extension("aside");
        if target.exists() {
            std::fs::rename(&target, &aside).unwrap();
        }
        let made = target.ancestors().take_while(|a| !a.exists()).last().unwrap().to_path_buf();
        std::fs::create_dir_all(target.join("in-the-way")).unwrap();
        let before = snapshot(&reg);
        // beta-1 is new to a registry that has a key: its grant is asked for.
        let e = envelope(&publish(pack, &reg, &key, key_id, &["--grant-namespace"]));
        assert_eq!(e["error"], "io_error", "{obstacle}: {e}");
        assert_same(&before, &reg, obstacle);
        std::fs::remove_dir_all(&made).unwrap();
        if aside.exists() {
            std::fs::rename(&aside, &target).unwrap();
        }
        assert_same(&snapshot(&base), &reg, obstacle);
        let published = ok_json(&publish(pack, &reg, &key, key_id, &["--grant-namespace"]));
        let spec = format!("{}@{}", published["name"].as_str().unwrap(), published["version"].as_str().unwrap());
        ok_json(&run(&["verify", &spec, "--registry", s(&reg)]));
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in snapshot(from) {
        match bytes {
            None => std::fs::create_dir_all(to.join(rel)).unwrap(),
            Some(b) => {
                std::fs::create_dir_all(to.join(&rel).parent().unwrap()).unwrap();
                std::fs::write(to.join(rel), b).unwrap();
            }
        }
    }
}

/// The states a crash between two renames leaves: before the pack index is written the old
/// version still installs, and the new one, complete, is found only by an exact pin; a retry
/// of the same publish finishes it. Between the pack index and the registry index, likewise.
#[test]
fn an_interrupted_publish_leaves_a_readable_registry_and_a_retry_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k");
    let reg = dir.path().join("reg");
    ok_json(&publish(&chain_pack(dir.path(), "vendor.acme.tiles", "1.0.0", true), &reg, &key, "acme-1", &[]));
    let pack_index = reg.join("v2/packs/vendor.acme.tiles/index.json");
    let registry_index = reg.join("v2/index.json");
    let (old_pack_index, old_registry_index) =
        (std::fs::read(&pack_index).unwrap(), std::fs::read(&registry_index).unwrap());
    let next = chain_pack(dir.path(), "vendor.acme.tiles", "1.1.0", true);
    ok_json(&publish(&next, &reg, &key, "acme-1", &[]));

    // Interrupted after the version manifest, before the pack index.
    std::fs::write(&pack_index, &old_pack_index).unwrap();
    std::fs::write(&registry_index, &old_registry_index).unwrap();
    let cache = dir.path().join("cache");
    let install = |spec: &str| run(&["install", spec, "--registry", s(&reg), "--dir", s(&cache)]);
    assert_eq!(ok_json(&install("vendor.acme.tiles"))["version"], "1.0.0");
    assert_eq!(ok_json(&install("vendor.acme.tiles@1.1.0"))["version"], "1.1.0");
    let out = publish(&next, &reg, &key, "acme-1", &[]);
    ok_json(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("publish_completed"));
    let index = read_json(&pack_index);
    assert_eq!((versions(&index), index["latest"].as_str()), (vec!["1.0.0", "1.1.0"], Some("1.1.0")));

    // Interrupted between the pack index and the registry index.
    std::fs::write(&registry_index, &old_registry_index).unwrap();
    assert_eq!(ok_json(&install("vendor.acme.tiles"))["version"], "1.1.0");
    ok_json(&publish(&next, &reg, &key, "acme-1", &[]));
    assert_eq!(read_json(&registry_index)["packs"][0]["latestVersion"], "1.1.0");
    assert_eq!(read_json(&pack_index)["versions"].as_array().unwrap().len(), 2);

    // Complete: the version is immutable again, and other bytes for it are refused, saying
    // what to do instead.
    let refused = envelope(&publish(&next, &reg, &key, "acme-1", &[]));
    assert_eq!(refused["error"], "pack_version_exists");
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(message.ends_with("raise the version in pack.json and publish again"), "{message}");
    std::fs::write(next.join("README.md"), "# changed\n").unwrap();
    std::fs::write(&registry_index, &old_registry_index).unwrap();
    assert_eq!(envelope(&publish(&next, &reg, &key, "acme-1", &[]))["error"], "pack_version_exists");
}

#[test]
fn a_refused_publish_leaves_no_registry_folder_behind() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k");
    let reg = dir.path().join("new/registry");
    // A README over the 16 MiB file limit is found only after the folder is locked.
    let big = chain_pack(dir.path(), "vendor.acme.big", "1.0.0", true);
    std::fs::write(big.join("README.md"), vec![b'x'; 17 * 1024 * 1024]).unwrap();
    let e = envelope(&publish(&big, &reg, &key, "acme-1", &[]));
    assert_eq!(e["error"], "invalid_request", "{e}");
    assert!(!dir.path().join("new").exists(), "{e}");
    // A pack signed for v2, published into a new v1 tree.
    let signed = chain_pack(dir.path(), "vendor.acme.signed", "1.0.0", true);
    ok_json(&run(&["pack", "sign", s(&signed), "--key", &key, "--key-id", "acme-1"]));
    let e = envelope(&run(&["pack", "publish", s(&signed), "--registry", s(&reg), "--tree", "v1"]));
    assert_eq!(e["error"], "registry_tree_mismatch");
    assert!(!dir.path().join("new").exists());
    // A folder that was there stays, empty as it was.
    std::fs::create_dir_all(&reg).unwrap();
    envelope(&publish(&big, &reg, &key, "acme-1", &[]));
    assert_eq!(std::fs::read_dir(&reg).unwrap().count(), 0);
}

/// Twelve `pack publish` processes at once into one new folder: the lock keeps every
/// read-modify-write of the indexes whole.
#[test]
fn parallel_publishes_into_one_folder_keep_every_index_row() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k");
    let reg = dir.path().join("reg");
    let names: Vec<String> = (1..=12).map(|i| format!("vendor.acme.p{i:02}")).collect();
    let packs: Vec<PathBuf> = names.iter().map(|n| chain_pack(dir.path(), n, "1.0.0", true)).collect();
    let children: Vec<_> = packs
        .iter()
        .map(|p| {
            bin()
                .args(["pack", "publish", s(p), "--registry", s(&reg), "--key", &key, "--key-id", "acme-1"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        ok_json(&child.wait_with_output().unwrap());
    }
    let index = read_json(&reg.join("v2/index.json"));
    let listed: Vec<&str> = index["packs"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(listed, names.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(index["packCount"], 12);
    for name in &names {
        let pack_index = read_json(&reg.join(format!("v2/packs/{name}/index.json")));
        assert_eq!((versions(&pack_index), pack_index["latest"].as_str()), (vec!["1.0.0"], Some("1.0.0")));
        ok_json(&run(&["verify", &format!("{name}@1.0.0"), "--registry", s(&reg)]));
    }
    let doc = read_json(&reg.join(".well-known/openwop-registry.json"));
    assert_eq!(doc["signingKeys"].as_array().unwrap().len(), 1, "{doc}");
    // Neither the lock file nor a staging folder is left.
    let hidden: Vec<String> = std::fs::read_dir(&reg)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".chainsmith"))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
}

//! Registry interop against folders built by independent tools: `tests/tools/make_registry.py`
//! writes every document and tarball with Python (json, hashlib, tarfile, gzip) and every
//! key and signature with OpenSSL; chainsmith must verify, install and open them, refuse
//! the broken ones with their codes, and publish folders those tools accept in turn.
//!
//! Without python3, openssl or node on PATH (tests/env decides) these tests are ignored; CI installs
//! all three and sets `CHAINSMITH_REQUIRE_REGISTRY_TOOLS=1`, which turns their absence into a
//! build failure.

use base64::Engine;
use chainsmith_test_env::needs;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::cli::{bin, envelope, ok_json, run, s};

/// The registries the script builds, in a fresh temporary folder.
fn registries() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::registry::tool_script("make_registry.py", &[s(dir.path())]);
    dir
}

fn expected(root: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(root.join("expected.json")).unwrap()).unwrap()
}

#[needs(registry_tools)]
#[test]
fn verifies_v2_and_v1_registries_built_by_python_and_openssl() {
    let root = registries();
    let want = expected(root.path());
    let v2 = root.path().join("v2reg");
    let v = ok_json(&run(&["verify", "vendor.acme.tiles@1.0.0", "--registry", s(&v2)]));
    assert_eq!(v["tree"], "v2");
    assert_eq!(v["integrity"], want["vendor.acme.tiles@1.0.0"]["integrity"]);
    assert_eq!(v["signature"]["status"], "verified");
    assert_eq!(v["signature"]["scheme"], "ed25519-canonical-json");
    assert_eq!(v["signature"]["keyId"], "good-1");
    // A deprecated version verifies and says so.
    let v = ok_json(&run(&["verify", "vendor.acme.tiles@1.2.0", "--registry", s(&v2)]));
    assert_eq!(v["deprecated"], "use 2.x");

    let v1 = root.path().join("v1reg");
    let v = ok_json(&run(&["verify", "vendor.acme.legacy@1.0.0", "--registry", s(&v1)]));
    assert_eq!((v["tree"].as_str(), v["signature"]["scheme"].as_str()), (Some("v1"), Some("manual")));
    assert_eq!(v["integrity"], want["vendor.acme.legacy@1.0.0"]["integrity"]);
}

#[needs(registry_tools)]
#[test]
fn tampered_wrong_signer_and_uncovered_namespace_are_refused_with_their_codes() {
    let root = registries();
    let v2 = root.path().join("v2reg");
    let refuse = |spec: &str| envelope(&run(&["verify", spec, "--registry", s(&v2)]));

    let e = refuse("vendor.acme.tampered@1.0.0");
    assert_eq!(e["error"], "pack_integrity_failure", "{e}");
    assert_eq!(e["details"]["expected"], expected(root.path())["vendor.acme.tampered@1.0.0"]["integrity"]);

    let e = refuse("vendor.acme.forged@1.0.0");
    assert_eq!(
        (e["error"].as_str(), e["details"]["reason"].as_str()),
        (Some("pack_signature_invalid"), Some("signature_mismatch")),
        "{e}"
    );

    let e = refuse("vendor.other.tiles@1.0.0");
    assert_eq!(
        (e["error"].as_str(), e["details"]["reason"].as_str()),
        (Some("pack_signature_invalid"), Some("namespace")),
        "{e}"
    );

    // install refuses them the same way and leaves the cache empty.
    let cache = tempfile::tempdir().unwrap();
    for spec in ["vendor.acme.tampered", "vendor.acme.forged@1.0.0", "vendor.other.tiles@^1"] {
        let out = run(&["install", spec, "--registry", s(&v2), "--dir", s(cache.path())]);
        assert_eq!(out.status.code(), Some(1), "{spec}");
    }
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
    let e = envelope(&run(&["verify", "vendor.acme.tiles@9.9.9", "--registry", s(&v2)]));
    assert_eq!(e["error"], "pack_version_not_found");
    let e = envelope(&run(&["verify", "vendor.acme.none@1.0.0", "--registry", s(&root.path().join("nowhere"))]));
    assert_eq!(e["error"], "pack_registry_unreachable");
}

#[needs(registry_tools)]
#[test]
fn installs_resolve_like_openwop_and_skip_yanked_versions() {
    let root = registries();
    let v2 = root.path().join("v2reg");
    let cache = tempfile::tempdir().unwrap();
    let install = |spec: &str| run(&["install", spec, "--registry", s(&v2), "--dir", s(cache.path())]);

    // No spec: the index's `latest` (1.3.0) is yanked, so the highest unyanked stable wins.
    let out = install("vendor.acme.tiles");
    let v = ok_json(&out);
    assert_eq!((v["version"].as_str(), v["yanked"].as_bool()), (Some("1.2.0"), Some(false)));
    assert_eq!(v["deprecated"], "use 2.x");
    assert!(String::from_utf8_lossy(&out.stderr).contains("pack_version_deprecated"));
    // The summary names exactly the §2.4 fields.
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["deprecated", "integrity", "manifest", "name", "signature", "tarball", "tree", "version", "yanked"]
    );
    let tgz = cache.path().join("vendor.acme.tiles/1.2.0/1.2.0.tgz");
    assert_eq!(v["tarball"], s(&tgz));
    assert_eq!(std::fs::read(&tgz).unwrap(), std::fs::read(v2.join("v2/packs/vendor.acme.tiles/-/1.2.0.tgz")).unwrap());
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(cache.path().join("vendor.acme.tiles/1.2.0/1.2.0.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["integrity"], expected(root.path())["vendor.acme.tiles@1.2.0"]["integrity"]);

    // Ranges take the highest unyanked match; prereleases only when the range names one.
    assert_eq!(ok_json(&install("vendor.acme.tiles@^1.0.0"))["version"], "1.2.0");
    assert_eq!(ok_json(&install("vendor.acme.tiles@~1.0.0"))["version"], "1.0.0");
    assert_eq!(ok_json(&install("vendor.acme.tiles@>=2.0.0-rc.0"))["version"], "2.0.0-rc.1");
    assert_eq!(envelope(&install("vendor.acme.tiles@>=1.3.0 <2.0.0"))["error"], "pack_version_not_found");
    // An exact pin installs a yanked version, with a warning.
    let out = install("vendor.acme.tiles@1.3.0");
    assert_eq!(ok_json(&out)["yanked"], true);
    assert!(String::from_utf8_lossy(&out.stderr).contains("pack_version_yanked"));
    // A v2 host of a later major than `engines.openwop` admits refuses at install.
    let host = root.path().join("host.json");
    let for_host = |major: u32| {
        std::fs::write(&host, format!(r#"{{"protocolMajor": {major}}}"#)).unwrap();
        run(&["install", "vendor.acme.tiles@1.0.0", "--registry", s(&v2), "--dir", s(cache.path()), "--host", s(&host)])
    };
    assert_eq!(envelope(&for_host(3))["error"], "pack_engine_unsupported");
    ok_json(&for_host(2));
    // OPENWOP_CONFIG_HOME is the default base.
    let home = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["install", "vendor.acme.tiles@1.0.0", "--registry", s(&v2)])
        .env("OPENWOP_CONFIG_HOME", home.path())
        .output()
        .unwrap();
    ok_json(&out);
    assert!(home.path().join(".openwop/packs/vendor.acme.tiles/1.0.0/1.0.0.tgz").is_file());
}

#[needs(registry_tools)]
#[test]
fn packs_open_from_registry_tarballs_and_the_install_cache() {
    let root = registries();
    let v2 = root.path().join("v2reg");
    let cache = tempfile::tempdir().unwrap();
    ok_json(&run(&["install", "vendor.acme.tiles@1.0.0", "--registry", s(&v2), "--dir", s(cache.path())]));
    let tgz = cache.path().join("vendor.acme.tiles/1.0.0/1.0.0.tgz");
    let out = run(&["validate", s(&tgz)]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    // Expanding straight from the tarball: the pinned typeId is kept.
    let v = ok_json(&run(&["expand", s(&tgz), "--chain", "tiles.echo", "--set", "text=hi", "--expansion-id", "ab12"]));
    assert_eq!(v["packVersion"], "1.0.0");
    assert_eq!(v["nodes"][0]["config"]["value"], "hi");
    assert_eq!(v["nodes"][0]["typeId"], "core.identity@1.0.0");
    // The cache folder and a v1 registry tarball and npm's package/ layout all open.
    let out = run(&["validate", s(cache.path())]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    for tgz in
        [root.path().join("v1reg/v1/packs/vendor.acme.legacy/-/1.0.0.tgz"), root.path().join("package-layout.tgz")]
    {
        let out = run(&["validate", "--json", s(&tgz)]);
        assert_eq!(out.status.code(), Some(0), "{}: {}", tgz.display(), String::from_utf8_lossy(&out.stdout));
    }
    // A v2-signed tarball verifies offline against a trusted key named by its id.
    let keys = tempfile::tempdir().unwrap();
    std::fs::copy(v2.join("keys/good-1.pub"), keys.path().join("good-1.pub")).unwrap();
    let out = run(&["validate", "--require-signed", "--trusted-keys", s(keys.path()), s(&tgz)]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

/// The interop §1.4 key (seed 32 × 0x07) as PKCS#8 PEM, made by OpenSSL from its DER.
fn vector_key(dir: &Path) -> PathBuf {
    let mut der = hex("302e020100300506032b657004220420");
    der.extend([7u8; 32]);
    let der_path = dir.join("seed.der");
    std::fs::write(&der_path, der).unwrap();
    let pem = dir.join("seed.pem");
    let out = Command::new("openssl")
        .args(["pkey", "-inform", "DER", "-in", s(&der_path), "-out", s(&pem)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    pem
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

const VECTOR: &str = r#"{"chains":[{"chainId":"tiles.echo","dag":{"nodes":[{"config":{"value":"{{params.text}}"},"id":"say","typeId":"core.identity@1.0.0"}]},"description":"Say it back.","label":"Echo","parameters":{"properties":{"text":{"type":"string"}},"type":"object"},"version":"0.1.0"}],"engines":{"openwop":">=1.0.0 <3.0.0"},"kind":"workflow-chain","name":"community.example.tiles","signing":{"keyId":"example-1","scheme":"ed25519-canonical-json"},"version":"0.1.0"}"#;

#[needs(registry_tools)]
#[test]
fn pack_sign_reproduces_the_interop_vector_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let key = vector_key(dir.path());
    // The vector's manifest, pretty-printed and unsigned, members in another order.
    let mut m: Value = serde_json::from_str(VECTOR).unwrap();
    m.as_object_mut().unwrap().remove("signing");
    let pack = dir.path().join("pack");
    std::fs::create_dir(&pack).unwrap();
    let mut reordered = serde_json::Map::new();
    for (k, v) in m.as_object().unwrap().iter().rev() {
        reordered.insert(k.clone(), v.clone());
    }
    std::fs::write(pack.join("pack.json"), serde_json::to_vec_pretty(&reordered).unwrap()).unwrap();
    let v = ok_json(&run(&["pack", "sign", s(&pack), "--key", s(&key), "--key-id", "example-1"]));
    assert_eq!(v["scheme"], "ed25519-canonical-json");
    let written = std::fs::read(pack.join("pack.json")).unwrap();
    assert_eq!(written.len(), 449);
    assert_eq!(String::from_utf8(written).unwrap(), VECTOR);
    let sig = std::fs::read(pack.join("keys/pack.json.sig")).unwrap();
    assert_eq!(
        base64::engine::general_purpose::STANDARD.encode(&sig),
        "ot9cxKRGDxWTngR+CmgBI9qp1QTLnZhbZGaXdmegj9ZyxCmt3hCyMWn0DBZ56ByAimWL3vORmOGTdnIxtA1FAw=="
    );
    // OpenSSL agrees.
    let public = dir.path().join("seed.pub");
    assert!(
        Command::new("openssl")
            .args(["pkey", "-in", s(&key), "-pubout", "-out", s(&public)])
            .status()
            .unwrap()
            .success()
    );
    let verified = Command::new("openssl")
        .args(["pkeyutl", "-verify", "-pubin", "-inkey", s(&public), "-rawin", "-in", s(&pack.join("pack.json"))])
        .args(["-sigfile", s(&pack.join("keys/pack.json.sig"))])
        .output()
        .unwrap();
    assert!(verified.status.success(), "{}", String::from_utf8_lossy(&verified.stdout));
    assert!(
        std::fs::read_to_string(&public)
            .unwrap()
            .contains("MCowBQYDK2VwAyEA6kpsY+KcUgq+9VB7Ey7F+ZVHdq6+vnuSQh7qaRRG0iw=")
    );
}

/// Python's own reading of a published registry: SRI, tar headers, gzip header, SBOM.
const PY_CHECK: &str = r#"
import base64, gzip, hashlib, json, sys, tarfile
reg, name, version = sys.argv[1:4]
base = "%s/v2/packs/%s/-/%s" % (reg, name, version)
tgz = open(base + ".tgz", "rb").read()
manifest = json.load(open(base + ".json"))
assert manifest["integrity"] == "sha256-" + base64.b64encode(hashlib.sha256(tgz).digest()).decode(), "integrity"
assert tgz[:10] == bytes([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff]), tgz[:10]
tar = tarfile.open(base + ".tgz")
members = tar.getmembers()
names = [m.name for m in members]
assert names == sorted(names), names
for m in members:
    assert (m.mode, m.uid, m.gid, m.uname, m.gname, m.mtime, m.type) == (0o644, 0, 0, "", "", 0, tarfile.REGTYPE), m
raw = gzip.decompress(tgz)
assert raw[257:265] == b"ustar\x0000", raw[257:265]
packed = tar.extractfile("pack.json").read()
assert packed == json.dumps(json.loads(packed), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(), "canonical"
sbom = json.load(open(base + ".sbom.json"))
assert sbom["metadata"]["component"]["purl"] == "pkg:openwop/%s@%s" % (name, version)
assert sbom["metadata"]["component"]["hashes"][0]["content"] == hashlib.sha256(tgz).hexdigest()
files = {m.name: tar.extractfile(m).read() for m in members}
assert [c["name"] for c in sbom["components"]] == names
for c in sbom["components"]:
    assert c["hashes"][0]["content"] == hashlib.sha256(files[c["name"]]).hexdigest()
open(sys.argv[4], "wb").write(packed)
print(json.dumps(names))
"#;

#[needs(registry_tools)]
#[test]
fn pack_publish_output_verifies_with_chainsmith_python_and_openssl() {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("tiles");
    std::fs::create_dir_all(pack.join("notes")).unwrap();
    let mut m: Value = serde_json::from_str(VECTOR).unwrap();
    m.as_object_mut().unwrap().remove("signing");
    std::fs::write(pack.join("pack.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    std::fs::write(pack.join("README.md"), "# Tiles\n").unwrap();
    std::fs::write(pack.join("LICENSE"), "MIT\n").unwrap();
    std::fs::write(pack.join("notes/todo.txt"), "not published\n").unwrap();
    let keys = ok_json(&run(&["keygen", s(&dir.path().join("me"))]));
    let private = keys["privateKey"].as_str().unwrap().to_owned();
    let private_text = std::fs::read_to_string(&private).unwrap();
    let body = private_text.lines().nth(1).unwrap();
    let reg = dir.path().join("reg");
    let publish =
        |pack: &Path| run(&["pack", "publish", s(pack), "--registry", s(&reg), "--key", &private, "--key-id", "me-1"]);
    let out = publish(&pack);
    let v = ok_json(&out);
    assert!(!String::from_utf8_lossy(&out.stdout).contains(body), "the private key is never printed");
    assert!(!String::from_utf8_lossy(&out.stderr).contains(body));
    assert_eq!(v["files"], serde_json::json!(["LICENSE", "README.md", "keys/pack.json.sig", "pack.json"]));
    assert_eq!(v["skipped"], serde_json::json!(["notes/todo.txt"]));
    // The source folder is left as it was.
    assert!(!pack.join("keys").exists());

    // chainsmith verifies and installs it.
    let verified = ok_json(&run(&["verify", "community.example.tiles@0.1.0", "--registry", s(&reg)]));
    assert_eq!(
        (verified["signature"]["keyId"].as_str(), verified["integrity"].as_str()),
        (Some("me-1"), v["integrity"].as_str())
    );
    // Python reads the tarball, the integrity and the SBOM; OpenSSL checks the signature.
    let packed = dir.path().join("packed.json");
    let py = Command::new("python3")
        .args(["-c", PY_CHECK, s(&reg), "community.example.tiles", "0.1.0", s(&packed)])
        .output()
        .unwrap();
    assert!(py.status.success(), "{}", String::from_utf8_lossy(&py.stderr));
    let sig = reg.join("v2/packs/community.example.tiles/-/0.1.0.sig");
    let ossl = Command::new("openssl")
        .args(["pkeyutl", "-verify", "-pubin", "-inkey", s(&reg.join("keys/me-1.pub")), "-rawin", "-in", s(&packed)])
        .args(["-sigfile", s(&sig)])
        .output()
        .unwrap();
    assert!(ossl.status.success(), "{}", String::from_utf8_lossy(&ossl.stdout));

    // A second version updates the indexes; the same version again is refused.
    let mut m2 = m.clone();
    m2["version"] = "0.2.0".into();
    std::fs::write(pack.join("pack.json"), serde_json::to_vec_pretty(&m2).unwrap()).unwrap();
    ok_json(&publish(&pack));
    let index: Value =
        serde_json::from_slice(&std::fs::read(reg.join("v2/packs/community.example.tiles/index.json")).unwrap())
            .unwrap();
    let versions: Vec<&str> =
        index["versions"].as_array().unwrap().iter().map(|r| r["version"].as_str().unwrap()).collect();
    assert_eq!((versions, index["latest"].as_str()), (vec!["0.1.0", "0.2.0"], Some("0.2.0")));
    let all: Value = serde_json::from_slice(&std::fs::read(reg.join("v2/index.json")).unwrap()).unwrap();
    assert_eq!((all["packCount"].as_u64(), all["packs"][0]["latestVersion"].as_str()), (Some(1), Some("0.2.0")));
    assert_eq!(envelope(&publish(&pack))["error"], "pack_version_exists");
    // Another key may not take over the id.
    let other = ok_json(&run(&["keygen", s(&dir.path().join("other"))]));
    let out = run(&[
        "pack",
        "publish",
        s(&pack),
        "--registry",
        s(&reg),
        "--key",
        other["privateKey"].as_str().unwrap(),
        "--key-id",
        "me-1",
    ]);
    assert_eq!(envelope(&out)["error"], "pack_signature_invalid");
    // Installing from the published registry takes the newest.
    let cache = dir.path().join("cache");
    assert_eq!(
        ok_json(&run(&["install", "community.example.tiles", "--registry", s(&reg), "--dir", s(&cache)]))["version"],
        "0.2.0"
    );
}

#[test]
fn v1_signing_round_trips_through_validate_and_keygen_keeps_keys_private() {
    let dir = tempfile::tempdir().unwrap();
    let keys = ok_json(&run(&["keygen", s(&dir.path().join("k"))]));
    let private = std::fs::read_to_string(keys["privateKey"].as_str().unwrap()).unwrap();
    assert!(private.starts_with("-----BEGIN PRIVATE KEY-----"));
    let pack = dir.path().join("pack");
    std::fs::create_dir(&pack).unwrap();
    let mut m: Value = serde_json::from_str(VECTOR).unwrap();
    m.as_object_mut().unwrap().remove("signing");
    m["chains"][0]["dag"]["nodes"][0]["typeId"] = "core.identity".into();
    std::fs::write(pack.join("pack.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let v = ok_json(&run(&["pack", "sign", s(&pack), "--key", keys["privateKey"].as_str().unwrap()]));
    assert_eq!(
        (v["scheme"].as_str(), v["publicKey"].as_str()),
        (Some("manual"), Some(s(&pack.join("keys/pack.pub.pem"))))
    );
    let trusted = dir.path().join("trusted");
    std::fs::create_dir(&trusted).unwrap();
    std::fs::copy(keys["publicKey"].as_str().unwrap(), trusted.join("k.pem")).unwrap();
    let validate = || run(&["validate", "--require-signed", "--trusted-keys", s(&trusted), s(&pack)]);
    assert_eq!(validate().status.code(), Some(0), "{}", String::from_utf8_lossy(&validate().stdout));
    // Any later byte change is a bad signature.
    let mut bytes = std::fs::read(pack.join("pack.json")).unwrap();
    bytes.push(b'\n');
    std::fs::write(pack.join("pack.json"), bytes).unwrap();
    let out = validate();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("pack_signature_invalid"));
    // A wrong key file is refused with a message that quotes nothing of it.
    let out = run(&["pack", "sign", s(&pack), "--key", keys["publicKey"].as_str().unwrap()]);
    assert_eq!(envelope(&out)["error"], "invalid_request");
}

#[needs(registry_tools)]
#[test]
fn resolve_checks_registry_integrity_and_warns_about_yanked_pins() {
    let root = registries();
    let want = expected(root.path());
    let v2 = root.path().join("v2reg");
    let lock = |integrity: &Value| {
        let path = root.path().join("pack-lock.json");
        let doc = serde_json::json!({"lockfileVersion": 1, "generatedAt": "2026-01-01T00:00:00Z",
            "packs": [{"name": "vendor.acme.tiles", "version": "1.3.0", "integrity": integrity}]});
        std::fs::write(&path, doc.to_string()).unwrap();
        run(&["resolve", s(&path), "--registry", s(&v2)])
    };
    let out = lock(&want["vendor.acme.tiles@1.3.0"]["integrity"]);
    let v = ok_json(&out);
    assert_eq!(
        (v["integrityVerified"].as_bool(), v["packs"][0]["integrityVerified"].as_bool()),
        (Some(true), Some(true))
    );
    let findings = v["findings"].as_array().unwrap();
    assert!(findings.iter().all(|f| f["severity"] == "warning"), "{findings:?}");
    let yanked: Vec<&Value> = findings.iter().filter(|f| f["code"] == "pack_version_yanked").collect();
    assert_eq!((yanked.len(), yanked[0]["path"].as_str()), (1, Some("/packs/0")));
    // Scanning the registry also met the tampered tarball, which no longer unpacks.
    let unreadable: Vec<&Value> = findings.iter().filter(|f| f["code"] == "pack_manifest_invalid").collect();
    assert_eq!(unreadable.len(), 1, "{findings:?}");
    assert!(unreadable[0]["message"].as_str().unwrap().contains("vendor.acme.tampered"), "{findings:?}");
    // Another version's integrity in the lockfile: the tarball does not match it.
    let e = envelope(&lock(&want["vendor.acme.tiles@1.0.0"]["integrity"]));
    assert_eq!(
        (e["error"].as_str(), e["details"]["path"].as_str()),
        (Some("pack_integrity_mismatch"), Some("/packs/0/integrity"))
    );
}

#[test]
fn unsigned_packs_publish_but_install_only_with_allow_unsigned_and_never_verify() {
    let dir = tempfile::tempdir().unwrap();
    let pack = dir.path().join("tiles");
    std::fs::create_dir(&pack).unwrap();
    let mut m: Value = serde_json::from_str(VECTOR).unwrap();
    m.as_object_mut().unwrap().remove("signing");
    // Unsigned, so a v1 manifest: typeIds are not pinned.
    m["chains"][0]["dag"]["nodes"][0]["typeId"] = "core.identity".into();
    std::fs::write(pack.join("pack.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let reg = dir.path().join("reg");
    let v = ok_json(&run(&["pack", "publish", s(&pack), "--registry", s(&reg)]));
    assert_eq!((v["signed"].as_bool(), v["files"].as_array().map(Vec::len)), (Some(false), Some(1)));
    // The published pack.json is the canonical form of the folder's.
    let archive = chainsmith::registry::PackArchive::read(Path::new(v["tarball"].as_str().unwrap())).unwrap();
    let canonical = VECTOR
        .replace(r#""signing":{"keyId":"example-1","scheme":"ed25519-canonical-json"},"#, "")
        .replace("core.identity@1.0.0", "core.identity");
    assert_eq!(archive.manifest().unwrap(), canonical.as_bytes());
    let e = envelope(&run(&["verify", "community.example.tiles@0.1.0", "--registry", s(&reg)]));
    assert_eq!(e["error"], "signature_not_available");
    let cache = dir.path().join("cache");
    // Refused by default, as the OpenWOP CLI refuses it; installed on request, with a warning.
    let install = |extra: &[&str]| {
        let mut args = vec!["install", "community.example.tiles", "--registry", s(&reg), "--dir", s(&cache)];
        args.extend(extra);
        run(&args)
    };
    let e = envelope(&install(&[]));
    assert_eq!(e["error"], "pack_unsigned", "{e}");
    assert!(e["message"].as_str().unwrap().contains("--allow-unsigned"), "{e}");
    assert!(!cache.exists());
    assert_eq!(envelope(&install(&["--require-signed"]))["error"], "pack_unsigned");
    let out = install(&["--allow-unsigned"]);
    assert_eq!(ok_json(&out)["signature"]["status"], "unsigned");
    assert!(String::from_utf8_lossy(&out.stderr).contains("pack_unsigned"));
}

#[needs(registry_tools)]
#[test]
fn resolve_verifies_signatures_per_issuing_registry_and_recorded_tarball_signatures() {
    let root = registries();
    let want = expected(root.path());
    let v2 = root.path().join("v2reg");
    let resolve = |name: &str, integrity: &Value, signature: Option<&Value>| {
        let mut entry = serde_json::json!({"name": name, "version": "1.0.0", "integrity": integrity});
        if let Some(sig) = signature {
            entry["signature"] = sig.clone();
        }
        let path = root.path().join("pack-lock.json");
        let doc = serde_json::json!({"lockfileVersion": 1, "generatedAt": "2026-01-01T00:00:00Z", "packs": [entry]});
        std::fs::write(&path, doc.to_string()).unwrap();
        run(&["resolve", s(&path), "--registry", s(&v2)])
    };
    let tiles = &want["vendor.acme.tiles@1.0.0"]["integrity"];
    let v = ok_json(&resolve("vendor.acme.tiles", tiles, Some(&want["tarballSignature"])));
    assert_eq!(v["packs"][0]["integrityVerified"], true);
    let e = envelope(&resolve("vendor.acme.tiles", tiles, Some(&want["rogueTarballSignature"])));
    assert_eq!(
        (e["error"].as_str(), e["details"]["path"].as_str()),
        (Some("pack_signature_invalid"), Some("/packs/0/signature"))
    );
    // The registry's own signature check: the forged pack claims a key it was not signed with.
    let e = envelope(&resolve("vendor.acme.forged", &want["vendor.acme.forged@1.0.0"]["integrity"], None));
    assert_eq!(
        (e["error"].as_str(), e["details"]["reason"].as_str()),
        (Some("pack_signature_invalid"), Some("signature_mismatch"))
    );
}

/// The hostile registries `tests/tools/make_hostile.py` builds, in a fresh temporary folder.
fn hostile() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::registry::tool_script("make_hostile.py", &[s(dir.path())]);
    dir
}

fn code_reason(e: &Value) -> (&str, &str) {
    (e["error"].as_str().unwrap_or_default(), e["details"]["reason"].as_str().unwrap_or_default())
}

#[needs(registry_tools)]
#[test]
fn tarballs_other_tools_read_differently_are_refused_by_verify_install_and_open() {
    let root = hostile();
    let want = expected(root.path());
    // The split tarball really is a bypass: Python, tar -xzf and Node's zlib read the unsigned
    // pack.json of the second member.
    let read_evil = serde_json::json!({"pythonReadsEvil": true, "tarReadsEvil": true, "nodeZlibReadsEvil": true});
    for (who, reads) in read_evil.as_object().unwrap() {
        assert_eq!(&want["split"][who], reads, "{who}");
    }
    assert_eq!(want["split"]["firstMemberIsSigned"], true);
    let reg = root.path().join("hostile");
    let cache = root.path().join("cache");
    for (name, reason) in [
        ("vendor.acme.split", "gzip_members"),
        ("vendor.acme.dup", "duplicate_entry"),
        ("vendor.acme.after", "trailing_data"),
        ("vendor.acme.pax", "entry_not_file"),
    ] {
        let spec = format!("{name}@1.0.0");
        let e = envelope(&run(&["verify", &spec, "--registry", s(&reg)]));
        assert_eq!(code_reason(&e), ("pack_integrity_failure", reason), "{name}: {e}");
        let e = envelope(&run(&["install", &spec, "--registry", s(&reg), "--dir", s(&cache)]));
        assert_eq!(code_reason(&e), ("pack_integrity_failure", reason), "{name}: {e}");
        // Opening the tarball itself (the editor's and validate's reader) refuses it too.
        let tgz = reg.join(format!("v2/packs/{name}/-/1.0.0.tgz"));
        let out = run(&["validate", "--json", s(&tgz)]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", String::from_utf8_lossy(&out.stdout));
    }
    assert!(!cache.exists(), "nothing was installed");
}

#[needs(registry_tools)]
#[test]
fn hex_integrity_and_revoked_keys_are_refused_with_specific_reasons() {
    let root = hostile();
    let reg = root.path().join("hostile");
    let cache = root.path().join("cache");
    let e = envelope(&run(&["verify", "vendor.acme.hex@1.0.0", "--registry", s(&reg)]));
    assert_eq!(code_reason(&e), ("pack_integrity_failure", "integrity_format"), "{e}");
    assert!(e["details"]["expected"].as_str().unwrap().starts_with("sha256:"), "{e}");

    let e = envelope(&run(&["verify", "vendor.acme.revoked@1.0.0", "--registry", s(&reg)]));
    assert_eq!(code_reason(&e), ("pack_signature_invalid", "key_revoked"), "{e}");
    assert_eq!(e["details"]["keyId"], "old-1");
    for extra in [&[][..], &["--require-signed"][..]] {
        let mut args = vec!["install", "vendor.acme.revoked@1.0.0", "--registry", s(&reg), "--dir", s(&cache)];
        args.extend(extra);
        assert_eq!(code_reason(&envelope(&run(&args))).1, "key_revoked");
    }
    assert!(!cache.exists());

    // Signing with the revoked key against that registry is refused; the active key signs.
    let pack = root.path().join("pack");
    std::fs::create_dir(&pack).unwrap();
    let mut m: Value = serde_json::from_str(VECTOR).unwrap();
    m["name"] = "vendor.acme.new".into();
    m.as_object_mut().unwrap().remove("signing");
    std::fs::write(pack.join("pack.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let before = std::fs::read(pack.join("pack.json")).unwrap();
    let sign = |key: &str, id: &str| {
        let key = root.path().join("private").join(key);
        run(&["pack", "sign", s(&pack), "--key", s(&key), "--key-id", id, "--registry", s(&reg)])
    };
    let e = envelope(&sign("old-1.pem", "old-1"));
    assert_eq!(
        (code_reason(&e), e["details"]["keyId"].as_str()),
        (("pack_signature_invalid", "key_revoked"), Some("old-1"))
    );
    let e = envelope(&sign("good-1.pem", "old-1"));
    assert_eq!(code_reason(&e).1, "key_revoked");
    let e = envelope(&sign("old-1.pem", "good-1"));
    assert_eq!(code_reason(&e).1, "key_mismatch");
    assert_eq!(std::fs::read(pack.join("pack.json")).unwrap(), before, "nothing was written");
    assert!(!pack.join("keys").exists());
    assert_eq!(ok_json(&sign("good-1.pem", "good-1"))["keyId"], "good-1");
}

#[needs(registry_tools)]
#[test]
fn install_checks_the_name_and_never_writes_outside_the_cache() {
    let root = hostile();
    let reg = root.path().join("noname");
    let base = root.path().join("a/b/cache");
    std::fs::create_dir_all(&base).unwrap();
    let install = |spec: &str| run(&["install", spec, "--registry", s(&reg), "--dir", s(&base), "--allow-unsigned"]);
    let e = envelope(&install("../../escaped/x@1.0.0"));
    assert_eq!(e["error"], "pack_name_invalid", "{e}");
    assert!(!root.path().join("a/escaped").exists() && !root.path().join("escaped").exists());
    // A valid name the tarball's pack.json does not carry (the templates ignore the name).
    let e = envelope(&install("vendor.acme.other@1.0.0"));
    assert_eq!(code_reason(&e), ("pack_integrity_failure", "manifest_mismatch"), "{e}");
    assert_eq!(e["details"]["packedName"], "vendor.acme.x");
    assert_eq!(std::fs::read_dir(&base).unwrap().count(), 0);
    ok_json(&install("vendor.acme.x@1.0.0"));
    // A link planted in the cache is not written through.
    let outside = root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::remove_dir_all(base.join("vendor.acme.x")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, base.join("vendor.acme.x")).unwrap();
        let e = envelope(&install("vendor.acme.x@1.0.0"));
        assert_eq!(e["error"], "symlink_refused", "{e}");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    }
}

#[needs(registry_tools)]
#[test]
fn resolve_reports_only_the_manifest_it_verified() {
    let root = registries();
    let want = expected(root.path());
    let v2 = root.path().join("v2reg");
    // Another pack.json of the same name and version, found first when the folder is scanned.
    let stray = v2.join("0stray/pack.json");
    std::fs::create_dir_all(stray.parent().unwrap()).unwrap();
    let tgz = v2.join("v2/packs/vendor.acme.tiles/-/1.0.0.tgz");
    let packed = chainsmith::registry::PackArchive::read(&tgz).unwrap().manifest().unwrap().to_vec();
    let mut other: Value = serde_json::from_slice(&packed).unwrap();
    other["description"] = "not the published one".into();
    other["dependencies"] = serde_json::json!({"vendor.acme.unlocked": "^1.0.0"});
    std::fs::write(&stray, other.to_string()).unwrap();
    let lock = root.path().join("pack-lock.json");
    let doc = serde_json::json!({"lockfileVersion": 1, "generatedAt": "2026-01-01T00:00:00Z",
        "packs": [{"name": "vendor.acme.tiles", "version": "1.0.0", "integrity": want["vendor.acme.tiles@1.0.0"]["integrity"]}]});
    std::fs::write(&lock, doc.to_string()).unwrap();
    let v = ok_json(&run(&["resolve", s(&lock), "--registry", s(&v2)]));
    assert_eq!(v["packs"][0]["integrityVerified"], true);
    assert_eq!(v["packs"][0]["manifest"], s(&tgz), "{v}");
    // The stray manifest's dependency was never read.
    let findings = v["findings"].as_array().unwrap();
    assert!(findings.iter().all(|f| f["code"] != "pack_lockfile_incomplete"), "{findings:?}");
}

/// An unsigned v1 pack folder (the VECTOR chain, typeIds unpinned) at `dir/pack`.
fn unsigned_pack(dir: &Path) -> PathBuf {
    let pack = dir.join("pack");
    std::fs::create_dir_all(&pack).unwrap();
    let mut m: Value = serde_json::from_str(VECTOR).unwrap();
    m.as_object_mut().unwrap().remove("signing");
    m["chains"][0]["dag"]["nodes"][0]["typeId"] = "core.identity".into();
    std::fs::write(pack.join("pack.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    pack
}

#[test]
#[cfg(unix)]
fn pack_sign_never_writes_through_a_symbolic_link() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let keys = ok_json(&run(&["keygen", s(&dir.path().join("k"))]));
    let key = keys["privateKey"].as_str().unwrap().to_owned();
    let victim = dir.path().join("victim.txt");
    let victims = dir.path().join("victims");
    std::fs::create_dir(&victims).unwrap();
    let sign = |pack: &Path, key_id: Option<&str>| {
        let mut args = vec!["pack", "sign", s(pack), "--key", &key];
        args.extend(key_id.map(|id| ["--key-id", id]).into_iter().flatten());
        run(&args)
    };
    // keys/pack.json.sig, keys/pack.pub.pem, the keys folder, and pack.json itself as links.
    type Plant<'a> = dyn Fn(&Path) + 'a;
    let cases: [(&str, &Plant<'_>); 4] = [
        ("sig", &|pack| {
            std::fs::create_dir(pack.join("keys")).unwrap();
            symlink(&victim, pack.join("keys/pack.json.sig")).unwrap();
        }),
        ("pub", &|pack| {
            std::fs::create_dir(pack.join("keys")).unwrap();
            symlink(&victim, pack.join("keys/pack.pub.pem")).unwrap();
        }),
        ("dir", &|pack| symlink(&victims, pack.join("keys")).unwrap()),
        ("manifest", &|pack| {
            let real = pack.parent().unwrap().join("real.json");
            std::fs::rename(pack.join("pack.json"), &real).unwrap();
            symlink(&real, pack.join("pack.json")).unwrap();
        }),
    ];
    for (label, plant) in cases {
        std::fs::write(&victim, "keep me").unwrap();
        let case = dir.path().join(label);
        let pack = unsigned_pack(&case);
        plant(&pack);
        let e = envelope(&sign(&pack, None));
        assert_eq!(e["error"], "symlink_refused", "{label}: {e}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me", "{label}");
        assert_eq!(std::fs::read_dir(&victims).unwrap().count(), 0, "{label}");
    }
}

/// Item 3's race: a link swapped in while `pack sign` runs, between any check it makes and
/// its writes. Another thread puts a link to a file outside at `keys/pack.json.sig` and a
/// file back again, each by an atomic rename (then exchanges `keys` with a link to a folder
/// outside, `renameat2(RENAME_EXCHANGE)`), as fast as it can, while the pack is signed 300
/// times. Each signing must succeed or be refused as `symlink_refused`, and after each one
/// nothing outside has been written. A check by path followed by a write by path wrote
/// outside within the first few signings.
#[test]
#[cfg(target_os = "linux")]
fn pack_sign_never_writes_through_a_link_swapped_in_while_it_signs() {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::symlink;
    use std::sync::atomic::{AtomicBool, Ordering};
    let key = ed25519_dalek::SigningKey::from_bytes(&[9u8; 32]);
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    let victims = dir.path().join("victims");
    std::fs::create_dir(&victims).unwrap();
    std::fs::write(&victim, "keep me").unwrap();
    let c_path = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
    let exchange = |a: &std::ffi::CStr, b: &std::ffi::CStr| {
        // SAFETY: two NUL-terminated paths; the call only exchanges two names.
        let rc =
            unsafe { libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE) };
        assert_eq!(rc, 0, "renameat2: {}", std::io::Error::last_os_error());
    };
    for label in ["sig", "dir"] {
        let pack = unsigned_pack(&dir.path().join(label));
        // Signed as v2 below, whose typeIds are pinned.
        let text = std::fs::read_to_string(pack.join("pack.json")).unwrap();
        std::fs::write(pack.join("pack.json"), text.replace("\"core.identity\"", "\"core.identity@1.0.0\"")).unwrap();
        std::fs::create_dir(pack.join("keys")).unwrap();
        let sig = pack.join("keys/pack.json.sig");
        std::fs::write(&sig, "old").unwrap();
        let (keys, alt) = (c_path(&pack.join("keys")), pack.join("alt"));
        if label == "dir" {
            symlink(&victims, &alt).unwrap();
        }
        let flip = || match label {
            "sig" => {
                let (link, file) = (pack.join("link.tmp"), pack.join("file.tmp"));
                symlink(&victim, &link).unwrap();
                std::fs::rename(&link, &sig).unwrap();
                std::fs::write(&file, "old").unwrap();
                std::fs::rename(&file, &sig).unwrap();
            }
            _ => exchange(&keys, &c_path(&alt)),
        };
        let stop = AtomicBool::new(false);
        let (signed, refused) = std::thread::scope(|scope| {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    flip();
                }
            });
            // Stops the other thread however this one ends, a failed assertion included.
            struct StopOnDrop<'a>(&'a AtomicBool);
            impl Drop for StopOnDrop<'_> {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
            let _stop = StopOnDrop(&stop);
            let (mut signed, mut refused) = (0, 0);
            for _ in 0..300 {
                match chainsmith::registry::sign_pack(&pack, &key, chainsmith::registry::Scheme::V2 { key_id: "k-1" }) {
                    Ok(_) => signed += 1,
                    Err(e) if e.code == "symlink_refused" => refused += 1,
                    Err(e) => panic!("{label}: {e}"),
                }
                assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me", "{label}: written through the link");
                assert_eq!(std::fs::read_dir(&victims).unwrap().count(), 0, "{label}: written through the link");
            }
            (signed, refused)
        });
        // How often each outcome came depends on scheduling, so it is reported, not asserted:
        // the safety property is checked after every attempt above.
        eprintln!("{label}: {signed} signed, {refused} refused");
    }
}

#[test]
fn numbers_jcs_cannot_carry_are_refused_with_their_pointer_never_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let keys = ok_json(&run(&["keygen", s(&dir.path().join("k"))]));
    let key = keys["privateKey"].as_str().unwrap().to_owned();
    for (number, pointer) in [
        ("18446744073709551616", "/chains/0/dag/nodes/0/config/n"),
        ("-123456789012345678901234567890", "/chains/0/dag/nodes/0/config/n"),
        ("1e-400", "/chains/0/dag/nodes/0/config/n"),
        ("9007199254740993", "/chains/0/dag/nodes/0/config/n"),
    ] {
        let case = dir.path().join(number);
        let pack = unsigned_pack(&case);
        let text = std::fs::read_to_string(pack.join("pack.json")).unwrap();
        let text = text.replacen("\"value\":", &format!("\"n\": {number},\n \"value\":"), 1);
        std::fs::write(pack.join("pack.json"), &text).unwrap();
        let e = envelope(&run(&["pack", "sign", s(&pack), "--key", &key]));
        assert_eq!(
            (e["error"].as_str(), e["details"]["path"].as_str()),
            (Some("number_not_signable"), Some(pointer)),
            "{e}"
        );
        assert!(e["message"].as_str().unwrap().contains(number), "{e}");
        assert_eq!(std::fs::read_to_string(pack.join("pack.json")).unwrap(), text, "pack.json is left as it was");
        assert!(!pack.join("keys").exists());
        // publish signs too: the same refusal, the same pointer, and no registry written.
        let reg = case.join("reg");
        let e = envelope(&run(&["pack", "publish", s(&pack), "--registry", s(&reg), "--key", &key, "--key-id", "k-1"]));
        assert_eq!(
            (e["error"].as_str(), e["details"]["path"].as_str()),
            (Some("number_not_signable"), Some(pointer)),
            "publish: {e}"
        );
        assert!(!reg.exists(), "a refused publish leaves no registry folder");
        // validate says so before anyone signs.
        let out = run(&["validate", "--json", s(&pack)]);
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(report.contains("number_not_signable") && report.contains(pointer), "{report}");
    }
}

#[needs(registry_tools)]
#[test]
fn keygen_keys_are_read_by_openssl_and_node_and_their_signatures_verify() {
    let dir = tempfile::tempdir().unwrap();
    let keys = ok_json(&run(&["keygen", s(&dir.path().join("k"))]));
    let private = keys["privateKey"].as_str().unwrap();
    let out = Command::new("openssl").args(["pkey", "-in", private, "-noout"]).output().unwrap();
    assert!(out.status.success(), "openssl: {}", String::from_utf8_lossy(&out.stderr));
    let node = Command::new("node")
        .args(["-e", "const c = require('crypto'); const k = c.createPrivateKey(require('fs').readFileSync(process.argv[1])); if (k.asymmetricKeyType !== 'ed25519') process.exit(3);", private])
        .output()
        .unwrap();
    assert!(node.status.success(), "node: {}", String::from_utf8_lossy(&node.stderr));
    // What chainsmith signs with it verifies under OpenSSL with the public key it wrote.
    let pack = unsigned_pack(dir.path());
    ok_json(&run(&["pack", "sign", s(&pack), "--key", private]));
    let verified = Command::new("openssl")
        .args(["pkeyutl", "-verify", "-pubin", "-inkey", keys["publicKey"].as_str().unwrap(), "-rawin"])
        .args(["-in", s(&pack.join("pack.json")), "-sigfile", s(&pack.join("keys/pack.json.sig"))])
        .output()
        .unwrap();
    assert!(verified.status.success(), "{}", String::from_utf8_lossy(&verified.stdout));
}

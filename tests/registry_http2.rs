//! Registries by URL, the parts issue 38 left: `resolve` and `expand`/`inline --registry`
//! read a registry by URL with the checks they make on a folder; the reference client's
//! install recipe (restated in Node, `tests/tools/openwop_verify.mjs`, fetching by URL)
//! installs from `chainsmith serve` and agrees with chainsmith; and HTTPS against a real TLS
//! server (Python's `http.server` wrapped in `ssl`, certificates made by OpenSSL) refuses an
//! untrusted certificate and accepts it once its CA is given (`--ca-file`,
//! `CHAINSMITH_CA_FILE`). Everything listens on 127.0.0.1.

use base64::Engine;
use chainsmith_test_env::needs;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

mod common;
use common::cli::{envelope, ok_json, s};
use common::http::{cs, first_line, serve};
use common::registry::{chain_pack, keygen, publish};

const NAME: &str = "vendor.me.tiles";

/// `sha256-` and the base64 of the file's SHA-256, computed here (not by chainsmith).
fn sri_of(file: &Path) -> String {
    let digest = Sha256::digest(std::fs::read(file).unwrap());
    format!("sha256-{}", base64::engine::general_purpose::STANDARD.encode(digest))
}

/// A v2 registry folder with NAME 1.0.0 and 1.1.0, signed by key `me-1`.
fn registry(root: &Path) -> PathBuf {
    let key = keygen(root, "me");
    let reg = root.join("reg");
    for v in ["1.0.0", "1.1.0"] {
        ok_json(&publish(&chain_pack(root, NAME, v, true), &reg, &key, "me-1", &[]));
    }
    reg
}

fn tarball(reg: &Path, name: &str, version: &str) -> PathBuf {
    reg.join("v2/packs").join(name).join("-").join(format!("{version}.tgz"))
}

fn write_json(path: &Path, value: &Value) -> String {
    std::fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn resolve_reads_a_registry_by_url_with_the_folder_checks() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    let server = serve(&reg, &dir.path().join("serve.log"));
    let integrity = sri_of(&tarball(&reg, NAME, "1.0.0"));
    let lock = |integrity: &str| {
        let doc = json!({"lockfileVersion": 1, "generatedAt": "2026-12-07T00:00:00Z",
            "packs": [{"name": NAME, "version": "1.0.0", "integrity": integrity}]});
        write_json(&dir.path().join("pack-lock.json"), &doc)
    };
    let cache = dir.path().join("cache");
    let by_url = ok_json(&cs(&cache, &["resolve", &lock(&integrity), "--registry", &server.url]));
    let by_dir = ok_json(&cs(&cache, &["resolve", &lock(&integrity), "--registry", s(&reg)]));
    let pack = &by_url["packs"][0];
    assert_eq!((pack["name"].as_str(), pack["version"].as_str()), (Some(NAME), Some("1.0.0")), "{by_url}");
    assert_eq!(pack["integrityVerified"], true, "{by_url}");
    assert_eq!(pack["registry"].as_str(), Some(server.url.as_str()));
    let manifest = pack["manifest"].as_str().unwrap();
    assert_eq!(manifest, format!("{}/v2/packs/{NAME}/-/1.0.0.tgz", server.url), "the tarball's URL");
    for k in ["name", "version", "integrity", "integrityVerified"] {
        assert_eq!(pack[k], by_dir["packs"][0][k], "{k}");
    }
    // The lockfile's integrity is checked against the fetched tarball, as for a folder.
    let wrong = sri_of(&tarball(&reg, NAME, "1.1.0"));
    let e = envelope(&cs(&cache, &["resolve", &lock(&wrong), "--registry", &server.url]));
    assert_eq!(e["error"], "pack_integrity_mismatch", "{e}");
    // A tampered tarball fails the registry's own integrity first.
    std::fs::write(tarball(&reg, NAME, "1.0.0"), b"tampered").unwrap();
    let e = envelope(&cs(&cache, &["resolve", &lock(&integrity), "--registry", &server.url]));
    assert_eq!(e["error"], "pack_integrity_failure", "{e}");
}

/// The sub-chain fixture that uses an external pack, and that pack published (pinned, signed)
/// into a registry: `expand` and `inline` fetch it by URL and expand exactly as from the
/// same manifest given as a file.
#[test]
fn expand_and_inline_fetch_external_sub_chain_packs_by_url() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/subchain/packs");
    let lib_text = std::fs::read_to_string(fixtures.join("external-lib.json")).unwrap();
    let lib = dir.path().join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(lib.join("pack.json"), lib_text.replace("\"core.identity\"", "\"core.identity@1.0.0\"")).unwrap();
    let reg = dir.path().join("reg");
    ok_json(&publish(&lib, &reg, &keygen(dir.path(), "lib"), "lib-1", &[]));
    let server = serve(&reg, &dir.path().join("serve.log"));
    let host = write_json(&dir.path().join("host.json"), &json!({"subChains": true}));
    let user = fixtures.join("uses-external.json");
    let expand = |registry: &str| {
        let args = [
            "expand",
            s(&user),
            "--chain",
            "vendor.test.host-chain",
            "--set",
            "topic=lib",
            "--expansion-id",
            "t0k3",
            "--host",
            &host,
            "--registry",
            registry,
        ];
        cs(&dir.path().join("cache"), &args)
    };
    // The signed pack.json inside the published tarball, unpacked by tar(1).
    let unpacked = dir.path().join("unpacked");
    std::fs::create_dir_all(&unpacked).unwrap();
    let tgz = tarball(&reg, "vendor.lib.shared-chains", "1.4.2");
    let untar = Command::new("tar").arg("-xzf").arg(&tgz).arg("-C").arg(&unpacked).status().unwrap();
    assert!(untar.success());
    let by_url = ok_json(&expand(&server.url));
    let by_file = ok_json(&expand(s(&unpacked.join("pack.json"))));
    assert_eq!(by_url, by_file);
    let children = by_url["children"].as_array().unwrap();
    assert_eq!(children.len(), 1, "{by_url}");
    assert!(children[0].to_string().contains("core.identity@1.0.0"), "the registry's pack was expanded");
    let fetched: Vec<String> = server.wait_for(4).iter().map(|r| r["path"].as_str().unwrap().to_owned()).collect();
    assert!(fetched.iter().any(|p| p.ends_with("/-/1.4.2.tgz")), "{fetched:?}");

    let out = dir.path().join("wf.json");
    let inlined = ok_json(&cs(
        &dir.path().join("cache"),
        &[
            "inline",
            s(&user),
            "--new",
            "Flow",
            "--chain",
            "vendor.test.host-chain",
            "--set",
            "topic=lib",
            "--host",
            &host,
            "--registry",
            &server.url,
            "-o",
            s(&out),
        ],
    ));
    assert_eq!(inlined["children"].as_array().map(Vec::len), Some(1), "{inlined}");

    // Tampered bytes are refused as `verify` refuses them; nothing is expanded.
    std::fs::write(tarball(&reg, "vendor.lib.shared-chains", "1.4.2"), b"tampered").unwrap();
    let e = envelope(&expand(&server.url));
    assert_eq!(e["error"], "pack_integrity_failure", "{e}");
}

/// `node openwop_verify.mjs URL SPEC...`: the reference recipe's verdicts, one per spec.
fn reference(url: &str, specs: &[&str]) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/openwop_verify.mjs");
    let out = Command::new("node").arg(&script).arg(url).args(specs).output().unwrap();
    let verdicts: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("{l}: {}", String::from_utf8_lossy(&out.stderr))))
        .collect();
    assert_eq!(verdicts.len(), specs.len(), "{}", String::from_utf8_lossy(&out.stderr));
    verdicts
}

/// Whether chainsmith and the reference recipe agree on each spec from `url`: both accept
/// the same version with the same integrity, or both refuse. Returns chainsmith's verdicts
/// (its answer, or its envelope) beside the recipe's.
fn agree(url: &str, specs: &[&str], scratch: &Path) -> Vec<(Value, Value)> {
    let theirs = reference(url, specs);
    specs
        .iter()
        .zip(theirs)
        .map(|(spec, theirs)| {
            let install =
                cs(&scratch.join("cache"), &["install", spec, "--registry", url, "--dir", s(&scratch.join("i"))]);
            if install.status.success() {
                let ours = ok_json(&install);
                assert_eq!(theirs["accepted"], true, "{spec}: chainsmith accepted, the recipe refused: {theirs}");
                let pair = |v: &Value| (v["version"].clone(), v["integrity"].clone());
                assert_eq!(pair(&ours), pair(&theirs), "{spec}");
                (ours, theirs)
            } else {
                let e = envelope(&install);
                assert_eq!(
                    theirs["accepted"], false,
                    "{spec}: chainsmith refused ({e}), the recipe accepted: {theirs}"
                );
                (e, theirs)
            }
        })
        .collect()
}

#[test]
#[needs(node, registry_tools)]
fn the_reference_recipe_installs_from_chainsmith_serve_and_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("made");
    common::registry::tool_script("make_registry.py", &[s(&out)]);
    let v2 = serve(&out.join("v2reg"), &dir.path().join("v2.log"));
    let v1 = serve(&out.join("v1reg"), &dir.path().join("v1.log"));
    // What make_registry.py says it built (its docstring): accepted, then refused.
    let specs = [
        "vendor.acme.tiles",
        "vendor.acme.tiles@1.0.0",
        "vendor.acme.tiles@^1.0.0",
        "vendor.acme.tampered",
        "vendor.acme.forged",
        "vendor.other.tiles",
    ];
    let versions = [Some("1.2.0"), Some("1.0.0"), Some("1.2.0"), None, None, None];
    for ((ours, _), version) in agree(&v2.url, &specs, dir.path()).iter().zip(versions) {
        assert_eq!(ours["version"].as_str(), version, "{ours}");
    }
    let (ours, theirs) = &agree(&v1.url, &["vendor.acme.legacy"], dir.path())[0];
    assert_eq!((ours["version"].as_str(), theirs["tree"].as_str()), (Some("1.0.0"), Some("v1")));
}

#[test]
#[needs(corpus, node, registry_tools)]
fn the_reference_recipe_and_chainsmith_agree_on_the_corpus_registry_served() {
    let dir = tempfile::tempdir().unwrap();
    let packs = common::corpus_dir().join("registry/packs");
    let reg = dir.path().join("corpus-reg");
    common::registry::tool_script("make_registry.py", &["--corpus", s(&packs), s(&reg)]);
    let server = serve(&reg, &dir.path().join("serve.log"));
    // Counted from the folder, not from what either client lists.
    let names: Vec<String> = std::fs::read_dir(&packs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("pack.json").is_file())
        .map(|p| {
            let m: Value = serde_json::from_slice(&std::fs::read(p.join("pack.json")).unwrap()).unwrap();
            m["name"].as_str().unwrap().to_owned()
        })
        .collect();
    assert!(!names.is_empty());
    // Every corpus pack is published unsigned: the reference recipe refuses each at its
    // signature step, and chainsmith's install refuses it as unsigned.
    let specs: Vec<&str> = names.iter().map(String::as_str).collect();
    for (e, theirs) in agree(&server.url, &specs, dir.path()) {
        assert_eq!((e["error"].as_str(), theirs["step"].as_str()), (Some("pack_unsigned"), Some("signature")), "{e}");
    }
}

/// OpenSSL: a CA, and a certificate for 127.0.0.1 and localhost that it signed.
fn certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl").args(args).current_dir(dir).output().unwrap();
        assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=chainsmith test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
    ]);
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "server.ext",
        "-out",
        "server.pem",
    ]);
    (dir.join("ca.pem"), dir.join("server.pem"), dir.join("server.key"))
}

/// Python's `http.server` over TLS, serving `root`; killed when dropped.
struct TlsServer {
    child: Child,
    url: String,
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tls_server(root: &Path, cert: &Path, key: &Path) -> TlsServer {
    const SERVER: &str = "import functools, http.server, ssl, sys\n\
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])\n\
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)\n\
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n\
        context.load_cert_chain(sys.argv[2], sys.argv[3])\n\
        server.socket = context.wrap_socket(server.socket, server_side=True)\n\
        print(server.server_address[1], flush=True)\n\
        server.serve_forever()\n";
    let mut child = Command::new("python3")
        .args(["-c", SERVER, s(root), s(cert), s(key)])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let port = first_line(&mut child);
    TlsServer { url: format!("https://127.0.0.1:{}", port.trim()), child }
}

#[test]
#[needs(registry_tools)]
fn https_refuses_an_untrusted_certificate_and_accepts_it_with_its_ca() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    let (ca, cert, key) = certificates(dir.path());
    let server = tls_server(&reg, &cert, &key);
    let cache = dir.path().join("cache");
    let e = envelope(&cs(&cache, &["search", "", "--registry", &server.url, "--json"]));
    assert_eq!(e["error"], "pack_registry_unreachable", "{e}");
    let cause = e["details"]["cause"].as_str().unwrap_or_default().to_lowercase();
    assert!(cause.contains("certificate") && cause.contains("unknownissuer"), "the cause is named: {e}");
    assert!(!cause.contains("https://"), "the URL is in details.url, not repeated in the cause: {e}");

    let found = ok_json(&cs(&cache, &["search", "", "--registry", &server.url, "--json", "--ca-file", s(&ca)]));
    assert_eq!(found["total"], 1, "{found}");
    let installed = ok_json(&cs(
        &cache,
        &["install", NAME, "--registry", &server.url, "--ca-file", s(&ca), "--dir", s(&dir.path().join("i"))],
    ));
    assert_eq!(
        (installed["version"].as_str(), installed["signature"]["status"].as_str()),
        (Some("1.1.0"), Some("verified"))
    );
    // The same CA from the environment.
    let by_env = common::cli::bin()
        .args(["verify", &format!("{NAME}@1.0.0"), "--registry", &server.url])
        .env("XDG_CACHE_HOME", &cache)
        .env("CHAINSMITH_CA_FILE", &ca)
        .output()
        .unwrap();
    assert_eq!(ok_json(&by_env)["version"], "1.0.0");
    // A CA file that holds no certificate is refused before any connection.
    let e =
        envelope(&cs(&cache, &["search", "", "--registry", &server.url, "--ca-file", s(&cert.with_extension("key"))]));
    assert_eq!(e["error"], "invalid_request", "{e}");
    assert!(e["details"]["path"].as_str().is_some_and(|p| p.ends_with("server.key")), "{e}");
}

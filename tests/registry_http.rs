//! Registries by URL (issue 38): `install`, `verify`, `search` and `info` read a registry over
//! HTTP with the checks they make on a folder, from `chainsmith serve` and from an
//! independent static server (Python's `http.server`) over the same folder; and the network
//! rules hold against servers that misbehave on purpose (a body over the limit, a server
//! slower than the timeout, a redirect to plain HTTP, a body cut short). Everything listens
//! on 127.0.0.1; every wait is bounded.

use chainsmith_test_env::needs;
use serde_json::json;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;
use common::cli::{envelope, ok_json, run, s};
use common::http::{cs, folder_with, python_serve, raw_server, serve};

const NAME: &str = "vendor.me.tiles";

/// A one-chain pack folder, v2-valid once signed.
fn chain_pack(root: &Path, version: &str) -> PathBuf {
    let dir = root.join(format!("src-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = json!({
        "name": NAME, "version": version, "kind": "workflow-chain", "description": "Echo tiles.",
        "license": "MIT", "engines": {"openwop": ">=1.0.0 <3.0.0"},
        "chains": [{"chainId": "tiles.echo", "version": version, "label": "Echo", "description": "Say it back.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string", "default": "hi"}}},
            "dag": {"nodes": [{"id": "say", "typeId": "core.identity@1.0.0", "config": {"value": "{{params.text}}"}}]}}],
    });
    std::fs::write(dir.join("pack.json"), serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    dir
}

/// A v2 registry folder with NAME 1.0.0 and 1.1.0, signed by key `me-1`.
fn registry(root: &Path) -> PathBuf {
    let key = ok_json(&run(&["keygen", s(&root.join("me"))]))["privateKey"].as_str().unwrap().to_owned();
    let reg = root.join("reg");
    for v in ["1.0.0", "1.1.0"] {
        ok_json(&run(&[
            "pack",
            "publish",
            s(&chain_pack(root, v)),
            "--registry",
            s(&reg),
            "--key",
            &key,
            "--key-id",
            "me-1",
        ]));
    }
    reg
}

/// Install and verify by URL; the same answers as from the folder.
fn installs_and_verifies_like_the_folder(reg: &Path, url: &str, scratch: &Path) {
    let cache = scratch.join("cache");
    let by_url = ok_json(&cs(&cache, &["install", NAME, "--registry", url, "--dir", s(&scratch.join("u"))]));
    let by_dir = ok_json(&cs(&cache, &["install", NAME, "--registry", s(reg), "--dir", s(&scratch.join("d"))]));
    for k in ["name", "version", "tree", "integrity", "signature", "yanked", "deprecated"] {
        assert_eq!(by_url[k], by_dir[k], "{k}");
    }
    assert_eq!((by_url["version"].as_str(), by_url["signature"]["status"].as_str()), (Some("1.1.0"), Some("verified")));
    let installed = std::fs::read(scratch.join("u").join(NAME).join("1.1.0/1.1.0.tgz")).unwrap();
    assert_eq!(installed, std::fs::read(reg.join("v2/packs").join(NAME).join("-/1.1.0.tgz")).unwrap());
    let verified = ok_json(&cs(&cache, &["verify", &format!("{NAME}@1.0.0"), "--registry", url]));
    assert_eq!((verified["version"].as_str(), verified["signature"]["keyId"].as_str()), (Some("1.0.0"), Some("me-1")));
}

fn search_and_info(url: &str, cache: &Path) {
    let found = ok_json(&cs(cache, &["search", "echo", "--registry", url, "--json"]));
    assert_eq!((found["total"].as_u64(), found["tree"].as_str()), (Some(1), Some("v2")));
    assert_eq!(found["packs"][0]["name"], NAME);
    let none = ok_json(&cs(cache, &["search", "nothing-like-it", "--registry", url, "--json"]));
    assert_eq!(none["total"], 0);
    let info = ok_json(&cs(cache, &["info", &format!("{NAME}@1.0.0"), "--registry", url, "--json"]));
    let versions: Vec<&str> =
        info["versions"].as_array().unwrap().iter().map(|v| v["version"].as_str().unwrap()).collect();
    assert_eq!(versions, ["1.0.0", "1.1.0"]);
    assert_eq!(info["latest"], "1.1.0");
    assert_eq!(info["requestedVersion"]["signing"], json!({"keyId": "me-1", "scheme": "ed25519-canonical-json"}));
    assert_eq!(info["requestedVersion"]["engines"]["openwop"], ">=1.0.0 <3.0.0");
    let text = cs(cache, &["info", NAME, "--registry", url]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("Latest:      1.1.0") && text.contains("ed25519-canonical-json me-1"), "{text}");
}

/// The status code of a raw HTTP answer.
fn status(answer: &str) -> &str {
    answer.split_whitespace().nth(1).unwrap_or_default()
}

#[test]
fn install_verify_search_and_info_against_chainsmith_serve() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    let server = serve(&reg, &dir.path().join("serve.log"));
    installs_and_verifies_like_the_folder(&reg, &server.url, dir.path());
    search_and_info(&server.url, &dir.path().join("cache"));
    // The static host's rewrites: the extensionless discovery path, a pack folder.
    let mut stream = TcpStream::connect(server.url.trim_start_matches("http://")).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    stream.write_all(b"GET /.well-known/openwop-registry HTTP/1.0\r\n\r\n").unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(status(&answer) == "200" && answer.contains("\"signingKeys\""), "{answer}");
}

#[test]
fn serve_never_answers_outside_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let reg = dir.path().join("reg");
    std::fs::create_dir_all(reg.join("v2")).unwrap();
    std::fs::write(reg.join("v2/index.json"), "{}").unwrap();
    std::fs::write(dir.path().join("secret.json"), "{\"secret\": 1}").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("secret.json"), reg.join("v2/link.json")).unwrap();
    let server = serve(&reg, &dir.path().join("serve.log"));
    let get = |target: &str| {
        let mut stream = TcpStream::connect(server.url.trim_start_matches("http://")).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        stream.write_all(format!("GET {target} HTTP/1.0\r\n\r\n").as_bytes()).unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    assert_eq!(status(&get("/v2/index.json")), "200");
    for target in [
        "/../secret.json",
        "/v2/../../secret.json",
        "/%2e%2e/secret.json",
        "/v2/%2e%2e%2f%2e%2e%2fsecret.json",
        "/v2/link.json",
        "/v2/link",
    ] {
        let answer = get(target);
        assert!(status(&answer) == "404" && !answer.contains("secret"), "{target}: {answer}");
    }
    let post = {
        let mut stream = TcpStream::connect(server.url.trim_start_matches("http://")).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        stream.write_all(b"DELETE /v2/index.json HTTP/1.0\r\n\r\n").unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    assert_eq!(status(&post), "405", "{post}");
    assert!(reg.join("v2/index.json").is_file());
}

#[test]
#[needs(registry_tools)]
fn install_verify_search_and_info_against_python_http_server() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    let server = python_serve(&reg, &dir.path().join("py.log"));
    installs_and_verifies_like_the_folder(&reg, &server.url, dir.path());
    search_and_info(&server.url, &dir.path().join("cache"));
}

#[test]
#[needs(registry_tools)]
fn a_truncated_tarball_fails_integrity_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    let tgz = reg.join("v2/packs").join(NAME).join("-/1.1.0.tgz");
    let bytes = std::fs::read(&tgz).unwrap();
    std::fs::write(&tgz, &bytes[..bytes.len() / 2]).unwrap();
    let server = python_serve(&reg, &dir.path().join("py.log"));
    let e = envelope(&cs(
        &dir.path().join("c"),
        &["install", NAME, "--registry", &server.url, "--dir", s(&dir.path().join("i"))],
    ));
    assert_eq!(
        (e["error"].as_str(), e["details"]["reason"].as_str()),
        (Some("pack_integrity_failure"), Some("integrity_mismatch"))
    );
    assert!(!dir.path().join("i").join(NAME).exists());
}

fn manifest_path(version: &str) -> String {
    format!("/v2/packs/{NAME}/-/{version}.json")
}

#[test]
fn a_manifest_over_16_mib_is_refused_while_reading() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    // No Content-Length: the limit can only be enforced on the bytes as they arrive.
    let url = folder_with(reg, |path, stream| {
        if path != manifest_path("1.1.0") {
            return false;
        }
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
        let chunk = vec![b' '; 1 << 20];
        for _ in 0..17 {
            if stream.write_all(&chunk).is_err() {
                break;
            }
        }
        true
    });
    let e = envelope(&cs(&dir.path().join("c"), &["verify", &format!("{NAME}@1.1.0"), "--registry", &url]));
    assert_eq!(e["error"], "invalid_request", "{e}");
    assert_eq!(e["details"]["limit"].as_u64(), Some(16 * 1024 * 1024));
}

#[test]
fn a_server_slower_than_the_timeout_is_unreachable() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    let url = folder_with(reg, |path, stream| {
        if path != manifest_path("1.1.0") {
            return false;
        }
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{");
        std::thread::sleep(Duration::from_secs(4));
        true
    });
    let start = Instant::now();
    let e = envelope(&cs(
        &dir.path().join("c"),
        &["verify", &format!("{NAME}@1.1.0"), "--registry", &url, "--timeout", "1"],
    ));
    assert!(start.elapsed() < Duration::from_secs(4), "{:?}", start.elapsed());
    assert_eq!(e["error"], "pack_registry_unreachable", "{e}");
    assert!(e["details"]["url"].as_str().unwrap().ends_with(&manifest_path("1.1.0")), "{e}");
}

#[test]
fn a_body_cut_short_is_unreachable_not_a_smaller_file() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    let tgz = reg.join("v2/packs").join(NAME).join("-/1.1.0.tgz");
    let url = folder_with(reg, move |path, stream| {
        if !path.ends_with("1.1.0.tgz") {
            return false;
        }
        let bytes = std::fs::read(&tgz).unwrap();
        let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", bytes.len());
        let _ = stream.write_all(&bytes[..bytes.len() / 2]);
        true
    });
    let e =
        envelope(&cs(&dir.path().join("c"), &["install", NAME, "--registry", &url, "--dir", s(&dir.path().join("i"))]));
    assert_eq!(e["error"], "pack_registry_unreachable", "{e}");
    assert!(e["details"]["url"].as_str().is_some_and(|u| u.ends_with("/-/1.1.0.tgz")), "{e}");
    assert!(!dir.path().join("i").join(NAME).exists());
}

#[test]
fn a_redirect_to_plain_http_elsewhere_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    let url = folder_with(reg, |path, stream| {
        if !path.ends_with(".tgz") {
            return false;
        }
        let _ = write!(
            stream,
            "HTTP/1.1 302 Found\r\nLocation: http://packs.example.test{path}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        true
    });
    let e =
        envelope(&cs(&dir.path().join("c"), &["install", NAME, "--registry", &url, "--dir", s(&dir.path().join("i"))]));
    assert_eq!(
        (e["error"].as_str(), e["details"]["reason"].as_str()),
        (Some("pack_registry_unreachable"), Some("insecure_scheme")),
        "{e}"
    );
    // Plain HTTP to a host other than loopback is refused before any connection.
    let e = envelope(&cs(&dir.path().join("c"), &["search", "x", "--registry", "http://packs.example.test"]));
    assert_eq!(e["details"]["reason"], "insecure_scheme");
}

#[test]
fn redirects_are_limited() {
    let url = raw_server(|path, stream| {
        let n: u32 = path.trim_start_matches("/hop").split('/').next().and_then(|n| n.parse().ok()).unwrap_or(0);
        let _ = write!(
            stream,
            "HTTP/1.1 302 Found\r\nLocation: /hop{}/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            n + 1
        );
    });
    let dir = tempfile::tempdir().unwrap();
    let e = envelope(&cs(dir.path(), &["search", "x", "--registry", &url]));
    assert_eq!(
        (e["error"].as_str(), e["details"]["reason"].as_str()),
        (Some("pack_registry_unreachable"), Some("too_many_redirects")),
        "{e}"
    );
}

#[test]
fn an_unreachable_registry_names_the_url_and_the_cause() {
    // A port that was free a moment ago: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let dir = tempfile::tempdir().unwrap();
    let e = envelope(&cs(dir.path(), &["install", NAME, "--registry", &url, "--dir", s(&dir.path().join("i"))]));
    assert_eq!(e["error"], "pack_registry_unreachable");
    assert!(e["details"]["url"].as_str().unwrap().starts_with(&url), "{e}");
    assert!(!e["details"]["cause"].as_str().unwrap().is_empty(), "{e}");
}

/// Issue 38 item 6: a warm cache answers `search` and `info` with one conditional request
/// for the index, counted on the server; `--offline` answers with none.
#[test]
fn a_warm_cache_asks_only_for_the_index_conditionally() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path());
    let server = serve(&reg, &dir.path().join("serve.log"));
    let cache = dir.path().join("cache");
    ok_json(&cs(&cache, &["search", "echo", "--registry", &server.url, "--json"]));
    let cold = server.wait_for(2);
    let cold_paths: Vec<&str> = cold.iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(cold_paths, ["/.well-known/openwop-registry.json", "/v2/index.json"]);
    let warm = ok_json(&cs(&cache, &["search", "echo", "--registry", &server.url, "--json"]));
    assert_eq!(warm["total"], 1);
    let after = server.wait_for(3);
    assert_eq!(after.len(), 3, "{after:?}");
    assert_eq!((after[2]["path"].as_str(), after[2]["status"].as_u64()), (Some("/v2/index.json"), Some(304)));
    // info: the pack index, fetched whole once, then conditionally.
    ok_json(&cs(&cache, &["info", NAME, "--registry", &server.url, "--json"]));
    ok_json(&cs(&cache, &["info", NAME, "--registry", &server.url, "--json"]));
    let after = server.wait_for(5);
    let statuses: Vec<u64> = after[3..].iter().map(|r| r["status"].as_u64().unwrap()).collect();
    assert_eq!((after.len(), statuses), (5, vec![200, 304]), "{after:?}");
    // Offline: the cached copies, and no request at all.
    let offline = ok_json(&cs(&cache, &["info", NAME, "--registry", &server.url, "--json", "--offline"]));
    assert_eq!(offline["latest"], "1.1.0");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(server.requests().len(), 5);
    let e = envelope(&cs(&dir.path().join("empty"), &["info", NAME, "--registry", &server.url, "--offline"]));
    assert_eq!(
        (e["error"].as_str(), e["details"]["reason"].as_str()),
        (Some("pack_registry_unreachable"), Some("offline"))
    );
}

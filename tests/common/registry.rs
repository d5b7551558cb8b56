//! Registry folders made with the real `chainsmith` binary (a one-chain pack folder, a key
//! pair, a publish), or independently of it by the Python scripts in tests/tools.

use super::cli::{ok_json, run, s};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

/// A one-chain pack folder (`pack.json` and a README); `pinned` typeIds make it a valid v2
/// manifest once v2-signed.
pub fn chain_pack(root: &Path, name: &str, version: &str, pinned: bool) -> PathBuf {
    let dir = root.join(format!("src-{name}-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    let type_id = if pinned { "core.identity@1.0.0" } else { "core.identity" };
    let manifest = json!({
        "name": name, "version": version, "kind": "workflow-chain", "description": "Echo tiles.",
        "license": "MIT", "engines": {"openwop": ">=1.0.0 <3.0.0"},
        "chains": [{"chainId": "tiles.echo", "version": version, "label": "Echo", "description": "Say it back.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string", "default": "hi"}}},
            "dag": {"nodes": [{"id": "say", "typeId": type_id, "config": {"value": "{{params.text}}"}}]}}],
    });
    std::fs::write(dir.join("pack.json"), serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    std::fs::write(dir.join("README.md"), format!("# {name}\n")).unwrap();
    dir
}

/// `chainsmith keygen ROOT/LABEL`; the private key's path.
pub fn keygen(root: &Path, label: &str) -> String {
    ok_json(&run(&["keygen", s(&root.join(label))]))["privateKey"].as_str().unwrap().to_owned()
}

/// `chainsmith pack publish PACK --registry REG --key KEY --key-id ID EXTRA...`.
pub fn publish(pack: &Path, reg: &Path, key: &str, key_id: &str, extra: &[&str]) -> Output {
    let mut args = vec!["pack", "publish", s(pack), "--registry", s(reg), "--key", key, "--key-id", key_id];
    args.extend_from_slice(extra);
    run(&args)
}

/// `python3 tests/tools/SCRIPT ARGS...`: the registry makers build with Python and OpenSSL,
/// independently of chainsmith. Panics with the script's stderr when it fails.
pub fn tool_script(script: &str, args: &[&str]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools").join(script);
    let out = std::process::Command::new("python3").arg(path).args(args).output().unwrap();
    assert!(out.status.success(), "{script}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A JSON file's value; a failure names the file.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The OpenWOP client's install recipe (tests/tools/openwop_verify.mjs, on Node) on a
/// registry folder, in the tree `tree` when given: its JSON verdict.
pub fn openwop(reg: &Path, spec: &str, tree: Option<&str>) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/openwop_verify.mjs");
    let mut cmd = std::process::Command::new("node");
    cmd.arg(script).arg(reg).arg(spec);
    if let Some(t) = tree {
        cmd.args(["--tree", t]);
    }
    let out = cmd.output().unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "node: {}", String::from_utf8_lossy(&out.stderr));
    let verdict: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verdict["accepted"].as_bool(), Some(out.status.success()), "{verdict}");
    verdict
}

/// A registry at `ROOT/base` holding vendor.acme.tiles 1.0.0, published with `key` as
/// `acme-1`, and two packs to publish into it next.
pub struct Base {
    pub key: String,
    pub base: PathBuf,
    /// vendor.acme.tiles 1.1.0.
    pub next: PathBuf,
    /// vendor.beta.fresh 1.0.0, a name new to the registry.
    pub fresh: PathBuf,
}

pub fn published_base(root: &Path) -> Base {
    let key = keygen(root, "k");
    let base = root.join("base");
    ok_json(&publish(&chain_pack(root, "vendor.acme.tiles", "1.0.0", true), &base, &key, "acme-1", &[]));
    let next = chain_pack(root, "vendor.acme.tiles", "1.1.0", true);
    let fresh = chain_pack(root, "vendor.beta.fresh", "1.0.0", true);
    Base { key, base, next, fresh }
}

/// Each signing key of the registry's discovery document as `[keyId, permittedNamespaces]`,
/// in the document's order.
pub fn grants(reg: &Path) -> Value {
    let doc = read_json(&reg.join(".well-known/openwop-registry.json"));
    let keys = doc["signingKeys"].as_array().unwrap();
    keys.iter().map(|k| json!([k["keyId"], k["permittedNamespaces"]])).collect()
}

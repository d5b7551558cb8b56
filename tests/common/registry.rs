//! Registry folders made with the real `chainsmith` binary: a one-chain pack folder, a key
//! pair, a publish.

use super::cli::{ok_json, run, s};
use serde_json::json;
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

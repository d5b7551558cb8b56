//! The bundled support-desk pack, and a version 1.1.0 of it, for the tests of chain
//! instances and their upgrades (tests/instances.rs on the command line, tests/ui_upgrade.rs
//! in the editor).

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The bundled pack's folder.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("packs/vendor.chainsmith.support-desk")
}

/// The bundled pack as version 1.1.0 of itself, written to `<parent>/support-desk-1.1.0/`
/// (returned): the Triage chain's fetch node's timeout changed, a node `audit` added after
/// `log`, and `page` (an exit node, so the update is major) removed; then `more` changes to
/// the Triage chain.
pub fn v1_1_with(parent: &Path, more: impl Fn(&mut Value)) -> PathBuf {
    let mut m: Value = serde_json::from_slice(&std::fs::read(dir().join("pack.json")).unwrap()).unwrap();
    m["version"] = json!("1.1.0");
    let chain = m["chains"].as_array_mut().unwrap().iter_mut().find(|c| c["chainId"] == "support.triage").unwrap();
    chain["version"] = json!("1.1.0");
    let dag = &mut chain["dag"];
    dag["nodes"][0]["config"]["timeoutMs"] = json!(30000);
    dag["nodes"].as_array_mut().unwrap().retain(|n| n["id"] != "page");
    dag["nodes"].as_array_mut().unwrap().push(json!({"id": "audit", "typeId": "vendor.chainsmith.sheet-append",
        "name": "Audit", "position": {"x": 930, "y": 170}, "config": {"sheet": "audit", "columns": ["id"]}, "inputs": {}}));
    dag["edges"].as_array_mut().unwrap().retain(|e| e["to"] != "page.payload");
    dag["edges"].as_array_mut().unwrap().push(json!({"from": "log.done", "to": "audit.row"}));
    more(chain);
    let folder = parent.join("support-desk-1.1.0");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("pack.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    folder
}

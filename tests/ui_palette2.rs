//! The palette's "Why … cannot be inserted" window names the nodes that use a missing
//! node type by their titles, as the cards do (issue 37, the leftover of item 11); the id
//! shows beside a title only where two nodes share it.

mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use egui::accesskit::Role;
use egui_kittest::kittest::{By, Queryable};
use serde_json::json;
use std::path::{Path, PathBuf};
use ui_common::{Script, pointer_click, sized};

/// A pack whose one chain uses a node type no loaded node pack provides, in three nodes:
/// one with a title of its own, two that share the title "Log".
fn pack_with_missing_type(dir: &Path) -> PathBuf {
    let folder = dir.join("missing");
    std::fs::create_dir_all(&folder).unwrap();
    let nodes = json!([
        {"id": "fetch_1", "name": "Fetch feed", "typeId": "acme.missing.fetch", "config": {}},
        {"id": "log_a", "name": "Log", "typeId": "acme.missing.fetch", "config": {}},
        {"id": "log_b", "name": "Log", "typeId": "acme.missing.fetch", "config": {}}
    ]);
    let chain = json!({"chainId": "acme.feed", "version": "1.0.0", "label": "Feed", "description": "d",
        "parameters": {"type": "object"}, "dag": {"nodes": nodes, "edges": []}});
    let m = json!({"name": "vendor.acme.missing", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": [chain]});
    std::fs::write(folder.join("pack.json"), m.to_string()).unwrap();
    folder
}

#[test]
fn the_why_window_names_the_nodes_using_a_missing_type_by_their_titles() {
    let dir = tempfile::tempdir().unwrap();
    let start = StartOptions {
        files: vec![pack_with_missing_type(dir.path())],
        dialogs: Box::new(Script::default()),
        recovery_file: None,
        packs: bundled(),
    };
    let mut h = sized(App::new(start, None), 1440.0, 900.0);
    let badge = h
        .query_all(By::new().predicate(|n| n.value().as_deref() == Some("chain_unresolvable_typeid")))
        .next()
        .expect("the tile shows its refusal code")
        .rect();
    pointer_click(&mut h, badge.center());
    assert!(h.query(By::new().label("Why “Feed” cannot be inserted").role(Role::Window)).is_some());
    let labels: Vec<String> = h.query_all(By::new().role(Role::Label)).filter_map(|n| n.value()).collect();
    let has = |text: &str| labels.iter().any(|l| l == text);
    assert!(has("Fetch feed"), "the node by its title: {labels:?}");
    assert!(has("Log (log_a)") && has("Log (log_b)"), "a shared title with the id beside it: {labels:?}");
    assert!(!has("fetch_1"), "no bare id where the title says which node it is: {labels:?}");
}

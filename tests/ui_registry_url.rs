//! The Registry window browsing a registry by URL, driven without a display (egui_kittest):
//! the URL field opens a registry served over HTTP on 127.0.0.1, its packs are listed with
//! their versions and signature state, and opening a version fetches and verifies it in the
//! background: while a slow server sleeps on the tarball, frames keep coming with a progress
//! line and a Cancel button; Cancel drops what arrives later; an Open left to finish puts the
//! verified pack in the palette.

mod common;
mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::editor::registry_view::Outcome;
use chainsmith::pack::bundled;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use ui_common::{Script, click_button, harness, label_starting, menu_item, type_into};

const NAME: &str = "vendor.me.tiles";
/// How long the slow server sleeps before answering for a tarball.
const SLOW: Duration = Duration::from_millis(1500);

fn start() -> Harness<'static, App> {
    let opts =
        StartOptions { files: Vec::new(), dialogs: Box::new(Script::default()), recovery_file: None, packs: bundled() };
    harness(App::new(opts, None))
}

/// A v2 registry folder: NAME 1.0.0 and 1.1.0, signed (key `me-1`), chain "Echo tiles".
fn registry(root: &Path) -> PathBuf {
    let reg = root.join("reg");
    let key = ed25519_dalek::SigningKey::from_bytes(&[7u8; 32]);
    for version in ["1.0.0", "1.1.0"] {
        let dir = root.join(format!("src-{version}"));
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = json!({
            "name": NAME, "version": version, "kind": "workflow-chain", "description": "Echo tiles.",
            "license": "MIT", "engines": {"openwop": ">=1.0.0 <3.0.0"},
            "chains": [{"chainId": "tiles.echo", "version": version, "label": "Echo tiles", "description": "Say it back.",
                "parameters": {"type": "object", "properties": {"text": {"type": "string", "default": "hi"}}},
                "dag": {"nodes": [{"id": "say", "typeId": "core.identity@1.0.0", "config": {"value": "{{params.text}}"}}]}}],
        });
        std::fs::write(dir.join("pack.json"), serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
        chainsmith::registry::publish::publish(&dir, &reg, Some((&key, "me-1"))).unwrap();
    }
    reg
}

/// Step frames (never `run`, which waits for the UI to settle) until `done`, within 60 s.
fn step_until(h: &mut Harness<'_, App>, what: &str, done: impl Fn(&Harness<'_, App>) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done(h) {
        assert!(Instant::now() < deadline, "{what} never happened");
        std::thread::sleep(Duration::from_millis(10));
        h.step();
    }
}

#[test]
fn a_registry_url_is_browsed_and_opened_in_the_background_with_cancel() {
    let root = tempfile::tempdir().unwrap();
    let reg = registry(root.path());
    let slow = Arc::new(AtomicBool::new(false));
    let sleepy = slow.clone();
    let url = common::http::folder_with(reg, move |path, _| {
        if sleepy.load(Ordering::SeqCst) && path.ends_with(".tgz") {
            std::thread::sleep(SLOW);
        }
        false
    });
    let mut h = start();
    menu_item(&mut h, "File", "Registry…");
    type_into(&mut h, "Registry URL", &url);
    click_button(&mut h, "Open URL");
    step_until(&mut h, "the listing", |h| !h.state().registry_view().is_loading());
    h.run();
    let view = h.state().registry_view();
    assert_eq!(view.location(), Some(url.as_str()));
    let packs = view.packs();
    assert_eq!(packs.len(), 1, "one pack in the index");
    let versions: Vec<&str> = packs[0].versions.iter().map(|v| v.version.as_str()).collect();
    assert_eq!(versions, ["1.0.0", "1.1.0"]);
    assert!(label_starting(&h, "verified (me-1)").is_some(), "the signature state is shown");
    assert!(h.query_by_label(&format!("Open {NAME}@1.0.0")).is_some(), "each version has its Open");
    // Search narrows the list.
    type_into(&mut h, "Filter", "nothing like it");
    assert!(label_starting(&h, "0 of 1 packs").is_some());
    type_into(&mut h, "Filter", "echo");
    assert!(label_starting(&h, "1 of 1 packs").is_some());

    // Open while the server sleeps: the frames keep coming, each quickly, with progress.
    slow.store(true, Ordering::SeqCst);
    let palette = h.state().packs().len();
    h.get(By::new().label(&format!("Open {NAME}@1.0.0")).role(Role::Button)).click();
    h.step();
    let started = Instant::now();
    let (mut frames, mut slowest) = (0, Duration::ZERO);
    while started.elapsed() < SLOW / 2 {
        let frame = Instant::now();
        h.step();
        slowest = slowest.max(frame.elapsed());
        frames += 1;
        std::thread::sleep(Duration::from_millis(16));
    }
    assert!(h.state().registry_view().job().is_some(), "still waiting for the server");
    assert!(frames >= 10, "only {frames} frames in {:?}", SLOW / 2);
    assert!(slowest < Duration::from_millis(250), "a frame took {slowest:?}: the UI waited on the network");
    let progress = label_starting(&h, &format!("Open {NAME}@1.0.0: fetching and verifying")).expect("progress");
    assert!(progress.ends_with(" s"), "{progress}");
    let other = format!("Open {NAME}@1.1.0");
    let busy = h.get(By::new().label(&other).role(Role::Button)).accesskit_node().is_disabled();
    assert!(busy, "one Install or Open at a time");

    // Cancel: at once, and what the server sends later never reaches the palette.
    h.get(By::new().label("Cancel").role(Role::Button)).click();
    h.step();
    h.step();
    assert!(h.state().registry_view().job().is_none());
    assert!(matches!(&h.state().registry_view().outcome, Some(Outcome::Cancelled { .. })));
    assert!(label_starting(&h, &format!("Open {NAME}@1.0.0 cancelled")).is_some());
    std::thread::sleep(SLOW);
    h.run();
    assert_eq!(h.state().packs().len(), palette, "a cancelled pack is not added");

    // Left to finish: fetched, verified, and in the palette as a tile.
    h.get(By::new().label(&format!("Open {NAME}@1.1.0")).role(Role::Button)).click();
    h.step();
    assert!(h.state().registry_view().job().is_some(), "the Open started");
    step_until(&mut h, "the open", |h| h.state().registry_view().job().is_none());
    h.run();
    let packs = h.state().packs();
    assert_eq!(packs.len(), palette + 1, "{:?}", h.state().last_error());
    let opened = packs.last().unwrap();
    assert_eq!((opened.name(), opened.version()), (NAME, "1.1.0"));
    assert_eq!(opened.source, PathBuf::from(format!("{url}/v2/packs/{NAME}/-/1.1.0.tgz")));
    assert!(label_starting(&h, &format!("Opened {NAME}@1.1.0 into the palette")).is_some());
    assert!(h.query_by_label("Echo tiles").is_some(), "its chain is a palette tile");
}

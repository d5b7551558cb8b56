//! The Settings window driven without a display (egui_kittest): host-profile switches and the
//! trust policy change what the palette blocks and what an open form refuses, at once; a
//! trusted-keys folder is chosen through a scripted dialog (never rfd) and trusts a pack the
//! test signed with a key it generated; the settings survive a restart through eframe storage.

mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use ed25519_dalek::pkcs8::EncodePublicKey;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::{Signer, SigningKey};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::Value;
use std::path::{Path, PathBuf};
use ui_common::{Asked, Memory, Script, click_button, drag, harness};

const CAPABILITY_REQUIRED: &str = "capability_required";
const UNSIGNED: &str = "pack_unsigned";
const UNTRUSTED: &str = "pack_signature_untrusted";

fn start(files: Vec<PathBuf>, dialogs: Script, storage: Option<&Memory>) -> Harness<'static, App> {
    let opts = StartOptions { files, dialogs: Box::new(dialogs), recovery_file: None, packs: bundled() };
    let app = App::new(opts, storage.map(|s| s as &dyn eframe::Storage));
    harness(app)
}

fn open_settings(h: &mut Harness<'_, App>) {
    h.get_by_label("Edit").click();
    h.run();
    h.get(By::new().label("Settings…").role(Role::Button)).click();
    h.run();
    assert!(h.query_by_label("Settings").is_some(), "the window is open");
}

fn checkbox<'a>(h: &'a Harness<'_, App>, label: &'a str) -> egui_kittest::Node<'a> {
    h.get(By::new().label(label).role(Role::CheckBox))
}

fn is_ticked(h: &Harness<'_, App>, label: &str) -> bool {
    checkbox(h, label).accesskit_node().toggled() == Some(egui::accesskit::Toggled::True)
}

fn toggle(h: &mut Harness<'_, App>, label: &str) {
    let before = is_ticked(h, label);
    checkbox(h, label).click();
    h.run();
    assert_ne!(is_ticked(h, label), before, "{label} toggled");
}

/// Labels whose whole text is `text` (badges and refusal codes).
fn labels(h: &Harness<'_, App>, text: &str) -> Vec<egui::Rect> {
    h.query_all(By::new().role(Role::Label).predicate(move |n| n.value().as_deref() == Some(text)))
        .map(|n| n.rect())
        .collect()
}

/// Whether the tile labelled `tile` carries the badge `code`: a badge in the tile's badge
/// row, just under its label and chainId.
fn tile_badge(h: &Harness<'_, App>, tile: &str, code: &str) -> bool {
    let title = h.get_by_label(tile).rect();
    labels(h, code)
        .iter()
        .any(|b| b.min.y > title.max.y && b.min.y < title.max.y + 60.0 && b.max.x < title.min.x + 400.0)
}

fn text_value(h: &Harness<'_, App>, label: &str) -> String {
    h.get(By::new().label(label).role(Role::TextInput)).value().unwrap_or_default()
}

fn pem(k: &SigningKey) -> String {
    k.verifying_key().to_public_key_pem(LineEnding::LF).expect("a PEM key")
}

/// A copy of the bundled support-desk pack under another name, its tiles labelled "Signed …",
/// signed with `key` (raw 64-byte signature over the exact bytes of pack.json).
fn signed_copy(dir: &Path, key: &SigningKey) -> PathBuf {
    let original = bundled().packs.into_iter().find(|p| p.name() == "vendor.chainsmith.support-desk").unwrap();
    let mut m = serde_json::Value::clone(&original.manifest);
    m["name"] = "vendor.acme.signed-desk".into();
    for chain in m["chains"].as_array_mut().unwrap() {
        let label = chain["label"].as_str().unwrap().to_owned();
        chain["label"] = Value::String(format!("Signed {label}"));
    }
    m["signing"] =
        serde_json::json!({"method": "manual", "publicKeyRef": "keys/acme.pem", "signatureRef": "pack.json.sig"});
    std::fs::create_dir_all(dir.join("keys")).unwrap();
    let bytes = serde_json::to_vec_pretty(&m).unwrap();
    std::fs::write(dir.join("pack.json"), &bytes).unwrap();
    std::fs::write(dir.join("keys/acme.pem"), pem(key)).unwrap();
    std::fs::write(dir.join("pack.json.sig"), key.sign(&bytes).to_bytes()).unwrap();
    dir.to_path_buf()
}

/// A trusted-keys folder holding `key` and a file that is not a key.
fn keys_folder(dir: &Path, key: &SigningKey) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("acme.pem"), pem(key)).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a key").unwrap();
    dir.to_path_buf()
}

#[test]
fn host_profile_blocks_and_unblocks_the_book_trip_tile_and_its_open_form() {
    let mut h = start(Vec::new(), Script::default(), None);
    assert!(labels(&h, CAPABILITY_REQUIRED).is_empty(), "compensation is on by default");

    // An insert form for "Book trip", with a value typed in.
    let from = h.get_by_label("Book trip").rect().center();
    let to = h.state().canvas_rect().center();
    drag(&mut h, from, to, egui::Modifiers::NONE);
    assert!(h.state().form().is_some());
    let api = "https://hotels.example/api";
    h.get(By::new().label("Hotel API *").role(Role::TextInput)).click();
    h.run();
    h.get(By::new().label("Hotel API *").role(Role::TextInput)).type_text(api);
    h.run();

    open_settings(&mut h);
    assert!(is_ticked(&h, "Compensation") && !is_ticked(&h, "Sub-chains") && !is_ticked(&h, "Secrets"));
    assert!(!is_ticked(&h, "Deferred parameters") && !is_ticked(&h, "Require signed packs"));
    assert!(h.query_by_label_contains("is refused with capability_required").is_some(), "each switch is explained");

    // Off: the tile is blocked with the code, and the open form refuses with it.
    toggle(&mut h, "Compensation");
    assert!(tile_badge(&h, "Book trip", CAPABILITY_REQUIRED), "the tile carries the refusal");
    let palette = h.get_by_label("Book trip").rect().max.x + 200.0;
    assert!(labels(&h, CAPABILITY_REQUIRED).iter().any(|r| r.min.x > palette), "the open form refuses too");
    assert!(h.get(By::new().label("Insert").role(Role::Button)).accesskit_node().is_disabled());
    assert!(!tile_badge(&h, "Triage queue", CAPABILITY_REQUIRED), "chains without compensation stay open");
    assert_eq!(text_value(&h, "Hotel API *"), api, "the form keeps what was typed");

    // On again: unblocked everywhere, the typed value still there.
    toggle(&mut h, "Compensation");
    assert!(labels(&h, CAPABILITY_REQUIRED).is_empty());
    assert!(h.state().form().is_some());
    assert_eq!(text_value(&h, "Hotel API *"), api);

    // Reset brings back the conservative defaults.
    toggle(&mut h, "Sub-chains");
    click_button(&mut h, "Reset to defaults");
    assert!(!is_ticked(&h, "Sub-chains") && is_ticked(&h, "Compensation"));
}

#[test]
fn require_signed_and_a_trusted_keys_folder_change_badges_and_blocked_tiles() {
    let root = tempfile::tempdir().unwrap();
    let key = SigningKey::from_bytes(&rand::random::<[u8; 32]>());
    let pack = signed_copy(&root.path().join("signed-desk"), &key);
    let keys = keys_folder(&root.path().join("keys"), &key);
    let script = Script::default();
    let mut h = start(vec![pack], script.clone(), None);
    assert_eq!(labels(&h, "⚠ untrusted").len(), 1, "valid signature, key not trusted yet");
    assert_eq!(labels(&h, "unsigned").len(), 3, "the bundled chain packs");
    assert!(labels(&h, UNSIGNED).is_empty() && labels(&h, UNTRUSTED).is_empty(), "warnings only");

    open_settings(&mut h);
    assert!(h.query_by_label_contains("None chosen").is_some());
    toggle(&mut h, "Require signed packs");
    for tile in ["Triage queue", "Fan-in report", "Book trip"] {
        assert!(tile_badge(&h, tile, UNSIGNED), "{tile} is blocked as unsigned");
    }
    assert!(tile_badge(&h, "Signed Triage queue", UNTRUSTED), "an untrusted key blocks too");
    toggle(&mut h, "Compensation");
    assert!(
        tile_badge(&h, "Book trip", UNSIGNED) && tile_badge(&h, "Book trip", CAPABILITY_REQUIRED),
        "every refusal shows"
    );
    toggle(&mut h, "Compensation");

    // The folder chosen through the dialog: one key loads, the junk file is reported.
    script.will_pick_folder(&keys);
    click_button(&mut h, "Choose…");
    assert_eq!(script.asked(), [Asked::Folder], "the folder dialog was asked once");
    assert!(h.query_by_label("1 key loaded").is_some());
    assert!(h.query_by_label_contains("trusted_key_invalid").is_some(), "notes.txt is not a key");
    assert_eq!(labels(&h, "✔ trusted").len(), 1, "the signed copy is trusted now");
    assert!(labels(&h, "⚠ untrusted").is_empty());
    assert!(!tile_badge(&h, "Signed Triage queue", UNTRUSTED), "and no longer blocked");
    assert!(tile_badge(&h, "Triage queue", UNSIGNED), "the unsigned original still is");

    // A folder that cannot be read trusts nothing, and says why.
    script.will_pick_folder(&root.path().join("missing"));
    click_button(&mut h, "Choose…");
    assert!(h.query_by_label_contains("Cannot read this folder").is_some());
    assert!(h.state().last_error().is_some_and(|e| e.message.contains("missing")));
    assert_eq!(labels(&h, "⚠ untrusted").len(), 1);
    script.will_pick_folder(&keys);
    click_button(&mut h, "Choose…");
    assert_eq!(labels(&h, "✔ trusted").len(), 1);

    // Clear forgets the keys; reset lifts the requirement.
    click_button(&mut h, "Clear");
    assert_eq!(labels(&h, "⚠ untrusted").len(), 1);
    assert!(tile_badge(&h, "Signed Triage queue", UNTRUSTED));
    click_button(&mut h, "Reset to defaults");
    assert!(labels(&h, UNSIGNED).is_empty() && labels(&h, UNTRUSTED).is_empty());
    assert!(!is_ticked(&h, "Require signed packs"));
}

#[test]
fn settings_persist_through_eframe_storage() {
    let root = tempfile::tempdir().unwrap();
    let key = SigningKey::from_bytes(&rand::random::<[u8; 32]>());
    let pack = signed_copy(&root.path().join("signed-desk"), &key);
    let keys = keys_folder(&root.path().join("keys"), &key);
    let script = Script::default();
    let mut h = start(vec![pack.clone()], script.clone(), None);
    open_settings(&mut h);
    toggle(&mut h, "Compensation");
    toggle(&mut h, "Strict node-config checks");
    script.will_pick_folder(&keys);
    click_button(&mut h, "Choose…");
    let mut storage = Memory::default();
    eframe::App::save(h.state_mut(), &mut storage);
    let saved = storage.0.values().next().cloned().unwrap_or_default();
    assert!(saved.contains("compensation:false") && saved.contains("strict:true"), "{saved}");

    // The next start applies them before anything is opened.
    let mut h = start(vec![pack], Script::default(), Some(&storage));
    assert!(tile_badge(&h, "Book trip", CAPABILITY_REQUIRED));
    assert_eq!(labels(&h, "✔ trusted").len(), 1, "the keys folder is read at start");
    open_settings(&mut h);
    assert!(!is_ticked(&h, "Compensation") && is_ticked(&h, "Strict node-config checks"));
    assert!(h.query_by_label("1 key loaded").is_some());
}

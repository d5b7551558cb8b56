//! The editor's shell as a newcomer works in it (issue 37, items 1, 2, 8, 9, 13 and 14),
//! driven without a display (egui_kittest): File › Registry… on a folder of packs, the pack
//! view beside the status bar with its own results, file dialogs that remember their folder,
//! one problems count, modal questions that take the keyboard, and the smaller points.

mod common;
mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use chainsmith_test_env::needs;
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;
use ui_common::{
    Script, hover_still, labels_containing, menu_item, pointer_click, sized, text_field, two_nodes, with_a_warning,
    write_workflow,
};

fn app_with(files: Vec<PathBuf>, script: Script) -> App {
    App::new(StartOptions { files, dialogs: Box::new(script), recovery_file: None, packs: bundled() }, None)
}

/// A chain pack `vendor.acme.<name>` in `dir/<name>` with one plain chain.
fn chain_pack(dir: &Path, name: &str) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let chain = json!({"chainId": format!("acme.{name}"), "version": "1.0.0", "label": format!("Acme {name}"),
        "description": "d", "parameters": {"type": "object"},
        "dag": {"nodes": [{"id": "a", "typeId": "vendor.chainsmith.classify", "config": {}}], "edges": []}});
    let m = json!({"name": format!("vendor.acme.{name}"), "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "dependencies": {"vendor.chainsmith.nodes": "^1.0.0"}, "chains": [chain]});
    std::fs::write(folder.join("pack.json"), m.to_string()).unwrap();
    folder
}

/// Where the first widget whose label or value contains `part` is.
fn rect_of(h: &Harness<'_, App>, part: &str) -> Rect {
    let wanted = part.to_owned();
    h.query_all(By::new().predicate(move |n| {
        n.label().is_some_and(|l| l.contains(&wanted)) || n.value().is_some_and(|v| v.contains(&wanted))
    }))
    .next()
    .unwrap_or_else(|| panic!("nothing on screen says {part:?}"))
    .rect()
}

fn press(h: &mut Harness<'_, App>, key: Key) {
    h.key_press(key);
    h.run();
}

/// The in-app file dialog's folder field, as shown.
fn dialog_folder(h: &Harness<'_, App>) -> PathBuf {
    PathBuf::from(text_field(h, "Folder").value().unwrap_or_default())
}

/// Go to `dir` in the in-app dialog by typing it into its folder field.
fn dialog_go(h: &mut Harness<'_, App>, dir: &Path) {
    ui_common::type_into(h, "Folder", dir.to_str().unwrap());
    press(h, Key::Enter);
}

fn home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").expect("HOME is set for the tests"))
}

// ---------------------------------------------------------------------------------------
// 1. File › Registry… on a folder of packs

#[test]
fn file_registry_on_a_folder_of_packs_opens_it_as_a_pack_folder_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let packs = dir.path().join("packs");
    chain_pack(&packs, "one");
    chain_pack(&packs, "two");
    let script = Script::default();
    let mut h = sized(app_with(Vec::new(), script.clone()), 1440.0, 900.0);
    menu_item(&mut h, "File", "Registry…");
    script.will_pick_folder(dir.path());
    h.get(By::new().label("Choose folder…").role(Role::Button)).click();
    h.run();
    let names: Vec<&str> = h.state().packs().iter().map(|p| p.name()).collect();
    assert!(names.contains(&"vendor.acme.one") && names.contains(&"vendor.acme.two"), "{names:?}");
    assert!(h.state().last_error().is_none(), "{:?}", h.state().last_error());
    let said = labels_containing(&h, "as a pack folder");
    assert_eq!(said.len(), 1, "the status says what happened and why: {said:?}");
    assert!(said[0].contains("Opened 2 packs") && said[0].contains("openwop-registry.json"), "{said:?}");
    assert!(h.query(By::new().label("Registry").role(Role::Window)).is_none(), "the registry window made way");

    // A folder that is neither: the registry window says what it expects and what else to use.
    let empty = tempfile::tempdir().unwrap();
    menu_item(&mut h, "File", "Registry…");
    script.will_pick_folder(empty.path());
    h.get(By::new().label("Choose folder…").role(Role::Button)).click();
    for _ in 0..20 {
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    h.run();
    assert!(!labels_containing(&h, "File › Open pack folder…").is_empty(), "the next step is named");
}

// ---------------------------------------------------------------------------------------
// 2. The pack view leaves the status bar in sight and shows its own results

#[test]
fn the_pack_view_stays_between_menu_and_status_bar_and_shows_what_save_sign_and_keygen_did() {
    let dir = tempfile::tempdir().unwrap();
    let pack = chain_pack(dir.path(), "tiles");
    let script = Script::default();
    let mut h = sized(app_with(vec![pack.clone()], script.clone()), 1000.0, 700.0);
    menu_item(&mut h, "View", "Pack view");
    let window = h.get(By::new().label("Pack view").role(Role::Window)).rect();
    let file_menu = h.get(By::new().label("File").role(Role::Button)).rect();
    let status = rect_of(&h, "File dialogs: system");
    assert!(window.min.y >= file_menu.max.y, "the view {window:?} covers the menu bar {file_menu:?}");
    assert!(window.max.y <= status.min.y, "the view {window:?} covers the status bar {status:?}");

    // Edit the pack, save it, make a key, and sign with the public half by mistake.
    let combo = h.query_all(By::new().role(Role::ComboBox)).find(|n| window.contains_rect(n.rect())).unwrap();
    combo.click();
    h.run();
    h.get_by_label_contains("vendor.acme.tiles 1.0.0 — edit").click();
    h.run();
    let inside = |h: &Harness<'_, App>, part: &str| {
        let window = h.get(By::new().label("Pack view").role(Role::Window)).rect();
        let wanted = part.to_owned();
        let shown: Vec<Rect> = h.query_all(By::new().label_contains(&wanted)).map(|n| n.rect()).collect();
        assert!(
            shown.iter().any(|r| window.contains_rect(*r)),
            "{part:?} at {shown:?} is not in the pack view {window:?}"
        );
    };
    // Its file is known: Save asks nothing.
    h.get(By::new().label("Save pack").role(Role::Button)).click();
    h.run();
    inside(&h, "Saved pack");
    script.will_save(&dir.path().join("signer"));
    h.get(By::new().label("Generate key…").role(Role::Button)).click();
    h.run();
    inside(&h, "Generated a signing key");
    script.will_open(&dir.path().join("signer.public.pem"));
    h.get(By::new().label("Sign…").role(Role::Button)).click();
    h.run();
    inside(&h, "this is the public key; pick the private one (signer.private.pem beside it)");

    // Its title bar, all that is left when it is folded, leaves File and Edit free.
    let title = h.get(By::new().label("Pack view").role(Role::Window)).rect();
    let edit = h.get(By::new().label("Edit").role(Role::Button)).rect();
    assert!(!title.intersects(edit) && !title.intersects(file_menu), "{title:?} covers the menus");
}

// ---------------------------------------------------------------------------------------
// 8. File dialogs remember their folder per kind; the first time they start at home

#[test]
fn file_dialogs_start_at_home_then_where_their_kind_was_last_answered() {
    let dir = tempfile::tempdir().unwrap();
    let packs = dir.path().join("packs");
    chain_pack(&packs, "one");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let wf = write_workflow(dir.path(), two_nodes());
    let mut h = sized(app_with(vec![wf], Script::unavailable()), 1440.0, 900.0);

    // The pack-folder picker starts at home, not where the editor was started, and says
    // what kind of folder it wants.
    menu_item(&mut h, "File", "Open pack folder…");
    assert_eq!(dialog_folder(&h), home(), "the pack-folder picker's first folder");
    assert!(!labels_containing(&h, "pack.json files in it or below").is_empty(), "its title says what it wants");
    dialog_go(&mut h, &packs);
    h.get(By::new().label("Choose this folder").role(Role::Button)).click();
    h.run();
    assert!(h.state().packs().iter().any(|p| p.name() == "vendor.acme.one"));

    // The registry picker is another kind: home, and it says what a registry folder has.
    menu_item(&mut h, "File", "Registry…");
    h.get(By::new().label("Choose folder…").role(Role::Button)).click();
    h.run();
    assert_eq!(dialog_folder(&h), home(), "the registry picker does not start in the pack folder");
    assert!(!labels_containing(&h, ".well-known/openwop-registry.json").is_empty());
    h.get(By::new().label("Cancel").role(Role::Button)).click();
    h.run();
    press(&mut h, Key::Escape);

    // An export goes to `out`; Save as still starts beside the workflow, the next export in `out`.
    menu_item(&mut h, "File", "Export expanded JSON, as the spec writes it…");
    dialog_go(&mut h, &out);
    h.get(By::new().label("Save").role(Role::Button)).click();
    h.run();
    assert!(std::fs::read_dir(&out).unwrap().count() == 1, "{:?}", h.state().last_error());
    menu_item(&mut h, "File", "Save as…");
    assert_eq!(dialog_folder(&h), dir.path(), "Save as starts beside the workflow, not in the export folder");
    h.get(By::new().label("Cancel").role(Role::Button)).click();
    h.run();
    menu_item(&mut h, "File", "Export expanded JSON for strict schema validators…");
    assert_eq!(dialog_folder(&h), out, "an export starts where the last export went");
    h.get(By::new().label("Cancel").role(Role::Button)).click();
    h.run();
    menu_item(&mut h, "File", "Open pack folder…");
    assert_eq!(dialog_folder(&h), packs, "the pack-folder picker starts at the folder picked last");
}

// ---------------------------------------------------------------------------------------
// 9. One problems count; an action's own findings are part of its message

#[test]
fn an_action_s_findings_belong_to_its_message_and_the_bar_has_one_problems_count() {
    let dir = tempfile::tempdir().unwrap();
    // A warning, in the workflow's findings and in the export's.
    let path = write_workflow(dir.path(), with_a_warning(two_nodes()));
    let script = Script::default();
    let mut h = sized(app_with(vec![path], script.clone()), 1440.0, 900.0);
    h.state_mut().settle_lint(Duration::from_secs(60));
    h.run();
    script.will_save(&dir.path().join("out.json"));
    // The first export item, whatever its name.
    h.get(By::new().label("File").role(Role::Button)).click();
    h.run();
    h.query_all(By::new().label_contains("Export expanded JSON").role(Role::Button)).next().unwrap().click();
    h.run();
    h.state_mut().settle_lint(Duration::from_secs(60));
    h.run();
    let counts: Vec<String> = h
        .query_all(By::new().role(Role::Button))
        .filter_map(|n| n.accesskit_node().label())
        .filter(|l| l.contains("warning") || l.contains("no problems"))
        .collect();
    assert_eq!(counts.len(), 1, "one problems count in the bar: {counts:?}");
    let message = labels_containing(&h, "Exported");
    assert!(message.iter().any(|m| m.contains("1 warning from this action")), "{message:?}");
    // A click on the message lists what the export reported.
    h.get(By::new().label_contains("1 warning from this action")).click();
    h.run();
    assert!(!labels_containing(&h, "Reported by the last action").is_empty());
}

// ---------------------------------------------------------------------------------------
// 13. A modal question takes the keyboard

#[test]
fn save_changes_takes_the_keyboard_esc_cancels_it_and_arrows_do_not_reach_the_canvas() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_workflow(dir.path(), two_nodes());
    let mut h = sized(app_with(vec![path], Script::default()), 1440.0, 900.0);
    // An edit, so New asks first.
    h.state_mut().set_selection(&["start", "finish"]);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::D);
    h.run();
    assert!(h.state().doc().is_dirty());
    let nodes = h.state().doc().workflow().node_count();
    h.state_mut().set_selection(&["start"]);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::N);
    h.run();
    assert!(h.query_by_label("Save changes?").is_some(), "the question is up");
    for key in [Key::ArrowRight, Key::ArrowDown, Key::ArrowLeft, Key::ArrowUp] {
        press(&mut h, key);
    }
    assert_eq!(h.state().doc().selection.node_ids(), ["start"], "the arrows moved the selection behind the question");
    press(&mut h, Key::Escape);
    assert!(h.query_by_label("Save changes?").is_none(), "Esc cancels the question");
    assert_eq!(h.state().doc().workflow().node_count(), nodes, "and the workflow is as it was");
    assert!(h.state().doc().is_dirty());
    assert_eq!(h.state().doc().selection.node_ids(), ["start"], "Esc did not reach the canvas either");
}

// ---------------------------------------------------------------------------------------
// 14. The smaller points

#[test]
fn the_error_s_dismiss_button_covers_neither_its_text_nor_the_counts() {
    let dir = tempfile::tempdir().unwrap();
    let wf = write_workflow(dir.path(), two_nodes());
    let gone = dir.path().join(format!("{}.json", "a-file-with-a-long-name-that-is-not-there".repeat(3)));
    let mut h = sized(app_with(vec![wf, gone], Script::default()), 1000.0, 700.0);
    h.state_mut().settle_lint(Duration::from_secs(60));
    h.run();
    assert!(h.state().last_error().is_some());
    let dismiss = h.get(By::new().label("🗙").role(Role::Button)).rect();
    let counts = rect_of(&h, "no problems");
    let code = rect_of(&h, "✖ ");
    assert!(dismiss.max.x <= counts.min.x, "the dismiss button {dismiss:?} covers the counts {counts:?}");
    assert!(!dismiss.intersects(code), "the dismiss button {dismiss:?} covers the error {code:?}");
    assert!(counts.max.x <= 1000.0, "the counts are on screen: {counts:?}");
}

#[test]
fn the_new_folder_name_takes_what_is_typed_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let wf = write_workflow(dir.path(), two_nodes());
    let mut h = sized(app_with(vec![wf], Script::unavailable()), 1440.0, 900.0);
    menu_item(&mut h, "File", "Save as…");
    h.get(By::new().label_contains("New folder").role(Role::Button)).click();
    h.run();
    h.event(egui::Event::Text("drafts".to_owned()));
    h.run();
    assert_eq!(text_field(&h, "New folder").value().as_deref(), Some("drafts"));
    press(&mut h, Key::Enter);
    assert!(dir.path().join("drafts").is_dir(), "Enter made it");
}

#[test]
fn the_two_exports_are_named_by_their_difference_and_help_says_version_docs_and_files() {
    let mut h = sized(app_with(Vec::new(), Script::default()), 1440.0, 900.0);
    h.get(By::new().label("File").role(Role::Button)).click();
    h.run();
    let exports = labels_containing(&h, "Export expanded JSON");
    assert_eq!(
        exports,
        ["Export expanded JSON, as the spec writes it…", "Export expanded JSON for strict schema validators…"],
        "each says what it is for"
    );
    press(&mut h, Key::Escape);
    menu_item(&mut h, "Help", "About: version, documentation, files");
    assert!(h.query(By::new().label("Help").role(Role::Window)).is_some());
    let version = format!("chainsmith {}", env!("CARGO_PKG_VERSION"));
    for part in
        [version.as_str(), "Documentation", "editor.md", "Settings", "Recovery file", "Every command and its keys"]
    {
        assert!(!labels_containing(&h, part).is_empty(), "Help does not say {part:?}");
    }
}

#[test]
fn the_untrusted_badge_says_how_to_trust_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let pack = chain_pack(dir.path(), "signed");
    let key = chainsmith::registry::keys::generate(&dir.path().join("signer")).unwrap();
    let signing = chainsmith::registry::keys::read_signing_key(&key.private_key).unwrap();
    chainsmith::registry::sign_pack(&pack.join("pack.json"), &signing, chainsmith::registry::Scheme::V1Manual).unwrap();
    let mut h = sized(app_with(vec![pack], Script::default()), 1440.0, 900.0);
    let badge = h.get(By::new().label_contains("untrusted").role(Role::Label)).rect();
    hover_still(&mut h, badge.center());
    assert!(
        !labels_containing(&h, "choose that folder in Settings › Trusted keys folder").is_empty(),
        "the tooltip says how to trust the key"
    );
}

/// A pack with a chain the default host profile blocks (it composes a sub-chain) and the
/// plain chain it composes.
fn blocked_pack(dir: &Path) -> PathBuf {
    let folder = chain_pack(dir, "tiles");
    let file = folder.join("pack.json");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let mut composes = m["chains"][0].clone();
    composes["chainId"] = json!("acme.composes");
    composes["label"] = json!("Composes");
    composes["dag"]["nodes"][0] =
        json!({"id": "a", "typeId": "core.subWorkflow", "config": {"subChainRef": "acme.tiles"}});
    composes["subChains"] = json!([{"ref": "acme.tiles"}]);
    m["chains"].as_array_mut().unwrap().push(composes);
    std::fs::write(&file, m.to_string()).unwrap();
    folder
}

#[test]
fn once_a_fix_lifts_the_refusal_the_why_window_says_so_in_its_title_and_inserts_now() {
    let dir = tempfile::tempdir().unwrap();
    let wf = write_workflow(dir.path(), two_nodes());
    let mut h = sized(app_with(vec![wf, blocked_pack(dir.path())], Script::default()), 1440.0, 900.0);
    let badge = h
        .query_all(By::new().predicate(|n| n.value().as_deref() == Some("sub_chain_unsupported")))
        .next()
        .expect("the tile shows its refusal code")
        .rect();
    pointer_click(&mut h, badge.center());
    assert!(h.query(By::new().label("Why “Composes” cannot be inserted").role(Role::Window)).is_some());
    h.query_all(By::new().label("Enable sub-chains").role(Role::Button)).last().unwrap().click();
    h.run();
    assert!(h.query(By::new().label("“Composes” can be inserted now").role(Role::Window)).is_some(), "retitled");
    assert!(labels_containing(&h, "cannot be inserted").is_empty(), "{:?}", labels_containing(&h, "inserted"));
    h.get(By::new().label("Insert now").role(Role::Button)).click();
    h.run();
    assert!(h.state().form().is_some(), "Insert now opens the chain's form: {:?}", h.state().last_error());
    assert!(h.state().explained_chain().is_none(), "and the window makes way for it");
}

#[test]
fn a_search_that_matches_nothing_leaves_no_empty_group_headers_and_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = sized(app_with(vec![chain_pack(dir.path(), "one")], Script::default()), 1440.0, 900.0);
    assert!(h.query_by_label("Opened packs").is_some() && h.query_by_label("Bundled samples").is_some());
    // Only the opened pack matches: the samples' header goes with their tiles.
    ui_common::type_into(&mut h, "Search tiles", "Acme one");
    assert!(h.query_by_label("Opened packs").is_some());
    assert!(h.query_by_label("Bundled samples").is_none(), "a header over no tiles");
    // Nothing matches: no header at all, and a line that says what to do.
    ui_common::type_into(&mut h, "Search tiles", "no-such-chain-anywhere");
    assert!(h.query_by_label("Opened packs").is_none() && h.query_by_label("Bundled samples").is_none());
    let said = labels_containing(&h, "No tile matches “no-such-chain-anywhere”");
    assert!(said.first().is_some_and(|s| s.contains("clear the search")), "{said:?}");
}

#[test]
fn the_blocked_chains_banner_starts_folded_at_1000x700_and_open_at_1600x1000() {
    let dir = tempfile::tempdir().unwrap();
    let pack = blocked_pack(dir.path());
    for (w, hgt, open) in [(1000.0, 700.0, false), (1600.0, 1000.0, true)] {
        let mut h = sized(app_with(vec![pack.clone()], Script::default()), w, hgt);
        assert_eq!(labels_containing(&h, "chains are blocked").len(), 1, "at {w}x{hgt}");
        let fix = |h: &Harness<'_, App>| h.query_all(By::new().label("Enable sub-chains").role(Role::Button)).count();
        assert_eq!(fix(&h) == 1, open, "at {w}x{hgt} the banner's fixes are shown: {open}");
        if !open {
            // One click on its title opens it.
            h.query_all(By::new().label_contains("chains are blocked")).next().unwrap().click();
            h.run();
            assert_eq!(fix(&h), 1, "opened by its title");
        }
    }
}

#[test]
fn the_inspector_s_hint_is_whole_at_1000x700_and_1600x1000() {
    for (w, hgt) in [(1000.0, 700.0), (1600.0, 1000.0)] {
        let h = sized(app_with(Vec::new(), Script::default()), w, hgt);
        let hint = labels_containing(&h, "Drag a tile from the palette");
        assert!(!hint.is_empty(), "at {w}x{hgt}");
        assert!(hint.iter().all(|t| !t.ends_with('…')), "at {w}x{hgt} the hint is cut: {hint:?}");
    }
}

// ---------------------------------------------------------------------------------------
// The newcomer's task, start to end, on the real registry folder

/// The status bar's message, whatever it is.
fn status_line(h: &Harness<'_, App>) -> String {
    assert!(h.state().last_error().is_none(), "an error: {:?}", h.state().last_error());
    let status = rect_of(h, "File dialogs:");
    // The message is the label at the left of the counts, on the status bar's row.
    h.query_all(By::new().predicate(|n| n.role() == Role::Label && n.bounding_box().is_some()))
        .filter(|n| (n.rect().center().y - status.center().y).abs() < 6.0 && n.rect().max.x < status.min.x)
        .filter_map(|n| n.accesskit_node().label().or_else(|| n.value()))
        .find(|l| !l.is_empty())
        .unwrap_or_default()
}

/// Find a palette tile by searching for it, and drag it onto the canvas at `at` (a share of
/// the canvas's width and height from its top left): the insert form opens.
fn drop_tile(h: &mut Harness<'_, App>, label: &str, at: egui::Vec2) {
    ui_common::type_into(h, "Search tiles", label);
    let tile = h.get(By::new().label(label)).rect().center();
    let canvas = h.state().canvas_rect();
    let to = canvas.min + canvas.size() * at;
    ui_common::drag(h, tile, to, Modifiers::NONE);
    assert!(h.state().form().is_some(), "dropping {label:?} opens its form: {:?}", h.state().last_error());
}

/// Where on screen the port of `node` is whose label starts with `side` ("Output" or
/// "Input"); the canvas's widgets are placed in canvas coordinates.
fn port(h: &Harness<'_, App>, side: &str, node: &str) -> Pos2 {
    let (side, node) = (format!("{side} "), format!(" of {node}"));
    let at = h
        .query_all(By::new().role(Role::Button))
        .find(|n| n.accesskit_node().label().is_some_and(|l| l.starts_with(&side) && l.ends_with(&node)))
        .unwrap_or_else(|| panic!("no {side}port on {node}"))
        .rect()
        .center();
    h.state().canvas_to_screen(at)
}

#[needs(corpus)]
#[test]
fn a_newcomer_opens_the_real_registry_folder_and_builds_saves_and_reopens_a_workflow() {
    let dir = tempfile::tempdir().unwrap();
    let registry = common::corpus_dir().join("registry");
    let script = Script::default();
    let mut h = sized(app_with(Vec::new(), script.clone()), 1440.0, 900.0);
    let mut said = Vec::new();

    // File › Registry… on the registry folder: its packs open, and the status says how.
    menu_item(&mut h, "File", "Registry…");
    script.will_pick_folder(&registry);
    h.get(By::new().label("Choose folder…").role(Role::Button)).click();
    h.run();
    said.push(status_line(&h));
    assert!(said[0].contains("as a pack folder") && said[0].contains("File › Open pack folder…"), "{said:?}");
    assert!(h.state().packs().len() > 100, "{} packs", h.state().packs().len());

    // Unblock chains with the banner's fix.
    let banner = labels_containing(&h, "chains are blocked");
    assert_eq!(banner.len(), 1, "{banner:?}");
    h.get(By::new().label_contains("Declare these").role(Role::Button)).click();
    h.run();
    said.push(status_line(&h));
    assert!(said[1].contains("unblocked") && said[1].contains("Settings changes it back"), "{said:?}");

    // Drop two chains, fill their forms; the second's value is invalid until fixed.
    drop_tile(&mut h, "Summarize Text", egui::vec2(0.25, 0.3));
    ui_common::type_into(&mut h, "Source text *", "The quarterly report");
    h.get(By::new().label("Insert").role(Role::Button)).click();
    h.run();
    assert!(h.state().form().is_none(), "{:?}", h.state().last_error());
    said.push(status_line(&h));
    // Its warnings are counted in its message, which lists them when clicked.
    h.get(By::new().label_contains("from this action")).click();
    h.run();
    assert!(!labels_containing(&h, "Reported by the last action").is_empty());
    let first = h.state().doc().workflow().instances()[0].clone();
    drop_tile(&mut h, "Fetch &amp; Summarize URL", egui::vec2(0.7, 0.7));
    ui_common::type_into(&mut h, "Url *", "not a url");
    assert!(!labels_containing(&h, "chain_parameter_invalid").is_empty(), "the invalid value is named");
    assert!(h.get(By::new().label("Insert").role(Role::Button)).accesskit_node().is_disabled());
    ui_common::type_into(&mut h, "Url *", "https://example.com/report");
    assert!(labels_containing(&h, "chain_parameter_invalid").is_empty(), "fixed");
    h.get(By::new().label("Insert").role(Role::Button)).click();
    h.run();
    assert!(h.state().form().is_none(), "{:?}", h.state().last_error());
    said.push(status_line(&h));
    let second = h.state().doc().workflow().instances().into_iter().find(|i| i.key() != first.key()).unwrap();

    // Connect the first chain's last node to the second's first.
    press(&mut h, Key::F);
    let edges = h.state().doc().workflow().graph.edge_count();
    let from = port(&h, "Output", first.node_ids.last().unwrap());
    let to = port(&h, "Input", &second.node_ids[0]);
    ui_common::drag(&mut h, from, to, Modifiers::NONE);
    assert_eq!(h.state().doc().workflow().graph.edge_count(), edges + 1, "{:?}", h.state().last_error());
    said.push(status_line(&h));

    // Undo and redo the connection.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().doc().workflow().graph.edge_count(), edges);
    said.push(status_line(&h));
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run();
    assert_eq!(h.state().doc().workflow().graph.edge_count(), edges + 1);
    said.push(status_line(&h));

    // Export, save, and open the saved file again in a new workflow.
    let exported = dir.path().join("expanded.json");
    script.will_save(&exported);
    menu_item(&mut h, "File", "Export expanded JSON, as the spec writes it…");
    assert!(exported.is_file(), "{:?}", h.state().last_error());
    said.push(status_line(&h));
    let saved = dir.path().join("newcomer.json");
    script.will_save(&saved);
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    h.run();
    assert!(saved.is_file() && !h.state().doc().is_dirty(), "{:?}", h.state().last_error());
    said.push(status_line(&h));
    let model = h.state().doc().workflow().to_json(chainsmith::workflow::ExportMode::Faithful);
    h.key_press_modifiers(Modifiers::COMMAND, Key::N);
    h.run();
    assert_eq!(h.state().doc().workflow().node_count(), 0, "a new, empty workflow");
    script.will_open(&saved);
    h.key_press_modifiers(Modifiers::COMMAND, Key::O);
    h.run();
    said.push(status_line(&h));
    assert_eq!(
        h.state().doc().workflow().to_json(chainsmith::workflow::ExportMode::Faithful),
        model,
        "reopened as saved"
    );

    // Every step said what it did, and none was refused: no code without a next step.
    assert_eq!(said.len(), 10, "{said:#?}");
    let verbs = ["Opened", "Declare", "Insert", "Insert", "Connect", "Undid", "Redid", "Exported", "Saved", "Opened"];
    for (s, verb) in said.iter().zip(verbs) {
        assert!(s.starts_with(verb), "{verb:?} expected: {said:#?}");
    }
}

/// Item 14: the toolbar's counts, the inspector's contents line and an instance's buttons are
/// never cut: the toolbar picks the longest form that fits (the full one is its tooltip), the
/// inspector wraps.
#[test]
fn the_toolbar_counts_and_the_inspector_contents_are_whole_at_1000x700_and_1600x1000() {
    use chainsmith::catalog::Trust;
    use chainsmith::inline::{InlineRequest, inline};
    use chainsmith::workflow::{ExportMode, Workflow};
    let dir = tempfile::tempdir().unwrap();
    let packs = bundled().packs;
    let desk = packs.iter().find(|p| p.name() == "vendor.chainsmith.support-desk").unwrap();
    let trust = Trust::default();
    let mut wf = Workflow::new("Counts");
    let values = serde_json::Map::from_iter([("queueName".to_owned(), json!("billing"))]);
    inline(&mut wf, InlineRequest::new(&trust, desk, "support.triage", values)).unwrap();
    let file = dir.path().join("wf.json");
    wf.save(&file, ExportMode::Faithful).unwrap();
    // packs/vendor.chainsmith.support-desk/pack.json: Triage queue has 4 nodes and 3 edges.
    for (w, hgt) in [(1000.0, 700.0), (1600.0, 1000.0)] {
        let mut h = sized(app_with(vec![file.clone()], Script::default()), w, hgt);
        let toolbar = labels_containing(&h, "4 nodes · 3 edges");
        assert!(!toolbar.is_empty(), "at {w}x{hgt}");
        assert!(toolbar.iter().all(|t| !t.ends_with('…')), "at {w}x{hgt} the counts are cut: {toolbar:?}");
        if w > 1500.0 {
            assert!(toolbar.contains(&"4 nodes · 3 edges · 1 chain instance".to_owned()), "{toolbar:?}");
        }
        // A wrapped label also lists its lines; none is cut.
        let contents = labels_containing(&h, "4 nodes, 3 edges");
        assert_eq!(contents.first().map(String::as_str), Some("4 nodes, 3 edges, 1 chain instance"), "at {w}x{hgt}");
        assert!(contents.iter().all(|t| !t.ends_with('…')), "at {w}x{hgt} the contents are cut: {contents:?}");
        // Selected, the instance's buttons stay whole inside the window.
        let frame = h.get(By::new().label_contains("Chain instance Triage queue").role(Role::Group)).rect();
        let corner = h.state().canvas_to_screen(frame.min + egui::vec2(12.0, 10.0));
        pointer_click(&mut h, corner);
        for button in ["Edit parameters…", "Remove instance"] {
            let r = h.get(By::new().label(button).role(Role::Button)).rect();
            assert!(r.max.x <= w, "at {w}x{hgt} {button} runs past the window: {r:?}");
        }
    }
}

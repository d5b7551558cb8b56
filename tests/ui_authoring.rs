//! Chain-pack authoring driven through the real editor (egui_kittest): extract a selection
//! as a chain and insert its new tile with another parameter value, make a parameter from
//! the inspector, edit a parameter schema in the pack view with the live form preview,
//! undo a pack edit, save the pack, sign it, and open it again from disk.

mod common;
mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use chainsmith::workflow::{ExportMode, Workflow};
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use ui_common::{Script, drag, harness, type_into};

fn start(files: Vec<PathBuf>, dialogs: Script) -> Harness<'static, App> {
    let app = App::new(StartOptions { files, dialogs: Box::new(dialogs), recovery_file: None, packs: bundled() }, None);
    harness(app)
}

/// start → fetch → append → finish; fetch and append are the nodes to extract.
fn workflow(dir: &Path) -> PathBuf {
    let v = json!({
        "id": "feeds", "name": "Feeds", "version": "1.0.0",
        "nodes": [
            {"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
            {"id": "fetch", "typeId": "vendor.chainsmith.http-request", "name": "Fetch feed", "position": {"x": 320, "y": 0},
             "config": {"url": "https://a.test/feed", "retries": 3}, "inputs": {}},
            {"id": "append", "typeId": "vendor.chainsmith.sheet-append", "name": "Append rows", "position": {"x": 640, "y": 0},
             "config": {"sheet": "Log"}, "inputs": {}},
            {"id": "finish", "typeId": "core.end", "name": "Finish", "position": {"x": 1280, "y": 0}, "config": {}, "inputs": {}}
        ],
        "edges": [
            {"id": "e1", "sourceNodeId": "start", "targetNodeId": "fetch"},
            {"id": "e2", "sourceNodeId": "fetch", "targetNodeId": "append"},
            {"id": "e3", "sourceNodeId": "append", "targetNodeId": "finish"}
        ],
        "triggers": [], "variables": [], "metadata": {}, "settings": {}
    });
    let p = dir.join("feeds.json");
    Workflow::from_json(v).unwrap().save(&p, ExportMode::Faithful).unwrap();
    p
}

fn commit(h: &mut Harness<'_, App>) {
    h.key_press(Key::Enter);
    h.run();
}

fn button<'a>(h: &'a Harness<'_, App>, label: &'a str) -> egui_kittest::Node<'a> {
    h.get(By::new().label(label).role(Role::Button))
}

/// Box-select fetch and append with a Shift-drag on empty canvas.
fn select_fetch_and_append(h: &mut Harness<'_, App>) {
    let a = h.state().canvas_to_screen(pos2(280.0, -60.0));
    let b = h.state().canvas_to_screen(pos2(1200.0, 200.0));
    drag(h, a, b, Modifiers::SHIFT);
    assert_eq!(h.state().doc().selection.node_ids(), ["append", "fetch"]);
}

/// Click the fetch card, so the inspector shows it.
fn select_fetch(h: &mut Harness<'_, App>) {
    let card = h.get(By::new().label_contains("(fetch)").role(Role::Button)).rect().center();
    let card = h.state().canvas_to_screen(card);
    h.hover_at(card);
    h.run();
    for pressed in [true, false] {
        let e = egui::Event::PointerButton {
            pos: card,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        };
        h.event(e);
    }
    h.run();
    assert_eq!(h.state().doc().selection.node_ids(), ["fetch"]);
}

/// The chain `chain_id` in whichever loaded pack holds it.
fn chain_in_packs(h: &Harness<'_, App>, chain_id: &str) -> Option<Value> {
    h.state().packs().iter().find_map(|p| p.chain(chain_id)).map(|c| c.raw().clone())
}

/// Extract fetch and append as `vendor.test.fetch-log`, promoting fetch's url.
fn extract_with_url(h: &mut Harness<'_, App>) {
    select_fetch_and_append(h);
    button(h, "Extract as chain…").click();
    h.run();
    assert!(h.query_by_label("Extract as chain").is_some(), "the dialog opens");
    type_into(h, "chainId", "vendor.test.fetch-log");
    type_into(h, "label", "Fetch and log");
    h.get(By::new().label("Fetch feed › config/url").role(Role::CheckBox)).click();
    h.run();
}

fn canvas_point(h: &Harness<'_, App>, x: f32, y: f32) -> Pos2 {
    h.state().canvas_to_screen(pos2(x, y))
}

#[test]
fn extracted_chain_becomes_a_tile_that_inserts_with_another_parameter_value() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![workflow(dir.path())], Script::default());
    extract_with_url(&mut h);

    // The preview: the boundary edges, the tile to be, and its form with the promoted value.
    assert!(h.query_by_label_contains("Start ➡ Fetch feed").is_some(), "incoming boundary edge listed");
    assert!(h.query_by_label_contains("Append rows ➡ Finish").is_some(), "outgoing boundary edge listed");
    assert!(h.query_by_label("vendor.test.fetch-log").is_some(), "the tile preview shows the chainId");
    assert!(h.query_by_label("This chain takes no parameters.").is_none(), "the form has the url field");
    assert!(chain_in_packs(&h, "vendor.test.fetch-log").is_none(), "nothing is written before Extract");

    button(&h, "Extract").click();
    h.run();
    assert!(h.query_by_label("Extract as chain").is_none(), "{:?}", h.state().last_error());
    let chain = chain_in_packs(&h, "vendor.test.fetch-log").expect("the new pack is in the palette");
    assert_eq!(chain["dag"]["nodes"][0]["config"]["url"], "{{params.url}}");
    assert_eq!(chain["dag"]["nodes"][0]["config"]["retries"], 3, "unticked values stay as they were");
    assert_eq!(chain["parameters"]["properties"]["url"], json!({"type": "string", "default": "https://a.test/feed"}));
    assert!(h.query_by_label("unsaved").is_some(), "the palette marks the pack unsaved");

    // Quitting with the pack unsaved asks first; Cancel keeps the editor open.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    h.run();
    assert!(h.query_by_label("Edited packs are not saved").is_some());
    assert!(h.query_by_label("vendor.my.chains 1.0.0").is_some(), "the question names the pack");
    button(&h, "Cancel").click();
    h.run();
    assert!(!h.state().quit_requested() && h.query_by_label("Edited packs are not saved").is_none());
    assert!(h.query_by_label("Pack view").is_some(), "Cancel opens the pack view to save it");
    h.get(By::new().label("Close window").role(Role::Button)).click();
    h.run();

    // Drag the new tile onto empty canvas and insert it with another url.
    let tile = h.get_by_label("Fetch and log").rect().center();
    let to = canvas_point(&h, 300.0, 500.0);
    drag(&mut h, tile, to, Modifiers::NONE);
    assert!(h.state().form().is_some(), "dropping the new tile opens its form");
    let before = h.state().doc().workflow().node_count();
    type_into(&mut h, "Url", "https://b.test/other");
    button(&h, "Insert").click();
    h.run();
    assert!(h.state().form().is_none(), "{:?}", h.state().last_error());
    let wf = h.state().doc().workflow();
    assert_eq!(wf.node_count(), before + 2);
    let inst = wf.instances().into_iter().find(|i| i.chain_id == "vendor.test.fetch-log").expect("an instance");
    let fetch = wf.graph[wf.node(&inst.node_ids[0]).unwrap()].object();
    assert_eq!(fetch["typeId"], "vendor.chainsmith.http-request");
    assert_eq!(fetch["config"], json!({"url": "https://b.test/other", "retries": 3}));

    // The answer "quit without saving them" lets the quit go on (to the workflow's own question).
    h.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    h.run();
    button(&h, "Quit without saving them").click();
    h.run();
    assert!(h.query_by_label("Save changes?").is_some(), "the inserted chain is unsaved workflow work");
    button(&h, "Don't save").click();
    h.run();
    assert!(h.state().quit_requested());
}

#[test]
fn make_parameter_from_the_inspector_starts_a_draft_then_adds_to_it_and_undoes() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![workflow(dir.path())], Script::default());
    select_fetch(&mut h);
    // The config's values are leaves of its JSON tab (the form tab shows schema fields only).
    h.get(By::new().label("JSON").role(Role::Button)).click();
    h.run();

    // No chain is being authored: the value starts a draft chain with it ticked.
    h.get_by_label("\"https://a.test/feed\"").click_secondary();
    h.run();
    button(&h, "Make parameter…").click();
    h.run();
    assert!(h.query_by_label("Extract as chain").is_some(), "a draft chain starts");
    let ticked = h.get(By::new().label("Fetch feed › config/url").role(Role::CheckBox));
    assert_eq!(ticked.accesskit_node().toggled(), Some(egui::accesskit::Toggled::True));
    type_into(&mut h, "chainId", "vendor.test.fetch");
    button(&h, "Extract").click();
    h.run();
    let chain = chain_in_packs(&h, "vendor.test.fetch").expect("extracted");
    assert_eq!(chain["dag"]["nodes"][0]["config"]["url"], "{{params.url}}");

    // The node went into the chain being authored: its other value is promoted into it.
    h.get_by_label("3").click_secondary();
    h.run();
    button(&h, "Make parameter…").click();
    h.run();
    type_into(&mut h, "parameter name", "attempts");
    button(&h, "Add to the chain").click();
    h.run();
    let chain = chain_in_packs(&h, "vendor.test.fetch").unwrap();
    assert_eq!(chain["dag"]["nodes"][0]["config"]["retries"], "{{params.attempts}}");
    assert_eq!(chain["parameters"]["properties"]["attempts"], json!({"type": "integer", "default": 3}));

    // The promotion is a pack edit: the pack view undoes it.
    h.get_by_label("View").click();
    h.run();
    button(&h, "Pack view").click();
    h.run();
    button(&h, "Undo").click();
    h.run();
    let chain = chain_in_packs(&h, "vendor.test.fetch").unwrap();
    assert_eq!(chain["dag"]["nodes"][0]["config"]["retries"], 3);
    assert!(chain["parameters"]["properties"].get("attempts").is_none());
    button(&h, "Redo").click();
    h.run();
    let chain = chain_in_packs(&h, "vendor.test.fetch").unwrap();
    assert_eq!(chain["dag"]["nodes"][0]["config"]["retries"], "{{params.attempts}}");
}

#[test]
fn make_parameter_from_a_config_form_field_label() {
    let dir = tempfile::tempdir().unwrap();
    let mut v: Value = serde_json::from_slice(&std::fs::read(workflow(dir.path())).unwrap()).unwrap();
    // A config its type's schema accepts: the inspector shows it as that schema's form.
    v["nodes"][1]["config"] = json!({"method": "GET", "url": "https://a.test/feed"});
    let file = dir.path().join("typed.json");
    Workflow::from_json(v).unwrap().save(&file, ExportMode::Faithful).unwrap();
    let mut h = start(vec![file], Script::default());
    select_fetch(&mut h);
    assert!(h.query_by_label("Apply config").is_some(), "the config is shown as a form");
    h.get(By::new().label("Url *").role(Role::Label)).click_secondary();
    h.run();
    button(&h, "Make parameter…").click();
    h.run();
    let ticked = h.get(By::new().label("Fetch feed › config/url").role(Role::CheckBox));
    assert_eq!(ticked.accesskit_node().toggled(), Some(egui::accesskit::Toggled::True));
}

#[test]
fn make_parameter_is_in_the_node_context_menu_and_lists_the_node_values() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![workflow(dir.path())], Script::default());
    let card = h.get(By::new().label_contains("(fetch)").role(Role::Button)).rect().center();
    let card = h.state().canvas_to_screen(card);
    h.hover_at(card);
    h.run_steps(2);
    for pressed in [true, false] {
        let button = egui::PointerButton::Secondary;
        h.event(egui::Event::PointerButton { pos: card, button, pressed, modifiers: Modifiers::NONE });
    }
    h.run();
    assert_eq!(h.state().doc().selection.node_ids(), ["fetch"], "the right-click selects the node");
    h.get_by_label_contains("Make parameter…").click();
    h.run();
    assert!(h.query_by_label("Extract as chain").is_some(), "a draft chain for the node");
    for value in ["Fetch feed › config/url", "Fetch feed › config/retries"] {
        let row = h.get(By::new().label(value).role(Role::CheckBox));
        assert_eq!(row.accesskit_node().toggled(), Some(egui::accesskit::Toggled::False), "{value} to tick");
    }
    assert!(h.query(By::new().label("Append rows › config/sheet").role(Role::CheckBox)).is_none());
}

#[test]
fn pack_view_schema_edits_update_the_preview_undo_save_sign_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::default();
    let mut h = start(vec![workflow(dir.path())], script.clone());
    extract_with_url(&mut h);
    h.get(By::new().label("Fetch feed › config/retries").role(Role::CheckBox)).click();
    h.run();
    button(&h, "Extract").click();
    h.run();
    h.get_by_label("View").click();
    h.run();
    button(&h, "Pack view").click();
    h.run();
    assert!(h.query_by_label("Parameter form, as users will see it").is_some());

    // A minimum above the default: the live preview flags the default at once.
    h.get(By::new().label("retries").role(Role::Button)).click();
    h.run();
    assert!(h.query_by_label_contains("less than the minimum").is_none());
    type_into(&mut h, "minimum", "5");
    commit(&mut h);
    let chain = chain_in_packs(&h, "vendor.test.fetch-log").unwrap();
    assert_eq!(chain["parameters"]["properties"]["retries"]["minimum"], 5);
    // Under the preview's field, in its summary, and in the pack's problems.
    assert_eq!(h.query_all_by_label_contains("less than the minimum of 5").count(), 3, "the preview flags the default");
    assert_eq!(
        h.query_all_by_label("chain_parameter_invalid").count(),
        2,
        "the preview's summary and the problems list have it"
    );
    let place = "chain Fetch and log › parameters/properties/retries/default";
    assert!(h.query_by_label(place).is_some(), "where, by the chain's label (the pointer in its tooltip)");

    // Ctrl+Z with the pointer over the pack view undoes the pack edit, and the preview follows.
    let over = h.get_by_label("Parameter form, as users will see it").rect().center();
    h.hover_at(over);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    let chain = chain_in_packs(&h, "vendor.test.fetch-log").unwrap();
    assert!(chain["parameters"]["properties"]["retries"].get("minimum").is_none());
    assert!(h.query_by_label_contains("less than the minimum").is_none());

    // A title shows in the preview as the field's label.
    type_into(&mut h, "title", "Attempts");
    commit(&mut h);
    assert!(h.query_by_label("Attempts").is_some(), "the preview labels the field with its title");

    // Dependencies from the loaded node packs that provide the chain's typeIds.
    button(&h, "Compute from catalog").click();
    h.run();
    let nodes = h.state().packs().iter().find(|p| p.name() == "vendor.chainsmith.nodes").unwrap().version().to_owned();
    let range = format!("^{nodes}");
    let pack = h.state().packs().iter().find(|p| p.chain("vendor.test.fetch-log").is_some()).unwrap();
    assert_eq!(pack.manifest["dependencies"], json!({"vendor.chainsmith.nodes": range}));
    assert!(h.query_by_label(&format!("vendor.chainsmith.nodes {range}")).is_some(), "the view lists it");

    // Save (the file dialog answers), then sign with a key picked through the same dialogs.
    let pack_dir = dir.path().join("fetch-pack");
    std::fs::create_dir_all(&pack_dir).unwrap();
    let file = pack_dir.join("pack.json");
    script.will_save(&file);
    button(&h, "Save pack").click();
    h.run();
    assert!(file.is_file(), "{:?}", h.state().last_error());
    assert!(h.query_by_label("unsaved").is_none(), "saved: no longer marked");
    let keys = chainsmith::registry::keys::generate(&dir.path().join("signer")).unwrap();
    script.will_open(&keys.private_key);
    button(&h, "Sign…").click();
    h.run();
    assert!(pack_dir.join("keys/pack.json.sig").is_file(), "{:?}", h.state().last_error());
    let trusted = dir.path().join("trusted");
    std::fs::create_dir_all(&trusted).unwrap();
    std::fs::copy(&keys.public_key, trusted.join("signer.pem")).unwrap();
    let out = common::cli::bin()
        .args(["validate", file.to_str().unwrap(), "--trusted-keys", trusted.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let saved = chain_in_packs(&h, "vendor.test.fetch-log").unwrap();

    // Opened again from disk by a new editor: the same chain, editable in the pack view.
    drop(h);
    let mut h = start(vec![file.clone()], Script::default());
    assert_eq!(chain_in_packs(&h, "vendor.test.fetch-log"), Some(saved));
    assert!(h.query_by_label("Fetch and log").is_some(), "its tile is in the palette");
    h.get_by_label("View").click();
    h.run();
    button(&h, "Pack view").click();
    h.run();
    h.get(By::new().label("Pack").role(Role::ComboBox)).click();
    h.run();
    h.get_by_label_contains("vendor.my.chains 1.0.0 — edit").click();
    h.run();
    assert!(h.query_by_label("Fetch and log · vendor.test.fetch-log").is_some(), "the chain list shows it");
    assert!(h.query_by_label("Attempts").is_some(), "and its form preview");
}

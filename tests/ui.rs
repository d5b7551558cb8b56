//! The editor driven without a display: real pointer and keyboard events on the real app
//! (egui_kittest), with file dialogs answered by a script instead of rfd.
//!
//! Canvas widgets live inside an `egui::Scene`, whose accessibility rects are in canvas
//! coordinates; the app maps them to the screen with `canvas_to_screen`.

mod common;
mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use chainsmith::workflow::ExportMode;
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use ui_common::{Script, click_still, drag, harness, text_field, two_nodes, type_into, write_workflow};

fn start(files: Vec<PathBuf>, dialogs: Script, recovery: Option<PathBuf>) -> Harness<'static, App> {
    let app =
        App::new(StartOptions { files, dialogs: Box::new(dialogs), recovery_file: recovery, packs: bundled() }, None);
    harness(app)
}

/// Where a canvas widget (node card, port) is on screen.
fn on_screen(h: &Harness<'_, App>, label_contains: &str) -> Pos2 {
    let rect = h.get(By::new().label_contains(label_contains).role(Role::Button)).rect();
    h.state().canvas_to_screen(rect.center())
}

fn json_of(h: &Harness<'_, App>) -> Value {
    h.state().doc().workflow().to_json(ExportMode::Faithful)
}

/// Drag the "Triage queue" tile to a point on the canvas.
fn drop_triage(h: &mut Harness<'_, App>, to: Pos2) {
    let from = h.get_by_label("Triage queue").rect().center();
    drag(h, from, to, Modifiers::NONE);
    assert!(h.state().form().is_some(), "dropping a tile opens the parameter form");
}

fn insert_button<'a>(h: &'a Harness<'_, App>) -> egui_kittest::Node<'a> {
    h.get(By::new().label("Insert").role(Role::Button))
}

/// Drop the tile on empty canvas, fill the form and insert; returns the drop point.
fn insert_triage(h: &mut Harness<'_, App>, queue: &str) -> (f64, f64) {
    let target = h.state().canvas_rect().center();
    drop_triage(h, target);
    let at = h.state().form().and_then(|f| f.mode.insert_point()).expect("an insert form");
    type_into(h, "Queue *", queue);
    insert_button(h).click();
    h.run();
    assert!(h.state().form().is_none(), "{:?}", h.state().last_error());
    // Frame everything, so the new nodes are on screen for the pointer.
    h.key_press(Key::F);
    h.run();
    at
}

#[test]
fn drag_tile_fill_form_with_live_errors_and_insert_matches_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::default();
    let mut h = start(Vec::new(), script.clone(), None);
    let before = json_of(&h);
    let target = h.state().canvas_rect().center();
    drop_triage(&mut h, target);

    // Nothing is reported before the author types; Insert is off because queueName is required.
    assert!(h.query_by_label_contains("does not match").is_none());
    assert!(insert_button(&h).accesskit_node().is_disabled());

    type_into(&mut h, "Queue *", "Bad Queue");
    assert_eq!(h.query_all_by_label_contains("does not match").count(), 2, "under the field and in the summary");
    assert!(h.query(By::new().label_contains("chain_parameter_invalid")).is_some(), "summary with the code");
    assert!(h.query(By::new().label_contains("/queueName")).is_some(), "summary lists the path");
    assert!(insert_button(&h).accesskit_node().is_disabled(), "Insert stays disabled while invalid");
    assert_eq!(json_of(&h), before, "nothing is inserted while the form is open");

    type_into(&mut h, "Queue *", "billing");
    assert!(h.query_by_label_contains("does not match").is_none());
    assert!(!insert_button(&h).accesskit_node().is_disabled());
    let at = h.state().form().and_then(|f| f.mode.insert_point()).unwrap();
    insert_button(&h).click();
    h.run();

    let wf = h.state().doc().workflow();
    let inst = wf.instances().into_iter().next().expect("an instance is recorded");
    assert_eq!(wf.node_count(), 4);
    let fetch = format!("support_triage_{}_fetch", inst.expansion_id);
    assert!(wf.contains_node(&fetch), "rewritten ids");
    let card_label = format!("({fetch})");
    let card = By::new().label_contains(&card_label).role(Role::Button);
    assert!(h.query(card).is_some(), "the new node is drawn on the canvas");

    // Export through the menu's dialog and compare with `chainsmith inline`.
    let exported = dir.path().join("gui.json");
    script.will_save(&exported);
    h.get_by_label("File").click();
    h.run();
    h.get_by_label_contains("as the spec writes it").click();
    h.run();
    let gui: Value = serde_json::from_slice(&std::fs::read(&exported).unwrap()).unwrap();
    let cli_out = dir.path().join("cli.json");
    let pack = chainsmith::pack::bundled_dir().join("vendor.chainsmith.support-desk");
    // The editor's catalog is the loaded node packs: the bundled one.
    let catalog = chainsmith::pack::bundled_dir().join("vendor.chainsmith.nodes");
    let status = common::cli::bin()
        .args(["inline", "--new", "Untitled workflow"])
        .arg(&pack)
        .args(["--chain", "support.triage", "--set", "queueName=billing", "--expansion-id", &inst.expansion_id])
        .arg("--catalog")
        .arg(&catalog)
        .arg("--at")
        .arg(format!("{},{}", at.0, at.1))
        .arg("-o")
        .arg(&cli_out)
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let cli: Value = serde_json::from_slice(&std::fs::read(&cli_out).unwrap()).unwrap();
    assert_eq!(gui, cli, "the editor and `chainsmith inline` produce the same workflow");
}

#[test]
fn dropping_on_an_edge_splices_between_its_ends() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_workflow(dir.path(), two_nodes());
    let mut h = start(vec![file], Script::default(), None);
    // The edge runs from start's output port (220, 65) to finish's input port (600, 65).
    let on_edge = h.state().canvas_to_screen(pos2(410.0, 65.0));
    drop_triage(&mut h, on_edge);
    assert!(h.query(By::new().label_contains("spliced between start ➡ finish")).is_some());
    type_into(&mut h, "Queue *", "billing");
    insert_button(&h).click();
    h.run();
    let out = json_of(&h);
    let edges = out["edges"].as_array().unwrap();
    assert!(!edges.iter().any(|e| e["id"] == "go"), "the dropped-on edge is replaced");
    let prefix = h.state().doc().workflow().instances()[0].key();
    assert!(edges.iter().any(|e| e["sourceNodeId"] == "start" && e["targetNodeId"] == format!("{prefix}fetch")));
    let into_finish: Vec<&Value> = edges.iter().filter(|e| e["targetNodeId"] == "finish").collect();
    assert_eq!(into_finish.len(), 2, "both exit nodes lead to finish: {into_finish:?}");
}

#[test]
fn undo_and_redo_restore_the_exact_model() {
    let mut h = start(Vec::new(), Script::default(), None);
    let empty = json_of(&h);
    insert_triage(&mut h, "billing");
    let inserted = json_of(&h);
    // Move a node: one drag is one undo step.
    let inst = h.state().doc().workflow().instances()[0].clone();
    let from = on_screen(&h, &format!("({})", inst.node_ids[0]));
    drag(&mut h, from, from + egui::vec2(0.0, 120.0), Modifiers::NONE);
    let moved = json_of(&h);
    assert_ne!(moved, inserted);

    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(json_of(&h), inserted, "undo the move");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(json_of(&h), empty, "undo the insert");
    assert!(!h.state().doc().is_dirty());
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run();
    assert_eq!(json_of(&h), inserted, "redo the insert");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    h.run();
    assert_eq!(json_of(&h), moved, "redo the move");
}

#[test]
fn double_click_reparameterises_in_place() {
    let mut h = start(Vec::new(), Script::default(), None);
    insert_triage(&mut h, "billing");
    let inst = h.state().doc().workflow().instances()[0].clone();
    let edges_before: Vec<Value> = json_of(&h)["edges"].as_array().unwrap().clone();
    let p = on_screen(&h, &format!("({})", inst.node_ids[1]));
    click_still(&mut h, p, 2);
    assert!(h.state().form().is_some(), "double-click re-opens the form");
    assert_eq!(text_field(&h, "Queue *").value().as_deref(), Some("billing"), "with the current values");
    type_into(&mut h, "Queue *", "refunds");
    h.get(By::new().label("Apply").role(Role::Button)).click();
    h.run();
    assert!(h.state().form().is_none(), "{:?}", h.state().last_error());
    let after = h.state().doc().workflow().instances()[0].clone();
    assert_eq!(after.expansion_id, inst.expansion_id, "same expansionId");
    assert_eq!(after.params["queueName"], "refunds");
    let out = json_of(&h);
    assert_eq!(out["edges"].as_array().unwrap(), &edges_before, "every edge kept");
    let url = out["nodes"][0]["config"]["url"].as_str().unwrap();
    assert!(url.contains("/queues/refunds?"), "{url}");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().doc().workflow().instances()[0].params["queueName"], "billing");
}

#[test]
fn delete_removes_a_node_and_its_edges_and_remove_instance_is_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_workflow(dir.path(), two_nodes());
    let mut h = start(vec![file], Script::default(), None);
    let p = on_screen(&h, "(start)");
    click_still(&mut h, p, 1);
    assert_eq!(h.state().doc().selection.node_ids(), ["start"]);
    h.key_press(Key::Delete);
    h.run();
    let wf = h.state().doc().workflow();
    assert!(!wf.contains_node("start"));
    assert_eq!(wf.graph.edge_count(), 0, "its edge went with it");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().doc().workflow().graph.edge_count(), 1);

    let before = json_of(&h);
    insert_triage(&mut h, "billing");
    h.get_by_label("Remove instance").click();
    h.run();
    assert_eq!(json_of(&h)["nodes"], before["nodes"]);
    assert!(h.state().doc().workflow().instances().is_empty());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().doc().workflow().node_count(), 6, "one undo brings the whole instance back");
}

#[test]
fn shift_drag_box_selects() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = two_nodes();
    doc["nodes"].as_array_mut().unwrap().push(
        json!({"id": "far", "typeId": "core.noop", "name": "Far", "position": {"x": 0, "y": 400}, "config": {}, "inputs": {}}),
    );
    let file = write_workflow(dir.path(), doc);
    let mut h = start(vec![file], Script::default(), None);
    let a = h.state().canvas_to_screen(pos2(-40.0, -60.0));
    let b = h.state().canvas_to_screen(pos2(900.0, 200.0));
    drag(&mut h, a, b, Modifiers::SHIFT);
    assert_eq!(h.state().doc().selection.node_ids(), ["finish", "start"], "the box catches the two top nodes only");
}

#[test]
fn save_and_load_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::default();
    let mut h = start(Vec::new(), script.clone(), None);
    insert_triage(&mut h, "billing");
    let saved = dir.path().join("saved.json");
    script.will_save(&saved);
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    h.run();
    assert!(!h.state().doc().is_dirty());
    assert_eq!(h.state().doc().path.as_deref(), Some(saved.as_path()));
    let model = json_of(&h);

    h.key_press_modifiers(Modifiers::COMMAND, Key::N);
    h.run();
    assert_eq!(h.state().doc().workflow().node_count(), 0);
    script.will_open(&saved);
    h.key_press_modifiers(Modifiers::COMMAND, Key::O);
    h.run();
    assert_eq!(json_of(&h), model, "what was saved loads back identically");
    assert_eq!(h.state().doc().workflow().instances().len(), 1, "provenance survives");
}

#[test]
fn recovery_file_restores_unsaved_edits() {
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery.json");
    let model = {
        let mut h = start(Vec::new(), Script::default(), Some(recovery.clone()));
        insert_triage(&mut h, "billing");
        h.run();
        // Written on the autosave thread: wait for it, as a crash a moment later would not.
        h.state_mut().settle_autosave(std::time::Duration::from_secs(30));
        assert!(recovery.is_file(), "unsaved work is autosaved");
        json_of(&h)
        // Dropped without saving or quitting: as after a crash.
    };
    let mut h = start(Vec::new(), Script::default(), Some(recovery.clone()));
    assert!(h.state().recovery_offered());
    h.get(By::new().label("Restore").role(Role::Button)).click();
    h.run();
    assert_eq!(json_of(&h), model);
    assert!(h.state().doc().is_dirty(), "restored work still needs saving");
}

#[test]
fn connecting_ports_adds_an_edge_and_a_loopback_is_kept_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = two_nodes();
    doc["edges"] = json!([]);
    let file = write_workflow(dir.path(), doc);
    let mut h = start(vec![file], Script::default(), None);
    let out_port = on_screen(&h, "Output output of start");
    let in_port = h.state().canvas_to_screen(pos2(600.0, 65.0));
    drag(&mut h, out_port, in_port, Modifiers::NONE);
    let edges = json_of(&h)["edges"].clone();
    assert_eq!(edges.as_array().unwrap().len(), 1, "{edges}");
    assert_eq!(edges[0]["sourceNodeId"], "start");
    assert_eq!(edges[0]["targetNodeId"], "finish");
    // A wire back into the same node (a different port) is a loopback: kept, with a warning.
    let own_input = h.state().canvas_to_screen(pos2(0.0, 65.0));
    let out_port = on_screen(&h, "Output output of start");
    drag(&mut h, out_port, own_input, Modifiers::NONE);
    let edges = json_of(&h)["edges"].clone();
    assert_eq!(edges.as_array().unwrap().len(), 2, "{edges}");
    assert_eq!((edges[1]["sourceNodeId"].as_str(), edges[1]["targetNodeId"].as_str()), (Some("start"), Some("start")));
    assert!(h.query_by_label_contains("closes a loop").is_some(), "the loopback is reported in the status bar");
}

#[test]
fn inspector_edits_config_as_json_with_parse_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_workflow(dir.path(), two_nodes());
    let mut h = start(vec![file], Script::default(), None);
    let p = on_screen(&h, "(start)");
    click_still(&mut h, p, 1);
    // The first `{}` in the inspector is the node's config.
    h.get_all_by_label("{}").next().expect("config shown").click();
    h.run();
    type_into(&mut h, "Editing config", "{\"retries\": ");
    assert!(h.query_by_label_contains("not valid JSON").is_some(), "the parse error is shown");
    assert!(h.get(By::new().label("Apply").role(Role::Button)).accesskit_node().is_disabled());
    type_into(&mut h, "Editing config", "{\"retries\": 3}");
    h.get(By::new().label("Apply").role(Role::Button)).click();
    h.run();
    assert_eq!(json_of(&h)["nodes"][0]["config"], json!({"retries": 3}));
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(json_of(&h)["nodes"][0]["config"], json!({}));
}

#[test]
fn copy_and_paste_nodes_through_the_clipboard() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_workflow(dir.path(), two_nodes());
    let mut h = start(vec![file], Script::default(), None);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    h.event(egui::Event::Copy);
    h.step();
    let copied = h
        .output()
        .platform_output
        .commands
        .iter()
        .find_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
        .expect("the selection is copied as text");
    h.event(egui::Event::Paste(copied));
    h.run();
    let wf = h.state().doc().workflow();
    assert_eq!(wf.node_count(), 4);
    assert!(wf.contains_node("start-2") && wf.contains_node("finish-2"));
    assert_eq!(wf.graph.edge_count(), 2, "the edge between copied nodes is pasted too");
    assert_eq!(h.state().doc().selection.node_ids(), ["finish-2", "start-2"], "the copies are selected");
}

#[test]
fn refusals_show_their_code_and_nothing_is_inserted() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = two_nodes();
    doc["settings"] = json!({"compensation": {"triggers": ["node-failure"], "orderingModel": "parallel"}});
    let file = write_workflow(dir.path(), doc);
    let mut h = start(vec![file], Script::default(), None);
    let before = json_of(&h);
    let from = h.get_by_label("Book trip").rect().center();
    let to = h.state().canvas_rect().center();
    drag(&mut h, from, to, Modifiers::NONE);
    assert!(h.state().form().is_some());
    let shown = h.query_all_by_label("chain_compensation_policy_conflict").count();
    assert!(shown >= 1, "the refusal shows its code");
    assert!(insert_button(&h).accesskit_node().is_disabled());
    h.key_press(Key::Escape);
    h.run();
    assert!(h.state().form().is_none());
    assert_eq!(json_of(&h), before, "nothing was inserted");
}

#[test]
fn quitting_with_unsaved_changes_asks_first() {
    let mut h = start(Vec::new(), Script::default(), None);
    insert_triage(&mut h, "billing");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    h.run();
    assert!(h.query_by_label("Save changes?").is_some());
    h.get(By::new().label("Cancel").role(Role::Button)).click();
    h.run();
    assert!(h.query_by_label("Save changes?").is_none());
    assert!(h.state().doc().is_dirty(), "the work is still there");
}

/// A file dropped from the desktop, as the windowing integration reports it.
#[derive(Debug)]
struct Dropped(PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn dropping_files_on_the_window_opens_packs_and_workflows() {
    let dir = tempfile::tempdir().unwrap();
    let wf = write_workflow(dir.path(), two_nodes());
    let pack = dir.path().join("pack.json");
    let manifest = json!({"name": "vendor.test.dropped", "version": "0.1.0", "kind": "workflow-chain",
        "chains": [{"chainId": "dropped.one", "version": "1.0.0", "label": "Dropped tile", "description": "d",
                    "parameters": {"type": "object", "properties": {}},
                    "dag": {"nodes": [{"id": "a", "typeId": "core.identity"}], "edges": []}}]});
    std::fs::write(&pack, manifest.to_string()).unwrap();
    let mut h = start(Vec::new(), Script::default(), None);
    for p in [&pack, &wf] {
        h.input_mut().dropped_files.push(std::sync::Arc::new(Dropped(p.clone())));
    }
    h.run();
    assert!(h.query_by_label("vendor.test.dropped").is_some(), "the pack is in the palette");
    assert!(h.query_by_label("Dropped tile").is_some(), "with its tile");
    assert_eq!(h.state().doc().workflow().node_count(), 2, "the workflow is open");
    assert_eq!(h.state().doc().path.as_deref(), Some(wf.as_path()));
}

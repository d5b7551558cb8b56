//! Input helpers and fixtures shared by the headless editor tests.

// Each test binary compiles this module and uses a part of it.
#![allow(dead_code, unused_imports)]

mod dialogs;
pub use dialogs::{Asked, Script};

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use chainsmith::workflow::{ExportMode, Workflow};
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Press at `from`, move in ten steps (so egui sees a drag, not a click), release at `to`,
/// holding `modifiers` throughout.
pub fn drag(h: &mut Harness<'_, App>, from: Pos2, to: Pos2, modifiers: Modifiers) {
    h.hover_at(from);
    h.step();
    if modifiers != Modifiers::NONE {
        h.event(egui::Event::ModifiersChanged(modifiers));
    }
    h.event(egui::Event::PointerButton { pos: from, button: egui::PointerButton::Primary, pressed: true, modifiers });
    h.step();
    for i in 1..=10 {
        h.hover_at(from.lerp(to, i as f32 / 10.0));
        h.step();
    }
    h.event(egui::Event::PointerButton { pos: to, button: egui::PointerButton::Primary, pressed: false, modifiers });
    h.step();
    if modifiers != Modifiers::NONE {
        h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
    }
    h.run();
}

/// Run `app` headlessly in the default 1440x900 window until it settles.
pub fn harness(app: App) -> Harness<'static, App> {
    sized(app, 1440.0, 900.0)
}

/// Run `app` headlessly in a `w`×`h` window until it settles.
pub fn sized(app: App, w: f32, h: f32) -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size([w, h])
        .with_step_dt(1.0 / 60.0)
        .with_max_steps(64)
        .build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

/// A real press and release at `at` (egui's hit test decides what is clicked; the accessible
/// click of `Node::click` would reach the widget whatever covers it).
pub fn pointer_click(h: &mut Harness<'_, App>, at: Pos2) {
    h.hover_at(at);
    h.step();
    let button = egui::PointerButton::Primary;
    h.event(egui::Event::PointerButton { pos: at, button, pressed: true, modifiers: Modifiers::NONE });
    h.step();
    h.event(egui::Event::PointerButton { pos: at, button, pressed: false, modifiers: Modifiers::NONE });
    h.run();
}

/// `wf` with a condition without `left` on its first edge: one warning for the lint.
pub fn with_a_warning(mut wf: Value) -> Value {
    wf["edges"][0]["condition"] = json!({"type": "truthy"});
    wf
}

/// A chain pack `vendor.acme.<name>` in `dir/<name>` holding `chains` (it depends on the
/// bundled node pack).
pub fn chain_pack(dir: &Path, name: &str, chains: Vec<Value>) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let m = json!({"name": format!("vendor.acme.{name}"), "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "dependencies": {"vendor.chainsmith.nodes": "^1.0.0"}, "chains": chains});
    std::fs::write(folder.join("pack.json"), m.to_string()).unwrap();
    folder
}

/// Rest the pointer on `at` for 30 frames (the canvas picks which cards take input from
/// where the pointer is, and earlier clicks age so these do not join them), then click
/// there `clicks` times within one frame (2 is a double-click).
pub fn click_still(h: &mut Harness<'_, App>, at: Pos2, clicks: usize) {
    h.hover_at(at);
    h.run_steps(30);
    for _ in 0..clicks {
        for pressed in [true, false] {
            let modifiers = Modifiers::NONE;
            h.event(egui::Event::PointerButton { pos: at, button: egui::PointerButton::Primary, pressed, modifiers });
        }
    }
    h.run();
}

/// Click the button labelled exactly `label`.
pub fn click_button(h: &mut Harness<'_, App>, label: &str) {
    h.get(By::new().label(label).role(Role::Button)).click();
    h.run();
}

/// Open the menu bar's `menu` and click its item `item` (an item's label ends with its
/// shortcut, if it has one).
pub fn menu_item(h: &mut Harness<'_, App>, menu: &str, item: &str) {
    h.get(By::new().label(menu).role(Role::Button)).click();
    h.run();
    h.get(By::new().label_contains(item).role(Role::Button)).click();
    h.run();
}

/// Hover `at` and keep still until egui's tooltip delay has passed.
pub fn hover_still(h: &mut Harness<'_, App>, at: Pos2) {
    h.hover_at(at);
    for _ in 0..60 {
        h.step();
    }
    h.run();
}

/// Every label or value holding `part`, a label and the text inside it once.
pub fn labels_containing(h: &Harness<'_, App>, part: &str) -> Vec<String> {
    let part = part.to_owned();
    h.query_all(By::new().predicate(move |n| {
        n.label().is_some_and(|l| l.contains(&part)) || n.value().is_some_and(|v| v.contains(&part))
    }))
    .map(|n| n.accesskit_node().label().or_else(|| n.value()).unwrap_or_default())
    .fold(Vec::new(), |mut all: Vec<String>, l| {
        if all.last() != Some(&l) {
            all.push(l);
        }
        all
    })
}

/// The first label whose text starts with `prefix`.
pub fn label_starting(h: &Harness<'_, App>, prefix: &str) -> Option<String> {
    let prefix = prefix.to_owned();
    h.query_all(By::new().role(Role::Label).predicate(move |n| n.value().is_some_and(|v| v.starts_with(&prefix))))
        .next()
        .and_then(|n| n.value())
}

/// The editable text field named `label` (single-line, multi-line or search).
pub fn text_field<'a>(h: &'a Harness<'_, App>, label: &'a str) -> egui_kittest::Node<'a> {
    let editable = |n: &egui_kittest::kittest::AccessKitNode<'_>| {
        matches!(n.role(), Role::TextInput | Role::MultilineTextInput | Role::SearchInput)
    };
    h.get(By::new().label(label).predicate(editable))
}

/// Replace the text of a field by typing, as a person would.
pub fn type_into(h: &mut Harness<'_, App>, label: &str, text: &str) {
    text_field(h, label).click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    text_field(h, label).type_text(text);
    h.run();
}

/// eframe's storage in memory, for tests of what the editor remembers between starts.
#[derive(Default)]
pub struct Memory(pub HashMap<String, String>);

impl eframe::Storage for Memory {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }

    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), value);
    }

    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }

    fn flush(&mut self) {}
}

/// Save `value` as `dir/parent.json` the way the editor writes workflows.
pub fn write_workflow(dir: &Path, value: Value) -> PathBuf {
    let p = dir.join("parent.json");
    Workflow::from_json(value).unwrap().save(&p, ExportMode::Faithful).unwrap();
    p
}

/// The editor with the bundled packs, opened on `value` saved as a workflow file; the
/// folder lives as long as the returned guard.
pub fn open_workflow(value: Value) -> (tempfile::TempDir, Harness<'static, App>) {
    let dir = tempfile::tempdir().unwrap();
    let p = write_workflow(dir.path(), value);
    let app = App::new(
        StartOptions { files: vec![p], dialogs: Box::new(Script::default()), recovery_file: None, packs: bundled() },
        None,
    );
    (dir, harness(app))
}

/// A `core.noop` node named after its id, at (`x`, `y`).
pub fn noop_node(id: &str, x: f64, y: f64) -> Value {
    json!({"id": id, "typeId": "core.noop", "name": id, "position": {"x": x, "y": y}, "config": {}, "inputs": {}})
}

/// A plain edge `from` → `to`.
pub fn plain_edge(id: &str, from: &str, to: &str) -> Value {
    json!({"id": id, "sourceNodeId": from, "targetNodeId": to})
}

/// A workflow of these nodes and edges and nothing else.
pub fn workflow_of(nodes: Vec<Value>, edges: Vec<Value>) -> Value {
    json!({"id": "w", "name": "Workflow", "version": "1.0.0", "nodes": nodes, "edges": edges,
           "triggers": [], "variables": [], "metadata": {}, "settings": {}})
}

/// A parent workflow of two connected nodes, `start` → `finish`, far enough apart to drop
/// a chain between them.
pub fn two_nodes() -> Value {
    json!({
        "id": "parent", "name": "Parent", "version": "1.0.0",
        "nodes": [
            {"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
            {"id": "finish", "typeId": "core.end", "name": "Finish", "position": {"x": 600, "y": 0}, "config": {}, "inputs": {}}
        ],
        "edges": [{"id": "go", "sourceNodeId": "start", "targetNodeId": "finish"}],
        "triggers": [], "variables": [], "metadata": {}, "settings": {}
    })
}

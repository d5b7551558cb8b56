//! Input helpers and fixtures shared by the headless editor tests.

// Each test binary compiles this module and uses a part of it.
#![allow(dead_code, unused_imports)]

mod no_dialogs;
pub use no_dialogs::NoDialogs;

use chainsmith::app::App;
use chainsmith::workflow::{ExportMode, Workflow};
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, Queryable};
use serde_json::{Value, json};
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
    let mut h = Harness::builder()
        .with_size([1440.0, 900.0])
        .with_step_dt(1.0 / 60.0)
        .with_max_steps(64)
        .build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
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

/// Save `value` as `dir/parent.json` the way the editor writes workflows.
pub fn write_workflow(dir: &Path, value: Value) -> PathBuf {
    let p = dir.join("parent.json");
    Workflow::from_json(value).unwrap().save(&p, ExportMode::Faithful).unwrap();
    p
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

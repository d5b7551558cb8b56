//! The command registry as the editor shows it, driven through real widgets (egui_kittest):
//! the menus, the canvas context menu and the keyboard shortcut help are generated from
//! `chainsmith::editor::commands`, and its shortcuts run its commands.

// Not every helper is used here (`drag` is for the tests that drag tiles).
#[allow(dead_code)]
mod ui_common;

use chainsmith::app::{App, FileDialogs, StartOptions};
use chainsmith::editor::commands::{self, CommandId, Menu, Os, Place};
use chainsmith::pack::bundled;
use chainsmith::workflow::{ExportMode, Workflow};
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use ui_common::harness;

/// Dialogs that are never answered (these tests open no files through them).
struct NoDialogs;

impl FileDialogs for NoDialogs {
    fn open_files(&mut self) -> Vec<PathBuf> {
        Vec::new()
    }

    fn open_folder(&mut self) -> Option<PathBuf> {
        None
    }

    fn save_file(&mut self, _title: &str, _suggested: &str) -> Option<PathBuf> {
        None
    }
}

fn start(files: Vec<PathBuf>) -> Harness<'static, App> {
    let opts = StartOptions { files, dialogs: Box::new(NoDialogs), recovery_file: None, packs: bundled() };
    harness(App::new(opts, None))
}

/// The shortcuts the harness's egui context uses: those of the OS the tests run on.
fn os() -> Os {
    if egui::os::OperatingSystem::from_target_os() == egui::os::OperatingSystem::Mac { Os::Mac } else { Os::Other }
}

fn write_workflow(dir: &Path, value: Value) -> PathBuf {
    let p = dir.join("parent.json");
    Workflow::from_json(value).unwrap().save(&p, ExportMode::Faithful).unwrap();
    p
}

fn two_nodes() -> Value {
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

/// Names of the buttons and checkboxes on screen (a button's name ends with its shortcut text).
fn items(h: &Harness<'_, App>) -> Vec<String> {
    let mut out = Vec::new();
    for role in [Role::Button, Role::CheckBox] {
        out.extend(h.query_all(By::new().role(role)).filter_map(|n| n.accesskit_node().label()));
    }
    out
}

/// The items `after` has beyond `before`, counted with repeats (the toolbar also has a
/// "Fit to view" button, so the menu's is the second one).
fn added(before: &[String], after: Vec<String>) -> Vec<String> {
    let mut left = before.to_vec();
    after
        .into_iter()
        .filter(|n| match left.iter().position(|b| b == n) {
            Some(i) => {
                left.swap_remove(i);
                false
            }
            None => true,
        })
        .collect()
}

/// How a command's menu item is named: its label, then its shortcut on this OS if it has one.
fn item_name(c: CommandId) -> String {
    let shortcut = c.shortcut_text(os());
    if shortcut.is_empty() { c.spec().label.to_owned() } else { format!("{} {shortcut}", c.spec().label) }
}

/// What a menu or context menu added to the screen, compared with what the registry says it holds.
fn assert_items_are_the_registry(opened: &[String], expected: &[CommandId], allowed_extra: &[&str], what: &str) {
    let names: HashSet<String> = expected.iter().map(|&c| item_name(c)).collect();
    for name in opened {
        assert!(
            names.contains(name) || allowed_extra.contains(&name.as_str()),
            "{what}: item {name:?} is not a registry entry with the registry's shortcut text"
        );
    }
    for name in &names {
        assert!(opened.contains(name), "{what}: registry entry {name:?} is missing");
    }
}

#[test]
fn menus_are_built_from_the_registry() {
    let mut h = start(Vec::new());
    for m in Menu::ALL {
        let before = items(&h);
        h.get(By::new().label(m.title()).role(Role::Button)).click();
        h.run();
        let opened = added(&before, items(&h));
        let expected: Vec<CommandId> = commands::menu(m).into_iter().flatten().collect();
        assert!(!expected.is_empty());
        // The File menu's one extra is the submenu of recently opened files (paths, not commands).
        assert_items_are_the_registry(&opened, &expected, &["Open recent"], m.title());
        h.key_press(Key::Escape);
        h.run();
    }
    // Edit → Paste exists, and the shortcuts that work are the ones shown.
    h.get(By::new().label("Edit").role(Role::Button)).click();
    h.run();
    assert!(h.query(By::new().label(&item_name(CommandId::Paste))).is_some());
    assert!(h.query(By::new().label(&item_name(CommandId::Redo))).is_some());
}

#[test]
fn right_click_on_empty_canvas_offers_the_registry_canvas_menu() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![write_workflow(dir.path(), two_nodes())]);
    let empty = h.state().canvas_to_screen(egui::pos2(300.0, 300.0));
    let before = items(&h);
    right_click(&mut h, empty);
    let opened = added(&before, items(&h));
    assert_items_are_the_registry(&opened, &commands::in_place(Place::CanvasMenu), &[], "canvas menu");
    h.get(By::new().label(&item_name(CommandId::SelectAll))).click();
    h.run();
    assert_eq!(h.state().selected_nodes(), ["finish", "start"]);
}

fn right_click(h: &mut Harness<'_, App>, p: Pos2) {
    h.hover_at(p);
    h.run_steps(2);
    for pressed in [true, false] {
        let button = egui::PointerButton::Secondary;
        h.event(egui::Event::PointerButton { pos: p, button, pressed, modifiers: Modifiers::NONE });
    }
    h.run();
}

#[test]
fn shortcut_help_lists_every_registry_entry_from_the_menu_f1_and_questionmark() {
    let mut h = start(Vec::new());
    let help = || By::new().label("Keyboard shortcuts").role(Role::Window);
    assert!(h.query(help()).is_none());
    for open in [Key::F1, Key::Questionmark] {
        h.key_press(open);
        h.run();
        let window = h.get(help());
        for &c in CommandId::ALL {
            assert!(window.query(By::new().label(c.spec().label)).is_some(), "{} listed", c.spec().label);
            let keys: Vec<String> = c.shortcuts(os()).map(|s| s.text(os())).collect();
            if !keys.is_empty() {
                let text = keys.join("  or  ");
                assert!(window.query_all(By::new().label(&text)).next().is_some(), "{}: {text}", c.spec().label);
            }
        }
        h.get(By::new().label("Close window").role(Role::Button)).click();
        h.run();
        assert!(h.query(help()).is_none());
    }
    h.get(By::new().label("Help").role(Role::Button)).click();
    h.run();
    h.get(By::new().label(&item_name(CommandId::ShortcutHelp))).click();
    h.run();
    assert!(h.query(help()).is_some(), "Help → Keyboard shortcuts");
}

#[test]
fn alternative_shortcuts_run_their_commands() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![write_workflow(dir.path(), two_nodes())]);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    assert_eq!(h.state().selected_nodes(), ["finish", "start"]);
    // Backspace deletes as Delete does; Ctrl+Y redoes where it is bound (not on macOS).
    h.key_press(Key::Backspace);
    h.run();
    assert_eq!(h.state().workflow().node_count(), 0);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().workflow().node_count(), 2);
    if os() == Os::Other {
        h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
        h.run();
        assert_eq!(h.state().workflow().node_count(), 0, "Ctrl+Y redid the delete");
    }
}

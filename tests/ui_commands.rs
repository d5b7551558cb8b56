//! The command registry as the editor shows it, driven through real widgets (egui_kittest):
//! the menus, the canvas context menu and the keyboard shortcut help are generated from
//! `chainsmith::editor::commands`, and its shortcuts run its commands.

// Not every helper is used here (`drag` is for the tests that drag tiles).
mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::editor::commands::{self, CommandId, Menu, Os, Place};
use chainsmith::pack::bundled;
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use std::collections::HashSet;
use std::path::PathBuf;
use ui_common::{Script, harness, two_nodes, write_workflow};

fn start(files: Vec<PathBuf>) -> Harness<'static, App> {
    let opts = StartOptions { files, dialogs: Box::new(Script::default()), recovery_file: None, packs: bundled() };
    harness(App::new(opts, None))
}

/// The shortcuts the harness's egui context uses: those of the OS the tests run on.
fn os() -> Os {
    if egui::os::OperatingSystem::from_target_os() == egui::os::OperatingSystem::Mac { Os::Mac } else { Os::Other }
}

/// Names of the buttons and checkboxes on screen (a button's name ends with its shortcut
/// text), above the status bar: its problems button changes when the background lint answers,
/// which may be while a menu is open.
fn items(h: &Harness<'_, App>) -> Vec<String> {
    let bottom = h.state().canvas_rect().bottom();
    let mut out = Vec::new();
    for role in [Role::Button, Role::CheckBox] {
        let nodes = h.query_all(By::new().role(role)).filter(|n| n.rect().top() < bottom);
        out.extend(nodes.filter_map(|n| n.accesskit_node().label()));
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
    assert_eq!(h.state().doc().selection.node_ids(), ["finish", "start"]);
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
    let help = || By::new().label("Help").role(Role::Window);
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
    assert_eq!(h.state().doc().selection.node_ids(), ["finish", "start"]);
    // Backspace deletes as Delete does; Ctrl+Y redoes where it is bound (not on macOS).
    h.key_press(Key::Backspace);
    h.run();
    assert_eq!(h.state().doc().workflow().node_count(), 0);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().doc().workflow().node_count(), 2);
    if os() == Os::Other {
        h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
        h.run();
        assert_eq!(h.state().doc().workflow().node_count(), 0, "Ctrl+Y redid the delete");
    }
}

/// Type text as the keyboard does, into whatever has the focus.
fn type_text(h: &mut Harness<'_, App>, text: &str) {
    h.event(egui::Event::Text(text.to_owned()));
    h.run();
}

fn press(h: &mut Harness<'_, App>, key: Key) {
    h.key_press(key);
    h.run();
}

fn finder_open(h: &Harness<'_, App>) -> bool {
    h.query(By::new().role(Role::SearchInput).label_contains("chains and node types")).is_some()
}

/// Click the card whose name contains `label` (it becomes the selection).
fn click_card(h: &mut Harness<'_, App>, label: &str) {
    let card = h.get(By::new().label_contains(label).role(Role::Button)).rect().center();
    let p = h.state().canvas_to_screen(card);
    h.hover_at(p);
    h.run();
    for pressed in [true, false] {
        let button = egui::PointerButton::Primary;
        h.event(egui::Event::PointerButton { pos: p, button, pressed, modifiers: Modifiers::NONE });
    }
    h.run();
}

/// Fill the Triage queue form from the keyboard: the focus is in its first field (Queue).
fn fill_triage_form_by_keyboard(h: &mut Harness<'_, App>) {
    assert!(h.state().form().is_some(), "the chain's parameter form opened");
    type_text(h, "billing");
    press(h, Key::Enter);
    assert!(h.state().form().is_none(), "Enter in the field inserted: {:?}", h.state().last_error());
}

#[test]
fn palette_search_then_enter_runs_commands_and_inserts_chains_and_node_types() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![write_workflow(dir.path(), two_nodes())]);
    // A command: fuzzy letters of "Select all".
    h.key_press_modifiers(Modifiers::COMMAND, Key::K);
    h.run();
    assert!(finder_open(&h), "Ctrl+K opens the palette");
    type_text(&mut h, "selal");
    press(&mut h, Key::Enter);
    assert!(!finder_open(&h));
    assert_eq!(h.state().doc().selection.node_ids(), ["finish", "start"]);
    press(&mut h, Key::Escape);
    assert!(h.state().doc().selection.node_ids().is_empty());

    // A chain: Ctrl+Shift+P, arrow down past nothing, Enter opens its form, the keyboard fills it.
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::P);
    h.run();
    assert!(finder_open(&h), "Ctrl+Shift+P opens the palette too");
    type_text(&mut h, "triage queue");
    press(&mut h, Key::Enter);
    fill_triage_form_by_keyboard(&mut h);
    let wf = h.state().doc().workflow();
    assert_eq!(wf.instances().len(), 1);
    assert_eq!(wf.node_count(), 2 + 4, "the Triage queue chain's four nodes");

    // A node type of the catalog.
    h.key_press_modifiers(Modifiers::COMMAND, Key::K);
    h.run();
    type_text(&mut h, "http request");
    press(&mut h, Key::Enter);
    let wf = h.state().doc().workflow();
    assert_eq!(wf.node_count(), 7);
    assert!(wf.graph.node_weights().any(|n| n.type_id() == "vendor.chainsmith.http-request"));
}

/// The palette row that is selected (the best match right after typing): its label, and
/// whether it is enabled.
fn selected_row(h: &Harness<'_, App>) -> Option<(String, bool)> {
    h.query_all(By::new().role(Role::Button))
        .find(|n| n.accesskit_node().toggled() == Some(egui::accesskit::Toggled::True))
        .map(|n| (n.accesskit_node().label().unwrap_or_default(), !n.accesskit_node().is_disabled()))
}

#[test]
fn palette_ranks_a_typed_command_label_first_and_shows_it_disabled_when_it_cannot_run() {
    // An empty canvas: Tidy has nothing to arrange.
    let mut h = start(Vec::new());
    h.key_press_modifiers(Modifiers::COMMAND, Key::K);
    h.run();
    type_text(&mut h, "tidy");
    assert_eq!(selected_row(&h), Some(("Tidy".to_owned(), false)), "the exact label leads, disabled");
    press(&mut h, Key::Enter);
    assert!(finder_open(&h), "Enter on a disabled command runs nothing and keeps the palette open");
    press(&mut h, Key::Escape);

    // With nodes it is enabled, still first, and Enter runs it (one undo step).
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![write_workflow(dir.path(), two_nodes())]);
    h.key_press_modifiers(Modifiers::COMMAND, Key::K);
    h.run();
    type_text(&mut h, "tid");
    assert_eq!(selected_row(&h), Some(("Tidy".to_owned(), true)), "a label prefix leads");
    press(&mut h, Key::Enter);
    assert!(!finder_open(&h));
    // Start sits at x 0 and Finish 600 to its right; Tidy closes the gap to one column's.
    let wf = h.state().doc().workflow();
    let finish = wf.graph[wf.node("finish").unwrap()].position().0;
    assert!(finish < 600.0, "Tidy ran: Finish moved to {finish}");
}

#[test]
fn palette_arrows_move_the_choice_and_esc_closes() {
    let mut h = start(Vec::new());
    h.key_press_modifiers(Modifiers::COMMAND, Key::K);
    h.run();
    // With nothing typed every enabled command is listed in registry order: New first.
    let selected = |h: &Harness<'_, App>| {
        h.query_all(By::new().role(Role::Button))
            .find(|n| n.accesskit_node().toggled() == Some(egui::accesskit::Toggled::True))
            .and_then(|n| n.accesskit_node().label())
    };
    assert_eq!(selected(&h).as_deref(), Some(CommandId::New.spec().label));
    press(&mut h, Key::ArrowDown);
    assert_eq!(selected(&h).as_deref(), Some(CommandId::Open.spec().label));
    press(&mut h, Key::ArrowUp);
    assert_eq!(selected(&h).as_deref(), Some(CommandId::New.spec().label));
    press(&mut h, Key::Escape);
    assert!(!finder_open(&h));
}

#[test]
fn quick_add_on_canvas_with_the_keyboard_only_through_the_form() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![write_workflow(dir.path(), two_nodes())]);
    // Tab with the pointer over empty canvas: quick-add there; type, Enter, fill, Enter.
    let spot = egui::pos2(300.0, 400.0);
    h.hover_at(h.state().canvas_to_screen(spot));
    h.run();
    press(&mut h, Key::Tab);
    assert!(finder_open(&h), "Tab opens quick-add");
    type_text(&mut h, "triage");
    press(&mut h, Key::Enter);
    let at = h.state().form().and_then(|f| f.mode.insert_point()).expect("the form inserts at the quick-add point");
    assert!((at.0 - 300.0).abs() <= 20.0 && (at.1 - 400.0).abs() <= 20.0, "{at:?}");
    fill_triage_form_by_keyboard(&mut h);
    let wf = h.state().doc().workflow();
    let inst = wf.instances().into_iter().next().expect("an inserted instance");
    assert_eq!(inst.chain_id, "support.triage");
    // Unwired: the parent edge is untouched.
    assert!(wf.graph.edge_weights().any(|e| e.id() == "go"));
    // The keyboard is the canvas's again: Delete removes the inserted (selected) nodes.
    press(&mut h, Key::Delete);
    assert_eq!(h.state().doc().workflow().node_count(), 2);
}

#[test]
fn quick_add_with_an_edge_selected_splices_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![write_workflow(dir.path(), two_nodes())]);
    // Select the edge start → finish by clicking its middle.
    let port = |h: &Harness<'_, App>, name: &str| {
        let r = h.get(By::new().label_contains(name).role(Role::Button)).rect();
        h.state().canvas_to_screen(r.center())
    };
    let mid = port(&h, "Output output of start").lerp(port(&h, "Input input of finish"), 0.5);
    h.hover_at(mid);
    h.run();
    for pressed in [true, false] {
        let button = egui::PointerButton::Primary;
        h.event(egui::Event::PointerButton { pos: mid, button, pressed, modifiers: Modifiers::NONE });
    }
    h.run();
    press(&mut h, Key::Space);
    assert!(finder_open(&h), "Space opens quick-add");
    type_text(&mut h, "triage");
    press(&mut h, Key::Enter);
    assert!(h.query_by_label_contains("spliced between start ➡ finish").is_some(), "the form splices");
    fill_triage_form_by_keyboard(&mut h);
    let wf = h.state().doc().workflow();
    assert!(!wf.graph.edge_weights().any(|e| e.id() == "go"), "the selected edge was replaced");
    assert!(wf.graph.edge_weights().any(|e| e.source() == "start"));
    assert!(wf.graph.edge_weights().any(|e| e.target() == "finish"));
}

#[test]
fn quick_add_with_a_node_selected_adds_a_node_type_downstream_and_wires_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![write_workflow(dir.path(), two_nodes())]);
    click_card(&mut h, "(start)");
    assert_eq!(h.state().doc().selection.node_ids(), ["start"]);
    press(&mut h, Key::Tab);
    type_text(&mut h, "classify");
    press(&mut h, Key::Enter);
    let wf = h.state().doc().workflow();
    let new = wf.graph.node_weights().find(|n| n.type_id() == "vendor.chainsmith.classify").expect("inserted");
    assert!(wf.graph.edge_weights().any(|e| e.source() == "start" && e.target() == new.id()), "wired from start");
    assert!(new.position().0 > 220.0, "downstream: right of the start card");
}

#[test]
fn quick_add_with_a_node_selected_inserts_a_chain_downstream_and_wires_it_by_keyboard() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![write_workflow(dir.path(), two_nodes())]);
    click_card(&mut h, "(start)");
    assert_eq!(h.state().doc().selection.node_ids(), ["start"]);
    // The rest from the keyboard: Tab, type, Enter, the form, Enter.
    press(&mut h, Key::Tab);
    assert!(finder_open(&h), "Tab opens quick-add");
    type_text(&mut h, "triage");
    press(&mut h, Key::Enter);
    assert!(h.query_by_label_contains("wired after start").is_some(), "the form says where it goes");
    fill_triage_form_by_keyboard(&mut h);
    let wf = h.state().doc().workflow();
    let inst = wf.instances().into_iter().next().expect("an inserted instance");
    assert_eq!(inst.chain_id, "support.triage");
    let wires: Vec<&str> = wf
        .graph
        .edge_weights()
        .filter(|e| e.source() == "start" && inst.node_ids.iter().any(|n| n == e.target()))
        .map(|e| e.target())
        .collect();
    assert_eq!(wires, ["support_triage_".to_owned() + &inst.expansion_id + "_fetch"], "start feeds the chain's entry");
    assert!(wf.graph.edge_weights().any(|e| e.id() == "go"), "start's own edge stays");
    let x = |id: &str| wf.graph[wf.node(id).unwrap()].position().0;
    assert!(inst.node_ids.iter().all(|n| x(n) > x("start") + 220.0), "downstream: right of the start card");
}

#[test]
fn double_click_on_empty_canvas_opens_quick_add() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![write_workflow(dir.path(), two_nodes())]);
    let p = h.state().canvas_to_screen(egui::pos2(300.0, 400.0));
    h.hover_at(p);
    h.run();
    for _ in 0..2 {
        for pressed in [true, false] {
            let button = egui::PointerButton::Primary;
            h.event(egui::Event::PointerButton { pos: p, button, pressed, modifiers: Modifiers::NONE });
        }
    }
    h.run();
    assert!(finder_open(&h));
    press(&mut h, Key::Escape);
    assert!(!finder_open(&h));
}

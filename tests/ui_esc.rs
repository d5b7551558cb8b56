//! Esc closes the editor's topmost window, found in egui's layer order (issue 35, item 3):
//! two overlapping windows close topmost first whichever was opened first; a window opened
//! by an action and Esc in the very next frame still close it; a window the user has just
//! closed does not swallow the Esc meant for the one under it.

mod common;
mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::catalog::Trust;
use chainsmith::inline::{ExpansionIdChoice, InlineRequest, inline};
use chainsmith::pack::{LoadOptions, LoadOutcome, bundled, load_path};
use chainsmith::workflow::{ExportMode, Workflow};
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, Queryable};
use std::time::{Duration, Instant};
use ui_common::{Script, menu_item, pointer_click, sized, two_nodes, write_workflow};

/// The editor on a workflow of two nodes, `start` selected (Esc reaching the canvas would
/// clear the selection).
fn editor(dir: &std::path::Path) -> Harness<'static, App> {
    let path = write_workflow(dir, two_nodes());
    let opts =
        StartOptions { files: vec![path], dialogs: Box::new(Script::default()), recovery_file: None, packs: bundled() };
    let mut h = sized(App::new(opts, None), 1440.0, 900.0);
    h.state_mut().set_selection(&["start"]);
    h.run();
    h
}

fn press(h: &mut Harness<'_, App>, key: Key) {
    h.key_press(key);
    h.run();
}

/// The rectangle of window `title`, when it is drawn.
fn window(h: &Harness<'_, App>, title: &str) -> Option<Rect> {
    h.query(By::new().label(title).role(Role::Window)).map(|w| w.rect())
}

/// The title of the window egui has on top, among `titles`.
fn on_top(h: &Harness<'_, App>, titles: &[&str]) -> String {
    let order: Vec<egui::LayerId> = h.ctx.memory(|m| m.layer_ids().collect());
    let top = order.iter().rev().find_map(|l| {
        let rect = h.ctx.memory(|m| m.area_rect(l.id))?;
        titles.iter().find(|t| window(h, t) == Some(rect))
    });
    top.expect("one of the windows is drawn").to_string()
}

/// Settings, then Registry over it: overlapping.
fn two_windows(h: &mut Harness<'_, App>) -> (Rect, Rect) {
    menu_item(h, "Edit", "Settings…");
    menu_item(h, "File", "Registry…");
    let settings = window(h, "Settings").expect("Settings is open");
    let registry = window(h, "Registry").expect("Registry is open");
    assert!(settings.intersects(registry), "the two windows overlap: {settings:?} {registry:?}");
    assert_eq!(on_top(h, &["Settings", "Registry"]), "Registry", "the one opened last is on top");
    (settings, registry)
}

#[test]
fn esc_closes_two_overlapping_windows_topmost_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = editor(dir.path());
    let (settings, registry) = two_windows(&mut h);
    // A click on the part of Settings that Registry leaves uncovered brings Settings up:
    // the layers' order, not the order of opening, says which is on top.
    let probes = [
        Pos2::new(settings.center().x, settings.top() + 10.0),
        Pos2::new(settings.left() + 12.0, settings.center().y),
        Pos2::new(settings.right() - 12.0, settings.center().y),
        Pos2::new(settings.center().x, settings.bottom() - 12.0),
    ];
    let free = probes.into_iter().find(|p| !registry.expand(4.0).contains(*p));
    pointer_click(&mut h, free.expect("some of Settings is not under Registry"));
    assert_eq!(on_top(&h, &["Settings", "Registry"]), "Settings");

    press(&mut h, Key::Escape);
    assert!(window(&h, "Settings").is_none(), "the top window closed first");
    assert!(window(&h, "Registry").is_some(), "the one under it stays");
    press(&mut h, Key::Escape);
    assert!(window(&h, "Registry").is_none(), "the second Esc closed the other");
    assert_eq!(h.state().doc().selection.node_ids(), ["start"], "neither Esc reached the canvas");
    press(&mut h, Key::Escape);
    assert!(h.state().doc().selection.node_ids().is_empty(), "with no window left, Esc clears the selection");
}

#[test]
fn a_window_opened_by_an_action_closes_on_esc_in_the_very_next_frame() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = editor(dir.path());
    // F1 opens Help as an action, after this frame's windows are drawn; Esc comes in the next
    // frame, before Help was ever drawn.
    h.key_down(Key::F1);
    h.key_down(Key::Escape);
    h.step();
    h.key_up(Key::Escape);
    h.key_up(Key::F1);
    h.run();
    assert!(window(&h, "Help").is_none(), "Esc closed Help before it was drawn");
    assert_eq!(h.state().doc().selection.node_ids(), ["start"], "Esc did not reach the canvas");
}

#[test]
fn a_window_just_closed_by_its_button_leaves_esc_to_the_one_under_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = editor(dir.path());
    two_windows(&mut h);
    let registry = window(&h, "Registry").unwrap();
    let close = h
        .query_all(By::new().label("Close window").role(Role::Button))
        .map(|b| b.rect())
        .find(|r| registry.contains_rect(*r))
        .expect("Registry's close button");
    // The release that clicks the button and Esc come in two frames one after the other:
    // Registry was drawn in the frame it was closed in, so egui still has it on top.
    let button = egui::PointerButton::Primary;
    h.hover_at(close.center());
    h.step();
    h.event(egui::Event::PointerButton { pos: close.center(), button, pressed: true, modifiers: Modifiers::NONE });
    h.step();
    h.event(egui::Event::PointerButton { pos: close.center(), button, pressed: false, modifiers: Modifiers::NONE });
    h.key_down(Key::Escape);
    h.step();
    h.key_up(Key::Escape);
    h.run();
    assert!(window(&h, "Registry").is_none(), "its button closed Registry");
    assert!(window(&h, "Settings").is_none(), "Esc closed the window under it");
    assert_eq!(h.state().doc().selection.node_ids(), ["start"], "Esc did not reach the canvas");
}

#[test]
fn esc_closes_the_window_on_screen_not_one_hidden_with_its_panel() {
    let dir = tempfile::tempdir().unwrap();
    // A chain whose node type nothing provides: its tile opens the explanation.
    let chain = serde_json::json!({"chainId": "acme.summary", "version": "1.0.0", "label": "Summarise a page",
        "description": "d", "parameters": {"type": "object"},
        "dag": {"nodes": [{"id": "a", "typeId": "feature.demo.summarise", "config": {}}], "edges": []}});
    let pack = ui_common::chain_pack(dir.path(), "tiles", vec![chain]);
    let opts =
        StartOptions { files: vec![pack], dialogs: Box::new(Script::default()), recovery_file: None, packs: bundled() };
    let mut h = sized(App::new(opts, None), 1440.0, 900.0);
    menu_item(&mut h, "Edit", "Settings…");
    h.get_by_label("Summarise a page").click();
    h.run();
    assert_eq!(h.state().explained_chain(), Some("acme.summary"));
    // The explanation, opened last, is over Settings; then the palette panel shuts, and the
    // explanation (drawn by the palette) goes with it, open but not on screen.
    h.key_press_modifiers(Modifiers::COMMAND, Key::B);
    h.run();
    assert!(h.query_by_label("Search tiles").is_none(), "the palette is shut");
    assert!(window(&h, "Settings").is_some());
    press(&mut h, Key::Escape);
    assert!(window(&h, "Settings").is_none(), "Esc closed the window on screen");
    assert_eq!(h.state().explained_chain(), Some("acme.summary"), "not the hidden explanation");
    press(&mut h, Key::Escape);
    assert_eq!(h.state().explained_chain(), None, "the next Esc closes the explanation, open though not drawn");
}

#[test]
fn the_update_review_is_drawn_in_the_middle_of_the_editor_and_esc_closes_it() {
    let dir = tempfile::tempdir().unwrap();
    // A triage instance at the bundled 1.0.0, with 1.1.0 loaded: its frame offers the update.
    let v1 = load_path(&common::support_desk::dir(), LoadOptions::default()).packs.remove(0);
    let values = serde_json::json!({"queueName": "billing"}).as_object().unwrap().clone();
    let trust = Trust::default();
    let mut req = InlineRequest::new(&trust, &v1, "support.triage", values);
    req.expansion_id = ExpansionIdChoice::Given("t001".to_owned());
    let mut wf = Workflow::new("Parent");
    inline(&mut wf, req).unwrap();
    let file = dir.path().join("wf.json");
    wf.save(&file, ExportMode::Faithful).unwrap();
    let mut packs = bundled().packs;
    let v1_1 = common::support_desk::v1_1_with(dir.path(), |_| {});
    packs.push(load_path(&v1_1, LoadOptions::default()).packs.remove(0));
    let packs = LoadOutcome { packs, failures: Vec::new() };
    let opts = StartOptions { files: vec![file], dialogs: Box::new(Script::default()), recovery_file: None, packs };
    let mut h = sized(App::new(opts, None), 1440.0, 900.0);

    // The badge on the instance's frame (the canvas's scene has its own coordinates).
    let badge = h.get(By::new().label_contains("Update support_triage_t001_ to 1.1.0").role(Role::Button)).rect();
    let at = h.state().canvas_to_screen(badge.center());
    pointer_click(&mut h, at);
    assert!(h.state().review_open(), "{:?}", h.state().last_error());
    let deadline = Instant::now() + Duration::from_secs(60);
    while h.state().review_computing().is_some_and(|(computing, _)| computing) {
        assert!(Instant::now() < deadline, "the review never finished");
        h.step();
    }
    h.run();
    let review = h.get(By::new().label_contains("Review update: ").role(Role::Window)).rect();
    // 80% of 1440x900 within 980x760, centred.
    assert_eq!(review.size(), egui::vec2(980.0, 720.0), "{review:?}");
    assert!((review.center() - egui::pos2(720.0, 450.0)).length() < 1.0, "{review:?}");

    press(&mut h, Key::Escape);
    assert!(!h.state().review_open(), "Esc closed the review");
}

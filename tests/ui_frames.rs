//! The editor's frame path, driven headlessly (issue 12): what stays still on the canvas is
//! drawn once and reused while only the pointer moves, large workflows in full view still
//! take clicks and drags on their tiny cards, and the findings come from the lint worker
//! instead of a frame.

mod ui_common;

use chainsmith::app::{App, NativeDialogs, StartOptions};
use chainsmith::pack::{LoadOutcome, bundled};
use chainsmith::workflow::{ExportMode, Workflow};
use egui::epaint::{Mesh, Shape};
use egui::{Key, Modifiers, Pos2, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use ui_common::{drag, harness};

/// `n` cards on a grid 40 wide, each row a chain.
fn grid(n: usize) -> Value {
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("n{i}"), "typeId": "core.noop", "name": format!("Step {i}"),
                   "position": {"x": (i % 40) * 320, "y": (i / 40) * 150}, "config": {}, "inputs": {}})
        })
        .collect();
    let edges: Vec<Value> = (1..n)
        .filter(|i| i % 40 != 0)
        .map(|i| json!({"id": format!("e{i}"), "sourceNodeId": format!("n{}", i - 1), "targetNodeId": format!("n{i}")}))
        .collect();
    json!({"id": "grid", "name": "Grid", "version": "1.0.0", "nodes": nodes, "edges": edges,
           "triggers": [], "variables": [], "metadata": {}, "settings": {}})
}

fn write(dir: &Path, doc: Value) -> PathBuf {
    let p = dir.join("flow.json");
    Workflow::from_json(doc).unwrap().save(&p, ExportMode::Faithful).unwrap();
    p
}

fn open(file: PathBuf, packs: LoadOutcome) -> Harness<'static, App> {
    harness(App::new(
        StartOptions { files: vec![file], dialogs: Box::new(NativeDialogs), recovery_file: None, packs },
        None,
    ))
}

/// The largest mesh the last frame handed to the renderer: the canvas's still drawing.
fn still_mesh(h: &Harness<'_, App>) -> Arc<Mesh> {
    h.output()
        .shapes
        .iter()
        .filter_map(|c| match &c.shape {
            Shape::Mesh(m) => Some(Arc::clone(m)),
            _ => None,
        })
        .max_by_key(|m| m.vertices.len())
        .expect("the canvas is drawn as a mesh")
}

/// Where card `i` of the grid is on screen (its centre).
fn card_on_screen(h: &Harness<'_, App>, i: usize) -> Pos2 {
    let at = pos2((i % 40) as f32 * 320.0 + 110.0, (i / 40) as f32 * 150.0 + 48.0);
    h.state().canvas_to_screen(at)
}

/// Rest the pointer on `at` for a while (the canvas picks which tiny cards take input from
/// where the pointer is), then press and release there within one frame.
fn click_after_hovering(h: &mut Harness<'_, App>, at: Pos2) {
    h.hover_at(at);
    h.run_steps(30);
    for pressed in [true, false] {
        let modifiers = Modifiers::NONE;
        h.event(egui::Event::PointerButton { pos: at, button: egui::PointerButton::Primary, pressed, modifiers });
    }
}

#[test]
fn the_still_canvas_is_drawn_once_while_only_the_pointer_moves() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(write(dir.path(), grid(200)), bundled());
    let canvas = h.state().canvas_rect();
    h.hover_at(canvas.center());
    h.run();
    let before = still_mesh(&h);
    assert!(before.vertices.len() > 200 * 4, "every card is in it: {}", before.vertices.len());
    for f in [0.2, 0.4, 0.6] {
        h.hover_at(canvas.min + canvas.size() * f);
        h.run();
        assert!(Arc::ptr_eq(&before, &still_mesh(&h)), "pointer moves reuse the drawing");
    }
    // Selecting changes the drawing: drawn again, once.
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    let selected = still_mesh(&h);
    assert!(!Arc::ptr_eq(&before, &selected));
    h.hover_at(canvas.center());
    h.run();
    assert!(Arc::ptr_eq(&selected, &still_mesh(&h)));
    // So does an edit.
    h.key_press(Key::Delete);
    h.run();
    assert_eq!(h.state().workflow().node_count(), 0);
    assert!(still_mesh(&h).vertices.len() < before.vertices.len() / 4, "the deleted cards are gone from it");
}

#[test]
fn tiny_cards_in_full_view_still_take_clicks_and_drags() {
    let dir = tempfile::tempdir().unwrap();
    // 1,200 cards in view: more than take input all at once.
    let mut h = open(write(dir.path(), grid(1_200)), LoadOutcome::default());
    h.key_press(Key::F);
    h.run();
    let zoom = h.state().canvas_to_screen(pos2(1.0, 0.0)).x - h.state().canvas_to_screen(pos2(0.0, 0.0)).x;
    assert!(zoom < 0.15, "everything in view makes the cards tiny: zoom {zoom}");

    let target = 41 * 5 + 7;
    let at = card_on_screen(&h, target);
    click_after_hovering(&mut h, at);
    h.run();
    assert_eq!(h.state().selected_nodes(), vec![format!("n{target}")]);

    // Drag it by 20 screen points: it moves by 20 / zoom canvas units.
    drag(&mut h, at, at + egui::vec2(20.0, 0.0), Modifiers::NONE);
    let wf = h.state().workflow();
    let (x, _) = wf.graph[wf.node(&format!("n{target}")).unwrap()].position();
    let expected = (target % 40) as f64 * 320.0 + 20.0 / f64::from(zoom);
    assert!((x - expected).abs() < 25.0, "moved to x {x}, expected about {expected}");
}

#[test]
fn in_full_view_each_card_is_one_quad_where_it_is_on_screen() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(write(dir.path(), grid(1_200)), LoadOutcome::default());
    h.key_press(Key::F);
    h.run();
    let target = 40 * 11 + 23;
    let at = card_on_screen(&h, target);
    click_after_hovering(&mut h, at);
    h.hover_at(h.state().canvas_rect().min + egui::vec2(2.0, 2.0));
    h.run();
    assert_eq!(h.state().selected_nodes(), vec![format!("n{target}")]);
    // The selected card is the one quad in its colour; it covers the card's place on screen.
    // The canvas's drawing comes first in paint order; the minimap over it has a cell per card.
    let mesh = h
        .output()
        .shapes
        .iter()
        .find_map(|c| match &c.shape {
            Shape::Mesh(m) if m.vertices.len() >= 1_200 * 4 => Some(Arc::clone(m)),
            _ => None,
        })
        .expect("the canvas is drawn as a mesh");
    let mut by_color: std::collections::HashMap<egui::Color32, Vec<Pos2>> = Default::default();
    for v in &mesh.vertices {
        by_color.entry(v.color).or_default().push(v.pos);
    }
    let quads: Vec<&Vec<Pos2>> = by_color.values().filter(|ps| ps.len() == 4).collect();
    assert_eq!(quads.len(), 1, "one card is drawn in the selection's colour");
    let rect = egui::Rect::from_points(quads[0]);
    let zoom = h.state().canvas_to_screen(pos2(1.0, 0.0)).x - h.state().canvas_to_screen(pos2(0.0, 0.0)).x;
    assert!(rect.contains(at), "{rect:?} holds the card's centre {at:?}");
    let width = 220.0 * zoom;
    assert!((rect.width() - width).abs() < 0.01, "a card is {width} wide on screen, the quad {}", rect.width());
}

/// A conditional edge without `left`: the lint warns about it.
fn with_bad_condition() -> Value {
    let mut doc = grid(2);
    doc["edges"][0]["condition"] = json!({"type": "truthy"});
    doc
}

#[test]
fn findings_come_from_the_lint_worker() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(write(dir.path(), with_bad_condition()), bundled());
    h.state_mut().settle_lint(Duration::from_secs(60));
    h.run();
    assert!(h.query_by_label_contains("1 warning").is_some(), "the worker's findings are shown");

    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    h.key_press(Key::Delete);
    h.run();
    assert_eq!(h.state().workflow().node_count(), 0);
    // The frame did not lint: the last findings stay until the worker has the new ones.
    assert!(h.query_by_label_contains("1 warning").is_some());
    h.state_mut().settle_lint(Duration::from_secs(60));
    h.run();
    assert!(h.query_by_label_contains("no problems").is_some());
}

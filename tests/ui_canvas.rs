//! Reading the canvas (issue 25): cards keep their type and port names down to where the
//! text is still legible, Fit shows a small workflow at 1:1 when it fits, arrow keys walk
//! the selection from node to node, and a large workflow opens at a legible zoom around its
//! entry instead of as a hairline.

mod ui_common;

use chainsmith::app::App;
use egui::accesskit::Role;
use egui::{Key, Modifiers, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, Queryable};
use serde_json::Value;
use ui_common::{noop_node as node, open_workflow as open, plain_edge as edge, workflow_of as workflow};

/// Screen points per canvas unit, as of the last frame.
fn zoom(h: &Harness<'_, App>) -> f32 {
    let (a, b) = (h.state().canvas_to_screen(pos2(0.0, 0.0)), h.state().canvas_to_screen(pos2(1000.0, 0.0)));
    (b.x - a.x) / 1000.0
}

/// The card of node `id` as drawn (canvas units).
fn card(h: &Harness<'_, App>, id: &str) -> egui::Rect {
    h.get(By::new().label_contains(&format!("({id})")).role(Role::Button)).rect()
}

/// Whether glyphs are drawn inside the part of node `id`'s card given in canvas units
/// relative to its top-left: text shapes, or mesh vertices sampling the font texture (the
/// still drawing is one tessellated mesh).
fn text_in(h: &Harness<'_, App>, id: &str, top: f32, bottom: f32) -> bool {
    text_in_columns(h, id, 0.0, top, bottom)
}

/// [`text_in`], in the right part of the card from `left` (canvas units from its left).
fn text_in_columns(h: &Harness<'_, App>, id: &str, left: f32, top: f32, bottom: f32) -> bool {
    let r = card(h, id);
    let (min, max) = (pos2(r.min.x + left, r.min.y + top), pos2(r.max.x, r.min.y + bottom));
    let area = egui::Rect::from_min_max(h.state().canvas_to_screen(min), h.state().canvas_to_screen(max));
    h.output().shapes.iter().any(|c| match &c.shape {
        egui::Shape::Text(t) => t.visual_bounding_rect().intersects(area),
        egui::Shape::Mesh(m) => m.vertices.iter().any(|v| v.uv != egui::epaint::WHITE_UV && area.contains(v.pos)),
        _ => false,
    })
}

/// Centre the view on `at` (canvas units) at `zoom_to` screen points per canvas unit.
fn view_at(h: &mut Harness<'_, App>, at: egui::Pos2, zoom_to: f32) {
    let size = h.state().canvas_rect().size() / zoom_to;
    h.state_mut().set_canvas_view(egui::Rect::from_center_size(at, size));
    h.run();
    assert!((zoom(h) - zoom_to).abs() < 1e-3, "the view is at {zoom_to}: {}", zoom(h));
}

#[test]
fn cards_keep_type_and_port_names_down_to_where_they_are_legible() {
    // Below 70% a card showed only its title: type and ports went blank, though at 55% the
    // names, grown to stay 8 points on screen, still fit their card.
    let (_dir, mut h) = open(workflow(vec![node("a", 0.0, 0.0), node("b", 310.0, 0.0)], vec![edge("e", "a", "b")]));
    // Below the title bar (24 units): the type line and the port names.
    // The output's name ends by the card's right side, past where the type line reaches.
    let outputs = 0.8 * 220.0;
    view_at(&mut h, pos2(265.0, 48.0), 1.0);
    assert!(text_in(&h, "a", 26.0, 90.0), "type and ports are drawn at 1:1 (the probe sees them)");
    assert!(text_in_columns(&h, "a", outputs, 26.0, 90.0), "the output's name at 1:1");
    view_at(&mut h, pos2(265.0, 48.0), 0.55);
    assert!(text_in_columns(&h, "a", outputs, 26.0, 90.0), "and still at 55%");
    view_at(&mut h, pos2(265.0, 48.0), 0.4);
    // Further out the title and type keep a size on screen (tests/ui_view.rs); the port
    // names, under 8 points, are left out.
    assert!(!text_in_columns(&h, "a", outputs, 26.0, 90.0), "at 40% port names are left out");
}

#[test]
fn fit_shows_a_small_workflow_at_one_to_one_when_it_fits() {
    // Three cards in a row 700 units wide, in a canvas 804 points wide (the default
    // window): Fit put them at 98% for a margin of 60 units a side, though they fit at 1:1.
    let row: Vec<Value> = (0..3).map(|i| node(&format!("n{i}"), f64::from(i) * 240.0, 0.0)).collect();
    let edges = vec![edge("e1", "n0", "n1"), edge("e2", "n1", "n2")];
    let (_dir, mut h) = open(workflow(row, edges));
    let width = h.state().canvas_rect().width();
    assert!(width >= 700.0 + 2.0 * 48.0, "the canvas holds the row at 1:1 with some room: {width}");
    view_at(&mut h, pos2(0.0, 0.0), 0.3);
    h.key_press(Key::F);
    h.run();
    assert_eq!(zoom(&h), 1.0, "Fit shows the row at 1:1");
    // Never closer than 1:1, and further out only when it must be.
    let wide: Vec<Value> = (0..12).map(|i| node(&format!("n{i}"), f64::from(i) * 310.0, 0.0)).collect();
    let (_dir, mut h) = open(workflow(wide, Vec::new()));
    // Fit stops at 40% on the entry (tests/ui_view.rs); asked again, it shows them all.
    h.key_press(Key::F);
    h.run();
    h.key_press(Key::F);
    h.run();
    let z = zoom(&h);
    assert!(z < 1.0, "twelve cards in a row do not fit at 1:1: {z}");
    let (first, last) = (card(&h, "n0"), card(&h, "n11"));
    let canvas = h.state().canvas_rect();
    let shown = egui::Rect::from_min_max(
        h.state().canvas_to_screen(first.min),
        h.state().canvas_to_screen(pos2(last.max.x, last.max.y)),
    );
    assert!(canvas.contains_rect(shown), "all of them are in view: {shown:?} in {canvas:?}");
}

fn selected(h: &Harness<'_, App>) -> Vec<String> {
    h.state().doc().selection.node_ids()
}

fn press(h: &mut Harness<'_, App>, key: Key) {
    h.key_press(key);
    h.run();
}

#[test]
fn arrow_keys_walk_the_selection_along_edges_and_to_the_nearest_card() {
    // a → b → c in a row; x under b, wired from a; y right of everything, level with a.
    let nodes = vec![
        node("a", 0.0, 0.0),
        node("b", 310.0, 0.0),
        node("c", 620.0, 0.0),
        node("x", 310.0, 200.0),
        node("y", 1240.0, 40.0),
    ];
    let edges = vec![edge("e1", "a", "b"), edge("e2", "b", "c"), edge("e3", "a", "x")];
    let (_dir, mut h) = open(workflow(nodes, edges));
    assert!(selected(&h).is_empty());
    // Nothing selected: the card nearest the middle of the view.
    view_at(&mut h, pos2(110.0, 48.0), 1.0);
    press(&mut h, Key::ArrowRight);
    assert_eq!(selected(&h), ["a"], "the card in the middle of the view");
    press(&mut h, Key::ArrowRight);
    assert_eq!(selected(&h), ["b"], "downstream, the neighbour level with a");
    press(&mut h, Key::ArrowRight);
    assert_eq!(selected(&h), ["c"]);
    press(&mut h, Key::ArrowRight);
    assert_eq!(selected(&h), ["y"], "no edge on: the nearest card to the right");
    press(&mut h, Key::ArrowLeft);
    assert_eq!(selected(&h), ["c"], "y has no edge in: the nearest card to the left");
    press(&mut h, Key::ArrowLeft);
    assert_eq!(selected(&h), ["b"], "upstream");
    press(&mut h, Key::ArrowDown);
    assert_eq!(selected(&h), ["x"], "the card below");
    press(&mut h, Key::ArrowUp);
    assert_eq!(selected(&h), ["b"]);
    press(&mut h, Key::ArrowLeft);
    assert_eq!(selected(&h), ["a"]);
    press(&mut h, Key::ArrowUp);
    assert_eq!(selected(&h), ["a"], "nothing above: the selection stays");

    // While a text field has the focus its arrows move its cursor, not the selection.
    let editable =
        |n: &egui_kittest::kittest::AccessKitNode<'_>| matches!(n.role(), Role::TextInput | Role::SearchInput);
    let field = h.query_all(By::new().predicate(editable)).next().expect("a text field on screen").rect().center();
    h.hover_at(field);
    h.run();
    for pressed in [true, false] {
        let button = egui::PointerButton::Primary;
        h.event(egui::Event::PointerButton { pos: field, button, pressed, modifiers: Modifiers::NONE });
    }
    h.run();
    assert!(h.ctx.egui_wants_keyboard_input(), "the field has the focus");
    press(&mut h, Key::ArrowRight);
    assert_eq!(selected(&h), ["a"], "the arrow went to the field");
}

/// `n` cards on a grid 40 wide, each row a chain.
fn grid(n: usize) -> Value {
    let nodes: Vec<Value> =
        (0..n).map(|i| node(&format!("n{i}"), ((i % 40) * 320) as f64, ((i / 40) * 150) as f64)).collect();
    let edges: Vec<Value> = (1..n)
        .filter(|i| i % 40 != 0)
        .map(|i| edge(&format!("e{i}"), &format!("n{}", i - 1), &format!("n{i}")))
        .collect();
    workflow(nodes, edges)
}

#[test]
fn a_workflow_too_wide_to_read_whole_opens_legible_at_its_entry_with_the_minimap_showing_the_whole() {
    // 2,000 cards fit whole at about 5%: a sheet of specks with nothing to read.
    let (_dir, h) = open(grid(2000));
    let z = zoom(&h);
    assert!(z >= 0.5, "opened at a zoom where cards show their text: {z}");
    let canvas = h.state().canvas_rect();
    let entry = card(&h, "n0");
    let entry = egui::Rect::from_min_max(h.state().canvas_to_screen(entry.min), h.state().canvas_to_screen(entry.max));
    assert!(canvas.contains_rect(entry), "the entry card n0 is in view: {entry:?} in {canvas:?}");
    assert!(h.query(By::new().label("Minimap").role(Role::Image)).is_some(), "the minimap shows the whole");
    // A small workflow opens whole where its cards read whole.
    let (_dir, h) = open(grid(3));
    let (first, last) = (card(&h, "n0"), card(&h, "n2"));
    let shown = egui::Rect::from_min_max(h.state().canvas_to_screen(first.min), h.state().canvas_to_screen(last.max));
    assert!(h.state().canvas_rect().contains_rect(shown), "three cards open whole");
    assert!(zoom(&h) >= 0.5, "{}", zoom(&h));
    // Six in a row fit this canvas only at 42%, where type and port names are left out (at
    // 1000x700 five fitted at 32%, titles only): they open legible at the entry instead.
    let (_dir, h) = open(grid(6));
    let z = zoom(&h);
    assert!(z >= 0.5, "six cards open where they read: {z}");
    let entry = card(&h, "n0");
    let entry = egui::Rect::from_min_max(h.state().canvas_to_screen(entry.min), h.state().canvas_to_screen(entry.max));
    assert!(h.state().canvas_rect().contains_rect(entry), "the entry card n0 is in view: {entry:?}");
}

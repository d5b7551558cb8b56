//! The canvas's view as people work in it (issue 37, items 3, 5 and 7): cards keep a
//! readable title at any zoom and Fit stops where they read; the view stays put when the
//! layout around the canvas changes and comes back after a cancelled insert; the minimap
//! shrinks with a small canvas instead of vanishing.

mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2, Rect, Vec2, pos2, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, Queryable};
use serde_json::{Value, json};
use ui_common::{Script, drag, harness, noop_node, open_workflow, plain_edge, with_a_warning, workflow_of};

/// Screen points per canvas unit, as of the last frame.
fn zoom(h: &Harness<'_, App>) -> f32 {
    let (a, b) = (h.state().canvas_to_screen(pos2(0.0, 0.0)), h.state().canvas_to_screen(pos2(1000.0, 0.0)));
    (b.x - a.x) / 1000.0
}

/// The canvas point at the middle of the canvas.
fn centre(h: &Harness<'_, App>) -> Pos2 {
    h.state().screen_to_canvas(h.state().canvas_rect().center())
}

/// Centre the view on `at` (canvas units) at `zoom_to` screen points per canvas unit.
fn view_at(h: &mut Harness<'_, App>, at: Pos2, zoom_to: f32) {
    let size = h.state().canvas_rect().size() / zoom_to;
    h.state_mut().set_canvas_view(Rect::from_center_size(at, size));
    h.run();
    assert!((zoom(h) - zoom_to).abs() < 1e-3, "the view is at {zoom_to}: {}", zoom(h));
}

/// The view is at `zoom_was` around `centre_was`, within rounding.
fn assert_view(h: &Harness<'_, App>, zoom_was: f32, centre_was: Pos2, after: &str) {
    let (z, c) = (zoom(h), centre(h));
    assert!((z - zoom_was).abs() < 1e-3, "after {after} the zoom is {z}, was {zoom_was}");
    assert!((c - centre_was).length() < 1.0, "after {after} the centre is {c:?}, was {centre_was:?}");
}

/// A row of `n` cards 310 units apart, `n0` → `n1` → …
fn row(n: usize) -> Value {
    let nodes = (0..n).map(|i| noop_node(&format!("n{i}"), i as f64 * 310.0, 0.0)).collect();
    let edges = (1..n).map(|i| plain_edge(&format!("e{i}"), &format!("n{}", i - 1), &format!("n{i}"))).collect();
    workflow_of(nodes, edges)
}

/// The card of node `id` (canvas units).
fn card(h: &Harness<'_, App>, id: &str) -> Rect {
    h.get(By::new().label_contains(&format!("({id})")).role(Role::Button)).rect()
}

fn on_screen(h: &Harness<'_, App>, r: Rect) -> Rect {
    Rect::from_min_max(h.state().canvas_to_screen(r.min), h.state().canvas_to_screen(r.max))
}

/// The extent on screen of the glyphs drawn inside `area` (screen points): text shapes, or
/// mesh vertices sampling the font texture (the still drawing is one tessellated mesh).
fn glyphs_in(h: &Harness<'_, App>, area: Rect) -> Option<Rect> {
    let mut found: Option<Rect> = None;
    let mut add = |r: Rect| found = Some(found.map_or(r, |f| f.union(r)));
    for c in &h.output().shapes {
        match &c.shape {
            egui::Shape::Text(t) if t.visual_bounding_rect().intersects(area) => add(t.visual_bounding_rect()),
            egui::Shape::Mesh(m) => {
                for v in m.vertices.iter().filter(|v| v.uv != egui::epaint::WHITE_UV && area.contains(v.pos)) {
                    add(Rect::from_min_max(v.pos, v.pos));
                }
            }
            _ => {}
        }
    }
    found
}

/// Card `fetch` titled "Fg queue" beside another, and the glyph height on screen per point
/// of title size, measured at 1:1 where the title is 13.5 points: from the top of F to the
/// foot of g, the first two glyphs, which a title cut short keeps.
fn fg_queue() -> (tempfile::TempDir, Harness<'static, App>, f32) {
    let name = json!({"id": "fetch", "typeId": "core.noop", "name": "Fg queue",
        "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}});
    let (dir, mut h) = open_workflow(workflow_of(vec![name, noop_node("b", 310.0, 0.0)], vec![]));
    view_at(&mut h, pos2(265.0, 48.0), 1.0);
    let c = on_screen(&h, card(&h, "fetch"));
    let header = Rect::from_min_max(c.min, pos2(c.max.x, c.min.y + 24.0));
    let per_point = glyphs_in(&h, header).expect("the title at 1:1").height() / 13.5;
    (dir, h, per_point)
}

fn sized(app: App, size: Vec2) -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size(size)
        .with_step_dt(1.0 / 60.0)
        .with_max_steps(64)
        .build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

fn app_on(files: Vec<std::path::PathBuf>) -> App {
    App::new(StartOptions { files, dialogs: Box::new(Script::default()), recovery_file: None, packs: bundled() }, None)
}

// ---------------------------------------------------------------------------------------
// Item 3: legible at every zoom

#[test]
fn zoomed_out_a_card_keeps_a_readable_title_and_drops_the_details() {
    // At 25% a card showed nothing (text went below 30%), and from 30% to 50% its title was
    // under 11 points on screen.
    let (_dir, mut h, per_point) = fg_queue();
    for z in [0.25, 0.32, 0.45] {
        view_at(&mut h, pos2(265.0, 48.0), z);
        let c = on_screen(&h, card(&h, "fetch"));
        // The title's line: the top 21 points of the card (the type line starts below).
        let band = Rect::from_min_max(c.min, pos2(c.max.x, c.min.y + 21.0));
        let title = glyphs_in(&h, band).unwrap_or_else(|| panic!("at {z} the card shows its title"));
        let size = title.height() / per_point;
        assert!((11.0..20.0).contains(&size), "at {z} the title is {size} points");
        assert!(title.width() >= 40.0, "at {z} the title is cut to {} points", title.width());
    }
    // At 45% the type shows under it; at 25% there is no room for it: only the title.
    view_at(&mut h, pos2(265.0, 48.0), 0.45);
    let c = on_screen(&h, card(&h, "fetch"));
    let lower = Rect::from_min_max(pos2(c.min.x, c.center().y + 4.0), c.max);
    assert!(glyphs_in(&h, lower).is_some(), "at 45% the type line is drawn");
    view_at(&mut h, pos2(265.0, 48.0), 0.25);
    let c = on_screen(&h, card(&h, "fetch"));
    let title = glyphs_in(&h, c).unwrap();
    assert!(title.height() / per_point < 20.0, "at 25% one line: {title:?}");
}

/// From 1:1 at the entry card `n0` of a workflow too wide to read whole, Fit: it stops at
/// 40% with the entry in view. The canvas and the entry card, on screen.
fn fit_from_the_entry(h: &mut Harness<'_, App>) -> (Rect, Rect) {
    view_at(h, pos2(2000.0, 48.0), 1.0);
    h.key_press(Key::F);
    h.run();
    assert!((zoom(h) - 0.4).abs() < 1e-3, "Fit stops at 40%: {}", zoom(h));
    let canvas = h.state().canvas_rect();
    let entry = on_screen(h, card(h, "n0"));
    assert!(canvas.contains_rect(entry), "the entry card is in view: {entry:?} in {canvas:?}");
    (canvas, entry)
}

#[test]
fn fit_stops_at_a_legible_zoom_on_the_entry_and_shows_the_whole_when_asked_again() {
    // Twelve cards in a row fit the default canvas at about 20%: boxes with no text.
    let (_dir, mut h) = open_workflow(row(12));
    let (canvas, entry) = fit_from_the_entry(&mut h);
    assert!((entry.center().y - canvas.center().y).abs() < 2.0, "level with the middle: {entry:?} in {canvas:?}");
    assert!(h.query(By::new().label("Minimap").role(Role::Image)).is_some(), "the minimap shows the rest");
    // Fit again: every card, however small.
    h.key_press(Key::F);
    h.run();
    let whole = on_screen(&h, card(&h, "n0").union(card(&h, "n11")));
    assert!(canvas.contains_rect(whole), "all twelve in view: {whole:?} in {canvas:?}");
    assert!(zoom(&h) < 0.4, "{}", zoom(&h));
    // A workflow that fits legibly is fitted whole at once.
    let (_dir, mut h) = open_workflow(row(3));
    view_at(&mut h, pos2(0.0, 0.0), 0.2);
    h.key_press(Key::F);
    h.run();
    let canvas = h.state().canvas_rect();
    assert!(canvas.contains_rect(on_screen(&h, card(&h, "n0").union(card(&h, "n2")))));
}

#[test]
fn fit_at_its_floor_centres_what_it_shows_and_keeps_the_entry_in_view() {
    // Two rows of twelve, the second 500 units below: at 40% both rows fit the canvas's
    // height. Fit put the entry level with the middle, so the rows sat in its lower half
    // over an empty upper half (seen with two chains stacked in a newcomer's run).
    let mut top = row(12);
    let lower = row(12);
    for (i, mut n) in lower["nodes"].as_array().unwrap().clone().into_iter().enumerate() {
        n["id"] = json!(format!("m{i}"));
        n["position"]["y"] = json!(500.0);
        top["nodes"].as_array_mut().unwrap().push(n);
    }
    let (_dir, mut h) = open_workflow(top);
    let (canvas, _) = fit_from_the_entry(&mut h);
    let rows = on_screen(&h, card(&h, "n0").union(card(&h, "m0")));
    assert!(canvas.contains_rect(rows), "both rows in view: {rows:?} in {canvas:?}");
    assert!((rows.center().y - canvas.center().y).abs() < 20.0, "the rows are centred: {rows:?} in {canvas:?}");
}

// ---------------------------------------------------------------------------------------
// Item 5: the view stays put

#[test]
fn resizing_the_window_keeps_the_zoom_and_the_centre() {
    // Resizing took 100% to 112%: the scene fitted the old view into the new size.
    let (_dir, mut h) = open_workflow(row(3));
    view_at(&mut h, pos2(400.0, 48.0), 1.0);
    for size in [vec2(1000.0, 700.0), vec2(1600.0, 1000.0), vec2(1440.0, 900.0)] {
        h.set_size(size);
        h.run();
        assert_view(&h, 1.0, pos2(400.0, 48.0), &format!("resizing to {size:?}"));
    }
}

#[test]
fn hiding_and_showing_the_side_panels_keeps_the_zoom_and_the_centre() {
    // Hiding the palette took 54% to 80%.
    let (_dir, mut h) = open_workflow(row(3));
    view_at(&mut h, pos2(300.0, 20.0), 0.54);
    for (panel, what) in [("Palette panel", "hiding"), ("Inspector panel", "hiding"), ("Palette panel", "showing")] {
        let before = h.state().canvas_rect();
        h.get_by_label("View").click();
        h.run();
        h.get(By::new().label_contains(panel).role(Role::CheckBox)).click();
        h.run();
        assert_ne!(h.state().canvas_rect(), before, "{what} the {panel} changes the canvas");
        assert_view(&h, 0.54, pos2(300.0, 20.0), &format!("{what} the {panel}"));
    }
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::ALT, Key::B);
    h.run();
    assert_view(&h, 0.54, pos2(300.0, 20.0), "showing the inspector by its shortcut");
}

#[test]
fn opening_the_problems_list_keeps_the_zoom_and_the_centre() {
    // Opening the problems panel took 75% to 48%: the canvas lost height, and the scene
    // fitted the old view into what was left.
    let (_dir, mut h) = open_workflow(with_a_warning(row(3)));
    h.state_mut().settle_lint(std::time::Duration::from_secs(60));
    h.run();
    view_at(&mut h, pos2(300.0, 20.0), 0.75);
    let before = h.state().canvas_rect();
    h.get(By::new().label_contains("1 warning").role(Role::Button)).click();
    h.run();
    assert!(h.state().canvas_rect().height() < before.height() - 20.0, "the list takes room from the canvas");
    assert_view(&h, 0.75, pos2(300.0, 20.0), "opening the problems list");
}

#[test]
fn a_cancelled_insert_returns_to_the_view_it_started_from() {
    // Cancelling an insert left the view at 23%, where the preview had framed it.
    let opts =
        StartOptions { files: Vec::new(), dialogs: Box::new(Script::default()), recovery_file: None, packs: bundled() };
    let mut h = harness(App::new(opts, None));
    view_at(&mut h, pos2(-800.0, 300.0), 1.3);
    let from = h.get_by_label("Triage queue").rect().center();
    let to = h.state().canvas_rect().center();
    drag(&mut h, from, to, Modifiers::NONE);
    assert!(h.state().form().is_some());
    assert!((zoom(&h) - 1.3).abs() > 0.01, "the preview frames its ghosts: {}", zoom(&h));
    h.get(By::new().label("Cancel").role(Role::Button)).click();
    h.run();
    assert!(h.state().form().is_none());
    assert_view(&h, 1.3, pos2(-800.0, 300.0), "cancelling the insert");
}

// ---------------------------------------------------------------------------------------
// Item 7: the minimap on a small canvas

#[test]
fn on_a_small_canvas_the_minimap_is_smaller_not_gone() {
    // Below a 560-point canvas the minimap vanished while its tick stayed on.
    let dir = tempfile::tempdir().unwrap();
    let file = ui_common::write_workflow(dir.path(), row(6));
    let mut h = sized(app_on(vec![file]), vec2(1000.0, 700.0));
    let canvas = h.state().canvas_rect();
    assert!(canvas.width() < 560.0, "at 1000x700 the canvas is narrow: {canvas:?}");
    let map = h.get(By::new().label("Minimap").role(Role::Image)).rect();
    assert!(canvas.contains_rect(map), "inside the canvas: {map:?} in {canvas:?}");
    assert!(map.width() < 210.0 && map.width() >= 90.0, "smaller than the full 210 points: {map:?}");
    assert!(map.width() <= canvas.width() * 0.4, "a corner of the canvas: {map:?} in {canvas:?}");
    // With the side panels hidden the canvas has room for the full size.
    h.key_press_modifiers(Modifiers::COMMAND, Key::B);
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::ALT, Key::B);
    h.run();
    let map = h.get(By::new().label("Minimap").role(Role::Image)).rect();
    assert_eq!(map.size(), vec2(210.0, 140.0));
    // In a window too small for even the smallest, it is hidden, and its toggle says when.
    h.set_size(vec2(320.0, 220.0));
    h.run();
    assert!(h.query(By::new().label("Minimap").role(Role::Image)).is_none());
    let tip = chainsmith::editor::commands::CommandId::ToggleMinimap.spec().tooltip;
    assert!(tip.contains("hidden") && tip.contains("240 × 172"), "{tip}");
}

#[test]
fn below_twenty_percent_a_card_keeps_its_title_while_it_is_three_glyphs_wide() {
    // Under 20% a card showed no title at all, so Fit on a real chain (19–40%) left boxes.
    let (_dir, mut h, per_point) = fg_queue();
    for z in [0.19, 0.15] {
        view_at(&mut h, pos2(265.0, 48.0), z);
        let c = on_screen(&h, card(&h, "fetch"));
        let title = glyphs_in(&h, c).unwrap_or_else(|| panic!("at {z} the card shows its title"));
        // Drawn at a size on screen (12 points, down to 16% less: 10.1), cut to the card's
        // width; its glyphs, rasterised at the font's size in the scene and scaled down,
        // measure up to a point less than at 1:1.
        let size = title.height() / per_point;
        assert!((9.0..12.5).contains(&size), "at {z} the title is {size} points: {title:?} in {c:?}");
        assert!(title.width() >= 12.0 && title.max.x <= c.max.x, "at {z}: {title:?} in {c:?}");
    }
    // At 13% the card is 28.6 points wide, under three glyphs and an ellipsis: no title.
    view_at(&mut h, pos2(265.0, 48.0), 0.13);
    let c = on_screen(&h, card(&h, "fetch"));
    assert_eq!(glyphs_in(&h, c), None, "at 13% an ellipsis would be all there is");
}

//! The editor's frame path, driven headlessly (issue 12): what stays still on the canvas is
//! drawn once and reused while only the pointer moves, large workflows in full view still
//! take clicks and drags on their tiny cards, and the findings come from the lint worker
//! instead of a frame.

mod ui_common;

use chainsmith::app::{App, NativeDialogs, StartOptions};
use chainsmith::pack::{LoadOutcome, bundled};
use chainsmith::workflow::{ExportMode, Workflow};
use egui::epaint::{ColorImage, ImageData, Mesh, Shape};
use egui::{Color32, Key, Modifiers, Pos2, Rect, TextureId, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use ui_common::{drag, harness, with_a_warning};

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

/// The app, and what its frames handed the renderer besides shapes: the last image each
/// texture was set to, and how many times it was set.
struct Shown {
    app: App,
    images: HashMap<TextureId, (Arc<ColorImage>, usize)>,
}

/// Like [`open`], keeping the images the frames set (headless, nothing renders them).
fn open_shown(file: PathBuf) -> Harness<'static, Shown> {
    let opts =
        StartOptions { files: vec![file], dialogs: Box::new(NativeDialogs), recovery_file: None, packs: bundled() };
    let shown = Shown { app: App::new(opts, None), images: HashMap::new() };
    let mut h =
        Harness::builder().with_size([1440.0, 900.0]).with_step_dt(1.0 / 60.0).with_max_steps(64).build_ui_state(
            |ui, s: &mut Shown| {
                s.app.show(ui);
                // What the frame set goes to the renderer when the frame ends: take it first.
                let mut delta = ui.ctx().tex_manager().write().take_delta();
                for (id, deltas) in delta.set.drain() {
                    for d in deltas.into_iter().filter(|d| d.pos.is_none()) {
                        let ImageData::Color(image) = d.image;
                        let entry = s.images.entry(id).or_insert_with(|| (Arc::clone(&image), 0));
                        *entry = (image, entry.1 + 1);
                    }
                }
            },
            shown,
        );
    h.run();
    h
}

/// The canvas zoomed far out: the still drawing's mesh (grid, frames), the texture its edges
/// and cards are drawn into, and where that is on screen. They are the two shapes the canvas
/// puts under its scene, in that order.
fn far_view(h: &Harness<'_, Shown>) -> (Arc<Mesh>, TextureId, Rect) {
    let meshes: Vec<&Arc<Mesh>> = h
        .output()
        .shapes
        .iter()
        .filter_map(|c| match &c.shape {
            Shape::Mesh(m) => Some(m),
            _ => None,
        })
        .collect();
    let k = meshes
        .iter()
        .position(|m| m.texture_id != TextureId::default() && h.state().images.contains_key(&m.texture_id))
        .expect("the far view is drawn as a texture");
    let quad = meshes[k];
    assert_eq!(quad.vertices.len(), 4, "one quad");
    (Arc::clone(meshes[k - 1]), quad.texture_id, quad.calc_bounds())
}

/// An image as shown on screen over `rect`.
struct Picture {
    image: Arc<ColorImage>,
    rect: Rect,
}

impl Picture {
    fn of(h: &Harness<'_, Shown>) -> Self {
        let (_, id, rect) = far_view(h);
        Self { image: Arc::clone(&h.state().images[&id].0), rect }
    }

    /// The pixel at screen point `p`.
    fn at(&self, p: Pos2) -> Color32 {
        let [w, hgt] = self.image.size;
        let x = ((p.x - self.rect.min.x) / self.rect.width() * w as f32) as usize;
        let y = ((p.y - self.rect.min.y) / self.rect.height() * hgt as f32) as usize;
        self.image.pixels[y * w + x]
    }

    /// The bounds (screen points) of each patch of pixels of exactly `color`, pixels side by
    /// side counting as one patch.
    fn patches(&self, color: Color32) -> Vec<Rect> {
        let [w, hgt] = self.image.size;
        let px = &self.image.pixels;
        let scale = self.rect.width() / w as f32;
        let mut seen = vec![false; px.len()];
        let mut out = Vec::new();
        for start in 0..px.len() {
            if seen[start] || px[start] != color {
                continue;
            }
            seen[start] = true;
            let mut stack = vec![start];
            let mut bounds = Rect::NOTHING;
            while let Some(i) = stack.pop() {
                let (x, y) = (i % w, i / w);
                let pixel = Rect::from_min_size(pos2(x as f32, y as f32), egui::vec2(1.0, 1.0));
                bounds = bounds.union(pixel);
                let near = [
                    (x > 0).then(|| i - 1),
                    (x + 1 < w).then_some(i + 1),
                    (y > 0).then(|| i - w),
                    (y + 1 < hgt).then_some(i + w),
                ];
                for j in near.into_iter().flatten() {
                    if !seen[j] && px[j] == color {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
            let on_screen = |p: Pos2| self.rect.min + p.to_vec2() * scale;
            out.push(Rect::from_min_max(on_screen(bounds.min), on_screen(bounds.max)));
        }
        out
    }
}

/// Where card `i` of the grid is on screen (its centre).
fn card_on_screen(app: &App, i: usize) -> Pos2 {
    let at = pos2((i % 40) as f32 * 320.0 + 110.0, (i / 40) as f32 * 150.0 + 48.0);
    app.canvas_to_screen(at)
}

/// Fit twice: a workflow opens legible at its entry, Fit stops at 40% there, and asked
/// again shows every card, far out.
fn show_every_card<S>(h: &mut Harness<'_, S>) {
    for _ in 0..2 {
        h.key_press(Key::F);
        h.run();
    }
}

/// Rest the pointer on `at` for a while (the canvas picks which tiny cards take input from
/// where the pointer is), then press and release there within one frame.
fn click_after_hovering<S>(h: &mut Harness<'_, S>, at: Pos2) {
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
    let mut h = open_shown(write(dir.path(), grid(200)));
    let canvas = h.state().app.canvas_rect();
    h.hover_at(canvas.center());
    show_every_card(&mut h);
    let (before, far, _) = far_view(&h);
    let uploads = |h: &Harness<'_, Shown>| h.state().images[&far].1;
    let drawn = uploads(&h);
    for f in [0.2, 0.4, 0.6] {
        h.hover_at(canvas.min + canvas.size() * f);
        h.run();
        assert!(Arc::ptr_eq(&before, &far_view(&h).0), "pointer moves reuse the drawing");
        assert_eq!(uploads(&h), drawn, "and its pixels");
    }
    let card = Picture::of(&h).at(card_on_screen(&h.state().app, 0));
    assert_eq!(card.a(), 255, "a card is drawn where it is");
    // Selecting changes the drawing: drawn again, once, every card in the selection's colour.
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    assert_eq!(uploads(&h), drawn + 1);
    let selected = Picture::of(&h);
    let accent = selected.at(card_on_screen(&h.state().app, 0));
    assert_ne!(accent, card);
    assert!((0..200).all(|i| selected.at(card_on_screen(&h.state().app, i)) == accent));
    h.hover_at(canvas.center());
    h.run();
    assert_eq!(uploads(&h), drawn + 1);
    // So does an edit.
    h.key_press(Key::Delete);
    h.run();
    assert_eq!(h.state().app.doc().workflow().node_count(), 0);
    assert!(uploads(&h) > drawn + 1);
    assert!(Picture::of(&h).image.pixels.iter().all(|c| c.a() == 0), "the deleted cards are gone from it");
}

#[test]
fn tiny_cards_in_full_view_still_take_clicks_and_drags() {
    let dir = tempfile::tempdir().unwrap();
    // 1,200 cards in view: more than take input all at once.
    let mut h = open(write(dir.path(), grid(1_200)), LoadOutcome::default());
    show_every_card(&mut h);
    let zoom = h.state().canvas_to_screen(pos2(1.0, 0.0)).x - h.state().canvas_to_screen(pos2(0.0, 0.0)).x;
    assert!(zoom < 0.15, "everything in view makes the cards tiny: zoom {zoom}");

    let target = 41 * 5 + 7;
    let at = card_on_screen(h.state(), target);
    click_after_hovering(&mut h, at);
    h.run();
    assert_eq!(h.state().doc().selection.node_ids(), vec![format!("n{target}")]);

    // Drag it by 20 screen points: it moves by 20 / zoom canvas units.
    drag(&mut h, at, at + egui::vec2(20.0, 0.0), Modifiers::NONE);
    let wf = h.state().doc().workflow();
    let (x, _) = wf.graph[wf.node(&format!("n{target}")).unwrap()].position();
    let expected = (target % 40) as f64 * 320.0 + 20.0 / f64::from(zoom);
    assert!((x - expected).abs() < 25.0, "moved to x {x}, expected about {expected}");
}

#[test]
fn zoomed_far_out_every_card_is_drawn_where_it_is_and_the_selection_shows() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open_shown(write(dir.path(), grid(1_200)));
    show_every_card(&mut h);
    let picture = Picture::of(&h);
    // Every card a patch of its own in its colour (all are `core.noop`), at its place.
    let card = picture.at(card_on_screen(&h.state().app, 0));
    assert_eq!(card.a(), 255);
    assert_eq!(picture.patches(card).len(), 1_200, "one patch per card");
    assert!((0..1_200).all(|i| picture.at(card_on_screen(&h.state().app, i)) == card));

    let target = 40 * 11 + 23;
    let at = card_on_screen(&h.state().app, target);
    click_after_hovering(&mut h, at);
    h.hover_at(h.state().app.canvas_rect().min + egui::vec2(2.0, 2.0));
    h.run();
    assert_eq!(h.state().app.doc().selection.node_ids(), vec![format!("n{target}")]);
    let picture = Picture::of(&h);
    let accent = picture.at(at);
    assert_ne!(accent, card, "the selected card is drawn in another colour");
    assert_eq!(picture.patches(card).len(), 1_199, "the others as before");

    // Zoomed out until a card is about two pixels by one: the selected one gets a ring
    // a few pixels clear of it, so it can still be found.
    let size = h.state().app.canvas_rect().size() / 0.01;
    h.state_mut().app.set_canvas_view(Rect::from_center_size(pos2(6_400.0, 2_200.0), size));
    h.run();
    let at = card_on_screen(&h.state().app, target);
    let mark = Picture::of(&h).patches(accent).into_iter().reduce(|a, b| a.union(b)).expect("the selection is drawn");
    assert!(mark.width() >= 8.0 && mark.height() >= 8.0, "a mark at least 8 points across: {mark:?}");
    assert!(mark.shrink(3.0).contains(at), "around the card at {at:?}: {mark:?}");
}

#[test]
fn zoomed_far_out_the_card_under_the_pointer_is_outlined() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open_shown(write(dir.path(), grid(1_200)));
    show_every_card(&mut h);
    let target = 40 * 7 + 9;
    let at = card_on_screen(&h.state().app, target);
    let zoom = h.state().app.canvas_to_screen(pos2(1.0, 0.0)).x - h.state().app.canvas_to_screen(Pos2::ZERO).x;
    // Outlines the frame hands the renderer (on screen) around that card.
    let outlines = |h: &Harness<'_, Shown>| {
        h.output()
            .shapes
            .iter()
            .filter_map(|c| match &c.shape {
                Shape::Rect(r) if r.stroke.width > 0.0 && r.rect.contains(at) && r.rect.width() < 100.0 => Some(r.rect),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert!(outlines(&h).is_empty(), "nothing is outlined before the pointer comes");
    h.hover_at(at);
    h.run();
    let rings = outlines(&h);
    assert_eq!(rings.len(), 1, "{rings:?}");
    // The card is 220 x 96 canvas units, a few points on screen: the ring is at least 7.
    let ring = rings[0];
    assert!(ring.width() >= 7.0 && ring.height() >= 7.0, "{ring:?}");
    assert!(ring.width() >= 220.0 * zoom && ring.height() >= 96.0 * zoom, "around the whole card: {ring:?}");
}

#[test]
fn findings_come_from_the_lint_worker() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(write(dir.path(), with_a_warning(grid(2))), bundled());
    h.state_mut().settle_lint(Duration::from_secs(60));
    h.run();
    assert!(h.query_by_label_contains("1 warning").is_some(), "the worker's findings are shown");

    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    h.key_press(Key::Delete);
    h.run();
    assert_eq!(h.state().doc().workflow().node_count(), 0);
    // The frame did not lint: the last findings stay until the worker has the new ones.
    assert!(h.query_by_label_contains("1 warning").is_some());
    h.state_mut().settle_lint(Duration::from_secs(60));
    h.run();
    assert!(h.query_by_label_contains("no problems").is_some());
}

#[test]
fn the_findings_show_once_the_worker_answers_with_no_input_after() {
    // The worker's answer is taken after the status bar is drawn. Opening a 100,000-node
    // workflow, every other frame had settled by then, so the bar said "checking…" until
    // the pointer moved.
    let dir = tempfile::tempdir().unwrap();
    let mut h = open(write(dir.path(), with_a_warning(grid(2))), bundled());
    let mut frames = 0;
    while h.ctx.has_requested_repaint() && frames < 2_000 {
        std::thread::sleep(Duration::from_millis(5));
        h.step();
        frames += 1;
    }
    assert!(!h.ctx.has_requested_repaint(), "the frames settle");
    assert!(h.query_by_label_contains("1 warning").is_some(), "the last frame shows the worker's findings");
}

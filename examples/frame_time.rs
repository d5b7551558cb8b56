//! CPU time of the editor's frames on large workflows, and the time to the first frame,
//! measured headless (no window, no GPU): the app's real UI runs in an egui context and
//! its output is tessellated as a renderer would need it.
//!
//! `cargo run --release --example frame_time` prints medians for 500, 5,000 and 20,000
//! nodes, with everything in view (lowest detail), at 45% (names and ports, the most
//! cards with text) and at 1:1 zoom (full detail); then, with everything in view, while
//! 500 selected nodes are dragged, and after an edit (the worst frame of the 0.6 s that
//! follow it: the one that applies it, the one that redraws everything, and the ones in
//! which the lint of the new revision starts and its findings arrive). The whole frame is
//! the UI pass plus tessellation, both in CPU time of the UI thread; the canvas pass (part
//! of the UI pass) is the app's own wall-clock figure, so on a busy machine it can read
//! more than the UI pass around it. Each "first frame" time is wall clock from nothing to
//! the first frame that draws the editor (the very first frame only loads the fonts); the
//! registry one opens the 140 packs of the shared corpus (`CHAINSMITH_SHARED` or
//! `../shared`) at start.
//! `cargo run --release --example frame_time -- --write FILE N` writes a generated
//! workflow with N nodes instead (the screenshot script opens one).
//! `cargo run --release --example frame_time -- --nodes N` measures N nodes only (for a profiler).

#[path = "../tests/ui_common/dialogs.rs"]
mod dialogs;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use chainsmith::workflow::{ExportMode, Workflow};
use dialogs::Script;
use egui::{Key, Modifiers, Pos2, Rect, pos2, vec2};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The allocator the `chainsmith` binary (and so the editor) runs with.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SCREEN: [f32; 2] = [1440.0, 900.0];
const FRAMES: usize = 60;
/// Edits measured per size (each followed by 0.6 s of idle frames).
const EDITS: usize = 16;

/// A workflow of `n` nodes on a grid, each row a chain, with cross links between rows and
/// a conditional edge every so often (so labels are drawn too).
fn generated(n: usize) -> Workflow {
    let types =
        ["vendor.chainsmith.http-request", "vendor.chainsmith.classify", "vendor.chainsmith.sheet-append", "core.noop"];
    let cols = ((n as f64).sqrt() * 0.8).ceil() as usize;
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            let (r, c) = (i / cols, i % cols);
            json!({"id": format!("n{i}"), "typeId": types[i % types.len()], "name": format!("Step {i}"),
                   "position": {"x": c * 320, "y": r * 150}, "config": {}, "inputs": {}})
        })
        .collect();
    let mut edges = Vec::new();
    for i in 0..n {
        if (i + 1) % cols != 0 && i + 1 < n {
            let mut e =
                json!({"id": format!("e{i}"), "sourceNodeId": format!("n{i}"), "targetNodeId": format!("n{}", i + 1)});
            if i % 7 == 0 {
                e["condition"] = json!({"type": "truthy", "left": "output.ok"});
            }
            edges.push(e);
        }
        if i % 5 == 0 && i + cols < n {
            edges.push(json!({"id": format!("x{i}"), "sourceNodeId": format!("n{i}"), "targetNodeId": format!("n{}", i + cols)}));
        }
    }
    let doc = json!({"id": "generated", "name": format!("Generated {n}"), "version": "1.0.0", "nodes": nodes,
                     "edges": edges, "triggers": [], "variables": [], "metadata": {}, "settings": {}});
    Workflow::from_json(doc).expect("a generated workflow is valid")
}

fn app() -> App {
    let opts =
        StartOptions { files: Vec::new(), dialogs: Box::new(Script::default()), recovery_file: None, packs: bundled() };
    App::new(opts, None)
}

fn input(events: Vec<egui::Event>, modifiers: Modifiers) -> egui::RawInput {
    let mut all = vec![egui::Event::ModifiersChanged(modifiers)];
    all.extend(events);
    egui::RawInput {
        screen_rect: Some(Rect::from_min_size(Pos2::ZERO, SCREEN.into())),
        events: all,
        ..Default::default()
    }
}

/// One frame with the pointer at `pointer`: returns (canvas pass, whole UI pass, tessellation).
fn frame(ctx: &egui::Context, app: &mut App, pointer: Option<Pos2>) -> (Duration, Duration, Duration) {
    frame_with(ctx, app, pointer.map(egui::Event::PointerMoved).into_iter().collect(), Modifiers::NONE)
}

/// One frame with these input events.
fn frame_with(
    ctx: &egui::Context,
    app: &mut App,
    events: Vec<egui::Event>,
    modifiers: Modifiers,
) -> (Duration, Duration, Duration) {
    let t0 = cpu_time();
    let mut out = ctx.run_ui(input(events, modifiers), |ui| app.show(ui));
    let t1 = cpu_time();
    let shapes = std::mem::take(&mut out.shapes);
    let prims = ctx.tessellate(shapes, out.pixels_per_point);
    let (ui_time, tess) = (t1 - t0, cpu_time() - t1);
    std::hint::black_box(prims);
    out.textures_delta.clear();
    (app.canvas_pass_time(), ui_time, tess)
}

/// CPU time of this thread: what a frame costs, however busy the machine is (on a shared
/// machine the wall clock also counts the time other processes had the CPU).
#[cfg(unix)]
fn cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "the thread CPU clock is readable");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Elsewhere: the wall clock.
#[cfg(not(unix))]
fn cpu_time() -> Duration {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

fn button(pos: Pos2, pressed: bool, modifiers: Modifiers) -> egui::Event {
    egui::Event::PointerButton { pos, button: egui::PointerButton::Primary, pressed, modifiers }
}

fn key(key: Key, modifiers: Modifiers) -> egui::Event {
    egui::Event::Key { key, physical_key: None, pressed: true, repeat: false, modifiers }
}

/// Medians of (canvas, UI, tessellation) samples, printed in the one format.
struct Samples(Vec<Duration>, Vec<Duration>, Vec<Duration>);

impl Samples {
    fn new() -> Self {
        Self(Vec::new(), Vec::new(), Vec::new())
    }

    fn push(&mut self, (c, u, t): (Duration, Duration, Duration)) {
        self.0.push(c);
        self.1.push(u);
        self.2.push(t);
    }

    fn print(self, n: usize, name: &str) {
        let count = self.0.len();
        println!(
            "{n:>6} nodes, {name}: canvas pass {:6.2} ms | whole UI pass {:6.2} ms | tessellation {:6.2} ms (medians of {count})",
            median(self.0),
            median(self.1),
            median(self.2)
        );
    }
}

/// Select 500 nodes (20 columns by 25 rows of the grid) with a shift-drag box, then drag
/// them by a card; then undo and redo that move, each an edit.
fn drag_and_edit(ctx: &egui::Context, app: &mut App, n: usize) {
    let shift = Modifiers::SHIFT;
    // Above the grid, halfway to the canvas's top edge: on no card, nor within egui's
    // reach of one (at 20,000 nodes the gaps between cards are narrower than that).
    let canvas = app.canvas_rect();
    let from = pos2(canvas.min.x + 2.0, (canvas.min.y + app.canvas_to_screen(Pos2::ZERO).y) / 2.0);
    let to = app.canvas_to_screen(pos2(20.0 * 320.0 - 50.0, 25.0 * 150.0 - 40.0));
    frame_with(ctx, app, vec![egui::Event::PointerMoved(from)], shift);
    frame_with(ctx, app, vec![button(from, true, shift)], shift);
    for i in 1..=10 {
        frame_with(ctx, app, vec![egui::Event::PointerMoved(from.lerp(to, i as f32 / 10.0))], shift);
    }
    frame_with(ctx, app, vec![button(to, false, shift)], shift);
    frame(ctx, app, Some(to));
    let selected = app.doc().selection.node_ids().len();
    assert_eq!(selected, 500, "the box selects 20 x 25 cards");

    // Press on the first card and drag the selection across the canvas.
    let grab = app.canvas_to_screen(pos2(110.0, 40.0));
    frame(ctx, app, Some(grab));
    frame_with(ctx, app, vec![button(grab, true, Modifiers::NONE)], Modifiers::NONE);
    let mut drag = Samples::new();
    let mut p = grab;
    for i in 0..FRAMES {
        p += vec2(3.0, if i % 2 == 0 { 2.0 } else { -1.0 });
        drag.push(frame(ctx, app, Some(p)));
    }
    frame_with(ctx, app, vec![button(p, false, Modifiers::NONE)], Modifiers::NONE);
    frame(ctx, app, Some(p));
    drag.print(n, "drag 500   ");

    // Undo and redo the move, in turn. After each edit the editor idles as it would: the
    // lint starts once edits pause, and every frame until the next edit counts.
    let mut edit = Samples::new();
    let idle = canvas_point(app, 0.5);
    for i in 0..EDITS {
        let mods = if i % 2 == 0 { Modifiers::COMMAND } else { Modifiers::COMMAND | Modifiers::SHIFT };
        let mut worst = frame_with(ctx, app, vec![key(Key::Z, mods)], mods);
        let until = Instant::now() + Duration::from_millis(600);
        while Instant::now() < until {
            let f = frame(ctx, app, Some(idle));
            if f.1 + f.2 > worst.1 + worst.2 {
                worst = f;
            }
            std::thread::sleep(Duration::from_millis(12));
        }
        edit.push(worst);
    }
    edit.print(n, "after edit ");
}

/// A point on the canvas, `f` of the way along its diagonal.
fn canvas_point(app: &App, f: f32) -> Pos2 {
    let c = app.canvas_rect();
    c.min + c.size() * f
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1000.0
}

fn measure(n: usize) {
    let wf = generated(n);
    let bounds = wf.bounds().expect("nodes");
    let mut app = app();
    app.replace_workflow(wf, None);
    let ctx = egui::Context::default();
    // Warm up: fonts, galley caches, the drawing cache.
    for _ in 0..5 {
        frame(&ctx, &mut app, None);
    }
    let canvas = app.canvas_rect();
    let all = app.canvas_view();
    let centre = pos2(bounds.2 as f32 / 2.0, bounds.3 as f32 / 2.0);
    let views: [(&str, Option<Rect>); 3] = [
        ("all in view", None),
        ("45% zoom   ", Some(Rect::from_center_size(centre, canvas.size() / 0.45))),
        ("1:1 zoom   ", Some(Rect::from_center_size(centre, canvas.size()))),
    ];
    for (name, view) in views {
        if let Some(v) = view {
            app.set_canvas_view(v);
            frame(&ctx, &mut app, None);
        }
        let mut samples = Samples::new();
        for i in 0..FRAMES {
            // The pointer sweeps across the canvas, so hover and hit tests are exercised.
            let f = i as f32 / FRAMES as f32;
            let p = canvas.min + vec2(canvas.width() * f, canvas.height() * (0.3 + 0.4 * f));
            samples.push(frame(&ctx, &mut app, Some(p)));
        }
        samples.print(n, name);
    }
    if n >= 5_000 {
        // Back to everything in view: the most cards to drag past and to redraw.
        app.set_canvas_view(all);
        frame(&ctx, &mut app, None);
        drag_and_edit(&ctx, &mut app, n);
    }
}

/// Milliseconds from nothing to the first frame that draws the editor, with `files` opened
/// at start (median of `runs`).
fn first_frame(files: &[PathBuf], runs: usize) -> f64 {
    let mut times = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let opts = StartOptions {
            files: files.to_vec(),
            dialogs: Box::new(Script::default()),
            recovery_file: None,
            packs: bundled(),
        };
        let mut app = App::new(opts, None);
        let ctx = egui::Context::default();
        // The first frame loads the fonts and draws nothing; the second draws the editor.
        frame(&ctx, &mut app, None);
        frame(&ctx, &mut app, None);
        times.push(start.elapsed());
    }
    median(times)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, path, n] = args.as_slice()
        && flag == "--write"
    {
        let n: usize = n.parse().expect("N is a number");
        generated(n).save(std::path::Path::new(path), ExportMode::Faithful).expect("writable path");
        return;
    }
    // One size only (for a profiler): its views, the drag and the edits.
    if let [flag, n] = args.as_slice()
        && flag == "--nodes"
    {
        measure(n.parse().expect("N is a number"));
        return;
    }
    println!("cold start to first frame (headless, bundled packs): {:.1} ms", first_frame(&[], 5));
    let shared = std::env::var_os("CHAINSMITH_SHARED").map_or_else(|| PathBuf::from("../shared"), PathBuf::from);
    let registry = shared.join("corpus/registry/packs");
    if registry.is_dir() {
        let ms = first_frame(std::slice::from_ref(&registry), 5);
        println!("open the 140-pack registry folder to first frame (headless): {ms:.1} ms");
    } else {
        println!("open the 140-pack registry folder to first frame: skipped, no {}", registry.display());
    }
    for n in [500, 5_000, 20_000] {
        measure(n);
    }
}

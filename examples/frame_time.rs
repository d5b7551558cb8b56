//! CPU time of the editor's canvas pass on large workflows, and cold start to first frame,
//! measured headless (no window, no GPU): the app's real UI runs in an egui context and
//! its output is tessellated as a renderer would need it.
//!
//! `cargo run --release --example frame_time` prints medians for 500, 5,000 and 20,000
//! nodes, with everything in view (lowest detail), at 45% (names and ports, the most
//! cards with text) and at 1:1 zoom (full detail).
//! `cargo run --release --example frame_time -- --write FILE N` writes a generated
//! workflow with N nodes instead (the screenshot script opens one).

use chainsmith::app::{App, FileDialogs, StartOptions};
use chainsmith::pack::bundled;
use chainsmith::workflow::{ExportMode, Workflow};
use egui::{Pos2, Rect, pos2, vec2};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const SCREEN: [f32; 2] = [1440.0, 900.0];
const FRAMES: usize = 60;

/// No dialogs: nothing here opens or saves files.
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
    let opts = StartOptions { files: Vec::new(), dialogs: Box::new(NoDialogs), recovery_file: None, packs: bundled() };
    App::new(opts, None)
}

fn input(pointer: Option<Pos2>) -> egui::RawInput {
    let mut raw =
        egui::RawInput { screen_rect: Some(Rect::from_min_size(Pos2::ZERO, SCREEN.into())), ..Default::default() };
    if let Some(p) = pointer {
        raw.events.push(egui::Event::PointerMoved(p));
    }
    raw
}

/// One frame: returns (canvas pass, whole UI pass, tessellation).
fn frame(ctx: &egui::Context, app: &mut App, pointer: Option<Pos2>) -> (Duration, Duration, Duration) {
    let t0 = Instant::now();
    let mut out = ctx.run_ui(input(pointer), |ui| app.show(ui));
    let ui_time = t0.elapsed();
    let t1 = Instant::now();
    let shapes = std::mem::take(&mut out.shapes);
    let prims = ctx.tessellate(shapes, out.pixels_per_point);
    let tess = t1.elapsed();
    std::hint::black_box(prims);
    out.textures_delta.clear();
    (app.canvas_pass_time(), ui_time, tess)
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
        let (mut c, mut u, mut t) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..FRAMES {
            // The pointer sweeps across the canvas, so hover and hit tests are exercised.
            let f = i as f32 / FRAMES as f32;
            let p = canvas.min + vec2(canvas.width() * f, canvas.height() * (0.3 + 0.4 * f));
            let (cv, ui, tess) = frame(&ctx, &mut app, Some(p));
            c.push(cv);
            u.push(ui);
            t.push(tess);
        }
        println!(
            "{n:>6} nodes, {name}: canvas pass {:6.2} ms | whole UI pass {:6.2} ms | tessellation {:6.2} ms (medians of {FRAMES})",
            median(c),
            median(u),
            median(t)
        );
    }
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
    let start = Instant::now();
    let mut first = app();
    let ctx = egui::Context::default();
    frame(&ctx, &mut first, None);
    println!("cold start to first frame (headless, bundled packs): {:.1} ms", start.elapsed().as_secs_f64() * 1000.0);
    for n in [500, 5_000, 20_000] {
        measure(n);
    }
}

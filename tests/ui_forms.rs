//! Issue 37, the forms and words of the editor (egui_kittest): the Extract-as-chain dialog
//! lays its table and its preview side by side without overlap; a palette tile warns what
//! inserting it would warn; messages name nodes by their titles; a control stays under
//! the pointer in the frame after a click.

mod common;
mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use chainsmith::workflow::{ExportMode, Workflow};
use egui::accesskit::Role;
use egui::{Modifiers, Rect, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::json;
use std::path::{Path, PathBuf};
use ui_common::{Script, drag};

fn sized(files: Vec<PathBuf>, w: f32, h: f32) -> Harness<'static, App> {
    let app = App::new(StartOptions { files, dialogs: Box::new(Script::default()), recovery_file: None, packs: bundled() }, None);
    let mut h = Harness::builder()
        .with_size([w, h])
        .with_step_dt(1.0 / 60.0)
        .with_max_steps(64)
        .build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

/// start → fetch → log → finish, with ids as long as real ones; fetch holds a long url, a
/// number and a nested header, log a long string.
fn feeds(dir: &Path) -> PathBuf {
    let v = json!({
        "id": "feeds", "name": "Feeds", "version": "1.0.0",
        "nodes": [
            {"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
            {"id": "support_triage_d869_fetch", "typeId": "vendor.chainsmith.http-request", "name": "Fetch feed",
             "position": {"x": 320, "y": 0},
             "config": {"url": "https://feeds.example.test/a/rather/long/path/to/the/feed.xml?with=query&and=more", "retries": 3,
                        "headers": {"X-Feed-Authorization-Token": "a-long-token-value-for-the-feed-server"}},
             "inputs": {}},
            {"id": "support_triage_d869_log", "typeId": "vendor.chainsmith.sheet-append", "name": "Append rows", "position": {"x": 640, "y": 0},
             "config": {"sheet": "The quarterly log sheet of every feed we read"}, "inputs": {}},
            {"id": "finish", "typeId": "core.end", "name": "Finish", "position": {"x": 1280, "y": 0}, "config": {}, "inputs": {}}
        ],
        "edges": [
            {"id": "e1", "sourceNodeId": "start", "targetNodeId": "support_triage_d869_fetch"},
            {"id": "e2", "sourceNodeId": "support_triage_d869_fetch", "targetNodeId": "support_triage_d869_log"},
            {"id": "e3", "sourceNodeId": "support_triage_d869_log", "targetNodeId": "finish"}
        ],
        "triggers": [], "variables": [], "metadata": {}, "settings": {}
    });
    let p = dir.join("feeds.json");
    Workflow::from_json(v).unwrap().save(&p, ExportMode::Faithful).unwrap();
    p
}

fn rect_of(h: &Harness<'_, App>, by: By<'_>) -> Rect {
    h.get(by).rect()
}

/// Open the Extract dialog on fetch and append with every value ticked, so the preview's
/// form has a field per value.
fn open_extract(h: &mut Harness<'_, App>) {
    let a = h.state().canvas_to_screen(pos2(280.0, -60.0));
    let b = h.state().canvas_to_screen(pos2(1200.0, 200.0));
    drag(h, a, b, Modifiers::SHIFT);
    assert_eq!(h.state().selected_nodes(), ["support_triage_d869_fetch", "support_triage_d869_log"]);
    h.get(By::new().label("Extract as chain…").role(Role::Button)).click();
    h.run();
    for place in [
        "support_triage_d869_fetch /config/url",
        "support_triage_d869_fetch /config/retries",
        "support_triage_d869_fetch /config/headers/X-Feed-Authorization-Token",
        "support_triage_d869_log /config/sheet",
    ] {
        h.get(By::new().label(place).role(Role::CheckBox)).click();
        h.run();
    }
}

/// Item 6: at both sizes, no row of the values table (checkbox, name, value) reaches into
/// the preview column (tile, findings, parameter form), and every value stays inside the
/// dialog.
#[test]
fn the_extract_dialog_keeps_its_table_and_its_preview_apart() {
    for (w, hh) in [(1000.0, 700.0), (1600.0, 1000.0)] {
        let dir = tempfile::tempdir().unwrap();
        let mut h = sized(vec![feeds(dir.path())], w, hh);
        open_extract(&mut h);
        let preview = [
            rect_of(&h, By::new().label("Tile")),
            rect_of(&h, By::new().label("Its parameter form")),
        ];
        let left_edge = preview.iter().map(|r| r.left()).fold(f32::INFINITY, f32::min);
        // The table's cells: its checkboxes and name fields (labelled by their node and
        // pointer), and its value labels.
        let table: Vec<(String, Rect)> = h
            .query_all(By::new().predicate(|n| {
                let row = n.label().is_some_and(|l| l.starts_with("support_triage_d869_"));
                let value = n.role() == Role::Label
                    && n.value().is_some_and(|v| ["https://feeds", "The quarterly", "a-long-token"].iter().any(|p| v.starts_with(p)));
                row || value
            }))
            .map(|n| (n.accesskit_node().label().or_else(|| n.value()).unwrap_or_default(), n.rect()))
            .collect();
        assert_eq!(table.len(), 4 * 2 + 3, "{w}x{hh}: the table's cells are found: {table:?}");
        let window = rect_of(&h, By::new().label("Resize window right edge"));
        assert!(window.right() <= w, "{w}x{hh}: the dialog stays on the screen (right edge at {})", window.right());
        for (what, r) in &table {
            assert!(r.right() <= left_edge, "{w}x{hh}: {what} at {r:?} reaches into the preview from x={left_edge}");
        }
    }
}


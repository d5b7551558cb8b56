//! Single node types in the editor, driven through the real widgets (egui_kittest): a node
//! type dragged from the palette's Catalog section inserts one node, its config is edited
//! through the form generated from the type's config schema, and connections between ports
//! whose types do not fit are refused with their reason.
//!
//! The editor starts with only the bundled node pack, so the palette shows the Catalog
//! section alone; canvas widgets live in an `egui::Scene`, whose accessibility rects are in
//! canvas coordinates (`canvas_to_screen` maps them).

mod ui_common;

use chainsmith::app::{App, NativeDialogs, StartOptions};
use chainsmith::pack::{PackKind, bundled};
use chainsmith::workflow::{ExportMode, Workflow};
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::{Value, json};
use std::path::PathBuf;
use ui_common::{click_still, drag, harness, type_into};

/// The editor with the bundled node pack only, opening `files`.
fn start(files: Vec<PathBuf>) -> Harness<'static, App> {
    let mut packs = bundled();
    packs.packs.retain(|p| p.kind == PackKind::Node);
    let opts = StartOptions { files, dialogs: Box::new(NativeDialogs), recovery_file: None, packs };
    harness(App::new(opts, None))
}

fn json_of(h: &Harness<'_, App>) -> Value {
    h.state().doc().workflow().to_json(ExportMode::Faithful)
}

/// Where a canvas widget (node card, port) is on screen.
fn on_screen(h: &Harness<'_, App>, label: &str) -> Pos2 {
    let rect = h.get(By::new().label(label).role(Role::Button)).rect();
    h.state().canvas_to_screen(rect.center())
}

fn apply_config<'a>(h: &'a Harness<'_, App>) -> egui_kittest::Node<'a> {
    h.get(By::new().label("Apply config").role(Role::Button))
}

#[test]
fn a_node_type_from_the_catalog_is_inserted_and_configured_through_its_form() {
    let mut h = start(Vec::new());
    // The search filters the Catalog section (and opens it).
    type_into(&mut h, "Search tiles", "http");
    assert!(h.query_by_label("Node type Send page").is_none(), "other types are filtered out");
    let from = h.get_by_label("Node type HTTP request").rect().center();
    let to = h.state().canvas_rect().center();
    drag(&mut h, from, to, Modifiers::NONE);

    let wf = json_of(&h);
    let nodes = wf["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 1, "one node is inserted: {wf}");
    assert_eq!(nodes[0]["id"], "http-request");
    assert_eq!(nodes[0]["typeId"], "vendor.chainsmith.http-request");
    assert_eq!(nodes[0]["config"], json!({"method": "GET"}), "the required enum starts at its first option");
    assert_eq!(h.state().doc().selection.node_ids(), ["http-request"], "the new node is selected");
    // Dropped where the pointer let go, on the grid.
    let at = h.state().screen_to_canvas(to);
    let (x, y) = (nodes[0]["position"]["x"].as_f64().unwrap(), nodes[0]["position"]["y"].as_f64().unwrap());
    assert!((x - f64::from(at.x)).abs() <= 10.0 && (y - f64::from(at.y)).abs() <= 10.0, "{x},{y} vs {at:?}");

    // The inspector's config form: the stored config lacks the required url, and says so.
    assert_eq!(
        h.query_all_by_label_contains("Url is required").count(),
        2,
        "the missing field is flagged under it and in the summary"
    );
    assert!(h.query_by_label_contains("node_config_invalid").is_some(), "the summary names the code");
    assert!(apply_config(&h).accesskit_node().is_disabled());

    // An integer field keeps what was typed and shows the schema's message; Apply is refused.
    type_into(&mut h, "Timeout ms", "soon");
    assert_eq!(h.query_all_by_label_contains("\"soon\" is not of type \"integer\"").count(), 2, "field and summary");
    assert!(apply_config(&h).accesskit_node().is_disabled(), "Apply stays off while anything is invalid");
    assert_eq!(json_of(&h)["nodes"][0]["config"], json!({"method": "GET"}), "nothing applied");

    type_into(&mut h, "Url *", "https://example.test/hook");
    type_into(&mut h, "Timeout ms", "2500");
    assert!(h.query_by_label_contains("is not of type").is_none());
    assert!(h.query_by_label("✔ The config is valid.").is_some());
    apply_config(&h).click();
    h.run();
    let applied = json!({"method": "GET", "url": "https://example.test/hook", "timeoutMs": 2500});
    assert_eq!(json_of(&h)["nodes"][0]["config"], applied);

    // One undo takes the config edit back, the next one the insert.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(json_of(&h)["nodes"][0]["config"], json!({"method": "GET"}));
    assert!(h.query_all_by_label_contains("Url is required").next().is_some(), "the form follows the undone config");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().doc().workflow().node_count(), 0);
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run();
    assert_eq!(json_of(&h)["nodes"][0]["config"], applied, "redo brings both back");
}

#[test]
fn the_json_tab_edits_the_same_config_and_parse_errors_are_shown() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), two_typed_nodes(json!([])));
    let mut h = start(vec![file]);
    let p = on_screen(&h, "Send page (p)");
    click_still(&mut h, p, 1);
    assert!(h.query_all_by_label_contains("Room is required").next().is_some(), "the form tab is first");
    h.get(By::new().label("JSON").role(Role::Button)).click();
    h.run();
    h.get_all_by_label("{}").next().expect("the config as a JSON tree").click();
    h.run();
    type_into(&mut h, "Editing config", "{\"room\": ");
    assert!(h.query_by_label_contains("not valid JSON").is_some(), "the parse error is shown");
    type_into(&mut h, "Editing config", "{\"room\": \"ops\", \"severity\": \"high\"}");
    h.get(By::new().label("Apply").role(Role::Button)).click();
    h.run();
    assert_eq!(json_of(&h)["nodes"][1]["config"], json!({"room": "ops", "severity": "high"}));
    h.get(By::new().label("Form").role(Role::Button)).click();
    h.run();
    assert!(h.query_by_label("✔ The config is valid.").is_some(), "the form shows the applied config");
}

/// A classifier and a pager, side by side.
fn two_typed_nodes(edges: Value) -> Value {
    json!({
        "id": "typed", "name": "Typed", "version": "1.0.0",
        "nodes": [
            {"id": "c", "typeId": "vendor.chainsmith.classify", "name": "Classify", "position": {"x": 0, "y": 0},
             "config": {"labels": ["billing"]}, "inputs": {}},
            {"id": "p", "typeId": "vendor.chainsmith.pager-send", "name": "Send page", "position": {"x": 600, "y": 0},
             "config": {}, "inputs": {}}
        ],
        "edges": edges, "triggers": [], "variables": [], "metadata": {}, "settings": {}
    })
}

fn write(dir: &std::path::Path, value: Value) -> PathBuf {
    let p = dir.join("typed.json");
    Workflow::from_json(value).unwrap().save(&p, ExportMode::Faithful).unwrap();
    p
}

#[test]
fn connections_between_ports_whose_types_do_not_fit_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), two_typed_nodes(json!([])));
    let mut h = start(vec![file]);
    let urgent = on_screen(&h, "Output urgent of c");
    let assignee = on_screen(&h, "Input assignee of p");

    // While the wire is over the input, the reason is shown beside the pointer.
    h.hover_at(urgent);
    h.step();
    let (button, modifiers) = (egui::PointerButton::Primary, Modifiers::NONE);
    h.event(egui::Event::PointerButton { pos: urgent, button, pressed: true, modifiers });
    h.step();
    for i in 1..=10 {
        h.hover_at(urgent.lerp(assignee, i as f32 / 10.0));
        h.step();
    }
    h.run();
    let reason = "output \"urgent\" gives boolean, but input \"assignee\" takes string";
    assert!(h.query_by_label(&format!("✖ Cannot connect: {reason}")).is_some(), "shown at the pointer while dragging");
    h.event(egui::Event::PointerButton { pos: assignee, button, pressed: false, modifiers });
    h.run();
    assert_eq!(json_of(&h)["edges"], json!([]), "the incompatible connection is refused");
    let error = h.state().last_error().expect("the refusal is reported");
    assert_eq!((error.code, error.message.as_str()), ("edge_port_incompatible", reason));
    assert!(h.query_by_label_contains(reason).is_some(), "and shown in the status bar");
    assert!(h.query_by_label_contains("Cannot connect").is_none(), "the pointer note goes with the wire");

    // A string output into the string input connects.
    let label = on_screen(&h, "Output label of c");
    drag(&mut h, label, assignee, Modifiers::NONE);
    let edges = json_of(&h)["edges"].clone();
    assert_eq!(
        edges,
        json!([{"id": "e-c-p", "sourceNodeId": "c", "sourceOutput": "label", "targetNodeId": "p", "targetInput": "assignee"}])
    );
    assert!(h.state().last_error().is_none(), "{:?}", h.state().last_error());
}

#[test]
fn quick_add_after_a_node_wires_the_first_ports_whose_types_fit() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(vec![write(dir.path(), two_typed_nodes(json!([])))]);
    // Select the pager (its one output, pageId, is a string), then quick-add a classifier,
    // whose first input (ticket) takes an object and second (context) a string.
    let card = h.get(By::new().label_contains("(p)").role(Role::Button)).rect().center();
    let card = h.state().canvas_to_screen(card);
    click_still(&mut h, card, 1);
    assert_eq!(h.state().doc().selection.node_ids(), ["p"]);
    h.key_press(Key::Tab);
    h.run();
    h.event(egui::Event::Text("classify ticket".into()));
    h.run();
    h.key_press(Key::Enter);
    h.run();
    assert!(h.state().last_error().is_none(), "{:?}", h.state().last_error());
    let edges = json_of(&h)["edges"].clone();
    assert_eq!(
        edges,
        json!([{"id": "e-p-classify", "sourceNodeId": "p", "sourceOutput": "pageId", "targetNodeId": "classify",
                "targetInput": "context"}]),
        "wired into the string input, not the first one"
    );
}

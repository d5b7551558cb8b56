//! The editor at the node limit, driven headlessly: workflows of 100,000 nodes, wired as a
//! line or as a fan-out, open, draw, select all, delete and undo without a crash (once a
//! stack overflow on opening) or a quadratic stall (once deleting a fan-out's leaves).
//! The workflows are generated here.

mod ui_common;

use chainsmith::app::{App, NativeDialogs, StartOptions};
use chainsmith::pack::{LoadOutcome, MAX_FRAGMENT_NODES};
use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use serde_json::{Value, json};
use ui_common::harness;

#[derive(Clone, Copy)]
enum Shape {
    Line,
    FanOut,
}

/// `n` nodes on a grid 500 wide; a line n0 → … → n(N-1) closed back to n0, or n0 → all.
fn workflow(shape: Shape, n: usize) -> Value {
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("n{i}"), "typeId": "core.noop", "name": format!("Step {i}"),
                "position": {"x": (i % 500) * 320, "y": (i / 500) * 140}, "config": {}, "inputs": {}})
        })
        .collect();
    let edge =
        |i: usize, from: String, to: String| json!({"id": format!("e{i}"), "sourceNodeId": from, "targetNodeId": to});
    let edges: Vec<Value> = match shape {
        Shape::Line => (1..n)
            .map(|i| edge(i, format!("n{}", i - 1), format!("n{i}")))
            .chain([edge(n, format!("n{}", n - 1), "n0".into())])
            .collect(),
        Shape::FanOut => (1..n).map(|i| edge(i, "n0".into(), format!("n{i}"))).collect(),
    };
    json!({"id": "big", "name": "Big", "version": "1.0.0", "nodes": nodes, "edges": edges,
        "triggers": [], "variables": [], "metadata": {}, "settings": {}})
}

fn open_edit_and_undo(shape: Shape) {
    let n = MAX_FRAGMENT_NODES;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.json");
    let wf = workflow(shape, n);
    let edges = wf["edges"].as_array().unwrap().len();
    std::fs::write(&file, serde_json::to_vec(&wf).unwrap()).unwrap();
    // No packs: the point is the workflow. No recovery file: nothing to offer or write.
    let opts = StartOptions {
        files: vec![file],
        dialogs: Box::new(NativeDialogs),
        recovery_file: None,
        packs: LoadOutcome::default(),
    };
    let mut h = harness(App::new(opts, None));
    assert!(h.state().last_error().is_none(), "{:?}", h.state().last_error());
    assert_eq!((h.state().doc().workflow().node_count(), h.state().doc().workflow().graph.edge_count()), (n, edges));
    h.get_by_label(&format!("{n} nodes · {edges} edges · 0 chain instances"));

    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    assert_eq!(h.state().doc().selection.node_ids().len(), n);
    h.key_press(Key::Delete);
    h.run();
    assert_eq!((h.state().doc().workflow().node_count(), h.state().doc().workflow().graph.edge_count()), (0, 0));
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!((h.state().doc().workflow().node_count(), h.state().doc().workflow().graph.edge_count()), (n, edges));
    assert!(!h.state().doc().is_dirty(), "one undo is back at the opened file");
}

#[test]
fn a_linear_workflow_of_the_node_limit_opens_and_edits() {
    open_edit_and_undo(Shape::Line);
}

#[test]
fn a_fan_out_workflow_of_the_node_limit_opens_and_edits() {
    open_edit_and_undo(Shape::FanOut);
}

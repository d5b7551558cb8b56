//! A generated chain of `n` nodes, in two versions, for the tests that grow a chain
//! (tests/instances.rs times diff and upgrade; tests/ui_upgrade.rs draws it).

use serde_json::{Value, json};

/// Where the generated nodes stand.
#[derive(Debug, Clone, Copy)]
pub enum Layout {
    /// 10 apart on one row: the model never looks at positions.
    Line,
    /// 40 to a row, 300 × 200 apart: the canvas draws them without overlap.
    Grid,
}

/// `vendor.grow.big` with the chain `grow.big`: `n` `core.identity` nodes wired in a line.
/// `version` 2 changes every tenth node's config and adds a node `tail` at the end.
pub fn manifest(n: usize, version: u32, layout: Layout) -> Value {
    let position = |i: usize| match layout {
        Layout::Line => json!({"x": i * 10, "y": 0}),
        Layout::Grid => json!({"x": (i % 40) * 300, "y": (i / 40) * 200}),
    };
    let mut nodes: Vec<Value> = (0..n)
        .map(|i| {
            let v = if version == 2 && i % 10 == 0 { 2 } else { 1 };
            json!({"id": format!("n{i}"), "typeId": "core.identity", "position": position(i),
                   "config": {"v": v, "t": "{{params.topic}}"}})
        })
        .collect();
    let mut edges: Vec<Value> =
        (1..n).map(|i| json!({"from": format!("n{}.out", i - 1), "to": format!("n{i}.in")})).collect();
    if version == 2 {
        nodes.push(json!({"id": "tail", "typeId": "core.identity"}));
        edges.push(json!({"from": format!("n{}.out", n - 1), "to": "tail.in"}));
    }
    json!({"name": "vendor.grow.big", "version": format!("{version}.0.0"), "kind": "workflow-chain",
        "engines": {"openwop": "*"}, "chains": [{"chainId": "grow.big", "version": format!("{version}.0.0"),
        "label": "Big", "description": "generated",
        "parameters": {"type": "object", "properties": {"topic": {"type": "string", "default": "x"}}},
        "dag": {"nodes": nodes, "edges": edges}}]})
}

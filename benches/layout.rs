//! Tidy at scale: the whole `Arrange { Tidy }` command (card sizes, the layered layout of
//! every node with chain instances kept as blocks, and the positions written) on synthetic
//! workflows of 5,000 and 20,000 nodes; target: well under a second at 20,000 (release).
//!
//! Next to it, a floor on the same workflow: `MoveNodes` setting every node's position
//! (what any command that moves every node costs, with no layout at all).

use chainsmith::editor::arrange::Arrangement;
use chainsmith::editor::cards::PortTable;
use chainsmith::editor::document::{Command, Document};
use chainsmith::workflow::Workflow;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

/// `n` nodes piled on a few spots: mostly a flow to the right with a branch every seventh
/// node, a merge every eleventh, a loopback every ninety-seventh, and one chain instance
/// of five nodes in every fifty.
fn workflow(n: usize) -> Workflow {
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("n{i}"), "typeId": "core.identity", "name": format!("Node {i}"),
                "position": {"x": (i % 3) * 40, "y": (i % 5) * 30}, "config": {}, "inputs": {}})
        })
        .collect();
    let mut edges = Vec::new();
    for i in 1..n {
        let from = if i % 7 == 0 { i / 2 } else { i - 1 };
        edges.push(json!({"id": format!("e{i}"), "sourceNodeId": format!("n{from}"), "targetNodeId": format!("n{i}")}));
        if i % 11 == 0 && i >= 3 {
            edges.push(
                json!({"id": format!("m{i}"), "sourceNodeId": format!("n{}", i - 3), "targetNodeId": format!("n{i}")}),
            );
        }
        if i % 97 == 0 {
            edges.push(
                json!({"id": format!("l{i}"), "sourceNodeId": format!("n{i}"), "targetNodeId": format!("n{}", i / 3)}),
            );
        }
    }
    let instances: Vec<Value> = (0..n / 50)
        .map(|k| {
            let ids: Vec<String> = (0..5).map(|j| format!("n{}", k * 50 + 10 + j)).collect();
            json!({"packName": "vendor.bench", "packVersion": "1.0.0", "chainId": "bench.block",
                "chainVersion": "1.0.0", "expansionId": format!("{k:04x}"), "label": "Block",
                "params": {}, "nodeIds": ids, "edgeIds": []})
        })
        .collect();
    Workflow::from_json(json!({"id": "big", "name": "Big", "version": "1.0.0", "nodes": nodes, "edges": edges,
        "triggers": [], "variables": [], "settings": {},
        "metadata": {"customProperties": {"chainsmith": {"instances": instances}}}}))
    .unwrap()
}

fn tidy(c: &mut Criterion) {
    let mut group = c.benchmark_group("tidy");
    group.sample_size(10);
    for n in [5_000usize, 20_000] {
        let wf = workflow(n);
        group.bench_function(format!("{n}"), |b| {
            b.iter_batched(
                || Document::new(wf.clone(), None),
                |mut doc| {
                    let cmd =
                        Command::Arrange { how: Arrangement::Tidy, nodes: Vec::new(), ports: PortTable::default() };
                    doc.apply(cmd).unwrap();
                    doc
                },
                BatchSize::LargeInput,
            )
        });
        let moves: Vec<(String, (f64, f64))> =
            (0..n).map(|i| (format!("n{i}"), ((i % 100) as f64 * 310.0, (i / 100) as f64 * 136.0))).collect();
        group.bench_function(format!("{n}-floor-move-every-node"), |b| {
            b.iter_batched(
                || (Document::new(wf.clone(), None), moves.clone()),
                |(mut doc, moves)| {
                    doc.apply(Command::MoveNodes(moves)).unwrap();
                    doc
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, tidy);
criterion_main!(benches);

//! Where a spliced fragment's nodes go: its own positions or a layered layout, offset by the
//! drop point (or right of the node wired into it, or right of everything), then moved
//! clear of the existing nodes. Making room in the parent is the editor's job
//! (`editor::arrange::make_room`): the CLI places nothing but the chain.

use super::super::Workflow;
use super::super::layout::{MAX_COORDINATE, NODE_W, clear_of, layered};
use super::SpliceOptions;
use crate::error::{Error, Result, code};
use crate::expand::Expansion;
use serde_json::{Value, json};

/// Positions for the expanded nodes: fragment positions when every node has one, else a
/// layered layout; offset by the drop point and moved clear of existing nodes.
/// Refuses a placement any coordinate of which would leave ±[`MAX_COORDINATE`]: past it the
/// sums overflow to infinity, which JSON cannot hold (it was written as `null`).
pub(super) fn place(wf: &Workflow, exp: &Expansion, opts: &SpliceOptions) -> Result<Vec<(f64, f64)>> {
    let rel = relative(exp);
    let origin = opts.at.unwrap_or_else(|| origin(wf, opts));
    let mut abs: Vec<(f64, f64)> = rel.into_iter().map(|(x, y)| (origin.0 + x, origin.1 + y)).collect();
    let existing: Vec<(f64, f64)> = wf.graph.node_weights().map(super::super::Node::position).collect();
    clear_of(&mut abs, &existing);
    // NaN is out of range too.
    let out_of_range = |v: f64| v.is_nan() || v.abs() > MAX_COORDINATE;
    if let Some((x, y)) = abs.iter().find(|(x, y)| out_of_range(*x) || out_of_range(*y)) {
        let mut err = Error::new(
            code::INVALID_REQUEST,
            format!(
                "placing chain {} would put a node at ({x:e}, {y:e}); coordinates are limited to ±{MAX_COORDINATE:e}",
                exp.chain_id
            ),
        )
        .with("limit", MAX_COORDINATE);
        if let Some((ax, ay)) = opts.at {
            err = err.with("at", json!([ax, ay]));
        }
        return Err(err);
    }
    Ok(abs)
}

/// The fragment's own positions when every node has one, else a layered layout; one per node.
pub(crate) fn relative(exp: &Expansion) -> Vec<(f64, f64)> {
    let given: Option<Vec<(f64, f64)>> = exp
        .nodes
        .iter()
        .map(|n| {
            let p = n.get("position")?;
            Some((p.get("x").and_then(Value::as_f64).unwrap_or(0.0), p.get("y").and_then(Value::as_f64).unwrap_or(0.0)))
        })
        .collect();
    let mut rel = given.unwrap_or_else(|| layered(&exp.graph, |w| *w));
    rel.truncate(exp.nodes.len());
    rel
}

/// Without a drop point: right of the node wired into the fragment, level with it; else
/// right of every node, level with the topmost.
fn origin(wf: &Workflow, opts: &SpliceOptions) -> (f64, f64) {
    let source = opts.between.as_ref().map(|(a, _)| a).or(opts.after.as_ref().map(|a| &a.node));
    if let Some(ix) = source.and_then(|a| wf.node(a)) {
        let (x, y) = wf.graph[ix].position();
        return (x + NODE_W + 90.0, y);
    }
    match wf.bounds() {
        None => (0.0, 0.0),
        Some((_, min_y, max_x, _)) => (max_x + NODE_W + 120.0, min_y),
    }
}

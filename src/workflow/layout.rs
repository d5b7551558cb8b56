//! Automatic placement: layered by topological rank, and shifted clear of existing nodes.

use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::{DfsEvent, NodeIndexable, depth_first_search};
use std::collections::{HashMap, HashSet};

/// Nominal size of a node card on the canvas, in canvas units. The editor draws cards this
/// size, so layout and drawing agree on what "overlap" means.
pub const NODE_W: f64 = 220.0;
pub const NODE_H: f64 = 96.0;
const GAP_X: f64 = 90.0;
/// Largest coordinate chainsmith places a node at, on either axis. Far beyond any canvas,
/// and far below where placement arithmetic would overflow.
pub const MAX_COORDINATE: f64 = 1.0e12;
const GAP_Y: f64 = 40.0;

/// Positions for every node of `graph` (weights index the result), relative to (0, 0):
/// columns by longest path from the entries, rows within a column, columns centred.
/// Back edges of cycles are ignored for ranking.
pub fn layered<N, E>(graph: &StableDiGraph<N, E>, weight_index: impl Fn(&N) -> usize) -> Vec<(f64, f64)> {
    let count = graph.node_count();
    let mut finish: Vec<NodeIndex> = Vec::with_capacity(count);
    let mut back: HashSet<(NodeIndex, NodeIndex)> = HashSet::new();
    depth_first_search(graph, graph.node_indices(), |event| match event {
        DfsEvent::BackEdge(a, b) => {
            back.insert((a, b));
        }
        DfsEvent::Finish(n, _) => finish.push(n),
        _ => {}
    });
    finish.reverse(); // reverse finish order is a topological order once back edges are ignored
    let mut rank = vec![0usize; graph.node_bound()];
    for &n in &finish {
        for m in graph.neighbors(n) {
            if !back.contains(&(n, m)) {
                rank[m.index()] = rank[m.index()].max(rank[n.index()] + 1);
            }
        }
    }
    let columns = graph.node_indices().map(|n| rank[n.index()]).max().map_or(0, |r| r + 1);
    let mut column_members: Vec<Vec<NodeIndex>> = vec![Vec::new(); columns];
    let mut ordered: Vec<NodeIndex> = graph.node_indices().collect();
    ordered.sort_by_key(|n| weight_index(&graph[*n]));
    for n in ordered {
        column_members[rank[n.index()]].push(n);
    }
    let tallest = column_members.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = vec![(0.0, 0.0); count.max(graph.node_weights().map(&weight_index).max().map_or(0, |m| m + 1))];
    for (c, members) in column_members.iter().enumerate() {
        let offset = (tallest - members.len()) as f64 * (NODE_H + GAP_Y) / 2.0;
        for (r, n) in members.iter().enumerate() {
            out[weight_index(&graph[*n])] = (c as f64 * (NODE_W + GAP_X), offset + r as f64 * (NODE_H + GAP_Y));
        }
    }
    out
}

/// How close two card positions may come on each axis before the cards overlap.
const REACH_X: f64 = NODE_W + GAP_X / 2.0;
const REACH_Y: f64 = NODE_H + GAP_Y / 2.0;

fn overlaps(a: (f64, f64), b: (f64, f64)) -> bool {
    (a.0 - b.0).abs() < REACH_X && (a.1 - b.1).abs() < REACH_Y
}

/// Shift a group of node positions down until none of its cards overlaps `existing`.
pub fn clear_of(group: &mut [(f64, f64)], existing: &[(f64, f64)]) {
    if group.is_empty() {
        return;
    }
    // Each step moves the group below the lowest card it hits, so this ends after at most
    // one step per existing card.
    for _ in 0..=existing.len() {
        let Some(lowest_hit) = lowest_hit(group, existing) else { return };
        let top = group.iter().map(|g| g.1).fold(f64::INFINITY, f64::min);
        let dy = lowest_hit + NODE_H + GAP_Y - top;
        for g in group.iter_mut() {
            g.1 += dy;
        }
    }
}

/// The largest y of an existing card that some group card overlaps. Linear rather than
/// group × existing (10 million pairs for 1,000 cards into 10,000): only existing cards
/// inside the group's reach are looked at, and each against the group cards in its own
/// and the neighbouring cells of a grid one reach wide, the only ones it can overlap.
fn lowest_hit(group: &[(f64, f64)], existing: &[(f64, f64)]) -> Option<f64> {
    let cell = |p: (f64, f64)| ((p.0 / REACH_X).floor() as i64, (p.1 / REACH_Y).floor() as i64);
    let (mut x0, mut y0, mut x1, mut y1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    let mut grid: HashMap<(i64, i64), Vec<(f64, f64)>> = HashMap::with_capacity(group.len());
    for &g in group {
        (x0, y0, x1, y1) = (x0.min(g.0), y0.min(g.1), x1.max(g.0), y1.max(g.1));
        grid.entry(cell(g)).or_default().push(g);
    }
    let near = |e: &&(f64, f64)| e.0 > x0 - REACH_X && e.0 < x1 + REACH_X && e.1 > y0 - REACH_Y && e.1 < y1 + REACH_Y;
    let hits = |e: &&(f64, f64)| {
        let (cx, cy) = cell(**e);
        (cx.saturating_sub(1)..=cx.saturating_add(1)).any(|x| {
            (cy.saturating_sub(1)..=cy.saturating_add(1))
                .any(|y| grid.get(&(x, y)).is_some_and(|cards| cards.iter().any(|g| overlaps(*g, **e))))
        })
    };
    existing.iter().filter(near).filter(hits).map(|e| e.1).reduce(f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_follow_longest_paths_and_cycles_do_not_hang() {
        let mut g = StableDiGraph::<usize, ()>::new();
        let n: Vec<_> = (0..4).map(|i| g.add_node(i)).collect();
        g.add_edge(n[0], n[1], ());
        g.add_edge(n[1], n[2], ());
        g.add_edge(n[0], n[2], ());
        g.add_edge(n[2], n[0], ()); // loopback
        let pos = layered(&g, |w| *w);
        assert_eq!(pos[0].0, 0.0);
        assert!(pos[1].0 > pos[0].0 && pos[2].0 > pos[1].0, "{pos:?}");
        assert_eq!(pos[3].0, 0.0, "an isolated node sits in the first column");
        assert_ne!(pos[0].1, pos[3].1);
    }

    #[test]
    fn groups_move_below_what_they_would_cover() {
        let existing = [(0.0, 0.0), (0.0, 150.0)];
        let mut group = [(10.0, 20.0), (320.0, 20.0)];
        clear_of(&mut group, &existing);
        for g in group {
            for e in existing {
                assert!((g.0 - e.0).abs() >= NODE_W || (g.1 - e.1).abs() >= NODE_H, "{g:?} overlaps {e:?}");
            }
        }
        let mut untouched = [(1000.0, 0.0)];
        clear_of(&mut untouched, &existing);
        assert_eq!(untouched, [(1000.0, 0.0)]);
    }

    #[test]
    fn the_grid_finds_exactly_the_pairwise_hits() {
        // Against the obvious group × existing scan, on scattered positions (a small LCG
        // keeps it deterministic), including negative and fractional ones and cell borders.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |span: f64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * span
        };
        for round in 0..200 {
            let span = if round % 2 == 0 { 2_000.0 } else { 20_000.0 };
            let group: Vec<(f64, f64)> = (0..20).map(|_| (next(span), next(span))).collect();
            let mut existing: Vec<(f64, f64)> = (0..60).map(|_| (next(span), next(span))).collect();
            existing.push((group[0].0 + REACH_X, group[0].1)); // touching is not overlapping
            existing.push((group[0].0 - REACH_X + 0.01, group[0].1 + REACH_Y - 0.01));
            let naive = group.iter().flat_map(|g| existing.iter().filter(move |e| overlaps(*g, **e))).map(|e| e.1);
            assert_eq!(lowest_hit(&group, &existing), naive.reduce(f64::max), "round {round}");
        }
    }
}

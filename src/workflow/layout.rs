//! Automatic placement: layered by topological rank, and shifted clear of existing nodes.

use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences, NodeIndexable};
use std::collections::HashMap;

/// Nominal size of a node card on the canvas, in canvas units. The editor draws cards this
/// size, so layout and drawing agree on what "overlap" means.
pub const NODE_W: f64 = 220.0;
pub const NODE_H: f64 = 96.0;
const GAP_X: f64 = 90.0;
/// Largest coordinate chainsmith places a node at, on either axis. Far beyond any canvas,
/// and far below where placement arithmetic would overflow.
pub const MAX_COORDINATE: f64 = 1.0e12;
const GAP_Y: f64 = 40.0;

/// Positions for every node of `graph` (weights index the result), relative to (0, 0), as
/// nominal cards: the layered layout of [`super::layered`] (columns along the longest
/// paths, cycles broken, crossings reduced).
pub fn layered<N, E>(graph: &StableDiGraph<N, E>, weight_index: impl Fn(&N) -> usize) -> Vec<(f64, f64)> {
    let mut slot = vec![usize::MAX; graph.node_bound()];
    let mut order: Vec<NodeIndex> = graph.node_indices().collect();
    order.sort_by_key(|n| weight_index(&graph[*n]));
    for (i, n) in order.iter().enumerate() {
        slot[n.index()] = i;
    }
    let edges: Vec<(usize, usize)> =
        graph.edge_references().map(|e| (slot[e.source().index()], slot[e.target().index()])).collect();
    let spacing = super::layered::Spacing { layer_gap: GAP_X, node_gap: GAP_Y };
    let pos = super::layered::layout(&vec![(NODE_W, NODE_H); order.len()], &edges, spacing);
    let len = order.iter().map(|n| weight_index(&graph[*n]) + 1).max().unwrap_or(0).max(order.len());
    let mut out = vec![(0.0, 0.0); len];
    for (n, p) in order.iter().zip(pos) {
        out[weight_index(&graph[*n])] = p;
    }
    out
}

/// How close two card positions may come on each axis before the cards overlap.
const REACH_X: f64 = NODE_W + GAP_X / 2.0;
const REACH_Y: f64 = NODE_H + GAP_Y / 2.0;

#[cfg(test)]
fn overlaps(a: (f64, f64), b: (f64, f64)) -> bool {
    (a.0 - b.0).abs() < REACH_X && (a.1 - b.1).abs() < REACH_Y
}

/// Shift a group of node positions down until none of its cards overlaps `existing`.
///
/// Each step moves the group below the lowest card it hits, so a card once passed is never
/// hit again and there are at most as many steps as existing cards. The group's cards are
/// asked in classes of one x (cards at one x reach the same existing cards; a dropped
/// chain whose nodes share a position is one class), each class with the existing cards in
/// its reach found once, by x. A step asks each class still above some card it can reach
/// for the lowest card its cards hit: a query for the lowest existing card above a bound
/// (in O(log² n)), then a binary search among the class's cards, repeated only across the
/// gaps between them. Asking every card at every step cost G × N searches for G nodes
/// dropped at one point onto a column of N (20,000 + 20,000: about a minute).
pub fn clear_of(group: &mut [(f64, f64)], existing: &[(f64, f64)]) {
    let Some(top) = group.iter().map(|g| g.1).reduce(f64::min) else { return };
    let obstacles = Obstacles::new(existing);
    let mut by_x: HashMap<u64, Vec<f64>> = HashMap::new();
    for g in group.iter() {
        by_x.entry(g.0.to_bits()).or_default().push(g.1);
    }
    // Each class that can hit something.
    let mut active: Vec<Class> =
        by_x.into_iter().filter_map(|(x, ys)| obstacles.class(f64::from_bits(x), ys)).collect();
    let mut dy = 0.0;
    for _ in 0..=existing.len() {
        // A class whose top card is below the lowest card it could reach is past for good.
        active.retain(|c| c.ys[0] + dy - REACH_Y < c.lowest);
        let hit = active.iter().filter_map(|c| obstacles.lowest_hit(c, dy)).reduce(f64::max);
        let Some(lowest) = hit else { break };
        dy = lowest + NODE_H + GAP_Y - top;
    }
    for g in group.iter_mut() {
        g.1 += dy;
    }
}

/// The group's cards at one x: their y (ascending, distinct), the existing cards in reach
/// of that x (a range of [`Obstacles`]' order), and the largest y among those.
struct Class {
    ys: Vec<f64>,
    reach: std::ops::Range<usize>,
    lowest: f64,
}

/// Existing cards sorted by x, with a merge-sort tree over their y: node `i` (leaves at
/// `n..2n`) holds the sorted y of the cards below it, so the lowest card above a bound
/// within a range of x is found in O(log² n).
struct Obstacles {
    xs: Vec<f64>,
    tree: Vec<Vec<f64>>,
}

impl Obstacles {
    fn new(existing: &[(f64, f64)]) -> Self {
        let mut sorted = existing.to_vec();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = sorted.len();
        let mut tree = vec![Vec::new(); 2 * n];
        for (i, c) in sorted.iter().enumerate() {
            tree[n + i] = vec![c.1];
        }
        for i in (1..n).rev() {
            let (a, b) = (&tree[2 * i], &tree[2 * i + 1]);
            let mut merged = Vec::with_capacity(a.len() + b.len());
            let (mut p, mut q) = (0, 0);
            while p < a.len() && q < b.len() {
                if a[p] <= b[q] {
                    merged.push(a[p]);
                    p += 1;
                } else {
                    merged.push(b[q]);
                    q += 1;
                }
            }
            merged.extend_from_slice(&a[p..]);
            merged.extend_from_slice(&b[q..]);
            tree[i] = merged;
        }
        Self { xs: sorted.iter().map(|c| c.0).collect(), tree }
    }

    /// The class of the group's cards at `x` with these `ys`, when some card is in reach.
    fn class(&self, x: f64, mut ys: Vec<f64>) -> Option<Class> {
        // Exactly the cards with |x - e.x| < REACH_X, as `overlaps` computes it.
        let start = self.xs.partition_point(|e| x - e >= REACH_X);
        let end = self.xs.partition_point(|e| e - x < REACH_X);
        let reach = start..end.max(start);
        let lowest = self.below(reach.clone(), f64::INFINITY)?;
        ys.sort_by(f64::total_cmp);
        ys.dedup();
        Some(Class { ys, reach, lowest })
    }

    /// The largest y below `bound` among the cards of `range` (in x order).
    fn below(&self, range: std::ops::Range<usize>, bound: f64) -> Option<f64> {
        let n = self.xs.len();
        let (mut l, mut r) = (range.start + n, range.end + n);
        let mut best: Option<f64> = None;
        let mut take = |ys: &[f64]| {
            let k = ys.partition_point(|y| *y < bound);
            if k > 0 {
                best = Some(best.map_or(ys[k - 1], |b| b.max(ys[k - 1])));
            }
        };
        while l < r {
            if l & 1 == 1 {
                take(&self.tree[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                take(&self.tree[r]);
            }
            l >>= 1;
            r >>= 1;
        }
        best
    }

    /// The largest y of an existing card that a card of `class`, moved down by `dy`,
    /// overlaps. Candidates are taken from the bottom up: the lowest card above the bound
    /// is hit exactly when the class's last card less than a reach above it is within a
    /// reach of it; otherwise nothing between that card's reach and it can be hit either.
    fn lowest_hit(&self, class: &Class, dy: f64) -> Option<f64> {
        let mut bound = class.ys[class.ys.len() - 1] + dy + REACH_Y;
        loop {
            let e = self.below(class.reach.clone(), bound)?;
            let k = class.ys.partition_point(|y| (y + dy) - e < REACH_Y);
            let a = class.ys.get(k.checked_sub(1)?)? + dy;
            if (a - e).abs() < REACH_Y {
                return Some(e);
            }
            bound = (a + REACH_Y).min(e);
        }
    }
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
    fn a_line_of_the_fragment_node_limit_is_ranked_on_a_test_thread_stack() {
        let n = crate::pack::MAX_FRAGMENT_NODES;
        let mut g = StableDiGraph::<usize, ()>::with_capacity(n, n);
        let ix: Vec<_> = (0..n).map(|i| g.add_node(i)).collect();
        for w in ix.windows(2) {
            g.add_edge(w[0], w[1], ());
        }
        g.add_edge(ix[n - 1], ix[0], ());
        let pos = layered(&g, |w| *w);
        assert!((1..n).all(|i| pos[i].0 > pos[i - 1].0), "one column per step along the line");
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
    fn classes_find_exactly_the_pairwise_hits() {
        // Against the obvious group × existing scan, on scattered positions (a small LCG
        // keeps it deterministic), including negative and fractional ones, cards sharing an
        // x, and reach borders.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |span: f64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * span
        };
        for round in 0..400 {
            let span = if round % 2 == 0 { 2_000.0 } else { 20_000.0 };
            let x = next(span);
            let group: Vec<(f64, f64)> = (0..20).map(|_| (x, next(span / 4.0))).collect();
            let mut existing: Vec<(f64, f64)> = (0..60).map(|_| (x + next(span / 10.0), next(span))).collect();
            existing.push((group[0].0 + REACH_X, group[0].1)); // touching is not overlapping
            existing.push((group[0].0 - REACH_X + 0.01, group[0].1 + REACH_Y - 0.01));
            let dy = next(span).abs();
            let moved = |g: &(f64, f64)| (g.0, g.1 + dy);
            let naive =
                group.iter().flat_map(|g| existing.iter().filter(move |e| overlaps(moved(g), **e))).map(|e| e.1);
            let obstacles = Obstacles::new(&existing);
            let found =
                obstacles.class(x, group.iter().map(|g| g.1).collect()).and_then(|c| obstacles.lowest_hit(&c, dy));
            assert_eq!(found, naive.reduce(f64::max), "round {round}");
        }
    }

    #[test]
    fn clear_of_moves_as_the_step_by_step_definition_does() {
        // The definition, pair by pair: move below the lowest card hit, until none is.
        fn by_definition(group: &mut [(f64, f64)], existing: &[(f64, f64)]) {
            for _ in 0..=existing.len() {
                let hit = group.iter().flat_map(|g| existing.iter().filter(|e| overlaps(*g, **e))).map(|e| e.1);
                let Some(lowest) = hit.reduce(f64::max) else { return };
                let dy = lowest + NODE_H + GAP_Y - group.iter().map(|g| g.1).fold(f64::INFINITY, f64::min);
                group.iter_mut().for_each(|g| g.1 += dy);
            }
        }
        let mut seed = 0x1234_5678_9abc_def1u64;
        let mut next = |span: f64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * span
        };
        for round in 0..200 {
            let group: Vec<(f64, f64)> = (0..8).map(|_| (next(1_500.0), next(600.0))).collect();
            let existing: Vec<(f64, f64)> = (0..40).map(|_| (next(1_500.0), next(3_000.0))).collect();
            let (mut fast, mut slow) = (group.clone(), group);
            clear_of(&mut fast, &existing);
            by_definition(&mut slow, &existing);
            // One shift against a sum of shifts: equal up to rounding.
            let close = fast.iter().zip(&slow).all(|(a, b)| a.0 == b.0 && (a.1 - b.1).abs() < 1e-6);
            assert!(close, "round {round}: {fast:?} vs {slow:?}");
        }
    }
}

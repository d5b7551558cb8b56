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

fn overlaps(a: (f64, f64), b: (f64, f64)) -> bool {
    (a.0 - b.0).abs() < REACH_X && (a.1 - b.1).abs() < REACH_Y
}

/// Shift a group of node positions down until none of its cards overlaps `existing`.
///
/// Each step moves the group below the lowest card it hits, so a card once passed is never
/// hit again and there are at most as many steps as existing cards. A step only asks the
/// group cards that share an x range with some existing card (the group moves straight
/// down, so that set never changes) and are not yet below every such card (once below, a
/// card stays below), each with two binary searches. Asking every card of the same or a
/// neighbouring column at every step made a 20,000-card fan-out dropped onto a
/// 20,000-card column cost 20,000 × 20,000 searches.
pub fn clear_of(group: &mut [(f64, f64)], existing: &[(f64, f64)]) {
    let Some(top) = group.iter().map(|g| g.1).reduce(f64::min) else { return };
    let obstacles = Obstacles::new(existing);
    // Each card that can hit something, with the lowest y it can hit.
    let mut active: Vec<((f64, f64), f64)> =
        group.iter().filter_map(|g| obstacles.lowest_in_reach(*g).map(|low| (*g, low))).collect();
    let mut dy = 0.0;
    for _ in 0..=existing.len() {
        // A card whose top is below the lowest card it could reach is past for good.
        active.retain(|(g, low)| g.1 + dy - REACH_Y < *low);
        let hit = active.iter().filter_map(|(g, _)| obstacles.lowest_hit((g.0, g.1 + dy))).reduce(f64::max);
        let Some(lowest) = hit else { break };
        dy = lowest + NODE_H + GAP_Y - top;
    }
    for g in group.iter_mut() {
        g.1 += dy;
    }
}

/// Existing cards by column (one reach wide), each column sorted by y, and the same cards
/// by x with a max-y tree over them.
struct Obstacles {
    columns: HashMap<i64, Vec<(f64, f64)>>,
    by_x: HashMap<i64, LowestByX>,
}

/// One column's cards sorted by x, and an implicit segment tree of their largest y, so the
/// lowest card within an x range is found in O(log n).
struct LowestByX {
    xs: Vec<f64>,
    tree: Vec<f64>,
}

impl LowestByX {
    fn new(cards: &[(f64, f64)]) -> Self {
        let mut sorted = cards.to_vec();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = sorted.len();
        let mut tree = vec![f64::NEG_INFINITY; 2 * n];
        for (i, c) in sorted.iter().enumerate() {
            tree[n + i] = c.1;
        }
        for i in (1..n).rev() {
            tree[i] = tree[2 * i].max(tree[2 * i + 1]);
        }
        Self { xs: sorted.iter().map(|c| c.0).collect(), tree }
    }

    /// The largest y of a card with `lo < x < hi`.
    fn lowest_between(&self, lo: f64, hi: f64) -> Option<f64> {
        let n = self.xs.len();
        let (mut l, mut r) = (self.xs.partition_point(|x| *x <= lo) + n, self.xs.partition_point(|x| *x < hi) + n);
        let mut best = f64::NEG_INFINITY;
        while l < r {
            if l & 1 == 1 {
                best = best.max(self.tree[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                best = best.max(self.tree[r]);
            }
            l >>= 1;
            r >>= 1;
        }
        (best > f64::NEG_INFINITY).then_some(best)
    }
}

fn column(x: f64) -> i64 {
    (x / REACH_X).floor() as i64
}

impl Obstacles {
    fn new(existing: &[(f64, f64)]) -> Self {
        let mut columns: HashMap<i64, Vec<(f64, f64)>> = HashMap::new();
        for &e in existing {
            columns.entry(column(e.0)).or_default().push(e);
        }
        for cards in columns.values_mut() {
            cards.sort_by(|a, b| a.1.total_cmp(&b.1));
        }
        let by_x = columns.iter().map(|(c, cards)| (*c, LowestByX::new(cards))).collect();
        Self { columns, by_x }
    }

    /// The columns a card at `g` can overlap: its own and the two beside it.
    fn beside(&self, g: (f64, f64)) -> impl Iterator<Item = &[(f64, f64)]> {
        let c = column(g.0);
        [c.saturating_sub(1), c, c.saturating_add(1)]
            .into_iter()
            .filter_map(|c| self.columns.get(&c).map(Vec::as_slice))
    }

    /// The largest y among the existing cards within reach of `g` on the x axis, if any.
    fn lowest_in_reach(&self, g: (f64, f64)) -> Option<f64> {
        let c = column(g.0);
        [c.saturating_sub(1), c, c.saturating_add(1)]
            .into_iter()
            .filter_map(|c| self.by_x.get(&c)?.lowest_between(g.0 - REACH_X, g.0 + REACH_X))
            .reduce(f64::max)
    }

    /// The largest y of an existing card that a card at `g` overlaps.
    fn lowest_hit(&self, g: (f64, f64)) -> Option<f64> {
        self.beside(g)
            .filter_map(|cards| {
                // Cards above `g.1 + REACH_Y`, walked up from the lowest while still in reach.
                let below = cards.partition_point(|e| e.1 < g.1 + REACH_Y);
                cards[..below].iter().rev().take_while(|e| e.1 > g.1 - REACH_Y).find(|e| overlaps(g, **e)).map(|e| e.1)
            })
            .reduce(f64::max)
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
    fn columns_find_exactly_the_pairwise_hits() {
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
            let obstacles = Obstacles::new(&existing);
            let found = group.iter().filter_map(|g| obstacles.lowest_hit(*g)).reduce(f64::max);
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

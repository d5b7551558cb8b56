//! Layered left-to-right layout of a directed graph whose nodes have real sizes, in the
//! style of Sugiyama, Tagawa and Toda (1981), with every phase iterative and close to linear:
//!
//! 1. **Components** are laid out one by one and packed on shelves, so unrelated flows do
//!    not interleave.
//! 2. **Cycle breaking**: a depth-first search from the sources marks back edges; they are
//!    reversed for the rest of the layout (a loopback still draws, just against the flow).
//! 3. **Layering**: longest path from the sources, then every source with successors is
//!    pulled right to just before its nearest successor, so inputs sit next to their use.
//! 4. **Long edges** get one dummy node per layer they cross, so crossing reduction and
//!    coordinates see them; a budget linear in the graph caps the dummies (the longest
//!    edges go without once it is spent), which keeps pathological fans near-linear.
//! 5. **Crossing reduction**: the depth-first discovery order as a start, then barycenter
//!    sweeps down and up the layers; the ordering with the fewest crossings (counted per
//!    layer pair with a Fenwick tree) is kept.
//! 6. **Coordinates**: each layer is a column as wide as its widest node. Within a column,
//!    nodes are stacked in order with their real heights; a few alternating passes move
//!    each node towards the mean centre of its neighbours in the column before, then after,
//!    solving "as close as possible, in order, never overlapping" exactly with the
//!    pool-adjacent-violators algorithm.

/// Gaps between columns and between stacked nodes, in the units of the sizes.
#[derive(Debug, Clone, Copy)]
pub struct Spacing {
    pub layer_gap: f64,
    pub node_gap: f64,
}

/// Height a dummy node takes in its column: long edges keep apart, without the room of a card.
const DUMMY_H: f64 = 12.0;
/// Gap beside a dummy node (edges passing through a column need less room than cards).
const DUMMY_GAP: f64 = 14.0;
/// Barycenter sweeps (each down and up).
const SWEEPS: usize = 4;
/// Coordinate passes (each down and up).
const COORD_PASSES: usize = 4;

/// Top-left corners for nodes of the given sizes joined by `edges` (`from`, `to` indices;
/// self loops and repeats allowed), with the layout's top-left at (0, 0).
pub fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)], spacing: Spacing) -> Vec<(f64, f64)> {
    let n = sizes.len();
    let mut out = vec![(0.0, 0.0); n];
    if n == 0 {
        return out;
    }
    let components = components(n, edges);
    let mut local = vec![usize::MAX; n];
    // Per component: its nodes, their positions, and its width and height.
    type Placed = (Vec<usize>, Vec<(f64, f64)>, (f64, f64));
    let mut placed: Vec<Placed> = Vec::with_capacity(components.members.len());
    for members in &components.members {
        for (i, &g) in members.iter().enumerate() {
            local[g] = i;
        }
        let sub_sizes: Vec<(f64, f64)> = members.iter().map(|&g| sizes[g]).collect();
        let sub_edges: Vec<(usize, usize)> =
            components.edges_of(members[0], edges).map(|(a, b)| (local[a], local[b])).collect();
        let pos = component_layout(&sub_sizes, &sub_edges, spacing);
        let extent =
            pos.iter().zip(&sub_sizes).fold((0.0f64, 0.0f64), |(w, h), (p, s)| (w.max(p.0 + s.0), h.max(p.1 + s.1)));
        placed.push((members.clone(), pos, extent));
    }
    // Shelves: rows of components, no wider than the widest component or about the side of
    // a square holding them all, whichever is more.
    let area: f64 = placed.iter().map(|(_, _, (w, h))| (w + spacing.layer_gap) * (h + spacing.node_gap)).sum();
    let widest = placed.iter().map(|(_, _, (w, _))| *w).fold(0.0, f64::max);
    let row_limit = widest.max(area.sqrt() * 1.5);
    let (mut x, mut y, mut row_h) = (0.0f64, 0.0f64, 0.0f64);
    for (members, pos, (w, h)) in placed {
        if x > 0.0 && x + w > row_limit {
            x = 0.0;
            y += row_h + spacing.node_gap * 2.0;
            row_h = 0.0;
        }
        for (g, p) in members.into_iter().zip(pos) {
            out[g] = (x + p.0, y + p.1);
        }
        x += w + spacing.layer_gap;
        row_h = row_h.max(h);
    }
    out
}

/// Weakly connected components, each listing its nodes in index order; components in the
/// order of their first node.
struct Components {
    members: Vec<Vec<usize>>,
    /// Per node, its component.
    of: Vec<usize>,
    /// Edge indices per component.
    edges: Vec<Vec<usize>>,
}

impl Components {
    fn edges_of<'a>(
        &'a self,
        any_member: usize,
        edges: &'a [(usize, usize)],
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        self.edges[self.of[any_member]].iter().map(move |&e| edges[e])
    }
}

fn components(n: usize, edges: &[(usize, usize)]) -> Components {
    // Union-find with path halving and union by size: no recursion, near-linear.
    let mut parent: Vec<usize> = (0..n).collect();
    let mut size = vec![1usize; n];
    let find = |parent: &mut Vec<usize>, mut x: usize| {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    };
    for &(a, b) in edges {
        let (mut ra, mut rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            if size[ra] < size[rb] {
                std::mem::swap(&mut ra, &mut rb);
            }
            parent[rb] = ra;
            size[ra] += size[rb];
        }
    }
    let mut index_of_root = vec![usize::MAX; n];
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut of = vec![0usize; n];
    for v in 0..n {
        let r = find(&mut parent, v);
        if index_of_root[r] == usize::MAX {
            index_of_root[r] = members.len();
            members.push(Vec::new());
        }
        of[v] = index_of_root[r];
        members[of[v]].push(v);
    }
    let mut by_component = vec![Vec::new(); members.len()];
    for (i, &(a, _)) in edges.iter().enumerate() {
        by_component[of[a]].push(i);
    }
    Components { members, of, edges: by_component }
}

/// Compressed adjacency: the neighbours of `v` are `targets[start[v]..start[v + 1]]`.
struct Csr {
    start: Vec<usize>,
    targets: Vec<usize>,
}

impl Csr {
    fn new(n: usize, pairs: impl Iterator<Item = (usize, usize)> + Clone) -> Self {
        let mut start = vec![0usize; n + 1];
        for (a, _) in pairs.clone() {
            start[a + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut targets = vec![0usize; start[n]];
        for (a, b) in pairs {
            targets[fill[a]] = b;
            fill[a] += 1;
        }
        Self { start, targets }
    }

    fn of(&self, v: usize) -> &[usize] {
        &self.targets[self.start[v]..self.start[v + 1]]
    }
}

/// One connected component, laid out from (0, 0).
fn component_layout(sizes: &[(f64, f64)], edges: &[(usize, usize)], spacing: Spacing) -> Vec<(f64, f64)> {
    let n = sizes.len();
    if n == 1 {
        return vec![(0.0, 0.0)];
    }
    let edges: Vec<(usize, usize)> = edges.iter().copied().filter(|(a, b)| a != b).collect();
    let (dag, preorder) = acyclic(n, &edges);
    let rank = ranks(n, &dag);
    let layered = LayeredGraph::build(n, &dag, &rank, &preorder);
    let order = reduce_crossings(&layered);
    coordinates(&layered, &order, sizes, spacing)
}

/// The edges with every back edge of a depth-first search reversed (an acyclic graph), and
/// each node's discovery index, the search starting from sources in index order.
fn acyclic(n: usize, edges: &[(usize, usize)]) -> (Vec<(usize, usize)>, Vec<usize>) {
    let out = Csr::new(n, edges.iter().enumerate().map(|(i, &(a, _))| (a, i)));
    let mut indegree = vec![0usize; n];
    for &(_, b) in edges {
        indegree[b] += 1;
    }
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; n];
    let mut reversed = vec![false; edges.len()];
    let mut preorder = vec![0usize; n];
    let mut next_pre = 0;
    // Sources first so that the natural flow decides which edges are "back".
    let starts = (0..n).filter(|&v| indegree[v] == 0).chain(0..n);
    let mut path: Vec<(usize, usize)> = Vec::new();
    for s in starts {
        if state[s] != NEW {
            continue;
        }
        state[s] = ON_PATH;
        preorder[s] = next_pre;
        next_pre += 1;
        path.push((s, 0));
        while let Some((v, k)) = path.last_mut() {
            let v = *v;
            let out_v = out.of(v);
            if *k < out_v.len() {
                let e = out_v[*k];
                *k += 1;
                let w = edges[e].1;
                match state[w] {
                    NEW => {
                        state[w] = ON_PATH;
                        preorder[w] = next_pre;
                        next_pre += 1;
                        path.push((w, 0));
                    }
                    ON_PATH => reversed[e] = true,
                    _ => {}
                }
            } else {
                state[v] = DONE;
                path.pop();
            }
        }
    }
    let dag = edges.iter().zip(&reversed).map(|(&(a, b), &r)| if r { (b, a) } else { (a, b) }).collect();
    (dag, preorder)
}

/// Longest-path layers of an acyclic graph, with sources pulled right next to their
/// nearest successor.
fn ranks(n: usize, dag: &[(usize, usize)]) -> Vec<usize> {
    let out = Csr::new(n, dag.iter().copied());
    let mut indegree = vec![0usize; n];
    for &(_, b) in dag {
        indegree[b] += 1;
    }
    let is_source: Vec<bool> = indegree.iter().map(|d| *d == 0).collect();
    // Kahn's algorithm gives a topological order and the longest paths at once.
    let mut rank = vec![0usize; n];
    let mut queue: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut topo = Vec::with_capacity(n);
    let mut head = 0;
    while head < queue.len() {
        let v = queue[head];
        head += 1;
        topo.push(v);
        for &w in out.of(v) {
            rank[w] = rank[w].max(rank[v] + 1);
            indegree[w] -= 1;
            if indegree[w] == 0 {
                queue.push(w);
            }
        }
    }
    for &v in topo.iter().rev() {
        if is_source[v]
            && let Some(nearest) = out.of(v).iter().map(|&w| rank[w]).min()
        {
            rank[v] = nearest.saturating_sub(1).max(rank[v]);
        }
    }
    rank
}

/// The graph with dummy nodes on long edges, as layers of node indices (real nodes keep
/// their indices; dummies follow) and links between consecutive layers.
struct LayeredGraph {
    real: usize,
    layer_of: Vec<usize>,
    layers: Vec<Vec<usize>>,
    /// Neighbours in the layer before and the layer after.
    up: Csr,
    down: Csr,
}

impl LayeredGraph {
    fn build(n: usize, dag: &[(usize, usize)], rank: &[usize], preorder: &[usize]) -> Self {
        // Dummies for short edges first: the budget goes where it straightens the most.
        let budget = 4 * (n + dag.len()) + 1_024;
        let mut by_span: Vec<usize> = (0..dag.len()).collect();
        by_span.sort_by_key(|&e| rank[dag[e].1] - rank[dag[e].0]);
        let mut layer_of: Vec<usize> = rank.to_vec();
        let mut key: Vec<usize> = preorder.to_vec();
        let mut links: Vec<(usize, usize)> = Vec::with_capacity(dag.len());
        let mut spent = 0usize;
        for e in by_span {
            let (a, b) = dag[e];
            let span = rank[b] - rank[a];
            if span == 1 {
                links.push((a, b));
                continue;
            }
            if spent + span - 1 > budget {
                continue;
            }
            spent += span - 1;
            let mut prev = a;
            for r in rank[a] + 1..rank[b] {
                let d = layer_of.len();
                layer_of.push(r);
                key.push(preorder[a]);
                links.push((prev, d));
                prev = d;
            }
            links.push((prev, b));
        }
        let total = layer_of.len();
        let depth = layer_of.iter().max().map_or(0, |m| m + 1);
        let mut layers: Vec<Vec<usize>> = vec![Vec::new(); depth];
        let mut all: Vec<usize> = (0..total).collect();
        all.sort_by_key(|&v| (key[v], v));
        for v in all {
            layers[layer_of[v]].push(v);
        }
        let down = Csr::new(total, links.iter().copied());
        let up = Csr::new(total, links.iter().map(|&(a, b)| (b, a)));
        Self { real: n, layer_of, layers, up, down }
    }

    fn is_dummy(&self, v: usize) -> bool {
        v >= self.real
    }
}

/// Barycenter sweeps; returns the best layer orders found.
fn reduce_crossings(g: &LayeredGraph) -> Vec<Vec<usize>> {
    let mut order = g.layers.clone();
    let mut pos = vec![0usize; g.layer_of.len()];
    let index = |order: &[Vec<usize>], pos: &mut [usize]| {
        for layer in order {
            for (i, &v) in layer.iter().enumerate() {
                pos[v] = i;
            }
        }
    };
    index(&order, &mut pos);
    let mut best = order.clone();
    let mut best_crossings = crossings(g, &order, &pos);
    if best_crossings == 0 {
        return best;
    }
    for _ in 0..SWEEPS {
        for downward in [true, false] {
            let layers: Vec<usize> =
                if downward { (1..order.len()).collect() } else { (0..order.len().saturating_sub(1)).rev().collect() };
            for l in layers {
                let adj = if downward { &g.up } else { &g.down };
                let mut keyed: Vec<(f64, usize, usize)> = order[l]
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| {
                        let ns = adj.of(v);
                        let b = if ns.is_empty() {
                            i as f64
                        } else {
                            ns.iter().map(|&w| pos[w] as f64).sum::<f64>() / ns.len() as f64
                        };
                        (b, i, v)
                    })
                    .collect();
                keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                order[l] = keyed.into_iter().map(|(_, _, v)| v).collect();
                for (i, &v) in order[l].iter().enumerate() {
                    pos[v] = i;
                }
            }
            let c = crossings(g, &order, &pos);
            if c < best_crossings {
                best_crossings = c;
                best = order.clone();
                if c == 0 {
                    return best;
                }
            }
        }
    }
    best
}

/// Edge crossings between every pair of consecutive layers: the links sorted by their upper
/// end, then inversions among their lower ends counted with a Fenwick tree.
fn crossings(g: &LayeredGraph, order: &[Vec<usize>], pos: &[usize]) -> u64 {
    let mut total = 0u64;
    let mut tree: Vec<u64> = Vec::new();
    for l in 0..order.len().saturating_sub(1) {
        let width = order[l + 1].len();
        tree.clear();
        tree.resize(width + 1, 0);
        let mut seen = 0u64;
        for &v in &order[l] {
            let mut lower: Vec<usize> = g.down.of(v).iter().map(|&w| pos[w]).collect();
            lower.sort_unstable();
            for p in lower {
                // Links already seen that end strictly right of this one cross it.
                let mut not_greater = 0u64;
                let mut i = p + 1;
                while i > 0 {
                    not_greater += tree[i];
                    i &= i - 1;
                }
                total += seen - not_greater;
                let mut i = p + 1;
                while i <= width {
                    tree[i] += 1;
                    i += i & i.wrapping_neg();
                }
                seen += 1;
            }
        }
    }
    total
}

/// Columns as wide as their widest node; within a column, heights stacked in order and
/// moved towards their neighbours' centres.
fn coordinates(g: &LayeredGraph, order: &[Vec<usize>], sizes: &[(f64, f64)], spacing: Spacing) -> Vec<(f64, f64)> {
    let total = g.layer_of.len();
    let height = |v: usize| if g.is_dummy(v) { DUMMY_H } else { sizes[v].1 };
    let gap = |a: usize, b: usize| if g.is_dummy(a) || g.is_dummy(b) { DUMMY_GAP } else { spacing.node_gap };
    let mut column_x = Vec::with_capacity(order.len());
    let mut x = 0.0;
    for layer in order {
        column_x.push(x);
        let w = layer.iter().filter(|&&v| !g.is_dummy(v)).map(|&v| sizes[v].0).fold(0.0, f64::max);
        x += w + spacing.layer_gap;
    }
    // Tops, packed to start with.
    let mut top = vec![0.0f64; total];
    for layer in order {
        let mut y = 0.0;
        for (i, &v) in layer.iter().enumerate() {
            if i > 0 {
                y += gap(layer[i - 1], v);
            }
            top[v] = y;
            y += height(v);
        }
    }
    let mut desired = Vec::new();
    let mut offsets = Vec::new();
    for _ in 0..COORD_PASSES {
        for downward in [true, false] {
            let layers: Vec<usize> =
                if downward { (1..order.len()).collect() } else { (0..order.len().saturating_sub(1)).rev().collect() };
            for l in layers {
                let adj = if downward { &g.up } else { &g.down };
                let layer = &order[l];
                desired.clear();
                offsets.clear();
                let mut off = 0.0;
                for (i, &v) in layer.iter().enumerate() {
                    if i > 0 {
                        off += height(layer[i - 1]) + gap(layer[i - 1], v);
                    }
                    offsets.push(off);
                    let ns = adj.of(v);
                    let centre = if ns.is_empty() {
                        top[v] + height(v) / 2.0
                    } else {
                        ns.iter().map(|&w| top[w] + height(w) / 2.0).sum::<f64>() / ns.len() as f64
                    };
                    // In "shifted" coordinates the order constraint is plain monotonicity.
                    desired.push(centre - height(v) / 2.0 - off);
                }
                let fitted = non_decreasing_fit(&desired);
                for (i, &v) in layer.iter().enumerate() {
                    top[v] = fitted[i] + offsets[i];
                }
            }
        }
    }
    let min_top = (0..g.real).map(|v| top[v]).fold(f64::INFINITY, f64::min);
    (0..g.real).map(|v| (column_x[g.layer_of[v]], top[v] - min_top)).collect()
}

/// The non-decreasing sequence closest to `values` in the least-squares sense (pool adjacent
/// violators: a stack of blocks, each the mean of the values it pools; linear time).
fn non_decreasing_fit(values: &[f64]) -> Vec<f64> {
    let mut blocks: Vec<(f64, usize)> = Vec::with_capacity(values.len());
    for &v in values {
        let mut sum = v;
        let mut count = 1usize;
        while let Some(&(mean, c)) = blocks.last() {
            if mean <= sum / count as f64 {
                break;
            }
            sum += mean * c as f64;
            count += c;
            blocks.pop();
        }
        blocks.push((sum / count as f64, count));
    }
    let mut out = Vec::with_capacity(values.len());
    for (mean, count) in blocks {
        out.extend(std::iter::repeat_n(mean, count));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPACING: Spacing = Spacing { layer_gap: 90.0, node_gap: 40.0 };

    fn overlapping(pos: &[(f64, f64)], sizes: &[(f64, f64)]) -> Option<(usize, usize)> {
        // Sweep by left edge: only pairs whose x ranges meet are compared.
        let mut by_x: Vec<usize> = (0..pos.len()).collect();
        by_x.sort_by(|&a, &b| pos[a].0.total_cmp(&pos[b].0));
        for (k, &a) in by_x.iter().enumerate() {
            for &b in &by_x[k + 1..] {
                if pos[b].0 >= pos[a].0 + sizes[a].0 {
                    break;
                }
                let apart_y = pos[b].1 >= pos[a].1 + sizes[a].1 || pos[a].1 >= pos[b].1 + sizes[b].1;
                if !apart_y {
                    return Some((a, b));
                }
            }
        }
        None
    }

    #[test]
    fn a_chain_runs_left_to_right_in_one_row() {
        let sizes = vec![(220.0, 96.0); 4];
        let pos = layout(&sizes, &[(0, 1), (1, 2), (2, 3)], SPACING);
        assert_eq!(pos, vec![(0.0, 0.0), (310.0, 0.0), (620.0, 0.0), (930.0, 0.0)]);
    }

    #[test]
    fn columns_fit_the_widest_card_and_tall_cards_do_not_overlap() {
        // A fan-out to cards of mixed heights, and a wide card in the middle column.
        let sizes = vec![(220.0, 96.0), (400.0, 300.0), (220.0, 96.0), (220.0, 200.0), (220.0, 96.0)];
        let edges = [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)];
        let pos = layout(&sizes, &edges, SPACING);
        assert_eq!(overlapping(&pos, &sizes), None, "{pos:?}");
        assert_eq!(pos[4].0, 220.0 + 90.0 + 400.0 + 90.0, "the last column starts after the widest card");
        assert_eq!((pos[1].0, pos[2].0, pos[3].0), (310.0, 310.0, 310.0));
    }

    #[test]
    fn cycles_are_laid_out_and_the_loopback_does_not_rank() {
        let sizes = vec![(220.0, 96.0); 3];
        let pos = layout(&sizes, &[(0, 1), (1, 2), (2, 0)], SPACING);
        assert!(pos[0].0 < pos[1].0 && pos[1].0 < pos[2].0, "{pos:?}");
    }

    #[test]
    fn sources_sit_just_before_their_use() {
        // 0 → 1 → 2 → 3 and a second input 4 → 3: 4 goes in the column before 3, not in the first.
        let sizes = vec![(220.0, 96.0); 5];
        let pos = layout(&sizes, &[(0, 1), (1, 2), (2, 3), (4, 3)], SPACING);
        assert_eq!(pos[4].0, pos[2].0);
        assert_eq!(overlapping(&pos, &sizes), None);
    }

    #[test]
    fn crossing_reduction_untangles_a_twisted_pair() {
        // Two lines 0 → 3 → 4 and 1 → 2 → 5 meeting in 6, started in crossed order.
        let dag = [(0, 3), (1, 2), (3, 4), (2, 5), (4, 6), (5, 6)];
        let rank = [0, 0, 1, 1, 2, 2, 3];
        let g = LayeredGraph::build(7, &dag, &rank, &[0, 1, 2, 3, 4, 5, 6]);
        let mut pos = vec![0; 7];
        for layer in &g.layers {
            for (i, &v) in layer.iter().enumerate() {
                pos[v] = i;
            }
        }
        assert!(crossings(&g, &g.layers, &pos) > 0, "the start is twisted");
        let order = reduce_crossings(&g);
        for layer in &order {
            for (i, &v) in layer.iter().enumerate() {
                pos[v] = i;
            }
        }
        assert_eq!(crossings(&g, &order, &pos), 0);
    }

    #[test]
    fn components_are_packed_apart() {
        let sizes = vec![(220.0, 96.0); 5];
        let pos = layout(&sizes, &[(0, 1), (1, 2), (3, 4)], SPACING);
        assert_eq!(overlapping(&pos, &sizes), None);
        assert_eq!(pos[0], (0.0, 0.0));
    }

    #[test]
    fn counts_crossings_exactly() {
        // Against the pairwise definition on random two-layer graphs.
        let mut seed = 0x51ed_270b_2b1f_0c9du64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % m
        };
        for round in 0..100 {
            let (a, b) = (1 + next(8) as usize, 1 + next(8) as usize);
            let mut dag: Vec<(usize, usize)> =
                (0..next(20)).map(|_| (next(a as u64) as usize, a + next(b as u64) as usize)).collect();
            dag.dedup();
            let rank: Vec<usize> = (0..a + b).map(|v| usize::from(v >= a)).collect();
            let preorder: Vec<usize> = (0..a + b).collect();
            let g = LayeredGraph::build(a + b, &dag, &rank, &preorder);
            let mut pos = vec![0; a + b];
            for layer in &g.layers {
                for (i, &v) in layer.iter().enumerate() {
                    pos[v] = i;
                }
            }
            let mut naive = 0u64;
            for (i, &(u1, v1)) in dag.iter().enumerate() {
                for &(u2, v2) in &dag[i + 1..] {
                    let (du, dv) = (pos[u1] as i64 - pos[u2] as i64, pos[v1] as i64 - pos[v2] as i64);
                    if du * dv < 0 {
                        naive += 1;
                    }
                }
            }
            assert_eq!(crossings(&g, &g.layers, &pos), naive, "round {round}");
        }
    }

    #[test]
    fn the_fit_is_monotone_and_pools_violators() {
        assert_eq!(non_decreasing_fit(&[1.0, 3.0, 2.0, 4.0]), vec![1.0, 2.5, 2.5, 4.0]);
        assert_eq!(non_decreasing_fit(&[3.0, 2.0, 1.0]), vec![2.0, 2.0, 2.0]);
        assert!(non_decreasing_fit(&[]).is_empty());
    }

    #[test]
    fn large_graphs_lay_out_without_overlap_or_deep_stacks() {
        // 20,000 nodes: a long line (deep for any recursive walk), fans, merges and loopbacks.
        let n = 20_000;
        let mut edges = Vec::new();
        for i in 1..n {
            let parent = if i % 7 == 0 { i / 2 } else { i - 1 };
            edges.push((parent, i));
            if i % 97 == 0 {
                edges.push((i, i / 3)); // loopback
            }
        }
        let sizes: Vec<(f64, f64)> = (0..n).map(|i| (220.0, if i % 11 == 0 { 150.0 } else { 96.0 })).collect();
        let pos = layout(&sizes, &edges, SPACING);
        assert_eq!(overlapping(&pos, &sizes), None);
        for &(a, b) in &edges {
            if b > a {
                assert!(pos[b].0 > pos[a].0, "forward edge {a} → {b} goes right");
            }
        }
    }
}

//! Arranging nodes, as positions to apply: tidy (a layered layout of the whole workflow or
//! of a selection), room for a chain spliced into an edge, align, distribute, and where a
//! duplicate goes. Every function here only computes; [`super::document`] applies the
//! result as one undoable command. Sizes are card sizes by node index
//! ([`super::cards::card_sizes`]).

use super::cards::{FRAME_HEADER, FRAME_PAD, Rect};
use crate::workflow::Workflow;
use crate::workflow::layered::{self, Spacing};
use petgraph::stable_graph::NodeIndex;
use petgraph::visit::{EdgeRef, IntoEdgeReferences, NodeIndexable};
use std::collections::HashMap;

/// Room between columns and between stacked cards.
pub const SPACING: Spacing = Spacing { layer_gap: 90.0, node_gap: 40.0 };

/// New positions, by node id.
pub type Moves = Vec<(String, (f64, f64))>;

/// A rearrangement of nodes, applied as one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrangement {
    /// A layered layout of the nodes (all of them when none are named).
    Tidy,
    Align(Align),
    Distribute(Axis),
}

impl Arrangement {
    /// The fewest nodes it applies to.
    pub fn minimum(self) -> usize {
        match self {
            Arrangement::Tidy => 1,
            Arrangement::Align(_) => 2,
            Arrangement::Distribute(_) => 3,
        }
    }

    /// Its name in menus and in the undo history.
    pub fn label(self) -> &'static str {
        match self {
            Arrangement::Tidy => "Tidy",
            Arrangement::Align(Align::Left) => "Align left edges",
            Arrangement::Align(Align::Right) => "Align right edges",
            Arrangement::Align(Align::Top) => "Align top edges",
            Arrangement::Align(Align::Bottom) => "Align bottom edges",
            Arrangement::Align(Align::CentreX) => "Align centres vertically",
            Arrangement::Align(Align::CentreY) => "Align centres horizontally",
            Arrangement::Distribute(Axis::Horizontal) => "Distribute horizontally",
            Arrangement::Distribute(Axis::Vertical) => "Distribute vertically",
        }
    }

    /// New positions for `ids` (for tidy, every node when `ids` is empty).
    pub fn moves(self, wf: &Workflow, ids: &[String], sizes: &[(f64, f64)]) -> Moves {
        match self {
            Arrangement::Tidy => tidy(wf, ids, sizes),
            Arrangement::Align(how) => align(wf, ids, how, sizes),
            Arrangement::Distribute(axis) => distribute(wf, ids, axis, sizes),
        }
    }
}

/// Which edges or centres to line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
    Top,
    Bottom,
    /// Centres on one vertical line.
    CentreX,
    /// Centres on one horizontal line.
    CentreY,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    Horizontal,
    Vertical,
}

/// The nodes named by `ids` that exist, in graph order; all nodes when `ids` is empty.
fn scope(wf: &Workflow, ids: &[String]) -> Vec<NodeIndex> {
    if ids.is_empty() {
        return wf.graph.node_indices().collect();
    }
    let mut out: Vec<NodeIndex> = ids.iter().filter_map(|id| wf.node(id)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn bounds(rects: impl IntoIterator<Item = Rect>) -> Option<Rect> {
    rects.into_iter().reduce(|a, b| a.union(&b))
}

/// A layered left-to-right layout of the nodes `ids` (all when empty), keeping each chain
/// instance together as one block inside its frame. The result starts where the nodes'
/// bounding box started; a tidied selection moves down, as one, until it covers no other
/// card or frame.
pub fn tidy(wf: &Workflow, ids: &[String], sizes: &[(f64, f64)]) -> Moves {
    let mut nodes = scope(wf, ids);
    if nodes.is_empty() {
        return Vec::new();
    }
    let bound = wf.graph.node_bound();
    let mut in_scope = vec![false; bound];
    for &n in &nodes {
        in_scope[n.index()] = true;
    }
    // A selection that takes part of a chain instance takes all of it: the block moves whole.
    let instances = wf.instances();
    for inst in &instances {
        let members: Vec<NodeIndex> = inst.node_ids.iter().filter_map(|id| wf.node(id)).collect();
        if members.iter().any(|n| in_scope[n.index()]) {
            for n in members {
                if !std::mem::replace(&mut in_scope[n.index()], true) {
                    nodes.push(n);
                }
            }
        }
    }
    nodes.sort_unstable();
    // Items to lay out: a block per chain instance (its nodes in scope), then each other node.
    let mut item_of = vec![usize::MAX; bound];
    let mut blocks: Vec<Vec<NodeIndex>> = Vec::new();
    for inst in instances {
        let members: Vec<NodeIndex> = inst
            .node_ids
            .iter()
            .filter_map(|id| wf.node(id))
            .filter(|n| in_scope[n.index()] && item_of[n.index()] == usize::MAX)
            .collect();
        if members.is_empty() {
            continue;
        }
        for n in &members {
            item_of[n.index()] = blocks.len();
        }
        blocks.push(members);
    }
    let instance_blocks = blocks.len();
    for &n in &nodes {
        if item_of[n.index()] == usize::MAX {
            item_of[n.index()] = blocks.len();
            blocks.push(vec![n]);
        }
    }
    let scoped_edges: Vec<(NodeIndex, NodeIndex)> = wf
        .graph
        .edge_references()
        .map(|e| (e.source(), e.target()))
        .filter(|(a, z)| in_scope[a.index()] && in_scope[z.index()])
        .collect();
    // Blocks that lead into one another through an instance (a chain spliced into an edge
    // inside another instance: the host feeds the chain, which feeds the host back) cannot
    // each stand wholly left of the other, so they are laid out as one unit, the spliced
    // frame inside its host's; every edge then runs forward. Plain nodes in a loop stay
    // apart, as before.
    let mut block_graph = petgraph::Graph::<(), ()>::with_capacity(blocks.len(), scoped_edges.len());
    for _ in 0..blocks.len() {
        block_graph.add_node(());
    }
    for &(a, z) in &scoped_edges {
        let (ia, iz) = (item_of[a.index()], item_of[z.index()]);
        if ia != iz {
            block_graph.add_edge(petgraph::graph::NodeIndex::new(ia), petgraph::graph::NodeIndex::new(iz), ());
        }
    }
    let mut unit_of_block: Vec<usize> = (0..blocks.len()).collect();
    for scc in petgraph::algo::tarjan_scc(&block_graph) {
        if scc.iter().any(|b| b.index() < instance_blocks) {
            let first = scc.iter().map(|b| b.index()).min().expect("an SCC is not empty");
            for b in scc {
                unit_of_block[b.index()] = first;
            }
        }
    }
    // Units in the order of their first block, as the blocks were.
    let mut units: Vec<(Vec<NodeIndex>, bool)> = Vec::new();
    let mut unit_index = vec![usize::MAX; blocks.len()];
    for (b, members) in blocks.iter().enumerate() {
        let u = unit_of_block[b];
        if unit_index[u] == usize::MAX {
            unit_index[u] = units.len();
            units.push((Vec::new(), false));
        }
        let unit = &mut units[unit_index[u]];
        unit.0.extend(members.iter().copied());
        unit.1 |= b < instance_blocks;
    }
    for (u, (members, _)) in units.iter().enumerate() {
        for n in members {
            item_of[n.index()] = u;
        }
    }
    // Inside each unit: its own layout, offset into its frame.
    let mut local = vec![(0.0, 0.0); bound];
    let mut item_sizes = Vec::with_capacity(units.len());
    let mut slot = vec![usize::MAX; bound];
    let mut unit_edges: Vec<Vec<(usize, usize)>> = vec![Vec::new(); units.len()];
    let mut item_edges = Vec::new();
    for (members, _) in &units {
        for (i, n) in members.iter().enumerate() {
            slot[n.index()] = i;
        }
    }
    for &(a, z) in &scoped_edges {
        let (ia, iz) = (item_of[a.index()], item_of[z.index()]);
        if ia == iz {
            unit_edges[ia].push((slot[a.index()], slot[z.index()]));
        } else {
            item_edges.push((ia, iz));
        }
    }
    for (u, (members, framed)) in units.iter().enumerate() {
        if !framed {
            local[members[0].index()] = (0.0, 0.0);
            item_sizes.push(sizes[members[0].index()]);
            continue;
        }
        let member_sizes: Vec<(f64, f64)> = members.iter().map(|n| sizes[n.index()]).collect();
        let pos = layered::layout(&member_sizes, &unit_edges[u], SPACING);
        let mut extent: (f64, f64) = (0.0, 0.0);
        for ((n, p), s) in members.iter().zip(&pos).zip(&member_sizes) {
            local[n.index()] = (p.0 + FRAME_PAD, p.1 + FRAME_PAD + FRAME_HEADER);
            extent = (extent.0.max(p.0 + s.0), extent.1.max(p.1 + s.1));
        }
        item_sizes.push((extent.0 + 2.0 * FRAME_PAD, extent.1 + 2.0 * FRAME_PAD + FRAME_HEADER));
    }
    let item_pos = layered::layout(&item_sizes, &item_edges, SPACING);
    let mut placed: Vec<(NodeIndex, (f64, f64))> = nodes
        .iter()
        .map(|&n| {
            let (ip, l) = (item_pos[item_of[n.index()]], local[n.index()]);
            (n, (ip.0 + l.0, ip.1 + l.1))
        })
        .collect();
    // Keep the arrangement where the nodes were.
    let before = bounds(nodes.iter().map(|&n| Rect::at(wf.graph[n].position(), sizes[n.index()])));
    let after = bounds(placed.iter().map(|&(n, p)| Rect::at(p, sizes[n.index()])));
    if let (Some(before), Some(after)) = (before, after) {
        let d = (before.min.0 - after.min.0, before.min.1 - after.min.1);
        for (_, p) in &mut placed {
            *p = (p.0 + d.0, p.1 + d.1);
        }
    }
    if nodes.len() < wf.node_count() {
        // Frames of the tidied blocks count as the group's extent.
        let group = bounds(units.iter().map(|(members, framed)| {
            let r = bounds(members.iter().map(|&n| {
                let p = placed.binary_search_by_key(&n, |(m, _)| *m).map(|k| placed[k].1).unwrap_or_default();
                Rect::at(p, sizes[n.index()])
            }))
            .expect("blocks are not empty");
            if *framed { r.framed() } else { r }
        }));
        let others = obstacles(wf, sizes, &|n| in_scope[n.index()]);
        if let Some(group) = group {
            let dy = clear_below(group, &others, SPACING.node_gap);
            for (_, p) in &mut placed {
                p.1 += dy;
            }
        }
    }
    placed.into_iter().map(|(n, p)| (wf.graph[n].id().to_owned(), p)).collect()
}

/// Where a chain dropped on empty canvas (not on an edge, not after a node) goes: where it
/// was dropped, or, when its frame would cover a card or a frame, the nearest spot where
/// it covers none, keeping a gap, so a drop never piles onto what is there.
pub fn clear_drop(wf: &Workflow, chain: &[String], sizes: &[(f64, f64)]) -> Moves {
    let members: Vec<NodeIndex> = chain.iter().filter_map(|id| wf.node(id)).collect();
    let Some(block) = bounds(members.iter().map(|&n| Rect::at(wf.graph[n].position(), sizes[n.index()]))) else {
        return Vec::new();
    };
    let mut in_chain = vec![false; wf.graph.node_bound()];
    for &n in &members {
        in_chain[n.index()] = true;
    }
    let frame = block.framed();
    let gap = SPACING.node_gap / 2.0;
    let padded = |r: Rect| Rect { min: (r.min.0 - gap, r.min.1 - gap), max: (r.max.0 + gap, r.max.1 + gap) };
    let others: Vec<Rect> = obstacles(wf, sizes, &|n| in_chain[n.index()]).into_iter().map(padded).collect();
    let covers = |d: (f64, f64)| {
        let r = Rect { min: (frame.min.0 + d.0, frame.min.1 + d.1), max: (frame.max.0 + d.0, frame.max.1 + d.1) };
        others.iter().any(|o| o.overlaps(&r))
    };
    if !covers((0.0, 0.0)) {
        return Vec::new();
    }
    let d = nearest_free_shift(frame, &others);
    let mut out: Moves = members
        .iter()
        .map(|&n| {
            let p = wf.graph[n].position();
            (wf.graph[n].id().to_owned(), (p.0 + d.0, p.1 + d.1))
        })
        .collect();
    out.sort_by(|x, y| x.0.cmp(&y.0));
    out
}

/// Rows and columns of shifts [`nearest_free_shift`] looks along besides the drop's own:
/// each is a pass over the obstacles and a sort of those it crosses.
const SEARCH_LINES: usize = 24;

/// The shift nearest (0, 0) that moves `frame` off every one of `obstacles`. Along the
/// drop's own row (no vertical shift), and along the rows nearest it where the frame's top
/// or bottom meets an obstacle's edge, the nearest free horizontal shift comes from the
/// union of the shifts each obstacle in that row forbids; the same for columns. The nearest
/// free spot lies in such a row or column, so looking at the nearest few finds it, and the
/// work stays a few passes over the obstacles however many there are (a grid of shifts
/// from every pair of obstacle edges was 40,000 × 40,000 for a drop among 20,000 cards).
fn nearest_free_shift(frame: Rect, obstacles: &[Rect]) -> (f64, f64) {
    let mut best = (f64::INFINITY, 0.0);
    let mut scratch = Vec::new();
    for transposed in [false, true] {
        let along = |r: &Rect| if transposed { (r.min.1, r.max.1) } else { (r.min.0, r.max.0) };
        let across = |r: &Rect| if transposed { (r.min.0, r.max.0) } else { (r.min.1, r.max.1) };
        let (f_lo, f_hi) = across(&frame);
        // Shifts across that put the frame's edge on an obstacle's, nearest first.
        let mut lines: Vec<f64> = obstacles
            .iter()
            .flat_map(|o| {
                let (lo, hi) = across(o);
                [hi - f_lo, lo - f_hi]
            })
            .collect();
        lines.sort_by(|a, b| a.abs().total_cmp(&b.abs()).then(a.total_cmp(b)));
        lines.dedup();
        for shift_across in std::iter::once(0.0).chain(lines.into_iter().take(SEARCH_LINES)) {
            if shift_across.abs() >= best.0.hypot(best.1) {
                break;
            }
            let (lo, hi) = (f_lo + shift_across, f_hi + shift_across);
            scratch.clear();
            let (fa_lo, fa_hi) = along(&frame);
            scratch.extend(obstacles.iter().filter_map(|o| {
                let (o_lo, o_hi) = across(o);
                (o_lo < hi && lo < o_hi).then(|| {
                    let (a_lo, a_hi) = along(o);
                    (a_lo - fa_hi, a_hi - fa_lo)
                })
            }));
            let shift_along = nearest_outside(&mut scratch);
            let d = if transposed { (shift_across, shift_along) } else { (shift_along, shift_across) };
            if d.0.hypot(d.1) < best.0.hypot(best.1) {
                best = d;
            }
        }
    }
    best
}

/// The number nearest 0 inside none of the open intervals `(start, end)` (sorted here).
fn nearest_outside(intervals: &mut [(f64, f64)]) -> f64 {
    intervals.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut i = 0;
    while i < intervals.len() && intervals[i].0 < 0.0 {
        // The union of the intervals that overlap this one, open at both ends.
        let (start, mut end) = intervals[i];
        i += 1;
        while i < intervals.len() && intervals[i].0 < end {
            end = end.max(intervals[i].1);
            i += 1;
        }
        if 0.0 < end {
            return if end <= -start { end } else { start };
        }
    }
    0.0
}

/// Cards and instance frames of the nodes `skip` does not name, as rectangles.
fn obstacles(wf: &Workflow, sizes: &[(f64, f64)], skip: &dyn Fn(NodeIndex) -> bool) -> Vec<Rect> {
    let mut out: Vec<Rect> = wf
        .graph
        .node_indices()
        .filter(|&n| !skip(n))
        .map(|n| Rect::at(wf.graph[n].position(), sizes[n.index()]))
        .collect();
    for inst in wf.instances() {
        let members: Vec<NodeIndex> = inst.node_ids.iter().filter_map(|id| wf.node(id)).filter(|&n| !skip(n)).collect();
        if let Some(r) = bounds(members.iter().map(|&n| Rect::at(wf.graph[n].position(), sizes[n.index()]))) {
            out.push(r.framed());
        }
    }
    out
}

/// How far down `group` must move so that it overlaps none of `obstacles`, keeping `gap`
/// below each one it passes. Obstacles are taken by their top edge: once one lies wholly
/// below the group, so do all later ones, so one pass decides.
fn clear_below(group: Rect, obstacles: &[Rect], gap: f64) -> f64 {
    let mut hits: Vec<&Rect> =
        obstacles.iter().filter(|o| o.min.0 < group.max.0 && group.min.0 < o.max.0 && o.max.1 > group.min.1).collect();
    hits.sort_by(|a, b| a.min.1.total_cmp(&b.min.1));
    let (mut top, h) = (group.min.1, group.height());
    for o in hits {
        if o.min.1 >= top + h {
            break;
        }
        if o.max.1 > top {
            top = o.max.1 + gap;
        }
    }
    top - group.min.1
}

/// Line up the nodes' edges or centres on the extreme (or middle) of their bounding box.
pub fn align(wf: &Workflow, ids: &[String], how: Align, sizes: &[(f64, f64)]) -> Moves {
    let nodes = scope(wf, ids);
    let rects: Vec<Rect> = nodes.iter().map(|&n| Rect::at(wf.graph[n].position(), sizes[n.index()])).collect();
    let Some(b) = bounds(rects.iter().copied()) else { return Vec::new() };
    nodes
        .iter()
        .zip(&rects)
        .map(|(&n, r)| {
            let (w, h) = (r.width(), r.height());
            let p = match how {
                Align::Left => (b.min.0, r.min.1),
                Align::Right => (b.max.0 - w, r.min.1),
                Align::Top => (r.min.0, b.min.1),
                Align::Bottom => (r.min.0, b.max.1 - h),
                Align::CentreX => ((b.min.0 + b.max.0 - w) / 2.0, r.min.1),
                Align::CentreY => (r.min.0, (b.min.1 + b.max.1 - h) / 2.0),
            };
            (wf.graph[n].id().to_owned(), p)
        })
        .collect()
}

/// Equal gaps between the nodes along `axis`, the first and last staying put (in order of
/// their centres). When the cards are wider than the span, their centres are spaced evenly.
pub fn distribute(wf: &Workflow, ids: &[String], axis: Axis, sizes: &[(f64, f64)]) -> Moves {
    let nodes = scope(wf, ids);
    if nodes.len() < 3 {
        return Vec::new();
    }
    let along = |r: &Rect| match axis {
        Axis::Horizontal => (r.min.0, r.width()),
        Axis::Vertical => (r.min.1, r.height()),
    };
    let mut items: Vec<(NodeIndex, Rect)> =
        nodes.iter().map(|&n| (n, Rect::at(wf.graph[n].position(), sizes[n.index()]))).collect();
    items.sort_by(|a, b| {
        let (sa, la) = along(&a.1);
        let (sb, lb) = along(&b.1);
        (sa + la / 2.0).total_cmp(&(sb + lb / 2.0)).then(a.0.cmp(&b.0))
    });
    let (first, last) = (along(&items[0].1), along(&items[items.len() - 1].1));
    let count = items.len() as f64;
    let total: f64 = items.iter().map(|(_, r)| along(r).1).sum();
    let gap = (last.0 + last.1 - first.0 - total) / (count - 1.0);
    let step = ((last.0 + last.1 / 2.0) - (first.0 + first.1 / 2.0)) / (count - 1.0);
    let mut cursor = first.0;
    items
        .iter()
        .enumerate()
        .map(|(i, (n, r))| {
            let (_, len) = along(r);
            let start = if gap >= 0.0 { cursor } else { first.0 + first.1 / 2.0 + step * i as f64 - len / 2.0 };
            cursor += len + gap;
            let p = match axis {
                Axis::Horizontal => (start, r.min.1),
                Axis::Vertical => (r.min.0, start),
            };
            (wf.graph[*n].id().to_owned(), p)
        })
        .collect()
}

/// Where copies of `ids` go: right below the originals, then further down until they
/// cover no card or frame.
pub fn duplicate_offset(wf: &Workflow, ids: &[String], sizes: &[(f64, f64)]) -> (f64, f64) {
    let nodes = scope(wf, ids);
    let Some(b) = bounds(nodes.iter().map(|&n| Rect::at(wf.graph[n].position(), sizes[n.index()]))) else {
        return (0.0, 0.0);
    };
    let dy = b.height() + SPACING.node_gap;
    let moved = Rect { min: (b.min.0, b.min.1 + dy), max: (b.max.0, b.max.1 + dy) };
    (0.0, dy + clear_below(moved, &obstacles(wf, sizes, &|_| false), SPACING.node_gap))
}

/// Make room for the chain just spliced between `source` and `target` (its nodes `chain`),
/// or after `source` alone (`target` `None`: quick-add with a node selected).
///
/// The chain goes right of the source, its entry level with it. Everything whose left edge
/// is at or right of the chain's left edge (and the target, with what follows it) moves
/// right until it clears the chain; a chain instance that straddles that line moves whole
/// with it, unless it holds the source. Moving one half-plane right as one cannot make two
/// cards overlap that did not before, and the target ends right of the chain, so the edge
/// back into the workflow runs forward. Last, the chain moves down past any card or frame
/// left in its way (one reaching in from the left).
///
/// After a source that already feeds other nodes, the chain starts a new branch below them,
/// so the edges they already have do not run through it.
///
/// A target left of the source (a back edge, after manual moves) would have that edge back
/// loop across the cards between them. There the chain takes the target's place instead,
/// its exit level with it, and the target moves right with everything from it on (the
/// source too): the way out into the target runs forward and short, and the way in stays
/// the back edge the user drew.
pub fn make_room(wf: &Workflow, chain: &[String], source: &str, target: Option<&str>, sizes: &[(f64, f64)]) -> Moves {
    let members: Vec<NodeIndex> = chain.iter().filter_map(|id| wf.node(id)).collect();
    let Some(a) = wf.node(source) else { return Vec::new() };
    let t = match target {
        Some(id) => match wf.node(id) {
            Some(t) => Some(t),
            None => return Vec::new(),
        },
        None => None,
    };
    let card = |n: NodeIndex| Rect::at(wf.graph[n].position(), sizes[n.index()]);
    let Some(block) = bounds(members.iter().map(|&n| card(n))) else { return Vec::new() };
    let mut in_chain = vec![false; wf.graph.node_bound()];
    for &n in &members {
        in_chain[n.index()] = true;
    }
    let centre_y = |r: Rect| (r.min.1 + r.max.1) / 2.0;
    let ra = card(a);
    let rt = t.map(card);
    let backward = rt.is_some_and(|rt| rt.min.0 < ra.min.0);
    // The chain node levelled with the parent node it sits beside: the entry the source
    // feeds, or (backward) the exit that feeds the target.
    let (beside, level) = match (t, rt) {
        (Some(t), Some(rt)) if backward => {
            let exit = wf.graph.edges_directed(t, petgraph::Direction::Incoming).map(|e| e.source());
            (exit.into_iter().find(|s| in_chain[s.index()]), rt)
        }
        _ => (wf.graph.edges(a).map(|e| e.target()).find(|t| in_chain[t.index()]), ra),
    };
    let beside_cy = beside.map_or(block.min.1 + sizes[members[0].index()].1 / 2.0, |n| centre_y(card(n)));
    let left = if backward { level.min.0 } else { ra.max.0 + SPACING.layer_gap };
    let shift_chain = (left - block.min.0, centre_y(level) - beside_cy);
    let chain_right = block.max.0 + shift_chain.0;

    // The cut: left edges at or right of it move. A target left of the chain (below the
    // source, say) pulls it to the target; so do straddling instances.
    let mut cut = rt.map_or(left, |rt| left.min(rt.min.0));
    // Forward, the source stays, and so does an instance reaching left of it.
    let pinned = if backward { f64::NEG_INFINITY } else { ra.min.0 };
    let mut spans: Vec<(f64, f64)> = wf
        .instances()
        .iter()
        .filter_map(|inst| {
            let xs: Vec<f64> = inst
                .node_ids
                .iter()
                .filter_map(|id| wf.node(id))
                .filter(|n| !in_chain[n.index()])
                .map(|n| wf.graph[n].position().0)
                .collect();
            let lo = xs.iter().copied().reduce(f64::min)?;
            let hi = xs.iter().copied().reduce(f64::max)?;
            (lo > pinned).then_some((lo, hi))
        })
        .collect();
    spans.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Merge touching spans; a merged run containing the cut pulls it to the run's start.
    let mut run: Option<(f64, f64)> = None;
    for (lo, hi) in spans {
        run = match run {
            Some((rlo, rhi)) if lo <= rhi => Some((rlo, rhi.max(hi))),
            Some((rlo, rhi)) => {
                if rlo < cut && cut <= rhi {
                    cut = rlo;
                }
                Some((lo, hi))
            }
            None => Some((lo, hi)),
        };
    }
    if let Some((rlo, rhi)) = run
        && rlo < cut
        && cut <= rhi
    {
        cut = rlo;
    }
    let movers: Vec<NodeIndex> = wf
        .graph
        .node_indices()
        .filter(|&n| !in_chain[n.index()] && (backward || n != a) && wf.graph[n].position().0 >= cut)
        .collect();
    let first = movers.iter().map(|&n| wf.graph[n].position().0).fold(f64::INFINITY, f64::min);
    let dx = if movers.is_empty() { 0.0 } else { (chain_right + SPACING.layer_gap - first).max(0.0) };

    let mut moved: HashMap<NodeIndex, (f64, f64)> = HashMap::with_capacity(movers.len() + members.len());
    for &n in &movers {
        let (x, y) = wf.graph[n].position();
        moved.insert(n, (x + dx, y));
    }
    // What the chain must not cover: every other card and frame, where it now stands.
    let at = |n: NodeIndex| moved.get(&n).copied().unwrap_or_else(|| wf.graph[n].position());
    let mut others: Vec<Rect> =
        wf.graph.node_indices().filter(|n| !in_chain[n.index()]).map(|n| Rect::at(at(n), sizes[n.index()])).collect();
    for inst in wf.instances() {
        let r = bounds(
            inst.node_ids
                .iter()
                .filter_map(|id| wf.node(id))
                .filter(|n| !in_chain[n.index()])
                .map(|n| Rect::at(at(n), sizes[n.index()])),
        );
        if let Some(r) = r {
            others.push(r.framed());
        }
    }
    let mut shift_y = shift_chain.1;
    if target.is_none() {
        // Wired after a node that already feeds others, the chain is a new branch beside
        // them: it goes below the source and the nodes it feeds, so their edges, which run
        // level with them, do not cross it.
        let fed = wf.graph.edges(a).map(|e| e.target()).filter(|n| !in_chain[n.index()]);
        if let Some(floor) = fed.map(|n| Rect::at(at(n), sizes[n.index()]).max.1).reduce(f64::max) {
            let top = floor.max(ra.max.1) + SPACING.node_gap + FRAME_PAD + FRAME_HEADER;
            shift_y = shift_y.max(top - block.min.1);
        }
    }
    let shifted = Rect {
        min: (block.min.0 + shift_chain.0, block.min.1 + shift_y),
        max: (block.max.0 + shift_chain.0, block.max.1 + shift_y),
    };
    let dy = clear_below(shifted.framed(), &others, SPACING.node_gap);
    for &n in &members {
        let (x, y) = wf.graph[n].position();
        moved.insert(n, (x + shift_chain.0, y + shift_y + dy));
    }
    let mut out: Moves = moved.into_iter().map(|(n, p)| (wf.graph[n].id().to_owned(), p)).collect();
    out.sort_by(|x, y| x.0.cmp(&y.0));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Trust;
    use crate::editor::cards::{PortTable, card_sizes, conflicts};
    use crate::editor::document::{Command, Document};
    use crate::editor::preview::{DropEdge, Placement, request};
    use crate::pack::bundled;
    use crate::workflow::ExportMode;
    use serde_json::{Value, json};

    fn workflow(nodes: &[(&str, f64, f64)], edges: &[(&str, &str)]) -> Workflow {
        let nodes: Vec<Value> = nodes
            .iter()
            .map(|(id, x, y)| json!({"id": id, "typeId": "core.noop", "name": id, "position": {"x": x, "y": y}}))
            .collect();
        let edges: Vec<Value> = edges
            .iter()
            .enumerate()
            .map(|(i, (a, b))| json!({"id": format!("e{}", i + 1), "sourceNodeId": a, "targetNodeId": b}))
            .collect();
        Workflow::from_json(json!({"id": "w", "name": "w", "version": "1", "nodes": nodes, "edges": edges})).unwrap()
    }

    /// Insert support.triage under `expansion_id` as the editor does; the new node ids.
    fn insert_triage(doc: &mut Document, expansion_id: &str, at: (f64, f64), on_edge: Option<DropEdge>) -> Vec<String> {
        let (trust, packs) = (Trust::default(), bundled().packs);
        let pack = packs.iter().find(|p| p.chain("support.triage").is_some()).unwrap();
        let values = json!({"queueName": "billing"}).as_object().unwrap().clone();
        let placement = Placement::Insert { at, on_edge, after: None };
        let req = request(&trust, pack, "support.triage", values, expansion_id, &[], &placement);
        doc.inline(req).unwrap().new_nodes
    }

    fn snapshot(doc: &Document) -> Value {
        doc.workflow().to_json(ExportMode::Faithful)
    }

    fn position(doc: &Document, id: &str) -> (f64, f64) {
        let wf = doc.workflow();
        wf.graph[wf.node(id).unwrap()].position()
    }

    fn no_conflicts(doc: &Document) {
        let sizes = card_sizes(doc.workflow(), &PortTable::default());
        let found = conflicts(doc.workflow(), &sizes);
        assert!(found.is_empty(), "{found:?}");
    }

    fn tidy(nodes: Vec<String>) -> Command {
        Command::Arrange { how: Arrangement::Tidy, nodes, ports: PortTable::default() }
    }

    /// Everything piled on one spot, with two chain instances among plain nodes.
    fn pile() -> Document {
        let wf = workflow(
            &[("a", 0.0, 0.0), ("b", 0.0, 0.0), ("c", 0.0, 0.0), ("d", 10.0, 10.0), ("lone", 5.0, 5.0)],
            &[("a", "b"), ("b", "c"), ("a", "d"), ("d", "c")],
        );
        let mut doc = Document::new(wf, None);
        let on_edge = DropEdge { id: "e1".into(), source: "a".into(), target: "b".into() };
        insert_triage(&mut doc, "t001", (0.0, 0.0), Some(on_edge));
        insert_triage(&mut doc, "t002", (0.0, 0.0), None);
        // Pile every node on (0, 0).
        let all: Vec<(String, (f64, f64))> =
            doc.workflow().graph.node_weights().map(|n| (n.id().to_owned(), (0.0, 0.0))).collect();
        doc.apply(Command::MoveNodes(all)).unwrap();
        doc
    }

    #[test]
    fn tidy_untangles_a_pile_into_one_undo_step_keeping_instances_in_frames() {
        let mut doc = pile();
        let before = snapshot(&doc);
        let out = doc.apply(tidy(Vec::new())).unwrap();
        assert_eq!(out.label, "Tidy");
        no_conflicts(&doc);
        // Left to right along the flow, outside the instances.
        assert!(position(&doc, "b").0 < position(&doc, "c").0);
        // The whole arrangement starts where the pile was.
        let wf = doc.workflow();
        let min_x = wf.graph.node_weights().map(|n| n.position().0).fold(f64::INFINITY, f64::min);
        let min_y = wf.graph.node_weights().map(|n| n.position().1).fold(f64::INFINITY, f64::min);
        assert_eq!((min_x, min_y), (0.0, 0.0));
        doc.undo();
        assert_eq!(snapshot(&doc), before, "one step, undone exactly");
    }

    #[test]
    fn tidying_a_selection_moves_only_it_and_clear_of_the_rest() {
        let mut doc = pile();
        // Spread the plain nodes out first, then tidy just two of them back onto the others.
        doc.apply(tidy(Vec::new())).unwrap();
        let wf = doc.workflow().clone();
        let chosen = vec!["a".to_owned(), "lone".to_owned()];
        doc.apply(tidy(chosen.clone())).unwrap();
        for n in wf.graph.node_weights() {
            if !chosen.iter().any(|c| c == n.id()) {
                assert_eq!(position(&doc, n.id()), n.position(), "{} stays", n.id());
            }
        }
        no_conflicts(&doc);
    }

    #[test]
    fn tidying_part_of_an_instance_takes_the_whole_instance() {
        let mut doc = pile();
        doc.apply(tidy(Vec::new())).unwrap();
        let inst = doc.workflow().instances()[0].clone();
        let out = doc.apply(tidy(vec![inst.node_ids[0].clone(), "lone".into()])).unwrap();
        assert_eq!(out.label, format!("Tidy {} nodes", inst.node_ids.len() + 1));
        no_conflicts(&doc);
    }

    #[test]
    fn a_splice_makes_room_downstream_and_undo_puts_everything_back() {
        // a → b → c in a row, x below b, and an instance after c that its frame must keep.
        let wf = workflow(
            &[("a", 0.0, 0.0), ("b", 310.0, 0.0), ("c", 620.0, 0.0), ("x", 310.0, 136.0), ("up", 0.0, 136.0)],
            &[("a", "b"), ("b", "c"), ("up", "x")],
        );
        let mut doc = Document::new(wf, None);
        insert_triage(&mut doc, "t002", (930.0, 0.0), None);
        no_conflicts(&doc);
        let before = snapshot(&doc);
        let on_edge = DropEdge { id: "e1".into(), source: "a".into(), target: "b".into() };
        let chain = insert_triage(&mut doc, "t001", (150.0, 20.0), Some(on_edge));
        no_conflicts(&doc);
        let sizes = card_sizes(doc.workflow(), &PortTable::default());
        let wf = doc.workflow();
        let right = chain
            .iter()
            .map(|id| wf.graph[wf.node(id).unwrap()].position().0 + sizes[wf.node(id).unwrap().index()].0)
            .fold(0.0, f64::max);
        let left = chain.iter().map(|id| position(&doc, id).0).fold(f64::INFINITY, f64::min);
        assert!(left > position(&doc, "a").0 + 220.0, "the chain starts right of the source");
        assert!(position(&doc, "b").0 >= right + SPACING.layer_gap, "the target clears the chain");
        // The edges back into the workflow run forward.
        for e in wf.graph.edge_weights().filter(|e| e.target() == "b") {
            assert!(position(&doc, e.source()).0 < position(&doc, "b").0, "{} loops back", e.id());
        }
        assert_eq!(position(&doc, "a"), (0.0, 0.0), "upstream stays");
        assert_eq!(position(&doc, "up"), (0.0, 136.0), "upstream stays");
        assert_eq!(position(&doc, "c").0 - position(&doc, "b").0, 310.0, "downstream moves as one");
        doc.undo();
        assert_eq!(snapshot(&doc), before);
    }

    /// The cards a straight line from `p` to `q` passes through, `skip` aside.
    fn cards_crossed(doc: &Document, p: (f64, f64), q: (f64, f64), skip: &[&str]) -> Vec<String> {
        let wf = doc.workflow();
        let sizes = card_sizes(wf, &PortTable::default());
        let steps = 400;
        let mut out: Vec<String> = wf
            .graph
            .node_indices()
            .filter(|&n| !skip.contains(&wf.graph[n].id()))
            .filter(|&n| {
                let r = Rect::at(wf.graph[n].position(), sizes[n.index()]);
                (0..=steps).any(|k| {
                    let t = f64::from(k) / f64::from(steps);
                    let (x, y) = (p.0 + (q.0 - p.0) * t, p.1 + (q.1 - p.1) * t);
                    r.min.0 < x && x < r.max.0 && r.min.1 < y && y < r.max.1
                })
            })
            .map(|n| wf.graph[n].id().to_owned())
            .collect();
        out.sort();
        out
    }

    /// Where the edge `id` leaves its source card and enters its target card: the middles
    /// of the source's right side and the target's left side.
    fn edge_ends(doc: &Document, id: &str) -> ((f64, f64), (f64, f64), String, String) {
        let wf = doc.workflow();
        let sizes = card_sizes(wf, &PortTable::default());
        let e = wf.graph.edge_weights().find(|e| e.id() == id).unwrap();
        let card = |n: &str| {
            let ix = wf.node(n).unwrap();
            Rect::at(wf.graph[ix].position(), sizes[ix.index()])
        };
        let (s, t) = (card(e.source()), card(e.target()));
        (
            (s.max.0, (s.min.1 + s.max.1) / 2.0),
            (t.min.0, (t.min.1 + t.max.1) / 2.0),
            e.source().into(),
            e.target().into(),
        )
    }

    #[test]
    fn a_splice_into_a_back_edge_runs_its_return_edge_forward_across_no_card() {
        // After manual moves the edge s → t runs right to left, past m (unwired) and under
        // nothing else; u sits below, left of everything.
        let wf =
            workflow(&[("t", 0.0, 0.0), ("m", 310.0, 0.0), ("s", 620.0, 0.0), ("u", -310.0, 136.0)], &[("s", "t")]);
        let mut doc = Document::new(wf, None);
        let before = snapshot(&doc);
        let on_edge = DropEdge { id: "e1".into(), source: "s".into(), target: "t".into() };
        insert_triage(&mut doc, "t001", (700.0, 0.0), Some(on_edge));
        no_conflicts(&doc);
        let inst = doc.workflow().instances()[0].clone();
        let out = inst.edge_ids.iter().find(|id| id.contains("out")).unwrap().clone();
        let (from, to, exit, target) = edge_ends(&doc, &out);
        assert_eq!(target, "t");
        assert!(from.0 < to.0, "the return edge runs forward: {from:?} → {to:?}");
        assert_eq!(cards_crossed(&doc, from, to, &[&exit, "t"]), Vec::<String>::new());
        // Upstream of the cut stays put; the rest kept its order.
        assert_eq!(position(&doc, "u"), (-310.0, 136.0));
        assert!(position(&doc, "t").0 < position(&doc, "m").0 && position(&doc, "m").0 < position(&doc, "s").0);
        doc.undo();
        assert_eq!(snapshot(&doc), before);
    }

    fn sizes_of(doc: &Document, id: &str) -> (f64, f64) {
        let wf = doc.workflow();
        card_sizes(wf, &PortTable::default())[wf.node(id).unwrap().index()]
    }

    #[test]
    fn a_chain_inserted_after_a_node_goes_right_of_it_and_what_follows_makes_room() {
        // a → b in a row; the chain goes after a without replacing the edge.
        let wf = workflow(&[("a", 0.0, 0.0), ("b", 310.0, 0.0), ("up", -310.0, 136.0)], &[("a", "b")]);
        let mut doc = Document::new(wf, None);
        let (trust, packs) = (Trust::default(), bundled().packs);
        let pack = packs.iter().find(|p| p.chain("support.triage").is_some()).unwrap();
        let values = json!({"queueName": "billing"}).as_object().unwrap().clone();
        let after = crate::workflow::After { node: "a".into(), output: None };
        let placement = Placement::Insert { at: (530.0, 0.0), on_edge: None, after: Some(after) };
        let out = doc.inline(request(&trust, pack, "support.triage", values, "t001", &[], &placement)).unwrap();
        no_conflicts(&doc);
        let wf = doc.workflow();
        let entry = wf.graph.edge_weights().find(|e| e.source() == "a" && e.target() != "b").unwrap().target();
        assert!(out.new_nodes.iter().any(|n| n == entry), "a feeds the chain's entry");
        assert_eq!(position(&doc, entry).0, 220.0 + SPACING.layer_gap, "one column right of a");
        // a already feeds b, level with it: the chain is a new branch, its frame below both,
        // so the edge a → b does not run through it.
        let card_h = sizes_of(&doc, "a").1;
        let top = out.new_nodes.iter().map(|id| position(&doc, id).1).fold(f64::INFINITY, f64::min);
        assert!(top - FRAME_PAD - FRAME_HEADER >= card_h + SPACING.node_gap, "chain top {top}");
        let (from, to, ..) = edge_ends(&doc, "e1");
        assert_eq!(cards_crossed(&doc, from, to, &["a", "b"]), Vec::<String>::new());
        let sizes = card_sizes(wf, &PortTable::default());
        let right = out
            .new_nodes
            .iter()
            .map(|id| position(&doc, id).0 + sizes[wf.node(id).unwrap().index()].0)
            .fold(0.0, f64::max);
        assert!(position(&doc, "b").0 >= right + SPACING.layer_gap, "b moved right of the chain");
        assert_eq!(position(&doc, "up"), (-310.0, 136.0));
    }

    #[test]
    fn a_single_node_inserted_after_a_node_or_into_an_edge_makes_room_in_one_undo_step() {
        use crate::editor::document::NodeLink;
        use crate::editor::node_type::insert_command;
        // a → b one column apart, as Tidy leaves them: a card dropped right of a covers b.
        let wf = workflow(&[("a", 0.0, 0.0), ("b", 310.0, 0.0)], &[("a", "b")]);
        let mut doc = Document::new(wf, None);
        let before = snapshot(&doc);
        let after = NodeLink::After { source: "a".into(), source_port: "output".into(), input: "input".into() };
        let cmd = insert_command(None, doc.workflow(), "core.noop", (310.0, 0.0), after).unwrap();
        let new = doc.apply(cmd).unwrap().new_nodes[0].clone();
        no_conflicts(&doc);
        assert_eq!(position(&doc, &new).0, 220.0 + SPACING.layer_gap, "one column right of a");
        let (from, to, ..) = edge_ends(&doc, "e1");
        assert_eq!(cards_crossed(&doc, from, to, &["a", "b"]), Vec::<String>::new(), "a branch below a → b");
        doc.undo();
        assert_eq!(snapshot(&doc), before, "one step, undone exactly");

        // Into the edge, dropped onto a: the node goes between a and b, and b moves on.
        let seq = doc.workflow().graph.edge_weights().next().unwrap().seq;
        let splice = NodeLink::Splice { seq, input: "input".into(), output: "output".into() };
        let cmd = insert_command(None, doc.workflow(), "core.noop", (0.0, 0.0), splice).unwrap();
        let new = doc.apply(cmd).unwrap().new_nodes[0].clone();
        no_conflicts(&doc);
        let x = |id: &str| position(&doc, id).0;
        assert!(x("a") + 220.0 < x(&new) && x(&new) + 220.0 < x("b"), "a {}, new {}, b {}", x("a"), x(&new), x("b"));
        assert_eq!(position(&doc, &new).1, 0.0, "level with a and b");
        doc.undo();
        assert_eq!(snapshot(&doc), before);
    }

    #[test]
    fn align_and_distribute_line_up_real_card_edges() {
        let wf = workflow(&[("a", 0.0, 0.0), ("b", 500.0, 70.0), ("c", 260.0, 300.0)], &[]);
        // b is tall: twelve ports named by edges from a.
        let mut doc = Document::new(wf, None);
        for k in 0..12 {
            doc.apply(Command::Connect {
                source: "a".into(),
                source_port: "output".into(),
                target: "b".into(),
                target_port: format!("in{k}"),
            })
            .unwrap();
        }
        let sizes = card_sizes(doc.workflow(), &PortTable::default());
        let h = |doc: &Document, id: &str| sizes[doc.workflow().node(id).unwrap().index()].1;
        assert!(h(&doc, "b") > h(&doc, "a"));
        let all = || vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let arrange = |how| Command::Arrange { how, nodes: all(), ports: PortTable::default() };
        let bottom = (300.0f64 + h(&doc, "c")).max(70.0 + h(&doc, "b"));
        doc.apply(arrange(Arrangement::Align(Align::Bottom))).unwrap();
        for id in ["a", "b", "c"] {
            assert_eq!(position(&doc, id).1 + h(&doc, id), bottom, "{id}");
        }
        doc.apply(arrange(Arrangement::Align(Align::Left))).unwrap();
        assert!(["a", "b", "c"].iter().all(|id| position(&doc, id).0 == 0.0));
        doc.undo();
        doc.apply(arrange(Arrangement::Distribute(Axis::Horizontal))).unwrap();
        // a [0, 220], c, b [500, 720]: gaps of (720 - 3 × 220) / 2 = 30.
        assert_eq!((position(&doc, "a").0, position(&doc, "c").0, position(&doc, "b").0), (0.0, 250.0, 500.0));
        let refused = doc.apply(Command::Arrange {
            how: Arrangement::Distribute(Axis::Vertical),
            nodes: vec!["a".into(), "b".into()],
            ports: PortTable::default(),
        });
        assert!(refused.unwrap_err().message.contains("3 or more"));
    }

    #[test]
    fn duplicate_copies_nodes_and_their_edges_clear_of_everything() {
        let wf = workflow(&[("a", 0.0, 0.0), ("b", 310.0, 0.0), ("c", 0.0, 136.0)], &[("a", "b"), ("b", "c")]);
        let mut doc = Document::new(wf, None);
        let before = snapshot(&doc);
        let out =
            doc.apply(Command::Duplicate { nodes: vec!["a".into(), "b".into()], ports: PortTable::default() }).unwrap();
        assert_eq!(out.new_nodes, ["a-2", "b-2"]);
        assert_eq!(out.label, "Duplicate 2 nodes");
        let wf = doc.workflow();
        let copied: Vec<(&str, &str)> = wf.graph.edge_weights().map(|e| (e.source(), e.target())).collect();
        assert!(copied.contains(&("a-2", "b-2")), "the edge between the copies is copied");
        assert!(!copied.iter().any(|(s, t)| *s == "b-2" && *t == "c"), "edges leaving the copied set are not");
        assert_eq!(position(&doc, "a-2").0 - position(&doc, "b-2").0, -310.0, "copies keep their arrangement");
        no_conflicts(&doc);
        doc.undo();
        assert_eq!(snapshot(&doc), before);
    }

    #[test]
    fn tidy_lays_out_the_fragment_node_limit_without_overlap() {
        let n = crate::pack::MAX_FRAGMENT_NODES;
        let nodes: Vec<Value> = (0..n).map(|i| json!({"id": format!("n{i}"), "typeId": "core.noop"})).collect();
        let edges: Vec<Value> = (1..n)
            .map(|i| {
                let from = if i % 5 == 0 { i / 2 } else { i - 1 };
                json!({"id": format!("e{i}"), "sourceNodeId": format!("n{from}"), "targetNodeId": format!("n{i}")})
            })
            .collect();
        let wf =
            Workflow::from_json(json!({"id": "big", "name": "Big", "version": "1", "nodes": nodes, "edges": edges}))
                .unwrap();
        let mut doc = Document::new(wf, None);
        doc.apply(tidy(Vec::new())).unwrap();
        no_conflicts(&doc);
    }

    /// The edges of an acyclic workflow whose source card does not start left of its
    /// target card.
    fn backward_edges(doc: &Document) -> Vec<String> {
        let wf = doc.workflow();
        assert!(!petgraph::algo::is_cyclic_directed(&wf.graph), "the case must be acyclic");
        wf.graph
            .edge_weights()
            .filter(|e| position(doc, e.source()).0 >= position(doc, e.target()).0)
            .map(|e| format!("{}: {} → {}", e.id(), e.source(), e.target()))
            .collect()
    }

    /// Splice Triage into the first edge inside the instance whose key holds `key`.
    fn splice_into_instance(doc: &mut Document, key: &str) {
        let inst = doc.workflow().instances().into_iter().find(|i| i.key().contains(key)).unwrap();
        let wf = doc.workflow();
        let edge = wf
            .graph
            .edge_weights()
            .find(|e| inst.node_ids.iter().any(|n| n == e.source()) && inst.node_ids.iter().any(|n| n == e.target()))
            .unwrap();
        let on_edge = DropEdge { id: edge.id().into(), source: edge.source().into(), target: edge.target().into() };
        let at = position(doc, edge.source());
        insert_triage(doc, "spliced", at, Some(on_edge));
    }

    #[test]
    fn tidy_after_a_splice_into_a_chain_keeps_every_edge_running_left_to_right() {
        // Generated: a → (instance) → b, Triage spliced into the instance's own edge. The
        // instance and the spliced chain each lead into the other, so neither frame can go
        // wholly before the other.
        let wf = workflow(&[("a", 0.0, 0.0), ("b", 900.0, 0.0)], &[("a", "b")]);
        let mut doc = Document::new(wf, None);
        let on_edge = DropEdge { id: "e1".into(), source: "a".into(), target: "b".into() };
        insert_triage(&mut doc, "t001", (300.0, 0.0), Some(on_edge));
        splice_into_instance(&mut doc, "t001");
        doc.apply(tidy(Vec::new())).unwrap();
        assert_eq!(backward_edges(&doc), Vec::<String>::new());
        // The real sample chains, bundled and the corpus's: tests/arrange_samples.rs.
    }

    #[test]
    fn a_chain_dropped_onto_a_frame_lands_in_free_space_near_the_drop() {
        let wf = workflow(&[("a", 0.0, 0.0), ("b", 310.0, 0.0)], &[("a", "b")]);
        let mut doc = Document::new(wf, None);
        insert_triage(&mut doc, "t001", (0.0, 200.0), None);
        no_conflicts(&doc);
        let before = snapshot(&doc);
        // Dropped a little right of and below the first instance's corner: onto its frame.
        let drop = (60.0, 240.0);
        let chain = insert_triage(&mut doc, "t002", drop, None);
        no_conflicts(&doc);
        let first = chain
            .iter()
            .map(|id| position(&doc, id))
            .fold((f64::INFINITY, f64::INFINITY), |m, p| if (p.0, p.1) < m { p } else { m });
        let dist = (first.0 - drop.0).hypot(first.1 - drop.1);
        assert!(dist < 1000.0, "near the drop: {first:?}, {dist} away");
        // A drop on empty canvas stays where it was dropped.
        let far = insert_triage(&mut doc, "t003", (5000.0, 5000.0), None);
        assert_eq!(far.iter().map(|id| position(&doc, id).0).fold(f64::INFINITY, f64::min), 5000.0);
        doc.undo();
        doc.undo();
        assert_eq!(snapshot(&doc), before, "each drop is one undo step");
    }

    /// Every shift that puts the frame beside an obstacle edge, or keeps a coordinate: the
    /// nearest free one of them is the nearest free spot.
    fn brute_force_nearest(frame: Rect, obstacles: &[Rect]) -> f64 {
        let (mut xs, mut ys) = (vec![0.0], vec![0.0]);
        for o in obstacles {
            xs.extend([o.max.0 - frame.min.0, o.min.0 - frame.max.0]);
            ys.extend([o.max.1 - frame.min.1, o.min.1 - frame.max.1]);
        }
        let free = |d: (f64, f64)| {
            let r = Rect { min: (frame.min.0 + d.0, frame.min.1 + d.1), max: (frame.max.0 + d.0, frame.max.1 + d.1) };
            !obstacles.iter().any(|o| o.overlaps(&r))
        };
        xs.iter()
            .flat_map(|&dx| ys.iter().map(move |&dy| (dx, dy)))
            .filter(|&d| free(d))
            .map(|d| d.0.hypot(d.1))
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn the_shift_found_is_free_and_as_near_as_any() {
        // A fixed pseudo-random sequence, so a failure replays.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below) as f64
        };
        for _ in 0..400 {
            let count = 1 + next(9) as usize;
            let obstacles: Vec<Rect> = (0..count)
                .map(|_| Rect::at((next(800) - 400.0, next(600) - 300.0), (40.0 + next(300), 40.0 + next(200))))
                .collect();
            let frame = Rect::at((next(200) - 100.0, next(200) - 100.0), (50.0 + next(500), 50.0 + next(400)));
            let d = nearest_free_shift(frame, &obstacles);
            let moved =
                Rect { min: (frame.min.0 + d.0, frame.min.1 + d.1), max: (frame.max.0 + d.0, frame.max.1 + d.1) };
            assert!(!obstacles.iter().any(|o| o.overlaps(&moved)), "{d:?} still covers an obstacle");
            let nearest = brute_force_nearest(frame, &obstacles);
            assert!(d.0.hypot(d.1) <= nearest + 1e-9, "{d:?} is farther than {nearest}: {frame:?} {obstacles:?}");
        }
    }

    #[test]
    fn open_intervals_leave_their_ends_free() {
        assert_eq!(nearest_outside(&mut []), 0.0);
        assert_eq!(nearest_outside(&mut [(0.0, 5.0)]), 0.0, "0 is an end, not inside");
        assert_eq!(nearest_outside(&mut [(-3.0, 5.0)]), -3.0);
        assert_eq!(nearest_outside(&mut [(2.0, 9.0), (-3.0, 5.0)]), -3.0);
        assert_eq!(
            nearest_outside(&mut [(-9.0, 1.0), (1.0, 4.0)]),
            1.0,
            "touching intervals leave their meeting point"
        );
        assert_eq!(nearest_outside(&mut [(-9.0, 2.0), (1.0, 4.0)]), 4.0);
        assert_eq!(nearest_outside(&mut [(-4.0, 4.0)]), 4.0, "a tie goes right or down");
    }
}

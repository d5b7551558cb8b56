//! Arranging nodes, as positions to apply: tidy (a layered layout of the whole workflow or
//! of a selection), room for a chain spliced into an edge, align, distribute, and where a
//! duplicate goes. Every function here only computes; [`super::document`] applies the
//! result as one undoable command. Sizes are card sizes by node index
//! ([`super::cards::card_sizes`]).

use super::cards::{FRAME_HEADER, FRAME_PAD, Rect};
use crate::workflow::layered::{self, Spacing};
use crate::workflow::{Instance, Workflow};
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
    let Some((nodes, in_scope, instances)) = tidy_scope(wf, ids) else {
        return Vec::new();
    };
    let bound = wf.graph.node_bound();
    let (blocks, instance_blocks, mut item_of) = tidy_blocks(wf, &nodes, &in_scope, instances);
    let scoped_edges: Vec<(NodeIndex, NodeIndex)> = wf
        .graph
        .edge_references()
        .map(|e| (e.source(), e.target()))
        .filter(|(a, z)| in_scope[a.index()] && in_scope[z.index()])
        .collect();
    let units = tidy_units(&blocks, instance_blocks, &scoped_edges, &mut item_of);
    let UnitLayouts { local, item_sizes, item_edges } = unit_layouts(&units, &scoped_edges, &item_of, sizes, bound);
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
        clear_tidied(wf, &units, &mut placed, sizes, &in_scope);
    }
    placed.into_iter().map(|(n, p)| (wf.graph[n].id().to_owned(), p)).collect()
}

/// The nodes a tidy moves: `ids` (all when empty) and every member of a chain instance any
/// of them belongs to, sorted; which graph indices they are; and the workflow's instances.
fn tidy_scope(wf: &Workflow, ids: &[String]) -> Option<(Vec<NodeIndex>, Vec<bool>, Vec<Instance>)> {
    let mut nodes = scope(wf, ids);
    if nodes.is_empty() {
        return None;
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
    Some((nodes, in_scope, instances))
}

/// Items to lay out: a block per chain instance (its nodes in scope), then each other node;
/// how many are instances; and each node's block.
fn tidy_blocks(
    wf: &Workflow,
    nodes: &[NodeIndex],
    in_scope: &[bool],
    instances: Vec<Instance>,
) -> (Vec<Vec<NodeIndex>>, usize, Vec<usize>) {
    let bound = wf.graph.node_bound();
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
    for &n in nodes {
        if item_of[n.index()] == usize::MAX {
            item_of[n.index()] = blocks.len();
            blocks.push(vec![n]);
        }
    }
    (blocks, instance_blocks, item_of)
}

/// The blocks grouped into units laid out as one (each with whether it is framed), and
/// `item_of` pointed at them.
fn tidy_units(
    blocks: &[Vec<NodeIndex>],
    instance_blocks: usize,
    scoped_edges: &[(NodeIndex, NodeIndex)],
    item_of: &mut [usize],
) -> Vec<(Vec<NodeIndex>, bool)> {
    // Blocks that lead into one another through an instance (a chain spliced into an edge
    // inside another instance: the host feeds the chain, which feeds the host back) cannot
    // each stand wholly left of the other, so they are laid out as one unit, the spliced
    // frame inside its host's; every edge then runs forward. Plain nodes in a loop stay
    // apart, as before.
    let mut block_graph = petgraph::Graph::<(), ()>::with_capacity(blocks.len(), scoped_edges.len());
    for _ in 0..blocks.len() {
        block_graph.add_node(());
    }
    for &(a, z) in scoped_edges {
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
    units
}

/// Inside each unit: its own layout, offset into its frame. Each node's place in its unit,
/// each unit's size, and the edges between units.
fn unit_layouts(
    units: &[(Vec<NodeIndex>, bool)],
    scoped_edges: &[(NodeIndex, NodeIndex)],
    item_of: &[usize],
    sizes: &[(f64, f64)],
    bound: usize,
) -> UnitLayouts {
    let mut local = vec![(0.0, 0.0); bound];
    let mut item_sizes = Vec::with_capacity(units.len());
    let mut slot = vec![usize::MAX; bound];
    let mut unit_edges: Vec<Vec<(usize, usize)>> = vec![Vec::new(); units.len()];
    let mut item_edges = Vec::new();
    for (members, _) in units {
        for (i, n) in members.iter().enumerate() {
            slot[n.index()] = i;
        }
    }
    for &(a, z) in scoped_edges {
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
    UnitLayouts { local, item_sizes, item_edges }
}

/// What [`unit_layouts`] gives.
struct UnitLayouts {
    local: Vec<(f64, f64)>,
    item_sizes: Vec<(f64, f64)>,
    item_edges: Vec<(usize, usize)>,
}

/// A tidied selection moves down, as one, until its cards and frames cover no other card
/// or frame.
fn clear_tidied(
    wf: &Workflow,
    units: &[(Vec<NodeIndex>, bool)],
    placed: &mut [(NodeIndex, (f64, f64))],
    sizes: &[(f64, f64)],
    in_scope: &[bool],
) {
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
        for (_, p) in placed.iter_mut() {
            p.1 += dy;
        }
    }
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

    let cut = make_room_cut(wf, &in_chain, left, rt, backward, ra);
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

/// Where [`make_room`] cuts: nodes whose left edge is at or right of it move. The chain's
/// left edge, or a target's left of it; a run of instances the cut would split pulls it to
/// the run's start (forward, those reaching left of the source stay).
fn make_room_cut(wf: &Workflow, in_chain: &[bool], left: f64, rt: Option<Rect>, backward: bool, ra: Rect) -> f64 {
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
    cut
}

#[cfg(test)]
pub(crate) mod tests;

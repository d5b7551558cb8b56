//! The canvas's view of a workflow, derived from the model once per revision: where each card
//! is and how tall, its ports and marks, the links between cards with the path each takes,
//! the chain instances' frames, the bounds Fit shows and what the minimap counts. With the
//! hit tests on it ([`CanvasView::edge_at`], [`CanvasView::input_port_at`]), all in canvas
//! units and without GUI types: `app/canvas` draws it and turns input into commands.

use super::{CardSpans, Curve, LOOP_ARM, Point, Rect, Router, W, point, port_pos};
use crate::catalog::Catalog;
use crate::editor::cards::{self, CardPorts, card_ports};
use crate::editor::node_type;
use crate::editor::selection::Selection;
use crate::error::Error;
use crate::workflow::Workflow;
use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use std::collections::{HashMap, HashSet};

mod drag;
mod minimap;
pub use minimap::{MINIMAP_CARDS, MinimapCells};

const FRAME_PAD: f32 = cards::FRAME_PAD as f32;
const FRAME_HEADER: f32 = cards::FRAME_HEADER as f32;

/// Everything drawn that derives from the model, rebuilt when the document revision changes.
#[derive(Default)]
pub struct CanvasView {
    pub revision: Option<(u64, u64)>,
    /// Where each card is, in file order: what the hot loops (culling, edges, the far view)
    /// read, packed together apart from the text.
    pub boxes: Vec<CardBox>,
    /// What else a card shows, by the same index.
    pub cards: Vec<Card>,
    /// Each distinct list of port names once: most cards of a type have the same ports.
    pub ports: CardPorts,
    pub by_id: HashMap<String, usize>,
    pub links: Vec<Link>,
    pub frames: Vec<FrameView>,
    pub bounds: Option<Rect>,
    /// The cards and every edge's curve.
    pub fit_bounds: Option<Rect>,
    pub minimap: MinimapCells,
    /// The cards at rest, for routing wires round them ([`CanvasView::link_curve`] re-routes
    /// the wires of cards being dragged against it).
    router: Option<Router>,
    /// The drag the links' [`Link::drag_bend`] are for: how many cards it moves, how far.
    dragged: Option<(usize, Point)>,
}

#[derive(Clone, Copy)]
pub struct CardBox {
    pub pos: Point,
    /// Taller than the layout's card when it has more ports than fit.
    pub h: f32,
    pub inputs: u32,
    pub outputs: u32,
}

pub struct Card {
    pub id: String,
    pub node: NodeIndex,
    /// Its input and output port lists, in [`CanvasView::ports`].
    pub ports: [u32; 2],
    /// Capability marks, as bits of [`MARK_MEANINGS`].
    pub marks: u8,
    pub instance: Option<usize>,
    /// The node names a sub-chain child (`config.subChainRef` or `config.workflowId`).
    pub child: bool,
}

/// What a card shows, read from the workflow when it is drawn with text.
pub struct CardText<'a> {
    pub name: &'a str,
    pub type_id: &'a str,
    pub inputs: &'a [String],
    pub outputs: &'a [String],
    pub marks: u8,
}

pub struct Link {
    pub seq: u64,
    /// The edge in the workflow the view was built from (its label is read from there).
    pub edge: EdgeIndex,
    pub from: usize,
    pub from_port: usize,
    pub to: usize,
    pub to_port: usize,
    pub conditional: bool,
    pub loopback: bool,
    /// For a back edge: how high and how low the cards between its ends reach (set by
    /// [`CanvasView::measure`]), so its lane clears them all.
    pub span: (f32, f32),
    /// For a forward edge that would cross a card: the lane it takes round (set by
    /// [`CanvasView::measure`] from [`Router::route`]).
    pub bend: Option<f32>,
    /// The lane it takes while a card at one of its ends is dragged (set by
    /// [`CanvasView::follow_drag`]).
    pub drag_bend: Option<f32>,
}

/// Nodes being moved: their ids and how far, in canvas units.
pub struct Drag {
    pub ids: Vec<String>,
    pub delta: Point,
}

pub struct FrameView {
    pub key: String,
    pub title: String,
    pub nodes: Vec<usize>,
    /// The one chain instance of a workflow the OpenWOP app expanded (interop §5).
    pub app: bool,
}

/// What each capability mark means (side-effectful, cacheable, irreversible effect, has
/// compensation), for the card's tooltip; bit `k` of [`Card::marks`] is the `k`th.
pub const MARK_MEANINGS: [&str; 4] = [
    "side-effectful: it changes something outside the workflow",
    "cacheable: its result may be reused",
    "irreversible effect: it cannot be undone",
    "has a compensation step that undoes it on failure",
];

impl CanvasView {
    /// The view of `wf` at `revision`, with the named ports `catalog` declares.
    pub fn build(wf: &Workflow, revision: (u64, u64), catalog: Option<&Catalog>) -> Self {
        let order = wf.nodes_in_order();
        let mut cards = Vec::with_capacity(order.len());
        let mut boxes = Vec::with_capacity(order.len());
        let mut by_id = HashMap::with_capacity(order.len());
        let mut index_of = HashMap::with_capacity(order.len());
        // Declared ports first, then ports only edges mention: the model's card geometry.
        let ports = card_ports(wf, &catalog);
        for ix in &order {
            let node = &wf.graph[*ix];
            let (x, y) = node.position();
            by_id.insert(node.id().to_owned(), cards.len());
            index_of.insert(*ix, cards.len());
            boxes.push(CardBox {
                pos: point(x as f32, y as f32),
                h: ports.size(*ix).1 as f32,
                inputs: ports.inputs(*ix).len() as u32,
                outputs: ports.outputs(*ix).len() as u32,
            });
            cards.push(Card {
                id: node.id().to_owned(),
                node: *ix,
                ports: ports.of(*ix),
                marks: marks(node),
                instance: None,
                child: node.child_ref().is_some(),
            });
        }
        let links = links(wf, &order, &index_of, &ports);
        let frames = frames(wf, &by_id, &mut cards);
        let mut view = Self { revision: Some(revision), boxes, cards, ports, by_id, links, frames, ..Self::default() };
        view.measure();
        view
    }

    /// Brought to `revision` of `wf`: `None` when it shows that revision already, else
    /// whether it was rebuilt (`false`: the last edit only moved nodes and it followed them).
    pub fn refresh(
        &mut self,
        wf: &Workflow,
        revision: (u64, u64),
        moves: Option<(u64, &[String])>,
        catalog: Option<&Catalog>,
    ) -> Option<bool> {
        if self.revision == Some(revision) {
            return None;
        }
        let rebuilt = !self.follow_moves(wf, revision, moves);
        if rebuilt {
            *self = Self::build(wf, revision, catalog);
        }
        Some(rebuilt)
    }

    /// After an edit that only moved nodes (a drag, its undo and redo) from the revision
    /// this view shows: take their new positions and keep everything else. Returns `false`
    /// when the view cannot follow; the caller then rebuilds it.
    fn follow_moves(&mut self, wf: &Workflow, revision: (u64, u64), moves: Option<(u64, &[String])>) -> bool {
        let (Some(old), Some((from, ids))) = (self.revision, moves) else { return false };
        if old != (from, revision.1) {
            return false;
        }
        for id in ids {
            let (Some(&i), Some(ix)) = (self.by_id.get(id), wf.node(id)) else { return false };
            let (x, y) = wf.graph[ix].position();
            self.boxes[i].pos = point(x as f32, y as f32);
        }
        self.revision = Some(revision);
        self.measure();
        true
    }

    /// The links' lanes and bends, the bounds, the fitting bounds and the minimap, from the
    /// cards and links.
    fn measure(&mut self) {
        // Back edges only: a loop runs from the target's left to the source's right.
        let back = |l: &Link, cards: &[CardBox]| cards[l.to].pos.x < cards[l.from].pos.x;
        let lanes = self
            .links
            .iter()
            .any(|l| back(l, &self.boxes))
            .then(|| CardSpans::new(self.boxes.iter().map(|c| (c.pos.x, c.pos.y, c.pos.y + c.h))));
        for l in &mut self.links {
            let (a, b) = (&self.boxes[l.from], &self.boxes[l.to]);
            l.span = match &lanes {
                Some(lanes) if back(l, &self.boxes) => lanes
                    .reach(b.pos.x - LOOP_ARM, a.pos.x + W + LOOP_ARM)
                    .unwrap_or((f32::INFINITY, f32::NEG_INFINITY)),
                _ => (f32::INFINITY, f32::NEG_INFINITY),
            };
        }
        let cards = &self.boxes;
        let rect = |c: &CardBox| Rect::from_min_size(c.pos, point(W, c.h));
        let bounds = cards.iter().map(rect).reduce(Rect::union);
        // Forward edges that would pass through a card go round it.
        let router = Router::new(cards.iter().map(rect).collect());
        let curve_of = |l: &Link| {
            let (a, b) = (&cards[l.from], &cards[l.to]);
            let (ra, rb) = (rect(a), rect(b));
            let from = port_pos(ra, l.from_port, a.outputs as usize, true);
            let to = port_pos(rb, l.to_port, b.inputs as usize, false);
            Curve::between(ra, from, rb, to).around(l.span)
        };
        for l in &mut self.links {
            l.bend = router.route(curve_of(l), (l.from, l.to)).bend;
        }
        // Curves bulge past the cards they join (a loopback most of all): fitting shows them.
        // Exact bounds only for a curve whose hull leaves the cards' bounds (most do not).
        let fit_bounds = self.links.iter().fold(bounds, |acc, l| {
            let curve = curve_of(l).bent(l.bend);
            match acc {
                Some(fit) if fit.contains_rect(curve.hull()) => Some(fit),
                _ => {
                    let drawn = curve.bounds();
                    Some(acc.map_or(drawn, |fit| fit.union(drawn)))
                }
            }
        });
        self.minimap = MinimapCells::of(cards, bounds);
        self.bounds = bounds;
        self.fit_bounds = fit_bounds;
        self.router = Some(router);
    }

    /// The card of the leftmost node with no incoming edge (the topmost of those level),
    /// else the leftmost card.
    pub fn entry(&self) -> Option<Rect> {
        let mut fed = vec![false; self.boxes.len()];
        for l in self.links.iter().filter(|l| l.from != l.to) {
            fed[l.to] = true;
        }
        let leftmost = |candidates: &mut dyn Iterator<Item = usize>| {
            candidates.min_by(|&a, &b| {
                let (pa, pb) = (self.boxes[a].pos, self.boxes[b].pos);
                pa.x.total_cmp(&pb.x).then(pa.y.total_cmp(&pb.y))
            })
        };
        let i = leftmost(&mut (0..self.boxes.len()).filter(|&i| !fed[i]))
            .or_else(|| leftmost(&mut (0..self.boxes.len())))?;
        Some(self.rect(i, self.boxes[i].pos))
    }

    pub fn inputs(&self, i: usize) -> &[String] {
        self.ports.list(self.cards[i].ports[0])
    }

    pub fn outputs(&self, i: usize) -> &[String] {
        self.ports.list(self.cards[i].ports[1])
    }

    /// What card `i` shows, from `wf`, the workflow the view was built from.
    pub fn text<'a>(&'a self, wf: &'a Workflow, i: usize) -> CardText<'a> {
        let card = &self.cards[i];
        let node = &wf.graph[card.node];
        CardText {
            name: if node.name().is_empty() { node.id() } else { node.name() },
            type_id: node.type_id(),
            inputs: self.inputs(i),
            outputs: self.outputs(i),
            marks: card.marks,
        }
    }

    /// The card `i` drawn with its top-left at `pos`.
    pub fn rect(&self, i: usize, pos: Point) -> Rect {
        Rect::from_min_size(pos, point(W, self.boxes[i].h))
    }

    /// The top-left of every card, with `drag` (a drag in progress) applied.
    pub fn positions(&self, drag: Option<&Drag>) -> Vec<Point> {
        let mut out: Vec<Point> = self.boxes.iter().map(|c| c.pos).collect();
        if let Some(d) = drag {
            for id in &d.ids {
                if let Some(&i) = self.by_id.get(id) {
                    out[i] = out[i] + d.delta;
                }
            }
        }
        out
    }

    /// Per card: whether `drag` moves it (drawn every frame instead of from a cache).
    pub fn live(&self, drag: Option<&Drag>) -> Vec<bool> {
        let mut live = vec![false; self.cards.len()];
        for id in drag.map(|d| d.ids.as_slice()).unwrap_or_default() {
            if let Some(&i) = self.by_id.get(id) {
                live[i] = true;
            }
        }
        live
    }

    /// How many cards at `positions` overlap `visible`, counted up to `most` (past it, the
    /// count is `most`).
    pub fn count_in(&self, visible: Rect, positions: &[Point], most: usize) -> usize {
        (0..self.boxes.len()).filter(|&i| self.rect(i, positions[i]).intersects(visible)).take(most).count()
    }

    /// Frame `fi` round its cards at `positions`, with room for its title above them.
    pub fn frame_rect(&self, fi: usize, positions: &[Point]) -> Option<Rect> {
        let r = self.frames[fi].nodes.iter().map(|&n| self.rect(n, positions[n])).reduce(Rect::union)?;
        let r = r.expand(FRAME_PAD);
        Some(Rect::from_min_max(point(r.min.x, r.min.y - FRAME_HEADER), r.max))
    }

    /// The nearest edge within `tol` canvas units of `p`, by seq, with cards at `positions`.
    pub fn edge_at(&self, p: Point, tol: f32, positions: &[Point]) -> Option<u64> {
        let mut best: Option<(f32, u64)> = None;
        for link in &self.links {
            let curve = self.link_curve(link, positions);
            if !curve.hull().expand(tol).contains(p) {
                continue;
            }
            let pts = curve.points(24);
            let d = pts.windows(2).map(|s| super::dist_to_segment(p, s[0], s[1])).fold(f32::INFINITY, f32::min);
            if d <= tol && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, link.seq));
            }
        }
        best.map(|(_, s)| s)
    }

    /// The input port nearest `p` (card, port): on its dot, or anywhere over its card.
    pub fn input_port_at(&self, p: Point, positions: &[Point]) -> Option<(usize, usize)> {
        let mut best: Option<(f32, usize, usize)> = None;
        for (i, card) in self.boxes.iter().enumerate() {
            let rect = self.rect(i, positions[i]);
            if !rect.expand(16.0).contains(p) {
                continue;
            }
            let inputs = card.inputs as usize;
            for k in 0..inputs {
                let d = port_pos(rect, k, inputs, false).distance(p);
                if best.is_none_or(|(bd, _, _)| d < bd) {
                    best = Some((d, i, k));
                }
            }
        }
        best.map(|(_, i, k)| (i, k))
    }

    /// Why output `from` (card, port) cannot connect to input `to` (card, port) of `wf`:
    /// the output's type does not fit the input's (the editor refuses the connection for the
    /// same reason).
    pub fn connection_refusal(
        &self,
        wf: &Workflow,
        catalog: Option<&Catalog>,
        from: (usize, usize),
        to: (usize, usize),
    ) -> Option<Error> {
        let (a, b) = (&self.cards[from.0].id, &self.cards[to.0].id);
        let (output, input) = (&self.outputs(from.0)[from.1], &self.inputs(to.0)[to.1]);
        node_type::check_connection(wf, catalog, (a, output), (b, input)).err()
    }

    /// Select chain instance `fi`: its nodes, and the instance for the inspector (the app's
    /// instance has no chainsmith record for it to show).
    pub fn select_instance(&self, fi: usize, selection: &mut Selection) {
        let frame = &self.frames[fi];
        selection.clear();
        if !frame.app {
            selection.instance = Some(frame.key.clone());
        }
        selection.nodes = frame.nodes.iter().map(|i| self.cards[*i].id.clone()).collect();
    }
}

/// The links of `wf` between the cards `index_of` numbers, in file order, back edges marked.
fn links(wf: &Workflow, order: &[NodeIndex], index_of: &HashMap<NodeIndex, usize>, ports: &CardPorts) -> Vec<Link> {
    let back: HashSet<_> = crate::graph::dfs(&wf.graph, order.iter().copied()).back_edges.into_iter().collect();
    let mut links = Vec::with_capacity(wf.graph.edge_count());
    for e in wf.edges_in_order() {
        let Some((a, b)) = wf.graph.edge_endpoints(e) else { continue };
        let edge = &wf.graph[e];
        links.push(Link {
            seq: edge.seq,
            from: index_of[&a],
            from_port: port_index(ports.outputs(a), edge.source_port()),
            to: index_of[&b],
            to_port: port_index(ports.inputs(b), edge.target_port()),
            edge: e,
            conditional: edge.has_condition(),
            loopback: back.contains(&e),
            span: (f32::INFINITY, f32::NEG_INFINITY),
            bend: None,
            drag_bend: None,
        });
    }
    links
}

/// The frames of the chain instances of `wf` (and of the OpenWOP app's one instance), each
/// card told which frame it is in.
fn frames(wf: &Workflow, by_id: &HashMap<String, usize>, cards: &mut [Card]) -> Vec<FrameView> {
    let mut frames = Vec::new();
    for inst in wf.instances() {
        let nodes: Vec<usize> = inst.node_ids.iter().filter_map(|id| by_id.get(id).copied()).collect();
        if nodes.is_empty() {
            continue;
        }
        for &n in &nodes {
            cards[n].instance = Some(frames.len());
        }
        let title = format!("{} · {}", inst.label, inst.expansion_id);
        frames.push(FrameView { key: inst.key(), title, nodes, app: false });
    }
    if let Some(app) = crate::editor::app_reparam::app_instance(wf) {
        let prefix = app.prefix();
        let nodes: Vec<usize> =
            (0..cards.len()).filter(|&i| cards[i].instance.is_none() && cards[i].id.starts_with(&prefix)).collect();
        for &n in &nodes {
            cards[n].instance = Some(frames.len());
        }
        if !nodes.is_empty() {
            let title = format!("{} · {} (OpenWOP app)", wf.name(), app.expansion_id);
            frames.push(FrameView { key: prefix, title, nodes, app: true });
        }
    }
    frames
}

/// Where a port an edge names is on its card (the card lists every such port).
pub fn port_index(ports: &[String], name: &str) -> usize {
    ports.iter().position(|p| p == name).unwrap_or(0)
}

/// The marks a card shows, one per line with its meaning; `glyphs` by mark.
pub fn marks_meaning(marks: u8, glyphs: [&str; 4]) -> String {
    let lines =
        (0..MARK_MEANINGS.len()).filter(|k| marks & 1 << k != 0).map(|k| format!("{} {}", glyphs[k], MARK_MEANINGS[k]));
    lines.collect::<Vec<_>>().join("\n")
}

/// Which capability marks a node has (side-effectful, cacheable, irreversible effect, has
/// compensation), as bits.
pub fn marks(node: &crate::workflow::Node) -> u8 {
    let caps = node.capabilities();
    let has = [
        caps.iter().any(|c| c == "side-effectful"),
        caps.iter().any(|c| c == "cacheable"),
        node.is_irreversible(),
        node.has_member("compensation"),
    ];
    has.iter().enumerate().filter(|(_, h)| **h).fold(0, |bits, (k, _)| bits | 1 << k)
}

/// The canvas toolbar's counts, longest first: in full, with "instances" short, without the
/// instances, and the bare numbers (the full form is the tooltip).
pub fn stats_forms(nodes: usize, edges: usize, instances: usize) -> [String; 4] {
    use crate::words::count;
    let (n, e) = (count(nodes, "node", "nodes"), count(edges, "edge", "edges"));
    [
        format!("{n} · {e} · {}", count(instances, "chain instance", "chain instances")),
        format!("{n} · {e} · {}", count(instances, "instance", "instances")),
        format!("{n} · {e}"),
        format!("{nodes} · {edges} · {instances}"),
    ]
}

#[cfg(test)]
mod tests;

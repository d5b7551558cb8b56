//! What the canvas draws, derived from the model once per revision: cards, ports, links and
//! frames, with their measured sizes.

use super::*;

/// Everything drawn that derives from the model, rebuilt when the document revision changes.
#[derive(Default)]
pub(super) struct ViewCache {
    pub(super) revision: Option<(u64, u64)>,
    /// Where each card is and how it looks from afar, in file order: what the hot loops
    /// (culling, edges, the far view) read, packed together apart from the text.
    pub(super) boxes: Vec<CardBox>,
    /// What else a card shows, by the same index.
    pub(super) cards: Vec<Card>,
    /// Each distinct list of port names once: most cards of a type have the same ports.
    pub(super) ports: CardPorts,
    pub(super) by_id: HashMap<String, usize>,
    pub(super) links: Vec<Link>,
    pub(super) frames: Vec<FrameView>,
    pub(super) bounds: Option<Rect>,
    /// The cards and every edge's curve.
    pub(super) fit_bounds: Option<Rect>,
    pub(super) minimap: Minimap,
}

#[derive(Clone, Copy)]
pub(super) struct CardBox {
    pub(super) pos: Pos2,
    /// Taller than the layout's card when it has more ports than fit.
    pub(super) h: f32,
    pub(super) color: Color32,
    pub(super) inputs: u32,
    pub(super) outputs: u32,
}

pub(super) struct Card {
    pub(super) id: String,
    pub(super) node: NodeIndex,
    /// Its input and output port lists, in [`ViewCache::ports`].
    pub(super) ports: [u32; 2],
    /// Capability marks, as bits of [`MARKS`].
    pub(super) marks: u8,
    pub(super) instance: Option<usize>,
    /// The node names a sub-chain child (`config.subChainRef` or `config.workflowId`).
    pub(super) child: bool,
}

/// What a card shows, read from the workflow when it is drawn with text.
pub(super) struct CardText<'a> {
    pub(super) name: &'a str,
    pub(super) type_id: &'a str,
    pub(super) inputs: &'a [String],
    pub(super) outputs: &'a [String],
    pub(super) marks: u8,
    pub(super) color: Color32,
}

pub(super) struct Link {
    pub(super) seq: u64,
    /// The edge in the workflow the cache was built from (its label is read from there).
    pub(super) edge: EdgeIndex,
    pub(super) from: usize,
    pub(super) from_port: usize,
    pub(super) to: usize,
    pub(super) to_port: usize,
    pub(super) conditional: bool,
    pub(super) loopback: bool,
    /// For a back edge: how high and how low the cards between its ends reach (set by
    /// [`ViewCache::measure`]), so its lane clears them all.
    pub(super) span: (f32, f32),
    /// For a forward edge that would cross a card: the lane it takes round (set by
    /// [`ViewCache::measure`] from [`Router::route`]).
    pub(super) bend: Option<f32>,
}

pub(super) struct FrameView {
    pub(super) key: String,
    pub(super) title: String,
    pub(super) nodes: Vec<usize>,
    /// The one chain instance of a workflow the OpenWOP app expanded (interop §5).
    pub(super) app: bool,
}

impl ViewCache {
    /// The card of the leftmost node with no incoming edge (the topmost of those level),
    /// else the leftmost card.
    pub(super) fn entry(&self) -> Option<Rect> {
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

    pub(super) fn inputs(&self, i: usize) -> &[String] {
        self.ports.list(self.cards[i].ports[0])
    }

    pub(super) fn outputs(&self, i: usize) -> &[String] {
        self.ports.list(self.cards[i].ports[1])
    }

    /// What card `i` shows, from `wf`, the workflow the cache was built from.
    pub(super) fn text<'a>(&'a self, wf: &'a Workflow, i: usize) -> CardText<'a> {
        let card = &self.cards[i];
        let node = &wf.graph[card.node];
        CardText {
            name: if node.name().is_empty() { node.id() } else { node.name() },
            type_id: node.type_id(),
            inputs: self.inputs(i),
            outputs: self.outputs(i),
            marks: card.marks,
            color: self.boxes[i].color,
        }
    }

    /// The card `i` drawn with its top-left at `pos`.
    pub(super) fn rect(&self, i: usize, pos: Pos2) -> Rect {
        Rect::from_min_size(pos, vec2(W, self.boxes[i].h))
    }

    pub(super) fn build(wf: &Workflow, revision: (u64, u64), catalog: Option<&Catalog>) -> Self {
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
                pos: pos2(x as f32, y as f32),
                h: ports.size(*ix).1 as f32,
                color: theme::type_color(node.type_id()),
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
        let back: HashSet<_> = crate::graph::dfs(&wf.graph, order.iter().copied()).back_edges.into_iter().collect();
        let mut links = Vec::with_capacity(wf.graph.edge_count());
        for e in wf.edges_in_order() {
            let Some((a, b)) = wf.graph.edge_endpoints(e) else { continue };
            let edge = &wf.graph[e];
            let (from, to) = (index_of[&a], index_of[&b]);
            let from_port = port_index(ports.outputs(a), edge.source_port());
            let to_port = port_index(ports.inputs(b), edge.target_port());
            links.push(Link {
                seq: edge.seq,
                from,
                from_port,
                to,
                to_port,
                edge: e,
                conditional: edge.has_condition(),
                loopback: back.contains(&e),
                span: (f32::INFINITY, f32::NEG_INFINITY),
                bend: None,
            });
        }
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
        let mut cache = Self { revision: Some(revision), boxes, cards, ports, by_id, links, frames, ..Self::default() };
        cache.measure();
        cache
    }

    /// After an edit that only moved nodes (a drag, its undo and redo) from the revision
    /// this view shows: take their new positions and keep everything else. Returns `false`
    /// when the view cannot follow; the caller then rebuilds it.
    pub(super) fn follow_moves(
        &mut self,
        wf: &Workflow,
        revision: (u64, u64),
        moves: Option<(u64, &[String])>,
    ) -> bool {
        let (Some(old), Some((from, ids))) = (self.revision, moves) else { return false };
        if old != (from, revision.1) {
            return false;
        }
        for id in ids {
            let (Some(&i), Some(ix)) = (self.by_id.get(id), wf.node(id)) else { return false };
            let (x, y) = wf.graph[ix].position();
            self.boxes[i].pos = pos2(x as f32, y as f32);
        }
        self.revision = Some(revision);
        self.measure();
        true
    }

    /// The bounds, the fitting bounds and the minimap, from the cards and links.
    pub(super) fn measure(&mut self) {
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
        let bounds = cards.iter().map(|c| Rect::from_min_size(c.pos, vec2(W, c.h))).reduce(|a, b| a.union(b));
        // Forward edges that would pass through a card go round it.
        let router = Router::new(cards.iter().map(|c| geo_rect(Rect::from_min_size(c.pos, vec2(W, c.h)))).collect());
        let curve_of = |l: &Link| {
            let (a, b) = (&cards[l.from], &cards[l.to]);
            let (ra, rb) = (Rect::from_min_size(a.pos, vec2(W, a.h)), Rect::from_min_size(b.pos, vec2(W, b.h)));
            let from = port_pos(ra, l.from_port, a.outputs as usize, true);
            let to = port_pos(rb, l.to_port, b.inputs as usize, false);
            curve_between(ra, from, rb, to).around(l.span)
        };
        for l in &mut self.links {
            l.bend = router.route(curve_of(l), (l.from, l.to)).bend;
        }
        // Curves bulge past the cards they join (a loopback most of all): fitting shows them.
        // Exact bounds only for a curve whose hull leaves the cards' bounds (most do not).
        let fit_bounds = self.links.iter().fold(bounds, |acc, l| {
            let curve = curve_of(l).bent(l.bend);
            match acc {
                Some(fit) if fit.contains_rect(hull(&curve)) => Some(fit),
                _ => {
                    let drawn = drawn_bounds(&curve);
                    Some(acc.map_or(drawn, |fit| fit.union(drawn)))
                }
            }
        });
        self.minimap = Minimap::of(cards, bounds);
        self.bounds = bounds;
        self.fit_bounds = fit_bounds;
    }
}

/// Where a port an edge names is on its card (the card lists every such port).
pub(super) fn port_index(ports: &[String], name: &str) -> usize {
    ports.iter().position(|p| p == name).unwrap_or(0)
}

/// The marks a card shows, one per line with its meaning.
pub(super) fn marks_meaning(marks: u8) -> String {
    let lines =
        (0..MARKS.len()).filter(|k| marks & 1 << k != 0).map(|k| format!("{} {}", MARKS[k].0, MARK_MEANINGS[k]));
    lines.collect::<Vec<_>>().join("\n")
}

/// Which of [`MARKS`] a node has (side-effectful, cacheable, irreversible effect, has
/// compensation), as bits.
pub(super) fn marks(node: &crate::workflow::Node) -> u8 {
    let caps = node.capabilities();
    let has = [
        caps.iter().any(|c| c == "side-effectful"),
        caps.iter().any(|c| c == "cacheable"),
        node.is_irreversible(),
        node.has_member("compensation"),
    ];
    has.iter().enumerate().filter(|(_, h)| **h).fold(0, |bits, (k, _)| bits | 1 << k)
}

//! The size of a node's card and of a chain instance's frame, in canvas units. The canvas
//! draws cards this size and every arrangement (tidy, splices that make room, align,
//! duplicate) keeps them apart by it, so "no overlap" means the same thing on screen and in
//! the model.
//!
//! A card is as wide as the layout's nominal card and as tall as its ports need: the ports
//! its node type declares in the catalog, then any other port an edge names.

use crate::catalog::Catalog;
use crate::workflow::Workflow;
use crate::workflow::layout::{NODE_H, NODE_W};
use petgraph::stable_graph::NodeIndex;
use petgraph::visit::NodeIndexable;
use std::collections::HashMap;

pub const CARD_W: f64 = NODE_W;
pub const CARD_H: f64 = NODE_H;
/// Ports sit between this offset from the top of a card and its bottom edge.
pub const PORT_TOP: f64 = 40.0;
/// Vertical room per port: a label line and a gap, so neither labels nor dots touch.
pub const PORT_PITCH: f64 = 18.0;
/// A chain instance's frame: this much around its cards, plus a title band on top.
pub const FRAME_PAD: f64 = 16.0;
pub const FRAME_HEADER: f64 = 22.0;

/// A card is the nominal height, or taller when its ports need more room.
pub fn card_height(ports: usize) -> f64 {
    CARD_H.max(PORT_TOP + ports as f64 * PORT_PITCH + 6.0)
}

/// The port names a node type declares, inputs then outputs.
pub trait DeclaredPorts {
    fn declared(&self, type_id: &str) -> Option<(&[String], &[String])>;
}

impl DeclaredPorts for Catalog {
    fn declared(&self, type_id: &str) -> Option<(&[String], &[String])> {
        self.ports(type_id).map(|p| (p.inputs.as_slice(), p.outputs.as_slice()))
    }
}

impl<T: DeclaredPorts> DeclaredPorts for Option<&T> {
    fn declared(&self, type_id: &str) -> Option<(&[String], &[String])> {
        self.and_then(|c| c.declared(type_id))
    }
}

/// The declared ports of some node types, owned, so a command can carry them: what the
/// catalog says about the types in a workflow (and in a chain about to be inserted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PortTable(HashMap<String, (Vec<String>, Vec<String>)>);

impl PortTable {
    /// The catalog's declared ports for each of `type_ids` it knows.
    pub fn of<'a>(catalog: Option<&Catalog>, type_ids: impl IntoIterator<Item = &'a str>) -> Self {
        let mut table = HashMap::new();
        let Some(catalog) = catalog else { return Self(table) };
        for t in type_ids {
            if !table.contains_key(t)
                && let Some((i, o)) = catalog.declared(t)
            {
                table.insert(t.to_owned(), (i.to_vec(), o.to_vec()));
            }
        }
        Self(table)
    }

    /// The declared ports of every node type in `wf`.
    pub fn for_workflow(catalog: Option<&Catalog>, wf: &Workflow) -> Self {
        Self::of(catalog, wf.graph.node_weights().map(crate::workflow::Node::type_id))
    }
}

impl DeclaredPorts for PortTable {
    fn declared(&self, type_id: &str) -> Option<(&[String], &[String])> {
        self.0.get(type_id).map(|(i, o)| (i.as_slice(), o.as_slice()))
    }
}

/// Every node's ports, by node index: declared ports first, then ports only edges name (in
/// edge file order), and `input` / `output` on a side with none. Nodes with the same ports
/// share one list (most nodes of a type do), so a large workflow holds a few lists, not two
/// per node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CardPorts {
    lists: Vec<Vec<String>>,
    /// Per node index: its input list and its output list, in `lists`.
    of_node: Vec<[u32; 2]>,
}

impl CardPorts {
    /// The input and output lists of node `ix`, for [`CardPorts::list`].
    pub fn of(&self, ix: NodeIndex) -> [u32; 2] {
        self.of_node[ix.index()]
    }

    pub fn list(&self, k: u32) -> &[String] {
        &self.lists[k as usize]
    }

    pub fn inputs(&self, ix: NodeIndex) -> &[String] {
        self.list(self.of(ix)[0])
    }

    pub fn outputs(&self, ix: NodeIndex) -> &[String] {
        self.list(self.of(ix)[1])
    }

    pub fn size(&self, ix: NodeIndex) -> (f64, f64) {
        (CARD_W, card_height(self.inputs(ix).len().max(self.outputs(ix).len())))
    }
}

/// Port names as numbers, and lists of them, each distinct one once.
#[derive(Default)]
struct Interner<'a> {
    names: HashMap<&'a str, u32>,
    text: Vec<&'a str>,
    lists: Vec<Vec<u32>>,
    list_of: HashMap<Vec<u32>, u32>,
}

impl<'a> Interner<'a> {
    fn name(&mut self, n: &'a str) -> u32 {
        let text = &mut self.text;
        *self.names.entry(n).or_insert_with(|| {
            text.push(n);
            (text.len() - 1) as u32
        })
    }

    fn list(&mut self, list: Vec<u32>) -> u32 {
        let lists = &mut self.lists;
        *self.list_of.entry(list).or_insert_with_key(|l| {
            lists.push(l.clone());
            (lists.len() - 1) as u32
        })
    }
}

/// Every node's ports (see [`CardPorts`]). The ports edges name are found by sorting every
/// edge end once, O(E log E), with no set or list per node along the way.
pub fn card_ports<'a>(wf: &'a Workflow, declared: &'a dyn DeclaredPorts) -> CardPorts {
    let mut at = Interner::default();
    let none = at.list(Vec::new());
    let mut of_node = vec![[none, none]; wf.graph.node_bound()];
    let mut by_type: HashMap<&str, [u32; 2]> = HashMap::new();
    for ix in wf.graph.node_indices() {
        let type_id = wf.graph[ix].type_id();
        let ports = match by_type.get(type_id) {
            Some(p) => *p,
            None => {
                let (i, o) = declared.declared(type_id).unwrap_or_default();
                let i: Vec<u32> = i.iter().map(|n| at.name(n)).collect();
                let o: Vec<u32> = o.iter().map(|n| at.name(n)).collect();
                let p = [at.list(i), at.list(o)];
                by_type.insert(type_id, p);
                p
            }
        };
        of_node[ix.index()] = ports;
    }
    // Every edge end: (node, side, name, which edge); each name once per node and side, in
    // the order the edges first name it.
    let mut ends: Vec<(u32, u8, u32, u32)> = Vec::new();
    for (k, e) in wf.edges_in_order().into_iter().enumerate() {
        let Some((a, b)) = wf.graph.edge_endpoints(e) else { continue };
        let edge = &wf.graph[e];
        ends.push((a.index() as u32, 1, at.name(edge.source_port()), k as u32));
        ends.push((b.index() as u32, 0, at.name(edge.target_port()), k as u32));
    }
    ends.sort_unstable();
    ends.dedup_by_key(|(node, side, name, _)| (*node, *side, *name));
    ends.sort_unstable_by_key(|(node, side, _, seen)| (*node, *side, *seen));
    for group in ends.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let (node, side) = (group[0].0 as usize, group[0].1 as usize);
        let have = &at.lists[of_node[node][side] as usize];
        let extra: Vec<u32> = group.iter().map(|g| g.2).filter(|n| !have.contains(n)).collect();
        if !extra.is_empty() {
            let list = have.iter().copied().chain(extra).collect();
            of_node[node][side] = at.list(list);
        }
    }
    let defaults = [at.name("input"), at.name("output")].map(|n| at.list(vec![n]));
    for ix in wf.graph.node_indices() {
        for (side, default) in defaults.iter().enumerate() {
            if of_node[ix.index()][side] == none {
                of_node[ix.index()][side] = *default;
            }
        }
    }
    let text = &at.text;
    let lists = at.lists.iter().map(|l| l.iter().map(|&n| text[n as usize].to_owned()).collect()).collect();
    CardPorts { lists, of_node }
}

/// Every node's card size, indexed by node index.
pub fn card_sizes(wf: &Workflow, declared: &dyn DeclaredPorts) -> Vec<(f64, f64)> {
    let ports = card_ports(wf, declared);
    (0..wf.graph.node_bound()).map(|i| ports.size(NodeIndex::new(i))).collect()
}

/// An axis-aligned rectangle in canvas units: `min` is the top-left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub min: (f64, f64),
    pub max: (f64, f64),
}

impl Rect {
    pub fn at(pos: (f64, f64), size: (f64, f64)) -> Self {
        Self { min: pos, max: (pos.0 + size.0, pos.1 + size.1) }
    }

    /// Strictly overlapping: rectangles that only touch do not.
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.min.0 < other.max.0 && other.min.0 < self.max.0 && self.min.1 < other.max.1 && other.min.1 < self.max.1
    }

    pub fn union(&self, other: &Rect) -> Rect {
        Rect {
            min: (self.min.0.min(other.min.0), self.min.1.min(other.min.1)),
            max: (self.max.0.max(other.max.0), self.max.1.max(other.max.1)),
        }
    }

    pub fn width(&self) -> f64 {
        self.max.0 - self.min.0
    }

    pub fn height(&self) -> f64 {
        self.max.1 - self.min.1
    }

    /// The frame drawn around cards spanning this rectangle.
    pub fn framed(&self) -> Rect {
        Rect {
            min: (self.min.0 - FRAME_PAD, self.min.1 - FRAME_PAD - FRAME_HEADER),
            max: (self.max.0 + FRAME_PAD, self.max.1 + FRAME_PAD),
        }
    }
}

/// The card of node `ix` where it stands.
pub fn card_rect(wf: &Workflow, ix: NodeIndex, sizes: &[(f64, f64)]) -> Rect {
    Rect::at(wf.graph[ix].position(), sizes[ix.index()])
}

/// The first pair of overlapping rectangles found, if any. A sweep over left edges: the
/// rectangles still open at the sweep line all meet it, so while none overlap they are
/// apart vertically, and only the open one starting just above a new rectangle's bottom can
/// overlap it. O(n log n).
pub fn first_overlap(rects: &[Rect]) -> Option<(usize, usize)> {
    use std::cmp::Reverse;
    use std::collections::{BTreeMap, BinaryHeap};
    struct Key(f64);
    impl PartialEq for Key {
        fn eq(&self, other: &Self) -> bool {
            self.0.total_cmp(&other.0).is_eq()
        }
    }
    impl Eq for Key {}
    impl PartialOrd for Key {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Key {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            self.0.total_cmp(&other.0)
        }
    }
    let mut by_x: Vec<usize> = (0..rects.len()).collect();
    by_x.sort_by(|&a, &b| rects[a].min.0.total_cmp(&rects[b].min.0));
    // Open rectangles by top edge, and by right edge to close them.
    let mut open: BTreeMap<Key, usize> = BTreeMap::new();
    let mut closing: BinaryHeap<Reverse<(Key, usize)>> = BinaryHeap::new();
    for &b in &by_x {
        let r = &rects[b];
        while let Some(Reverse((Key(right), a))) = closing.peek() {
            if *right > r.min.0 {
                break;
            }
            let a = *a;
            closing.pop();
            open.remove(&Key(rects[a].min.1));
        }
        if let Some((_, &a)) = open.range(..Key(r.max.1)).next_back()
            && rects[a].overlaps(r)
        {
            return Some((a.min(b), a.max(b)));
        }
        open.insert(Key(r.min.1), b);
        closing.push(Reverse((Key(r.max.0), b)));
    }
    None
}

/// What overlaps in `wf` as drawn with these card sizes: two cards, a card and the frame of
/// an instance it is not part of, or two frames. Empty when everything stands apart. A check
/// for tests and tools: cards by a sweep, frames each against every card and frame.
pub fn conflicts(wf: &Workflow, sizes: &[(f64, f64)]) -> Vec<String> {
    let ids: Vec<NodeIndex> = wf.graph.node_indices().collect();
    let cards: Vec<Rect> = ids.iter().map(|&n| card_rect(wf, n, sizes)).collect();
    let mut out = Vec::new();
    if let Some((a, b)) = first_overlap(&cards) {
        out.push(format!("cards {} and {} overlap", wf.graph[ids[a]].id(), wf.graph[ids[b]].id()));
    }
    let frames: Vec<(String, Vec<NodeIndex>, Rect)> = wf
        .instances()
        .into_iter()
        .filter_map(|inst| {
            let members: Vec<NodeIndex> = inst.node_ids.iter().filter_map(|id| wf.node(id)).collect();
            let r = members.iter().map(|&n| card_rect(wf, n, sizes)).reduce(|a, b| a.union(&b))?;
            Some((inst.key(), members, r.framed()))
        })
        .collect();
    for (i, (key, members, frame)) in frames.iter().enumerate() {
        for (k, &n) in ids.iter().enumerate() {
            if !members.contains(&n) && frame.overlaps(&cards[k]) {
                out.push(format!("frame {key} covers card {}", wf.graph[n].id()));
            }
        }
        for (other, _, r) in &frames[i + 1..] {
            if frame.overlaps(r) {
                out.push(format!("frames {key} and {other} overlap"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cards_grow_with_ports_declared_or_named_by_edges() {
        let wf = Workflow::from_json(json!({
            "id": "w", "name": "w", "version": "1",
            "nodes": [{"id": "a", "typeId": "t"}, {"id": "b", "typeId": "t"}, {"id": "c", "typeId": "t"}],
            "edges": [
                {"id": "e1", "sourceNodeId": "a", "sourceOutput": "x", "targetNodeId": "b"},
                {"id": "e2", "sourceNodeId": "a", "sourceOutput": "y", "targetNodeId": "b", "targetInput": "in2"},
                {"id": "e3", "sourceNodeId": "a", "sourceOutput": "x", "targetNodeId": "b", "targetInput": "in2"}
            ]
        }))
        .unwrap();
        let none: Option<&Catalog> = None;
        let ports = card_ports(&wf, &none);
        let (a, b) = (wf.node("a").unwrap(), wf.node("b").unwrap());
        assert_eq!(ports.outputs(a), ["x", "y"]);
        assert_eq!(ports.inputs(a), ["input"]);
        assert_eq!(ports.inputs(b), ["input", "in2"]);
        assert_eq!(ports.outputs(b), ["output"]);
        let mut table = PortTable::default();
        let many: Vec<String> = (0..8).map(|i| format!("p{i}")).collect();
        table.0.insert("t".into(), (many.clone(), vec!["x".into()]));
        let ports = card_ports(&wf, &table);
        assert_eq!(ports.outputs(a), ["x", "y"], "a declared port is not repeated");
        assert_eq!(ports.inputs(b).len(), 10, "eight declared, then `input` and `in2` from the edges");
        assert_eq!(ports.size(b), (CARD_W, 40.0 + 10.0 * 18.0 + 6.0));
        assert_eq!(ports.size(a), (CARD_W, 40.0 + 8.0 * 18.0 + 6.0));
        let c = wf.node("c").unwrap();
        assert_eq!(ports.of(c)[0], ports.of(a)[0], "the same ports are one list, not a copy per node");
        assert_eq!(ports.outputs(c), ["x"]);
        assert_eq!(card_height(1), CARD_H);
    }

    #[test]
    fn overlap_sweep_agrees_with_every_pair() {
        let mut seed = 0x0dd1_5ea5_e0f1_u64;
        let mut next = |span: f64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * span
        };
        for round in 0..300 {
            let rects: Vec<Rect> =
                (0..12).map(|_| Rect::at((next(3000.0), next(1500.0)), (220.0, 96.0 + next(100.0)))).collect();
            let naive = (0..rects.len()).any(|i| (i + 1..rects.len()).any(|j| rects[i].overlaps(&rects[j])));
            assert_eq!(first_overlap(&rects).is_some(), naive, "round {round}");
        }
        let touching = [Rect::at((0.0, 0.0), (10.0, 10.0)), Rect::at((10.0, 0.0), (10.0, 10.0))];
        assert_eq!(first_overlap(&touching), None);
    }
}

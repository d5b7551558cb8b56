use super::*;
use crate::catalog::Trust;
use crate::editor::cards::{PortTable, card_sizes, conflicts};
use crate::editor::document::{Command, Document};
use crate::editor::preview::{DropEdge, Placement, request};
use crate::pack::bundled;
use crate::workflow::ExportMode;
use serde_json::{Value, json};

/// Nodes of type core.noop at the given positions, and edges between them in order (also
/// the canvas view's tests' workflows).
pub(crate) fn workflow(nodes: &[(&str, f64, f64)], edges: &[(&str, &str)]) -> Workflow {
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
    ((s.max.0, (s.min.1 + s.max.1) / 2.0), (t.min.0, (t.min.1 + t.max.1) / 2.0), e.source().into(), e.target().into())
}

#[test]
fn a_splice_into_a_back_edge_runs_its_return_edge_forward_across_no_card() {
    // After manual moves the edge s → t runs right to left, past m (unwired) and under
    // nothing else; u sits below, left of everything.
    let wf = workflow(&[("t", 0.0, 0.0), ("m", 310.0, 0.0), ("s", 620.0, 0.0), ("u", -310.0, 136.0)], &[("s", "t")]);
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
    let right =
        out.new_nodes.iter().map(|id| position(&doc, id).0 + sizes[wf.node(id).unwrap().index()].0).fold(0.0, f64::max);
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
    let wf = Workflow::from_json(json!({"id": "big", "name": "Big", "version": "1", "nodes": nodes, "edges": edges}))
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
        let moved = Rect { min: (frame.min.0 + d.0, frame.min.1 + d.1), max: (frame.max.0 + d.0, frame.max.1 + d.1) };
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
    assert_eq!(nearest_outside(&mut [(-9.0, 1.0), (1.0, 4.0)]), 1.0, "touching intervals leave their meeting point");
    assert_eq!(nearest_outside(&mut [(-9.0, 2.0), (1.0, 4.0)]), 4.0);
    assert_eq!(nearest_outside(&mut [(-4.0, 4.0)]), 4.0, "a tie goes right or down");
}

//! Wires never pass through a card they do not join (issue 37, item 4): every real chain of
//! the corpus is inserted alone and tidied, and each edge, routed as the canvas draws it
//! (`editor::geometry::Router`), is sampled densely against every other card's body.

use chainsmith_test_env::needs;
mod common;

use chainsmith::catalog::Trust;
use chainsmith::editor::arrange::Arrangement;
use chainsmith::editor::cards::{PortTable, card_ports};
use chainsmith::editor::document::{Command, Document};
use chainsmith::editor::geometry::{Curve, Point, Rect, Router, point, port_pos};
use chainsmith::editor::preview::{Placement, request};
use chainsmith::pack::{LoadOptions, Pack, load_path};
use chainsmith::workflow::Workflow;
use serde_json::{Map, Value, json};

/// Values for the corpus chains' required string and number parameters, from their schema.
fn values_for(chain: &Value) -> Map<String, Value> {
    let props = chain.pointer("/parameters/properties").and_then(Value::as_object).cloned().unwrap_or_default();
    props
        .iter()
        .map(|(k, schema)| {
            let v = match schema.get("default") {
                Some(d) => d.clone(),
                None => match schema.get("type").and_then(Value::as_str) {
                    Some("integer" | "number") => json!(1),
                    Some("boolean") => json!(true),
                    Some("array") => json!([]),
                    Some("object") => json!({}),
                    _ => json!("https://example.test/x"),
                },
            };
            (k.clone(), v)
        })
        .collect()
}

/// The chain inserted alone into an empty workflow and tidied; `None` when it cannot be
/// inserted with those values.
fn tidied(pack: &Pack, chain_id: &str, raw: &Value) -> Option<Document> {
    let empty = json!({"id": "w", "name": "w", "version": "1", "nodes": [], "edges": []});
    let mut doc = Document::new(Workflow::from_json(empty).unwrap(), None);
    let placement = Placement::Insert { at: (0.0, 0.0), on_edge: None, after: None };
    doc.inline(request(&Trust::default(), pack, chain_id, values_for(raw), "x001", &[], &placement)).ok()?;
    let tidy = Command::Arrange { how: Arrangement::Tidy, nodes: Vec::new(), ports: PortTable::default() };
    doc.apply(tidy).unwrap();
    Some(doc)
}

/// An edge: its id, its ends' card indices, its curve drawn plain, and routed.
type Drawn = (String, (usize, usize), Curve, Curve);

/// Every card's rect, and each edge as drawn before routing and routed.
fn curves(wf: &Workflow) -> (Vec<Rect>, Vec<Drawn>) {
    let ports = card_ports(wf, &PortTable::default());
    let order = wf.nodes_in_order();
    let index = |ix| order.iter().position(|o| *o == ix).unwrap();
    let cards: Vec<Rect> = order
        .iter()
        .map(|&ix| {
            let (x, y) = wf.graph[ix].position();
            let (w, h) = ports.size(ix);
            Rect::from_min_size(point(x as f32, y as f32), point(w as f32, h as f32))
        })
        .collect();
    let router = Router::new(cards.clone());
    let mut out = Vec::new();
    for e in wf.edges_in_order() {
        let (a, b) = wf.graph.edge_endpoints(e).unwrap();
        let edge = &wf.graph[e];
        let (outs, ins) = (ports.outputs(a), ports.inputs(b));
        let from_port = outs.iter().position(|p| p == edge.source_port()).unwrap_or(0);
        let to_port = ins.iter().position(|p| p == edge.target_port()).unwrap_or(0);
        let (ra, rb) = (cards[index(a)], cards[index(b)]);
        let plain =
            Curve::between(ra, port_pos(ra, from_port, outs.len(), true), rb, port_pos(rb, to_port, ins.len(), false));
        let ends = (index(a), index(b));
        out.push((edge.id().to_owned(), ends, plain, router.route(plain, ends)));
    }
    (cards, out)
}

/// The cards other than `ends` one of 400 points per segment of `curve` lies inside.
fn bodies_crossed(curve: &Curve, cards: &[Rect], ends: (usize, usize)) -> Vec<usize> {
    let pts: Vec<Point> = curve.points(400);
    (0..cards.len())
        .filter(|&i| i != ends.0 && i != ends.1 && pts.iter().any(|p| cards[i].shrink(1.0).contains(*p)))
        .collect()
}

#[needs(corpus)]
#[test]
fn after_tidy_no_wire_of_a_corpus_chain_passes_through_a_card() {
    let corpus = common::corpus_dir();
    let mut packs = load_path(&corpus.join("examples"), LoadOptions::default()).packs;
    packs.extend(load_path(&corpus.join("registry/packs"), LoadOptions::default()).packs);
    let (mut chains, mut edges, mut plain_crossings) = (0, 0, 0);
    let mut crossings = Vec::new();
    for pack in &packs {
        for chain in &pack.chains {
            let Some(doc) = tidied(pack, chain.chain_id(), chain.raw()) else { continue };
            chains += 1;
            let (cards, routed) = curves(doc.workflow());
            for (id, ends, plain, curve) in routed {
                edges += 1;
                if !bodies_crossed(&plain, &cards, ends).is_empty() {
                    plain_crossings += 1;
                    println!("drawn plain, {} edge {id} would cross a card", chain.chain_id());
                }
                let crossed = bodies_crossed(&curve, &cards, ends);
                if !crossed.is_empty() {
                    crossings.push(format!("{} edge {id} crosses cards {crossed:?}", chain.chain_id()));
                }
            }
        }
    }
    println!("{chains} chains, {edges} edges; drawn plain, {plain_crossings} edges cross a card");
    assert!(chains >= 20, "too few corpus chains could be inserted: {chains}");
    // Otherwise the check below would hold whatever the canvas drew.
    assert!(plain_crossings > 0, "no tidied corpus chain has an edge a plain curve draws through a card");
    assert!(crossings.is_empty(), "{} edges cross a card:\n{}", crossings.len(), crossings.join("\n"));
}

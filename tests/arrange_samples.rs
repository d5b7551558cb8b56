//! Tidy after a splice into a real sample chain keeps every edge running left to right: each
//! sample chain with an edge between two of its own nodes is inserted alone, Triage is
//! spliced into its first inner edge, then Tidy runs (src/editor/arrange.rs tests the
//! generated case).

use chainsmith_test_env::needs;
mod common;

use chainsmith::catalog::Trust;
use chainsmith::editor::arrange::Arrangement;
use chainsmith::editor::cards::PortTable;
use chainsmith::editor::document::{Command, Document};
use chainsmith::editor::preview::{DropEdge, Placement, request};
use chainsmith::pack::{LoadOptions, Pack, bundled, load_path};
use chainsmith::workflow::Workflow;
use serde_json::{Map, Value, json};

fn position(doc: &Document, id: &str) -> (f64, f64) {
    let wf = doc.workflow();
    wf.graph[wf.node(id).unwrap()].position()
}

/// Edges whose source is not left of their target.
fn backward_edges(doc: &Document) -> Vec<String> {
    let wf = doc.workflow();
    assert!(!petgraph::algo::is_cyclic_directed(&wf.graph), "the case must be acyclic");
    wf.graph
        .edge_weights()
        .filter(|e| position(doc, e.source()).0 >= position(doc, e.target()).0)
        .map(|e| format!("{}: {} → {}", e.id(), e.source(), e.target()))
        .collect()
}

/// Values for the sample chains' required parameters.
fn values_for(chain: &Value) -> Map<String, Value> {
    let samples = json!({"queueName": "billing", "sheet": "report", "hotelApi": "https://hotels.test",
        "nights": 2, "url": "https://a.test", "reservationUrl": "https://r.test", "sourceText": "x"});
    let declared = chain.pointer("/parameters/properties").and_then(Value::as_object).cloned().unwrap_or_default();
    samples
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| declared.contains_key(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Whether the chain's DAG has an edge between two of its own nodes (read from the manifest,
/// not from the expansion).
fn has_inner_edge(chain: &Value) -> bool {
    let ids: Vec<&str> = chain["dag"]["nodes"].as_array().unwrap().iter().filter_map(|n| n["id"].as_str()).collect();
    let node = |end: &Value| end.as_str().map(|s| s.split_once('.').map_or(s, |(n, _)| n).to_owned());
    chain["dag"]["edges"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|e| [&e["from"], &e["to"]].iter().all(|end| node(end).is_some_and(|n| ids.contains(&n.as_str()))))
}

/// Tidy each such chain of `packs` with Triage spliced in; the chain ids tried.
fn tidy_each(packs: &[Pack]) -> Vec<String> {
    let (trust, bundled) = (Trust::default(), bundled().packs);
    let support = bundled.iter().find(|p| p.chain("support.triage").is_some()).unwrap();
    let mut tried = Vec::new();
    for pack in packs {
        for chain in &pack.chains {
            if !has_inner_edge(chain.raw()) {
                continue; // nothing to splice into
            }
            let empty = json!({"id": "w", "name": "w", "version": "1", "nodes": [], "edges": []});
            let mut doc = Document::new(Workflow::from_json(empty).unwrap(), None);
            let placement = Placement::Insert { at: (0.0, 0.0), on_edge: None, after: None };
            let req = request(&trust, pack, chain.chain_id(), values_for(chain.raw()), "x001", &[], &placement);
            let out = doc.inline(req).unwrap_or_else(|e| panic!("{}: {e}", chain.chain_id()));
            let wf = doc.workflow();
            let edge = wf
                .graph
                .edge_weights()
                .find(|e| {
                    out.new_nodes.iter().any(|n| n == e.source()) && out.new_nodes.iter().any(|n| n == e.target())
                })
                .unwrap_or_else(|| panic!("{}: no inner edge after inlining", chain.chain_id()));
            let on_edge = DropEdge { id: edge.id().into(), source: edge.source().into(), target: edge.target().into() };
            let at = position(&doc, edge.source());
            let values = json!({"queueName": "billing"}).as_object().unwrap().clone();
            let placement = Placement::Insert { at, on_edge: Some(on_edge), after: None };
            doc.inline(request(&trust, support, "support.triage", values, "spliced", &[], &placement)).unwrap();
            let tidy = Command::Arrange { how: Arrangement::Tidy, nodes: Vec::new(), ports: PortTable::default() };
            doc.apply(tidy).unwrap();
            assert_eq!(backward_edges(&doc), Vec::<String>::new(), "{}", chain.chain_id());
            tried.push(chain.chain_id().to_owned());
        }
    }
    tried
}

#[test]
fn tidy_after_a_splice_into_each_bundled_sample_chain_keeps_edges_left_to_right() {
    let tried = tidy_each(&bundled().packs);
    assert!(!tried.is_empty(), "no bundled chain has an inner edge");
    println!("tidied {tried:?}");
}

#[needs(corpus)]
#[test]
fn tidy_after_a_splice_into_each_corpus_sample_chain_keeps_edges_left_to_right() {
    let packs = load_path(&common::corpus_dir().join("examples"), LoadOptions::default()).packs;
    let tried = tidy_each(&packs);
    assert!(!tried.is_empty(), "no corpus example chain has an inner edge");
    println!("tidied {tried:?}");
}

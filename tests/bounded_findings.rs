//! Issue 33 items 11 and 12. Findings are capped as they are made: a 4 MB pack that repeats
//! one mistake keeps the first `MAX_LISTED_PER_CODE` findings of it and a count, and
//! `validate`, `expand` and `pack sign` stay under 20× its size at their peak (counted
//! allocation by allocation, as tests/peak_memory.rs counts). Placement is near-linear when
//! both the chain dropped and the workflow it lands on grow.

#[path = "common/growth.rs"]
mod growth;

mod common;

use chainsmith::error::code;
use chainsmith::expand::{ExpandOptions, PackSource, expand_from};
use chainsmith::pack::{LoadOptions, Pack, load_bytes};
use common::counting::peak_of;
use serde_json::{Map, Value, json};
use std::path::Path;

#[global_allocator]
static ALLOCATOR: common::counting::Counting = common::counting::Counting;

/// Held for the whole of every test here, input building included: the counters are the
/// whole process's, and a neighbour building its input would count in a measurement (and
/// slow a timing).
static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ALONE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Findings of one code listed one by one (docs/limits.md); the rest are counted.
const MAX_LISTED_PER_CODE: usize = 100;

/// The size of each generated manifest, and the most its commands may hold at once.
const SIZE: usize = 4 << 20;
const MAX_RATIO: usize = 20;

fn manifest(nodes: Vec<Value>, edges: Vec<Value>) -> Vec<u8> {
    serde_json::to_vec(&json!({"name": "vendor.bounded.findings", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0 <3.0.0"}, "chains": [{"chainId": "c.one", "version": "1.0.0",
        "label": "One", "description": "generated",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        "dag": {"nodes": nodes, "edges": edges}}]}))
    .unwrap()
}

/// One node whose one config string is `piece` repeated to [`SIZE`]; and how many times.
fn one_string(piece: &str) -> (Vec<u8>, usize) {
    let reps = SIZE / piece.len();
    let nodes =
        vec![json!({"id": "a", "typeId": "core.noop", "config": {"p": piece.repeat(reps), "q": "{{params.q}}"}})];
    (manifest(nodes, Vec::new()), reps)
}

/// A node `a` and edges from unknown nodes into it, to [`SIZE`]; and how many edges.
fn edges_to_unknown_nodes() -> (Vec<u8>, usize) {
    let n = SIZE / r#"{"from":"upstream_100000.output","to":"a.input"},"#.len();
    let edges = (0..n).map(|i| json!({"from": format!("upstream_{i}.output"), "to": "a.input"})).collect();
    (manifest(vec![json!({"id": "a", "typeId": "core.noop", "config": {"q": "{{params.q}}"}})], edges), n)
}

/// 100,000 nodes all named `a`; and how many repeat an id already used.
fn duplicate_node_ids() -> (Vec<u8>, usize) {
    let n = 100_000;
    let nodes = (0..n).map(|_| json!({"id": "a", "typeId": "core.noop", "config": {"q": "{{params.q}}"}})).collect();
    (manifest(nodes, Vec::new()), n - 1)
}

fn load(bytes: &[u8]) -> Pack {
    load_bytes(Path::new("findings/pack.json"), bytes, LoadOptions::default()).unwrap()
}

/// The findings of `code`: the first `MAX_LISTED_PER_CODE` one by one, and one more that
/// counts the rest.
fn assert_capped(pack: &Pack, code: &str, expected: usize, label: &str) {
    let of: Vec<_> = pack.findings.iter().filter(|f| f.code == code).collect();
    let counted: Vec<_> = of.iter().filter(|f| f.details.contains_key("omitted")).collect();
    assert_eq!((of.len(), counted.len()), (MAX_LISTED_PER_CODE + 1, 1), "{label}: {code}");
    assert_eq!(counted[0].details["omitted"].as_u64(), Some((expected - MAX_LISTED_PER_CODE) as u64), "{label}");
    assert_eq!(counted[0].details["total"].as_u64(), Some(expected as u64), "{label}");
}

/// `validate` (the load and its checks), `expand` (when the chain expands) and `pack sign`
/// on `bytes`, each peak under [`MAX_RATIO`] × the manifest's size.
fn assert_bounded(label: &str, bytes: &[u8], code: &str, expected: usize, expands: bool) {
    let limit = MAX_RATIO * bytes.len();
    let (pack, validate) = peak_of(|| load(bytes));
    let mut report = format!("{label} ({} bytes): validate {:.1}×", bytes.len(), validate as f64 / bytes.len() as f64);
    eprintln!("{report}");
    assert_capped(&pack, code, expected, label);
    drop(pack);
    assert!(validate < limit, "{label}: validate held {validate} bytes, over {MAX_RATIO}× {}", bytes.len());
    if expands {
        let opts = ExpandOptions { expansion_id: Some("x1".into()), ..Default::default() };
        let (expansion, expand) = peak_of(|| {
            let pack = load(bytes);
            expand_from(PackSource::Given(Box::new(pack)), "c.one", Map::new(), &opts).map(|e| e.warnings.len())
        });
        let warnings = expansion.unwrap();
        assert!(warnings <= 4 * (MAX_LISTED_PER_CODE + 1), "{label}: {warnings} warnings");
        report += &format!(", expand {:.1}×", expand as f64 / bytes.len() as f64);
        assert!(expand < limit, "{label}: expand held {expand} bytes, over {MAX_RATIO}× {}", bytes.len());
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pack.json"), bytes).unwrap();
    let key = ed25519_dalek::SigningKey::from_bytes(&[7u8; 32]);
    let (_, sign) = peak_of(|| {
        chainsmith::registry::sign::sign_pack(dir.path(), &key, chainsmith::registry::sign::Scheme::V1Manual)
    });
    report += &format!(", pack sign {:.1}×", sign as f64 / bytes.len() as f64);
    eprintln!("{report}");
    assert!(sign < limit, "{label}: pack sign held {sign} bytes, over {MAX_RATIO}× {}", bytes.len());
}

/// [`assert_bounded`] on one config string of `piece` repeated ([`one_string`]), each
/// repetition a finding of `code`.
fn assert_one_string_bounded(piece: &str, code: &str) {
    let _alone = alone();
    let (bytes, reps) = one_string(piece);
    assert_bounded(piece, &bytes, code, reps, true);
}

/// Issue 33 item 11: before the fix, 157× (validate), 219× (expand), 102× (pack sign).
#[test]
fn unclosed_angle_near_tokens_in_one_string() {
    assert_one_string_bounded("<<params.q ", code::NEAR_TOKEN);
}

#[test]
fn unclosed_brace_near_tokens_in_one_string() {
    assert_one_string_bounded("{{params.q ", code::NEAR_TOKEN);
}

#[test]
fn spaced_near_misses_in_one_string() {
    assert_one_string_bounded("{{ params.q }} ", code::NEAR_TOKEN);
}

#[test]
fn undeclared_tokens_in_one_string() {
    assert_one_string_bounded("{{params.zz}}", code::TOKEN_UNDECLARED);
}

#[test]
fn edges_from_unknown_nodes() {
    let _alone = alone();
    let (bytes, n) = edges_to_unknown_nodes();
    assert_bounded("edges from unknown nodes", &bytes, code::EDGE_ENDPOINT_UNKNOWN, n, true);
}

#[test]
fn duplicate_node_ids_are_counted() {
    let _alone = alone();
    let (bytes, n) = duplicate_node_ids();
    // An error: nothing expands.
    assert_bounded("100,000 duplicate node ids", &bytes, code::DUPLICATE_NODE_ID, n, false);
}

/// Issue 33 item 12: a chain of G nodes all at one position dropped (`inline --at`) onto a
/// column of N cards, G = N = k: every card of the chain was asked at each of the N steps
/// down the column (G × N searches; 20,000 + 20,000 took about a minute through the CLI).
/// Both grow here. Timed as the other growth tests are (common/growth.rs): each doubling
/// must cost under 3×; the old loop costs 4×.
mod placement {
    use super::alone;
    use super::growth::assert_near_linear;
    use chainsmith::workflow::layout::clear_of;

    /// The column's last card is at (k-1)·136 and 96 high: a placed card clears it.
    fn below_the_column(placed: &[(f64, f64)], k: usize) {
        let bottom = (k - 1) as f64 * 136.0 + 96.0;
        assert!(placed.iter().all(|p| p.1 >= bottom), "{:?}", placed.iter().map(|p| p.1).reduce(f64::min));
    }

    #[test]
    fn a_chain_at_one_point_onto_a_column() {
        let _alone = alone();
        assert_near_linear(
            "k cards at one point onto a k-card column",
            1_000,
            |k| {
                let group = vec![(0.0, 0.0); k];
                let column: Vec<(f64, f64)> = (0..k).map(|j| (0.0, j as f64 * 136.0)).collect();
                (group, column)
            },
            |(group, column)| {
                let mut group = group.clone();
                clear_of(&mut group, column);
                below_the_column(&group, column.len());
            },
        );
    }

    /// The chain's cards at one x, a hair apart in y: still one class, every card distinct.
    #[test]
    fn a_chain_stacked_in_one_column_onto_a_column() {
        let _alone = alone();
        assert_near_linear(
            "k cards stacked at one x onto a k-card column",
            1_000,
            |k| {
                let group: Vec<(f64, f64)> = (0..k).map(|j| (10.0, j as f64 * 0.01)).collect();
                let column: Vec<(f64, f64)> = (0..k).map(|j| (0.0, j as f64 * 136.0)).collect();
                (group, column)
            },
            |(group, column)| {
                let mut group = group.clone();
                clear_of(&mut group, column);
                below_the_column(&group, column.len());
            },
        );
    }
}

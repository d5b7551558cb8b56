//! The authoring round trip: expanding an extracted chain with its parameter defaults gives
//! back the extracted nodes' typeId, name, config, inputs and edges — for every real chain of
//! the corpus (inline, extract with every whole-value token promoted again, expand) and for
//! random workflows, selections and promotions.

use chainsmith_test_env::needs;
mod common;

use chainsmith::author::{
    ChainInfo, ExtractRequest, PackDraft, PackEdit, PackInfo, Promotion, extract_into, param_specs, remove_param,
    set_param,
};
use chainsmith::catalog::HostProfile;
use chainsmith::error::pointer_join;
use chainsmith::expand::token::tokens;
use chainsmith::expand::{ExpandOptions, Expansion, expand};
use chainsmith::pack::{LoadOptions, Pack, load_bytes, load_file};
use chainsmith::workflow::{SpliceOptions, Workflow, splice};
use common::json_eq;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::path::Path;

/// Expand `chain_id` of a freshly written pack with its defaults (validated, as a host does).
fn expand_with_defaults(draft: &PackDraft, chain_id: &str, expansion_id: &str) -> Expansion {
    let pack = load_bytes(Path::new("extracted/pack.json"), &draft.to_bytes(), LoadOptions::default()).unwrap();
    let opts = ExpandOptions {
        expansion_id: Some(expansion_id.into()),
        host: HostProfile::permissive(),
        ..Default::default()
    };
    expand(&pack, chain_id, Map::new(), &opts).unwrap_or_else(|e| panic!("{chain_id}: {e}"))
}

fn new_pack() -> PackDraft {
    PackDraft::new(&PackInfo { name: "vendor.roundtrip.made".into(), version: "1.0.0".into(), ..Default::default() })
}

/// Every string in the original chain's substitutable places that is exactly one token:
/// (parameter name, node index, pointer inside the node).
fn whole_value_tokens(chain: &Value) -> Vec<(String, usize, String)> {
    fn walk(v: &Value, at: String, node: usize, out: &mut Vec<(String, usize, String)>) {
        match v {
            Value::String(s) => {
                if let [t] = tokens(s).as_slice()
                    && t.start == 0
                    && t.end == s.len()
                {
                    out.push((t.name.to_owned(), node, at));
                }
            }
            Value::Array(items) => items.iter().enumerate().for_each(|(i, x)| walk(x, format!("{at}/{i}"), node, out)),
            Value::Object(m) => m.iter().for_each(|(k, x)| walk(x, pointer_join(&at, k), node, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (i, node) in chain["dag"]["nodes"].as_array().unwrap().iter().enumerate() {
        for key in ["/config", "/inputs", "/compensation/inputMapping"] {
            if let Some(v) = node.pointer(key) {
                walk(v, key.to_owned(), i, &mut out);
            }
        }
    }
    out
}

#[needs(corpus)]
#[test]
fn every_corpus_chain_round_trips_through_a_workflow() {
    let corpus = common::corpus_dir();
    let vectors = common::files_under(&corpus.join("vectors"), "json");
    let (mut checked, mut with_produced, mut promoted) = (0, 0, 0);
    let mut failures = Vec::new();
    for path in &vectors {
        let vector: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let pack: Pack = load_file(&corpus.join(vector["pack"].as_str().unwrap()), LoadOptions::default()).unwrap();
        let chain_id = vector["chainId"].as_str().unwrap();
        let original = &pack.chain(chain_id).unwrap().raw();
        let expected = &vector["expected"];

        // Inline exactly as the vector was produced.
        let opts = ExpandOptions {
            expansion_id: Some("t0k3".into()),
            host: HostProfile::permissive(),
            params_as_given: true,
            ..Default::default()
        };
        let params = vector["params"].as_object().cloned().unwrap_or_default();
        let first = expand(&pack, chain_id, params, &opts).unwrap();
        let mut wf = Workflow::new("corpus");
        splice(&mut wf, &first, &SpliceOptions::default()).unwrap();

        // Extract every node, promoting each value that was a whole-value token.
        let mut promotions: Vec<Promotion> = Vec::new();
        for (param, node, pointer) in whole_value_tokens(original) {
            let target = (first.id_map[node].1.clone(), pointer);
            match promotions.iter_mut().find(|p| p.name == param) {
                Some(p) => p.targets.push(target),
                None => promotions.push(Promotion { name: param, targets: vec![target], ..Default::default() }),
            }
        }
        promoted += promotions.len();
        let mut info = ChainInfo::new(chain_id, original["label"].as_str().unwrap());
        info.version = original["version"].as_str().map(str::to_owned);
        let req = ExtractRequest { chain: info, nodes: None, params: promotions };
        let mut draft = new_pack();
        if let Err(e) = extract_into(&mut draft, &wf, &req) {
            failures.push(format!("{name}: extraction refused: {e}"));
            continue;
        }
        if let Some(err) = draft.errors().next() {
            failures.push(format!("{name}: the extracted pack is invalid: {err}"));
            continue;
        }
        let again = expand_with_defaults(&draft, chain_id, "t0k3");
        let extracted = &draft.chains()[0];

        // The reference's own output is the oracle: ids, nodes, edges.
        let mut problems = Vec::new();
        if !json_eq(&again.id_map_json(), &expected["idMap"]) {
            problems.push(format!("idMap {} != {}", again.id_map_json(), expected["idMap"]));
        }
        let want_nodes = expected["nodes"].as_array().unwrap();
        if again.nodes.len() != want_nodes.len() {
            problems.push(format!("{} nodes, expected {}", again.nodes.len(), want_nodes.len()));
        }
        for ((got, want), (frag, _)) in again.nodes.iter().zip(want_nodes).zip(&first.id_map) {
            let fill = |key: &str| match key {
                // Splicing fills what a fragment may leave out (chain-packs §6.3).
                "name" => json!(frag),
                _ => json!({}),
            };
            for key in ["typeId", "name", "config", "inputs"] {
                let want_v = want.get(key).cloned().unwrap_or_else(|| fill(key));
                if !got.get(key).is_some_and(|g| json_eq(g, &want_v)) {
                    problems.push(format!("node {frag} {key}: {:?} != {want_v}", got.get(key)));
                }
            }
            for key in ["compensation", "irreversibleEffect", "capabilities"] {
                let same = match (got.get(key), want.get(key)) {
                    (Some(g), Some(w)) => json_eq(g, w),
                    (g, w) => g == w,
                };
                if !same {
                    problems.push(format!("node {frag} {key}: {:?} != {:?}", got.get(key), want.get(key)));
                }
            }
        }
        if !json_eq(&json!(again.edges), &expected["edges"]) {
            problems.push(format!("edges {} != {}", json!(again.edges), expected["edges"]));
        }
        if extracted.get("producedVariables") != original.get("producedVariables") {
            problems.push(format!(
                "producedVariables {:?} != {:?}",
                extracted.get("producedVariables"),
                original.get("producedVariables")
            ));
        }
        if again.settings_compensation.as_ref() != expected.get("settingsCompensation") {
            problems.push("settingsCompensation differs".to_owned());
        }
        if problems.is_empty() {
            checked += 1;
            with_produced += usize::from(original.get("producedVariables").is_some());
        } else {
            failures.push(format!("{name}:\n  {}", problems.join("\n  ")));
        }
    }
    println!(
        "authoring round trip: {checked}/{} corpus chains ({with_produced} with producedVariables, {promoted} parameters promoted back)",
        vectors.len()
    );
    assert!(failures.is_empty(), "{} chains failed:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(checked, common::corpus_count("vectors"), "every vector, one per chain");
    assert_eq!(with_produced, common::corpus_count("vectorsWithProducedVariables"));
    // Distinct parameters named by a whole-value token per chain, summed.
    assert_eq!(promoted, common::corpus_count("wholeValueParameters"));
}

/// Strings without a real token (near misses, stray delimiters and references are kept).
fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "[a-z ]{0,5}",
        1 => prop::sample::select(vec!["{{ params.a }}", "{{params.a-b}}", "é", "${nodes.a.output}", "<<", "}}", "{{params.}}"])
            .prop_map(str::to_owned),
    ];
    prop::collection::vec(piece, 0..4).prop_map(|p| p.concat()).prop_filter("no real token", |s| tokens(s).is_empty())
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e9f64..1e9).prop_map(|f| json!(f)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..3).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Member names, some needing pointer escapes; never `workflowId`, `subChainRef` or a
/// variable read, which have rules of their own.
fn key() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["k", "url", "n", "deep", "value", "a/b", "t~1"]).prop_map(str::to_owned)
}

fn object() -> impl Strategy<Value = Value> {
    prop::collection::vec((key(), value()), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect()))
}

const IDS: [&str; 10] = ["a", "b.c", "b_c", "x y", "n-1", "é", "q", "r.s.t", "a_2", "start"];

#[derive(Debug, Clone)]
struct Case {
    workflow: Value,
    selected: Vec<String>,
    picks: Vec<prop::sample::Index>,
}

fn case() -> impl Strategy<Value = Case> {
    let node = (
        prop::sample::select(vec!["core.identity", "vendor.x.y", "vendor.a.b-c"]),
        text(),
        prop::option::of((-500i64..500, -500i64..500)),
        object(),
        object(),
        prop::sample::subsequence(vec!["streamable", "cacheable", "side-effectful"], 0..=2),
    );
    (prop::sample::subsequence(IDS.to_vec(), 1..=6), prop::collection::vec(node, 6)).prop_flat_map(|(ids, nodes)| {
        let n = ids.len();
        let edge = (
            0..n,
            0..n,
            prop::option::of(prop::sample::select(vec!["out", "body", "a.b"])),
            prop::option::of(prop::sample::select(vec!["in", "payload"])),
            prop::option::of(prop::sample::select(vec![
                json!({"type": "truthy", "left": "output.ok"}),
                json!({"type": "equals", "left": "x", "right": [1, "two"]}),
            ])),
            prop::option::of(prop::sample::select(vec!["any_success", "none_failed"])),
        );
        let nodes: Vec<Value> = ids
            .iter()
            .zip(nodes)
            .map(|(id, (type_id, name, pos, config, inputs, caps))| {
                let mut n = json!({"id": id, "typeId": type_id, "name": name, "config": config, "inputs": inputs});
                if let Some((x, y)) = pos {
                    n["position"] = json!({"x": x, "y": y});
                }
                if !caps.is_empty() {
                    n["capabilities"] = json!(caps);
                }
                n
            })
            .collect();
        let ids: Vec<String> = ids.iter().map(|s| (*s).to_owned()).collect();
        (
            Just(nodes),
            Just(ids.clone()),
            prop::collection::vec(edge, 0..8),
            prop::sample::subsequence(ids, 1..=n),
            prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        )
            .prop_map(|(nodes, ids, edges, selected, picks)| {
                let edges: Vec<Value> = edges
                    .into_iter()
                    .enumerate()
                    .map(|(k, (a, b, out, inp, cond, rule))| {
                        let mut e = json!({"id": format!("e{k}"), "sourceNodeId": ids[a], "targetNodeId": ids[b]});
                        if let Some(p) = out {
                            e["sourceOutput"] = json!(p);
                        }
                        if let Some(p) = inp {
                            e["targetInput"] = json!(p);
                        }
                        if let Some(c) = cond {
                            e["condition"] = c;
                        }
                        if let Some(r) = rule {
                            e["triggerRule"] = json!(r);
                        }
                        e
                    })
                    .collect();
                Case { workflow: json!({"id": "w", "name": "W", "nodes": nodes, "edges": edges}), selected, picks }
            })
    })
}

/// Pointers of every value inside a node's config and inputs (what a user may promote).
fn promotable(node: &Value) -> Vec<String> {
    fn walk(v: &Value, at: String, out: &mut Vec<String>) {
        out.push(at.clone());
        match v {
            Value::Array(items) => items.iter().enumerate().for_each(|(i, x)| walk(x, format!("{at}/{i}"), out)),
            Value::Object(m) => m.iter().for_each(|(k, x)| walk(x, pointer_join(&at, k), out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for key in ["config", "inputs"] {
        if let Some(Value::Object(m)) = node.get(key) {
            m.iter().for_each(|(k, x)| walk(x, pointer_join(&format!("/{key}"), k), &mut out));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn extracted_chains_expand_back_to_the_selected_nodes(case in case()) {
        let wf = Workflow::from_json(case.workflow.clone()).unwrap();
        let nodes = case.workflow["nodes"].as_array().unwrap();
        // Disjoint promotions (a value inside a promoted one is gone once it is a token).
        let mut promotions: Vec<Promotion> = Vec::new();
        let candidates: Vec<(String, String)> = nodes
            .iter()
            .filter(|n| case.selected.iter().any(|s| s == n["id"].as_str().unwrap()))
            .flat_map(|n| promotable(n).into_iter().map(move |p| (n["id"].as_str().unwrap().to_owned(), p)))
            .collect();
        for (k, pick) in case.picks.iter().enumerate() {
            if candidates.is_empty() {
                break;
            }
            let (node, pointer) = pick.get(&candidates).clone();
            let overlaps = promotions.iter().flat_map(|p| &p.targets).any(|(n, p)| {
                *n == node && (p.starts_with(&format!("{pointer}/")) || pointer.starts_with(&format!("{p}/")) || *p == pointer)
            });
            if !overlaps {
                promotions.push(Promotion::new(&format!("p{k}"), &node, &pointer));
            }
        }
        let req = ExtractRequest {
            chain: ChainInfo::new("t.random", "Random"),
            nodes: Some(case.selected.clone()),
            params: promotions.clone(),
        };
        let mut draft = new_pack();
        let out = extract_into(&mut draft, &wf, &req).unwrap();
        prop_assert!(draft.errors().next().is_none(), "{:?}", draft.findings());
        prop_assert_eq!(draft.chains()[0]["parameters"]["properties"].as_object().unwrap().len(), promotions.len());

        // Editing the schema afterwards keeps the expansion: rename the first parameter,
        // remove the second (its default goes back where its tokens were).
        let mut chain = draft.chains()[0].clone();
        if let Some(mut spec) = param_specs(&chain).into_iter().next() {
            let old = spec.name.clone();
            spec.name = format!("renamed_{old}");
            spec.title = Some("Renamed".into());
            chain = set_param(&chain, Some(&old), &spec).unwrap();
        }
        if let Some(second) = param_specs(&chain).get(1) {
            chain = remove_param(&chain, &second.name).unwrap();
        }
        draft.apply(PackEdit::ReplaceChain { index: 0, chain }).unwrap();
        prop_assert!(draft.errors().next().is_none(), "{:?}", draft.findings());

        let again = expand_with_defaults(&draft, "t.random", "k1");
        let prefix = "t_random_k1_";
        let fragment = |wf_id: &str| out.extraction.ids.iter().find(|(w, _)| w == wf_id).map(|(_, f)| f.clone());
        // Nodes: selected ones in file order, each as it was.
        let selected: Vec<&Value> =
            nodes.iter().filter(|n| case.selected.iter().any(|s| s == n["id"].as_str().unwrap())).collect();
        prop_assert_eq!(again.nodes.len(), selected.len());
        for (got, want) in again.nodes.iter().zip(&selected) {
            let frag = fragment(want["id"].as_str().unwrap()).unwrap();
            prop_assert_eq!(got["id"].as_str().unwrap(), format!("{prefix}{frag}"));
            prop_assert!(!frag.contains('.'), "fragment id {} keeps a dot", frag);
            for key in ["typeId", "name", "config", "inputs"] {
                prop_assert!(json_eq(&got[key], &want[key]), "{} {}: {} != {}", frag, key, got[key], want[key]);
            }
        }
        // Edges: those between selected nodes, in file order, ports, condition and rule kept.
        let end = |id: &Value, port: Option<&Value>| {
            let base = format!("{prefix}{}", fragment(id.as_str().unwrap()).unwrap());
            match port.and_then(Value::as_str) { Some(p) => format!("{base}.{p}"), None => base }
        };
        let want_edges: Vec<Value> = case.workflow["edges"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| {
                let inside = |k: &str| case.selected.iter().any(|s| s == e[k].as_str().unwrap());
                inside("sourceNodeId") && inside("targetNodeId")
            })
            .map(|e| {
                let mut f = json!({"from": end(&e["sourceNodeId"], e.get("sourceOutput")),
                                   "to": end(&e["targetNodeId"], e.get("targetInput"))});
                for key in ["condition", "triggerRule"] {
                    if let Some(v) = e.get(key) {
                        f[key] = v.clone();
                    }
                }
                f
            })
            .collect();
        prop_assert_eq!(json!(again.edges), json!(want_edges));
        let crossing = case.workflow["edges"].as_array().unwrap().iter().filter(|e| {
            let inside = |k: &str| case.selected.iter().any(|s| s == e[k].as_str().unwrap());
            inside("sourceNodeId") != inside("targetNodeId")
        }).count();
        prop_assert_eq!(out.extraction.boundary.len(), crossing);
    }
}

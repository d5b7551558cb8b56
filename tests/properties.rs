//! Property tests for expansion and the token grammar: random chains and parameter values
//! never panic, ids stay unique across repeated splices, rewritten edges name expanded
//! nodes, output re-parses, and substitution is a single pass.

use chainsmith::expand::token::{Substituted, near_tokens, substitute_str, tokens};
use chainsmith::expand::{ExpandOptions, expand};
use chainsmith::pack::{LoadOptions, Pack, load_bytes};
use chainsmith::workflow::{ExportMode, SpliceOptions, Workflow, splice};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::path::Path;

const NAMES: [&str; 5] = ["a", "b", "topic", "n_2", "_x"];

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(NAMES.to_vec()).prop_map(str::to_owned)
}

/// Text pieces that stress the scanner: real tokens, near misses, stray delimiters, and
/// multi-byte characters next to them.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z ]{0,6}",
        2 => name().prop_map(|n| format!("{{{{params.{n}}}}}")),
        2 => name().prop_map(|n| format!("<<params.{n}>>")),
        1 => prop::sample::select(vec![
            "{{ params.a }}", "{{params.}}", "{{params.1x}}", "{{params.a-b}}", "{{Params.a}}", "<<params.a}}",
            "{{params.a>>", "{", "{{", "<<", "}}", ">>", "params.", "é", "✓", "{{params", "${nodes.n1.output}",
        ])
        .prop_map(str::to_owned),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..6).prop_map(|p| p.concat())
}

/// Any JSON value, strings drawn from token-laden text.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e12f64..1e12).prop_map(|f| json!(f)),
        prop::sample::select(vec![0.5, 1.0, -0.0, 1e21, 1e-7, 123456789.125]).prop_map(|f| json!(f)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((name(), inner), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn params() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::vec((name(), json_value()), 0..5).prop_map(|kv| kv.into_iter().collect())
}

/// A random chain: nodes `n0..nk` with token-laden config and inputs, sometimes a
/// compensation whose inputMapping refers to other nodes; edges between fragment nodes
/// (with and without ports) and to parent nodes.
fn chain_pack() -> impl Strategy<Value = Pack> {
    (1usize..24)
        .prop_flat_map(|n| {
            let node = (json_value(), json_value(), prop::option::of((0..n, text())));
            let endpoint = prop_oneof![
                4 => (0..n, prop::option::of("[a-z]{1,4}")).prop_map(|(i, port)| match port {
                    Some(p) => format!("n{i}.{p}"),
                    None => format!("n{i}"),
                }),
                1 => prop::sample::select(vec!["parent.out", "start", "n999.x", ""]).prop_map(str::to_owned),
            ];
            let edge = (endpoint.clone(), endpoint, prop::option::of(prop::sample::select(vec!["all_success", "one_failed"])));
            (prop::collection::vec(node, n), prop::collection::vec(edge, 0..n * 2))
        })
        .prop_map(|(nodes, edges)| {
            let nodes: Vec<Value> = nodes
                .into_iter()
                .enumerate()
                .map(|(i, (config, inputs, comp))| {
                    let mut node = json!({"id": format!("n{i}"), "typeId": "core.identity", "config": config, "inputs": inputs});
                    if let Some((target, extra)) = comp {
                        node["compensation"] = json!({"nodeTypeId": "core.undo",
                            "inputMapping": {"ref": format!("${{nodes.n{target}.output}} {extra}"), "plain": format!("nodes.n{target}.x")}});
                    }
                    node
                })
                .collect();
            let edges: Vec<Value> = edges
                .into_iter()
                .map(|(from, to, rule)| {
                    let mut e = json!({"from": from, "to": to});
                    if let Some(r) = rule {
                        e["triggerRule"] = json!(r);
                    }
                    e
                })
                .collect();
            let props: Map<String, Value> = NAMES.iter().map(|n| ((*n).to_owned(), json!({}))).collect();
            let manifest = json!({"name": "vendor.prop.pack", "version": "1.0.0", "kind": "workflow-chain",
                "engines": {"openwop": "*"}, "chains": [{"chainId": "prop.chain", "version": "1.0.0", "label": "P",
                "description": "random", "parameters": {"type": "object", "properties": props},
                "dag": {"nodes": nodes, "edges": edges}}]});
            // Without the manifest schema, config and inputs may be any JSON at all.
            load_bytes(Path::new("prop"), manifest.to_string().as_bytes(), LoadOptions { skip_schema: true }).unwrap()
        })
}

fn opts(expansion_id: Option<&str>) -> ExpandOptions<'static> {
    ExpandOptions { expansion_id: expansion_id.map(str::to_owned), params_as_given: true, ..Default::default() }
}

/// Text chainsmith wrote (the CLI's streamed output, a workflow file), parsed by serde_json.
fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("chainsmith wrote valid JSON")
}

/// The node part of an edge endpoint (`node.port` splits at the first dot).
fn node_of(endpoint: &str) -> &str {
    endpoint.split_once('.').map_or(endpoint, |(n, _)| n)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn expansion_never_panics_and_its_output_reparses(pack in chain_pack(), values in params(), validate in any::<bool>()) {
        let o = ExpandOptions { params_as_given: !validate, ..opts(Some("p0p0")) };
        let exp = expand(&pack, "prop.chain", values, &o).unwrap();
        // The CLI streams its output with its own writer (crate::pretty, two threads): the
        // text must be exactly what serde_json prints for the same expansion.
        let mut printed = Vec::new();
        exp.write_pretty(&mut printed).unwrap();
        let out = exp.to_json();
        prop_assert_eq!(&parse(&printed), &out);
        prop_assert_eq!(String::from_utf8(printed).unwrap(), serde_json::to_string_pretty(&out).unwrap());
        let mut wf = Workflow::new("props");
        splice(&mut wf, &exp, &SpliceOptions::default()).unwrap();
        // A workflow file is streamed from the graph; it must read back as the document.
        let doc = wf.to_json(ExportMode::Faithful);
        prop_assert_eq!(parse(&wf.to_file_bytes(ExportMode::Faithful).unwrap()), doc.clone());
        prop_assert_eq!(Workflow::from_json(doc).unwrap().node_count(), exp.nodes.len());
    }

    #[test]
    fn rewritten_endpoints_name_expanded_nodes(pack in chain_pack(), values in params()) {
        let exp = expand(&pack, "prop.chain", values, &opts(Some("e9"))).unwrap();
        let chain = &pack.chains[0];
        let fragment: HashSet<&str> = chain.nodes().iter().filter_map(|n| n["id"].as_str()).collect();
        let expanded: HashSet<&str> = exp.nodes.iter().filter_map(|n| n["id"].as_str()).collect();
        prop_assert_eq!(expanded.len(), exp.nodes.len(), "expanded ids are unique");
        for (before, after) in chain.edges().iter().zip(&exp.edges) {
            for key in ["from", "to"] {
                let (old, new) = (before[key].as_str().unwrap(), after[key].as_str().unwrap());
                if fragment.contains(node_of(old)) {
                    prop_assert!(expanded.contains(node_of(new)), "{old} became {new}");
                    prop_assert_eq!(new, format!("{}{old}", exp.prefix), "the port is kept");
                } else {
                    prop_assert_eq!(old, new, "endpoints outside the fragment pass through");
                }
            }
        }
        for (old, new) in &exp.id_map {
            prop_assert_eq!(new, &format!("{}{old}", exp.prefix));
        }
    }

    #[test]
    fn repeated_splices_into_one_parent_keep_ids_unique(pack in chain_pack(), values in params(), times in 2usize..6) {
        let mut wf = Workflow::new("props");
        let mut expected_nodes = 0;
        for _ in 0..times {
            let exp = {
                let taken = |id: &str| wf.contains_node(id);
                let o = ExpandOptions { taken_ids: Some(&taken), ..opts(None) };
                expand(&pack, "prop.chain", values.clone(), &o).unwrap()
            };
            splice(&mut wf, &exp, &SpliceOptions::default()).unwrap();
            expected_nodes += exp.nodes.len();
        }
        let doc = wf.to_json(ExportMode::Faithful);
        let ids: Vec<&str> = doc["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
        prop_assert_eq!(ids.len(), expected_nodes);
        prop_assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len(), "node ids repeat");
        let edge_ids: Vec<&str> = doc["edges"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
        prop_assert_eq!(edge_ids.iter().collect::<HashSet<_>>().len(), edge_ids.len(), "edge ids repeat");
        prop_assert_eq!(wf.instances().len(), times);
    }

    /// A model of the grammar: literal text with no token delimiters around real tokens.
    /// The output is the literals with each token replaced by its value's text, and a value
    /// that itself holds tokens comes out verbatim.
    #[test]
    fn substitution_is_single_pass(
        parts in prop::collection::vec(prop_oneof![
            "[a-z .,é]{0,5}".prop_map(|t| (t, None)),
            (name(), any::<bool>()).prop_map(|(n, angles)| (String::new(), Some((n, angles)))),
        ], 1..8),
        values in prop::collection::vec((name(), text()), 0..5),
    ) {
        let values: Map<String, Value> = values.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
        let mut source = String::new();
        let mut expected = String::new();
        let mut token_count = 0;
        for (literal, token) in &parts {
            source.push_str(literal);
            expected.push_str(literal);
            if let Some((n, angles)) = token {
                source.push_str(&if *angles { format!("<<params.{n}>>") } else { format!("{{{{params.{n}}}}}") });
                expected.push_str(values.get(n).and_then(Value::as_str).unwrap_or(""));
                token_count += 1;
            }
        }
        let got = match substitute_str(&source, &values) {
            Substituted::Unchanged => Value::String(source.clone()),
            Substituted::Value(v) => v,
        };
        let whole = token_count == 1 && tokens(&source).first().is_some_and(|t| t.start == 0 && t.end == source.len());
        if whole {
            let (_, Some((n, _))) = parts.iter().find(|(_, t)| t.is_some()).unwrap() else { unreachable!() };
            prop_assert_eq!(got, values.get(n).cloned().unwrap_or(Value::String(String::new())));
        } else {
            prop_assert_eq!(got, Value::String(expected));
        }
    }

    /// With no values, substitution only deletes exact tokens: every other byte stays, in order.
    #[test]
    fn empty_params_only_remove_exact_tokens(s in prop_oneof![text(), "\\PC{0,40}"]) {
        let found = tokens(&s);
        let mut kept = String::new();
        let mut last = 0;
        for t in &found {
            prop_assert!(t.start >= last && t.end > t.start, "tokens are ordered and disjoint");
            let span = &s[t.start..t.end];
            let (open, close) = if span.starts_with('{') { ("{{params.", "}}") } else { ("<<params.", ">>") };
            prop_assert!(span.starts_with(open) && span.ends_with(close), "{span}");
            let inner = &span[open.len()..span.len() - close.len()];
            prop_assert_eq!(inner, t.name);
            prop_assert!(t.name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'));
            prop_assert!(t.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
            kept.push_str(&s[last..t.start]);
            last = t.end;
        }
        kept.push_str(&s[last..]);
        let got = match substitute_str(&s, &Map::new()) {
            Substituted::Unchanged => s.clone(),
            Substituted::Value(Value::String(v)) => v,
            Substituted::Value(other) => panic!("a string became {other}"),
        };
        prop_assert_eq!(got, kept);
        // The near-token lint never panics on any text, multi-byte included.
        let _ = near_tokens(&s);
    }
}

#[test]
fn id_map_and_edges_agree_on_a_fixed_chain() {
    // A deterministic anchor for the properties above: one edge per endpoint kind.
    let manifest = json!({"name": "vendor.prop.pack", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": "*"}, "chains": [{"chainId": "prop.chain", "version": "1.0.0", "label": "P",
        "description": "d", "parameters": {"type": "object", "properties": {}},
        "dag": {"nodes": [{"id": "a", "typeId": "core.x"}, {"id": "b", "typeId": "core.x"}],
                "edges": [{"from": "a.out", "to": "b"}, {"from": "parent.x", "to": "a.in"}]}}]});
    let pack = load_bytes(Path::new("p"), manifest.to_string().as_bytes(), LoadOptions::default()).unwrap();
    let exp = expand(&pack, "prop.chain", Map::new(), &opts(Some("f1"))).unwrap();
    let map: HashMap<&str, &str> = exp.id_map.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    assert_eq!(map["a"], "prop_chain_f1_a");
    assert_eq!(exp.edges[0], json!({"from": "prop_chain_f1_a.out", "to": "prop_chain_f1_b"}));
    assert_eq!(exp.edges[1], json!({"from": "parent.x", "to": "prop_chain_f1_a.in"}));
}

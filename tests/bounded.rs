//! Bounded work on legal input: every documented limit reached through the CLI without a
//! crash, and each loop that used to be quadratic timed at three sizes (see
//! `common/growth.rs`). Inputs are generated here, never committed.

mod common;
#[path = "common/growth.rs"]
mod growth;

use chainsmith::pack::MAX_FRAGMENT_NODES;
use common::cli::run;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Output;

/// How the fragment's nodes are wired.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// n0 → n1 → … → n(N-1), and n(N-1) → n0 closing one cycle at the far end.
    Line,
    /// n0 → every other node.
    FanOut,
}

fn edges(shape: Shape, n: usize) -> Vec<Value> {
    match shape {
        Shape::Line => (1..n)
            .map(|i| json!({"from": format!("n{}", i - 1), "to": format!("n{i}")}))
            .chain([json!({"from": format!("n{}", n - 1), "to": "n0"})])
            .collect(),
        Shape::FanOut => (1..n).map(|i| json!({"from": "n0", "to": format!("n{i}")})).collect(),
    }
}

/// A chain pack whose one chain has `n` nodes wired as `shape`.
fn pack(shape: Shape, n: usize) -> Value {
    let nodes: Vec<Value> = (0..n).map(|i| json!({"id": format!("n{i}"), "typeId": "core.noop"})).collect();
    json!({"name": "vendor.bounded.big", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": "*"}, "chains": [{"chainId": "big.chain", "version": "1.0.0", "label": "Big",
        "description": "generated", "parameters": {"type": "object", "properties": {}},
        "dag": {"nodes": nodes, "edges": edges(shape, n)}}]})
}

fn write_json(dir: &Path, name: &str, v: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(v).unwrap()).unwrap();
    path.to_str().unwrap().to_owned()
}

fn succeeds(out: &Output) -> &Output {
    assert!(
        out.status.success(),
        "exit {:?}; stderr tail: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).lines().rev().take(3).collect::<Vec<_>>().join(" | ")
    );
    out
}

mod at_the_limits {
    use super::*;

    /// `validate`, `expand` and `inline` on a fragment of exactly the node limit.
    fn through_the_cli(shape: Shape) {
        let _alone = growth::exclusive();
        let n = MAX_FRAGMENT_NODES;
        let dir = tempfile::tempdir().unwrap();
        let pack = write_json(dir.path(), "pack.json", &pack(shape, n));

        let out = run(&["validate", "--json", &pack]);
        succeeds(&out);
        let findings: Value = serde_json::from_slice(&out.stdout).unwrap();
        let cycles: Vec<&str> = findings
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "fragment_cycle")
            .filter_map(|f| f["path"].as_str())
            .collect();
        match shape {
            // The only edge that closes a cycle is the last one, n(N-1) → n0.
            Shape::Line => assert_eq!(cycles, [format!("/chains/0/dag/edges/{}", n - 1)]),
            Shape::FanOut => assert!(cycles.is_empty(), "{cycles:?}"),
        }

        let out = run(&["expand", &pack, "--chain", "big.chain", "--expansion-id", "x1"]);
        let expanded: Value = serde_json::from_slice(&succeeds(&out).stdout).unwrap();
        assert_eq!(expanded["nodes"].as_array().unwrap().len(), n);
        assert_eq!(expanded["edges"].as_array().unwrap().len(), edges(shape, n).len());
        assert_eq!(expanded["nodes"][n - 1]["id"], format!("big_chain_x1_n{}", n - 1));

        let saved = dir.path().join("out.json");
        let args = ["inline", "--new", "Big", &pack, "--chain", "big.chain", "--expansion-id", "x1", "-o"];
        let mut args: Vec<&str> = args.to_vec();
        args.push(saved.to_str().unwrap());
        succeeds(&run(&args));
        let wf: Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
        let nodes = wf["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), n);
        assert_eq!(wf["edges"].as_array().unwrap().len(), edges(shape, n).len());
        // The layered layout puts each node one column right of its predecessor.
        let x = |i: usize| nodes[i]["position"]["x"].as_f64().unwrap();
        match shape {
            Shape::Line => assert!((1..n).all(|i| x(i) > x(i - 1)), "columns follow the path"),
            Shape::FanOut => assert!((2..n).all(|i| x(i) == x(1) && x(i) > x(0)), "every leaf in column 1"),
        }
    }

    #[test]
    fn a_linear_fragment_of_the_node_limit_validates_expands_and_inlines() {
        through_the_cli(Shape::Line);
    }

    #[test]
    fn a_fan_out_fragment_of_the_node_limit_validates_expands_and_inlines() {
        through_the_cli(Shape::FanOut);
    }
}

/// Each loop that was quadratic, timed at three sizes (2× apart): every doubling must cost
/// less than 3×. Sizes are chosen so the old loops' quadratic term dominates (4× per step)
/// while the linear work stays well under a second per run in a debug build.
mod growth_of {
    use super::*;
    use chainsmith::catalog::{Catalog, HostProfile};
    use chainsmith::expand::token::near_tokens;
    use chainsmith::expand::{ExpandOptions, expand};
    use chainsmith::pack::{LoadOptions, Pack, load_bytes};
    use chainsmith::params::Form;
    use chainsmith::workflow::layout::clear_of;
    use chainsmith::workflow::{SpliceOptions, Workflow, splice};
    use growth::assert_near_linear;
    use serde_json::Map;

    fn chain_pack(nodes: Vec<Value>, edges: Vec<Value>, parameters: Value) -> Value {
        json!({"name": "vendor.bounded.grow", "version": "1.0.0", "kind": "workflow-chain",
            "engines": {"openwop": "*"}, "chains": [{"chainId": "grow.chain", "version": "1.0.0", "label": "Grow",
            "description": "generated", "parameters": parameters, "dag": {"nodes": nodes, "edges": edges}}]})
    }

    fn load(manifest: &Value) -> Pack {
        let bytes = serde_json::to_vec(manifest).unwrap();
        load_bytes(Path::new("grow/pack.json"), &bytes, LoadOptions { skip_schema: true }).unwrap()
    }

    fn expand_all(pack: &Pack) -> chainsmith::expand::Expansion {
        let opts =
            ExpandOptions { expansion_id: Some("g1".into()), host: HostProfile::permissive(), ..Default::default() };
        expand(pack, "grow.chain", Map::new(), &opts).unwrap()
    }

    /// Issue 15: one config string with k `{{params.v}}` tokens, loaded (lints, including
    /// near-token detection) and expanded (substitution, leftover-token check).
    #[test]
    fn tokens_in_one_string() {
        assert_near_linear(
            "tokens in one string",
            16_000,
            |k| {
                let text = "{{params.v}} ".repeat(k);
                let params = json!({"type": "object", "properties": {"v": {"type": "string", "default": "x"}}});
                let node = json!({"id": "a", "typeId": "core.noop", "config": {"text": text}});
                (serde_json::to_vec(&chain_pack(vec![node], vec![], params)).unwrap(), "x ".repeat(k))
            },
            |(bytes, want)| {
                let pack = load_bytes(Path::new("grow/pack.json"), bytes, LoadOptions::default()).unwrap();
                assert_eq!(expand_all(&pack).nodes[0]["config"]["text"].as_str(), Some(want.as_str()));
            },
        );
    }

    /// Issue 16: k unclosed `<<params` — each once searched to the end of the string.
    #[test]
    fn unclosed_near_tokens() {
        assert_near_linear(
            "unclosed <<params",
            60_000,
            |k| "<<params".repeat(k),
            |s| assert_eq!(near_tokens(s).len(), s.len() / 8),
        );
    }

    /// Issue 16: k nodes with k distinct typeIds (the chain's type list and the catalog's
    /// unresolved findings de-duplicated with a linear `contains`).
    #[test]
    fn distinct_type_ids() {
        let catalog = Catalog::new();
        assert_near_linear(
            "distinct typeIds",
            10_000,
            |k| {
                let nodes =
                    (0..k).map(|i| json!({"id": format!("n{i}"), "typeId": format!("vendor.x.t{i}")})).collect();
                load(&chain_pack(nodes, vec![], json!({"type": "object"})))
            },
            |pack| {
                let chain = &pack.chains[0];
                assert_eq!(chain.type_ids().len(), chain.nodes().len());
                assert_eq!(catalog.unresolved_findings(chain).len(), chain.nodes().len());
            },
        );
    }

    /// Issue 16: k parallel b → a loopback edges beside k b → c edges; each loopback was
    /// looked up again through the parallel edges.
    #[test]
    fn parallel_loopback_edges() {
        assert_near_linear(
            "parallel loopback edges",
            4_000,
            |k| {
                let nodes = ["a", "b", "c"].map(|id| json!({"id": id, "typeId": "core.noop"})).to_vec();
                let mut edges = vec![json!({"from": "a", "to": "b"})];
                for _ in 0..k {
                    edges.push(json!({"from": "b", "to": "a"}));
                }
                for _ in 0..k {
                    edges.push(json!({"from": "b", "to": "c"}));
                }
                serde_json::to_vec(&chain_pack(nodes, edges, json!({"type": "object"}))).unwrap()
            },
            |bytes| {
                let pack = load_bytes(Path::new("grow/pack.json"), bytes, LoadOptions { skip_schema: true }).unwrap();
                // The first hundred are listed, and one more finding counts them all.
                let total =
                    pack.findings.iter().find_map(|f| f.details.get("total").filter(|_| f.code == "fragment_cycle"));
                assert_eq!(total.and_then(Value::as_u64), Some((pack.chains[0].edges().len() as u64 - 1) / 2));
            },
        );
    }

    /// Issue 16: splicing between two nodes of a parent with k other edges a chain with k
    /// entry and k exit nodes; each wiring edge id was checked against every edge. Both the
    /// wiring and the edges it is checked against grow.
    #[test]
    fn wiring_many_entry_nodes() {
        assert_near_linear(
            "wiring k entry nodes",
            2_000,
            |k| {
                let nodes = (0..k).map(|i| json!({"id": format!("n{i}"), "typeId": "core.noop"})).collect();
                let exp = expand_all(&load(&chain_pack(nodes, vec![], json!({"type": "object"}))));
                let mut parent_nodes =
                    vec![json!({"id": "a", "typeId": "core.noop"}), json!({"id": "b", "typeId": "core.noop"})];
                let mut parent_edges = vec![json!({"id": "ab", "sourceNodeId": "a", "targetNodeId": "b"})];
                for i in 0..k {
                    parent_nodes.push(json!({"id": format!("c{i}"), "typeId": "core.noop"}));
                    parent_edges
                        .push(json!({"id": format!("bc{i}"), "sourceNodeId": "b", "targetNodeId": format!("c{i}")}));
                }
                let wf = Workflow::from_json(json!({"id": "w", "name": "w", "version": "1",
                    "nodes": parent_nodes, "edges": parent_edges}))
                .unwrap();
                (wf, exp)
            },
            |(wf, exp)| {
                let mut wf = wf.clone();
                let opts = SpliceOptions { between: Some(("a".into(), "b".into())), ..Default::default() };
                let report = splice(&mut wf, exp, &opts).unwrap();
                assert_eq!(report.instance.edge_ids.len(), 2 * exp.nodes.len());
                // a → b replaced; the k edges b → c kept.
                assert_eq!(wf.graph.edge_count(), 3 * exp.nodes.len());
            },
        );
    }

    /// Issue 16: `inline --between a b` replacing k parallel a → b edges (petgraph unlinks
    /// each through the edge lists of both ends) with a chain of k entry and exit nodes, so
    /// the edges removed and the wiring added both grow.
    #[test]
    fn replacing_parallel_edges() {
        assert_near_linear(
            "replacing k parallel edges",
            4_000,
            |k| {
                let nodes = (0..k).map(|i| json!({"id": format!("x{i}"), "typeId": "core.noop"})).collect();
                let exp = expand_all(&load(&chain_pack(nodes, vec![], json!({"type": "object"}))));
                // Parallel a → b edges, each followed by an edge from a elsewhere, so no
                // removal finds its edge at the head of a's list.
                let mut edges = Vec::new();
                for i in 0..k {
                    edges.push(json!({"id": format!("p{i}"), "sourceNodeId": "a", "targetNodeId": "b"}));
                    edges.push(json!({"id": format!("q{i}"), "sourceNodeId": "a", "targetNodeId": "c"}));
                }
                let wf = Workflow::from_json(json!({"id": "w", "name": "w", "version": "1",
                    "nodes": [{"id": "a", "typeId": "core.noop"}, {"id": "b", "typeId": "core.noop"},
                              {"id": "c", "typeId": "core.noop"}],
                    "edges": edges}))
                .unwrap();
                (wf, exp)
            },
            |(wf, exp)| {
                let mut wf = wf.clone();
                let opts = SpliceOptions { between: Some(("a".into(), "b".into())), ..Default::default() };
                let report = splice(&mut wf, exp, &opts).unwrap();
                // The k edges a → b go; the k edges a → c stay beside 2k wiring edges.
                let k = exp.nodes.len();
                assert_eq!((report.removed_edges.len(), wf.graph.edge_count()), (k, 3 * k));
            },
        );
    }

    /// Issue 16: a node type with k declared output ports (schema properties, repeated in
    /// the manifest's `outputs`), checked across k edges: the ports were merged with a
    /// linear `contains` and worked out again for every edge end. Ports and edges both grow.
    #[test]
    fn catalog_ports() {
        assert_near_linear(
            "catalog ports",
            3_000,
            |k| {
                let dir = tempfile::tempdir().unwrap();
                let names: Vec<String> = (0..k).map(|i| format!("p{i}")).collect();
                let props: Map<String, Value> = names.iter().map(|n| (n.clone(), json!({}))).collect();
                let manifest = json!({"name": "vendor.wide.nodes", "version": "1.0.0",
                    "engines": {"openwop": ">=1.0.0"}, "runtime": {"language": "javascript", "entry": "i.js"},
                    "nodes": [{"typeId": "vendor.wide.step", "version": "1.0.0", "category": "data", "role": "pure",
                        "outputSchemaRef": "out.json", "outputs": props}]});
                std::fs::write(dir.path().join("pack.json"), manifest.to_string()).unwrap();
                let output = json!({"type": "object", "properties": props, "additionalProperties": false});
                std::fs::write(dir.path().join("out.json"), output.to_string()).unwrap();
                let nodes = ["a", "b"].map(|id| json!({"id": id, "typeId": "vendor.wide.step"})).to_vec();
                let edges = (0..k).map(|i| json!({"from": format!("a.p{i}"), "to": "b"})).collect();
                let exp = expand_all(&load(&chain_pack(nodes, edges, json!({"type": "object"}))));
                (dir, exp, k)
            },
            |(dir, exp, k)| {
                let catalog = Catalog::load(&[dir.path()]);
                assert_eq!(catalog.ports("vendor.wide.step").map(|p| p.outputs.len()), Some(*k));
                assert_eq!(exp.edges.len(), *k);
                assert!(catalog.check_expansion(exp).is_empty());
            },
        );
    }

    /// Issue 16: `uniqueItems` over pairs of integers past 2^63. jsonschema hashes numbers as
    /// doubles, so all these distinct pairs shared one hash and were compared pairwise.
    #[test]
    fn unique_items_over_large_integers() {
        let validator = chainsmith::schemas::compile(&json!({"uniqueItems": true})).unwrap();
        assert_near_linear(
            "uniqueItems over large integers",
            24_000,
            |k| {
                let base = 1u64 << 63;
                let items: Vec<Value> = (0..k as u64).map(|i| json!([base + i / 1000, base + i % 1000])).collect();
                Value::Array(items)
            },
            |items| assert!(validator.is_valid(items)),
        );
    }

    /// Issue 16: placing a k-node row onto a k-node column (`--at 0,0`): each step of
    /// moving the row down rebuilt a grid and scanned every card.
    #[test]
    fn placement_onto_a_column() {
        assert_near_linear(
            "placement onto a column",
            4_000,
            |k| ((0..k).map(|i| (i as f64 * 310.0, 0.0)).collect::<Vec<_>>(), column(k)),
            |(row, column)| placed_below(row, column),
        );
    }

    /// `k` cards stacked at x = 0, 136 apart.
    fn column(k: usize) -> Vec<(f64, f64)> {
        (0..k).map(|j| (0.0, j as f64 * 136.0)).collect()
    }

    /// Places `group` clear of `column`: its first card lands below the whole column, which
    /// ends at (k-1)·136, a card being 96 high.
    fn placed_below(group: &[(f64, f64)], column: &[(f64, f64)]) {
        let mut group = group.to_vec();
        clear_of(&mut group, column);
        assert!(group[0].1 >= (column.len() - 1) as f64 * 136.0 + 96.0, "{:?}", group[0]);
    }

    /// Issue 16: `tool --format miruntime` on a chain with k writer nodes of distinct types
    /// and artifact types, and k sensitive parameters: each list was de-duplicated with a
    /// linear `contains`.
    #[test]
    fn miruntime_projection() {
        assert_near_linear(
            "miruntime projection",
            1_000,
            |k| {
                let nodes = (0..k)
                    .map(|i| {
                        json!({"id": format!("n{i}"), "typeId": format!("vendor.t.send{i}"),
                        "config": {"artifactType": format!("kind{i}")}})
                    })
                    .collect();
                let props: Map<String, Value> =
                    (0..k).map(|i| (format!("s{i}"), json!({"type": "string", "writeOnly": true}))).collect();
                load(&chain_pack(nodes, vec![], json!({"type": "object", "properties": props})))
            },
            |pack| {
                let opts = chainsmith::tool::ToolOptions::default();
                let p = chainsmith::tool::project_miruntime(pack, &pack.chains[0], &opts);
                let k = pack.chains[0].nodes().len();
                assert_eq!(
                    p.value.pointer("/evidence/sensitiveFields").and_then(Value::as_array).map(Vec::len),
                    Some(k)
                );
                assert_eq!(p.value.pointer("/evidence/artifactTypes").and_then(Value::as_array).map(Vec::len), Some(k));
            },
        );
    }

    /// Issue 16: a parameters form of k properties, all required.
    #[test]
    fn form_of_required_properties() {
        assert_near_linear(
            "form of required properties",
            10_000,
            |k| {
                let names: Vec<String> = (0..k).map(|i| format!("f{i}")).collect();
                let props: Map<String, Value> = names.iter().map(|n| (n.clone(), json!({"type": "string"}))).collect();
                json!({"type": "object", "properties": props, "required": names})
            },
            |schema| assert!(Form::from_schema(schema).fields.iter().all(|f| f.required)),
        );
    }

    /// The editor deletes a selection in one step: every leaf of a k-node fan-out at once.
    /// One by one, petgraph walks the hub's edge list for each.
    #[test]
    fn deleting_the_leaves_of_a_fan_out() {
        assert_near_linear(
            "deleting the leaves of a fan-out",
            5_000,
            |k| {
                let nodes: Vec<Value> = (0..k).map(|i| json!({"id": format!("n{i}"), "typeId": "core.noop"})).collect();
                let edges: Vec<Value> = (1..k)
                    .map(|i| json!({"id": format!("e{i}"), "sourceNodeId": "n0", "targetNodeId": format!("n{i}")}))
                    .collect();
                Workflow::from_json(json!({"id": "w", "name": "w", "version": "1", "nodes": nodes, "edges": edges}))
                    .unwrap()
            },
            |wf| {
                let mut wf = wf.clone();
                let mut leaves: Vec<String> = (1..wf.node_count()).map(|i| format!("n{i}")).collect();
                leaves.sort(); // the editor's selection order
                let ixs: Vec<_> = leaves.iter().map(|id| wf.node(id).unwrap()).collect();
                let (nodes, edges) = wf.remove_all(&ixs, &[]);
                assert_eq!((nodes.len(), edges.len(), wf.node_count()), (leaves.len(), leaves.len(), 1));
            },
        );
    }

    /// Issue 24 item 15: `chain extract --param` with k promotions of k nodes' values. Each
    /// promotion copied the whole fragment and scanned it for its node. The code before the
    /// fix (598ad64^) fails this in about 40 s (doubling ratios 3.7-4.2).
    #[test]
    fn promotions_when_extracting() {
        use chainsmith::author::{ChainInfo, ExtractRequest, PackDraft, PackInfo, Promotion, extract_into};
        assert_near_linear(
            "k promotions in one extraction",
            250,
            |k| {
                let nodes: Vec<Value> = (0..k)
                    .map(|i| json!({"id": format!("n{i}"), "typeId": "core.noop", "config": {"v": format!("value {i}")}}))
                    .collect();
                let wf = Workflow::from_json(json!({"id": "w", "name": "w", "version": "1", "nodes": nodes})).unwrap();
                let params = (0..k).map(|i| Promotion::new(&format!("p{i}"), &format!("n{i}"), "/config/v")).collect();
                let req = ExtractRequest { chain: ChainInfo::new("g.extracted", "Extracted"), nodes: None, params };
                (wf, req)
            },
            |(wf, req)| {
                let mut draft = PackDraft::new(&PackInfo {
                    name: "vendor.bounded.extract".into(),
                    version: "1.0.0".into(),
                    ..Default::default()
                });
                let out = extract_into(&mut draft, wf, req).unwrap();
                let chain = &draft.chains()[out.index];
                assert_eq!(chain["parameters"]["properties"].as_object().unwrap().len(), req.params.len());
            },
        );
    }

    /// A pack of one root chain composing k sibling sub-chains (`fan`), or composing k chains
    /// that each compose one shared leaf (`diamond`).
    fn sub_chain_pack(k: usize, diamond: bool) -> Pack {
        let refs: Vec<String> = (0..k).map(|i| format!("g.c{i}")).collect();
        let chain = |id: &str, nodes: Vec<Value>, subs: &[String]| {
            json!({"chainId": id, "version": "1.0.0", "label": "c", "description": "d",
                "parameters": {"type": "object"}, "subChains": subs.iter().map(|r| json!({"ref": r})).collect::<Vec<_>>(),
                "dag": {"nodes": nodes, "edges": []}})
        };
        let call = |i: usize, r: &str| json!({"id": format!("n{i}"), "typeId": "core.subWorkflow", "config": {"subChainRef": r}});
        let mut chains = vec![chain("g.root", refs.iter().enumerate().map(|(i, r)| call(i, r)).collect(), &refs)];
        let leaf = vec!["g.leaf".to_owned()];
        for r in &refs {
            chains.push(if diamond {
                chain(r, vec![call(0, "g.leaf")], &leaf)
            } else {
                chain(r, vec![json!({"id": "x", "typeId": "core.noop"})], &[])
            });
        }
        chains.push(chain("g.leaf", vec![json!({"id": "x", "typeId": "core.noop"})], &[]));
        let manifest = json!({"name": "vendor.bounded.sub", "version": "1.0.0", "kind": "workflow-chain",
            "engines": {"openwop": "*"}, "chains": chains});
        load(&manifest)
    }

    fn co_expand(pack: &Pack) -> usize {
        use chainsmith::expand::subchain::{DEFAULT_TENANT, TreeOptions, expand_tree};
        let opts = TreeOptions {
            expand: ExpandOptions {
                expansion_id: Some("g1".into()),
                host: HostProfile::permissive(),
                ..Default::default()
            },
            tenant: DEFAULT_TENANT,
            external: &[],
        };
        expand_tree(pack, "g.root", Map::new(), &opts).unwrap().children.len()
    }

    /// Issue 24 item 15: co-expanding k sub-chains looked each up by scanning the pack's chains.
    /// The code before the fix (598ad64^) fails this in about 70 s (doubling ratios 4.2-4.5).
    #[test]
    fn sub_chain_fan_out() {
        assert_near_linear(
            "k sibling sub-chains",
            1_000,
            |k| sub_chain_pack(k, false),
            |pack| {
                assert_eq!(co_expand(pack), pack.chains.len() - 2);
            },
        );
    }

    /// The same with every child composing one shared leaf (registered once). The code before
    /// the fix (598ad64^) fails this in about 160 s (doubling ratios 4.3-5.3).
    #[test]
    fn sub_chain_diamond() {
        assert_near_linear(
            "k sub-chains sharing a leaf",
            1_000,
            |k| sub_chain_pack(k, true),
            |pack| {
                assert_eq!(co_expand(pack), pack.chains.len() - 1);
            },
        );
    }

    /// Issue 24 item 15: a k-node fan-out chain (hub, then a column of leaves) placed at
    /// (0, 0) onto a k-node column: every leaf was asked at each of the k steps the hub takes
    /// down the column, though no leaf shares an x range with the column. From 500 nodes the
    /// code before the fix (598ad64^) fails this in about 100 s (doubling ratios 4.0-4.4);
    /// from 2,000 it ran over 15 minutes before failing.
    #[test]
    fn fan_out_placed_onto_a_column() {
        assert_near_linear(
            "fan-out onto a column",
            500,
            |k| {
                let mut group = vec![(0.0, 0.0)];
                group.extend((1..k).map(|j| (310.0, j as f64 * 136.0)));
                (group, column(k))
            },
            |(group, column)| placed_below(group, column),
        );
    }

    /// A chain dropped across the middle of a k-card grid, its frame covering a row of cards:
    /// the free spot nearest the drop was searched among every pair of card edges (40,000² shifts
    /// for a 20,000-card workflow: 24 GB asked for, and the editor killed), each shift checked
    /// against every card.
    #[test]
    fn a_chain_dropped_into_a_grid() {
        use chainsmith::catalog::Catalog;
        use chainsmith::editor::arrange::clear_drop;
        use chainsmith::editor::cards::card_sizes;
        assert_near_linear(
            "a drop into a grid",
            2_000,
            |k| {
                let card = |id: String, x: usize, y: usize| json!({"id": id, "typeId": "core.noop", "position": {"x": x, "y": y}});
                let mut nodes: Vec<Value> =
                    (0..k).map(|i| card(format!("p{i}"), (i % 100) * 320, (i / 100) * 140)).collect();
                let middle = k / 200 * 140 + 20;
                let chain: Vec<String> = (0..k / 10).map(|j| format!("c{j}")).collect();
                nodes.extend(chain.iter().enumerate().map(|(j, id)| card(id.clone(), j * 320 + 10, middle)));
                let wf = Workflow::from_json(json!({"nodes": nodes, "edges": []})).unwrap();
                let sizes = card_sizes(&wf, &None::<&Catalog>);
                (wf, chain, sizes)
            },
            |(wf, chain, sizes)| {
                let moves = clear_drop(wf, chain, sizes);
                assert_eq!(moves.len(), chain.len(), "the chain moves off the cards it covered");
            },
        );
    }
}

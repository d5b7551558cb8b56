//! The extraction pipeline end to end: inline a chain, extract it back, expand again.

use super::*;
use crate::catalog::HostProfile;
use crate::expand::{ExpandOptions, expand};
use crate::pack::{LoadOptions, Pack, load_bytes};
use crate::workflow::{SpliceOptions, splice};
use serde_json::{Map, json};

fn source_pack() -> Pack {
    let m = json!({"name": "vendor.t.src", "version": "1.0.0", "kind": "workflow-chain", "engines": {"openwop": "*"},
      "chains": [{"chainId": "t.orig", "version": "1.2.0", "label": "Orig", "description": "d",
        "parameters": {"type": "object", "properties": {"topic": {"type": "string", "default": "news"},
                                                        "n": {"type": "integer", "default": 3}}},
        "capabilities": ["side-effectful"],
        "producedVariables": [{"name": "plan", "producedBy": "gen", "type": "object", "description": "the plan"}],
        "compensation": {"triggers": ["node-failure"]},
        "dag": {"nodes": [
            {"id": "gen", "typeId": "core.identity", "name": "Generate", "position": {"x": 0, "y": 0},
             "config": {"t": "About {{params.topic}}", "n": "{{params.n}}"},
             "compensation": {"nodeTypeId": "core.undo", "inputMapping": {"id": "${nodes.gen.output.id}"}}},
            {"id": "use", "typeId": "core.subWorkflow", "config": {"subChainRef": "t.child"},
             "inputs": {"p": {"type": "variable", "variableName": "plan"}}}],
          "edges": [{"from": "gen.out", "to": "use", "condition": {"type": "truthy", "left": "output.ok"},
                     "triggerRule": "none_failed"}]},
        "subChains": [{"ref": "t.child"}]},
       {"chainId": "t.child", "version": "1.0.0", "label": "Child", "description": "c",
        "parameters": {"type": "object"}, "dag": {"nodes": [{"id": "x", "typeId": "core.identity"}]}}]});
    load_bytes(std::path::Path::new("src/pack.json"), m.to_string().as_bytes(), LoadOptions::default()).unwrap()
}

fn opts(id: &str) -> ExpandOptions<'static> {
    ExpandOptions { expansion_id: Some(id.into()), host: HostProfile::permissive(), ..Default::default() }
}

fn inlined() -> Workflow {
    let mut wf = Workflow::from_json(json!({"id": "w", "name": "W", "nodes": [
        {"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}}],
        "edges": []}))
    .unwrap();
    let exp = expand(&source_pack(), "t.orig", Map::new(), &opts("k9")).unwrap();
    splice(&mut wf, &exp, &SpliceOptions { at: Some((300.0, 40.0)), ..Default::default() }).unwrap();
    wf.add_edge(
        json!({"id": "wire", "sourceNodeId": "start", "targetNodeId": "t_orig_k9_gen"}).as_object().unwrap().clone(),
    );
    wf
}

fn target_pack() -> PackDraft {
    PackDraft::new(&PackInfo { name: "vendor.t.made".into(), version: "1.0.0".into(), ..Default::default() })
}

#[test]
fn an_inlined_instance_comes_back_as_its_chain() {
    let wf = inlined();
    let mut draft = target_pack();
    let req = ExtractRequest {
        chain: ChainInfo::new("t.orig", "Again"),
        nodes: Some(vec!["t_orig_k9_use".into(), "t_orig_k9_gen".into()]),
        params: vec![Promotion::new("n", "t_orig_k9_gen", "/config/n")],
    };
    let out = extract_into(&mut draft, &wf, &req).unwrap();
    assert_eq!(out.extraction.instance.as_deref(), Some("t_orig_k9_"));
    assert_eq!(out.placement, Placement::Added);
    let chain = &draft.chains()[0];
    let source = source_pack();
    let src = source.chains[0].raw();
    assert_eq!(chain["producedVariables"], src["producedVariables"]);
    assert_eq!(chain["subChains"], src["subChains"]);
    assert_eq!(chain["compensation"], src["compensation"]);
    assert_eq!(chain["capabilities"], src["capabilities"]);
    assert_eq!(chain["dag"]["edges"], src["dag"]["edges"]);
    assert_eq!(chain["dag"]["nodes"][0]["compensation"], src["dag"]["nodes"][0]["compensation"]);
    assert_eq!(chain["dag"]["nodes"][0]["config"], json!({"t": "About news", "n": "{{params.n}}"}));
    assert_eq!(chain["parameters"]["properties"], json!({"n": {"type": "integer", "default": 3}}));
    let boundary: Vec<Value> = out.extraction.boundary.iter().map(BoundaryEdge::to_json).collect();
    assert_eq!(boundary, [json!({"edgeId": "wire", "direction": "in", "outside": "start", "inside": "gen"})]);
    // The sub-chain it names is not in this pack: the pack says so.
    draft.apply(PackEdit::InsertChain { index: 1, chain: source_pack().chains[1].raw().clone() }).unwrap();
    assert!(draft.errors().next().is_none(), "{:?}", draft.findings());

    // Expanding the extracted chain with its defaults, under the same expansionId, gives
    // back the inlined nodes exactly.
    let saved = crate::fsio::to_pretty_json(&draft.manifest());
    let pack = load_bytes(std::path::Path::new("made/pack.json"), &saved, LoadOptions::default()).unwrap();
    let again = expand(&pack, "t.orig", Map::new(), &opts("k9")).unwrap();
    for node in &again.nodes {
        let id = node["id"].as_str().unwrap();
        let original = &wf.graph[wf.node(id).unwrap()].object();
        for key in ["typeId", "name", "config", "inputs", "compensation", "capabilities"] {
            assert_eq!(node.get(key), original.get(key), "{id} {key}");
        }
    }
    let first = expand(&source_pack(), "t.orig", Map::new(), &opts("k9")).unwrap();
    assert_eq!(again.edges, first.edges);
}

#[test]
fn promoted_values_lose_their_token_like_warning() {
    let wf = Workflow::from_json(json!({"nodes": [{"id": "a.1", "typeId": "core.x",
        "config": {"keep": "{{params.x}}", "lit": "<<params.y>> and more", "n": 2}}]}))
    .unwrap();
    let mut draft = target_pack();
    let req = ExtractRequest {
        chain: ChainInfo::new("t.made", "Made"),
        nodes: None,
        params: vec![Promotion::new("lit", "a.1", "/config/lit")],
    };
    let out = extract_into(&mut draft, &wf, &req).unwrap();
    let warned: Vec<&str> = out
        .extraction
        .warnings
        .iter()
        .filter(|w| w.code == code::TOKEN_LIKE_TEXT)
        .map(|w| w.pointer.as_str())
        .collect();
    assert_eq!(warned, ["/nodes/0/config/keep"]);
    assert_eq!(draft.chains()[0]["dag"]["nodes"][0]["id"], "a_1");
    // The fragment id is accepted too.
    let req = ExtractRequest { params: vec![Promotion::new("n", "a_1", "/config/n")], ..req };
    extract_into(&mut draft, &wf, &req).unwrap();
    let req = ExtractRequest { params: vec![Promotion::new("n", "zz", "/config/n")], ..req };
    let err = extract_into(&mut draft, &wf, &req).unwrap_err();
    assert_eq!((err.code, err.details["nodeId"].as_str()), (code::INVALID_REQUEST, Some("zz")));
}

#[test]
fn replacing_keeps_what_the_workflow_cannot_tell() {
    let wf = Workflow::from_json(json!({"nodes": [{"id": "a", "typeId": "core.x", "config": {"v": 1}}]})).unwrap();
    let mut draft = target_pack();
    let mut first = ChainInfo::new("t.made", "Made");
    first.description = Some("Kept".into());
    first.version = Some("2.1.0".into());
    extract_into(&mut draft, &wf, &ExtractRequest { chain: first, ..Default::default() }).unwrap();
    draft
        .apply(PackEdit::SetChainMember {
            index: 0,
            key: "outputs".into(),
            value: Some(json!({"o": {"type": "string", "description": "d"}})),
        })
        .unwrap();
    draft.apply(PackEdit::SetChainMember { index: 0, key: "internal".into(), value: Some(json!(true)) }).unwrap();
    let out = extract_into(
        &mut draft,
        &wf,
        &ExtractRequest { chain: ChainInfo::new("t.made", "Relabelled"), ..Default::default() },
    )
    .unwrap();
    assert_eq!(out.placement, Placement::Replaced);
    let c = &draft.chains()[0];
    assert_eq!(
        (c["label"].as_str(), c["description"].as_str(), c["version"].as_str()),
        (Some("Relabelled"), Some("Kept"), Some("2.1.0"))
    );
    assert_eq!(c["internal"], true);
    assert_eq!(c["outputs"]["o"]["type"], "string");
    let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["chainId", "version", "label", "description", "internal", "parameters", "dag", "outputs"]);
    draft.apply(out.undo).unwrap();
    assert_eq!(draft.chains()[0]["label"], "Made");
}

#[test]
fn parameter_names_follow_the_token_grammar() {
    for good in ["a", "_", "A_1", "camelCase"] {
        assert!(is_param_name(good), "{good}");
    }
    for bad in ["", "1a", "a-b", "a b", "a.b", "é"] {
        assert!(!is_param_name(bad), "{bad}");
    }
}

#[test]
fn a_selection_beyond_one_instance_keeps_workflow_ids_and_its_producers() {
    let wf = inlined();
    let mut draft = target_pack();
    let nodes = Some(vec!["start".into(), "t_orig_k9_gen".into(), "t_orig_k9_use".into()]);
    let out = extract_into(
        &mut draft,
        &wf,
        &ExtractRequest { chain: ChainInfo::new("t.wider", "Wider"), nodes, params: vec![] },
    )
    .unwrap();
    assert!(out.extraction.instance.is_none());
    let frag: Vec<&str> = out.extraction.ids.iter().map(|(_, f)| f.as_str()).collect();
    assert_eq!(frag, ["start", "t_orig_k9_gen", "t_orig_k9_use"]);
    assert!(out.extraction.boundary.is_empty(), "the wiring edge is inside now");
    let chain = &draft.chains()[0];
    assert_eq!(chain["dag"]["edges"][1], json!({"from": "start", "to": "t_orig_k9_gen"}));
    assert_eq!(chain["producedVariables"][0]["producedBy"], "t_orig_k9_gen");
    assert_eq!(
        chain["dag"]["nodes"][1]["compensation"]["inputMapping"]["id"], "${nodes.t_orig_k9_gen.output.id}",
        "references follow the ids the chain uses"
    );
    assert_eq!(chain["capabilities"], json!(["side-effectful"]));
    assert!(out.extraction.warnings.iter().any(|w| w.code == code::CAPABILITIES_WIDENED), "start has none");
}

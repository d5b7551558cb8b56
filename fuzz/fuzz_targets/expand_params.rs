#![no_main]
//! Arbitrary parameter values against fixed chains: the bundled sample packs plus one chain
//! that puts tokens everywhere substitution reaches. The first byte picks the chain, the
//! rest is the parameter JSON. Each input runs twice: validated (defaults, schema) and as
//! given (the reference contract, no validation), so substitution sees any value at all.

use chainsmith::catalog::HostProfile;
use chainsmith::expand::{ExpandOptions, expand};
use chainsmith::pack::{LoadOptions, Pack, bundled, load_bytes};
use chainsmith::workflow::{ExportMode, SpliceOptions, Workflow, splice};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::path::Path;
use std::sync::LazyLock;

const TOKENS_EVERYWHERE: &str = r#"{
  "name": "vendor.fuzz.tokens", "version": "1.0.0", "kind": "workflow-chain", "engines": {"openwop": "*"},
  "chains": [{
    "chainId": "fuzz.tokens", "version": "1.0.0", "label": "Tokens", "description": "every substitution site",
    "parameters": {"type": "object", "properties": {
      "s": {"type": "string"}, "n": {"type": "number"}, "o": {"type": "object"}, "a": {"type": "array"}}},
    "dag": {
      "nodes": [
        {"id": "a", "typeId": "core.x", "config": {"whole": "{{params.s}}", "embedded": "x{{params.n}}y<<params.o>>",
          "list": ["{{params.a}}", "{{params.missing}}", "{{ params.s }}"], "deep": {"k": {"k": ["<<params.s>>"]}}},
          "inputs": {"in": {"type": "static", "value": "{{params.o}}{{params.a}}"}}},
        {"id": "b", "typeId": "core.y", "compensation": {"nodeTypeId": "core.undo",
          "inputMapping": {"ref": "${nodes.a.output}", "p": "{{params.s}} nodes.a.x"}}}],
      "edges": [{"from": "a.out", "to": "b"}, {"from": "parent.x", "to": "a"}, {"from": "b", "to": "a.retry"}]}}]
}"#;

static CHAINS: LazyLock<Vec<(Pack, String)>> = LazyLock::new(|| {
    let mut packs = bundled().packs;
    packs.push(load_bytes(Path::new("tokens"), TOKENS_EVERYWHERE.as_bytes(), LoadOptions::default()).unwrap());
    packs
        .into_iter()
        .flat_map(|p| {
            let ids: Vec<String> = p.chains.iter().map(|c| c.chain_id().to_owned()).collect();
            ids.into_iter().map(move |id| (p.clone(), id))
        })
        .collect()
});

fuzz_target!(|data: &[u8]| {
    let Some((&pick, json)) = data.split_first() else { return };
    let Ok(Value::Object(params)) = serde_json::from_slice::<Value>(json) else { return };
    let (pack, chain) = &CHAINS[pick as usize % CHAINS.len()];
    for as_given in [false, true] {
        let opts = ExpandOptions {
            expansion_id: Some("f0zz".into()),
            host: HostProfile::permissive(),
            params_as_given: as_given,
            ..Default::default()
        };
        let Ok(exp) = expand(pack, chain, params.clone(), &opts) else { continue };
        let text = serde_json::to_vec(&exp.to_json()).expect("an expansion serialises");
        assert!(serde_json::from_slice::<Value>(&text).is_ok(), "expansion output re-parses");
        let mut wf = Workflow::new("fuzz");
        splice(&mut wf, &exp, &SpliceOptions::default()).expect("a fresh workflow takes any expansion");
        let again = Workflow::from_json(wf.to_json(ExportMode::Faithful)).expect("an export loads back");
        assert_eq!(again.node_count(), exp.nodes.len());
    }
});

//! Replays every conformance vector of the shared corpus through the expander and compares
//! nodes, edges, idMap and settingsCompensation with the reference implementation's output.

use chainsmith_test_env::needs;
mod common;

use chainsmith::catalog::HostProfile;
use chainsmith::expand::{ExpandOptions, expand};
use chainsmith::pack::{LoadOptions, load_file};
use serde_json::Value;

#[needs(corpus)]
#[test]
fn every_vector_matches_the_reference() {
    let corpus = common::corpus_dir();
    let vectors = common::files_under(&corpus.join("vectors"), "json");
    let mut failures = Vec::new();
    for path in &vectors {
        let vector: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let pack_path = corpus.join(vector["pack"].as_str().unwrap());
        let pack = load_file(&pack_path, LoadOptions::default()).unwrap();
        let chain_id = vector["chainId"].as_str().unwrap();
        let opts = ExpandOptions {
            expansion_id: Some(vector["expansionId"].as_str().unwrap().to_owned()),
            // The vectors were produced without host gating.
            host: HostProfile::permissive(),
            // The reference expander takes params as given (its "url-value" is no URI).
            params_as_given: true,
            ..Default::default()
        };
        let params = vector["params"].as_object().cloned().unwrap_or_default();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(expected_error) = vector.get("expectedError") {
            match expand(&pack, chain_id, params, &opts) {
                Err(e) if e.code == expected_error["code"] => {}
                other => failures.push(format!("{name}: expected error {expected_error}, got {other:?}")),
            }
            continue;
        }
        let expected = &vector["expected"];
        match expand(&pack, chain_id, params, &opts) {
            Err(e) => failures.push(format!("{name}: refused: {e}")),
            Ok(got) => {
                let got = got.to_json();
                for key in ["nodes", "edges", "idMap", "settingsCompensation"] {
                    let (g, w) = (got.get(key), expected.get(key));
                    let same = match (g, w) {
                        (Some(g), Some(w)) => common::json_eq(g, w),
                        (None, None) => true,
                        _ => false,
                    };
                    if !same {
                        failures.push(format!(
                            "{name}: {key} differs\n  got:  {}\n  want: {}",
                            g.map(Value::to_string).unwrap_or_default(),
                            w.map(Value::to_string).unwrap_or_default()
                        ));
                    }
                }
                // Member order of nodes is part of being byte-faithful.
                for (g, w) in got["nodes"].as_array().unwrap().iter().zip(expected["nodes"].as_array().unwrap()) {
                    let gk: Vec<_> = g.as_object().unwrap().keys().collect();
                    let wk: Vec<_> = w.as_object().unwrap().keys().collect();
                    if gk != wk {
                        failures.push(format!("{name}: node member order {gk:?} != {wk:?}"));
                    }
                }
            }
        }
    }
    println!("conformance: {}/{} vectors match", vectors.len() - failures.len(), vectors.len());
    assert!(failures.is_empty(), "{} of {} vectors failed:\n{}", failures.len(), vectors.len(), failures.join("\n"));
    assert_eq!(vectors.len(), common::corpus_count("vectors"));
}

#[needs(corpus)]
#[test]
fn every_corpus_chain_pack_validates_against_the_embedded_schema() {
    let corpus = common::corpus_dir();
    let mut chain_packs = 0;
    let mut problems = Vec::new();
    for path in common::files_under(&corpus, "json").iter().filter(|p| p.ends_with("pack.json")) {
        let pack = load_file(path, LoadOptions::default()).unwrap();
        if pack.kind != chainsmith::pack::PackKind::WorkflowChain {
            continue;
        }
        chain_packs += 1;
        for f in pack.errors() {
            problems.push(format!("{}: {f}", pack.name()));
        }
    }
    assert_eq!(chain_packs, common::corpus_count("chainPacks"), "the registry's chain packs + the examples sample");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// chain-packs §15 A5: every real chain, inlined into a new workflow with its vector's
/// parameters (defaults plus a plausible value for every other declared parameter), exports
/// in strict mode as a WorkflowDefinition the embedded schema accepts, every input a
/// PortValue. (scripts/strict-export-check.py checks the CLI's files with Python jsonschema.)
#[needs(corpus)]
#[test]
fn every_corpus_chain_exports_schema_valid_in_strict_mode() {
    use chainsmith::schemas::Schema;
    use chainsmith::workflow::{SpliceOptions, Workflow, splice};
    let corpus = common::corpus_dir();
    let vectors = common::files_under(&corpus.join("vectors"), "json");
    let (mut valid, mut wrapped, mut failures) = (0, 0, Vec::new());
    for path in &vectors {
        let vector: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let pack = load_file(&corpus.join(vector["pack"].as_str().unwrap()), LoadOptions::default()).unwrap();
        let opts = ExpandOptions { host: HostProfile::permissive(), ..Default::default() };
        let params = vector["params"].as_object().cloned().unwrap_or_default();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut wf = Workflow::new("Strict check");
        let exported = expand(&pack, vector["chainId"].as_str().unwrap(), params, &opts)
            .and_then(|exp| splice(&mut wf, &exp, &SpliceOptions::default()))
            .and_then(|_| wf.strict_export());
        let (doc, changes) = match exported {
            Ok(done) => done,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let violations = Schema::WorkflowDefinition.violations(&doc);
        let plain: Vec<String> = doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|n| n["inputs"].as_object().unwrap().iter())
            .filter(|(_, v)| !matches!(v["type"].as_str(), Some("static" | "expression" | "connection" | "variable")))
            .map(|(port, _)| port.clone())
            .collect();
        if violations.is_empty() && plain.is_empty() {
            valid += 1;
        } else {
            failures.push(format!("{name}: {violations:?} plain inputs {plain:?}"));
        }
        wrapped += changes.iter().filter(|f| f.code == chainsmith::error::code::STRICT_INPUT_WRAPPED).count();
    }
    println!("strict export: {valid}/{} schema-valid, {wrapped} plain inputs wrapped", vectors.len());
    assert!(failures.is_empty(), "{} of {}:\n{}", failures.len(), vectors.len(), failures.join("\n"));
    assert_eq!(valid, common::corpus_count("vectors"));
}

//! Every real chain in the shared corpus, projected both ways: each projection must be valid
//! against its bundled seed schema and publishable. Prints the distributions the issue asks for.

use chainsmith_test_env::needs;
mod common;

use common::cli::{envelope, run};

use chainsmith::pack::{LoadOptions, Pack, PackKind, load_file};
use chainsmith::schemas::Schema;
use chainsmith::tool::{SafetyTier, ToolFormat, ToolOptions, project_compact, project_miruntime};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Workflow-chain packs of the corpus: the registry's and the examples'.
fn chain_packs(corpus: &Path) -> Vec<Pack> {
    let mut files = common::files_under(&corpus.join("registry/packs"), "json");
    files.extend(common::files_under(&corpus.join("examples"), "json"));
    files
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "pack.json"))
        .map(|p| load_file(p, LoadOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .filter(|p| p.kind == PackKind::WorkflowChain)
        .collect()
}

#[derive(Default)]
struct Tally {
    chains: usize,
    eligible: usize,
    tiers: BTreeMap<String, usize>,
    permissions: BTreeMap<String, usize>,
    /// Chains that declare a write effect themselves (see `declares_writes`).
    declared_writers: usize,
    failures: Vec<String>,
}

/// A chain that says it writes: `side-effectful` among its capabilities, or a node with a
/// compensation or `irreversibleEffect: true` (the rule scripts/corpus-counts.py counts by).
fn declares_writes(chain: &Value) -> bool {
    let side_effectful = chain["capabilities"].as_array().is_some_and(|c| c.iter().any(|c| c == "side-effectful"));
    let nodes = chain.pointer("/dag/nodes").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    side_effectful || nodes.iter().any(|n| n.get("compensation").is_some() || n["irreversibleEffect"] == true)
}

fn tally(packs: &[Pack], opts: &ToolOptions) -> Tally {
    let mut t = Tally::default();
    for pack in packs {
        for chain in &pack.chains {
            t.chains += 1;
            let label = format!("{} / {}", pack.name(), chain.chain_id());
            let compact = project_compact(pack, chain, opts);
            let contract = project_miruntime(pack, chain, opts);
            for (kind, p) in [("compact", &compact), ("miruntime", &contract)] {
                if !p.violations.is_empty() {
                    t.failures.push(format!("{label} {kind}: violations {:?}", p.violations));
                }
                if let Some(error) = p.findings.iter().find(|f| f.is_error()) {
                    t.failures.push(format!("{label} {kind}: {error}"));
                }
            }
            if compact.value.get("inputSchema").is_some() {
                t.eligible += 1;
            }
            let (tier, permission) =
                (str_at(&compact.value, "/safetyTier"), str_at(&contract.value, "/permissionClass"));
            // Declarations win over guesses (tool/effects.rs): a declared writer is never
            // projected as a reader.
            if declares_writes(chain.raw()) {
                t.declared_writers += 1;
                if tier != "write" || permission == "read-only" {
                    t.failures.push(format!("{label}: declares writes but projects as {tier} / {permission}"));
                }
            }
            *t.tiers.entry(tier).or_default() += 1;
            *t.permissions.entry(permission).or_default() += 1;
        }
    }
    t
}

fn str_at(v: &Value, pointer: &str) -> String {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("<missing>").to_owned()
}

#[needs(corpus)]
#[test]
fn every_corpus_chain_projects_to_valid_documents() {
    let corpus = common::corpus_dir();
    let packs = chain_packs(&corpus);
    let t = tally(&packs, &ToolOptions::default());
    println!(
        "tool projection over {} chains: {} compact-eligible, {} not; safetyTier {:?}; permissionClass {:?}",
        t.chains,
        t.eligible,
        t.chains - t.eligible,
        t.tiers,
        t.permissions
    );
    assert_eq!(t.chains, common::corpus_count("chains"), "167 registry chains + 4 examples");
    assert!(t.failures.is_empty(), "{} failure(s):\n{}", t.failures.len(), t.failures.join("\n"));
    assert_eq!(t.declared_writers, common::corpus_count("declaredWriters"));
}

/// The same, with effects taken from the corpus node packs' `capabilities`, as the node-pack
/// catalog will supply them.
#[needs(corpus)]
#[test]
fn corpus_chains_with_node_pack_effects() {
    let corpus = common::corpus_dir();
    let mut effects: HashMap<String, SafetyTier> = HashMap::new();
    for path in common::files_under(&corpus.join("registry/packs"), "json") {
        if path.file_name().is_none_or(|n| n != "pack.json") {
            continue;
        }
        let pack = load_file(&path, LoadOptions::default()).unwrap();
        for node in pack.node_types() {
            let (Some(type_id), Some(caps)) = (node["typeId"].as_str(), node["capabilities"].as_array()) else {
                continue;
            };
            let writes = caps.iter().any(|c| c == "side-effectful");
            effects.insert(type_id.to_owned(), if writes { SafetyTier::Write } else { SafetyTier::Pure });
        }
    }
    let oracle = |type_id: &str| effects.get(type_id).copied();
    let packs = chain_packs(&corpus);
    let t = tally(&packs, &ToolOptions { effects: Some(&oracle), ..Default::default() });
    println!(
        "with node-pack effects ({} typeIds known): safetyTier {:?}; permissionClass {:?}",
        effects.len(),
        t.tiers,
        t.permissions
    );
    assert!(t.failures.is_empty(), "{}", t.failures.join("\n"));

    // Each chain's tier with the oracle against its tier without: a type the catalog calls a
    // writer makes the chain write; a type it calls pure can only lower the naming guess; a
    // chain of types the catalog does not know keeps its tier.
    let tier = |pack: &Pack, chain, opts: &ToolOptions| {
        let doc = project_compact(pack, chain, opts).value;
        SafetyTier::parse(&str_at(&doc, "/safetyTier")).unwrap()
    };
    let (mut by_types, mut changed, mut problems) = (0, 0, Vec::new());
    for pack in &packs {
        for chain in &pack.chains {
            let label = format!("{} / {}", pack.name(), chain.chain_id());
            let without = tier(pack, chain, &ToolOptions::default());
            let with = tier(pack, chain, &ToolOptions { effects: Some(&oracle), ..Default::default() });
            let types: Vec<Option<SafetyTier>> =
                chain.nodes().iter().map(|n| n["typeId"].as_str().and_then(|id| effects.get(id).copied())).collect();
            changed += usize::from(with != without);
            if types.contains(&Some(SafetyTier::Write)) {
                by_types += 1;
                if with != SafetyTier::Write {
                    problems.push(format!("{label}: a side-effectful node type, yet {with} with the catalog"));
                }
            } else if types.iter().all(Option::is_none) && with != without {
                problems.push(format!("{label}: no type known to the catalog, yet {without} became {with}"));
            } else if with > without {
                problems.push(format!("{label}: only pure types known, yet {without} rose to {with}"));
            }
        }
    }
    println!("{changed} chains change tier with the catalog");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(by_types, common::corpus_count("chainsWithSideEffectfulTypes"));
    // Every corpus chain has a node the corpus catalog does not know (an LLM step, a host
    // type), and an unknown effect counts as a write (issue 34), so the real catalog may
    // change no tier. That the oracle is asked at all shows with one that calls every type
    // pure: chains made only of types it then knows come out below `write`.
    let all_pure = |_: &str| Some(SafetyTier::Pure);
    let lowered = packs
        .iter()
        .flat_map(|pack| pack.chains.iter().map(move |chain| (pack, chain)))
        .filter(|(pack, chain)| {
            tier(pack, chain, &ToolOptions { effects: Some(&all_pure), ..Default::default() })
                < tier(pack, chain, &ToolOptions::default())
        })
        .count();
    assert!(lowered > 0, "an oracle that calls every type pure lowers no chain's tier: the oracle is not asked");
}

/// Each conformance vector's expected expansion, wrapped as a workflow definition, projects too.
#[needs(corpus)]
#[test]
fn expanded_corpus_chains_project_as_workflows() {
    let corpus = common::corpus_dir();
    let mut failures = Vec::new();
    let mut count = 0;
    for path in common::files_under(&corpus.join("vectors"), "json") {
        let vector: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let nodes =
            vector.pointer("/expected/nodes").unwrap_or_else(|| panic!("{}: no expected nodes", path.display()));
        let chain_id = vector["chainId"].as_str().unwrap_or_default();
        let id: String = chain_id.to_ascii_lowercase().chars().map(|c| if c == '.' { '-' } else { c }).collect();
        let workflow = serde_json::json!({"id": id, "name": chain_id, "version": "1.0.0",
            "description": format!("Expanded {chain_id}."), "nodes": nodes, "edges": vector["expected"]["edges"]});
        for format in [ToolFormat::Compact, ToolFormat::MiRuntime] {
            let p = format.project_workflow(&workflow, &ToolOptions::default());
            if !p.is_valid() {
                failures.push(format!("{chain_id} {format:?}: {:?} {:?}", p.violations, p.findings));
            }
        }
        count += 1;
    }
    println!("{count} expanded chains projected as workflows");
    assert_eq!(count, common::corpus_count("vectors"), "every vector is projected");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// The `tool` subcommand: stdout JSON on success, the error envelope as the last stderr line and
// exit 1 when the projection would not validate.

const SUPPORT: &str = "packs/vendor.chainsmith.support-desk/pack.json";

#[test]
fn cli_prints_schema_valid_tool_documents() {
    for (format, schema) in [("compact", Schema::CompactToolDescriptor), ("miruntime", Schema::MiRuntimeToolContract)] {
        let out = run(&["tool", SUPPORT, "--chain", "support.triage", "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(schema.violations(&doc).is_empty(), "{format}: {doc}");
    }
    let out = run(&["tool", SUPPORT, "--chain", "support.triage", "--format", "compact", "--tool-id", "vendor.acme:t"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["toolId"], "vendor.acme:t");
}

#[test]
fn cli_refuses_exec_and_unpublishable_projections_with_an_envelope() {
    let out = run(&["tool", SUPPORT, "--chain", "support.triage", "--format", "compact", "--safety-tier", "exec"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(envelope(&out)["error"], "tool_safety_tier_invalid");
    assert!(out.stdout.is_empty());

    let out = run(&["tool", SUPPORT, "--chain", "support.triage", "--format", "compact", "--tool-id", "no scope"]);
    assert_eq!(out.status.code(), Some(1));
    let env = envelope(&out);
    assert_eq!(env["error"], "tool_projection_invalid");
    assert_eq!(env["details"]["findings"][0]["code"], "tool_id_invalid");
    assert!(out.stdout.is_empty());

    let out = run(&["tool", SUPPORT, "--chain", "nope", "--format", "miruntime"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(envelope(&out)["error"], "chain_not_found");
}

#[test]
fn cli_projects_a_workflow_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wf.json");
    let workflow = serde_json::json!({"id": "nightly-digest", "name": "Nightly digest", "version": "1.0.0",
        "description": "Send the nightly digest.", "nodes": [{"id": "send", "typeId": "x.mail.send"}], "edges": []});
    std::fs::write(&path, workflow.to_string()).unwrap();
    let out = run(&["tool", "--workflow", path.to_str().unwrap(), "--format", "miruntime"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (doc["name"].as_str(), doc["permissionClass"].as_str()),
        (Some("nightly-digest"), Some("reversible-write"))
    );

    // A workflow without a version has no MiRuntime version: refused, not printed.
    std::fs::write(&path, serde_json::json!({"id": "w", "nodes": []}).to_string()).unwrap();
    let out = run(&["tool", "--workflow", path.to_str().unwrap(), "--format", "miruntime"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(envelope(&out)["error"], "tool_projection_invalid");
}

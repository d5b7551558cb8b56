//! Issue 34: chains as tools a host can trust. Effects are never guessed in the unsafe
//! direction, the MiRuntime contract says what the chain does, and the conformance config
//! rules apply everywhere.

use chainsmith_test_env::needs;
mod common;

use chainsmith::error::code;
use chainsmith::pack::{LoadOptions, Pack, PackKind, load_bytes, load_file};
use chainsmith::schemas::Schema;
use chainsmith::tool::{
    EffectOracle, HostTiers, Projection, SafetyTier, ToolOptions, project_compact, project_miruntime,
};
use common::cli::{envelope, ok_json, run, s};
use serde_json::{Value, json};
use std::path::Path;

const PACK: &str = "vendor.acme.ops";

fn manifest(chains: Value) -> Value {
    json!({"name": PACK, "version": "1.0.0", "kind": "workflow-chain", "engines": {"openwop": ">=1"}, "chains": chains})
}

fn pack_of(chains: Value) -> Pack {
    load_bytes(Path::new("mem.json"), manifest(chains).to_string().as_bytes(), LoadOptions::default()).unwrap()
}

fn chain(id: &str, nodes: Value, edges: Value) -> Value {
    json!({"chainId": id, "version": "1.0.0", "label": "L", "description": "D.",
        "parameters": {"type": "object", "properties": {}}, "dag": {"nodes": nodes, "edges": edges}})
}

fn both(pack: &Pack, chain_id: &str, opts: &ToolOptions) -> (Projection, Projection) {
    let chain = pack.chain(chain_id).unwrap();
    (project_compact(pack, chain, opts), project_miruntime(pack, chain, opts))
}

fn codes(p: &Projection) -> Vec<&str> {
    p.findings.iter().map(|f| f.code).collect()
}

fn write(dir: &Path, name: &str, doc: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, doc.to_string()).unwrap();
    s(&path).to_owned()
}

// ---- 1. Sub-chain effects reach the parent --------------------------------------------------

fn purge_pack() -> Pack {
    let mut parent = chain(
        "ops.cleanup",
        json!([{"id": "run", "typeId": "core.subWorkflow", "config": {"subChainRef": "ops.purge"}}]),
        json!([]),
    );
    parent["subChains"] = json!([{"ref": "ops.purge"}]);
    let child = chain(
        "ops.purge",
        json!([{"id": "pick", "typeId": "core.flow.noop"},
               {"id": "wipe", "typeId": "vendor.acme.records.erase", "irreversibleEffect": true}]),
        json!([{"from": "pick", "to": "wipe"}]),
    );
    pack_of(json!([parent, child]))
}

#[test]
fn a_sub_chain_that_deletes_irreversibly_makes_its_parent_an_irreversible_writer() {
    let pack = purge_pack();
    assert!(pack.errors().next().is_none(), "{:?}", pack.findings);
    let (c, m) = both(&pack, "ops.cleanup", &ToolOptions::default());
    assert_eq!(c.value["safetyTier"], "write");
    assert_eq!(m.value["permissionClass"], "irreversible-write");
    assert_eq!(m.value["sideEffects"]["changesExternalState"], true);
    assert_eq!(m.value["sideEffects"]["reversible"], false);
    let description = m.value["sideEffects"]["description"].as_str().unwrap();
    assert!(
        description.contains("sub-chain `ops.purge`") && description.contains("Irreversible: run"),
        "{description}"
    );
    assert!(c.is_valid() && m.is_valid(), "{:?} {:?}", c.findings, m.findings);
}

#[test]
fn a_sub_chain_the_pack_does_not_hold_is_unknown_and_taken_as_a_write() {
    let mut parent = chain(
        "ops.cleanup",
        json!([{"id": "run", "typeId": "core.subWorkflow", "config": {"subChainRef": "ops.elsewhere"}}]),
        json!([]),
    );
    parent["subChains"] =
        json!([{"ref": {"packName": "vendor.other", "chainId": "ops.elsewhere", "version": "1.0.0"}}]);
    let pack = pack_of(json!([parent]));
    let (c, m) = both(&pack, "ops.cleanup", &ToolOptions::default());
    assert_eq!(c.value["safetyTier"], "write");
    assert_eq!(m.value["sideEffects"]["changesExternalState"], true);
    assert!(codes(&m).contains(&code::TOOL_EFFECT_UNKNOWN));
}

// ---- 2. Unknown effects are writes, with a finding; the host assigns tiers ------------------

fn reminder_pack() -> Pack {
    pack_of(reminder_chains())
}

fn reminder_chains() -> Value {
    json!([
        chain(
            "ops.remind",
            json!([
            {"id": "pick", "typeId": "core.flow.noop"},
            {"id": "remind", "typeId": "feature.kicktodo.nodes.remind-today"},
            {"id": "list", "typeId": "feature.crm.nodes.list-deals"}]),
            json!([{"from": "pick", "to": "remind"}, {"from": "remind", "to": "list"}])
        ),
        chain(
            "ops.look",
            json!([
            {"id": "get", "typeId": "core.openwop.http.get", "config": {"url": "https://api.example.com/x"}},
            {"id": "route", "typeId": "core.flow.if"}]),
            json!([{"from": "get", "to": "route"}])
        ),
    ])
}

#[test]
fn unknown_effects_are_writes_and_a_finding_names_the_nodes_and_how_to_declare_them() {
    let pack = reminder_pack();
    let (c, m) = both(&pack, "ops.remind", &ToolOptions::default());
    assert_eq!(c.value["safetyTier"], "write");
    assert_eq!(m.value["sideEffects"]["changesExternalState"], true);
    assert_ne!(m.value["permissionClass"], "read-only");
    for p in [&c, &m] {
        let f = p.findings.iter().find(|f| f.code == code::TOOL_EFFECT_UNKNOWN).expect("an unknown-effect finding");
        assert_eq!(f.details["nodes"], json!(["remind", "list"]));
        assert!(f.message.contains("--catalog") && f.message.contains("--host-tiers"), "{}", f.message);
        assert!(p.is_valid());
    }
    // A known read stays a read.
    let (c, m) = both(&pack, "ops.look", &ToolOptions::default());
    assert_eq!(
        (c.value["safetyTier"].as_str(), m.value["permissionClass"].as_str()),
        (Some("read"), Some("read-only"))
    );
    assert!(!codes(&c).contains(&code::TOOL_EFFECT_UNKNOWN));
}

#[test]
fn a_host_tier_file_assigns_tiers_per_type_and_per_tool() {
    let pack = reminder_pack();
    let tiers = HostTiers::from_json(
        r#"{"typeIds": {"feature.kicktodo.nodes.remind-today": "read", "feature.crm.nodes.list-deals": "read"}}"#,
    )
    .unwrap();
    let opts = ToolOptions { host_tiers: Some(&tiers), ..Default::default() };
    let (c, m) = both(&pack, "ops.remind", &opts);
    assert_eq!(
        (c.value["safetyTier"].as_str(), m.value["permissionClass"].as_str()),
        (Some("read"), Some("read-only"))
    );
    assert!(!codes(&c).contains(&code::TOOL_EFFECT_UNKNOWN));

    // Per toolId, through the CLI; `exec` in the file is refused with its code and pointer.
    let dir = tempfile::tempdir().unwrap();
    let pack_path = write(dir.path(), "pack.json", &manifest(reminder_chains()));
    let tiers = write(dir.path(), "tiers.json", &json!({"toolIds": {"vendor.acme.ops:ops.look": "write"}}));
    let out = run(&["tool", &pack_path, "--chain", "ops.look", "--format", "compact", "--host-tiers", &tiers]);
    assert_eq!(ok_json(&out)["safetyTier"], "write");
    let bad = write(dir.path(), "bad.json", &json!({"typeIds": {"x.y": "exec"}}));
    let out = run(&["tool", &pack_path, "--chain", "ops.look", "--format", "compact", "--host-tiers", &bad]);
    let env = envelope(&out);
    assert_eq!(
        (env["error"].as_str(), env["details"]["path"].as_str()),
        (Some("tool_safety_tier_invalid"), Some("/typeIds/x.y"))
    );
}

// ---- 3. A strict-schema export keeps its effects through provenance -------------------------

#[test]
fn a_strict_schema_export_keeps_the_chains_declared_effects() {
    let dir = tempfile::tempdir().unwrap();
    let mut pay = chain("pay.charge", json!([{"id": "charge", "typeId": "vendor.acme.pay.charge-card"}]), json!([]));
    pay["capabilities"] = json!(["side-effectful"]);
    let pack = write(dir.path(), "pack.json", &manifest(json!([pay])));
    let out_path = dir.path().join("wf.json");
    let out = run(&["inline", "--new", "Pay", &pack, "--chain", "pay.charge", "--strict-schema", "-o", s(&out_path)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let workflow: Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
    assert!(workflow["nodes"][0].get("capabilities").is_none(), "the strict export strips node capabilities");
    // Even when the host calls the card type a read, the chain's declaration wins.
    let tiers = write(dir.path(), "tiers.json", &json!({"typeIds": {"vendor.acme.pay.charge-card": "read"}}));
    let args = ["tool", "--workflow", s(&out_path), "--host-tiers", &tiers, "--format"];
    let compact = ok_json(&run(&[&args[..], &["compact"]].concat()));
    assert_eq!(compact["safetyTier"], "write");
    let contract = ok_json(&run(&[&args[..], &["miruntime"]].concat()));
    assert_eq!(contract["sideEffects"]["changesExternalState"], true);
    assert!(contract["sideEffects"]["description"].as_str().unwrap().contains("side-effectful"));
}

// ---- 4. `tool` refuses what `validate` refuses ----------------------------------------------

#[test]
fn tool_refuses_a_pack_that_validate_refuses() {
    let dir = tempfile::tempdir().unwrap();
    // A subChainRef not declared in subChains[] (sub_chain_unresolved).
    let bad = chain(
        "ops.x",
        json!([{"id": "run", "typeId": "core.subWorkflow", "config": {"subChainRef": "ops.missing"}}]),
        json!([]),
    );
    let pack = write(dir.path(), "pack.json", &manifest(json!([bad])));
    let validated = envelope(&run(&["validate", &pack]));
    for format in ["compact", "miruntime"] {
        let out = run(&["tool", &pack, "--chain", "ops.x", "--format", format]);
        let env = envelope(&out);
        assert_eq!(env["error"], validated["error"], "{env}");
        assert!(out.stdout.is_empty());
    }
}

// ---- 5–7. Timeout, retry, compensation, permission ------------------------------------------

#[test]
fn timeout_is_the_longest_path_with_gates_and_model_steps_counted() {
    let nodes = json!([
        {"id": "draft", "typeId": "core.ai.callPrompt"},
        {"id": "gate", "typeId": "core.chat.approvalGate"},
        {"id": "quick", "typeId": "core.flow.noop", "config": {"timeoutMs": 15000}},
        {"id": "send", "typeId": "vendor.acme.mail.send", "config": {"timeoutMs": 15000}}]);
    let edges =
        json!([{"from": "draft", "to": "gate"}, {"from": "gate", "to": "send"}, {"from": "draft", "to": "quick"}]);
    let pack = pack_of(json!([chain("ops.t", nodes.clone(), edges.clone())]));
    let m = project_miruntime(&pack, &pack.chains[0], &ToolOptions::default());
    // 300 s (model default) + 24 h (gate default) + 15 s; the branch through `quick` is shorter.
    assert_eq!(m.value["execution"]["timeoutSeconds"], 300 + 86_400 + 15);
    // A gate's own timeout is used.
    let mut nodes = nodes;
    nodes[1]["config"] = json!({"timeoutMs": 3_600_000});
    let pack = pack_of(json!([chain("ops.t", nodes, edges)]));
    let m = project_miruntime(&pack, &pack.chains[0], &ToolOptions::default());
    assert_eq!(m.value["execution"]["timeoutSeconds"], 300 + 3600 + 15);
}

#[test]
fn retry_policy_is_forward_only_and_compensation_is_no_tool() {
    let mut c = chain(
        "ops.book",
        json!([
            {"id": "book", "typeId": "vendor.acme.rooms.book", "config": {"retry": {"maxAttempts": 2, "backoffMs": 100}},
             "compensation": {"nodeTypeId": "vendor.acme.rooms.book", "retry": {"maxAttempts": 3}}},
            {"id": "bill", "typeId": "vendor.acme.billing.charge", "irreversibleEffect": true}]),
        json!([{"from": "book", "to": "bill"}]),
    );
    c["compensation"] = json!({"triggers": ["node-failure"], "retry": {"maxAttempts": 3, "backoffMs": 250}});
    let pack = pack_of(json!([c]));
    let m = project_miruntime(&pack, &pack.chains[0], &ToolOptions::default());
    let policy = m.value["execution"]["retryPolicy"].as_str().unwrap();
    assert_eq!(policy, "forward retry: book: up to 2 attempts, 100 ms backoff");
    assert_eq!(m.value["sideEffects"]["compensationTool"], Value::Null);
    assert_eq!(m.value["sideEffects"]["reversible"], false);
    assert_eq!(m.value["permissionClass"], "irreversible-write");
    let description = m.value["sideEffects"]["description"].as_str().unwrap();
    assert!(description.contains("Irreversible: bill (vendor.acme.billing.charge)"), "{description}");

    // Only a compensation retry: no retryPolicy at all.
    let mut c =
        chain("ops.r", json!([{"id": "a", "typeId": "x.a", "compensation": {"nodeTypeId": "x.undo"}}]), json!([]));
    c["compensation"] = json!({"triggers": ["node-failure"], "retry": {"maxAttempts": 3}});
    let pack = pack_of(json!([c]));
    let m = project_miruntime(&pack, &pack.chains[0], &ToolOptions::default());
    assert!(m.value["execution"].get("retryPolicy").is_none(), "{}", m.value["execution"]);
    assert_eq!(m.value["permissionClass"], "reversible-write");
    assert_eq!(m.value["sideEffects"]["reversible"], true);
}

struct FlagsIrreversible;
impl EffectOracle for FlagsIrreversible {
    fn effect_of(&self, type_id: &str) -> Option<SafetyTier> {
        (type_id == "vendor.acme.files.shred").then_some(SafetyTier::Write)
    }
    fn irreversible(&self, type_id: &str) -> bool {
        type_id == "vendor.acme.files.shred"
    }
}

#[test]
fn permission_class_needs_evidence_for_irreversible_and_knows_drafts() {
    let mut plain = chain("p.plain", json!([{"id": "w", "typeId": "vendor.acme.crm.create-task"}]), json!([]));
    plain["capabilities"] = json!(["side-effectful"]);
    let pack = pack_of(json!([
        plain,
        chain("p.draft", json!([{"id": "d", "typeId": "core.email.draft"}]), json!([])),
        chain("p.shred", json!([{"id": "s", "typeId": "vendor.acme.files.shred"}]), json!([])),
    ]));
    assert!(pack.errors().next().is_none(), "{:?}", pack.findings);
    let class = |id: &str, opts: &ToolOptions| {
        let m = project_miruntime(&pack, pack.chain(id).unwrap(), opts);
        m.value["permissionClass"].as_str().unwrap().to_owned()
    };
    assert_eq!(class("p.plain", &ToolOptions::default()), "reversible-write");
    assert_eq!(class("p.draft", &ToolOptions::default()), "draft");
    let catalog = FlagsIrreversible;
    assert_eq!(class("p.shred", &ToolOptions { effects: Some(&catalog), ..Default::default() }), "irreversible-write");
}

// ---- 8. allowedEgress: every host or none --------------------------------------------------

#[test]
fn allowed_egress_lists_every_host_or_is_left_out() {
    let mixed = chain(
        "e.mixed",
        json!([
            {"id": "gh", "typeId": "core.openwop.http.get", "config": {"url": "https://api.github.com/repos"}},
            {"id": "llm", "typeId": "core.ai.chatCompletion"},
            {"id": "tell", "typeId": "feature.notifications.nodes.notify"}]),
        json!([{"from": "gh", "to": "llm"}, {"from": "llm", "to": "tell"}]),
    );
    let fixed = chain(
        "e.fixed",
        json!([
            {"id": "a", "typeId": "core.openwop.http.get", "config": {"url": "https://api.github.com/repos"}},
            {"id": "b", "typeId": "core.openwop.http.fetch", "config": {"url": "https://Status.Example.com/x", "method": "GET"}},
            {"id": "c", "typeId": "core.flow.noop"}]),
        json!([{"from": "a", "to": "b"}, {"from": "b", "to": "c"}]),
    );
    let pack = pack_of(json!([mixed, fixed]));
    let (_, m) = both(&pack, "e.mixed", &ToolOptions::default());
    assert!(m.value.get("authorization").is_none(), "{}", m.value["authorization"]);
    let note =
        m.findings.iter().find(|f| f.details.get("field") == Some(&json!("authorization.allowedEgress"))).unwrap();
    assert!(note.message.contains("llm (core.ai.chatCompletion)") && note.message.contains("tell"), "{}", note.message);
    let (_, m) = both(&pack, "e.fixed", &ToolOptions::default());
    assert_eq!(m.value["authorization"]["allowedEgress"], json!(["api.github.com", "status.example.com"]));
}

// ---- 9. One notion of sensitive ------------------------------------------------------------

#[test]
fn sensitive_fields_scrubbing_and_arguments_agree() {
    let mut c = chain("s.sync", json!([{"id": "n", "typeId": "core.flow.noop"}]), json!([]));
    c["label"] = json!("Sync with key sk-live-abcdefghijklmnop");
    c["description"] = json!("Syncs to https://svc:hunter2hunter2@erp.example.com/api for you.");
    c["parameters"] = json!({"type": "object", "required": ["erpPassword", "company"], "properties": {
        "erpPassword": {"type": "string"},
        "token": {"type": "string"},
        "auth": {"type": "object", "properties": {"clientSecret": {"type": "string"}, "clientId": {"type": "string"}}},
        "company": {"type": "string"}}});
    let pack = pack_of(json!([c]));
    let (compact, contract) = both(&pack, "s.sync", &ToolOptions::default());
    assert_eq!(contract.value["evidence"]["sensitiveFields"], json!(["erpPassword", "token", "auth.clientSecret"]));
    for p in [&compact, &contract] {
        let text = p.value.to_string();
        for secret in ["sk-live-abcdefghijklmnop", "hunter2hunter2"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        let input = &p.value["inputSchema"];
        assert_eq!(input["required"], json!(["company"]));
        assert!(input["properties"].get("erpPassword").is_none() && input["properties"].get("token").is_none());
        assert_eq!(input["properties"]["auth"]["properties"], json!({"clientId": {"type": "string"}}));
        assert!(codes(p).contains(&code::TOOL_SENSITIVE_WITHHELD));
        assert!(p.is_valid(), "{:?}", p.findings);
    }
}

// ---- 10. Versions, sentences, scopes --------------------------------------------------------

#[test]
fn pre_releases_are_refused_not_shown_as_the_release() {
    let mut c = chain("v.rc", json!([{"id": "n", "typeId": "core.flow.noop"}]), json!([]));
    c["version"] = json!("2.1.0-rc.1");
    let pack = pack_of(json!([c]));
    let m = project_miruntime(&pack, &pack.chains[0], &ToolOptions::default());
    let err = m.into_result().unwrap_err();
    assert_eq!(err.code, code::TOOL_PROJECTION_INVALID);
    assert_eq!(err.details["findings"][0]["code"], code::TOOL_FIELD_INVALID);
    assert!(err.details["findings"][0]["message"].as_str().unwrap().contains("pre-release"));
}

#[test]
fn descriptions_are_not_cut_at_abbreviations() {
    let mut c = chain("d.eg", json!([{"id": "n", "typeId": "core.flow.noop"}]), json!([]));
    c["description"] = json!("Route leads by a field, e.g. region or size. Then page the owner.");
    let pack = pack_of(json!([c]));
    let compact = project_compact(&pack, &pack.chains[0], &ToolOptions::default());
    assert_eq!(compact.value["description"], "Route leads by a field, e.g. region or size.");
}

#[test]
fn workflows_do_not_take_the_reserved_openwop_scope() {
    let dir = tempfile::tempdir().unwrap();
    let wf = write(
        dir.path(),
        "wf.json",
        &json!({"id": "nightly", "name": "N", "version": "1.0.0", "description": "N.", "nodes": [], "edges": []}),
    );
    let doc = ok_json(&run(&["tool", "--workflow", &wf, "--format", "compact"]));
    let tool_id = doc["toolId"].as_str().unwrap();
    assert!(!tool_id.starts_with("openwop:"), "{tool_id}");
    let out = run(&["tool", "--workflow", &wf, "--format", "compact", "--tool-id", "openwop:nightly"]);
    assert_eq!(envelope(&out)["details"]["findings"][0]["code"], "tool_id_invalid");
}

// ---- The corpus: no pure / read-only where any node's effect is unknown ---------------------

/// Core types whose effect the specs fix, listed here independently of the implementation.
const KNOWN_PURE: [&str; 14] = [
    "core.flow.noop",
    "core.flow.if",
    "core.flow.router",
    "core.flow.aggregate-numeric",
    "core.flow.aggregate-text",
    "core.flow.aggregate-table",
    "core.fail",
    "core.trigger.event",
    "core.trigger.schedule",
    "core.trigger.webhook",
    "core.trigger.form",
    "core.openwop.http.webhook-verify",
    "core.conformance.mock-agent",
    "core.flow.merge",
];
const KNOWN_HTTP: [&str; 3] = ["core.openwop.http.get", "core.openwop.http.fetch", "core.web.fetch"];

/// Whether anything says what each node does: a declaration on the chain or node, or a Core
/// type the specs define (sub-chain runners count as known only through their child, so
/// they are left unknown here, which only makes the check stricter).
fn every_effect_known(chain: &Value) -> bool {
    let chain_writes = chain["capabilities"].as_array().is_some_and(|c| c.iter().any(|c| c == "side-effectful"));
    let nodes = chain.pointer("/dag/nodes").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    nodes.iter().all(|n| {
        let t = n["typeId"].as_str().unwrap_or_default();
        chain_writes
            || n["capabilities"].as_array().is_some_and(|c| c.iter().any(|c| c == "side-effectful"))
            || n.get("compensation").is_some()
            || n["irreversibleEffect"] == true
            || KNOWN_PURE.contains(&t)
            || KNOWN_HTTP.contains(&t)
    })
}

fn corpus_chain_packs() -> Vec<Pack> {
    let corpus = common::corpus_dir();
    let mut files = common::files_under(&corpus.join("registry/packs"), "json");
    files.extend(common::files_under(&corpus.join("examples"), "json"));
    files
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "pack.json"))
        .map(|p| load_file(p, LoadOptions::default()).unwrap())
        .filter(|p| p.kind == PackKind::WorkflowChain)
        .collect()
}

#[needs(corpus)]
#[test]
fn no_corpus_chain_is_pure_or_read_only_while_a_node_effect_is_unknown() {
    let (mut chains, mut unknown, mut failures) = (0, 0, Vec::new());
    for pack in corpus_chain_packs() {
        for chain in &pack.chains {
            chains += 1;
            let (c, m) = (
                project_compact(&pack, chain, &ToolOptions::default()),
                project_miruntime(&pack, chain, &ToolOptions::default()),
            );
            for (p, schema) in [(&c, Schema::CompactToolDescriptor), (&m, Schema::MiRuntimeToolContract)] {
                if !schema.violations(&p.value).is_empty() || !p.is_valid() {
                    failures.push(format!("{}: {:?} {:?}", chain.chain_id(), p.violations, p.findings));
                }
            }
            if every_effect_known(chain.raw()) {
                continue;
            }
            unknown += 1;
            let (tier, class) = (&c.value["safetyTier"], &m.value["permissionClass"]);
            if tier != "write" || class == "read-only" || m.value["sideEffects"]["changesExternalState"] != true {
                failures.push(format!("{}: a node's effect is unknown, yet {tier} / {class}", chain.chain_id()));
            }
        }
    }
    println!("{chains} chains; {unknown} with a node whose effect nothing states");
    assert_eq!(chains, common::corpus_count("chains"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every projection of every corpus chain, checked by Python's `jsonschema` against the
/// shared schemas: a validator independent of chainsmith's.
#[test]
#[ignore = "needs python3 with the jsonschema package; run with --ignored"]
fn python_jsonschema_accepts_every_corpus_projection() {
    let dir = tempfile::tempdir().unwrap();
    let mut compact = Vec::new();
    let mut contracts = Vec::new();
    for pack in corpus_chain_packs() {
        for chain in &pack.chains {
            compact.push(project_compact(&pack, chain, &ToolOptions::default()).value);
            contracts.push(project_miruntime(&pack, chain, &ToolOptions::default()).value);
        }
    }
    let schemas = common::shared_dir().join("schemas");
    let script = r#"
import json, sys, jsonschema
total = 0
for schema_file, docs_file in zip(sys.argv[1::2], sys.argv[2::2]):
    schema = json.load(open(schema_file))
    cls = jsonschema.validators.validator_for(schema)
    v = cls(schema)
    docs = json.load(open(docs_file))
    bad = [e.message for d in docs for e in v.iter_errors(d)]
    print(schema_file.rsplit('/', 1)[-1], len(docs), "documents,", len(bad), "errors")
    assert not bad, bad[:5]
    total += len(docs)
print("total", total)
"#;
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(schemas.join("compact-tool-descriptor.schema.json"))
        .arg(write(dir.path(), "compact.json", &Value::Array(compact)))
        .arg(schemas.join("miruntime-tool-contract.schema.json"))
        .arg(write(dir.path(), "contracts.json", &Value::Array(contracts)))
        .output()
        .expect("python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("total {}", 2 * common::corpus_count("chains"))), "{stdout}");
}

// ---- 11. The conformance 1.2.0 config rules everywhere --------------------------------------

fn mock_chain(config: Value) -> Value {
    chain("c.mock", json!([{"id": "agent", "typeId": "core.conformance.mock-agent", "config": config}]), json!([]))
}

#[test]
fn bundled_core_schemas_apply_without_a_catalog() {
    let dir = tempfile::tempdir().unwrap();
    // A mock tool call with neither `result` nor `error`, and a confidence out of range.
    let bad = json!({"mockToolCalls": [{"toolId": "a"}], "mockConfidence": 1.5});
    let pack = write(dir.path(), "pack.json", &manifest(json!([mock_chain(bad)])));
    let out = run(&["validate", &pack, "--json"]);
    let findings: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pointers: Vec<&str> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "node_config_invalid")
        .map(|f| f["path"].as_str().or(f["pointer"].as_str()).unwrap_or_default())
        .collect();
    for want in ["/chains/0/dag/nodes/0/config/mockToolCalls/0", "/chains/0/dag/nodes/0/config/mockConfidence"] {
        assert!(pointers.contains(&want), "{want} not in {findings}");
    }
    // expand: warned without --strict, refused with it, with no catalog in either case.
    let out = run(&["expand", &pack, "--chain", "c.mock", "--expansion-id", "t001"]);
    let expanded = ok_json(&out);
    let warned: Vec<&Value> =
        expanded["warnings"].as_array().unwrap().iter().filter(|w| w["code"] == "node_config_invalid").collect();
    assert_eq!(warned.len(), 2, "{}", expanded["warnings"]);
    let out = run(&["expand", &pack, "--chain", "c.mock", "--expansion-id", "t001", "--strict"]);
    assert_eq!(envelope(&out)["error"], "node_config_invalid");
}

#[test]
fn mock_confidence_beside_a_decision_is_schema_valid_even_under_strict() {
    let dir = tempfile::tempdir().unwrap();
    let config = json!({"mockDecision": {"decision": "approve", "confidence": 0.9}, "mockConfidence": 0.4});
    let pack = write(dir.path(), "pack.json", &manifest(json!([mock_chain(config)])));
    let empty = dir.path().join("no-node-packs");
    std::fs::create_dir(&empty).unwrap();
    for extra in [&[][..], &["--catalog", s(&empty)][..]] {
        let args =
            [&["expand", pack.as_str(), "--chain", "c.mock", "--expansion-id", "t001", "--strict"][..], extra].concat();
        let out = run(&args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn host_conformance_gates_refuse_the_mock_agent_and_dispatch_mappings() {
    let dir = tempfile::tempdir().unwrap();
    let dispatch = chain(
        "c.dispatch",
        json!([{"id": "d", "typeId": "core.dispatch", "config": {"workerDispatchModel": "child-run",
            "inputMapping": {"briefId": "briefId"}}}]),
        json!([]),
    );
    let pack = write(dir.path(), "pack.json", &manifest(json!([mock_chain(json!({})), dispatch])));
    let bare = write(dir.path(), "host.json", &json!({"compensation": true}));
    let caps = write(
        dir.path(),
        "caps.json",
        &json!({"protocolVersion": "1.2.0", "compensation": {"supported": true},
            "conformance": {"mockAgent": true}, "agents": {"dispatchMapping": true}}),
    );
    let expand =
        |chain: &str, host: &str| run(&["expand", &pack, "--chain", chain, "--expansion-id", "t001", "--host", host]);
    assert_eq!(envelope(&expand("c.mock", &bare))["error"], "capability_required");
    let e = envelope(&expand("c.dispatch", &bare));
    assert_eq!(
        (e["error"].as_str(), e["details"]["path"].as_str()),
        (Some("validation_error"), Some("/nodes/0/config/inputMapping"))
    );
    assert!(expand("c.mock", &caps).status.success(), "{}", String::from_utf8_lossy(&expand("c.mock", &caps).stderr));
    assert!(expand("c.dispatch", &caps).status.success());
    // Without --host nothing is said about the host, so nothing is gated.
    assert!(run(&["expand", &pack, "--chain", "c.dispatch", "--expansion-id", "t001"]).status.success());
}

// ---- 12. Lockfile overrides resolve the overriding version's own integrity ------------------

fn node_manifest(version: &str) -> Value {
    json!({"name": "vendor.acme.crm", "version": version, "engines": {"openwop": ">=1.0.0"},
        "runtime": {"language": "javascript", "entry": "dist/index.js"},
        "nodes": [{"typeId": "vendor.acme.crm.step", "version": "1.0.0", "category": "data", "role": "pure"}]})
}

fn lock_with_override(dir: &Path, integrity: &str) -> String {
    write(
        dir,
        "pack-lock.json",
        &json!({"lockfileVersion": 1, "generatedAt": "2026-01-01T00:00:00Z",
            "packs": [{"name": "vendor.acme.crm", "version": "1.0.0", "integrity": integrity}],
            "overrides": {"vendor.acme.crm": "1.1.0"}}),
    )
}

#[test]
fn an_override_against_a_registry_tree_is_checked_against_its_own_integrity() {
    let dir = tempfile::tempdir().unwrap();
    let reg = dir.path().join("reg");
    let mut integrity = std::collections::HashMap::new();
    for v in ["1.0.0", "1.1.0"] {
        let folder = dir.path().join(v);
        std::fs::create_dir(&folder).unwrap();
        write(&folder, "pack.json", &node_manifest(v));
        let published = ok_json(&run(&["pack", "publish", s(&folder), "--registry", s(&reg)]));
        integrity.insert(v, published["integrity"].as_str().unwrap().to_owned());
    }
    let lock = lock_with_override(dir.path(), &integrity["1.0.0"]);
    let resolved = ok_json(&run(&["resolve", &lock, "--registry", s(&reg)]));
    let crm = &resolved["packs"][0];
    assert_eq!((crm["version"].as_str(), crm["lockedVersion"].as_str()), (Some("1.1.0"), Some("1.0.0")));
    assert_eq!(crm["integrity"].as_str(), Some(integrity["1.1.0"].as_str()));
    assert_eq!(crm["integrityVerified"], true);
}

#[test]
fn an_override_from_plain_folders_does_not_carry_the_locked_hash() {
    let dir = tempfile::tempdir().unwrap();
    let reg = dir.path().join("folders");
    for v in ["1.0.0", "1.1.0"] {
        let folder = reg.join("vendor.acme.crm").join(v);
        std::fs::create_dir_all(&folder).unwrap();
        write(&folder, "pack.json", &node_manifest(v));
    }
    let locked_hash = format!("sha256-{}=", "A".repeat(43));
    let lock = lock_with_override(dir.path(), &locked_hash);
    let resolved = ok_json(&run(&["resolve", &lock, "--registry", s(&reg)]));
    let crm = &resolved["packs"][0];
    assert_eq!(crm["version"], "1.1.0");
    assert!(!resolved.to_string().contains(&locked_hash), "{resolved}");
}

// ---- 13. A node pack with a mistyped kind is refused as such --------------------------------

#[test]
fn a_catalog_node_pack_with_kind_nodes_is_refused_with_pack_kind_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    std::fs::create_dir(&catalog).unwrap();
    let mut typo = node_manifest("1.0.0");
    typo["kind"] = json!("nodes");
    write(&catalog, "pack.json", &typo);
    let uses = chain("c.uses", json!([{"id": "n", "typeId": "vendor.acme.crm.step"}]), json!([]));
    let pack = write(dir.path(), "pack.json", &manifest(json!([uses])));
    for args in [
        vec!["validate", pack.as_str(), "--catalog", s(&catalog)],
        vec!["expand", pack.as_str(), "--chain", "c.uses", "--catalog", s(&catalog)],
        vec!["tool", pack.as_str(), "--chain", "c.uses", "--format", "compact", "--catalog", s(&catalog)],
    ] {
        let e = envelope(&run(&args));
        assert_eq!(e["error"], "pack_kind_invalid", "{args:?}: {e}");
        assert!(e["message"].as_str().unwrap().contains("\"nodes\""), "{e}");
    }
}

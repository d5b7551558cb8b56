//! End-to-end projections of small invented chains and workflows.

use super::*;
use crate::error::Severity;
use crate::pack::{LoadOptions, load_bytes};
use serde_json::json;

const PACK: &str = "vendor.acme.tiles";

fn pack_with(chain: Value) -> Pack {
    let manifest = json!({"name": PACK, "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1"}, "chains": [chain]});
    load_bytes(std::path::Path::new("mem.json"), manifest.to_string().as_bytes(), LoadOptions::default()).unwrap()
}

fn triage_chain() -> Value {
    json!({
        "chainId": "vendor.acme.tiles.triage",
        "version": "1.2.0+build.7",
        "label": "Triage queue",
        "description": "Classify a queue and page on urgent items. Pages go to the on-call room.",
        "parameters": {"type": "object", "required": ["queueName"], "properties": {
            "queueName": {"type": "string"},
            "pagerKey": {"type": "string", "x-openwop-sensitive": true, "default": "pk-not-for-models"},
            "labels": {"type": "array", "items": {"type": "string"}}}},
        "outputs": {"summary": {"type": "string", "description": "What happened."},
                    "count": {"type": "number", "description": "How many."}},
        "capabilities": ["side-effectful"],
        "dag": {
            "nodes": [
                {"id": "sort", "typeId": "core.ai.callPrompt", "config": {"timeoutMs": 1500, "apiKey": "sk-live-abcdefghijklmnop"}},
                {"id": "fetch", "typeId": "core.openwop.http.get",
                 "config": {"url": "https://api.example.com/q/{{params.queueName}}", "timeoutMs": 30000}},
                {"id": "gate", "typeId": "core.chat.approvalGate", "config": {"artifactType": "triage-report"}},
                {"id": "page", "typeId": "vendor.acme.pager.send",
                 "compensation": {"nodeTypeId": "vendor.acme.pager.retract", "retry": {"maxAttempts": 3, "backoffMs": 250}}}
            ],
            "edges": [{"from": "sort", "to": "fetch"}, {"from": "fetch", "to": "gate"}, {"from": "gate", "to": "page"}]
        }
    })
}

fn codes(p: &Projection) -> Vec<&str> {
    p.findings.iter().map(|f| f.code).collect()
}

#[test]
fn compact_descriptor_of_an_eligible_chain() {
    let pack = pack_with(triage_chain());
    let p = project_compact(&pack, &pack.chains[0], &ToolOptions::default());
    assert!(p.is_valid(), "{:?} {:?}", p.violations, p.findings);
    assert_eq!(p.value["toolId"], "vendor.acme.tiles:triage");
    assert_eq!(p.value["source"], "workflow");
    assert_eq!(p.value["safetyTier"], "write");
    assert_eq!(p.value["title"], "Triage queue");
    assert_eq!(p.value["description"], "Classify a queue and page on urgent items.");
    assert_eq!(p.value["inputSchema"]["required"], json!(["queueName"]));
    // The sensitive parameter is the host's to supply, not the model's.
    assert!(p.value["inputSchema"]["properties"].get("pagerKey").is_none());
    assert!(codes(&p).contains(&code::TOOL_SENSITIVE_WITHHELD));
    let keys: Vec<&String> = p.value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["toolId", "source", "safetyTier", "title", "description", "inputSchema"]);
}

#[test]
fn ineligible_parameters_omit_input_schema_and_point_at_every_offender() {
    let mut chain = triage_chain();
    chain["parameters"]["properties"]["labels"]["items"] = json!({"oneOf": [{"type": "string"}, {"type": "number"}]});
    chain["parameters"]["$defs"] = json!({"x": {"not": {"type": "null"}}});
    chain["parameters"]["properties"]["not"] = json!({"type": "string", "default": {"$ref": "#/x"}});
    let pack = pack_with(chain);
    let p = project_compact(&pack, &pack.chains[0], &ToolOptions::default());
    assert!(p.is_valid(), "omitting inputSchema keeps the descriptor publishable");
    assert!(p.value.get("inputSchema").is_none());
    let mut pointers: Vec<&str> = p
        .findings
        .iter()
        .filter(|f| f.code == code::TOOL_INPUT_SCHEMA_NOT_COMPACT)
        .map(|f| f.pointer.as_str())
        .collect();
    pointers.sort_unstable();
    assert_eq!(pointers, ["/chains/0/parameters/$defs/x/not", "/chains/0/parameters/properties/labels/items/oneOf"]);
    assert!(p.findings.iter().all(|f| f.chain_id.as_deref() == Some("vendor.acme.tiles.triage")));
}

#[test]
fn overrides_tool_id_and_tier() {
    let pack = pack_with(triage_chain());
    let chain = &pack.chains[0];
    let opts =
        ToolOptions { tool_id: Some("vendor.acme:triage"), safety_tier: Some(SafetyTier::Read), ..Default::default() };
    let p = project_compact(&pack, chain, &opts);
    assert_eq!(
        (p.value["toolId"].as_str(), p.value["safetyTier"].as_str()),
        (Some("vendor.acme:triage"), Some("read"))
    );
    let downgrade = p.findings.iter().find(|f| f.details.get("field") == Some(&json!("safetyTier"))).unwrap();
    assert_eq!(downgrade.severity, Severity::Warning);
    assert!(p.is_valid());

    let bad = ToolOptions { tool_id: Some("no scope here"), ..Default::default() };
    let p = project_compact(&pack, chain, &bad);
    assert!(!p.is_valid());
    let err = p.into_result().unwrap_err();
    assert_eq!(err.code, code::TOOL_PROJECTION_INVALID);
    assert_eq!(err.details["findings"][0]["code"], code::TOOL_ID_INVALID);
    assert!(crate::schemas::Schema::ErrorEnvelope.violations(&err.envelope()).is_empty());

    assert_eq!(SafetyTier::parse("exec").unwrap_err().code, code::TOOL_SAFETY_TIER_INVALID);
}

#[test]
fn miruntime_contract_of_a_chain() {
    let pack = pack_with(triage_chain());
    let p = project_miruntime(&pack, &pack.chains[0], &ToolOptions::default());
    assert!(p.is_valid(), "{:?} {:?}", p.violations, p.findings);
    let v = &p.value;
    assert_eq!(v["name"], "vendor.acme.tiles.triage");
    assert_eq!(v["version"], "1.2.0");
    let note = p.findings.iter().find(|f| f.pointer == "/chains/0/version").unwrap();
    assert!(note.message.contains("+build.7") && note.severity == Severity::Warning);
    // Every node inherits side-effectful; only `page` has an inverse; none is irreversible.
    assert_eq!(v["permissionClass"], "reversible-write");
    assert_eq!(v["sideEffects"]["changesExternalState"], true);
    assert_eq!(v["sideEffects"]["reversible"], false);
    assert_eq!(v["sideEffects"]["compensationTool"], Value::Null);
    let description = v["sideEffects"]["description"].as_str().unwrap();
    assert!(description.contains("sort (core.ai.callPrompt)") && description.contains("page (vendor.acme.pager.send)"));
    assert_eq!(
        v["outputSchema"],
        json!({"type": "object", "properties": {
            "summary": {"type": "string", "description": "What happened."},
            "count": {"type": "number", "description": "How many."}}})
    );
    // 1.5 s + 30 s + the gate's 24 h default + the pager's 60 s default, rounded up.
    assert_eq!(v["execution"]["timeoutSeconds"], 86_492);
    assert_eq!(v["execution"]["idempotency"], "required");
    assert_eq!(v["execution"]["isolation"], "external-service");
    assert!(v["execution"].get("retryPolicy").is_none(), "the compensation retry is not the tool's");
    assert_eq!(v["execution"]["checkpointBeforeExecution"], true);
    assert_eq!(
        v["evidence"]["requiredEvents"],
        json!(["node.started", "node.completed", "node.failed", "node.suspended", "interrupt.resolved"])
    );
    assert_eq!(v["evidence"]["sensitiveFields"], json!(["pagerKey"]));
    assert_eq!(v["evidence"]["artifactTypes"], json!(["triage-report"]));
    // The model step and the pager reach hosts the pack does not name.
    assert!(v.get("authorization").is_none());
    assert!(v["inputSchema"]["properties"].get("pagerKey").is_none());
}

#[test]
fn no_credential_material_reaches_either_output() {
    let mut chain = triage_chain();
    chain["dag"]["nodes"][1]["config"]["url"] = json!("https://bot:hunter2hunter2@api.example.com/q");
    chain["parameters"]["properties"]["token"] = json!({"type": "string", "default": "plain-looking-value"});
    chain["parameters"]["properties"]["mode"] = json!({"type": "string", "const": "xoxb-1234567890-abcdef"});
    let pack = pack_with(chain);
    for p in [
        project_compact(&pack, &pack.chains[0], &ToolOptions::default()),
        project_miruntime(&pack, &pack.chains[0], &ToolOptions::default()),
    ] {
        let text = p.value.to_string();
        for secret in ["sk-live-abcdefghijklmnop", "hunter2", "pk-not-for-models", "plain-looking-value", "xoxb-"] {
            assert!(!text.contains(secret), "{secret} leaked into {text}");
        }
    }
}

#[test]
fn reversible_read_and_pure_chains() {
    let reversible = json!({"chainId": "c.reserve", "version": "1.0.0", "label": "Reserve", "description": "Reserve.",
        "parameters": {"type": "object", "properties": {}},
        "dag": {"nodes": [
            {"id": "r", "typeId": "x.reserve-slot", "compensation": {"nodeTypeId": "x.release-slot"}},
            {"id": "s", "typeId": "core.web.search"}], "edges": [{"from": "r", "to": "s"}]}});
    let pack = pack_with(reversible);
    let m = project_miruntime(&pack, &pack.chains[0], &ToolOptions::default());
    assert_eq!(m.value["permissionClass"], "reversible-write");
    // The search's effect is unknown: an uncompensated write.
    assert_eq!(m.value["sideEffects"]["reversible"], false);
    assert_eq!(m.value["execution"]["timeoutSeconds"], 120, "two steps at the 60 s default");
    assert_eq!(m.value["execution"]["checkpointBeforeExecution"], false);
    assert!(m.value.get("authorization").is_none());

    let read = json!({"chainId": "c.look", "version": "1.0.0", "label": "Look", "description": "Look.",
        "parameters": {"type": "object", "properties": {"url": {"type": "string"}}},
        "capabilities": ["cacheable"],
        "dag": {"nodes": [{"id": "f", "typeId": "core.openwop.http.fetch", "config": {"url": "{{params.url}}"}},
                          {"id": "a", "typeId": "core.flow.noop"}],
                "edges": [{"from": "f", "to": "a"}]}});
    let pack = pack_with(read);
    let c = project_compact(&pack, &pack.chains[0], &ToolOptions::default());
    assert_eq!(c.value["safetyTier"], "read");
    let m = project_miruntime(&pack, &pack.chains[0], &ToolOptions::default());
    assert_eq!(m.value["permissionClass"], "read-only");
    assert_eq!(m.value["execution"]["idempotency"], "supported");
    assert_eq!(
        m.value["sideEffects"],
        json!({"changesExternalState": false,
        "description": "No node changes external state.", "compensationTool": null})
    );
    // The fetch target is a parameter: no allowlist, and a note saying why.
    assert!(m.value.get("authorization").is_none());
    let note = m.findings.iter().find(|f| f.code == code::TOOL_FIELD_NOT_DERIVABLE).unwrap();
    assert_eq!(note.pointer, "/chains/0/dag/nodes/0/config/url");

    // With a catalog that says the noop writes, the same chain is a writer.
    let catalog = |t: &str| (t == "core.flow.noop").then_some(SafetyTier::Write);
    let opts = ToolOptions { effects: Some(&catalog), ..Default::default() };
    assert_eq!(project_compact(&pack, &pack.chains[0], &opts).value["safetyTier"], "write");
    assert_eq!(project_miruntime(&pack, &pack.chains[0], &opts).value["permissionClass"], "reversible-write");
}

#[test]
fn camel_case_chain_ids_are_sanitised_with_a_note() {
    let chain = json!({"chainId": "crm.routeNewLead", "version": "1.0.0", "label": "R", "description": "",
        "parameters": {"type": "object", "properties": {}}, "dag": {"nodes": [{"id": "n", "typeId": "core.flow.noop"}]}});
    let pack = pack_with(chain);
    let m = project_miruntime(&pack, &pack.chains[0], &ToolOptions::default());
    assert!(m.is_valid(), "{:?}", m.violations);
    assert_eq!(m.value["name"], "crm.routenewlead");
    assert_eq!(m.value["description"], "R", "an empty description falls back to the label");
    let warnings = m.findings.iter().filter(|f| f.severity == Severity::Warning);
    let fields: Vec<&Value> = warnings.filter_map(|f| f.details.get("field")).collect();
    assert_eq!(fields, [&json!("name"), &json!("description")]);
    let c = project_compact(&pack, &pack.chains[0], &ToolOptions::default());
    assert_eq!(c.value["safetyTier"], "pure");
    assert!(c.value.get("description").is_none());
}

#[test]
fn long_descriptions_are_bounded() {
    let long = format!("{} and more.", "Ünïcode words ".repeat(400));
    let chain = json!({"chainId": "c.long", "version": "1.0.0", "label": "L", "description": long,
        "parameters": {"type": "object", "properties": {}}, "dag": {"nodes": [{"id": "n", "typeId": "core.flow.noop"}]}});
    let pack = pack_with(chain);
    let c = project_compact(&pack, &pack.chains[0], &ToolOptions::default());
    assert!(c.value["description"].as_str().unwrap().chars().count() <= 200);
    let m = project_miruntime(&pack, &pack.chains[0], &ToolOptions::default());
    let kept = m.value["description"].as_str().unwrap().chars().count();
    assert!((1900..=2000).contains(&kept), "{kept}");
    assert!(c.is_valid() && m.is_valid());
}

#[test]
fn compensation_retries_are_no_retry_policy() {
    let chain = json!({"chainId": "c.two", "version": "1.0.0", "label": "T", "description": "T.",
        "parameters": {"type": "object", "properties": {}},
        "dag": {"nodes": [
            {"id": "a", "typeId": "x.a", "compensation": {"nodeTypeId": "x.undo-a", "retry": {"maxAttempts": 2}}},
            {"id": "b", "typeId": "x.b", "compensation": {"nodeTypeId": "x.undo-b", "retry": {"maxAttempts": 5}}}],
            "edges": [{"from": "a", "to": "b"}]}});
    let pack = pack_with(chain);
    let m = project_miruntime(&pack, &pack.chains[0], &ToolOptions::default());
    assert!(m.value["execution"].get("retryPolicy").is_none());
    assert_eq!(m.value["sideEffects"]["compensationTool"], Value::Null);
    assert_eq!(m.value["sideEffects"]["reversible"], true);
}

fn workflow() -> Value {
    json!({
        "id": "invoice-intake",
        "name": "Invoice intake",
        "description": "Extract and file an invoice.\nSecond line.",
        "version": "3.1",
        "nodes": [
            {"id": "get", "typeId": "core.openwop.http.fetch", "config": {"url": "https://files.example.org/in", "method": "GET"},
             "capabilities": ["cacheable"]},
            {"id": "file", "typeId": "x.erp.file-invoice", "capabilities": ["side-effectful", "cacheable"],
             "compensation": {"nodeTypeId": "x.erp.unfile", "requiresApproval": true}}
        ],
        "edges": [],
        "variables": [{"name": "pdfUrl", "type": "string", "format": "uri", "required": true},
                      {"name": "erpToken", "type": "string", "sensitive": true}],
        "settings": {"timeout": 90500}
    })
}

#[test]
fn workflow_projections() {
    let wf = workflow();
    let c = project_workflow_compact(&wf, &ToolOptions::default());
    assert!(c.is_valid(), "{:?} {:?}", c.violations, c.findings);
    assert_eq!(c.value["toolId"], "workflow:invoice-intake");
    assert_eq!(c.value["title"], "Invoice intake");
    assert_eq!(c.value["description"], "Extract and file an invoice.");
    assert_eq!(c.value["safetyTier"], "write");
    assert_eq!(c.value["inputSchema"]["required"], json!(["pdfUrl"]));

    let m = project_workflow_miruntime(&wf, &ToolOptions::default());
    assert!(m.is_valid(), "{:?} {:?}", m.violations, m.findings);
    assert_eq!(m.value["name"], "invoice-intake");
    assert_eq!(m.value["version"], "3.1.0");
    assert_eq!(m.value["permissionClass"], "reversible-write");
    assert_eq!(m.value["execution"]["timeoutSeconds"], 91, "settings.timeout bounds a workflow run");
    assert_eq!(m.value["execution"]["checkpointBeforeExecution"], true);
    assert_eq!(m.value["evidence"]["sensitiveFields"], json!(["erpToken"]));
    // `file` reaches an ERP whose host the workflow does not name: no partial allow-list.
    assert!(m.value.get("authorization").is_none());
    assert_eq!(m.value["outputSchema"], json!({"type": "object", "properties": {}}));
}

#[test]
fn findings_name_nodes_by_their_names_with_id_and_type_after() {
    let mut wf = workflow();
    wf["nodes"][1]["name"] = json!("File invoice");
    let m = project_workflow_miruntime(&wf, &ToolOptions::default());
    let egress = m.findings.iter().find(|f| f.details.get("field") == Some(&json!("authorization.allowedEgress")));
    let message = &egress.expect("allowedEgress is not derivable").message;
    assert!(
        message.contains("(File invoice (file, x.erp.file-invoice) may reach hosts the workflow does not name)"),
        "{message}"
    );
    // A node without a name goes by its id.
    let opts = ToolOptions { safety_tier: Some(SafetyTier::Read), ..Default::default() };
    let c = project_workflow_compact(&wf, &opts);
    let lowered = c.findings.iter().find(|f| f.details.get("field") == Some(&json!("safetyTier"))).unwrap();
    assert!(
        lowered.message.starts_with("safetyTier overridden to `read` although File invoice (file) is `write`"),
        "{}",
        lowered.message
    );
}

#[test]
fn workflow_configurable_schema_is_checked_for_the_compact_subset() {
    let mut wf = workflow();
    wf["configurableSchema"] = json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}});
    let c = project_workflow_compact(&wf, &ToolOptions::default());
    assert!(c.value.get("inputSchema").is_none());
    let f = c.findings.iter().find(|f| f.code == code::TOOL_INPUT_SCHEMA_NOT_COMPACT).unwrap();
    assert_eq!(f.pointer, "/configurableSchema/properties/a/anyOf");
    assert_eq!(f.chain_id, None);
}

#[test]
fn contract_errors_say_what_to_write() {
    let wf = json!({"id": "", "version": "latest", "configurableSchema": "nope", "nodes": []});
    let m = project_workflow_miruntime(&wf, &ToolOptions::default());
    let message = |field: &str| {
        let f = m.findings.iter().find(|f| f.is_error() && f.details.get("field") == Some(&json!(field)));
        f.map(|f| f.message.clone()).unwrap_or_else(|| panic!("no error about {field}: {:?}", m.findings))
    };
    assert!(message("name").ends_with("give the workflow an `id` that starts with a letter"), "{}", message("name"));
    assert!(message("version").ends_with("write it as one, such as 1.0.0"), "{}", message("version"));
    assert!(message("description").ends_with("add a description (a label or title would also do)"));
    assert!(message("inputSchema").contains("write it as a JSON object schema"), "{}", message("inputSchema"));
}

#[test]
fn garbage_workflows_are_reported_not_panicked_on() {
    for wf in [
        json!(null),
        json!("text"),
        json!({}),
        json!({"id": "", "version": "latest", "nodes": [null, 1, {"typeId": 5, "config": []}]}),
        json!({"id": "ok", "version": "1.0.0", "configurableSchema": "nope", "settings": {"timeout": 1e300}}),
    ] {
        let c = project_workflow_compact(&wf, &ToolOptions::default());
        let m = project_workflow_miruntime(&wf, &ToolOptions::default());
        assert!(!m.is_valid(), "{wf}: {:?}", m.value);
        let err = m.into_result().unwrap_err();
        assert_eq!(err.code, code::TOOL_PROJECTION_INVALID);
        // The compact form of a nameless workflow has an invalid toolId (`workflow:`).
        if wf.get("id").and_then(Value::as_str).is_none_or(str::is_empty) {
            assert!(!c.is_valid());
        }
    }
    let huge = project_workflow_miruntime(
        &json!({"id": "ok", "version": "1.0.0", "description": "d", "configurableSchema": {"type": "object"},
                "settings": {"timeout": 1e300}}),
        &ToolOptions::default(),
    );
    assert!(huge.is_valid(), "{:?}", huge.violations);
    assert_eq!(huge.value["execution"]["timeoutSeconds"], u64::MAX);
}

#[test]
fn tool_format_dispatches() {
    let pack = pack_with(triage_chain());
    let opts = ToolOptions::default();
    assert_eq!(ToolFormat::Compact.project_chain(&pack, &pack.chains[0], &opts).value["source"], "workflow");
    assert_eq!(ToolFormat::MiRuntime.project_workflow(&workflow(), &opts).value["name"], "invoice-intake");
}

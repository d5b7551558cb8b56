//! Config schemas chainsmith bundles for reserved Core typeIds, plus the rules those
//! schemas state only in their descriptions.

use super::HostProfile;
use crate::error::{Finding, code};
use crate::expand::Expansion;
use crate::schemas::{Schema, Violation};
use serde_json::Value;

pub(crate) const DISPATCH: &str = "core.dispatch";
pub(crate) const MOCK_AGENT: &str = "core.conformance.mock-agent";

/// The embedded config schema for a bundled typeId.
pub(crate) fn config_schema(type_id: &str) -> Option<Schema> {
    match type_id {
        DISPATCH => Some(Schema::DispatchConfig),
        MOCK_AGENT => Some(Schema::MockAgentConfig),
        _ => None,
    }
}

/// Adjust schema violations with the prose rules of the bundled schemas. Other typeIds
/// pass through unchanged.
pub(crate) fn refine(type_id: &str, config: &Value, mut violations: Vec<Violation>) -> Vec<Violation> {
    match type_id {
        DISPATCH => {
            // "Hosts MAY add vendor-extension dispatch models under `vendor.<host>.<model>`";
            // the schema's enum lists only `child-run`, so such a value is not a violation.
            let vendor_model = config.get("workerDispatchModel").and_then(Value::as_str).is_some_and(is_vendor_model);
            if vendor_model {
                violations.retain(|v| !(v.pointer == "/workerDispatchModel" && v.keyword == "enum"));
            }
        }
        MOCK_AGENT => mock_agent_rules(config, &mut violations),
        _ => {}
    }
    violations
}

fn is_vendor_model(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() >= 3
        && parts[0] == "vendor"
        && parts.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
}

fn mock_agent_rules(config: &Value, out: &mut Vec<Violation>) {
    if let Some(calls) = config.get("mockToolCalls").and_then(Value::as_array) {
        for (i, call) in calls.iter().enumerate() {
            let Some(call) = call.as_object() else { continue };
            let (result, error) = (call.contains_key("result"), call.contains_key("error"));
            // "An entry without `result` and without `error` is invalid and MUST be rejected."
            if !result && !error {
                out.push(Violation {
                    pointer: format!("/mockToolCalls/{i}"),
                    keyword: "resultOrError".into(),
                    message: "a mock tool call needs `result` or `error`; one with neither is invalid".into(),
                });
            }
            // "`result` ... Mutually exclusive with `error`."
            if result && error {
                out.push(Violation {
                    pointer: format!("/mockToolCalls/{i}"),
                    keyword: "resultXorError".into(),
                    message: "a mock tool call carries both `result` and `error`; they are mutually exclusive".into(),
                });
            }
        }
    }
}

/// A chain's fragment nodes of bundled Core types checked against the bundled config schemas,
/// without a catalog (`validate`): warnings, at the node's config. A violation at a value that
/// still holds a `{{…}}` token is left to the check after expansion.
pub fn bundled_config_findings(chain: &crate::pack::Chain) -> Vec<Finding> {
    let catalog = super::Catalog::new();
    let empty = Value::Object(serde_json::Map::new());
    let mut out = Vec::new();
    for (i, node) in chain.nodes().iter().enumerate() {
        let type_id = node.get("typeId").and_then(Value::as_str).unwrap_or_default();
        if config_schema(crate::pack::v2::split_pin(type_id).0).is_none() {
            continue;
        }
        let config = node.get("config").unwrap_or(&empty);
        for v in catalog.check_config(type_id, config) {
            let at = config.pointer(&v.pointer);
            if at.and_then(Value::as_str).is_some_and(|t| t.contains("{{")) {
                continue;
            }
            out.push(
                Finding::warning(
                    code::NODE_CONFIG_INVALID,
                    format!("{}/dag/nodes/{i}/config{}", chain.pointer(), v.pointer),
                    format!("{type_id} config: {}", v.message),
                )
                .in_chain(chain.chain_id())
                .with("typeId", type_id)
                .with("keyword", v.keyword),
            );
        }
    }
    out
}

/// The dispatch config members gated on `capabilities.agents.dispatchMapping` (RFC 0022).
const MAPPINGS: [&str; 4] = ["inputMapping", "outputMapping", "perWorkerInputMappings", "perWorkerOutputMappings"];

/// The conformance gates of the bundled schemas, for a host that said what it supports: the
/// mock agent needs `conformance.mockAgent` (`capability_required`); a non-empty dispatch
/// mapping needs `agents.dispatchMapping` (`validation_error`).
pub(crate) fn host_gates(host: &HostProfile, exp: &Expansion) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, node) in exp.nodes.iter().enumerate() {
        let type_id = crate::pack::v2::split_pin(node.get("typeId").and_then(Value::as_str).unwrap_or_default()).0;
        let node_id = node.get("id").and_then(Value::as_str).unwrap_or_default();
        if type_id == MOCK_AGENT && host.mock_agent == Some(false) {
            out.push(
                Finding::error(
                    code::CAPABILITY_REQUIRED,
                    format!("/nodes/{i}"),
                    format!(
                        "node {node_id} is {MOCK_AGENT}, which a host runs only when it advertises \
                         `conformance.mockAgent`; the target host does not"
                    ),
                )
                .in_chain(&exp.chain_id)
                .with("capability", "conformance.mockAgent")
                .with("nodeId", node_id),
            );
        }
        if type_id == DISPATCH && host.dispatch_mapping == Some(false) {
            for key in MAPPINGS {
                let non_empty = node
                    .pointer(&format!("/config/{key}"))
                    .is_some_and(|m| m.as_object().is_none_or(|m| !m.is_empty()));
                if non_empty {
                    out.push(
                        Finding::error(
                            code::VALIDATION_ERROR,
                            format!("/nodes/{i}/config/{key}"),
                            format!(
                                "node {node_id}: a non-empty `{key}` needs `agents.dispatchMapping`, which the \
                                 target host does not advertise"
                            ),
                        )
                        .in_chain(&exp.chain_id)
                        .with("capability", "agents.dispatchMapping")
                        .with("nodeId", node_id),
                    );
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(type_id: &str, config: Value) -> Vec<(String, String)> {
        let schema = config_schema(type_id).unwrap();
        refine(type_id, &config, schema.violations(&config)).into_iter().map(|v| (v.pointer, v.keyword)).collect()
    }

    #[test]
    fn mock_tool_call_needs_exactly_one_of_result_and_error() {
        let v = check(MOCK_AGENT, json!({"mockToolCalls": [{"toolId": "a"}, {"toolId": "b", "result": 1}]}));
        assert_eq!(v, vec![("/mockToolCalls/0".into(), "resultOrError".into())]);
        let both = json!({"toolId": "c", "result": 1, "error": {"error": "x", "message": "m"}});
        let v = check(MOCK_AGENT, json!({"mockToolCalls": [both]}));
        assert_eq!(v, vec![("/mockToolCalls/0".into(), "resultXorError".into())]);
        let err_only = json!({"toolId": "c", "error": {"error": "x", "message": "m"}});
        assert!(check(MOCK_AGENT, json!({"mockToolCalls": [err_only]})).is_empty());
    }

    #[test]
    fn mock_confidence_range_and_beside_a_decision() {
        assert!(check(MOCK_AGENT, json!({"mockConfidence": 0.5})).is_empty());
        assert!(
            check(MOCK_AGENT, json!({"mockConfidence": 1.5})).contains(&("/mockConfidence".into(), "maximum".into()))
        );
        assert!(
            check(MOCK_AGENT, json!({"mockConfidence": -0.1})).contains(&("/mockConfidence".into(), "minimum".into()))
        );
        // Schema-valid beside `mockDecision` (the host ignores it there): not a violation.
        assert!(check(MOCK_AGENT, json!({"mockConfidence": 0.5, "mockDecision": {"decision": 1}})).is_empty());
        let v = check(MOCK_AGENT, json!({"mockConfidence": 0.5, "mockDecision": {"decision": 1, "confidence": 2}}));
        assert_eq!(v, vec![("/mockDecision/confidence".into(), "maximum".into())]);
    }

    #[test]
    fn dispatch_accepts_vendor_models_only_in_vendor_form() {
        assert!(check(DISPATCH, json!({"workerDispatchModel": "vendor.acme.same-run"})).is_empty());
        assert_eq!(check(DISPATCH, json!({"workerDispatchModel": "same-run"})).len(), 1);
        assert_eq!(check(DISPATCH, json!({"workerDispatchModel": "vendor.acme"})).len(), 1);
        assert!(!check(DISPATCH, json!({"fanOutPolicy": "parallel"})).is_empty());
        assert!(check(DISPATCH, json!({"askUserRouting": "auto", "iterationCap": 3})).is_empty());
    }
}

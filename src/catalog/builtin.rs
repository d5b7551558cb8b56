//! Config schemas chainsmith bundles for reserved Core typeIds, plus the rules those
//! schemas state only in their descriptions.

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
    // `mockConfidence` is a shorthand that applies only "when set AND `mockDecision` is
    // absent"; next to `mockDecision` it is silently ignored by the host.
    if config.get("mockConfidence").is_some() && config.get("mockDecision").is_some() {
        out.push(Violation {
            pointer: "/mockConfidence".into(),
            keyword: "mockConfidenceShadowed".into(),
            message: "`mockConfidence` has no effect when `mockDecision` is present; set `mockDecision.confidence`"
                .into(),
        });
    }
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
    fn mock_confidence_range_and_shadowing() {
        assert!(check(MOCK_AGENT, json!({"mockConfidence": 0.5})).is_empty());
        assert!(
            check(MOCK_AGENT, json!({"mockConfidence": 1.5})).contains(&("/mockConfidence".into(), "maximum".into()))
        );
        assert!(
            check(MOCK_AGENT, json!({"mockConfidence": -0.1})).contains(&("/mockConfidence".into(), "minimum".into()))
        );
        let v = check(MOCK_AGENT, json!({"mockConfidence": 0.5, "mockDecision": {"decision": 1, "confidence": 2}}));
        assert!(v.contains(&("/mockConfidence".into(), "mockConfidenceShadowed".into())));
        assert!(v.contains(&("/mockDecision/confidence".into(), "maximum".into())));
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

//! The MiRuntime conceptual tool contract of a chain or workflow: what a governing runtime
//! needs to know before it lets a model call the tool.

use super::compact::credential_note;
use super::effects::{self, URL_KEYS};
use super::subject::{Permission, Subject};
use super::{Projection, text, walk};
use crate::error::{Finding, code};
use crate::schemas::Schema;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};

const DESCRIPTION_MAX: usize = 2000;
/// Five minutes, when no node declares a timeout.
const DEFAULT_TIMEOUT_SECONDS: u64 = 300;
/// Every run emits these per node.
const NODE_EVENTS: [&str; 3] = ["node.started", "node.completed", "node.failed"];
/// An approval gate suspends its node until the RFC 0051 approval interrupt is resolved.
const APPROVAL_EVENTS: [&str; 2] = ["node.suspended", "interrupt.resolved"];
const JSON_SCHEMA_TYPES: [&str; 7] = ["string", "number", "integer", "boolean", "object", "array", "null"];

pub(crate) fn build(subject: &Subject) -> Projection {
    let mut findings = Vec::new();
    let mut out = Map::new();
    out.insert("name".into(), name(subject, &mut findings));
    out.insert("version".into(), version(subject, &mut findings));
    out.insert("description".into(), description(subject, &mut findings));
    let permission = subject.permission();
    out.insert("permissionClass".into(), json!(permission.as_str()));
    out.insert("inputSchema".into(), input_schema(subject, &mut findings));
    out.insert("outputSchema".into(), output_schema(subject, &mut findings));
    out.insert("sideEffects".into(), side_effects(subject, permission));
    if let Some(authorization) = authorization(subject, &mut findings) {
        out.insert("authorization".into(), authorization);
    }
    out.insert("execution".into(), execution(subject, &mut findings));
    out.insert("evidence".into(), evidence(subject));

    let value = Value::Object(out);
    let violations = Schema::MiRuntimeToolContract.violations(&value);
    Projection { value, findings, violations }
}

/// A note that output `field` differs from what the source says at member `source`.
fn adjusted(subject: &Subject, source: &str, field: &str, message: String) -> Finding {
    subject.finding(Finding::warning(code::TOOL_FIELD_ADJUSTED, subject.pointer(source), message).with("field", field))
}

fn name(subject: &Subject, findings: &mut Vec<Finding>) -> Value {
    match text::sanitise_name(subject.id) {
        Some(name) => {
            if name != subject.id {
                findings.push(adjusted(
                    subject,
                    subject.id_key,
                    "name",
                    format!("name `{name}` sanitised from `{}`", subject.id),
                ));
            }
            json!(name)
        }
        None => {
            findings.push(
                subject.finding(
                    Finding::error(
                        code::TOOL_FIELD_INVALID,
                        subject.pointer(subject.id_key),
                        "no id to name the tool after",
                    )
                    .with("field", "name"),
                ),
            );
            json!("")
        }
    }
}

fn version(subject: &Subject, findings: &mut Vec<Finding>) -> Value {
    match text::plain_version(subject.version) {
        Some(plain) => {
            for change in plain.changes {
                findings.push(adjusted(
                    subject,
                    "version",
                    "version",
                    format!("version `{}`: {change}", subject.version),
                ));
            }
            json!(plain.version)
        }
        None => {
            findings.push(
                subject.finding(
                    Finding::error(
                        code::TOOL_FIELD_INVALID,
                        subject.pointer("version"),
                        format!("version `{}` is not a MAJOR.MINOR.PATCH version", subject.version),
                    )
                    .with("field", "version"),
                ),
            );
            json!(subject.version)
        }
    }
}

fn description(subject: &Subject, findings: &mut Vec<Finding>) -> Value {
    let own = subject.description.trim();
    let text = [own, subject.title.trim(), subject.id].into_iter().find(|t| !t.is_empty()).unwrap_or("");
    if text.is_empty() {
        findings.push(
            subject.finding(
                Finding::error(
                    code::TOOL_FIELD_INVALID,
                    subject.pointer("description"),
                    "nothing to describe the tool with",
                )
                .with("field", "description"),
            ),
        );
    } else if own.is_empty() {
        findings.push(adjusted(subject, "description", "description", format!("no description; using `{text}`")));
    }
    let (text, cut) = text::truncate_chars(text, DESCRIPTION_MAX);
    if cut {
        findings.push(adjusted(
            subject,
            "description",
            "description",
            format!("description cut to {DESCRIPTION_MAX} characters"),
        ));
    }
    json!(text)
}

fn input_schema(subject: &Subject, findings: &mut Vec<Finding>) -> Value {
    let note = |message: &str| {
        subject.finding(
            Finding::warning(code::TOOL_FIELD_ADJUSTED, subject.input.source_pointer(""), message)
                .with("field", "inputSchema"),
        )
    };
    match subject.input.schema() {
        Value::Object(_) => {
            let (schema, removed) = walk::scrub_credentials(subject.input.schema());
            findings.extend(removed.iter().map(|p| credential_note(subject, p)));
            schema
        }
        // Boolean schemas are valid JSON Schema; the contract wants an object of equal meaning.
        Value::Bool(true) => {
            findings.push(note("boolean schema `true` written as `{}`"));
            json!({})
        }
        Value::Bool(false) => {
            findings.push(note("boolean schema `false` written as `{\"not\": {}}`"));
            json!({"not": {}})
        }
        _ => {
            findings.push(
                subject.finding(
                    Finding::error(
                        code::TOOL_FIELD_INVALID,
                        subject.input.source_pointer(""),
                        "the input schema is not a schema",
                    )
                    .with("field", "inputSchema"),
                ),
            );
            json!({})
        }
    }
}

/// An object schema with one property per declared output (its type and description).
fn output_schema(subject: &Subject, findings: &mut Vec<Finding>) -> Value {
    let mut properties = Map::new();
    for (name, output) in subject.outputs.into_iter().flatten() {
        let mut prop = Map::new();
        match output.get("type").and_then(Value::as_str) {
            Some(t) if JSON_SCHEMA_TYPES.contains(&t) => {
                prop.insert("type".into(), json!(t));
            }
            other => findings.push(adjusted(
                subject,
                "outputs",
                "outputSchema",
                format!("output `{name}` has type {other:?}, which is no JSON Schema type; left untyped"),
            )),
        }
        if let Some(description) = output.get("description").filter(|d| d.is_string()) {
            prop.insert("description".into(), description.clone());
        }
        properties.insert(name.clone(), Value::Object(prop));
    }
    json!({"type": "object", "properties": properties})
}

fn side_effects(subject: &Subject, permission: Permission) -> Value {
    let changes = permission != Permission::ReadOnly;
    // Group the writers by why they write, so a chain-wide capability reads as one clause.
    let mut clauses: Vec<(&str, Vec<String>)> = Vec::new();
    let mut clause_of: HashMap<&str, usize> = HashMap::new();
    for node in subject.writers() {
        let who = format!("{} ({})", node.id, node.type_id);
        let reason = node.effect.reason.as_str();
        let i = *clause_of.entry(reason).or_insert_with(|| {
            clauses.push((reason, Vec::new()));
            clauses.len() - 1
        });
        clauses[i].1.push(who);
    }
    let description = if clauses.is_empty() {
        "No node is known to change external state.".to_owned()
    } else {
        let parts: Vec<String> =
            clauses.iter().map(|(reason, nodes)| format!("{reason}: {}", nodes.join(", "))).collect();
        format!("Changes external state ({}).", parts.join("; "))
    };
    let mut compensation_types: Vec<&str> = subject.nodes.iter().filter_map(|n| n.compensation_type).collect();
    compensation_types.sort_unstable();
    compensation_types.dedup();
    let compensation_tool = match compensation_types.as_slice() {
        [only] => json!(only),
        _ => Value::Null,
    };
    let mut out = json!({"changesExternalState": changes, "description": description});
    if changes {
        out["reversible"] = json!(permission == Permission::ReversibleWrite);
    }
    out["compensationTool"] = compensation_tool;
    out
}

/// `allowedEgress` from the fixed hosts of HTTP nodes. Only when every HTTP node's target is
/// fixed: a partial allowlist would block the tool at run time.
fn authorization(subject: &Subject, findings: &mut Vec<Finding>) -> Option<Value> {
    let mut hosts: Vec<String> = Vec::new();
    let mut derivable = true;
    let mut any_http = false;
    for node in subject.nodes.iter().filter(|n| effects::is_http_type(n.type_id)) {
        any_http = true;
        let urls: Vec<(&str, &str)> =
            URL_KEYS.iter().filter_map(|k| Some((*k, node.config()?.get(*k)?.as_str()?))).collect();
        if urls.is_empty() {
            derivable = false;
            findings.push(not_derivable(
                subject,
                &node.pointer,
                "allowedEgress",
                format!("HTTP node `{}` names no URL", node.id),
            ));
        }
        for (key, url) in urls {
            match effects::egress_host(url) {
                Some(host) => hosts.push(host),
                None => {
                    derivable = false;
                    findings.push(not_derivable(
                        subject,
                        &format!("{}/config/{key}", node.pointer),
                        "allowedEgress",
                        format!("the host of HTTP node `{}` is not fixed", node.id),
                    ));
                }
            }
        }
    }
    hosts.sort();
    hosts.dedup();
    (any_http && derivable).then(|| json!({"allowedEgress": hosts}))
}

fn not_derivable(subject: &Subject, pointer: &str, field: &str, message: String) -> Finding {
    subject.finding(Finding::warning(code::TOOL_FIELD_NOT_DERIVABLE, pointer, message).with("field", field))
}

fn execution(subject: &Subject, findings: &mut Vec<Finding>) -> Value {
    let timeout_ms = match subject.run_timeout_ms {
        Some(ms) => ms,
        None => {
            let mut total = 0.0;
            for node in &subject.nodes {
                let Some(config) = node.config() else { continue };
                let (found, unknown) = effects::config_timeouts(config);
                total += found.iter().sum::<f64>();
                for inner in unknown {
                    findings.push(not_derivable(
                        subject,
                        &format!("{}/config{inner}", node.pointer),
                        "execution.timeoutSeconds",
                        format!("the timeout of node `{}` is not a number; left out of the sum", node.id),
                    ));
                }
            }
            total
        }
    };
    let timeout_seconds = if timeout_ms > 0.0 {
        // Float-to-int `as` saturates, so an absurd sum cannot wrap.
        ((timeout_ms / 1000.0).ceil() as u64).max(1)
    } else {
        DEFAULT_TIMEOUT_SECONDS
    };
    let writes = subject.writers().next().is_some();
    let idempotency = if writes {
        "required"
    } else if subject.cacheable {
        "supported"
    } else {
        "not-applicable"
    };
    let mut out = json!({
        "timeoutSeconds": timeout_seconds,
        "idempotency": idempotency,
        "isolation": "external-service",
    });
    if let Some(policy) = retry_policy(subject, findings) {
        out["retryPolicy"] = json!(policy);
    }
    out["checkpointBeforeExecution"] = json!(subject.gated());
    out
}

/// The compensation retry: the policy's when there is one, else the nodes' when they agree.
fn retry_policy(subject: &Subject, findings: &mut Vec<Finding>) -> Option<String> {
    if let Some(retry) = subject.policy_retry {
        return describe_retry(retry);
    }
    let mut retries: Vec<String> =
        subject.nodes.iter().filter_map(|n| n.raw.pointer("/compensation/retry")).filter_map(describe_retry).collect();
    retries.sort();
    retries.dedup();
    match retries.len() {
        0 => None,
        1 => retries.pop(),
        _ => {
            findings.push(not_derivable(
                subject,
                &subject.base,
                "execution.retryPolicy",
                format!("nodes declare different compensation retries: {}", retries.join(" / ")),
            ));
            None
        }
    }
}

fn describe_retry(retry: &Value) -> Option<String> {
    let attempts = retry.get("maxAttempts")?.as_u64().filter(|n| *n >= 1)?;
    Some(match retry.get("backoffMs").and_then(Value::as_u64) {
        Some(backoff) => format!("compensation retry: up to {attempts} attempts, {backoff} ms backoff"),
        None => format!("compensation retry: up to {attempts} attempts"),
    })
}

fn evidence(subject: &Subject) -> Value {
    let mut events: Vec<&str> = NODE_EVENTS.to_vec();
    if subject.gated() {
        events.extend(APPROVAL_EVENTS);
    }
    let sensitive = walk::sensitive_fields(subject.input.schema());
    let mut out = json!({"requiredEvents": events, "sensitiveFields": sensitive});
    let artifacts = artifact_types(subject);
    if !artifacts.is_empty() {
        out["artifactTypes"] = json!(artifacts);
    }
    out
}

/// Artifact types nodes declare: the first-class `artifactType`, or the config entries that
/// preceded it. Values still holding a parameter token name no concrete type.
fn artifact_types<'a>(subject: &'a Subject) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for node in &subject.nodes {
        let declared = [
            node.raw.get("artifactType"),
            node.config().and_then(|c| c.get("artifactType")),
            node.config().and_then(|c| c.get("outputArtifactType")),
        ];
        for t in declared.into_iter().flatten().filter_map(Value::as_str) {
            if !t.is_empty() && !t.contains("{{") && seen.insert(t) {
                out.push(t);
            }
        }
    }
    out
}

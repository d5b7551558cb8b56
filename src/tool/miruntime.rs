//! The MiRuntime conceptual tool contract of a chain or workflow: what a governing runtime
//! needs to know before it lets a model call the tool.

use super::compact::{credential_note, model_arguments, scrubbed_text};
use super::effects::{self, SafetyTier, URL_KEYS};
use super::subject::{NodeFacts, Permission, Subject, TimeoutSource};
use super::{Projection, text, walk};
use crate::error::{Finding, code};
use crate::schemas::Schema;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use text::PlainVersion;

const DESCRIPTION_MAX: usize = 2000;
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
    findings.extend(subject.unknown_finding());
    out.insert("permissionClass".into(), json!(permission.as_str()));
    out.insert("inputSchema".into(), input_schema(subject, &mut findings));
    out.insert("outputSchema".into(), output_schema(subject, &mut findings));
    out.insert("sideEffects".into(), side_effects(subject, permission));
    if let Some(authorization) = authorization(subject, &mut findings) {
        out.insert("authorization".into(), authorization);
    }
    out.insert("execution".into(), execution(subject, &mut findings));
    out.insert("evidence".into(), evidence(subject));
    // Node and type ids in `sideEffects.description` are the author's text too.
    if let Some(text) = out.get_mut("sideEffects").and_then(|s| s.get_mut("description")) {
        let (clean, _) = walk::scrub_text(text.as_str().unwrap_or_default());
        *text = json!(clean);
    }

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
                        format!(
                            "no id to name the tool after: give the {} an `{}` that starts with a letter",
                            if subject.chain_id.is_some() { "chain" } else { "workflow" },
                            subject.id_key
                        ),
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
        Some(PlainVersion { prerelease: Some(pre), version, .. }) => {
            findings.push(
                subject.finding(
                    Finding::error(
                        code::TOOL_FIELD_INVALID,
                        subject.pointer("version"),
                        format!(
                            "version `{}` is a pre-release (`{pre}`); the contract's version has no pre-release \
                             part, and `{version}` would present it as the release. Publish the release version",
                            subject.version
                        ),
                    )
                    .with("field", "version")
                    .with("prerelease", pre.as_str()),
                ),
            );
            json!(version)
        }
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
                        format!(
                            "version `{}` is not a MAJOR.MINOR.PATCH version: write it as one, such as 1.0.0",
                            subject.version
                        ),
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
                    "nothing to describe the tool with: add a description (a label or title would also do)",
                )
                .with("field", "description"),
            ),
        );
    } else if own.is_empty() {
        findings.push(adjusted(subject, "description", "description", format!("no description; using `{text}`")));
    }
    let text = scrubbed_text(subject, "description", text, findings);
    let (text, cut) = text::truncate_chars(&text, DESCRIPTION_MAX);
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
            let arguments = model_arguments(subject, findings);
            let (schema, removed) = walk::scrub_credentials(&arguments);
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
                        "the input schema is not a schema: write it as a JSON object schema, such as \
                         {\"type\": \"object\", \"properties\": {}}",
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
        if let Some(description) = output.get("description").and_then(Value::as_str) {
            prop.insert("description".into(), json!(walk::scrub_text(description).0));
        }
        properties.insert(name.clone(), Value::Object(prop));
    }
    json!({"type": "object", "properties": properties})
}

fn who(node: &NodeFacts) -> String {
    format!("{} ({})", node.id, node.type_id)
}

/// What the run changes and whether a host can undo it. Compensations are node types the
/// runtime runs inside the run, not tools a host can call: `compensationTool` is null, and
/// `reversible` says whether every write is compensated (or only a draft) and none is
/// declared irreversible.
fn side_effects(subject: &Subject, permission: Permission) -> Value {
    let changes = permission != Permission::ReadOnly;
    // Group the writers by why they write, so a chain-wide capability reads as one clause.
    let mut clauses: Vec<(&str, Vec<String>)> = Vec::new();
    let mut clause_of: HashMap<&str, usize> = HashMap::new();
    for node in subject.writers() {
        let reason = node.effect.reason.as_str();
        let i = *clause_of.entry(reason).or_insert_with(|| {
            clauses.push((reason, Vec::new()));
            clauses.len() - 1
        });
        clauses[i].1.push(who(node));
    }
    let mut sentences = Vec::new();
    if clauses.is_empty() {
        sentences.push("No node changes external state.".to_owned());
    } else {
        let parts: Vec<String> =
            clauses.iter().map(|(reason, nodes)| format!("{reason}: {}", nodes.join(", "))).collect();
        sentences.push(format!("Changes external state ({}).", parts.join("; ")));
    }
    let irreversible: Vec<String> = subject.nodes.iter().filter(|n| n.irreversible).map(who).collect();
    if !irreversible.is_empty() {
        sentences.push(format!("Irreversible: {}.", irreversible.join(", ")));
    }
    let compensated: Vec<String> =
        subject.writers().filter_map(|n| Some(format!("{} by {}", who(n), n.compensation_type?))).collect();
    if !compensated.is_empty() {
        sentences.push(format!(
            "Compensated inside the run (node types, not tools a host can call): {}.",
            compensated.join(", ")
        ));
    }
    let uncompensated: Vec<String> =
        subject.writers().filter(|n| !n.compensated() && !n.draft && !n.irreversible).map(who).collect();
    if changes && !uncompensated.is_empty() {
        sentences.push(format!("No compensation and no irreversible declaration: {}.", uncompensated.join(", ")));
    }
    let mut out = json!({"changesExternalState": changes, "description": sentences.join(" ")});
    if changes {
        out["reversible"] = json!(subject.reversible());
    }
    out["compensationTool"] = Value::Null;
    out
}

/// `allowedEgress`: every host the tool can reach, or nothing. Only when each node's reach is
/// known (a pure node reaches nothing; an HTTP node its fixed URL): a partial allow-list would
/// block the tool's own calls at run time.
fn authorization(subject: &Subject, findings: &mut Vec<Finding>) -> Option<Value> {
    let mut hosts: Vec<String> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    let mut first_pointer: Option<String> = None;
    for node in &subject.nodes {
        if effects::is_http_type(node.type_id) && node.sub_chain.is_none() {
            let urls: Vec<(&str, &str)> =
                URL_KEYS.iter().filter_map(|k| Some((*k, node.config()?.get(*k)?.as_str()?))).collect();
            let unfixed = urls.iter().find(|(_, url)| effects::egress_host(url).is_none());
            match (urls.is_empty(), unfixed) {
                (false, None) => {
                    hosts.extend(urls.iter().filter_map(|(_, url)| effects::egress_host(url)));
                    continue;
                }
                (true, _) => unknown.push(format!("{} names no URL", node.named())),
                (false, Some((key, _))) => {
                    unknown.push(format!("{} calls a host that is not fixed", node.named()));
                    first_pointer.get_or_insert_with(|| format!("{}/config/{key}", node.pointer));
                }
            }
        } else if node.effect.known && node.effect.tier == SafetyTier::Pure {
            continue;
        } else {
            let what = if subject.chain_id.is_some() { "pack" } else { "workflow" };
            unknown.push(format!("{} may reach hosts the {what} does not name", node.named()));
        }
        first_pointer.get_or_insert_with(|| node.pointer.clone());
    }
    if !unknown.is_empty() {
        findings.push(not_derivable(
            subject,
            first_pointer.as_deref().unwrap_or(&subject.base),
            "authorization.allowedEgress",
            format!(
                "allowedEgress left out: a partial allow-list would block the tool's own calls, and not every \
                 host is known ({})",
                unknown.join("; ")
            ),
        ));
        return None;
    }
    hosts.sort();
    hosts.dedup();
    (!hosts.is_empty()).then(|| json!({"allowedEgress": hosts}))
}

fn not_derivable(subject: &Subject, pointer: &str, field: &str, message: String) -> Finding {
    subject.finding(Finding::warning(code::TOOL_FIELD_NOT_DERIVABLE, pointer, message).with("field", field))
}

fn execution(subject: &Subject, findings: &mut Vec<Finding>) -> Value {
    let timeout_ms = match subject.run_timeout_ms {
        Some(ms) => ms,
        None => {
            for node in &subject.nodes {
                let Some(config) = node.config() else { continue };
                for inner in effects::config_timeouts(config).1 {
                    findings.push(not_derivable(
                        subject,
                        &format!("{}/config{inner}", node.pointer),
                        "execution.timeoutSeconds",
                        format!(
                            "the timeout of {} is not a number, so its default is used: write it as a number",
                            node.title()
                        ),
                    ));
                }
            }
            let defaulted: Vec<String> = subject
                .nodes
                .iter()
                .filter(|n| {
                    matches!(
                        n.timeout_source,
                        TimeoutSource::HumanDefault | TimeoutSource::ModelDefault | TimeoutSource::StepDefault
                    )
                })
                .map(|n| n.id.to_owned())
                .collect();
            if !defaulted.is_empty() {
                findings.push(subject.finding(
                    Finding::info(
                        code::TOOL_FIELD_ADJUSTED,
                        subject.base.as_str(),
                        format!(
                            "timeoutSeconds is the longest path's; nodes without a declared timeout use chainsmith's \
                             defaults (a person's step 24 h, a model or agent step 300 s, any other step 60 s): {}",
                            defaulted.join(", ")
                        ),
                    )
                    .with("field", "execution.timeoutSeconds"),
                ));
            }
            subject.longest_path_ms()
        }
    };
    // Float-to-int `as` saturates, so an absurd figure cannot wrap.
    let timeout_seconds = ((timeout_ms / 1000.0).ceil() as u64).max(1);
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
    if let Some(policy) = retry_policy(subject) {
        out["retryPolicy"] = json!(policy);
    }
    out["checkpointBeforeExecution"] = json!(subject.gated());
    out
}

/// The forward retry (a workflow's `settings.maxRetries`, nodes' `config.retry` /
/// `config.maxRetries`). A compensation's retry is not the tool's and is never shown here.
fn retry_policy(subject: &Subject) -> Option<String> {
    if let Some(n) = subject.forward_retry {
        return Some(format!(
            "each node retried up to {} (settings.maxRetries)",
            crate::words::count(n as usize, "time", "times")
        ));
    }
    let per_node: Vec<String> = subject
        .nodes
        .iter()
        .filter_map(|n| {
            let config = n.config()?;
            let text = config.get("retry").and_then(describe_retry).or_else(|| {
                config.get("maxRetries")?.as_u64().filter(|r| *r > 0).map(|r| format!("up to {r} retries"))
            })?;
            Some(format!("{}: {text}", n.id))
        })
        .collect();
    (!per_node.is_empty()).then(|| format!("forward retry: {}", per_node.join("; ")))
}

fn describe_retry(retry: &Value) -> Option<String> {
    let attempts = retry.get("maxAttempts")?.as_u64().filter(|n| *n >= 1)?;
    Some(match retry.get("backoffMs").and_then(Value::as_u64) {
        Some(backoff) => format!("up to {attempts} attempts, {backoff} ms backoff"),
        None => format!("up to {attempts} attempts"),
    })
}

fn evidence(subject: &Subject) -> Value {
    let mut events: Vec<&str> = NODE_EVENTS.to_vec();
    if subject.gated() {
        events.extend(APPROVAL_EVENTS);
    }
    // The same notion of sensitive as the scrubbing and the withheld arguments.
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

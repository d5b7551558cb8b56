//! The OpenWOP CompactToolDescriptor (RFC 0112) of a chain or workflow.

use super::subject::Subject;
use super::walk;
use super::{Projection, ToolOptions, text};
use crate::error::{Finding, code};
use crate::schemas::Schema;
use serde_json::{Map, Value, json};

/// Model-facing descriptions are one line; the host should keep them short.
const DESCRIPTION_MAX: usize = 200;

pub(crate) fn build(subject: &Subject, opts: &ToolOptions) -> Projection {
    let mut findings = Vec::new();
    let mut out = Map::new();

    let tool_id = opts.tool_id.map_or_else(|| subject.default_tool_id.clone(), str::to_owned);
    if let Err(message) = text::check_tool_id(&tool_id) {
        // An override is the user's text; point at the subject rather than at its id.
        let at = if opts.tool_id.is_some() { subject.base.clone() } else { subject.pointer(subject.id_key) };
        findings.push(subject.finding(
            Finding::error(code::TOOL_ID_INVALID, at, message).with("field", "toolId").with("toolId", tool_id.as_str()),
        ));
    }
    out.insert("toolId".into(), json!(tool_id));
    out.insert("source".into(), json!("workflow"));

    let derived = subject.derived_tier();
    findings.extend(subject.unknown_finding());
    // The tier is the host's to assign; chainsmith's own derivation never goes below the evidence.
    let host_assigned = opts.safety_tier.or_else(|| opts.host_tiers.and_then(|h| h.tool_tier(&tool_id)));
    let tier = host_assigned.unwrap_or(derived);
    if tier < derived {
        let writers: Vec<String> =
            subject.nodes.iter().filter(|n| n.effect.tier == derived).map(|n| n.title()).collect();
        findings.push(
            subject.finding(
                Finding::warning(
                    code::TOOL_FIELD_ADJUSTED,
                    subject.base.as_str(),
                    format!(
                        "safetyTier overridden to `{tier}` although {} {} `{derived}`: a host will trust the tool \
                         with less than it does. Keep it only if the host confines {}; Reset (or --safety-tier \
                         {derived}) publishes the derived tier",
                        writers.join(", "),
                        if writers.len() == 1 { "is" } else { "are" },
                        if writers.len() == 1 { "that node" } else { "those nodes" },
                    ),
                )
                .with("field", "safetyTier")
                .with("derived", derived.as_str()),
            ),
        );
    }
    out.insert("safetyTier".into(), json!(tier.as_str()));

    if !subject.title.is_empty() {
        out.insert("title".into(), json!(scrubbed_text(subject, "title", subject.title, &mut findings)));
    }
    let description = scrubbed_text(subject, "description", subject.description, &mut findings);
    let (description, shortened) = text::summary(&description, DESCRIPTION_MAX);
    if shortened {
        findings.push(
            subject.finding(
                Finding::warning(
                    code::TOOL_FIELD_ADJUSTED,
                    subject.pointer("description"),
                    "description shortened to its first sentence/line for the compact view",
                )
                .with("field", "description"),
            ),
        );
    }
    if !description.is_empty() {
        out.insert("description".into(), json!(description));
    }

    let arguments = model_arguments(subject, &mut findings);
    let offences = walk::compact_offences(&arguments);
    if offences.is_empty() {
        let (schema, removed) = walk::scrub_credentials(&arguments);
        findings.extend(removed.iter().map(|p| credential_note(subject, p)));
        out.insert("inputSchema".into(), schema);
    } else {
        findings.extend(offences.into_iter().map(|offence| {
            subject.finding(
                Finding::warning(
                    code::TOOL_INPUT_SCHEMA_NOT_COMPACT,
                    subject.input.source_pointer(&offence.pointer),
                    format!("{}; inputSchema is omitted from the compact descriptor", offence.message),
                )
                .with("field", "inputSchema"),
            )
        }));
    }

    let value = Value::Object(out);
    let violations = Schema::CompactToolDescriptor.violations(&value);
    Projection { value, findings, violations }
}

/// The input schema a model is shown: without sensitive parameters (noted), which the host
/// supplies.
pub(crate) fn model_arguments(subject: &Subject, findings: &mut Vec<Finding>) -> Value {
    let (schema, withheld) = walk::withhold_sensitive(subject.input.schema());
    findings.extend(withheld.iter().map(|p| {
        subject.finding(
            Finding::warning(
                code::TOOL_SENSITIVE_WITHHELD,
                subject.input.source_pointer(p),
                "sensitive parameter withheld from the model-facing inputSchema; the host must supply it",
            )
            .with("field", "inputSchema"),
        )
    }));
    schema
}

/// Text with credential material redacted; a note at `member` when anything was.
pub(crate) fn scrubbed_text(subject: &Subject, member: &str, text: &str, findings: &mut Vec<Finding>) -> String {
    let (clean, changed) = walk::scrub_text(text);
    if changed {
        findings.push(
            subject.finding(
                Finding::warning(
                    code::TOOL_CREDENTIAL_OMITTED,
                    subject.pointer(member),
                    format!("credential material redacted from the {member}"),
                )
                .with("field", member),
            ),
        );
    }
    clean
}

/// A note that a credential-looking value was left out of an input schema.
pub(crate) fn credential_note(subject: &Subject, inner_pointer: &str) -> Finding {
    subject.finding(
        Finding::warning(
            code::TOOL_CREDENTIAL_OMITTED,
            subject.input.source_pointer(inner_pointer),
            "credential material left out of the published inputSchema",
        )
        .with("field", "inputSchema"),
    )
}

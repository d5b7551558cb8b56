//! The seed JSON Schemas, embedded at build time and compiled once per process.
//!
//! Nothing is fetched at run time: cross-file `$ref`s resolve against the embedded set,
//! and the three refs the seed does not ship (`agent-ref`, `prompt-ref`, `agent-manifest`)
//! resolve to `{}`.

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, PatternOptions, Retrieve, Uri, Validator};
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// One embedded schema document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Schema {
    ChainManifest,
    NodeManifest,
    WorkflowDefinition,
    PackLockfile,
    CompactToolDescriptor,
    ToolDescriptor,
    MiRuntimeToolContract,
    ErrorEnvelope,
    CompensationPolicy,
    DispatchConfig,
    MockAgentConfig,
}

const ALL: [Schema; 11] = [
    Schema::ChainManifest,
    Schema::NodeManifest,
    Schema::WorkflowDefinition,
    Schema::PackLockfile,
    Schema::CompactToolDescriptor,
    Schema::ToolDescriptor,
    Schema::MiRuntimeToolContract,
    Schema::ErrorEnvelope,
    Schema::CompensationPolicy,
    Schema::DispatchConfig,
    Schema::MockAgentConfig,
];

impl Schema {
    pub fn source(self) -> &'static str {
        match self {
            Schema::ChainManifest => include_str!("../assets/schemas/workflow-chain-pack-manifest.schema.json"),
            Schema::NodeManifest => include_str!("../assets/schemas/node-pack-manifest.schema.json"),
            Schema::WorkflowDefinition => include_str!("../assets/schemas/workflow-definition.schema.json"),
            Schema::PackLockfile => include_str!("../assets/schemas/pack-lockfile.schema.json"),
            Schema::CompactToolDescriptor => include_str!("../assets/schemas/compact-tool-descriptor.schema.json"),
            Schema::ToolDescriptor => include_str!("../assets/schemas/tool-descriptor.schema.json"),
            Schema::MiRuntimeToolContract => include_str!("../assets/schemas/miruntime-tool-contract.schema.json"),
            Schema::ErrorEnvelope => include_str!("../assets/schemas/error-envelope.schema.json"),
            Schema::CompensationPolicy => include_str!("../assets/schemas/compensation-policy.schema.json"),
            Schema::DispatchConfig => include_str!("../assets/schemas/dispatch-config.schema.json"),
            Schema::MockAgentConfig => include_str!("../assets/schemas/core-conformance-mock-agent-config.schema.json"),
        }
    }

    fn file_name(self) -> &'static str {
        match self {
            Schema::ChainManifest => "workflow-chain-pack-manifest.schema.json",
            Schema::NodeManifest => "node-pack-manifest.schema.json",
            Schema::WorkflowDefinition => "workflow-definition.schema.json",
            Schema::PackLockfile => "pack-lockfile.schema.json",
            Schema::CompactToolDescriptor => "compact-tool-descriptor.schema.json",
            Schema::ToolDescriptor => "tool-descriptor.schema.json",
            Schema::MiRuntimeToolContract => "miruntime-tool-contract.schema.json",
            Schema::ErrorEnvelope => "error-envelope.schema.json",
            Schema::CompensationPolicy => "compensation-policy.schema.json",
            Schema::DispatchConfig => "dispatch-config.schema.json",
            Schema::MockAgentConfig => "core-conformance-mock-agent-config.schema.json",
        }
    }

    /// The parsed document (parsed once).
    pub fn document(self) -> &'static Value {
        static DOCS: OnceLock<Vec<Value>> = OnceLock::new();
        let docs = DOCS.get_or_init(|| {
            ALL.iter().map(|s| serde_json::from_str(s.source()).expect("embedded schema is valid JSON")).collect()
        });
        &docs[ALL.iter().position(|s| *s == self).expect("listed")]
    }

    /// The compiled validator (compiled on first use, then shared).
    pub fn validator(self) -> &'static Validator {
        static VALIDATORS: [OnceLock<Validator>; ALL.len()] = [const { OnceLock::new() }; ALL.len()];
        let slot = &VALIDATORS[ALL.iter().position(|s| *s == self).expect("listed")];
        slot.get_or_init(|| {
            options()
                .build(self.document())
                .unwrap_or_else(|e| panic!("embedded schema {} compiles: {e}", self.file_name()))
        })
    }

    /// Every violation of `instance`, as (instance pointer, keyword, message).
    pub fn violations(self, instance: &Value) -> Vec<Violation> {
        collect_violations(self.validator(), instance)
    }
}

/// One schema violation, flattened for reporting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub pointer: String,
    pub keyword: String,
    pub message: String,
}

pub fn collect_violations(validator: &Validator, instance: &Value) -> Vec<Violation> {
    validator
        .iter_errors(instance)
        .map(|e| Violation {
            pointer: e.instance_path().as_str().to_owned(),
            keyword: e.kind().keyword().to_owned(),
            message: violation_message(&e),
        })
        .collect()
}

/// Longest violation message kept, in bytes.
const MAX_MESSAGE_BYTES: usize = 500;

/// A violation's message, shortened: jsonschema quotes the offending value, which may be
/// megabytes long and would otherwise be repeated in every report of it.
pub fn violation_message(e: &jsonschema::ValidationError) -> String {
    let mut text = e.to_string();
    if text.len() > MAX_MESSAGE_BYTES {
        let cut = (0..=MAX_MESSAGE_BYTES).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        let total = text.len();
        text.truncate(cut);
        text.push_str(&format!("… ({total} bytes in full)"));
    }
    text
}

/// Compiled-program cap for one `pattern` / `patternProperties` regex (the `regex` crate
/// default is 10 MiB); a larger pattern does not compile.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Validation options shared by every validator chainsmith builds: draft 2020-12,
/// formats asserted, linear-time regexes, embedded-only reference resolution.
///
/// Patterns run on the `regex` crate's linear-time engine. The backtracking engine, even
/// with a backtrack limit, spends its whole budget once per string (about 10 ms at
/// 200,000 steps), so one array of many crafted strings kept validation busy for minutes.
/// Lookaround and backreferences, which are outside JSON Schema's interoperable regex
/// subset, therefore do not compile.
pub fn options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .with_pattern_options(PatternOptions::regex().size_limit(REGEX_SIZE_LIMIT))
        .with_retriever(EmbeddedRetriever)
}

/// Resolves `$ref`s to the embedded seed schemas by file name; refuses everything else.
struct EmbeddedRetriever;

impl Retrieve for EmbeddedRetriever {
    fn retrieve(&self, uri: &Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let path = uri.path().as_str();
        let file = path.rsplit('/').next().unwrap_or(path);
        if let Some(schema) = ALL.iter().find(|s| s.file_name() == file) {
            return Ok(schema.document().clone());
        }
        if matches!(file, "agent-ref.schema.json" | "prompt-ref.schema.json" | "agent-manifest.schema.json") {
            return Ok(Value::Object(Default::default()));
        }
        Err(format!("schema reference {uri} is not embedded; chainsmith never fetches schemas").into())
    }
}

/// Compile a user-supplied schema (chain `parameters`, node config schemas).
pub fn compile(schema: &Value) -> Result<Arc<Validator>, String> {
    options().build(schema).map(Arc::new).map_err(|e| match e.kind() {
        ValidationErrorKind::Format { format } if format == "regex" => format!(
            "{e} at {}: chainsmith runs patterns on a linear-time engine, so lookaround, backreferences \
             and patterns compiling past {REGEX_SIZE_LIMIT} bytes are not supported",
            e.schema_path().as_str()
        ),
        _ => e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_embedded_schema_compiles() {
        for s in ALL {
            let _ = s.validator();
        }
    }

    #[test]
    fn envelope_schema_accepts_error_envelopes() {
        let env = crate::error::Error::new("chain_not_found", "x").with("chainId", "c").envelope();
        assert!(Schema::ErrorEnvelope.violations(&env).is_empty());
        assert!(!Schema::ErrorEnvelope.violations(&json!({"message": "no code"})).is_empty());
    }

    #[test]
    fn long_messages_are_shortened_on_a_char_boundary() {
        let v = compile(&json!({"type":"integer"})).unwrap();
        let found = collect_violations(&v, &json!("é".repeat(10_000)));
        assert!(found[0].message.len() < MAX_MESSAGE_BYTES + 40, "{}", found[0].message);
        assert!(found[0].message.ends_with("bytes in full)"), "{}", found[0].message);
        assert_eq!(collect_violations(&v, &json!("short"))[0].message, "\"short\" is not of type \"integer\"");
    }

    #[test]
    fn catastrophic_patterns_run_in_linear_time_or_do_not_compile() {
        // Nested quantifiers are harmless on the linear-time engine; a backtracker takes 2^n steps.
        let v = compile(&json!({"type":"string","pattern":"^(a+)+$"})).unwrap();
        assert!(!v.is_valid(&json!(format!("{}b", "a".repeat(100_000)))));
        assert!(v.is_valid(&json!("aaaa")));
        let pp = compile(&json!({"patternProperties":{"^(a|aa)+$":{"type":"integer"}}})).unwrap();
        assert!(!pp.is_valid(&json!({"aaaa": "x"})));
        assert!(pp.is_valid(&json!({format!("{}b", "a".repeat(100_000)): "x"})));
        for pattern in ["^(a+)+\\1$", "^((?=a)a+)+$", "(?<!x)y"] {
            let err = compile(&json!({"properties":{"v":{"pattern": pattern}}})).unwrap_err();
            assert!(err.contains("linear-time engine") && err.contains("/properties/v/pattern"), "{err}");
        }
        let err = compile(&json!({"patternProperties":{"(a)\\1":{}}})).unwrap_err();
        assert!(err.contains("linear-time engine"), "{err}");
    }
}

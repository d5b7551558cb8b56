//! The seed JSON Schemas, embedded at build time and compiled once per process.
//!
//! Nothing is fetched at run time: cross-file `$ref`s resolve against the embedded set,
//! and the three refs the seed does not ship (`agent-ref`, `prompt-ref`, `agent-manifest`)
//! resolve to `{}`.

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
            message: e.to_string(),
        })
        .collect()
}

/// Backtracking budget for `pattern` keywords that need the backtracking engine; plain
/// patterns run on the linear-time engine. A pattern that exceeds it fails validation
/// instead of hanging.
const REGEX_BACKTRACK_LIMIT: usize = 200_000;

/// Validation options shared by every validator chainsmith builds: draft 2020-12,
/// formats asserted, bounded regexes, embedded-only reference resolution.
pub fn options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .with_pattern_options(PatternOptions::fancy_regex().backtrack_limit(REGEX_BACKTRACK_LIMIT))
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
    options().build(schema).map(Arc::new).map_err(|e| e.to_string())
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
    fn catastrophic_pattern_is_bounded() {
        let v = compile(&json!({"type":"string","pattern":"^(a+)+\\1$"})).unwrap();
        let input = json!(format!("{}b", "a".repeat(40)));
        // Returning at all (instead of hanging) is what the budget buys; the input never matches.
        assert!(!v.is_valid(&input));
    }
}

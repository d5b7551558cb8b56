//! One error type for every refusal, plus non-fatal findings.
//!
//! Every failure a user can cause carries a stable machine code taken from the OpenWOP
//! spec (or the reference host's tooling codes), a human message, and `details` that
//! always include the JSON pointer at fault when there is one. The CLI prints an
//! [`Error`] as the seed's ErrorEnvelope; the editor shows it in the problems bar.

use serde_json::{Map, Value, json};
use std::fmt;

/// Stable machine codes. Spelled once here so a typo cannot invent a new code.
pub mod code {
    pub const PACK_NOT_FOUND: &str = "pack_not_found";
    pub const CHAIN_NOT_FOUND: &str = "chain_not_found";
    pub const PACK_MANIFEST_INVALID: &str = "pack_manifest_invalid";
    pub const INVALID_MANIFEST: &str = "invalid_manifest";
    pub const PACK_KIND_INVALID: &str = "pack_kind_invalid";
    pub const INVALID_REQUEST: &str = "invalid_request";
    pub const CHAIN_PARAMETER_INVALID: &str = "chain_parameter_invalid";
    pub const CHAIN_UNRESOLVABLE_TYPEID: &str = "chain_unresolvable_typeid";
    pub const CHAIN_FRAGMENT_PINS_WORKFLOW_ID: &str = "chain_fragment_pins_workflow_id";
    pub const CHAIN_IRREVERSIBLE_WITH_COMPENSATION: &str = "chain_irreversible_with_compensation";
    pub const CHAIN_EDGE_CONDITION_INVALID: &str = "chain_edge_condition_invalid";
    pub const CHAIN_COMPENSATION_POLICY_CONFLICT: &str = "chain_compensation_policy_conflict";
    pub const CAPABILITY_REQUIRED: &str = "capability_required";
    pub const SUB_CHAIN_UNRESOLVED: &str = "sub_chain_unresolved";
    pub const SUB_CHAIN_CYCLE: &str = "sub_chain_cycle";
    pub const SUB_CHAIN_UNSUPPORTED: &str = "sub_chain_unsupported";
    pub const SUB_CHAIN_MAX_DEPTH_EXCEEDED: &str = "sub_chain_max_depth_exceeded";
    /// Two sub-chains whose minted child workflow ids are equal (chain-packs §8 rule 3).
    pub const SUB_CHAIN_WORKFLOW_ID_COLLISION: &str = "sub_chain_workflow_id_collision";
    pub const SENSITIVE_PARAM_NOT_DEFERRABLE: &str = "sensitive_param_not_deferrable";
    pub const VARIABLE_UNDECLARED: &str = "variable_undeclared";
    pub const PRODUCED_VAR_PRODUCER_UNKNOWN: &str = "produced_var_producer_unknown";
    pub const PACK_SIGNATURE_INVALID: &str = "pack_signature_invalid";
    pub const PACK_SIGNATURE_UNVERIFIABLE: &str = "pack_signature_unverifiable";
    pub const PACK_DEPENDENCY_CONFLICT: &str = "pack_dependency_conflict";
    pub const PACK_LOCKFILE_INCOMPLETE: &str = "pack_lockfile_incomplete";
    pub const PACK_VERSION_NOT_FOUND: &str = "pack_version_not_found";
    pub const VALIDATION_ERROR: &str = "validation_error";
    pub const IO_ERROR: &str = "io_error";
    /// A JSON file that starts with a UTF-8 byte order mark (RFC 8259 §8.1).
    pub const JSON_UTF8_BOM: &str = "json_utf8_bom";

    // Lint and warning codes. They never refuse anything on their own.
    pub const DUPLICATE_CHAIN_ID: &str = "duplicate_chain_id";
    pub const DUPLICATE_NODE_ID: &str = "duplicate_node_id";
    /// An object repeating a member name: read as its last value here; signing refuses it.
    pub const DUPLICATE_MEMBER_NAME: &str = "duplicate_member_name";
    pub const EDGE_ENDPOINT_UNKNOWN: &str = "edge_endpoint_unknown";
    pub const FRAGMENT_CYCLE: &str = "fragment_cycle";
    pub const PARAMETERS_SCHEMA_INVALID: &str = "parameters_schema_invalid";
    pub const TOKEN_UNDECLARED: &str = "token_undeclared_parameter";
    pub const PARAM_UNUSED: &str = "parameter_unused";
    pub const SET_UNDECLARED: &str = "set_parameter_undeclared";
    pub const NEAR_TOKEN: &str = "near_token_not_substituted";
    pub const EMBEDDED_STRUCTURED: &str = "embedded_structured_parameter";
    pub const LEFTOVER_TOKEN: &str = "leftover_params_token";
    pub const TYPEID_UNCHECKED: &str = "typeid_unchecked";
    pub const DOTTED_NODE_ID: &str = "dotted_node_id";
    pub const WORKFLOW_SCHEMA_VIOLATION: &str = "workflow_schema_violation";
    pub const SUB_CHAIN_PARAM_NOT_SUPPLIED: &str = "sub_chain_param_not_supplied";
    pub const CHILD_WORKFLOW_ID_INVALID: &str = "child_workflow_id_invalid";
    pub const HOST_NODE_LIMIT_EXCEEDED: &str = "host_node_limit_exceeded";

    // Authoring: extraction, parameter promotion, pack editing.
    pub const EXTRACT_MEMBER_DROPPED: &str = "extract_member_dropped";
    pub const TOKEN_LIKE_TEXT: &str = "token_like_text";
    pub const CAPABILITIES_WIDENED: &str = "capabilities_widened";
    pub const VERSION_BUMP_SUGGESTED: &str = "version_bump_suggested";
    pub const SIGNATURE_STALE: &str = "signature_stale";
    // What a strict-schema export changed (info), and the faithful export's known departures
    // from the closed WorkflowNode schema (chain-packs §15 A1, A5).
    pub const STRICT_INPUT_WRAPPED: &str = "strict_input_wrapped";
    pub const STRICT_CAPABILITIES_REMOVED: &str = "strict_capabilities_removed";
    pub const FAITHFUL_SCHEMA_DEPARTURE: &str = "faithful_schema_departure";

    // Tool projection (chains and workflows as CompactToolDescriptor / MiRuntime contract).
    pub const TOOL_INPUT_SCHEMA_NOT_COMPACT: &str = "tool_input_schema_not_compact";
    pub const TOOL_ID_INVALID: &str = "tool_id_invalid";
    pub const TOOL_SAFETY_TIER_INVALID: &str = "tool_safety_tier_invalid";
    pub const TOOL_FIELD_ADJUSTED: &str = "tool_field_adjusted";
    pub const TOOL_FIELD_NOT_DERIVABLE: &str = "tool_field_not_derivable";
    pub const TOOL_FIELD_INVALID: &str = "tool_field_invalid";
    pub const TOOL_CREDENTIAL_OMITTED: &str = "tool_credential_omitted";
    pub const TOOL_PROJECTION_INVALID: &str = "tool_projection_invalid";
    pub const TOOL_OPTION_IGNORED: &str = "tool_option_ignored";
    pub const TOOL_EFFECT_UNKNOWN: &str = "tool_effect_unknown";
    pub const TOOL_SENSITIVE_WITHHELD: &str = "tool_sensitive_withheld";

    // Trust and resolution: node-pack catalog, dependencies, lockfile, signatures.
    pub const NODE_SCHEMA_UNAVAILABLE: &str = "node_schema_unavailable";
    pub const NODE_CONFIG_INVALID: &str = "node_config_invalid";
    pub const EDGE_PORT_UNKNOWN: &str = "edge_port_unknown";
    pub const EDGE_PORT_INCOMPATIBLE: &str = "edge_port_incompatible";
    pub const TYPEID_DUPLICATE: &str = "typeid_duplicate";
    pub const DEPENDENCY_RANGE_INVALID: &str = "dependency_range_invalid";
    pub const PACK_DEPENDENCY_MISSING: &str = "pack_dependency_missing";
    pub const PACK_DEPENDENCY_UNSATISFIED: &str = "pack_dependency_unsatisfied";
    pub const PACK_LOCKFILE_INVALID: &str = "pack_lockfile_invalid";
    pub const LOCKFILE_OVERRIDE_UNUSED: &str = "lockfile_override_unused";
    pub const REGISTRY_UNREACHABLE: &str = "registry_unreachable";
    pub const PACK_SIGNATURE_UNTRUSTED: &str = "pack_signature_untrusted";
    pub const PACK_UNSIGNED: &str = "pack_unsigned";
    pub const TRUSTED_KEY_INVALID: &str = "trusted_key_invalid";

    // Registry interop (interop.md §1-3): integrity, v2 signatures, installs, publishing.
    pub const PACK_REGISTRY_UNREACHABLE: &str = "pack_registry_unreachable";
    /// A signed version in a folder without `.well-known/openwop-registry.json`: no
    /// `signingKeys[]` says which key may sign it.
    pub const REGISTRY_DISCOVERY_MISSING: &str = "registry_discovery_missing";
    pub const PACK_INTEGRITY_FAILURE: &str = "pack_integrity_failure";
    pub const PACK_INTEGRITY_MISMATCH: &str = "pack_integrity_mismatch";
    pub const SIGNATURE_NOT_AVAILABLE: &str = "signature_not_available";
    pub const PACK_ENGINE_UNSUPPORTED: &str = "pack_engine_unsupported";
    pub const PACK_VERSION_YANKED: &str = "pack_version_yanked";
    pub const PACK_VERSION_DEPRECATED: &str = "pack_version_deprecated";
    pub const PACK_VERSION_EXISTS: &str = "pack_version_exists";
    pub const TYPEID_PIN_INVALID: &str = "typeid_pin_invalid";
    pub const REGISTRY_KEY_ADDED: &str = "registry_key_added";
    pub const PACK_NAME_INVALID: &str = "pack_name_invalid";
    pub const SYMLINK_REFUSED: &str = "symlink_refused";
    pub const NUMBER_NOT_SIGNABLE: &str = "number_not_signable";
    /// Publishing: the key may not sign the name, or a new key would take a namespace
    /// another key holds (interop §1.3).
    pub const PACK_NAMESPACE_UNAUTHORIZED: &str = "pack_namespace_unauthorized";
    /// Publishing: the pack's signature is the other tree's recipe.
    pub const REGISTRY_TREE_MISMATCH: &str = "registry_tree_mismatch";
    /// Publishing: an interrupted publish of the same bytes was finished.
    pub const PUBLISH_COMPLETED: &str = "publish_completed";

    // Chain instances: re-parameterise and upgrade keeping edits, diffs, semver checks.
    /// A member the user changed that the new expansion changes too; nothing was applied.
    pub const UPGRADE_CONFLICT: &str = "upgrade_conflict";
    /// The instance's recorded chain version is not among the packs given, so its edits
    /// cannot be told apart from the chain's.
    pub const INSTANCE_BASE_UNAVAILABLE: &str = "instance_base_unavailable";
    /// The workflow has no instance with this id, or the pack given is not the instance's.
    pub const INSTANCE_NOT_FOUND: &str = "instance_not_found";
    pub const INSTANCE_PACK_MISMATCH: &str = "instance_pack_mismatch";
    /// The chain version asked for is not among the packs given.
    pub const CHAIN_VERSION_NOT_FOUND: &str = "chain_version_not_found";
    /// An upgrade removed a node a parent edge was wired to; the edge went with it.
    pub const INSTANCE_EDGE_DETACHED: &str = "instance_edge_detached";
    /// A pack's version bump is smaller than its changes require (semver).
    pub const VERSION_BUMP_TOO_SMALL: &str = "version_bump_too_small";
    /// `pack publish` could not read the registry's latest version to compare with.
    pub const VERSION_CHECK_SKIPPED: &str = "version_check_skipped";
}

/// A refusal: code, human message, structured details.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub code: &'static str,
    pub message: String,
    pub details: Map<String, Value>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), details: Map::new() }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// The seed's ErrorEnvelope: `{error, message, details?}`.
    pub fn envelope(&self) -> Value {
        let mut env = json!({ "error": self.code, "message": self.message });
        if !self.details.is_empty() {
            env["details"] = Value::Object(self.details.clone());
        }
        env
    }

    /// A file the user named is missing: only a missing pack is `pack_not_found`; any
    /// other input (parameters, host profile, workflow) is a bad request.
    pub fn not_a_pack(mut self) -> Self {
        if self.code == code::PACK_NOT_FOUND {
            self.code = code::INVALID_REQUEST;
        }
        self
    }

    pub fn io(path: &std::path::Path, err: &std::io::Error) -> Self {
        let code = if err.kind() == std::io::ErrorKind::NotFound { code::PACK_NOT_FOUND } else { code::IO_ERROR };
        Self::new(code, format!("{}: {err}", path.display())).with("path", path.display().to_string())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// What chainsmith did on the user's behalf; nothing to fix.
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A validation or lint result that does not by itself stop the pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    /// JSON pointer into the document the finding is about (may be empty for the root).
    pub pointer: String,
    /// The chain the finding concerns, when it concerns one.
    pub chain_id: Option<String>,
    pub details: Map<String, Value>,
}

impl Finding {
    pub fn error(code: &'static str, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            code,
            message: message.into(),
            pointer: pointer.into(),
            chain_id: None,
            details: Map::new(),
        }
    }

    pub fn warning(code: &'static str, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self { severity: Severity::Warning, ..Self::error(code, pointer, message) }
    }

    pub fn info(code: &'static str, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self { severity: Severity::Info, ..Self::error(code, pointer, message) }
    }

    pub fn in_chain(mut self, chain_id: &str) -> Self {
        self.chain_id = Some(chain_id.to_owned());
        self
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "severity": self.severity.as_str(),
            "code": self.code,
            "message": self.message,
            "path": self.pointer,
        });
        if let Some(chain) = &self.chain_id {
            v["chainId"] = Value::String(chain.clone());
        }
        if !self.details.is_empty() {
            v["details"] = Value::Object(self.details.clone());
        }
        v
    }

    /// Promote a finding to a refusal (used where a load-time error stops expansion).
    pub fn into_error(self) -> Error {
        let mut err = Error::new(self.code, self.message);
        err.details = self.details;
        if !self.pointer.is_empty() {
            err.details.insert("path".into(), Value::String(self.pointer));
        }
        if let Some(chain) = self.chain_id {
            err.details.entry("chainId").or_insert(Value::String(chain));
        }
        err
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.severity.as_str(), self.code)?;
        if !self.pointer.is_empty() {
            write!(f, " at {}", self.pointer)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Escape one JSON-pointer reference token (RFC 6901).
pub fn pointer_token(token: &str) -> String {
    if token.contains(['~', '/']) { token.replace('~', "~0").replace('/', "~1") } else { token.to_owned() }
}

/// Join a pointer and a token.
pub fn pointer_join(base: &str, token: &str) -> String {
    let mut s = String::with_capacity(base.len() + token.len() + 1);
    s.push_str(base);
    s.push('/');
    s.push_str(&pointer_token(token));
    s
}

/// How many findings of one code a check lists one by one: per chain for a chain's checks
/// and lints, per pack for the pack's, per expansion for the expander's. The rest are
/// counted in one more finding of that code (`details.omitted`).
pub const MAX_LISTED_PER_CODE: usize = 100;

/// Counts findings by code as they are made, so that a large input's thousands of one
/// mistake keep the first [`MAX_LISTED_PER_CODE`] and a count, not a finding each (one
/// each made `validate` hold 150 times a 4 MB manifest's size).
#[derive(Debug, Default)]
pub struct FindingCap {
    counts: Vec<(&'static str, Severity, usize)>,
}

impl FindingCap {
    /// Whether the next finding of `code` at `severity` is listed; counted either way.
    pub fn admit(&mut self, code: &'static str, severity: Severity) -> bool {
        match self.counts.iter_mut().find(|(c, s, _)| *c == code && *s == severity) {
            Some((_, _, n)) => {
                *n += 1;
                *n <= MAX_LISTED_PER_CODE
            }
            None => {
                self.counts.push((code, severity, 1));
                true
            }
        }
    }

    /// Push `f` onto `out` while its code is listed.
    pub fn push(&mut self, out: &mut Vec<Finding>, f: Finding) {
        if self.admit(f.code, f.severity) {
            out.push(f);
        }
    }

    /// One finding at `pointer` per code with findings left out, saying how many.
    pub fn omitted(self, pointer: &str) -> impl Iterator<Item = Finding> + '_ {
        self.counts.into_iter().filter(|(_, _, n)| *n > MAX_LISTED_PER_CODE).map(move |(code, severity, n)| {
            let left = n - MAX_LISTED_PER_CODE;
            let f = Finding::error(
                code,
                pointer,
                format!(
                    "{left} more `{code}` findings here are not listed (the first {MAX_LISTED_PER_CODE} are; \
                     {n} in all)"
                ),
            )
            .with("omitted", left)
            .with("total", n);
            Finding { severity, ..f }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_omits_empty_details() {
        let e = Error::new(code::CHAIN_NOT_FOUND, "no chain x");
        assert_eq!(e.envelope(), json!({"error":"chain_not_found","message":"no chain x"}));
        let e = e.with("chainId", "x");
        assert_eq!(e.envelope()["details"]["chainId"], "x");
    }

    #[test]
    fn a_cap_lists_the_first_of_each_code_and_counts_the_rest() {
        let mut cap = FindingCap::default();
        let mut out = Vec::new();
        for i in 0..MAX_LISTED_PER_CODE + 5 {
            cap.push(&mut out, Finding::warning(code::NEAR_TOKEN, format!("/{i}"), "x"));
        }
        cap.push(&mut out, Finding::error(code::NEAR_TOKEN, "/e", "x"));
        assert_eq!(out.len(), MAX_LISTED_PER_CODE + 1);
        let rest: Vec<Finding> = cap.omitted("/chains/0").collect();
        assert_eq!(rest.len(), 1);
        assert_eq!(
            (rest[0].code, rest[0].severity, rest[0].pointer.as_str()),
            (code::NEAR_TOKEN, Severity::Warning, "/chains/0")
        );
        assert_eq!((rest[0].details["omitted"].as_u64(), rest[0].details["total"].as_u64()), (Some(5), Some(105)));
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(pointer_join("/a", "b/c~d"), "/a/b~1c~0d");
        assert_eq!(pointer_join("", "x"), "/x");
    }

    #[test]
    fn finding_into_error_keeps_path_and_chain() {
        let f = Finding::error(code::CHAIN_EDGE_CONDITION_INVALID, "/chains/0/dag/edges/1", "no left").in_chain("c");
        let e = f.into_error();
        assert_eq!(e.details["path"], "/chains/0/dag/edges/1");
        assert_eq!(e.details["chainId"], "c");
    }
}

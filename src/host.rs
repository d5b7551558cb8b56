//! The target host profile (chain-packs §11.8): which capability-gated features the host
//! that will run the exported workflow supports, and which node types it provides itself
//! (typeIds no published node pack declares, such as an application's `feature.*` nodes).
//!
//! A profile is read from chainsmith's own small form or from what the host itself
//! publishes, an `openwop capabilities --json` document (interop §4): v1 families at the
//! root (then the deprecated `capabilities` wrapper), or v2 family records.

use crate::error::{Error, Finding, code};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Answers whether a typeId is provided by a pack the editor knows.
pub trait TypeResolver {
    fn resolves(&self, type_id: &str) -> bool;
}

/// `core.*` typeIds are reserved and always resolve (node-packs §1.4).
pub fn is_core(type_id: &str) -> bool {
    type_id.starts_with("core.")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct HostProfile {
    pub compensation: bool,
    pub sub_chains: bool,
    #[serde(deserialize_with = "whole_number")]
    pub max_depth: u32,
    pub secrets: bool,
    pub deferred_parameters: bool,
    /// The OpenWOP protocol major the host speaks; a v2 manifest's `engines.openwop` must
    /// admit it (interop §3.2).
    #[serde(deserialize_with = "whole_number")]
    pub protocol_major: u64,
    /// `limits.maxNodeExecutions` of a capabilities document: more nodes than this in one
    /// workflow is warned about, as the OpenWOP app does.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "some_whole_number")]
    pub max_node_executions: Option<u64>,
    /// typeIds the host provides: exact ids, or prefixes ending in `*` (`feature.*`). They
    /// resolve as if a catalogued node pack declared them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub node_types: Vec<String>,
    /// `conformance.mockAgent`: the host runs `core.conformance.mock-agent`. `None` when no
    /// host was described (not gated); a profile or document that does not say is `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mock_agent: Option<bool>,
    /// `agents.dispatchMapping`: the host applies `core.dispatch` input/output mappings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatch_mapping: Option<bool>,
}

impl Default for HostProfile {
    /// Compensation on, everything else off: refuse rather than emit what a host rejects.
    fn default() -> Self {
        Self {
            compensation: true,
            sub_chains: false,
            max_depth: 8,
            secrets: false,
            deferred_parameters: false,
            protocol_major: 1,
            max_node_executions: None,
            node_types: Vec::new(),
            mock_agent: None,
            dispatch_mapping: None,
        }
    }
}

impl HostProfile {
    /// Every switch on; used where a run must not be gated (conformance replay).
    pub fn permissive() -> Self {
        Self {
            sub_chains: true,
            secrets: true,
            deferred_parameters: true,
            mock_agent: Some(true),
            dispatch_mapping: Some(true),
            ..Self::default()
        }
    }

    /// Read a profile from JSON text (`--host FILE`): chainsmith's profile, or a host's
    /// capabilities document.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let syntax = |e: serde_json::Error| {
            Error::new(code::INVALID_REQUEST, format!("host profile: {e}"))
                .with("line", e.line())
                .with("column", e.column())
        };
        let value: Value = crate::fsio::json::from_str(text).map_err(syntax)?;
        if is_capabilities_document(&value) {
            return Self::from_capabilities(&value);
        }
        let mut host: Self = serde_json::from_value(value)
            .map_err(|e| Error::new(code::INVALID_REQUEST, format!("host profile: {e}")))?;
        // A profile that does not grant the conformance features does not have them.
        host.mock_agent.get_or_insert(false);
        host.dispatch_mapping.get_or_insert(false);
        for (i, p) in host.node_types.iter().enumerate() {
            if let Some(problem) = Self::node_type_problem(p) {
                // `path` is left to the caller, who knows the file.
                let pointer = format!("/nodeTypes/{i}");
                return Err(Error::new(code::INVALID_REQUEST, format!("host profile {pointer}: {problem}"))
                    .with("pointer", pointer));
            }
        }
        Ok(host)
    }

    /// Whether the host declares this typeId (exactly, or by a `prefix*` pattern).
    pub fn provides(&self, type_id: &str) -> bool {
        self.node_types.iter().any(|p| match p.strip_suffix('*') {
            Some(prefix) => type_id.starts_with(prefix),
            None => p == type_id,
        })
    }

    /// Why a `nodeTypes` entry cannot be used, if it cannot: it must be non-empty and may
    /// hold `*` only as its last character.
    pub fn node_type_problem(pattern: &str) -> Option<String> {
        let body = pattern.strip_suffix('*').unwrap_or(pattern);
        if pattern.trim().is_empty() {
            Some("an empty node type pattern".to_owned())
        } else if body.contains('*') {
            Some(format!("node type pattern \"{pattern}\" has `*` before its end; only a trailing `*` is allowed"))
        } else if pattern.chars().any(char::is_whitespace) {
            Some(format!("node type pattern \"{pattern}\" contains white space"))
        } else {
            None
        }
    }

    /// The profile a capabilities document describes. A family the document does not list
    /// is not supported.
    pub fn from_capabilities(doc: &Value) -> Result<Self, Error> {
        let v2 = is_v2_document(doc);
        if v2_without_preferred_version(doc) {
            return Err(Error::new(
                code::INVALID_REQUEST,
                "capabilities: the families are v2 records (with `status`, not `supported`) but the document has \
                 no `preferredVersion`, which a v2 document must carry (interop §4.2); it is not read as v1, where \
                 every such family would look unsupported",
            )
            .with("pointer", "/preferredVersion"));
        }
        // Root first, then the deprecated wrapper (interop §4.1).
        let family = |name: &str| doc.get(name).or_else(|| doc.pointer(&format!("/capabilities/{name}")));
        let supported = |f: Option<&Value>| match f {
            None => false,
            Some(f) if v2 => f.get("status").and_then(Value::as_str).is_some_and(|s| s != "removed"),
            Some(f) => f.get("supported").and_then(Value::as_bool).unwrap_or(false),
        };
        let chains = family("workflowChainPacks");
        let sub = chains.and_then(|c| c.get("subChains"));
        // v2 has no `supported` flag: the facet's presence is the advertisement.
        let sub_chains = supported(chains)
            && sub.is_some_and(|s| if v2 { s.is_object() } else { s.get("supported") == Some(&Value::Bool(true)) });
        let max_depth = match sub.and_then(|s| s.get("maxDepth")) {
            None => 8,
            Some(d) => {
                as_whole(d).filter(|d| (1..=u64::from(u32::MAX)).contains(d)).map(|d| d as u32).ok_or_else(|| {
                    Error::new(
                        code::INVALID_REQUEST,
                        format!("capabilities: subChains.maxDepth {d} is not a whole number ≥ 1"),
                    )
                    .with("path", "/workflowChainPacks/subChains/maxDepth")
                })?
            }
        };
        let deferred = !v2
            && supported(chains)
            && chains.and_then(|c| c.pointer("/deferredParameters/supported")) == Some(&Value::Bool(true));
        let limits = family("limits");
        Ok(Self {
            compensation: supported(family("compensation")),
            sub_chains,
            max_depth,
            secrets: supported(family("secrets")),
            deferred_parameters: deferred,
            protocol_major: protocol_major(doc),
            max_node_executions: limits.and_then(|l| l.get("maxNodeExecutions")).and_then(as_whole),
            node_types: Vec::new(),
            mock_agent: Some(flag(family("conformance"), "mockAgent")),
            dispatch_mapping: Some(flag(family("agents"), "dispatchMapping")),
        })
    }

    /// A warning when a workflow of `count` nodes exceeds `limits.maxNodeExecutions`.
    pub fn node_count_finding(&self, count: usize, what: &str) -> Option<Finding> {
        let limit = self.max_node_executions?;
        (count as u64 > limit).then(|| {
            Finding::warning(
                code::HOST_NODE_LIMIT_EXCEEDED,
                "",
                format!("{what} has {count} nodes; the target host runs at most {limit} node executions per run"),
            )
            .with("nodeCount", count)
            .with("maxNodeExecutions", limit)
        })
    }
}

/// Members only a capabilities document has (its own version fields and families whose
/// values are objects): a document is recognised by one of them, so a misspelt profile key
/// is still an error.
const DOCUMENT_KEYS: [&str; 10] = [
    "protocolVersion",
    "protocolVersions",
    "preferredVersion",
    "capabilities",
    "workflowChainPacks",
    "limits",
    "prompts",
    "dispatch",
    "orchestrator",
    "runtimeCapabilities",
];

fn is_capabilities_document(v: &Value) -> bool {
    let Some(m) = v.as_object() else { return false };
    m.iter().any(|(k, v)| DOCUMENT_KEYS.contains(&k.as_str()) || v.is_object())
}

/// Which form of capabilities document `doc` is (interop §4), to say what was read; `None`
/// when it is chainsmith's own profile form.
pub fn capabilities_form(doc: &Value) -> Option<&'static str> {
    if !is_capabilities_document(doc) {
        return None;
    }
    let root_family = doc.as_object().is_some_and(|m| m.iter().any(|(k, v)| k != "capabilities" && v.is_object()));
    Some(if is_v2_document(doc) {
        "v2 family records"
    } else if root_family || doc.get("capabilities").is_none() {
        "v1 families at the root"
    } else {
        "v1 deprecated `capabilities` wrapper"
    })
}

/// A family's boolean facet: `true`, or a v2 record `{status}` that is not removed.
fn flag(family: Option<&Value>, facet: &str) -> bool {
    match family.and_then(|f| f.get(facet)) {
        Some(Value::Bool(b)) => *b,
        Some(record) => {
            record.get("supported") == Some(&Value::Bool(true))
                || record.get("status").and_then(Value::as_str).is_some_and(|s| s != "removed")
        }
        None => false,
    }
}

/// A whole number ≥ 0, written as an integer or with a zero fraction (`8.0`): the schema's
/// `integer` admits both.
fn as_whole(v: &Value) -> Option<u64> {
    let n = v.as_number()?;
    n.as_u64().or_else(|| {
        let f = n.as_f64()?;
        (f.fract() == 0.0 && (0.0..=u64::MAX as f64).contains(&f)).then_some(f as u64)
    })
}

fn whole_number<'de, D: serde::Deserializer<'de>, T: TryFrom<u64>>(d: D) -> Result<T, D::Error> {
    let v = Value::deserialize(d)?;
    as_whole(&v)
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| serde::de::Error::custom(format!("expected a whole number ≥ 0 in range, found {v}")))
}

fn some_whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        v => whole_number(v).map(Some).map_err(serde::de::Error::custom),
    }
}

/// A document shaped as v2 (family records, no deprecated wrapper) without the
/// `preferredVersion` that makes it one.
fn v2_without_preferred_version(doc: &Value) -> bool {
    doc.get("capabilities").is_none() && doc.get("preferredVersion").is_none() && is_v2_record(doc)
}

fn is_v2_document(doc: &Value) -> bool {
    doc.get("preferredVersion").is_some() && doc.get("capabilities").is_none() && is_v2_record(doc)
}

/// v2 families are records with a `status` instead of v1's `supported`.
fn is_v2_record(doc: &Value) -> bool {
    doc.as_object().is_some_and(|m| m.values().any(|f| f.get("status").is_some() && f.get("supported").is_none()))
}

/// The highest protocol major the document lists (`protocolVersions`, else
/// `protocolVersion`); 1 when it names none.
fn protocol_major(doc: &Value) -> u64 {
    let major = |v: &Value| v.as_str().and_then(|s| s.split('.').next()?.parse::<u64>().ok());
    let listed = doc.get("protocolVersions").and_then(Value::as_array).and_then(|vs| vs.iter().filter_map(major).max());
    listed.or_else(|| doc.get("protocolVersion").and_then(major)).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_conservative() {
        let h = HostProfile::default();
        assert!(h.compensation && !h.sub_chains && !h.secrets && !h.deferred_parameters);
        assert_eq!(h.max_depth, 8);
    }

    #[test]
    fn partial_json_keeps_defaults_and_unknown_keys_fail() {
        let h = HostProfile::from_json(r#"{"subChains": true}"#).unwrap();
        assert!(h.sub_chains && h.compensation);
        assert_eq!(HostProfile::from_json(r#"{"subchains": true}"#).unwrap_err().code, code::INVALID_REQUEST);
    }

    #[test]
    fn v1_capabilities_document_with_root_families() {
        // interop §4.4's invented example, families at the root.
        let doc = r#"{ "protocolVersion": "1.1", "protocolVersions": ["1.1","2.0"], "preferredVersion": "1.1",
          "limits": { "clarificationRounds": 3, "schemaRounds": 2, "envelopesPerTurn": 5, "maxNodeExecutions": 1000 },
          "compensation": { "supported": true, "profileVersion": "1", "orderingModels": ["reverse-completion"] },
          "workflowChainPacks": { "supported": true, "subChains": { "supported": true, "maxDepth": 3 } },
          "capabilities": { "secrets": { "supported": false } } }"#;
        let h = HostProfile::from_json(doc).unwrap();
        assert!(h.compensation && h.sub_chains && !h.secrets && !h.deferred_parameters);
        assert_eq!((h.max_depth, h.protocol_major, h.max_node_executions), (3, 2, Some(1000)));
        assert!(h.node_count_finding(1000, "w").is_none());
        assert_eq!(h.node_count_finding(1001, "w").unwrap().code, code::HOST_NODE_LIMIT_EXCEEDED);
    }

    #[test]
    fn deprecated_wrapper_is_read_when_the_root_lacks_a_family() {
        let doc = r#"{ "protocolVersion": "1.0", "capabilities": {
          "workflowChainPacks": { "supported": true, "deferredParameters": { "supported": true },
                                  "subChains": { "supported": false, "maxDepth": 4 } },
          "secrets": { "supported": true, "scopes": ["tenant"] } } }"#;
        let h = HostProfile::from_json(doc).unwrap();
        assert!(!h.compensation && !h.sub_chains && h.secrets && h.deferred_parameters);
        assert_eq!((h.max_depth, h.protocol_major, h.max_node_executions), (4, 1, None));
    }

    #[test]
    fn v2_records_advertise_by_presence() {
        let doc = r#"{ "protocolVersions": ["1.1", "2.0"], "preferredVersion": "1.1",
          "workflowChainPacks": {"status":"stable","since":"2.0","witness":"witnessable-gated","subChains":{"maxDepth":8}},
          "compensation": {"status":"stable","since":"2.0","witness":"witnessable"} }"#;
        let h = HostProfile::from_json(doc).unwrap();
        assert!(h.compensation && h.sub_chains && !h.secrets && !h.deferred_parameters);
        assert_eq!((h.max_depth, h.protocol_major), (8, 2));
        let no_facet = r#"{ "protocolVersions": ["2.0"], "preferredVersion": "2.0",
          "workflowChainPacks": {"status":"stable","since":"2.0","witness":"w"} }"#;
        assert!(!HostProfile::from_json(no_facet).unwrap().sub_chains);
    }

    #[test]
    fn the_form_of_a_document_is_named() {
        let form = |text: &str| capabilities_form(&serde_json::from_str(text).unwrap());
        assert_eq!(
            form(r#"{"compensation": {"supported": true}, "capabilities": {}}"#),
            Some("v1 families at the root")
        );
        assert_eq!(
            form(r#"{"protocolVersion": "1.0", "capabilities": {"secrets": {"supported": true}}}"#),
            Some("v1 deprecated `capabilities` wrapper")
        );
        assert_eq!(
            form(r#"{"preferredVersion": "1.1", "compensation": {"status": "stable", "since": "2.0"}}"#),
            Some("v2 family records")
        );
        assert_eq!(form(r#"{"subChains": true, "maxDepth": 3}"#), None);
    }

    #[test]
    fn a_bad_max_depth_in_a_document_is_refused() {
        let doc =
            r#"{ "workflowChainPacks": { "supported": true, "subChains": { "supported": true, "maxDepth": 0 } } }"#;
        let e = HostProfile::from_json(doc).unwrap_err();
        assert_eq!(e.code, code::INVALID_REQUEST);
        assert_eq!(e.details["path"], "/workflowChainPacks/subChains/maxDepth");
    }

    #[test]
    fn whole_numbers_written_with_a_fraction_are_read() {
        let doc = r#"{ "protocolVersion": "1.1", "limits": { "clarificationRounds": 3, "schemaRounds": 2,
          "envelopesPerTurn": 5, "maxNodeExecutions": 1000.0 },
          "workflowChainPacks": { "supported": true, "subChains": { "supported": true, "maxDepth": 8.0 } } }"#;
        let h = HostProfile::from_json(doc).unwrap();
        assert_eq!((h.max_depth, h.max_node_executions), (8, Some(1000)));
        let own = HostProfile::from_json(r#"{"subChains": true, "maxDepth": 3.0, "protocolMajor": 2.0}"#).unwrap();
        assert_eq!((own.max_depth, own.protocol_major), (3, 2));
        for bad in [r#"{"maxDepth": 8.5}"#, r#"{"maxDepth": -1}"#, r#"{"maxDepth": 1e20}"#] {
            assert_eq!(HostProfile::from_json(bad).unwrap_err().code, code::INVALID_REQUEST, "{bad}");
        }
        let half =
            r#"{ "workflowChainPacks": { "supported": true, "subChains": { "supported": true, "maxDepth": 2.5 } } }"#;
        assert_eq!(HostProfile::from_json(half).unwrap_err().details["path"], "/workflowChainPacks/subChains/maxDepth");
    }

    #[test]
    fn v2_records_without_preferred_version_are_refused_not_read_as_v1() {
        let doc = r#"{ "protocolVersions": ["2.0"],
          "workflowChainPacks": {"status":"stable","since":"2.0","witness":"w","subChains":{"maxDepth":8}},
          "compensation": {"status":"stable","since":"2.0","witness":"w"} }"#;
        let e = HostProfile::from_json(doc).unwrap_err();
        assert_eq!((e.code, e.details["pointer"].as_str()), (code::INVALID_REQUEST, Some("/preferredVersion")));
        assert!(e.message.contains("preferredVersion") && e.message.contains("v2"), "{}", e.message);
    }

    #[test]
    fn node_types_match_exactly_or_by_trailing_star() {
        let h = HostProfile::from_json(r#"{"nodeTypes": ["feature.*", "acme.tools.send"]}"#).unwrap();
        assert!(h.provides("feature.notifications.nodes.notify"));
        assert!(h.provides("acme.tools.send"));
        assert!(!h.provides("acme.tools.sender"), "an exact id is not a prefix");
        assert!(!h.provides("features.x"), "the prefix is `feature.`, dot included");
        assert!(!HostProfile::default().provides("feature.x"));
        for bad in [r#"{"nodeTypes": ["fea*ture"]}"#, r#"{"nodeTypes": [""]}"#, r#"{"nodeTypes": ["a b"]}"#] {
            let e = HostProfile::from_json(bad).unwrap_err();
            assert_eq!((e.code, e.details["pointer"].as_str()), (code::INVALID_REQUEST, Some("/nodeTypes/0")), "{bad}");
        }
        // Saved without the key when empty, so existing profiles read and write as before.
        assert!(serde_json::to_value(HostProfile::default()).unwrap().get("nodeTypes").is_none());
    }
}

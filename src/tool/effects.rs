//! What a node does to the outside world, as far as a chain or workflow lets us tell:
//! its data effect (pure / read / write), whether it waits for an approval, and where it
//! sends HTTP traffic.
//!
//! Declarations win over guesses: a `side-effectful` capability, a compensation or an
//! `irreversibleEffect` make a node a writer whatever its type. For the type itself a
//! caller-supplied [`EffectOracle`] (the node-pack catalog) is asked first; only when it does
//! not know the type does a naming heuristic decide.

use crate::error::Error;
use crate::error::code;
use serde_json::Value;
use std::fmt;

/// A tool's or node type's data effect, on the CompactToolDescriptor `safetyTier` scale.
/// There is deliberately no `exec`: that tier belongs to host extensions, never to a workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SafetyTier {
    /// No outside effect.
    Pure,
    /// Reads outside state.
    Read,
    /// Changes outside state.
    Write,
}

impl SafetyTier {
    pub fn as_str(self) -> &'static str {
        match self {
            SafetyTier::Pure => "pure",
            SafetyTier::Read => "read",
            SafetyTier::Write => "write",
        }
    }

    /// Parse a user's tier override. `exec` is refused: an exec-tier tool must be sourced from a
    /// host extension, which a workflow never is.
    pub fn parse(text: &str) -> Result<Self, Error> {
        match text {
            "pure" => Ok(SafetyTier::Pure),
            "read" => Ok(SafetyTier::Read),
            "write" => Ok(SafetyTier::Write),
            "exec" => Err(Error::new(
                code::TOOL_SAFETY_TIER_INVALID,
                "safetyTier `exec` is reserved for host-extension tools; a workflow tool is pure, read or write",
            )
            .with("safetyTier", text)
            .with("allowed", vec!["pure", "read", "write"])),
            _ => Err(Error::new(code::TOOL_SAFETY_TIER_INVALID, format!("unknown safetyTier `{text}`"))
                .with("safetyTier", text)
                .with("allowed", vec!["pure", "read", "write"])),
        }
    }
}

impl fmt::Display for SafetyTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SafetyTier {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Self::parse(s)
    }
}

/// Answers what a node type does, from knowledge the tool module does not have (the node-pack
/// catalog). `None` means "unknown type"; the built-in naming heuristic then decides.
pub trait EffectOracle {
    fn effect_of(&self, type_id: &str) -> Option<SafetyTier>;
}

impl<F: Fn(&str) -> Option<SafetyTier>> EffectOracle for F {
    fn effect_of(&self, type_id: &str) -> Option<SafetyTier> {
        self(type_id)
    }
}

/// The node-pack catalog knows what its types do: a side-effectful capability or role
/// writes, an `integration` type otherwise reads outside state, anything else is pure.
impl EffectOracle for crate::catalog::Catalog {
    fn effect_of(&self, type_id: &str) -> Option<SafetyTier> {
        let node = self.node_type(type_id)?;
        Some(if self.is_side_effectful(type_id) {
            SafetyTier::Write
        } else if node.category() == "integration" {
            SafetyTier::Read
        } else {
            SafetyTier::Pure
        })
    }
}

/// A node's effect and the reason for it: a short phrase, shown in `sideEffects.description`
/// as "reason: nodes".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeEffect {
    pub tier: SafetyTier,
    pub reason: String,
}

/// Classify one node (a fragment node or a workflow node).
///
/// `inherited` are capabilities that apply to every node (a chain's `capabilities`).
pub fn node_effect(node: &Value, inherited: &[&str], oracle: Option<&dyn EffectOracle>) -> NodeEffect {
    let own_caps = capabilities(node);
    let declared = if own_caps.contains(&"side-effectful") {
        Some("side-effectful capability")
    } else if inherited.contains(&"side-effectful") {
        Some("the chain's side-effectful capability")
    } else if node.get("irreversibleEffect") == Some(&Value::Bool(true)) {
        Some("irreversible effect")
    } else if node.get("compensation").is_some_and(Value::is_object) {
        Some("compensating action declared")
    } else {
        None
    };
    if let Some(reason) = declared {
        return NodeEffect { tier: SafetyTier::Write, reason: reason.to_owned() };
    }
    let type_id = node.get("typeId").and_then(Value::as_str).unwrap_or("");
    if let Some(tier) = oracle.and_then(|o| o.effect_of(type_id)) {
        return NodeEffect { tier, reason: format!("catalog: `{type_id}` is {tier}") };
    }
    type_effect(type_id, node.get("config"))
}

/// The naming heuristic for types no catalog knows.
fn type_effect(type_id: &str, config: Option<&Value>) -> NodeEffect {
    let effect = |tier, reason: String| NodeEffect { tier, reason };
    if is_http_type(type_id) {
        let last = last_segment(type_id);
        let method = config.and_then(|c| c.get("method"));
        return match (last.as_str(), method) {
            ("get" | "head", _) => effect(SafetyTier::Read, format!("`{type_id}` is an HTTP read")),
            (_, Some(Value::String(m))) if is_safe_method(m) => {
                effect(SafetyTier::Read, format!("`{type_id}` uses HTTP {}", m.to_ascii_uppercase()))
            }
            (_, Some(Value::String(m))) if !m.contains("{{") => {
                effect(SafetyTier::Write, format!("`{type_id}` uses HTTP {}", m.to_ascii_uppercase()))
            }
            ("fetch" | "request", None) => effect(SafetyTier::Read, format!("`{type_id}` fetches with HTTP GET")),
            // An HTTP call whose method is not fixed may change state: take the safe side.
            _ => effect(SafetyTier::Write, format!("`{type_id}` makes HTTP calls whose method is not fixed")),
        };
    }
    let words = type_words(type_id);
    if let Some(verb) = words.iter().find(|w| WRITE_VERBS.contains(&w.as_str())) {
        return effect(SafetyTier::Write, format!("`{type_id}` looks like a write (`{verb}`)"));
    }
    if let Some(verb) = words.iter().find(|w| READ_VERBS.contains(&w.as_str())) {
        return effect(SafetyTier::Read, format!("`{type_id}` looks like a read (`{verb}`)"));
    }
    effect(SafetyTier::Pure, format!("`{type_id}` has no known outside effect"))
}

/// Verbs in a type's last segment that mean "changes outside state". Checked before the
/// read verbs, so a type named like both counts as a writer.
const WRITE_VERBS: [&str; 26] = [
    "create",
    "add",
    "send",
    "post",
    "put",
    "patch",
    "update",
    "delete",
    "remove",
    "set",
    "insert",
    "upsert",
    "append",
    "write",
    "save",
    "store",
    "persist",
    "upload",
    "ingest",
    "apply",
    "submit",
    "publish",
    "sync",
    "notify",
    "enroll",
    "transition",
];

/// Verbs that mean "reads outside state" (http get, search, list, query, …).
const READ_VERBS: [&str; 10] = ["get", "fetch", "search", "list", "query", "read", "lookup", "retrieve", "find", "rag"];

fn is_safe_method(method: &str) -> bool {
    matches!(method.to_ascii_uppercase().as_str(), "GET" | "HEAD" | "OPTIONS")
}

/// Types that make HTTP calls: an `http` segment (`core.openwop.http.get`) or `web.fetch`.
pub fn is_http_type(type_id: &str) -> bool {
    let segments: Vec<&str> = type_id.split('.').collect();
    segments.contains(&"http") || segments.ends_with(&["web", "fetch"])
}

fn last_segment(type_id: &str) -> String {
    type_id.rsplit('.').next().unwrap_or("").to_ascii_lowercase()
}

/// The words of a type's last segment, split on `-`, `_` and camelCase humps, lowercased:
/// `list-deals` → [list, deals]; `approvalGate` → [approval, gate].
fn type_words(type_id: &str) -> Vec<String> {
    let last = type_id.rsplit('.').next().unwrap_or("");
    let mut words = Vec::new();
    let mut current = String::new();
    for c in last.chars() {
        if c == '-' || c == '_' {
            words.push(std::mem::take(&mut current));
        } else if c.is_ascii_uppercase() {
            words.push(std::mem::take(&mut current));
            current.push(c.to_ascii_lowercase());
        } else {
            current.push(c);
        }
    }
    words.push(current);
    words.retain(|w| !w.is_empty());
    words
}

pub fn capabilities(node: &Value) -> Vec<&str> {
    node.get("capabilities").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

/// Whether running the node waits for a human approval: an approval-gate type, or
/// `requiresApproval: true` on the node, its config or its compensation.
pub fn needs_approval(node: &Value) -> bool {
    let type_id = node.get("typeId").and_then(Value::as_str).unwrap_or("");
    let is_gate = type_words(type_id).iter().any(|w| w == "approval");
    let flagged = |v: Option<&Value>| v.and_then(|v| v.get("requiresApproval")) == Some(&Value::Bool(true));
    is_gate || flagged(Some(node)) || flagged(node.get("config")) || flagged(node.get("compensation"))
}

/// The host (and port) an HTTP URL reaches, when it is fixed in the text: `None` for URLs
/// built from parameters in the authority, for non-HTTP schemes, and for malformed text.
/// User info is dropped, so a password in the URL never reaches the output.
pub fn egress_host(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let valid = !host_port.is_empty()
        && host_port.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    valid.then(|| host_port.to_ascii_lowercase())
}

/// Config keys that hold the URL an HTTP node calls.
pub const URL_KEYS: [&str; 3] = ["url", "baseUrl", "endpoint"];

/// Every numeric `timeoutMs` / `timeoutSeconds` anywhere in a config, in milliseconds, and the
/// pointers (relative to the config) of timeouts that are present but not numbers.
pub fn config_timeouts(config: &Value) -> (Vec<f64>, Vec<String>) {
    let mut found = Vec::new();
    let mut unknown = Vec::new();
    // Pointers are built only for the timeouts reported as unknown.
    crate::json_walk::walk(config, "", |at, value| {
        let scale = match at.key() {
            Some("timeoutMs") => 1.0,
            Some("timeoutSeconds") => 1000.0,
            _ => return true,
        };
        match value.as_f64() {
            Some(n) if n.is_finite() && n >= 0.0 => found.push(n * scale),
            _ => unknown.push(at.pointer()),
        }
        false
    });
    (found, unknown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tier(node: Value) -> SafetyTier {
        node_effect(&node, &[], None).tier
    }

    #[test]
    fn the_catalog_answers_from_capabilities_role_and_category() {
        let catalog = crate::catalog::Catalog::load(&[crate::pack::bundled_dir().join("vendor.chainsmith.nodes")]);
        assert_eq!(catalog.effect_of("vendor.chainsmith.pager-send"), Some(SafetyTier::Write));
        assert_eq!(catalog.effect_of("vendor.chainsmith.classify"), Some(SafetyTier::Pure));
        assert_eq!(catalog.effect_of("vendor.nobody.unknown"), None);
        // Catalogued types take the catalog's answer in projections.
        let node = json!({"typeId": "vendor.chainsmith.classify"});
        assert_eq!(node_effect(&node, &[], Some(&catalog)).tier, SafetyTier::Pure);
    }

    #[test]
    fn exec_and_unknown_tiers_are_refused_with_a_code() {
        let err = SafetyTier::parse("exec").unwrap_err();
        assert_eq!(err.code, code::TOOL_SAFETY_TIER_INVALID);
        assert_eq!(SafetyTier::parse("bogus").unwrap_err().code, code::TOOL_SAFETY_TIER_INVALID);
        assert_eq!("read".parse::<SafetyTier>().unwrap(), SafetyTier::Read);
    }

    #[test]
    fn declarations_make_a_writer_whatever_the_type() {
        assert_eq!(tier(json!({"typeId": "core.flow.noop", "capabilities": ["side-effectful"]})), SafetyTier::Write);
        assert_eq!(tier(json!({"typeId": "core.flow.noop", "irreversibleEffect": true})), SafetyTier::Write);
        assert_eq!(tier(json!({"typeId": "core.flow.noop", "compensation": {"nodeTypeId": "x"}})), SafetyTier::Write);
        let inherited = node_effect(&json!({"typeId": "core.flow.noop"}), &["side-effectful"], None);
        assert_eq!(inherited.tier, SafetyTier::Write);
        assert_eq!(tier(json!({"typeId": "core.flow.noop", "irreversibleEffect": false})), SafetyTier::Pure);
    }

    #[test]
    fn http_types_read_unless_the_method_writes() {
        assert_eq!(tier(json!({"typeId": "core.openwop.http.get"})), SafetyTier::Read);
        assert_eq!(tier(json!({"typeId": "core.openwop.http.fetch"})), SafetyTier::Read);
        assert_eq!(tier(json!({"typeId": "core.web.fetch"})), SafetyTier::Read);
        assert_eq!(tier(json!({"typeId": "core.openwop.http.fetch", "config": {"method": "post"}})), SafetyTier::Write);
        assert_eq!(tier(json!({"typeId": "core.openwop.http.fetch", "config": {"method": "HEAD"}})), SafetyTier::Read);
        let templated = json!({"typeId": "core.openwop.http.fetch", "config": {"method": "{{params.m}}"}});
        assert_eq!(tier(templated), SafetyTier::Write);
        assert_eq!(tier(json!({"typeId": "core.openwop.http.openapi-call"})), SafetyTier::Write);
    }

    #[test]
    fn naming_heuristic_reads_and_writes() {
        assert_eq!(tier(json!({"typeId": "core.web.search"})), SafetyTier::Read);
        assert_eq!(tier(json!({"typeId": "feature.crm.nodes.list-deals"})), SafetyTier::Read);
        assert_eq!(tier(json!({"typeId": "core.storage.kv-get"})), SafetyTier::Read);
        assert_eq!(tier(json!({"typeId": "core.storage.kv-set"})), SafetyTier::Write);
        assert_eq!(tier(json!({"typeId": "feature.crm.nodes.create-task"})), SafetyTier::Write);
        assert_eq!(tier(json!({"typeId": "core.openwop.integration.email-send"})), SafetyTier::Write);
        // Both kinds of verb: the safe side.
        assert_eq!(tier(json!({"typeId": "x.sync-list"})), SafetyTier::Write);
        assert_eq!(tier(json!({"typeId": "core.ai.chatCompletion"})), SafetyTier::Pure);
        // Words, not substrings: "settings" is not "set", "targets" not "get".
        assert_eq!(tier(json!({"typeId": "x.settings-targets"})), SafetyTier::Pure);
        assert_eq!(tier(json!({})), SafetyTier::Pure);
    }

    #[test]
    fn the_oracle_decides_known_types_but_not_declarations() {
        let oracle = |t: &str| (t == "core.ai.chatCompletion").then_some(SafetyTier::Write);
        let known = node_effect(&json!({"typeId": "core.ai.chatCompletion"}), &[], Some(&oracle));
        assert_eq!(known.tier, SafetyTier::Write);
        assert!(known.reason.contains("catalog"));
        let pure_says_catalog = |_: &str| Some(SafetyTier::Pure);
        let declared =
            node_effect(&json!({"typeId": "x.y", "capabilities": ["side-effectful"]}), &[], Some(&pure_says_catalog));
        assert_eq!(declared.tier, SafetyTier::Write);
        let unknown = node_effect(&json!({"typeId": "core.web.search"}), &[], Some(&oracle));
        assert_eq!(unknown.tier, SafetyTier::Read);
    }

    #[test]
    fn approval_detection() {
        assert!(needs_approval(&json!({"typeId": "core.chat.approvalGate"})));
        assert!(needs_approval(&json!({"typeId": "core.hitl.approval-request"})));
        assert!(needs_approval(&json!({"typeId": "x.y", "config": {"requiresApproval": true}})));
        assert!(needs_approval(
            &json!({"typeId": "x.y", "compensation": {"nodeTypeId": "z", "requiresApproval": true}})
        ));
        assert!(!needs_approval(&json!({"typeId": "x.y", "compensation": {"requiresApproval": false}})));
        assert!(!needs_approval(&json!({"typeId": "core.clarificationGate"})));
    }

    #[test]
    fn egress_hosts_are_fixed_hosts_only() {
        assert_eq!(
            egress_host("https://api.github.com/repos/{{params.repo}}/issues").as_deref(),
            Some("api.github.com")
        );
        assert_eq!(egress_host("http://user:pw@Example.com:8080?q=1").as_deref(), Some("example.com:8080"));
        assert_eq!(egress_host("{{params.url}}"), None);
        assert_eq!(egress_host("https://{{params.host}}/x"), None);
        assert_eq!(egress_host("ftp://example.com"), None);
        assert_eq!(egress_host("https:///nohost"), None);
    }

    #[test]
    fn timeouts_are_found_at_any_depth() {
        let config =
            json!({"timeoutMs": 1500, "retry": {"timeoutSeconds": 2}, "steps": [{"timeoutMs": "{{params.t}}"}]});
        let (found, unknown) = config_timeouts(&config);
        let mut found = found;
        found.sort_by(f64::total_cmp);
        assert_eq!(found, [1500.0, 2000.0]);
        assert_eq!(unknown, ["/steps/0/timeoutMs"]);
        assert_eq!(config_timeouts(&json!({"timeoutMs": -5})).1, ["/timeoutMs"]);
    }
}

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
/// catalog, a host's tier file). `None` means "not known here": the next source is asked, and
/// when none knows, the effect is unknown and taken as a write.
pub trait EffectOracle {
    fn effect_of(&self, type_id: &str) -> Option<SafetyTier>;
    /// Whether the type is flagged as having an irreversible effect.
    fn irreversible(&self, _type_id: &str) -> bool {
        false
    }
    /// The timeout (ms) the type documents as its default, when it does.
    fn default_timeout_ms(&self, _type_id: &str) -> Option<f64> {
        None
    }
}

impl<F: Fn(&str) -> Option<SafetyTier>> EffectOracle for F {
    fn effect_of(&self, type_id: &str) -> Option<SafetyTier> {
        self(type_id)
    }
}

/// The node-pack catalog knows what its types do: a side-effectful capability or role
/// writes, an `integration` type otherwise reads outside state, anything else is pure.
/// `irreversibleEffect: true` on the node entry flags an irreversible type; a config schema
/// `default` for `timeoutMs` / `timeoutSeconds` is the type's documented timeout.
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

    fn irreversible(&self, type_id: &str) -> bool {
        self.node_type(type_id).is_some_and(|n| n.entry().get("irreversibleEffect") == Some(&Value::Bool(true)))
    }

    fn default_timeout_ms(&self, type_id: &str) -> Option<f64> {
        let props = self.node_type(type_id)?.config_schema()?.get("properties")?;
        let at = |key: &str, scale: f64| props.pointer(&format!("/{key}/default"))?.as_f64().map(|n| n * scale);
        at("timeoutMs", 1.0).or_else(|| at("timeoutSeconds", 1000.0)).filter(|n| n.is_finite() && *n > 0.0)
    }
}

/// A host's own tier assignments (RFC 0112: `safetyTier` is the host's to assign), read from
/// `{"typeIds": {"<typeId>": "read", …}, "toolIds": {"<toolId>": "write", …}}`. Per-typeId
/// tiers are evidence about nodes; a per-toolId tier sets the tool's tier as `--safety-tier` does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostTiers {
    type_ids: std::collections::HashMap<String, SafetyTier>,
    tool_ids: std::collections::HashMap<String, SafetyTier>,
}

impl HostTiers {
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let doc: Value = crate::fsio::json::from_str(text).map_err(|e| {
            Error::new(code::INVALID_REQUEST, format!("the host tier file is not JSON: {e}"))
                .with("line", e.line())
                .with("column", e.column())
        })?;
        let Some(root) = doc.as_object() else {
            return Err(Error::new(code::INVALID_REQUEST, "the host tier file must be a JSON object").with("path", ""));
        };
        let mut out = HostTiers::default();
        for (key, value) in root {
            let target = match key.as_str() {
                "typeIds" => &mut out.type_ids,
                "toolIds" => &mut out.tool_ids,
                _ => {
                    return Err(Error::new(
                        code::INVALID_REQUEST,
                        format!("the host tier file has an unknown member `{key}`; it takes `typeIds` and `toolIds`"),
                    )
                    .with("path", crate::error::pointer_join("", key)));
                }
            };
            let Some(map) = value.as_object() else {
                return Err(Error::new(code::INVALID_REQUEST, format!("`{key}` must map ids to tiers"))
                    .with("path", crate::error::pointer_join("", key)));
            };
            for (id, tier) in map {
                let at = crate::error::pointer_join(&crate::error::pointer_join("", key), id);
                let tier = tier
                    .as_str()
                    .ok_or_else(|| {
                        Error::new(code::TOOL_SAFETY_TIER_INVALID, format!("the tier of `{id}` is not a string"))
                    })
                    .and_then(SafetyTier::parse)
                    .map_err(|e| e.with("path", at.as_str()))?;
                target.insert(id.clone(), tier);
            }
        }
        Ok(out)
    }

    /// The tier the host assigns to a whole tool.
    pub fn tool_tier(&self, tool_id: &str) -> Option<SafetyTier> {
        self.tool_ids.get(tool_id).copied()
    }
}

impl EffectOracle for HostTiers {
    fn effect_of(&self, type_id: &str) -> Option<SafetyTier> {
        let bare = crate::pack::v2::split_pin(type_id).0;
        self.type_ids.get(type_id).or_else(|| self.type_ids.get(bare)).copied()
    }
}

/// Several sources asked in order; the first that knows a type answers.
pub struct Oracles<'a>(pub Vec<&'a dyn EffectOracle>);

impl EffectOracle for Oracles<'_> {
    fn effect_of(&self, type_id: &str) -> Option<SafetyTier> {
        self.0.iter().find_map(|o| o.effect_of(type_id))
    }
    fn irreversible(&self, type_id: &str) -> bool {
        self.0.iter().any(|o| o.irreversible(type_id))
    }
    fn default_timeout_ms(&self, type_id: &str) -> Option<f64> {
        self.0.iter().find_map(|o| o.default_timeout_ms(type_id))
    }
}

/// A node's effect and the reason for it: a short phrase, shown in `sideEffects.description`
/// as "reason: nodes". `known` is false when no evidence says what the node does; such a node
/// counts as a writer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeEffect {
    pub tier: SafetyTier,
    pub reason: String,
    pub known: bool,
}

/// The reason given for a node nothing says anything about.
pub const UNKNOWN_REASON: &str = "effect unknown (no capability, catalog entry or declaration), taken as a write";

/// Classify one node (a fragment node or a workflow node) from evidence only: its own or
/// inherited declarations, then the oracle (catalog, host tiers), then the reserved Core
/// types chainsmith knows. Anything else is unknown, and taken as a write.
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
        return NodeEffect { tier: SafetyTier::Write, reason: reason.to_owned(), known: true };
    }
    let type_id = node.get("typeId").and_then(Value::as_str).unwrap_or("");
    if let Some(tier) = oracle.and_then(|o| o.effect_of(type_id)) {
        return NodeEffect { tier, reason: format!("catalog: `{type_id}` is {tier}"), known: true };
    }
    core_effect(type_id, node.get("config")).unwrap_or_else(|| NodeEffect {
        tier: SafetyTier::Write,
        reason: UNKNOWN_REASON.to_owned(),
        known: false,
    })
}

/// Reserved Core types whose effect the OpenWOP specs fix: control flow and triggers are
/// pure, a mock agent is pure, and the HTTP types read or write by their method. Every other
/// type (LLM calls, gates, connectors, vendor types) needs a catalog entry or a declaration.
fn core_effect(type_id: &str, config: Option<&Value>) -> Option<NodeEffect> {
    let bare = crate::pack::v2::split_pin(type_id).0;
    let effect = |tier, reason: String| Some(NodeEffect { tier, reason, known: true });
    if CORE_PURE.contains(&bare) || bare.starts_with("core.trigger.") {
        return effect(SafetyTier::Pure, format!("`{bare}` is Core control flow"));
    }
    if !CORE_HTTP.contains(&bare) {
        return None;
    }
    let method = config.and_then(|c| c.get("method"));
    match (bare, method) {
        ("core.openwop.http.get", _) => effect(SafetyTier::Read, format!("`{bare}` is an HTTP read")),
        (_, Some(Value::String(m))) if is_safe_method(m) => {
            effect(SafetyTier::Read, format!("`{bare}` uses HTTP {}", m.to_ascii_uppercase()))
        }
        (_, Some(Value::String(m))) if !m.contains("{{") => {
            effect(SafetyTier::Write, format!("`{bare}` uses HTTP {}", m.to_ascii_uppercase()))
        }
        (_, None) => effect(SafetyTier::Read, format!("`{bare}` fetches with HTTP GET")),
        // An HTTP call whose method is not fixed may change state: take the safe side.
        _ => effect(SafetyTier::Write, format!("`{bare}` makes HTTP calls whose method is not fixed")),
    }
}

/// Core types with no outside effect (besides the `core.trigger.*` family).
const CORE_PURE: [&str; 10] = [
    "core.flow.noop",
    "core.flow.if",
    "core.flow.router",
    "core.flow.aggregate-numeric",
    "core.flow.aggregate-text",
    "core.flow.aggregate-table",
    "core.fail",
    "core.openwop.http.webhook-verify",
    "core.conformance.mock-agent",
    "core.flow.merge",
];

/// Core HTTP client types: their method decides read or write.
const CORE_HTTP: [&str; 3] = ["core.openwop.http.get", "core.openwop.http.fetch", "core.web.fetch"];

/// Core types that run a child workflow or chain: their effect is the child's.
pub const SUB_RUN_TYPES: [&str; 2] = ["core.subWorkflow", "core.dispatch"];

fn is_safe_method(method: &str) -> bool {
    matches!(method.to_ascii_uppercase().as_str(), "GET" | "HEAD" | "OPTIONS")
}

/// Types that make HTTP calls: an `http` segment (`core.openwop.http.get`) or `web.fetch`.
pub fn is_http_type(type_id: &str) -> bool {
    let segments: Vec<&str> = type_id.split('.').collect();
    segments.contains(&"http") || segments.ends_with(&["web", "fetch"])
}

/// A type whose output is a draft for a person to review: its last segment ends in the word
/// `draft` (`core.email.draft`, `update-section-draft`).
pub fn is_draft_type(type_id: &str) -> bool {
    type_words(crate::pack::v2::split_pin(type_id).0).last().is_some_and(|w| w == "draft")
}

/// A step that waits for a person: approval and clarification gates, human-in-the-loop types.
pub fn is_human_step(type_id: &str) -> bool {
    let words = type_words(type_id);
    words.iter().any(|w| matches!(w.as_str(), "approval" | "clarification")) || type_id.split('.').any(|s| s == "hitl")
}

/// An LLM or agent step: `core.ai.*`, or an agent runner.
pub fn is_model_step(type_id: &str) -> bool {
    type_id.starts_with("core.ai.") || type_words(type_id).iter().any(|w| w == "agent")
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
    fn names_are_no_evidence_and_unknown_types_write() {
        // A read-sounding name is a guess in the unsafe direction: unknown, taken as a write.
        for t in ["feature.crm.nodes.list-deals", "core.web.search", "core.ai.chatCompletion", "x.settings", ""] {
            let e = node_effect(&json!({"typeId": t}), &[], None);
            assert_eq!((e.tier, e.known), (SafetyTier::Write, false), "{t}");
            assert_eq!(e.reason, UNKNOWN_REASON);
        }
        for t in ["core.flow.noop", "core.flow.if", "core.trigger.schedule", "core.fail@1.0.0"] {
            let e = node_effect(&json!({"typeId": t}), &[], None);
            assert_eq!((e.tier, e.known), (SafetyTier::Pure, true), "{t}");
        }
    }

    #[test]
    fn the_oracle_decides_known_types_but_not_declarations() {
        let oracle = |t: &str| (t == "core.ai.chatCompletion").then_some(SafetyTier::Write);
        let known = node_effect(&json!({"typeId": "core.ai.chatCompletion"}), &[], Some(&oracle));
        assert_eq!(known.tier, SafetyTier::Write);
        assert!(known.known && known.reason.contains("catalog"));
        let pure_says_catalog = |_: &str| Some(SafetyTier::Pure);
        let declared =
            node_effect(&json!({"typeId": "x.y", "capabilities": ["side-effectful"]}), &[], Some(&pure_says_catalog));
        assert_eq!(declared.tier, SafetyTier::Write);
        let read = |_: &str| Some(SafetyTier::Read);
        assert_eq!(node_effect(&json!({"typeId": "x.list"}), &[], Some(&read)).tier, SafetyTier::Read);
        // Sources are asked in order; the first that knows answers.
        let both = Oracles(vec![&oracle, &read]);
        assert_eq!(both.effect_of("core.ai.chatCompletion"), Some(SafetyTier::Write));
        assert_eq!(both.effect_of("x.other"), Some(SafetyTier::Read));
    }

    #[test]
    fn host_tier_files() {
        let tiers = HostTiers::from_json(r#"{"typeIds": {"x.list": "read"}, "toolIds": {"p:c": "write"}}"#).unwrap();
        assert_eq!(tiers.effect_of("x.list@1.0.0"), Some(SafetyTier::Read));
        assert_eq!(tiers.tool_tier("p:c"), Some(SafetyTier::Write));
        let exec = HostTiers::from_json(r#"{"typeIds": {"x.run": "exec"}}"#).unwrap_err();
        assert_eq!(
            (exec.code, &exec.details["path"]),
            (code::TOOL_SAFETY_TIER_INVALID, &Value::from("/typeIds/x.run"))
        );
        for bad in ["[]", "{\"tiers\": {}}", "{\"typeIds\": []}", "nope"] {
            assert_eq!(HostTiers::from_json(bad).unwrap_err().code, code::INVALID_REQUEST, "{bad}");
        }
    }

    #[test]
    fn draft_human_and_model_steps() {
        assert!(is_draft_type("core.email.draft") && is_draft_type("feature.cms.nodes.update-section-draft"));
        assert!(!is_draft_type("feature.cms.nodes.get-draft-page"));
        assert!(is_human_step("core.chat.approvalGate") && is_human_step("core.clarificationGate"));
        assert!(is_human_step("core.hitl.approval-request") && !is_human_step("core.flow.if"));
        assert!(is_model_step("core.ai.callPrompt") && is_model_step("local.openwop-app.agent-runner"));
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

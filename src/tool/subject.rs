//! One shape for the two things that can be published as a tool, a pack's chain or a whole
//! workflow definition, with the facts both projections derive from.

use super::effects::{self, EffectOracle, NodeEffect, SafetyTier};
use crate::error::{Finding, pointer_join};
use crate::pack::{Chain, Pack};
use serde_json::{Map, Value, json};

/// What is being published.
pub(crate) struct Subject<'a> {
    /// Set for chains, so findings name the chain.
    pub chain_id: Option<&'a str>,
    /// Pointer of the subject inside its document (`/chains/3`, or the root of a workflow).
    pub base: String,
    pub id: &'a str,
    /// The member holding `id` (`chainId` or `id`).
    pub id_key: &'static str,
    pub version: &'a str,
    pub title: &'a str,
    pub description: &'a str,
    pub default_tool_id: String,
    pub input: Input<'a>,
    pub outputs: Option<&'a Map<String, Value>>,
    pub nodes: Vec<NodeFacts<'a>>,
    /// The compensation policy's `retry` (chain `compensation` / workflow `settings.compensation`).
    pub policy_retry: Option<&'a Value>,
    /// A workflow's own run timeout (`settings.timeout`, ms), which bounds the run as a whole.
    pub run_timeout_ms: Option<f64>,
    pub cacheable: bool,
}

/// Where the tool's argument schema comes from.
pub(crate) enum Input<'a> {
    /// Written in the document at `pointer`.
    Declared { schema: &'a Value, pointer: String },
    /// Built by chainsmith from other declarations (a workflow's `variables`).
    Derived(Value),
}

impl Input<'_> {
    pub fn schema(&self) -> &Value {
        match self {
            Input::Declared { schema, .. } => schema,
            Input::Derived(schema) => schema,
        }
    }

    /// Pointer in the source document for a pointer inside the schema.
    pub fn source_pointer(&self, inner: &str) -> String {
        match self {
            Input::Declared { pointer, .. } => format!("{pointer}{inner}"),
            Input::Derived(_) => inner.to_owned(),
        }
    }
}

/// The facts about one node that the projections use.
pub(crate) struct NodeFacts<'a> {
    pub pointer: String,
    pub raw: &'a Value,
    pub id: &'a str,
    pub type_id: &'a str,
    pub effect: NodeEffect,
    pub irreversible: bool,
    pub compensation_type: Option<&'a str>,
    pub needs_approval: bool,
}

impl NodeFacts<'_> {
    fn new<'a>(
        pointer: String,
        raw: &'a Value,
        inherited: &[&str],
        oracle: Option<&dyn EffectOracle>,
    ) -> NodeFacts<'a> {
        NodeFacts {
            pointer,
            raw,
            id: str_of(raw, "id"),
            type_id: str_of(raw, "typeId"),
            effect: effects::node_effect(raw, inherited, oracle),
            irreversible: raw.get("irreversibleEffect") == Some(&Value::Bool(true)),
            compensation_type: raw.pointer("/compensation/nodeTypeId").and_then(Value::as_str),
            needs_approval: effects::needs_approval(raw),
        }
    }

    pub fn config(&self) -> Option<&Value> {
        self.raw.get("config")
    }
}

/// MiRuntime `permissionClass`, ordered from least to most guarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Permission {
    ReadOnly,
    ReversibleWrite,
    IrreversibleWrite,
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::ReadOnly => "read-only",
            Permission::ReversibleWrite => "reversible-write",
            Permission::IrreversibleWrite => "irreversible-write",
        }
    }
}

impl<'a> Subject<'a> {
    pub fn from_chain(pack: &'a Pack, chain: &'a Chain, oracle: Option<&dyn EffectOracle>) -> Self {
        let base = chain.pointer();
        let inherited = chain.capabilities();
        let nodes = chain
            .nodes()
            .iter()
            .enumerate()
            .map(|(i, node)| NodeFacts::new(format!("{base}/dag/nodes/{i}"), node, &inherited, oracle))
            .collect();
        let chain_id = chain.chain_id();
        // `vendor.acme.tiles` + `vendor.acme.tiles.triage` → `vendor.acme.tiles:triage`.
        let local_id = chain_id
            .strip_prefix(pack.name())
            .and_then(|rest| rest.strip_prefix('.'))
            .filter(|rest| !rest.is_empty() && !pack.name().is_empty())
            .unwrap_or(chain_id);
        Subject {
            chain_id: Some(chain_id),
            id: chain_id,
            id_key: "chainId",
            version: chain.version(),
            title: chain.label(),
            description: chain.description(),
            default_tool_id: format!("{}:{local_id}", pack.name()),
            input: Input::Declared { schema: chain.parameters(), pointer: format!("{base}/parameters") },
            outputs: chain.outputs(),
            nodes,
            policy_retry: chain.compensation().and_then(|c| c.get("retry")),
            run_timeout_ms: None,
            cacheable: inherited.contains(&"cacheable"),
            base,
        }
    }

    pub fn from_workflow(workflow: &'a Value, oracle: Option<&dyn EffectOracle>) -> Self {
        let nodes: Vec<NodeFacts> = array_of(workflow, "nodes")
            .iter()
            .enumerate()
            .map(|(i, node)| NodeFacts::new(format!("/nodes/{i}"), node, &[], oracle))
            .collect();
        // A workflow is cacheable when every node is; one uncacheable node spoils the result.
        let cacheable = !nodes.is_empty() && nodes.iter().all(|n| effects::capabilities(n.raw).contains(&"cacheable"));
        let id = str_of(workflow, "id");
        let name = str_of(workflow, "name");
        Subject {
            chain_id: None,
            base: String::new(),
            id,
            id_key: "id",
            version: str_of(workflow, "version"),
            title: if name.is_empty() { id } else { name },
            description: str_of(workflow, "description"),
            default_tool_id: format!("openwop:{id}"),
            input: workflow_input(workflow),
            outputs: None,
            nodes,
            policy_retry: workflow.pointer("/settings/compensation/retry"),
            run_timeout_ms: workflow.pointer("/settings/timeout").and_then(Value::as_f64).filter(|ms| *ms >= 1.0),
            cacheable,
        }
    }

    /// Attach the chain id (when there is one) to a finding.
    pub fn finding(&self, finding: Finding) -> Finding {
        match self.chain_id {
            Some(chain) => finding.in_chain(chain),
            None => finding,
        }
    }

    pub fn pointer(&self, token: &str) -> String {
        pointer_join(&self.base, token)
    }

    pub fn writers(&self) -> impl Iterator<Item = &NodeFacts<'a>> {
        self.nodes.iter().filter(|n| n.effect.tier == SafetyTier::Write)
    }

    /// The strongest effect of any node.
    pub fn derived_tier(&self) -> SafetyTier {
        self.nodes.iter().map(|n| n.effect.tier).max().unwrap_or(SafetyTier::Pure)
    }

    /// Irreversible when any node says so, reversible when every writer declares a
    /// compensation, and irreversible otherwise: an undeclared inverse is no inverse.
    pub fn permission(&self) -> Permission {
        if self.nodes.iter().any(|n| n.irreversible) {
            return Permission::IrreversibleWrite;
        }
        let mut writers = self.writers().peekable();
        if writers.peek().is_none() {
            Permission::ReadOnly
        } else if writers.all(|n| n.compensation_type.is_some()) {
            Permission::ReversibleWrite
        } else {
            Permission::IrreversibleWrite
        }
    }

    pub fn gated(&self) -> bool {
        self.nodes.iter().any(|n| n.needs_approval)
    }
}

/// A workflow's arguments: its `configurableSchema` (the per-run input contract hosts validate
/// against) when declared; otherwise a schema built from its `variables`.
fn workflow_input(workflow: &Value) -> Input<'_> {
    if let Some(schema) = workflow.get("configurableSchema") {
        return Input::Declared { schema, pointer: "/configurableSchema".into() };
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for var in array_of(workflow, "variables") {
        let name = str_of(var, "name");
        if name.is_empty() {
            continue;
        }
        let mut prop = Map::new();
        let var_type = str_of(var, "type");
        if matches!(var_type, "string" | "number" | "boolean" | "object" | "array") {
            prop.insert("type".into(), json!(var_type));
        }
        if let Some(description) = var.get("description").filter(|d| d.is_string()) {
            prop.insert("description".into(), description.clone());
        }
        if var_type == "string"
            && let Some(format) = var.get("format").filter(|f| f.is_string())
        {
            prop.insert("format".into(), format.clone());
        }
        if var.get("sensitive") == Some(&Value::Bool(true)) {
            prop.insert("writeOnly".into(), Value::Bool(true));
            prop.insert("x-openwop-sensitive".into(), Value::Bool(true));
        } else if let Some(default) = var.get("defaultValue") {
            prop.insert("default".into(), default.clone());
        }
        if var.get("required") == Some(&Value::Bool(true)) {
            required.push(json!(name));
        }
        properties.insert(name.to_owned(), Value::Object(prop));
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    Input::Derived(schema)
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn array_of<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::{LoadOptions, load_bytes};

    fn chain_pack(chains: Value) -> Pack {
        let manifest = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
            "engines": {"openwop": ">=1"}, "chains": chains});
        load_bytes(std::path::Path::new("mem.json"), manifest.to_string().as_bytes(), LoadOptions::default()).unwrap()
    }

    fn chain(id: &str, nodes: Value, extra: Value) -> Value {
        let mut c = json!({"chainId": id, "version": "1.0.0", "label": "L", "description": "D",
            "parameters": {"type": "object", "properties": {}}, "dag": {"nodes": nodes, "edges": []}});
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        c
    }

    #[test]
    fn tool_id_strips_the_pack_name_prefix_only_at_a_segment_boundary() {
        let pack = chain_pack(json!([
            chain("vendor.acme.tiles.triage", json!([{"id": "a", "typeId": "core.flow.noop"}]), json!({})),
            chain("vendor.acme.tilesx", json!([{"id": "a", "typeId": "core.flow.noop"}]), json!({})),
            chain("support.route", json!([{"id": "a", "typeId": "core.flow.noop"}]), json!({})),
        ]));
        let ids: Vec<String> =
            pack.chains.iter().map(|c| Subject::from_chain(&pack, c, None).default_tool_id).collect();
        assert_eq!(
            ids,
            ["vendor.acme.tiles:triage", "vendor.acme.tiles:vendor.acme.tilesx", "vendor.acme.tiles:support.route"]
        );
    }

    #[test]
    fn permission_rules() {
        let node = |extra: Value| {
            let mut n = json!({"id": "n", "typeId": "core.flow.noop"});
            for (k, v) in extra.as_object().unwrap() {
                n[k] = v.clone();
            }
            n
        };
        let cases = [
            (json!([node(json!({}))]), json!({}), Permission::ReadOnly),
            (json!([node(json!({"compensation": {"nodeTypeId": "x.undo"}}))]), json!({}), Permission::ReversibleWrite),
            (json!([node(json!({"irreversibleEffect": true}))]), json!({}), Permission::IrreversibleWrite),
            // Every node inherits the chain capability; one lacks an inverse.
            (
                json!([node(json!({"compensation": {"nodeTypeId": "x.undo"}})), node(json!({}))]),
                json!({"capabilities": ["side-effectful"]}),
                Permission::IrreversibleWrite,
            ),
            (
                json!([node(json!({"compensation": {"nodeTypeId": "x.undo"}})), {"id": "s", "typeId": "core.web.search"}]),
                json!({}),
                Permission::ReversibleWrite,
            ),
            (json!([{"id": "w", "typeId": "x.create-thing"}]), json!({}), Permission::IrreversibleWrite),
        ];
        for (i, (nodes, extra, want)) in cases.into_iter().enumerate() {
            let pack = chain_pack(json!([chain("c.x", nodes, extra)]));
            assert_eq!(Subject::from_chain(&pack, &pack.chains[0], None).permission(), want, "case {i}");
        }
    }

    #[test]
    fn workflow_input_prefers_configurable_schema_then_variables() {
        let wf = json!({"id": "w", "configurableSchema": {"type": "object", "properties": {"a": {}}},
            "variables": [{"name": "v", "type": "string"}]});
        assert!(matches!(workflow_input(&wf), Input::Declared { ref pointer, .. } if pointer == "/configurableSchema"));
        let wf = json!({"id": "w", "variables": [
            {"name": "topic", "type": "string", "required": true, "format": "uri", "defaultValue": "x"},
            {"name": "key", "type": "string", "sensitive": true, "defaultValue": "do-not-copy"},
            {"name": "n", "type": "number", "format": "ignored-for-numbers"},
            {"type": "string"}]});
        let input = workflow_input(&wf);
        assert_eq!(
            input.schema(),
            &json!({"type": "object", "properties": {
                "topic": {"type": "string", "format": "uri", "default": "x"},
                "key": {"type": "string", "writeOnly": true, "x-openwop-sensitive": true},
                "n": {"type": "number"}}, "required": ["topic"]})
        );
    }

    #[test]
    fn workflow_cacheable_only_when_every_node_is() {
        let wf = json!({"nodes": [{"typeId": "a", "capabilities": ["cacheable"]}, {"typeId": "b"}]});
        assert!(!Subject::from_workflow(&wf, None).cacheable);
        let wf = json!({"nodes": [{"typeId": "a", "capabilities": ["cacheable"]}]});
        assert!(Subject::from_workflow(&wf, None).cacheable);
        assert!(!Subject::from_workflow(&json!({"nodes": []}), None).cacheable);
    }

    #[test]
    fn non_object_workflows_do_not_panic() {
        for wf in [json!(null), json!([1, 2]), json!({"nodes": "x", "variables": [1, null]})] {
            let s = Subject::from_workflow(&wf, None);
            assert_eq!(s.permission(), Permission::ReadOnly);
            assert_eq!(s.default_tool_id, "openwop:");
        }
    }
}

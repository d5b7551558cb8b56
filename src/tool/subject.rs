//! One shape for the two things that can be published as a tool, a pack's chain or a whole
//! workflow definition, with the facts both projections derive from.

use super::effects::{self, EffectOracle, NodeEffect, SafetyTier};
use crate::error::{Finding, code, pointer_join};
use crate::pack::{Chain, Pack};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

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
    /// Edges as (from, to) node indexes.
    pub edges: Vec<(usize, usize)>,
    /// A workflow's forward retry (`settings.maxRetries`).
    pub forward_retry: Option<u64>,
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
    /// Declared on the node, flagged by the catalog, or inside its sub-chain.
    pub irreversible: bool,
    pub compensation_type: Option<&'a str>,
    pub needs_approval: bool,
    /// The node produces a draft for a person to review.
    pub draft: bool,
    /// How long the node may run (ms) and where that figure comes from.
    pub timeout_ms: f64,
    pub timeout_source: TimeoutSource,
    /// For a node that runs a sibling chain: that chain's id.
    pub sub_chain: Option<String>,
}

/// Where a node's timeout comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeoutSource {
    /// `timeoutMs` / `timeoutSeconds` in the node's config.
    Declared,
    /// The catalog's config schema default.
    Catalog,
    /// The longest path of the sub-chain the node runs.
    SubChain,
    /// chainsmith's documented default for a person's step.
    HumanDefault,
    /// chainsmith's documented default for an LLM or agent step.
    ModelDefault,
    /// chainsmith's documented default for any other step.
    StepDefault,
}

/// chainsmith's documented default timeouts (docs/tool-projection.md), for nodes that declare
/// none: a person may take a day to answer; a model call or agent five minutes; a step a minute.
pub(crate) const HUMAN_DEFAULT_MS: f64 = 24.0 * 3600.0 * 1000.0;
pub(crate) const MODEL_DEFAULT_MS: f64 = 300.0 * 1000.0;
pub(crate) const STEP_DEFAULT_MS: f64 = 60.0 * 1000.0;

/// What a sub-chain contributes to the node that runs it.
struct ChildSummary {
    tier: SafetyTier,
    known: bool,
    irreversible: bool,
    gated: bool,
    timeout_ms: f64,
    reason: String,
}

impl NodeFacts<'_> {
    /// The node as an author knows it: its `name` with its id after it (`Fetch feed (fetch)`),
    /// the id alone when it has no name or the name is the id.
    pub fn title(&self) -> String {
        match self.raw.get("name").and_then(Value::as_str).map(str::trim) {
            Some(name) if !name.is_empty() && name != self.id => format!("{name} ({})", self.id),
            _ => self.id.to_owned(),
        }
    }

    /// The node with its type, for messages: `Fetch feed (fetch, core.http)`.
    pub fn named(&self) -> String {
        match self.raw.get("name").and_then(Value::as_str).map(str::trim) {
            Some(name) if !name.is_empty() && name != self.id => format!("{name} ({}, {})", self.id, self.type_id),
            _ => format!("{} ({})", self.id, self.type_id),
        }
    }

    fn new<'a>(
        pointer: String,
        raw: &'a Value,
        inherited: &[&str],
        oracle: Option<&dyn EffectOracle>,
        child: Option<Result<ChildSummary, String>>,
    ) -> NodeFacts<'a> {
        let type_id = str_of(raw, "typeId");
        let mut effect = effects::node_effect(raw, inherited, oracle);
        let mut irreversible = raw.get("irreversibleEffect") == Some(&Value::Bool(true))
            || oracle.is_some_and(|o| o.irreversible(type_id));
        let mut needs_approval = effects::needs_approval(raw);
        let (found, _) = raw.get("config").map(effects::config_timeouts).unwrap_or_default();
        let declared_timeout = found.into_iter().reduce(f64::max).filter(|ms| *ms > 0.0);
        let mut child_timeout = None;
        match child {
            // The node's effect is its child's, and whatever the node itself declares.
            Some(Ok(c)) => {
                let declared = effect.known && effect.tier == SafetyTier::Write;
                effect = NodeEffect {
                    tier: c.tier.max(if declared { SafetyTier::Write } else { SafetyTier::Pure }),
                    reason: if declared { format!("{}; {}", effect.reason, c.reason) } else { c.reason },
                    known: c.known || declared,
                };
                irreversible |= c.irreversible;
                needs_approval |= c.gated;
                child_timeout = Some(c.timeout_ms);
            }
            Some(Err(why)) if !(effect.known && effect.tier == SafetyTier::Write) => {
                effect = NodeEffect { tier: SafetyTier::Write, reason: why, known: false };
            }
            _ => {}
        }
        let (timeout_ms, timeout_source) = if let Some(ms) = declared_timeout {
            (ms, TimeoutSource::Declared)
        } else if let Some(ms) = oracle.and_then(|o| o.default_timeout_ms(type_id)) {
            (ms, TimeoutSource::Catalog)
        } else if let Some(ms) = child_timeout {
            (ms, TimeoutSource::SubChain)
        } else if needs_approval || effects::is_human_step(type_id) {
            (HUMAN_DEFAULT_MS, TimeoutSource::HumanDefault)
        } else if effects::is_model_step(type_id) {
            (MODEL_DEFAULT_MS, TimeoutSource::ModelDefault)
        } else {
            (STEP_DEFAULT_MS, TimeoutSource::StepDefault)
        };
        NodeFacts {
            pointer,
            raw,
            id: str_of(raw, "id"),
            type_id,
            draft: effects::is_draft_type(type_id),
            effect,
            irreversible,
            compensation_type: raw.pointer("/compensation/nodeTypeId").and_then(Value::as_str),
            needs_approval,
            timeout_ms,
            timeout_source,
            sub_chain: sub_chain_ref(raw).map(str::to_owned),
        }
    }

    pub fn config(&self) -> Option<&Value> {
        self.raw.get("config")
    }

    /// A writer whose inverse is declared (`compensation.nodeTypeId`).
    pub fn compensated(&self) -> bool {
        self.compensation_type.is_some()
    }
}

/// The sibling chain a `core.subWorkflow` / `core.dispatch` node runs (`config.subChainRef`).
fn sub_chain_ref(node: &Value) -> Option<&str> {
    let type_id = crate::pack::v2::split_pin(str_of(node, "typeId")).0;
    if !effects::SUB_RUN_TYPES.contains(&type_id) {
        return None;
    }
    node.pointer("/config/subChainRef").and_then(Value::as_str)
}

/// MiRuntime `permissionClass`, ordered from least to most guarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Permission {
    ReadOnly,
    Draft,
    ReversibleWrite,
    IrreversibleWrite,
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::ReadOnly => "read-only",
            Permission::Draft => "draft",
            Permission::ReversibleWrite => "reversible-write",
            Permission::IrreversibleWrite => "irreversible-write",
        }
    }
}

impl<'a> Subject<'a> {
    pub fn from_chain(pack: &'a Pack, chain: &'a Chain, oracle: Option<&dyn EffectOracle>) -> Self {
        Self::chain_inner(pack, chain, oracle, &mut vec![chain.chain_id().to_owned()])
    }

    /// `visiting` holds the chains on the way down, so a sub-chain cycle ends as unknown.
    fn chain_inner(
        pack: &'a Pack,
        chain: &'a Chain,
        oracle: Option<&dyn EffectOracle>,
        visiting: &mut Vec<String>,
    ) -> Self {
        let base = chain.pointer();
        let inherited = chain.capabilities();
        let nodes: Vec<NodeFacts> = chain
            .nodes()
            .iter()
            .enumerate()
            .map(|(i, node)| {
                let child = sub_chain_ref(node).map(|r| child_summary(pack, r, oracle, visiting));
                NodeFacts::new(format!("{base}/dag/nodes/{i}"), node, &inherited, oracle, child)
            })
            .collect();
        let edges = edge_indexes(&nodes, chain.edges(), ("from", "to"));
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
            edges,
            forward_retry: None,
            run_timeout_ms: None,
            cacheable: inherited.contains(&"cacheable"),
            base,
        }
    }

    pub fn from_workflow(workflow: &'a Value, oracle: Option<&dyn EffectOracle>) -> Self {
        let provenance = provenance_capabilities(workflow);
        let nodes: Vec<NodeFacts> = array_of(workflow, "nodes")
            .iter()
            .enumerate()
            .map(|(i, node)| {
                // A strict-schema export strips node capabilities; the instance record keeps them.
                let inherited: Vec<&str> = if node.get("capabilities").is_some() {
                    Vec::new()
                } else {
                    provenance.get(str_of(node, "id")).cloned().unwrap_or_default()
                };
                let child = sub_run_without_child(node);
                NodeFacts::new(format!("/nodes/{i}"), node, &inherited, oracle, child)
            })
            .collect();
        let edges = edge_indexes(&nodes, array_of(workflow, "edges"), ("source", "target"));
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
            default_tool_id: format!("{WORKFLOW_SCOPE}:{id}"),
            input: workflow_input(workflow),
            outputs: None,
            nodes,
            edges,
            forward_retry: workflow.pointer("/settings/maxRetries").and_then(Value::as_u64),
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

    /// Nodes whose effect no evidence states.
    pub fn unknown(&self) -> impl Iterator<Item = &NodeFacts<'a>> {
        self.nodes.iter().filter(|n| !n.effect.known)
    }

    /// A warning naming the nodes whose effect is unknown and how to declare it, when any is.
    pub fn unknown_finding(&self) -> Option<Finding> {
        let unknown: Vec<&NodeFacts> = self.unknown().collect();
        if unknown.is_empty() {
            return None;
        }
        let named: Vec<String> = unknown.iter().map(|n| n.named()).collect();
        let mut type_ids: Vec<&str> = unknown.iter().map(|n| n.type_id).collect();
        type_ids.sort_unstable();
        type_ids.dedup();
        let message = format!(
            "the effect of {} is unknown, so the tool is taken as writing (safetyTier `write`, \
             changesExternalState true): {}. To publish a lower tier, declare it with the node type's `capabilities` in a node pack \
             (--catalog), a host tier file assigning the typeIds a tier (--host-tiers), or `side-effectful` \
             on the chain or node",
            crate::words::count(unknown.len(), "node", "nodes"),
            named.join(", ")
        );
        let nodes: Vec<&str> = unknown.iter().map(|n| n.id).collect();
        Some(
            self.finding(
                Finding::warning(code::TOOL_EFFECT_UNKNOWN, self.base.as_str(), message)
                    .with("nodes", nodes)
                    .with("typeIds", type_ids)
                    .with("pointers", unknown.iter().map(|n| n.pointer.as_str()).collect::<Vec<_>>()),
            ),
        )
    }

    /// The strongest effect of any node (an unknown one counts as a write).
    pub fn derived_tier(&self) -> SafetyTier {
        self.nodes.iter().map(|n| n.effect.tier).max().unwrap_or(SafetyTier::Pure)
    }

    /// Irreversible only with evidence (a node's `irreversibleEffect`, a catalog flag);
    /// draft when every writer produces a draft; otherwise any write is reversible-write.
    pub fn permission(&self) -> Permission {
        let mut writers = self.writers().peekable();
        if writers.peek().is_none() {
            Permission::ReadOnly
        } else if self.nodes.iter().any(|n| n.irreversible) {
            Permission::IrreversibleWrite
        } else if self.writers().all(|n| n.draft) {
            Permission::Draft
        } else {
            Permission::ReversibleWrite
        }
    }

    /// A host could undo the run's writes: every writer is compensated or a draft, none is
    /// irreversible.
    pub fn reversible(&self) -> bool {
        !self.nodes.iter().any(|n| n.irreversible) && self.writers().all(|n| n.compensated() || n.draft)
    }

    pub fn gated(&self) -> bool {
        self.nodes.iter().any(|n| n.needs_approval)
    }

    /// The longest path through the graph, each node weighing its timeout (ms). A graph
    /// with a cycle (invalid anyway) counts every node once.
    pub fn longest_path_ms(&self) -> f64 {
        let n = self.nodes.len();
        let mut indegree = vec![0usize; n];
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &(a, b) in &self.edges {
            next[a].push(b);
            indegree[b] += 1;
        }
        let mut finish: Vec<f64> = self.nodes.iter().map(|node| node.timeout_ms).collect();
        let mut ready: Vec<usize> = (0..n).filter(|i| indegree[*i] == 0).collect();
        let mut done = 0;
        while let Some(i) = ready.pop() {
            done += 1;
            for &j in &next[i] {
                finish[j] = finish[j].max(finish[i] + self.nodes[j].timeout_ms);
                indegree[j] -= 1;
                if indegree[j] == 0 {
                    ready.push(j);
                }
            }
        }
        if done < n {
            return self.nodes.iter().map(|node| node.timeout_ms).sum();
        }
        finish.into_iter().fold(0.0, f64::max)
    }
}

/// The scope of a workflow's default toolId: `openwop:` is reserved for core tools.
pub(crate) const WORKFLOW_SCOPE: &str = "workflow";

/// What the sibling chain `chain_ref` does, for the node that runs it; `Err` (why it is
/// unknown) when the pack does not hold it or it runs itself.
fn child_summary(
    pack: &Pack,
    chain_ref: &str,
    oracle: Option<&dyn EffectOracle>,
    visiting: &mut Vec<String>,
) -> Result<ChildSummary, String> {
    if visiting.iter().any(|c| c == chain_ref) {
        return Err(format!("sub-chain `{chain_ref}` runs itself; its effect is unknown, taken as a write"));
    }
    let child = pack.chain(chain_ref).ok_or_else(|| {
        format!("sub-chain `{chain_ref}` is not in this pack; its effect is unknown, taken as a write")
    })?;
    visiting.push(chain_ref.to_owned());
    let sub = Subject::chain_inner(pack, child, oracle, visiting);
    visiting.pop();
    let tier = sub.derived_tier();
    let writers: Vec<&str> = sub.writers().map(|n| n.id).collect();
    let reason = if writers.is_empty() {
        format!("sub-chain `{chain_ref}` is {tier}")
    } else {
        format!("sub-chain `{chain_ref}` writes ({})", writers.join(", "))
    };
    Ok(ChildSummary {
        tier,
        known: sub.unknown().next().is_none(),
        irreversible: sub.nodes.iter().any(|n| n.irreversible),
        gated: sub.gated(),
        timeout_ms: sub.longest_path_ms(),
        reason,
    })
}

/// A workflow node that runs another workflow: the child is not at hand, so its effect is
/// unknown.
fn sub_run_without_child(node: &Value) -> Option<Result<ChildSummary, String>> {
    let type_id = crate::pack::v2::split_pin(str_of(node, "typeId")).0;
    effects::SUB_RUN_TYPES.contains(&type_id).then(|| {
        Err(format!("`{type_id}` runs a child workflow that is not at hand; its effect is unknown, taken as a write"))
    })
}

/// Edges as node index pairs; ends that name no node are skipped.
fn edge_indexes(nodes: &[NodeFacts], edges: &[Value], (from, to): (&str, &str)) -> Vec<(usize, usize)> {
    let index: HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    edges
        .iter()
        .filter_map(|e| Some((*index.get(str_of(e, from))?, *index.get(str_of(e, to))?)))
        .filter(|(a, b)| a != b)
        .collect()
}

/// The capabilities chainsmith's instance records keep for each inlined node
/// (`metadata.customProperties.chainsmith.instances[]`: `capabilities` for every node of the
/// instance, `nodeCapabilities` per node).
fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

fn provenance_capabilities(workflow: &Value) -> HashMap<&str, Vec<&str>> {
    let mut out: HashMap<&str, Vec<&str>> = HashMap::new();
    let instances = workflow.pointer("/metadata/customProperties/chainsmith/instances").and_then(Value::as_array);
    for instance in instances.into_iter().flatten() {
        let all = strings(instance.get("capabilities"));
        for id in strings(instance.get("nodeIds")) {
            out.entry(id).or_default().extend(&all);
        }
        for (id, caps) in instance.get("nodeCapabilities").and_then(Value::as_object).into_iter().flatten() {
            out.entry(id.as_str()).or_default().extend(strings(Some(caps)));
        }
    }
    out
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
            // A write without an irreversible declaration is not irreversible.
            (
                json!([node(json!({"compensation": {"nodeTypeId": "x.undo"}})), node(json!({}))]),
                json!({"capabilities": ["side-effectful"]}),
                Permission::ReversibleWrite,
            ),
            (json!([{"id": "w", "typeId": "x.create-thing"}]), json!({}), Permission::ReversibleWrite),
            (json!([{"id": "d", "typeId": "core.email.draft"}]), json!({}), Permission::Draft),
            (
                json!([{"id": "d", "typeId": "core.email.draft"}, {"id": "w", "typeId": "x.send"}]),
                json!({}),
                Permission::ReversibleWrite,
            ),
        ];
        for (i, (nodes, extra, want)) in cases.into_iter().enumerate() {
            let pack = chain_pack(json!([chain("c.x", nodes, extra)]));
            assert_eq!(Subject::from_chain(&pack, &pack.chains[0], None).permission(), want, "case {i}");
        }
    }

    #[test]
    fn longest_path_weighs_each_node_by_its_timeout() {
        // a(1 s) → b(gate, 24 h default) → d(2 s); a → c(LLM, 300 s default) → d.
        let nodes = json!([
            {"id": "a", "typeId": "core.flow.noop", "config": {"timeoutMs": 1000}},
            {"id": "b", "typeId": "core.chat.approvalGate"},
            {"id": "c", "typeId": "core.ai.callPrompt"},
            {"id": "d", "typeId": "core.flow.noop", "config": {"timeoutSeconds": 2}}]);
        let mut c = chain("c.x", nodes, json!({}));
        c["dag"]["edges"] = json!([{"from": "a", "to": "b"}, {"from": "b", "to": "d"}, {"from": "a", "to": "c"},
            {"from": "c", "to": "d"}]);
        let pack = chain_pack(json!([c]));
        let s = Subject::from_chain(&pack, &pack.chains[0], None);
        assert_eq!(s.longest_path_ms(), 1000.0 + HUMAN_DEFAULT_MS + 2000.0);
        let sources: Vec<TimeoutSource> = s.nodes.iter().map(|n| n.timeout_source).collect();
        use TimeoutSource::*;
        assert_eq!(sources, [Declared, HumanDefault, ModelDefault, Declared]);
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
            assert_eq!(s.default_tool_id, "workflow:");
        }
    }
}

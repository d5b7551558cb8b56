//! Expansion: a chain plus parameter values becomes a fragment of concrete nodes with
//! globally unique ids (chain-packs §4–5, §7 steps 2–6, 8–9b).
//!
//! The output reproduces the reference expander member for member; the expanded fragment
//! is also held as a petgraph `StableDiGraph` for layout and splicing.

pub mod app;
mod compensation;
pub use compensation::{node_ref_ids, rewrite_node_refs};
pub mod subchain;
pub use crate::grammar::{jsstring, token};
pub use crate::ids::chain_id_slug;

use crate::error::{Error, Finding, FindingCap, Result, Severity, code};
use crate::host::{HostProfile, TypeResolver, is_core};
use crate::json_walk::member;
use crate::pack::{Chain, Pack, PackKind};
use crate::pretty::Members;
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use serde_json::{Map, Value};
use std::collections::HashMap;
use token::substitute_leaf;

/// Inputs to one expansion besides the chain and its parameter values.
#[derive(Default)]
pub struct ExpandOptions<'a> {
    /// Use this expansionId instead of generating one.
    pub expansion_id: Option<String>,
    /// Node ids already used in the parent; a generated expansionId avoids them.
    pub taken_ids: Option<&'a dyn Fn(&str) -> bool>,
    /// The node-pack catalog; `None` means typeIds are not checked (warnings only).
    pub resolver: Option<&'a dyn TypeResolver>,
    /// The parent's `settings.compensation`, when it has one.
    pub parent_compensation: Option<&'a Value>,
    pub host: HostProfile,
    /// Use the values exactly as given: no defaults, no validation. This is the reference
    /// library's own contract (its host validates beforehand); conformance replay uses it.
    pub params_as_given: bool,
}

/// The result of expanding one chain.
#[derive(Debug, Clone)]
pub struct Expansion {
    pub pack_name: String,
    pub pack_version: String,
    pub chain_id: String,
    pub chain_version: String,
    /// The chain's tile caption, for naming the inserted instance.
    pub label: String,
    pub expansion_id: String,
    pub prefix: String,
    /// The parameter values used (defaults applied, validated).
    pub params: Map<String, Value>,
    /// Expanded nodes in fragment order (fragment node form, not yet WorkflowNodes).
    pub nodes: Vec<Value>,
    /// Expanded edges in fragment order (`from`/`to` form).
    pub edges: Vec<Value>,
    /// Fragment node id → expanded node id, in node order.
    pub id_map: Vec<(String, String)>,
    /// The parent's `settings.compensation` after this expansion (step 9b): the chain policy,
    /// or the parent's own when the chain has none.
    pub settings_compensation: Option<Value>,
    /// The chain's `producedVariables`, to append to the parent's `variables`.
    pub produced_variables: Vec<Value>,
    /// In a co-expansion: each child workflow id a node's `config.workflowId` now names, and
    /// the `subChains[].ref` it replaced, so the node can be extracted back into a chain.
    pub sub_chain_links: Vec<subchain::SubChainLink>,
    pub warnings: Vec<Finding>,
    /// Node weights index `nodes`; edge weights index `edges` (edges between fragment nodes).
    pub graph: StableDiGraph<usize, usize>,
}

impl Expansion {
    /// The CLI's `expand` output object.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("an expansion always serialises")
    }

    pub fn id_map_json(&self) -> Value {
        Value::Object(self.id_map.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect())
    }

    /// Entry nodes (no incoming fragment edge), as indexes into `nodes`.
    pub fn entry_nodes(&self) -> Vec<usize> {
        self.boundary(petgraph::Direction::Incoming)
    }

    /// Exit nodes (no outgoing fragment edge), as indexes into `nodes`.
    pub fn exit_nodes(&self) -> Vec<usize> {
        self.boundary(petgraph::Direction::Outgoing)
    }

    fn boundary(&self, dir: petgraph::Direction) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .graph
            .node_indices()
            .filter(|ix| self.graph.neighbors_directed(*ix, dir).next().is_none())
            .map(|ix| self.graph[ix])
            .collect();
        out.sort_unstable();
        out
    }
}

/// An id map as a JSON object in node order.
pub(crate) struct IdMap<'a>(pub(crate) &'a [(String, String)]);

impl serde::Serialize for IdMap<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl Expansion {
    /// Every output member but `warnings`, shared with the sub-chain tree's output.
    pub(crate) fn members<M: Members>(&self, out: &mut M) -> std::result::Result<(), M::Error> {
        out.member("packName", &self.pack_name)?;
        out.member("packVersion", &self.pack_version)?;
        out.member("chainId", &self.chain_id)?;
        out.member("expansionId", &self.expansion_id)?;
        out.array("nodes", &self.nodes)?;
        out.array("edges", &self.edges)?;
        out.member("idMap", &IdMap(&self.id_map))?;
        if let Some(sc) = &self.settings_compensation {
            out.member("settingsCompensation", sc)?;
        }
        Ok(())
    }

    pub(crate) fn warnings_member<M: Members>(&self, out: &mut M) -> std::result::Result<(), M::Error> {
        let warnings: Vec<Value> = self.warnings.iter().map(Finding::to_json).collect();
        out.member("warnings", &warnings)
    }

    /// The CLI's `expand` output as pretty JSON, streamed to `out`: the same text as
    /// serialising the expansion with `serde_json::to_writer_pretty`, with the nodes and
    /// edges rendered on two threads.
    pub fn write_pretty(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let mut object = crate::pretty::Object::begin(out)?;
        self.members(&mut object)?;
        self.warnings_member(&mut object)?;
        object.end()
    }
}

/// The CLI's `expand` output, written straight from the expansion: serialising through an
/// intermediate `Value` would deep-copy every node once more.
impl serde::Serialize for Expansion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        self.members(&mut map)?;
        self.warnings_member(&mut map)?;
        map.end()
    }
}

/// Every refusal that does not depend on parameter values (kind, load-time findings, chain
/// lookup, host gates, typeIds, sensitive tokens), in the order expansion applies them.
/// Returns the chain and the warnings expansion would carry. Editors use it to badge tiles
/// without expanding anything.
pub fn preflight<'p>(pack: &'p Pack, chain_id: &str, opts: &ExpandOptions) -> Result<(&'p Chain, Vec<Finding>)> {
    let (at, warnings) = preflight_at(pack, chain_id, pack.chain_position(chain_id), opts)?;
    Ok((&pack.chains[at], warnings))
}

/// [`preflight`] of a chain already looked up: `at` is its position in `pack.chains`
/// ([`Pack::chain_position`]), `None` when the pack has no `chain_id`. Returns the position
/// and the warnings.
pub fn preflight_at(
    pack: &Pack,
    chain_id: &str,
    at: Option<usize>,
    opts: &ExpandOptions,
) -> Result<(usize, Vec<Finding>)> {
    if pack.kind != PackKind::WorkflowChain {
        return Err(Error::new(
            code::PACK_KIND_INVALID,
            format!(
                "{} is a {} pack; only workflow-chain packs can be expanded",
                display_name(pack),
                pack.kind.as_str()
            ),
        )
        .with("kind", pack.kind.as_str()));
    }
    // Pack-level refusals come first, then the chain's own.
    if let Some(f) = pack.errors().find(|f| f.chain_id.is_none()) {
        return Err(f.clone().into_error());
    }
    let (at, chain) = at.and_then(|at| Some((at, pack.chains.get(at)?))).ok_or_else(|| {
        Error::new(code::CHAIN_NOT_FOUND, format!("pack {} has no chain \"{chain_id}\"", display_name(pack)))
            .with("chainId", chain_id)
            .with("available", pack.chains.iter().map(|c| c.chain_id()).collect::<Vec<_>>())
    })?;
    // An invalid parameter default is checked again on the values actually used (a
    // supplied value replaces it), so only the chain's other errors refuse here.
    // A sub-chain id collision matters only to a co-expansion, whose walk refuses it.
    if let Some(f) = pack.errors().find(|f| {
        f.chain_id.as_deref() == Some(chain_id)
            && f.code != code::CHAIN_PARAMETER_INVALID
            && f.code != code::SUB_CHAIN_WORKFLOW_ID_COLLISION
    }) {
        return Err(f.clone().into_error());
    }
    let mut warnings: Vec<Finding> = pack.findings_for(chain_id).filter(|f| !f.is_error()).cloned().collect();
    gate_on_host(chain, &opts.host)?;
    resolve_type_ids(chain, opts.resolver, &mut warnings)?;
    refuse_sensitive_tokens(chain)?;
    Ok((at, warnings))
}

/// From this many fragment nodes on, nodes are expanded on two threads, in runs of
/// [`PARALLEL_RUN_NODES`].
const PARALLEL_EXPANSION_NODES: usize = 2_000;
const PARALLEL_RUN_NODES: usize = 256;

/// The pack an expansion reads its chain from.
#[derive(Debug, Clone)]
pub enum PackSource<'a> {
    /// Borrowed: the caller expands the pack again (the editor), so nodes are copied.
    Lent(&'a Pack),
    /// Handed over by a caller with no further use for it (the CLI): the chain's nodes and
    /// edges are moved into the expansion instead of copied.
    Given(Box<Pack>),
}

impl<'a> PackSource<'a> {
    pub fn pack(&self) -> &Pack {
        match self {
            PackSource::Lent(pack) => pack,
            PackSource::Given(pack) => pack,
        }
    }

    /// The nodes and edges of the chain at position `at`, to be expanded in place: the
    /// pack's own when it was given, copies when it was lent.
    fn into_dag(self, at: usize) -> (Vec<Value>, Vec<Value>) {
        match self {
            PackSource::Lent(pack) => {
                let chain = pack.chains.get(at);
                let nodes = chain.map(Chain::nodes).unwrap_or_default();
                let edges = chain.map(Chain::edges).unwrap_or_default();
                (nodes.to_vec(), edges.to_vec())
            }
            PackSource::Given(pack) => pack.into_dag(at).unwrap_or_default(),
        }
    }
}

/// One expansion's chain, found once, and the values it expands with, ready: what the
/// steps after the lookup take, so none of them looks the chain up or applies defaults again.
pub struct Resolved<'a> {
    pub source: PackSource<'a>,
    /// The chain's position in the pack's `chains` ([`Pack::chain_position`]).
    pub at: usize,
    /// Defaults applied (and checked) as the request asked ([`crate::params::prepare`]).
    pub values: Map<String, Value>,
}

impl Resolved<'_> {
    pub fn chain(&self) -> &Chain {
        &self.source.pack().chains[self.at]
    }
}

impl ExpandOptions<'_> {
    /// How [`expand`] and [`subchain::expand_tree`] treat the supplied values.
    pub fn values(&self) -> crate::params::Values {
        if self.params_as_given { crate::params::Values::AsGiven } else { crate::params::Values::Checked }
    }
}

pub fn expand(pack: &Pack, chain_id: &str, supplied: Map<String, Value>, opts: &ExpandOptions) -> Result<Expansion> {
    expand_from(PackSource::Lent(pack), chain_id, supplied, opts)
}

/// [`expand`] from a lent or a given pack.
pub fn expand_from(
    source: PackSource,
    chain_id: &str,
    supplied: Map<String, Value>,
    opts: &ExpandOptions,
) -> Result<Expansion> {
    let at = source.pack().chain_position(chain_id);
    expand_at(source, chain_id, at, supplied, opts.values(), opts)
}

/// [`expand_from`] of a chain already looked up (`at` as [`preflight_at`] takes it), its
/// values treated as `how` says (`opts.params_as_given` is not read).
pub fn expand_at(
    source: PackSource,
    chain_id: &str,
    at: Option<usize>,
    supplied: Map<String, Value>,
    how: crate::params::Values,
    opts: &ExpandOptions,
) -> Result<Expansion> {
    let (at, warnings) = preflight_at(source.pack(), chain_id, at, opts)?;
    let values = crate::params::prepare(&source.pack().chains[at], supplied, how)?;
    expand_resolved(Resolved { source, at, values }, warnings, opts)
}

/// The expansion proper, after the preflight (whose `warnings` it carries) and the values.
pub fn expand_resolved(resolved: Resolved, mut warnings: Vec<Finding>, opts: &ExpandOptions) -> Result<Expansion> {
    let Resolved { source, at, values: params } = resolved;
    let pack = source.pack();
    let chain = &pack.chains[at];
    check_substitution_budget(chain, &params)?;

    let expansion_id = choose_expansion_id(chain, opts)?;
    let prefix = format!("{}_{}_", chain_id_slug(chain.chain_id()), expansion_id);
    let old_ids: Vec<String> =
        chain.nodes().iter().map(|n| member(n, "id").and_then(Value::as_str).unwrap_or_default().to_owned()).collect();
    let capabilities = chain.raw().get("capabilities").filter(|c| c.as_array().is_some_and(|a| !a.is_empty())).cloned();
    let settings_compensation =
        compensation::carry_policy(chain.chain_id(), chain.compensation(), opts.parent_compensation)?;
    let mut expansion = Expansion {
        pack_name: pack.name().to_owned(),
        pack_version: pack.version().to_owned(),
        chain_id: chain.chain_id().to_owned(),
        chain_version: chain.version().to_owned(),
        label: chain.label().to_owned(),
        expansion_id,
        prefix,
        params,
        nodes: Vec::new(),
        edges: Vec::new(),
        id_map: Vec::new(),
        settings_compensation,
        produced_variables: chain.produced_variables().to_vec(),
        sub_chain_links: Vec::new(),
        warnings: Vec::new(),
        graph: StableDiGraph::with_capacity(old_ids.len(), chain.edges().len()),
    };
    let sites = chain.substitution_sites().clone();
    let (mut nodes, edges) = source.into_dag(at);
    // A duplicate id names its last node, as the reference's id map does.
    let frag_ids: HashMap<&str, usize> = old_ids.iter().enumerate().map(|(i, id)| (id.as_str(), i)).collect();
    let each = NodeRewrite {
        sites: &sites,
        params: &expansion.params,
        prefix: &expansion.prefix,
        frag_ids: &frag_ids,
        capabilities: capabilities.as_ref(),
    };
    let marked_nodes = each.expand_all(&mut nodes);
    let mut graph_edges = Vec::new();
    let edges: Vec<Value> = (edges.into_iter().enumerate())
        .map(|(i, edge)| {
            let (edge, ends) = expand_edge(edge, &expansion.prefix, &frag_ids);
            if let [Some(a), Some(b)] = ends {
                graph_edges.push((a, b, i));
            }
            edge
        })
        .collect();
    drop(frag_ids);
    let id_map = old_ids
        .into_iter()
        .zip(&nodes)
        .map(|(old, node)| (old, member(node, "id").and_then(Value::as_str).unwrap_or_default().to_owned()))
        .collect();
    // Graph node `i` weighs `i`: node indexes are the fragment's node positions.
    for i in 0..nodes.len() {
        expansion.graph.add_node(i);
    }
    for (a, b, i) in graph_edges {
        expansion.graph.add_edge(NodeIndex::new(a), NodeIndex::new(b), i);
    }
    warn_leftover_tokens(&nodes, &marked_nodes, &expansion.chain_id, &mut warnings);
    expansion.nodes = nodes;
    expansion.edges = edges;
    expansion.id_map = id_map;
    expansion.warnings = warnings;
    Ok(expansion)
}

/// What rewriting one fragment node needs (chain-packs §7 steps 4–6c).
struct NodeRewrite<'a> {
    /// Where in each node's `config` and `inputs` substitution has something to do.
    sites: &'a crate::pack::Sites,
    params: &'a Map<String, Value>,
    prefix: &'a str,
    frag_ids: &'a HashMap<&'a str, usize>,
    capabilities: Option<&'a Value>,
}

impl NodeRewrite<'_> {
    /// Expand every node in place; returns the nodes whose config or inputs may hold
    /// token-like text (for the leftover-token lint), ascending. Nodes expand independently,
    /// so a large fragment is shared by two threads.
    fn expand_all(&self, nodes: &mut [Value]) -> Vec<usize> {
        if nodes.len() < PARALLEL_EXPANSION_NODES {
            return self.expand_run(0, nodes);
        }
        let runs = nodes.chunks_mut(PARALLEL_RUN_NODES);
        let marked = crate::parallel::share_in_order(runs, |k, run| self.expand_run(k * PARALLEL_RUN_NODES, run));
        marked.into_iter().flatten().collect()
    }

    /// [`Self::expand_all`] for the nodes `first..` of the fragment.
    fn expand_run(&self, first: usize, run: &mut [Value]) -> Vec<usize> {
        let mut marked_nodes = Vec::new();
        for (i, node) in (first..).zip(run) {
            let mut marked = false;
            self.expand_node(i, node, &mut marked);
            if marked {
                marked_nodes.push(i);
            }
        }
        marked_nodes
    }

    /// Fragment node `i`, changed in place, members in the order the reference emits them.
    fn expand_node(&self, i: usize, node: &mut Value, marked: &mut bool) {
        // First, while member indexes still match the node the sites were found in.
        let params = self.params;
        crate::json_walk::at_paths(node, self.sites.of(i), |leaf| substitute_leaf(leaf, params, marked));
        let Some(map) = node.as_object_mut() else { return };
        // Both are carried at the end, after `capabilities`.
        let compensation = map.shift_remove("compensation");
        let irreversible = map.shift_remove("irreversibleEffect");
        if let Some(id) = map.get_mut("id") {
            *id = Value::String(format!("{}{}", self.prefix, id.as_str().unwrap_or_default()));
        }
        if let Some(caps) = self.capabilities {
            map.insert("capabilities".into(), caps.clone());
        }
        let is_fragment = |id: &str| self.frag_ids.contains_key(id);
        compensation::carry_node(irreversible, compensation, map, params, self.prefix, &is_fragment);
    }
}

/// One expanded edge (its fragment ends rewritten, `condition` and `triggerRule` carried,
/// members in the order the reference emits them), and the fragment nodes it joins.
fn expand_edge(mut edge: Value, prefix: &str, frag_ids: &HashMap<&str, usize>) -> (Value, [Option<usize>; 2]) {
    const CARRIED: [&str; 4] = ["from", "to", "condition", "triggerRule"];
    let mut ends = [None, None];
    for (slot, key) in ["from", "to"].into_iter().enumerate() {
        let Some(Value::String(text)) = edge.as_object_mut().and_then(|m| m.get_mut(key)) else { continue };
        let node = text.split_once('.').map_or(text.as_str(), |(n, _)| n);
        if let Some(&i) = frag_ids.get(node) {
            ends[slot] = Some(i);
            text.insert_str(0, prefix);
        }
    }
    // Usually the edge already holds just these members in this order, and is kept as it is.
    let keys = edge.as_object().map(|m| m.keys().map(String::as_str));
    let in_order = keys.is_some_and(|mut keys| {
        let mut wanted = CARRIED.iter();
        keys.all(|k| wanted.any(|w| *w == k))
    });
    if in_order || !edge.is_object() {
        let out = if edge.is_object() { edge } else { Value::Object(Map::new()) };
        return (out, ends);
    }
    let mut out = Map::new();
    for key in CARRIED {
        if let Some(v) = take_member(&mut edge, key) {
            out.insert(key.into(), v);
        }
    }
    (Value::Object(out), ends)
}

/// The member `key` of an object, taken out (the rest is dropped with it).
fn take_member(v: &mut Value, key: &str) -> Option<Value> {
    v.as_object_mut().and_then(|m| m.get_mut(key)).map(Value::take)
}

fn display_name(pack: &Pack) -> String {
    if pack.name().is_empty() { pack.source.display().to_string() } else { pack.name().to_owned() }
}

/// Steps 2b and 3e: refusals that depend on what the target host supports.
fn gate_on_host(chain: &Chain, host: &HostProfile) -> Result<()> {
    if !chain.sub_chains().is_empty() && !host.sub_chains {
        return Err(Error::new(
            code::SUB_CHAIN_UNSUPPORTED,
            format!(
                "chain {} composes sub-chains, and the target host profile does not support subChains",
                chain.chain_id()
            ),
        )
        .with("chainId", chain.chain_id())
        .with("requiredCapability", "subChains"));
    }
    if chain.compensation().is_some() && !host.compensation {
        return Err(Error::new(
            code::CAPABILITY_REQUIRED,
            format!(
                "chain {} carries a compensation policy, and the target host profile does not support compensation",
                chain.chain_id()
            ),
        )
        .with("requiredCapability", "compensation")
        .with("chainId", chain.chain_id()));
    }
    Ok(())
}

/// Step 3/3b: every node typeId and compensation nodeTypeId must resolve.
fn resolve_type_ids(chain: &Chain, resolver: Option<&dyn TypeResolver>, warnings: &mut Vec<Finding>) -> Result<()> {
    for type_id in chain.type_ids() {
        if is_core(type_id) {
            continue;
        }
        match resolver {
            Some(r) if !r.resolves(type_id) => {
                return Err(Error::new(
                    code::CHAIN_UNRESOLVABLE_TYPEID,
                    format!(
                        "typeId \"{type_id}\" used by chain {} is not provided by any known node pack",
                        chain.chain_id()
                    ),
                )
                .with("typeId", type_id)
                .with("chainId", chain.chain_id()));
            }
            Some(_) => {}
            None => warnings.push(
                Finding::warning(
                    code::TYPEID_UNCHECKED,
                    "",
                    format!("typeId \"{type_id}\" was not checked: no node-pack catalog is loaded"),
                )
                .in_chain(chain.chain_id())
                .with("typeId", type_id),
            ),
        }
    }
    Ok(())
}

/// RFC 0124: a sensitive parameter may never be baked into config or inputs. chainsmith
/// has no deferred mode, so any token naming one refuses the chain.
fn refuse_sensitive_tokens(chain: &Chain) -> Result<()> {
    let Some(props) = chain.parameter_properties() else { return Ok(()) };
    let sensitive: Vec<&str> = props
        .iter()
        .filter(|(_, s)| s.get("x-openwop-sensitive") == Some(&Value::Bool(true)))
        .map(|(k, _)| k.as_str())
        .collect();
    if sensitive.is_empty() {
        return Ok(());
    }
    let mut found = None;
    crate::pack::substitutable_strings(chain, |at, s| {
        if found.is_none()
            && let Some(t) = token::tokens(s).into_iter().find(|t| sensitive.contains(&t.name))
        {
            found = Some((t.name, at.pointer()));
        }
    });
    if let Some((name, ptr)) = found {
        return Err(Error::new(
            code::SENSITIVE_PARAM_NOT_DEFERRABLE,
            format!(
                "parameter \"{name}\" is marked x-openwop-sensitive and would be written into the workflow at {ptr}"
            ),
        )
        .with("param", name)
        .with("position", ptr)
        .with("chainId", chain.chain_id()));
    }
    Ok(())
}

/// Most bytes one expansion may spend on substituted values: every token use builds its
/// value again (as a JSON tree) and writes it again (as pretty JSON), so one large value
/// used by many tokens could otherwise ask for terabytes.
pub const MAX_SUBSTITUTED_BYTES: u64 = 256 * 1024 * 1024;

/// What one substituted copy of `value` costs: its tree in memory (a `Value` per node, map
/// entries, text) plus its pretty JSON (indentation included, counted from an assumed
/// nesting of 6 where tokens sit in a saved workflow). An estimate from above.
pub fn substitution_cost(value: &Value) -> u64 {
    const NODE: u64 = std::mem::size_of::<Value>() as u64;
    const MEMBER: u64 = 48; // key String plus the ordered map's entry and index slot
    let mut total = 0u64;
    let mut stack = vec![(value, 6u64, 0u64)];
    while let Some((v, depth, key_len)) = stack.pop() {
        let text = match v {
            Value::String(s) => s.len() as u64,
            Value::Number(_) => 24,
            _ => 0,
        };
        let member = if key_len > 0 { MEMBER + 2 * key_len } else { 0 };
        total = total.saturating_add(NODE + 2 * text + member + 2 * depth + 4);
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|x| (x, depth + 1, 0))),
            Value::Object(m) => stack.extend(m.iter().map(|(k, x)| (x, depth + 1, k.len() as u64 + 1))),
            _ => {}
        }
    }
    total
}

/// Refuse before substituting when the token uses times each value's cost
/// ([`substitution_cost`]) pass [`MAX_SUBSTITUTED_BYTES`].
fn check_substitution_budget(chain: &Chain, params: &Map<String, Value>) -> Result<()> {
    let mut total: u64 = 0;
    for (name, uses) in chain.token_uses() {
        let Some(value) = params.get(name) else { continue };
        let cost = substitution_cost(value);
        total = total.saturating_add(cost.saturating_mul(*uses));
        if total > MAX_SUBSTITUTED_BYTES {
            return Err(Error::new(
                code::INVALID_REQUEST,
                format!(
                    "expanding chain {} would build and write at least {total} bytes of substituted values \
                     (parameter \"{name}\" costs {cost} bytes a copy and {uses} tokens use it); the limit is \
                     {MAX_SUBSTITUTED_BYTES} bytes",
                    chain.chain_id()
                ),
            )
            .with("chainId", chain.chain_id())
            .with("param", name.as_str())
            .with("limit", MAX_SUBSTITUTED_BYTES));
        }
    }
    Ok(())
}

fn choose_expansion_id(chain: &Chain, opts: &ExpandOptions) -> Result<String> {
    if let Some(id) = &opts.expansion_id {
        if id.is_empty() || id.contains('.') {
            return Err(Error::new(
                code::INVALID_REQUEST,
                format!(
                    "expansionId \"{id}\" must be non-empty and contain no '.' (edge references split at the first '.')"
                ),
            )
            .with("expansionId", id.as_str()));
        }
        return Ok(id.clone());
    }
    let taken = opts.taken_ids.unwrap_or(&|_| false);
    mint_expansion_id(chain, taken)
}

/// Random hex digits whose expanded ids collide with no id `taken` reports (chain-packs
/// §4.2): four digits, widened after repeated collisions.
pub fn mint_expansion_id(chain: &Chain, taken: &dyn Fn(&str) -> bool) -> Result<String> {
    let slug = chain_id_slug(chain.chain_id());
    let collides = |candidate: &str| {
        chain
            .nodes()
            .iter()
            .filter_map(|n| n.get("id").and_then(Value::as_str))
            .any(|nid| taken(&format!("{slug}_{candidate}_{nid}")))
    };
    for width in [4usize, 4, 4, 4, 6, 8, 12, 16] {
        let candidate = random_hex(width);
        if !collides(&candidate) {
            return Ok(candidate);
        }
    }
    Err(Error::new(code::INVALID_REQUEST, "could not find a free expansionId"))
}

fn random_hex(width: usize) -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    (0..width).map(|_| char::from_digit(rng.random_range(0..16), 16).expect("hex digit")).collect()
}

/// [EDITOR] After substitution, any `{{params.` left is literal text the runtime will see.
/// Only the `marked` nodes (indexes into `nodes`, ascending) can hold any.
fn warn_leftover_tokens(nodes: &[Value], marked: &[usize], chain_id: &str, warnings: &mut Vec<Finding>) {
    // One pointer buffer, grown and cut back: the walk visits every leaf of every node, and
    // building a pointer string per leaf was a sixth of a large expansion's time.
    // Past the cap a hit is counted, and no pointer is built for it.
    fn walk(v: &Value, at: &mut String, out: &mut Vec<String>, cap: &mut FindingCap) {
        use std::fmt::Write;
        let len = at.len();
        match v {
            // Both a token and a near-token start with `{{` or `<<`.
            Value::String(s) if !token::opens_token_like(s) => {}
            Value::String(s)
                if (!token::tokens(s).is_empty() || token::has_near_token(s))
                    && cap.admit(code::LEFTOVER_TOKEN, Severity::Warning) =>
            {
                out.push(at.clone());
            }
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    let _ = write!(at, "/{i}");
                    walk(x, at, out, cap);
                    at.truncate(len);
                }
            }
            Value::Object(m) => {
                for (k, x) in m {
                    at.push('/');
                    if k.contains(['~', '/']) {
                        at.push_str(&crate::error::pointer_token(k));
                    } else {
                        at.push_str(k);
                    }
                    walk(x, at, out, cap);
                    at.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut cap = FindingCap::default();
    for &i in marked {
        let node = &nodes[i];
        let mut hits = Vec::new();
        for key in ["config", "inputs"] {
            if let Some(v) = node.get(key) {
                walk(v, &mut format!("/nodes/{i}/{key}"), &mut hits, &mut cap);
            }
        }
        for at in hits {
            warnings.push(
                Finding::warning(
                    code::LEFTOVER_TOKEN,
                    at,
                    "parameter-like text survived expansion and will reach the runtime as literal text",
                )
                .in_chain(chain_id),
            );
        }
    }
    warnings.extend(cap.omitted("/nodes").map(|f| f.in_chain(chain_id)));
}

#[cfg(test)]
mod tests;

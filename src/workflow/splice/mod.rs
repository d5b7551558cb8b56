//! Splicing an expansion into the parent workflow (chain-packs §6, §4.5, §5.5–5.6).
//!
//! One pass in four steps, each in its own module: [`checks`] runs every refusal before the
//! first change, so a refusal leaves the workflow untouched; [`place`] finds the fragment's
//! positions; the fragment's nodes and edges go in ([`members`] shapes them as workflow
//! JSON); [`wiring`] connects the fragment to the parent nodes the options name. Re-expanding
//! an existing instance in place is `crate::instance`'s, on the shapes [`FragmentNodes`] and
//! [`FragmentEdges`] give.

mod checks;
mod members;
mod place;
mod wiring;

use super::provenance::Instance;
use super::{Edge, Workflow};
use crate::error::{Finding, Result, code};
use crate::expand::Expansion;
use serde_json::{Value, json};

/// Where and how to splice.
#[derive(Debug, Clone, Default)]
pub struct SpliceOptions {
    /// Drop point: fragment positions are offset by it. `None`: right of the existing nodes
    /// (or of the node wired into the fragment).
    pub at: Option<(f64, f64)>,
    /// Wire the fragment between these parent nodes, replacing the edges from the first to
    /// the second: first → every entry node, every exit node → second.
    pub between: Option<(String, String)>,
    /// With `between`: replace only the edge with this id (a tile dropped on one edge)
    /// instead of every edge from the first node to the second.
    pub replace_edge: Option<String>,
    /// Wire the fragment downstream of one parent node (quick-add with a node selected):
    /// that node → every entry node, no edge replaced. Not together with `between`.
    pub after: Option<After>,
}

/// The parent node a fragment is wired from when it goes downstream of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct After {
    pub node: String,
    /// The node's output port the wiring leaves from (`sourceOutput`); the default one when
    /// `None`.
    pub output: Option<String>,
}

/// What a splice changed.
#[derive(Debug, Clone)]
pub struct SpliceReport {
    pub instance: Instance,
    /// Parent edges replaced by the wiring (for undo and for telling the user).
    pub removed_edges: Vec<Edge>,
    pub warnings: Vec<Finding>,
}

/// Splice `exp` into `wf`.
pub fn splice(wf: &mut Workflow, exp: &Expansion, opts: &SpliceOptions) -> Result<SpliceReport> {
    let plan = checks::check(wf, exp, opts)?;
    let positions = place::place(wf, exp, opts)?;
    // Room for exactly what is added: a copied workflow (the editor's dry run) has none
    // spare, and growing by doubling held two copies of the graph's storage, ~10 MB at
    // 100,000 nodes. The wiring adds an edge per entry and exit node at most.
    let wiring = exp.entry_nodes().len() + exp.exit_nodes().len();
    wf.graph.reserve_exact_nodes(exp.nodes.len());
    wf.graph.reserve_exact_edges(exp.edges.len() + wiring);
    let (node_ids, mut edge_ids, warnings) = add_fragment(wf, exp, positions);
    let removed_edges = wiring::wire(wf, exp, opts, &plan.replaced, &mut edge_ids);
    if !plan.new_variables.is_empty() {
        let vars = wf.member_mut("variables");
        if !vars.is_array() {
            *vars = json!([]);
        }
        vars.as_array_mut().expect("array").extend(plan.new_variables);
    }
    if let Some(policy) = plan.new_policy {
        let settings = wf.member_mut("settings");
        if !settings.is_object() {
            *settings = json!({});
        }
        settings["compensation"] = policy;
    }
    let (capabilities, node_capabilities) = super::provenance::recorded_capabilities(&exp.nodes);
    let instance = Instance {
        capabilities,
        node_capabilities,
        pack_name: exp.pack_name.clone(),
        pack_version: exp.pack_version.clone(),
        chain_id: exp.chain_id.clone(),
        chain_version: exp.chain_version.clone(),
        expansion_id: exp.expansion_id.clone(),
        label: exp.label.clone(),
        params: exp.params.clone(),
        node_ids,
        edge_ids,
        produced_variables: produced_by_expanded_ids(exp),
        sub_chains: exp.sub_chain_links.clone(),
        pinned: false,
    };
    wf.record_instance(instance.clone());
    Ok(SpliceReport { instance, removed_edges, warnings })
}

/// Add the fragment's nodes at `positions` and its edges; the new node and edge ids, and a
/// warning per fragment edge end that names no node.
fn add_fragment(
    wf: &mut Workflow,
    exp: &Expansion,
    positions: Vec<(f64, f64)>,
) -> (Vec<String>, Vec<String>, Vec<Finding>) {
    let mut node_ids = Vec::with_capacity(exp.nodes.len());
    for ((frag_id, _), (node, pos)) in exp.id_map.iter().zip(exp.nodes.iter().zip(positions)) {
        let json = members::workflow_node(node, frag_id, pos);
        node_ids.push(json["id"].as_str().unwrap_or_default().to_owned());
        wf.add_node(json).expect("ids were checked unique and free");
    }
    let mut warnings = Vec::new();
    let mut edge_ids = Vec::with_capacity(exp.edges.len());
    for (i, edge) in exp.edges.iter().enumerate() {
        let json = members::workflow_edge(edge, &fragment_edge_id(exp, i + 1));
        let converted = Edge::new(json, 0);
        for end in [converted.source(), converted.target()] {
            if !wf.contains_node(end) {
                warnings.push(
                    Finding::warning(
                        code::EDGE_ENDPOINT_UNKNOWN,
                        format!("/edges/{i}"),
                        format!("fragment edge names \"{end}\", which is not a node of the workflow"),
                    )
                    .in_chain(&exp.chain_id),
                );
            }
        }
        edge_ids.push(converted.id().to_owned());
        wf.add_new_edge(converted);
    }
    (node_ids, edge_ids, warnings)
}

/// An expansion's nodes as a splice makes them, at the fragment's relative positions: what
/// an instance's nodes were before the user touched them. Each is made when asked for: a
/// long chain's recorded and new expansions made whole at once held more than both
/// expansions.
pub(crate) struct FragmentNodes<'e> {
    exp: &'e Expansion,
    rel: Vec<(f64, f64)>,
}

impl<'e> FragmentNodes<'e> {
    pub(crate) fn new(exp: &'e Expansion) -> Self {
        let mut rel = place::relative(exp);
        rel.truncate(exp.id_map.len());
        Self { exp, rel }
    }

    pub(crate) fn len(&self) -> usize {
        self.rel.len()
    }

    /// The `i`th node's id ("" when it has none).
    pub(crate) fn id(&self, i: usize) -> &'e str {
        self.exp.nodes[i].get("id").and_then(Value::as_str).unwrap_or_default()
    }

    /// The `i`th node's `position` as its members read.
    pub(crate) fn position(&self, i: usize) -> (f64, f64) {
        let (x, y) = self.rel[i];
        let axis = |v: f64| super::coordinate(v).as_f64().unwrap_or(0.0);
        (axis(x), axis(y))
    }

    /// The `i`th node as the workflow's JSON.
    pub(crate) fn get(&self, i: usize) -> serde_json::Map<String, Value> {
        members::workflow_node(&self.exp.nodes[i], &self.exp.id_map[i].0, self.rel[i])
    }
}

/// An expansion's edges as a splice makes them (ids `<prefix>e<n>`), each made when asked
/// for, like [`FragmentNodes`].
pub(crate) struct FragmentEdges<'e> {
    exp: &'e Expansion,
}

impl<'e> FragmentEdges<'e> {
    pub(crate) fn new(exp: &'e Expansion) -> Self {
        Self { exp }
    }

    pub(crate) fn len(&self) -> usize {
        self.exp.edges.len()
    }

    /// The `i`th edge's source node and port, target node and port, as its members read
    /// (an empty port for none), lent by the expansion.
    pub(crate) fn ends(&self, i: usize) -> (&'e str, &'e str, &'e str, &'e str) {
        let e = &self.exp.edges[i];
        let ((source, output), (target, input)) = (members::edge_end(e, "from"), members::edge_end(e, "to"));
        (source, output, target, input)
    }

    /// The `i`th edge as the workflow's JSON.
    pub(crate) fn get(&self, i: usize) -> serde_json::Map<String, Value> {
        members::workflow_edge(&self.exp.edges[i], &fragment_edge_id(self.exp, i + 1))
    }
}

/// The id of the `n`th (from 1) fragment edge once inlined.
fn fragment_edge_id(exp: &Expansion, n: usize) -> String {
    format!("{}e{n}", exp.prefix)
}

/// The chain's produced variables with `producedBy` renamed as the nodes were.
pub(crate) fn produced_by_expanded_ids(exp: &Expansion) -> Vec<Value> {
    if exp.produced_variables.is_empty() {
        return Vec::new();
    }
    let renamed: std::collections::HashMap<&str, &str> =
        exp.id_map.iter().map(|(old, new)| (old.as_str(), new.as_str())).collect();
    exp.produced_variables
        .iter()
        .map(|pv| {
            let mut pv = pv.clone();
            let by = pv.get("producedBy").and_then(Value::as_str).and_then(|b| renamed.get(b));
            if let Some(new) = by {
                pv["producedBy"] = Value::String((*new).to_owned());
            }
            pv
        })
        .collect()
}

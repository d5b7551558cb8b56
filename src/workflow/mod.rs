//! The parent workflow (a WorkflowDefinition) held as a petgraph `StableDiGraph`.
//!
//! Nodes and edges keep their full JSON objects (as compact text: [`Node`], [`Edge`]), so
//! members chainsmith does not know round-trip unchanged; top-level members keep their file order. Edges whose endpoints
//! name no node are kept verbatim beside the graph instead of being dropped.

pub mod app_instance;
pub mod bundle;
mod edge;
mod export;
pub mod layered;
pub mod layout;
mod lookup;
pub mod merge3;
mod node;
pub mod provenance;
mod read;
mod splice;
mod text;

pub use edge::Edge;
pub use export::ExportMode;
pub use node::{ChildRef, Node, NodeBody};
pub(crate) use node::{coordinate, placed};
pub use provenance::Instance;
pub use splice::{After, SpliceOptions, SpliceReport, splice};
pub(crate) use splice::{FragmentEdges, FragmentNodes, produced_by_expanded_ids};

use crate::error::{Error, Result, code};
use lookup::Lookup;
use petgraph::Direction;
use petgraph::stable_graph::{EdgeIndex, NodeIndex, StableDiGraph};
use petgraph::visit::EdgeRef;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// Largest workflow file read.
pub const MAX_WORKFLOW_BYTES: u64 = 64 * 1024 * 1024;

/// A WorkflowDefinition as a graph.
#[derive(Debug, Clone)]
pub struct Workflow {
    /// Top-level members in file order; `nodes` and `edges` are filled in on export.
    doc: Map<String, Value>,
    pub graph: StableDiGraph<Node, Edge>,
    // The lookups are shared between copies like the node bodies ([`NodeBody`]): at 20,000 nodes
    // copying them was ~15 ms, paid on the UI thread when an edit met the lint worker's
    // snapshot. Moves do not touch them; adding or removing copies the one table it changes.
    // Each holds only indices; keys are read from the graph ([`lookup`]).
    /// Nodes by `id`.
    index: Arc<Lookup<NodeIndex>>,
    /// Edges naming a node that does not exist, kept verbatim.
    dangling: Vec<Edge>,
    /// Graph edges by `seq` (the editor addresses edges by it).
    by_seq: Arc<Lookup<EdgeIndex>>,
    /// Graph edges by `id` (ids may repeat in a file, so an id can find several).
    by_id: Arc<Lookup<EdgeIndex>>,
    /// How many dangling edges use each id.
    dangling_ids: Arc<HashMap<String, usize>>,
    next_seq: u64,
}

impl Workflow {
    /// A new, empty workflow with every required member present.
    pub fn new(name: &str) -> Self {
        let doc = json!({
            "id": slug_id(name),
            "name": if name.trim().is_empty() { "Untitled workflow" } else { name.trim() },
            "version": "1.0.0",
            "nodes": [], "edges": [], "triggers": [], "variables": [],
            "metadata": {}, "settings": {}
        });
        let Value::Object(doc) = doc else { unreachable!("built as an object") };
        Self::without_nodes(doc)
    }

    /// A workflow over `doc` whose graph is still empty.
    fn without_nodes(doc: Map<String, Value>) -> Self {
        Self {
            doc,
            graph: StableDiGraph::new(),
            index: Arc::default(),
            dangling: Vec::new(),
            by_seq: Arc::default(),
            by_id: Arc::default(),
            dangling_ids: Arc::default(),
            next_seq: 0,
        }
    }

    /// Build from WorkflowDefinition JSON. Structural problems that would make the graph
    /// ambiguous (non-object nodes, missing or duplicate node ids) are refused.
    pub fn from_json(value: Value) -> Result<Self> {
        let Value::Object(mut doc) = value else {
            return Err(Error::new(code::VALIDATION_ERROR, "a workflow is a JSON object").with("path", ""));
        };
        let nodes = take_array(&mut doc, "nodes")?;
        let edges = take_array(&mut doc, "edges")?;
        let mut wf = Self::without_nodes(doc);
        for (i, node) in nodes.into_iter().enumerate() {
            wf.add_node(object_member("nodes", i, node)?).map_err(|e| e.with("path", format!("/nodes/{i}")))?;
        }
        for (i, edge) in edges.into_iter().enumerate() {
            wf.add_edge(object_member("edges", i, edge)?);
        }
        Ok(wf)
    }

    /// Read a workflow file.
    pub fn load(path: &Path) -> Result<Self> {
        if let Some(read) = read::streamed_file(path, MAX_WORKFLOW_BYTES) {
            return read;
        }
        let bytes =
            crate::fsio::read_limited(path, MAX_WORKFLOW_BYTES, code::VALIDATION_ERROR).map_err(Error::not_a_pack)?;
        Self::load_whole(&bytes, path)
    }

    /// The WorkflowDefinition in the file at `path`, read member by member as [`Self::load`]
    /// reads it; `None` when it is anything else (or a definition that would be refused, or
    /// no file within [`MAX_WORKFLOW_BYTES`]), for the caller to read as it reads other
    /// documents.
    pub fn read_definition_file(path: &Path) -> Option<Self> {
        read::streamed_file(path, MAX_WORKFLOW_BYTES).and_then(Result::ok)
    }

    /// The file parsed as one value first: the path every refusal of the member-by-member
    /// read ([`read`]) comes from.
    fn load_whole(bytes: &[u8], path: &Path) -> Result<Self> {
        let value: Value = crate::fsio::parse_json(code::VALIDATION_ERROR, path, bytes)?;
        if let Some(why) = not_a_definition(&value) {
            return Err(not_a_definition_error(path, &why));
        }
        Self::from_json(value)
    }

    pub fn id(&self) -> &str {
        self.doc.get("id").and_then(Value::as_str).unwrap_or_default()
    }

    pub fn name(&self) -> &str {
        self.doc.get("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// A top-level member other than `nodes`/`edges`.
    pub fn member(&self, key: &str) -> Option<&Value> {
        self.doc.get(key)
    }

    pub fn member_mut(&mut self, key: &str) -> &mut Value {
        self.doc.entry(key.to_owned()).or_insert(Value::Null)
    }

    pub fn node(&self, id: &str) -> Option<NodeIndex> {
        self.index.find(id, |ix| node_key(&self.graph, ix))
    }

    pub fn contains_node(&self, id: &str) -> bool {
        self.node(id).is_some()
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Nodes in file order.
    pub fn nodes_in_order(&self) -> Vec<NodeIndex> {
        let mut ixs: Vec<NodeIndex> = self.graph.node_indices().collect();
        ixs.sort_by_key(|ix| self.graph[*ix].seq);
        ixs
    }

    /// Edges in the graph, in file order.
    pub fn edges_in_order(&self) -> Vec<EdgeIndex> {
        let mut ixs: Vec<EdgeIndex> = self.graph.edge_indices().collect();
        ixs.sort_by_key(|ix| self.graph[*ix].seq);
        ixs
    }

    pub fn dangling_edges(&self) -> &[Edge] {
        &self.dangling
    }

    fn bump(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// Add a node; its id must be a non-empty string not used yet.
    pub fn add_node(&mut self, json: Map<String, Value>) -> Result<NodeIndex> {
        self.insert_node(Node::new(json, 0))
    }

    /// Add a node as it is (its `seq` is given the next one, as by [`Self::add_node`]).
    pub(crate) fn insert_node(&mut self, mut node: Node) -> Result<NodeIndex> {
        let id = node.id();
        if id.is_empty() {
            return Err(Error::new(code::VALIDATION_ERROR, "a node needs a non-empty string id"));
        }
        if self.contains_node(id) {
            return Err(
                Error::new(code::VALIDATION_ERROR, format!("node id \"{id}\" is already used")).with("nodeId", id)
            );
        }
        node.seq = self.bump();
        let ix = self.graph.add_node(node);
        let graph = &self.graph;
        Arc::make_mut(&mut self.index).insert(ix, graph[ix].id(), |ix| node_key(graph, ix));
        Ok(ix)
    }

    /// Add an edge; one naming a missing node is kept aside as dangling.
    pub fn add_edge(&mut self, json: Map<String, Value>) -> Option<EdgeIndex> {
        self.add_new_edge(Edge::new(json, 0))
    }

    /// [`Self::add_edge`] for an edge already built; it gets the next `seq`.
    pub(crate) fn add_new_edge(&mut self, mut edge: Edge) -> Option<EdgeIndex> {
        edge.seq = self.bump();
        self.insert_edge(edge)
    }

    /// Add an edge as it is (its `seq` included).
    fn insert_edge(&mut self, edge: Edge) -> Option<EdgeIndex> {
        let seq = edge.seq;
        match (self.node(edge.source()), self.node(edge.target())) {
            (Some(a), Some(b)) => {
                let ix = self.graph.add_edge(a, b, edge);
                let graph = &self.graph;
                Arc::make_mut(&mut self.by_seq).insert(ix, &seq, |ix| edge_seq_key(graph, ix));
                Arc::make_mut(&mut self.by_id).insert(ix, graph[ix].id(), |ix| edge_id_key(graph, ix));
                Some(ix)
            }
            _ => {
                *Arc::make_mut(&mut self.dangling_ids).entry(edge.id().to_owned()).or_default() += 1;
                self.dangling.push(edge);
                None
            }
        }
    }

    /// Remove a node and every edge touching it; returns them for undo.
    pub fn remove_node(&mut self, ix: NodeIndex) -> Option<(Node, Vec<Edge>)> {
        let (mut nodes, edges) = self.remove_all(&[ix], &[]);
        Some((nodes.pop()?, edges))
    }

    pub fn remove_edge(&mut self, ix: EdgeIndex) -> Option<Edge> {
        let edge = self.graph.remove_edge(ix)?;
        self.unindex_edge(&edge, ix);
        Some(edge)
    }

    /// Remove nodes (with every edge touching them) and edges; returns what was removed, for
    /// undo. petgraph unlinks an edge by walking its endpoints' edge lists, so removing the
    /// edges of a busy node one by one is quadratic in its degree; past a few dozen edges the
    /// graph is rebuilt once instead, every remaining node and edge keeping its index.
    pub fn remove_all(&mut self, nodes: &[NodeIndex], edges: &[EdgeIndex]) -> (Vec<Node>, Vec<Edge>) {
        const ONE_BY_ONE: usize = 32;
        let touching = nodes.iter().filter(|n| self.graph.contains_node(**n)).flat_map(|n| {
            self.graph.edges_directed(*n, Direction::Outgoing).chain(self.graph.edges_directed(*n, Direction::Incoming))
        });
        let mut doomed: HashSet<EdgeIndex> = HashSet::new();
        let mut order = Vec::new();
        for e in edges.iter().copied().filter(|e| self.graph.edge_weight(*e).is_some()).chain(touching.map(|e| e.id()))
        {
            if doomed.insert(e) {
                order.push(e);
            }
        }
        let removed_edges: Vec<(EdgeIndex, Edge)> = if order.len() <= ONE_BY_ONE {
            order.into_iter().filter_map(|e| Some((e, self.graph.remove_edge(e)?))).collect()
        } else {
            let mut removed = Vec::with_capacity(order.len());
            self.graph = std::mem::take(&mut self.graph).filter_map_owned(
                |_, node| Some(node),
                |e, edge| {
                    if doomed.contains(&e) {
                        removed.push((e, edge));
                        None
                    } else {
                        Some(edge)
                    }
                },
            );
            removed
        };
        for (ix, edge) in &removed_edges {
            self.unindex_edge(edge, *ix);
        }
        let removed_edges: Vec<Edge> = removed_edges.into_iter().map(|(_, e)| e).collect();
        // Their edges are gone, so each node leaves in constant time.
        let removed_nodes: Vec<Node> = nodes.iter().filter_map(|n| self.graph.remove_node(*n)).collect();
        if !removed_nodes.is_empty() {
            let index = Arc::make_mut(&mut self.index);
            for (node, ix) in removed_nodes.iter().zip(nodes) {
                index.remove(*ix, node.id());
            }
        }
        (removed_nodes, removed_edges)
    }

    /// Re-insert a removed node keeping its file-order position (undo).
    pub fn restore_node(&mut self, node: Node) -> Result<NodeIndex> {
        let seq = node.seq;
        let ix = self.insert_node(node)?;
        self.graph[ix].seq = seq;
        Ok(ix)
    }

    /// Re-insert a removed edge keeping its file-order position (undo); a dangling one goes
    /// back beside the graph, also in its place.
    pub fn restore_edge(&mut self, edge: Edge) -> Option<EdgeIndex> {
        // A seq is drawn as adding would, so the seqs handed out later are the same.
        self.bump();
        self.insert_edge(edge)
    }

    /// Take out the dangling edges with these `seq`s (undo of what added them).
    pub(crate) fn remove_dangling(&mut self, seqs: &HashSet<u64>) -> Vec<Edge> {
        if seqs.is_empty() {
            return Vec::new();
        }
        let (removed, kept): (Vec<Edge>, Vec<Edge>) =
            std::mem::take(&mut self.dangling).into_iter().partition(|e| seqs.contains(&e.seq));
        self.dangling = kept;
        if removed.is_empty() {
            return removed;
        }
        let counts = Arc::make_mut(&mut self.dangling_ids);
        for e in &removed {
            if let Some(n) = counts.get_mut(e.id()) {
                *n -= 1;
                if *n == 0 {
                    counts.remove(e.id());
                }
            }
        }
        removed
    }

    /// The `seq` the last node or edge added got; everything added later has a larger one.
    pub fn last_seq(&self) -> u64 {
        self.next_seq
    }

    /// The top-level members in file order (`nodes` and `edges` are empty stand-ins there).
    pub(crate) fn members(&self) -> &Map<String, Value> {
        &self.doc
    }

    /// Put back top-level members taken from [`Self::members`] of this workflow (undo);
    /// returns the ones they replace.
    pub(crate) fn swap_members(&mut self, members: Map<String, Value>) -> Map<String, Value> {
        std::mem::replace(&mut self.doc, members)
    }

    /// The graph edge with this `seq`.
    pub fn edge_by_seq(&self, seq: u64) -> Option<EdgeIndex> {
        self.by_seq.find(&seq, |ix| edge_seq_key(&self.graph, ix))
    }

    /// The graph edges with this `id` (more than one when a file repeats it), in file order;
    /// constant time.
    pub fn edges_by_id(&self, id: &str) -> Vec<EdgeIndex> {
        let mut found: Vec<EdgeIndex> = self.by_id.find_all(id, |ix| edge_id_key(&self.graph, ix)).collect();
        found.sort_by_key(|ix| self.graph[*ix].seq);
        found
    }

    /// How many edges, in the graph or dangling, have this `id`, where edges whose `id` is
    /// not a string count as having `""`; constant time unless the id repeats.
    pub(crate) fn edge_id_uses(&self, id: &str) -> usize {
        self.by_id.find_all(id, |ix| edge_id_key(&self.graph, ix)).count()
            + self.dangling_ids.get(id).copied().unwrap_or(0)
    }

    /// Whether any edge, in the graph or dangling, has this `id`; constant time.
    pub fn has_edge_id(&self, id: &str) -> bool {
        self.by_id.find(id, |ix| edge_id_key(&self.graph, ix)).is_some() || self.dangling_ids.contains_key(id)
    }

    /// Keep only the dangling edges `keep` says to.
    pub(crate) fn retain_dangling(&mut self, mut keep: impl FnMut(&Edge) -> bool) {
        let counts = Arc::make_mut(&mut self.dangling_ids);
        self.dangling.retain(|e| {
            let kept = keep(e);
            if !kept && let Some(n) = counts.get_mut(e.id()) {
                *n -= 1;
                if *n == 0 {
                    counts.remove(e.id());
                }
            }
            kept
        });
    }

    fn unindex_edge(&mut self, edge: &Edge, ix: EdgeIndex) {
        Arc::make_mut(&mut self.by_seq).remove(ix, &edge.seq);
        Arc::make_mut(&mut self.by_id).remove(ix, edge.id());
    }

    /// An edge id not used yet, built from `base`.
    pub fn fresh_edge_id(&self, base: &str) -> String {
        self.edge_ids().fresh(self, base)
    }

    /// A source of fresh edge ids: to draw many, take one and draw from it.
    pub fn edge_ids(&self) -> EdgeIds {
        EdgeIds { handed: HashSet::new(), next_suffix: HashMap::new() }
    }

    /// A node id not used yet, built from `base`.
    pub fn fresh_node_id(&self, base: &str) -> String {
        if !self.contains_node(base) {
            return base.to_owned();
        }
        (2..).map(|n| format!("{base}-{n}")).find(|c| !self.contains_node(c)).expect("unbounded")
    }

    /// `settings.compensation`, when present.
    pub fn settings_compensation(&self) -> Option<&Value> {
        self.doc.get("settings").and_then(|s| s.get("compensation"))
    }

    /// Bounding box of all nodes' positions: (min x, min y, max x, max y).
    pub fn bounds(&self) -> Option<(f64, f64, f64, f64)> {
        self.graph.node_weights().map(Node::position).fold(None, |acc, (x, y)| {
            Some(match acc {
                None => (x, y, x, y),
                Some((a, b, c, d)) => (a.min(x), b.min(y), c.max(x), d.max(y)),
            })
        })
    }
}

/// The keys the lookups find graph indices by. An index the graph no longer has (which
/// the lookups never hold) would read as a key nothing is asked for.
fn node_key(graph: &StableDiGraph<Node, Edge>, ix: NodeIndex) -> &str {
    graph.node_weight(ix).map_or("", Node::id)
}

fn edge_id_key(graph: &StableDiGraph<Node, Edge>, ix: EdgeIndex) -> &str {
    graph.edge_weight(ix).map_or("", Edge::id)
}

fn edge_seq_key(graph: &StableDiGraph<Node, Edge>, ix: EdgeIndex) -> &u64 {
    graph.edge_weight(ix).map_or(&u64::MAX, |e| &e.seq)
}

/// A source of fresh edge ids: `base`, else `base-2`, `base-3`, … An id is taken when the
/// workflow has it (asked in constant time) or it was handed out already; the next suffix to
/// try is remembered per base, so drawing n ids costs O(n) however often a base repeats.
#[derive(Debug, Clone)]
pub struct EdgeIds {
    handed: HashSet<String>,
    next_suffix: HashMap<String, u64>,
}

impl EdgeIds {
    pub fn fresh(&mut self, wf: &Workflow, base: &str) -> String {
        let taken = |id: &str, handed: &HashSet<String>| wf.has_edge_id(id) || handed.contains(id);
        let id = if taken(base, &self.handed) {
            let mut n = self.next_suffix.get(base).copied().unwrap_or(2);
            let id = loop {
                let candidate = format!("{base}-{n}");
                n += 1;
                if !taken(&candidate, &self.handed) {
                    break candidate;
                }
            };
            self.next_suffix.insert(base.to_owned(), n);
            id
        } else {
            base.to_owned()
        };
        self.handed.insert(id.clone());
        id
    }
}

/// Item `i` of the document's `list` as it was parsed (nodes and edges are kept as text, so
/// the parsed object's spare room does not last); refused when it is not an object.
pub(crate) fn object_member(list: &str, i: usize, value: Value) -> Result<Map<String, Value>> {
    match value {
        Value::Object(json) => Ok(json),
        _ => Err(Error::new(code::VALIDATION_ERROR, format!("{list}[{i}] is not an object"))
            .with("path", format!("/{list}/{i}"))),
    }
}

fn take_array(doc: &mut Map<String, Value>, key: &str) -> Result<Vec<Value>> {
    match doc.get_mut(key) {
        None => {
            doc.insert(key.to_owned(), Value::Array(Vec::new()));
            Ok(Vec::new())
        }
        Some(Value::Array(items)) => Ok(std::mem::take(items)),
        Some(_) => {
            Err(Error::new(code::VALIDATION_ERROR, format!("`{key}` must be an array")).with("path", format!("/{key}")))
        }
    }
}

/// A workflow id from a display name: the WorkflowDefinition pattern `^[a-z][a-z0-9_-]*$`.
pub fn slug_id(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().chars() {
        match c {
            'a'..='z' | '0'..='9' | '_' | '-' => out.push(c),
            'A'..='Z' => out.push(c.to_ascii_lowercase()),
            _ if !out.ends_with('-') && !out.is_empty() => out.push('-'),
            _ => {}
        }
    }
    let out = out.trim_end_matches('-').to_owned();
    let out = if out.starts_with(|c: char| c.is_ascii_lowercase()) { out } else { format!("wf-{out}") };
    out.chars().take(128).collect::<String>().trim_end_matches('-').to_owned()
}

fn not_a_definition_error(path: &Path, why: &str) -> Error {
    Error::new(code::VALIDATION_ERROR, format!("{} is not a WorkflowDefinition: {why}", path.display()))
        .with("path", path.display().to_string())
}

/// Why a document read as a workflow is not a WorkflowDefinition, if it is not: a pack
/// manifest, or a document without the members every definition has (a string `id`, arrays
/// `nodes` and `edges`). Other schema problems are lints, not refusals.
fn not_a_definition(v: &Value) -> Option<String> {
    let Some(obj) = v.as_object() else { return Some(format!("it is {}, not an object", crate::pack::json_kind(v))) };
    if let Some(kind) = obj.get("kind").and_then(Value::as_str) {
        return Some(format!("it is a {kind} pack manifest (`kind`: \"{kind}\")"));
    }
    if let Some(marker) = ["chains", "engines", "runtime"].into_iter().find(|k| obj.contains_key(*k)) {
        return Some(format!("it is a pack manifest (it has `{marker}`)"));
    }
    let missing: Vec<&str> =
        [("id", Value::is_string as fn(&Value) -> bool), ("nodes", Value::is_array), ("edges", Value::is_array)]
            .into_iter()
            .filter(|(key, ok)| !obj.get(*key).is_some_and(ok))
            .map(|(key, _)| key)
            .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "it has no {} (a string `id` and arrays `nodes` and `edges` are required)",
            missing.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
        )
    })
}

#[cfg(test)]
mod tests;

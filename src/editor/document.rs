//! The open workflow and its history: every model change is a [`Command`] that `apply`
//! turns into an invertible [`Change`], so undo and redo replay exact inverses.
//!
//! Cheap edits (moving, renaming, connecting, deleting, pasting) record precise inverses
//! keyed by node id and edge `seq`, which survive re-insertion. Chain operations
//! (insert and re-parameterise, which run the inline pipeline through [`Document::inline`],
//! and remove instance) touch provenance, variables and settings as well, so they record a
//! snapshot of the whole workflow instead.

use super::arrange::{self, Arrangement};
use super::cards::{PortTable, card_sizes};
use super::commands::Context;
use super::history::{History, next_revision};
use super::selection::Selection;
use crate::error::{Error, Finding, code};
use crate::inline::{Destination, InlineRequest};
use crate::instance::update::Available;
use crate::workflow::{Edge, Node, NodeBody, Workflow};
use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

/// A user intent. Applying it may be refused, and then nothing changes.
#[derive(Debug, Clone)]
pub enum Command {
    RemoveInstance {
        key: String,
    },
    /// Re-expand the workflow's OpenWOP app instance (interop §5) with `values` merged over
    /// the recorded ones, by the app's token rules and expansionId, keeping hand edits
    /// (conflicts settled by `resolutions`, else refused).
    ReparameteriseApp {
        chain: Box<crate::pack::Chain>,
        values: Map<String, Value>,
        resolutions: crate::instance::Resolutions,
    },
    /// Pin the chain instance `key` to its version (no update is offered), or unpin it.
    PinInstance {
        key: String,
        pinned: bool,
    },
    /// New positions for nodes (a finished drag is one command).
    MoveNodes(Vec<(String, (f64, f64))>),
    /// Tidy, align or distribute the nodes named (tidy: all of them when none are), with
    /// cards sized by `ports`.
    Arrange {
        how: Arrangement,
        nodes: Vec<String>,
        ports: PortTable,
    },
    /// Copies of the nodes and the edges among them, with fresh ids, clear below the
    /// originals (cards sized by `ports`).
    Duplicate {
        nodes: Vec<String>,
        ports: PortTable,
    },
    Connect {
        source: String,
        source_port: String,
        target: String,
        target_port: String,
    },
    /// Delete nodes (with every edge touching them) and edges, by edge `seq`.
    Delete {
        nodes: Vec<String>,
        edges: Vec<u64>,
    },
    /// Add copies of nodes and the edges among them, with fresh ids, offset by `offset`.
    Paste {
        nodes: Vec<Node>,
        edges: Vec<Edge>,
        offset: (f64, f64),
    },
    /// Add one node (see [`super::node_type::node_from_type`]) under a fresh id made from
    /// its `id`, wired as `link` says; one undo step. A wired node makes room as a spliced
    /// chain does ([`arrange::make_room`], cards sized by `ports`).
    InsertNode {
        node: Box<Map<String, Value>>,
        link: NodeLink,
        ports: PortTable,
    },
    /// Set (or with `None` remove) one member of a node, an edge or the workflow.
    SetMember {
        member: Member,
        value: Option<Value>,
    },
}

/// A member a [`Command::SetMember`] may set. The members the graph is indexed by (a node's
/// `id`, an edge's `id` and endpoints, the workflow's `nodes` and `edges`) are not edited in
/// place, and [`Member::new`], the only way to make one, refuses them: a command that would
/// edit them cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    target: Target,
    key: String,
}

impl Member {
    pub fn new(target: Target, key: &str) -> Result<Self, Error> {
        let locked: &[&str] = match target {
            Target::Node(_) => &["id"],
            Target::Edge(_) => &["id", "sourceNodeId", "targetNodeId"],
            Target::Workflow => &["nodes", "edges"],
        };
        if locked.contains(&key) {
            return Err(Error::new(code::INVALID_REQUEST, format!("`{key}` cannot be edited here")).with("member", key));
        }
        Ok(Self { target, key: key.to_owned() })
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    pub fn key(&self) -> &str {
        &self.key
    }
}

/// How an inserted node is wired into the workflow. Port names are the new node's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeLink {
    Unwired,
    /// Downstream of `source`: its `source_port` into the new node's `input`.
    After {
        source: String,
        source_port: String,
        input: String,
    },
    /// Into the edge with this `seq`: its source into `input`, `output` into its target; the
    /// edge's own ports stay on the outer ends.
    Splice {
        seq: u64,
        input: String,
        output: String,
    },
}

/// What a member edit addresses. Edges are keyed by `seq`: edge ids may repeat in a file,
/// and graph indices change when an edge is restored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Node(String),
    Edge(u64),
    Workflow,
}

/// An invertible change to the workflow. Applying one returns its inverse.
#[derive(Debug, Clone)]
enum Change {
    Members(Vec<(Target, String, Option<Value>)>),
    Remove {
        nodes: Vec<String>,
        edges: Vec<u64>,
    },
    Restore {
        nodes: Vec<Node>,
        edges: Vec<Edge>,
    },
    /// Whole node objects by id (the ids themselves do not change).
    Nodes(Vec<(String, NodeBody)>),
    /// The workflow's top-level members (provenance, variables, settings, …).
    TopLevel(Map<String, Value>),
    Replace(Box<Workflow>),
    Batch(Vec<Change>),
}

impl Change {
    /// Whether this step keeps a whole workflow (only the changes that rebuild it do).
    #[cfg(test)]
    fn holds_a_workflow(&self) -> bool {
        match self {
            Change::Replace(_) => true,
            Change::Batch(changes) => changes.iter().any(Change::holds_a_workflow),
            _ => false,
        }
    }
}

/// What a successful command did, for the status bar and the selection.
#[derive(Debug, Default)]
pub struct Outcome {
    pub label: String,
    pub warnings: Vec<Finding>,
    /// Nodes the command created (to select them).
    pub new_nodes: Vec<String>,
}

impl Outcome {
    /// The status line: the label, then the first warning in words (the status bar counts
    /// all of them beside it); a warning that names the action itself says it all.
    pub fn status_text(&self) -> String {
        match self.warnings.first() {
            Some(w) if w.message.starts_with(&self.label) => w.message.clone(),
            Some(w) => format!("{} — {}", self.label, w.message),
            None => self.label.clone(),
        }
    }
}

impl Command {
    /// Arrange the selected nodes `how`, cards sized by the catalog's ports. Tidying fewer
    /// than two selected nodes tidies the whole workflow (then `true`: the view should fit it).
    pub fn arrange_selection(
        how: Arrangement,
        wf: &Workflow,
        sel: &Selection,
        catalog: Option<&crate::catalog::Catalog>,
    ) -> (Self, bool) {
        let whole = how == Arrangement::Tidy && sel.nodes.len() < 2;
        let nodes = if whole { Vec::new() } else { sel.nodes.iter().cloned().collect() };
        (Command::Arrange { how, nodes, ports: PortTable::for_workflow(catalog, wf) }, whole)
    }

    /// Duplicate the selected nodes, cards sized by the catalog's ports.
    pub fn duplicate_selection(wf: &Workflow, sel: &Selection, catalog: Option<&crate::catalog::Catalog>) -> Self {
        let nodes = sel.nodes.iter().cloned().collect();
        Command::Duplicate { nodes, ports: PortTable::for_workflow(catalog, wf) }
    }
}

pub struct Document {
    /// Shared with the lint worker while it copies a revision to check.
    wf: Arc<Workflow>,
    pub path: Option<PathBuf>,
    pub selection: Selection,
    history: History<Change>,
    /// Changes on every change, including undo and redo, and is never shared by two
    /// documents (a new or reopened one included); caches key on it.
    revision: u64,
    /// When the last change only moved nodes: the revision it was made from and the nodes
    /// it moved (a view of the previous revision can follow it instead of starting over).
    last_moves: Option<(u64, Vec<String>)>,
}

impl Document {
    /// A node as the user knows it ([`crate::editor::wording::title`]).
    pub fn title(&self, id: &str) -> String {
        crate::editor::wording::title(&self.wf, id)
    }

    pub fn new(wf: Workflow, path: Option<PathBuf>) -> Self {
        Self {
            wf: Arc::new(wf),
            path,
            selection: Selection::default(),
            history: History::new(true),
            revision: next_revision(),
            last_moves: None,
        }
    }

    pub fn workflow(&self) -> &Workflow {
        &self.wf
    }

    /// The workflow to change: copied first if the lint worker still holds it.
    fn wf_mut(&mut self) -> &mut Workflow {
        Arc::make_mut(&mut self.wf)
    }

    /// The workflow as it is now, shared (for work done off the UI thread).
    pub fn snapshot(&self) -> Arc<Workflow> {
        Arc::clone(&self.wf)
    }

    /// The workflow to draw and the selection to change, borrowed together.
    pub fn parts(&mut self) -> (&Workflow, &mut Selection) {
        (&self.wf, &mut self.selection)
    }

    /// The workflow, the selection, and what the last change did if it only moved nodes
    /// (the revision it was made from and the nodes it moved), borrowed together: a view of
    /// that revision can follow the move instead of starting over.
    pub fn parts_with_moves(&mut self) -> (&Workflow, &mut Selection, Option<(u64, &[String])>) {
        let moves = self.last_moves.as_ref().map(|(from, ids)| (*from, ids.as_slice()));
        (&self.wf, &mut self.selection, moves)
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// A new revision after `change` (the inverse of what was just done).
    fn changed(&mut self, change: &Change) {
        let moves = match change {
            Change::Members(members) => members
                .iter()
                .map(|(target, key, _)| match target {
                    Target::Node(id) if key == "position" => Some(id.clone()),
                    _ => None,
                })
                .collect::<Option<Vec<String>>>(),
            _ => None,
        };
        self.last_moves = moves.map(|ids| (self.revision, ids));
        self.revision = next_revision();
    }

    pub fn is_dirty(&self) -> bool {
        self.history.is_dirty()
    }

    pub fn mark_saved(&mut self) {
        self.history.mark_saved();
    }

    /// A document restored from a recovery file: the content is unsaved work.
    pub fn mark_unsaved(&mut self) {
        self.history.mark_unsaved();
    }

    /// The chain instance the selection stands for: the selected one, or the instance of
    /// the one selected node.
    pub fn selected_instance(&self) -> Option<String> {
        if let Some(key) = &self.selection.instance {
            return Some(key.clone());
        }
        let [id] = self.selection.nodes.iter().collect::<Vec<_>>()[..] else { return None };
        self.wf.instance_of_node(id).map(|inst| inst.key())
    }

    /// What the command registry's enabled-when predicates know from the document, with
    /// the instance updates `available`; the editor's panels and windows fill in the rest.
    pub fn command_context(&self, available: &HashMap<String, Available>) -> Context {
        let (wf, sel) = (&*self.wf, &self.selection);
        let single_node_instance =
            sel.nodes.len() == 1 && sel.nodes.iter().next().is_some_and(|id| wf.instance_of_node(id).is_some());
        let selected = self.selected_instance();
        Context {
            has_nodes: wf.node_count() > 0,
            instance_outdated: selected.as_ref().is_some_and(|k| available.contains_key(k)),
            instance_pinned: selected.as_deref().and_then(|k| wf.instance(k)).is_some_and(|i| i.pinned),
            nodes_selected: sel.nodes.len(),
            edges_selected: sel.edges.len(),
            instance_selected: sel.instance.is_some() || single_node_instance,
            can_undo: self.can_undo(),
            can_redo: self.can_redo(),
            app_instance: super::app_reparam::app_instance(wf).is_some(),
            child_selected: sel.nodes.len() == 1
                && sel.nodes.iter().filter_map(|id| wf.node(id)).any(|ix| wf.graph[ix].child_ref().is_some()),
            ..Context::default()
        }
    }

    pub fn can_undo(&self) -> bool {
        self.history.can_undo()
    }

    pub fn can_redo(&self) -> bool {
        self.history.can_redo()
    }

    pub fn undo_label(&self) -> Option<&str> {
        self.history.undo_label()
    }

    pub fn redo_label(&self) -> Option<&str> {
        self.history.redo_label()
    }

    /// Apply a command as one undo step.
    pub fn apply(&mut self, command: Command) -> Result<Outcome, Error> {
        let (inverse, outcome) = self.execute(command)?;
        Ok(self.record(inverse, outcome))
    }

    /// Insert or re-parameterise a chain instance through the inline pipeline (the one
    /// `chainsmith inline` runs), as one undo step. A refusal changes nothing.
    ///
    /// The undo step holds what the inline changed, not a copy of the workflow: a splice only
    /// adds nodes and edges, removes the edges its wiring replaces and edits top-level
    /// members; a re-expansion edits, adds and removes its instance's nodes and edges and the
    /// provenance; making room moves nodes.
    pub fn inline(&mut self, req: InlineRequest) -> Result<Outcome, Error> {
        let (destination, trust) = (req.destination.clone(), req.trust);
        let top_level = self.wf.members().clone();
        let last_seq = self.wf.last_seq();
        let reparameterised: Vec<(String, NodeBody)> = match &destination {
            Destination::Reparameterise { key, .. } => self
                .wf
                .instance(key)
                .map(|i| i.node_ids)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|id| self.wf.node(&id).map(|ix| (id, self.wf.graph[ix].body().clone())))
                .collect(),
            Destination::Splice(_) => Vec::new(),
        };
        let done = crate::inline::inline(self.wf_mut(), req)?;
        let moved = super::preview::make_room(self.wf_mut(), &done.instance.node_ids, &destination, trust);
        let wf = &self.wf;
        let added_nodes: Vec<String> =
            wf.graph.node_weights().filter(|n| n.seq > last_seq).map(|n| n.id().to_owned()).collect();
        let added_edges: Vec<u64> =
            wf.graph.edge_weights().chain(wf.dangling_edges()).map(|e| e.seq).filter(|s| *s > last_seq).collect();
        let moved = moved.into_iter().map(|(id, old)| (Target::Node(id), "position".to_owned(), old)).collect();
        let inverse = Change::Batch(vec![
            Change::Members(moved),
            Change::Nodes(reparameterised),
            Change::Remove { nodes: added_nodes, edges: added_edges },
            Change::Restore { nodes: done.removed_nodes, edges: done.removed_edges },
            Change::TopLevel(top_level),
        ]);
        let (verb, new_nodes) = match &destination {
            Destination::Reparameterise { .. } => ("Re-parameterise", Vec::new()),
            Destination::Splice(opts) if opts.between.is_some() => ("Splice", done.instance.node_ids),
            Destination::Splice(_) => ("Insert", done.instance.node_ids),
        };
        let kept = match done.edits.len() {
            0 => String::new(),
            1 => " (1 edit kept)".to_owned(),
            n => format!(" ({n} edits kept)"),
        };
        let outcome =
            Outcome { label: format!("{verb} {}{kept}", done.instance.label), warnings: done.findings, new_nodes };
        Ok(self.record(inverse, outcome))
    }

    /// Several re-expansions in place ("Update all instances of this chain") as one undo
    /// step, all or none: they run on a copy, which replaces the workflow only when every
    /// one succeeded.
    pub fn inline_all(&mut self, reqs: Vec<InlineRequest>, label: String) -> Result<Outcome, Error> {
        let mut wf = Workflow::clone(&self.wf);
        let mut warnings = Vec::new();
        for req in reqs {
            warnings.extend(crate::inline::inline(&mut wf, req)?.findings);
        }
        let before = Arc::unwrap_or_clone(std::mem::replace(&mut self.wf, Arc::new(wf)));
        Ok(self.record(Change::Replace(Box::new(before)), Outcome { label, warnings, new_nodes: Vec::new() }))
    }

    /// Push a step whose inverse is `inverse`.
    fn record(&mut self, inverse: Change, outcome: Outcome) -> Outcome {
        self.changed(&inverse);
        self.history.record(outcome.label.clone(), inverse);
        self.selection.retain_existing(&self.wf);
        outcome
    }

    pub fn undo(&mut self) -> Option<String> {
        // Set aside while a step replays: replaying needs the whole document.
        let mut history = std::mem::replace(&mut self.history, History::new(true));
        let label = history.undo(|inverse| self.replay(inverse));
        self.history = history;
        label
    }

    pub fn redo(&mut self) -> Option<String> {
        let mut history = std::mem::replace(&mut self.history, History::new(true));
        let label = history.redo(|inverse| self.replay(inverse));
        self.history = history;
        label
    }

    /// Apply a recorded inverse; returns the change that reverses it.
    fn replay(&mut self, change: Change) -> Change {
        let reverse = apply_change(self.wf_mut(), change);
        self.changed(&reverse);
        self.selection.retain_existing(&self.wf);
        reverse
    }

    fn execute(&mut self, command: Command) -> Result<(Change, Outcome), Error> {
        match command {
            Command::RemoveInstance { key } => {
                let before = Workflow::clone(&self.wf);
                let instance = self.wf_mut().remove_instance(&key).ok_or_else(|| {
                    Error::new(code::INVALID_REQUEST, format!("no chain instance \"{key}\" in this workflow"))
                        .with("instance", key.as_str())
                })?;
                Ok((Change::Replace(Box::new(before)), outcome(format!("Remove instance {}", instance.label))))
            }
            Command::ReparameteriseApp { chain, values, resolutions } => {
                self.reparameterise_app(chain, values, &resolutions)
            }
            Command::PinInstance { key, pinned } => {
                let before = self.wf.members().clone();
                self.wf_mut().pin_instance(&key, pinned).ok_or_else(|| {
                    Error::new(code::INSTANCE_NOT_FOUND, format!("no chain instance \"{key}\" in this workflow"))
                        .with("instance", key.as_str())
                })?;
                let label = if pinned { format!("Pin {key} to its version") } else { format!("Unpin {key}") };
                Ok((Change::TopLevel(before), outcome(label)))
            }
            Command::MoveNodes(moves) => {
                let label =
                    if moves.len() == 1 { "Move node".to_owned() } else { format!("Move {} nodes", moves.len()) };
                Ok((self.move_nodes(moves), outcome(label)))
            }
            Command::Arrange { how, nodes, ports } => self.arrange(how, &nodes, &ports),
            Command::Duplicate { nodes, ports } => self.duplicate(&nodes, &ports),
            Command::Connect { source, source_port, target, target_port } => {
                self.connect(&source, &source_port, &target, &target_port)
            }
            Command::Delete { nodes, edges } => self.delete(&nodes, &edges),
            Command::Paste { nodes, edges, offset } => self.paste(nodes, edges, offset),
            Command::InsertNode { node, link, ports } => self.insert_node(*node, link, &ports),
            Command::SetMember { member: Member { target, key }, value } => self.set_member(target, key, value),
        }
    }

    /// Re-expand an instance the OpenWOP app made with new values (a snapshot change).
    fn reparameterise_app(
        &mut self,
        chain: Box<crate::pack::Chain>,
        values: Map<String, Value>,
        resolutions: &crate::instance::Resolutions,
    ) -> Result<(Change, Outcome), Error> {
        let inst = super::app_reparam::app_instance(&self.wf).ok_or_else(|| {
            Error::new(code::INVALID_REQUEST, "this workflow was not expanded by the OpenWOP app")
                .with("path", "/metadata/source")
        })?;
        let doc = self.wf.to_json(crate::workflow::ExportMode::Faithful);
        let wf = Workflow::from_json(inst.reparameterise(&doc, &chain, values, resolutions)?)?;
        let to = super::app_reparam::app_instance(&wf).map(|i| i.expansion_id).unwrap_or_default();
        let before = Arc::unwrap_or_clone(std::mem::replace(&mut self.wf, Arc::new(wf)));
        let label = format!("Re-parameterise {} ({} → {to})", chain.label(), inst.expansion_id);
        Ok((Change::Replace(Box::new(before)), outcome(label)))
    }

    /// Arrange the selected nodes (or, tidying, all of them) and record their old positions.
    fn arrange(&mut self, how: Arrangement, nodes: &[String], ports: &PortTable) -> Result<(Change, Outcome), Error> {
        let count = if nodes.is_empty() && how == Arrangement::Tidy { self.wf.node_count() } else { nodes.len() };
        if count < how.minimum() {
            let what =
                if how.minimum() == 1 { "a node".to_owned() } else { format!("{} or more nodes", how.minimum()) };
            return Err(Error::new(code::INVALID_REQUEST, format!("{}: select {what} first", how.label())));
        }
        let sizes = card_sizes(&self.wf, ports);
        let moves = how.moves(&self.wf, nodes, &sizes);
        let label = match how {
            Arrangement::Tidy if !nodes.is_empty() => {
                format!("Tidy {}", crate::words::count(moves.len(), "node", "nodes"))
            }
            _ => how.label().to_owned(),
        };
        Ok((self.move_nodes(moves), outcome(label)))
    }

    /// Paste a copy of the selected nodes and their inner edges beside them.
    fn duplicate(&mut self, nodes: &[String], ports: &PortTable) -> Result<(Change, Outcome), Error> {
        let ids: HashSet<String> = nodes.iter().filter(|id| self.wf.contains_node(id)).cloned().collect();
        let (objects, edges) = super::clipboard::selected(&self.wf, &ids);
        if objects.is_empty() {
            return Err(Error::new(code::INVALID_REQUEST, "Duplicate: select a node first"));
        }
        let sizes = card_sizes(&self.wf, ports);
        let offset = arrange::duplicate_offset(&self.wf, nodes, &sizes);
        let (change, mut out) = self.paste(objects, edges, offset)?;
        let n = out.new_nodes.len();
        out.label = format!("Duplicate {n} node{}", if n == 1 { "" } else { "s" });
        Ok((change, out))
    }

    /// Set (or with `None`, drop) one member of a node, an edge or the workflow.
    fn set_member(&mut self, target: Target, key: String, value: Option<Value>) -> Result<(Change, Outcome), Error> {
        let exists = match &target {
            Target::Node(id) => self.wf.contains_node(id),
            Target::Edge(seq) => self.wf.edge_by_seq(*seq).is_some(),
            Target::Workflow => true,
        };
        if !exists {
            return Err(Error::new(code::INVALID_REQUEST, "the selected item no longer exists"));
        }
        let label = match &target {
            Target::Node(id) => format!("Edit {key} of {}", self.title(id)),
            Target::Edge(_) => format!("Edit edge {key}"),
            Target::Workflow => format!("Edit workflow {key}"),
        };
        if target == Target::Workflow && (value.is_none() || self.wf.member(&key).is_none()) {
            // The workflow object cannot drop a member in place; going to or from
            // "absent" rebuilds it and records a snapshot.
            let before = Workflow::clone(&self.wf);
            let mut doc = self.wf.to_json(crate::workflow::ExportMode::Faithful);
            if let Some(m) = doc.as_object_mut() {
                match &value {
                    Some(v) => m.insert(key.clone(), v.clone()),
                    None => m.remove(&key),
                };
            }
            self.wf = Arc::new(Workflow::from_json(doc)?);
            return Ok((Change::Replace(Box::new(before)), outcome(label)));
        }
        let inverse = apply_change(self.wf_mut(), Change::Members(vec![(target, key, value)]));
        Ok((inverse, outcome(label)))
    }

    /// Set positions, recording the old ones.
    fn move_nodes(&mut self, moves: arrange::Moves) -> Change {
        let mut changes = Vec::with_capacity(moves.len());
        for (id, (x, y)) in moves {
            let Some(ix) = self.wf.node(&id) else { continue };
            let old = self.wf.graph[ix].member("position").unwrap_or(Value::Null);
            changes.push((Target::Node(id), "position".to_owned(), Some(crate::workflow::placed(old, x, y))));
        }
        apply_change(self.wf_mut(), Change::Members(changes))
    }

    fn connect(
        &mut self,
        source: &str,
        source_port: &str,
        target: &str,
        target_port: &str,
    ) -> Result<(Change, Outcome), Error> {
        let (Some(a), Some(b)) = (self.wf.node(source), self.wf.node(target)) else {
            return Err(Error::new(code::INVALID_REQUEST, "both ends of a connection must be nodes of the workflow"));
        };
        if a == b && source_port == target_port {
            return Err(Error::new(
                code::VALIDATION_ERROR,
                format!(
                    "{} cannot feed its own port \"{source_port}\": connect it to another node's input",
                    self.title(source)
                ),
            )
            .with("nodeId", source)
            .with("port", source_port));
        }
        let duplicate = self
            .wf
            .graph
            .edges_connecting(a, b)
            .any(|e| e.weight().source_port() == source_port && e.weight().target_port() == target_port);
        if duplicate {
            return Err(Error::new(
                code::VALIDATION_ERROR,
                format!(
                    "{} ➡ {} are already connected ({source_port} ➡ {target_port}); nothing was added",
                    self.title(source),
                    self.title(target)
                ),
            )
            .with("sourceNodeId", source)
            .with("targetNodeId", target));
        }
        let mut warnings = Vec::new();
        if a == b || petgraph::algo::has_path_connecting(&self.wf.graph, b, a, None) {
            warnings.push(
                Finding::warning(
                    code::VALIDATION_ERROR,
                    "",
                    format!(
                        "Connect {from} ➡ {to} closes a loop: {to} already leads to {from}, so a run can go round \
                         it again and again; if that is not meant, undo it (Ctrl+Z)",
                        from = self.title(source),
                        to = self.title(target)
                    ),
                )
                .with("sourceNodeId", source)
                .with("targetNodeId", target),
            );
        }
        let id = self.wf.fresh_edge_id(&format!("e-{source}-{target}"));
        let json = edge_json(id, (source, source_port), (target, target_port));
        let ix = self.wf_mut().add_edge(json).expect("both endpoints exist");
        let seq = self.wf.graph[ix].seq;
        let label = format!("Connect {} ➡ {}", self.title(source), self.title(target));
        let outcome = Outcome { label, warnings, new_nodes: Vec::new() };
        Ok((Change::Remove { nodes: Vec::new(), edges: vec![seq] }, outcome))
    }

    fn delete(&mut self, nodes: &[String], edges: &[u64]) -> Result<(Change, Outcome), Error> {
        let nodes: Vec<String> = nodes.iter().filter(|id| self.wf.contains_node(id)).cloned().collect();
        let edges: Vec<u64> = edges.iter().copied().filter(|s| edge_by_seq(&self.wf, *s).is_some()).collect();
        if nodes.is_empty() && edges.is_empty() {
            return Err(Error::new(code::INVALID_REQUEST, "nothing selected to delete"));
        }
        // Named before it goes.
        let first = nodes.first().map(|id| self.title(id)).unwrap_or_default();
        let gone: HashSet<&str> = nodes.iter().map(String::as_str).collect();
        let emptied: Vec<String> = self
            .wf
            .instances()
            .into_iter()
            .filter(|i| i.node_ids.iter().all(|n| gone.contains(n.as_str()) || !self.wf.contains_node(n)))
            .map(|i| i.key())
            .collect();
        let mut inverses =
            vec![apply_change(self.wf_mut(), Change::Remove { nodes: nodes.clone(), edges: edges.clone() })];
        if !emptied.is_empty() {
            // An instance whose nodes are all gone has nothing left to re-parameterise.
            let old_metadata = self.wf.member("metadata").cloned();
            for key in &emptied {
                self.wf_mut().forget_instance(key);
            }
            inverses.push(Change::Members(vec![(Target::Workflow, "metadata".into(), old_metadata)]));
        }
        inverses.reverse();
        let label = match (nodes.len(), edges.len()) {
            (0, 1) => "Delete edge".to_owned(),
            (0, n) => format!("Delete {n} edges"),
            (1, _) => format!("Delete {first}"),
            (n, _) => format!("Delete {n} nodes"),
        };
        Ok((Change::Batch(inverses), outcome(label)))
    }

    fn insert_node(
        &mut self,
        mut json: Map<String, Value>,
        link: NodeLink,
        ports: &PortTable,
    ) -> Result<(Change, Outcome), Error> {
        // The wiring is checked before anything changes, so a refusal leaves no trace.
        let spliced = match &link {
            NodeLink::Unwired => None,
            NodeLink::After { source, .. } => {
                if !self.wf.contains_node(source) {
                    return Err(Error::new(code::INVALID_REQUEST, format!("no node \"{source}\" to insert after"))
                        .with("nodeId", source.as_str()));
                }
                None
            }
            NodeLink::Splice { seq, .. } => {
                let ix = edge_by_seq(&self.wf, *seq)
                    .ok_or_else(|| Error::new(code::INVALID_REQUEST, "the edge to splice into no longer exists"))?;
                let e = &self.wf.graph[ix];
                Some((
                    e.source().to_owned(),
                    e.source_port().to_owned(),
                    e.target().to_owned(),
                    e.target_port().to_owned(),
                ))
            }
        };
        let type_id = json.get("typeId").and_then(Value::as_str).unwrap_or_default().to_owned();
        let base = json.get("id").and_then(Value::as_str).filter(|b| !b.is_empty()).unwrap_or("node").to_owned();
        let id = self.wf.fresh_node_id(&base);
        json.insert("id".into(), Value::String(id.clone()));
        self.wf_mut().add_node(json)?;
        let mut ids = self.wf.edge_ids();
        let mut new_edges = Vec::new();
        let mut restore = None;
        let mut wires: Vec<Map<String, Value>> = Vec::new();
        // The parent nodes it is wired between, for making room.
        let mut ends: Option<(String, Option<String>)> = None;
        match (&link, spliced) {
            (NodeLink::After { source, source_port, input }, _) => {
                let edge_id = ids.fresh(&self.wf, &format!("e-{source}-{id}"));
                wires.push(edge_json(edge_id, (source, source_port), (&id, input)));
                ends = Some((source.clone(), None));
            }
            (NodeLink::Splice { seq, input, output }, Some((source, source_port, target, target_port))) => {
                restore = Some(apply_change(self.wf_mut(), Change::Remove { nodes: Vec::new(), edges: vec![*seq] }));
                let first = ids.fresh(&self.wf, &format!("e-{source}-{id}"));
                wires.push(edge_json(first, (&source, &source_port), (&id, input)));
                let second = ids.fresh(&self.wf, &format!("e-{id}-{target}"));
                wires.push(edge_json(second, (&id, output), (&target, &target_port)));
                ends = Some((source, Some(target)));
            }
            _ => {}
        }
        for wire in wires {
            let ix = self.wf_mut().add_edge(wire).expect("both endpoints exist");
            new_edges.push(self.wf.graph[ix].seq);
        }
        let moved = ends.map(|(source, target)| {
            let sizes = card_sizes(&self.wf, ports);
            let moves = arrange::make_room(&self.wf, std::slice::from_ref(&id), &source, target.as_deref(), &sizes);
            self.move_nodes(moves)
        });
        // Undo puts the moved nodes back, takes the node and its wires out, then brings back
        // the edge it was spliced into.
        let mut inverse: Vec<Change> = moved.into_iter().collect();
        inverse.push(Change::Remove { nodes: vec![id.clone()], edges: new_edges });
        inverse.extend(restore);
        let verb = if matches!(link, NodeLink::Splice { .. }) { "Splice" } else { "Insert" };
        let label = format!("{verb} {} ({type_id})", self.title(&id));
        let outcome = Outcome { label, warnings: Vec::new(), new_nodes: vec![id] };
        Ok((Change::Batch(inverse), outcome))
    }

    fn paste(&mut self, nodes: Vec<Node>, edges: Vec<Edge>, offset: (f64, f64)) -> Result<(Change, Outcome), Error> {
        if nodes.is_empty() {
            return Err(Error::new(code::INVALID_REQUEST, "the clipboard holds no nodes"));
        }
        let mut renamed: HashMap<String, String> = HashMap::new();
        let mut new_nodes = Vec::new();
        for node in nodes {
            let mut json = node.object();
            let old = json.get("id").and_then(Value::as_str).unwrap_or("node").to_owned();
            let id = self.wf.fresh_node_id(&old);
            json.insert("id".into(), Value::String(id.clone()));
            let mut node = Node::new(json, 0);
            let (x, y) = node.position();
            node.set_position(x + offset.0, y + offset.1);
            // A pasted copy is a plain node; only the original belongs to its chain instance.
            match self.wf_mut().insert_node(node) {
                Ok(_) => {
                    renamed.insert(old, id.clone());
                    new_nodes.push(id);
                }
                Err(e) => {
                    apply_change(self.wf_mut(), Change::Remove { nodes: new_nodes, edges: Vec::new() });
                    return Err(e);
                }
            }
        }
        let mut new_edges = Vec::new();
        let mut ids = self.wf.edge_ids();
        for edge in edges {
            let mut json = edge.json();
            let ends = ["sourceNodeId", "targetNodeId"]
                .map(|k| json.get(k).and_then(Value::as_str).and_then(|id| renamed.get(id)).cloned());
            let [Some(s), Some(t)] = ends else { continue };
            let base = json.get("id").and_then(Value::as_str).unwrap_or("e").to_owned();
            json.insert("id".into(), Value::String(ids.fresh(&self.wf, &base)));
            json.insert("sourceNodeId".into(), Value::String(s));
            json.insert("targetNodeId".into(), Value::String(t));
            if let Some(ix) = self.wf_mut().add_edge(json) {
                new_edges.push(self.wf.graph[ix].seq);
            }
        }
        let label = format!("Paste {} node{}", new_nodes.len(), if new_nodes.len() == 1 { "" } else { "s" });
        let outcome = Outcome { label, warnings: Vec::new(), new_nodes: new_nodes.clone() };
        Ok((Change::Remove { nodes: new_nodes, edges: new_edges }, outcome))
    }
}

/// A new edge's object; default port names (`output`, `input`) are left implicit.
fn edge_json(
    id: String,
    (source, source_port): (&str, &str),
    (target, target_port): (&str, &str),
) -> Map<String, Value> {
    let mut json = Map::new();
    json.insert("id".into(), Value::String(id));
    json.insert("sourceNodeId".into(), Value::String(source.to_owned()));
    if source_port != "output" {
        json.insert("sourceOutput".into(), Value::String(source_port.to_owned()));
    }
    json.insert("targetNodeId".into(), Value::String(target.to_owned()));
    if target_port != "input" {
        json.insert("targetInput".into(), Value::String(target_port.to_owned()));
    }
    json
}

fn outcome(label: String) -> Outcome {
    Outcome { label, ..Outcome::default() }
}

/// The edge with this `seq`, if it is in the graph.
pub fn edge_by_seq(wf: &Workflow, seq: u64) -> Option<EdgeIndex> {
    wf.edge_by_seq(seq)
}

/// The wiring edges of a drop on an edge keep that edge's ports: data that left the source
/// through `sourceOutput` still does, and still arrives at `targetInput`.
fn apply_change(wf: &mut Workflow, change: Change) -> Change {
    match change {
        Change::Members(changes) => {
            let mut inverse = Vec::with_capacity(changes.len());
            for (target, key, value) in changes {
                let old = set_member(wf, &target, &key, value);
                inverse.push((target, key, old));
            }
            inverse.reverse();
            Change::Members(inverse)
        }
        Change::Remove { nodes, edges } => {
            // Edges naming a missing node live beside the graph, and are removed there.
            let dangling: HashSet<u64> = edges.iter().copied().filter(|s| wf.edge_by_seq(*s).is_none()).collect();
            let edges: Vec<EdgeIndex> = edges.iter().filter_map(|seq| wf.edge_by_seq(*seq)).collect();
            let nodes: Vec<NodeIndex> = nodes.iter().filter_map(|id| wf.node(id)).collect();
            let (nodes, mut edges) = wf.remove_all(&nodes, &edges);
            edges.extend(wf.remove_dangling(&dangling));
            Change::Restore { nodes, edges }
        }
        Change::Restore { nodes, edges } => {
            let node_ids: Vec<String> = nodes.iter().map(|n| n.id().to_owned()).collect();
            let edge_seqs: Vec<u64> = edges.iter().map(|e| e.seq).collect();
            for node in nodes {
                // A restored node was removed from this very workflow; its id is free.
                let _ = wf.restore_node(node);
            }
            for edge in edges {
                wf.restore_edge(edge);
            }
            Change::Remove { nodes: node_ids, edges: edge_seqs }
        }
        Change::Nodes(nodes) => {
            let mut inverse = Vec::with_capacity(nodes.len());
            for (id, body) in nodes {
                if let Some(ix) = wf.node(&id) {
                    inverse.push((id, wf.graph[ix].swap_body(body)));
                }
            }
            Change::Nodes(inverse)
        }
        Change::TopLevel(members) => Change::TopLevel(wf.swap_members(members)),
        Change::Replace(other) => Change::Replace(Box::new(std::mem::replace(wf, *other))),
        Change::Batch(changes) => {
            let mut inverses: Vec<Change> = changes.into_iter().map(|c| apply_change(wf, c)).collect();
            inverses.reverse();
            Change::Batch(inverses)
        }
    }
}

/// Set one member, returning the previous value.
fn set_member(wf: &mut Workflow, target: &Target, key: &str, value: Option<Value>) -> Option<Value> {
    let set = |json: &mut Map<String, Value>, value: Option<Value>| match value {
        Some(v) => json.insert(key.to_owned(), v),
        None => json.remove(key),
    };
    match target {
        Target::Node(id) => {
            let ix = wf.node(id)?;
            wf.graph[ix].edit(|json| set(json, value))
        }
        Target::Edge(seq) => {
            let ix = edge_by_seq(wf, *seq)?;
            wf.graph[ix].update(|json| set(json, value))
        }
        Target::Workflow => {
            let slot = wf.member_mut(key);
            Some(std::mem::replace(slot, value.unwrap_or(Value::Null)))
        }
    }
}

#[cfg(test)]
mod tests;

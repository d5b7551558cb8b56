//! The one inline pipeline that `chainsmith expand`/`inline` and the editor's preview,
//! Insert and Re-parameterise all run: trust and host checks → parameter values → expansion
//! (every sub-chain too when the host co-expands) → config, port and size checks on what was
//! expanded → splice into the parent workflow → checks on the result.
//!
//! Inputs ([`InlineRequest`]) and outputs ([`Expanded`], [`InlineOutcome`]) are plain data:
//! nothing here reads files, prints or draws, so the same inputs give the same nodes, ids
//! and findings whichever front end asked. Loading packs and workflows is the callers' part
//! ([`crate::pack::load_path`], [`Workflow::load`]); so is exporting, whose lints depend on
//! the export mode the user picks.
//!
//! A refusal is one [`crate::Error`]: the first blocking finding, with every blocking finding of
//! that stage listed in `details.errors`, so a user fixes them all in one go.

use crate::catalog::Trust;
use crate::error::{Finding, Result, code};
pub use crate::expand::PackSource;
use crate::expand::subchain::{Child, DEFAULT_TENANT, TreeOptions, expand_tree, expand_tree_at};
use crate::expand::{ExpandOptions, Expansion, expand_at};
use crate::instance::{Conflict, Edit, Resolutions};
use crate::pack::{Chain, Pack};
use crate::params::Values;
use crate::workflow::{Edge, Instance, Node, SpliceOptions, Workflow, splice};
use serde_json::{Map, Value};
use std::cell::OnceCell;

/// How the expansionId is chosen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ExpansionIdChoice {
    /// Random hex digits whose expanded ids collide with no node of the target workflow.
    #[default]
    Fresh,
    /// Exactly this id; ids it gives that the workflow already has are refused by the splice.
    Given(String),
    /// The OpenWOP app's deterministic id: 12 hex digits of the chain and the values (interop §5).
    Hash,
}

/// Where the expansion goes.
#[derive(Debug, Clone)]
pub enum Destination {
    /// A new instance, spliced as the options say.
    Splice(SpliceOptions),
    /// The instance with this key, re-expanded in place (same chain, same expansionId),
    /// keeping the user's edits; conflicts are settled by `resolutions` or refuse.
    Reparameterise { key: String, resolutions: Resolutions },
}

impl Default for Destination {
    fn default() -> Self {
        Destination::Splice(SpliceOptions::default())
    }
}

/// Everything one inline needs besides the parent workflow.
#[derive(Clone)]
pub struct InlineRequest<'a> {
    pub trust: &'a Trust,
    /// Lent by the editor; given by the CLI, whose chain nodes are then moved, not copied.
    pub pack: PackSource<'a>,
    pub chain_id: &'a str,
    /// Parameter values as supplied; defaults are applied and the chain's schema checks them.
    pub values: Map<String, Value>,
    /// Findings the caller made while collecting the values (the CLI's `--set` of a name the
    /// chain does not declare); they join the outcome's findings after the trust warnings.
    pub value_findings: Vec<Finding>,
    pub expansion_id: ExpansionIdChoice,
    /// A preview of values still being typed: defaults applied, not validated, so what an
    /// author typed lands in the config even before it is valid.
    pub preview: bool,
    /// Packs that external sub-chain refs resolve from.
    pub external: &'a [Pack],
    /// The tenant child workflow ids are scoped to.
    pub tenant: &'a str,
    pub destination: Destination,
    /// The chain's position in the pack, once looked up ([`InlineRequest::chain`]).
    found: OnceCell<Option<usize>>,
}

impl<'a> InlineRequest<'a> {
    /// A request with a fresh expansionId, checked values, no external packs, the default
    /// tenant, and a splice to the right of the existing nodes.
    pub fn new(trust: &'a Trust, pack: &'a Pack, chain_id: &'a str, values: Map<String, Value>) -> Self {
        Self::from_source(trust, PackSource::Lent(pack), chain_id, values)
    }

    /// [`Self::new`] for a caller that hands the pack over ([`PackSource::Given`]).
    pub fn given(trust: &'a Trust, pack: Pack, chain_id: &'a str, values: Map<String, Value>) -> Self {
        Self::from_source(trust, PackSource::Given(Box::new(pack)), chain_id, values)
    }

    fn from_source(trust: &'a Trust, pack: PackSource<'a>, chain_id: &'a str, values: Map<String, Value>) -> Self {
        Self {
            trust,
            pack,
            chain_id,
            values,
            value_findings: Vec::new(),
            expansion_id: ExpansionIdChoice::Fresh,
            preview: false,
            external: &[],
            tenant: DEFAULT_TENANT,
            destination: Destination::default(),
            found: OnceCell::new(),
        }
    }

    /// The request's chain. It is looked up on the first call only, so a caller that reads
    /// it before the pipeline runs (the CLI parses `--set` by its form) adds no lookup.
    pub fn chain(&self) -> Option<&Chain> {
        self.position().map(|at| &self.pack.pack().chains[at])
    }

    /// The request for the chain at position `at` of its pack, which the caller found
    /// already: the pipeline does not look it up again.
    pub fn with_chain_at(self, at: usize) -> Self {
        Self { found: OnceCell::from(Some(at)), ..self }
    }

    fn position(&self) -> Option<usize> {
        let pack = self.pack.pack();
        let found = *self.found.get_or_init(|| pack.chain_position(self.chain_id));
        // `pack` and `chain_id` are public: after a change (or a miss) it is looked up again.
        match found {
            Some(at) if pack.chains.get(at).is_some_and(|c| c.chain_id() == self.chain_id) => found,
            _ => pack.chain_position(self.chain_id),
        }
    }
}

/// A checked expansion, not yet spliced anywhere.
#[derive(Debug, Clone)]
pub struct Expanded {
    /// The chain's expansion; its `warnings` are every finding so far, in pipeline order:
    /// the expander's, the trust policy's, the values', the catalog checks', the host's node
    /// limit, then each child's.
    pub expansion: Expansion,
    /// With a host that co-expands sub-chains: every child, in the reference's order.
    pub children: Vec<Child>,
    /// For a re-expansion in place: the instance's recorded expansion, recomputed (the chain
    /// at the recorded version, the recorded values), against which the user's edits show.
    pub base: Option<Expansion>,
}

pub use crate::workflow::bundle::ChildWorkflow;

/// What an inline did.
#[derive(Debug, Clone)]
pub struct InlineOutcome {
    pub expansion: Expansion,
    /// The instance recorded in the parent (new, or re-expanded in place).
    pub instance: Instance,
    /// Parent edges the wiring replaced; for a re-expansion, the nodes and edges it removed.
    pub removed_edges: Vec<Edge>,
    pub removed_nodes: Vec<Node>,
    /// With a host that co-expands sub-chains, and only for a new instance: each child
    /// spliced into a workflow of its own.
    pub children: Vec<ChildWorkflow>,
    /// Every finding that did not refuse, in pipeline order (the expansion's, then the
    /// splice's, then the parent's size against the host limit, then the children's).
    pub findings: Vec<Finding>,
    /// A re-expansion in place: the user's edits it kept, and the conflicts it settled.
    pub edits: Vec<Edit>,
    pub conflicts: Vec<Conflict>,
}

/// The whole pipeline into `wf`. On a refusal `wf` is unchanged.
pub fn inline(wf: &mut Workflow, req: InlineRequest) -> Result<InlineOutcome> {
    let destination = req.destination.clone();
    let trust = req.trust;
    let expanded = expand_for(Some(wf), req)?;
    place(wf, expanded, &destination, trust)
}

/// Everything before the splice: trust and host checks, values, expansion and its checks.
/// With a workflow, a fresh expansionId avoids its node ids and its compensation policy
/// applies; nothing in it changes. The editor's preview shows this; `chainsmith expand`
/// prints it.
pub fn expand_for(wf: Option<&Workflow>, req: InlineRequest) -> Result<Expanded> {
    let trust = req.trust;
    let base = match (&req.destination, wf) {
        (Destination::Reparameterise { key, .. }, Some(wf)) => Some(base_expansion(wf, key, &req)?),
        _ => None,
    };
    // The one lookup of the chain: every step below takes its position.
    let at = req.position();
    let mut warnings = trust_warnings(&req, at)?;
    warnings.extend(req.value_findings.iter().cloned());
    let expansion_id = match &req.expansion_id {
        ExpansionIdChoice::Fresh => None,
        ExpansionIdChoice::Given(id) => Some(id.clone()),
        // The app hashes the values as supplied, with its own top-level defaults.
        ExpansionIdChoice::Hash => {
            at.map(|at| crate::expand::app::expansion_id_hash(&req.pack.pack().chains[at], &req.values))
        }
    };
    let taken = |id: &str| wf.is_some_and(|wf| wf.contains_node(id));
    let opts = ExpandOptions {
        expansion_id,
        taken_ids: wf.map(|_| &taken as &dyn Fn(&str) -> bool),
        resolver: trust.resolver(),
        parent_compensation: wf.and_then(Workflow::settings_compensation),
        host: trust.host.clone(),
        params_as_given: false,
    };
    let how = if req.preview { Values::Preview } else { Values::Checked };
    if !trust.host.sub_chains {
        let mut expansion = expand_at(req.pack, req.chain_id, at, req.values, how, &opts)?;
        let errors = check(trust, &mut expansion, warnings);
        refuse(errors)?;
        return Ok(Expanded { expansion, children: Vec::new(), base });
    }
    let tree_opts = TreeOptions { expand: opts, tenant: req.tenant, external: req.external };
    let mut tree = expand_tree_at(req.pack.pack(), req.chain_id, at, req.values, how, &tree_opts)?;
    // Every child's problems and the parent's are reported together.
    let mut errors = Vec::new();
    let mut child_findings = Vec::new();
    for child in &mut tree.children {
        let exp = &child.expansion;
        // The walk found the child's chain already: the external pack it came from holds it
        // at `child.at`.
        let from = (req.external.iter()).find(|p| {
            p.name() == exp.pack_name
                && p.version() == exp.pack_version
                && p.chains.get(child.at).is_some_and(|c| c.chain_id() == exp.chain_id)
        });
        if let Some(pack) = from {
            let report = trust.check_chain_at(pack, &exp.chain_id, Some(child.at));
            errors.extend(report.blocking().filter(|f| !is_composition_code(f.code)).cloned());
        }
        errors.extend(check(trust, &mut child.expansion, Vec::new()));
        child_findings.append(&mut child.expansion.warnings);
    }
    errors.extend(check(trust, &mut tree.parent, warnings));
    refuse(errors)?;
    tree.parent.warnings.append(&mut child_findings);
    Ok(Expanded { expansion: tree.parent, children: tree.children, base })
}

/// The recorded expansion of instance `key`: the chain at the recorded version (the
/// request's pack, else one of its external packs), the recorded values as they are, the
/// recorded expansionId. Refused with `instance_base_unavailable` when no pack at hand
/// holds that version.
fn base_expansion(wf: &Workflow, key: &str, req: &InlineRequest) -> Result<Expansion> {
    let inst = crate::instance::merge::find(wf, key)?;
    let pack = crate::instance::base_pack(&inst, std::iter::once(req.pack.pack()).chain(req.external)).ok_or_else(|| {
        crate::Error::new(
            code::INSTANCE_BASE_UNAVAILABLE,
            format!(
                "instance {key} was expanded from {}@{} ({} {}), which is not loaded; open that version so your edits can be kept",
                inst.chain_id, inst.chain_version, inst.pack_name, inst.pack_version
            ),
        )
        .with("instance", key)
        .with("chainId", inst.chain_id.as_str())
        .with("version", inst.chain_version.as_str())
    })?;
    let opts = ExpandOptions {
        expansion_id: Some(inst.expansion_id.clone()),
        taken_ids: None,
        resolver: req.trust.resolver(),
        parent_compensation: wf.settings_compensation(),
        host: req.trust.host.clone(),
        params_as_given: true,
    };
    if !req.trust.host.sub_chains {
        return crate::expand::expand(pack, &inst.chain_id, inst.params.clone(), &opts);
    }
    let tree_opts = TreeOptions { expand: opts, tenant: req.tenant, external: req.external };
    Ok(expand_tree(pack, &inst.chain_id, inst.params.clone(), &tree_opts)?.parent)
}

/// The splice of an [`Expanded`] into `wf`, and the checks on the result: the last step of
/// [`inline`], alone for a dry run on a copy (the editor's ghosts stand where the splice
/// puts the nodes). On a refusal `wf` is unchanged.
pub fn place(wf: &mut Workflow, expanded: Expanded, destination: &Destination, trust: &Trust) -> Result<InlineOutcome> {
    let Expanded { expansion, children, base } = expanded;
    let mut findings = expansion.warnings.clone();
    let (mut edits, mut conflicts, mut removed_nodes) = (Vec::new(), Vec::new(), Vec::new());
    let (instance, removed_edges, children) = match destination {
        Destination::Reparameterise { key, resolutions } => {
            let base = base.ok_or_else(|| {
                crate::Error::new(
                    code::INSTANCE_BASE_UNAVAILABLE,
                    format!("the recorded expansion of {key} was not computed"),
                )
                .with("instance", key.as_str())
            })?;
            let merged = crate::instance::reexpand(wf, key, &base, &expansion, resolutions)?;
            findings.extend(merged.warnings);
            (edits, conflicts, removed_nodes) = (merged.edits, merged.conflicts, merged.removed_nodes);
            (merged.instance, merged.removed_edges, Vec::new())
        }
        Destination::Splice(opts) => {
            let report = splice(wf, &expansion, opts)?;
            findings.extend(report.warnings);
            if wf.node_count() > expansion.nodes.len() {
                findings.extend(trust.host.node_count_finding(wf.node_count(), "the workflow"));
            }
            let mut workflows = Vec::with_capacity(children.len());
            for child in children {
                let (workflow, warnings) = ChildWorkflow::from_child(child)?;
                findings.extend(warnings);
                workflows.push(workflow);
            }
            (report.instance, report.removed_edges, workflows)
        }
    };
    Ok(InlineOutcome { expansion, instance, removed_edges, removed_nodes, children, findings, edits, conflicts })
}

/// Refuse what the trust policy blocks before anything is expanded; return its warnings.
fn trust_warnings(req: &InlineRequest, at: Option<usize>) -> Result<Vec<Finding>> {
    let mut report = req.trust.check_chain_at(req.pack.pack(), req.chain_id, at);
    if req.trust.host.sub_chains {
        // The co-expansion walk reports these itself, in the reference's order.
        report.findings.retain(|f| !(f.is_error() && is_composition_code(f.code)));
    }
    refuse(report.blocking().cloned().collect())?;
    // The expander reports unchecked typeIds itself.
    Ok(report.warnings().filter(|f| f.code != code::TYPEID_UNCHECKED).cloned().collect())
}

/// Add the catalog's config and port findings and the host's node limit to the expansion,
/// after `warnings`; return the findings that are errors (under `strict`, all of them).
fn check(trust: &Trust, exp: &mut Expansion, mut warnings: Vec<Finding>) -> Vec<Finding> {
    let (errors, checks): (Vec<Finding>, Vec<Finding>) =
        trust.check_expansion(exp).into_iter().partition(Finding::is_error);
    warnings.extend(checks);
    let what = format!("the expansion of chain {}", exp.chain_id);
    warnings.extend(trust.host.node_count_finding(exp.nodes.len(), &what));
    exp.warnings.extend(warnings);
    errors
}

/// The first error as the refusal, with every error listed in `details.errors`.
fn refuse(errors: Vec<Finding>) -> Result<()> {
    let Some(first) = errors.first() else { return Ok(()) };
    let all: Vec<Value> = errors.iter().map(Finding::to_json).collect();
    Err(first.clone().into_error().with("errors", all))
}

/// Sub-chain composition refusals: with a host that co-expands, the walk reports them in
/// the reference's order (depth before cycle), so the preflight's copies step aside.
fn is_composition_code(code: &str) -> bool {
    code == code::SUB_CHAIN_CYCLE || code == code::SUB_CHAIN_UNRESOLVED
}

#[cfg(test)]
mod tests;

//! Chain-pack authoring, the inverse of [`crate::expand`]: workflow nodes become a chain
//! ([`extract`]), concrete values become parameters ([`promote`]), and packs are created and
//! edited ([`PackDraft`]) with every change re-validated and saved atomically. GUI-free: the
//! CLI's `chain extract` and the editor call the same [`extract_into`].
//!
//! The guarantee that ties it to expansion: expanding an extracted chain with its parameter
//! defaults gives back the extracted nodes' `typeId`, `name`, `config`, `inputs` and edges.

mod draft;
mod extract;
mod order;
mod promote;
mod schema_edit;
mod token_like;

pub use draft::{DEFAULT_ENGINE_RANGE, PackDraft, PackEdit, PackInfo, Placement};
pub use extract::{BoundaryEdge, Extraction, extract};
pub use order::in_schema_order;
pub use promote::{Candidate, Promotion, candidates, infer_type, promote, promote_all};
pub use schema_edit::{PARAM_TYPES, ParamSpec, param_specs, remove_param, set_param};

use crate::error::{Error, Finding, Result, code};
use crate::workflow::Workflow;
use serde_json::Value;
use std::collections::HashMap;

/// Whether `name` can be named by a token: `[A-Za-z_][A-Za-z0-9_]*` (chain-packs §4.1).
pub fn is_param_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The chain's own fields, which the workflow cannot tell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChainInfo {
    pub chain_id: String,
    pub label: String,
    /// `None`: the replaced chain's description, else empty.
    pub description: Option<String>,
    /// `None`: the replaced chain's version, else `1.0.0`.
    pub version: Option<String>,
}

impl ChainInfo {
    pub fn new(chain_id: &str, label: &str) -> Self {
        Self { chain_id: chain_id.to_owned(), label: label.to_owned(), ..Default::default() }
    }
}

/// What to extract: the nodes (all when `None`) and the values to promote, whose targets
/// name workflow node ids (fragment ids are accepted too).
#[derive(Debug, Clone, Default)]
pub struct ExtractRequest {
    pub chain: ChainInfo,
    pub nodes: Option<Vec<String>>,
    pub params: Vec<Promotion>,
}

/// The result of [`extract_into`].
#[derive(Debug, Clone)]
pub struct Extracted {
    /// What extraction found; its `chain` has moved into the draft (at `index`) and is empty
    /// here, so a large chain is not held twice.
    pub extraction: Extraction,
    /// The chain's position in the pack.
    pub index: usize,
    pub placement: Placement,
    /// The edit that undoes the change to the pack.
    pub undo: PackEdit,
}

/// Extract a chain from `wf`, promote the requested values, and add it to `draft` (or
/// replace the chain with the same chainId, keeping what extraction cannot know: its
/// `internal` flag and `outputs`, and its version and description unless new ones are given).
///
/// Its three steps are public so that a caller holding large inputs (the CLI) can let go
/// of each as soon as it is spent: the workflow after [`extract`], the promotions after
/// [`promote_extraction`], before [`place_extraction`] validates the pack.
pub fn extract_into(draft: &mut PackDraft, wf: &Workflow, req: &ExtractRequest) -> Result<Extracted> {
    let mut extraction = extract(wf, req.nodes.as_deref(), &req.chain)?;
    promote_extraction(&mut extraction, &req.params)?;
    place_extraction(draft, extraction, &req.chain)
}

/// Promote `params` (targets naming workflow or fragment ids) in an extracted chain, and
/// drop the token-like warnings about values that became parameters.
pub fn promote_extraction(extraction: &mut Extraction, params: &[Promotion]) -> Result<()> {
    // Where each extracted node sits in `dag.nodes` (the order of `ids`), by workflow id,
    // else by fragment id (a workflow id wins where one is another node's fragment id).
    let renamed = extraction.ids.iter().filter(|(w, f)| w != f).count();
    let mut position: HashMap<&str, usize> = HashMap::with_capacity(extraction.ids.len() + renamed);
    for (i, (w, _)) in extraction.ids.iter().enumerate() {
        position.insert(w, i);
    }
    for (i, (_, f)) in extraction.ids.iter().enumerate() {
        position.entry(f).or_insert(i);
    }
    for p in params {
        if let Some((node, _)) = p.targets.iter().find(|(node, _)| !position.contains_key(node.as_str())) {
            return Err(Error::new(code::INVALID_REQUEST, format!("node \"{node}\" is not among the extracted nodes"))
                .with("nodeId", node.as_str())
                .with("param", p.name.as_str()));
        }
    }
    promote::promote_all_at(&mut extraction.chain, params, &|id| position.get(id).copied())?;
    // A promoted value is no longer the text a token-like warning was about. Only the
    // nodes such a warning is about are looked for among the promotions' targets.
    fn detail<'w>(w: &'w Finding, key: &str) -> &'w str {
        w.details.get(key).and_then(Value::as_str).unwrap_or_default()
    }
    let mut warned: HashMap<usize, Vec<&str>> = HashMap::new();
    for w in extraction.warnings.iter().filter(|w| w.code == code::TOKEN_LIKE_TEXT) {
        if let Some(&at) = position.get(detail(w, "nodeId")) {
            warned.entry(at).or_default();
        }
    }
    if !warned.is_empty() {
        for (node, pointer) in params.iter().flat_map(|p| &p.targets) {
            if let Some(pointers) = position.get(node.as_str()).and_then(|at| warned.get_mut(at)) {
                pointers.push(pointer);
            }
        }
        extraction.warnings.retain(|w| {
            if w.code != code::TOKEN_LIKE_TEXT {
                return true;
            }
            let pointer = detail(w, "pointer");
            let promoted = position.get(detail(w, "nodeId")).and_then(|at| warned.get(at));
            let covered = promoted.is_some_and(|pointers| {
                pointers.iter().any(|p| pointer == *p || pointer.strip_prefix(p).is_some_and(|r| r.starts_with('/')))
            });
            !covered
        });
    }
    Ok(())
}

/// Add an extracted (and promoted) chain to `draft`, or replace the chain with the same
/// chainId, as [`extract_into`] says; `info` is what the request said of the chain.
pub fn place_extraction(draft: &mut PackDraft, mut extraction: Extraction, info: &ChainInfo) -> Result<Extracted> {
    // Only what is inherited from a replaced chain is copied, not the chain.
    let previous = draft.chain_index(&info.chain_id).map(|i| &draft.chains()[i]);
    let previous: HashMap<&str, Value> = ["version", "description", "internal", "outputs"]
        .into_iter()
        .filter_map(|k| Some((k, previous?.get(k)?.clone())))
        .collect();
    let mut chain = std::mem::take(&mut extraction.chain);
    let inherited = |key: &str| previous.get(key).cloned();
    if info.version.is_none()
        && let Some(v) = inherited("version")
    {
        chain.insert("version".into(), v);
    }
    if info.description.is_none()
        && let Some(d) = inherited("description")
    {
        chain.insert("description".into(), d);
    }
    for key in ["internal", "outputs"] {
        if let Some(v) = inherited(key) {
            chain.insert(key.into(), v);
        }
    }
    // Put in schema order by the draft, which keeps its whole manifest so after every edit
    // (ordering it here as well was a fifth of a large extraction's work).
    let (index, placement, undo) = draft.put_chain(Value::Object(chain))?;
    Ok(Extracted { extraction, index, placement, undo })
}

#[cfg(test)]
mod tests;

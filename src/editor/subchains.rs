//! Sub-chain nodes in the editor (chain-packs §8, RFC 0133). A chain inserted for a host that
//! supports sub-chains keeps each referencing node's `config.subChainRef`; its children are
//! worked out on demand by co-expanding the instance again exactly as `chainsmith inline`
//! would (the recorded values and expansionId, the tenant `local`), so a child can be shown
//! read-only and the workflow exported with its children as one bundle. A node that already
//! names `config.workflowId` (a workflow `inline` wrote) shows the child file written beside
//! the workflow.

use crate::catalog::Trust;
use crate::error::Finding;
use crate::error::{Error, Result, code};
use crate::expand::ExpandOptions;
use crate::expand::subchain::{DEFAULT_TENANT, TreeExpansion, TreeOptions, expand_tree};
use crate::pack::Pack;
use crate::workflow::bundle::ChildWorkflow;
use crate::workflow::{Instance, Workflow};
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

pub use crate::workflow::ChildRef;

/// A child workflow to show.
#[derive(Debug, Clone)]
pub struct ChildView {
    pub workflow_id: String,
    /// The child's chainId, when it was co-expanded here.
    pub chain_id: Option<String>,
    pub workflow: Workflow,
    /// Where it came from, in words.
    pub origin: String,
}

/// Co-expand one instance as `inline` would have: its pack's chain with the recorded values
/// and expansionId, external refs resolved from every loaded pack.
fn co_expand_instance(inst: &Instance, packs: &[Pack], trust: &Trust) -> Result<TreeExpansion> {
    let pack =
        packs.iter().find(|p| p.name() == inst.pack_name && p.chain(&inst.chain_id).is_some()).ok_or_else(|| {
            Error::new(
                code::CHAIN_NOT_FOUND,
                format!(
                    "chain {} from pack {} is not loaded; open the pack to see its children",
                    inst.chain_id, inst.pack_name
                ),
            )
            .with("chainId", inst.chain_id.as_str())
            .with("packName", inst.pack_name.as_str())
        })?;
    // The workflow already holds sub-chain nodes: their children are asked for, whatever the
    // profile's switch says now; its depth limit still applies.
    let mut host = trust.host.clone();
    host.sub_chains = true;
    let expand = ExpandOptions {
        expansion_id: Some(inst.expansion_id.clone()),
        resolver: trust.resolver(),
        host,
        ..ExpandOptions::default()
    };
    let opts = TreeOptions { expand, tenant: DEFAULT_TENANT, external: packs };
    expand_tree(pack, &inst.chain_id, inst.params.clone(), &opts)
}

/// The workflowId a co-expansion gave the parent node `node_id`.
fn minted_for<'t>(tree: &'t TreeExpansion, node_id: &str) -> Option<&'t str> {
    tree.parent
        .nodes
        .iter()
        .find(|n| n.get("id").and_then(Value::as_str) == Some(node_id))
        .and_then(|n| n.pointer("/config/workflowId"))
        .and_then(Value::as_str)
}

/// The child of node `node_id` of `wf` (saved at `wf_path`, if it is), read-only.
pub fn open_child(
    wf: &Workflow,
    wf_path: Option<&Path>,
    packs: &[Pack],
    trust: &Trust,
    node_id: &str,
) -> Result<ChildView> {
    let unresolved = |msg: String| Error::new(code::SUB_CHAIN_UNRESOLVED, msg).with("nodeId", node_id);
    let node = wf.node(node_id).map(|ix| &wf.graph[ix]).ok_or_else(|| unresolved(format!("no node {node_id}")))?;
    let named = node.child_ref().ok_or_else(|| unresolved(format!("node {node_id} names no sub-chain")))?;
    // A node of a chain instance whose pack is loaded: co-expand it again, as `inline` did.
    let instance = wf.instance_of_node(node_id);
    let loaded = instance
        .as_ref()
        .is_some_and(|i| packs.iter().any(|p| p.name() == i.pack_name && p.chain(&i.chain_id).is_some()));
    // A workflowId whose pack is not loaded is looked for on disk; a subChainRef needs the pack.
    let instance = if matches!(named, ChildRef::Workflow(_)) { instance.filter(|_| loaded) } else { instance };
    match (named, instance) {
        (ChildRef::Workflow(id), None) => {
            // The child `inline` wrote beside the workflow.
            let dir = wf_path.and_then(Path::parent).ok_or_else(|| {
                unresolved(format!("node {node_id} runs workflow {id}; save the workflow beside that file to open it"))
            })?;
            let file = dir.join(format!("{id}.json"));
            if !file.is_file() {
                return Err(unresolved(format!(
                    "node {node_id} runs workflow {id}, and {} is missing",
                    file.display()
                ))
                .with("path", file.display().to_string()));
            }
            let workflow = Workflow::load(&file)?;
            Ok(ChildView { workflow_id: id, chain_id: None, workflow, origin: file.display().to_string() })
        }
        (ChildRef::Chain(chain), None) => {
            Err(unresolved(format!("node {node_id} refers to {chain} but belongs to no chain instance to co-expand")))
        }
        (_, Some(inst)) => {
            let tree = co_expand_instance(&inst, packs, trust)?;
            let minted = minted_for(&tree, node_id).ok_or_else(|| {
                unresolved(format!("co-expanding {} did not resolve node {node_id}'s sub-chain", inst.chain_id))
            })?;
            let child =
                tree.children.iter().find(|c| c.workflow_id == minted).ok_or_else(|| {
                    unresolved(format!("co-expanding {} registered no child {minted}", inst.chain_id))
                })?;
            let (child, _) = ChildWorkflow::from_child(child.clone())?;
            Ok(ChildView {
                workflow_id: child.workflow_id,
                chain_id: Some(child.chain_id),
                workflow: child.workflow,
                origin: format!("co-expanded from {} {}", inst.label, inst.expansion_id),
            })
        }
    }
}

/// `wf` with every chain instance that composes sub-chains co-expanded: the parent copy has
/// each referencing node's `config.subChainRef` replaced by the minted `config.workflowId`
/// (a node the editor's own co-expansion already rewrote keeps its id),
/// the children (each once, in the order the instances and their walks registered them) as
/// workflows of their own, and the findings of building them.
pub fn co_expand(wf: &Workflow, packs: &[Pack], trust: &Trust) -> Result<(Workflow, Vec<ChildWorkflow>, Vec<Finding>)> {
    let mut doc = wf.to_json(crate::workflow::ExportMode::Faithful);
    let mut children = Vec::new();
    let mut findings = Vec::new();
    let mut seen = HashSet::new();
    let mut rewritten = std::collections::HashMap::new();
    for inst in wf.instances() {
        let composes = inst.node_ids.iter().filter_map(|id| wf.node(id)).any(|ix| wf.graph[ix].child_ref().is_some());
        if !composes {
            continue;
        }
        let tree = co_expand_instance(&inst, packs, trust)?;
        for id in &inst.node_ids {
            if let Some(minted) = minted_for(&tree, id) {
                rewritten.insert(id.clone(), minted.to_owned());
            }
        }
        for child in tree.children {
            if seen.insert(child.workflow_id.clone()) {
                let (child, warnings) = ChildWorkflow::from_child(child)?;
                children.push(child);
                findings.extend(warnings);
            }
        }
    }
    for node in doc.get_mut("nodes").and_then(Value::as_array_mut).into_iter().flatten() {
        let Some(minted) = node.get("id").and_then(Value::as_str).and_then(|id| rewritten.get(id)) else { continue };
        if let Some(config) = node.get_mut("config").and_then(Value::as_object_mut) {
            config.shift_remove("subChainRef");
            config.insert("workflowId".into(), Value::String(minted.clone()));
        }
    }
    Ok((Workflow::from_json(doc)?, children, findings))
}

/// Write `wf` and every sub-chain child beside it at `path`, all files or none: the status
/// line that says so, and the findings of building and writing them.
pub fn export_bundle(wf: &Workflow, packs: &[Pack], trust: &Trust, path: &Path) -> Result<(String, Vec<Finding>)> {
    let (parent, children, built) = co_expand(wf, packs, trust)?;
    let mode = crate::workflow::ExportMode::Faithful;
    let mut bundle = crate::workflow::bundle::write_bundle(path, &parent, &children, mode)?;
    bundle.warnings.extend(built);
    let children = crate::words::count(bundle.children.len(), "child workflow", "child workflows");
    Ok((format!("Exported bundle {}: the workflow and {children}", path.display()), bundle.warnings))
}

impl ChildView {
    /// The status line when it is shown.
    pub fn status(&self) -> String {
        let nodes = crate::words::count(self.workflow.node_count(), "node", "nodes");
        format!("Child workflow {} ({nodes})", self.workflow_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workflow::ExportMode;

    fn two_level() -> Pack {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/subchain/packs/two-level.json");
        crate::pack::load_path(&path, crate::pack::LoadOptions::default()).packs.remove(0)
    }

    /// The two-level parent inserted as the editor inserts it (sub-chain nodes keep their ref).
    fn inserted(trust: &Trust, pack: &Pack) -> Workflow {
        let mut wf = Workflow::new("Parent");
        let values: serde_json::Map<String, Value> = serde_json::from_str(r#"{"topic": "tides", "limit": 3}"#).unwrap();
        let opts = ExpandOptions { expansion_id: Some("ab12".into()), host: trust.host.clone(), ..Default::default() };
        let exp = crate::expand::expand(pack, "vendor.test.parent", values, &opts).unwrap();
        crate::workflow::splice(&mut wf, &exp, &crate::workflow::SpliceOptions::default()).unwrap();
        wf
    }

    #[test]
    fn a_sub_chain_node_shows_its_child_and_the_bundle_rewrites_the_ref() {
        let pack = two_level();
        let mut trust = Trust::default();
        trust.host.sub_chains = true;
        let wf = inserted(&trust, &pack);
        let run = "vendor_test_parent_ab12_run";
        let node = &wf.graph[wf.node(run).unwrap()];
        assert_eq!(node.child_ref(), Some(ChildRef::Chain("vendor.test.child".into())));
        let packs = [pack];
        let child = open_child(&wf, None, &packs, &trust, run).unwrap();
        assert_eq!(child.workflow_id, "wfc_local__vendor_test_child__2_1_0");
        assert_eq!(child.chain_id.as_deref(), Some("vendor.test.child"));
        assert!(child.workflow.node_count() > 0);
        // A node that composes nothing has no child.
        let start = "vendor_test_parent_ab12_start";
        assert_eq!(open_child(&wf, None, &packs, &trust, start).unwrap_err().code, code::SUB_CHAIN_UNRESOLVED);

        let (parent, children, _) = co_expand(&wf, &packs, &trust).unwrap();
        assert_eq!(children.iter().map(|c| c.workflow_id.as_str()).collect::<Vec<_>>(), [child.workflow_id.as_str()]);
        let config = &parent.graph[parent.node(run).unwrap()].member("config").unwrap();
        assert_eq!(config.get("workflowId"), Some(&Value::String(child.workflow_id.clone())));
        assert!(config.get("subChainRef").is_none());

        // Written as a bundle, the rewritten node opens its child from the file beside it.
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("parent.json");
        let bundle = crate::workflow::bundle::write_bundle(&out, &parent, &children, ExportMode::Faithful).unwrap();
        assert_eq!(bundle.children[0].path, dir.path().join(format!("{}.json", child.workflow_id)));
        // A node already naming its child's workflowId (the editor co-expands on insert) is
        // co-expanded again while its pack is loaded, saved or not...
        let again = open_child(&parent, None, &packs, &trust, run).unwrap();
        assert_eq!(again.workflow_id, child.workflow_id);
        let (_, again, _) = co_expand(&parent, &packs, &trust).unwrap();
        assert_eq!(again.len(), 1, "the bundle of a rewritten parent still has its child");
        // ...and otherwise read from the file `inline` wrote beside the workflow.
        let saved = Workflow::load(&out).unwrap();
        let from_file = open_child(&saved, Some(&out), &[], &trust, run).unwrap();
        assert_eq!(from_file.workflow.node_count(), child.workflow.node_count());
        assert_eq!(from_file.origin, bundle.children[0].path.display().to_string());
        assert_eq!(open_child(&saved, None, &[], &trust, run).unwrap_err().code, code::SUB_CHAIN_UNRESOLVED);
    }

    #[test]
    fn without_the_pack_the_child_cannot_be_worked_out() {
        let pack = two_level();
        let mut trust = Trust::default();
        trust.host.sub_chains = true;
        let wf = inserted(&trust, &pack);
        let e = open_child(&wf, None, &[], &trust, "vendor_test_parent_ab12_run").unwrap_err();
        assert_eq!(e.code, code::CHAIN_NOT_FOUND);
        assert_eq!(co_expand(&wf, &[], &trust).unwrap_err().code, code::CHAIN_NOT_FOUND);
    }

    #[test]
    fn the_bundle_is_exported_with_its_status_line() {
        let pack = two_level();
        let mut trust = Trust::default();
        trust.host.sub_chains = true;
        let wf = inserted(&trust, &pack);
        let packs = [pack];
        let child = open_child(&wf, None, &packs, &trust, "vendor_test_parent_ab12_run").unwrap();
        let nodes = child.workflow.node_count();
        assert_eq!(child.status(), format!("Child workflow wfc_local__vendor_test_child__2_1_0 ({nodes} nodes)"));
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("parent.json");
        let (status, _) = export_bundle(&wf, &packs, &trust, &out).unwrap();
        assert_eq!(status, format!("Exported bundle {}: the workflow and 1 child workflow", out.display()));
        assert!(dir.path().join("wfc_local__vendor_test_child__2_1_0.json").is_file());
        let empty = tempfile::tempdir().unwrap();
        let refused = export_bundle(&wf, &[], &trust, &empty.path().join("parent.json")).unwrap_err();
        assert_eq!(refused.code, code::CHAIN_NOT_FOUND);
        assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0, "nothing written");
    }
}

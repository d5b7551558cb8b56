//! A parent workflow and the child workflows its sub-chains co-expanded into (chain-packs
//! §8), written together: each child a WorkflowDefinition `<dir of OUT>/<workflowId>.json`
//! beside the parent at `OUT`, all files or none. The CLI's `inline` and the editor's
//! "Export bundle" both write through here.

use super::{ExportMode, SpliceOptions, Workflow, splice};
use crate::error::{Error, Finding, Result, code};
use crate::expand::subchain::Child;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A child chain as its own WorkflowDefinition, to be saved beside the parent.
#[derive(Debug, Clone)]
pub struct ChildWorkflow {
    pub workflow_id: String,
    pub chain_id: String,
    pub workflow: Workflow,
}

impl ChildWorkflow {
    /// A co-expanded child spliced into a workflow of its own (its id the minted
    /// workflowId), with the splice's warnings.
    pub fn from_child(child: Child) -> Result<(Self, Vec<Finding>)> {
        let mut workflow = Workflow::new(&child.expansion.label);
        *workflow.member_mut("id") = Value::String(child.workflow_id.clone());
        let report = splice(&mut workflow, &child.expansion, &SpliceOptions::default())?;
        let chain_id = child.expansion.chain_id;
        Ok((Self { workflow_id: child.workflow_id, chain_id, workflow }, report.warnings))
    }
}

/// One child as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub workflow_id: String,
    pub chain_id: String,
    pub path: PathBuf,
}

/// What a bundle write did: the children's files and their lints.
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    pub children: Vec<Written>,
    pub warnings: Vec<Finding>,
}

/// Write `parent` to `out` and every child beside it, atomically as a whole. A child whose
/// file would be `out` itself, or another child's, is refused before anything is written.
pub fn write_bundle(out: &Path, parent: &Workflow, children: &[ChildWorkflow], mode: ExportMode) -> Result<Bundle> {
    let dir = out.parent().unwrap_or(Path::new(""));
    parent.check_writable(mode)?;
    let mut files: Vec<(PathBuf, &Workflow)> = vec![(out.to_path_buf(), parent)];
    let mut bundle = Bundle::default();
    for child in children {
        bundle.warnings.extend(child.workflow.lint(mode));
        let path = dir.join(format!("{}.json", child.workflow_id));
        if files.iter().any(|(p, _)| *p == path) {
            return Err(Error::new(
                code::INVALID_REQUEST,
                format!("{} would be written twice; choose another OUT", path.display()),
            )
            .with("path", path.display().to_string()));
        }
        child.workflow.check_writable(mode)?;
        bundle.children.push(Written {
            workflow_id: child.workflow_id.clone(),
            chain_id: child.chain_id.clone(),
            path: path.clone(),
        });
        files.push((path, &child.workflow));
    }
    // Streamed: the parent may be a large workflow, and its file is never held in memory.
    let mut writers: Vec<_> = files.iter().map(|(_, wf)| wf.writer(mode)).collect();
    let mut with: Vec<(&Path, &mut crate::fsio::Writer<'_>)> = files
        .iter()
        .zip(writers.iter_mut())
        .map(|((p, _), w)| (p.as_path(), w as &mut crate::fsio::Writer<'_>))
        .collect();
    crate::fsio::write_all_atomic_with(&mut with)?;
    Ok(bundle)
}

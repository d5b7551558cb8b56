//! "Compare with saved version": the open workflow against its file on disk, node by node
//! and member by member ([`crate::diff::workflow`]), as lines for the editor to show.

use super::document::Document;
use crate::error::{Error, code};
use crate::workflow::Workflow;
use serde_json::Value;

/// What changed since the document was last saved, one line per change after a summary
/// line per nodes and edges. Refused when the document was never saved.
pub fn compare_with_saved(doc: &Document) -> Result<Vec<String>, Error> {
    let path = doc.path.as_ref().ok_or_else(|| {
        Error::new(
            code::INVALID_REQUEST,
            "this workflow has not been saved yet: there is no saved version to compare with",
        )
    })?;
    let saved = Workflow::load(path)?;
    Ok(describe(&crate::diff::workflow::diff_workflows(&saved, doc.workflow())))
}

fn describe(diff: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    for (what, one) in [("nodes", "node"), ("edges", "edge")] {
        let part = &diff[what];
        let list = |k: &str| part[k].as_array().cloned().unwrap_or_default();
        let (added, removed, changed) = (list("added"), list("removed"), list("changed"));
        lines.push(format!(
            "{what}: {} added, {} removed, {} changed",
            added.len(),
            removed.len(),
            crate::words::count(changed.len(), "member", "members")
        ));
        let id = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        lines.extend(added.iter().map(|v| format!("+ {one} {}", id(v))));
        lines.extend(removed.iter().map(|v| format!("- {one} {}", id(v))));
        let side = |v: &Value| if v.is_null() { "(absent)".to_owned() } else { v.to_string() };
        lines.extend(
            changed
                .iter()
                .map(|c| format!("~ {} {}: {} → {}", id(&c[one]), id(&c["member"]), side(&c["old"]), side(&c["new"]))),
        );
    }
    lines
}

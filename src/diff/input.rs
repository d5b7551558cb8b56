//! What `chainsmith diff` compares: a pack or a workflow read from a path (a file or a pack
//! folder) or from a registry folder (`NAME@VERSION`).

use crate::error::{Result, code};
use crate::pack::{LoadOptions, Pack, load_one};
use crate::workflow::Workflow;
use crate::workflow::app_instance::{definition_form, is_app_form};
use serde::de::IgnoredAny;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// One side of a comparison.
pub enum Side {
    Pack(Box<Pack>),
    Workflow(Box<Workflow>),
}

/// A pack or a workflow, told apart by what the JSON holds (`chains` or `kind`: a pack).
/// `arg` is a path, or `NAME@VERSION` read from `registry` when no such path exists.
pub fn load_side(arg: &str, registry: Option<&Path>) -> Result<Side> {
    let path = Path::new(arg);
    if let (Some(reg), false) = (registry, path.exists()) {
        let (name, spec) = crate::registry::split_spec(arg);
        return Ok(Side::Pack(Box::new(super::registry::registry_pack(reg, name, spec)?)));
    }
    if path.is_dir() {
        return Ok(Side::Pack(Box::new(load_one(path, LoadOptions::default())?)));
    }
    let bytes = crate::fsio::read_limited(path, crate::workflow::MAX_WORKFLOW_BYTES, code::INVALID_REQUEST)?;
    // The pack loader reads a pack from its file, so the top-level member names are read
    // first without building the values: a pack parsed into values here was a third copy
    // beside the two compared. Anything else (not an object, not JSON) is parsed whole,
    // for the workflow or for the error.
    let members = serde_json::from_slice::<BTreeMap<String, IgnoredAny>>(&bytes);
    if members.is_ok_and(|m| m.contains_key("chains") || m.contains_key("kind")) {
        drop(bytes);
        return Ok(Side::Pack(Box::new(load_one(path, LoadOptions::default())?)));
    }
    let doc: Value = crate::fsio::parse_json(code::INVALID_REQUEST, path, &bytes)?;
    drop(bytes);
    let doc = if is_app_form(&doc) { definition_form(doc) } else { doc };
    Ok(Side::Workflow(Box::new(Workflow::from_json(doc).map_err(|e| e.with("path", arg))?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_and_workflows_are_told_apart_by_their_members() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p.display().to_string()
        };
        let wf = write("wf.json", r#"{"id":"w","name":"w","version":"1","nodes":[],"edges":[]}"#);
        assert!(matches!(load_side(&wf, None), Ok(Side::Workflow(_))));
        let pack = write("pack.json", r#"{"kind":"workflow-chain","name":"vendor.a.b","version":"1.0.0","chains":[]}"#);
        assert!(matches!(load_side(&pack, None), Ok(Side::Pack(_))));
        // A `kind` member makes a pack whatever its value; the pack loader refuses this one.
        let null_kind = write("null.json", r#"{"kind":null,"name":"vendor.a.b"}"#);
        assert_eq!(load_side(&null_kind, None).err().unwrap().code, code::PACK_KIND_INVALID);
        let list = write("list.json", r#"[{"kind":"workflow-chain"}]"#);
        assert_eq!(load_side(&list, None).err().unwrap().code, code::VALIDATION_ERROR);
        let bad = write("bad.json", "{");
        assert_eq!(load_side(&bad, None).err().unwrap().code, code::INVALID_REQUEST);
    }
}

//! Re-expanding an existing chain instance in place with new parameter values.

use super::super::Workflow;
use super::super::provenance::Instance;
use crate::error::{Error, Result, code};
use crate::expand::Expansion;

/// Re-expand an instance in place with new parameter values. The expansion must come from
/// the same chain with the same expansionId, so ids and every edge to the outside stay;
/// only the parameter-dependent members (`config`, `inputs`, `compensation`) change.
pub fn reparameterise(wf: &mut Workflow, key: &str, exp: &Expansion) -> Result<Instance> {
    let mut instance = wf.instance(key).ok_or_else(|| {
        Error::new(code::INVALID_REQUEST, format!("no chain instance \"{key}\" in this workflow")).with("instance", key)
    })?;
    let new_ids: Vec<&str> = exp.id_map.iter().map(|(_, n)| n.as_str()).collect();
    if exp.prefix != key || new_ids != instance.node_ids.iter().map(String::as_str).collect::<Vec<_>>() {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!(
                "the new expansion of {} does not have the instance's node ids; remove and insert it again",
                exp.chain_id
            ),
        )
        .with("instance", key));
    }
    if let Some(missing) = new_ids.iter().find(|id| !wf.contains_node(id)) {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!("node \"{missing}\" of instance {key} was deleted; remove the instance and insert it again"),
        )
        .with("nodeId", *missing));
    }
    for (id, node) in new_ids.iter().zip(&exp.nodes) {
        let ix = wf.node(id).expect("checked above");
        wf.graph[ix].edit(|json| {
            for member in ["config", "inputs", "compensation"] {
                match node.get(member) {
                    Some(v) => {
                        json.insert(member.to_owned(), v.clone());
                    }
                    None if member == "compensation" => {
                        json.shift_remove(member);
                    }
                    None => {}
                }
            }
        });
    }
    instance.params = exp.params.clone();
    instance.chain_version = exp.chain_version.clone();
    instance.pack_version = exp.pack_version.clone();
    instance.sub_chains = exp.sub_chain_links.clone();
    wf.record_instance(instance.clone());
    Ok(instance)
}

//! Choosing what an upgrade does, before the inline pipeline re-expands: which instances,
//! which version of their chain (the one asked for, else the newest at hand), and which
//! values (the recorded ones the new version still declares, then those given). Every
//! refusal names the instance.

use crate::error::{Error, Result, code};
use crate::pack::{Chain, Pack};
use crate::workflow::{Instance, Workflow};
use serde_json::{Map, Value};

/// The instances an upgrade touches: the one named (by key, with or without its trailing
/// `_`, or by expansionId), every one with `all`, or the only one there is.
pub fn select(wf: &Workflow, named: Option<&str>, all: bool) -> Result<Vec<Instance>> {
    let instances = wf.instances();
    let keys: Vec<String> = instances.iter().map(Instance::key).collect();
    if all {
        if instances.is_empty() {
            return Err(Error::new(code::INSTANCE_NOT_FOUND, "the workflow records no chain instance"));
        }
        return Ok(instances);
    }
    match named {
        Some(name) => instances
            .into_iter()
            .find(|i| i.key() == name || i.key().strip_suffix('_') == Some(name) || i.expansion_id == name)
            .map(|i| vec![i])
            .ok_or_else(|| {
                Error::new(code::INSTANCE_NOT_FOUND, format!("no chain instance \"{name}\" in this workflow"))
                    .with("instance", name)
                    .with("instances", keys)
            }),
        None if instances.len() == 1 => Ok(instances),
        None => Err(Error::new(
            code::INVALID_REQUEST,
            format!(
                "the workflow records {} chain instances; name one with --instance, or give --all",
                instances.len()
            ),
        )
        .with("instances", keys)),
    }
}

/// The pack to re-expand `chain_id` from: the one whose chain has version `to` (or whose
/// pack has), else the newest version of the chain among `packs`. `instance` names the
/// instance in refusals: no pack holds the chain (`instance_pack_mismatch`), or none at
/// the version asked for (`chain_version_not_found`, listing the versions there are).
pub fn target<'p>(instance: &str, chain_id: &str, packs: &'p [Pack], to: Option<&str>) -> Result<&'p Pack> {
    let holding: Vec<&Pack> = packs.iter().filter(|p| p.chain(chain_id).is_some()).collect();
    if holding.is_empty() {
        return Err(Error::new(
            code::INSTANCE_PACK_MISMATCH,
            format!("instance {instance} is of chain {chain_id}, which none of the packs given holds"),
        )
        .with("instance", instance)
        .with("chainId", chain_id));
    }
    let version = |p: &Pack| p.chain(chain_id).map(Chain::version).unwrap_or_default().to_owned();
    match to {
        Some(to) => holding.iter().copied().find(|p| version(p) == to || p.version() == to).ok_or_else(|| {
            let have: Vec<String> = holding.iter().map(|p| version(p)).collect();
            Error::new(
                code::CHAIN_VERSION_NOT_FOUND,
                format!("instance {instance}: no pack given holds {chain_id}@{to} (there is {})", have.join(", ")),
            )
            .with("instance", instance)
            .with("chainId", chain_id)
            .with("version", to)
            .with("available", have)
        }),
        None => {
            Ok(holding.iter().copied().max_by(|a, b| compare(&version(a), &version(b))).expect("holding is not empty"))
        }
    }
}

/// Semver order, with text that is not a version below every version.
pub fn compare(a: &str, b: &str) -> std::cmp::Ordering {
    match (semver::Version::parse(a), semver::Version::parse(b)) {
        (Ok(a), Ok(b)) => a.cmp(&b),
        (Ok(_), Err(_)) => std::cmp::Ordering::Greater,
        (Err(_), Ok(_)) => std::cmp::Ordering::Less,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

/// The values to re-expand with: the recorded ones `chain` still declares, then `given`
/// over them. A parameter the new version adds takes its default, or, when it is required
/// without one, is refused by the pipeline's value check.
pub fn carried_values(recorded: &Map<String, Value>, chain: &Chain, given: Map<String, Value>) -> Map<String, Value> {
    let declared: Vec<&String> = chain.parameter_properties().into_iter().flatten().map(|(name, _)| name).collect();
    let mut out: Map<String, Value> =
        recorded.iter().filter(|(k, _)| declared.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
    out.extend(given);
    out
}

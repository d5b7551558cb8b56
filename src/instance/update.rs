//! Newer versions of an instance's chain among the packs at hand, and what moving to one
//! needs by the semver check ([`crate::diff`]). The review of such a move, which runs the
//! inline pipeline, is [`crate::editor::update_review`].

use super::upgrade::compare;
use crate::diff::pack::diff_packs;
use crate::diff::{Level, bump};
use crate::pack::Pack;
use crate::workflow::Instance;

/// A newer version of an instance's chain that a loaded pack holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Available {
    pub key: String,
    pub chain_id: String,
    pub from: String,
    pub to: String,
    /// What the change needs by the semver check; the version numbers' bump when the
    /// recorded version is not at hand to compare with, or the check finds nothing.
    pub level: Level,
    /// The pack holding `to`, by its place in the list given.
    pub pack: usize,
}

/// The chain's versions among `packs`, newest first, each with the first pack holding it.
pub fn versions(packs: &[Pack], chain_id: &str) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for (i, p) in packs.iter().enumerate() {
        if let Some(c) = p.chain(chain_id)
            && !out.iter().any(|(v, _)| v == c.version())
        {
            out.push((c.version().to_owned(), i));
        }
    }
    out.sort_by(|a, b| compare(&b.0, &a.0));
    out
}

/// The newest version of `inst`'s chain among `packs` when it is above the recorded one
/// (the version and the pack holding it); `None` for a pinned instance.
pub fn newest(inst: &Instance, packs: &[Pack]) -> Option<(String, usize)> {
    if inst.pinned {
        return None;
    }
    let (to, pack) = versions(packs, &inst.chain_id).into_iter().next()?;
    (compare(&to, &inst.chain_version) == std::cmp::Ordering::Greater).then_some((to, pack))
}

/// What moving `inst` to `target`'s version `to` of its chain needs by the semver check;
/// the version numbers' bump when the recorded version is not among `packs` or the check
/// finds nothing. Linear in the chain's size: callers keep it while the packs stay.
pub fn level(inst: &Instance, packs: &[Pack], target: &Pack, to: &str) -> Level {
    let base = super::base_pack(inst, packs.iter());
    let checked =
        base.map_or(Level::None, |b| diff_packs(&b.manifest, &target.manifest, Some(&inst.chain_id)).required());
    match checked {
        Level::None => bump(&inst.chain_version, to).unwrap_or(Level::Major),
        l => l,
    }
}

/// [`newest`] with its [`level`].
pub fn available(inst: &Instance, packs: &[Pack]) -> Option<Available> {
    let (to, pack) = newest(inst, packs)?;
    let level = level(inst, packs, &packs[pack], &to);
    Some(Available {
        key: inst.key(),
        chain_id: inst.chain_id.clone(),
        from: inst.chain_version.clone(),
        to,
        level,
        pack,
    })
}

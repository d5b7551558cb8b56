//! Chain instances after they are inserted: what the user changed ([`edits`]), and
//! re-expanding one in place with new values or a new chain version while keeping those
//! changes ([`merge`]). The recorded expansion is recomputed from the instance's record
//! (`metadata.customProperties.chainsmith.instances`): the chain at the recorded version,
//! the recorded values, the recorded expansionId. [`base_pack`] finds that version among
//! the packs at hand. [`update`] finds newer versions of an instance's chain.

pub mod edits;
pub mod merge;
#[cfg(test)]
pub(crate) mod tests;
pub mod update;
pub mod upgrade;

pub use crate::workflow::merge3::{Choice, Conflict, Resolutions};
pub use edits::{Edit, user_edits};
pub use merge::{Merged, reexpand, review};

use crate::pack::Pack;
use crate::workflow::Instance;

/// The pack among `packs` that holds the instance's chain at its recorded version: the
/// instance's own pack first, then any other that has the chain at that version.
pub fn base_pack<'p>(inst: &Instance, packs: impl IntoIterator<Item = &'p Pack>) -> Option<&'p Pack> {
    let mut fallback = None;
    for p in packs {
        if p.chain(&inst.chain_id).is_some_and(|c| c.version() == inst.chain_version) {
            if p.name() == inst.pack_name {
                return Some(p);
            }
            fallback.get_or_insert(p);
        }
    }
    fallback
}

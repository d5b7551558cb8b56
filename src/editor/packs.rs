//! The packs the editor has loaded, each under a stable [`PackId`]. A palette tile, an open
//! form or a publish dialog names its pack by id, not by its place in the list: loading,
//! reloading or closing other packs moves places, never ids.
//!
//! The list keeps load order (the palette and the per-pack trust reports follow it), so it
//! reads as a slice of packs; only the id says which pack is meant.

use crate::pack::Pack;
use std::ops::{Deref, DerefMut};

/// A loaded pack's identity for as long as the editor runs; never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PackId(u64);

#[derive(Debug, Default)]
pub struct Packs {
    packs: Vec<Pack>,
    /// `ids[i]` is the id of `packs[i]`.
    ids: Vec<PackId>,
    next: u64,
}

impl Packs {
    pub fn new(packs: Vec<Pack>) -> Self {
        let mut out = Self::default();
        out.extend(packs);
        out
    }

    /// Add a pack. One from the same source as a loaded pack replaces it and keeps its id
    /// (it is the same pack, read again), moving to the end as a newly loaded one does.
    pub fn add(&mut self, pack: Pack) -> PackId {
        let id = match self.packs.iter().position(|p| p.source == pack.source) {
            Some(i) => {
                self.packs.remove(i);
                self.ids.remove(i)
            }
            None => {
                self.next += 1;
                PackId(self.next)
            }
        };
        self.packs.push(pack);
        self.ids.push(id);
        id
    }

    pub fn get(&self, id: PackId) -> Option<&Pack> {
        self.index_of(id).map(|i| &self.packs[i])
    }

    /// Where the pack with this id is in load order (for lists kept beside this one).
    pub fn index_of(&self, id: PackId) -> Option<usize> {
        self.ids.iter().position(|x| *x == id)
    }

    /// The id of the pack at `index` in load order.
    pub fn id_at(&self, index: usize) -> Option<PackId> {
        self.ids.get(index).copied()
    }

    /// Packs with their ids, in load order.
    pub fn with_ids(&self) -> impl Iterator<Item = (PackId, &Pack)> {
        self.ids.iter().copied().zip(&self.packs)
    }
}

/// Each pack [`Packs::add`]ed in turn: re-opening a pack replaces the loaded copy.
impl Extend<Pack> for Packs {
    fn extend<I: IntoIterator<Item = Pack>>(&mut self, packs: I) {
        for pack in packs {
            self.add(pack);
        }
    }
}

/// Read (and replace in place) as a slice in load order; adding goes through [`Packs::add`].
impl Deref for Packs {
    type Target = [Pack];
    fn deref(&self) -> &[Pack] {
        &self.packs
    }
}

impl DerefMut for Packs {
    fn deref_mut(&mut self) -> &mut [Pack] {
        &mut self.packs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::bundled;

    #[test]
    fn ids_survive_reloads_and_other_packs_moving() {
        let all = bundled().packs;
        assert!(all.len() >= 3);
        let mut packs = Packs::new(all[..2].to_vec());
        let (first, second) = (packs.id_at(0).unwrap(), packs.id_at(1).unwrap());
        assert_ne!(first, second);
        // Reloading the first moves it to the end: its place changes, its id does not.
        assert_eq!(packs.add(all[0].clone()), first);
        assert_eq!((packs.index_of(first), packs.index_of(second)), (Some(1), Some(0)));
        assert_eq!(packs.get(first).unwrap().source, all[0].source);
        let third = packs.add(all[2].clone());
        assert!(third != first && third != second);
        assert_eq!(packs.len(), 3);
        assert_eq!(packs.with_ids().map(|(id, _)| id).collect::<Vec<_>>(), [second, first, third]);
    }

    #[test]
    fn extending_adds_each_pack_and_a_pack_read_again_replaces_its_copy() {
        let all = bundled().packs;
        let mut packs = Packs::new(all[..1].to_vec());
        let first = packs.id_at(0).unwrap();
        packs.extend([all[1].clone(), all[0].clone(), all[1].clone()]);
        assert_eq!(packs.len(), 2, "two sources, each loaded once");
        assert_eq!(packs.index_of(first), Some(0), "the last read of each decides the order");
        assert_eq!(packs[1].source, all[1].source);
    }
}

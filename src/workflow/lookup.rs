//! Graph indices found by a key their own weight carries (a node's id, an edge's id or
//! `seq`), without storing the key a second time.
//!
//! A `HashMap<String, NodeIndex>` keeps its own copy of every id: at 100,000 nodes and as
//! many edges the three lookups took ~18 MB, more than half a 31 MB file's worth. This
//! table holds only the 4-byte indices; it hashes a key as it is asked, and compares by
//! reading the key from the graph. The caller passes the graph's key for an index
//! (`key_of`) wherever the table needs it.

use hashbrown::HashTable;
use std::hash::{BuildHasher, Hash, RandomState};

#[derive(Debug, Clone, Default)]
pub(super) struct Lookup<Ix> {
    table: HashTable<Ix>,
    hasher: RandomState,
}

impl<Ix: Copy + Eq> Lookup<Ix> {
    /// Any index whose key is `key`.
    pub fn find<'k, K: Hash + Eq + ?Sized + 'k>(&self, key: &K, key_of: impl Fn(Ix) -> &'k K) -> Option<Ix> {
        self.table.find(self.hasher.hash_one(key), |ix| key_of(*ix) == key).copied()
    }

    /// Every index whose key is `key` (keys may repeat), in no particular order.
    pub fn find_all<'s, 'k, K: Hash + Eq + ?Sized + 'k>(
        &'s self,
        key: &'s K,
        key_of: impl Fn(Ix) -> &'k K + 's,
    ) -> impl Iterator<Item = Ix> + 's {
        self.table.iter_hash(self.hasher.hash_one(key)).copied().filter(move |ix| key_of(*ix) == key)
    }

    /// Add `ix`, whose key is `key`; `key_of` must give the key of every index already in.
    pub fn insert<'k, K: Hash + ?Sized + 'k>(&mut self, ix: Ix, key: &K, key_of: impl Fn(Ix) -> &'k K) {
        let hasher = &self.hasher;
        self.table.insert_unique(hasher.hash_one(key), ix, |other| hasher.hash_one(key_of(*other)));
    }

    /// Take out `ix`, whose key is `key` (its weight may be gone from the graph already).
    pub fn remove<K: Hash + ?Sized>(&mut self, ix: Ix, key: &K) {
        if let Ok(entry) = self.table.find_entry(self.hasher.hash_one(key), |other| *other == ix) {
            entry.remove();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_by_the_key_the_owner_holds_repeats_included() {
        let keys = ["a", "b", "a", "c"];
        let key_of = |i: usize| keys[i];
        let mut lookup = Lookup::default();
        for (i, k) in keys.iter().enumerate() {
            lookup.insert(i, *k, key_of);
        }
        assert_eq!(lookup.find("b", key_of), Some(1));
        assert_eq!(lookup.find("z", key_of), None);
        let mut both: Vec<usize> = lookup.find_all("a", key_of).collect();
        both.sort();
        assert_eq!(both, [0, 2]);
        lookup.remove(0, "a");
        assert_eq!(lookup.find_all("a", key_of).collect::<Vec<_>>(), [2]);
        // An index that is not in takes nothing out. (Removing an index under a key that is
        // not its own is outside the contract: a probe for that key may still meet it, one
        // time in 128 with a random hasher, which made this test fail now and then.)
        lookup.remove(7, "a");
        let found = ["a", "b", "c"].map(|k| lookup.find_all(k, key_of).collect::<Vec<_>>());
        assert_eq!(found, [vec![2], vec![1], vec![3]]);
    }

    #[test]
    fn growing_rehashes_by_the_owners_keys() {
        let keys: Vec<String> = (0..10_000).map(|i| format!("n{i}")).collect();
        let key_of = |i: u32| keys[i as usize].as_str();
        let mut lookup = Lookup::default();
        for i in 0..keys.len() as u32 {
            lookup.insert(i, key_of(i), key_of);
        }
        assert!((0..keys.len() as u32).all(|i| lookup.find(key_of(i), key_of) == Some(i)));
    }
}

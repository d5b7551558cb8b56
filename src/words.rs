//! Counts in the user's words: "1 node", "3 nodes", never "node(s)". A leaf: it depends on
//! nothing else in the crate.

/// `n` and the noun in the number `n` takes: `count(1, "node", "nodes")` is "1 node".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1, "node", "nodes"), "1 node");
        assert_eq!(count(0, "node", "nodes"), "0 nodes");
        assert_eq!(count(2, "key", "keys"), "2 keys");
        assert_eq!(count(1, "member", "members"), "1 member");
    }
}

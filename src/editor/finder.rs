//! What the command palette (Ctrl+K) and the canvas quick-add search: registry commands,
//! chain tiles and catalogued node types, ranked by a fuzzy match of what was typed
//! (nucleo's matcher, the one the Helix editor uses). Plain data: `app::finder` draws the
//! list and runs the pick.

use super::commands::CommandId;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

/// One thing that can be picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Command(CommandId),
    /// A chain tile: the loaded pack and the chainId.
    Chain {
        pack: super::packs::PackId,
        chain_id: String,
    },
    /// A node type of the catalog, by typeId.
    NodeType(String),
}

/// A pickable entry: what it is, the name shown, a detail (ids) that is searched too, and
/// a shortcut that is only shown (its "Ctrl" would otherwise match every "tr" typed).
#[derive(Debug, Clone)]
pub struct Entry {
    pub target: Target,
    pub title: String,
    pub detail: String,
    pub shortcut: String,
}

impl Entry {
    /// What the matcher reads: the title and the detail, so ids match as well as names.
    fn haystack(&self) -> String {
        format!("{} {}", self.title, self.detail)
    }
}

/// Indices of the entries that match `query`, best first; every entry, in order, for an
/// empty query. Ties keep the entries' order, so commands listed first stay first. Words
/// separated by spaces must each match (in any order), as in the Helix and fzf pickers.
pub fn rank(query: &str, entries: &[Entry]) -> Vec<usize> {
    if query.trim().is_empty() {
        return (0..entries.len()).collect();
    }
    let pattern = Pattern::parse(query, CaseMatching::Ignore, Normalization::Smart);
    let mut matcher = Matcher::new(Config::DEFAULT);
    let mut buf = Vec::new();
    let mut scored: Vec<(u32, usize)> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let hay = e.haystack();
            pattern.score(Utf32Str::new(&hay, &mut buf), &mut matcher).map(|s| (s, i))
        })
        .collect();
    scored.sort_by_key(|&(score, i)| (std::cmp::Reverse(score), i));
    scored.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(title: &str, detail: &str) -> Entry {
        let target = Target::NodeType(title.to_owned());
        Entry { target, title: title.to_owned(), detail: detail.to_owned(), shortcut: "Ctrl+Shift+T".to_owned() }
    }

    #[test]
    fn fuzzy_matches_rank_closer_matches_first() {
        let entries =
            [entry("Save as…", "file.save_as"), entry("Triage queue", "support.triage"), entry("Save", "file.save")];
        // Letters in order, not adjacent: "trq" finds "Triage queue" only.
        assert_eq!(rank("trq", &entries), [1]);
        // Both saves match "save"; for "save as" the one that spells it out ranks first.
        let mut saves = rank("save", &entries);
        saves.sort_unstable();
        assert_eq!(saves, [0, 2]);
        assert_eq!(rank("save as", &entries)[0], 0, "the one that spells it out first");
        // Ids match too, and case does not matter.
        assert_eq!(rank("SUPPORT.TRI", &entries), [1]);
        assert!(rank("zzz", &entries).is_empty());
        assert!(rank("ctrl", &entries).is_empty(), "shortcuts are shown, not searched");
        assert_eq!(rank("  ", &entries), [0, 1, 2]);
    }
}

//! What the command palette (Ctrl+K) and the canvas quick-add search: registry commands,
//! chain tiles and catalogued node types, ranked by a fuzzy match of what was typed
//! (nucleo's matcher, the one the Helix editor uses). Plain data: `app::finder` draws the
//! list and runs the pick.

use super::commands::{self, CommandId, Os};
use super::packs::Packs;
use crate::catalog::{Catalog, TrustReport};
use crate::error::Finding;
use crate::pack::PackKind;
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
/// A disabled entry (a command whose enabled-when does not hold) is listed, so a search for
/// it finds it and shows why nothing happens, but it cannot be picked.
#[derive(Debug, Clone)]
pub struct Entry {
    pub target: Target,
    pub title: String,
    pub detail: String,
    pub shortcut: String,
    pub enabled: bool,
}

impl Entry {
    /// What the matcher reads: the title and the detail, so ids match as well as names.
    fn haystack(&self) -> String {
        format!("{} {}", self.title, self.detail)
    }
}

/// How closely a title answers the query, before the fuzzy score: typing a title, or its
/// start, names that entry, so it leads however well other entries' ids happen to score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Closeness {
    Exact,
    Prefix,
    Fuzzy,
}

fn closeness(query: &str, title: &str) -> Closeness {
    let (q, t) = (query.trim().to_lowercase(), title.to_lowercase());
    if t == q {
        Closeness::Exact
    } else if t.starts_with(&q) {
        Closeness::Prefix
    } else {
        Closeness::Fuzzy
    }
}

/// Indices of the entries that match `query`, best first: exact titles, then titles that
/// start with the query, then by fuzzy score; among equals, enabled entries before disabled
/// ones, then the entries' order (so commands listed first stay first). An empty query
/// lists every enabled entry, in order, then the disabled ones. Words separated by spaces
/// must each match (in any order), as in the Helix and fzf pickers.
pub fn rank(query: &str, entries: &[Entry]) -> Vec<usize> {
    if query.trim().is_empty() {
        let (enabled, disabled): (Vec<usize>, Vec<usize>) = (0..entries.len()).partition(|&i| entries[i].enabled);
        return enabled.into_iter().chain(disabled).collect();
    }
    let pattern = Pattern::parse(query, CaseMatching::Ignore, Normalization::Smart);
    let mut matcher = Matcher::new(Config::DEFAULT);
    let mut buf = Vec::new();
    let mut scored: Vec<(Closeness, u32, bool, usize)> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let hay = e.haystack();
            let score = pattern.score(Utf32Str::new(&hay, &mut buf), &mut matcher)?;
            Some((closeness(query, &e.title), score, e.enabled, i))
        })
        .collect();
    scored.sort_by_key(|&(close, score, enabled, i)| (close, std::cmp::Reverse(score), !enabled, i));
    scored.into_iter().map(|(.., i)| i).collect()
}

/// What the palette or quick-add lists: commands (`with_commands`, the palette's; not the
/// palette itself),
/// disabled ones marked so, then chain tiles of the loaded chain packs (internal ones when
/// shown), then the catalog's node types.
pub fn entries(
    with_commands: bool,
    cx: &commands::Context,
    os: Os,
    packs: &Packs,
    reports: &[TrustReport],
    catalog: Option<&Catalog>,
    show_internal: bool,
) -> Vec<Entry> {
    let mut out = Vec::new();
    if with_commands {
        for &c in CommandId::ALL {
            if c == CommandId::CommandPalette {
                continue;
            }
            let spec = c.spec();
            let (title, detail, shortcut) = (spec.label.to_owned(), spec.id.to_owned(), c.shortcut_text(os));
            out.push(Entry { target: Target::Command(c), title, detail, shortcut, enabled: c.is_enabled(cx) });
        }
    }
    let chain_packs = packs.with_ids().zip(reports).filter(|((_, p), _)| p.kind == PackKind::WorkflowChain);
    for ((i, pack), report) in chain_packs {
        for chain in pack.chains.iter().filter(|c| show_internal || !c.internal()) {
            // A blocked chain stays pickable (picking it explains why), marked as the palette marks it.
            let concerns = |f: &&Finding| f.chain_id.as_deref().is_none_or(|c| c == chain.chain_id());
            let blocked = report.blocking().find(concerns).map(|f| f.code);
            let invalid = pack.findings_for(chain.chain_id()).any(|f| f.is_error());
            let (mark, why) = match (blocked, invalid) {
                (Some(code), _) => (" · blocked", format!("{code} · ")),
                (None, true) => (" · invalid", String::new()),
                (None, false) => ("", String::new()),
            };
            let detail = format!("{why}{} · {}", chain.chain_id(), pack.name());
            let target = Target::Chain { pack: i, chain_id: chain.chain_id().to_owned() };
            let title = format!("{}{mark}", chain.label());
            out.push(Entry { target, title, detail, shortcut: String::new(), enabled: true });
        }
    }
    if let Some(catalog) = catalog {
        for t in catalog.node_types() {
            let target = Target::NodeType(t.type_id().to_owned());
            let (title, detail) = (t.label().to_owned(), t.type_id().to_owned());
            out.push(Entry { target, title, detail, shortcut: String::new(), enabled: true });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(title: &str, detail: &str) -> Entry {
        let target = Target::NodeType(title.to_owned());
        let shortcut = "Ctrl+Shift+T".to_owned();
        Entry { target, title: title.to_owned(), detail: detail.to_owned(), shortcut, enabled: true }
    }

    fn command(c: CommandId, enabled: bool) -> Entry {
        let spec = c.spec();
        let (title, detail) = (spec.label.to_owned(), spec.id.to_owned());
        Entry { target: Target::Command(c), title, detail, shortcut: String::new(), enabled }
    }

    #[test]
    fn the_palette_lists_commands_and_quick_add_only_chains_and_types_a_blocked_chain_marked() {
        let packs = Packs::new(crate::pack::bundled().packs);
        let strict = crate::catalog::Trust { require_signed: true, ..Default::default() };
        let reports = super::super::blockers::pack_reports(&strict, &packs);
        let cx = commands::Context::default();
        let palette = entries(true, &cx, Os::Other, &packs, &reports, None, false);
        let quick = entries(false, &cx, Os::Other, &packs, &reports, None, false);
        let commands_listed = palette.iter().filter(|e| matches!(e.target, Target::Command(_))).count();
        // Every command but the palette itself.
        assert_eq!(commands_listed, CommandId::ALL.len() - 1);
        assert_eq!(palette.len() - commands_listed, quick.len(), "the same chains either way");
        assert!(!quick.iter().any(|e| matches!(e.target, Target::Command(_))));
        let triage = quick.iter().find(|e| e.detail.contains("support.triage")).unwrap();
        // The bundled packs are unsigned: a policy that requires signatures blocks them.
        assert!(triage.title.ends_with(" · blocked"), "{}", triage.title);
        assert!(triage.detail.starts_with("pack_unsigned · "), "{}", triage.detail);
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

    #[test]
    fn titles_typed_out_lead_and_disabled_entries_follow_their_equals() {
        // The palette on an empty canvas: Tidy is disabled, a chain's id happens to hold t-i-d-y.
        let idem = entry("Idempotency Key", "data.idempotency_key · vendor.chainsmith.data-ops");
        let entries = [command(CommandId::SelectAll, true), idem.clone(), command(CommandId::Tidy, false)];
        assert_eq!(rank("tidy", &entries), [2, 1], "the exact title first, though disabled");
        assert_eq!(rank("TID", &entries), [2, 1], "a title prefix leads too");
        // Equal matches: the enabled one first, whatever the order they came in.
        let twins = [command(CommandId::Tidy, false), entry("Tidy", "x"), command(CommandId::Tidy, true)];
        assert_eq!(rank("tidy", &twins), [1, 2, 0]);
        assert_eq!(rank("", &twins), [1, 2, 0], "nothing typed: enabled entries in order, then disabled");
        // Without an exact or prefix title, the fuzzy score decides (ids count).
        assert_eq!(rank("idemkey", &entries), [1]);
    }
}

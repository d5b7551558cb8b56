//! The review of moving a chain instance to another version of its chain, before anything
//! changes: both expansions side by side (nodes, members, edges), the chain's changes as
//! the semver check classifies them, the user's edits and conflicts, and the values that
//! carry over. Applying it is the inline pipeline's re-expansion
//! ([`crate::inline::Destination::Reparameterise`]), as `chainsmith upgrade` runs it.

use super::document::{Document, Outcome};
use super::packs::{PackId, Packs};
use crate::catalog::Trust;
use crate::diff::pack::diff_packs;
use crate::diff::{Change, Level, bump};
use crate::error::{Error, Result, code};
use crate::expand::Expansion;
use crate::host::HostProfile;
use crate::inline::{Destination, ExpansionIdChoice, InlineRequest, expand_for};
use crate::instance::edits::{Edit, NOT_MERGED, comparable};
use crate::instance::update::{self, Available, versions};
use crate::instance::upgrade::carried_values;
use crate::instance::{Conflict, Resolutions};
use crate::pack::{Chain, Pack};
use crate::params::{Form, FormFields, apply_defaults, check};
use crate::workflow::merge3::differences;
use crate::workflow::{FragmentEdges, FragmentNodes, Instance, Workflow};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};

/// The updates at hand, by instance key, found again only when the workflow or the loaded
/// packs change.
#[derive(Default)]
pub struct FoundUpdates {
    pub available: HashMap<String, Available>,
    /// The workflow revision and the loaded packs (id, version) `available` was found for.
    found_for: Option<(u64, Vec<(PackId, String)>)>,
    /// Levels by chain, recorded version and new version, for the packs of `found_for`:
    /// an edit to the workflow does not compare chains again.
    levels: HashMap<(String, String, String), Level>,
}

impl FoundUpdates {
    /// Find the updates again when the workflow or the loaded packs changed; whether they
    /// were.
    pub fn refresh(&mut self, wf: &Workflow, revision: u64, packs: &Packs) -> bool {
        let loaded: Vec<(PackId, String)> = packs.with_ids().map(|(id, p)| (id, p.version().to_owned())).collect();
        match &self.found_for {
            Some((r, l)) if *r == revision && *l == loaded => return false,
            Some((_, l)) if *l == loaded => {}
            _ => self.levels.clear(),
        }
        self.available.clear();
        for inst in wf.instances() {
            let Some((to, pack)) = update::newest(&inst, packs) else { continue };
            let level = *self
                .levels
                .entry((inst.chain_id.clone(), inst.chain_version.clone(), to.clone()))
                .or_insert_with(|| update::level(&inst, packs, &packs[pack], &to));
            let (key, chain_id, from) = (inst.key(), inst.chain_id, inst.chain_version);
            self.available.insert(key.clone(), Available { key, chain_id, from, to, level, pack });
        }
        self.found_for = Some((revision, loaded));
        true
    }
}

/// What "Review update…" is about and what its last Apply left: the instance, the loaded
/// pack holding the version to update to, the conflicts to settle and why Apply was refused.
/// The window draws it; [`crate::editor::session::Session::apply_review`] applies it.
pub struct Reviewed {
    pub key: String,
    pub target: PackId,
    /// Conflicts found when Apply was refused (the review's own otherwise).
    pub conflicts: Vec<Conflict>,
    pub resolutions: Resolutions,
    /// Why the last Apply was refused.
    pub refusal: Option<Error>,
}

impl Reviewed {
    pub fn new(key: &str, target: PackId) -> Self {
        Self { key: key.to_owned(), target, conflicts: Vec::new(), resolutions: Resolutions::default(), refusal: None }
    }
}

/// "Review update…" while it is open: what is reviewed, the chain at the version reviewed
/// (its parameters make the form) and the review, computed on a thread of its own so the
/// editor keeps drawing. The review window draws it.
pub struct ReviewSession {
    pub reviewed: Reviewed,
    pub chain: Chain,
    pub state: ReviewState,
    /// Frames drawn while the review was computed (the UI never waits for it).
    pub frames_waiting: u64,
}

pub enum ReviewState {
    Computing(Receiver<Result<Review>>),
    /// The review, its lists as drawn, and the values it carries over as a form.
    Ready(Box<Review>, Box<ReviewLines>, Box<FormFields>),
    Failed(Error),
}

impl ReviewSession {
    /// Start computing the review of moving `key` to `packs[target]`'s version of its chain
    /// on a thread, which calls `answered` once it has (the window asks for a frame). `host`
    /// is the host profile the expansions follow (whether sub-chains are co-expanded).
    pub fn start(
        wf: Arc<Workflow>,
        key: &str,
        packs: Vec<Pack>,
        (target, target_id): (usize, PackId),
        host: HostProfile,
        answered: impl FnOnce() + Send + 'static,
    ) -> Option<Self> {
        let inst = wf.instance(key)?;
        let chain = packs.get(target)?.chain(&inst.chain_id)?.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let key2 = key.to_owned();
        let spawned = std::thread::Builder::new().name("cs-review-update".into()).spawn(move || {
            let trust = Trust { host, ..Trust::default() };
            let _ = tx.send(review_update(&wf, &key2, &packs, &packs[target], &trust));
            answered();
        });
        let state = match spawned {
            Ok(_) => ReviewState::Computing(rx),
            Err(e) => ReviewState::Failed(Error::new(code::IO_ERROR, format!("could not start the review: {e}"))),
        };
        Some(Self { reviewed: Reviewed::new(key, target_id), chain, state, frames_waiting: 0 })
    }

    /// Whether the review is still being computed.
    pub fn computing(&self) -> bool {
        matches!(self.state, ReviewState::Computing(_))
    }

    pub fn chain_id(&self) -> &str {
        self.chain.chain_id()
    }

    /// Take the review if the thread has answered: its values become the form, the carried
    /// values the new version refuses shown at once (as in the insert form), its conflicts
    /// the ones to settle.
    pub fn receive(&mut self) {
        let ReviewState::Computing(rx) = &self.state else { return };
        self.state = match rx.try_recv() {
            Ok(Ok(review)) => {
                let mut fields = FormFields::new(Form::from_schema(self.chain.parameters()), review.values.clone());
                fields.reveal();
                self.reviewed.conflicts = review.conflicts.clone();
                let lines = ReviewLines::of(&review);
                ReviewState::Ready(Box::new(review), Box::new(lines), Box::new(fields))
            }
            Ok(Err(e)) => ReviewState::Failed(e),
            Err(TryRecvError::Empty) => return,
            Err(TryRecvError::Disconnected) => {
                ReviewState::Failed(Error::new(code::IO_ERROR, "the review stopped before it was done"))
            }
        };
    }

    /// Check the form's values against the chain once they changed, with the defaults
    /// applied as the expansion applies them.
    pub fn validate(&mut self) {
        let ReviewState::Ready(_, _, fields) = &mut self.state else { return };
        if fields.is_stale() {
            let mut with_defaults = fields.values().clone();
            apply_defaults(self.chain.parameters(), &mut with_defaults);
            fields.set_errors(check(&self.chain, &Value::Object(with_defaults)).unwrap_or_default());
        }
    }
}

/// The versions of each chain that more than one loaded pack holds (a palette tile offers
/// them), by chainId.
pub fn chain_versions(packs: &Packs) -> HashMap<String, Vec<(String, PackId)>> {
    let mut by_chain: HashMap<String, Vec<(String, PackId)>> = HashMap::new();
    for p in packs.iter() {
        for c in &p.chains {
            if by_chain.contains_key(c.chain_id()) {
                continue;
            }
            let found = versions(packs, c.chain_id());
            if found.len() > 1 {
                let listed = found.into_iter().filter_map(|(v, i)| Some((v, packs.id_at(i)?))).collect();
                by_chain.insert(c.chain_id().to_owned(), listed);
            }
        }
    }
    by_chain
}

/// The other instances of `chain_id` (besides `key`) an "Update all" moves: those with an
/// update in `available` (not pinned, and a newer version of the chain is loaded).
pub fn others_to_update(
    wf: &Workflow,
    available: &HashMap<String, Available>,
    chain_id: &str,
    key: &str,
) -> Vec<Instance> {
    wf.instances()
        .into_iter()
        .filter(|i| i.chain_id == chain_id && i.key() != key)
        .filter(|i| available.contains_key(&i.key()))
        .collect()
}

/// Update instance `key` of `doc` to its chain's version in `target` with `values` and
/// `resolutions`, as `chainsmith upgrade` does; with `all` (the updates available), every
/// other instance of the chain with an update moves too, carrying its own values. One undo
/// step; a refusal changes nothing. `None` when the instance or its chain is gone.
pub fn update_instance(
    doc: &mut Document,
    trust: &Trust,
    packs: &[Pack],
    target: &Pack,
    key: &str,
    (values, resolutions): (Map<String, Value>, Resolutions),
    all: Option<&HashMap<String, Available>>,
) -> Option<Result<Outcome>> {
    let inst = doc.workflow().instance(key)?;
    let chain = target.chain(&inst.chain_id)?;
    let request = |inst: &Instance, values: Map<String, Value>, resolutions: Resolutions| {
        let mut req = InlineRequest::new(trust, target, chain.chain_id(), values);
        req.expansion_id = ExpansionIdChoice::Given(inst.expansion_id.clone());
        req.external = packs;
        req.destination = Destination::Reparameterise { key: inst.key(), resolutions };
        req
    };
    let mut reqs = vec![request(&inst, values, resolutions)];
    let Some(available) = all else { return Some(doc.inline(reqs.remove(0))) };
    for other in &others_to_update(doc.workflow(), available, &inst.chain_id, key) {
        let values = carried_values(&other.params, chain, Map::new());
        reqs.push(request(other, values, Resolutions::default()));
    }
    let label = format!("Update {} instances of {} to {}", reqs.len(), chain.label(), chain.version());
    Some(doc.inline_all(reqs, label))
}

/// The conflicts to settle when an update of instance `key` was refused for them; `None`
/// when it was refused for another reason.
pub fn conflicts_for(refusal: &Error, key: &str) -> Option<Vec<Conflict>> {
    (refusal.code == code::UPGRADE_CONFLICT && refusal.details["instance"] == Value::String(key.to_owned()))
        .then(|| Conflict::listed_in(refusal))
}

/// One node of the instance in the old and the new expansion.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeChange {
    Added(String),
    Removed(String),
    /// A member (JSON pointer inside the node) with its old and new value.
    Member {
        node: String,
        pointer: String,
        old: Option<Value>,
        new: Option<Value>,
    },
}

/// What moving an instance to another version of its chain does, before it is done.
#[derive(Debug, Clone)]
pub struct Review {
    pub key: String,
    pub label: String,
    pub chain_id: String,
    pub from: String,
    pub to: String,
    pub level: Level,
    /// The nodes of both expansions side by side, in fragment order (old, then new).
    pub old_nodes: Vec<String>,
    pub new_nodes: Vec<String>,
    pub nodes: Vec<NodeChange>,
    /// Fragment edges as `source.port → target.port`.
    pub edges_added: Vec<String>,
    pub edges_removed: Vec<String>,
    /// The chain's changes between the two versions (parameters: type, enum, bounds,
    /// default, …), as `chainsmith diff` lists them; empty without the recorded version.
    pub changes: Vec<ChainChange>,
    pub edits: Vec<Edit>,
    pub conflicts: Vec<Conflict>,
    /// The recorded values the new version still declares (what the form starts from).
    pub values: Map<String, Value>,
    /// Recorded values the new version no longer declares: they are dropped.
    pub dropped: Vec<String>,
}

/// One of the chain's changes, held apart from the manifests it was found in (a review
/// outlives them: it is computed on its own thread).
#[derive(Debug, Clone, PartialEq)]
pub struct ChainChange {
    pub level: Level,
    pub kind: &'static str,
    pub pointer: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

impl From<Change<'_>> for ChainChange {
    fn from(c: Change<'_>) -> Self {
        let owned = |v: Option<std::borrow::Cow<'_, Value>>| v.map(std::borrow::Cow::into_owned);
        Self { level: c.level, kind: c.kind, pointer: c.pointer, old: owned(c.old), new: owned(c.new) }
    }
}

/// An expansion's nodes as the workflow holds them once inlined (one instance's worth).
fn workflow_nodes(exp: &Expansion) -> Vec<Map<String, Value>> {
    let nodes = FragmentNodes::new(exp);
    (0..nodes.len()).map(|i| nodes.get(i)).collect()
}

/// An expansion's edges by their ends and ports, lent by it.
fn edge_ends(exp: &Expansion) -> Vec<(&str, &str, &str, &str)> {
    let edges = FragmentEdges::new(exp);
    (0..edges.len()).map(|i| edges.ends(i)).collect()
}

/// Review moving instance `key` of `wf` to `target`'s version of its chain (the packs given
/// resolve the recorded version and external sub-chains). The values carried over are
/// substituted as given, so an invalid one still shows where it lands; the form checks them.
pub fn review_update(wf: &Workflow, key: &str, packs: &[Pack], target: &Pack, trust: &Trust) -> Result<Review> {
    let inst = crate::instance::merge::find(wf, key)?;
    let chain: &Chain = crate::instance::upgrade::target(key, &inst.chain_id, std::slice::from_ref(target), None)?
        .chain(&inst.chain_id)
        .expect("target holds the chain");
    let values = carried_values(&inst.params, chain, Map::new());
    let dropped = inst.params.keys().filter(|k| !values.contains_key(*k)).cloned().collect();
    let mut req = InlineRequest::new(trust, target, &inst.chain_id, values.clone());
    req.expansion_id = ExpansionIdChoice::Given(inst.expansion_id.clone());
    req.external = packs;
    req.preview = true;
    req.destination = Destination::Reparameterise { key: key.to_owned(), resolutions: Default::default() };
    let expanded = expand_for(Some(wf), req)?;
    let base = expanded.base.expect("a re-expansion computes its base");
    let new = expanded.expansion;
    let (edits, conflicts) = crate::instance::review(wf, key, &base, &new)?;

    let (old_frag, new_frag) = (workflow_nodes(&base), workflow_nodes(&new));
    let id = |n: &Map<String, Value>| n.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
    let new_by_id: HashMap<String, &Map<String, Value>> = new_frag.iter().map(|n| (id(n), n)).collect();
    let old_ids: HashSet<String> = old_frag.iter().map(id).collect();
    let mut nodes = Vec::new();
    for o in &old_frag {
        let node = id(o);
        let Some(n) = new_by_id.get(&node) else {
            nodes.push(NodeChange::Removed(node));
            continue;
        };
        let mut diffs = Vec::new();
        differences("", &comparable(o), &comparable(n), &NOT_MERGED, &mut diffs);
        nodes.extend(diffs.into_iter().map(|(pointer, old, new)| NodeChange::Member {
            node: node.clone(),
            pointer,
            old,
            new,
        }));
    }
    nodes.extend(new_frag.iter().map(id).filter(|n| !old_ids.contains(n)).map(NodeChange::Added));

    let edge_text = |k: &(&str, &str, &str, &str)| format!("{}.{} → {}.{}", k.0, k.1, k.2, k.3);
    let (old_edges, new_edges) = (edge_ends(&base), edge_ends(&new));
    let old_keys: HashSet<_> = old_edges.iter().collect();
    let new_keys: HashSet<_> = new_edges.iter().collect();
    let edges_added = new_edges.iter().filter(|k| !old_keys.contains(k)).map(edge_text).collect();
    let edges_removed = old_edges.iter().filter(|k| !new_keys.contains(k)).map(edge_text).collect();

    let base_pack = crate::instance::base_pack(&inst, packs.iter());
    let changes =
        base_pack.map(|b| diff_packs(&b.manifest, &target.manifest, Some(&inst.chain_id)).changes).unwrap_or_default();
    let changes: Vec<ChainChange> = changes.into_iter().map(ChainChange::from).collect();
    let checked = changes.iter().map(|c| c.level).max().unwrap_or(Level::None);
    let level = match checked {
        Level::None => bump(&inst.chain_version, chain.version()).unwrap_or(Level::None),
        l => l,
    };
    Ok(Review {
        key: key.to_owned(),
        label: inst.label.clone(),
        chain_id: inst.chain_id.clone(),
        from: inst.chain_version.clone(),
        to: chain.version().to_owned(),
        level,
        old_nodes: old_frag.iter().map(id).collect(),
        new_nodes: new_frag.iter().map(id).collect(),
        nodes,
        edges_added,
        edges_removed,
        changes,
        edits,
        conflicts,
        values,
        dropped,
    })
}

/// What a line of the review marks; the window gives each its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Added,
    Removed,
    Changed,
    Unchanged,
    /// One of the chain's changes, by what it needs of the version.
    Level(Level),
    /// An edit made by hand.
    Edit,
}

/// One line of the review, and what it marks.
pub type Line = (String, Mark);

/// The review's lists as drawn, made once when it arrives (a frame draws only the rows in
/// view, so a review of thousands of nodes costs a frame no more than a short one).
#[derive(Debug, PartialEq)]
pub struct ReviewLines {
    pub old: Vec<Line>,
    pub new: Vec<Line>,
    pub members: Vec<Line>,
    pub edges: Vec<Line>,
    pub changes: Vec<Line>,
    pub edits: Vec<Line>,
}

impl ReviewLines {
    pub fn of(review: &Review) -> Self {
        let mut changed = HashSet::new();
        let (mut gone, mut fresh) = (HashSet::new(), HashSet::new());
        let mut members = Vec::new();
        for c in &review.nodes {
            match c {
                NodeChange::Member { node, pointer, old, new } => {
                    changed.insert(node.as_str());
                    members.push((format!("~ {node} {pointer}: {} → {}", one_line(old), one_line(new)), Mark::Changed));
                }
                NodeChange::Removed(id) => {
                    gone.insert(id.as_str());
                }
                NodeChange::Added(id) => {
                    fresh.insert(id.as_str());
                }
            }
        }
        // A node is marked by its end (removed, added), else as changed or as it was.
        let mark = |id: &String, ends: &HashSet<&str>, (m, end): (&str, Mark)| {
            let (m, mark) = if ends.contains(id.as_str()) {
                (m, end)
            } else if changed.contains(id.as_str()) {
                ("~", Mark::Changed)
            } else {
                (" ", Mark::Unchanged)
            };
            (format!("{m} {id}"), mark)
        };
        let old = review.old_nodes.iter().map(|id| mark(id, &gone, ("-", Mark::Removed))).collect();
        let new = review.new_nodes.iter().map(|id| mark(id, &fresh, ("+", Mark::Added))).collect();
        let edges = (review.edges_added.iter().map(|e| (format!("+ {e}"), Mark::Added)))
            .chain(review.edges_removed.iter().map(|e| (format!("- {e}"), Mark::Removed)))
            .collect();
        let changes = review
            .changes
            .iter()
            .map(|c| {
                let (old, new) = (one_line(&c.old), one_line(&c.new));
                (format!("{} {} {}: {old} → {new}", c.level.as_str(), c.kind, c.pointer), Mark::Level(c.level))
            })
            .collect();
        let edits = review.edits.iter().map(|e| (format!("you: {}", e.describe()), Mark::Edit)).collect();
        Self { old, new, members, edges, changes, edits }
    }
}

/// A value on one line of the review: compact JSON, cut when long; `(none)` when absent.
pub fn one_line(v: &Option<Value>) -> String {
    let text = v.as_ref().map_or("(none)".to_owned(), Value::to_string);
    if text.chars().count() > 60 { format!("{}…", text.chars().take(59).collect::<String>()) } else { text }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_review_line_shows_a_value_compact_and_cuts_it_at_sixty_characters() {
        assert_eq!(one_line(&None), "(none)");
        assert_eq!(one_line(&Some(serde_json::json!({"a": [1, 2]}))), r#"{"a":[1,2]}"#);
        let long = Some(Value::String("é".repeat(70)));
        let cut = one_line(&long);
        assert_eq!(cut.chars().count(), 60);
        assert!(cut.starts_with("\"é") && cut.ends_with("é…"));
        let fits = Some(Value::String("x".repeat(58)));
        assert_eq!(one_line(&fits).chars().count(), 60, "58 characters and two quotes stay whole");
    }

    use super::*;
    use crate::instance::tests::{pack, set_config, workflow};
    use serde_json::json;

    #[test]
    fn a_review_lists_both_expansions_the_chains_changes_the_edits_and_the_carried_values() {
        let (mut wf, key) = workflow();
        set_config(&mut wf, "t_two_k1_b", "note", json!("mine"));
        let (p1, p2) = (pack("1.0.0"), pack("2.0.0"));
        let r = review_update(&wf, &key, &[p1, p2.clone()], &p2, &crate::catalog::Trust::default()).unwrap();
        assert_eq!((r.from.as_str(), r.to.as_str(), r.level.as_str()), ("1.0.0", "2.0.0", "major"));
        assert_eq!(r.old_nodes, ["t_two_k1_a", "t_two_k1_b", "t_two_k1_z"]);
        assert_eq!(r.new_nodes, ["t_two_k1_a", "t_two_k1_b", "t_two_k1_c"]);
        assert!(r.nodes.contains(&NodeChange::Removed("t_two_k1_z".into())));
        assert!(r.nodes.contains(&NodeChange::Added("t_two_k1_c".into())));
        assert!(r.nodes.contains(&NodeChange::Member {
            node: "t_two_k1_a".into(),
            pointer: "/config/url".into(),
            old: Some(json!("https://x.test/a")),
            new: Some(json!("https://y.test/a")),
        }));
        assert_eq!(r.edges_added, ["t_two_k1_b.out → t_two_k1_c.in"]);
        assert_eq!(r.edges_removed, ["t_two_k1_a.out → t_two_k1_z.in"]);
        assert!(r.changes.iter().any(|c| c.kind == "exit_node_removed"), "{:?}", r.changes);
        assert_eq!(r.edits.len(), 1, "the note set by hand: {:?}", r.edits);
        assert!(r.conflicts.is_empty());
        assert_eq!(r.values["topic"], "a");
        assert!(r.dropped.is_empty());
        // Nothing was changed by reviewing.
        assert_eq!(wf.instance(&key).unwrap().chain_version, "1.0.0");

        // As drawn: 1.0.0 has a, b, z; 2.0.0 has a, b, c; a's url changes (a member), the
        // edge a → z goes and b → c comes; the note set by hand is the one edit.
        let lines = ReviewLines::of(&r);
        let (same, changed) = (Mark::Unchanged, Mark::Changed);
        let old = [("~ t_two_k1_a", changed), ("  t_two_k1_b", same), ("- t_two_k1_z", Mark::Removed)];
        let new = [("~ t_two_k1_a", changed), ("  t_two_k1_b", same), ("+ t_two_k1_c", Mark::Added)];
        let owned = |l: &[(&str, Mark)]| l.iter().map(|(s, m)| ((*s).to_owned(), *m)).collect::<Vec<_>>();
        assert_eq!((lines.old, lines.new), (owned(&old), owned(&new)));
        let member = r#"~ t_two_k1_a /config/url: "https://x.test/a" → "https://y.test/a""#;
        assert_eq!(lines.members, owned(&[(member, changed)]));
        let edges =
            [("+ t_two_k1_b.out → t_two_k1_c.in", Mark::Added), ("- t_two_k1_a.out → t_two_k1_z.in", Mark::Removed)];
        assert_eq!(lines.edges, owned(&edges));
        assert_eq!(lines.changes.len(), r.changes.len());
        for ((text, mark), c) in lines.changes.iter().zip(&r.changes) {
            assert_eq!(*mark, Mark::Level(c.level));
            assert!(text.starts_with(&format!("{} {} {}: ", c.level.as_str(), c.kind, c.pointer)), "{text}");
        }
        assert_eq!(lines.edits.len(), 1);
        assert!(lines.edits[0].0.starts_with("you: ") && lines.edits[0].1 == Mark::Edit, "{:?}", lines.edits);
    }

    #[test]
    fn a_review_session_computes_on_its_thread_then_checks_the_carried_values_after_each_edit() {
        let (wf, key) = workflow();
        let (p1, p2) = (pack("1.0.0"), pack("2.0.0"));
        let (tx, answered) = std::sync::mpsc::channel();
        let host = crate::host::HostProfile::default();
        let target = Packs::new(vec![p2.clone()]).id_at(0).unwrap();
        let start = |key: &str| {
            let tx = tx.clone();
            let packs = vec![p1.clone(), p2.clone()];
            ReviewSession::start(Arc::new(wf.clone()), key, packs, (1, target), host.clone(), move || {
                tx.send(()).unwrap();
            })
        };
        assert!(start("no-such-key").is_none(), "no instance, no review");
        let mut s = start(&key).expect("the instance and its chain at the target version");
        assert_eq!((s.chain_id(), s.chain.version()), ("t.two", "2.0.0"));
        assert_eq!((s.reviewed.key.as_str(), s.reviewed.target), (key.as_str(), target));
        answered.recv_timeout(std::time::Duration::from_secs(60)).expect("the thread answers");
        s.receive();
        assert!(!s.computing());
        let ReviewState::Ready(review, lines, fields) = &s.state else { panic!("the review arrived") };
        assert_eq!(**lines, ReviewLines::of(review), "its lines are made once, when it arrives");
        assert_eq!(review.to, "2.0.0");
        assert_eq!(fields.values()["topic"], "a", "the instance's values make the form");

        // Checked when they change, against the chain with its defaults applied.
        s.validate();
        let ReviewState::Ready(_, _, fields) = &mut s.state else { unreachable!() };
        assert!(!fields.has_problems(), "the carried values are valid");
        fields.set("/topic", Some(json!(5)));
        assert!(!fields.has_problems(), "not checked before validate");
        s.validate();
        let ReviewState::Ready(_, _, fields) = &mut s.state else { unreachable!() };
        assert!(fields.has_problems(), "a number where the chain wants a string");
        fields.set("/topic", None);
        s.validate();
        let ReviewState::Ready(_, _, fields) = &s.state else { unreachable!() };
        assert!(!fields.has_problems(), "an unset value takes its default");
    }

    #[test]
    fn an_update_is_one_undo_step_and_a_conflict_is_listed_for_its_instance() {
        let (wf, key) = workflow();
        let (p1, p2) = (pack("1.0.0"), pack("2.0.0"));
        let packs = [p1, p2.clone()];
        let trust = crate::catalog::Trust::default();
        let mut doc = Document::new(wf.clone(), None);
        let given = || (Map::new(), Resolutions::default());
        assert!(update_instance(&mut doc, &trust, &packs, &p2, "no-such-key", given(), None).is_none());
        let outcome = update_instance(&mut doc, &trust, &packs, &p2, &key, given(), None).unwrap().unwrap();
        assert!(outcome.label.starts_with("Re-parameterise "), "{}", outcome.label);
        assert_eq!(doc.workflow().instance(&key).unwrap().chain_version, "2.0.0");
        doc.undo();
        assert_eq!(doc.workflow().instance(&key).unwrap().chain_version, "1.0.0");

        // A hand edit of a value the new version changes: refused, its conflict listed.
        let mut edited = wf;
        set_config(&mut edited, "t_two_k1_a", "url", json!("https://mine.test"));
        let mut doc = Document::new(edited, None);
        let refusal = update_instance(&mut doc, &trust, &packs, &p2, &key, given(), None).unwrap().unwrap_err();
        let conflicts = conflicts_for(&refusal, &key).expect("refused for its conflict");
        assert!(conflicts.iter().any(|c| c.node_id == "t_two_k1_a" && c.pointer == "/config/url"), "{conflicts:?}");
        assert!(conflicts_for(&refusal, "another-key").is_none());
        assert_eq!(doc.workflow().instance(&key).unwrap().chain_version, "1.0.0", "a refusal changes nothing");
    }

    #[test]
    fn updates_are_found_again_only_when_the_workflow_or_the_packs_change() {
        let (wf, key) = workflow();
        let mut packs = Packs::new(vec![pack("1.0.0")]);
        let mut found = FoundUpdates::default();
        assert!(found.refresh(&wf, 1, &packs), "the first look finds");
        assert!(found.available.is_empty(), "only the recorded version is loaded");
        assert!(!found.refresh(&wf, 1, &packs), "nothing changed");
        let mut newer = pack("2.0.0");
        newer.source = "q".into(); // the fixture's packs share a source; the list would replace
        packs.add(newer);
        assert!(found.refresh(&wf, 1, &packs), "a pack was loaded");
        let up = &found.available[&key];
        assert_eq!((up.from.as_str(), up.to.as_str(), up.pack), ("1.0.0", "2.0.0", 1));
        assert!(found.refresh(&wf, 2, &packs), "the workflow changed");
        let chain_id = packs[0].chains[0].chain_id().to_owned();
        let versions: Vec<String> = chain_versions(&packs)[&chain_id].iter().map(|(v, _)| v.clone()).collect();
        assert_eq!(versions.len(), 2, "{versions:?}");
        assert!(versions.contains(&"1.0.0".to_owned()) && versions.contains(&"2.0.0".to_owned()));
    }
}

//! Three-way merge of JSON members: what an instance's recorded expansion had (base), what
//! the workflow has now (mine, the user's edits) and what a new expansion gives (new). A
//! member only the user changed keeps the user's value; one only the expansion changed takes
//! the new value; one both changed differently is a [`Conflict`], settled by a [`Choice`].
//! Objects present on all three sides merge member by member, so an edit of
//! `config.threshold` and a new `config.url` do not collide.

use crate::error::pointer_token;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// How a conflict is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Keep the user's value.
    Mine,
    /// Take the new expansion's value.
    New,
}

impl Choice {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "mine" => Some(Choice::Mine),
            "new" => Some(Choice::New),
            _ => None,
        }
    }
}

/// A member the user changed that the new expansion changes too, differently.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// The node (or, for a fragment edge, the edge) id.
    pub node_id: String,
    /// JSON pointer of the member inside the node; empty for the whole node.
    pub pointer: String,
    pub base: Option<Value>,
    pub mine: Option<Value>,
    pub new: Option<Value>,
}

impl Conflict {
    /// `{node, member, mine, new}` as `upgrade_conflict` lists it; an absent side is `null`.
    pub fn to_json(&self) -> Value {
        json!({"node": self.node_id, "member": self.pointer, "mine": self.mine, "new": self.new, "base": self.base})
    }

    /// A conflict as [`Self::to_json`] writes it (a refusal's `details.conflicts` entry).
    pub fn from_json(v: &Value) -> Option<Self> {
        let side = |k: &str| v.get(k).filter(|x| !x.is_null()).cloned();
        Some(Self {
            node_id: v.get("node")?.as_str()?.to_owned(),
            pointer: v.get("member")?.as_str()?.to_owned(),
            base: side("base"),
            mine: side("mine"),
            new: side("new"),
        })
    }

    /// The conflicts a refusal lists (`upgrade_conflict`'s `details.conflicts`).
    pub fn listed_in(e: &crate::error::Error) -> Vec<Self> {
        e.details
            .get("conflicts")
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(Self::from_json).collect())
            .unwrap_or_default()
    }

    /// One line for people: `node /config/threshold: mine 0.9, new 0.8`.
    pub fn describe(&self) -> String {
        let side = |v: &Option<Value>| v.as_ref().map_or_else(|| "(absent)".to_owned(), short);
        let member = if self.pointer.is_empty() { "(whole node)" } else { self.pointer.as_str() };
        format!("{} {member}: mine {}, new {}", self.node_id, side(&self.mine), side(&self.new))
    }
}

/// A value shortened for one line of text.
fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 60 { text } else { format!("{}…", text.chars().take(59).collect::<String>()) }
}

/// How conflicts are settled: one choice for all, and per conflict (node id, pointer).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolutions {
    pub prefer: Option<Choice>,
    pub each: HashMap<(String, String), Choice>,
}

impl Resolutions {
    pub fn prefer(choice: Choice) -> Self {
        Self { prefer: Some(choice), each: HashMap::new() }
    }

    pub fn choice(&self, node_id: &str, pointer: &str) -> Option<Choice> {
        self.each.get(&(node_id.to_owned(), pointer.to_owned())).copied().or(self.prefer)
    }

    pub fn set(&mut self, c: &Conflict, choice: Choice) {
        self.each.insert((c.node_id.clone(), c.pointer.clone()), choice);
    }

    /// Whether every one of these conflicts has a choice (Apply stays off until then).
    pub fn settle_all(&self, conflicts: &[Conflict]) -> bool {
        conflicts.iter().all(|c| self.choice(&c.node_id, &c.pointer).is_some())
    }
}

/// One member on the three sides of a merge, `None` where it is absent: named, as three
/// values of one type passed in a row compile in any order.
#[derive(Debug, Clone, Copy)]
pub struct Sides<'v> {
    pub base: Option<&'v Value>,
    pub mine: Option<&'v Value>,
    pub new: Option<&'v Value>,
}

/// One merge: the conflicts met, and whether each was settled.
#[derive(Debug, Default)]
pub struct Merge<'r> {
    pub resolutions: Option<&'r Resolutions>,
    pub conflicts: Vec<Conflict>,
    /// Conflicts no resolution settles (the user's value is kept in the result meanwhile).
    pub unresolved: usize,
}

impl<'r> Merge<'r> {
    pub fn new(resolutions: &'r Resolutions) -> Self {
        Self { resolutions: Some(resolutions), conflicts: Vec::new(), unresolved: 0 }
    }

    /// The merged value at `pointer` of node `node_id`; `None` when the member is absent.
    pub fn value(&mut self, node_id: &str, pointer: &str, sides: Sides) -> Option<Value> {
        let Sides { base, mine, new } = sides;
        if mine == base {
            return new.cloned();
        }
        if new == base || mine == new {
            return mine.cloned();
        }
        if let (Some(Value::Object(b)), Some(Value::Object(m)), Some(Value::Object(n))) = (base, mine, new) {
            return Some(Value::Object(self.objects(node_id, pointer, b, m, n, &[])));
        }
        self.conflict(node_id, pointer, sides)
    }

    /// Merge three objects member by member, skipping `keep` members (mine's are kept as is).
    /// Mine's member order is kept; members only the new side has follow in its order.
    pub fn objects(
        &mut self,
        node_id: &str,
        pointer: &str,
        base: &Map<String, Value>,
        mine: &Map<String, Value>,
        new: &Map<String, Value>,
        keep: &[&str],
    ) -> Map<String, Value> {
        let mut out = Map::with_capacity(mine.len().max(new.len()));
        let keys = mine
            .keys()
            .chain(new.keys().filter(|k| !mine.contains_key(*k)))
            .chain(base.keys().filter(|k| !mine.contains_key(*k) && !new.contains_key(*k)));
        for key in keys {
            if keep.contains(&key.as_str()) {
                if let Some(v) = mine.get(key) {
                    out.insert(key.clone(), v.clone());
                }
                continue;
            }
            let at = format!("{pointer}/{}", pointer_token(key));
            let sides = Sides { base: base.get(key), mine: mine.get(key), new: new.get(key) };
            if let Some(v) = self.value(node_id, &at, sides) {
                out.insert(key.clone(), v);
            }
        }
        out
    }

    /// Record a conflict; the settled side, or mine while it is unsettled.
    pub fn conflict(&mut self, node_id: &str, pointer: &str, sides: Sides) -> Option<Value> {
        let Sides { base, mine, new } = sides;
        self.conflicts.push(Conflict {
            node_id: node_id.to_owned(),
            pointer: pointer.to_owned(),
            base: base.cloned(),
            mine: mine.cloned(),
            new: new.cloned(),
        });
        match self.resolutions.and_then(|r| r.choice(node_id, pointer)) {
            Some(Choice::New) => new.cloned(),
            Some(Choice::Mine) => mine.cloned(),
            None => {
                self.unresolved += 1;
                mine.cloned()
            }
        }
    }
}

/// The members of `mine` that differ from `base`, as JSON pointers with both sides, found
/// the way [`Merge`] compares (objects member by member); `keep` members are not compared.
pub fn differences(
    pointer: &str,
    base: &Map<String, Value>,
    mine: &Map<String, Value>,
    keep: &[&str],
    out: &mut Vec<(String, Option<Value>, Option<Value>)>,
) {
    let keys = mine.keys().chain(base.keys().filter(|k| !mine.contains_key(*k)));
    for key in keys {
        if keep.contains(&key.as_str()) {
            continue;
        }
        let at = format!("{pointer}/{}", pointer_token(key));
        match (base.get(key), mine.get(key)) {
            (b, m) if b == m => {}
            (Some(Value::Object(b)), Some(Value::Object(m))) => differences(&at, b, m, &[], out),
            (b, m) => out.push((at, b.cloned(), m.cloned())),
        }
    }
}

/// The error a merge with unsettled conflicts is refused with: `upgrade_conflict`, every
/// conflict listed in `details.conflicts`, naming the instance.
pub fn conflict_error(instance: &str, conflicts: &[Conflict]) -> crate::error::Error {
    let listed: Vec<Value> = conflicts.iter().map(Conflict::to_json).collect();
    let first = conflicts.first().map(Conflict::describe).unwrap_or_default();
    crate::error::Error::new(
        crate::error::code::UPGRADE_CONFLICT,
        format!(
            "{} of instance {instance} changed both by you and by the new expansion (first: {first}); choose keep mine or take new for each (--prefer mine|new)",
            crate::words::count(conflicts.len(), "member", "members")
        ),
    )
    .with("instance", instance)
    .with("conflicts", listed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn one_sided_changes_merge_and_two_sided_ones_conflict() {
        let base = obj(json!({"config": {"threshold": 0.7, "labels": ["a"]}, "name": "Classify"}));
        let mine = obj(json!({"config": {"threshold": 0.9, "labels": ["a"]}, "name": "Classify"}));
        let new = obj(json!({"config": {"threshold": 0.7, "labels": ["b"]}, "name": "Classify"}));
        let res = Resolutions::default();
        let mut m = Merge::new(&res);
        let out = m.objects("n", "", &base, &mine, &new, &[]);
        assert_eq!(Value::Object(out), json!({"config": {"threshold": 0.9, "labels": ["b"]}, "name": "Classify"}));
        assert!(m.conflicts.is_empty());

        let new = obj(json!({"config": {"threshold": 0.8, "labels": ["a"]}, "name": "Classify"}));
        let mut m = Merge::new(&res);
        let out = m.objects("n", "", &base, &mine, &new, &[]);
        assert_eq!((m.conflicts.len(), m.unresolved), (1, 1));
        assert_eq!(m.conflicts[0].pointer, "/config/threshold");
        assert_eq!(out["config"]["threshold"], 0.9, "mine is held while unsettled");
        let mut res = Resolutions::default();
        res.set(&m.conflicts[0], Choice::New);
        let mut m = Merge::new(&res);
        let out = m.objects("n", "", &base, &mine, &new, &[]);
        assert_eq!((out["config"]["threshold"].as_f64(), m.unresolved), (Some(0.8), 0));
    }

    #[test]
    fn kept_members_and_removals() {
        let base = obj(json!({"position": {"x": 0}, "note": "x", "gone": 1}));
        let mine = obj(json!({"position": {"x": 5}, "note": "x"}));
        let new = obj(json!({"position": {"x": 9}, "note": "y", "gone": 1}));
        let res = Resolutions::default();
        let mut m = Merge::new(&res);
        let out = m.objects("n", "", &base, &mine, &new, &["position"]);
        assert_eq!(Value::Object(out), json!({"position": {"x": 5}, "note": "y"}), "the user's removal is kept");
        let mut diffs = Vec::new();
        differences("", &base, &mine, &["position"], &mut diffs);
        assert_eq!(diffs, [("/gone".to_owned(), Some(json!(1)), None)]);
    }
}

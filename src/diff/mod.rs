//! What changed between two versions of a pack or of a workflow, and the semver level a
//! pack's changes require ([`pack::diff_packs`], [`check_bump`]); the table of change kinds
//! and their levels is [`pack::KINDS`]. Each comparison is one pass over maps keyed by id,
//! so it is linear in the size of the chains and workflows compared.

mod input;
pub mod pack;
pub mod registry;
pub mod workflow;

pub use input::{Side, load_side};

use crate::error::{Error, Result, code};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use std::borrow::Cow;

/// How much of a version a change needs bumped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    None,
    Patch,
    Minor,
    Major,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::None => "none",
            Level::Patch => "patch",
            Level::Minor => "minor",
            Level::Major => "major",
        }
    }
}

/// One change between two packs. The values it names are lent by the manifests compared
/// where they stand in them, so a diff of two long chains holds little beside them.
#[derive(Debug, Clone, PartialEq)]
pub struct Change<'a> {
    pub level: Level,
    /// A row of [`pack::KINDS`].
    pub kind: &'static str,
    /// The chain it concerns; `None` for the pack's own members.
    pub chain_id: Option<&'a str>,
    /// Where, in the new manifest (in the old one for what was removed).
    pub pointer: String,
    pub old: Option<Cow<'a, Value>>,
    pub new: Option<Cow<'a, Value>>,
}

impl Change<'_> {
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a change always serialises")
    }
}

/// `{level, kind, chainId, pointer, old, new}`, an absent side `null`.
impl Serialize for Change<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("level", self.level.as_str())?;
        m.serialize_entry("kind", self.kind)?;
        m.serialize_entry("chainId", &self.chain_id)?;
        m.serialize_entry("pointer", &self.pointer)?;
        m.serialize_entry("old", &self.old)?;
        m.serialize_entry("new", &self.new)?;
        m.end()
    }
}

/// The changes between two packs and the level they require together.
#[derive(Debug, Clone, Default)]
pub struct PackDiff<'a> {
    pub changes: Vec<Change<'a>>,
}

impl PackDiff<'_> {
    pub fn required(&self) -> Level {
        self.changes.iter().map(|c| c.level).max().unwrap_or(Level::None)
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a diff always serialises")
    }
}

/// `{required, changes}`: what `diff --json` prints, written as it goes (a long chain's
/// changes built as one value first were a copy of both versions of every changed node).
impl Serialize for PackDiff<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("required", self.required().as_str())?;
        m.serialize_entry("changes", &self.changes)?;
        m.end()
    }
}

/// The level a version bump from `old` to `new` is. With a 0 major version a minor bump
/// counts as major and a patch bump as minor (Cargo's reading of semver for 0.x).
/// `invalid_request` when either is not a version or `new` is not above `old`.
pub fn bump(old: &str, new: &str) -> Result<Level> {
    let parse = |v: &str| {
        semver::Version::parse(v).map_err(|e| {
            Error::new(code::INVALID_REQUEST, format!("\"{v}\" is not a semver version: {e}")).with("version", v)
        })
    };
    let (a, b) = (parse(old)?, parse(new)?);
    if b <= a {
        return Err(Error::new(code::INVALID_REQUEST, format!("version {new} is not above {old}"))
            .with("old", old)
            .with("new", new));
    }
    Ok(match (a.major != b.major, a.minor != b.minor, a.patch != b.patch) {
        (true, _, _) => Level::Major,
        (false, true, _) if a.major == 0 => Level::Major,
        (false, true, _) => Level::Minor,
        (false, false, true) if a.major == 0 => Level::Minor,
        // A patch bump, or only the pre-release part.
        _ => Level::Patch,
    })
}

/// Refuse a version bump smaller than `diff` requires (`version_bump_too_small`, listing
/// the changes that need more); the bump's level otherwise.
pub fn check_bump(name: &str, old: &str, new: &str, diff: &PackDiff) -> Result<Level> {
    let got = bump(old, new)?;
    let required = diff.required();
    if got >= required {
        return Ok(got);
    }
    let needing: Vec<Value> = diff.changes.iter().filter(|c| c.level > got).map(Change::to_json).collect();
    Err(Error::new(
        code::VERSION_BUMP_TOO_SMALL,
        format!(
            "{name} {old} → {new} is a {} bump, and its changes need a {} one ({}, first: {} at {})",
            got.as_str(),
            required.as_str(),
            crate::words::count(needing.len(), "change", "changes"),
            needing[0]["kind"].as_str().unwrap_or_default(),
            needing[0]["pointer"].as_str().unwrap_or_default(),
        ),
    )
    .with("packName", name)
    .with("old", old)
    .with("new", new)
    .with("bump", got.as_str())
    .with("required", required.as_str())
    .with("changes", needing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bumps_are_read_as_cargo_reads_semver() {
        assert_eq!(bump("1.0.0", "2.0.0").unwrap(), Level::Major);
        assert_eq!(bump("1.0.0", "1.1.0").unwrap(), Level::Minor);
        assert_eq!(bump("1.0.0", "1.0.1").unwrap(), Level::Patch);
        assert_eq!(bump("0.1.0", "0.2.0").unwrap(), Level::Major);
        assert_eq!(bump("0.1.0", "0.1.1").unwrap(), Level::Minor);
        assert_eq!(bump("1.0.0-rc.1", "1.0.0").unwrap(), Level::Patch);
        assert_eq!(bump("1.0.0", "1.0.0").unwrap_err().code, code::INVALID_REQUEST);
        assert_eq!(bump("1.0", "1.0.1").unwrap_err().code, code::INVALID_REQUEST);
    }
}

//! npm-style version ranges (node-packs §5) evaluated with the `semver` crate.
//!
//! The `semver` crate speaks Cargo's dialect, which differs from npm in two ways this
//! module bridges: a bare version (`1.2.3`) is a caret range in Cargo but exact in npm, and
//! npm separates comparators with spaces (`>=1.0 <2.0.0`), allows hyphen ranges
//! (`1.2 - 2.3.4`) and unions (`^1 || ^2`).
//!
//! Prereleases (§5.4): a prerelease version matches only when a comparator of the same
//! alternative names a prerelease of the same `major.minor.patch`. That is npm's rule and
//! the `semver` crate's; it implies the spec's "only when the range names a prerelease"
//! (`^1.2.3-beta` matches `1.2.3-beta.1`; `^1.2.3` never matches a prerelease) and is
//! stricter for a prerelease of a different release (`^1.2.3-beta` does not match
//! `1.3.0-rc.1`), exactly as npm resolves it.

use semver::{Version, VersionReq};
use std::fmt;

/// Longest range text accepted; real ranges are a few dozen characters.
const MAX_RANGE_LEN: usize = 1024;

/// A parsed range: any alternative (`||`) may match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    text: String,
    alternatives: Vec<VersionReq>,
}

impl Range {
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.len() > MAX_RANGE_LEN {
            return Err(format!("range is {} characters; the limit is {MAX_RANGE_LEN}", text.len()));
        }
        let alternatives = text
            .split("||")
            .map(|alt| {
                let cargo = to_cargo_syntax(alt)?;
                VersionReq::parse(&cargo).map_err(|e| format!("\"{}\" is not a valid range: {e}", alt.trim()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { text: text.to_owned(), alternatives })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn matches(&self, version: &Version) -> bool {
        self.alternatives.iter().any(|req| req.matches(version))
    }

    /// The highest of `versions` the range accepts (§5.3).
    pub fn highest<'v>(&self, versions: impl IntoIterator<Item = &'v Version>) -> Option<&'v Version> {
        versions.into_iter().filter(|v| self.matches(v)).max()
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Rewrite one npm alternative (no `||`) as a comma-separated Cargo requirement.
fn to_cargo_syntax(alt: &str) -> Result<String, String> {
    let alt = alt.trim();
    if alt.is_empty() {
        return Ok("*".into());
    }
    if let Some((low, high)) = alt.split_once(" - ") {
        let (low, high) = (strip_v(low.trim()), strip_v(high.trim()));
        if low.is_empty() || high.is_empty() || high.contains(' ') || low.contains(' ') {
            return Err(format!("\"{alt}\" is not a valid hyphen range"));
        }
        // `<=` with a partial upper bound covers the whole partial (`<=2.3` is `<2.4.0`), as npm does.
        return Ok(format!(">={low}, <={high}"));
    }
    let mut comparators = Vec::new();
    let mut pending_op = String::new();
    for token in alt.split_whitespace() {
        let op_len = token.find(|c: char| !matches!(c, '<' | '>' | '=' | '^' | '~')).unwrap_or(token.len());
        let (op, rest) = token.split_at(op_len);
        if rest.is_empty() {
            // An operator written apart from its version (`>= 1.2.3`).
            pending_op.push_str(op);
            continue;
        }
        let op = if pending_op.is_empty() { op.to_owned() } else { std::mem::take(&mut pending_op) + op };
        comparators.push(comparator(&op, strip_v(rest))?);
    }
    if !pending_op.is_empty() {
        return Err(format!("\"{alt}\" ends with an operator and no version"));
    }
    Ok(comparators.join(", "))
}

fn comparator(op: &str, version: &str) -> Result<String, String> {
    let wildcard = |p: &str| matches!(p, "*" | "x" | "X");
    let op = if op == "~>" { "~" } else { op };
    match op {
        // npm: a bare version is exact, a bare partial (`1.2`) is `1.2.x`; `*` stays `*`.
        "" | "=" if wildcard(version) => Ok("*".into()),
        "" | "=" => Ok(format!("={version}")),
        ">" | ">=" | "<" | "<=" | "^" | "~" => Ok(format!("{op}{version}")),
        other => Err(format!("unknown range operator \"{other}\"")),
    }
}

fn strip_v(s: &str) -> &str {
    s.strip_prefix(['v', 'V']).filter(|r| r.starts_with(|c: char| c.is_ascii_digit())).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(range: &str, version: &str) -> bool {
        Range::parse(range).unwrap().matches(&Version::parse(version).unwrap())
    }

    #[test]
    fn bare_versions_are_exact_and_partials_are_wildcards() {
        assert!(ok("1.2.3", "1.2.3"));
        assert!(!ok("1.2.3", "1.2.4"));
        assert!(ok("1.2", "1.2.9") && !ok("1.2", "1.3.0"));
        assert!(ok("1.x", "1.9.0") && !ok("1.x", "2.0.0"));
        assert!(ok("*", "0.0.1") && ok("", "7.0.0") && ok("x", "3.1.4"));
        assert!(ok("v1.2.3", "1.2.3") && ok("=1.2.3", "1.2.3"));
    }

    #[test]
    fn caret_tilde_and_comparator_sets() {
        assert!(ok("^1.2.3", "1.9.0") && !ok("^1.2.3", "2.0.0") && !ok("^1.2.3", "1.2.2"));
        assert!(ok("^0.2.3", "0.2.9") && !ok("^0.2.3", "0.3.0"));
        assert!(ok("~1.2.0", "1.2.9") && !ok("~1.2.0", "1.3.0"));
        assert!(ok(">=1.0 <2.0.0", "1.5.0") && !ok(">=1.0 <2.0.0", "2.0.0"));
        assert!(ok(">= 1.0.0 < 2", "1.0.0") && !ok(">= 1.0.0 < 2", "2.1.0"));
        assert!(ok("~>1.2", "1.2.5"));
    }

    #[test]
    fn hyphen_ranges_and_unions() {
        assert!(ok("1.2.3 - 2.3", "2.3.9") && !ok("1.2.3 - 2.3", "2.4.0") && !ok("1.2.3 - 2.3", "1.2.2"));
        assert!(ok("^1.0.0 || ^3.0.0", "3.1.0") && !ok("^1.0.0 || ^3.0.0", "2.0.0"));
    }

    #[test]
    fn prereleases_match_only_when_the_range_names_one() {
        assert!(ok("^1.2.3-beta", "1.2.3-beta.1"));
        assert!(!ok("^1.2.3", "1.2.4-beta"));
        assert!(!ok("*", "3.0.0-rc.1"));
        assert!(!ok(">=2.1.0", "3.0.0-rc.1"));
        // npm's tuple rule: a prerelease of another release does not match.
        assert!(!ok("^1.2.3-beta", "1.3.0-rc.1"));
        assert!(ok("^1.2.3-beta", "1.3.0"));
    }

    #[test]
    fn highest_satisfying_version_wins() {
        let versions: Vec<Version> =
            ["2.1.2", "2.1.5", "2.2.0", "3.0.0-rc.1"].iter().map(|v| Version::parse(v).unwrap()).collect();
        let pick = |r: &str| Range::parse(r).unwrap().highest(&versions).map(ToString::to_string);
        assert_eq!(pick("^2.1.0").as_deref(), Some("2.2.0"));
        assert_eq!(pick("~2.1.3").as_deref(), Some("2.1.5"));
        assert_eq!(pick(">=4"), None);
    }

    #[test]
    fn malformed_ranges_are_errors() {
        for bad in [">=", "1.2.3 -", "abc", "!1.0.0", "1.2.3 - 2 - 3", &"9".repeat(2000)] {
            assert!(Range::parse(bad).is_err(), "{bad}");
        }
    }
}

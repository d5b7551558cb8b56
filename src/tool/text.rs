//! The text rules of the two projections: tool ids, names, versions and descriptions.

/// Check the `<scope>:<tool-id>` form of a tool id.
///
/// The seed schemas only require a non-empty string; the form comes from the tool-catalog
/// prose (RFC 0077 / 0078): `openwop:`, `mcp:`, `connector:`, `<vendor>.<host>`,
/// `x-host-<vendor>-*` scopes, and for chains the pack name. The scope is a lowercase
/// identifier with `.`, `_`, `-` (pack-name segments may carry capitals after their first
/// letter); the tool id is one non-empty run of letters, digits, `.`, `_`, `-`, `/`.
pub fn check_tool_id(tool_id: &str) -> Result<(), String> {
    let Some((scope, local)) = tool_id.split_once(':') else {
        return Err(format!(
            "`{tool_id}` is not of the form <scope>:<tool-id>: write a scope (such as the pack's name), a colon \
             and the tool's id, as in acme.tools:triage"
        ));
    };
    if scope == "openwop" {
        return Err(format!(
            "the `openwop:` scope of `{tool_id}` is reserved for core tools; a workflow tool takes its pack's name \
             (or `workflow:`) as scope"
        ));
    }
    let scope_ok = scope.starts_with(|c: char| c.is_ascii_lowercase())
        && scope.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !scope.ends_with('.')
        && !scope.contains("..");
    if !scope_ok {
        return Err(format!("the scope `{scope}` of `{tool_id}` must be a lowercase identifier such as a pack name"));
    }
    let local_ok = local.starts_with(|c: char| c.is_ascii_alphanumeric())
        && local.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'));
    if !local_ok {
        return Err(format!(
            "the tool id `{local}` of `{tool_id}` must start with a letter or digit and hold only letters, digits, \
             `.`, `_`, `-`, `/`"
        ));
    }
    Ok(())
}

/// The MiRuntime name pattern is `^[a-z][a-z0-9_.-]{1,127}$`.
const NAME_MAX: usize = 128;

/// A MiRuntime tool name from an id: lowercased, other characters replaced by `-`, made to
/// start with a letter and to be 2..=128 characters. `None` for an empty id (nothing to name).
pub fn sanitise_name(id: &str) -> Option<String> {
    if id.is_empty() {
        return None;
    }
    let mut name: String = id
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '.' | '-') { c } else { '-' }
        })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        name.insert_str(0, "tool-");
    }
    if name.len() < 2 {
        name.push_str("-tool");
    }
    // Only ASCII remains, so byte truncation is character truncation.
    name.truncate(NAME_MAX);
    Some(name)
}

/// A plain `MAJOR.MINOR.PATCH` version and what was changed to get it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainVersion {
    pub version: String,
    /// The pre-release part (`rc.1` of `2.1.0-rc.1`): the plain version is then not the release.
    pub prerelease: Option<String>,
    /// Human notes: pre-release or build stripped, missing parts padded, `v` prefix removed.
    pub changes: Vec<String>,
}

/// `1.2.3-beta.1+build` → `1.2.3` (noted); `v2.1` → `2.1.0` (noted). `None` when the text
/// does not start with a numeric version at all.
pub fn plain_version(text: &str) -> Option<PlainVersion> {
    let mut changes = Vec::new();
    let mut rest = text.trim();
    if let Some(stripped) = rest.strip_prefix(['v', 'V']) {
        changes.push(format!("removed the `{}` prefix", &rest[..1]));
        rest = stripped;
    }
    let core_end = rest.find(['-', '+']).unwrap_or(rest.len());
    let (core, suffix) = rest.split_at(core_end);
    let prerelease =
        suffix.strip_prefix('-').map(|p| p.split('+').next().unwrap_or_default().to_owned()).filter(|p| !p.is_empty());
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() > 3 || parts.iter().any(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    if prerelease.is_none() && !suffix.is_empty() {
        changes.push(format!("stripped the build metadata `{suffix}`"));
    }
    let mut numbers: Vec<&str> = parts;
    if numbers.len() < 3 {
        changes.push(format!("padded `{core}` to three parts"));
        numbers.resize(3, "0");
    }
    Some(PlainVersion { version: numbers.join("."), prerelease, changes })
}

/// The first line, and of it the first sentence, of a description, in at most `max` characters
/// (cut at a word boundary with an ellipsis when longer). The flag says whether anything
/// beyond the first sentence/line was dropped.
pub fn summary(description: &str, max: usize) -> (String, bool) {
    let trimmed = description.trim();
    let line = trimmed.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let sentence = first_sentence(line);
    let (text, cut) = truncate_chars(sentence, max);
    let changed = cut || text.len() != trimmed.len();
    (text, changed)
}

/// Up to and including the first `.`, `!` or `?` that is followed by whitespace or ends the
/// line, and that does not end an abbreviation (`e.g.`, `i.e.`, `etc.`, `vs.`, an initial).
fn first_sentence(line: &str) -> &str {
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|(_, next)| next.is_whitespace()) {
            if c == '.' && ends_abbreviation(&line[..i]) {
                continue;
            }
            return &line[..i + c.len_utf8()];
        }
    }
    line
}

/// Whether the word before a full stop is an abbreviation rather than a sentence's end.
fn ends_abbreviation(before: &str) -> bool {
    const ABBREVIATIONS: [&str; 12] =
        ["e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "esp", "resp", "no", "mr", "dr"];
    let word = before.rsplit(|c: char| c.is_whitespace() || c == '(').next().unwrap_or("");
    let lower = word.to_ascii_lowercase();
    ABBREVIATIONS.contains(&lower.as_str()) || (word.chars().count() == 1 && word.chars().all(char::is_alphabetic))
}

/// `text` in at most `max` characters (JSON Schema counts code points), cut at a word boundary
/// with `…` when it is longer. The flag says whether it was cut.
pub fn truncate_chars(text: &str, max: usize) -> (String, bool) {
    if text.chars().count() <= max {
        return (text.to_owned(), false);
    }
    if max == 0 {
        return (String::new(), true);
    }
    let keep: String = text.chars().take(max - 1).collect();
    // Prefer ending at a word boundary, unless that throws away most of the text.
    let cut = match keep.rfind(char::is_whitespace) {
        Some(space) if keep[..space].chars().count() > max / 2 => &keep[..space],
        _ => &keep,
    };
    (format!("{}…", cut.trim_end()), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_id_form() {
        for ok in [
            "core.openwop.workflows.approvals:approvals.request-sign-off",
            "workflow:invoice-intake",
            "mcp:server/tool_x",
            "x-host-acme-files:read",
            "vendor.acme.tiles:1st",
            "vendor.acme.myTiles:x",
        ] {
            assert_eq!(check_tool_id(ok), Ok(()), "{ok}");
        }
        assert!(check_tool_id("openwop:invoice-intake").unwrap_err().contains("reserved"));
        for bad in ["noscope", ":x", "scope:", "Scope:x", "a:b:c", "a b:c", "a:-x", "a.:x", "a..b:x", "a:x y", "a:é"] {
            assert!(check_tool_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_are_sanitised_to_the_pattern() {
        assert_eq!(sanitise_name("approvals.request-sign-off").as_deref(), Some("approvals.request-sign-off"));
        assert_eq!(sanitise_name("crm.routeNewLead").as_deref(), Some("crm.routenewlead"));
        assert_eq!(sanitise_name("a b/c:d").as_deref(), Some("a-b-c-d"));
        assert_eq!(sanitise_name("9lives").as_deref(), Some("tool-9lives"));
        assert_eq!(sanitise_name("a").as_deref(), Some("a-tool"));
        assert_eq!(sanitise_name("ünï").as_deref(), Some("tool--n-"));
        assert_eq!(sanitise_name(&"x".repeat(300)).map(|n| n.len()), Some(128));
        assert_eq!(sanitise_name(""), None);
    }

    #[test]
    fn versions_are_made_plain_with_notes() {
        let v = plain_version("1.2.3").unwrap();
        assert_eq!((v.version.as_str(), v.changes.len()), ("1.2.3", 0));
        let v = plain_version("1.2.3-beta.1+build.5").unwrap();
        assert_eq!((v.version.as_str(), v.prerelease.as_deref()), ("1.2.3", Some("beta.1")));
        assert_eq!(plain_version("2.1.0-rc.1").unwrap().prerelease.as_deref(), Some("rc.1"));
        assert_eq!(plain_version("1.0.0+sha").unwrap().prerelease, None);
        assert_eq!(plain_version("1.0.0+sha").unwrap().version, "1.0.0");
        let v = plain_version("v2.1").unwrap();
        assert_eq!((v.version.as_str(), v.changes.len()), ("2.1.0", 2));
        for bad in ["", "latest", "1.2.3.4", "1..2", "1.x", "-1.2.3"] {
            assert_eq!(plain_version(bad), None, "{bad}");
        }
    }

    #[test]
    fn summary_takes_the_first_sentence_of_the_first_line() {
        assert_eq!(summary("Route a ticket. Then page someone.", 200), ("Route a ticket.".into(), true));
        assert_eq!(summary("One line\nsecond line", 200), ("One line".into(), true));
        assert_eq!(summary("Uses v1.2 of the API", 200), ("Uses v1.2 of the API".into(), false));
        assert_eq!(summary("  Done!  ", 200), ("Done!".into(), false));
        assert_eq!(
            summary("Route leads, e.g. by region or i.e. size. Then notify.", 200),
            ("Route leads, e.g. by region or i.e. size.".into(), true)
        );
        assert_eq!(summary("Ask J. Smith etc. to sign. Later.", 200), ("Ask J. Smith etc. to sign.".into(), true));
        assert_eq!(summary("", 200), (String::new(), false));
        let (long, cut) = summary(&"word ".repeat(100), 200);
        assert!(cut && long.chars().count() <= 200 && long.ends_with("word…"), "{long}");
        let (unbroken, _) = summary(&"é".repeat(500), 200);
        assert_eq!(unbroken.chars().count(), 200);
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate_chars("héllo", 5), ("héllo".into(), false));
        assert_eq!(truncate_chars("héllo wörld", 8), ("héllo…".into(), true));
        assert_eq!(truncate_chars("abc", 0), (String::new(), true));
    }
}

//! The parameter-token grammar and single-pass substitution.
//!
//! A token is `{{params.NAME}}` or chainsmith's second spelling `<<params.NAME>>`, with
//! NAME matching `[A-Za-z_][A-Za-z0-9_]*` and no whitespace anywhere. Scanning is one
//! left-to-right pass; inserted text is never scanned again.

use super::jsstring::{js_integral, js_normalise_number, js_string};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    Braces,
    Angles,
}

/// One token found in a string: its byte span and the parameter name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub start: usize,
    pub end: usize,
    pub name: &'a str,
    pub spelling: Spelling,
}

const BRACES: (&str, &str) = ("{{params.", "}}");
const ANGLES: (&str, &str) = ("<<params.", ">>");

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Try to read a token starting exactly at `at`.
fn token_at(s: &str, at: usize) -> Option<Token<'_>> {
    let rest = &s.as_bytes()[at..];
    let (spelling, (open, close)) = match rest.first()? {
        b'{' => (Spelling::Braces, BRACES),
        b'<' => (Spelling::Angles, ANGLES),
        _ => return None,
    };
    if !rest.starts_with(open.as_bytes()) {
        return None;
    }
    let name_start = at + open.len();
    let bytes = s.as_bytes();
    if !bytes.get(name_start).copied().is_some_and(is_name_start) {
        return None;
    }
    let mut end = name_start + 1;
    while bytes.get(end).copied().is_some_and(is_name_char) {
        end += 1;
    }
    if !bytes[end..].starts_with(close.as_bytes()) {
        return None;
    }
    Some(Token { start: at, end: end + close.len(), name: &s[name_start..end], spelling })
}

/// Every token in `s`, leftmost first, non-overlapping.
pub fn tokens(s: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    // The byte search rules most strings out faster than the scan below.
    if !may_contain_token(s) {
        return out;
    }
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // Only `{` and `<` can open a token; skip straight to the next candidate.
        match bytes[i..].iter().position(|b| *b == b'{' || *b == b'<') {
            None => break,
            Some(off) => i += off,
        }
        if let Some(t) = token_at(s, i) {
            i = t.end;
            out.push(t);
        } else {
            i += 1;
        }
    }
    out
}

/// Whether `s` holds `{{` or `<<`: every token and near-token opens with one, and the
/// leftover-token lint looks at nothing else.
pub fn opens_token_like(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr2_iter(b'{', b'<', b).any(|i| b.get(i + 1) == Some(&b[i]))
}

/// Cheap pre-check: can `s` hold a token at all?
pub fn may_contain_token(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 12
        && memchr::memchr2_iter(b'{', b'<', b)
            .any(|i| b[i..].starts_with(BRACES.0.as_bytes()) || b[i..].starts_with(ANGLES.0.as_bytes()))
}

/// The result of substituting one string.
pub enum Substituted {
    Unchanged,
    Value(Value),
}

/// Substitute the tokens of one string. A string that is exactly one token becomes the
/// parameter's raw value (type kept); otherwise each token becomes its JavaScript text.
/// A name missing from `params` becomes `""`.
pub fn substitute_str(s: &str, params: &Map<String, Value>) -> Substituted {
    if !may_contain_token(s) {
        return Substituted::Unchanged;
    }
    let found = tokens(s);
    if found.is_empty() {
        return Substituted::Unchanged;
    }
    if found.len() == 1 && found[0].start == 0 && found[0].end == s.len() {
        return Substituted::Value(match params.get(found[0].name) {
            Some(v) => normalise(v),
            None => Value::String(String::new()),
        });
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut last = 0;
    for t in &found {
        out.push_str(&s[last..t.start]);
        if let Some(v) = params.get(t.name) {
            out.push_str(&js_string(v));
        }
        last = t.end;
    }
    out.push_str(&s[last..]);
    Substituted::Value(Value::String(out))
}

/// A parameter value as JavaScript would hold it (integral doubles become integers).
fn normalise(v: &Value) -> Value {
    match v {
        Value::Number(n) => Value::Number(js_normalise_number(n)),
        Value::Array(items) => Value::Array(items.iter().map(normalise).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), normalise(v))).collect()),
        other => other.clone(),
    }
}

/// Substitute every string leaf of `value`; keys are never touched.
pub fn substitute_value(value: &Value, params: &Map<String, Value>) -> Value {
    substitute_noting(value, params, &mut false)
}

/// [`substitute_value`], also setting `marked` when the result may hold text that opens a
/// token (`{{` or `<<`): only such a result needs the leftover-token walk.
pub fn substitute_noting(value: &Value, params: &Map<String, Value>, marked: &mut bool) -> Value {
    // Cloning the tree and replacing the few substituted leaves is cheaper than rebuilding
    // every map (which hashes every key again).
    let mut out = value.clone();
    substitute_in_place(&mut out, params, marked);
    out
}

/// [`substitute_noting`] on a value the caller owns.
pub fn substitute_in_place(value: &mut Value, params: &Map<String, Value>, marked: &mut bool) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            leaf => substitute_leaf(leaf, params, marked),
        }
    }
}

/// Substitute one string or normalise one number; `marked` as in [`substitute_noting`].
pub fn substitute_leaf(v: &mut Value, params: &Map<String, Value>, marked: &mut bool) {
    match v {
        Value::String(s) => match substitute_str(s, params) {
            Substituted::Unchanged => *marked |= opens_token_like(s),
            Substituted::Value(new) => {
                *marked |= holds_opening(&new);
                *v = new;
            }
        },
        // Only a fractional-looking number can change (`1.0` becomes `1`).
        Value::Number(n) => {
            if let Some(int) = js_integral(n) {
                *n = int;
            }
        }
        _ => {}
    }
}

/// Whether any string inside `v` holds `{{` or `<<` (keys are never substituted or linted).
fn holds_opening(v: &Value) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) if opens_token_like(s) => return true,
            Value::Array(items) => stack.extend(items),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    false
}

/// A spot that looks like a token but is not one (and so will stay literal text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearToken {
    pub start: usize,
    pub text: String,
}

/// Find near-tokens: `{{`/`<<`, optional whitespace, `params` (any case), then anything
/// that does not complete a real token — `{{ params.x }}`, `{{params.a-b}}`, `<<params.>>`.
///
/// One forward pass: real tokens are skipped with a cursor over their (sorted) spans, and
/// the closing `}}`/`>>` is found by [`NextClose`], which never reads a byte twice.
pub fn near_tokens(s: &str) -> Vec<NearToken> {
    let mut out = Vec::new();
    each_near_token(s, |start, text| {
        out.push(NearToken { start, text: text.to_owned() });
        true
    });
    out
}

/// Whether `s` holds a near-token: [`near_tokens`] stopped at the first, nothing copied.
pub fn has_near_token(s: &str) -> bool {
    let mut found = false;
    each_near_token(s, |_, _| {
        found = true;
        false
    });
    found
}

/// Visit each near-token of `s` (its start and text) as [`near_tokens`] finds them, until
/// `visit` returns false: a string of a million of them is not copied a million times
/// over to be reported a hundred times.
pub fn each_near_token(s: &str, visit: impl FnMut(usize, &str) -> bool) {
    // Every string of a pack passes through here: rule out most without allocating.
    if may_hold_near_token(s) {
        scan_near_tokens_with(s, visit);
    }
}

/// [`near_tokens`] without the pre-check.
#[cfg(test)]
fn scan_near_tokens(s: &str) -> Vec<NearToken> {
    let mut out = Vec::new();
    scan_near_tokens_with(s, |start, text| {
        out.push(NearToken { start, text: text.to_owned() });
        true
    });
    out
}

/// The scan behind [`each_near_token`].
fn scan_near_tokens_with(s: &str, mut visit: impl FnMut(usize, &str) -> bool) {
    let real = tokens(s);
    let mut real_at = 0;
    let mut closes = [NextClose::new("}}"), NextClose::new(">>")];
    let bytes = s.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        match bytes[i..].iter().position(|b| *b == b'{' || *b == b'<') {
            None => break,
            Some(off) => i += off,
        }
        if i + 1 >= bytes.len() {
            break;
        }
        while real.get(real_at).is_some_and(|t| t.end <= i) {
            real_at += 1;
        }
        let in_real = real.get(real_at).is_some_and(|t| t.start <= i);
        let pair = &bytes[i..i + 2];
        if (pair == b"{{" || pair == b"<<") && !in_real {
            let mut j = i + 2;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if bytes.len() >= j + 6 && bytes[j..j + 6].eq_ignore_ascii_case(b"params") {
                let close = &mut closes[usize::from(pair == b"<<")];
                let end = close.at_or_after(s, j).map(|p| p + 2).unwrap_or_else(|| (j + 6).min(s.len()));
                let end = (end..=s.len()).find(|e| s.is_char_boundary(*e)).unwrap_or(s.len());
                if !visit(i, &s[i..end]) {
                    return;
                }
                i = end.max(i + 1);
                continue;
            }
        }
        i += 1;
    }
}

/// Cheap pre-check for [`near_tokens`]: is there an opening `{{` or `<<` that does not start
/// a real token and is followed by optional whitespace and `params` (any case)? Every
/// near-token starts at such a pair: the only pair inside a real token is its own opening.
fn may_hold_near_token(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr2_iter(b'{', b'<', b).any(|i| {
        if b.get(i + 1) != Some(&b[i]) || token_at(s, i).is_some() {
            return false;
        }
        let rest = &b[i + 2..];
        let ws = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
        rest.get(ws..ws + 6).is_some_and(|w| w.eq_ignore_ascii_case(b"params"))
    })
}

/// The next occurrence of a closing delimiter at or after a position, for positions that
/// only grow: a search starts past the previous hit, so all searches together read the
/// string at most once (an unclosed `<<params` no longer searches to the end each time).
struct NextClose {
    pattern: &'static str,
    /// The last search: where it started and what it found (`None`: nothing after it).
    last: Option<(usize, Option<usize>)>,
}

impl NextClose {
    fn new(pattern: &'static str) -> Self {
        Self { pattern, last: None }
    }

    fn at_or_after(&mut self, s: &str, from: usize) -> Option<usize> {
        match self.last {
            Some((_, Some(hit))) if hit >= from => return Some(hit),
            Some((start, None)) if start <= from => return None,
            _ => {}
        }
        let hit = s[from..].find(self.pattern).map(|p| from + p);
        self.last = Some((from, hit));
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params() -> Map<String, Value> {
        json!({"name":"Ada","n":40,"f":1.0,"list":["a",["b","c"]],"obj":{"k":"v"},"nil":null,"flag":false,
               "tricky":"{{params.name}}"})
        .as_object()
        .unwrap()
        .clone()
    }

    fn sub(s: &str) -> Value {
        match substitute_str(s, &params()) {
            Substituted::Unchanged => Value::String(s.to_owned()),
            Substituted::Value(v) => v,
        }
    }

    #[test]
    fn whole_value_keeps_type() {
        assert_eq!(sub("{{params.n}}"), json!(40));
        assert_eq!(sub("{{params.list}}"), json!(["a", ["b", "c"]]));
        assert_eq!(sub("{{params.obj}}"), json!({"k":"v"}));
        assert_eq!(sub("{{params.nil}}"), json!(null));
        assert_eq!(sub("{{params.flag}}"), json!(false));
        assert_eq!(sub("<<params.n>>"), json!(40));
        assert_eq!(sub("{{params.f}}").to_string(), "1");
    }

    #[test]
    fn embedded_uses_javascript_text() {
        assert_eq!(sub("n={{params.n}}"), json!("n=40"));
        assert_eq!(sub("{{params.list}}!"), json!("a,b,c!"));
        assert_eq!(sub("[{{params.obj}}]"), json!("[[object Object]]"));
        assert_eq!(sub("x{{params.nil}}"), json!("xnull"));
        assert_eq!(sub("{{params.f}}%"), json!("1%"));
    }

    #[test]
    fn adjacent_tokens_are_embedded_not_whole() {
        assert_eq!(sub("{{params.n}}{{params.n}}"), json!("4040"));
        assert_eq!(sub("{{params.name}}<<params.name>>"), json!("AdaAda"));
    }

    #[test]
    fn missing_names_become_empty() {
        assert_eq!(sub("{{params.absent}}"), json!(""));
        assert_eq!(sub("a{{params.absent}}b"), json!("ab"));
    }

    #[test]
    fn single_pass_never_rescans_inserted_text() {
        assert_eq!(sub("{{params.tricky}}"), json!("{{params.name}}"));
        assert_eq!(sub("x {{params.tricky}}"), json!("x {{params.name}}"));
    }

    /// Strings built from the pieces tokens and near-tokens are made of.
    fn token_soup() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "{{", "<<", "}}", ">>", " ", "params", "PaRaMs", "params.", "x", "-", "{", "<", "é",
        ]);
        prop::collection::vec(piece, 0..12).prop_map(|parts| parts.concat())
    }

    proptest::proptest! {
        /// The pre-check rules out only strings the full scan finds nothing in.
        #[test]
        fn the_near_token_pre_check_never_hides_one(s in token_soup()) {
            proptest::prop_assert_eq!(near_tokens(&s), scan_near_tokens(&s));
        }
    }

    #[test]
    fn near_misses_stay_literal() {
        for s in [
            "{{ params.name }}",
            "{{params.na-me}}",
            "{{params.}}",
            "{{params.1x}}",
            "{{params.name}",
            "{params.name}}",
            "{{Params.name}}",
            "<< params.name >>",
            "<<params.name}}",
            "{{params.name>>",
            "{{varName}}",
            "${nodes.x.output}",
        ] {
            assert_eq!(sub(s), json!(s), "{s}");
        }
    }

    #[test]
    fn leftmost_scan_recovers_after_extra_brace() {
        assert_eq!(sub("{{{params.name}}}"), json!("{Ada}"));
        assert_eq!(sub("<<<params.name>>>"), json!("<Ada>"));
    }

    #[test]
    fn non_ascii_text_around_tokens() {
        assert_eq!(sub("héllo {{params.name}} ✓"), json!("héllo Ada ✓"));
    }

    #[test]
    fn keys_are_never_substituted() {
        let v = json!({"{{params.name}}": "{{params.name}}", "arr": ["{{params.n}}", 1.0]});
        let out = substitute_value(&v, &params());
        assert_eq!(out, json!({"{{params.name}}": "Ada", "arr": [40, 1]}));
    }

    #[test]
    fn only_doubled_openers_count_as_token_like() {
        assert!(opens_token_like("a {{b"));
        assert!(opens_token_like("<<"));
        assert!(!opens_token_like("{ <a> {"));
        assert!(!opens_token_like("{<{<"));
    }

    #[test]
    fn marks_only_results_that_may_open_a_token() {
        let mark = |v: Value| {
            let mut marked = false;
            substitute_noting(&v, &params(), &mut marked);
            marked
        };
        assert!(!mark(json!({"a": "{{params.name}}", "b": ["plain <x> {y}", 1]})));
        assert!(mark(json!({"a": ["{{ params.name }}"]})), "a near-token stays");
        assert!(mark(json!("x {{params.tricky}}")), "inserted text opens one");
        assert!(mark(json!("{{params.tricky}}")));
        assert!(!mark(json!("{{params.obj}}")));
        assert!(!mark(json!("{{params.n}}")));
        let nested = json!({"deep": [{"k": "<<params.x>>"}]});
        let mut with_nested = params();
        with_nested.insert("nested".into(), nested);
        let mut marked = false;
        substitute_noting(&json!(["{{params.nested}}"]), &with_nested, &mut marked);
        assert!(marked, "a structured value holding token text");
    }

    #[test]
    fn near_token_lint_finds_each_miss() {
        let found = near_tokens("a {{ params.x }} b {{params.a-b}} c {{params.ok}} <<PARAMS.y>>");
        let texts: Vec<_> = found.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(texts, ["{{ params.x }}", "{{params.a-b}}", "<<PARAMS.y>>"]);
        assert!(near_tokens("{{params.ok}} and <<params.ok2>>").is_empty());
        assert!(near_tokens("no tokens").is_empty());
        assert_eq!(near_tokens("tail {{params")[0].text, "{{params");
    }
}

//! RFC 8785 (JCS) canonical JSON: the exact bytes a v2 `ed25519-canonical-json`
//! signature covers (interop §1.1).
//!
//! The serialisation itself is `serde_json_canonicalizer` (keys sorted by UTF-16 code
//! units, ECMAScript number text, `JSON.stringify` string escaping). What it cannot see
//! after serde_json has parsed a document is checked here, as the registry's signer does:
//! duplicate member names (while parsing), and numbers a JavaScript reader would change
//! (from their exact text, with their JSON pointer): integers beyond ±(2^53−1), numbers too
//! large for a double (`1e400`), and non-zero numbers that underflow to 0 (`1e-400`). They
//! are refused, never rounded. Lone surrogates are parse errors in serde_json.

use serde_json::{Number, Value};
use std::fmt;

/// `Number.MAX_SAFE_INTEGER`.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Why JSON cannot be signed as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The JSON pointer of the number at fault; empty for a document-level problem.
    pub pointer: String,
    pub message: String,
    /// A number JCS cannot carry exactly (else the text is not strict JSON).
    pub number: bool,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.number {
            write!(f, "at {}: ", if self.pointer.is_empty() { "the root" } else { &self.pointer })?;
        }
        f.write_str(&self.message)
    }
}

/// Parse JSON bytes, refusing what canonicalisation would change silently.
pub fn parse_strict(bytes: &[u8]) -> Result<Value, String> {
    parse_strict_located(bytes).map_err(|r| r.to_string())
}

/// [`parse_strict`], saying where a refused number is.
pub fn parse_strict_located(bytes: &[u8]) -> Result<Value, Refusal> {
    let syntax = |e: serde_json::Error| Refusal {
        pointer: String::new(),
        message: crate::fsio::json_error_text(&e),
        number: false,
    };
    // The document's own reader: an object named like serde_json's number marker stays an
    // object, and repeated member names are noticed instead of resolved to the last.
    let doc = crate::fsio::json::parse(bytes).map_err(syntax)?;
    if doc.repeated_names {
        let at = crate::fsio::json::repeated_member_pointers(bytes, 1).pop().unwrap_or_default();
        let name = at.rsplit('/').next().unwrap_or_default().replace("~1", "/").replace("~0", "~");
        return Err(Refusal {
            message: format!("duplicate member name \"{name}\" at {}", if at.is_empty() { "the root" } else { &at }),
            pointer: at,
            number: false,
        });
    }
    check_numbers(&doc.value)?;
    Ok(doc.value)
}

/// The canonical bytes of a value. Fails on numbers JCS cannot carry exactly (a value built
/// in memory has not been through [`parse_strict`]).
pub fn canonical(value: &Value) -> Result<Vec<u8>, String> {
    check_numbers(value).map_err(|r| r.to_string())?;
    serde_json_canonicalizer::to_vec(&Plain(value)).map_err(|e| format!("cannot canonicalise: {e}"))
}

/// Every number of `value` that signing would refuse, with its pointer, in document order.
pub fn unsignable_numbers(value: &Value) -> Vec<Refusal> {
    first_unsignable_numbers(value, usize::MAX).0
}

/// The first `limit` of [`unsignable_numbers`], and how many there are in all (the rest
/// are counted, not built).
pub fn first_unsignable_numbers(value: &Value, limit: usize) -> (Vec<Refusal>, usize) {
    let mut out = Vec::new();
    let mut total = 0;
    // Pointers are only built when there is something to report.
    if first_unsignable(value).is_some() {
        collect_unsignable(value, &mut String::new(), &mut out, limit, &mut total);
    }
    (out, total)
}

/// A value whose numbers serialise as plain integers or floats. chainsmith keeps numbers
/// exactly (serde_json's `arbitrary_precision`), and such a number serialises as a private
/// struct that only serde_json's own writer understands; JCS wants its ECMAScript text.
struct Plain<'a>(&'a Value);

impl serde::Serialize for Plain<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap, SerializeSeq};
        match self.0 {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => s.serialize_i64(i),
                (_, Some(u), _) => s.serialize_u64(u),
                (_, _, Some(f)) if f.is_finite() => s.serialize_f64(f),
                _ => Err(S::Error::custom(format!("the number {n} has no finite double value"))),
            },
            Value::String(text) => s.serialize_str(text),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Plain(item))?;
                }
                seq.end()
            }
            Value::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, &Plain(v))?;
                }
                map.end()
            }
        }
    }
}

/// Parse and canonicalise JSON bytes.
pub fn canonicalize(bytes: &[u8]) -> Result<Vec<u8>, String> {
    canonical(&parse_strict(bytes)?)
}

/// Whether `bytes` are already exactly their own canonical form: what [`canonicalize`]
/// would give back unchanged (strict JSON, numbers JCS carries, no whitespace, members in
/// UTF-16 order, `JSON.stringify`'s escapes and ECMAScript number text). Read in one pass
/// over the bytes without building the document: a parsed copy of a large manifest and its
/// canonical bytes were together several times the manifest's size.
pub fn is_canonical(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok() && CanonicalScan { b: bytes, i: 0, scratch: Vec::new() }.document().is_some()
}

/// An open array, or an open object with the name of its last member so far.
enum Open {
    Array,
    Object(String),
}

/// The one-pass reader behind [`is_canonical`]; every method returns `None` at the first
/// byte a canonical document could not have there.
struct CanonicalScan<'a> {
    b: &'a [u8],
    i: usize,
    /// A string value's text, read and dropped (only member names are kept).
    scratch: Vec<u8>,
}

impl CanonicalScan<'_> {
    fn next(&mut self) -> Option<u8> {
        let c = *self.b.get(self.i)?;
        self.i += 1;
        Some(c)
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }

    /// Iterative, nesting capped as the strict parser caps it.
    fn document(&mut self) -> Option<()> {
        let mut open: Vec<Open> = Vec::new();
        'value: loop {
            match *self.b.get(self.i)? {
                c @ (b'{' | b'[') => {
                    self.i += 1;
                    if open.len() + 1 > crate::fsio::MAX_JSON_NESTING {
                        return None;
                    }
                    let close = if c == b'{' { b'}' } else { b']' };
                    if self.b.get(self.i) == Some(&close) {
                        self.i += 1;
                    } else if c == b'{' {
                        let name = self.string()?;
                        self.eat(b':')?;
                        open.push(Open::Object(name));
                        continue 'value;
                    } else {
                        open.push(Open::Array);
                        continue 'value;
                    }
                }
                b'"' => {
                    let mut text = std::mem::take(&mut self.scratch);
                    self.string_into(&mut text)?;
                    text.clear();
                    self.scratch = text;
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return None,
            }
            // A value ended: close what it ends, or go on to the next element or member.
            loop {
                match open.last_mut() {
                    None => return (self.i == self.b.len()).then_some(()),
                    Some(Open::Array) => match self.next()? {
                        b',' => continue 'value,
                        b']' => _ = open.pop(),
                        _ => return None,
                    },
                    Some(Open::Object(last)) => match self.next()? {
                        b',' => {
                            let name = self.string()?;
                            if !utf16_before(last, &name) {
                                return None;
                            }
                            *last = name;
                            self.eat(b':')?;
                            continue 'value;
                        }
                        b'}' => _ = open.pop(),
                        _ => return None,
                    },
                }
            }
        }
    }

    fn literal(&mut self, text: &[u8]) -> Option<()> {
        let end = self.i + text.len();
        (self.b.get(self.i..end)? == text).then(|| self.i = end)
    }

    /// A string as `JSON.stringify` writes it, unescaped: only `\"`, `\\`, the short
    /// escapes of control characters and `\u00xx` (lower-case) for the other controls.
    fn string(&mut self) -> Option<String> {
        let mut out = Vec::new();
        self.string_into(&mut out)?;
        String::from_utf8(out).ok()
    }

    fn string_into(&mut self, out: &mut Vec<u8>) -> Option<()> {
        self.eat(b'"')?;
        loop {
            match self.next()? {
                b'"' => return Some(()),
                b'\\' => out.push(match self.next()? {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'u' => {
                        let hex = self.b.get(self.i..self.i + 4)?;
                        self.i += 4;
                        let lower = |c: &u8| c.is_ascii_digit() || (b'a'..=b'f').contains(c);
                        if &hex[..2] != b"00" || !hex.iter().all(lower) {
                            return None;
                        }
                        let code = u8::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()?;
                        if code >= 0x20 || matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                            return None;
                        }
                        code
                    }
                    _ => return None,
                }),
                c if c < 0x20 => return None,
                c => out.push(c),
            }
        }
    }

    /// A number JCS carries, spelled as JCS spells it.
    fn number(&mut self) -> Option<()> {
        let start = self.i;
        while self.b.get(self.i).is_some_and(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')) {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.b[start..self.i]).ok()?;
        let n: Number = serde_json::from_str(text).ok()?;
        if number_problem(&n).is_some() {
            return None;
        }
        let canonical = serde_json_canonicalizer::to_vec(&Plain(&Value::Number(n))).ok()?;
        (canonical == text.as_bytes()).then_some(())
    }
}

/// Whether member name `a` sorts strictly before `b` by UTF-16 code units (RFC 8785 §3.2.3).
fn utf16_before(a: &str, b: &str) -> bool {
    a.encode_utf16().lt(b.encode_utf16())
}

/// The first unsignable number of `value`, with its pointer.
fn check_numbers(value: &Value) -> Result<(), Refusal> {
    match unsignable_numbers(value).into_iter().next() {
        Some(r) => Err(r),
        None => Ok(()),
    }
}

/// Whether any number is unsignable, walked without recursion (values built in memory may
/// nest deeply) and without building pointers.
fn first_unsignable(value: &Value) -> Option<String> {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) => {
                if let Some(why) = number_problem(n) {
                    return Some(why);
                }
            }
            Value::Array(items) => stack.extend(items),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    None
}

/// The pointer walk, only taken when [`first_unsignable`] found something (its depth is
/// that of a document that parsed, or was built, and already walked).
fn collect_unsignable(value: &Value, pointer: &mut String, out: &mut Vec<Refusal>, limit: usize, total: &mut usize) {
    match value {
        Value::Number(n) => {
            if let Some(message) = number_problem(n) {
                *total += 1;
                if out.len() < limit {
                    out.push(Refusal { pointer: pointer.clone(), message, number: true });
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push_str(&format!("/{i}"));
                collect_unsignable(item, pointer, out, limit, total);
                pointer.truncate(len);
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                let len = pointer.len();
                *pointer = crate::error::pointer_join(pointer, k);
                collect_unsignable(item, pointer, out, limit, total);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// What a JavaScript reader (and so JCS) would change in this number, judged on its exact
/// text: an integer beyond ±(2^53−1) is rounded, a number beyond a double's range becomes
/// Infinity, and a non-zero one below its range becomes 0.
fn number_problem(n: &Number) -> Option<String> {
    let text = n.as_str();
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        return beyond_safe(digits)
            .then(|| format!("the integer {text} is beyond ±(2^53−1); signing would round it (JCS, RFC 8785)"));
    }
    let f = match text.parse::<f64>() {
        Ok(f) if !f.is_finite() => return Some(format!("the number {text} is beyond the range of a double")),
        Ok(0.0) if mantissa_is_non_zero(digits) => {
            return Some(format!("the number {text} is below the range of a double and would be written as 0"));
        }
        Ok(f) => f,
        Err(_) => return Some(format!("the number {text} is not a JSON number")),
    };
    // A fraction or an exponent is written as the double's ECMAScript text: refused when
    // that text has another value (`0.30000000000000000001` would become `0.3`), or is an
    // integer a JavaScript reader would round (`9007199254740992.0`).
    let written = serde_json_canonicalizer::to_string(&f).ok()?;
    if exact_decimal(text) != exact_decimal(&written) {
        return Some(format!(
            "the number {text} would be signed as {written} (a double cannot hold it exactly); \
             write {written}, or keep the exact value in a string"
        ));
    }
    let written_digits = written.strip_prefix('-').unwrap_or(&written);
    let unsafe_integer = written_digits.bytes().all(|b| b.is_ascii_digit()) && beyond_safe(written_digits);
    unsafe_integer.then(|| {
        format!("the number {text} would be signed as the integer {written}, beyond ±(2^53−1) (JCS, RFC 8785)")
    })
}

/// Whether the digits of an integer spell one beyond 2^53−1.
fn beyond_safe(digits: &str) -> bool {
    digits.len() > 16 || digits.parse::<u64>().is_ok_and(|u| u > MAX_SAFE_INTEGER)
}

/// The exact decimal value of JSON number text: sign, significant digits (no leading or
/// trailing zeros) and the power of ten they are scaled by. Zero is one value whatever
/// its sign (JCS writes `-0` as `0`). `None` for an exponent beyond `i64` on a non-zero
/// mantissa (never a double's value).
fn exact_decimal(text: &str) -> Option<(bool, String, i64)> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let significant = all.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    if trimmed.is_empty() {
        return Some((false, String::new(), 0));
    }
    let exponent = match exponent {
        Some(e) => e.parse::<i64>().ok()?,
        None => 0,
    };
    let scale = exponent
        .checked_sub(i64::try_from(frac.len()).ok()?)?
        .checked_add(i64::try_from(significant.len() - trimmed.len()).ok()?)?;
    Some((negative, trimmed.to_owned(), scale))
}

/// Whether the digits before any exponent hold a non-zero digit.
fn mantissa_is_non_zero(text: &str) -> bool {
    text.split(['e', 'E']).next().unwrap_or_default().bytes().any(|b| (b'1'..=b'9').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(text: &str) -> String {
        String::from_utf8(canonicalize(text.as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn keys_sort_by_utf16_code_units_not_utf8_bytes() {
        // U+E000 (one UTF-16 unit 0xE000) sorts after U+1F600 (surrogates 0xD83D 0xDE00),
        // although its UTF-8 bytes (EE ..) sort before the emoji's (F0 ..).
        assert_eq!(canon("{\"\u{e000}\":1,\"\u{1f600}\":2,\"a\":3}"), "{\"a\":3,\"\u{1f600}\":2,\"\u{e000}\":1}");
    }

    #[test]
    fn numbers_take_their_ecmascript_text() {
        assert_eq!(
            canon("[1.0, 1e21, 1E-7, -0.0, 100, 0.1, 9007199254740991]"),
            "[1,1e+21,1e-7,0,100,0.1,9007199254740991]"
        );
    }

    #[test]
    fn strings_escape_like_json_stringify() {
        assert_eq!(canon(r#"["\u00e9/\u001f\n\"\\", "\u2028"]"#), "[\"é/\\u001f\\n\\\"\\\\\",\"\u{2028}\"]");
    }

    #[test]
    fn duplicates_unsafe_integers_and_lone_surrogates_are_refused() {
        assert!(parse_strict(br#"{"a":1,"a":2}"#).unwrap_err().contains("duplicate member name \"a\""));
        assert!(parse_strict(br#"{"x":{"b":1,"b":1}}"#).is_err());
        assert!(parse_strict(b"9007199254740992").unwrap_err().contains("2^53"));
        assert!(parse_strict(b"-9007199254740992").is_err());
        assert!(parse_strict(br#""\ud800""#).is_err());
        assert!(parse_strict(b"1e400").is_err());
        assert!(parse_strict(b"1e-400").is_err());
        assert!(parse_strict(b"{} x").is_err());
        assert!(canonical(&serde_json::json!(u64::MAX)).is_err());
    }

    #[test]
    fn an_object_named_like_serde_json_s_number_marker_is_signed_as_an_object() {
        let text = br#"{"x":{"$serde_json::private::Number":"5"}}"#;
        assert_eq!(canonicalize(text).unwrap(), text.to_vec());
        let e = parse_strict_located(br#"{"x":{"a~b":1,"a~b":2}}"#).unwrap_err();
        assert_eq!((e.pointer.as_str(), e.number), ("/x/a~0b", false));
        assert!(e.message.contains("duplicate member name \"a~b\""), "{}", e.message);
    }

    /// The one-pass check says what canonicalising and comparing says, on documents that
    /// are canonical and on each of many near misses.
    #[test]
    fn the_one_pass_check_agrees_with_canonicalising_and_comparing() {
        let by_canonicalising = |b: &[u8]| canonicalize(b).is_ok_and(|c| c == b);
        let mut docs: Vec<Vec<u8>> = [
            r#"{"a":{"c":"x","d":2.5},"b":[true,null,false]}"#,
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":1}"#,
            r#"{"a":1,"b":{}}"#,
            r#"{"":[],"a":[[],{}]}"#,
            "{\"\u{e000}\":1,\"\u{1f600}\":2}",
            "{\"\u{1f600}\":2,\"\u{e000}\":1}",
            r#"["\u001f","\u0000","\b\f\n\r\t","\"\\","/","é","\u00e9","\u001F","\/","\u0008","\u007f"]"#,
            "[\"\u{7f}\",\"\u{2028}\",\"\u{1}\"]",
            "[1,1.0,-0,0,-1,1e21,1e+21,1e20,100000000000000000000,1e-7,1E-7,0.1,0.10,1.5e-300,2.5,-2.5]",
            "[9007199254740991,9007199254740992,-9007199254740991,-9007199254740992,12345678901234567890]",
            "[1e400,1e-400,0e-400,01,1.,.5,-,+1,1e,0x1]",
            r#"{"$serde_json::private::Number":"5"}"#,
            "[] ",
            " []",
            "[1, 2]",
            "{\"a\" :1}",
            "\"x\"",
            "tru",
            "[true,nul]",
            "{\"a\":1,}",
            "[1,]",
            "",
            "\u{feff}[]",
            "[\"\\ud83d\\ude00\",\"\u{1f600}\"]",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        for depth in [126, 127, 128, 129] {
            docs.push(format!("{}{}", "[".repeat(depth), "]".repeat(depth)).into_bytes());
            docs.push(format!("{}1{}", "[".repeat(depth), "]".repeat(depth)).into_bytes());
        }
        // Every number and string of the lists above on its own, and every canonical form.
        let singles: Vec<Vec<u8>> = docs
            .iter()
            .filter(|d| d.starts_with(b"[") && !d.starts_with(b"[["))
            .flat_map(|d| d[1..d.len().saturating_sub(1)].split(|c| *c == b',').map(<[u8]>::to_vec).collect::<Vec<_>>())
            .collect();
        docs.extend(singles);
        let canonical: Vec<Vec<u8>> = docs.iter().filter_map(|d| canonicalize(d).ok()).collect();
        docs.extend(canonical);
        // Each byte of a canonical document dropped in turn, and doubled in turn.
        let base = br#"{"a":[1,"x\n",{"b":null}],"c":-2.5e-7,"d":true}"#.to_vec();
        assert!(is_canonical(&base));
        for i in 0..base.len() {
            let mut dropped = base.clone();
            dropped.remove(i);
            docs.push(dropped);
            let mut doubled = base.clone();
            doubled.insert(i, base[i]);
            docs.push(doubled);
        }
        docs.push(vec![b'"', 0xff, b'"']);
        for d in &docs {
            assert_eq!(is_canonical(d), by_canonicalising(d), "{}", String::from_utf8_lossy(d));
        }
    }

    #[test]
    fn canonical_bytes_are_a_fixed_point() {
        let c = canonicalize(br#"{ "b": [ true, null ], "a": { "d": 2.50, "c": "x" } }"#).unwrap();
        assert_eq!(c, br#"{"a":{"c":"x","d":2.5},"b":[true,null]}"#);
        assert!(is_canonical(&c));
        assert!(!is_canonical(b"{\"a\":1}\n"));
    }

    #[test]
    fn numbers_a_javascript_reader_would_change_are_refused_with_their_pointer() {
        let doc = br#"{"version": "1.0.0", "a": {"big": 18446744073709551616, "x/y": [1, 1e-400]}, "c": -1e400}"#;
        let refusal = parse_strict_located(doc).unwrap_err();
        assert_eq!((refusal.pointer.as_str(), refusal.number), ("/a/big", true));
        assert!(refusal.message.contains("18446744073709551616"), "{}", refusal.message);
        let all: Vec<String> =
            unsignable_numbers(&serde_json::from_slice(doc).unwrap()).into_iter().map(|r| r.pointer).collect();
        assert_eq!(all, ["/a/big", "/a/x~1y/1", "/c"]);
        // What JCS carries exactly (or only re-spells) passes.
        for fine in ["9007199254740991", "-9007199254740991", "1e21", "0.0", "0e-400", "1.5e-300", "100.0"] {
            assert!(parse_strict(fine.as_bytes()).is_ok(), "{fine}");
        }
        assert!(parse_strict(b"12345678901234567890").unwrap_err().contains("at the root"));
    }

    /// Issue 33 item 8: a fraction or exponent is refused when its ECMAScript text has
    /// another value, or is an integer beyond ±(2^53−1); re-spellings of the same value pass.
    #[test]
    fn numbers_spelled_as_floats_are_refused_when_signing_would_change_them() {
        for (text, written) in [
            ("9007199254740993.0", "9007199254740992"),
            ("9007199254740993e0", "9007199254740992"),
            ("0.30000000000000000001", "0.3"),
            ("123456789012345678e3", "123456789012345680000"),
            ("-9007199254740993.5", "-9007199254740994"),
            ("9007199254740992.0", "9007199254740992"),
            ("1e20", "100000000000000000000"),
        ] {
            let refusal = parse_strict_located(text.as_bytes()).unwrap_err();
            assert!(refusal.number && refusal.message.contains(written), "{text}: {}", refusal.message);
        }
        for fine in ["0.1", "0.3", "2.50", "1E-7", "-0.0", "1e+21", "1.5e-300", "9007199254740991.0", "0.1e1", "5e-324"]
        {
            assert!(parse_strict(fine.as_bytes()).is_ok(), "{fine}");
        }
        assert_eq!(exact_decimal("0012.3400e-2"), Some((false, "1234".into(), -4)));
        assert_eq!(exact_decimal("-0.000e9"), Some((false, String::new(), 0)));
    }
}

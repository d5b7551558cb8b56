//! RFC 8785 (JCS) canonical JSON: the exact bytes a v2 `ed25519-canonical-json`
//! signature covers (interop §1.1).
//!
//! The serialisation itself is `serde_json_canonicalizer` (keys sorted by UTF-16 code
//! units, ECMAScript number text, `JSON.stringify` string escaping). What it cannot see
//! after serde_json has parsed a document is checked here while parsing, as the registry's
//! signer does: duplicate member names, and integers beyond ±(2^53−1) that JavaScript would
//! silently round, are refused rather than coerced. Lone surrogates and non-finite numbers
//! are already parse errors in serde_json.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// `Number.MAX_SAFE_INTEGER`.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Parse JSON bytes, refusing what canonicalisation would change silently.
pub fn parse_strict(bytes: &[u8]) -> Result<Value, String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let Strict(value) = Strict::deserialize(&mut de).map_err(|e| crate::fsio::json_error_text(&e))?;
    de.end().map_err(|e| crate::fsio::json_error_text(&e))?;
    Ok(value)
}

/// The canonical bytes of a value. Fails on integers outside the safe range (a value built
/// in memory has not been through [`parse_strict`]).
pub fn canonical(value: &Value) -> Result<Vec<u8>, String> {
    check_integers(value)?;
    serde_json_canonicalizer::to_vec(&Plain(value)).map_err(|e| format!("cannot canonicalise: {e}"))
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

/// The member name under which serde_json hands an exact number to a visitor.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// A number from its JSON text, as a reader without arbitrary precision would take it: an
/// integer when it is one that fits, else a finite double.
fn number_from_text(text: &str) -> Result<Number, String> {
    if let Ok(i) = text.parse::<i64>() {
        let n = Number::from(i);
        check_number(&n)?;
        return Ok(n);
    }
    if let Ok(u) = text.parse::<u64>() {
        let n = Number::from(u);
        check_number(&n)?;
        return Ok(n);
    }
    text.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .ok_or_else(|| format!("the number {text} has no finite double value"))
}

/// Parse and canonicalise JSON bytes.
pub fn canonicalize(bytes: &[u8]) -> Result<Vec<u8>, String> {
    canonical(&parse_strict(bytes)?)
}

/// Whether `bytes` are already exactly their own canonical form.
pub fn is_canonical(bytes: &[u8]) -> bool {
    canonicalize(bytes).is_ok_and(|c| c == bytes)
}

/// Walk every number without recursion (values built in memory may nest deeply).
fn check_integers(value: &Value) -> Result<(), String> {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) => check_number(n)?,
            Value::Array(items) => stack.extend(items),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    Ok(())
}

fn check_number(n: &Number) -> Result<(), String> {
    let unsafe_int = n.as_u64().is_some_and(|u| u > MAX_SAFE_INTEGER)
        || n.as_i64().is_some_and(|i| i.unsigned_abs() > MAX_SAFE_INTEGER);
    if unsafe_int {
        return Err(format!("the integer {n} is beyond ±(2^53−1) and would not survive a JavaScript reader"));
    }
    Ok(())
}

/// A `Value` deserialised with the strict rules.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        let n = Number::from(v);
        check_number(&n).map_err(E::custom)?;
        Ok(Value::Number(n))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        let n = Number::from(v);
        check_number(&n).map_err(E::custom)?;
        Ok(Value::Number(n))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("non-finite numbers are not JSON"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == NUMBER_TOKEN && out.is_empty() {
                let text: String = map.next_value()?;
                return number_from_text(&text).map(Value::Number).map_err(de::Error::custom);
            }
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate member name \"{key}\"")));
            }
            let Strict(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
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
        assert!(parse_strict(b"{} x").is_err());
        assert!(canonical(&serde_json::json!(u64::MAX)).is_err());
    }

    #[test]
    fn canonical_bytes_are_a_fixed_point() {
        let c = canonicalize(br#"{ "b": [ true, null ], "a": { "d": 2.50, "c": "x" } }"#).unwrap();
        assert_eq!(c, br#"{"a":{"c":"x","d":2.5},"b":[true,null]}"#);
        assert!(is_canonical(&c));
        assert!(!is_canonical(b"{\"a\":1}\n"));
    }
}

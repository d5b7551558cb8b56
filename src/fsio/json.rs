//! Reading a user's JSON document as written.
//!
//! chainsmith keeps numbers exactly (serde_json's `arbitrary_precision`), and serde_json
//! hands each such number to a visitor as a one-member object named
//! `$serde_json::private::Number`. Its own `Value` reader therefore reads a real object
//! whose first member has that name as a number (`{"$serde_json::private::Number": "5"}`
//! became `5`), and one whose first member is `$serde_json::private::RawValue` as the JSON
//! text of its value. This reader tells the two apart by where the name lives: serde_json
//! hands the number marker from its own static text, never from the document, while a
//! member name the document spells is read from the document (or, when it has escapes, as
//! an unescaped copy, never as the static). It also notes repeated member names, which
//! serde_json's reader silently resolves to the last value.

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::Cell;
use std::fmt;

/// The member name serde_json hands a number under (feature `arbitrary_precision`).
const NUMBER_MARKER: &str = "$serde_json::private::Number";

/// A UTF-8 byte order mark, which JSON text must not start with (RFC 8259 §8.1).
pub const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A parsed document, and whether any object in it repeats a member name (the value then
/// holds the last one, as serde_json reads it; other readers keep the first or refuse).
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub value: Value,
    pub repeated_names: bool,
}

/// Parse JSON bytes as written: objects stay objects whatever their member names.
pub fn parse(bytes: &[u8]) -> serde_json::Result<Document> {
    let repeated = Cell::new(false);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = Reader::new(bytes, &repeated).deserialize(&mut de)?;
    de.end()?;
    Ok(Document { value, repeated_names: repeated.get() })
}

/// [`parse`] when only the value is wanted.
pub fn from_slice(bytes: &[u8]) -> serde_json::Result<Value> {
    parse(bytes).map(|d| d.value)
}

/// [`from_slice`] of text.
pub fn from_str(text: &str) -> serde_json::Result<Value> {
    from_slice(text.as_bytes())
}

/// Where a document's bytes lie in memory: the addresses `start..end`.
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
}

impl Span {
    fn contains(&self, text: &str) -> bool {
        (self.start..self.end).contains(&(text.as_ptr() as usize))
    }
}

fn span(bytes: &[u8]) -> Span {
    let start = bytes.as_ptr() as usize;
    Span { start, end: start + bytes.len() }
}

/// Builds a `Value` from one JSON value of the document whose bytes lie at `input`.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    input: Span,
    repeated: Option<&'a Cell<bool>>,
}

impl<'a> Reader<'a> {
    /// A reader for values of the document `bytes`, noting repeated names in `repeated`.
    pub(crate) fn new(bytes: &[u8], repeated: &'a Cell<bool>) -> Self {
        Self { input: span(bytes), repeated: Some(repeated) }
    }

    /// A reader for a document streamed from an `io::Read`: serde_json then copies every
    /// name it reads, so only its own marker comes borrowed.
    pub(crate) fn streamed() -> Self {
        Self { input: Span { start: 0, end: 0 }, repeated: None }
    }
}

impl<'de> DeserializeSeed<'de> for Reader<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Reader<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
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

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(KeyReader { input: self.input })? {
            let name = match key {
                Key::NumberMarker if out.is_empty() => {
                    let text: String = map.next_value()?;
                    return text.parse::<Number>().map(Value::Number).map_err(de::Error::custom);
                }
                Key::NumberMarker => NUMBER_MARKER.to_owned(),
                Key::Name(name) => name,
            };
            let value = map.next_value_seed(self)?;
            if out.insert(name, value).is_some()
                && let Some(repeated) = self.repeated
            {
                repeated.set(true);
            }
        }
        Ok(Value::Object(out))
    }
}

/// A member name, or serde_json's marker that the "object" is a number.
enum Key {
    Name(String),
    NumberMarker,
}

struct KeyReader {
    input: Span,
}

impl<'de> DeserializeSeed<'de> for KeyReader {
    type Value = Key;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyReader {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key, E> {
        // The marker comes from serde_json's own text; the same name spelled by the document
        // is borrowed from the document's bytes.
        if v == NUMBER_MARKER && !self.input.contains(v) { Ok(Key::NumberMarker) } else { Ok(Key::Name(v.to_owned())) }
    }

    fn visit_str<E>(self, v: &str) -> Result<Key, E> {
        Ok(Key::Name(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Key, E> {
        Ok(Key::Name(v))
    }
}

/// The JSON pointers of members whose name repeats an earlier member of the same object,
/// in document order (at most `limit`). A second, slower pass, for a document [`parse`]
/// said has some.
pub fn repeated_member_pointers(bytes: &[u8], limit: usize) -> Vec<String> {
    let found = std::cell::RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let walker = Walker { input: span(bytes), at: String::new(), found: &found, limit };
    // A document that does not parse has no pointers to give; its parse reports it.
    let _ = walker.deserialize(&mut de);
    found.into_inner()
}

/// Walks one value at pointer `at`, noting repeated member names.
struct Walker<'a> {
    input: Span,
    at: String,
    found: &'a std::cell::RefCell<Vec<String>>,
    limit: usize,
}

impl Walker<'_> {
    fn child(&self, token: &str) -> Self {
        Walker { input: self.input, at: crate::error::pointer_join(&self.at, token), ..*self }
    }
}

impl<'de> DeserializeSeed<'de> for Walker<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walker<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        while seq.next_element_seed(self.child(&i.to_string()))?.is_some() {
            i += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut names = std::collections::HashSet::new();
        while let Some(key) = map.next_key_seed(KeyReader { input: self.input })? {
            let name = match key {
                Key::NumberMarker if names.is_empty() => {
                    map.next_value::<IgnoredAny>()?;
                    return Ok(());
                }
                Key::NumberMarker => NUMBER_MARKER.to_owned(),
                Key::Name(name) => name,
            };
            let child = self.child(&name);
            if !names.insert(name) {
                let mut found = self.found.borrow_mut();
                if found.len() < self.limit {
                    found.push(child.at.clone());
                }
            }
            map.next_value_seed(child)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_member_named_like_serde_json_s_number_marker_stays_an_object() {
        for text in [
            r#"{"$serde_json::private::Number": "5"}"#,
            r#"{"$serde_json::private::Number": 5}"#,
            r#"{"\u0024serde_json::private::Number": "5"}"#,
            r#"{"$serde_json::private::RawValue": "[1]"}"#,
        ] {
            let v = from_str(text).unwrap();
            assert!(v.is_object(), "{text} read as {v}");
            assert_eq!(v.as_object().unwrap().len(), 1);
        }
        let nested = from_str(r#"{"a": [{"$serde_json::private::Number": "12"}], "b": 1.50}"#).unwrap();
        assert_eq!(nested["a"][0], json!({"$serde_json::private::Number": "12"}));
        assert_eq!(nested["b"].to_string(), "1.50", "numbers keep their text");
    }

    #[test]
    fn values_are_the_ones_serde_json_builds_for_ordinary_documents() {
        let text = r#"{"z": [1, -2, 3.5e300, 123456789012345678901234567890, true, null, "s\u00e9"], "a": {"b": {}}}"#;
        let ours = from_str(text).unwrap();
        let theirs: Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours.to_string(), theirs.to_string());
        assert!(from_str("[1,").is_err());
        assert!(from_str("{} x").is_err());
    }

    #[test]
    fn repeated_member_names_are_noted_with_their_pointers() {
        let text = br#"{"a": 1, "b": {"x": [{"k": 1, "k": 2}], "x": 3}, "a": 2}"#;
        let doc = parse(text).unwrap();
        assert!(doc.repeated_names);
        assert_eq!(doc.value["a"], 2, "the last value stands, as serde_json reads it");
        assert_eq!(repeated_member_pointers(text, 10), ["/b/x/0/k", "/b/x", "/a"]);
        assert_eq!(repeated_member_pointers(text, 1), ["/b/x/0/k"]);
        assert!(!parse(br#"{"a": {"a": 1}}"#).unwrap().repeated_names);
    }
}

//! Reading and writing the compact JSON text nodes and edges are held as ([`super::Node`],
//! [`super::Edge`]): the text is what `serde_json` writes for an object, so it is parsed
//! back into the same object, and its members can be found or written out without building
//! the object at all.

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cell::Cell;

/// Parse text that `serde_json` wrote. Without the parser's nesting limit: a node or edge can
/// hold a value as deep as that limit allows inside its own object (an inspector edit), one
/// level past it; the value was built and written at that depth already.
pub(super) fn parse<'de, T: serde::Deserialize<'de>>(text: &'de str) -> T {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    T::deserialize(&mut de).expect("the text is what serde_json wrote for this type")
}

/// The object the text holds.
pub(super) fn object(text: &str) -> Map<String, Value> {
    parse(text)
}

/// The members of an object's text, each value as its text, in order; `None` for text that
/// is not an object.
pub(super) fn members(text: &str) -> Option<Vec<(Cow<'_, str>, &RawValue)>> {
    serde_json::from_str::<Members>(text).ok().map(|m| m.0)
}

/// The value of the member `key`, parsed.
pub(super) fn member(text: &str, key: &str) -> Option<Value> {
    let members = members(text)?;
    // A repeated name cannot occur (the text was written from a map); the last would win.
    members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| parse(v.get()))
}

/// How many arrays and objects are nested at the deepest point of the text, counted as
/// [`crate::fsio::nesting`] counts for the value.
pub(super) fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A value's compact text written as the value it holds: to any serializer, with that
/// serializer's own layout (a pretty file indents it where it sits). The text is read once,
/// front to back, and nothing is built: each string and number goes out as the text
/// `serde_json` wrote for it, which is what it writes for the value again (a string with
/// escapes is unescaped first, to be escaped again the same way). Parsing each node into a
/// map to write it made saving a large workflow slower than reading it.
pub(super) struct Written<'a>(pub &'a str);

impl serde::Serialize for Written<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        At(&Cursor { text: self.0, at: Cell::new(0) }).serialize(s)
    }
}

/// Where writing a [`Written`] text has got to.
struct Cursor<'a> {
    text: &'a str,
    at: Cell<usize>,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at.get()).copied()
    }

    /// Step past `byte`, which must be next.
    fn expect(&self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at.set(self.at.get() + 1))
    }

    /// The string at the cursor, quotes included, and whether it has escapes.
    fn string(&self) -> Option<(&'a str, bool)> {
        let (bytes, start) = (self.text.as_bytes(), self.at.get());
        let mut i = start + 1;
        let mut escaped = false;
        loop {
            match bytes.get(i)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    i += 2;
                }
                _ => i += 1,
            }
        }
        self.at.set(i + 1);
        self.text.get(start..=i).map(|quoted| (quoted, escaped))
    }

    /// The number or literal at the cursor: up to the next `,`, `}` or `]` (compact text
    /// has no spaces).
    fn scalar(&self) -> &'a str {
        let start = self.at.get();
        let len = self.text.as_bytes()[start..].iter().position(|b| matches!(b, b',' | b'}' | b']'));
        let end = len.map_or(self.text.len(), |n| start + n);
        self.at.set(end);
        &self.text[start..end]
    }
}

/// The value at the cursor, written; the cursor is left after it.
struct At<'c, 'a>(&'c Cursor<'a>);

impl serde::Serialize for At<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap, SerializeSeq};
        let c = self.0;
        let bad = || S::Error::custom("the text is not what serde_json writes");
        let unescaped = |quoted: &str| serde_json::from_str::<String>(quoted).map_err(|_| bad());
        match c.peek().ok_or_else(bad)? {
            b'{' => {
                c.expect(b'{');
                if c.expect(b'}').is_some() {
                    return s.serialize_map(Some(0))?.end();
                }
                let mut map = s.serialize_map(None)?;
                loop {
                    let (key, escaped) = c.string().ok_or_else(bad)?;
                    if escaped {
                        map.serialize_key(&unescaped(key)?)?;
                    } else {
                        map.serialize_key(&key[1..key.len() - 1])?;
                    }
                    c.expect(b':').ok_or_else(bad)?;
                    map.serialize_value(&At(c))?;
                    if c.expect(b'}').is_some() {
                        return map.end();
                    }
                    c.expect(b',').ok_or_else(bad)?;
                }
            }
            b'[' => {
                c.expect(b'[');
                if c.expect(b']').is_some() {
                    return s.serialize_seq(Some(0))?.end();
                }
                let mut seq = s.serialize_seq(None)?;
                loop {
                    seq.serialize_element(&At(c))?;
                    if c.expect(b']').is_some() {
                        return seq.end();
                    }
                    c.expect(b',').ok_or_else(bad)?;
                }
            }
            b'"' => match c.string().ok_or_else(bad)? {
                (quoted, true) => s.serialize_str(&unescaped(quoted)?),
                (quoted, false) => s.serialize_str(&quoted[1..quoted.len() - 1]),
            },
            _ => match c.scalar() {
                "true" => s.serialize_bool(true),
                "false" => s.serialize_bool(false),
                "null" => s.serialize_unit(),
                // A number: its text as it is (`arbitrary_precision` keeps every digit).
                number => serde_json::from_str::<&RawValue>(number).map_err(|_| bad())?.serialize(s),
            },
        }
    }
}

struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

/// A member name, borrowed from the text unless it has escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(Key(key)) = map.next_key()? {
                    out.push((key, map.next_value()?));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn members_are_found_without_parsing_the_others() {
        let text = r#"{"a":1,"k\"ey":{"x":[1,2]},"s":"t\n"}"#;
        let found: Vec<(String, String)> =
            members(text).unwrap().into_iter().map(|(k, v)| (k.into_owned(), v.get().to_owned())).collect();
        let expected = [("a", "1"), ("k\"ey", r#"{"x":[1,2]}"#), ("s", r#""t\n""#)];
        assert_eq!(found, expected.map(|(k, v)| (k.to_owned(), v.to_owned())));
        assert_eq!(member(text, "k\"ey"), Some(json!({"x": [1, 2]})));
        assert_eq!(member(text, "s"), Some(json!("t\n")));
        assert_eq!(member(text, "x"), None);
        assert!(members("[1]").is_none());
    }

    /// Written from its text, a value comes out as the parsed value would, pretty and compact.
    #[test]
    fn written_text_serialises_as_its_value() {
        let cases = [
            json!({"id": "e\"1", "k\u{e9}y\n": "v\u{1F600}\\", "n": 1.50, "big": 12345678901234567890u64, "t": true, "z": null}),
            json!({"c": {"type": "truthy", "left": "$.ok"}, "w": [1, [2, {}], [], {"a": [{"b": -0.0}]}]}),
            json!({"empty": {}, "none": [], "k\"ey": ["a\\\"b", {"\u{0}": "x\\"}], "num": -1.5e-7, "t": [true, false, null]}),
            json!({}),
        ];
        for v in cases {
            let text = v.to_string();
            let raw = Written(&text);
            assert_eq!(serde_json::to_string_pretty(&raw).unwrap(), serde_json::to_string_pretty(&v).unwrap());
            assert_eq!(serde_json::to_string(&raw).unwrap(), text);
            assert_eq!(serde_json::to_value(&raw).unwrap(), v);
        }
        // Text serde_json did not write is an error of the serializer, not a panic.
        for bad in [r#"{"a":"#, r#"{"a" 1}"#, r#"["x"#, "", r#"{"a":1"#] {
            assert!(serde_json::to_string(&Written(bad)).is_err(), "{bad}");
        }
    }
}

//! The served version manifest against the packed `pack.json`. Nothing signs what a
//! registry serves as `<version>.json`; only the tarball's `pack.json` is covered by the
//! integrity and the signature. So the served manifest must say what the packed one says,
//! except for what a registry adds or changes after publishing (integrity, yanking,
//! deprecation, advisories, and the addresses and time of the version's files).
//!
//! The packed bytes are compared as they are read, against the served manifest already in
//! memory: a pack of many megabytes is never held twice as a JSON tree.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::fmt;

/// Top-level members a registry may add to or change in a version manifest: integrity,
/// yanking and deprecation (interop §2.2), a security advisory, and the version's file
/// addresses and publication time (the index row's members). No decision reads them but
/// `yanked` and the deprecation, which are the registry's to make.
pub const REGISTRY_MEMBERS: [&str; 13] = [
    "integrity",
    "yanked",
    "yankedReason",
    "versionDeprecated",
    "deprecated",
    "deprecationReason",
    "supersededBy",
    "advisoryUrl",
    "publishedAt",
    "manifestUrl",
    "tarballUrl",
    "signatureUrl",
    "sbomUrl",
];

/// serde_json's `arbitrary_precision` hands a number to `deserialize_any` as a one-member
/// map under this key, holding the number's text.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// The JSON pointer of the first member where `served` says something else than the
/// packed `pack.json` bytes, `None` when they agree. `served_signing` lets the served
/// manifest alone carry `signing`: the legacy recipe signs the whole tarball, so its block
/// cannot be inside it. `Err` when the packed bytes are not JSON or repeat a member name.
pub fn first_difference(served: &Value, packed: &[u8], served_signing: bool) -> Result<Option<String>, String> {
    let Some(served) = served.as_object() else { return Ok(Some(String::new())) };
    let mut de = serde_json::Deserializer::from_slice(packed);
    let found = Top { served, served_signing }.deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(found)
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn under(key: &str, rest: String) -> String {
    format!("/{}{rest}", escape(key))
}

/// The packed document's top level.
struct Top<'a> {
    served: &'a Map<String, Value>,
    served_signing: bool,
}

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = Option<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a pack.json object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = HashSet::new();
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!("pack.json repeats the member \"{key}\"")));
            }
            let served = self.served.get(&key).filter(|_| found.is_none() && !REGISTRY_MEMBERS.contains(&key.as_str()));
            match served {
                Some(expected) => found = map.next_value_seed(Same(expected))?.map(|rest| under(&key, rest)),
                None => {
                    map.next_value::<IgnoredAny>()?;
                    if found.is_none() && !REGISTRY_MEMBERS.contains(&key.as_str()) {
                        found = Some(under(&key, String::new()));
                    }
                }
            }
        }
        Ok(found.or_else(|| {
            self.served
                .keys()
                .find(|k| {
                    let may_be_served_only =
                        REGISTRY_MEMBERS.contains(&k.as_str()) || (self.served_signing && k.as_str() == "signing");
                    !seen.contains(*k) && !may_be_served_only
                })
                .map(|k| under(k, String::new()))
        }))
    }
}

/// One packed value against the served one; `Some(pointer below it)` where they differ.
struct Same<'a>(&'a Value);

impl<'de> DeserializeSeed<'de> for Same<'_> {
    type Value = Option<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

fn differs(same: bool) -> Option<String> {
    (!same).then(String::new)
}

/// Two number texts name the same number: exactly, when both are integers; else as the
/// IEEE doubles JavaScript (which writes registries) reads them.
fn same_number(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (a.parse::<i128>(), b.parse::<i128>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if x.is_finite() && x == y),
    }
}

impl<'de> Visitor<'de> for Same<'_> {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(differs(self.0.as_bool() == Some(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(differs(matches!(self.0, Value::Number(n) if same_number(&n.to_string(), &v.to_string()))))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(differs(matches!(self.0, Value::Number(n) if same_number(&n.to_string(), &v.to_string()))))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(differs(matches!(self.0, Value::Number(n) if n.as_f64() == Some(v))))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(differs(self.0.as_str() == Some(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(differs(self.0.is_null()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let expected = self.0.as_array();
        let mut found = differs(expected.is_some());
        let mut i = 0;
        loop {
            let item = match (found.is_none(), expected.and_then(|a| a.get(i))) {
                (true, Some(e)) => seq.next_element_seed(Same(e))?,
                _ => seq.next_element::<IgnoredAny>()?.map(|_| None),
            };
            let Some(item) = item else { break };
            if found.is_none() {
                found = match expected.and_then(|a| a.get(i)) {
                    Some(_) => item.map(|rest| format!("/{i}{rest}")),
                    None => Some(format!("/{i}")),
                };
            }
            i += 1;
        }
        if found.is_none() && expected.is_some_and(|a| a.len() != i) {
            found = Some(format!("/{i}"));
        }
        Ok(found)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = HashSet::new();
        let mut found = None;
        let expected = self.0.as_object();
        while let Some(key) = map.next_key::<String>()? {
            if seen.is_empty() && key == NUMBER_TOKEN {
                let text: String = map.next_value()?;
                return Ok(differs(matches!(self.0, Value::Number(n) if same_number(&n.to_string(), &text))));
            }
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!("pack.json repeats the member \"{key}\"")));
            }
            match expected.and_then(|m| m.get(&key)).filter(|_| found.is_none()) {
                Some(e) => found = map.next_value_seed(Same(e))?.map(|rest| under(&key, rest)),
                None => {
                    map.next_value::<IgnoredAny>()?;
                    if found.is_none() {
                        found = Some(if expected.is_some() { under(&key, String::new()) } else { String::new() });
                    }
                }
            }
        }
        Ok(found.or_else(|| match expected {
            None => Some(String::new()),
            Some(m) => m.keys().find(|k| !seen.contains(*k)).map(|k| under(k, String::new())),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn diff(served: Value, packed: &str) -> Option<String> {
        first_difference(&served, packed.as_bytes(), false).unwrap()
    }

    #[test]
    fn equal_documents_agree_whatever_their_spelling() {
        let packed = r#"{"name":"a","n":[1,2.50,1e2,{"x":null,"y":true}],"s":"\u00e9/"}"#;
        let served = json!({"s": "é/", "n": [1.0, 2.5, 100, {"y": true, "x": null}], "name": "a"});
        assert_eq!(diff(served, packed), None);
        // Integers beyond 2^53 are compared exactly.
        assert_eq!(
            diff(serde_json::from_str(r#"{"n":9007199254740993}"#).unwrap(), r#"{"n":9007199254740992}"#),
            Some("/n".into())
        );
    }

    #[test]
    fn the_first_difference_is_named_by_its_pointer() {
        let packed = r#"{"engines":{"openwop":">=2.0.0 <3.0.0"},"chains":[{"a/b":1},{"c":2}],"name":"x"}"#;
        let base = json!({"engines": {"openwop": ">=2.0.0 <3.0.0"}, "chains": [{"a/b": 1}, {"c": 2}], "name": "x"});
        let mut widened = base.clone();
        widened["engines"]["openwop"] = json!(">=1.0.0 <3.0.0");
        assert_eq!(diff(widened, packed), Some("/engines/openwop".into()));
        let mut edited = base.clone();
        edited["chains"][0]["a/b"] = json!("1");
        assert_eq!(diff(edited, packed), Some("/chains/0/a~1b".into()));
        let mut longer = base.clone();
        longer["chains"].as_array_mut().unwrap().push(json!({}));
        assert_eq!(diff(longer, packed), Some("/chains/2".into()));
        let mut shorter = base.clone();
        shorter["chains"].as_array_mut().unwrap().pop();
        assert_eq!(diff(shorter, packed), Some("/chains/1".into()));
        let mut added = base.clone();
        added["chains"][1]["d"] = json!(3);
        assert_eq!(diff(added, packed), Some("/chains/1/d".into()));
        let mut dropped = base.clone();
        dropped.as_object_mut().unwrap().remove("name");
        assert_eq!(diff(dropped, packed), Some("/name".into()));
        let mut extra = base.clone();
        extra["x-note"] = json!("served only");
        assert_eq!(diff(extra, packed), Some("/x-note".into()));
        let mut retyped = base;
        retyped["engines"] = json!([">=2.0.0 <3.0.0"]);
        assert_eq!(diff(retyped, packed), Some("/engines".into()));
        assert_eq!(diff(json!([]), packed), Some(String::new()));
    }

    #[test]
    fn registry_members_may_differ_and_a_served_only_signing_block_only_when_allowed() {
        let packed = r#"{"name":"x","deprecated":false,"yanked":false}"#;
        let served = json!({"name": "x", "integrity": "sha256-x", "yanked": true, "yankedReason": "bad",
            "deprecated": "use y", "versionDeprecated": true, "deprecationReason": "old", "supersededBy": "2.0.0",
            "advisoryUrl": "https://a", "publishedAt": "2026-01-01T00:00:00Z", "tarballUrl": "/t", "signatureUrl": "/s",
            "manifestUrl": "/m", "sbomUrl": "/b"});
        assert_eq!(diff(served.clone(), packed), None);
        let mut signed = served;
        signed["signing"] = json!({"method": "ed25519", "keyId": "k"});
        assert_eq!(diff(signed.clone(), packed), Some("/signing".into()));
        assert_eq!(first_difference(&signed, packed.as_bytes(), true).unwrap(), None);
        // A packed block must still be served as packed.
        let packed_signed = r#"{"name":"x","signing":{"method":"ed25519","keyId":"j"}}"#;
        assert_eq!(first_difference(&signed, packed_signed.as_bytes(), true).unwrap(), Some("/signing/keyId".into()));
    }

    #[test]
    fn packed_bytes_that_are_not_one_json_document_are_refused() {
        for bad in [r#"{"a":1,"a":1}"#, r#"{"a":{"b":1,"b":1}}"#, "{", r#"{"a":1} x"#] {
            assert!(first_difference(&json!({"a": 1}), bad.as_bytes(), false).is_err(), "{bad}");
        }
    }
}

//! Manifest text to a JSON value. A large chain manifest is mostly its chains' `dag.nodes`
//! and `dag.edges` arrays, so those are parsed on two threads: one pass over the document
//! builds everything else and only delimits the arrays' elements (serde_json's raw values,
//! several times faster than building them), then runs of elements are parsed on this
//! thread and a helper. The value is the one a single-threaded parse builds; a document
//! outside the expected shape, or not valid JSON, is parsed again the plain way, so its
//! error (or value) is exactly that parse's.

use crate::error::{Result, code};
use crate::fsio::json::{Document, Reader};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::cell::Cell;
use std::path::Path;

/// From this size on a manifest's node and edge arrays are parsed on two threads.
pub(super) const SPLIT_PARSE_BYTES: usize = 256 * 1024;
/// Elements parsed as one piece of work: large enough that copying and starting it are
/// noise, small enough that the two threads finish close together.
const RUN_ELEMENTS: usize = 128;
/// The containers above an element of `chains[i].dag.nodes`: the manifest, `chains`, the
/// chain, `dag` and the array itself. Each run is parsed inside as many brackets, so
/// serde_json's nesting limit bites at the same depth as in a whole-document parse.
const ELEMENT_DEPTH: usize = 5;

/// Parse JSON text as written ([`crate::fsio::json`]), reporting line and column (or a byte
/// order mark) on failure.
pub fn parse_json(source: &Path, bytes: &[u8]) -> Result<Document> {
    if bytes.len() >= SPLIT_PARSE_BYTES
        && let Some(doc) = parse_split(bytes)
    {
        return Ok(doc);
    }
    crate::fsio::json::parse(bytes)
        .map_err(|e| crate::fsio::json_file_error(code::PACK_MANIFEST_INVALID, source, bytes, &e))
}

/// An array left empty in the skeleton, to be filled from its elements' text.
struct Deferred<'a> {
    chain: usize,
    member: &'static str,
    elements: Vec<&'a RawValue>,
}

/// The two-thread parse, or `None` when the document is not a chain manifest of the usual
/// shape or not valid JSON (the caller's plain parse then decides).
fn parse_split(bytes: &[u8]) -> Option<Document> {
    let mut deferred = Vec::new();
    let repeated = Cell::new(false);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let values = Reader::new(bytes, &repeated);
    let mut skeleton = Skim { level: Level::Manifest, deferred: &mut deferred, values }.deserialize(&mut de).ok()?;
    de.end().ok()?;
    let runs: Vec<&[&RawValue]> = deferred.iter().flat_map(|d| d.elements.chunks(RUN_ELEMENTS)).collect();
    // One run (say, one huge node) is not worth a thread and its stack and heap.
    let parsed = match runs.len() {
        0 | 1 => runs.into_iter().map(|run| parse_run(bytes, run)).collect(),
        _ => crate::parallel::share_in_order(runs.into_iter(), |_, run| parse_run(bytes, run)),
    };
    let mut parsed = parsed.into_iter();
    let mut repeated_names = repeated.get();
    for d in deferred {
        let count = d.elements.len().div_ceil(RUN_ELEMENTS);
        let mut items = Vec::with_capacity(d.elements.len());
        for run in parsed.by_ref().take(count) {
            let (run, repeated) = run?;
            repeated_names |= repeated;
            items.extend(run);
        }
        *skeleton.get_mut("chains")?.get_mut(d.chain)?.get_mut("dag")?.get_mut(d.member)? = Value::Array(items);
    }
    Some(Document { value: skeleton, repeated_names })
}

/// The elements of `run` (consecutive elements of one array, in `bytes`), parsed from
/// their text as it stands, separators included, inside [`ELEMENT_DEPTH`] brackets; and
/// whether any of them repeats a member name.
fn parse_run(bytes: &[u8], run: &[&RawValue]) -> Option<(Vec<Value>, bool)> {
    let start = offset_in(bytes, run.first()?.get())?;
    let last = run.last()?.get();
    let end = offset_in(bytes, last)? + last.len();
    let mut text = Vec::with_capacity(end - start + 2 * ELEMENT_DEPTH);
    text.extend_from_slice(&[b'['; ELEMENT_DEPTH]);
    text.extend_from_slice(bytes.get(start..end)?);
    text.extend_from_slice(&[b']'; ELEMENT_DEPTH]);
    let Document { mut value, repeated_names } = crate::fsio::json::parse(&text).ok()?;
    for _ in 1..ELEMENT_DEPTH {
        value = match value {
            Value::Array(mut outer) if outer.len() == 1 => outer.pop()?,
            _ => return None,
        };
    }
    match value {
        Value::Array(items) if items.len() == run.len() => Some((items, repeated_names)),
        _ => None,
    }
}

/// Where `part`, a slice of `bytes` handed out by the deserializer, starts in it.
fn offset_in(bytes: &[u8], part: &str) -> Option<usize> {
    let offset = (part.as_ptr() as usize).checked_sub(bytes.as_ptr() as usize)?;
    (offset + part.len() <= bytes.len()).then_some(offset)
}

/// serde_json hands a number to a map visitor under this key (feature
/// `arbitrary_precision`); on the path to the arrays only objects are read, so a member
/// of this name is the document's own, which the plain parse reads.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// An object's members, read by `values` except where `member` takes one over; a repeated
/// name is an error (the plain parse then decides which one stands).
fn read_object<'de, A: MapAccess<'de>>(
    mut map: A,
    values: Reader<'_>,
    mut member: impl FnMut(&str, &mut A) -> std::result::Result<Option<Value>, A::Error>,
) -> std::result::Result<Map<String, Value>, A::Error> {
    let mut out = Map::new();
    while let Some(key) = map.next_key::<String>()? {
        if key == NUMBER_TOKEN || out.contains_key(&key) {
            return Err(de::Error::custom("not a chain manifest of the usual shape"));
        }
        let value = match member(&key, &mut map)? {
            Some(value) => value,
            None => map.next_value_seed(values)?,
        };
        out.insert(key, value);
    }
    Ok(out)
}

/// Where on the path to the node and edge arrays the first pass is: the manifest, its
/// `chains`, chain `i`, or chain `i`'s `dag`.
#[derive(Clone, Copy)]
enum Level {
    Manifest,
    Chains,
    Chain(usize),
    Dag(usize),
}

/// The first pass at one level: every value off the path is built as a plain parse builds
/// it; the node and edge arrays are only delimited, into `deferred`.
struct Skim<'d, 'de> {
    level: Level,
    deferred: &'d mut Vec<Deferred<'de>>,
    /// Reads every value off the path.
    values: Reader<'d>,
}

impl<'de> DeserializeSeed<'de> for Skim<'_, 'de> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        match self.level {
            Level::Chains => d.deserialize_seq(self),
            _ => d.deserialize_map(self),
        }
    }
}

impl<'de> Visitor<'de> for Skim<'_, 'de> {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a chain manifest of the usual shape")
    }

    /// `chains`, the only array on the path.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Value, A::Error> {
        let mut chains = Vec::new();
        while let Some(chain) = seq.next_element_seed(Skim {
            level: Level::Chain(chains.len()),
            deferred: &mut *self.deferred,
            values: self.values,
        })? {
            chains.push(chain);
        }
        Ok(Value::Array(chains))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Value, A::Error> {
        let Skim { level, deferred, values } = self;
        read_object(map, values, |key, map| {
            let next = match (level, key) {
                (Level::Manifest, "chains") => Level::Chains,
                (Level::Chain(chain), "dag") => Level::Dag(chain),
                (Level::Dag(chain), "nodes" | "edges") => {
                    let member = if key == "nodes" { "nodes" } else { "edges" };
                    let elements = map.next_value::<Vec<&'de RawValue>>()?;
                    deferred.push(Deferred { chain, member, elements });
                    return Ok(Some(Value::Array(Vec::new())));
                }
                _ => return Ok(None),
            };
            map.next_value_seed(Skim { level: next, deferred: &mut *deferred, values }).map(Some)
        })
        .map(Value::Object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A manifest of `nodes` nodes padded past [`SPLIT_PARSE_BYTES`], as text, with `dag`
    /// members around the arrays and odd values inside them.
    fn manifest(nodes: usize, dag_tail: &str) -> String {
        let node = |i: usize| {
            format!(
                r#"{{"id": "n{i}", "typeId": "core.noop", "config": {{"big": 123456789012345678901234567890, "f": 1.50, "s": "caf\u00e9 \"{i}\"", "dup": 1, "dup": 2, "deep": [[[{{"a": [null, true, -0.0]}}]]]}}}}"#
            )
        };
        let nodes: Vec<String> = (0..nodes).map(node).collect();
        let edges: Vec<String> =
            (1..nodes.len()).map(|i| format!(r#"{{"from": "n{}", "to": "n{i}"}}"#, i - 1)).collect();
        format!(
            r#"{{"name": "vendor.p", "kind": "workflow-chain", "chains": [{{"chainId": "a", "dag": {{"entry": "n0", "nodes": [
{}
], "edges": [{}]{dag_tail}}}, "label": "A"}}, {{"chainId": "b", "dag": {{"nodes": [], "edges": []}}}}], "padding": "{}"}}"#,
            nodes.join(",\n  "),
            edges.join(","),
            "x".repeat(SPLIT_PARSE_BYTES)
        )
    }

    fn plain(text: &str) -> std::result::Result<Value, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    fn ours(text: &str) -> std::result::Result<Value, String> {
        parse_json(Path::new("pack.json"), text.as_bytes()).map(|d| d.value).map_err(|e| e.message)
    }

    #[test]
    fn a_large_manifest_parses_to_the_value_a_plain_parse_builds() {
        for nodes in [0, 1, RUN_ELEMENTS, RUN_ELEMENTS + 1, 5 * RUN_ELEMENTS + 7] {
            let text = manifest(nodes, "");
            assert!(text.len() >= SPLIT_PARSE_BYTES);
            let split = parse_split(text.as_bytes()).expect("the usual shape takes the two-thread path").value;
            assert_eq!(Ok(&split), plain(&text).as_ref(), "{nodes} nodes");
            // Member order is kept too (serde_json's Value equality ignores it).
            assert_eq!(split.to_string(), plain(&text).unwrap().to_string());
            assert_eq!(split["chains"][0]["dag"]["nodes"].as_array().map(Vec::len), Some(nodes));
        }
    }

    #[test]
    fn unusual_shapes_are_parsed_the_plain_way() {
        let pad = "x".repeat(SPLIT_PARSE_BYTES);
        let cases = [
            format!(r#"[1, "{pad}"]"#),
            format!(r#"{{"chains": 5, "p": "{pad}"}}"#),
            format!(r#"{{"chains": [5, {{"dag": 1}}], "p": "{pad}"}}"#),
            format!(r#"{{"chains": [{{"dag": {{"nodes": {{}}}}}}], "p": "{pad}"}}"#),
            format!(r#"{{"chains": [{{"dag": {{"nodes": [1], "nodes": [2, 3]}}}}], "p": "{pad}"}}"#),
            format!(r#"{{"chains": [], "chains": [{{"dag": {{"nodes": [1]}}}}], "p": "{pad}"}}"#),
            format!(r#"{{"chains": [{{"dag": {{"nodes": [1]}}, "dag": null}}], "p": "{pad}"}}"#),
        ];
        for text in cases {
            assert_eq!(ours(&text).map(|v| v.to_string()), plain(&text).map(|v| v.to_string()));
        }
    }

    #[test]
    fn broken_json_fails_where_and_as_a_plain_parse_says() {
        let good = manifest(300, "");
        let broken = [
            good.replacen(r#""n150""#, r#""n150"#, 1),
            good.replacen(r#""n20", "typeId""#, r#""n20" "typeId""#, 1),
            good.replacen(r#"], "edges""#, r#"],, "edges""#, 1),
            format!("{good} trailing"),
            good[..good.len() / 2].to_string(),
        ];
        for (case, text) in broken.iter().enumerate() {
            let Err(expected) = plain(text) else { panic!("case {case} is not broken") };
            let line_col = expected.rsplit_once(" at line ").map(|(_, at)| at.to_string()).unwrap();
            let Err(message) = ours(text) else { panic!("case {case} was accepted") };
            assert!(message.contains(&line_col), "{message} / {expected}");
        }
    }

    #[test]
    fn the_nesting_limit_is_the_plain_parse_s_for_nodes_too() {
        // The deepest nesting inside a node's config that a plain parse takes: a node sits
        // five containers down, so it is under serde_json's 128 by the node's own levels.
        let nest = |levels: usize| format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        let with_nest =
            |levels: usize| manifest(300, "").replacen(r#""dup": 1,"#, &format!(r#""nest": {},"#, nest(levels)), 1);
        let deepest = (1..200).find(|&k| plain(&with_nest(k + 1)).is_err()).expect("serde_json has a limit");
        assert!(deepest < 128 - 5, "{deepest}");
        let (fits, too_deep) = (with_nest(deepest), with_nest(deepest + 1));
        assert_eq!(ours(&fits).map(|v| v.to_string()), plain(&fits).map(|v| v.to_string()));
        let Err(refused) = ours(&too_deep) else { panic!("one level more is accepted") };
        assert!(refused.contains("recursion limit exceeded"), "{refused}");
    }

    #[test]
    fn the_value_is_the_same_whichever_way_each_chain_is_shaped() {
        let text = manifest(2 * RUN_ELEMENTS, r#", "nodes": [{"id": "again"}]"#);
        // A repeated `nodes` member: the later one stands, as in a plain parse.
        assert_eq!(ours(&text).map(|v| v.to_string()), plain(&text).map(|v| v.to_string()));
        assert_eq!(ours(&text).unwrap()["chains"][0]["dag"]["nodes"], json!([{"id": "again"}]));
    }

    /// Up to three one-byte edits (insert, replace or delete a JSON-significant byte)
    /// anywhere in a large manifest.
    fn edits() -> impl proptest::strategy::Strategy<Value = Vec<(f64, u8, u8)>> {
        use proptest::prelude::*;
        let significant = prop::sample::select(b"[]{}\",:\\ 0-eE.tn\n".to_vec());
        prop::collection::vec((0.0..1.0f64, 0u8..3, significant), 1..=3)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn any_edit_parses_or_fails_as_a_plain_parse_does(edits in edits()) {
            // Nodes, not padding, fill it, so that most edits land in or between them.
            let mut text = manifest(11 * RUN_ELEMENTS, "").replace(&"x".repeat(SPLIT_PARSE_BYTES), "").into_bytes();
            proptest::prop_assert!(text.len() >= SPLIT_PARSE_BYTES);
            for (at, op, byte) in edits {
                let i = ((text.len() - 1) as f64 * at) as usize;
                match op {
                    0 => text.insert(i, byte),
                    1 => text[i] = byte,
                    _ => _ = text.remove(i),
                }
            }
            let text = String::from_utf8_lossy(&text).into_owned();
            match (ours(&text), plain(&text)) {
                (Ok(a), Ok(b)) => proptest::prop_assert_eq!(a.to_string(), b.to_string()),
                (Err(a), Err(b)) => {
                    let at = b.rsplit_once(" at line ").map(|(_, at)| at.to_string()).unwrap_or_default();
                    proptest::prop_assert!(a.contains(&at), "{} / {}", a, b);
                }
                (a, b) => proptest::prop_assert!(false, "ours {:?} plain {:?}", a.is_ok(), b.is_ok()),
            }
        }
    }
}

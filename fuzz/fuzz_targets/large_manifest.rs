#![no_main]
//! Arbitrary bytes as one element of a large chain's `dag.nodes` (and once more in its
//! `dag.edges`), in a manifest padded past the size from which the node and edge arrays are
//! parsed on two threads. Whatever the bytes do to the document's shape, loading must give
//! the value serde_json's own parse of the whole text gives, members in the same order, or
//! fail at the line and column that parse names.

use chainsmith::pack::{LoadOptions, load_bytes};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::path::Path;

/// Nodes on each side of the fuzzed one: enough for several runs of elements.
const NODES_AROUND: usize = 300;

fn manifest(element: &[u8]) -> Vec<u8> {
    let node = |i: usize| format!(r#"{{"id": "n{i}", "typeId": "core.noop", "config": {{"text": "{}"}}}}"#, "x".repeat(400));
    let mut text = br#"{"name": "vendor.fuzz.large", "kind": "workflow-chain", "chains": [{"chainId": "c", "dag": {"nodes": ["#.to_vec();
    for i in 0..NODES_AROUND {
        text.extend_from_slice(node(i).as_bytes());
        text.extend_from_slice(b",\n");
    }
    text.extend_from_slice(element);
    for i in NODES_AROUND..2 * NODES_AROUND {
        text.extend_from_slice(b",\n");
        text.extend_from_slice(node(i).as_bytes());
    }
    text.extend_from_slice(br#"], "edges": [{"from": "n0", "to": "n1"}, "#);
    text.extend_from_slice(element);
    text.extend_from_slice(br#"]}}]}"#);
    text
}

fuzz_target!(|data: &[u8]| {
    let text = manifest(data);
    let plain = serde_json::from_slice::<Value>(&text);
    match (load_bytes(Path::new("fuzz/pack.json"), &text, LoadOptions { skip_schema: true }), plain) {
        (Ok(pack), Ok(value)) => {
            assert_eq!(serde_json::to_string(&*pack.manifest).unwrap(), serde_json::to_string(&value).unwrap());
        }
        (Ok(_), Err(e)) => panic!("loaded a manifest serde_json refuses: {e}"),
        (Err(e), Err(plain)) if e.code == "pack_manifest_invalid" => {
            assert_eq!(e.details.get("line").and_then(Value::as_u64), Some(plain.line() as u64), "{}", e.message);
            assert_eq!(e.details.get("column").and_then(Value::as_u64), Some(plain.column() as u64), "{}", e.message);
        }
        (Err(e), Err(plain)) => panic!("{} where serde_json said {plain}", e.code),
        // A manifest that parses may still be refused for what it holds (not an object...).
        (Err(e), Ok(_)) => assert_ne!(e.code, "pack_manifest_invalid", "{}", e.message),
    }
});

//! Small, legal inputs must not make chainsmith do exponential or amplified work (issue 16,
//! "Exponential and amplified work"). Each case runs the real binary under an address-space
//! cap (tests/common/capped.rs): the process's own fixed cost plus an allowance far below
//! what the unbounded code needed, so a regression aborts instead of answering.
#![cfg(unix)]

mod common;

use common::capped::{MIB, run_with_allowance};
use common::cli::{envelope, s, tail};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

fn stdout_text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn write_json(path: &Path, value: &Value) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec(value).unwrap()).unwrap();
    path.to_path_buf()
}

fn chain_pack(chain: Value) -> Value {
    json!({"name": "vendor.test.amplify", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": [chain]})
}

/// `$defs` d0 … d{levels}: each `allOf` references the next definition twice, so one wrong
/// value breaks the leaf 2^levels times over.
fn doubling_schema(levels: usize, leaf: Value) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..levels {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(format!("d{i}"), json!({"allOf": [{"$ref": next}, {"$ref": next}]}));
    }
    defs.insert(format!("d{levels}"), leaf);
    Value::Object(defs)
}

/// 18 and 20 levels (1.6 KB of schema): 2^18 and 2^20 errors for one wrong value, which took
/// 372 MB and 1.4 GB before. `validate` reports the invalid default, `expand` refuses it.
#[test]
fn doubling_parameter_schemas_report_boundedly_in_validate_and_expand() {
    for levels in [18, 20] {
        let dir = tempfile::tempdir().unwrap();
        let defs = doubling_schema(levels, json!({"type": "integer"}));
        let params = json!({"type": "object", "$defs": defs,
            "properties": {"v": {"$ref": "#/$defs/d0", "default": "not a number"}}});
        let pack = write_json(
            &dir.path().join("p/pack.json"),
            &chain_pack(json!({"chainId": "t.boom", "version": "1.0.0", "label": "l", "description": "d",
                "parameters": params,
                "dag": {"nodes": [{"id": "a", "typeId": "core.x", "config": {"v": "{{params.v}}"}}], "edges": []}})),
        );
        let out = run_with_allowance(64 * MIB, &["validate", "--json", s(&pack)], None);
        assert_eq!(out.status.code(), Some(1), "{levels} levels: {}", tail(&String::from_utf8_lossy(&out.stderr)));
        let findings: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        let defaults: Vec<&Value> = findings.iter().filter(|f| f["code"] == "chain_parameter_invalid").collect();
        assert_eq!(defaults.len(), 1, "{levels} levels: one finding stands for the default: {findings:?}");
        assert!(
            defaults[0]["path"].as_str().unwrap().starts_with("/chains/0/parameters/properties"),
            "{:?}",
            defaults[0]
        );

        let out = run_with_allowance(64 * MIB, &["expand", s(&pack), "--chain", "t.boom"], None);
        let env = envelope(&out);
        assert_eq!(env["error"], "chain_parameter_invalid", "{levels} levels: {env}");
        assert!(env["details"]["errors"].as_array().unwrap().len() <= 101, "{levels} levels");
        // A valid value still expands.
        let out = run_with_allowance(64 * MIB, &["expand", s(&pack), "--chain", "t.boom", "--set", "v=3"], None);
        assert!(out.status.success(), "{levels} levels: {}", tail(&String::from_utf8_lossy(&out.stderr)));
    }
}

/// The same schema as a node type's config schema, checked by `expand --catalog --strict`.
#[test]
fn doubling_config_schemas_report_boundedly() {
    let dir = tempfile::tempdir().unwrap();
    let defs = doubling_schema(20, json!({"type": "integer"}));
    write_json(
        &dir.path().join("catalog/n/config.schema.json"),
        &json!({"type": "object", "$defs": defs, "properties": {"v": {"$ref": "#/$defs/d0"}}}),
    );
    write_json(
        &dir.path().join("catalog/n/pack.json"),
        &json!({"name": "vendor.test.nodes", "version": "1.0.0", "engines": {"openwop": ">=1.0.0"},
            "nodes": [{"typeId": "vendor.test.boom", "version": "1.0.0", "label": "Boom", "description": "d",
                       "category": "action", "configSchemaRef": "config.schema.json"}]}),
    );
    let pack = write_json(
        &dir.path().join("p/pack.json"),
        &chain_pack(json!({"chainId": "t.cfg", "version": "1.0.0", "label": "l", "description": "d",
            "parameters": {"type": "object", "properties": {}},
            "dag": {"nodes": [{"id": "a", "typeId": "vendor.test.boom", "config": {"v": "text"}}], "edges": []}})),
    );
    let catalog = dir.path().join("catalog");
    let out = run_with_allowance(
        64 * MIB,
        &["expand", s(&pack), "--chain", "t.cfg", "--catalog", s(&catalog), "--strict"],
        None,
    );
    let env = envelope(&out);
    assert_eq!(env["error"], "node_config_invalid", "{env}");
    assert!(env["details"]["errors"].as_array().unwrap().len() <= 101, "{env}");
}

/// 128 nodes each substituting one 1 MB array parameter: 5.4 GB for `expand` and 14.5 GB for
/// `inline` before. Above the budget it is refused with its limit; well below it, it works.
#[test]
fn whole_value_copies_are_budgeted_by_what_they_build() {
    let dir = tempfile::tempdir().unwrap();
    let nodes: Vec<Value> = (0..128)
        .map(|i| json!({"id": format!("n{i}"), "typeId": "core.x", "config": {"rows": "{{params.rows}}"}}))
        .collect();
    let pack = write_json(
        &dir.path().join("p/pack.json"),
        &chain_pack(json!({"chainId": "t.copy", "version": "1.0.0", "label": "l", "description": "d",
            "parameters": {"type": "object", "properties": {"rows": {"type": "array"}}},
            "dag": {"nodes": nodes, "edges": []}})),
    );
    // 1 MB of JSON: 500,000 small numbers.
    let rows = format!("{{\"rows\": [{}0]}}", "0,".repeat(500_000));
    let params = dir.path().join("params.json");
    std::fs::write(&params, &rows).unwrap();
    let out_file = dir.path().join("out.json");
    for args in [
        vec!["expand", s(&pack), "--chain", "t.copy", "--params", s(&params)],
        vec!["inline", "--new", "W", s(&pack), "--chain", "t.copy", "--params", s(&params), "-o", s(&out_file)],
    ] {
        let out = run_with_allowance(256 * MIB, &args, None);
        let env = envelope(&out);
        assert_eq!(env["error"], "invalid_request", "{args:?}: {env}");
        assert_eq!(env["details"]["limit"], chainsmith::expand::MAX_SUBSTITUTED_BYTES, "{env}");
    }
    assert!(!out_file.exists());
    // Two uses of a 100 KB value are well within the budget.
    let small = format!("{{\"rows\": [{}0]}}", "0,".repeat(50_000));
    std::fs::write(&params, &small).unwrap();
    let two = write_json(
        &dir.path().join("q/pack.json"),
        &chain_pack(json!({"chainId": "t.copy", "version": "1.0.0", "label": "l", "description": "d",
            "parameters": {"type": "object", "properties": {"rows": {"type": "array"}}},
            "dag": {"nodes": [{"id": "a", "typeId": "core.x", "config": {"rows": "{{params.rows}}"}},
                              {"id": "b", "typeId": "core.x", "config": {"rows": "{{params.rows}}"}}], "edges": []}})),
    );
    let out = run_with_allowance(256 * MIB, &["expand", s(&two), "--chain", "t.copy", "--params", s(&params)], None);
    assert!(out.status.success(), "{}", tail(&String::from_utf8_lossy(&out.stderr)));
    let exp: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(exp["nodes"][1]["config"]["rows"].as_array().unwrap().len(), 50_001);
}

/// One 2 MB config key over an array of 100,000 empty strings (2.3 MB): a pointer per leaf
/// asked for 8 GB while loading, and again in `tool` and for `parameters`.
#[test]
fn pointers_are_not_built_per_leaf() {
    let dir = tempfile::tempdir().unwrap();
    let key = "k".repeat(2 * 1024 * 1024);
    let leaves = vec![""; 100_000];
    let mut config = serde_json::Map::new();
    config.insert(key.clone(), json!(leaves));
    let pack = write_json(
        &dir.path().join("p/pack.json"),
        &chain_pack(json!({"chainId": "t.wide", "version": "1.0.0", "label": "l", "description": "d",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}},
                           "additionalProperties": {"type": "array", "items": {"minLength": 1}}},
            "dag": {"nodes": [{"id": "a", "typeId": "core.x", "config": Value::Object(config)}], "edges": []}})),
    );
    let out = run_with_allowance(160 * MIB, &["validate", s(&pack)], None);
    assert!(out.status.code().is_some(), "validate aborted: {}", tail(&String::from_utf8_lossy(&out.stderr)));
    assert!(stdout_text(&out).contains("pack.json"), "{}", stdout_text(&out));

    let out = run_with_allowance(160 * MIB, &["tool", s(&pack), "--chain", "t.wide", "--format", "miruntime"], None);
    assert!(out.status.success(), "tool: {}", tail(&String::from_utf8_lossy(&out.stderr)));

    // Parameter values of the same shape, every leaf invalid.
    let mut values = serde_json::Map::new();
    values.insert(key, json!(leaves));
    let params = write_json(&dir.path().join("params.json"), &Value::Object(values));
    let out = run_with_allowance(160 * MIB, &["expand", s(&pack), "--chain", "t.wide", "--params", s(&params)], None);
    let env = envelope(&out);
    assert_eq!(env["error"], "chain_parameter_invalid", "{}", tail(&env.to_string()));
}

/// How many times `file` is opened while `f` runs, counted by inotify. Open and close
/// events are both watched so that consecutive opens never coalesce into one event.
#[cfg(target_os = "linux")]
fn opens_during<T>(file: &Path, f: impl FnOnce() -> T) -> (T, usize) {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: plain syscalls on a descriptor this function owns; the buffer is aligned for
    // `inotify_event` and each event is read within the bytes the kernel returned.
    unsafe {
        let fd = libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC);
        assert!(fd >= 0, "inotify_init1: {}", std::io::Error::last_os_error());
        let path = std::ffi::CString::new(file.as_os_str().as_bytes()).unwrap();
        let wd = libc::inotify_add_watch(fd, path.as_ptr(), libc::IN_OPEN | libc::IN_CLOSE_NOWRITE);
        assert!(wd >= 0, "inotify_add_watch: {}", std::io::Error::last_os_error());
        let out = f();
        let mut opens = 0;
        let mut buf = vec![0u64; 4096];
        loop {
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len() * 8);
            if n <= 0 {
                break;
            }
            let bytes = buf.as_ptr().cast::<u8>();
            let mut at = 0;
            while at < n as usize {
                let event = std::ptr::read_unaligned(bytes.add(at).cast::<libc::inotify_event>());
                assert_eq!(event.mask & libc::IN_Q_OVERFLOW, 0, "inotify queue overflowed");
                opens += usize::from(event.mask & libc::IN_OPEN != 0);
                at += std::mem::size_of::<libc::inotify_event>() + event.len as usize;
            }
        }
        libc::close(fd);
        (out, opens)
    }
}

/// 250 node types sharing one 1 MB config schema: read and parsed 250 times before (over
/// 8 GB); read, parsed and compiled once now.
#[test]
#[cfg(target_os = "linux")]
fn a_shared_schema_file_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let properties: serde_json::Map<String, Value> =
        (0..30_000).map(|i| (format!("p{i}"), json!({"type": "string", "maxLength": 64}))).collect();
    let schema = json!({"type": "object", "properties": properties});
    assert!(serde_json::to_vec(&schema).unwrap().len() > 1024 * 1024);
    write_json(&dir.path().join("catalog/n/shared.schema.json"), &schema);
    let types: Vec<Value> = (0..250)
        .map(|i| {
            json!({"typeId": format!("vendor.test.t{i}"), "version": "1.0.0", "label": "T", "description": "d",
                         "category": "action", "configSchemaRef": "shared.schema.json"})
        })
        .collect();
    write_json(
        &dir.path().join("catalog/n/pack.json"),
        &json!({"name": "vendor.test.nodes", "version": "1.0.0", "engines": {"openwop": ">=1.0.0"}, "nodes": types}),
    );
    let nodes: Vec<Value> = (0..250)
        .map(|i| json!({"id": format!("n{i}"), "typeId": format!("vendor.test.t{i}"), "config": {"p1": "x"}}))
        .collect();
    let pack = write_json(
        &dir.path().join("p/pack.json"),
        &chain_pack(json!({"chainId": "t.many", "version": "1.0.0", "label": "l", "description": "d",
            "parameters": {"type": "object", "properties": {}}, "dag": {"nodes": nodes, "edges": []}})),
    );
    let catalog = dir.path().join("catalog");
    let (out, opens) = opens_during(&dir.path().join("catalog/n/shared.schema.json"), || {
        run_with_allowance(
            256 * MIB,
            &["expand", s(&pack), "--chain", "t.many", "--catalog", s(&catalog), "--strict"],
            None,
        )
    });
    assert!(out.status.success(), "{}", tail(&String::from_utf8_lossy(&out.stderr)));
    assert_eq!(opens, 1, "the shared schema file is opened once");
}

/// One 2 MB pack in a registry named by 40 spellings (`reg`, `./reg`, `././reg`, …): 3.9 GB
/// before, loaded once now.
#[test]
#[cfg(target_os = "linux")]
fn a_registry_named_many_ways_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let nodes: Vec<Value> =
        (0..20_000).map(|i| json!({"id": format!("n{i}"), "typeId": "core.x", "config": {"i": i}})).collect();
    let pack = chain_pack(json!({"chainId": "t.big", "version": "1.0.0", "label": "l", "description": "d",
        "parameters": {"type": "object", "properties": {}}, "dag": {"nodes": nodes, "edges": []}}));
    assert!(serde_json::to_vec(&pack).unwrap().len() > 1024 * 1024);
    write_json(&dir.path().join("reg/vendor.test.amplify/1.0.0/pack.json"), &pack);
    let spellings: Vec<String> = (1..40).map(|n| format!("{}reg", "./".repeat(n))).collect();
    let lock = json!({"lockfileVersion": 1, "generatedAt": "2026-01-01T00:00:00Z", "registry": "reg",
        "fallbackRegistries": spellings,
        "packs": [{"name": "vendor.test.amplify", "version": "1.0.0", "integrity": format!("sha256-{}=", "A".repeat(43))}]});
    let lockfile = write_json(&dir.path().join("pack-lock.json"), &lock);
    let manifest = dir.path().join("reg/vendor.test.amplify/1.0.0/pack.json");
    let (out, opens) = opens_during(&manifest, || run_with_allowance(256 * MIB, &["resolve", s(&lockfile)], None));
    assert!(out.status.success(), "{}", tail(&String::from_utf8_lossy(&out.stderr)));
    let resolved: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(resolved["packs"][0]["name"], "vendor.test.amplify", "{resolved}");
    assert_eq!(opens, 1, "the pack is opened once, whatever the registry is called");
}

/// A tarball of one small file followed by tens of MiB of zero padding (a few KiB packed):
/// the whole tar used to be inflated into one buffer (grown to 128 MiB) before its entries
/// were read; now it is read as it inflates, the padding passing through an 8 KiB block. The
/// same with padding past the 64 MiB limit is refused as `too_large`, again without holding it.
#[test]
fn a_tarball_is_read_as_it_inflates_not_inflated_whole_first() {
    use std::io::Read as _;
    let dir = tempfile::tempdir().unwrap();
    let padded_tgz = |padding: u64| {
        let mut builder = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_ustar();
        header.set_size(5);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, "README.md", &b"hello"[..]).unwrap();
        let tar = builder.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut gz, &tar).unwrap();
        std::io::copy(&mut std::io::repeat(0).take(padding), &mut gz).unwrap();
        gz.finish().unwrap()
    };
    for (padding, refusal) in [(60 * MIB, "pack_not_found"), (80 * MIB, "unpacks to more than")] {
        let file = dir.path().join(format!("padded-{padding}.tgz"));
        std::fs::write(&file, padded_tgz(padding)).unwrap();
        let out = run_with_allowance(32 * MIB, &["validate", "--json", s(&file)], None);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "validate aborted or passed: {}", tail(&stderr));
        let report = stdout_text(&out);
        assert!(report.contains(refusal), "{report}");
    }
}

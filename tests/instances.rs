//! Chain instances re-parameterised and upgraded from the command line, keeping the user's
//! edits (issue 36): `chainsmith upgrade` (and its old name `reparam`), its conflicts and its
//! coded refusals, each of which writes nothing.

mod common;
#[path = "common/growth.rs"]
mod growth;

use common::cli::{envelope, ok_json, run, s};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn support_desk() -> PathBuf {
    common::support_desk::dir()
}

fn read(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn write(p: &Path, v: &Value) {
    std::fs::write(p, serde_json::to_vec_pretty(v).unwrap()).unwrap();
}

/// The bundled support-desk pack as version 1.1.0 of itself (`common::support_desk`).
fn support_desk_1_1(dir: &Path) -> PathBuf {
    common::support_desk::v1_1_with(dir, |_| {})
}

/// A workflow start → Triage queue (expansionId t001, queue billing) → finish.
fn triage_workflow(dir: &Path) -> PathBuf {
    let parent = dir.join("parent.json");
    write(
        &parent,
        &json!({"id": "p", "name": "P", "version": "1.0.0",
            "nodes": [{"id": "start", "typeId": "core.start", "position": {"x": 0, "y": 0}},
                      {"id": "finish", "typeId": "core.end", "position": {"x": 1600, "y": 0}}],
            "edges": [{"id": "go", "sourceNodeId": "start", "targetNodeId": "finish"}]}),
    );
    let wf = dir.join("wf.json");
    let pack = support_desk();
    let out = run(&[
        "inline",
        s(&parent),
        s(&pack),
        "--chain",
        "support.triage",
        "--set",
        "queueName=billing",
        "--expansion-id",
        "t001",
        "--between",
        "start",
        "finish",
        "-o",
        s(&wf),
    ]);
    ok_json(&out);
    wf
}

fn node<'a>(doc: &'a Value, id: &str) -> Option<&'a Value> {
    doc["nodes"].as_array().unwrap().iter().find(|n| n["id"] == id)
}

/// Set the Classify node's threshold by hand, as a user editing the file or the inspector.
fn edit_threshold(wf: &Path, value: f64) {
    let mut doc = read(wf);
    let classify = doc["nodes"].as_array_mut().unwrap().iter_mut().find(|n| n["id"] == "support_triage_t001_classify");
    classify.unwrap()["config"]["threshold"] = json!(value);
    write(wf, &doc);
}

#[test]
fn upgrade_keeps_a_manual_config_edit_and_records_the_new_version() {
    let dir = tempfile::tempdir().unwrap();
    let wf = triage_workflow(dir.path());
    edit_threshold(&wf, 0.9);
    let v11 = support_desk_1_1(dir.path());
    let out_path = dir.path().join("out.json");
    let out = run(&["upgrade", s(&wf), "--pack", s(&support_desk()), "--pack", s(&v11), "-o", s(&out_path), "--json"]);
    let summary = ok_json(&out);
    let inst = &summary["instances"][0];
    assert_eq!(
        (inst["instance"].as_str(), inst["from"].as_str(), inst["to"].as_str()),
        (Some("support_triage_t001_"), Some("1.0.0"), Some("1.1.0"))
    );
    assert_eq!(
        inst["edits"],
        json!([{"kind": "member", "node": "support_triage_t001_classify", "member": "/config/threshold", "base": 0.7, "mine": 0.9}])
    );

    let doc = read(&out_path);
    let classify = node(&doc, "support_triage_t001_classify").unwrap();
    assert_eq!(classify["config"]["threshold"], 0.9, "the manual edit is kept");
    assert_eq!(
        node(&doc, "support_triage_t001_fetch").unwrap()["config"]["timeoutMs"],
        30000,
        "the new version's change"
    );
    assert!(node(&doc, "support_triage_t001_page").is_none(), "removed by the new version");
    assert_eq!(
        node(&doc, "support_triage_t001_audit").unwrap()["config"]["sheet"],
        "audit",
        "added by the new version"
    );
    let recorded = &doc["metadata"]["customProperties"]["chainsmith"]["instances"][0];
    assert_eq!((recorded["chainVersion"].as_str(), recorded["packVersion"].as_str()), (Some("1.1.0"), Some("1.1.0")));
    // The parent wiring stays on the same fragment nodes: start → fetch, log → finish.
    let edges: Vec<(&str, &str)> = doc["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["sourceNodeId"].as_str().unwrap(), e["targetNodeId"].as_str().unwrap()))
        .collect();
    for want in [
        ("start", "support_triage_t001_fetch"),
        ("support_triage_t001_log", "finish"),
        ("support_triage_t001_log", "support_triage_t001_audit"),
    ] {
        assert!(edges.contains(&want), "{want:?} in {edges:?}");
    }
    assert!(!edges.iter().any(|(a, b)| a.ends_with("_page") || b.ends_with("_page")), "{edges:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("instance_edge_detached"), "page → finish went with page");
}

#[test]
fn a_member_changed_on_both_sides_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let wf = triage_workflow(dir.path());
    edit_threshold(&wf, 0.9);
    let out_path = dir.path().join("out.json");
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> =
            ["upgrade", s(&wf), "--pack", s(&support_desk()), "--set", "threshold=0.8", "-o", s(&out_path)]
                .iter()
                .map(|x| x.to_string())
                .collect();
        a.extend(extra.iter().map(|x| x.to_string()));
        a
    };
    let go = |extra: &[&str]| run(&args(extra).iter().map(String::as_str).collect::<Vec<_>>());
    let out = go(&[]);
    let e = envelope(&out);
    assert_eq!(e["error"], "upgrade_conflict");
    assert_eq!(
        e["details"]["conflicts"],
        json!([{"node": "support_triage_t001_classify", "member": "/config/threshold", "mine": 0.9, "new": 0.8, "base": 0.7}])
    );
    assert!(!out_path.exists(), "nothing is written");

    ok_json(&go(&["--prefer", "mine", "--json"]));
    assert_eq!(node(&read(&out_path), "support_triage_t001_classify").unwrap()["config"]["threshold"], 0.9);
    let summary = ok_json(&go(&["--prefer", "new", "--json"]));
    assert_eq!(summary["instances"][0]["conflicts"][0]["chosen"], "new");
    let doc = read(&out_path);
    assert_eq!(node(&doc, "support_triage_t001_classify").unwrap()["config"]["threshold"], 0.8);
    assert_eq!(doc["metadata"]["customProperties"]["chainsmith"]["instances"][0]["params"]["threshold"], 0.8);
}

/// Item 1 from the command line: the old `reparam` re-expanded an OpenWOP app workflow
/// and replaced what was edited by hand; it now keeps it.
#[test]
fn reparam_keeps_a_hand_edit_of_an_app_workflow() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = repo().join("tests/fixtures/app");
    let mut doc = read(&fixture.join("ticket-triage.app-workflow.json"));
    doc["nodes"][1]["config"]["provider"] = json!("openai");
    let wf = dir.path().join("triage.json");
    write(&wf, &doc);
    let out_path = dir.path().join("out.json");
    let pack = fixture.join("ticket-triage.json");
    let out = run(&["reparam", s(&wf), "--pack", s(&pack), "--set", "queue=sales", "-o", s(&out_path)]);
    ok_json(&out);
    let written = read(&out_path);
    assert_eq!(written["nodes"][1]["config"]["provider"], "openai", "the hand edit is kept");
    assert_eq!(written["nodes"][0]["config"]["url"], "https://tickets.example/sales?limit=40", "the new value applies");
}

#[test]
fn bad_input_is_refused_with_a_code_naming_the_instance_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let wf = triage_workflow(dir.path());
    let v11 = support_desk_1_1(dir.path());
    let out_path = dir.path().join("out.json");
    let o = s(&out_path).to_owned();
    let (desk, data_ops) = (support_desk(), repo().join("packs/vendor.chainsmith.data-ops"));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--pack", s(&desk), "--instance", "nope"], "instance_not_found"),
        (vec!["--pack", s(&desk), "--to", "9.9.9"], "chain_version_not_found"),
        // Only the new version: the recorded one is needed to tell the edits apart.
        (vec!["--pack", s(&v11)], "instance_base_unavailable"),
        // A pack that does not hold the instance's chain.
        (vec!["--pack", s(&data_ops)], "instance_pack_mismatch"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["upgrade", s(&wf)];
        args.extend(extra);
        args.extend(["-o", o.as_str()]);
        let e = envelope(&run(&args));
        assert_eq!(e["error"], want, "{args:?}: {e}");
        if want != "instance_not_found" {
            assert_eq!(e["details"]["instance"], "support_triage_t001_", "{e}");
        }
        assert!(!out_path.exists(), "{args:?} wrote nothing");
    }
}

/// A pack with two chains whose first, `c.one`, has a parameter of each sort and a
/// three-node DAG a → b → c (a the entry node, c the exit node).
fn semver_base() -> Value {
    json!({
        "name": "vendor.acme.semver", "version": "1.0.0", "kind": "workflow-chain", "description": "d",
        "license": "MIT", "engines": {"openwop": ">=1.0.0"},
        "chains": [
            {"chainId": "c.one", "version": "1.0.0", "label": "One", "description": "first",
             "capabilities": ["side-effectful"],
             "parameters": {"type": "object", "required": ["mode"], "properties": {
                 "mode": {"type": "string", "enum": ["a", "b", "c"], "default": "a"},
                 "count": {"type": "number", "minimum": 0, "maximum": 100, "default": 1},
                 "note": {"type": "string", "default": "n"},
                 "code": {"type": "string", "pattern": "^[a-z]+$", "default": "x"}}},
             "outputs": {"result": {"type": "string"}},
             "dag": {"nodes": [
                 {"id": "a", "typeId": "core.identity", "config": {"m": "{{params.mode}}"}},
                 {"id": "b", "typeId": "core.identity", "config": {"v": 1}},
                 {"id": "c", "typeId": "core.identity"}],
              "edges": [{"from": "a.out", "to": "b.in"}, {"from": "b.out", "to": "c.in"}]}},
            {"chainId": "c.two", "version": "1.0.0", "label": "Two", "description": "second",
             "dag": {"nodes": [{"id": "x", "typeId": "core.identity"}]}}
        ]
    })
}

/// Each row of docs/upgrade.md's table: a change to the base pack, its kind and the level
/// the table gives it (written here from the table, not read from the code).
/// A row of the table: the kind, its level, and a change to the base pack of that kind.
type Row = (&'static str, &'static str, fn(&mut Value));

fn semver_rows() -> Vec<Row> {
    fn one(m: &mut Value) -> &mut Value {
        &mut m["chains"][0]
    }
    fn param<'a>(m: &'a mut Value, name: &str) -> &'a mut Value {
        &mut m["chains"][0]["parameters"]["properties"][name]
    }
    vec![
        ("chain_removed", "major", |m| {
            m["chains"].as_array_mut().unwrap().pop();
        }),
        ("parameter_removed", "major", |m| {
            one(m)["parameters"]["properties"].as_object_mut().unwrap().remove("count");
        }),
        ("parameter_renamed", "major", |m| {
            let props = one(m)["parameters"]["properties"].as_object_mut().unwrap();
            let note = props.remove("note").unwrap();
            props.insert("memo".into(), note);
        }),
        ("parameter_type_narrowed", "major", |m| param(m, "count")["type"] = json!("integer")),
        ("enum_values_removed", "major", |m| param(m, "mode")["enum"] = json!(["a", "b"])),
        ("bounds_tightened", "major", |m| param(m, "count")["maximum"] = json!(50)),
        ("pattern_added", "major", |m| param(m, "note")["pattern"] = json!("^n")),
        ("parameter_required_without_default", "major", |m| {
            one(m)["parameters"]["properties"]["must"] = json!({"type": "string"});
            one(m)["parameters"]["required"] = json!(["mode", "must"]);
        }),
        ("parameter_schema_changed", "major", |m| param(m, "note")["format"] = json!("email")),
        ("entry_node_removed", "major", |m| {
            one(m)["dag"]["nodes"].as_array_mut().unwrap().remove(0);
            one(m)["dag"]["edges"].as_array_mut().unwrap().remove(0);
        }),
        ("exit_node_removed", "major", |m| {
            one(m)["dag"]["nodes"].as_array_mut().unwrap().pop();
            one(m)["dag"]["edges"].as_array_mut().unwrap().pop();
        }),
        ("output_removed", "major", |m| one(m)["outputs"] = json!({})),
        ("chain_added", "minor", |m| {
            m["chains"]
                .as_array_mut()
                .unwrap()
                .push(json!({"chainId": "c.three", "version": "1.0.0", "label": "Three",
                "description": "third", "dag": {"nodes": [{"id": "y", "typeId": "core.identity"}]}}));
        }),
        ("parameter_added", "minor", |m| one(m)["parameters"]["properties"]["extra"] = json!({"type": "boolean"})),
        ("parameter_made_optional", "minor", |m| one(m)["parameters"]["required"] = json!([])),
        ("parameter_type_widened", "minor", |m| param(m, "count")["type"] = json!(["number", "string"])),
        ("enum_values_added", "minor", |m| param(m, "mode")["enum"] = json!(["a", "b", "c", "d"])),
        ("bounds_loosened", "minor", |m| param(m, "count")["maximum"] = json!(200)),
        ("pattern_removed", "minor", |m| {
            param(m, "code").as_object_mut().unwrap().remove("pattern");
        }),
        ("default_changed", "minor", |m| param(m, "mode")["default"] = json!("b")),
        ("dag_changed", "minor", |m| one(m)["dag"]["nodes"][1]["config"]["v"] = json!(2)),
        ("output_added", "minor", |m| one(m)["outputs"]["extra"] = json!({"type": "number"})),
        ("chain_changed", "minor", |m| one(m)["capabilities"] = json!(["side-effectful", "network"])),
        ("requirements_changed", "minor", |m| m["engines"] = json!({"openwop": ">=1.1.0"})),
        ("text_changed", "patch", |m| one(m)["label"] = json!("One, renamed")),
    ]
}

#[test]
fn every_row_of_the_semver_table_gets_its_level_from_diff_json() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.json");
    write(&old, &semver_base());
    let rows = semver_rows();
    assert_eq!(rows.len(), 25, "one case per row of the table in docs/upgrade.md");
    for (kind, level, change) in rows {
        let mut m = semver_base();
        change(&mut m);
        m["version"] = json!("1.0.1");
        let new = dir.path().join(format!("{kind}.json"));
        write(&new, &m);
        let d = ok_json(&run(&["diff", s(&old), s(&new), "--json"]));
        assert_eq!(d["required"], level, "{kind}: {d}");
        let kinds: Vec<&str> = d["changes"].as_array().unwrap().iter().map(|c| c["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, [kind], "{kind}: {d}");
        assert_eq!(d["changes"][0]["level"], level);
    }
    let same = ok_json(&run(&["diff", s(&old), s(&old), "--json"]));
    assert_eq!(same, json!({"required": "none", "changes": []}));
}

#[test]
fn check_version_refuses_a_bump_smaller_than_the_changes_need() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.json");
    write(&old, &semver_base());
    let mut m = semver_base();
    m["chains"][0]["parameters"]["properties"].as_object_mut().unwrap().remove("count");
    for (version, ok) in [("1.0.1", false), ("1.1.0", false), ("2.0.0", true)] {
        m["version"] = json!(version);
        let new = dir.path().join(format!("{version}.json"));
        write(&new, &m);
        let out = run(&["pack", "check-version", s(&old), s(&new)]);
        if ok {
            assert_eq!(ok_json(&out)["bump"], "major");
        } else {
            let e = envelope(&out);
            assert_eq!(
                (e["error"].as_str(), e["details"]["required"].as_str()),
                (Some("version_bump_too_small"), Some("major"))
            );
            assert_eq!(e["details"]["changes"][0]["kind"], "parameter_removed");
        }
    }
}

#[test]
fn two_workflows_diff_by_node_edge_and_member() {
    let dir = tempfile::tempdir().unwrap();
    let wf = triage_workflow(dir.path());
    let edited = dir.path().join("edited.json");
    let mut doc = read(&wf);
    doc["nodes"].as_array_mut().unwrap().retain(|n| n["id"] != "support_triage_t001_page");
    write(&edited, &doc);
    edit_threshold(&edited, 0.9);
    let d = ok_json(&run(&["diff", s(&wf), s(&edited), "--json"]));
    assert_eq!(d["nodes"]["removed"], json!(["support_triage_t001_page"]));
    assert_eq!(
        d["nodes"]["changed"],
        json!([{"node": "support_triage_t001_classify", "member": "/config/threshold", "old": 0.7, "new": 0.9}])
    );
    assert_eq!(d["nodes"]["added"], json!([]));
}

/// A one-chain pack folder with a `count` parameter (pinned typeIds: a valid v2 manifest
/// once signed), without `count` when `drop_count`.
fn publishable(root: &Path, version: &str, drop_count: bool) -> PathBuf {
    let dir = root.join(format!("src-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut props = json!({"text": {"type": "string", "default": "hi"}, "count": {"type": "integer", "default": 1}});
    if drop_count {
        props.as_object_mut().unwrap().remove("count");
    }
    let manifest = json!({
        "name": "vendor.acme.tiles", "version": version, "kind": "workflow-chain", "description": "Echo tiles.",
        "license": "MIT", "engines": {"openwop": ">=1.0.0 <3.0.0"},
        "chains": [{"chainId": "tiles.echo", "version": version, "label": "Echo", "description": "Say it back.",
            "parameters": {"type": "object", "properties": props},
            "dag": {"nodes": [{"id": "say", "typeId": "core.identity@1.0.0", "config": {"value": "{{params.text}}"}}]}}],
    });
    write(&dir.join("pack.json"), &manifest);
    std::fs::write(dir.join("README.md"), "# tiles\n").unwrap();
    dir
}

#[test]
fn publish_refuses_a_minor_bump_that_removes_a_parameter_and_takes_a_major_one() {
    let dir = tempfile::tempdir().unwrap();
    let key = ok_json(&run(&["keygen", s(&dir.path().join("acme"))]))["privateKey"].as_str().unwrap().to_owned();
    let reg = dir.path().join("reg");
    let publish = |pack: &Path, extra: &[&str]| {
        let mut args =
            vec!["pack", "publish", s(pack), "--registry", s(&reg), "--key", key.as_str(), "--key-id", "acme-1"];
        args.extend_from_slice(extra);
        run(&args)
    };
    ok_json(&publish(&publishable(dir.path(), "1.0.0", false), &[]));
    let e = envelope(&publish(&publishable(dir.path(), "1.1.0", true), &[]));
    assert_eq!(
        (e["error"].as_str(), e["details"]["required"].as_str()),
        (Some("version_bump_too_small"), Some("major"))
    );
    assert_eq!(e["details"]["changes"][0]["kind"], "parameter_removed");
    let index = read(&reg.join("v2/packs/vendor.acme.tiles/index.json"));
    assert!(!index.to_string().contains("1.1.0"), "nothing published: {index}");

    let major = ok_json(&publish(&publishable(dir.path(), "2.0.0", true), &[]));
    assert_eq!(
        major["versionCheck"],
        json!({"against": "1.0.0", "required": "major", "bump": "major", "overridden": false, "changes": 1})
    );
    let minor = ok_json(&publish(&publishable(dir.path(), "2.1.0", false), &[]));
    assert_eq!(minor["versionCheck"]["required"], "minor", "adding an optional parameter is minor");
    // A patch that narrows a parameter (a pattern added) is refused, unless overridden.
    let mut m = read(&publishable(dir.path(), "2.1.1", false).join("pack.json"));
    m["chains"][0]["parameters"]["properties"]["text"]["pattern"] = json!("^h");
    let narrowed = dir.path().join("src-2.1.1");
    write(&narrowed.join("pack.json"), &m);
    // Two published versions compared by name.
    let d =
        ok_json(&run(&["diff", "vendor.acme.tiles@1.0.0", "vendor.acme.tiles@2.0.0", "--registry", s(&reg), "--json"]));
    assert_eq!((d["required"].as_str(), d["changes"][0]["kind"].as_str()), (Some("major"), Some("parameter_removed")));
    assert_eq!(envelope(&publish(&narrowed, &[]))["error"], "version_bump_too_small");
    // The override publishes, and says so.
    let forced = ok_json(&publish(&narrowed, &["--allow-small-bump"]));
    assert_eq!(
        (forced["versionCheck"]["overridden"].as_bool(), forced["versionCheck"]["bump"].as_str()),
        (Some(true), Some("patch"))
    );
}

/// Diff and upgrade are linear in the chain's size (item 7): each timed at three sizes 2×
/// apart, every doubling must cost less than 3× (`common/growth.rs`; no wall-clock limit).
mod growth_of {
    use super::*;
    use crate::common::big_chain::Layout;
    use crate::growth::assert_near_linear;
    use chainsmith::expand::{ExpandOptions, expand};
    use chainsmith::instance::{Resolutions, reexpand};
    use chainsmith::pack::{LoadOptions, Pack, load_bytes};
    use chainsmith::workflow::{SpliceOptions, Workflow, splice};

    fn manifest(n: usize, version: u32) -> Value {
        crate::common::big_chain::manifest(n, version, Layout::Line)
    }

    fn pack(m: &Value) -> Pack {
        load_bytes(Path::new("big.json"), m.to_string().as_bytes(), LoadOptions { skip_schema: true }).unwrap()
    }

    #[test]
    fn diffing_two_versions_of_a_chain() {
        let make = |n: usize| (manifest(n, 1), manifest(n, 2));
        assert_near_linear("pack diff", 4_000, make, |(a, b)| {
            let d = chainsmith::diff::pack::diff_packs(a, b, None);
            assert_eq!(d.required().as_str(), "minor");
        });
    }

    #[test]
    fn upgrading_an_instance_that_keeps_an_edit_on_every_node() {
        let make = |n: usize| {
            let (p1, p2) = (pack(&manifest(n, 1)), pack(&manifest(n, 2)));
            let o = ExpandOptions { expansion_id: Some("k1".into()), ..Default::default() };
            let values = || json!({"topic": "a"}).as_object().unwrap().clone();
            let base = expand(&p1, "grow.big", values(), &o).unwrap();
            let new = expand(&p2, "grow.big", values(), &o).unwrap();
            let mut wf = Workflow::new("w");
            let key = splice(&mut wf, &base, &SpliceOptions::default()).unwrap().instance.key();
            for i in 0..n {
                let ix = wf.node(&format!("grow_big_k1_n{i}")).unwrap();
                wf.graph[ix].edit(|node| node["config"]["mine"] = json!(i));
            }
            (wf, key, base, new)
        };
        assert_near_linear("instance upgrade", 2_000, make, |(wf, key, base, new)| {
            let mut wf = wf.clone();
            let done = reexpand(&mut wf, key, base, new, &Resolutions::default()).unwrap();
            assert_eq!(done.instance.chain_version, "2.0.0");
        });
    }
}

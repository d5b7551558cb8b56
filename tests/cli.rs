//! The CLI contract: exit codes, the error envelope as the last stderr line, output shapes.

mod common;

use chainsmith::schemas::Schema;
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_chainsmith"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap()
}

fn envelope(out: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    let env: Value =
        serde_json::from_str(last).unwrap_or_else(|e| panic!("last stderr line is not JSON ({e}): {stderr}"));
    assert!(Schema::ErrorEnvelope.violations(&env).is_empty(), "{env}");
    env
}

fn stdout_json(out: &Output) -> Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

const SUPPORT: &str = "packs/vendor.chainsmith.support-desk/pack.json";
const TRAVEL: &str = "packs/vendor.chainsmith.travel-booking/pack.json";

#[test]
fn validate_exit_codes_and_one_line_per_finding() {
    let ok = run(&["validate", "packs"]);
    assert_eq!(ok.status.code(), Some(0));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("pack.json");
    std::fs::write(
        &bad,
        r#"{"name":"vendor.x.y","version":"1","kind":"workflow-chain","engines":{},"chains":[],"nodes":[]}"#,
    )
    .unwrap();
    let out = run(&["validate", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.contains("pack_kind_invalid at /nodes")), "{text}");
    assert!(text.lines().any(|l| l.contains("invalid_manifest at /version")), "{text}");
    let json_out = run(&["validate", "--json", bad.to_str().unwrap()]);
    let findings: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    assert!(findings.as_array().unwrap().iter().any(|f| f["code"] == "pack_kind_invalid" && f["path"] == "/nodes"));
}

#[test]
fn expand_prints_the_contract_shape() {
    let out =
        run(&["expand", SUPPORT, "--chain", "support.triage", "--set", "queueName=billing", "--expansion-id", "ab12"]);
    let v = stdout_json(&out);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["packName", "packVersion", "chainId", "expansionId", "nodes", "edges", "idMap", "warnings"]);
    assert_eq!(v["idMap"]["fetch"], "support_triage_ab12_fetch");
    assert_eq!(v["edges"][1]["from"], "support_triage_ab12_classify.urgent");
    assert_eq!(v["nodes"][2]["config"]["room"], "#support-oncall", "<<params.x>> spelling substituted");
    assert_eq!(v["nodes"][1]["config"]["labels"], json!(["billing", "bug", "other"]), "defaults applied");

    let travel = stdout_json(&run(&[
        "expand",
        TRAVEL,
        "--chain",
        "travel.book-trip",
        "--set",
        "hotelApi=https://h.example.test",
        "--set",
        "nights=3",
    ]));
    assert_eq!(travel["settingsCompensation"]["triggers"], json!(["node-failure", "run-cancel"]));
    let id = travel["expansionId"].as_str().unwrap();
    assert!(id.len() == 4 && id.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()), "{id}");
}

#[test]
fn params_from_file_and_stdin_with_set_overriding() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.json");
    std::fs::write(&file, r#"{"queueName":"from-file","maxTickets":3}"#).unwrap();
    let v = stdout_json(&run(&[
        "expand",
        SUPPORT,
        "--chain",
        "support.triage",
        "--params",
        file.to_str().unwrap(),
        "--set",
        "maxTickets=9",
    ]));
    assert_eq!(v["nodes"][0]["config"]["url"], "https://support.example.test/queues/from-file?limit=9");

    let mut child = bin()
        .args(["expand", SUPPORT, "--chain", "support.triage", "--params", "-"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(br#"{"queueName":"stdin-q"}"#).unwrap();
    let v = stdout_json(&child.wait_with_output().unwrap());
    assert_eq!(v["nodes"][3]["config"]["sheet"], "triage-stdin-q");
}

#[test]
fn failures_end_with_a_coded_envelope() {
    let cases: &[(&[&str], &str)] = &[
        (&["expand", SUPPORT, "--chain", "nope"], "chain_not_found"),
        (&["expand", "no/such/pack.json", "--chain", "x"], "pack_not_found"),
        (&["expand", "packs/vendor.chainsmith.nodes", "--chain", "x"], "pack_kind_invalid"),
        (&["expand", SUPPORT, "--chain", "support.triage", "--set", "queueName=X"], "chain_parameter_invalid"),
        (&["expand", SUPPORT, "--chain", "support.triage", "--set", "maxTickets=lots"], "chain_parameter_invalid"),
        (&["expand", SUPPORT, "--chain", "support.triage", "--params", "Cargo.toml"], "invalid_request"),
        (&["expand", SUPPORT, "--chain", "support.triage", "--params", "no/such/params.json"], "invalid_request"),
        (&["expand", SUPPORT, "--chain", "support.triage", "--host", "no/such/host.json"], "invalid_request"),
        (&["inline", "no/such/wf.json", SUPPORT, "--chain", "support.triage", "-o", "/tmp/x.json"], "invalid_request"),
    ];
    for (args, code) in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(envelope(&out)["error"], *code, "{args:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("pack.json");
    std::fs::write(&broken, "{\n  \"name\": \"x\",\n  oops\n}").unwrap();
    let env = envelope(&run(&["expand", broken.to_str().unwrap(), "--chain", "x"]));
    assert_eq!((env["error"].as_str(), env["details"]["line"].as_u64()), (Some("pack_manifest_invalid"), Some(3)));
    let err = envelope(&run(&["expand", SUPPORT, "--chain", "support.triage", "--set", "queueName=X"]));
    assert_eq!(err["details"]["errors"].as_array().unwrap().len(), 2, "every error is listed: {err}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["expand"]).status.code(), Some(2));
    assert_eq!(
        run(&["inline", "--new", "x", SUPPORT, "--chain", "support.triage"]).status.code(),
        Some(2),
        "-o is required"
    );
    assert_eq!(run(&["frobnicate", "--x"]).status.code(), Some(2));
}

#[test]
fn inline_new_and_between() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.json");
    let out = run(&[
        "inline",
        "--new",
        "Trip planner",
        TRAVEL,
        "--chain",
        "travel.book-trip",
        "--set",
        "hotelApi=https://h.example.test",
        "--set",
        "nights=2",
        "--expansion-id",
        "aa01",
        "--at",
        "100,40",
        "--strict-schema",
        "-o",
        first.to_str().unwrap(),
    ]);
    let summary = stdout_json(&out);
    assert_eq!(summary["nodeIds"][0], "travel_book-trip_aa01_reserve");
    let wf: Value = serde_json::from_slice(&std::fs::read(&first).unwrap()).unwrap();
    assert_eq!(wf["id"], "trip-planner");
    assert_eq!(wf["nodes"][0]["position"], json!({"x": 100, "y": 40}));
    assert!(wf["nodes"][0].get("capabilities").is_none(), "--strict-schema strips capabilities");
    assert_eq!(wf["settings"]["compensation"]["triggers"], json!(["node-failure", "run-cancel"]));

    // Splice a second chain between the first chain's two ends.
    let second = dir.path().join("second.json");
    let out = run(&[
        "inline",
        first.to_str().unwrap(),
        SUPPORT,
        "--chain",
        "support.triage",
        "--set",
        "queueName=trips",
        "--between",
        "travel_book-trip_aa01_reserve",
        "travel_book-trip_aa01_charge",
        "-o",
        second.to_str().unwrap(),
    ]);
    let summary = stdout_json(&out);
    assert_eq!(summary["removedEdges"], json!(["travel_book-trip_aa01_e1"]));
    let wf: Value = serde_json::from_slice(&std::fs::read(&second).unwrap()).unwrap();
    let edges = wf["edges"].as_array().unwrap();
    let prefix = format!("support_triage_{}_", summary["expansionId"].as_str().unwrap());
    assert!(
        edges
            .iter()
            .any(|e| e["sourceNodeId"] == "travel_book-trip_aa01_reserve"
                && e["targetNodeId"] == format!("{prefix}fetch"))
    );
    assert!(
        edges.iter().any(
            |e| e["sourceNodeId"] == format!("{prefix}page") && e["targetNodeId"] == "travel_book-trip_aa01_charge"
        )
    );
    assert!(edges.iter().any(|e| e["sourceNodeId"] == format!("{prefix}log") && e["targetNodeId"] == "travel_book-trip_aa01_charge"));
    assert_eq!(wf["metadata"]["customProperties"]["chainsmith"]["instances"].as_array().unwrap().len(), 2);

    // A failed inline never touches the output file.
    let before = std::fs::read(&second).unwrap();
    let out = run(&[
        "inline",
        first.to_str().unwrap(),
        SUPPORT,
        "--chain",
        "support.triage",
        "--set",
        "queueName=x",
        "-o",
        second.to_str().unwrap(),
    ]);
    assert_eq!(envelope(&out)["error"], "chain_parameter_invalid");
    assert_eq!(std::fs::read(&second).unwrap(), before);
}

/// The CLI reproduces the reference for every vector whose params pass validation; the
/// only refusals allowed are `format` violations of the vectors' placeholder values.
#[test]
fn cli_expand_matches_every_vector() {
    let Some(corpus) = common::corpus_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (mut matched, mut format_refusals) = (0, 0);
    for path in common::files_under(&corpus.join("vectors"), "json") {
        let vector: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let params = dir.path().join("params.json");
        std::fs::write(&params, vector["params"].to_string()).unwrap();
        let pack = corpus.join(vector["pack"].as_str().unwrap());
        let out = run(&[
            "expand",
            pack.to_str().unwrap(),
            "--chain",
            vector["chainId"].as_str().unwrap(),
            "--params",
            params.to_str().unwrap(),
            "--expansion-id",
            "t0k3",
            "--host",
            "tests/fixtures/host-permissive.json",
        ]);
        if !out.status.success() {
            let env = envelope(&out);
            assert_eq!(env["error"], "chain_parameter_invalid", "{}: {env}", path.display());
            assert!(env["details"]["errors"].as_array().unwrap().iter().all(|e| e["keyword"] == "format"), "{env}");
            format_refusals += 1;
            continue;
        }
        let mut got: Value = serde_json::from_slice(&out.stdout).unwrap();
        // The corpus vectors come from the single-chain reference, which leaves
        // `config.subChainRef` in place; the permissive host co-expands sub-chains (pinned
        // by tests/subchain.rs), so here each rewritten ref is checked and put back.
        restore_sub_chain_refs(&mut got, &path);
        for key in ["nodes", "edges", "idMap"] {
            assert!(common::json_eq(&got[key], &vector["expected"][key]), "{}: {key}", path.display());
        }
        matched += 1;
    }
    println!("cli conformance: {matched} match, {format_refusals} refused for format-invalid placeholder params");
    assert_eq!(matched + format_refusals, 171);
    assert!(format_refusals <= 4);
}

/// Undo the co-expansion's `subChainRef` → `workflowId` rewrite on the parent's nodes, after
/// checking that each `workflowId` names a child of the output and which chain it is.
fn restore_sub_chain_refs(got: &mut Value, path: &std::path::Path) {
    let children: Vec<(String, String)> = got["children"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| (c["workflowId"].as_str().unwrap().to_owned(), c["chainId"].as_str().unwrap().to_owned()))
        .collect();
    for node in got["nodes"].as_array_mut().unwrap() {
        let Some(config) = node.get_mut("config").and_then(Value::as_object_mut) else { continue };
        let Some(id) = config.get("workflowId").and_then(Value::as_str) else { continue };
        let chain = children.iter().find(|(w, _)| w == id).map(|(_, c)| c.clone());
        let chain = chain.unwrap_or_else(|| panic!("{}: workflowId {id} names no child", path.display()));
        config.remove("workflowId");
        config.insert("subChainRef".into(), Value::String(chain));
    }
}

/// A real chain whose only unresolved typeId is an application's own node type: refused with
/// the registry as catalog, expanded once `--host` declares `feature.*`.
#[test]
fn host_profile_node_types_resolve_host_provided_type_ids() {
    let Some(corpus) = common::corpus_dir() else { return };
    let pack = corpus.join("registry/packs/core.openwop.workflows.starters/pack.json");
    let catalog = corpus.join("registry/packs");
    let vector: Value =
        serde_json::from_slice(&std::fs::read(corpus.join("vectors/starters.webhook-notify.json")).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let params = dir.path().join("params.json");
    std::fs::write(&params, vector["params"].to_string()).unwrap();
    let host = dir.path().join("host.json");
    std::fs::write(&host, r#"{"nodeTypes": ["feature.*"]}"#).unwrap();
    let (pack, catalog, params, host) =
        (pack.to_str().unwrap(), catalog.to_str().unwrap(), params.to_str().unwrap(), host.to_str().unwrap());
    let base = ["expand", pack, "--chain", "starters.webhook-notify", "--catalog", catalog, "--params", params];
    let refused = run(&base);
    assert_eq!(refused.status.code(), Some(1));
    let env = envelope(&refused);
    assert_eq!(env["error"], "chain_unresolvable_typeid", "{env}");
    assert_eq!(env["details"]["typeId"], "feature.notifications.nodes.notify", "{env}");
    let out = run(&[&base[..], &["--host", host, "--expansion-id", "t0k3"]].concat());
    let v = stdout_json(&out);
    assert!(common::json_eq(&v["nodes"], &vector["expected"]["nodes"]), "{}", v["nodes"]);
    let bad = dir.path().join("bad-host.json");
    std::fs::write(&bad, r#"{"nodeTypes": ["feat*ure"]}"#).unwrap();
    let out = run(&[&base[..], &["--host", bad.to_str().unwrap()]].concat());
    assert_eq!(envelope(&out)["details"]["pointer"], "/nodeTypes/0");
}

/// A build without the `gui` feature has no editor: run without a subcommand it says how to
/// get one (and that the CLI works), exits 2, and opens nothing. CI runs this test in the
/// `--no-default-features` build.
#[test]
#[cfg_attr(feature = "gui", ignore = "needs the binary built with --no-default-features")]
fn without_the_gui_feature_no_subcommand_says_how_to_get_the_editor() {
    for args in [&[][..], &[SUPPORT][..]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("without the `gui` feature"), "{stderr}");
        assert!(stderr.contains("cargo build --release"), "{stderr}");
        assert!(stderr.contains("chainsmith --help"), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

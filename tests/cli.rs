//! The CLI contract: exit codes, the error envelope as the last stderr line, output shapes.

use chainsmith_test_env::needs;
mod common;

use common::cli::{envelope, ok_json, run, run_with_stdin, usage_envelope};

use chainsmith::schemas::Schema;
use serde_json::{Value, json};
use std::process::Output;

const SUPPORT: &str = "packs/vendor.chainsmith.support-desk/pack.json";
const TRAVEL: &str = "packs/vendor.chainsmith.travel-booking/pack.json";
/// The travel pack's trip chain with its two required values, after `inline WF`.
const TRIP: [&str; 7] =
    [TRAVEL, "--chain", "travel.book-trip", "--set", "hotelApi=https://h.example.test", "--set", "nights=2"];

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
    // Failing validation ends with the envelope too, naming the first error and the file.
    for out in [&out, &json_out] {
        let env = envelope(out);
        assert_eq!(env["details"]["invalid"], json!([bad.to_str().unwrap()]), "{env}");
        assert!(["pack_kind_invalid", "invalid_manifest"].contains(&env["error"].as_str().unwrap()), "{env}");
    }
    assert!(ok.stderr.is_empty(), "a clean run prints no envelope");
}

#[test]
fn expand_prints_the_contract_shape() {
    let out =
        run(&["expand", SUPPORT, "--chain", "support.triage", "--set", "queueName=billing", "--expansion-id", "ab12"]);
    let v = ok_json(&out);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["packName", "packVersion", "chainId", "expansionId", "nodes", "edges", "idMap", "warnings"]);
    assert_eq!(v["idMap"]["fetch"], "support_triage_ab12_fetch");
    assert_eq!(v["edges"][1]["from"], "support_triage_ab12_classify.urgent");
    assert_eq!(v["nodes"][2]["config"]["room"], "#support-oncall", "<<params.x>> spelling substituted");
    assert_eq!(v["nodes"][1]["config"]["labels"], json!(["billing", "bug", "other"]), "defaults applied");

    let travel = ok_json(&run(&[
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
    let v = ok_json(&run(&[
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

    let v = ok_json(&run_with_stdin(
        &["expand", SUPPORT, "--chain", "support.triage", "--params", "-"],
        br#"{"queueName":"stdin-q"}"#,
    ));
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

/// Usage errors keep clap's explanation and exit 2, and end like every other failure: the
/// last stderr line is an `invalid_request` envelope (docs/cli.md).
#[test]
fn usage_errors_exit_2_with_an_envelope() {
    let cases: &[&[&str]] = &[
        &["expand"],
        &["inline", "--new", "x", SUPPORT, "--chain", "support.triage"],
        &["frobnicate", "--x"],
        &["validate"],
    ];
    for args in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let env = usage_envelope(&out);
        assert_eq!((env["error"].as_str(), env["details"]["usage"].as_bool()), (Some("invalid_request"), Some(true)));
        assert!(String::from_utf8_lossy(&out.stderr).contains("Usage:"), "clap's usage is kept");
    }
    assert_eq!(run(&["--help"]).status.code(), Some(0));
}

/// The envelope names the argument at fault, which clap puts on the line after its first.
#[test]
fn usage_error_envelopes_name_the_argument() {
    let env = usage_envelope(&run(&["expand", SUPPORT]));
    assert_eq!(env["details"]["argument"], "--chain <ID>", "{env}");
    assert!(env["message"].as_str().unwrap().contains("--chain <ID>"), "{env}");
    let env = usage_envelope(&run(&["expand", SUPPORT, "--chain", "support.triage", "--frobnicate"]));
    assert_eq!(env["details"]["argument"], "--frobnicate", "{env}");
    let env = usage_envelope(&run(&["inline", "--new", "x", SUPPORT, "--chain", "c", "-o", "o.json", "--at", "1"]));
    assert_eq!(
        (env["details"]["argument"].as_str(), env["details"]["value"].as_str()),
        (Some("--at <X,Y>"), Some("1")),
        "{env}"
    );
}

#[test]
fn inline_new_and_between() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.json");
    let more = ["--expansion-id", "aa01", "--at", "100,40", "--strict-schema", "-o", first.to_str().unwrap()];
    let out = run(&[&["inline", "--new", "Trip planner"], &TRIP[..], &more].concat());
    let summary = ok_json(&out);
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
    let summary = ok_json(&out);
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
    let instances = wf["metadata"]["customProperties"]["chainsmith"]["instances"].as_array().unwrap();
    assert_eq!(instances.len(), 2);
    // The replaced edge belonged to the first chain: its record no longer lists it.
    assert!(
        !instances[0]["edgeIds"].as_array().unwrap().contains(&json!("travel_book-trip_aa01_e1")),
        "{}",
        instances[0]
    );

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

/// The CLI reproduces the reference for every vector, member for member, settingsCompensation
/// included (present exactly when the reference returned one). Every vector's params are
/// valid (the corpus README's rules), so there is no refusal to excuse.
#[needs(corpus)]
#[test]
fn cli_expand_matches_every_vector() {
    let corpus = common::corpus_dir();
    let dir = tempfile::tempdir().unwrap();
    let (mut matched, mut with_policy) = (0, 0);
    let mut failures = Vec::new();
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
            failures.push(format!("{}: refused: {}", path.display(), envelope(&out)));
            continue;
        }
        let mut got: Value = serde_json::from_slice(&out.stdout).unwrap();
        // The corpus vectors come from the single-chain reference, which leaves
        // `config.subChainRef` in place; the permissive host co-expands sub-chains (pinned
        // by tests/subchain.rs), so here each rewritten ref is checked and put back.
        restore_sub_chain_refs(&mut got, &path);
        let mut same = true;
        for key in ["nodes", "edges", "idMap", "settingsCompensation"] {
            let ok = match (got.get(key), vector["expected"].get(key)) {
                (Some(g), Some(w)) => common::json_eq(g, w),
                (g, w) => g.is_none() && w.is_none(),
            };
            if !ok {
                same = false;
                failures.push(format!("{}: {key} differs", path.display()));
            }
        }
        with_policy += usize::from(got.get("settingsCompensation").is_some());
        matched += usize::from(same);
    }
    println!("cli conformance: {matched} of {} vectors match", common::corpus_count("vectors"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(matched, common::corpus_count("vectors"));
    assert_eq!(with_policy, common::corpus_count("vectorsWithSettingsCompensation"), "settingsCompensation compared");
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A chain pack with one chain in a fresh folder.
fn chain_pack(dir: &std::path::Path, chain: Value) -> String {
    let m = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": [chain]});
    let path = dir.join("pack.json");
    std::fs::write(&path, m.to_string()).unwrap();
    path.to_str().unwrap().to_owned()
}

fn chain(nodes: Value, parameters: Value) -> Value {
    json!({"chainId": "acme.c", "version": "1.0.0", "label": "C", "description": "d", "parameters": parameters,
        "dag": {"nodes": nodes, "edges": []}})
}

#[test]
fn inline_refuses_a_workflow_that_is_not_a_workflow_definition() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "{}").unwrap();
    let out = dir.path().join("out.json");
    for (workflow, says) in [
        (SUPPORT, "workflow-chain pack manifest"),
        ("packs/vendor.chainsmith.nodes/pack.json", "pack manifest"),
        (empty.to_str().unwrap(), "it has no `id`, `nodes`, `edges`"),
    ] {
        let run =
            run(&["inline", workflow, SUPPORT, "--chain", "support.enrich-customer", "-o", out.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(1), "{workflow}");
        let env = envelope(&run);
        assert_eq!(env["error"], "validation_error", "{workflow}: {env}");
        assert!(env["message"].as_str().unwrap().contains(says), "{workflow}: {env}");
        assert!(!out.exists(), "nothing written for {workflow}");
    }
}

#[test]
fn inline_between_refuses_to_close_a_loop() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.json");
    ok_json(&run(&[
        &["inline", "--new", "Trip"],
        &TRIP[..],
        &["--expansion-id", "aa01", "-o", first.to_str().unwrap()],
    ]
    .concat()));
    let out = dir.path().join("out.json");
    let (reserve, charge) = ("travel_book-trip_aa01_reserve", "travel_book-trip_aa01_charge");
    for (a, b) in [(reserve, reserve), (charge, reserve)] {
        let run = run(&[
            "inline",
            first.to_str().unwrap(),
            SUPPORT,
            "--chain",
            "support.enrich-customer",
            "--between",
            a,
            b,
            "-o",
            out.to_str().unwrap(),
        ]);
        let env = envelope(&run);
        assert_eq!((run.status.code(), env["error"].as_str()), (Some(1), Some("validation_error")), "{a} {b}: {env}");
        assert_eq!(env["details"]["between"], json!([a, b]));
        assert!(!out.exists());
    }
}

#[test]
fn strict_schema_export_is_valid_or_refused_with_every_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("strict.json");
    let done =
        run(&[&["inline", "--new", "Trip"], &TRIP[..], &["--strict-schema", "-o", out.to_str().unwrap()]].concat());
    let wf: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert!(Schema::WorkflowDefinition.violations(&wf).is_empty(), "{wf}");
    let text = stderr(&done);
    assert_eq!(text.lines().filter(|l| l.contains("strict_capabilities_removed")).count(), 1, "grouped: {text}");
    assert!(text.contains("info strict_capabilities_removed at /nodes/0/capabilities"), "{text}");

    // A workflow with a member the closed schema rejects cannot be made strict: refused.
    let parent = dir.path().join("parent.json");
    std::fs::write(
        &parent,
        json!({"id": "p", "name": "P", "version": "1.0.0", "triggers": [], "variables": [],
        "metadata": {}, "settings": {}, "edges": [],
        "nodes": [{"id": "n", "typeId": "core.noop", "name": "N", "position": {"x": 0, "y": 0}, "config": {},
            "inputs": {"half": {"type": "static"}}, "x-extra": 1}]})
        .to_string(),
    )
    .unwrap();
    let refused_out = dir.path().join("refused.json");
    let bad =
        [&["inline", parent.to_str().unwrap()], &TRIP[..], &["--strict-schema", "-o", refused_out.to_str().unwrap()]]
            .concat();
    let refused = run(&bad);
    assert_eq!(refused.status.code(), Some(1));
    let env = envelope(&refused);
    assert_eq!(env["error"], "validation_error");
    let paths: Vec<&str> =
        env["details"]["errors"].as_array().unwrap().iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert!(paths.contains(&"/nodes/0") && paths.contains(&"/nodes/0/inputs/half"), "{env}");
    assert!(!refused_out.exists(), "an invalid strict file is never written");
    // The faithful export of the same keeps everything, and says once what departs from the schema.
    let faithful: Vec<&str> = bad.iter().copied().filter(|a| *a != "--strict-schema").collect();
    let done = run(&faithful);
    assert!(done.status.success(), "{}", stderr(&done));
    assert_eq!(stderr(&done).matches("faithful_schema_departure").count(), 1, "{}", stderr(&done));
}

#[test]
fn tool_refusals_and_ignored_options_are_reported() {
    let out = run(&["tool", "packs/vendor.chainsmith.nodes", "--chain", "x", "--format", "compact"]);
    assert_eq!((out.status.code(), envelope(&out)["error"].as_str()), (Some(1), Some("pack_kind_invalid")));
    let out = run(&["tool", SUPPORT, "--chain", "support.triage", "--format", "miruntime", "--safety-tier", "read"]);
    assert!(out.status.success());
    let text = stderr(&out);
    assert!(text.contains("tool_option_ignored") && text.contains("safetyTier"), "{text}");
    let out = run(&["tool", SUPPORT, "--chain", "support.triage", "--format", "compact", "--safety-tier", "read"]);
    assert!(!stderr(&out).contains("tool_option_ignored"));
}

#[test]
fn set_messages_speak_to_the_pack_author() {
    let out = run(&["expand", SUPPORT, "--chain", "support.triage", "--set", "queueName=q", "--set", "threshold=high"]);
    let env = envelope(&out);
    assert_eq!(env["error"], "chain_parameter_invalid");
    assert!(env["message"].as_str().unwrap().contains("expected a number"), "{env}");

    // support.enrich-customer allows undeclared names; a --set of one is still worth a word.
    let out =
        ok_json(&run(&["expand", SUPPORT, "--chain", "support.enrich-customer", "--set", "crmURL=https://x.test"]));
    let warning = out["warnings"].as_array().unwrap().iter().find(|w| w["code"] == "set_parameter_undeclared");
    assert!(warning.is_some_and(|w| w["message"].as_str().unwrap().contains("it declares: crmUrl")), "{out}");

    let dir = tempfile::tempdir().unwrap();
    let levels = json!({"type": "object", "properties": {"level": {"type": "string",
        "enum": ["low", "normal", "high", "urgent", "critical"]}}});
    let pack = chain_pack(
        dir.path(),
        chain(json!([{"id": "a", "typeId": "core.noop", "config": {"l": "{{params.level}}"}}]), levels),
    );
    let env = envelope(&run(&["expand", &pack, "--chain", "acme.c", "--set", "level=medium"]));
    let message = env["details"]["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains(r#""low", "normal", "high", "urgent", "critical""#), "{env}");
}

#[test]
fn refusals_name_the_specific_rule() {
    let dir = tempfile::tempdir().unwrap();
    let pinned =
        chain(json!([{"id": "a", "typeId": "core.noop", "config": {"workflowId": "wf-1"}}]), json!({"type": "object"}));
    let pack = chain_pack(dir.path(), pinned);
    for cmd in ["expand", "inline"] {
        let out_file = dir.path().join("o.json");
        let mut args = vec![cmd];
        if cmd == "inline" {
            args.extend(["--new", "x"]);
        }
        args.extend([pack.as_str(), "--chain", "acme.c", "-o", out_file.to_str().unwrap()]);
        if cmd == "expand" {
            args.truncate(args.len() - 2);
        }
        let env = envelope(&run(&args));
        assert_eq!(env["error"], "chain_fragment_pins_workflow_id", "{cmd}: {env}");
        assert_eq!(env["details"]["path"], "/chains/0/dag/nodes/0/config/workflowId");
    }

    let mut composes = chain(json!([{"id": "a", "typeId": "core.noop"}]), json!({"type": "object"}));
    composes["subChains"] = json!([{"chainId": "acme.other", "pack": "vendor.acme.tiles", "version": "^1.0.0"}]);
    let dir = tempfile::tempdir().unwrap();
    let pack = chain_pack(dir.path(), composes);
    let env = envelope(&run(&["expand", &pack, "--chain", "acme.c", "--skip-validation"]));
    assert_eq!(env["error"], "sub_chain_unsupported");
    let message = env["message"].as_str().unwrap();
    assert!(message.contains("--host FILE") && message.contains(r#"{"subChains": true}"#), "{env}");
}

#[test]
fn repeated_warnings_are_one_line_with_a_count() {
    let dir = tempfile::tempdir().unwrap();
    let nodes: Vec<Value> =
        (0..6).map(|i| json!({"id": format!("n{i}"), "typeId": format!("vendor.acme.t{i}")})).collect();
    let pack = chain_pack(dir.path(), chain(json!(nodes), json!({"type": "object"})));
    let file = dir.path().join("wf.json");
    let out = run(&["inline", "--new", "w", &pack, "--chain", "acme.c", "-o", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stderr(&out);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("typeid_unchecked")).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(lines[0].contains("[×6;"), "{}", lines[0]);
}

#[test]
fn catalog_warnings_name_their_file() {
    let dir = tempfile::tempdir().unwrap();
    let node_pack = dir.path().join("nodes");
    std::fs::create_dir(&node_pack).unwrap();
    let manifest = node_pack.join("pack.json");
    std::fs::write(
        &manifest,
        json!({"name": "vendor.acme.nodes", "version": "1.0.0", "engines": {"openwop": "*"},
        "runtime": {"language": "javascript", "entry": "x"},
        "nodes": [{"typeId": "vendor.acme.fetch", "configSchemaRef": "schemas/missing.json"}]})
        .to_string(),
    )
    .unwrap();
    let out = run(&["validate", SUPPORT, "--catalog", node_pack.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains("node_schema_unavailable")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(manifest.to_str().unwrap()), "{line}");
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
#[needs(corpus)]
#[test]
fn host_profile_node_types_resolve_host_provided_type_ids() {
    let corpus = common::corpus_dir();
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
    let v = ok_json(&out);
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

/// The app's expansionId (interop §5), written out from its formula: the first 12 hex
/// digits of sha256("<chainId>@<version>:" + the sorted-key JSON of the resolved values).
fn app_expansion_id(canonical: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("vendor.example.ticket-triage@1.2.0:{canonical}").as_bytes());
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

#[test]
fn reparam_re_expands_an_app_workflow_as_the_app_would_and_lists_hand_edits() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/app");
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(fixture.join("ticket-triage.app-workflow.json")).unwrap()).unwrap();
    doc["nodes"][1]["config"]["note"] = json!("typed by hand");
    let wf = dir.path().join("triage.json");
    std::fs::write(&wf, doc.to_string()).unwrap();
    let pack = fixture.join("ticket-triage.json");
    let out_path = dir.path().join("out.json");
    let (wf_arg, pack_arg) = (wf.to_str().unwrap(), pack.to_str().unwrap());
    let args = |extra: &[&'static str]| -> Vec<String> {
        ["reparam", wf_arg, "--pack", pack_arg].iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let run_args = |a: Vec<String>| run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    // The note is edited by hand and changed by the new values: settled with --prefer new.
    let out_arg = out_path.to_str().unwrap();
    let out = run(&["reparam", wf_arg, "--pack", pack_arg, "--set", "queue=sales", "--prefer", "new", "-o", out_arg]);
    let summary = ok_json(&out);
    let id = app_expansion_id(r#"{"maxTickets":40,"provider":"anthropic","queue":"sales"}"#);
    assert_eq!(summary["previousExpansionId"], "fd9b00f727d5");
    assert_eq!(summary["expansionId"], json!(id));
    assert_eq!(
        summary["handEdits"],
        json!([{"nodeId": "vendor_example_ticket-triage_fd9b00f727d5_classify", "members": ["config"]}])
    );
    assert!(stderr(&out).contains("vendor_example_ticket-triage_fd9b00f727d5_classify: config edited by hand"));
    let written: Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
    let p = format!("vendor_example_ticket-triage_{id}_");
    assert_eq!(written["nodes"][0]["nodeId"], json!(format!("{p}fetch")), "the app's form is kept");
    assert_eq!(written["nodes"][0]["config"]["url"], "https://tickets.example/sales?limit=40");
    assert_eq!(written["nodes"][1]["config"]["note"], "for sales", "the hand edit gave way to the new value");
    assert_eq!(written["edges"][0]["targetNodeId"], json!(format!("{p}classify")));
    assert_eq!(written["metadata"]["expansionId"], json!(id));

    // interop §5's first vector: the recorded values re-expand to the recorded id.
    let same = dir.path().join("same.json");
    let out = run(&["reparam", wf_arg, "--pack", pack_arg, "-o", same.to_str().unwrap()]);
    assert_eq!(ok_json(&out)["expansionId"], "fd9b00f727d5");

    // Not the app's workflow, and a pack without the recorded version: coded refusals.
    let plain = dir.path().join("plain.json");
    std::fs::write(&plain, r#"{"id": "w", "name": "W", "nodes": [], "edges": []}"#).unwrap();
    let out = run(&["reparam", plain.to_str().unwrap(), "--pack", pack.to_str().unwrap(), "-o", "x.json"]);
    assert_eq!((out.status.code(), envelope(&out)["error"].as_str()), (Some(1), Some("invalid_request")));
    doc["metadata"]["expandedFrom"]["version"] = json!("1.1.0");
    std::fs::write(&wf, doc.to_string()).unwrap();
    let out = run_args(args(&["-o", "out.json"]));
    assert_eq!((out.status.code(), envelope(&out)["error"].as_str()), (Some(1), Some("instance_base_unavailable")));
    let bad = run_args(args(&["--set", "maxTickets=many", "-o", "out.json"]));
    assert_eq!(envelope(&bad)["error"], "chain_parameter_invalid");
}

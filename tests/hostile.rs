//! Hostile input through the real binary. Every case must end in its expected exit code and,
//! when it fails, with a coded ErrorEnvelope as the last stderr line, well inside a hang
//! bound. Small cases live in `tests/hostile/`; big ones (60 MB strings, 10,000-deep
//! nesting, 100,001 nodes) are generated into a temporary folder at test time.

mod common;

use serde_json::{Value, json};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Generous on purpose: a case that answers at all answers in well under a second; this
/// only tells a hang apart from a slow machine.
const HANG_BOUND: Duration = Duration::from_secs(20);

#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// Exit 1 with an envelope carrying this code.
    Fails(&'static str),
    /// Exit 0.
    Succeeds,
}

struct Outcome {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    output: Output,
}

impl Outcome {
    /// The ErrorEnvelope of a refusal (exit 1, checked against the schema).
    fn envelope(&self) -> Value {
        common::cli::envelope(&self.output)
    }

    fn message(&self) -> String {
        self.envelope()["message"].as_str().unwrap_or_default().to_owned()
    }
}

fn clip(s: &str) -> &str {
    let end = (0..=s.len().min(2000)).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
    &s[..end]
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn hostile(rel: &str) -> OsString {
    root().join("tests/hostile").join(rel).into_os_string()
}

/// Run the binary with output going to files (a full pipe cannot stall it) and kill it
/// if it outlives the hang bound.
fn run(args: &[OsString], stdin: Option<&[u8]>) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let mut child = common::cli::bin()
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        // A child that stops reading early closes the pipe; that is its answer, not ours.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG_BOUND {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chainsmith {args:?} did not answer within {HANG_BOUND:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let output =
        Output { status, stdout: std::fs::read(&out_path).unwrap(), stderr: std::fs::read(&err_path).unwrap() };
    Outcome {
        code: status.code(),
        stdout: output.stdout.clone(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        output,
    }
}

fn check(args: &[OsString], stdin: Option<&[u8]>, expect: Expect) -> Outcome {
    let out = run(args, stdin);
    match expect {
        Expect::Succeeds => {
            assert_eq!(out.code, Some(0), "{args:?} should succeed; stderr: {}", clip(&out.stderr));
        }
        Expect::Fails(code) => {
            assert_eq!(out.code, Some(1), "{args:?} should exit 1; stderr: {}", clip(&out.stderr));
            assert!(!out.stderr.contains("panicked"), "{args:?} panicked: {}", clip(&out.stderr));
            assert_eq!(out.envelope()["error"], code, "{args:?}");
        }
    }
    out
}

fn os(items: &[&str]) -> Vec<OsString> {
    items.iter().map(OsString::from).collect()
}

/// `expand PACK --chain hostile.one EXTRA...` with PACK under tests/hostile/packs.
fn expand(pack: &str, extra: &[&str]) -> Vec<OsString> {
    let mut args = vec!["expand".into(), hostile(&format!("packs/{pack}")), "--chain".into(), "hostile.one".into()];
    args.extend(extra.iter().map(OsString::from));
    args
}

/// `inline WORKFLOW ok.json --chain hostile.one --set v=x -o OUT`.
fn inline(workflow: OsString, out: &Path, extra: &[&str]) -> Vec<OsString> {
    let mut args = vec!["inline".into(), workflow, hostile("packs/ok.json")];
    args.extend(os(&["--chain", "hostile.one", "--set", "v=x", "-o"]));
    args.push(out.as_os_str().to_owned());
    args.extend(extra.iter().map(OsString::from));
    args
}

fn p(rel: &str) -> String {
    hostile(rel).into_string().unwrap()
}

/// The committed cases: (arguments, expectation). Every file under tests/hostile appears
/// in at least one of them (checked below). Outputs go to `scratch`, where `blocked` is a
/// non-empty folder that no file can replace.
fn committed_cases(scratch: &Path) -> Vec<(Vec<OsString>, Expect)> {
    use Expect::*;
    let out = &scratch.join("out.json");
    let long_a = format!("v={}b", "a".repeat(60_000));
    let open_parens = format!("v={}", "(".repeat(60_000));
    let mut cases = vec![
        (expand("empty.json", &[]), Fails("pack_manifest_invalid")),
        (expand("truncated.json", &[]), Fails("pack_manifest_invalid")),
        (expand("invalid-utf8.json", &[]), Fails("pack_manifest_invalid")),
        (expand("array-root.json", &[]), Fails("invalid_manifest")),
        // 1e400 is kept exactly (arbitrary precision); the manifest is refused for what it lacks.
        (expand("number-out-of-range.json", &[]), Fails("invalid_manifest")),
        (expand("huge-integer.json", &[]), Fails("invalid_manifest")),
        (expand("node-pack.json", &[]), Fails("pack_kind_invalid")),
        (expand("mixed-kind.json", &[]), Fails("pack_kind_invalid")),
        (expand("kind-not-string.json", &[]), Fails("pack_kind_invalid")),
        (expand("duplicate-chain-ids.json", &[]), Fails("duplicate_chain_id")),
        (expand("parameters-not-a-schema.json", &[]), Fails("parameters_schema_invalid")),
        (expand("parameters-a-string.json", &[]), Fails("invalid_manifest")),
        (expand("pattern-backreference.json", &[]), Fails("parameters_schema_invalid")),
        (expand("pattern-lookahead.json", &[]), Fails("parameters_schema_invalid")),
        (expand("pattern-nested-quantifier.json", &["--set", &long_a]), Fails("chain_parameter_invalid")),
        (expand("pattern-nested-quantifier.json", &["--set", "v=aaaa"]), Succeeds),
        (
            expand("pattern-properties.json", &["--params", &p("params/pattern-properties.json")]),
            Fails("chain_parameter_invalid"),
        ),
        (expand("format-regex.json", &["--set", &open_parens]), Fails("chain_parameter_invalid")),
        (expand("format-regex.json", &["--set", "v=^a+$"]), Succeeds),
        (expand("ref-loop.json", &["--set", "v=\"x\""]), Succeeds),
        (expand("ref-external.json", &[]), Fails("parameters_schema_invalid")),
        (expand("typed-params.json", &[]), Fails("chain_parameter_invalid")),
        (expand("typed-params.json", &["--params", &p("params/wrong-types.json")]), Fails("chain_parameter_invalid")),
        (expand("typed-params.json", &["--set", "v=x", "--set", "n=1.5"]), Fails("chain_parameter_invalid")),
        (expand("typed-params.json", &["--set", "v=x", "--set", "n=lots"]), Fails("chain_parameter_invalid")),
        (expand("typed-params.json", &["--set", "v=x", "--set", "n=1e400"]), Fails("chain_parameter_invalid")),
        // 1e400 parses (numbers are kept exactly) and fails the parameter schema instead.
        (expand("typed-params.json", &["--params", &p("params/out-of-range.json")]), Fails("chain_parameter_invalid")),
        (expand("typed-params.json", &["--params", &p("params/array.json")]), Fails("chain_parameter_invalid")),
        (expand("typed-params.json", &["--params", &p("params/not-json.txt")]), Fails("invalid_request")),
        (expand("typed-params.json", &["--params", &p("params/invalid-utf8.json")]), Fails("invalid_request")),
        (expand("typed-params.json", &["--params", &p("params")]), Fails("invalid_request")),
        (expand("typed-params.json", &["--set", "novalue"]), Fails("invalid_request")),
        (expand("node-without-id.json", &[]), Fails("invalid_manifest")),
        (expand("nodes-not-array.json", &[]), Fails("invalid_manifest")),
        (expand("self-cycle.json", &[]), Succeeds),
        (expand("sub-chain-cycle.json", &["--host", "tests/fixtures/host-permissive.json"]), Fails("sub_chain_cycle")),
        (expand("ok.json", &["--params", &p("params/token-in-value.json")]), Succeeds),
        (expand("ok.json", &["--expansion-id", "a.b"]), Fails("invalid_request")),
        (expand("ok.json", &["--expansion-id", ""]), Fails("invalid_request")),
        (expand("ok.json", &["--host", &p("packs")]), Fails("invalid_request")),
        (expand("ok.json", &["--host", &p("params/wrong-types.json")]), Fails("invalid_request")),
        (expand("ok.json", &["--host", &p("packs/empty.json")]), Fails("invalid_request")),
        (os(&["expand", &p("packs/ok.json"), "--chain", "no.such.chain"]), Fails("chain_not_found")),
        (os(&["expand", &p("params"), "--chain", "hostile.one"]), Fails("pack_not_found")),
        (os(&["expand", &p("packs/absent.json"), "--chain", "hostile.one"]), Fails("pack_not_found")),
        (os(&["expand", &p("packs"), "--chain", "hostile.one"]), Fails("pack_not_found")),
    ];
    let workflows = [
        ("nodes-not-array.json", Fails("validation_error")),
        ("edges-not-array.json", Fails("validation_error")),
        ("duplicate-node-ids.json", Fails("validation_error")),
        ("node-not-object.json", Fails("validation_error")),
        ("node-without-id.json", Fails("validation_error")),
        ("array-root.json", Fails("validation_error")),
        ("truncated.json", Fails("validation_error")),
        ("dangling-edges.json", Succeeds),
    ];
    for (file, expect) in workflows {
        cases.push((inline(hostile(&format!("workflows/{file}")), out, &[]), expect));
    }
    let dangling = || hostile("workflows/dangling-edges.json");
    cases.extend([
        (inline(hostile("workflows"), out, &[]), Fails("invalid_request")),
        (inline(hostile("workflows/absent.json"), out, &[]), Fails("invalid_request")),
        (inline(dangling(), out, &["--between", "a", "ghost"]), Fails("invalid_request")),
        (inline(dangling(), &out.join("no/such/folder/out.json"), &[]), Fails("io_error")),
        (inline(dangling(), &scratch.join("blocked"), &[]), Fails("io_error")),
    ]);
    let mut new = os(&["inline", "--new", "x", &p("packs/node-pack.json"), "--chain", "hostile.one", "-o"]);
    new.push(out.as_os_str().to_owned());
    cases.push((new, Fails("pack_kind_invalid")));
    cases
}

#[test]
fn every_committed_case_answers_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    std::fs::create_dir(dir.path().join("blocked")).unwrap();
    std::fs::write(dir.path().join("blocked/keep"), b"x").unwrap();
    for (args, expect) in committed_cases(dir.path()) {
        check(&args, None, expect);
        if expect != Expect::Succeeds {
            assert!(!out.exists(), "a failed command wrote its output: {args:?}");
        }
        let _ = std::fs::remove_file(&out);
    }
}

#[test]
fn every_committed_file_is_used_by_a_case() {
    let cases = committed_cases(Path::new("scratch"));
    let used: Vec<&OsString> = cases.iter().flat_map(|(args, _)| args).collect();
    let mut files = Vec::new();
    let mut stack = vec![root().join("tests/hostile")];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() { stack.push(path) } else { files.push(path) }
        }
    }
    assert!(files.len() > 30, "the corpus is there");
    for file in files {
        let file = file.into_os_string();
        assert!(used.contains(&&file), "{file:?} is used by no hostile case");
    }
}

#[test]
fn specific_messages_name_what_went_wrong() {
    let schema = check(&expand("pattern-lookahead.json", &[]), None, Expect::Fails("parameters_schema_invalid"));
    assert!(schema.message().contains("linear-time engine"), "{}", schema.message());
    let params = run(&expand("pattern-properties.json", &["--params", &p("params/pattern-properties.json")]), None);
    let errors = params.envelope()["details"]["errors"].clone();
    assert_eq!(errors.as_array().unwrap().len(), 1, "only the short matching key is refused: {errors}");
    assert_eq!(errors[0]["path"], "/aaaa");
    let typed = run(&expand("typed-params.json", &["--params", &p("params/wrong-types.json")]), None);
    let paths: Vec<String> = typed.envelope()["details"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(paths, ["/v", "/n"]);
    let long = format!("v={}", "é".repeat(50_000));
    let typed = run(&expand("typed-params.json", &["--set", &long, "--set", "n=1"]), None);
    assert!(typed.stderr.len() < 4_000, "violation messages quote long values in full: {} bytes", typed.stderr.len());
}

#[test]
fn substitution_is_single_pass_through_the_cli() {
    let out = check(&expand("ok.json", &["--params", &p("params/token-in-value.json")]), None, Expect::Succeeds);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"][0]["config"]["v"], "{{params.v}} <<params.v>>");
    let warned = v["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "leftover_params_token");
    assert!(warned, "the leftover token is warned about: {}", v["warnings"]);
}

#[test]
fn dangling_edges_survive_inline_verbatim() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    check(&inline(hostile("workflows/dangling-edges.json"), &out, &[]), None, Expect::Succeeds);
    let wf: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let edges = wf["edges"].as_array().unwrap();
    assert_eq!(edges[0], json!({"id": "e1", "sourceNodeId": "a", "targetNodeId": "ghost"}));
    assert_eq!(edges[1], json!({"id": "e2", "sourceNodeId": 7, "targetNodeId": null}));
}

#[test]
fn validate_answers_every_committed_pack_with_a_json_report() {
    let mut packs: Vec<PathBuf> =
        std::fs::read_dir(root().join("tests/hostile/packs")).unwrap().flatten().map(|e| e.path()).collect();
    packs.sort();
    for pack in packs {
        let out = run(&[OsString::from("validate"), OsString::from("--json"), pack.clone().into_os_string()], None);
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{}: --json output is not JSON ({e})", pack.display()));
        let errors = report.as_array().unwrap().iter().filter(|f| f["severity"] == "error").count();
        let expected = if errors > 0 { 1 } else { 0 };
        assert_eq!(out.code, Some(expected), "{}: {report}", pack.display());
        let name = pack.file_name().unwrap().to_string_lossy().into_owned();
        let valid = [
            "format-regex.json",
            "node-pack.json",
            "ok.json",
            "pattern-nested-quantifier.json",
            "pattern-properties.json",
            "ref-loop.json",
            "self-cycle.json",
            "typed-params.json",
        ];
        if valid.contains(&name.as_str()) {
            assert_eq!(errors, 0, "{name}: {report}");
        } else {
            assert!(errors > 0, "{name} passed validation");
        }
    }
}

/// Generated cases: each writes its input into a temporary folder.
mod generated {
    use super::*;

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> OsString {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.into_os_string()
    }

    fn pack_with_nodes(nodes: Vec<Value>) -> Vec<u8> {
        let mut m: Value = serde_json::from_slice(&std::fs::read(hostile("packs/ok.json")).unwrap()).unwrap();
        m["chains"][0]["dag"]["nodes"] = Value::Array(nodes);
        serde_json::to_vec(&m).unwrap()
    }

    #[test]
    fn deep_nesting_names_the_nesting_limit() {
        let dir = tempfile::tempdir().unwrap();
        let arrays = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let objects = format!("{}1{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
        let pack = write(dir.path(), "pack.json", arrays.as_bytes());
        let out = check(
            &[OsString::from("expand"), pack, "--chain".into(), "x".into()],
            None,
            Expect::Fails("pack_manifest_invalid"),
        );
        assert!(out.message().contains("nesting is limited to 127 levels"), "{}", out.message());
        let wf = write(dir.path(), "wf.json", objects.as_bytes());
        let out = check(&inline(wf, &dir.path().join("out.json"), &[]), None, Expect::Fails("validation_error"));
        assert!(out.message().contains("nesting is limited to 127 levels"), "{}", out.message());
        let params = write(dir.path(), "params.json", format!("{{\"v\":{objects}}}").as_bytes());
        let mut args = expand("ok.json", &["--params"]);
        args.push(params);
        let out = check(&args, None, Expect::Fails("invalid_request"));
        assert!(out.message().contains("nesting is limited to 127 levels"), "{}", out.message());
    }

    #[test]
    fn sixty_megabyte_strings_are_refused_by_size_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = Vec::with_capacity(60 * 1024 * 1024 + 32);
        text.extend_from_slice(b"{\"v\": \"");
        text.resize(text.len() + 60 * 1024 * 1024, b'a');
        text.extend_from_slice(b"\"}");
        let file = write(dir.path(), "big.json", &text);
        let out = check(
            &[OsString::from("expand"), file.clone(), "--chain".into(), "x".into()],
            None,
            Expect::Fails("pack_manifest_invalid"),
        );
        assert!(out.message().contains("the limit is 16777216 bytes"), "{}", out.message());
        let mut args = expand("ok.json", &["--params"]);
        args.push(file);
        let out = check(&args, None, Expect::Fails("invalid_request"));
        assert!(out.message().contains("the limit is 16777216 bytes"), "{}", out.message());
        let out = check(&expand("ok.json", &["--params", "-"]), Some(&text), Expect::Fails("invalid_request"));
        assert!(out.message().contains("the limit is 16777216 bytes"), "stdin: {}", out.message());
        // validate reports on stdout, one line per file.
        let out = run(&[OsString::from("validate"), write(dir.path(), "pack.json", &text)], None);
        assert_eq!(out.code, Some(1));
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(report.contains("pack_manifest_invalid") && report.contains("the limit is 16777216 bytes"), "{report}");
    }

    #[test]
    fn workflows_over_the_size_limit_are_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let wf = dir.path().join("wf.json");
        // A sparse file: the size check must come before any read.
        std::fs::File::create(&wf).unwrap().set_len(65 * 1024 * 1024).unwrap();
        let out = check(
            &inline(wf.into_os_string(), &dir.path().join("out.json"), &[]),
            None,
            Expect::Fails("validation_error"),
        );
        assert!(out.message().contains("the limit is 67108864 bytes"), "{}", out.message());
    }

    #[test]
    fn a_ten_megabyte_node_name_round_trips_through_inline() {
        let dir = tempfile::tempdir().unwrap();
        let name = "n".repeat(10 * 1024 * 1024);
        let wf = json!({"id": "big-name", "name": "Big", "version": "1.0.0",
            "nodes": [{"id": "a", "typeId": "core.identity", "name": name}], "edges": []});
        let wf = write(dir.path(), "wf.json", &serde_json::to_vec(&wf).unwrap());
        let out_path = dir.path().join("out.json");
        check(&inline(wf, &out_path, &[]), None, Expect::Succeeds);
        let saved: Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
        assert_eq!(saved["nodes"][0]["name"].as_str().map(str::len), Some(name.len()));
        assert_eq!(saved["nodes"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn too_many_fragment_nodes_name_the_node_limit() {
        let dir = tempfile::tempdir().unwrap();
        let nodes = (0..=chainsmith::pack::MAX_FRAGMENT_NODES)
            .map(|i| json!({"id": format!("n{i}"), "typeId": "core.x"}))
            .collect();
        let pack = write(dir.path(), "pack.json", &pack_with_nodes(nodes));
        let out = check(
            &[OsString::from("expand"), pack, "--chain".into(), "hostile.one".into()],
            None,
            Expect::Fails("invalid_manifest"),
        );
        assert!(out.message().contains("the limit is 100000"), "{}", out.message());
    }

    #[test]
    fn many_crafted_strings_against_a_nested_quantifier_stay_fast() {
        let dir = tempfile::tempdir().unwrap();
        // Each string costs a backtracking engine 2^30 steps, or its whole budget if it has one.
        let list: Vec<String> = (0..20_000).map(|i| format!("{}b{i}", "a".repeat(30))).collect();
        let params = json!({"v": format!("{}b", "a".repeat(1_000_000)), "list": list});
        let file = write(dir.path(), "params.json", &serde_json::to_vec(&params).unwrap());
        let mut args = expand("pattern-nested-quantifier.json", &["--params"]);
        args.push(file);
        let out = check(&args, None, Expect::Fails("chain_parameter_invalid"));
        // 20,001 violations: the first 100 are listed, the rest counted.
        let errors = out.envelope()["details"]["errors"].as_array().unwrap().clone();
        assert_eq!(errors.len(), chainsmith::schemas::MAX_LISTED_VIOLATIONS + 1);
        let last = &errors[chainsmith::schemas::MAX_LISTED_VIOLATIONS];
        assert_eq!(last["keyword"], chainsmith::schemas::OMITTED_KEYWORD);
        assert!(last["message"].as_str().unwrap().starts_with("19901 more violations"), "{last}");
    }

    #[test]
    fn parameter_text_amplification_is_refused_with_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let nodes = (0..5_000)
            .map(|i| json!({"id": format!("n{i}"), "typeId": "core.x", "config": {"a": "{{params.v}}", "b": "<<params.v>>!"}}))
            .collect();
        let pack = write(dir.path(), "pack.json", &pack_with_nodes(nodes));
        let big = format!("v={}", "x".repeat(100_000));
        let args = [OsString::from("expand"), pack, "--chain".into(), "hostile.one".into(), "--set".into(), big.into()];
        let out = check(&args, None, Expect::Fails("invalid_request"));
        assert_eq!(out.envelope()["details"]["limit"], chainsmith::expand::MAX_SUBSTITUTED_BYTES);
        assert!(out.message().contains("the limit is"), "{}", out.message());
    }

    /// Neither has a length to check: /dev/zero never ends and a FIFO without a writer
    /// never starts, so both must be refused before reading.
    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pack.json");
        assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let out_path = dir.path().join("out.json");
        for file in [OsString::from("/dev/zero"), fifo.into_os_string()] {
            let pack = [OsString::from("expand"), file.clone(), "--chain".into(), "x".into()];
            let out = check(&pack, None, Expect::Fails("invalid_request"));
            assert!(out.message().contains("is not a regular file"), "{}", out.message());
            let mut params = expand("ok.json", &["--params"]);
            params.push(file.clone());
            check(&params, None, Expect::Fails("invalid_request"));
            check(&inline(file.clone(), &out_path, &[]), None, Expect::Fails("invalid_request"));
            check(&expand("ok.json", &["--host", file.to_str().unwrap()]), None, Expect::Fails("invalid_request"));
        }
    }

    #[test]
    fn a_missing_folder_and_a_folder_without_packs_are_not_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        for path in [dir.path().join("empty"), dir.path().join("absent")] {
            let args = [OsString::from("expand"), path.into_os_string(), "--chain".into(), "x".into()];
            check(&args, None, Expect::Fails("pack_not_found"));
        }
    }
}

/// A throw-away Ed25519 key, encrypted with the password "secret"
/// (`openssl pkey -in plain.pem -aes256 -passout pass:secret`).
const ENCRYPTED_KEY: &str = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIGbMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAh/e4ocX1Pv0wICCAAw\nDAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEOpUpgvMAVajhSz4XOCdxLcEQDGc\nVpcOnecZbGjN5bbFeB6uXU8WZeTXFzBJ+CkNT7JcyYo16hXoIF7Hgtv+t5ak8FuD\n60xukN4WUrs17u8/5bY=\n-----END ENCRYPTED PRIVATE KEY-----\n";

/// Text that trips a parser in a way that says nothing: each must be named for what it is.
mod named_refusals {
    use super::*;

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> OsString {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p.into_os_string()
    }

    fn pack_text(chain_extra: &str) -> String {
        format!(
            r#"{{"name": "vendor.t.named", "version": "1.0.0", "kind": "workflow-chain", "engines": {{"openwop": ">=1.0.0"}},
              "chains": [{{"chainId": "t.one", "version": "1.0.0", "label": "One", "description": "d",
                "parameters": {{"type": "object"}}{chain_extra},
                "dag": {{"nodes": [{{"id": "a", "typeId": "core.noop", "config": {{"k": 1}}}}]}}}}]}}"#
        )
    }

    #[test]
    fn a_byte_order_mark_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(pack_text("").as_bytes());
        let pack = write(dir.path(), "bom/pack.json", &bytes);
        let out = check(
            &[os(&["expand"]), vec![pack], os(&["--chain", "t.one"])].concat(),
            None,
            Expect::Fails("json_utf8_bom"),
        );
        assert!(out.message().contains("byte order mark"), "{}", out.message());
        let mut wf = b"\xEF\xBB\xBF".to_vec();
        wf.extend_from_slice(br#"{"id": "w", "name": "w", "version": "1", "nodes": [], "edges": []}"#);
        let wf = write(dir.path(), "wf.json", &wf);
        let out_file = dir.path().join("out.json");
        let out = check(&inline(wf, &out_file, &[]), None, Expect::Fails("json_utf8_bom"));
        assert!(out.message().contains("byte order mark"), "{}", out.message());
    }

    #[test]
    fn an_object_named_like_serde_json_s_number_marker_stays_an_object() {
        let dir = tempfile::tempdir().unwrap();
        let text =
            pack_text("").replace(r#""config": {"k": 1}"#, r#""config": {"k": {"$serde_json::private::Number": "5"}}"#);
        let pack = write(dir.path(), "num/pack.json", text.as_bytes());
        let out = check(
            &[os(&["expand"]), vec![pack], os(&["--chain", "t.one", "--expansion-id", "e1"])].concat(),
            None,
            Expect::Succeeds,
        );
        // Checked as text: the test's own serde_json has the feature too, and would read the
        // object back as the number 5.
        let marker = |n: u8| format!(r#""$serde_json::private::Number": "{n}""#);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains(&marker(5)), "{}", clip(&stdout));
        // A parameter value: an object parameter gets the object.
        let text = pack_text("")
            .replace(
                r#""parameters": {"type": "object"}"#,
                r#""parameters": {"type": "object", "properties": {"o": {"type": "object"}}}"#,
            )
            .replace(r#""config": {"k": 1}"#, r#""config": {"k": "{{params.o}}"}"#);
        let pack = write(dir.path(), "obj/pack.json", text.as_bytes());
        let params = write(dir.path(), "params.json", br#"{"o": {"$serde_json::private::Number": "7"}}"#);
        let args = [os(&["expand"]), vec![pack, "--params".into(), params], os(&["--chain", "t.one"])].concat();
        let out = check(&args, None, Expect::Succeeds);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains(&marker(7)), "{}", clip(&stdout));
        // A workflow.
        let wf = write(
            dir.path(),
            "wf.json",
            br#"{"id": "w", "name": "w", "version": "1", "nodes": [{"id": "n", "typeId": "core.noop", "config": {"x": {"$serde_json::private::Number": "9"}}}], "edges": []}"#,
        );
        let out_file = dir.path().join("out.json");
        check(&inline(wf, &out_file, &[]), None, Expect::Succeeds);
        let saved = std::fs::read_to_string(&out_file).unwrap();
        assert!(saved.contains(&marker(9)), "{}", clip(&saved));
    }

    #[test]
    fn repeated_member_names_are_warned_in_validate_as_signing_refuses_them() {
        let dir = tempfile::tempdir().unwrap();
        let text = pack_text(r#", "label": "Again""#);
        let pack = write(dir.path(), "dup/pack.json", text.as_bytes());
        let out = check(&[os(&["validate", "--json"]), vec![pack]].concat(), None, Expect::Succeeds);
        let findings: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        let dup: Vec<&Value> = findings.iter().filter(|f| f["code"] == "duplicate_member_name").collect();
        assert_eq!(dup.len(), 1, "{findings:?}");
        assert_eq!(dup[0]["path"], "/chains/0/label");
        assert_eq!(dup[0]["severity"], "warning");
        assert!(dup[0]["message"].as_str().unwrap().contains("sign"), "{}", dup[0]);
    }

    #[test]
    fn an_encrypted_key_is_named_encrypted() {
        let dir = tempfile::tempdir().unwrap();
        let pack = write(dir.path(), "p/pack.json", pack_text("").as_bytes());
        let key = write(dir.path(), "enc.pem", ENCRYPTED_KEY.as_bytes());
        let args = [os(&["pack", "sign"]), vec![pack, "--key".into(), key], os(&["--key-id", "k1"])].concat();
        let out = check(&args, None, Expect::Fails("invalid_request"));
        assert!(out.message().contains("encrypted"), "{}", out.message());
        assert!(out.message().contains("unencrypted PKCS#8"), "{}", out.message());
    }
}

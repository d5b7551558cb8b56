//! Running the real `chainsmith` binary from a test and reading its answer: the JSON it
//! prints on success, or the error envelope that is the last line of stderr.
//!
//! Every integration test runs the binary through [`bin`] (a builder, for the few that set
//! an environment variable or pipe stdin) or [`run`], so all of them run it the same way:
//! in the checkout, with no OpenWOP config home inherited from the developer's shell.

use chainsmith::schemas::Schema;
use serde_json::Value;
use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `chainsmith`, to be given arguments, run in the checkout with no `OPENWOP_CONFIG_HOME`.
pub fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_chainsmith"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR")).env_remove("OPENWOP_CONFIG_HOME");
    cmd
}

/// `chainsmith ARGS`, with stdin closed.
pub fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    bin().args(args).stdin(Stdio::null()).output().expect("chainsmith starts")
}

/// `chainsmith ARGS` with `input` on stdin.
pub fn run_with_stdin<S: AsRef<OsStr>>(args: &[S], input: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chainsmith starts");
    let mut pipe = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A child that stops reading early closes the pipe; that is its answer, not the test's.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Stdout as JSON, after a successful exit.
pub fn ok_json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}; stderr ends: {}",
        out.status,
        tail(&String::from_utf8_lossy(&out.stderr))
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The envelope of a refusal: exit 1, and the last stderr line is an ErrorEnvelope (checked
/// against the official schema).
pub fn envelope(out: &Output) -> Value {
    envelope_with_exit(out, 1)
}

/// The envelope of a usage error: exit 2, with the same envelope as any other failure.
pub fn usage_envelope(out: &Output) -> Value {
    envelope_with_exit(out, 2)
}

fn envelope_with_exit(out: &Output, code: i32) -> Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "exit {:?}; stderr ends: {}", out.status, tail(&stderr));
    let last = stderr.lines().last().unwrap_or_default();
    let env: Value = serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("the last stderr line is not JSON ({e}); stderr ends: {}", tail(&stderr)));
    let violations = Schema::ErrorEnvelope.violations(&env);
    assert!(violations.is_empty(), "not an ErrorEnvelope ({violations:?}): {}", tail(last));
    env
}

/// The end of a long text, for failure messages.
pub fn tail(s: &str) -> &str {
    let start = s.len().saturating_sub(2000);
    let start = (start..s.len()).find(|i| s.is_char_boundary(*i)).unwrap_or(s.len());
    &s[start..]
}

//! Running the real `chainsmith` binary from a test and reading its answer: the JSON it
//! prints on success, or the error envelope that is the last line of stderr.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_chainsmith"))
}

/// `chainsmith ARGS`, with no OpenWOP config home inherited from the environment.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).env_remove("OPENWOP_CONFIG_HOME").output().unwrap()
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Stdout as JSON, after a successful exit.
pub fn ok_json(out: &Output) -> Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The envelope of a refusal (exit 1).
pub fn envelope(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(1), "stdout: {}", String::from_utf8_lossy(&out.stdout));
    let stderr = String::from_utf8_lossy(&out.stderr);
    serde_json::from_str(stderr.lines().last().unwrap()).unwrap()
}

//! The two binaries: `chainsmith` is the command line and holds none of the editor's code;
//! without a subcommand it hands its arguments to `chainsmith-editor` beside it.

mod common;

use std::process::Command;

/// Occurrences of `needle` in the file (symbol names in the debug binary's symbol table).
fn count(file: &str, needle: &[u8]) -> usize {
    memchr::memmem::find_iter(&std::fs::read(file).unwrap(), needle).count()
}

/// Mangled-name prefixes of the GUI's crates and of the library's editor module.
const GUI_SYMBOLS: [&[u8]; 4] = [b"_ZN4egui", b"_ZN6eframe", b"_ZN5winit", b"_ZN10chainsmith3app"];

#[test]
fn the_command_line_binary_links_none_of_the_editor() {
    let cli = env!("CARGO_BIN_EXE_chainsmith");
    let editor = env!("CARGO_BIN_EXE_chainsmith-editor");
    for symbol in GUI_SYMBOLS {
        let name = String::from_utf8_lossy(symbol);
        assert!(count(editor, symbol) > 0, "{name}: the editor binary has it (the search can find it)");
        assert_eq!(count(cli, symbol), 0, "{name} in the command-line binary");
    }
}

#[test]
fn without_a_subcommand_the_editor_binary_runs_with_the_same_arguments() {
    // With no display the editor fails to start: its own message and exit status come back.
    let out = common::cli::bin()
        .arg("some workflow.json")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the editor could not start"), "{stderr}");
    assert!(stderr.contains("DISPLAY"), "the editor's own reason: {stderr}");
}

#[test]
fn a_missing_editor_binary_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("chainsmith");
    std::fs::copy(env!("CARGO_BIN_EXE_chainsmith"), &alone).unwrap();
    let out = Command::new(&alone).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let beside = dir.path().join(format!("chainsmith-editor{}", std::env::consts::EXE_SUFFIX));
    assert!(stderr.contains(&beside.display().to_string()), "names where it looked: {stderr}");
    // The command line still works from that copy.
    let version = Command::new(&alone).arg("--version").output().unwrap();
    assert!(version.status.success());
}

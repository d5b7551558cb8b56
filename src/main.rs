//! `chainsmith`: the command line. Without a subcommand it starts the editor, which is its
//! own binary beside this one (`chainsmith-editor`, built with the default `gui` feature),
//! so that no command — `verify` and `install` among them — maps the GUI's code: a headless
//! run of this binary is ~4 MB smaller and starts faster than one of the editor's.

mod cli;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    cli::start::main(editor)
}

/// The editor binary's file name.
#[cfg(feature = "gui")]
fn editor_name() -> String {
    format!("chainsmith-editor{}", std::env::consts::EXE_SUFFIX)
}

/// Start the editor beside this binary with the same arguments. On Unix it replaces this
/// process (same pid, same exit status, nothing left waiting).
#[cfg(feature = "gui")]
fn editor(_files: Vec<PathBuf>) -> ExitCode {
    let beside = std::env::current_exe().map(|exe| exe.with_file_name(editor_name()));
    let path = match beside {
        Ok(path) if path.is_file() => path,
        found => {
            let at =
                found.map_or_else(|e| format!("(this binary's path is unknown: {e})"), |p| p.display().to_string());
            eprintln!(
                "chainsmith: the editor binary is missing: {at}.\n\
                 `cargo build --release` builds it beside chainsmith; `cargo run --release` runs it.\n\
                 The command line works without it: run `chainsmith --help` for its commands."
            );
            return ExitCode::from(2);
        }
    };
    let mut command = std::process::Command::new(&path);
    command.args(std::env::args_os().skip(1));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let e = command.exec();
        eprintln!("chainsmith: could not start the editor {}: {e}", path.display());
        ExitCode::FAILURE
    }
    #[cfg(not(unix))]
    match command.status() {
        Ok(status) => status.code().and_then(|c| u8::try_from(c).ok()).map_or(ExitCode::FAILURE, ExitCode::from),
        Err(e) => {
            eprintln!("chainsmith: could not start the editor {}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}

/// A CLI-only build: say how to get the editor instead of failing silently.
#[cfg(not(feature = "gui"))]
fn editor(_files: Vec<PathBuf>) -> ExitCode {
    eprintln!(
        "chainsmith: this build has no editor (it was built without the `gui` feature).\n\
         Build it with the default features to get the editor: `cargo build --release` or\n\
         `cargo install --path .` in a checkout (without --no-default-features).\n\
         The command line works in this build: run `chainsmith --help` for its commands."
    );
    ExitCode::from(2)
}

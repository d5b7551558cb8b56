//! `chainsmith-editor`: the editor, opening the files given. `chainsmith` without a
//! subcommand starts it; `cargo run --release` runs it. With a subcommand it runs the
//! command line, as `chainsmith` does.

#[path = "../cli/mod.rs"]
mod cli;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    cli::start::main(editor)
}

fn editor(files: Vec<PathBuf>) -> ExitCode {
    #[cfg(target_os = "linux")]
    cli::start::disable_huge_pages();
    match chainsmith::app::run(files) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chainsmith: the editor could not start: {e}");
            ExitCode::FAILURE
        }
    }
}

//! `chainsmith` with a subcommand runs the CLI; without one it opens the editor (when built
//! with the default `gui` feature).

mod cli;

use std::process::ExitCode;

/// A workflow is millions of small objects (every member name, string and number is its own
/// allocation); mimalloc packs them without the system allocator's per-allocation header
/// and 32-byte minimum, which held about a third more than the objects themselves.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = match cli::parse() {
        Ok(args) => args,
        Err(code) => return code,
    };
    match args.command {
        Some(command) => cli::run(command),
        None => editor(args.files),
    }
}

#[cfg(feature = "gui")]
fn editor(files: Vec<std::path::PathBuf>) -> ExitCode {
    match chainsmith::app::run(files) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chainsmith: the editor could not start: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A CLI-only build: say how to get the editor instead of failing silently.
#[cfg(not(feature = "gui"))]
fn editor(_files: Vec<std::path::PathBuf>) -> ExitCode {
    eprintln!(
        "chainsmith: this build has no editor (it was built without the `gui` feature).\n\
         Build it with the default features to get the editor: `cargo build --release` or\n\
         `cargo install --path .` in a checkout (without --no-default-features).\n\
         The command line works in this build: run `chainsmith --help` for its commands."
    );
    ExitCode::from(2)
}

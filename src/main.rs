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
    keep_pages_small();
    match chainsmith::app::run(files) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chainsmith: the editor could not start: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The editor stays open for hours with a workflow of small objects spread over its heap.
/// Transparent huge pages (mimalloc asks for them, and the GL driver's heap gets them too)
/// kept partly used 2 MiB pages resident: the app with a 100,000-node workflow peaked 14 to
/// 20 MiB higher with them, and no frame time changed without them. The command line keeps
/// them: a short run faults in its memory faster with them (`expand` about a fifth faster).
#[cfg(all(feature = "gui", target_os = "linux"))]
fn keep_pages_small() {
    // SAFETY: PR_SET_THP_DISABLE only sets a flag on this process; the call takes no
    // pointers. Failure (an old kernel) leaves huge pages on, which is only more memory.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(all(feature = "gui", not(target_os = "linux")))]
fn keep_pages_small() {}

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

//! `chainsmith` with a subcommand runs the CLI; without one it opens the editor.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match args.command {
        Some(command) => cli::run(command),
        None => match chainsmith::app::run(args.files) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("chainsmith: the editor could not start: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

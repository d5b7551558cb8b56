//! `chainsmith` with a subcommand runs the CLI; without one it opens the editor.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match args.command {
        Some(command) => cli::run(command),
        None => {
            eprintln!("the editor is not built into this binary yet; run a subcommand (see --help)");
            ExitCode::from(2)
        }
    }
}

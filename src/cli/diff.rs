//! `chainsmith diff OLD NEW` and `chainsmith pack check-version OLD NEW`: two packs (files,
//! folders, or `NAME@VERSION --registry DIR`) or two workflows compared by the core's
//! [`chainsmith::diff`].

use super::{write_stdout, write_stdout_with};
use chainsmith::diff::{self, Side, load_side as load, pack::diff_packs, workflow::diff_workflows};
use chainsmith::error::{Error, Result, code};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct DiffArgs {
    /// The old pack or workflow: a file, a pack folder, or NAME@VERSION with --registry.
    pub old: String,
    /// The new one, read the same way.
    pub new: String,
    /// Compare only this chain of the two packs.
    #[arg(long = "chain", value_name = "ID")]
    pub chain: Option<String>,
    /// The registry folder NAME@VERSION arguments are read from.
    #[arg(long, value_name = "DIR")]
    pub registry: Option<PathBuf>,
    /// Print `{required, changes}` (packs) or `{nodes, edges}` (workflows) as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct CheckVersionArgs {
    /// The published (old) pack: a file, a folder, or NAME@VERSION with --registry.
    pub old: String,
    /// The pack about to be published.
    pub new: String,
    /// The registry folder NAME@VERSION arguments are read from.
    #[arg(long, value_name = "DIR")]
    pub registry: Option<PathBuf>,
}

pub fn diff(args: &DiffArgs) -> Result<ExitCode> {
    let registry = args.registry.as_deref();
    let out = match (load(&args.old, registry)?, load(&args.new, registry)?) {
        (Side::Pack(a), Side::Pack(b)) => {
            let d = diff_packs(&a.manifest, &b.manifest, args.chain.as_deref());
            if !args.json {
                println!(
                    "{} → {}: {}, needs a {} version bump",
                    a.version(),
                    b.version(),
                    chainsmith::words::count(d.changes.len(), "change", "changes"),
                    d.required().as_str()
                );
                for c in &d.changes {
                    println!("{:<5} {} {} {}", c.level.as_str(), c.kind, c.chain_id.unwrap_or("-"), c.pointer);
                }
                return Ok(ExitCode::SUCCESS);
            }
            write_stdout_with(|w| {
                serde_json::to_writer(&mut *w, &d)?;
                w.write_all(b"\n")
            })?;
            return Ok(ExitCode::SUCCESS);
        }
        (Side::Workflow(a), Side::Workflow(b)) => {
            let d = diff_workflows(&a, &b);
            if !args.json {
                for what in ["nodes", "edges"] {
                    let part = &d[what];
                    let count = |k: &str| part[k].as_array().map_or(0, Vec::len);
                    println!(
                        "{what}: {} added, {} removed, {} changed",
                        count("added"),
                        count("removed"),
                        chainsmith::words::count(count("changed"), "member", "members")
                    );
                }
                return Ok(ExitCode::SUCCESS);
            }
            d
        }
        _ => {
            return Err(Error::new(code::INVALID_REQUEST, "give two packs or two workflows, not one of each")
                .with("old", args.old.as_str())
                .with("new", args.new.as_str()));
        }
    };
    write_stdout(format!("{out}\n").as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

pub fn check_version(args: &CheckVersionArgs) -> Result<ExitCode> {
    let registry = args.registry.as_deref();
    let (Side::Pack(old), Side::Pack(new)) = (load(&args.old, registry)?, load(&args.new, registry)?) else {
        return Err(Error::new(code::INVALID_REQUEST, "check-version compares two packs"));
    };
    let d = diff_packs(&old.manifest, &new.manifest, None);
    let bump = diff::check_bump(new.name(), old.version(), new.version(), &d)?;
    let out = json!({
        "name": new.name(), "old": old.version(), "new": new.version(),
        "bump": bump.as_str(), "required": d.required().as_str(), "changes": d.changes.len(),
    });
    write_stdout(format!("{out}\n").as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

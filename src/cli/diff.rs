//! `chainsmith diff OLD NEW` and `chainsmith pack check-version OLD NEW`: two packs (files,
//! folders, or `NAME@VERSION --registry DIR`) or two workflows compared by the core's
//! [`chainsmith::diff`].

use super::{load_one_pack, write_stdout};
use chainsmith::diff::{self, pack::diff_packs, workflow::diff_workflows};
use chainsmith::error::{Error, Result, code};
use chainsmith::pack::Pack;
use chainsmith::workflow::Workflow;
use chainsmith::workflow::app_instance::{definition_form, is_app_form};
use clap::Args;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
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

enum Side {
    Pack(Box<Pack>),
    Workflow(Box<Workflow>),
}

/// A pack or a workflow, told apart by what the JSON holds (`chains` or `kind`: a pack).
fn load(arg: &str, registry: Option<&Path>) -> Result<Side> {
    let path = Path::new(arg);
    if let (Some(reg), false) = (registry, path.exists()) {
        let (name, spec) = chainsmith::registry::split_spec(arg);
        return Ok(Side::Pack(Box::new(diff::registry::registry_pack(reg, name, spec)?)));
    }
    if path.is_dir() {
        return Ok(Side::Pack(Box::new(load_one_pack(path, false)?)));
    }
    let bytes = chainsmith::fsio::read_limited(path, chainsmith::workflow::MAX_WORKFLOW_BYTES, code::INVALID_REQUEST)?;
    let doc: Value = chainsmith::fsio::parse_json(code::INVALID_REQUEST, path, &bytes)?;
    if doc.get("chains").is_some() || doc.get("kind").is_some() {
        return Ok(Side::Pack(Box::new(load_one_pack(path, false)?)));
    }
    let doc = if is_app_form(&doc) { definition_form(doc) } else { doc };
    Ok(Side::Workflow(Box::new(Workflow::from_json(doc).map_err(|e| e.with("path", arg))?)))
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
                    println!(
                        "{:<5} {} {} {}",
                        c.level.as_str(),
                        c.kind,
                        c.chain_id.as_deref().unwrap_or("-"),
                        c.pointer
                    );
                }
                return Ok(ExitCode::SUCCESS);
            }
            d.to_json()
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

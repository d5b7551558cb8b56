//! `chainsmith upgrade` (alias `reparam`): re-parameterise and/or upgrade chain instances in
//! a workflow, keeping the user's edits. chainsmith's own instances
//! (`metadata.customProperties.chainsmith.instances`) go through the inline pipeline; a
//! workflow the OpenWOP app expanded (`metadata.expandedFrom`) is re-expanded by the app's
//! rules. Either way all instances are done in memory first: one refusal (a conflict left
//! unsettled included) writes nothing.

use super::{collect_values, print_warnings, write_stdout};
use chainsmith::catalog::Trust;
use chainsmith::error::{Error, Result, code};
use chainsmith::inline::{Destination, ExpansionIdChoice, InlineRequest};
use chainsmith::instance::{Choice, Resolutions, upgrade};
use chainsmith::pack::{LoadOptions, Pack, PackKind, load_path};
use chainsmith::workflow::app_instance::{AppInstance, HandEdit, definition_form, is_app_form};
use chainsmith::workflow::{ExportMode, Workflow};
use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct UpgradeArgs {
    /// The workflow whose chain instances to re-expand.
    pub workflow: PathBuf,
    /// Packs (pack.json files or folders, several versions allowed) holding the instances'
    /// chains: the recorded version (to tell the user's edits apart) and the target; repeatable.
    #[arg(long = "pack", value_name = "PACK", required = true)]
    pub packs: Vec<PathBuf>,
    /// The instance to re-expand: its key (e.g. `support_triage_t001`) or expansionId.
    #[arg(long, value_name = "ID", conflicts_with = "all")]
    pub instance: Option<String>,
    /// Re-expand every instance the workflow records.
    #[arg(long)]
    pub all: bool,
    /// The chain (or pack) version to upgrade to; default: the newest among the packs.
    #[arg(long, value_name = "VERSION")]
    pub to: Option<String>,
    /// New values as a JSON object, from a file or `-` for stdin; merged over the recorded ones.
    #[arg(long, value_name = "FILE|-")]
    pub params: Option<String>,
    /// One new value (JSON, or plain text for text parameters); repeatable.
    #[arg(long = "set", value_name = "NAME=JSON")]
    pub set: Vec<String>,
    /// Settle every conflict (a member changed by you and by the new expansion) this way;
    /// without it a conflict refuses the upgrade and nothing is written.
    #[arg(long, value_enum)]
    pub prefer: Option<PreferArg>,
    /// Where to write the workflow (atomically; may be WORKFLOW itself).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Print the summary as one JSON object (the default prints it as lines).
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum PreferArg {
    Mine,
    New,
}

pub fn upgrade(args: &UpgradeArgs) -> Result<ExitCode> {
    let path = &args.workflow;
    let bytes = chainsmith::fsio::read_limited(path, chainsmith::workflow::MAX_WORKFLOW_BYTES, code::VALIDATION_ERROR)?;
    let doc: Value = chainsmith::fsio::parse_json(code::VALIDATION_ERROR, path, &bytes)?;
    drop(bytes);
    let packs = load_packs(&args.packs)?;
    let res = match args.prefer {
        Some(PreferArg::Mine) => Resolutions::prefer(Choice::Mine),
        Some(PreferArg::New) => Resolutions::prefer(Choice::New),
        None => Resolutions::default(),
    };
    let summary = match AppInstance::recognise(&doc) {
        Some(inst) => upgrade_app(args, &doc, &inst, &packs, &res)?,
        None => upgrade_instances(args, doc, &packs, &res)?,
    };
    if args.json {
        write_stdout(format!("{summary}\n").as_bytes())?;
    } else {
        for inst in summary["instances"].as_array().into_iter().flatten() {
            let edits = inst["edits"].as_array().map_or(0, Vec::len);
            let settled = match inst["conflicts"].as_array() {
                Some(c) => format!(", {} settled", chainsmith::words::count(c.len(), "conflict", "conflicts")),
                None => String::new(),
            };
            println!(
                "{}: {}@{} -> {} ({} kept{settled})",
                inst["instance"].as_str().unwrap_or_default(),
                inst["chainId"].as_str().unwrap_or_default(),
                inst["from"].as_str().unwrap_or_default(),
                inst["to"].as_str().unwrap_or_default(),
                chainsmith::words::count(edits, "edit", "edits"),
            );
        }
        for inst in summary["skipped"].as_array().into_iter().flatten() {
            println!(
                "{}: pinned at {}, skipped",
                inst["instance"].as_str().unwrap_or_default(),
                inst["version"].as_str().unwrap_or_default()
            );
        }
        println!("wrote {}", args.output.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Every workflow-chain pack under the paths given.
fn load_packs(paths: &[PathBuf]) -> Result<Vec<Pack>> {
    let mut packs = Vec::new();
    for path in paths {
        let out = load_path(path, LoadOptions::default());
        if let Some(e) = out.failures.into_iter().next() {
            return Err(e);
        }
        packs.extend(out.packs.into_iter().filter(|p| p.kind == PackKind::WorkflowChain));
    }
    if packs.is_empty() {
        return Err(Error::new(code::PACK_NOT_FOUND, "no workflow-chain pack among the --pack paths"));
    }
    Ok(packs)
}

fn upgrade_instances(args: &UpgradeArgs, doc: Value, packs: &[Pack], res: &Resolutions) -> Result<Value> {
    let mut wf = Workflow::from_json(doc)?;
    let selected = upgrade::select(&wf, args.instance.as_deref(), args.all)?;
    let trust = Trust::default();
    let mut done = Vec::new();
    let mut skipped = Vec::new();
    let mut warnings = Vec::new();
    for inst in selected {
        let key = inst.key();
        // A pinned instance keeps its version: `--all` passes it by, and one named alone is
        // re-parameterised at its version unless `--to` says otherwise.
        if inst.pinned && args.all {
            skipped.push(json!({"instance": key, "reason": "pinned", "version": inst.chain_version}));
            continue;
        }
        let to = args.to.as_deref().or(inst.pinned.then_some(inst.chain_version.as_str()));
        let pack = upgrade::target(&key, &inst.chain_id, packs, to)?;
        let chain = pack.chain(&inst.chain_id).expect("target holds the chain");
        let (given, found) =
            collect_values(pack.chain(&inst.chain_id), &inst.chain_id, args.params.as_deref(), &args.set)?;
        warnings.extend(found);
        let values = upgrade::carried_values(&inst.params, chain, given);
        let mut req = InlineRequest::new(&trust, pack, &inst.chain_id, values);
        req.expansion_id = ExpansionIdChoice::Given(inst.expansion_id.clone());
        req.external = packs;
        req.destination = Destination::Reparameterise { key: key.clone(), resolutions: res.clone() };
        let out = chainsmith::inline::inline(&mut wf, req).map_err(|e| e.with("instance", key.as_str()))?;
        warnings.extend(out.findings.into_iter().filter(|f| f.code != code::PACK_UNSIGNED));
        done.push(json!({
            "instance": key,
            "chainId": inst.chain_id,
            "from": inst.chain_version,
            "to": out.instance.chain_version,
            "packVersion": out.instance.pack_version,
            "params": out.instance.params,
            "edits": out.edits.iter().map(chainsmith::instance::Edit::to_json).collect::<Vec<_>>(),
            "conflicts": out.conflicts.iter().map(|c| {
                let mut v = c.to_json();
                v["chosen"] = json!(if res.choice(&c.node_id, &c.pointer) == Some(Choice::New) { "new" } else { "mine" });
                v
            }).collect::<Vec<_>>(),
            "removedEdges": out.removed_edges.iter().map(|e| e.id().to_owned()).collect::<Vec<_>>(),
        }));
    }
    print_warnings(&warnings);
    wf.save(&args.output, ExportMode::Faithful)?;
    Ok(json!({"output": args.output.display().to_string(), "instances": done, "skipped": skipped}))
}

/// A workflow the OpenWOP app expanded from one chain: re-expanded by the app's rules and
/// expansionId, in the form it was read (the app's `nodeId` form stays).
fn upgrade_app(
    args: &UpgradeArgs,
    doc: &Value,
    inst: &AppInstance,
    packs: &[Pack],
    res: &Resolutions,
) -> Result<Value> {
    let key = inst.prefix();
    if args.instance.as_deref().is_some_and(|n| n != key && Some(n) != key.strip_suffix('_') && n != inst.expansion_id)
    {
        return Err(Error::new(code::INSTANCE_NOT_FOUND, "no such instance; this workflow is one app instance")
            .with("instance", args.instance.as_deref().unwrap_or_default())
            .with("instances", vec![key]));
    }
    let pack = upgrade::target(&key, &inst.chain_id, packs, args.to.as_deref())?;
    let chain = pack.chain(&inst.chain_id).expect("target holds the chain");
    let (values, warnings) =
        collect_values(pack.chain(&inst.chain_id), &inst.chain_id, args.params.as_deref(), &args.set)?;
    let base = packs
        .iter()
        .find_map(|p| p.chain(&inst.chain_id).filter(|c| c.version() == inst.chain_version))
        .ok_or_else(|| {
            Error::new(
                code::INSTANCE_BASE_UNAVAILABLE,
                format!(
                    "instance {key} was expanded from {}@{}, which none of the packs given holds; it is needed to tell your edits apart",
                    inst.chain_id, inst.chain_version
                ),
            )
            .with("instance", key.as_str())
            .with("chainId", inst.chain_id.as_str())
            .with("version", inst.chain_version.as_str())
        })?;
    print_warnings(&warnings);
    let edits = inst.hand_edits(doc, base)?;
    for e in &edits {
        match e {
            HandEdit::Changed { node_id, members } => {
                eprintln!("{node_id}: {} edited by hand; the re-expansion keeps it", members.join(", "))
            }
            HandEdit::Removed { node_id } => eprintln!("{node_id}: removed by hand; it stays removed"),
        }
    }
    let out = inst.upgrade(doc, base, chain, values, res).map_err(|e| e.with("instance", key.as_str()))?;
    // Checked as a workflow before writing, whichever form it is written in.
    let checked = if is_app_form(&out) { definition_form(out.clone()) } else { out.clone() };
    Workflow::from_json(checked)?;
    chainsmith::fsio::write_atomic(&args.output, &chainsmith::fsio::to_pretty_json(&out))?;
    let fresh = AppInstance::recognise(&out).map(|i| i.expansion_id).unwrap_or_default();
    let hand_edits: Vec<Value> = edits
        .iter()
        .map(|e| match e {
            HandEdit::Changed { node_id, members } => json!({"nodeId": node_id, "members": members}),
            HandEdit::Removed { node_id } => json!({"nodeId": node_id, "removed": true}),
        })
        .collect();
    let summary = json!({
        "instance": key,
        "chainId": inst.chain_id,
        "from": inst.chain_version,
        "to": chain.version(),
        "previousExpansionId": inst.expansion_id,
        "expansionId": fresh,
        "params": out.pointer("/metadata/expandedFrom/params"),
        "edits": hand_edits,
    });
    Ok(json!({
        "output": args.output.display().to_string(),
        "chainId": inst.chain_id,
        "version": chain.version(),
        "previousExpansionId": inst.expansion_id,
        "expansionId": fresh,
        "params": out.pointer("/metadata/expandedFrom/params"),
        "handEdits": summary["edits"],
        "instances": [summary],
    }))
}

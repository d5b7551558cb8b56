//! Authoring commands: `chain extract`. The pipeline is `chainsmith::author::extract_into`'s
//! three steps, which the editor calls too; this file only parses, loads, saves and prints.

use super::write_stdout;
use chainsmith::author::{
    BoundaryEdge, ChainInfo, PackDraft, PackInfo, Placement, Promotion, place_extraction, promote_extraction,
};
use chainsmith::error::{Error, Finding, Result, code};
use chainsmith::workflow::Workflow;
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum ChainCommand {
    /// Build a chain from workflow nodes and add it to a pack (or replace the chain with the
    /// same chainId); creates the pack with --pack-name. Prints a one-line JSON summary.
    Extract(ExtractArgs),
}

#[derive(Args)]
pub struct ExtractArgs {
    /// The workflow (WorkflowDefinition JSON) holding the nodes.
    pub workflow: PathBuf,
    /// The pack folder (its pack.json is created or updated).
    #[arg(long, value_name = "DIR")]
    pub pack: PathBuf,
    /// The chain's chainId.
    #[arg(long, value_name = "ID")]
    pub chain_id: String,
    /// The chain's tile caption.
    #[arg(long, value_name = "TEXT")]
    pub label: String,
    /// The chain's description (default: the replaced chain's, else empty).
    #[arg(long, value_name = "TEXT")]
    pub description: Option<String>,
    /// The workflow nodes to extract (default: all).
    #[arg(long, value_name = "ID,ID,...", value_delimiter = ',')]
    pub nodes: Option<Vec<String>>,
    /// Promote the value at POINTER in node NODE_ID to parameter NAME; repeat a NAME to
    /// share one parameter between several values.
    #[arg(long = "param", value_name = "NAME=NODE_ID:/POINTER")]
    pub params: Vec<String>,
    /// Create the pack with this name when DIR has no pack.json.
    #[arg(long, value_name = "NAME")]
    pub pack_name: Option<String>,
    /// The chain's version (default: the replaced chain's, else 1.0.0); a new pack gets it too.
    #[arg(long, value_name = "SEMVER")]
    pub version: Option<String>,
}

/// One `--param NAME=NODE_ID:/POINTER`: the name, the node id and the pointer's tail.
fn parse_param(item: &str) -> Result<(&str, &str, &str)> {
    item.split_once('=')
        .and_then(|(name, target)| {
            let (node, tail) = target.split_once(":/")?;
            Some((name, node, tail))
        })
        .ok_or_else(|| {
            Error::new(code::INVALID_REQUEST, format!("--param {item}: expected NAME=NODE_ID:/POINTER"))
                .with("param", item)
        })
}

/// `--param NAME=NODE_ID:/POINTER`, grouped by name in the order names first appear.
fn promotions(items: &[String]) -> Result<Vec<Promotion>> {
    let mut out: Vec<Promotion> = Vec::new();
    let mut by_name: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for item in items {
        let (name, node, tail) = parse_param(item)?;
        let pointer = format!("/{tail}");
        match by_name.get(name) {
            Some(&i) => out[i].targets.push((node.to_owned(), pointer)),
            None => {
                by_name.insert(name, out.len());
                out.push(Promotion::new(name, node, &pointer));
            }
        }
    }
    Ok(out)
}

pub fn extract(mut args: ExtractArgs) -> Result<ExitCode> {
    // Checked before anything is read; built once the workflow is let go (below).
    args.params.iter().try_for_each(|item| parse_param(item).map(drop))?;
    let workflow = Workflow::load(&args.workflow)?;
    let file = if args.pack.extension().is_some_and(|e| e == "json") && !args.pack.is_dir() {
        args.pack.clone()
    } else {
        args.pack.join("pack.json")
    };
    let created = !file.exists();
    let mut draft = if created {
        let name = args.pack_name.clone().ok_or_else(|| {
            Error::new(
                code::INVALID_REQUEST,
                format!("{} does not exist; give --pack-name to create the pack", file.display()),
            )
            .with("path", file.display().to_string())
        })?;
        let version = args.version.clone().unwrap_or_else(|| "1.0.0".to_owned());
        PackDraft::new(&PackInfo { name, version, ..Default::default() })
    } else {
        let draft = PackDraft::open(&file)?;
        if let Some(name) = args.pack_name.as_deref().filter(|n| *n != draft.name()) {
            return Err(Error::new(
                code::INVALID_REQUEST,
                format!("{} is pack {}, not {name}; leave out --pack-name to add to it", file.display(), draft.name()),
            )
            .with("path", file.display().to_string())
            .with("packName", draft.name()));
        }
        draft
    };
    let chain = ChainInfo {
        chain_id: args.chain_id.clone(),
        label: args.label.clone(),
        description: args.description.clone(),
        version: args.version.clone(),
    };
    // `extract_into`'s steps, with each input let go once spent: the workflow once the
    // chain is built, the promotions (built only then) and the id lists once applied,
    // before the pack is validated.
    let mut extraction = chainsmith::author::extract(&workflow, args.nodes.as_deref(), &chain)?;
    drop(workflow);
    promote_extraction(&mut extraction, &promotions(&std::mem::take(&mut args.params))?)?;
    extraction.ids = Vec::new();
    let out = place_extraction(&mut draft, extraction, &chain)?;
    let errors: Vec<Value> = draft.errors().map(Finding::to_json).collect();
    if let Some(first) = draft.errors().next() {
        return Err(first.clone().into_error().with("errors", errors).with("file", file.display().to_string()));
    }
    for w in &out.extraction.warnings {
        eprintln!("{}: {w}", args.workflow.display());
    }
    let pack_warnings: Vec<Finding> = draft.findings().to_vec();
    for w in &pack_warnings {
        eprintln!("{}: {w}", file.display());
    }
    // Refused before the folder is made or anything is written.
    draft.checked_size(&file)?;
    if created && let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, &e).not_a_pack())?;
    }
    // Written as `PackDraft::save` writes it (streamed, never whole in memory), without the
    // re-validation an editor needs after.
    draft.write_unchecked(&file)?;
    let chain = &draft.chains()[out.index];
    let count = |list: &str| chain.pointer(&format!("/dag/{list}")).and_then(Value::as_array).map_or(0, Vec::len);
    let parameters: Vec<&String> = chain
        .pointer("/parameters/properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().collect())
        .unwrap_or_default();
    let summary = json!({
        "pack": file.display().to_string(),
        "packName": draft.name(),
        "packVersion": draft.version(),
        "packCreated": created,
        "chainId": args.chain_id,
        "chainVersion": chain["version"],
        "placement": match out.placement { Placement::Added => "added", Placement::Replaced => "replaced" },
        "nodes": count("nodes"),
        "edges": count("edges"),
        "parameters": parameters,
        "boundaryEdges": out.extraction.boundary.iter().map(BoundaryEdge::to_json).collect::<Vec<_>>(),
        "warnings": out.extraction.warnings.len() + pack_warnings.len(),
    });
    write_stdout(format!("{summary}\n").as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

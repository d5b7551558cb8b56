//! `search`, `info` and `serve`: reading a registry as the OpenWOP CLI's `packs search` and
//! `packs info` do, and serving a registry folder for it (and for chainsmith) to read.

use super::interop::NetArgs;
use super::write_stdout;
use chainsmith::error::{Error, Result, code};
use chainsmith::registry::{self, search};
use clap::Args;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// A cached index this young is shown without asking the server again: `search` and
/// `info` only show what a registry says, and decide nothing about trust.
const SHOW_FRESH_FOR: Duration = Duration::from_secs(300);

#[derive(Args)]
pub struct SearchArgs {
    /// Text to find in names, descriptions, tags and typeIds (empty: every pack).
    #[arg(default_value = "")]
    pub query: String,
    /// The registry: an https:// URL, or a folder mirroring its HTTP tree.
    #[arg(long, value_name = "URL|DIR")]
    pub registry: String,
    /// Rows shown in the table (--json has them all).
    #[arg(long, default_value_t = 30)]
    pub limit: usize,
    /// Print `{query, tree, total, packs}` as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub net: NetArgs,
}

#[derive(Args)]
pub struct InfoArgs {
    /// NAME, or NAME@VERSION to show that version's manifest too.
    pub spec: String,
    /// The registry: an https:// URL, or a folder mirroring its HTTP tree.
    #[arg(long, value_name = "URL|DIR")]
    pub registry: String,
    /// Print the pack index (with `requestedVersion`, the version manifest) as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub net: NetArgs,
}

#[derive(Args)]
pub struct ServeArgs {
    /// The registry folder.
    pub dir: PathBuf,
    /// Where to listen (port 0 picks a free one; the URL is printed first).
    #[arg(long, value_name = "IP:PORT", default_value = "127.0.0.1:8080")]
    pub addr: String,
}

fn out(text: &str) -> Result<()> {
    write_stdout(format!("{text}\n").as_bytes())
}

pub fn search(args: &SearchArgs) -> Result<ExitCode> {
    let reg = args.net.open(&args.registry, Some(SHOW_FRESH_FOR))?;
    let index = reg.registry_index()?;
    let matched = search::matching(&index, &args.query);
    if args.json {
        out(&json!({"query": args.query, "tree": reg.tree.as_str(), "total": matched.len(), "packs": matched})
            .to_string())?;
        return Ok(ExitCode::SUCCESS);
    }
    if matched.is_empty() {
        out(&if args.query.is_empty() {
            "Registry is empty.".to_owned()
        } else {
            format!("No packs match \"{}\".", args.query)
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let text = |p: &Value, k: &str| p.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let rows: Vec<Vec<String>> = matched
        .iter()
        .take(args.limit)
        .map(|p| {
            let version = p.get("latestVersion").or_else(|| p.get("latest")).and_then(Value::as_str);
            let kind = Some(text(p, "kind")).filter(|k| !k.is_empty()).unwrap_or_else(|| "node".into());
            vec![
                text(p, "name"),
                version.unwrap_or_default().to_owned(),
                kind,
                text(p, "license"),
                search::flags(p).into(),
            ]
        })
        .collect();
    out(&search::table(&["name", "version", "kind", "license", "flags"], &rows))?;
    if matched.len() > rows.len() {
        out(&format!("... {} more. Use --limit {} or --json.", matched.len() - rows.len(), matched.len()))?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn info(args: &InfoArgs) -> Result<ExitCode> {
    let (name, version) = registry::split_spec(&args.spec);
    registry::install::check_pack_name(name)?;
    let reg = args.net.open(&args.registry, Some(SHOW_FRESH_FOR))?;
    let mut pack = reg.pack_index(name)?;
    let manifest = version.map(|v| reg.version_manifest(name, v)).transpose()?;
    if args.json {
        if let (Some(m), Some(obj)) = (&manifest, pack.as_object_mut()) {
            obj.insert("requestedVersion".into(), m.clone());
        }
        out(&pack.to_string())?;
        return Ok(ExitCode::SUCCESS);
    }
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let dash = |o: Option<String>| o.unwrap_or_else(|| "—".into());
    let latest = text(&pack, "latest").or_else(|| text(&pack, "latestVersion"));
    let mut lines = vec![
        format!("Name:        {}", text(&pack, "name").unwrap_or_else(|| name.to_owned())),
        format!("Kind:        {}", text(&pack, "kind").unwrap_or_else(|| "node".into())),
        format!("Latest:      {}", latest.unwrap_or_else(|| "(none)".into())),
        format!("License:     {}", dash(text(&pack, "license"))),
        format!("Author:      {}", dash(text(&pack, "author"))),
        format!("Description: {}", dash(text(&pack, "description"))),
        format!("Tree:        {}", reg.tree.as_str()),
    ];
    if let Some(home) = text(&pack, "homepage") {
        lines.push(format!("Homepage:    {home}"));
    }
    let rows: Vec<Vec<String>> = pack
        .get("versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|v| {
            let integrity = text(v, "integrity").map(|i| format!("{}…", i.chars().take(24).collect::<String>()));
            vec![
                text(v, "version").unwrap_or_default(),
                search::signing(v),
                search::flags(v).into(),
                integrity.unwrap_or_default(),
            ]
        })
        .collect();
    if !rows.is_empty() {
        lines.push(String::new());
        lines.push(search::table(&["version", "signing", "flags", "integrity"], &rows));
    }
    if let (Some(m), Some(v)) = (&manifest, version) {
        let engines = m.get("engines").and_then(Value::as_object).map(|e| {
            e.iter().map(|(k, r)| format!("{k} {}", r.as_str().unwrap_or_default())).collect::<Vec<_>>().join(", ")
        });
        lines.push(String::new());
        lines.push(format!("Version:     {v} (as served; `chainsmith verify` checks it)"));
        lines.push(format!("Integrity:   {}", dash(text(m, "integrity"))));
        lines.push(format!(
            "Signing:     {}",
            Some(search::signing(m)).filter(|s| !s.is_empty()).unwrap_or_else(|| "unsigned".into())
        ));
        lines.push(format!("Engines:     {}", dash(engines.filter(|e| !e.is_empty()))));
        let flags = search::flags(m);
        if !flags.is_empty() {
            lines.push(format!("Flags:       {flags}"));
        }
    }
    out(&lines.join("\n"))?;
    Ok(ExitCode::SUCCESS)
}

pub fn serve(args: &ServeArgs) -> Result<ExitCode> {
    let server = chainsmith::net::serve::Server::bind(&args.dir, &args.addr)?;
    if server.url().is_empty() {
        return Err(Error::new(code::INVALID_REQUEST, format!("{} is not an IP address", args.addr)));
    }
    // The first line says where: a caller that asked for port 0 reads it.
    out(&json!({"url": server.url(), "dir": args.dir.display().to_string()}).to_string())?;
    server.run(&chainsmith::net::serve::log_to_stderr);
    Ok(ExitCode::SUCCESS)
}

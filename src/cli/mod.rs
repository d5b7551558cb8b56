//! The command-line interface: parse, call the core, print. Every failure ends with one
//! JSON error envelope as the last line of stderr and exit code 1; usage errors exit 2.

use chainsmith::catalog::{Catalog, HostProfile, Lockfile, Requirement, ResolveOptions, Trust, TrustedKeys, resolve};
use chainsmith::error::{Error, Finding, Result, Severity, code};
use chainsmith::expand::subchain::TreeExpansion;
use chainsmith::inline::{Destination, ExpansionIdChoice, InlineRequest};
use chainsmith::pack::{Chain, LoadOptions, Pack, PackKind, load_path};
use chainsmith::params::Form;
use chainsmith::tool::{HostTiers, SafetyTier, ToolFormat, ToolOptions};
use chainsmith::workflow::{ExportMode, SpliceOptions, Workflow};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::{Map, Value, json};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod author;
mod browse;
mod diff;
mod interop;
pub mod start;
mod upgrade;

#[derive(Parser)]
#[command(name = "chainsmith", version, about = "Edit and expand OpenWOP workflow-chain packs")]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Packs and workflows to open in the editor (when no subcommand is given).
    pub files: Vec<PathBuf>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Validate pack manifests (files or folders): schema, semantic checks, token lints.
    Validate(ValidateArgs),
    /// Expand one chain and print the fragment (reference form: nodes, edges, idMap).
    Expand(ExpandArgs),
    /// Expand a chain and splice it into a workflow, writing the result atomically.
    Inline(InlineArgs),
    /// Resolve every pack a lockfile locks from local registry folders; print the set as JSON.
    Resolve(ResolveArgs),
    /// Print a chain (or a whole workflow) as a tool: CompactToolDescriptor or MiRuntime contract.
    Tool(ToolArgs),
    /// Generate an Ed25519 signing key pair (PEM files; the private key is never printed).
    Keygen(interop::KeygenArgs),
    /// Sign a pack, or publish it into a registry folder.
    #[command(subcommand)]
    Pack(interop::PackCommand),
    /// Verify one version in a registry (URL or folder): tarball integrity, then its signature.
    Verify(interop::VerifyArgs),
    /// Resolve, verify and install a pack from a registry (URL or folder) into the OpenWOP cache.
    Install(interop::InstallArgs),
    /// Compare two packs (with the semver level their changes need) or two workflows.
    Diff(diff::DiffArgs),
    /// Re-parameterise and/or upgrade chain instances in a workflow, keeping your edits.
    Upgrade(upgrade::UpgradeArgs),
    /// The old name of `upgrade`; always prints the JSON summary.
    Reparam(upgrade::UpgradeArgs),
    /// Search a registry's index (names, descriptions, tags, typeIds).
    Search(browse::SearchArgs),
    /// Show a pack's versions (latest, yanked, deprecated, signing), or one version's manifest.
    Info(browse::InfoArgs),
    /// Serve a registry folder over HTTP, read-only, as a static host serves a registry.
    Serve(browse::ServeArgs),
    /// Author chains from workflows.
    #[command(subcommand)]
    Chain(author::ChainCommand),
}

#[derive(Args)]
pub struct ValidateArgs {
    /// pack.json files or folders to scan for them.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Print findings as one JSON array instead of lines.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub trust: TrustArgs,
}

/// The trust policy: node-pack catalog and signature requirements.
#[derive(Args)]
pub struct TrustArgs {
    /// Node packs (pack.json files or folders) forming the typeId catalog; repeatable. With a
    /// catalog, every typeId must resolve and dependencies must be met.
    #[arg(long = "catalog", value_name = "DIR")]
    pub catalog: Vec<PathBuf>,
    /// A saved OpenWOP app `node-catalog` response: the host's own node types, with their
    /// schemas, join the catalog; repeatable.
    #[arg(long = "node-catalog", value_name = "FILE")]
    pub node_catalog: Vec<PathBuf>,
    /// Folder of trusted Ed25519 public keys (PEM SPKI files).
    #[arg(long, value_name = "DIR")]
    pub trusted_keys: Option<PathBuf>,
    /// Refuse unsigned packs, untrusted keys and signatures that cannot be verified.
    #[arg(long)]
    pub require_signed: bool,
}

#[derive(Args)]
pub struct ChainArgs {
    /// The chain to expand.
    #[arg(long = "chain", value_name = "ID")]
    pub chain: String,
    /// Parameter values as a JSON object, from a file or `-` for stdin.
    #[arg(long, value_name = "FILE|-")]
    pub params: Option<String>,
    /// One parameter value (JSON, or plain text for text parameters); repeatable.
    #[arg(long = "set", value_name = "NAME=JSON")]
    pub set: Vec<String>,
    /// Use this expansionId instead of 4 random hex digits; `hash`: the OpenWOP app's
    /// deterministic one (12 hex digits of the chain and the resolved values).
    #[arg(long, value_name = "ID")]
    pub expansion_id: Option<String>,
    /// With a host that supports sub-chains: the tenant that owns the child workflows.
    #[arg(long, value_name = "T", default_value = chainsmith::expand::subchain::DEFAULT_TENANT)]
    pub tenant: String,
    /// Packs, folders of packs, or registries (https:// URL or registry folder) that external
    /// sub-chain refs resolve from; repeatable.
    #[arg(long = "registry", value_name = "DIR|PACK|URL")]
    pub registry: Vec<String>,
    #[command(flatten)]
    pub net: interop::NetArgs,
    /// Skip only the manifest JSON-Schema check.
    #[arg(long)]
    pub skip_validation: bool,
    /// Target host: a profile (compensation, subChains, maxDepth, secrets, deferredParameters,
    /// nodeTypes) or an `openwop capabilities --json` document.
    #[arg(long, value_name = "FILE")]
    pub host: Option<PathBuf>,
    #[command(flatten)]
    pub trust: TrustArgs,
    /// Node config violations and unknown ports (checked with --catalog) refuse instead of warning.
    #[arg(long)]
    pub strict: bool,
}

#[derive(Args)]
pub struct ExpandArgs {
    /// The workflow-chain pack (pack.json or its folder).
    pub pack: PathBuf,
    #[command(flatten)]
    pub chain: ChainArgs,
}

#[derive(Args)]
pub struct InlineArgs {
    /// `WORKFLOW PACK`, or just `PACK` with --new.
    #[arg(required = true, num_args = 1..=2, value_name = "WORKFLOW|PACK")]
    pub positional: Vec<PathBuf>,
    /// Start a new workflow with this name instead of reading one.
    #[arg(long, value_name = "NAME")]
    pub new: Option<String>,
    #[command(flatten)]
    pub chain: ChainArgs,
    /// Wire the chain between two parent nodes (replacing the edges from A to B).
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub between: Option<Vec<String>>,
    /// Drop point for the chain's nodes.
    #[arg(long, value_name = "X,Y", value_parser = parse_point)]
    pub at: Option<(f64, f64)>,
    /// Strip node `capabilities` so the export validates against the closed WorkflowNode schema.
    #[arg(long)]
    pub strict_schema: bool,
    /// Where to write the workflow.
    #[arg(short = 'o', long = "output", value_name = "OUT", required = true)]
    pub output: PathBuf,
}

#[derive(Args)]
pub struct ResolveArgs {
    /// The lockfile (pack-lock.json).
    pub lockfile: PathBuf,
    /// Registries searched first: an https:// URL, or a folder (a registry tree,
    /// `<name>/<version>/pack.json`, or any folder of packs).
    #[arg(long = "registry", value_name = "DIR|URL", num_args = 1..)]
    pub registries: Vec<PathBuf>,
    #[command(flatten)]
    pub net: interop::NetArgs,
    /// Packs (files or folders) whose dependencies the lockfile must lock; repeatable.
    #[arg(long = "pack", value_name = "PACK")]
    pub packs: Vec<PathBuf>,
    /// Verify each resolved pack's signature against this folder of trusted keys.
    #[arg(long, value_name = "DIR")]
    pub trusted_keys: Option<PathBuf>,
    /// With --trusted-keys: unsigned or untrusted packs are errors.
    #[arg(long)]
    pub require_signed: bool,
}

#[derive(Args)]
pub struct ToolArgs {
    /// The workflow-chain pack (pack.json or its folder); not with --workflow.
    #[arg(required_unless_present = "workflow", conflicts_with = "workflow")]
    pub pack: Option<PathBuf>,
    /// The chain to project.
    #[arg(long = "chain", value_name = "ID", required_unless_present = "workflow", conflicts_with = "workflow")]
    pub chain: Option<String>,
    /// Which tool document to print.
    #[arg(long, value_enum)]
    pub format: ToolFormatArg,
    /// Project this workflow definition (JSON) instead of a chain.
    #[arg(long, value_name = "FILE")]
    pub workflow: Option<PathBuf>,
    /// Replace the derived toolId (`<scope>:<tool-id>`).
    #[arg(long, value_name = "ID")]
    pub tool_id: Option<String>,
    /// Assign the safetyTier: pure, read or write (the host's choice; a tier below what the
    /// nodes are known to do is noted).
    #[arg(long, value_name = "TIER")]
    pub safety_tier: Option<String>,
    /// The host's tier assignments: `{"typeIds": {ID: TIER}, "toolIds": {ID: TIER}}`.
    #[arg(long, value_name = "FILE")]
    pub host_tiers: Option<PathBuf>,
    /// Node packs (files or folders) that say what each typeId does; repeatable.
    #[arg(long = "catalog", value_name = "DIR")]
    pub catalog: Vec<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ToolFormatArg {
    Compact,
    Miruntime,
}

fn parse_point(s: &str) -> std::result::Result<(f64, f64), String> {
    let (x, y) = s.split_once(',').ok_or("expected X,Y")?;
    let num = |t: &str| {
        t.trim()
            .parse::<f64>()
            .map_err(|e| format!("{t}: {e}"))
            .and_then(|v| if v.is_finite() { Ok(v) } else { Err(format!("{t} is not a finite number")) })
    };
    Ok((num(x)?, num(y)?))
}

/// Parse the command line. A usage error prints clap's explanation, then (as every other
/// failure) one `invalid_request` envelope as the last line of stderr, and exits 2; help and
/// version requests print and exit 0.
pub fn parse() -> std::result::Result<Cli, ExitCode> {
    use clap::error::ErrorKind;
    Cli::try_parse().map_err(|e| {
        if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        let rendered = e.render().to_string();
        eprint!("{rendered}");
        eprintln!("{}", usage_error(&e, &rendered).envelope());
        ExitCode::from(2)
    })
}

/// The envelope of a usage error: clap's explanation up to its usage line (which names the
/// argument at fault when it is on a following line), with that argument and the value
/// given for it in `details`.
fn usage_error(e: &clap::Error, rendered: &str) -> Error {
    use clap::error::{ContextKind, ContextValue};
    let explanation: Vec<&str> =
        rendered.lines().take_while(|l| !l.starts_with("Usage:") && !l.trim().is_empty()).map(str::trim).collect();
    let text = explanation.join(" ");
    let message = text.strip_prefix("error: ").unwrap_or(&text).to_owned();
    let mut err = Error::new(code::INVALID_REQUEST, message).with("usage", true);
    let context = |kind: ContextKind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(Value::String(s.clone())),
        Some(ContextValue::Strings(v)) if v.len() == 1 => Some(Value::String(v[0].clone())),
        Some(ContextValue::Strings(v)) => Some(json!(v)),
        _ => None,
    };
    if let Some(argument) = context(ContextKind::InvalidArg) {
        err = err.with("argument", argument);
    }
    if let Some(value) = context(ContextKind::InvalidValue) {
        err = err.with("value", value);
    }
    err
}

/// Run a subcommand, printing its output; failures become the envelope and exit 1.
impl Command {
    /// Commands whose work is reading, signing or moving a pack, or comparing and merging
    /// two versions of one, where how much memory a large input costs matters more than
    /// speed (issues 24 and 36: at most 20x what they read; `diff` and `upgrade` of a
    /// 20,000-node chain peaked ~12 MB lower). `validate`, `expand`, `inline` and `tool`
    /// are the fast paths and keep the defaults.
    pub fn memory_bound(&self) -> bool {
        matches!(
            self,
            Command::Pack(_)
                | Command::Verify(_)
                | Command::Install(_)
                | Command::Resolve(_)
                | Command::Chain(_)
                | Command::Diff(_)
                | Command::Upgrade(_)
                | Command::Reparam(_)
        )
    }
}

pub fn run(command: Command) -> ExitCode {
    let result = match command {
        Command::Validate(a) => validate(&a),
        Command::Expand(a) => run_expand(&a),
        Command::Inline(a) => inline(&a),
        Command::Resolve(a) => resolve_lockfile(&a),
        Command::Tool(a) => tool(&a),
        Command::Keygen(a) => interop::keygen(&a),
        Command::Pack(c) => interop::pack(&c),
        Command::Verify(a) => interop::verify(&a),
        Command::Install(a) => interop::install(&a),
        Command::Upgrade(a) => upgrade::upgrade(&a),
        Command::Diff(a) => diff::diff(&a),
        Command::Reparam(mut a) => {
            a.json = true;
            upgrade::upgrade(&a)
        }
        Command::Search(a) => browse::search(&a),
        Command::Info(a) => browse::info(&a),
        Command::Serve(a) => browse::serve(&a),
        Command::Chain(author::ChainCommand::Extract(a)) => author::extract(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", e.message);
            eprintln!("{}", e.envelope());
            ExitCode::from(1)
        }
    }
}

fn validate(args: &ValidateArgs) -> Result<ExitCode> {
    let mut first_error: Option<(&'static str, String)> = None;
    let mut invalid: Vec<String> = Vec::new();
    let mut errors = 0usize;
    let mut note_error = |code: &'static str, file: String| {
        errors += 1;
        if !invalid.contains(&file) {
            invalid.push(file.clone());
        }
        first_error.get_or_insert((code, file));
    };
    let mut all = Vec::new();
    let trust = trust_policy(&args.trust, HostProfile::default(), false)?;
    let setup = setup_findings(&trust);
    if args.json {
        all.extend(setup.iter().map(|f| {
            let mut v = f.to_json();
            if let Some(file) = f.details.get("path") {
                v["file"] = file.clone();
            }
            v
        }));
    } else {
        grouped_lines(&setup).iter().for_each(|line| println!("{line}"));
    }
    for path in &args.paths {
        let out = load_path(path, LoadOptions::default());
        for failure in out.failures {
            let file = failure
                .details
                .get("path")
                .and_then(Value::as_str)
                .map_or_else(|| path.display().to_string(), str::to_owned);
            note_error(failure.code, file);
            let mut v = json!({"file": failure.details.get("path").cloned().unwrap_or(json!(path.display().to_string())),
                "severity": "error", "code": failure.code, "message": failure.message});
            if let Some(line) = failure.details.get("line") {
                v["line"] = line.clone();
                v["column"] = failure.details.get("column").cloned().unwrap_or(Value::Null);
            }
            if !args.json {
                println!("{}: error {}: {}", path.display(), failure.code, failure.message);
            }
            all.push(v);
        }
        for pack in out.packs {
            let findings = validate_findings(&trust, &args.trust, &pack);
            if pack.kind == PackKind::Node && !args.json && findings.is_empty() {
                println!("{}: ok (node pack {} {})", pack.source.display(), pack.name(), pack.version());
                continue;
            }
            for f in findings.iter().filter(|f| f.is_error()) {
                note_error(f.code, pack.source.display().to_string());
            }
            if findings.is_empty() && !args.json {
                println!(
                    "{}: ok ({} {}, {} chains)",
                    pack.source.display(),
                    pack.name(),
                    pack.version(),
                    pack.chains.len()
                );
            }
            if args.json {
                for f in &findings {
                    let mut v = f.to_json();
                    v["file"] = json!(pack.source.display().to_string());
                    all.push(v);
                }
            } else {
                for line in grouped_lines(&findings) {
                    println!("{}: {line}", pack.source.display());
                }
            }
        }
    }
    if args.json {
        println!("{}", Value::Array(all));
    }
    match first_error {
        None => Ok(ExitCode::SUCCESS),
        // The findings are on stdout; the envelope names the first and counts the rest.
        Some((code, file)) => Err(Error::new(
            code,
            format!(
                "{} of the packs checked {} invalid ({}); the first is {code} in {file}",
                invalid.len(),
                if invalid.len() == 1 { "is" } else { "are" },
                chainsmith::words::count(errors, "error finding", "error findings")
            ),
        )
        .with("errors", errors)
        .with("invalid", invalid)),
    }
}

/// The pack's own findings plus the trust checks asked for: signatures when keys are given
/// or signatures are required (an invalid signature always), typeIds and dependencies
/// against the catalog.
fn validate_findings(trust: &Trust, args: &TrustArgs, pack: &Pack) -> Vec<Finding> {
    let mut findings = pack.findings.clone();
    findings.extend(trust.engine_findings(pack));
    // The schemas chainsmith bundles for Core types apply with or without a catalog.
    for chain in &pack.chains {
        findings.extend(chainsmith::catalog::bundled_config_findings(chain));
    }
    let signature = trust.signature(pack).finding;
    let asked = args.trusted_keys.is_some() || args.require_signed;
    findings.extend(signature.filter(|f| asked || f.code == code::PACK_SIGNATURE_INVALID));
    if let Some(catalog) = &trust.catalog {
        for chain in &pack.chains {
            findings.extend(catalog.unresolved_findings(chain));
        }
        findings.extend(chainsmith::catalog::check_dependencies(pack, catalog));
    }
    findings
}

/// The policy from the command line. A --catalog path that does not exist is an error;
/// problems inside the catalog or the keys folder are findings (see `setup_findings`).
fn trust_policy(args: &TrustArgs, host: HostProfile, strict: bool) -> Result<Trust> {
    if let Some(missing) = args.catalog.iter().find(|p| !p.exists()) {
        return Err(Error::new(
            code::PACK_NOT_FOUND,
            format!("--catalog {}: no such file or folder", missing.display()),
        )
        .with("path", missing.display().to_string()));
    }
    let mut catalog = (!args.catalog.is_empty() || !args.node_catalog.is_empty()).then(|| Catalog::load(&args.catalog));
    for file in &args.node_catalog {
        if let Some(c) = catalog.as_mut() {
            c.add_node_catalog(file)?;
        }
    }
    if let Some(refused) = catalog.as_ref().and_then(refused_catalog) {
        return Err(refused);
    }
    let trusted_keys = match &args.trusted_keys {
        Some(dir) => TrustedKeys::load(dir)?,
        None => TrustedKeys::default(),
    };
    Ok(Trust { catalog, trusted_keys, require_signed: args.require_signed, strict, host })
}

/// A catalog pack that must not be used (a node pack with a mistyped `kind`) refuses the
/// command, rather than leaving its types unresolved and blaming the chains that use them.
fn refused_catalog(catalog: &Catalog) -> Option<Error> {
    catalog.findings().iter().find(|f| f.is_error()).map(|f| f.clone().into_error())
}

/// Warnings about the catalog and the trusted keys themselves. Their pointers point into
/// the file they came from, so the message names it.
fn setup_findings(trust: &Trust) -> Vec<Finding> {
    let catalog = trust.catalog.as_ref().map(Catalog::findings).unwrap_or_default();
    catalog
        .iter()
        .chain(&trust.trusted_keys.findings)
        .map(|f| match f.details.get("path").and_then(Value::as_str) {
            Some(file) if !f.message.contains(file) => {
                let mut f = f.clone();
                f.message = format!("{file}: {}", f.message);
                f
            }
            _ => f.clone(),
        })
        .collect()
}

/// Load exactly one workflow-chain pack from a file or folder ([`chainsmith::pack::load_one`]).
fn load_one_pack(path: &Path, skip_schema: bool) -> Result<Pack> {
    chainsmith::pack::load_one(path, LoadOptions { skip_schema })
}

/// Values from `--params` (a file, or `-` for stdin) with each `--set NAME=VALUE` over them,
/// read against chain `chain_id`'s parameter form (`chain`, when the pack has it), and
/// warnings about `--set` names the chain does not declare (used as given: the schema may
/// allow them, but no token can be meant).
fn collect_values(
    chain: Option<&Chain>,
    chain_id: &str,
    params: Option<&str>,
    set: &[String],
) -> Result<(Map<String, Value>, Vec<Finding>)> {
    let mut values = match params {
        None => Map::new(),
        Some(src) => {
            let text = if src == "-" {
                // One byte past the limit tells "too long" from "exactly the limit".
                let limit = chainsmith::pack::MAX_MANIFEST_BYTES;
                let mut bytes = Vec::new();
                std::io::stdin()
                    .take(limit + 1)
                    .read_to_end(&mut bytes)
                    .map_err(|e| Error::new(code::INVALID_REQUEST, format!("reading parameters from stdin: {e}")))?;
                if bytes.len() as u64 > limit {
                    return Err(Error::new(
                        code::INVALID_REQUEST,
                        format!("parameters on stdin are longer than allowed; the limit is {limit} bytes"),
                    )
                    .with("limit", limit));
                }
                String::from_utf8(bytes)
                    .map_err(|_| Error::new(code::INVALID_REQUEST, "parameters on stdin are not UTF-8 text"))?
            } else {
                let bytes = chainsmith::fsio::read_limited(
                    Path::new(src),
                    chainsmith::pack::MAX_MANIFEST_BYTES,
                    code::INVALID_REQUEST,
                )
                .map_err(Error::not_a_pack)?;
                String::from_utf8(bytes).map_err(|_| {
                    Error::new(code::INVALID_REQUEST, format!("{src}: parameters are not UTF-8 text")).with("path", src)
                })?
            };
            match chainsmith::fsio::json::from_str(&text) {
                Ok(Value::Object(m)) => m,
                Ok(other) => {
                    return Err(Error::new(
                        code::CHAIN_PARAMETER_INVALID,
                        format!("--params must be a JSON object, found {}", chainsmith::pack::json_kind(&other)),
                    )
                    .with("path", ""));
                }
                Err(e) => {
                    let text = chainsmith::fsio::json_error_text(&e);
                    return Err(Error::new(code::INVALID_REQUEST, format!("--params: not valid JSON: {text}"))
                        .with("line", e.line())
                        .with("column", e.column()));
                }
            }
        }
    };
    let mut warnings = Vec::new();
    if !set.is_empty() {
        let form = chain.map(|c| Form::from_schema(c.parameters())).unwrap_or_default();
        for item in set {
            let (name, text) = item.split_once('=').ok_or_else(|| {
                Error::new(code::INVALID_REQUEST, format!("--set {item}: expected NAME=VALUE"))
                    .with("set", item.as_str())
            })?;
            let value = match form.field(name) {
                Some(field) => field.parse_text(text).map_err(|msg| {
                    Error::new(code::CHAIN_PARAMETER_INVALID, format!("--set {name}: {msg}"))
                        .with("path", format!("/{name}"))
                })?,
                None => {
                    let declared: Vec<&str> = form.fields.iter().map(|f| f.name.as_str()).collect();
                    warnings.push(
                        Finding::warning(
                            code::SET_UNDECLARED,
                            format!("/{name}"),
                            format!(
                                "--set {name}: chain {} declares no parameter \"{name}\" (it declares: {}); \
                                 the value is passed on, but no token can use it",
                                chain_id,
                                if declared.is_empty() { "none".to_owned() } else { declared.join(", ") }
                            ),
                        )
                        .with("param", name),
                    );
                    chainsmith::fsio::json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
                }
            };
            values.insert(name.to_owned(), value);
        }
    }
    Ok((values, warnings))
}

/// `--expansion-id`: `hash` asks for the OpenWOP app's deterministic expansionId of the
/// chain and these values (interop §5); any other text is used as given.
fn expansion_id_arg(args: &ChainArgs) -> ExpansionIdChoice {
    match args.expansion_id.as_deref() {
        None => ExpansionIdChoice::Fresh,
        Some("hash") => ExpansionIdChoice::Hash,
        Some(id) => ExpansionIdChoice::Given(id.to_owned()),
    }
}

fn host_profile(path: &Option<PathBuf>) -> Result<HostProfile> {
    match path {
        None => Ok(HostProfile::default()),
        Some(p) => {
            let bytes =
                chainsmith::fsio::read_limited(p, 1024 * 1024, code::INVALID_REQUEST).map_err(Error::not_a_pack)?;
            HostProfile::from_json(&String::from_utf8_lossy(&bytes))
                .map_err(|e| e.with("path", p.display().to_string()))
        }
    }
}

fn print_warnings(warnings: &[Finding]) {
    for line in grouped_lines(warnings) {
        eprintln!("{line}");
    }
}

/// One line per finding, except that findings sharing a severity and code (a warning for
/// every node, every run or every pack) become one line with their count, the first
/// message, and where the others are.
fn grouped_lines(findings: &[Finding]) -> Vec<String> {
    let mut groups: Vec<(&Finding, Vec<&Finding>)> = Vec::new();
    let mut at: std::collections::HashMap<(&str, &str), usize> = std::collections::HashMap::new();
    for f in findings {
        match at.entry((f.severity.as_str(), f.code)) {
            std::collections::hash_map::Entry::Occupied(slot) => groups[*slot.get()].1.push(f),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(groups.len());
                groups.push((f, Vec::new()));
            }
        }
    }
    groups
        .into_iter()
        .map(|(first, rest)| {
            if rest.is_empty() {
                return first.to_string();
            }
            const SHOWN: usize = 3;
            let mut others: Vec<String> = rest
                .iter()
                .take(SHOWN)
                .map(|f| if f.pointer.is_empty() { f.message.clone() } else { f.pointer.clone() })
                .collect();
            if rest.len() > SHOWN {
                others.push(format!("{} more", rest.len() - SHOWN));
            }
            format!("{first} [×{}; also: {}]", rest.len() + 1, others.join("; "))
        })
        .collect()
}

fn run_expand(args: &ExpandArgs) -> Result<ExitCode> {
    let pack = load_one_pack(&args.pack, args.chain.skip_validation)?;
    let trust = trust_policy(&args.chain.trust, host_profile(&args.chain.host)?, args.chain.strict)?;
    print_warnings(&setup_findings(&trust));
    let external = load_registry(&args.chain, &pack, &trust)?;
    let req = inline_request(pack, &args.chain, &trust, &external)?;
    let expanded = chainsmith::inline::expand_for(None, req).map_err(cli_hint)?;
    let written = if trust.host.sub_chains {
        let tree = TreeExpansion { parent: expanded.expansion, children: expanded.children };
        let written = write_to_stdout(|out| tree.write_pretty(out));
        std::mem::forget(tree);
        written
    } else {
        let written = write_to_stdout(|out| expanded.expansion.write_pretty(out));
        std::mem::forget(expanded);
        written
    };
    // The process ends next: freeing the expansion value by value was a sixth of a large
    // expansion's run, and the OS takes the memory back whole.
    written.map(|()| ExitCode::SUCCESS)
}

/// The pipeline's request from the command line: the chain, `--params`/`--set`,
/// `--expansion-id`, the tenant and the registry packs. The pack is handed over: the
/// command has no other use for it, so its chain's nodes are moved, not copied.
fn inline_request<'a>(
    pack: Pack,
    args: &'a ChainArgs,
    trust: &'a Trust,
    external: &'a [Pack],
) -> Result<InlineRequest<'a>> {
    let mut req = InlineRequest::given(trust, pack, &args.chain, Map::new());
    // The request looks its chain up once; the pipeline reuses what `--set` read it for.
    (req.values, req.value_findings) = collect_values(req.chain(), &args.chain, args.params.as_deref(), &args.set)?;
    req.expansion_id = expansion_id_arg(args);
    req.external = external;
    req.tenant = &args.tenant;
    Ok(req)
}

/// The core words a refusal for every front end; here it also says which flag changes it.
fn cli_hint(mut e: Error) -> Error {
    if e.code == code::SUB_CHAIN_UNSUPPORTED {
        e.message.push_str("; to target a host that does, pass `--host FILE` with {\"subChains\": true}");
    }
    e
}

/// Pretty JSON and a newline, written to stdout as it is produced: an expansion's output
/// can be far larger than the expansion, and is never held whole in memory.
fn write_to_stdout(
    write: impl FnOnce(&mut std::io::BufWriter<std::io::StdoutLock<'static>>) -> std::io::Result<()>,
) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = write(&mut out).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush());
    match written {
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::new(code::IO_ERROR, format!("writing to stdout: {e}"))),
        Ok(()) => Ok(()),
    }
}

/// The packs `--registry` names, for external sub-chain refs; only a host that co-expands
/// sub-chains reads them. Files and folders of packs are loaded whole; a registry (a URL,
/// or a folder with a discovery document) serves the packs the refs name, verified.
fn load_registry(args: &ChainArgs, pack: &Pack, trust: &Trust) -> Result<Vec<Pack>> {
    let mut packs = Vec::new();
    if !trust.host.sub_chains {
        return Ok(packs);
    }
    let is_registry = |text: &str| {
        chainsmith::registry::source::is_url(text)
            || chainsmith::registry::Registry::is_registry_folder(Path::new(text))
    };
    for path in args.registry.iter().filter(|t| !is_registry(t)) {
        let out = load_path(Path::new(path), LoadOptions::default());
        if let Some(e) = out.failures.into_iter().next() {
            return Err(e);
        }
        packs.extend(out.packs);
    }
    for location in args.registry.iter().filter(|t| is_registry(t)) {
        let registry = args.net.open(location, None)?;
        let known: Vec<&Pack> = std::iter::once(pack).chain(&packs).collect();
        let fetched = chainsmith::registry::external_packs(&registry, &known)?;
        packs.extend(fetched);
    }
    Ok(packs)
}

fn write_stdout(bytes: &[u8]) -> Result<()> {
    write_stdout_with(|w| w.write_all(bytes))
}

/// [`write_stdout`] of what `write` writes, buffered, without building it first.
fn write_stdout_with(write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> Result<()> {
    use std::io::Write;
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match write(&mut stdout).and_then(|_| stdout.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::new(code::IO_ERROR, format!("writing to stdout: {e}"))),
        Ok(()) => Ok(()),
    }
}

fn inline(args: &InlineArgs) -> Result<ExitCode> {
    let (mut workflow, pack_path) = match (&args.new, args.positional.as_slice()) {
        (Some(name), [pack]) => (Workflow::new(name), pack),
        (None, [wf, pack]) => (Workflow::load(wf)?, pack),
        (Some(_), _) => {
            return Err(Error::new(code::INVALID_REQUEST, "with --new, give only PACK (no WORKFLOW)"));
        }
        (None, _) => return Err(Error::new(code::INVALID_REQUEST, "give WORKFLOW and PACK, or --new NAME and PACK")),
    };
    let pack = load_one_pack(pack_path, args.chain.skip_validation)?;
    let trust = trust_policy(&args.chain.trust, host_profile(&args.chain.host)?, args.chain.strict)?;
    print_warnings(&setup_findings(&trust));
    let external = load_registry(&args.chain, &pack, &trust)?;
    let mut req = inline_request(pack, &args.chain, &trust, &external)?;
    req.destination = Destination::Splice(SpliceOptions {
        at: args.at,
        between: args.between.as_ref().map(|v| (v[0].clone(), v[1].clone())),
        ..Default::default()
    });
    let outcome = chainsmith::inline::inline(&mut workflow, req).map_err(cli_hint)?;
    let mode = if args.strict_schema { ExportMode::StrictSchema } else { ExportMode::Faithful };
    let mut warnings = outcome.findings;
    warnings.extend(workflow.lint(mode));
    // Each child becomes its own WorkflowDefinition beside OUT; all files or none are written.
    let bundle = chainsmith::workflow::bundle::write_bundle(&args.output, &workflow, &outcome.children, mode)?;
    warnings.extend(bundle.warnings);
    print_warnings(&warnings);
    let written_children: Vec<Value> = bundle
        .children
        .iter()
        .map(|c| json!({"workflowId": c.workflow_id, "chainId": c.chain_id, "output": c.path.display().to_string()}))
        .collect();
    let mut summary = json!({
        "output": args.output.display().to_string(),
        "chainId": outcome.expansion.chain_id,
        "expansionId": outcome.expansion.expansion_id,
        "nodeIds": outcome.instance.node_ids,
        "edgeIds": outcome.instance.edge_ids,
        "removedEdges": outcome.removed_edges.iter().map(|e| e.id().to_owned()).collect::<Vec<_>>(),
        "warnings": warnings.iter().filter(|f| f.severity != Severity::Info).count(),
    });
    if trust.host.sub_chains {
        summary["children"] = Value::Array(written_children);
    }
    write_stdout(format!("{summary}\n").as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Print the resolved set (deterministic JSON, findings included); any error finding
/// then fails the command with its envelope.
fn resolve_lockfile(args: &ResolveArgs) -> Result<ExitCode> {
    let lock = Lockfile::read(&args.lockfile)?;
    let mut requirements = Vec::new();
    for path in &args.packs {
        let out = load_path(path, LoadOptions::default());
        if let Some(e) = out.failures.into_iter().next() {
            return Err(e);
        }
        requirements.extend(out.packs.iter().flat_map(Requirement::of_pack));
    }
    let keys = args.trusted_keys.as_deref().map(TrustedKeys::load).transpose()?;
    if let Some(k) = &keys {
        print_warnings(&k.findings);
    }
    // One set of options for every URL given (the CA file is read when one is a URL).
    let first_url = args.registries.iter().filter_map(|p| p.to_str()).find(|t| chainsmith::registry::source::is_url(t));
    let net = args.net.options_for(first_url.unwrap_or_default(), None)?;
    let opts = ResolveOptions {
        net: Some(&net),
        registries: &args.registries,
        requirements: &requirements,
        trusted_keys: keys.as_ref(),
        require_signed: args.require_signed,
    };
    let resolution = resolve(&lock, &opts);
    write_stdout(resolution.to_json_string().as_bytes())?;
    match resolution.findings.iter().find(|f| f.is_error()) {
        Some(first) => Err(first.clone().into_error()),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// Print the projection when it validates; otherwise its refusal is the envelope.
fn tool(args: &ToolArgs) -> Result<ExitCode> {
    // Parsed here, not by clap, so `exec` is refused with a coded envelope.
    let safety_tier = args.safety_tier.as_deref().map(SafetyTier::parse).transpose()?;
    let catalog = (!args.catalog.is_empty()).then(|| Catalog::load(&args.catalog));
    if let Some(refused) = catalog.as_ref().and_then(refused_catalog) {
        return Err(refused);
    }
    let host_tiers = match &args.host_tiers {
        Some(path) => {
            let bytes =
                chainsmith::fsio::read_limited(path, 1024 * 1024, code::INVALID_REQUEST).map_err(Error::not_a_pack)?;
            let text = String::from_utf8(bytes).map_err(|_| {
                Error::new(code::INVALID_REQUEST, format!("{}: not UTF-8 text", path.display()))
                    .with("file", path.display().to_string())
            })?;
            Some(HostTiers::from_json(&text).map_err(|e| e.with("file", path.display().to_string()))?)
        }
        None => None,
    };
    let opts = ToolOptions {
        tool_id: args.tool_id.as_deref(),
        safety_tier,
        effects: catalog.as_ref().map(|c| c as &dyn chainsmith::tool::EffectOracle),
        host_tiers: host_tiers.as_ref(),
    };
    let format = match args.format {
        ToolFormatArg::Compact => ToolFormat::Compact,
        ToolFormatArg::Miruntime => ToolFormat::MiRuntime,
    };
    let projection = match (&args.workflow, &args.pack, &args.chain) {
        (Some(path), _, _) => {
            let bytes =
                chainsmith::fsio::read_limited(path, chainsmith::workflow::MAX_WORKFLOW_BYTES, code::VALIDATION_ERROR)
                    .map_err(Error::not_a_pack)?;
            let workflow: Value = chainsmith::fsio::parse_json(code::VALIDATION_ERROR, path, &bytes)?;
            format.project_workflow(&workflow, &opts)
        }
        (None, Some(pack_path), Some(chain_id)) => {
            let pack = load_one_pack(pack_path, false)?;
            // A pack `validate` refuses is not published as a tool either.
            if let Some(first) = pack.errors().next() {
                let count = pack.errors().count();
                let mut e = first.clone().into_error();
                e.message = format!(
                    "{} is invalid ({}; run `chainsmith validate`); the first: {}",
                    pack.source.display(),
                    chainsmith::words::count(count, "error finding", "error findings"),
                    e.message
                );
                return Err(e.with("errors", count).with("file", pack.source.display().to_string()));
            }
            let chain = pack.chain(chain_id).ok_or_else(|| {
                Error::new(code::CHAIN_NOT_FOUND, format!("pack {} has no chain \"{chain_id}\"", pack.name()))
                    .with("chainId", chain_id.as_str())
                    .with("available", pack.chains.iter().map(|c| c.chain_id()).collect::<Vec<_>>())
            })?;
            format.project_chain(&pack, chain, &opts)
        }
        _ => return Err(Error::new(code::INVALID_REQUEST, "give PACK and --chain, or --workflow FILE")),
    };
    let notes: Vec<Finding> = projection.findings.iter().filter(|f| !f.is_error()).cloned().collect();
    print_warnings(&notes);
    let value = projection.into_result()?;
    write_stdout(&chainsmith::fsio::to_pretty_json(&value))?;
    Ok(ExitCode::SUCCESS)
}

//! Registry and signing commands: `keygen`, `pack sign`, `pack publish`, `verify`,
//! `install`. Each prints one line of JSON on success; failures are the usual envelope.

use super::{print_warnings, write_stdout};
use chainsmith::error::{Error, Result, code};
use chainsmith::net::NetOptions;
use chainsmith::registry::{self, Registry, Scheme};
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub struct KeygenArgs {
    /// Writes OUT_PREFIX.private.pem (PKCS#8, owner-only) and OUT_PREFIX.public.pem (SPKI).
    pub out_prefix: PathBuf,
}

#[derive(Subcommand)]
pub enum PackCommand {
    /// Sign a pack folder: canonical pack.json plus keys/pack.json.sig (v2 with --key-id,
    /// else the v1 manual recipe with the public key inside the pack).
    Sign(SignArgs),
    /// Publish a pack folder into a registry folder: tarball, version manifest, signature,
    /// SBOM, and the pack and registry indexes, all or nothing, under the folder's lock.
    Publish(PublishArgs),
}

#[derive(Args)]
pub struct SignArgs {
    /// The pack folder (or its pack.json).
    pub dir: PathBuf,
    /// Ed25519 private key, PKCS#8 PEM (`openssl genpkey -algorithm ed25519`, or `keygen`).
    #[arg(long, value_name = "KEY.pem")]
    pub key: PathBuf,
    /// Sign with the v2 scheme under this registry key id.
    #[arg(long, value_name = "ID")]
    pub key_id: Option<String>,
    /// The registry folder whose signingKeys[] must list ID as active, covering the pack's
    /// name, with this key's public half (a revoked or rotated key is refused).
    #[arg(long, value_name = "REG", requires = "key_id")]
    pub registry: Option<PathBuf>,
}

#[derive(Args)]
pub struct PublishArgs {
    /// The pack folder (pack.json plus README.md, LICENSE, ...).
    pub dir: PathBuf,
    /// The registry folder to publish into (created when missing).
    #[arg(long, value_name = "REG")]
    pub registry: PathBuf,
    /// Sign the published pack.json with this private key, by the tree's recipe (v2
    /// ed25519-canonical-json, v1 manual).
    #[arg(long, value_name = "KEY.pem", requires = "key_id")]
    pub key: Option<PathBuf>,
    /// The registry key id to sign under.
    #[arg(long, value_name = "ID", requires = "key")]
    pub key_id: Option<String>,
    /// The tree to write: for a new registry folder (default v2), or one of the trees the
    /// discovery document names (default: the one the OpenWOP CLI reads).
    #[arg(long, value_name = "TREE", value_parser = ["v1", "v2"])]
    pub tree: Option<String>,
    /// Let a key id the registry does not list yet be granted a namespace that one of its
    /// keys already holds (refused otherwise: pack_namespace_unauthorized).
    #[arg(long, requires = "key_id")]
    pub share_namespace: bool,
    /// Grant a key id the registry does not list yet the pack's two-segment namespace when
    /// the registry already has keys (only the first key of a registry takes it unasked;
    /// `core.*` is never granted). The output's `granted` says what was granted and why.
    #[arg(long, requires = "key_id")]
    pub grant_namespace: bool,
}

/// Reading a registry by URL (docs/registry-http.md).
#[derive(Args, Clone)]
pub struct NetArgs {
    /// Allow plain http:// to a host other than loopback (HTTPS otherwise).
    #[arg(long)]
    pub allow_http: bool,
    /// Read indexes from the cache only; open no connection.
    #[arg(long)]
    pub offline: bool,
    /// Seconds to wait for a connection, and for the next bytes of a response.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub timeout: f64,
}

impl NetArgs {
    pub fn options(&self, fresh_for: Option<Duration>) -> Result<NetOptions> {
        if !(self.timeout.is_finite() && self.timeout > 0.0 && self.timeout <= 3600.0) {
            return Err(Error::new(code::INVALID_REQUEST, "--timeout takes seconds, more than 0 and at most 3600")
                .with("value", self.timeout));
        }
        let wait = Duration::from_secs_f64(self.timeout);
        Ok(NetOptions {
            allow_http: self.allow_http,
            offline: self.offline,
            connect_timeout: wait.min(Duration::from_secs(10)),
            read_timeout: wait,
            fresh_for,
            ..NetOptions::default()
        })
    }

    /// Open `--registry`: a URL or a folder.
    pub fn open(&self, registry: &str, fresh_for: Option<Duration>) -> Result<Registry> {
        Registry::open_location(registry, &self.options(fresh_for)?)
    }
}

#[derive(Args)]
pub struct VerifyArgs {
    /// NAME@VERSION (a range or `latest` is resolved as `install` does).
    pub spec: String,
    /// The registry: an https:// URL, or a folder mirroring its HTTP tree.
    #[arg(long, value_name = "URL|DIR")]
    pub registry: String,
    #[command(flatten)]
    pub net: NetArgs,
}

#[derive(Args)]
pub struct InstallArgs {
    /// NAME, NAME@VERSION, NAME@latest or NAME@RANGE.
    pub spec: String,
    /// The registry: an https:// URL, or a folder mirroring its HTTP tree.
    #[arg(long, value_name = "URL|DIR")]
    pub registry: String,
    #[command(flatten)]
    pub net: NetArgs,
    /// Cache base (default $OPENWOP_CONFIG_HOME/.openwop/packs, else ~/.openwop/packs).
    #[arg(long, value_name = "CACHE")]
    pub dir: Option<PathBuf>,
    /// Install an unsigned version (with a `pack_unsigned` warning); refused by default, as
    /// the OpenWOP CLI refuses it.
    #[arg(long, conflicts_with = "require_signed")]
    pub allow_unsigned: bool,
    /// Refuse unsigned versions: the default, accepted for older scripts.
    #[arg(long, hide = true)]
    pub require_signed: bool,
    /// Target host profile (JSON); its `protocolMajor` must be admitted by a v2 pack's
    /// `engines.openwop`.
    #[arg(long, value_name = "FILE")]
    pub host: Option<PathBuf>,
}

fn print_line(value: &Value) -> Result<ExitCode> {
    write_stdout(format!("{value}\n").as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

pub fn keygen(args: &KeygenArgs) -> Result<ExitCode> {
    let pair = registry::keys::generate(&args.out_prefix)?;
    print_line(&json!({
        "privateKey": pair.private_key.display().to_string(),
        "publicKey": pair.public_key.display().to_string(),
    }))
}

pub fn pack(command: &PackCommand) -> Result<ExitCode> {
    match command {
        PackCommand::Sign(a) => sign(a),
        PackCommand::Publish(a) => publish(a),
    }
}

fn sign(args: &SignArgs) -> Result<ExitCode> {
    let key = registry::keys::read_signing_key(&args.key)?;
    let scheme = match &args.key_id {
        Some(id) => Scheme::V2 { key_id: id },
        None => Scheme::V1Manual,
    };
    let authority = args.registry.as_deref().map(Registry::open).transpose()?;
    let signed = registry::sign::sign_pack_for(&args.dir, &key, scheme, authority.as_ref())?;
    print_line(&json!({
        "name": signed.name,
        "version": signed.version,
        "scheme": signed.scheme,
        "keyId": signed.key_id,
        "manifest": signed.manifest.display().to_string(),
        "signature": signed.signature.display().to_string(),
        "publicKey": signed.public_key.map(|p| p.display().to_string()),
    }))
}

fn publish(args: &PublishArgs) -> Result<ExitCode> {
    let key = args.key.as_deref().map(registry::keys::read_signing_key).transpose()?;
    let signer = match (&key, &args.key_id) {
        (Some(k), Some(id)) => Some((k, id.as_str())),
        _ => None,
    };
    let tree = args.tree.as_deref().map(|t| if t == "v1" { registry::Tree::V1 } else { registry::Tree::V2 });
    let opts = registry::publish::PublishOptions {
        signer,
        tree,
        share_namespace: args.share_namespace,
        grant_namespace: args.grant_namespace,
    };
    let published = registry::publish::publish_with(&args.dir, &args.registry, &opts)?;
    print_warnings(&published.warnings);
    print_line(&published.to_json())
}

pub fn verify(args: &VerifyArgs) -> Result<ExitCode> {
    let reg = args.net.open(&args.registry, None)?;
    let (name, spec) = registry::split_spec(&args.spec);
    let version = registry::resolve_version(&reg, name, spec)?;
    let verified = registry::verify(&reg, name, &version)?;
    if verified.signature == registry::SignatureCheck::Unsigned {
        return Err(Error::new(code::SIGNATURE_NOT_AVAILABLE, format!("{name}@{version} is not signed"))
            .with("packName", name)
            .with("version", version.as_str())
            .with("integrity", verified.integrity.as_str()));
    }
    print_line(&json!({
        "name": name,
        "version": version,
        "tree": reg.tree.as_str(),
        "integrity": verified.integrity,
        "signature": verified.signature.to_json(),
        "yanked": verified.yanked(),
        "deprecated": verified.deprecated().map_or(Value::Bool(false), Value::String),
    }))
}

pub fn install(args: &InstallArgs) -> Result<ExitCode> {
    let reg = args.net.open(&args.registry, None)?;
    let base = registry::cache_base(args.dir.as_deref()).ok_or_else(|| {
        Error::new(code::INVALID_REQUEST, "no cache folder: give --dir, or set OPENWOP_CONFIG_HOME or HOME")
    })?;
    let host = super::host_profile(&args.host)?;
    let allow_unsigned = args.allow_unsigned && !args.require_signed;
    let opts = registry::InstallOptions { allow_unsigned, protocol_major: host.protocol_major };
    let installed = registry::install(&reg, &args.spec, &base, opts)?;
    print_warnings(&installed.warnings);
    print_line(&installed.to_json())
}

#[derive(Args)]
pub struct ReparamArgs {
    /// A workflow the OpenWOP app expanded from one chain (`metadata.source` is
    /// "workflow-chain-pack"), in the app's form or as a WorkflowDefinition.
    pub workflow: PathBuf,
    /// The pack holding the chain at the version the workflow records.
    #[arg(long, value_name = "PACK")]
    pub pack: PathBuf,
    /// New values as a JSON object, from a file or `-` for stdin; merged over the recorded ones.
    #[arg(long, value_name = "FILE|-")]
    pub params: Option<String>,
    /// One new value (JSON, or plain text for text parameters); repeatable.
    #[arg(long = "set", value_name = "NAME=JSON")]
    pub set: Vec<String>,
    /// Where to write the re-parameterised workflow (atomically; may be WORKFLOW itself).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
}

/// Re-expand the app's chain instance with new values merged over the recorded ones, by the
/// app's token rules and expansionId (interop §5). The nodes edited by hand since the
/// expansion are listed first (stderr and the summary): the re-expansion replaces them.
pub fn reparam(args: &ReparamArgs) -> Result<ExitCode> {
    use chainsmith::workflow::app_instance::{AppInstance, HandEdit};
    let path = &args.workflow;
    let bytes = chainsmith::fsio::read_limited(path, chainsmith::workflow::MAX_WORKFLOW_BYTES, code::VALIDATION_ERROR)?;
    let doc: Value = chainsmith::fsio::parse_json(code::VALIDATION_ERROR, path, &bytes)?;
    let inst = AppInstance::recognise(&doc).ok_or_else(|| {
        Error::new(
            code::INVALID_REQUEST,
            format!(
                "{} was not expanded by the OpenWOP app: metadata.source is not \"workflow-chain-pack\", or chainId, version or expansionId is missing",
                path.display()
            ),
        )
        .with("path", path.display().to_string())
        .with("pointer", "/metadata")
    })?;
    let pack = super::load_one_pack(&args.pack, false)?;
    let chain = pack.chain(&inst.chain_id).ok_or_else(|| {
        Error::new(code::CHAIN_NOT_FOUND, format!("{} has no chain {}", pack.source.display(), inst.chain_id))
            .with("chainId", inst.chain_id.as_str())
    })?;
    let (values, warnings) = super::collect_values(&pack, &inst.chain_id, args.params.as_deref(), &args.set)?;
    print_warnings(&warnings);
    let edits = inst.hand_edits(&doc, chain)?;
    for e in &edits {
        match e {
            HandEdit::Changed { node_id, members } => {
                eprintln!("{node_id}: {} edited by hand; the re-expansion replaces it", members.join(", "))
            }
            HandEdit::Removed { node_id } => eprintln!("{node_id}: removed by hand; the re-expansion restores it"),
        }
    }
    let out = inst.reparameterise(&doc, chain, values)?;
    chainsmith::fsio::write_atomic(&args.output, &chainsmith::fsio::to_pretty_json(&out))?;
    let fresh = AppInstance::recognise(&out).map(|i| i.expansion_id).unwrap_or_default();
    let hand_edits: Vec<Value> = edits
        .iter()
        .map(|e| match e {
            HandEdit::Changed { node_id, members } => json!({"nodeId": node_id, "members": members}),
            HandEdit::Removed { node_id } => json!({"nodeId": node_id, "removed": true}),
        })
        .collect();
    print_line(&json!({
        "output": args.output.display().to_string(),
        "chainId": inst.chain_id,
        "version": inst.chain_version,
        "previousExpansionId": inst.expansion_id,
        "expansionId": fresh,
        "params": out.pointer("/metadata/expandedFrom/params"),
        "handEdits": hand_edits,
    }))
}

//! Registry and signing commands: `keygen`, `pack sign`, `pack publish`, `verify`,
//! `install`. Each prints one line of JSON on success; failures are the usual envelope.

use super::{print_warnings, write_stdout};
use chainsmith::error::{Error, Finding, Result, code};
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
    /// Check that NEW's version bump over OLD is as large as its changes need (semver).
    CheckVersion(super::diff::CheckVersionArgs),
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
    /// Publish even when the version bump over the registry's latest version is smaller
    /// than the changes need (refused otherwise: version_bump_too_small); recorded in the output.
    #[arg(long)]
    pub allow_small_bump: bool,
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
    /// Also trust the CA certificates in this PEM file for HTTPS (else $CHAINSMITH_CA_FILE).
    #[arg(long, value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
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

    /// The options for reading `registry`: the CA file is read only for a URL, so a folder
    /// never depends on it.
    pub fn options_for(&self, registry: &str, fresh_for: Option<Duration>) -> Result<NetOptions> {
        let mut opts = self.options(fresh_for)?;
        if registry::source::is_url(registry) {
            opts.extra_roots = match &self.ca_file {
                Some(path) => chainsmith::net::load_ca_file(path)?,
                None => chainsmith::net::ca_from_env()?,
            };
        }
        Ok(opts)
    }

    /// Open `--registry`: a URL or a folder.
    pub fn open(&self, registry: &str, fresh_for: Option<Duration>) -> Result<Registry> {
        Registry::open_location(registry, &self.options_for(registry, fresh_for)?)
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
        PackCommand::CheckVersion(a) => super::diff::check_version(a),
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
    // The semver check against the registry's latest version; a pack that does not load is
    // publish_with's to refuse, with its own codes. The pack is let go before publishing.
    // A registry whose latest version cannot be read is not compared with: the publish's own
    // checks (links, integrity, keys) come first and refuse what they refuse, and a publish
    // that goes ahead says the comparison was skipped and why.
    let (checked, skipped) = {
        let loaded = chainsmith::pack::load_path(&args.dir, chainsmith::pack::LoadOptions::default());
        match loaded
            .packs
            .first()
            .map(|p| chainsmith::diff::registry::publish_check(p, &args.registry, args.allow_small_bump))
        {
            Some(Ok(checked)) => (checked, None),
            Some(Err(e)) if e.code == code::VERSION_BUMP_TOO_SMALL => return Err(e),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        }
    };
    let mut published = registry::publish::publish_with(&args.dir, &args.registry, &opts)?;
    if let Some(e) = skipped {
        published.warnings.push(Finding::warning(
            code::VERSION_CHECK_SKIPPED,
            "",
            format!(
                "the version bump was not checked: the registry's latest version could not be read ({}: {})",
                e.code, e.message
            ),
        ));
    }
    print_warnings(&published.warnings);
    let mut out = published.to_json();
    if let Some(checked) = checked {
        out["versionCheck"] = checked;
    }
    print_line(&out)
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

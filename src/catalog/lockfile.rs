//! `pack-lock.json` (node-packs §7): read and validate a lockfile, then resolve every
//! locked pack from local registry folders in frozen mode.
//!
//! Sources are searched in order: the registries the caller gives (the primary: folders,
//! or `http(s)://` URLs read as `chainsmith verify` reads them), the lockfile's own
//! `registry`, then each `fallbackRegistries` entry. Of the lockfile's entries, local paths
//! (relative to the lockfile) and `file://` URLs are read; any other URL is reported as
//! unreachable and never fetched: only a registry the caller names touches the network. A registry folder is either laid out
//! `<name>/<version>/pack.json` or is any folder of packs: both are scanned recursively
//! and indexed by the manifests' own `name` and `version`. Each folder is read once, however
//! many spellings name it, and only when the sources before it do not serve a pack.
//!
//! A folder that is an OpenWOP registry tree (it has `.well-known/openwop-registry.json`)
//! serves tarballs, through its endpoints only: a pack found there is checked as
//! `chainsmith verify` checks it (the tarball against its version manifest's `integrity`,
//! its signature against that issuing registry's `signingKeys[]`), and the manifest used and
//! reported (`manifest`: the tarball) is the `pack.json` inside that verified tarball, never
//! another file of the same name and version lying in the folder. It is then checked
//! against the lockfile's `integrity`
//! (`pack_integrity_mismatch`) and recorded tarball `signature`; a locked version the
//! registry has yanked resolves with a warning (a lockfile pins exact versions; yanked
//! versions are never chosen for a range).
//! Folders of unpacked packs have no tarball to hash; the output says which packs were
//! checked (`integrityVerified`). Manifest signatures are verified when trusted keys are
//! supplied.

use super::signature::{SignatureStatus, TrustedKeys, verify_pack};
use super::{Range, finding_from, read_bounded};
use crate::error::{Error, Finding, Result, Severity, code, pointer_join};
use crate::net::NetOptions;
use crate::pack::{LoadOptions, MAX_MANIFEST_BYTES, Pack, load_path};
use crate::schemas::Schema;
use semver::Version;
use serde_json::{Map, Value, json};
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A read lockfile: the document plus its validation findings.
#[derive(Debug, Clone)]
pub struct Lockfile {
    source: PathBuf,
    document: Value,
    findings: Vec<Finding>,
}

/// One `packs[]` entry, read leniently (schema errors are findings of the lockfile).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedPack {
    pub index: usize,
    pub name: String,
    pub version: String,
    pub integrity: String,
    /// Exact versions pinned for this pack's own dependencies.
    pub dependencies: BTreeMap<String, String>,
    /// The recorded tarball signature `{algorithm, publicKey, value}` (base64), if any.
    pub signature: Option<Value>,
}

impl Lockfile {
    pub fn read(path: &Path) -> Result<Self> {
        let bytes = read_bounded(path, MAX_MANIFEST_BYTES).map_err(|msg| {
            let code = if path.exists() { code::IO_ERROR } else { code::PACK_NOT_FOUND };
            Error::new(code, format!("lockfile {msg}")).with("path", path.display().to_string())
        })?;
        Self::from_bytes(path, &bytes)
    }

    /// Parse and validate lockfile bytes; `source` locates relative registry paths.
    pub fn from_bytes(source: &Path, bytes: &[u8]) -> Result<Self> {
        let document: Value = crate::fsio::parse_json(code::PACK_LOCKFILE_INVALID, source, bytes)?;
        if !document.is_object() {
            return Err(Error::new(
                code::PACK_LOCKFILE_INVALID,
                format!("{}: a lockfile is a JSON object", source.display()),
            )
            .with("path", source.display().to_string()));
        }
        let findings = Schema::PackLockfile
            .violations(&document)
            .into_iter()
            .map(|v| {
                let registry_field = v.pointer == "/registry" || v.pointer.starts_with("/fallbackRegistries/");
                let (severity, message) = if v.pointer.is_empty() && v.keyword == "additionalProperties" {
                    // §7.9: readers ignore unknown top-level fields, although the schema is closed.
                    (Severity::Warning, format!("{}; ignored for forward compatibility", v.message))
                } else if registry_field && v.keyword == "format" {
                    (Severity::Warning, format!("{}; read as a local path", v.message))
                } else {
                    (Severity::Error, v.message)
                };
                let mut f = Finding::error(code::PACK_LOCKFILE_INVALID, v.pointer, message).with("keyword", v.keyword);
                f.severity = severity;
                f
            })
            .collect();
        Ok(Self { source: source.to_path_buf(), document, findings })
    }

    pub fn source(&self) -> &Path {
        &self.source
    }

    pub fn document(&self) -> &Value {
        &self.document
    }

    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    pub fn is_valid(&self) -> bool {
        self.findings.iter().all(|f| !f.is_error())
    }

    pub fn registry(&self) -> Option<&str> {
        self.document.get("registry").and_then(Value::as_str)
    }

    pub fn fallback_registries(&self) -> Vec<&str> {
        self.document
            .get("fallbackRegistries")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    }

    /// `overrides`: pack name → exact version, in document order.
    pub fn overrides(&self) -> Vec<(&str, &str)> {
        self.document
            .get("overrides")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
            .collect()
    }

    pub fn packs(&self) -> Vec<LockedPack> {
        let entries = self.document.get("packs").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        entries
            .iter()
            .enumerate()
            .filter_map(|(index, e)| {
                let text = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_owned);
                let dependencies = e
                    .get("dependencies")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                    .collect();
                Some(LockedPack {
                    index,
                    name: text("name")?,
                    version: text("version")?,
                    integrity: text("integrity").unwrap_or_default(),
                    dependencies,
                    signature: e.get("signature").cloned(),
                })
            })
            .collect()
    }
}

/// A pack some workflow or chain pack needs, with the range it asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub requested_by: String,
    pub name: String,
    pub range: String,
}

impl Requirement {
    /// The `dependencies` of a (chain) pack.
    pub fn of_pack(pack: &Pack) -> Vec<Self> {
        pack.dependencies()
            .into_iter()
            .map(|(name, range)| Self {
                requested_by: pack.name().to_owned(),
                name: name.to_owned(),
                range: range.to_owned(),
            })
            .collect()
    }
}

/// What to resolve against.
#[derive(Debug, Clone, Copy, Default)]
pub struct ResolveOptions<'a> {
    /// Primary registry folders, searched first (`--registry DIR`, repeatable).
    pub registries: &'a [PathBuf],
    /// Packs the workspace needs; each must be locked (`pack_lockfile_incomplete`).
    pub requirements: &'a [Requirement],
    /// When given, each resolved pack's manifest signature is verified under this policy.
    pub trusted_keys: Option<&'a TrustedKeys>,
    pub require_signed: bool,
    /// How a primary registry given as an `http(s)://` URL is read (`None`: the defaults).
    pub net: Option<&'a NetOptions>,
}

/// One resolved pack.
#[derive(Debug, Clone)]
pub struct ResolvedPack {
    pub name: String,
    pub version: String,
    /// The version the lockfile locked, when an override replaced it.
    pub locked_version: Option<String>,
    pub integrity: String,
    /// The registry (folder or URL text) that served it.
    pub registry: String,
    pub pack: Pack,
    pub dependencies: BTreeMap<String, String>,
    pub signature: Option<SignatureStatus>,
    /// The registry's tarball matched its published and its locked integrity.
    pub integrity_verified: bool,
}

/// The resolved set and everything found on the way.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    pub lockfile_version: Option<u64>,
    /// Sorted by name, then version.
    pub packs: Vec<ResolvedPack>,
    pub findings: Vec<Finding>,
}

impl Resolution {
    pub fn is_ok(&self) -> bool {
        self.findings.iter().all(|f| !f.is_error())
    }

    /// The deterministic JSON form: packs sorted by name then version, maps by key.
    pub fn to_json(&self) -> Value {
        let packs: Vec<Value> = self
            .packs
            .iter()
            .map(|p| {
                let mut o = Map::new();
                o.insert("name".into(), json!(p.name));
                o.insert("version".into(), json!(p.version));
                if let Some(locked) = &p.locked_version {
                    o.insert("lockedVersion".into(), json!(locked));
                }
                // An overriding version served from a plain folder has no known integrity.
                if !p.integrity.is_empty() {
                    o.insert("integrity".into(), json!(p.integrity));
                }
                o.insert("integrityVerified".into(), json!(p.integrity_verified));
                o.insert("registry".into(), json!(p.registry));
                o.insert("manifest".into(), json!(p.pack.source.display().to_string()));
                if !p.dependencies.is_empty() {
                    o.insert("dependencies".into(), json!(p.dependencies));
                }
                if let Some(status) = &p.signature {
                    o.insert("signature".into(), json!(status.as_str()));
                }
                Value::Object(o)
            })
            .collect();
        json!({
            "lockfileVersion": self.lockfile_version,
            "integrityVerified": !self.packs.is_empty() && self.packs.iter().all(|p| p.integrity_verified),
            "packs": packs,
            "findings": self.findings.iter().map(Finding::to_json).collect::<Vec<_>>(),
        })
    }

    /// `to_json` as text: 2-space indentation and one final newline (§7.8).
    pub fn to_json_string(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// Where a registry entry points.
enum Location {
    Local(PathBuf),
    /// A primary registry given by URL (`--registry https://…`).
    Url(String),
    Unreachable,
}

/// One registry folder, indexed on first use: a fallback is read only when the registries
/// before it do not serve a pack.
struct Registry {
    label: String,
    /// Its `pointer` in the lockfile (empty for a primary folder), for findings.
    pointer: String,
    dir: PathBuf,
    /// Read by URL instead of from `dir`, with these options.
    url: Option<(String, NetOptions)>,
    loaded: OnceCell<Loaded>,
}

/// What reading a registry folder yielded.
struct Loaded {
    index: PackIndex,
    /// The OpenWOP registry tree, when the folder is one.
    tree: Option<crate::registry::Registry>,
    /// Problems met reading it.
    findings: Vec<Finding>,
}

impl Registry {
    fn loaded(&self) -> &Loaded {
        self.loaded.get_or_init(|| match &self.url {
            Some((url, net)) => load_url(url, net, &self.pointer),
            None => load_registry(&self.dir, &self.label, &self.pointer),
        })
    }

    fn packs(&self) -> &PackIndex {
        &self.loaded().index
    }

    fn tree(&self) -> Option<&crate::registry::Registry> {
        self.loaded().tree.as_ref()
    }
}

/// Packs of one registry: name → (version text, pack).
type PackIndex = HashMap<String, Vec<(String, Pack)>>;

fn load_registry(dir: &Path, label: &str, pointer: &str) -> Loaded {
    let outcome = load_path(dir, LoadOptions::default());
    let mut findings = Vec::new();
    for err in outcome.failures {
        // An empty registry is not a problem; unreadable manifests in it are.
        if err.code != code::PACK_NOT_FOUND {
            findings.push(finding_from(err, "", Severity::Warning).with("registry", label));
        }
    }
    let mut index = PackIndex::new();
    for pack in outcome.packs {
        if pack.name().is_empty() || pack.version().is_empty() {
            continue;
        }
        index.entry(pack.name().to_owned()).or_default().push((pack.version().to_owned(), pack));
    }
    let tree = dir
        .join(crate::registry::layout::DISCOVERY_PATH)
        .is_file()
        .then(|| crate::registry::Registry::open(dir))
        .and_then(|r| r.map_err(|e| findings.push(finding_from(e, pointer, Severity::Warning))).ok());
    Loaded { index, tree, findings }
}

/// A registry by URL serves through its endpoints only, so nothing is indexed: each pack is
/// asked for by name and version when needed.
fn load_url(url: &str, net: &NetOptions, pointer: &str) -> Loaded {
    let mut findings = Vec::new();
    let tree = crate::registry::Registry::open_url(url, net)
        .map_err(|e| findings.push(finding_from(e, pointer, Severity::Warning).with("registry", url)))
        .ok();
    Loaded { index: PackIndex::new(), tree, findings }
}

/// Resolve every locked pack (frozen mode, §7.4), honouring `overrides` (§7.5) and
/// `fallbackRegistries` (§7.6).
pub fn resolve(lock: &Lockfile, opts: &ResolveOptions) -> Resolution {
    let mut findings: Vec<Finding> = lock.findings().to_vec();
    let default_net = NetOptions::default();
    let net = opts.net.unwrap_or(&default_net);
    let registries = open_registries(lock, opts.registries, net, &mut findings);
    let overrides = read_overrides(lock, &mut findings);
    let locked = lock_entries(lock, &mut findings);

    // Declared ranges per pack, from the workspace and from resolved manifests.
    let mut parents: Parents = BTreeMap::new();
    for req in opts.requirements {
        if !locked.contains_key(&req.name) {
            findings.push(incomplete(&req.name, &req.requested_by, Some(&req.range), ""));
        }
        parents.entry(req.name.clone()).or_default().push((req.requested_by.clone(), req.range.clone()));
    }

    let set = LockedSet { locked: &locked, overrides: &overrides };
    let mut packs = Vec::new();
    for entry in locked.values() {
        check_pins(entry, &set, &mut findings);
        if let Some(pack) = resolve_entry(entry, &set, &registries, opts, &mut parents, &mut findings) {
            packs.push(pack);
        }
    }

    for (name, version) in &overrides {
        check_override(name, version, &locked, parents.get(*name), &mut findings);
    }

    // Problems inside the registries that were read (the others were never needed).
    findings.extend(registries.iter().filter_map(|r| r.loaded.get()).flat_map(|l| l.findings.iter().cloned()));
    packs.sort_by(|a, b| (&a.name, &a.version).cmp(&(&b.name, &b.version)));
    let lockfile_version = lock.document().get("lockfileVersion").and_then(Value::as_u64);
    Resolution { lockfile_version, packs, findings }
}

/// Who declared a range for each pack: (requester, range).
type Parents = BTreeMap<String, Vec<(String, String)>>;

/// The locked entries by name and the overrides that replace their versions.
struct LockedSet<'a> {
    locked: &'a BTreeMap<String, LockedPack>,
    overrides: &'a BTreeMap<&'a str, &'a str>,
}

impl LockedSet<'_> {
    /// The version resolved for `name`: its override, else the locked one.
    fn chosen(&self, name: &str) -> Option<String> {
        self.overrides.get(name).map(|v| (*v).to_owned()).or_else(|| self.locked.get(name).map(|e| e.version.clone()))
    }
}

/// `overrides` whose versions are exact; any other is reported and left out.
fn read_overrides<'a>(lock: &'a Lockfile, findings: &mut Vec<Finding>) -> BTreeMap<&'a str, &'a str> {
    let mut overrides = BTreeMap::new();
    for (name, version) in lock.overrides() {
        if Version::parse(version).is_err() {
            findings.push(
                Finding::error(
                    code::PACK_LOCKFILE_INVALID,
                    pointer_join("/overrides", name),
                    format!("override {name}: \"{version}\" is not an exact semver version"),
                )
                .with("packName", name),
            );
            continue;
        }
        overrides.insert(name, version);
    }
    overrides
}

/// One entry per name; a second, different version of the same pack is a conflict.
fn lock_entries(lock: &Lockfile, findings: &mut Vec<Finding>) -> BTreeMap<String, LockedPack> {
    let mut locked: BTreeMap<String, LockedPack> = BTreeMap::new();
    for entry in lock.packs() {
        match locked.get(&entry.name) {
            Some(first) if first.version != entry.version => findings.push(
                Finding::error(
                    code::PACK_DEPENDENCY_CONFLICT,
                    format!("/packs/{}", entry.index),
                    format!("{} is locked twice, at {} and at {}", entry.name, first.version, entry.version),
                )
                .with("packName", entry.name.as_str())
                .with("versions", vec![first.version.clone(), entry.version.clone()]),
            ),
            Some(_) => {}
            None => {
                locked.insert(entry.name.clone(), entry);
            }
        }
    }
    locked
}

/// The exact versions `entry` pins for its dependencies must be locked, at those versions
/// (unless an override replaces the dependency's).
fn check_pins(entry: &LockedPack, set: &LockedSet, findings: &mut Vec<Finding>) {
    for (dep, pinned) in &entry.dependencies {
        let pin_at = pointer_join(&format!("/packs/{}/dependencies", entry.index), dep);
        match set.locked.get(dep) {
            None => findings.push(incomplete(dep, &entry.name, None, &pin_at)),
            Some(dep_entry) if !set.overrides.contains_key(dep.as_str()) && dep_entry.version != *pinned => findings
                .push(
                    Finding::error(
                        code::PACK_DEPENDENCY_CONFLICT,
                        pin_at,
                        format!(
                            "{} pins {dep} {pinned}, but the lockfile locks {dep} {}",
                            entry.name, dep_entry.version
                        ),
                    )
                    .with("packName", dep.as_str())
                    .with("versions", vec![pinned.clone(), dep_entry.version.clone()]),
                ),
            Some(_) => {}
        }
    }
}

/// Find `entry` (at its chosen version) in the registries and check it: its manifest's
/// dependencies must be locked (their ranges are recorded in `parents` for the override
/// check), its signature is verified when keys are given, and a registry tree's tarball
/// is checked against the lockfile. `None` when no registry serves it (reported).
fn resolve_entry(
    entry: &LockedPack,
    set: &LockedSet,
    registries: &[Registry],
    opts: &ResolveOptions,
    parents: &mut Parents,
    findings: &mut Vec<Finding>,
) -> Option<ResolvedPack> {
    let version = set.chosen(&entry.name)?;
    let overridden = set.overrides.contains_key(entry.name.as_str());
    let at = format!("/packs/{}", entry.index);
    // An override replaces the locked version, and with it the locked integrity and tarball
    // signature: those describe the locked version's bytes, not the overriding version's.
    let replaced = overridden && version != entry.version;
    let mut integrity = if replaced { String::new() } else { entry.integrity.clone() };
    let (served_by, pack, integrity_verified) = match find(registries, &entry.name, &version) {
        None => {
            let at = if overridden {
                pointer_join("/overrides", &entry.name)
            } else {
                format!("/packs/{}/version", entry.index)
            };
            findings.push(not_found(registries, &entry.name, &version, &at));
            return None;
        }
        Some(Served::Folder(r, pack)) => (r, pack.clone(), false),
        Some(Served::Refused(e)) => {
            findings.push(finding_from(e, &at, Severity::Error).with("packName", entry.name.as_str()));
            return None;
        }
        Some(Served::Tree(r, verified, tarball)) => {
            // The verified bytes, labelled by the tarball that holds them.
            let bytes = verified.archive.manifest().unwrap_or_default();
            let pack = match crate::pack::load_bytes(&tarball, bytes, LoadOptions::default()) {
                Ok(pack) => pack,
                Err(e) => {
                    findings.push(finding_from(e, &at, Severity::Error).with("packName", entry.name.as_str()));
                    return None;
                }
            };
            let checked = if replaced {
                // `registry::verify` checked the tarball against its own version's integrity.
                integrity = verified.integrity.clone();
                registry_yanked(&verified, entry, &version, findings);
                true
            } else {
                registry_checks(&verified, entry, &version, findings)
            };
            (r, pack, checked)
        }
    };
    let pack = &pack;
    for (dep, range) in pack.dependencies() {
        let requester = format!("{}@{}", entry.name, version);
        if !set.locked.contains_key(dep) {
            findings.push(incomplete(dep, &requester, Some(range), ""));
        }
        parents.entry(dep.to_owned()).or_default().push((requester, range.to_owned()));
    }
    let signature = opts.trusted_keys.map(|keys| {
        let report = verify_pack(pack, keys, opts.require_signed);
        if let Some(mut f) = report.finding {
            // Re-anchor on the lockfile entry; keep where in the manifest it was.
            f.details.insert("manifestPointer".into(), json!(f.pointer));
            f.details.insert("path".into(), json!(pack.source.display().to_string()));
            f.pointer = format!("/packs/{}", entry.index);
            findings.push(f);
        }
        report.status
    });
    Some(ResolvedPack {
        name: entry.name.clone(),
        version: version.clone(),
        locked_version: replaced.then(|| entry.version.clone()),
        integrity,
        registry: served_by.label.clone(),
        pack: pack.clone(),
        dependencies: entry.dependencies.clone(),
        signature,
        integrity_verified,
    })
}

/// §7.5: an override must satisfy at least one declaring parent's range.
fn check_override(
    name: &str,
    version: &str,
    locked: &BTreeMap<String, LockedPack>,
    declared: Option<&Vec<(String, String)>>,
    findings: &mut Vec<Finding>,
) {
    let at = pointer_join("/overrides", name);
    let Some(declared) = declared.filter(|d| !d.is_empty()) else {
        if !locked.contains_key(name) {
            findings.push(
                Finding::warning(
                    code::LOCKFILE_OVERRIDE_UNUSED,
                    at,
                    format!("override {name} {version} names a pack that is neither locked nor required"),
                )
                .with("packName", name),
            );
        }
        return;
    };
    let Ok(v) = Version::parse(version) else { return };
    let mut satisfied = false;
    for (requested_by, range) in declared {
        match Range::parse(range) {
            Ok(r) => satisfied |= r.matches(&v),
            Err(msg) => findings.push(
                Finding::error(
                    code::DEPENDENCY_RANGE_INVALID,
                    at.as_str(),
                    format!("{requested_by} asks for {name} {msg}"),
                )
                .with("packName", name)
                .with("requestedBy", requested_by.as_str())
                .with("range", range.as_str()),
            ),
        }
    }
    if !satisfied {
        let ranges: Vec<Value> =
            declared.iter().map(|(by, range)| json!({"requestedBy": by, "range": range})).collect();
        findings.push(
            Finding::error(
                code::PACK_DEPENDENCY_CONFLICT,
                at,
                format!("override {name} {version} satisfies none of the ranges declared for {name}"),
            )
            .with("packName", name)
            .with("override", version)
            .with("conflictingRanges", ranges),
        );
    }
}

fn incomplete(name: &str, requested_by: &str, range: Option<&str>, pointer: &str) -> Finding {
    let wanted = range.map(|r| format!(" {r}")).unwrap_or_default();
    let mut f = Finding::error(
        code::PACK_LOCKFILE_INCOMPLETE,
        pointer,
        format!("{requested_by} needs {name}{wanted}, and the lockfile does not lock it"),
    )
    .with("packName", name)
    .with("requestedBy", requested_by);
    if let Some(r) = range {
        f = f.with("range", r);
    }
    f
}

fn not_found(registries: &[Registry], name: &str, version: &str, pointer: &str) -> Finding {
    let mut available: Vec<&str> =
        registries.iter().filter_map(|r| r.packs().get(name)).flatten().map(|(v, _)| v.as_str()).collect();
    available.sort_unstable();
    available.dedup();
    let searched: Vec<&str> = registries.iter().map(|r| r.label.as_str()).collect();
    let message = if searched.is_empty() {
        format!("{name} {version}: no readable registry to resolve it from")
    } else if available.is_empty() {
        format!("{name} {version}: no searched registry serves {name}")
    } else {
        format!("{name} {version}: the searched registries serve {name} {} only", available.join(", "))
    };
    Finding::error(code::PACK_VERSION_NOT_FOUND, pointer, message)
        .with("packName", name)
        .with("version", version)
        .with("available", available)
        .with("searched", searched)
}

/// How a registry serves one version.
enum Served<'r> {
    /// A registry tree, verified as `chainsmith verify` verifies (with its tarball's path).
    Tree(&'r Registry, Box<crate::registry::Verified>, PathBuf),
    /// A registry tree that has the version, and refuses it.
    Refused(Error),
    /// A folder of unpacked packs: nothing to check it against.
    Folder(&'r Registry, &'r Pack),
}

/// The first registry (in search order) serving `name` at exactly `version`. A registry tree
/// serves through its endpoints only: a `pack.json` lying elsewhere in its folder is not
/// what it publishes.
fn find<'r>(registries: &'r [Registry], name: &str, version: &str) -> Option<Served<'r>> {
    registries.iter().find_map(|r| {
        let Some(tree) = r.tree() else {
            let (_, pack) = r.packs().get(name)?.iter().find(|(v, _)| v == version)?;
            return Some(Served::Folder(r, pack));
        };
        match crate::registry::verify(tree, name, version) {
            Ok(verified) => {
                let tarball = crate::registry::tarball_location(tree, name, version).ok()?;
                Some(Served::Tree(r, Box::new(verified), PathBuf::from(tarball)))
            }
            Err(e) if e.code == code::PACK_VERSION_NOT_FOUND => None,
            Err(e) => Some(Served::Refused(e)),
        }
    })
}

/// Check a verified registry tree's copy of a locked pack against the lockfile: its own
/// integrity (`pack_integrity_mismatch`) and recorded tarball signature; warn when the
/// version is yanked. `true` when all of it holds.
fn registry_checks(
    verified: &crate::registry::Verified,
    entry: &LockedPack,
    version: &str,
    findings: &mut Vec<Finding>,
) -> bool {
    use crate::registry::integrity_matches;
    let name = entry.name.as_str();
    let at = format!("/packs/{}", entry.index);
    registry_yanked(verified, entry, version, findings);
    if !entry.integrity.is_empty() && !integrity_matches(&entry.integrity, &verified.tarball) {
        findings.push(
            Finding::error(
                code::PACK_INTEGRITY_MISMATCH,
                format!("{at}/integrity"),
                format!("{name}@{version}: the lockfile's integrity differs from the registry's tarball"),
            )
            .with("packName", name)
            .with("expected", entry.integrity.as_str())
            .with("actual", verified.integrity.as_str()),
        );
        return false;
    }
    if let Some(recorded) = &entry.signature
        && let Err(msg) = check_recorded_signature(recorded, &verified.tarball)
    {
        findings.push(
            Finding::error(code::PACK_SIGNATURE_INVALID, format!("{at}/signature"), format!("{name}@{version}: {msg}"))
                .with("packName", name),
        );
        return false;
    }
    true
}

/// Warn when the registry marks the version as yanked.
fn registry_yanked(
    verified: &crate::registry::Verified,
    entry: &LockedPack,
    version: &str,
    findings: &mut Vec<Finding>,
) {
    if verified.yanked() {
        let reason = verified.manifest.get("yankedReason").and_then(Value::as_str).unwrap_or("no reason given");
        findings.push(
            Finding::warning(
                code::PACK_VERSION_YANKED,
                format!("/packs/{}", entry.index),
                format!("{}@{version} is yanked ({reason}); the lockfile pins it", entry.name),
            )
            .with("packName", entry.name.as_str()),
        );
    }
}

/// A lockfile's `signature{algorithm: "ed25519", publicKey, value}` over the tarball
/// (node-packs §7.3); the key is 32 raw bytes or an SPKI DER, both base64.
fn check_recorded_signature(recorded: &Value, tarball: &[u8]) -> Result<(), String> {
    use base64::Engine;
    use ed25519_dalek::pkcs8::DecodePublicKey;
    let b64 = |k: &str| {
        let text = recorded.get(k).and_then(Value::as_str).ok_or(format!("the recorded signature has no `{k}`"))?;
        base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|e| format!("`signature.{k}` is not base64: {e}"))
    };
    if let Some(alg) = recorded.get("algorithm").and_then(Value::as_str).filter(|a| *a != "ed25519") {
        return Err(format!("signature algorithm \"{alg}\" is not ed25519"));
    }
    let key_bytes = b64("publicKey")?;
    let key = match <[u8; 32]>::try_from(key_bytes.as_slice()) {
        Ok(raw) => ed25519_dalek::VerifyingKey::from_bytes(&raw).map_err(|e| format!("bad public key: {e}"))?,
        Err(_) => {
            ed25519_dalek::VerifyingKey::from_public_key_der(&key_bytes).map_err(|e| format!("bad public key: {e}"))?
        }
    };
    let value = b64("value")?;
    let raw = <[u8; 64]>::try_from(value.as_slice())
        .map_err(|_| format!("the signature is {} bytes, not 64", value.len()))?;
    key.verify_strict(tarball, &ed25519_dalek::Signature::from_bytes(&raw))
        .map_err(|_| "the recorded signature does not verify over the registry's tarball".to_owned())
}

/// Primary folders, then the lockfile's `registry`, then its fallbacks, in that order. A
/// folder named twice (`reg`, `./reg`, a link to it) is searched once, at its first place.
/// Nothing is read yet.
fn open_registries(
    lock: &Lockfile,
    primary: &[PathBuf],
    net: &NetOptions,
    findings: &mut Vec<Finding>,
) -> Vec<Registry> {
    let base = lock.source().parent().unwrap_or(Path::new(""));
    let primary_location = |p: &PathBuf| match p.to_str().filter(|t| crate::registry::source::is_url(t)) {
        Some(url) => Location::Url(url.to_owned()),
        None => Location::Local(p.clone()),
    };
    let mut entries: Vec<(String, String, Location)> =
        primary.iter().map(|p| (p.display().to_string(), String::new(), primary_location(p))).collect();
    if let Some(r) = lock.registry() {
        entries.push((r.to_owned(), "/registry".into(), locate(r, base)));
    }
    for (i, r) in lock.fallback_registries().into_iter().enumerate() {
        entries.push((r.to_owned(), format!("/fallbackRegistries/{i}"), locate(r, base)));
    }
    let mut out = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    for (label, pointer, location) in entries {
        match location {
            Location::Unreachable => findings.push(
                Finding::warning(
                    code::REGISTRY_UNREACHABLE,
                    pointer,
                    format!("registry {label} is not a local folder or file:// URL; a lockfile's registries are never fetched (give it as --registry to read it by URL), so it is skipped"),
                )
                .with("registry", label),
            ),
            Location::Local(dir) if !dir.is_dir() => findings.push(
                Finding::warning(code::REGISTRY_UNREACHABLE, pointer, format!("registry folder {} does not exist", dir.display()))
                    .with("registry", label)
                    .with("path", dir.display().to_string()),
            ),
            Location::Local(dir) => {
                let canonical = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
                if seen.insert(canonical) {
                    out.push(Registry { label, pointer, dir, url: None, loaded: OnceCell::new() });
                }
            }
            Location::Url(url) => {
                if seen.insert(PathBuf::from(url.trim_end_matches('/'))) {
                    let url = Some((url, net.clone()));
                    out.push(Registry { label, pointer, dir: PathBuf::new(), url, loaded: OnceCell::new() });
                }
            }
        }
    }
    out
}

/// Classify a lockfile registry entry: a `file://` URL or a plain path is local.
fn locate(text: &str, base: &Path) -> Location {
    if let Some(rest) = text.strip_prefix("file:") {
        // `file:///p` and `file://localhost/p` name a local path; `file:/p` too.
        let path = match rest.strip_prefix("//") {
            Some(after) => match after.split_once('/') {
                Some(("" | "localhost", p)) => format!("/{p}"),
                _ => return Location::Unreachable,
            },
            None if rest.starts_with('/') => rest.to_owned(),
            None => return Location::Unreachable,
        };
        return match crate::grammar::percent_decode(&path) {
            Some(p) => Location::Local(PathBuf::from(p)),
            None => Location::Unreachable,
        };
    }
    if has_url_scheme(text) {
        return Location::Unreachable;
    }
    Location::Local(base.join(text))
}

/// `scheme:` per RFC 3986 (a drive letter such as `C:` is a path, not a scheme).
fn has_url_scheme(text: &str) -> bool {
    match text.split_once(':') {
        Some((scheme, _)) => {
            scheme.len() > 1
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_entries_are_classified_without_fetching() {
        let base = Path::new("/work/ws");
        let local = |t: &str| match locate(t, base) {
            Location::Local(p) => Some(p),
            Location::Url(_) | Location::Unreachable => None,
        };
        assert_eq!(local("file:///srv/reg"), Some(PathBuf::from("/srv/reg")));
        assert_eq!(local("file://localhost/srv/my%20reg"), Some(PathBuf::from("/srv/my reg")));
        assert_eq!(local("file:/srv/reg"), Some(PathBuf::from("/srv/reg")));
        assert_eq!(local("./reg"), Some(PathBuf::from("/work/ws/./reg")));
        assert_eq!(local("/abs/reg"), Some(PathBuf::from("/abs/reg")));
        for remote in
            ["https://packs.example.test", "http://x", "file://otherhost/x", "s3://b/k", "file:rel", "file:///%zz"]
        {
            assert!(local(remote).is_none(), "{remote}");
        }
    }

    #[test]
    fn lockfile_schema_findings_and_forward_compatibility() {
        let lock = Lockfile::from_bytes(
            Path::new("ws/pack-lock.json"),
            br#"{"lockfileVersion": 1, "generatedAt": "2026-01-01T00:00:00Z", "packs": [{"name": "vendor.a.b", "version": "1.0.0", "integrity": "bad"}], "future": 1, "fallbackRegistries": ["./mirror"]}"#,
        )
        .unwrap();
        let f: Vec<_> = lock.findings().iter().map(|f| (f.severity, f.pointer.as_str())).collect();
        assert!(f.contains(&(Severity::Warning, "")), "{f:?}");
        assert!(f.contains(&(Severity::Warning, "/fallbackRegistries/0")), "{f:?}");
        assert!(f.contains(&(Severity::Error, "/packs/0/integrity")), "{f:?}");
        assert!(!lock.is_valid());
        assert_eq!(Lockfile::from_bytes(Path::new("x"), b"[").unwrap_err().code, code::PACK_LOCKFILE_INVALID);
        assert_eq!(Lockfile::from_bytes(Path::new("x"), b"[]").unwrap_err().code, code::PACK_LOCKFILE_INVALID);
        assert_eq!(Lockfile::read(Path::new("/definitely/not/here.json")).unwrap_err().code, code::PACK_NOT_FOUND);
    }

    #[test]
    fn fallbacks_are_read_only_when_needed_and_each_folder_once() {
        let root = tempfile::tempdir().unwrap();
        let pack = |name: &str| {
            serde_json::json!({"name": name, "version": "1.0.0", "engines": {"openwop": ">=1.0.0"}, "nodes": []})
                .to_string()
        };
        for (dir, name) in [("primary/a", "vendor.t.a"), ("fallback/b", "vendor.t.b")] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
            std::fs::write(root.path().join(dir).join("pack.json"), pack(name)).unwrap();
        }
        // Reading the fallback is visible: it holds a manifest that does not parse.
        std::fs::create_dir_all(root.path().join("fallback/broken")).unwrap();
        std::fs::write(root.path().join("fallback/broken/pack.json"), "{").unwrap();
        let integrity = format!("sha256-{}=", "A".repeat(43));
        let lock = |names: &[&str]| {
            let packs: Vec<Value> =
                names.iter().map(|n| json!({"name": n, "version": "1.0.0", "integrity": integrity})).collect();
            let doc = json!({"lockfileVersion": 1, "generatedAt": "2026-01-01T00:00:00Z", "registry": "primary",
                "fallbackRegistries": ["./primary", "././primary/", "fallback", "./fallback"], "packs": packs});
            Lockfile::from_bytes(&root.path().join("pack-lock.json"), doc.to_string().as_bytes()).unwrap()
        };
        let opts = ResolveOptions { registries: &[], requirements: &[], ..ResolveOptions::default() };
        let broken = |r: &Resolution| r.findings.iter().filter(|f| f.code == code::PACK_MANIFEST_INVALID).count();
        let served = resolve(&lock(&["vendor.t.a"]), &opts);
        assert_eq!(served.packs.len(), 1);
        assert_eq!(broken(&served), 0, "the fallback was not read: {:?}", served.findings);
        let needed = resolve(&lock(&["vendor.t.a", "vendor.t.b"]), &opts);
        assert_eq!(needed.packs.len(), 2);
        assert_eq!(broken(&needed), 1, "the fallback was read once: {:?}", needed.findings);
    }
}

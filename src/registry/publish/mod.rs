//! `chainsmith pack publish`: write one pack version into a registry folder so that the
//! folder is what an OpenWOP registry serves (interop §2.2–2.3): the deterministic
//! tarball, the version manifest with its integrity, the raw signature, the CycloneDX
//! SBOM, and the pack and registry indexes. A folder without a discovery document gets
//! one naming the tree written (v2, or v1 where a legacy `/v1` tree is). The signature
//! follows the tree's recipe (v2 `ed25519-canonical-json`, v1 `manual`). Versions are
//! immutable: publishing an existing version is refused.
//!
//! A publish is all or nothing and safe to run in parallel: it holds the registry's lock,
//! stages every file inside the registry folder, verifies the staged version exactly as
//! `chainsmith verify` would, and only then renames the files into place (see `commit`).

mod commit;
mod document;
mod files;
mod grant;
mod index;
mod signing;

pub use commit::LOCK_FILE;
pub use grant::Grant;

use super::jcs;
use super::layout::{DISCOVERY_PATH, Registry, Tree, read_json};
use super::sign::{check_key_id, manifest_path};
use super::tarball;
use super::verify::{sri, verify};
use crate::error::{Error, Finding, Result, code};
use crate::fsio::contained::Folder;
use crate::pack::{LoadOptions, MAX_MANIFEST_BYTES, load_bytes};
use commit::{RegistryLock, Staging, Target, check_links, commit, remove_stale_staging};
use document::{new_document, open_registry};
use ed25519_dalek::SigningKey;
use files::tarball_files;
use grant::{check_signer, ensure_key};
use index::{pack_index, registry_index, sbom, timestamp};
use semver::Version;
use serde_json::{Value, json};
use signing::{signed_bytes, signing_key_id};
use std::path::{Path, PathBuf};

/// What `publish` wrote.
#[derive(Debug, Clone)]
pub struct Published {
    pub name: String,
    pub version: String,
    pub tree: &'static str,
    pub integrity: String,
    pub signed: bool,
    pub tarball: PathBuf,
    pub manifest: PathBuf,
    pub files: Vec<String>,
    /// Files in the pack folder a registry tarball may not carry.
    pub skipped: Vec<String>,
    /// The namespace a key new to the registry was granted, and why.
    pub grant: Option<Grant>,
    pub warnings: Vec<Finding>,
}

impl Published {
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name, "version": self.version, "tree": self.tree, "integrity": self.integrity,
            "signed": self.signed, "tarball": self.tarball.display().to_string(),
            "manifest": self.manifest.display().to_string(), "files": self.files, "skipped": self.skipped,
            "granted": self.grant.as_ref().map(Grant::to_json),
        })
    }
}

/// How to publish.
#[derive(Clone, Copy, Default)]
pub struct PublishOptions<'a> {
    /// Sign the published `pack.json` with this key under this registry key id.
    pub signer: Option<(&'a SigningKey, &'a str)>,
    /// The tree to write (`--tree`); default: the one the discovery document names.
    pub tree: Option<Tree>,
    /// Let a new key id share a namespace the registry's keys already hold.
    pub share_namespace: bool,
    /// Grant a new key id the pack's namespace, unheld, in a registry that has keys.
    pub grant_namespace: bool,
}

/// Publish the pack at `dir` into the registry folder `registry_dir`, signing it when a key
/// and key id are given.
pub fn publish(dir: &Path, registry_dir: &Path, signer: Option<(&SigningKey, &str)>) -> Result<Published> {
    publish_with(dir, registry_dir, &PublishOptions { signer, ..PublishOptions::default() })
}

/// The pack folder's manifest as read.
struct Source {
    manifest_file: PathBuf,
    pack_dir: PathBuf,
    original: Vec<u8>,
    manifest: Value,
}

impl Source {
    fn read(dir: &Path) -> Result<Self> {
        let manifest_file = manifest_path(dir);
        let pack_dir = manifest_file.parent().map(Path::to_path_buf).unwrap_or_default();
        let original = crate::fsio::read_limited(&manifest_file, MAX_MANIFEST_BYTES, code::PACK_MANIFEST_INVALID)?;
        let source = Self { manifest_file, pack_dir, original, manifest: Value::Null };
        let manifest = jcs::parse_strict_located(&source.original).map_err(|refusal| {
            if refusal.number {
                Error::new(code::NUMBER_NOT_SIGNABLE, format!("{}: {refusal}", source.manifest_file.display()))
                    .with("path", refusal.pointer.clone())
                    .with("file", source.manifest_file.display().to_string())
            } else {
                source.bad(refusal.to_string())
            }
        })?;
        Ok(Self { manifest, ..source })
    }

    fn bad(&self, msg: String) -> Error {
        Error::new(code::PACK_MANIFEST_INVALID, format!("{}: {msg}", self.manifest_file.display()))
            .with("path", self.manifest_file.display().to_string())
    }
}

/// Publish with options. The whole publish holds the registry's lock
/// (`RegistryLock`); every file is staged and verified inside the registry folder, then
/// renamed into place, the pack index last but one (see `commit`). On any failure the
/// folder is left as it was, and a folder this call created is removed again.
pub fn publish_with(dir: &Path, registry_dir: &Path, opts: &PublishOptions) -> Result<Published> {
    let mut source = Source::read(dir)?;
    if let Some((_, key_id)) = opts.signer {
        check_key_id(key_id)?;
    }
    // The outermost folder this call creates, to remove again if the publish fails.
    let created = registry_dir.ancestors().take_while(|a| !a.as_os_str().is_empty() && !a.exists()).last();
    let created = created.map(Path::to_path_buf);
    let result = RegistryLock::acquire(registry_dir).and_then(|lock| {
        remove_stale_staging(registry_dir);
        let result = publish_locked(&mut source, registry_dir, &lock.root, opts);
        lock.release();
        result
    });
    if result.is_err()
        && let Some(top) = created
    {
        // Only folders left empty go: a concurrent publish may have filled them.
        for d in registry_dir.ancestors().take_while(|a| a.starts_with(&top)) {
            let _ = std::fs::remove_dir(d);
        }
    }
    result
}

/// Memory: the manifest is large (up to 16 MiB of JSON, several times that as a `Value`),
/// so each whole copy of it (the parsed source, the bytes read, the `Pack`, the version
/// manifest, the tarball) is moved rather than cloned and dropped once its last use is
/// past, before the staged files are verified.
fn publish_locked(src: &mut Source, root: &Path, folder: &Folder, opts: &PublishOptions) -> Result<Published> {
    let mut warnings = Vec::new();
    let (reg, new_registry) = open_registry(root, opts.tree)?;
    let mut manifest = std::mem::take(&mut src.manifest);
    let (bytes, signature) = signed_bytes(src, &mut manifest, opts.signer, reg.tree)?;
    drop(manifest);
    src.original = Vec::new();
    let pack = load_bytes(&src.manifest_file, &bytes, LoadOptions::default())?;
    if let Some(first) = pack.errors().next() {
        let count = pack.errors().count();
        return Err(first.clone().into_error().with("errors", count));
    }
    if crate::pack::v2::is_v2(&pack.manifest) {
        crate::pack::v2::check_signable(&pack.manifest)?;
    }
    let (name, version) = (pack.name().to_owned(), pack.version().to_owned());
    if Version::parse(&version).is_err() {
        return Err(src.bad(format!(
            "version \"{version}\" is not a semantic version: write MAJOR.MINOR.PATCH (such as 1.0.0) in pack.json"
        )));
    }

    let new_key = match opts.signer {
        Some((key, id)) => ensure_key(&reg, key, id, &name, opts, &mut warnings)?,
        None => {
            if let Some(id) = signing_key_id(&pack.manifest) {
                let entry = reg.key(id).ok_or_else(|| {
                    Error::new(
                        code::PACK_SIGNATURE_INVALID,
                        format!(
                            "key \"{id}\" is not among the registry's signingKeys: publish with --key and --key-id \
                             to sign it with a key the registry lists or may add"
                        ),
                    )
                    .with("reason", "unknown_key")
                    .with("keyId", id)
                })?;
                check_signer(entry, &name)?;
            }
            None
        }
    };
    let document = match &new_key {
        Some(k) => Some(k.document.clone()),
        None if new_registry => reg.document.clone(),
        None => None,
    };

    let (files, skipped) = tarball_files(&src.pack_dir, &pack, bytes, signature.as_deref())?;
    let tgz = tarball::build(&files)?;
    let integrity = sri(&tgz);
    let sbom_bytes = pretty(&sbom(&pack, &tgz, &files));
    let file_names: Vec<String> = files.into_keys().collect();
    // Written from the pack's manifest as it stands: a copy with `integrity` set was one
    // more whole manifest at the peak.
    let version_manifest = {
        let mut out = Vec::new();
        let with = WithIntegrity { manifest: &pack.manifest, integrity: &integrity };
        crate::fsio::write_pretty_json(&mut out, &with).expect("a JSON value always serialises");
        out
    };
    let now = timestamp();
    let pack_index_path = reg.pack_index_path(&name)?;
    let old_index = if pack_index_path.is_file() { read_json(&pack_index_path)? } else { json!({}) };
    let registry_index_path = reg.registry_index_path()?;
    let old_reg_index = if registry_index_path.is_file() { read_json(&registry_index_path)? } else { json!({}) };
    let version_manifest_path = reg.version_manifest_path(&name, &version)?;
    let resumed = check_new_version(&version_manifest_path, &integrity, &old_index, &old_reg_index, &name, &version)?;
    if resumed {
        warnings.push(Finding::warning(
            code::PUBLISH_COMPLETED,
            "",
            format!("{name}@{version}: finished an interrupted publish of the same bytes"),
        ));
    }
    let (index, newest_is_this) = pack_index(&reg, &pack, old_index, &integrity, &now);
    let latest_version = index["latest"].as_str().unwrap_or(&version).to_owned();
    let reg_index = registry_index(&pack, old_reg_index, &latest_version, newest_is_this, &now);

    // In commit order: what no reader finds without the indexes, then the key and the
    // document that lists it, the version manifest, and the indexes.
    let tarball_path = reg.tarball_path(&name, &version)?;
    let mut writes: Vec<(PathBuf, Vec<u8>)> = vec![(tarball_path.clone(), tgz)];
    if let Some(sig) = &signature {
        writes.push((reg.signature_path(&name, &version)?, sig.clone()));
    }
    writes.push((reg.sbom_path(&name, &version)?, sbom_bytes));
    if let Some((path, pem)) = new_key.as_ref().and_then(|k| k.file.clone()) {
        writes.push((path, pem));
    }
    if let Some(doc) = &document {
        writes.push((root.join(DISCOVERY_PATH), pretty(doc)));
    }
    writes.push((version_manifest_path.clone(), version_manifest));
    writes.push((pack_index_path, pretty(&index)));
    writes.push((registry_index_path, pretty(&reg_index)));
    let signed_by = signing_key_id(&pack.manifest).unwrap_or_default().to_owned();
    drop((pack, index, reg_index));
    let writes =
        writes.into_iter().map(|(path, bytes)| Ok((Target::new(root, &path)?, bytes))).collect::<Result<Vec<_>>>()?;
    let targets: Vec<&Target> = writes.iter().map(|(t, _)| t).collect();
    check_links(folder, &targets)?;

    let staging = Staging::new(folder)?;
    let result = staging.stage(writes).and_then(|targets| {
        // What was staged must verify as any reader would check it, before a byte of the
        // registry changes.
        let doc = document.clone().or_else(|| reg.document.clone()).unwrap_or_else(|| new_document(reg.tree));
        let staged = Registry::from_document_tree(staging.dir(), doc, Some(reg.tree))?;
        if signature.is_some() {
            staging.borrow_key(&reg, &staged, &signed_by)?;
        }
        verify(&staged, &name, &version)?;
        commit(folder, &staging, &targets)
    });
    staging.remove();
    result?;
    Ok(Published {
        name,
        version,
        tree: reg.tree.as_str(),
        integrity,
        signed: signature.is_some(),
        tarball: tarball_path,
        manifest: version_manifest_path,
        files: file_names,
        skipped,
        grant: new_key.map(|k| k.grant),
        warnings,
    })
}

/// Versions are immutable: a version manifest already there refuses the publish — unless
/// it is this very publish interrupted (same integrity) and the indexes do not list it
/// yet, which is then finished (returns true).
fn check_new_version(
    manifest_path: &Path,
    integrity: &str,
    index: &Value,
    reg_index: &Value,
    name: &str,
    version: &str,
) -> Result<bool> {
    if !manifest_path.is_file() {
        return Ok(false);
    }
    let exists = || {
        Error::new(code::PACK_VERSION_EXISTS, format!("{name}@{version} is already published, and a published version never changes: raise the version in pack.json and publish again"))
            .with("packName", name)
            .with("version", version)
    };
    let existing = read_json(manifest_path).map_err(|_| exists())?;
    if existing.get("integrity").and_then(Value::as_str) != Some(integrity) {
        return Err(exists());
    }
    let rows = index.get("versions").and_then(Value::as_array);
    let listed = rows.into_iter().flatten().any(|r| r.get("version").and_then(Value::as_str) == Some(version));
    let latest = index.get("latest").and_then(Value::as_str);
    let packs = reg_index.get("packs").and_then(Value::as_array);
    let reg_row = packs.into_iter().flatten().find(|p| p.get("name").and_then(Value::as_str) == Some(name));
    let reg_current = reg_row.is_some_and(|r| r.get("latestVersion").and_then(Value::as_str) == latest);
    if listed && reg_current { Err(exists()) } else { Ok(true) }
}

/// A manifest with its `integrity` member set to the tarball's: a member it has is
/// replaced in place, else one is added last (what setting it on a copy gives).
struct WithIntegrity<'a> {
    manifest: &'a Value,
    integrity: &'a str,
}

impl serde::Serialize for WithIntegrity<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Value::Object(members) = self.manifest else {
            return Err(serde::ser::Error::custom("a manifest is a JSON object"));
        };
        let has = members.contains_key("integrity");
        let mut map = s.serialize_map(Some(members.len() + usize::from(!has)))?;
        for (k, v) in members {
            if k == "integrity" {
                map.serialize_entry(k, self.integrity)?;
            } else {
                map.serialize_entry(k, v)?;
            }
        }
        if !has {
            map.serialize_entry("integrity", self.integrity)?;
        }
        map.end()
    }
}

fn pretty(value: &Value) -> Vec<u8> {
    crate::fsio::to_pretty_json(value)
}

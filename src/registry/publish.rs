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

use super::layout::{DISCOVERY_PATH, Endpoints, KeyEntry, Registry, Tree, namespaces_overlap, read_json};
use super::sign::{SIGNATURE_FILE, Scheme, V2_SCHEME, check_key_id, manifest_path, sign_manifest};
use super::tarball;
use super::verify::{sha256_hex, sri, verify};
use super::{jcs, keys};
use crate::error::{Error, Finding, Result, code};
use crate::pack::{LoadOptions, MAX_MANIFEST_BYTES, Pack, PackKind, load_bytes};
use ed25519_dalek::{Signer, SigningKey};
use semver::Version;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The registry's lock file, present only while a publish holds it.
pub const LOCK_FILE: &str = ".chainsmith-publish.lock";
/// Staging folders in the registry root start with this.
const STAGING_PREFIX: &str = ".chainsmith-staging-";

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
    pub warnings: Vec<Finding>,
}

impl Published {
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name, "version": self.version, "tree": self.tree, "integrity": self.integrity,
            "signed": self.signed, "tarball": self.tarball.display().to_string(),
            "manifest": self.manifest.display().to_string(), "files": self.files, "skipped": self.skipped,
        })
    }
}

/// Which files a registry tarball carries (interop §2.3).
fn allowed(kind: &PackKind, path: &str) -> bool {
    let chain_only = ["LICENSE", "README.md", SIGNATURE_FILE, "pack.json"];
    if *kind == PackKind::WorkflowChain {
        return chain_only.contains(&path);
    }
    let under = |dir: &str, exts: &[&str]| {
        path.strip_prefix(dir).is_some_and(|rest| !rest.contains('/') && exts.iter().any(|e| rest.ends_with(e)))
    };
    chain_only.contains(&path)
        || path == "index.mjs"
        || under("schemas/", &[".json"])
        || under("keys/", &[".pem", ".sig"])
        || under("prompts/", &[".md", ".txt"])
}

/// Files of the pack folder, two levels deep, as relative `/` paths (sorted).
fn list_files(dir: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let read = |d: &Path| -> Result<Vec<std::fs::DirEntry>> {
        let mut v: Vec<_> = std::fs::read_dir(d).map_err(|e| Error::io(d, &e))?.flatten().collect();
        v.sort_by_key(|e| e.file_name());
        Ok(v)
    };
    for entry in read(dir)? {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_file() {
            out.push(name);
        } else if ft.is_dir() && !name.starts_with('.') {
            for inner in read(&entry.path())? {
                if inner.file_type().is_ok_and(|t| t.is_file()) {
                    out.push(format!("{name}/{}", inner.file_name().to_string_lossy()));
                } else {
                    out.push(format!("{name}/{}/", inner.file_name().to_string_lossy()));
                }
            }
        } else {
            out.push(format!("{name}/"));
        }
    }
    Ok(out)
}

/// `a.b.c` → `a.b.*`: the namespace a new registry key is granted.
fn namespace_of(name: &str) -> String {
    let parts: Vec<&str> = name.split('.').collect();
    if parts.len() >= 3 { format!("{}.{}.*", parts[0], parts[1]) } else { name.to_owned() }
}

/// Now as RFC 3339 UTC (`SOURCE_DATE_EPOCH` wins, for reproducible registries).
fn timestamp() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.parse::<i64>().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
    });
    rfc3339(secs)
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
fn rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from a day count (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// The discovery document a new registry folder gets: it names only the tree it is written
/// with, so a client never reads a tree that was not written.
fn new_document(tree: Tree) -> Value {
    let tree_name = tree.as_str();
    let t = Endpoints::standard(tree_name);
    let templates = json!({
        "registryIndex": t.registry_index,
        "packMetadata": t.pack_metadata,
        "versionManifest": t.version_manifest,
        "versionTarball": t.version_tarball,
        "versionSignature": t.version_signature,
    });
    let (protocol, methods, endpoints) = match tree {
        Tree::V2 => ("2.0", json!([V2_SCHEME]), json!({"publicKey": t.public_key, "v2": templates})),
        Tree::V1 | Tree::Legacy => {
            let mut flat = templates;
            flat["publicKey"] = json!(t.public_key);
            ("1.0", json!(["ed25519"]), flat)
        }
    };
    json!({
        "registryVersion": "1.0.0",
        "protocolVersion": protocol,
        "name": "chainsmith local registry",
        "supportedSigningMethods": methods,
        "endpoints": endpoints,
        "writeApi": {"supported": false},
        "lifecycle": {"yankSupported": true, "deprecateSupported": true, "keyRotationSupported": true},
        "signingKeys": [],
        "namespaceAssignments": [],
    })
}

/// The registry folder read through the tree publish writes: `--tree`, else the one its
/// discovery document names (the CLI's choice), which must be named whole. A folder
/// without a document gets a new one: v1 when it already holds a legacy `/v1` tree,
/// else v2. Returns whether the document is new.
fn open_registry(root: &Path, tree: Option<Tree>) -> Result<(Registry, bool)> {
    let doc_path = root.join(DISCOVERY_PATH);
    if doc_path.is_file() {
        let doc = read_json(&doc_path)?;
        let chosen = tree.unwrap_or(Registry::from_document(root, doc.clone())?.tree);
        let reg = Registry::from_document_tree(root, doc, Some(chosen)).map_err(|e| match tree {
            Some(asked) => Error::new(
                code::INVALID_REQUEST,
                format!("--tree {}: {}; publish without --tree to use the tree it names", asked.as_str(), e.message),
            )
            .with("tree", asked.as_str())
            .with("path", doc_path.display().to_string()),
            None => e,
        })?;
        return Ok((reg, false));
    }
    let legacy = Endpoints::standard("v1");
    let has_legacy = root.join(legacy.registry_index.trim_start_matches('/')).is_file();
    let tree = tree.unwrap_or(if has_legacy { Tree::V1 } else { Tree::V2 });
    Ok((Registry::from_document_tree(root, new_document(tree), Some(tree))?, true))
}

/// A key's public half to add to the registry, and the document that lists it.
struct NewKey {
    document: Value,
    /// The key file to write, unless the same key is there already.
    file: Option<(PathBuf, Vec<u8>)>,
}

/// Make sure the registry lists `key_id` for this key and pack, and that the key may sign
/// new versions. An id the registry does not list is added for the pack's two-segment
/// namespace — refused when another key or assignment holds any of it, unless
/// `share_namespace` (the registry's own keys are its authority over those names).
fn ensure_key(
    reg: &Registry,
    key: &SigningKey,
    key_id: &str,
    name: &str,
    share_namespace: bool,
    warnings: &mut Vec<Finding>,
) -> Result<Option<NewKey>> {
    let refuse = |reason: &str, msg: String| {
        Error::new(code::PACK_SIGNATURE_INVALID, msg)
            .with("reason", reason)
            .with("keyId", key_id)
            .with("packName", name)
    };
    if let Some(entry) = reg.key(key_id) {
        let listed =
            reg.public_key(entry).map_err(|m| refuse("unknown_key", format!("registry key \"{key_id}\": {m}")))?;
        if listed != key.verifying_key() {
            return Err(refuse(
                "unknown_key",
                format!("the registry's key \"{key_id}\" is not the public half of this private key"),
            ));
        }
        check_signer(entry, name)?;
        return Ok(None);
    }
    let namespace = namespace_of(name);
    let mut held: Vec<(String, String)> =
        reg.keys.iter().flat_map(|k| k.permitted_namespaces.iter().map(|ns| (k.key_id.clone(), ns.clone()))).collect();
    let assignments = reg.document.as_ref().and_then(|d| d.get("namespaceAssignments")).and_then(Value::as_array);
    for a in assignments.into_iter().flatten() {
        if let Some(ns) = a.get("namespace").and_then(Value::as_str) {
            let holder = a.get("signingKeyId").and_then(Value::as_str).unwrap_or("an assignment");
            held.push((holder.to_owned(), ns.to_owned()));
        }
    }
    if let Some((holder, ns)) = held.iter().find(|(_, ns)| namespaces_overlap(ns, &namespace)) {
        if !share_namespace {
            return Err(Error::new(
                code::PACK_NAMESPACE_UNAUTHORIZED,
                format!(
                    "{name}: the new key \"{key_id}\" would be granted {namespace}, but the registry's key \"{holder}\" \
                     holds {ns}; sign with that key, or pass --share-namespace to grant it to both"
                ),
            )
            .with("keyId", key_id)
            .with("packName", name)
            .with("namespace", namespace.as_str())
            .with("heldBy", holder.as_str())
            .with("heldNamespace", ns.as_str()));
        }
        warnings.push(
            Finding::warning(
                code::PACK_NAMESPACE_UNAUTHORIZED,
                "/signingKeys",
                format!("{namespace} is shared with key \"{holder}\" ({ns}) as --share-namespace asked"),
            )
            .with("keyId", key_id),
        );
    }
    let mut doc = reg.document.clone().unwrap_or_else(|| new_document(reg.tree));
    let url = reg.endpoints.public_key.replace("{keyId}", key_id);
    let key_file = reg.local(&url)?;
    let pem = keys::public_key_pem(&key.verifying_key()).into_bytes();
    let file = match std::fs::read(&key_file) {
        Ok(existing) if existing != pem => {
            return Err(refuse("unknown_key", format!("{} already holds another key", key_file.display())));
        }
        Ok(_) => None,
        Err(_) => Some((key_file, pem)),
    };
    let entry = json!({"keyId": key_id, "algorithm": "ed25519", "publicKeyUrl": url,
        "permittedNamespaces": [namespace], "status": "active"});
    match doc.get_mut("signingKeys").and_then(Value::as_array_mut) {
        Some(list) => list.push(entry),
        None => doc["signingKeys"] = json!([entry]),
    }
    warnings.push(
        Finding::warning(
            code::REGISTRY_KEY_ADDED,
            "/signingKeys",
            format!("registry key \"{key_id}\" added to signingKeys for {namespace}"),
        )
        .with("keyId", key_id),
    );
    Ok(Some(NewKey { document: doc, file }))
}

/// A listed key signs a new version only while it is active (the one status check `verify`
/// and `pack sign` use) and covers the name.
fn check_signer(entry: &KeyEntry, name: &str) -> Result<()> {
    let key_id = entry.key_id.as_str();
    crate::registry::keys::check_key_status(key_id, &entry.status, crate::registry::keys::KeyUse::Sign)
        .map_err(|e| e.with("packName", name))?;
    if !entry.covers(name) {
        return Err(Error::new(
            code::PACK_NAMESPACE_UNAUTHORIZED,
            format!(
                "registry key \"{key_id}\" may not sign {name}: its permitted namespaces are {:?}",
                entry.permitted_namespaces
            ),
        )
        .with("keyId", key_id)
        .with("packName", name)
        .with("permittedNamespaces", entry.permitted_namespaces.clone()));
    }
    Ok(())
}
/// Counts and ids an index row repeats from the manifest.
fn summary(pack: &Pack) -> Map<String, Value> {
    let m = &pack.manifest;
    let len = |k: &str| m.get(k).and_then(Value::as_array).map_or(0, Vec::len);
    let type_ids: Vec<Value> = match pack.kind {
        PackKind::WorkflowChain => pack.chains.iter().map(|c| json!(c.chain_id())).collect(),
        _ => pack.node_types().iter().filter_map(|n| n.get("typeId").cloned()).collect(),
    };
    let mut o = Map::new();
    o.insert("name".into(), json!(pack.name()));
    o.insert("kind".into(), m.get("kind").cloned().unwrap_or(json!("node")));
    o.insert("description".into(), json!(pack.description()));
    o.insert("license".into(), m.get("license").cloned().unwrap_or(Value::Null));
    o.insert("tags".into(), m.get("keywords").cloned().unwrap_or(json!([])));
    o.insert("typeIds".into(), Value::Array(type_ids));
    o.insert("nodeCount".into(), json!(len("nodes")));
    o.insert("agentCount".into(), json!(len("agents")));
    o
}

/// The highest unyanked stable version of index rows, else the highest unyanked one.
fn latest(rows: &[Value]) -> Option<String> {
    let versions: Vec<Version> = rows
        .iter()
        .filter(|r| !r.get("yanked").and_then(Value::as_bool).unwrap_or(false))
        .filter_map(|r| Version::parse(r.get("version")?.as_str()?).ok())
        .collect();
    let stable = versions.iter().filter(|v| v.pre.is_empty()).max();
    stable.or_else(|| versions.iter().max()).map(ToString::to_string)
}

fn sbom(pack: &Pack, tgz: &[u8], files: &BTreeMap<String, Vec<u8>>) -> Value {
    let purl = format!("pkg:openwop/{}@{}", pack.name(), pack.version());
    let mut component = json!({
        "bom-ref": purl, "type": "library", "name": pack.name(), "version": pack.version(),
        "description": pack.description(),
    });
    if let Some(license) = pack.manifest.get("license").and_then(Value::as_str) {
        component["licenses"] = json!([{"license": {"id": license}}]);
    }
    component["externalReferences"] = json!([]);
    component["hashes"] = json!([{"alg": "SHA-256", "content": sha256_hex(tgz)}]);
    component["purl"] = json!(purl);
    let components: Vec<Value> = files
        .iter()
        .map(|(name, data)| {
            json!({"type": "file", "name": name, "hashes": [{"alg": "SHA-256", "content": sha256_hex(data)}],
                "properties": [{"name": "openwop:size", "value": data.len().to_string()}]})
        })
        .collect();
    json!({
        "bomFormat": "CycloneDX", "specVersion": "1.6", "version": 1,
        "metadata": {"component": component,
            "tools": [{"vendor": "chainsmith", "name": "chainsmith", "version": env!("CARGO_PKG_VERSION")}]},
        "components": components,
        "dependencies": [{"ref": purl, "dependsOn": []}],
    })
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
        let result = publish_locked(&mut source, registry_dir, opts);
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
fn publish_locked(src: &mut Source, root: &Path, opts: &PublishOptions) -> Result<Published> {
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
        return Err(src.bad(format!("version \"{version}\" is not a semantic version")));
    }

    let new_key = match opts.signer {
        Some((key, id)) => ensure_key(&reg, key, id, &name, opts.share_namespace, &mut warnings)?,
        None => {
            if let Some(id) = signing_key_id(&pack.manifest) {
                let entry = reg.key(id).ok_or_else(|| {
                    Error::new(
                        code::PACK_SIGNATURE_INVALID,
                        format!("key \"{id}\" is not among the registry's signingKeys"),
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

    let staging = Staging::new(root)?;
    let result = staging.stage(writes).and_then(|targets| {
        // What was staged must verify as any reader would check it, before a byte of the
        // registry changes.
        let doc = document.clone().or_else(|| reg.document.clone()).unwrap_or_else(|| new_document(reg.tree));
        let staged = Registry::from_document_tree(&staging.dir, doc, Some(reg.tree))?;
        if signature.is_some() {
            staging.borrow_key(&reg, &staged, &signed_by)?;
        }
        verify(&staged, &name, &version)?;
        commit(root, &staging, &targets)
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
        warnings,
    })
}

/// The registry key a manifest's `signing` names (v2 `keyId`, v1 `publicKeyRef`).
fn signing_key_id(manifest: &Value) -> Option<&str> {
    let signing = manifest.get("signing")?;
    signing.get("keyId").or_else(|| signing.get("publicKeyRef")).and_then(Value::as_str)
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
        Error::new(code::PACK_VERSION_EXISTS, format!("{name}@{version} is already published; versions are immutable"))
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

/// The manifest bytes to publish and their signature: signed now with `signer` by the
/// tree's recipe (v2 `{keyId, scheme}`; v1 `{method: "manual", publicKeyRef: keyId,
/// signatureRef}`), or as the pack carries them when that is the tree's recipe under a
/// registry key id, or unsigned.
fn signed_bytes(
    src: &mut Source,
    manifest: &mut Value,
    signer: Option<(&SigningKey, &str)>,
    tree: Tree,
) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    let v2 = tree == Tree::V2;
    if let Some((key, key_id)) = signer {
        let (b, s) = if v2 {
            sign_manifest(manifest, key, Scheme::V2 { key_id })?
        } else {
            let obj = manifest.as_object_mut().ok_or_else(|| src.bad("a manifest is a JSON object".into()))?;
            obj.insert(
                "signing".into(),
                json!({"method": "manual", "publicKeyRef": key_id, "signatureRef": SIGNATURE_FILE}),
            );
            let bytes = jcs::canonical(manifest).map_err(|m| src.bad(m))?;
            let sig = key.sign(&bytes).to_bytes();
            (bytes, sig)
        };
        return Ok((b, Some(s.to_vec())));
    }
    let Some(signing) = manifest.get("signing") else {
        return Ok((jcs::canonical(manifest).map_err(|m| src.bad(m))?, None));
    };
    let carries_v2 = signing.get("keyId").is_some() || signing.get("scheme").is_some();
    // The v1 registry recipe names a key id in `publicKeyRef`; `pack sign` without
    // --key-id names a key file inside the pack, which no registry lists.
    let carries_v1 = signing.get("method").and_then(Value::as_str) == Some("manual")
        && signing.get("publicKeyRef").and_then(Value::as_str).is_some_and(|r| !r.contains('/'));
    if carries_v2 != v2 && (carries_v2 || carries_v1) {
        let (has, wants) = if carries_v2 { ("v2", "v1") } else { ("v1", "v2") };
        return Err(Error::new(
            code::REGISTRY_TREE_MISMATCH,
            format!(
                "{} is signed with the {has} recipe, but the registry's tree is {wants}; publish with --key and \
                 --key-id to sign it for this tree",
                src.manifest_file.display()
            ),
        )
        .with("path", src.manifest_file.display().to_string())
        .with("tree", wants));
    }
    if !carries_v2 && !carries_v1 {
        return Err(Error::new(
            code::INVALID_REQUEST,
            "this pack carries a v1 signature whose key a registry does not list; publish with --key and --key-id to sign it for the registry",
        ));
    }
    if carries_v2 && !jcs::is_canonical(&src.original) {
        return Err(
            src.bad("a v2-signed pack.json must be in canonical form; sign it again with `pack sign --key-id`".into())
        );
    }
    let sig_path = src.pack_dir.join(SIGNATURE_FILE);
    let sig = crate::fsio::read_limited(&sig_path, 4096, code::SIGNATURE_NOT_AVAILABLE)
        .map_err(|e| Error::new(code::SIGNATURE_NOT_AVAILABLE, format!("{}: {}", sig_path.display(), e.message)))?;
    Ok((std::mem::take(&mut src.original), Some(sig)))
}

/// The registry folder's advisory lock (`LOCK_FILE` in its root, `flock` on unix): held
/// for the whole read-modify-write of a publish, so parallel publishes into one folder
/// queue instead of losing each other's index rows. The holder removes the file when it
/// is done, so no trace is left; a waiter that then gets the lock on the removed file
/// sees that the path no longer names it and tries again.
struct RegistryLock {
    file: std::fs::File,
    path: PathBuf,
}

impl RegistryLock {
    fn acquire(root: &Path) -> Result<Self> {
        let path = root.join(LOCK_FILE);
        loop {
            std::fs::create_dir_all(root).map_err(|e| Error::io(root, &e))?;
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| Error::io(&path, &e))?;
            file.lock().map_err(|e| Error::io(&path, &e))?;
            if Self::still_named(&file, &path) {
                return Ok(Self { file, path });
            }
        }
    }

    #[cfg(unix)]
    fn still_named(file: &std::fs::File, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::symlink_metadata(path)) {
            (Ok(held), Ok(named)) => held.dev() == named.dev() && held.ino() == named.ino(),
            _ => false,
        }
    }

    /// Elsewhere an open file cannot be removed, so the path always names it.
    #[cfg(not(unix))]
    fn still_named(_: &std::fs::File, _: &Path) -> bool {
        true
    }

    fn release(self) {
        let _ = std::fs::remove_file(&self.path);
        drop(self.file);
    }
}

/// Staging folders left by a publish that crashed; none can be in use while the lock is held.
fn remove_stale_staging(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(STAGING_PREFIX) && e.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// A hidden folder in the registry root (so renames out of it stay on one file system)
/// holding the new files at their registry-relative paths, and the old files' backups.
struct Staging {
    dir: PathBuf,
    root: PathBuf,
}

impl Staging {
    fn new(root: &Path) -> Result<Self> {
        let dir = root.join(format!("{STAGING_PREFIX}{}-{:08x}", std::process::id(), rand::random::<u32>()));
        std::fs::create_dir(&dir).map_err(|e| Error::io(&dir, &e))?;
        Ok(Self { dir, root: root.to_path_buf() })
    }

    /// Where a registry file is staged.
    fn path(&self, target: &Path) -> PathBuf {
        self.dir.join(target.strip_prefix(&self.root).unwrap_or(target))
    }

    /// Write each file's bytes under the staging folder, dropping them once written (the
    /// staged copy is what is verified); returns the targets in order, for [`commit`].
    fn stage(&self, writes: Vec<(PathBuf, Vec<u8>)>) -> Result<Vec<PathBuf>> {
        let mut targets = Vec::with_capacity(writes.len());
        for (target, bytes) in writes {
            write_synced(&self.path(&target), &bytes)?;
            targets.push(target);
        }
        Ok(targets)
    }

    /// A listed key's file, copied beside the staged files so the staged version verifies
    /// against it (it is not moved into the registry).
    fn borrow_key(&self, reg: &Registry, staged: &Registry, key_id: &str) -> Result<()> {
        let (Some(entry), Some(staged_entry)) = (reg.key(key_id), staged.key(key_id)) else { return Ok(()) };
        let to = staged.public_key_path(staged_entry)?;
        if to.exists() {
            return Ok(());
        }
        let from = reg.public_key_path(entry)?;
        let bytes = crate::fsio::read_limited(&from, 64 * 1024, code::INVALID_REQUEST)?;
        write_synced(&to, &bytes)
    }

    fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, &e))?;
    }
    let mut f = std::fs::File::create(path).map_err(|e| Error::io(path, &e))?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(|e| Error::io(path, &e))
}

/// Rename the staged files into place in `targets` order. A file replaced is kept first as a
/// hard link in the staging folder; on any failure every rename done is undone (old files
/// back, new ones and new folders removed), so the folder is as it was. Each rename is
/// atomic and its folder synced before the next, so a crash leaves the old state or the
/// new one for every reader: nothing finds the version before its manifest is in place,
/// nothing resolves it before the pack index lists it, and a retry of the same publish
/// finishes one interrupted after its manifest ([`check_new_version`]).
fn commit(root: &Path, staging: &Staging, targets: &[PathBuf]) -> Result<()> {
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    let mut done: Vec<(&Path, Option<PathBuf>)> = Vec::new();
    for (i, target) in targets.iter().enumerate() {
        match move_into_place(root, staging, i, target, &mut created_dirs) {
            Ok(backup) => done.push((target, backup)),
            Err(e) => {
                for (target, backup) in done.iter().rev() {
                    match backup {
                        Some(b) => drop(std::fs::rename(b, target)),
                        None => drop(std::fs::remove_file(target)),
                    }
                }
                for d in created_dirs.iter().rev() {
                    let _ = std::fs::remove_dir(d);
                }
                return Err(e);
            }
        }
    }
    Ok(())
}

/// One step of [`commit`]: returns the backup of the file replaced, if one was there.
fn move_into_place(
    root: &Path,
    staging: &Staging,
    step: usize,
    target: &Path,
    created_dirs: &mut Vec<PathBuf>,
) -> Result<Option<PathBuf>> {
    let parent = target.parent().unwrap_or(root);
    let missing: Vec<PathBuf> =
        parent.ancestors().take_while(|a| a.starts_with(root) && !a.exists()).map(Path::to_path_buf).collect();
    let made = std::fs::create_dir_all(parent);
    // Folders made before a failure part way are removed with the rest.
    created_dirs.extend(missing.into_iter().rev().filter(|d| d.is_dir()));
    made.map_err(|e| Error::io(parent, &e))?;
    let backup = match std::fs::symlink_metadata(target) {
        Ok(_) => {
            let b = staging.dir.join(format!(".old-{step}"));
            std::fs::hard_link(target, &b).map_err(|e| Error::io(target, &e))?;
            Some(b)
        }
        Err(_) => None,
    };
    if let Err(e) = std::fs::rename(staging.path(target), target) {
        if let Some(b) = &backup {
            let _ = std::fs::remove_file(b);
        }
        return Err(Error::io(target, &e));
    }
    if let Ok(d) = std::fs::File::open(parent) {
        let _ = d.sync_all();
    }
    Ok(backup)
}

/// A tarball's contents: file bytes by path.
type Files = BTreeMap<String, Vec<u8>>;

/// The tarball's files by path: the pack folder's files its kind may ship, `pack.json` as
/// published and its signature; and the paths left out.
fn tarball_files(
    pack_dir: &Path,
    pack: &Pack,
    bytes: Vec<u8>,
    signature: Option<&[u8]>,
) -> Result<(Files, Vec<String>)> {
    let mut files = Files::new();
    let mut skipped = Vec::new();
    for rel in list_files(pack_dir)? {
        if rel == "pack.json" || rel == SIGNATURE_FILE {
            continue;
        }
        if rel.ends_with('/') || !allowed(&pack.kind, &rel) {
            skipped.push(rel);
            continue;
        }
        let data = crate::fsio::read_limited(&pack_dir.join(&rel), MAX_MANIFEST_BYTES, code::INVALID_REQUEST)?;
        files.insert(rel, data);
    }
    files.insert("pack.json".into(), bytes);
    if let Some(sig) = signature {
        files.insert(SIGNATURE_FILE.into(), sig.to_vec());
    }
    Ok((files, skipped))
}

/// The pack's index with this version added (versions in semver order, the summary the
/// newest one's), and whether this version is the newest. Rows are the tree's: v2 names
/// the `signingScheme` and `versionDeprecated`, v1 the `signingMethod` and `deprecated`.
/// A row the index already has (an interrupted publish being finished) is kept.
fn pack_index(reg: &Registry, pack: &Pack, index: Value, integrity: &str, now: &str) -> (Value, bool) {
    let (name, version) = (pack.name(), pack.version());
    let mut rows: Vec<Value> = index.get("versions").and_then(Value::as_array).cloned().unwrap_or_default();
    if !rows.iter().any(|r| r.get("version").and_then(Value::as_str) == Some(version)) {
        let url = |template: &str| json!(reg.url(template, name, version));
        let mut row = Map::new();
        row.insert("version".into(), json!(version));
        row.insert("publishedAt".into(), json!(now));
        row.insert("manifestUrl".into(), url(&reg.endpoints.version_manifest));
        row.insert("tarballUrl".into(), url(&reg.endpoints.version_tarball));
        let key_id = signing_key_id(&pack.manifest);
        if key_id.is_some() {
            row.insert("signatureUrl".into(), url(&reg.endpoints.version_signature));
        }
        let v2 = reg.tree == Tree::V2;
        if v2 {
            row.insert("sbomUrl".into(), url(&reg.sbom_template()));
        }
        if let Some(id) = key_id {
            let (field, recipe) = if v2 { ("signingScheme", V2_SCHEME) } else { ("signingMethod", "manual") };
            row.insert(field.into(), json!(recipe));
            row.insert("signingKeyId".into(), json!(id));
        }
        row.insert("integrity".into(), json!(integrity));
        row.insert((if v2 { "versionDeprecated" } else { "deprecated" }).into(), json!(false));
        row.insert("yanked".into(), json!(false));
        rows.push(Value::Object(row));
    }
    rows.sort_by(|a, b| {
        let v = |r: &Value| r.get("version").and_then(Value::as_str).and_then(|s| Version::parse(s).ok());
        v(a).cmp(&v(b))
    });
    let latest_version = latest(&rows).unwrap_or_else(|| version.to_owned());
    let newest_is_this = latest_version == version;
    let mut top = index.as_object().cloned().unwrap_or_default();
    if newest_is_this || top.is_empty() {
        top.extend(summary(pack));
        top.insert("chainCount".into(), json!(pack.chains.len()));
    }
    top.insert("latest".into(), json!(latest_version));
    top.entry("deprecated").or_insert(json!(false));
    top.insert("versions".into(), Value::Array(rows));
    (Value::Object(top), newest_is_this)
}

/// The registry's index with the pack's row added or replaced (its summary taken from this
/// version when it is the newest), packs in name order.
fn registry_index(pack: &Pack, index: Value, latest_version: &str, newest_is_this: bool, now: &str) -> Value {
    let name = pack.name();
    let mut packs: Vec<Value> = index.get("packs").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut row = summary(pack);
    if !newest_is_this
        && let Some(existing) = packs.iter().find(|p| p.get("name").and_then(Value::as_str) == Some(name))
    {
        row = existing.as_object().cloned().unwrap_or(row);
    }
    row.insert("latestVersion".into(), json!(latest_version));
    row.entry("deprecated").or_insert(json!(false));
    row.entry("yanked").or_insert(json!(false));
    packs.retain(|p| p.get("name").and_then(Value::as_str) != Some(name));
    packs.push(Value::Object(row));
    packs.sort_by(|a, b| a.get("name").and_then(Value::as_str).cmp(&b.get("name").and_then(Value::as_str)));
    let registry_version = index.get("registryVersion").cloned().unwrap_or(json!("1.0.0"));
    json!({"registryVersion": registry_version, "generatedAt": now, "packCount": packs.len(), "packs": packs})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc_and_namespaces_two_segments() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(namespace_of("community.example.tiles"), "community.example.*");
        assert_eq!(namespace_of("solo"), "solo");
    }

    #[test]
    fn tarball_allow_list() {
        let chain = PackKind::WorkflowChain;
        assert!(allowed(&chain, "README.md") && allowed(&chain, "keys/pack.json.sig"));
        assert!(!allowed(&chain, "index.mjs") && !allowed(&chain, "keys/pack.pub.pem"));
        let node = PackKind::Node;
        assert!(
            allowed(&node, "schemas/a.config.json") && allowed(&node, "prompts/p.md") && allowed(&node, "keys/k.pem")
        );
        assert!(!allowed(&node, "schemas/x/y.json") && !allowed(&node, "notes.txt"));
    }
}

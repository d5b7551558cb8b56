//! `chainsmith pack publish`: write one pack version into a registry folder so that the
//! folder is what an OpenWOP registry serves (interop §2.2–2.3): the deterministic
//! tarball, the version manifest with its integrity, the raw signature, the CycloneDX
//! SBOM, and the pack and registry indexes. A folder without a discovery document gets
//! one (v2 tree). Versions are immutable: publishing an existing version is refused.
//! The result is verified exactly as `chainsmith verify` would before it is reported.

use super::layout::{DISCOVERY_PATH, Endpoints, Registry, read_json};
use super::sign::{SIGNATURE_FILE, Scheme, V2_SCHEME, manifest_path, sign_manifest};
use super::tarball::{self, PackArchive};
use super::verify::{sha256_hex, sri, verify};
use super::{jcs, keys};
use crate::error::{Error, Finding, Result, code};
use crate::pack::{LoadOptions, MAX_MANIFEST_BYTES, Pack, PackKind, load_bytes};
use ed25519_dalek::SigningKey;
use semver::Version;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
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

/// The discovery document a new registry folder gets.
fn new_document() -> Value {
    let v1 = Endpoints::standard("v1");
    let v2 = Endpoints::standard("v2");
    json!({
        "registryVersion": "1.0.0",
        "protocolVersion": "2.0",
        "name": "chainsmith local registry",
        "supportedSigningMethods": [V2_SCHEME],
        "endpoints": {
            "publicKey": v1.public_key,
            "registryIndex": v1.registry_index,
            "packMetadata": v1.pack_metadata,
            "versionManifest": v1.version_manifest,
            "versionTarball": v1.version_tarball,
            "versionSignature": v1.version_signature,
            "v2": {
                "registryIndex": v2.registry_index,
                "packMetadata": v2.pack_metadata,
                "versionManifest": v2.version_manifest,
                "versionTarball": v2.version_tarball,
                "versionSignature": v2.version_signature,
            },
        },
        "writeApi": {"supported": false},
        "lifecycle": {"yankSupported": true, "deprecateSupported": true, "keyRotationSupported": true},
        "signingKeys": [],
        "namespaceAssignments": [],
    })
}

/// Make sure the registry lists `key_id` for this key and pack; add it when the registry
/// does not know the id yet. Returns the (possibly updated) discovery document.
fn ensure_key(
    reg: &Registry,
    key: &SigningKey,
    key_id: &str,
    name: &str,
    warnings: &mut Vec<Finding>,
) -> Result<Option<Value>> {
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
        if !entry.covers(name) {
            return Err(refuse(
                "namespace",
                format!(
                    "registry key \"{key_id}\" may not sign {name}: its permitted namespaces are {:?}",
                    entry.permitted_namespaces
                ),
            ));
        }
        return Ok(None);
    }
    let mut doc = reg.document.clone().unwrap_or_else(new_document);
    let url = format!("/keys/{key_id}.pub");
    let key_file = reg.local(&url)?;
    let pem = keys::public_key_pem(&key.verifying_key());
    match std::fs::read(&key_file) {
        Ok(existing) if existing != pem.as_bytes() => {
            return Err(refuse("unknown_key", format!("{} already holds another key", key_file.display())));
        }
        Ok(_) => {}
        Err(_) => {
            if let Some(parent) = key_file.parent() {
                std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, &e))?;
            }
            crate::fsio::write_atomic(&key_file, pem.as_bytes())?;
        }
    }
    let namespace = namespace_of(name);
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
    Ok(Some(doc))
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

fn write_json(path: &Path, value: &Value) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, &e))?;
    }
    crate::fsio::write_atomic(path, &crate::fsio::to_pretty_json(value))
}

fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, &e))?;
    }
    crate::fsio::write_atomic(path, bytes)
}

/// Publish the pack at `dir` into the registry folder `registry_dir`, signing it (v2) when
/// a key and key id are given.
pub fn publish(dir: &Path, registry_dir: &Path, signer: Option<(&SigningKey, &str)>) -> Result<Published> {
    let manifest_file = manifest_path(dir);
    let pack_dir = manifest_file.parent().map(Path::to_path_buf).unwrap_or_default();
    let original = crate::fsio::read_limited(&manifest_file, MAX_MANIFEST_BYTES, code::PACK_MANIFEST_INVALID)?;
    let bad_manifest = |msg: String| {
        Error::new(code::PACK_MANIFEST_INVALID, format!("{}: {msg}", manifest_file.display()))
            .with("path", manifest_file.display().to_string())
    };
    let mut manifest = jcs::parse_strict(&original).map_err(bad_manifest)?;
    let mut warnings = Vec::new();
    let (bytes, signature) = signed_bytes(&pack_dir, &original, &mut manifest, signer, bad_manifest)?;
    let pack = load_bytes(&manifest_file, &bytes, LoadOptions::default())?;
    if let Some(first) = pack.errors().next() {
        let count = pack.errors().count();
        return Err(first.clone().into_error().with("errors", count));
    }
    let (name, version) = (pack.name().to_owned(), pack.version().to_owned());
    if Version::parse(&version).is_err() {
        return Err(bad_manifest(format!("version \"{version}\" is not a semantic version")));
    }

    let (reg, new_doc) = registry_for(registry_dir, &pack, signer, &mut warnings)?;
    let version_manifest_path = reg.version_manifest_path(&name, &version)?;
    let tarball_path = reg.tarball_path(&name, &version)?;
    if version_manifest_path.exists() || tarball_path.exists() {
        return Err(Error::new(
            code::PACK_VERSION_EXISTS,
            format!("{name}@{version} is already published; versions are immutable"),
        )
        .with("packName", name.as_str())
        .with("version", version.as_str()));
    }

    let (files, skipped) = tarball_files(&pack_dir, &pack, &bytes, signature.as_deref())?;
    let tgz = tarball::build(&files)?;
    debug_assert_eq!(PackArchive::from_tgz(&tgz).map(|a| a.files).ok().as_ref(), Some(&files));
    let integrity = sri(&tgz);
    // Version manifest: the manifest as published, plus its integrity.
    let mut version_manifest = Value::clone(&pack.manifest);
    version_manifest["integrity"] = json!(integrity);
    let now = timestamp();
    let pack_index_path = reg.pack_index_path(&name)?;
    let old_index = if pack_index_path.is_file() { read_json(&pack_index_path)? } else { json!({}) };
    let (index, newest_is_this) = pack_index(&reg, &pack, old_index, &integrity, signature.is_some(), &now);
    let registry_index_path = reg.registry_index_path()?;
    let old_reg_index = if registry_index_path.is_file() { read_json(&registry_index_path)? } else { json!({}) };
    let latest_version = index["latest"].as_str().unwrap_or(&version).to_owned();
    let reg_index = registry_index(&pack, old_reg_index, &latest_version, newest_is_this, &now);

    // Write: content first, indexes after, the discovery document last.
    write_bytes(&tarball_path, &tgz)?;
    if let Some(sig) = &signature {
        write_bytes(&reg.signature_path(&name, &version)?, sig)?;
    }
    write_json(&reg.sbom_path(&name, &version)?, &sbom(&pack, &tgz, &files))?;
    write_json(&version_manifest_path, &version_manifest)?;
    write_json(&pack_index_path, &index)?;
    write_json(&registry_index_path, &reg_index)?;
    if let Some(doc) = &new_doc {
        write_json(&registry_dir.join(DISCOVERY_PATH), doc)?;
    }

    // What was written must verify as any reader would check it.
    let verified = verify(&Registry::open(registry_dir)?, &name, &version)?;
    Ok(Published {
        name,
        version,
        tree: reg.tree.as_str(),
        integrity: verified.integrity,
        signed: signature.is_some(),
        tarball: tarball_path,
        manifest: version_manifest_path,
        files: files.into_keys().collect(),
        skipped,
        warnings,
    })
}

/// The manifest bytes to publish and their signature: signed now with `signer`, or as the
/// pack carries them (a v2 signature beside a canonical `pack.json`), or unsigned.
fn signed_bytes(
    pack_dir: &Path,
    original: &[u8],
    manifest: &mut Value,
    signer: Option<(&SigningKey, &str)>,
    bad_manifest: impl Fn(String) -> Error,
) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    if let Some((key, key_id)) = signer {
        let (b, s) = sign_manifest(manifest, key, Scheme::V2 { key_id })?;
        return Ok((b, Some(s.to_vec())));
    }
    match manifest.get("signing") {
        None => Ok((jcs::canonical(manifest).map_err(bad_manifest)?, None)),
        Some(s) if s.get("keyId").is_some() || s.get("scheme").is_some() => {
            if !jcs::is_canonical(original) {
                return Err(bad_manifest(
                    "a v2-signed pack.json must be in canonical form; sign it again with `pack sign --key-id`".into(),
                ));
            }
            let sig_path = pack_dir.join(SIGNATURE_FILE);
            let sig = crate::fsio::read_limited(&sig_path, 4096, code::SIGNATURE_NOT_AVAILABLE).map_err(|e| {
                Error::new(code::SIGNATURE_NOT_AVAILABLE, format!("{}: {}", sig_path.display(), e.message))
            })?;
            Ok((original.to_vec(), Some(sig)))
        }
        Some(_) => Err(Error::new(
            code::INVALID_REQUEST,
            "this pack carries a v1 signature whose key a registry does not list; publish with --key and --key-id to sign it for the registry",
        )),
    }
}

/// The registry folder, opened or laid out new, with the signing key it must list: the
/// signer's (added when missing) or the one the pack is signed with (which must be there
/// and cover the pack's name). Also the discovery document to write, when it changes.
fn registry_for(
    registry_dir: &Path,
    pack: &Pack,
    signer: Option<(&SigningKey, &str)>,
    warnings: &mut Vec<Finding>,
) -> Result<(Registry, Option<Value>)> {
    let name = pack.name();
    let exists = registry_dir.join(DISCOVERY_PATH).is_file();
    if !registry_dir.exists() {
        std::fs::create_dir_all(registry_dir).map_err(|e| Error::io(registry_dir, &e))?;
    }
    let mut reg =
        if exists { Registry::open(registry_dir)? } else { Registry::from_document(registry_dir, new_document())? };
    let key_id = pack.manifest.pointer("/signing/keyId").and_then(Value::as_str);
    let mut new_doc = if exists { None } else { Some(new_document()) };
    if let Some((key, id)) = signer {
        if let Some(doc) = ensure_key(&reg, key, id, name, warnings)? {
            new_doc = Some(doc);
        }
    } else if let Some(id) = key_id {
        let entry = reg.key(id).ok_or_else(|| {
            Error::new(code::PACK_SIGNATURE_INVALID, format!("key \"{id}\" is not among the registry's signingKeys"))
                .with("reason", "unknown_key")
                .with("keyId", id)
        })?;
        if !entry.covers(name) {
            return Err(Error::new(code::PACK_SIGNATURE_INVALID, format!("registry key \"{id}\" may not sign {name}"))
                .with("reason", "namespace")
                .with("keyId", id));
        }
    }
    if let Some(doc) = &new_doc {
        reg = Registry::from_document(registry_dir, doc.clone())?;
    }
    Ok((reg, new_doc))
}

/// A tarball's contents: file bytes by path.
type Files = BTreeMap<String, Vec<u8>>;

/// The tarball's files by path: the pack folder's files its kind may ship, `pack.json` as
/// published and its signature; and the paths left out.
fn tarball_files(pack_dir: &Path, pack: &Pack, bytes: &[u8], signature: Option<&[u8]>) -> Result<(Files, Vec<String>)> {
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
    files.insert("pack.json".into(), bytes.to_vec());
    if let Some(sig) = signature {
        files.insert(SIGNATURE_FILE.into(), sig.to_vec());
    }
    Ok((files, skipped))
}

/// The pack's index with this version added (versions in semver order, the summary the
/// newest one's), and whether this version is the newest.
fn pack_index(reg: &Registry, pack: &Pack, index: Value, integrity: &str, signed: bool, now: &str) -> (Value, bool) {
    let (name, version) = (pack.name(), pack.version());
    let mut rows: Vec<Value> = index.get("versions").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut row = json!({
        "version": version, "publishedAt": now,
        "manifestUrl": reg.url(&reg.endpoints.version_manifest, name, version),
        "tarballUrl": reg.url(&reg.endpoints.version_tarball, name, version),
    });
    if signed {
        row["signatureUrl"] = json!(reg.url(&reg.endpoints.version_signature, name, version));
    }
    row["sbomUrl"] = json!(reg.url(&reg.sbom_template(), name, version));
    if let Some(id) = pack.manifest.pointer("/signing/keyId") {
        row["signingScheme"] = json!(V2_SCHEME);
        row["signingKeyId"] = id.clone();
    }
    row["integrity"] = json!(integrity);
    row["versionDeprecated"] = json!(false);
    row["yanked"] = json!(false);
    rows.push(row);
    rows.sort_by(|a, b| {
        let v = |r: &Value| r.get("version").and_then(Value::as_str).and_then(|s| Version::parse(s).ok());
        v(a).cmp(&v(b))
    });
    let latest_version = latest(&rows).unwrap_or_else(|| version.to_owned());
    let newest_is_this = latest_version == version;
    let mut top = if newest_is_this { summary(pack) } else { index.as_object().cloned().unwrap_or_default() };
    top.insert("chainCount".into(), json!(pack.chains.len()));
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

//! A registry folder: a local mirror of an OpenWOP registry's HTTP tree (interop §2.1).
//!
//! `DIR/.well-known/openwop-registry.json` is the discovery document; every other path is
//! taken from its `endpoints` templates (`{name}`, `{version}`, `{keyId}`), relative to
//! `DIR`. The tree is chosen as the OpenWOP CLI chooses it: all five `v2` templates present
//! → v2; otherwise the flat (v1) templates; no document → the legacy `/v1/…` paths. Nothing
//! is ever fetched: a template or key URL that points at another host is refused.

use super::keys::{KeyStatus, parse_public_key};
use crate::error::{Error, Result, code};
use ed25519_dalek::VerifyingKey;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub const DISCOVERY_PATH: &str = ".well-known/openwop-registry.json";
/// The templates a tree must name (the CLI's `REQUIRED_ENDPOINTS`).
pub const TEMPLATE_KEYS: [&str; 5] =
    ["registryIndex", "packMetadata", "versionManifest", "versionTarball", "versionSignature"];
/// Registry JSON documents (indexes, version manifests) are far smaller than this.
const MAX_DOCUMENT_BYTES: u64 = 64 * 1024 * 1024;
/// A signature file is 64 bytes; a little room for the base64 some tools write.
pub const MAX_SIGNATURE_BYTES: u64 = 4096;
const MAX_KEY_BYTES: u64 = 64 * 1024;

/// Which of the registry's trees is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tree {
    V2,
    V1,
    /// No discovery document: the historical `/v1/…` layout.
    Legacy,
}

impl Tree {
    pub fn as_str(self) -> &'static str {
        match self {
            Tree::V2 => "v2",
            Tree::V1 | Tree::Legacy => "v1",
        }
    }
}

/// The path templates of the chosen tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    pub registry_index: String,
    pub pack_metadata: String,
    pub version_manifest: String,
    pub version_tarball: String,
    pub version_signature: String,
    pub public_key: String,
}

impl Endpoints {
    /// The templates every OpenWOP registry tree uses under `/<tree>/`.
    pub fn standard(tree: &str) -> Self {
        Self {
            registry_index: format!("/{tree}/index.json"),
            pack_metadata: format!("/{tree}/packs/{{name}}/index.json"),
            version_manifest: format!("/{tree}/packs/{{name}}/-/{{version}}.json"),
            version_tarball: format!("/{tree}/packs/{{name}}/-/{{version}}.tgz"),
            version_signature: format!("/{tree}/packs/{{name}}/-/{{version}}.sig"),
            public_key: "/keys/{keyId}.pub".into(),
        }
    }
}

/// One `signingKeys[]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyEntry {
    pub key_id: String,
    pub algorithm: String,
    pub public_key_url: Option<String>,
    pub permitted_namespaces: Vec<String>,
    /// `status` and `notAfter` as written; [`super::keys::check_key_status`] reads them.
    pub status: KeyStatus,
}

impl KeyEntry {
    /// Whether the key may sign packs named `name` (interop §1.2 rule 8).
    pub fn covers(&self, name: &str) -> bool {
        self.permitted_namespaces.iter().any(|ns| covers(ns, name))
    }
}

/// `vendor.acme.*` covers `vendor.acme.x` (not `vendor.acme`, not `vendor.acmex.y`); an
/// entry without `*` covers exactly that name.
pub fn covers(entry: &str, name: &str) -> bool {
    match entry.strip_suffix('*') {
        Some(prefix) if prefix.ends_with('.') => name.len() > prefix.len() && name.starts_with(prefix),
        Some(_) => false,
        None => entry == name,
    }
}

/// Whether two `permittedNamespaces` entries cover a name in common.
pub fn namespaces_overlap(a: &str, b: &str) -> bool {
    let prefix = |e: &str| e.strip_suffix('*').filter(|p| p.ends_with('.')).map(str::to_owned);
    match (prefix(a), prefix(b)) {
        (Some(p), Some(q)) => p.starts_with(&q) || q.starts_with(&p),
        (Some(_), None) => covers(a, b),
        (None, Some(_)) => covers(b, a),
        (None, None) => a == b && !a.ends_with('*'),
    }
}

/// An opened registry folder.
#[derive(Debug, Clone)]
pub struct Registry {
    pub root: PathBuf,
    /// The discovery document, when the folder has one.
    pub document: Option<Value>,
    pub tree: Tree,
    pub endpoints: Endpoints,
    pub keys: Vec<KeyEntry>,
}

impl Registry {
    /// Open a registry folder and read its discovery document.
    pub fn open(root: &Path) -> Result<Self> {
        if !root.is_dir() {
            return Err(Error::new(
                code::PACK_REGISTRY_UNREACHABLE,
                format!(
                    "registry folder {} does not exist (chainsmith reads registries from folders only)",
                    root.display()
                ),
            )
            .with("path", root.display().to_string()));
        }
        let doc_path = root.join(DISCOVERY_PATH);
        if !doc_path.exists() {
            return Ok(Self {
                root: root.to_path_buf(),
                document: None,
                tree: Tree::Legacy,
                endpoints: Endpoints::standard("v1"),
                keys: Vec::new(),
            });
        }
        let doc = read_json(&doc_path)?;
        Self::from_document(root, doc)
    }

    /// Whether `dir` is a registry folder: it has the discovery document.
    pub fn is_registry_folder(dir: &Path) -> bool {
        dir.join(DISCOVERY_PATH).is_file()
    }

    /// A registry described by `doc`, rooted at `root`.
    pub fn from_document(root: &Path, doc: Value) -> Result<Self> {
        Self::from_document_tree(root, doc, None)
    }

    /// A registry described by `doc`, read through `tree` when given (as the OpenWOP CLI's
    /// `--tree`). A tree asked for must be named whole by the document (all five
    /// templates), since a client reads nothing else; without one the CLI's choice is made
    /// and missing v1 templates fall back to the standard `/v1/…` paths.
    pub fn from_document_tree(root: &Path, doc: Value, tree: Option<Tree>) -> Result<Self> {
        let doc_path = root.join(DISCOVERY_PATH);
        let bad = |msg: String| {
            Error::new(code::PACK_REGISTRY_UNREACHABLE, format!("{}: {msg}", doc_path.display()))
                .with("path", doc_path.display().to_string())
        };
        let endpoints =
            doc.get("endpoints").and_then(Value::as_object).ok_or_else(|| bad("no `endpoints` object".into()))?;
        let text =
            |map: &serde_json::Map<String, Value>, k: &str| map.get(k).and_then(Value::as_str).map(str::to_owned);
        let public_key = text(endpoints, "publicKey").unwrap_or_else(|| "/keys/{keyId}.pub".into());
        let names_all = |m: &serde_json::Map<String, Value>| TEMPLATE_KEYS.iter().all(|k| text(m, k).is_some());
        let v2 = endpoints.get("v2").and_then(Value::as_object).filter(|m| names_all(m));
        // A nested `v1` map wins over the flat keys when present.
        let mut v1 = endpoints.clone();
        v1.remove("v2");
        if let Some(nested) = endpoints.get("v1").and_then(Value::as_object) {
            v1.extend(nested.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let (tree, map) = match (tree, v2) {
            (Some(Tree::V2) | None, Some(m)) => (Tree::V2, m),
            (Some(Tree::V2), None) => return Err(bad("the document names no whole v2 tree (`endpoints.v2`)".into())),
            (Some(_), _) if !names_all(&v1) => {
                return Err(bad("the document names no whole v1 tree (flat `endpoints` templates)".into()));
            }
            _ => (Tree::V1, &v1),
        };
        let defaults = Endpoints::standard("v1");
        let pick = |k: &str, default: &str| text(map, k).unwrap_or_else(|| default.to_owned());
        let chosen = Endpoints {
            registry_index: pick("registryIndex", &defaults.registry_index),
            pack_metadata: pick("packMetadata", &defaults.pack_metadata),
            version_manifest: pick("versionManifest", &defaults.version_manifest),
            version_tarball: pick("versionTarball", &defaults.version_tarball),
            version_signature: pick("versionSignature", &defaults.version_signature),
            public_key,
        };
        let keys = doc
            .get("signingKeys")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|k| {
                let s = |f: &str| k.get(f).and_then(Value::as_str).map(str::to_owned);
                Some(KeyEntry {
                    key_id: s("keyId")?,
                    algorithm: s("algorithm").unwrap_or_else(|| "ed25519".into()),
                    public_key_url: s("publicKeyUrl"),
                    permitted_namespaces: k
                        .get("permittedNamespaces")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect(),
                    status: KeyStatus { status: k.get("status").cloned(), not_after: k.get("notAfter").cloned() },
                })
            })
            .collect();
        Ok(Self { root: root.to_path_buf(), document: Some(doc), tree, endpoints: chosen, keys })
    }

    /// The file a template names for these values.
    pub fn path(&self, template: &str, name: &str, version: &str) -> Result<PathBuf> {
        for (what, value) in [("name", name), ("version", version)] {
            if template.contains(&format!("{{{what}}}")) {
                check_segment(what, value)?;
            }
        }
        let filled = template.replace("{name}", name).replace("{version}", version);
        self.local(&filled)
    }

    /// A registry URL (a path, or an absolute URL on this registry's own host) as a file
    /// under the root.
    pub fn local(&self, url: &str) -> Result<PathBuf> {
        let outside = || {
            Error::new(
                code::PACK_REGISTRY_UNREACHABLE,
                format!("\"{url}\" is not a path inside the registry folder; chainsmith never fetches"),
            )
            .with("url", url)
        };
        let path = if url.starts_with('/') {
            url.to_owned()
        } else {
            let base = self.document.as_ref().and_then(|d| d.get("url")).and_then(Value::as_str).unwrap_or_default();
            let base = base.trim_end_matches('/');
            match url.strip_prefix(base) {
                Some(rest) if !base.is_empty() && rest.starts_with('/') => rest.to_owned(),
                _ => return Err(outside()),
            }
        };
        let mut out = self.root.clone();
        for seg in path.split('/').filter(|s| !s.is_empty()) {
            if seg == "." || seg == ".." || seg.contains('\\') {
                return Err(outside());
            }
            out.push(seg);
        }
        Ok(out)
    }

    pub fn registry_index_path(&self) -> Result<PathBuf> {
        self.local(&self.endpoints.registry_index)
    }

    pub fn pack_index_path(&self, name: &str) -> Result<PathBuf> {
        self.path(&self.endpoints.pack_metadata, name, "")
    }

    pub fn version_manifest_path(&self, name: &str, version: &str) -> Result<PathBuf> {
        self.path(&self.endpoints.version_manifest, name, version)
    }

    pub fn tarball_path(&self, name: &str, version: &str) -> Result<PathBuf> {
        self.path(&self.endpoints.version_tarball, name, version)
    }

    pub fn signature_path(&self, name: &str, version: &str) -> Result<PathBuf> {
        self.path(&self.endpoints.version_signature, name, version)
    }

    /// `<version>.sbom.json` beside the version manifest (no endpoint names it).
    pub fn sbom_template(&self) -> String {
        let manifest = &self.endpoints.version_manifest;
        format!("{}.sbom.json", manifest.strip_suffix(".json").unwrap_or(manifest))
    }

    pub fn sbom_path(&self, name: &str, version: &str) -> Result<PathBuf> {
        self.path(&self.sbom_template(), name, version)
    }

    /// The URL text (as the indexes spell it) of a template for these values.
    pub fn url(&self, template: &str, name: &str, version: &str) -> String {
        template.replace("{name}", name).replace("{version}", version)
    }

    /// A pack's index (`packMetadata`).
    pub fn pack_index(&self, name: &str) -> Result<Value> {
        let path = self.pack_index_path(name)?;
        if !path.is_file() {
            return Err(Error::new(
                code::PACK_NOT_FOUND,
                format!("the registry has no pack {name} ({} is missing)", path.display()),
            )
            .with("packName", name)
            .with("path", path.display().to_string()));
        }
        read_json(&path)
    }

    /// A version manifest, as bytes and parsed.
    pub fn version_manifest(&self, name: &str, version: &str) -> Result<Value> {
        let path = self.version_manifest_path(name, version)?;
        if !path.is_file() {
            return Err(Error::new(
                code::PACK_VERSION_NOT_FOUND,
                format!("the registry has no {name}@{version} ({} is missing)", path.display()),
            )
            .with("packName", name)
            .with("version", version)
            .with("path", path.display().to_string()));
        }
        read_json(&path)
    }

    pub fn key(&self, key_id: &str) -> Option<&KeyEntry> {
        self.keys.iter().find(|k| k.key_id == key_id)
    }

    /// The key file of a `signingKeys[]` entry: its `publicKeyUrl`, else the `publicKey`
    /// template.
    pub fn public_key_path(&self, entry: &KeyEntry) -> Result<PathBuf> {
        match &entry.public_key_url {
            Some(url) => self.local(url),
            None => {
                check_segment("keyId", &entry.key_id)?;
                self.local(&self.endpoints.public_key.replace("{keyId}", &entry.key_id))
            }
        }
    }

    pub fn public_key(&self, entry: &KeyEntry) -> std::result::Result<VerifyingKey, String> {
        let path = self.public_key_path(entry).map_err(|e| e.message)?;
        let bytes = crate::fsio::read_limited(&path, MAX_KEY_BYTES, code::INVALID_REQUEST).map_err(|e| e.message)?;
        parse_public_key(&bytes).map_err(|msg| format!("{}: {msg}", path.display()))
    }
}

/// Template values are single path segments.
fn check_segment(what: &str, value: &str) -> Result<()> {
    let bad = value.is_empty()
        || value == "."
        || value == ".."
        || value.contains(['/', '\\', '\0', '{', '}'])
        || value.chars().any(char::is_control);
    if bad {
        return Err(Error::new(
            code::INVALID_REQUEST,
            format!("{what} \"{value}\" cannot name a registry path segment"),
        )
        .with(what, value));
    }
    Ok(())
}

/// Read a registry JSON document.
pub fn read_json(path: &Path) -> Result<Value> {
    let bytes = crate::fsio::read_limited(path, MAX_DOCUMENT_BYTES, code::INVALID_REQUEST)?;
    crate::fsio::parse_json(code::INVALID_REQUEST, path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn namespace_cover_rule() {
        assert!(covers("vendor.acme.*", "vendor.acme.x"));
        assert!(covers("vendor.acme.*", "vendor.acme.x.y"));
        assert!(!covers("vendor.acme.*", "vendor.acme"));
        assert!(!covers("vendor.acme.*", "vendor.acmex.y"));
        assert!(covers("community.openwop-team.demo", "community.openwop-team.demo"));
        assert!(!covers("community.openwop-team.demo", "community.openwop-team.demo.x"));
        assert!(!covers("vendor*", "vendorx"));
        assert!(namespaces_overlap("vendor.acme.*", "vendor.acme.x.*"));
        assert!(namespaces_overlap("vendor.acme.x.*", "vendor.acme.*"));
        assert!(namespaces_overlap("vendor.acme.*", "vendor.acme.tiles"));
        assert!(namespaces_overlap("vendor.acme.tiles", "vendor.acme.tiles"));
        assert!(!namespaces_overlap("vendor.acme.*", "vendor.acmex.*"));
        assert!(!namespaces_overlap("vendor.acme.*", "vendor.acme"));
        assert!(!namespaces_overlap("vendor*", "vendorx.*"));
    }

    fn registry(doc: Value) -> Registry {
        Registry::from_document(Path::new("/r"), doc).unwrap()
    }

    #[test]
    fn tree_choice_follows_the_cli() {
        let v2 = json!({"registryIndex": "/v2/index.json", "packMetadata": "/v2/packs/{name}/index.json",
            "versionManifest": "/v2/packs/{name}/-/{version}.json", "versionTarball": "/v2/packs/{name}/-/{version}.tgz",
            "versionSignature": "/v2/packs/{name}/-/{version}.sig"});
        let r = registry(json!({"endpoints": {"publicKey": "/k/{keyId}.pem", "v2": v2}}));
        assert_eq!(r.tree, Tree::V2);
        assert_eq!(r.tarball_path("a.b", "1.0.0").unwrap(), Path::new("/r/v2/packs/a.b/-/1.0.0.tgz"));
        assert_eq!(r.sbom_path("a.b", "1.0.0").unwrap(), Path::new("/r/v2/packs/a.b/-/1.0.0.sbom.json"));
        let mut partial = v2.clone();
        partial.as_object_mut().unwrap().remove("versionSignature");
        let r = registry(json!({"endpoints": {"versionTarball": "/flat/{name}/{version}.tgz", "v2": partial}}));
        assert_eq!(r.tree, Tree::V1);
        assert_eq!(r.tarball_path("a.b", "1.0.0").unwrap(), Path::new("/r/flat/a.b/1.0.0.tgz"));
        assert_eq!(r.pack_index_path("a.b").unwrap(), Path::new("/r/v1/packs/a.b/index.json"));
        // A tree asked for must be named whole; the v1 one from the flat keys.
        let v2_only = json!({"endpoints": {"v2": v2.clone()}});
        assert_eq!(
            Registry::from_document_tree(Path::new("/r"), v2_only.clone(), Some(Tree::V2)).unwrap().tree,
            Tree::V2
        );
        let err = Registry::from_document_tree(Path::new("/r"), v2_only, Some(Tree::V1)).unwrap_err();
        assert!(err.message.contains("no whole v1 tree"), "{}", err.message);
        let mut both = v2.clone();
        for (k, t) in v2.as_object().unwrap() {
            both[k] = json!(t.as_str().unwrap().replace("/v2/", "/v1/"));
        }
        both["v2"] = v2.clone();
        let r = Registry::from_document_tree(Path::new("/r"), json!({"endpoints": both}), Some(Tree::V1)).unwrap();
        assert_eq!((r.tree, r.registry_index_path().unwrap()), (Tree::V1, PathBuf::from("/r/v1/index.json")));
        let v1_only = json!({"endpoints": {"registryIndex": "/v1/index.json"}});
        assert!(Registry::from_document_tree(Path::new("/r"), v1_only.clone(), Some(Tree::V2)).is_err());
        assert!(Registry::from_document_tree(Path::new("/r"), v1_only, Some(Tree::V1)).is_err());
    }

    #[test]
    fn paths_never_leave_the_folder_or_reach_the_network() {
        let r = registry(json!({"url": "https://packs.example.test", "endpoints": {}, "signingKeys": [
            {"keyId": "k1", "publicKeyUrl": "https://packs.example.test/keys/k1.pub", "permittedNamespaces": ["a.*"]},
            {"keyId": "k2", "publicKeyUrl": "https://elsewhere.test/k2.pub"},
            {"keyId": "../k3"}]}));
        assert_eq!(r.public_key_path(&r.keys[0]).unwrap(), Path::new("/r/keys/k1.pub"));
        assert_eq!(r.public_key_path(&r.keys[1]).unwrap_err().code, code::PACK_REGISTRY_UNREACHABLE);
        assert!(r.public_key_path(&r.keys[2]).is_err());
        assert!(r.tarball_path("..", "1.0.0").is_err());
        assert!(r.tarball_path("a/b", "1.0.0").is_err());
        // A name cannot smuggle another template slot in.
        assert!(r.tarball_path("a{version}", "1.0.0").is_err());
        assert!(r.local("/v1/../../etc/passwd").is_err());
        assert!(r.keys[0].covers("a.b") && !r.keys[0].covers("b.a"));
    }

    #[test]
    fn missing_folder_and_document() {
        assert_eq!(
            Registry::open(Path::new("/definitely/not/here")).unwrap_err().code,
            code::PACK_REGISTRY_UNREACHABLE
        );
        let dir = tempfile::tempdir().unwrap();
        let r = Registry::open(dir.path()).unwrap();
        assert_eq!((r.tree, r.keys.len()), (Tree::Legacy, 0));
        std::fs::create_dir_all(dir.path().join(".well-known")).unwrap();
        std::fs::write(dir.path().join(DISCOVERY_PATH), "{}").unwrap();
        assert_eq!(Registry::open(dir.path()).unwrap_err().code, code::PACK_REGISTRY_UNREACHABLE);
    }
}

//! Pack manifests: the model, loading from files and folders, schema validation and the
//! semantic checks and token lints the schema cannot express.
//!
//! A manifest is kept as the JSON it was read from (member order and unknown fields
//! intact); typed accessors read it. A pack that fails validation still loads, carrying
//! its findings, so the editor can list it with its errors.

mod bundled;
pub(crate) mod checks;
mod lint;
mod load;
mod parse;
mod scan;
pub use scan::Sites;
pub mod v2;

pub use bundled::{bundled, bundled_dir};

pub use lint::{is_structured, substitutable_strings};
pub use load::{
    LoadOptions, LoadOutcome, MAX_FRAGMENT_NODES, MAX_MANIFEST_BYTES, json_kind, load_bytes, load_file, load_one,
    load_path, load_value,
};

use crate::error::{Finding, Severity};
use crate::schemas::UserSchema;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackKind {
    WorkflowChain,
    Node,
    /// `prompt`, `card`, … share `pack.json` but are not for a chain editor.
    Other(String),
}

impl PackKind {
    pub fn as_str(&self) -> &str {
        match self {
            PackKind::WorkflowChain => "workflow-chain",
            PackKind::Node => "node",
            PackKind::Other(k) => k,
        }
    }
}

/// A loaded `pack.json`.
#[derive(Debug, Clone)]
pub struct Pack {
    /// Where the manifest came from (a file path, or a label for in-memory input).
    pub source: PathBuf,
    /// The manifest as read. Its `chains` entries are read in place by [`Pack::chains`]
    /// (shared, not copied: a copy was a seventh of loading a large pack).
    pub manifest: Arc<Value>,
    pub kind: PackKind,
    pub chains: Vec<Chain>,
    pub findings: Vec<Finding>,
    /// `chains` by chainId (the first chain with each id), made on the first lookup.
    pub(crate) chain_index: OnceLock<HashMap<String, usize>>,
    /// For a signed manifest read from bytes: what a signature check needs to know that
    /// the file still holds what was loaded, without parsing it again.
    pub(crate) loaded_from: Option<LoadedFrom>,
}

/// The bytes a signed manifest was parsed from, as their SHA-256, and the manifest value
/// parsed from them. Changing a pack's manifest (`Arc::make_mut`) moves it, so a pointer
/// still equal to `manifest`'s says the value is the one parsed from those bytes.
#[derive(Debug, Clone)]
pub(crate) struct LoadedFrom {
    pub(crate) sha256: [u8; 32],
    pub(crate) manifest: std::sync::Weak<Value>,
}

impl Pack {
    /// True when `bytes`, read again from the pack's source, parse to its manifest: at once
    /// when they are the very bytes it was parsed from.
    pub(crate) fn manifest_is(&self, bytes: &[u8]) -> bool {
        use sha2::{Digest, Sha256};
        let same_bytes = self.loaded_from.as_ref().is_some_and(|loaded| {
            std::ptr::eq(loaded.manifest.as_ptr(), Arc::as_ptr(&self.manifest))
                && Sha256::digest(bytes)[..] == loaded.sha256
        });
        same_bytes || crate::fsio::json::from_slice(bytes).ok().as_ref() == Some(&*self.manifest)
    }
}

impl Pack {
    pub fn name(&self) -> &str {
        str_at(&self.manifest, "name")
    }

    pub fn version(&self) -> &str {
        str_at(&self.manifest, "version")
    }

    pub fn description(&self) -> &str {
        str_at(&self.manifest, "description")
    }

    /// The first chain with this chainId.
    pub fn chain(&self, chain_id: &str) -> Option<&Chain> {
        self.chain_position(chain_id).map(|at| &self.chains[at])
    }

    /// Where in [`Pack::chains`] the first chain with this chainId is: the one way a chain
    /// is found by id. Looked up by an index made once: co-expanding a chain with 8,000
    /// sub-chains looks chains up 16,000 times (a scan each took 15 s).
    pub fn chain_position(&self, chain_id: &str) -> Option<usize> {
        #[cfg(test)]
        lookups::record(chain_id);
        let index = self.chain_index.get_or_init(|| {
            let mut index = HashMap::with_capacity(self.chains.len());
            for (i, c) in self.chains.iter().enumerate() {
                index.entry(c.chain_id().to_owned()).or_insert(i);
            }
            index
        });
        match index.get(chain_id) {
            Some(&at) if self.chains.get(at).is_some_and(|c| c.chain_id() == chain_id) => Some(at),
            // `chains` is public: one changed since the index was made is found by a scan.
            _ => self.chains.iter().position(|c| c.chain_id() == chain_id),
        }
    }

    /// The folder holding `pack.json` (schema refs and signatures are relative to it).
    pub fn dir(&self) -> Option<&std::path::Path> {
        self.source.parent()
    }

    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.severity == Severity::Error)
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.severity == Severity::Warning)
    }

    pub fn is_valid(&self) -> bool {
        self.errors().next().is_none()
    }

    /// Findings about the whole pack or about the given chain.
    pub fn findings_for<'a>(&'a self, chain_id: &'a str) -> impl Iterator<Item = &'a Finding> + 'a {
        self.findings.iter().filter(move |f| f.chain_id.as_deref().is_none_or(|c| c == chain_id))
    }

    /// Chain `chain_id`'s `dag.nodes` and `dag.edges`, moved out of the manifest when this
    /// pack is its only holder (a copy of the pack shares it; then they are copied). For a
    /// caller that expands the chain and has no further use for the pack: moving saves a
    /// deep copy of every node, which was a third of a large expansion's run.
    /// The chain is the one at position `at` of [`Pack::chains`] ([`Pack::chain_position`]).
    pub fn into_dag(self, at: usize) -> Option<(Vec<Value>, Vec<Value>)> {
        let Pack { manifest, chains, .. } = self;
        drop(manifest);
        let chain = chains.into_iter().nth(at)?;
        if Arc::strong_count(&chain.doc) > 1 {
            return Some((chain.nodes().to_vec(), chain.edges().to_vec()));
        }
        let Chain { index, doc, in_manifest, .. } = chain;
        let mut doc = Arc::unwrap_or_clone(doc);
        let chain = if in_manifest { &mut doc["chains"][index] } else { &mut doc };
        let mut take = |key: &str| match chain.get_mut("dag").and_then(|d| d.get_mut(key)) {
            Some(Value::Array(items)) => std::mem::take(items),
            _ => Vec::new(),
        };
        Some((take("nodes"), take("edges")))
    }

    /// Node-pack `nodes[]` entries (empty for other kinds).
    pub fn node_types(&self) -> &[Value] {
        array_at(&self.manifest, "nodes")
    }

    /// `dependencies`: pack name → semver range.
    pub fn dependencies(&self) -> Vec<(&str, &str)> {
        self.manifest
            .get("dependencies")
            .and_then(Value::as_object)
            .map(|m| m.iter().filter_map(|(k, v)| Some((k.as_str(), v.as_str()?))).collect())
            .unwrap_or_default()
    }
}

/// One `chains[]` entry.
#[derive(Clone)]
pub struct Chain {
    /// Position in `chains[]`, for JSON pointers.
    pub index: usize,
    /// The pack manifest this chain is `chains[index]` of, or (for a chain made on its own)
    /// the chain object itself.
    doc: Arc<Value>,
    in_manifest: bool,
    params_validator: OnceLock<Result<Arc<UserSchema>, String>>,
    scan: OnceLock<scan::Scan>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain").field("index", &self.index).field("raw", self.raw()).finish()
    }
}

impl Chain {
    /// A chain on its own (an editor draft, an extracted chain); `index` is where it would
    /// sit in `chains[]`.
    pub fn new(index: usize, raw: Value) -> Self {
        Self::with_doc(index, Arc::new(raw), false)
    }

    /// `manifest.chains[index]`, read in place.
    fn in_manifest(index: usize, manifest: Arc<Value>) -> Self {
        Self::with_doc(index, manifest, true)
    }

    fn with_doc(index: usize, doc: Arc<Value>, in_manifest: bool) -> Self {
        Self { index, doc, in_manifest, params_validator: OnceLock::new(), scan: OnceLock::new() }
    }

    /// The chain object as written in the manifest.
    pub fn raw(&self) -> &Value {
        if self.in_manifest { &self.doc["chains"][self.index] } else { &self.doc }
    }

    pub fn pointer(&self) -> String {
        format!("/chains/{}", self.index)
    }

    pub fn chain_id(&self) -> &str {
        str_at(self.raw(), "chainId")
    }

    pub fn version(&self) -> &str {
        str_at(self.raw(), "version")
    }

    pub fn label(&self) -> &str {
        let label = str_at(self.raw(), "label");
        if label.is_empty() { self.chain_id() } else { label }
    }

    pub fn description(&self) -> &str {
        str_at(self.raw(), "description")
    }

    pub fn parameters(&self) -> &Value {
        static EMPTY: OnceLock<Value> = OnceLock::new();
        self.raw().get("parameters").unwrap_or_else(|| EMPTY.get_or_init(|| Value::Object(Map::new())))
    }

    /// Declared parameter properties (name → subschema).
    pub fn parameter_properties(&self) -> Option<&Map<String, Value>> {
        self.parameters().get("properties").and_then(Value::as_object)
    }

    pub fn nodes(&self) -> &[Value] {
        self.raw().get("dag").map(|d| array_at(d, "nodes")).unwrap_or_default()
    }

    pub fn edges(&self) -> &[Value] {
        self.raw().get("dag").map(|d| array_at(d, "edges")).unwrap_or_default()
    }

    pub fn capabilities(&self) -> Vec<&str> {
        array_at(self.raw(), "capabilities").iter().filter_map(Value::as_str).collect()
    }

    pub fn internal(&self) -> bool {
        self.raw().get("internal").and_then(Value::as_bool).unwrap_or(false)
    }

    /// RFC 0157 chain-level compensation policy.
    pub fn compensation(&self) -> Option<&Value> {
        self.raw().get("compensation")
    }

    pub fn sub_chains(&self) -> &[Value] {
        array_at(self.raw(), "subChains")
    }

    pub fn produced_variables(&self) -> &[Value] {
        array_at(self.raw(), "producedVariables")
    }

    pub fn outputs(&self) -> Option<&Map<String, Value>> {
        self.raw().get("outputs").and_then(Value::as_object)
    }

    /// Distinct typeIds used by nodes and node compensations, in first-use order.
    pub fn type_ids(&self) -> Vec<&str> {
        self.scan().type_ids.iter().map(String::as_str).collect()
    }

    /// The chain's parameter validator, compiled on first use and reused after.
    pub fn params_validator(&self) -> Result<&Arc<UserSchema>, &str> {
        self.params_validator
            .get_or_init(|| crate::schemas::compile(self.parameters()))
            .as_ref()
            .map_err(String::as_str)
    }

    /// How many tokens name each parameter across the substitutable strings (counted once).
    pub fn token_uses(&self) -> &HashMap<String, u64> {
        &self.scan().uses
    }

    /// Where substituting this chain's nodes has something to do.
    pub fn substitution_sites(&self) -> &Sites {
        &self.scan().sites
    }

    /// The one pass over the nodes' substitutable members ([`scan`]), made on first use.
    pub(crate) fn scan(&self) -> &scan::Scan {
        self.scan.get_or_init(|| scan::scan(self))
    }
}

pub(crate) fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

pub(crate) fn array_at<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

impl crate::params::ParameterSchema for Chain {
    fn chain_id(&self) -> &str {
        Chain::chain_id(self)
    }
    fn pointer(&self) -> String {
        Chain::pointer(self)
    }
    fn parameters(&self) -> &Value {
        Chain::parameters(self)
    }
    fn validator(&self) -> Result<&Arc<UserSchema>, &str> {
        self.params_validator()
    }
}

/// Test instrument: every chain id looked up on this thread, so a test can count how often
/// one request finds its chain.
#[cfg(test)]
pub(crate) mod lookups {
    use std::cell::RefCell;

    thread_local! {
        static SEEN: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    }

    pub(crate) fn record(chain_id: &str) {
        SEEN.with(|seen| seen.borrow_mut().push(chain_id.to_owned()));
    }

    /// The ids looked up since the last call, in order; the record starts empty again.
    pub(crate) fn take() -> Vec<String> {
        SEEN.with(|seen| std::mem::take(&mut *seen.borrow_mut()))
    }
}

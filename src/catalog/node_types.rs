//! The typeId catalog: node types published by loaded node packs, with their config,
//! input and output schemas (node-packs §3).
//!
//! Schema files are read when a pack is added (so a missing or broken file is reported
//! at once) and compiled on first use, each file once however many types reference it.
//! typeIds are looked up by exact id, never by pack name prefix (§1.3).

use super::port_types::{PortType, incompatibility, port_type};
use super::{TypeResolver, builtin, finding_from, is_core, path_inside, read_bounded};
use crate::error::{Error, Finding, Severity, code, pointer_join};
use crate::expand::Expansion;
use crate::pack::{Chain, LoadOptions, Pack, PackKind, load_path};
use crate::schemas::{UserSchema, Violation, compile};
use crate::workflow::Workflow;
use semver::Version;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Largest schema file read (the public registry caps tarball entries at 5 MB).
pub const MAX_SCHEMA_BYTES: u64 = 5 * 1024 * 1024;

/// One node type a catalogued pack publishes.
#[derive(Debug, Clone)]
pub struct NodeType {
    type_id: String,
    pack_name: String,
    pack_version: String,
    manifest: PathBuf,
    pointer: String,
    entry: Value,
    config: SchemaSlot,
    input: SchemaSlot,
    output: SchemaSlot,
    /// Derived from the schemas on first use: edge checks ask once per edge.
    ports: OnceLock<Ports>,
}

/// A schema file read from a pack, compiled on first use. Node types that reference the
/// same file share one (read, parsed and compiled once).
#[derive(Debug)]
struct SchemaFile {
    document: Value,
    compiled: OnceLock<Result<Arc<UserSchema>, String>>,
}

/// A node type's config, input or output schema, when it declares one that could be read.
#[derive(Debug, Default, Clone)]
struct SchemaSlot(Option<Arc<SchemaFile>>);

impl SchemaSlot {
    fn document(&self) -> Option<&Value> {
        self.0.as_ref().map(|f| &f.document)
    }

    fn validator(&self) -> Option<Result<&Arc<UserSchema>, &str>> {
        let file = self.0.as_ref()?;
        Some(file.compiled.get_or_init(|| compile(&file.document)).as_ref().map_err(String::as_str))
    }
}

impl NodeType {
    pub fn type_id(&self) -> &str {
        &self.type_id
    }

    pub fn pack_name(&self) -> &str {
        &self.pack_name
    }

    pub fn pack_version(&self) -> &str {
        &self.pack_version
    }

    /// The `pack.json` that declares this type.
    pub fn manifest_path(&self) -> &Path {
        &self.manifest
    }

    /// The `nodes[]` entry as declared.
    pub fn entry(&self) -> &Value {
        &self.entry
    }

    fn text(&self, key: &str) -> &str {
        self.entry.get(key).and_then(Value::as_str).unwrap_or_default()
    }

    pub fn version(&self) -> &str {
        self.text("version")
    }

    pub fn category(&self) -> &str {
        self.text("category")
    }

    pub fn role(&self) -> &str {
        self.text("role")
    }

    pub fn label(&self) -> &str {
        let label = self.text("label");
        if label.is_empty() { &self.type_id } else { label }
    }

    pub fn description(&self) -> &str {
        self.text("description")
    }

    pub fn capabilities(&self) -> Vec<&str> {
        self.entry
            .get("capabilities")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    }

    pub fn config_schema(&self) -> Option<&Value> {
        self.config.document()
    }

    pub fn input_schema(&self) -> Option<&Value> {
        self.input.document()
    }

    pub fn output_schema(&self) -> Option<&Value> {
        self.output.document()
    }
}

/// Named ports of a node type: top-level `properties` of its input and output schemas
/// (plus the manifest's `outputs` map). A side is *open* when its schema is unknown or
/// admits undeclared properties, so any port name is accepted there.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ports {
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub inputs_open: bool,
    pub outputs_open: bool,
    /// The names again, for constant-time lookups (a type may declare thousands).
    input_set: HashSet<String>,
    output_set: HashSet<String>,
}

impl Ports {
    fn new(inputs: Vec<String>, outputs: Vec<String>, inputs_open: bool, outputs_open: bool) -> Self {
        let input_set = inputs.iter().cloned().collect();
        let output_set = outputs.iter().cloned().collect();
        Self { inputs, outputs, inputs_open, outputs_open, input_set, output_set }
    }

    pub fn accepts_input(&self, port: &str) -> bool {
        self.inputs_open || self.input_set.contains(port)
    }

    pub fn accepts_output(&self, port: &str) -> bool {
        self.outputs_open || self.output_set.contains(port)
    }
}

/// A node pack the catalog holds (for the palette's Catalog section and dependency checks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogPack {
    pub name: String,
    pub version: String,
    pub manifest: PathBuf,
    pub type_ids: Vec<String>,
    /// Manifest errors the pack loaded with (its types are catalogued anyway).
    pub errors: usize,
}

/// Which typeIds of one chain do not resolve (empty: the chain fully resolves).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainResolution {
    pub chain_id: String,
    pub unresolved: Vec<String>,
}

impl ChainResolution {
    pub fn resolves(&self) -> bool {
        self.unresolved.is_empty()
    }
}

/// Read and parse one schema file.
fn read_schema_file(path: &Path) -> Result<Arc<SchemaFile>, String> {
    let bytes = read_bounded(path, MAX_SCHEMA_BYTES)?;
    let document: Value = crate::fsio::parse_json(code::INVALID_REQUEST, path, &bytes).map_err(|e| e.message)?;
    if document.is_object() || document.is_boolean() {
        Ok(Arc::new(SchemaFile { document, compiled: OnceLock::new() }))
    } else {
        Err(format!("{} is not a JSON Schema (an object or a boolean)", path.display()))
    }
}

/// The typeId catalog. Cloning shares the schema files (and what is compiled from them).
#[derive(Debug, Default, Clone)]
pub struct Catalog {
    types: BTreeMap<String, NodeType>,
    packs: Vec<CatalogPack>,
    findings: Vec<Finding>,
    /// Schema files read so far, by canonical path, so each is read and parsed once.
    schema_files: HashMap<PathBuf, Result<Arc<SchemaFile>, String>>,
}

impl TypeResolver for Catalog {
    /// A pinned typeId (`id@1.2.3`, interop §3.3) resolves when the bare id does and the
    /// catalogued node type has exactly that version.
    fn resolves(&self, type_id: &str) -> bool {
        let (bare, pin) = crate::pack::v2::split_pin(type_id);
        if is_core(bare) {
            return true;
        }
        match (self.types.get(bare), pin) {
            (Some(t), Some(v)) => t.version() == v,
            (found, _) => found.is_some(),
        }
    }
}

impl Catalog {
    pub fn new() -> Self {
        Self::default()
    }

    /// Load every node pack under the given files or folders (`--catalog DIR`, repeatable).
    /// Other pack kinds found there are skipped; unreadable manifests become findings.
    pub fn load<P: AsRef<Path>>(paths: &[P]) -> Self {
        let mut catalog = Self::new();
        for path in paths {
            catalog.add_path(path.as_ref());
        }
        catalog
    }

    /// Add the node packs under one file or folder.
    pub fn add_path(&mut self, path: &Path) {
        let outcome = load_path(path, LoadOptions::default());
        for err in outcome.failures {
            self.findings.push(finding_from(err, "", Severity::Warning));
        }
        for pack in &outcome.packs {
            self.add_pack(pack);
        }
    }

    /// Add one loaded pack; anything but a node pack is ignored.
    pub fn add_pack(&mut self, pack: &Pack) {
        // A node pack with a mistyped kind is refused here, so the chains that use its types
        // are not blamed for it.
        if let Some(refused) = super::mistyped_node_pack(pack) {
            self.findings.push(refused);
            return;
        }
        if pack.kind != PackKind::Node {
            return;
        }
        let source = pack.source.display().to_string();
        let errors = pack.errors().count();
        for f in pack.errors() {
            let mut f = f.clone().with("path", source.as_str()).with("packName", pack.name());
            // The pack's types stay usable for resolution; the errors are reported, not fatal.
            f.severity = Severity::Warning;
            self.findings.push(f);
        }
        let dir = pack.dir().unwrap_or(Path::new(""));
        let mut type_ids = Vec::new();
        for (i, entry) in pack.node_types().iter().enumerate() {
            let Some(type_id) = entry.get("typeId").and_then(Value::as_str).filter(|t| !t.is_empty()) else {
                continue;
            };
            let pointer = format!("/nodes/{i}");
            let mut slot = |key: &str| self.read_schema(pack, dir, entry, &pointer, key);
            let node = NodeType {
                type_id: type_id.to_owned(),
                pack_name: pack.name().to_owned(),
                pack_version: pack.version().to_owned(),
                manifest: pack.source.clone(),
                config: slot("configSchemaRef"),
                input: slot("inputSchemaRef"),
                output: slot("outputSchemaRef"),
                pointer,
                entry: entry.clone(),
                ports: OnceLock::new(),
            };
            type_ids.push(type_id.to_owned());
            self.insert(node);
        }
        self.packs.push(CatalogPack {
            name: pack.name().to_owned(),
            version: pack.version().to_owned(),
            manifest: pack.source.clone(),
            type_ids,
            errors,
        });
    }

    /// Add the node types of a saved OpenWOP app `node-catalog` response (interop §4.3:
    /// `{nodes: [{typeId, version, label, description, category, source, packName?,
    /// configSchema?, inputSchema?, outputSchema?, …}]}`): the host's own types, with their
    /// inline schemas, resolve and are checked like catalogued ones.
    pub fn add_node_catalog(&mut self, path: &Path) -> Result<usize, Error> {
        let bytes = crate::fsio::read_limited(path, crate::pack::MAX_MANIFEST_BYTES, code::INVALID_REQUEST)
            .map_err(Error::not_a_pack)?;
        let doc: Value = crate::fsio::parse_json(code::INVALID_REQUEST, path, &bytes)?;
        let Some(nodes) = doc.get("nodes").and_then(Value::as_array) else {
            return Err(Error::new(
                code::INVALID_REQUEST,
                format!("{} is not a node-catalog response: it has no `nodes` array", path.display()),
            )
            .with("path", path.display().to_string())
            .with("pointer", "/nodes"));
        };
        let mut added = 0;
        for (i, entry) in nodes.iter().enumerate() {
            let Some(type_id) = entry.get("typeId").and_then(Value::as_str).filter(|t| !t.is_empty()) else {
                continue;
            };
            let pointer = format!("/nodes/{i}");
            let slot = |key: &str| match entry.get(key) {
                Some(schema) if schema.is_object() || schema.is_boolean() => {
                    SchemaSlot(Some(Arc::new(SchemaFile { document: schema.clone(), compiled: OnceLock::new() })))
                }
                _ => SchemaSlot::default(),
            };
            let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            // The app's own types have no pack; they are named after the host.
            let pack_name =
                Some(text("packName")).filter(|n| !n.is_empty()).unwrap_or_else(|| "host:node-catalog".into());
            self.insert(NodeType {
                type_id: type_id.to_owned(),
                pack_name,
                pack_version: text("version"),
                manifest: path.to_path_buf(),
                config: slot("configSchema"),
                input: slot("inputSchema"),
                output: slot("outputSchema"),
                ports: OnceLock::new(),
                pointer,
                entry: entry.clone(),
            });
            added += 1;
        }
        Ok(added)
    }

    /// Keep one provider per typeId: the newest version of the same pack wins; a second
    /// pack publishing the same typeId is reported and the first one kept.
    fn insert(&mut self, node: NodeType) {
        let Some(existing) = self.types.get(&node.type_id) else {
            self.types.insert(node.type_id.clone(), node);
            return;
        };
        if existing.pack_name == node.pack_name {
            let newer = match (Version::parse(&node.pack_version), Version::parse(&existing.pack_version)) {
                (Ok(new), Ok(old)) => new > old,
                _ => false,
            };
            if newer {
                self.types.insert(node.type_id.clone(), node);
            }
            return;
        }
        self.findings.push(
            Finding::warning(
                code::TYPEID_DUPLICATE,
                node.pointer.as_str(),
                format!(
                    "typeId \"{}\" is published by both {}@{} and {}@{}; the catalog uses {}",
                    node.type_id,
                    existing.pack_name,
                    existing.pack_version,
                    node.pack_name,
                    node.pack_version,
                    existing.pack_name
                ),
            )
            .with("typeId", node.type_id.as_str())
            .with("path", node.manifest.display().to_string())
            .with("kept", existing.manifest.display().to_string()),
        );
    }

    fn read_schema(&mut self, pack: &Pack, dir: &Path, entry: &Value, node_ptr: &str, key: &str) -> SchemaSlot {
        let Some(reference) = entry.get(key).and_then(Value::as_str) else { return SchemaSlot::default() };
        let loaded = path_inside(dir, reference).and_then(|path| {
            let key = path.canonicalize().unwrap_or_else(|_| path.clone());
            self.schema_files.entry(key).or_insert_with(|| read_schema_file(&path)).clone()
        });
        match loaded {
            Ok(file) => SchemaSlot(Some(file)),
            Err(msg) => {
                let type_id = entry.get("typeId").and_then(Value::as_str).unwrap_or_default();
                self.findings.push(
                    Finding::warning(
                        code::NODE_SCHEMA_UNAVAILABLE,
                        pointer_join(node_ptr, key),
                        format!("{key} of {type_id} in {}: {msg}", pack.name()),
                    )
                    .with("typeId", type_id)
                    .with("packName", pack.name())
                    .with("reference", reference)
                    .with("path", pack.source.display().to_string()),
                );
                SchemaSlot::default()
            }
        }
    }

    /// Problems met while building the catalog (unreadable manifests, missing schema files,
    /// duplicate typeIds). None of them is fatal.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    pub fn packs(&self) -> &[CatalogPack] {
        &self.packs
    }

    /// Versions of a pack the catalog holds, newest first (unparseable versions skipped).
    pub fn pack_versions(&self, name: &str) -> Vec<Version> {
        let mut out: Vec<Version> =
            self.packs.iter().filter(|p| p.name == name).filter_map(|p| Version::parse(&p.version).ok()).collect();
        out.sort_unstable_by(|a, b| b.cmp(a));
        out.dedup();
        out
    }

    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// The node type of a typeId, pinned (`id@1.2.3`) or bare.
    pub fn node_type(&self, type_id: &str) -> Option<&NodeType> {
        self.types.get(type_id).or_else(|| self.types.get(crate::pack::v2::split_pin(type_id).0))
    }

    /// All catalogued node types, by typeId.
    pub fn node_types(&self) -> impl Iterator<Item = &NodeType> {
        self.types.values()
    }

    /// Named ports, when the type is catalogued (worked out once per type).
    pub fn ports(&self, type_id: &str) -> Option<&Ports> {
        let node = self.node_type(type_id)?;
        Some(node.ports.get_or_init(|| {
            let (inputs, inputs_open) = schema_ports(node.input.document());
            let (mut outputs, outputs_open) = schema_ports(node.output.document());
            if let Some(declared) = node.entry.get("outputs").and_then(Value::as_object) {
                let mut seen: HashSet<&str> = outputs.iter().map(String::as_str).collect();
                let extra: Vec<String> = declared.keys().filter(|name| seen.insert(name.as_str())).cloned().collect();
                outputs.extend(extra);
            }
            Ports::new(inputs, outputs, inputs_open, outputs_open)
        }))
    }

    /// What one port of a type carries, from the property of that name in the type's input
    /// (`output == false`) or output schema; `Any` when the type, its schema or the port is
    /// not known.
    pub fn port_type(&self, type_id: &str, port: &str, output: bool) -> PortType {
        let Some(node) = self.node_type(type_id) else { return PortType::Any };
        let slot = if output { &node.output } else { &node.input };
        let Some(root) = slot.document() else { return PortType::Any };
        port_type(root, root.get("properties").and_then(|p| p.get(port)))
    }

    /// Refuse connecting `source_port` of a `source_type` node to `target_port` of a
    /// `target_type` node when the output's type does not fit the input's, by the rule of
    /// [`super::port_types`]: every type the output may produce must be accepted (integer
    /// into number is fine), and an untyped or unknown side fits anything.
    pub fn check_connection(
        &self,
        (source_type, source_port): (&str, &str),
        (target_type, target_port): (&str, &str),
    ) -> Result<(), Error> {
        let produced = self.port_type(source_type, source_port, true);
        let accepted = self.port_type(target_type, target_port, false);
        let Some(refused) = incompatibility(&produced, &accepted) else { return Ok(()) };
        let mut message =
            format!("output \"{source_port}\" gives {produced}, but input \"{target_port}\" takes {accepted}");
        if matches!(&produced, PortType::Only(all) if all.len() > refused.len()) {
            let names: Vec<&str> = refused.iter().map(|t| t.as_str()).collect();
            message.push_str(&format!(" ({} does not fit)", names.join(" or ")));
        }
        Err(Error::new(code::EDGE_PORT_INCOMPATIBLE, message)
            .with("sourceTypeId", source_type)
            .with("sourceOutput", source_port)
            .with("targetTypeId", target_type)
            .with("targetInput", target_port)
            .with("outputType", produced.to_string())
            .with("inputType", accepted.to_string()))
    }

    /// Whether the type declares the `side-effectful` capability or the `side-effect` role.
    pub fn is_side_effectful(&self, type_id: &str) -> bool {
        self.node_type(type_id)
            .is_some_and(|n| n.capabilities().contains(&"side-effectful") || n.role() == "side-effect")
    }

    /// Whether a config schema is known for the type (catalogued or bundled).
    pub fn has_config_schema(&self, type_id: &str) -> bool {
        self.node_type(type_id).is_some_and(|n| n.config.document().is_some())
            || builtin::config_schema(crate::pack::v2::split_pin(type_id).0).is_some()
    }

    /// Violations of `config` against the type's config schema (pointers relative to the
    /// config object). Empty when no schema is known. `subChainRef` is left out: it names
    /// a sibling chain and is replaced by the host when the child is registered (§8).
    pub fn check_config(&self, type_id: &str, config: &Value) -> Vec<Violation> {
        let stripped;
        let config = match config.as_object() {
            Some(m) if m.contains_key("subChainRef") => {
                let mut m = m.clone();
                m.remove("subChainRef");
                stripped = Value::Object(m);
                &stripped
            }
            _ => config,
        };
        let violations = match self.node_type(type_id).and_then(|n| n.config.validator()) {
            Some(Ok(validator)) => validator.violations(config),
            Some(Err(msg)) => {
                return vec![Violation {
                    pointer: String::new(),
                    keyword: "$schema".into(),
                    message: format!("the config schema of {type_id} cannot be used: {msg}"),
                }];
            }
            None => match builtin::config_schema(crate::pack::v2::split_pin(type_id).0) {
                Some(schema) => schema.violations(config),
                None => return Vec::new(),
            },
        };
        builtin::refine(type_id, config, violations)
    }

    /// Config violations per expanded node, and edges naming ports their node's type does
    /// not have. Pointers address the expansion output (`/nodes/<i>/config/...`,
    /// `/edges/<j>/from`); all findings are warnings (the CLI promotes them under `--strict`).
    pub fn check_expansion(&self, exp: &Expansion) -> Vec<Finding> {
        let mut out = Vec::new();
        let empty = Value::Object(Map::new());
        let mut type_of: HashMap<&str, &str> = HashMap::new();
        for (i, node) in exp.nodes.iter().enumerate() {
            let node_id = node.get("id").and_then(Value::as_str).unwrap_or_default();
            let Some(type_id) = node.get("typeId").and_then(Value::as_str) else { continue };
            type_of.insert(node_id, type_id);
            // A node without `config` is exported with `{}` (chain-packs §6.3), so check that.
            let config = node.get("config").unwrap_or(&empty);
            for v in self.check_config(type_id, config) {
                out.push(
                    Finding::warning(
                        code::NODE_CONFIG_INVALID,
                        format!("/nodes/{i}/config{}", v.pointer),
                        format!("{type_id} config: {}", v.message),
                    )
                    .in_chain(&exp.chain_id)
                    .with("typeId", type_id)
                    .with("nodeId", node_id)
                    .with("keyword", v.keyword),
                );
            }
        }
        for (j, edge) in exp.edges.iter().enumerate() {
            for key in ["from", "to"] {
                let Some((node_id, port)) = edge.get(key).and_then(Value::as_str).and_then(|s| s.split_once('.'))
                else {
                    continue;
                };
                let Some(&type_id) = type_of.get(node_id) else { continue };
                let Some(ports) = self.ports(type_id) else { continue };
                let (known, side) = if key == "from" {
                    (ports.accepts_output(port), &ports.outputs)
                } else {
                    (ports.accepts_input(port), &ports.inputs)
                };
                if !known {
                    let kind = if key == "from" { "output" } else { "input" };
                    out.push(
                        Finding::warning(
                            code::EDGE_PORT_UNKNOWN,
                            format!("/edges/{j}/{key}"),
                            format!("{type_id} has no {kind} port \"{port}\" (its ports: {})", side.join(", ")),
                        )
                        .in_chain(&exp.chain_id)
                        .with("typeId", type_id)
                        .with("nodeId", node_id)
                        .with("port", port)
                        .with("ports", side.clone()),
                    );
                }
            }
        }
        out
    }

    /// The same checks over a whole workflow, as the editor's problems bar shows them:
    /// node configs against their type's schema, edges naming a port (explicitly) that
    /// their node's type does not have, and edges whose output port's type does not fit
    /// their input port's ([`Catalog::check_connection`]). Pointers address the exported
    /// workflow.
    pub fn check_workflow(&self, wf: &Workflow) -> Vec<Finding> {
        let mut out = Vec::new();
        let empty = Value::Object(Map::new());
        for (i, ix) in wf.nodes_in_order().into_iter().enumerate() {
            let node = &wf.graph[ix];
            let config = node.member("config").unwrap_or_else(|| empty.clone());
            for v in self.check_config(node.type_id(), &config) {
                out.push(
                    Finding::warning(
                        code::NODE_CONFIG_INVALID,
                        format!("/nodes/{i}/config{}", v.pointer),
                        format!("{} config: {}", node.type_id(), v.message),
                    )
                    .with("typeId", node.type_id())
                    .with("nodeId", node.id())
                    .with("keyword", v.keyword),
                );
            }
        }
        for (j, ix) in wf.edges_in_order().into_iter().enumerate() {
            let edge = &wf.graph[ix];
            let (source, target) = wf.graph.edge_endpoints(ix).expect("a live edge has endpoints");
            let ends =
                ((wf.graph[source].type_id(), edge.source_port()), (wf.graph[target].type_id(), edge.target_port()));
            if let Err(e) = self.check_connection(ends.0, ends.1) {
                // Edges drawn elsewhere (another tool, a hand edit) are flagged; the editor refuses new ones.
                let mut f = Finding::warning(code::EDGE_PORT_INCOMPATIBLE, format!("/edges/{j}"), e.message)
                    .with("edgeId", edge.id())
                    .with("sourceNodeId", edge.source())
                    .with("targetNodeId", edge.target());
                f.details.extend(e.details);
                out.push(f);
            }
            for (key, port, node, outgoing) in [
                ("sourceOutput", edge.source_output(), source, true),
                ("targetInput", edge.target_input(), target, false),
            ] {
                let Some(port) = port else { continue };
                let type_id = wf.graph[node].type_id();
                let Some(ports) = self.ports(type_id) else { continue };
                let (known, side, kind) = if outgoing {
                    (ports.accepts_output(port), &ports.outputs, "output")
                } else {
                    (ports.accepts_input(port), &ports.inputs, "input")
                };
                if !known {
                    out.push(
                        Finding::warning(
                            code::EDGE_PORT_UNKNOWN,
                            format!("/edges/{j}/{key}"),
                            format!("{type_id} has no {kind} port \"{port}\" (its ports: {})", side.join(", ")),
                        )
                        .with("typeId", type_id)
                        .with("nodeId", wf.graph[node].id())
                        .with("edgeId", edge.id())
                        .with("port", port),
                    );
                }
            }
        }
        out
    }

    /// The distinct typeIds of a chain that do not resolve, in first-use order.
    pub fn unresolved<'c>(&self, chain: &'c Chain) -> Vec<&'c str> {
        chain.type_ids().into_iter().filter(|t| !self.resolves(t)).collect()
    }

    /// One `chain_unresolvable_typeid` error per distinct unresolved typeId of the chain,
    /// pointing at its first use in the manifest.
    pub fn unresolved_findings(&self, chain: &Chain) -> Vec<Finding> {
        // The chain's distinct typeIds come in first-use order from its scan; the nodes are
        // walked only when one is unresolved, to point at its first use.
        let unresolved: Vec<&str> = chain.type_ids().into_iter().filter(|t| !self.resolves(t)).collect();
        if unresolved.is_empty() {
            return Vec::new();
        }
        let wanted: HashSet<&str> = unresolved.iter().copied().collect();
        let mut first_use: HashMap<&str, (usize, &str)> = HashMap::new();
        for (j, node) in chain.nodes().iter().enumerate() {
            let uses =
                [("typeId", node.get("typeId")), ("compensation/nodeTypeId", node.pointer("/compensation/nodeTypeId"))];
            for (at, value) in uses {
                if let Some(type_id) = value.and_then(Value::as_str).filter(|t| wanted.contains(t)) {
                    first_use.entry(type_id).or_insert((j, at));
                }
            }
        }
        let mut out = Vec::with_capacity(unresolved.len());
        for type_id in unresolved {
            let Some(&(j, at)) = first_use.get(type_id) else { continue };
            let message = match (crate::pack::v2::split_pin(type_id), self.node_type(type_id)) {
                ((_, Some(pin)), Some(found)) => format!(
                    "typeId \"{type_id}\" pins version {pin}, but the catalogued type is version {}",
                    found.version()
                ),
                _ => format!("typeId \"{type_id}\" is not provided by any catalogued node pack"),
            };
            out.push(
                Finding::error(
                    code::CHAIN_UNRESOLVABLE_TYPEID,
                    format!("{}/dag/nodes/{j}/{at}", chain.pointer()),
                    message,
                )
                .in_chain(chain.chain_id())
                .with("typeId", type_id)
                .with("chainId", chain.chain_id()),
            );
        }
        out
    }

    /// For each chain of a chain pack: the typeIds that do not resolve (palette badges,
    /// `validate`).
    pub fn resolution(&self, pack: &Pack) -> Vec<ChainResolution> {
        pack.chains
            .iter()
            .map(|c| ChainResolution {
                chain_id: c.chain_id().to_owned(),
                unresolved: self.unresolved(c).into_iter().map(str::to_owned).collect(),
            })
            .collect()
    }
}

/// Port names of one schema side, and whether undeclared names are admitted.
fn schema_ports(schema: Option<&Value>) -> (Vec<String>, bool) {
    match schema {
        None | Some(Value::Bool(true)) => (Vec::new(), true),
        Some(Value::Object(s)) => {
            let names = s.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect());
            let closed = [s.get("additionalProperties"), s.get("unevaluatedProperties")]
                .iter()
                .any(|k| *k == Some(&Value::Bool(false)));
            (names.unwrap_or_default(), !closed)
        }
        Some(_) => (Vec::new(), false),
    }
}

#[cfg(test)]
mod tests;

//! A chain pack open for authoring, and its history. Every change is a [`PackCommand`]
//! that turns into the core's [`PackEdit`]s ([`crate::author::PackDraft`] returns the inverse
//! of each), so undo and redo replay exact inverses, as [`super::document`] does for the
//! workflow. The pack re-validates on every change, and [`PackDocument::pack`] is what the
//! palette shows, so a tile follows its chain as it is edited.

use crate::author::{
    ExtractRequest, Extracted, PackDraft, PackEdit, ParamSpec, Placement, Promotion, extract_into, promote,
};
use crate::author::{remove_param, set_param};
use crate::error::{Error, Result, code};
use crate::pack::Pack;
use crate::workflow::Workflow;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::history::{History, next_revision};

/// One user change to a pack.
#[derive(Debug, Clone, PartialEq)]
pub enum PackCommand {
    /// Set (or with `None` remove) a top-level member: name, version, description, …
    SetMember {
        key: String,
        value: Option<Value>,
    },
    /// Add a chain at the end of `chains`.
    AddChain(Value),
    RemoveChain(usize),
    MoveChain {
        from: usize,
        to: usize,
    },
    /// Set (or remove) one member of a chain: chainId, version, label, description, internal, …
    SetChainMember {
        chain: usize,
        key: String,
        value: Option<Value>,
    },
    /// Set parameter `old` (a new one when `None`) of a chain to `spec`; a rename renames
    /// its tokens.
    SetParam {
        chain: usize,
        old: Option<String>,
        spec: Box<ParamSpec>,
    },
    /// Remove a parameter; its tokens get its default back.
    RemoveParam {
        chain: usize,
        name: String,
    },
    /// Promote values inside a chain's nodes (fragment node ids) to a parameter.
    Promote {
        chain: usize,
        promotion: Promotion,
    },
}

/// A chain extracted from a workflow in this session: which workflow node became which
/// fragment node, so a value of that workflow node can still be promoted into the chain.
#[derive(Debug, Clone, PartialEq)]
pub struct Authored {
    pub chain_id: String,
    /// Workflow node id → fragment node id.
    pub ids: HashMap<String, String>,
}

pub struct PackDocument {
    draft: PackDraft,
    /// Each step's edits are applied last to first.
    history: History<Vec<PackEdit>>,
    revision: u64,
    /// The chain extracted last, while the workflow it came from is the one open.
    pub authored: Option<Authored>,
}

impl PackDocument {
    /// A pack opened for editing; it starts saved when it has a file.
    pub fn new(draft: PackDraft) -> Self {
        Self { history: History::new(draft.path().is_some()), draft, revision: next_revision(), authored: None }
    }

    pub fn draft(&self) -> &PackDraft {
        &self.draft
    }

    pub fn path(&self) -> Option<&Path> {
        self.draft.path()
    }

    /// Changes on every change, undo and redo included.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn is_dirty(&self) -> bool {
        self.history.is_dirty()
    }

    /// The pack as the palette and the insert form use it, known by `source`.
    pub fn pack(&self, source: &Path) -> Option<Pack> {
        let mut pack = self.draft.pack()?.clone();
        pack.source = source.to_path_buf();
        Some(pack)
    }

    pub fn can_undo(&self) -> bool {
        self.history.can_undo()
    }

    pub fn can_redo(&self) -> bool {
        self.history.can_redo()
    }

    pub fn undo_label(&self) -> Option<&str> {
        self.history.undo_label()
    }

    pub fn redo_label(&self) -> Option<&str> {
        self.history.redo_label()
    }

    /// Apply a command as one undo step; returns its label. A refused command changes nothing.
    pub fn apply(&mut self, command: PackCommand) -> Result<String> {
        let label = label_of(&command, &self.draft);
        let edits = self.edits(command)?;
        self.record(label.clone(), edits)?;
        Ok(label)
    }

    /// Extract a chain from `wf` into the pack (added, or replacing the chain with the same
    /// chainId) as one undo step. Returns the chain's position in the pack and whether it
    /// was added or replaced one.
    pub fn extract(&mut self, wf: &Workflow, request: &ExtractRequest) -> Result<(usize, Placement)> {
        let mut scratch = self.draft.clone();
        let Extracted { extraction, index, placement, undo } = extract_into(&mut scratch, wf, request)?;
        // The scratch draft is the pack after the change, validated as an edit validates:
        // it becomes the document's, and the edit that undoes it is the step's. Copying the
        // chain out and applying it again held it twice and validated the pack twice.
        self.draft = scratch;
        self.step_done(format!("Extract chain {}", request.chain.chain_id), vec![undo]);
        self.authored =
            Some(Authored { chain_id: request.chain.chain_id.clone(), ids: extraction.ids.into_iter().collect() });
        Ok((index, placement))
    }

    /// Declare `dependencies` from the catalog packs that provide the chains' typeIds, as
    /// one undo step; returns the typeIds no catalogued pack provides (as findings).
    pub fn set_dependencies(&mut self, catalog: &crate::catalog::Catalog) -> Result<Vec<crate::error::Finding>> {
        let mut scratch = self.draft.clone();
        let (_, unresolved) = scratch.set_dependencies(catalog)?;
        let value = scratch.manifest().get("dependencies").cloned();
        self.record(
            "Compute dependencies".to_owned(),
            vec![PackEdit::SetMember { key: "dependencies".into(), value }],
        )?;
        Ok(unresolved)
    }

    /// The pack was loaded again from its file: a document without unsaved edits follows
    /// the file (a fresh history); one with unsaved edits keeps them. Returns whether it followed.
    pub fn reloaded(&mut self, pack: &Pack) -> bool {
        if self.is_dirty() {
            return false;
        }
        match PackDraft::from_pack(pack, self.draft.path().map(Path::to_path_buf)) {
            Ok(draft) => {
                *self = PackDocument::new(draft);
                true
            }
            Err(_) => false,
        }
    }

    /// Apply `edits` in order as one step; on a refusal the ones applied are undone.
    fn record(&mut self, label: String, edits: Vec<PackEdit>) -> Result<()> {
        let mut inverse = Vec::with_capacity(edits.len());
        for edit in edits {
            match self.draft.apply(edit) {
                Ok(inv) => inverse.push(inv),
                Err(e) => {
                    for inv in inverse.into_iter().rev() {
                        self.draft.apply(inv).expect("an inverse applies to the state it came from");
                    }
                    return Err(e);
                }
            }
        }
        self.step_done(label, inverse);
        Ok(())
    }

    /// A change to the draft is in place: `inverse` undoes it as one step.
    fn step_done(&mut self, label: String, inverse: Vec<PackEdit>) {
        self.history.record(label, inverse);
        self.revision = next_revision();
    }

    pub fn undo(&mut self) -> Option<String> {
        let label = self.history.undo(|edits| replay(&mut self.draft, edits))?;
        self.revision = next_revision();
        Some(label)
    }

    pub fn redo(&mut self) -> Option<String> {
        let label = self.history.redo(|edits| replay(&mut self.draft, edits))?;
        self.revision = next_revision();
        Some(label)
    }

    /// Save atomically to `path` (a `pack.json` or its folder); returns the file written.
    pub fn save(&mut self, path: &Path) -> Result<PathBuf> {
        let file = self.draft.save(path)?;
        self.history.mark_saved();
        self.revision = next_revision();
        Ok(file)
    }

    /// After the saved file was signed in place: edit the signed bytes from now on.
    pub fn reload_signed(&mut self) -> Result<()> {
        let path = self.path().map(Path::to_path_buf).ok_or_else(|| {
            Error::new(code::INVALID_REQUEST, "not signed: the pack has no file yet; Save pack first, then Sign…")
        })?;
        // The file now holds canonical JSON (members sorted, as registries serve it); the
        // editor keeps the author's order of parameters, config members and the rest, which
        // the signature does not depend on (it covers the canonical bytes).
        let mut signed = crate::pack::load_file(&path, crate::pack::LoadOptions { skip_schema: true })?;
        signed.manifest = std::sync::Arc::new(in_order_of(&signed.manifest, &self.draft.manifest()));
        self.draft = PackDraft::from_pack(&signed, Some(path))?;
        // The signature covers the file's bytes: undoing past it would change the pack silently.
        self.history.forget();
        self.history.mark_saved();
        self.revision = next_revision();
        Ok(())
    }

    /// The core edits a command stands for.
    fn edits(&self, command: PackCommand) -> Result<Vec<PackEdit>> {
        let chain_at = |i: usize| {
            self.draft.chains().get(i).ok_or_else(|| {
                Error::new(code::INVALID_REQUEST, format!("there is no chain position {i}")).with("index", i)
            })
        };
        Ok(vec![match command {
            PackCommand::SetMember { key, value } => PackEdit::SetMember { key, value },
            PackCommand::AddChain(chain) => PackEdit::InsertChain { index: self.draft.chains().len(), chain },
            PackCommand::RemoveChain(index) => PackEdit::RemoveChain { index },
            PackCommand::MoveChain { from, to } => PackEdit::MoveChain { from, to },
            PackCommand::SetChainMember { chain, key, value } => PackEdit::SetChainMember { index: chain, key, value },
            PackCommand::SetParam { chain, old, spec } => {
                PackEdit::ReplaceChain { index: chain, chain: set_param(chain_at(chain)?, old.as_deref(), &spec)? }
            }
            PackCommand::RemoveParam { chain, name } => {
                PackEdit::ReplaceChain { index: chain, chain: remove_param(chain_at(chain)?, &name)? }
            }
            PackCommand::Promote { chain, promotion } => {
                let Value::Object(mut c) = chain_at(chain)?.clone() else {
                    return Err(Error::new(code::INVALID_REQUEST, format!("chains[{chain}] is not an object")));
                };
                promote(&mut c, &promotion)?;
                PackEdit::ReplaceChain { index: chain, chain: Value::Object(c) }
            }
        }])
    }
}

/// A new chain for "Add chain": valid once it has a node, with a chainId no chain uses.
/// Apply a step's edits last to first; returns the edits that reverse them, in order.
/// `value` with the members of each object in the order `like` has them at the same place
/// (members `like` lacks after those, as they were): a signed pack's canonical order put
/// back into the order its author wrote.
fn in_order_of(value: &Value, like: &Value) -> Value {
    match (value, like) {
        (Value::Object(map), Value::Object(order)) => {
            let mut out = Map::new();
            for (k, l) in order {
                if let Some(v) = map.get(k) {
                    out.insert(k.clone(), in_order_of(v, l));
                }
            }
            for (k, v) in map {
                if !out.contains_key(k) {
                    out.insert(k.clone(), v.clone());
                }
            }
            Value::Object(out)
        }
        (Value::Array(items), Value::Array(order)) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| order.get(i).map_or_else(|| v.clone(), |l| in_order_of(v, l)))
                .collect(),
        ),
        _ => value.clone(),
    }
}

fn replay(draft: &mut PackDraft, edits: Vec<PackEdit>) -> Vec<PackEdit> {
    let mut out: Vec<PackEdit> = edits
        .into_iter()
        .rev()
        .map(|e| draft.apply(e).expect("an inverse applies to the state it came from"))
        .collect();
    out.reverse();
    out
}

pub fn blank_chain(draft: &PackDraft) -> Value {
    let stem = draft.name().rsplit('.').next().filter(|s| !s.is_empty()).unwrap_or("chain");
    let mut n = draft.chains().len() + 1;
    let mut id = format!("{stem}.chain-{n}");
    while draft.chain_index(&id).is_some() {
        n += 1;
        id = format!("{stem}.chain-{n}");
    }
    let mut m = Map::new();
    m.insert("chainId".into(), json!(id));
    m.insert("version".into(), json!("1.0.0"));
    m.insert("label".into(), json!(format!("New chain {n}")));
    m.insert("description".into(), json!(""));
    m.insert("parameters".into(), json!({"type": "object", "properties": {}}));
    m.insert("dag".into(), json!({"nodes": [], "edges": []}));
    Value::Object(m)
}

fn label_of(command: &PackCommand, draft: &PackDraft) -> String {
    let chain_name = |i: &usize| {
        draft.chains().get(*i).and_then(|c| c.get("chainId")).and_then(Value::as_str).unwrap_or("?").to_owned()
    };
    match command {
        PackCommand::SetMember { key, .. } => format!("Edit pack {key}"),
        PackCommand::AddChain(_) => "Add chain".to_owned(),
        PackCommand::RemoveChain(i) => format!("Remove chain {}", chain_name(i)),
        PackCommand::MoveChain { from, .. } => format!("Move chain {}", chain_name(from)),
        PackCommand::SetChainMember { chain, key, .. } => format!("Edit {key} of {}", chain_name(chain)),
        PackCommand::SetParam { spec, .. } => format!("Edit parameter {}", spec.name),
        PackCommand::RemoveParam { name, .. } => format!("Remove parameter {name}"),
        PackCommand::Promote { promotion, .. } => format!("Make parameter {}", promotion.name),
    }
}

/// A default as typed: JSON when it parses, else (for a string parameter, or anything that
/// is not JSON) the text itself. Empty text removes the default.
pub fn parse_default(text: &str, type_name: Option<&str>) -> Result<Option<Value>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) if type_name != Some("string") || v.is_string() => Ok(Some(v)),
        _ if type_name == Some("string") || type_name.is_none() => Ok(Some(Value::String(text.to_owned()))),
        _ => {
            let t = type_name.unwrap_or("value");
            let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
            Err(format!("{article} {t} as JSON"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::author::{ChainInfo, PackInfo, param_specs};

    fn new_doc() -> PackDocument {
        let info = PackInfo { name: "vendor.acme.tiles".into(), version: "1.0.0".into(), ..Default::default() };
        PackDocument::new(PackDraft::new(&info))
    }

    fn workflow() -> Workflow {
        Workflow::from_json(json!({"nodes": [
            {"id": "fetch", "typeId": "core.http", "name": "Fetch", "position": {"x": 10, "y": 20},
             "config": {"url": "https://a.test", "retries": 3}},
            {"id": "log", "typeId": "core.log", "position": {"x": 300, "y": 20}, "config": {"level": "info"}}],
          "edges": [{"id": "e", "sourceNodeId": "fetch", "targetNodeId": "log"}]}))
        .unwrap()
    }

    fn request() -> ExtractRequest {
        ExtractRequest {
            chain: ChainInfo::new("acme.fetch", "Fetch and log"),
            nodes: Some(vec!["fetch".into(), "log".into()]),
            params: vec![Promotion::new("url", "fetch", "/config/url")],
        }
    }

    #[test]
    fn extraction_is_one_step_that_undoes_and_redoes_exactly() {
        let mut doc = new_doc();
        assert!(doc.is_dirty(), "a new pack has no file: it is unsaved");
        let empty = doc.draft().manifest();
        let r0 = doc.revision();
        doc.extract(&workflow(), &request()).unwrap();
        assert_ne!(doc.revision(), r0);
        let pack = doc.pack(Path::new("<unsaved>/pack.json")).unwrap();
        let chain = pack.chain("acme.fetch").expect("the palette sees the new chain");
        assert_eq!(chain.nodes()[0]["config"]["url"], "{{params.url}}");
        assert_eq!(doc.authored.as_ref().unwrap().ids["fetch"], "fetch");
        let with_chain = doc.draft().manifest();
        assert_eq!(doc.undo().as_deref(), Some("Extract chain acme.fetch"));
        assert_eq!(doc.draft().manifest(), empty);
        assert_eq!(doc.redo().as_deref(), Some("Extract chain acme.fetch"));
        assert_eq!(doc.draft().manifest(), with_chain);
    }

    #[test]
    fn schema_edits_undo_and_a_refusal_changes_nothing() {
        let mut doc = new_doc();
        doc.extract(&workflow(), &request()).unwrap();
        let before = doc.draft().manifest();
        let mut spec = param_specs(&doc.draft().chains()[0]).remove(0);
        spec.name = "endpoint".into();
        spec.pattern = Some("^https://".into());
        doc.apply(PackCommand::SetParam { chain: 0, old: Some("url".into()), spec: Box::new(spec) }).unwrap();
        let c = &doc.draft().chains()[0];
        assert_eq!(c["dag"]["nodes"][0]["config"]["url"], "{{params.endpoint}}", "the token is renamed too");
        assert_eq!(c["parameters"]["properties"]["endpoint"]["pattern"], "^https://");
        let edited = doc.draft().manifest();
        let bad = ParamSpec { name: "1x".into(), ..Default::default() };
        let err = doc.apply(PackCommand::SetParam { chain: 0, old: None, spec: Box::new(bad) }).unwrap_err();
        assert_eq!(err.code, code::INVALID_REQUEST);
        assert_eq!(doc.draft().manifest(), edited);
        assert_eq!(doc.undo_label(), Some("Edit parameter endpoint"));
        doc.undo();
        assert_eq!(doc.draft().manifest(), before);
        doc.apply(PackCommand::Promote { chain: 0, promotion: Promotion::new("retries", "fetch", "/config/retries") })
            .unwrap();
        assert!(!doc.can_redo(), "a new step clears redo");
        assert_eq!(doc.draft().chains()[0]["parameters"]["properties"]["retries"]["type"], "integer");
        doc.apply(PackCommand::RemoveParam { chain: 0, name: "retries".into() }).unwrap();
        assert_eq!(doc.draft().chains()[0]["dag"]["nodes"][0]["config"]["retries"], 3);
    }

    #[test]
    fn saving_marks_clean_and_the_saved_file_reopens_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let mut doc = new_doc();
        doc.extract(&workflow(), &request()).unwrap();
        doc.apply(PackCommand::SetMember { key: "license".into(), value: Some(json!("MIT")) }).unwrap();
        let file = doc.save(dir.path()).unwrap();
        assert!(!doc.is_dirty());
        let reopened = PackDocument::new(PackDraft::open(&file).unwrap());
        assert!(!reopened.is_dirty());
        assert_eq!(reopened.draft().manifest(), doc.draft().manifest());
        doc.undo();
        assert!(doc.is_dirty());
        doc.redo();
        assert!(!doc.is_dirty(), "back at the saved state");
    }

    #[test]
    fn dependencies_are_one_undoable_step() {
        let dir = tempfile::tempdir().unwrap();
        let node_pack = json!({"name": "vendor.acme.nodes", "version": "2.3.0", "engines": {"openwop": ">=1.0.0"},
            "runtime": {"language": "javascript", "entry": "x.js"},
            "nodes": [{"typeId": "vendor.acme.fetch", "version": "1.0.0", "category": "data", "role": "pure"}]});
        std::fs::write(dir.path().join("pack.json"), node_pack.to_string()).unwrap();
        let catalog = crate::catalog::Catalog::load(&[dir.path()]);
        let wf = Workflow::from_json(json!({"nodes": [
            {"id": "a", "typeId": "vendor.acme.fetch"}, {"id": "b", "typeId": "vendor.other.thing"},
            {"id": "c", "typeId": "core.log"}]}))
        .unwrap();
        let mut doc = new_doc();
        let req = ExtractRequest { chain: ChainInfo::new("acme.deps", "Deps"), ..Default::default() };
        doc.extract(&wf, &req).unwrap();
        let unresolved = doc.set_dependencies(&catalog).unwrap();
        let types: Vec<&str> = unresolved.iter().map(|f| f.details["typeId"].as_str().unwrap()).collect();
        assert_eq!(types, ["vendor.other.thing"], "core types need no pack");
        assert_eq!(doc.undo_label(), Some("Compute dependencies"));
        let deps = doc.draft().manifest().get("dependencies").cloned();
        assert_eq!(deps, Some(json!({"vendor.acme.nodes": "^2.3.0"})));
        doc.undo();
        assert!(doc.draft().manifest().get("dependencies").is_none());
        doc.redo();
        assert_eq!(doc.draft().manifest().get("dependencies").cloned(), deps);
    }

    #[test]
    fn a_clean_document_follows_its_file_and_a_dirty_one_keeps_its_edits() {
        let dir = tempfile::tempdir().unwrap();
        let mut doc = new_doc();
        doc.extract(&workflow(), &request()).unwrap();
        let file = doc.save(dir.path()).unwrap();
        let mut on_disk = PackDraft::open(&file).unwrap();
        on_disk.apply(PackEdit::SetMember { key: "license".into(), value: Some(json!("MIT")) }).unwrap();
        on_disk.save(&file).unwrap();
        let loaded = crate::pack::load_file(&file, Default::default()).unwrap();
        assert!(doc.reloaded(&loaded));
        assert_eq!(doc.draft().manifest()["license"], "MIT");
        assert!(!doc.can_undo() && !doc.is_dirty());
        doc.apply(PackCommand::SetMember { key: "license".into(), value: Some(json!("Apache-2.0")) }).unwrap();
        assert!(!doc.reloaded(&loaded));
        assert_eq!(doc.draft().manifest()["license"], "Apache-2.0");
    }

    #[test]
    fn chain_list_edits_and_blank_chains() {
        let mut doc = new_doc();
        doc.extract(&workflow(), &request()).unwrap();
        let blank = blank_chain(doc.draft());
        assert_eq!(blank["chainId"], "tiles.chain-2");
        doc.apply(PackCommand::AddChain(blank)).unwrap();
        doc.apply(PackCommand::MoveChain { from: 1, to: 0 }).unwrap();
        assert_eq!(doc.draft().chains()[0]["chainId"], "tiles.chain-2");
        doc.apply(PackCommand::SetChainMember { chain: 0, key: "label".into(), value: Some(json!("Renamed")) })
            .unwrap();
        doc.apply(PackCommand::RemoveChain(1)).unwrap();
        assert_eq!(doc.draft().chains().len(), 1);
        for _ in 0..4 {
            doc.undo();
        }
        assert_eq!(doc.draft().chains().len(), 1);
        assert_eq!(doc.draft().chains()[0]["chainId"], "acme.fetch");
        assert!(doc.apply(PackCommand::RemoveChain(7)).is_err());
    }

    #[test]
    fn signing_keeps_the_authors_order_of_parameters_and_config_in_the_editor() {
        use crate::registry::{Scheme, keys, sign_pack};
        let dir = tempfile::tempdir().unwrap();
        let mut doc = new_doc();
        doc.extract(&workflow(), &request()).unwrap();
        doc.apply(PackCommand::Promote { chain: 0, promotion: Promotion::new("retries", "fetch", "/config/retries") })
            .unwrap();
        let keys_of = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        let order = |doc: &PackDocument| {
            let c = &doc.draft().chains()[0];
            (keys_of(&c["parameters"]["properties"]), keys_of(&c["dag"]["nodes"][0]["config"]))
        };
        let authored = order(&doc);
        assert_eq!(
            authored,
            (vec!["url".to_owned(), "retries".to_owned()], vec!["url".to_owned(), "retries".to_owned()])
        );
        let file = doc.save(dir.path()).unwrap();
        let pair = keys::generate(&dir.path().join("signer")).unwrap();
        sign_pack(&file, &keys::read_signing_key(&pair.private_key).unwrap(), Scheme::V1Manual).unwrap();
        doc.reload_signed().unwrap();
        assert_eq!(order(&doc), authored, "the form keeps the author's order after signing");
        assert!(doc.draft().manifest().get("signing").is_some(), "the document has the signing block");
        assert!(!doc.is_dirty());
        assert!(
            doc.draft().findings().iter().all(|f| f.code != code::SIGNATURE_STALE),
            "the signature is not stale: {:?}",
            doc.draft().findings()
        );
        // The file holds the canonical bytes the signature covers.
        let on_disk: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let c = &on_disk["chains"][0];
        assert_eq!(keys_of(&c["parameters"]["properties"]), ["retries", "url"]);
    }

    #[test]
    fn a_typed_default_is_json_when_it_parses_else_the_text() {
        assert_eq!(parse_default("", Some("integer")), Ok(None), "empty removes the default");
        assert_eq!(parse_default("3", Some("integer")), Ok(Some(json!(3))));
        assert_eq!(parse_default("3", Some("string")), Ok(Some(json!("3"))), "a string stays text");
        assert_eq!(parse_default("\"a\"", Some("string")), Ok(Some(json!("a"))));
        assert_eq!(parse_default("hello", None), Ok(Some(json!("hello"))));
        assert_eq!(parse_default("x", Some("integer")), Err("an integer as JSON".to_owned()));
        assert_eq!(parse_default("x", Some("number")), Err("a number as JSON".to_owned()));
        assert_eq!(parse_default("[1,", Some("array")), Err("an array as JSON".to_owned()));
    }
}

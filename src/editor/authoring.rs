//! The chain packs open for authoring, without the windows that show them: opening a loaded
//! pack (or a new one) for editing, applying what the pack view asks for, saving, signing,
//! a chain extracted into a pack, a value promoted into the chain extracted last, and keeping
//! the loaded copies in step with the edits. Each result is a [`Note`] for the status bar;
//! what needs the user next (a file to save to, a key) comes back as a [`Next`].

pub mod session;

use super::extraction::{ExtractForm, PackTarget};
use super::file_dialog::Purpose;
use super::pack_doc::{PackCommand, PackDocument};
use super::packs::Packs;
use crate::author::{PackDraft, Placement, Promotion};
use crate::catalog::Catalog;
use crate::error::{Error, code};
use crate::pack::Pack;
use crate::workflow::Workflow;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A pack open for authoring, and the source its loaded copy has in the editor's pack list.
pub struct OpenPack {
    pub doc: PackDocument,
    pub source: PathBuf,
    /// The document revision the loaded copy shows.
    synced: Option<u64>,
}

/// Something for the status bar.
#[derive(Debug)]
pub enum Note {
    Status(String),
    Error(Error),
}

/// What the pack view asks for.
pub enum ViewOp {
    Command(usize, PackCommand),
    Undo(usize),
    Redo(usize),
    Save(usize),
    SaveAs,
    Sign(usize),
    GenerateKey,
    /// Open `packs[i]` for editing.
    Edit(usize),
    /// Declare `dependencies` from the catalog's node packs.
    Dependencies(usize),
    NewPack,
}

/// Where the pack view is: the document, chain and parameter it shows, and the text of its
/// fields while they are typed in (by field key, until committed), with why text that did
/// not parse was refused. Another pack or chain starts with none of them.
#[derive(Default)]
pub struct ViewPlace {
    pub doc: Option<usize>,
    pub chain: usize,
    pub param: Option<String>,
    pub texts: HashMap<String, String>,
    pub invalid: HashMap<String, String>,
}

impl ViewPlace {
    /// Show document `doc`, chain `chain`.
    pub fn select(&mut self, doc: usize, chain: usize) {
        self.doc = Some(doc);
        self.chain = chain;
        self.param = None;
        self.texts.clear();
        self.invalid.clear();
    }
}

/// What follows a [`ViewOp`] outside the pack documents.
#[derive(Debug, PartialEq)]
pub enum Next {
    /// Show chain `1` of document `0` in the pack view.
    Select(usize, usize),
    /// Ask for a file: where to save the pack view's pack (`SavePack`), the private key to
    /// sign it with (`SigningKey`), or where a new key pair goes (`GenerateKey`).
    Ask(Purpose),
}

/// Where "Make parameter…" promotes a value: the document, the chain's index in it and the
/// node's id in the chain, with the value itself and a suggested parameter name.
pub struct PromotionTarget {
    pub into: (usize, usize, String),
    pub value: Value,
    pub name: String,
}

/// The packs open for authoring and the notes their changes left for the status bar.
#[derive(Default)]
pub struct PackDocs {
    pub docs: Vec<OpenPack>,
    pub notes: Vec<Note>,
    /// New packs made so far, so each unsaved one has a source of its own.
    made: usize,
}

impl PackDocs {
    /// Sources of edited packs not saved since.
    pub fn unsaved(&self) -> HashSet<PathBuf> {
        self.docs.iter().filter(|d| d.doc.is_dirty()).map(|d| d.source.clone()).collect()
    }

    /// The document editing `packs[i]`, opened on first use.
    pub fn doc_for(&mut self, packs: &[Pack], i: usize) -> Result<usize, Error> {
        let pack = packs.get(i).ok_or_else(|| {
            Error::new(
                code::INVALID_REQUEST,
                "that pack is no longer loaded (it was closed or loaded again): choose it again in the Pack list",
            )
        })?;
        if let Some(d) = self.docs.iter().position(|d| d.source == pack.source) {
            return Ok(d);
        }
        let file = pack.source.is_file().then(|| pack.source.clone());
        let draft = PackDraft::from_pack(pack, file)?;
        self.docs.push(OpenPack { doc: PackDocument::new(draft), source: pack.source.clone(), synced: None });
        Ok(self.docs.len() - 1)
    }

    /// A new pack, not saved yet.
    pub fn new_doc(&mut self, name: &str, version: &str) -> usize {
        self.made += 1;
        let source = PathBuf::from(format!("<unsaved {}>", self.made)).join(name).join("pack.json");
        let doc = PackDocument::new(ExtractForm::new_pack(name, version));
        self.docs.push(OpenPack { doc, source, synced: None });
        self.docs.len() - 1
    }

    /// Put every edited pack in place of its loaded copy (or add it); returns whether any changed.
    pub fn sync(&mut self, packs: &mut Packs) -> bool {
        let mut changed = false;
        for open in &mut self.docs {
            let revision = open.doc.revision();
            if open.synced == Some(revision) {
                continue;
            }
            open.synced = Some(revision);
            let source = open.doc.path().map(Path::to_path_buf).unwrap_or_else(|| open.source.clone());
            let Some(pack) = open.doc.pack(&source) else { continue };
            match packs.iter().position(|p| p.source == open.source) {
                Some(i) => packs[i] = pack,
                None => {
                    packs.add(pack);
                }
            }
            open.source = source;
            changed = true;
        }
        changed
    }

    /// Packs were loaded again from their files: documents without unsaved edits follow them;
    /// those with unsaved edits keep them and their version stays in the palette.
    pub fn reloaded(&mut self, packs: &[Pack]) {
        for open in &mut self.docs {
            let Some(pack) = packs.iter().find(|p| p.source == open.source) else { continue };
            if open.doc.reloaded(pack) {
                open.synced = Some(open.doc.revision());
            } else {
                open.synced = None;
                self.notes.push(Note::Status(format!(
                    "{} has unsaved edits in the pack view: they are kept (save or undo them there)",
                    open.doc.draft().name()
                )));
            }
        }
    }

    /// Apply what the pack view asked for.
    pub fn apply(&mut self, op: ViewOp, packs: &[Pack], catalog: Option<&Catalog>) -> Option<Next> {
        match op {
            ViewOp::Command(d, cmd) => {
                if let Some(open) = self.docs.get_mut(d)
                    && let Err(e) = open.doc.apply(cmd)
                {
                    self.notes.push(Note::Error(e));
                }
            }
            ViewOp::Undo(d) => {
                if let Some(label) = self.docs.get_mut(d).and_then(|o| o.doc.undo()) {
                    self.notes.push(Note::Status(format!("Undid {label}")));
                }
            }
            ViewOp::Redo(d) => {
                if let Some(label) = self.docs.get_mut(d).and_then(|o| o.doc.redo()) {
                    self.notes.push(Note::Status(format!("Redid {label}")));
                }
            }
            ViewOp::Dependencies(d) => self.dependencies(d, catalog),
            ViewOp::Edit(i) => match self.doc_for(packs, i) {
                Ok(d) => return Some(Next::Select(d, 0)),
                Err(e) => self.notes.push(Note::Error(e)),
            },
            ViewOp::NewPack => return Some(Next::Select(self.new_doc("vendor.my.chains", "1.0.0"), 0)),
            ViewOp::Save(d) => match self.docs.get(d).and_then(|o| o.doc.path()).map(Path::to_path_buf) {
                Some(path) => self.save(d, &path),
                None => return Some(Next::Ask(Purpose::SavePack)),
            },
            ViewOp::SaveAs => return Some(Next::Ask(Purpose::SavePack)),
            ViewOp::Sign(d) => return self.before_signing(d),
            ViewOp::GenerateKey => return Some(Next::Ask(Purpose::GenerateKey)),
        }
        None
    }

    /// Declare document `d`'s dependencies from the catalog's node packs.
    fn dependencies(&mut self, d: usize, catalog: Option<&Catalog>) {
        let Some(open) = self.docs.get_mut(d) else { return };
        let Some(catalog) = catalog else {
            self.notes.push(Note::Error(Error::new(
                code::INVALID_REQUEST,
                "nothing computed: no node packs are loaded, so none says which pack provides the chains' node \
                 types. Open the node packs (File › Open pack folder…), then Compute from catalog again",
            )));
            return;
        };
        match open.doc.set_dependencies(catalog) {
            Ok(unresolved) if unresolved.is_empty() => {
                self.notes.push(Note::Status("Dependencies computed from the catalog".into()))
            }
            Ok(unresolved) => {
                let types: Vec<&str> =
                    unresolved.iter().filter_map(|f| f.details.get("typeId").and_then(Value::as_str)).collect();
                self.notes.push(Note::Status(format!(
                    "Dependencies computed, except for {}: no loaded node pack provides it; open the pack that \
                     does and compute again",
                    types.join(", ")
                )));
            }
            Err(e) => self.notes.push(Note::Error(e)),
        }
    }

    /// Signing covers the saved file: an unsaved pack is refused, edits are saved first.
    fn before_signing(&mut self, d: usize) -> Option<Next> {
        let Some(path) = self.docs.get(d).and_then(|o| o.doc.path()).map(Path::to_path_buf) else {
            self.notes.push(Note::Error(Error::new(
                code::INVALID_REQUEST,
                "not signed: this pack has no file yet, and a signature covers the saved pack.json. Save pack \
                 first, then Sign…",
            )));
            return None;
        };
        if self.docs[d].doc.is_dirty() {
            self.save(d, &path);
        }
        Some(Next::Ask(Purpose::SigningKey))
    }

    pub fn save(&mut self, d: usize, path: &Path) {
        let Some(open) = self.docs.get_mut(d) else { return };
        match open.doc.save(path) {
            Ok(file) => self.notes.push(Note::Status(format!("Saved pack {}", file.display()))),
            Err(e) => self.notes.push(Note::Error(e)),
        }
    }

    /// Sign document `d`'s saved pack with the private key at `key` (v1 manual signature).
    pub fn sign(&mut self, d: usize, key: &Path) {
        let Some(open) = self.docs.get_mut(d) else { return };
        let Some(path) = open.doc.path().map(Path::to_path_buf) else { return };
        let signed = crate::registry::keys::read_signing_key(key)
            .and_then(|k| crate::registry::sign_pack(&path, &k, crate::registry::Scheme::V1Manual))
            .and_then(|s| open.doc.reload_signed().map(|()| s));
        match signed {
            Ok(s) => self.notes.push(Note::Status(format!(
                "Signed {} {} (signature in {}, public key in {})",
                s.name,
                s.version,
                s.signature.display(),
                s.public_key.map(|p| p.display().to_string()).unwrap_or_default()
            ))),
            Err(e) => self.notes.push(Note::Error(e)),
        }
    }

    /// Generate a signing key pair named by `chosen` (a `.pem` ending the user typed is
    /// dropped: the pair's names add their own), with the core code `chainsmith keygen` runs.
    pub fn generate_key(&mut self, chosen: &Path) {
        let prefix = match chosen.to_str().and_then(|s| s.strip_suffix(".pem")) {
            Some(stem) => PathBuf::from(stem.trim_end_matches(".private").trim_end_matches(".public")),
            None => chosen.to_path_buf(),
        };
        match crate::registry::keys::generate(&prefix) {
            Ok(pair) => self.notes.push(Note::Status(format!(
                "Generated a signing key: {} (private: keep it safe, outside the pack) and {}; Sign… to use it",
                pair.private_key.display(),
                pair.public_key.display()
            ))),
            Err(e) => self.notes.push(Note::Error(e)),
        }
    }

    /// Extract the form's chain into its target pack (opened, or made, for editing);
    /// `Some((document, chain index))` once it is in, else the refusal is a note (and a pack
    /// made for it is dropped again).
    pub fn extract(&mut self, form: &mut ExtractForm, packs: &[Pack], wf: &Workflow) -> Option<(usize, usize)> {
        let chain_id = form.chain_id.clone();
        let (doc, created) = match &form.target {
            PackTarget::New { name, version } => {
                let (name, version) = (name.clone(), version.clone());
                (self.new_doc(&name, &version), true)
            }
            PackTarget::Loaded(i) => match self.doc_for(packs, *i) {
                Ok(doc) => (doc, false),
                Err(e) => {
                    self.notes.push(Note::Error(e));
                    return None;
                }
            },
        };
        match form.confirm(&mut self.docs[doc].doc, wf) {
            Ok((index, placement)) => {
                let pack = self.docs[doc].doc.draft().name();
                let what = match placement {
                    Placement::Added => "added to",
                    Placement::Replaced => "replaced in",
                };
                self.notes.push(Note::Status(format!(
                    "Chain {chain_id} {what} pack {pack} (not saved yet: Pack view → Save)"
                )));
                Some((doc, index))
            }
            Err(e) => {
                if created {
                    self.docs.remove(doc);
                }
                self.notes.push(Note::Error(e));
                None
            }
        }
    }

    /// The chain being authored that workflow node `node` went into, with the value at
    /// `pointer` of the node; `None` when the node is in no authored chain or has no value there.
    pub fn promotion_target(&self, wf: &Workflow, node: &str, pointer: &str) -> Option<PromotionTarget> {
        let value = wf.node(node).and_then(|ix| value_in(&wf.graph[ix].object(), pointer).cloned())?;
        let into = self.docs.iter().enumerate().find_map(|(i, d)| {
            let a = d.doc.authored.as_ref()?;
            let fragment = a.ids.get(node)?;
            Some((i, d.doc.draft().chain_index(&a.chain_id)?, fragment.clone()))
        })?;
        Some(PromotionTarget { into, value, name: suggested_name(pointer) })
    }

    /// Promote `pointer` of fragment node `into.2` in chain `into.1` of document `into.0` to
    /// the parameter `name`; the command's label on success.
    pub fn promote(&mut self, into: &(usize, usize, String), name: &str, pointer: &str) -> Result<String, Error> {
        let (d, chain, fragment) = into;
        let open = self.docs.get_mut(*d).ok_or_else(|| {
            Error::new(code::INVALID_REQUEST, "that pack is no longer open: extract the chain into it again")
        })?;
        let promotion = Promotion::new(name, fragment, pointer);
        open.doc.apply(PackCommand::Promote { chain: *chain, promotion })
    }
}

/// The value at `pointer` of a node (its members are the pointer's first segment).
fn value_in<'a>(node: &'a Map<String, Value>, pointer: &str) -> Option<&'a Value> {
    let rest = pointer.strip_prefix('/')?;
    let (member, inner) = rest.split_once('/').map_or((rest, String::new()), |(m, r)| (m, format!("/{r}")));
    node.get(member)?.pointer(&inner)
}

/// A parameter name from the pointer's last meaningful segment.
fn suggested_name(pointer: &str) -> String {
    let last = pointer.rsplit('/').find(|s| !s.is_empty() && !s.bytes().all(|b| b.is_ascii_digit()) && *s != "value");
    let mut name: String =
        last.unwrap_or("value").chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    name
}

/// The refusal when `pointer` of `node` cannot become a parameter.
pub fn not_promotable(node: &str, pointer: &str) -> Error {
    Error::new(
        code::INVALID_REQUEST,
        format!(
            "{node}:{pointer} is not a value a parameter can stand for here (only strings, numbers and booleans \
             inside config or inputs, without a token already)"
        ),
    )
    .with("nodeId", node)
    .with("pointer", pointer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wf() -> Workflow {
        Workflow::from_json(json!({"nodes": [
            {"id": "fetch", "typeId": "core.http", "name": "Fetch feed", "position": {"x": 100, "y": 0},
             "config": {"url": "https://a.test", "retries": 3}},
            {"id": "log", "typeId": "core.log", "position": {"x": 300, "y": 0}, "config": {"level": "info"}}],
          "edges": [{"id": "e2", "sourceNodeId": "fetch", "targetNodeId": "log"}]}))
        .unwrap()
    }

    fn last_error(docs: &PackDocs) -> &Error {
        match docs.notes.last() {
            Some(Note::Error(e)) => e,
            other => panic!("expected an error note, got {other:?}"),
        }
    }

    #[test]
    fn new_packs_open_in_the_view_and_ask_where_they_are_saved() {
        let mut docs = PackDocs::default();
        assert_eq!(docs.apply(ViewOp::NewPack, &[], None), Some(Next::Select(0, 0)));
        assert_eq!(docs.apply(ViewOp::NewPack, &[], None), Some(Next::Select(1, 0)));
        assert_ne!(docs.docs[0].source, docs.docs[1].source, "each unsaved pack has a source of its own");
        assert_eq!(docs.unsaved().len(), 2);
        assert_eq!(
            docs.apply(ViewOp::Save(0), &[], None),
            Some(Next::Ask(Purpose::SavePack)),
            "no file yet: ask for one"
        );
        assert_eq!(docs.apply(ViewOp::SaveAs, &[], None), Some(Next::Ask(Purpose::SavePack)));
        assert_eq!(docs.apply(ViewOp::GenerateKey, &[], None), Some(Next::Ask(Purpose::GenerateKey)));
        assert!(docs.notes.is_empty(), "{:?}", docs.notes);
    }

    #[test]
    fn refusals_are_notes_with_their_code() {
        let mut docs = PackDocs::default();
        docs.new_doc("vendor.my.chains", "1.0.0");
        assert_eq!(docs.apply(ViewOp::Sign(0), &[], None), None);
        assert_eq!(last_error(&docs).code, code::INVALID_REQUEST);
        assert!(last_error(&docs).message.ends_with("Save pack first, then Sign…"));
        assert_eq!(docs.apply(ViewOp::Dependencies(0), &[], None), None);
        assert!(last_error(&docs).message.contains("Open the node packs (File › Open pack folder…)"));
        assert_eq!(docs.apply(ViewOp::Edit(3), &[], None), None);
        assert!(last_error(&docs).message.ends_with("choose it again in the Pack list"));
        assert_eq!(docs.notes.len(), 3);
        assert_eq!(docs.apply(ViewOp::Undo(0), &[], None), None);
        assert_eq!(docs.notes.len(), 3, "nothing to undo leaves no note");
    }

    #[test]
    fn a_saved_pack_is_signed_after_its_edits_are_saved() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pack.json");
        let mut docs = PackDocs::default();
        docs.new_doc("vendor.my.chains", "1.0.0");
        docs.save(0, &path);
        assert!(matches!(docs.notes.last(), Some(Note::Status(s)) if s.starts_with("Saved pack ")));
        assert!(path.is_file() && docs.unsaved().is_empty());
        assert_eq!(docs.apply(ViewOp::Sign(0), &[], None), Some(Next::Ask(Purpose::SigningKey)));
    }

    #[test]
    fn an_extracted_chain_goes_into_a_new_pack_and_takes_promoted_values() {
        let w = wf();
        let mut docs = PackDocs::default();
        let mut form = ExtractForm::new(&w, vec!["fetch".into(), "log".into()]);
        assert_eq!(docs.extract(&mut form, &[], &w), Some((0, 0)));
        assert!(
            matches!(docs.notes.last(), Some(Note::Status(s))
                if s == "Chain vendor.my.fetch-feed added to pack vendor.my.chains (not saved yet: Pack view → Save)"),
            "{:?}",
            docs.notes
        );
        let mut packs = Packs::default();
        assert!(docs.sync(&mut packs), "the new pack is loaded for the palette");
        assert!(!docs.sync(&mut packs), "nothing changed since");
        assert_eq!(packs.len(), 1);

        let t = docs.promotion_target(&w, "fetch", "/config/retries").expect("fetch went into the chain");
        assert_eq!(
            (t.into.clone(), t.value.clone(), t.name.as_str()),
            ((0, 0, "fetch".to_owned()), json!(3), "retries")
        );
        assert!(docs.promotion_target(&w, "fetch", "/config/missing").is_none());
        docs.promote(&t.into, &t.name, "/config/retries").unwrap();
        let pack = docs.docs[0].doc.pack(Path::new("<unsaved>/pack.json")).unwrap();
        let chain = pack.chain("vendor.my.fetch-feed").unwrap();
        assert_eq!(chain.nodes()[0]["config"]["retries"], "{{params.retries}}");
        assert!(docs.sync(&mut packs), "the edit reaches the loaded copy");
    }

    #[test]
    fn a_refused_extraction_drops_the_pack_made_for_it() {
        let w = wf();
        let mut docs = PackDocs::default();
        let mut form = ExtractForm::new(&w, vec!["ghost".into()]);
        assert_eq!(docs.extract(&mut form, &[], &w), None);
        assert!(docs.docs.is_empty());
        assert!(matches!(docs.notes.last(), Some(Note::Error(_))));
    }

    #[test]
    fn another_pack_or_chain_starts_without_the_texts_typed_for_the_last() {
        let mut place = ViewPlace::default();
        place.select(0, 1);
        place.param = Some("url".into());
        place.texts.insert("0:1:c:label".into(), "half-typ".into());
        place.invalid.insert("0:m:engines".into(), "a JSON object".into());
        place.select(1, 0);
        assert_eq!((place.doc, place.chain, place.param.as_deref()), (Some(1), 0, None));
        assert!(place.texts.is_empty() && place.invalid.is_empty());
    }

    #[test]
    fn suggested_names_come_from_the_last_meaningful_segment() {
        assert_eq!(suggested_name("/config/url"), "url");
        assert_eq!(suggested_name("/config/items/0/value"), "items");
        assert_eq!(suggested_name("/config/a-b"), "a_b");
        assert_eq!(suggested_name("/config/9lives"), "_9lives");
        assert_eq!(suggested_name("/value"), "value");
    }
}

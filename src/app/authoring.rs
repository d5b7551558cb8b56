//! Chain-pack authoring in the editor: the packs open for editing, the "Extract as chain"
//! dialog, the inspector's "Make parameter" window, and the pack view (in [`super::pack_view`]).
//! Every change goes through [`PackDocument`] commands (exact undo); after each frame the
//! edited packs replace their loaded copies, so the palette's tiles follow at once.

use super::action::Action;
use super::dialogs::Purpose;
use super::form::FormSession;
use super::pack_view::{PackView, ViewOp};
use super::window::{Scaffold, WindowId};
use super::{palette, theme};
use crate::author::{PackDraft, Promotion};
use crate::catalog::Catalog;
use crate::editor::commands::CommandId;
use crate::editor::extraction::{ExtractForm, PackTarget, shown};
use crate::editor::pack_doc::PackDocument;
use crate::editor::packs::Packs;
use crate::editor::wording;
use crate::error::{Error, code};
use crate::pack::{Pack, PackKind};
use crate::workflow::Workflow;
use egui::{Id, RichText, Ui};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A pack open for authoring, and the source its loaded copy has in the editor's pack list.
pub struct OpenPack {
    pub doc: PackDocument,
    pub source: PathBuf,
    /// The document revision the loaded copy shows.
    synced: Option<u64>,
}

/// Something for the status bar.
pub enum Note {
    Status(String),
    Error(Error),
}

#[derive(Default)]
pub struct Authoring {
    pub docs: Vec<OpenPack>,
    extract: Option<ExtractDialog>,
    make: Option<MakeParam>,
    pub view: PackView,
    pub notes: Vec<Note>,
    /// Quitting waits for an answer about edited packs not saved.
    asking_quit: bool,
    /// The answer was "quit anyway".
    quit_agreed: bool,
    /// New packs made so far, so each unsaved one has a source of its own.
    made: usize,
    /// Esc was pressed this frame while a modal question was up (the shell takes it out of
    /// the input before anything else sees it).
    pub modal_escape: bool,
}

struct ExtractDialog {
    form: ExtractForm,
    /// The target pack's draft when it is a loaded pack nobody edits yet (read-only copy).
    loaded: Option<(usize, PackDraft)>,
    /// The form preview, rebuilt when the previewed chain changes.
    /// Keyed by the preview it was made from ([`ExtractForm::preview_revision`]).
    form_preview: Option<(u64, FormSession)>,
    /// A row to scroll to and focus (ticked from the inspector).
    focus: Option<usize>,
}

/// "Make parameter…" for a value of a node that went into the chain extracted last.
struct MakeParam {
    node: String,
    pointer: String,
    value: Value,
    name: String,
    /// Pack document, chain index and fragment node of the chain being authored.
    into: (usize, usize, String),
    error: Option<Error>,
}

impl Authoring {
    /// Sources of edited packs not saved since.
    pub fn unsaved(&self) -> HashSet<PathBuf> {
        self.docs.iter().filter(|d| d.doc.is_dirty()).map(|d| d.source.clone()).collect()
    }

    /// Whether a quit must wait: edited packs are not saved (the question opens).
    pub fn holds_quit(&mut self) -> bool {
        let holds = !self.quit_agreed && self.docs.iter().any(|d| d.doc.is_dirty());
        self.asking_quit |= holds;
        holds
    }

    /// The question before quitting with edited packs not saved.
    fn quit_question(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        if !self.asking_quit {
            return;
        }
        let unsaved: Vec<(usize, String)> = (self.docs.iter().enumerate())
            .filter(|(_, d)| d.doc.is_dirty())
            .map(|(i, d)| (i, format!("{} {}", d.doc.draft().name(), d.doc.draft().version())))
            .collect();
        let mut answer = None;
        let shown = egui::Modal::new(Id::unique("cs-unsaved-packs")).show(ctx, |ui| {
            ui.set_max_width(440.0);
            ui.heading("Edited packs are not saved");
            ui.label("Quitting now loses the changes to:");
            for (_, name) in &unsaved {
                ui.label(RichText::new(name).monospace());
            }
            ui.horizontal(|ui| {
                if ui.button("Quit without saving them").clicked() {
                    answer = Some(true);
                }
                if ui
                    .button(RichText::new("Cancel").strong())
                    .on_hover_text("Open the pack view to save them")
                    .clicked()
                {
                    answer = Some(false);
                }
            });
        });
        // Esc, or a click beside the question, cancels the quit.
        if answer.is_none() && (shown.should_close() || (shown.is_top_modal && self.modal_escape)) {
            answer = Some(false);
        }
        match answer {
            Some(true) => {
                self.asking_quit = false;
                self.quit_agreed = true;
                actions.push(Action::Run(CommandId::Quit));
            }
            Some(false) => {
                self.asking_quit = false;
                if let Some((i, _)) = unsaved.first() {
                    self.view.select(*i, 0);
                    self.view.open = true;
                }
            }
            None => {}
        }
    }

    /// Open the extract dialog for these workflow nodes.
    pub fn open_extract(&mut self, wf: &Workflow, nodes: Vec<String>) {
        if nodes.is_empty() {
            self.notes.push(Note::Error(Error::new(
                code::INVALID_REQUEST,
                "select the nodes to extract first (click, Shift+click or drag a box on the canvas)",
            )));
            return;
        }
        self.extract =
            Some(ExtractDialog { form: ExtractForm::new(wf, nodes), loaded: None, form_preview: None, focus: None });
    }

    /// The inspector's "Make parameter…" on `pointer` (inside the node) of workflow node `node`:
    /// tick it in the open extract dialog; else offer to promote it into the chain extracted
    /// last when the node went into it; else start a draft chain from `selection` (with the
    /// node) and tick it there.
    pub fn make_parameter(&mut self, wf: &Workflow, node: &str, pointer: &str, selection: Vec<String>) {
        if let Some(d) = &mut self.extract {
            match d.form.check_value(wf, node, pointer) {
                Some(i) => d.focus = Some(i),
                None => self.notes.push(Note::Error(not_promotable(node, pointer))),
            }
            return;
        }
        let value = wf.node(node).and_then(|ix| value_in(&wf.graph[ix].object(), pointer).cloned());
        let authored = self.docs.iter().enumerate().find_map(|(i, d)| {
            let a = d.doc.authored.as_ref()?;
            let fragment = a.ids.get(node)?;
            Some((i, d.doc.draft().chain_index(&a.chain_id)?, fragment.clone()))
        });
        if let (Some(into), Some(value)) = (authored, value.clone()) {
            let name = suggested_name(pointer);
            self.make =
                Some(MakeParam { node: node.to_owned(), pointer: pointer.to_owned(), value, name, into, error: None });
            return;
        }
        let mut nodes = selection;
        if !nodes.iter().any(|n| n == node) {
            nodes = vec![node.to_owned()];
        }
        self.open_extract(wf, nodes);
        if let Some(d) = &mut self.extract {
            match d.form.check_value(wf, node, pointer) {
                Some(i) => d.focus = Some(i),
                None => self.notes.push(Note::Error(not_promotable(node, pointer))),
            }
        }
    }

    /// "Make parameter…" on a node without a value picked: its values are listed to tick in
    /// the extract dialog (the open one, with the node added, or a new draft for the node).
    pub fn make_parameter_of(&mut self, wf: &Workflow, node: &str) {
        match &mut self.extract {
            Some(d) => d.form.add_node(wf, node),
            None => self.open_extract(wf, vec![node.to_owned()]),
        }
    }

    /// The document editing `packs[i]`, opened on first use.
    fn doc_for(&mut self, packs: &[Pack], i: usize) -> Result<usize, Error> {
        let pack = packs.get(i).ok_or_else(|| Error::new(code::INVALID_REQUEST, "that pack is no longer loaded"))?;
        if let Some(d) = self.docs.iter().position(|d| d.source == pack.source) {
            return Ok(d);
        }
        let file = pack.source.is_file().then(|| pack.source.clone());
        let draft = PackDraft::from_pack(pack, file)?;
        self.docs.push(OpenPack { doc: PackDocument::new(draft), source: pack.source.clone(), synced: None });
        Ok(self.docs.len() - 1)
    }

    /// A new pack, not saved yet.
    fn new_doc(&mut self, name: &str, version: &str) -> usize {
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

    /// Draw the authoring windows and apply what they ask for.
    /// The extract dialog is open.
    pub fn extract_open(&self) -> bool {
        self.extract.is_some()
    }

    /// The make-parameter dialog is open.
    pub fn make_open(&self) -> bool {
        self.make.is_some()
    }

    pub fn close_extract(&mut self) {
        self.extract = None;
    }

    pub fn close_make(&mut self) {
        self.make = None;
    }

    pub fn show(
        &mut self,
        ctx: &egui::Context,
        packs: &[Pack],
        catalog: Option<&Catalog>,
        wf: &Workflow,
        actions: &mut Vec<Action>,
    ) {
        self.extract_window(ctx, packs, wf);
        self.make_window(ctx, wf);
        self.quit_question(ctx, actions);
        let mut ops = Vec::new();
        self.view.show(ctx, &self.docs, packs, &mut ops);
        for op in ops {
            self.run(op, packs, catalog, actions);
        }
    }

    fn run(&mut self, op: ViewOp, packs: &[Pack], catalog: Option<&Catalog>, actions: &mut Vec<Action>) {
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
            ViewOp::Dependencies(d) => {
                let Some(open) = self.docs.get_mut(d) else { return };
                let Some(catalog) = catalog else {
                    self.notes.push(Note::Error(Error::new(
                        code::INVALID_REQUEST,
                        "no node packs are loaded: open the node packs that provide the chains' typeIds first",
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
                            "Dependencies computed; no catalogued node pack provides {}",
                            types.join(", ")
                        )));
                    }
                    Err(e) => self.notes.push(Note::Error(e)),
                }
            }
            ViewOp::Edit(i) => match self.doc_for(packs, i) {
                Ok(d) => self.view.select(d, 0),
                Err(e) => self.notes.push(Note::Error(e)),
            },
            ViewOp::NewPack => {
                let d = self.new_doc("vendor.my.chains", "1.0.0");
                self.view.select(d, 0);
            }
            ViewOp::Save(d) => match self.docs.get(d).and_then(|o| o.doc.path()).map(Path::to_path_buf) {
                Some(path) => self.save(d, &path),
                None => actions.push(Action::AskFile(Purpose::SavePack)),
            },
            ViewOp::SaveAs => actions.push(Action::AskFile(Purpose::SavePack)),
            ViewOp::Sign(d) => {
                let Some(path) = self.docs.get(d).and_then(|o| o.doc.path()).map(Path::to_path_buf) else {
                    self.notes.push(Note::Error(Error::new(
                        code::INVALID_REQUEST,
                        "save the pack before signing it: the signature covers the saved pack.json",
                    )));
                    return;
                };
                if self.docs[d].doc.is_dirty() {
                    self.save(d, &path);
                }
                actions.push(Action::AskFile(Purpose::SigningKey));
            }
            ViewOp::GenerateKey => actions.push(Action::AskFile(Purpose::GenerateKey)),
        }
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

    /// Undo (or with `redo`, redo) the pack edit the pointer is over; `false` when it is not
    /// over the pack view.
    pub fn undo_under_pointer(&mut self, ctx: &egui::Context, redo: bool, packs: &[Pack]) -> bool {
        let Some(d) = self.view.undo_target(ctx) else { return false };
        let op = if redo { ViewOp::Redo(d) } else { ViewOp::Undo(d) };
        self.run(op, packs, None, &mut Vec::new());
        true
    }

    /// Save the pack view's pack to `path` (the answer to Save as…).
    pub fn save_view_pack(&mut self, path: &Path) {
        if let Some(d) = self.view.doc() {
            self.save(d, path);
        }
    }

    fn save(&mut self, d: usize, path: &Path) {
        let Some(open) = self.docs.get_mut(d) else { return };
        match open.doc.save(path) {
            Ok(file) => self.notes.push(Note::Status(format!("Saved pack {}", file.display()))),
            Err(e) => self.notes.push(Note::Error(e)),
        }
    }

    /// Sign the pack view's saved pack with the private key at `key` (v1 manual signature).
    pub fn sign_view_pack(&mut self, key: &Path) {
        let Some(open) = self.view.doc().and_then(|d| self.docs.get_mut(d)) else { return };
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

    fn extract_window(&mut self, ctx: &egui::Context, packs: &[Pack], wf: &Workflow) {
        let Some(d) = &mut self.extract else { return };
        // The target's current draft: its open document, or a read-only copy of the loaded pack.
        if let PackTarget::Loaded(i) = d.form.target
            && !self.docs.iter().any(|o| packs.get(i).is_some_and(|p| p.source == o.source))
            && d.loaded.as_ref().is_none_or(|(j, _)| *j != i)
        {
            d.loaded = packs.get(i).and_then(|p| PackDraft::from_pack(p, None).ok()).map(|draft| (i, draft));
            d.form.touch();
        }
        let target = match d.form.target {
            PackTarget::Loaded(i) => packs
                .get(i)
                .and_then(|p| self.docs.iter().find(|o| o.source == p.source))
                .map(|o| o.doc.draft())
                .or(d.loaded.as_ref().filter(|(j, _)| *j == i).map(|(_, draft)| draft)),
            PackTarget::New { .. } => None,
        };
        d.form.refresh(wf, target);
        let (mut confirm, mut cancel) = (false, false);
        let mut open = true;
        Scaffold::new(WindowId::Extract, "Extract as chain", &mut open).size([940.0, 620.0]).show(ctx, |ui| {
            (confirm, cancel) = extract_body(ui, d, packs, wf);
        });
        if !open || cancel {
            self.extract = None;
            return;
        }
        if confirm {
            self.confirm_extract(packs, wf);
        }
    }

    fn confirm_extract(&mut self, packs: &[Pack], wf: &Workflow) {
        let Some(d) = &self.extract else { return };
        let chain_id = d.form.chain_id.clone();
        let (doc, created) = match &d.form.target {
            PackTarget::New { name, version } => {
                let (name, version) = (name.clone(), version.clone());
                (self.new_doc(&name, &version), true)
            }
            PackTarget::Loaded(i) => match self.doc_for(packs, *i) {
                Ok(doc) => (doc, false),
                Err(e) => {
                    self.notes.push(Note::Error(e));
                    return;
                }
            },
        };
        let Some(d) = &mut self.extract else { return };
        match d.form.confirm(&mut self.docs[doc].doc, wf) {
            Ok((index, placement)) => {
                let pack = self.docs[doc].doc.draft().name().to_owned();
                let what = match placement {
                    crate::author::Placement::Added => "added to",
                    crate::author::Placement::Replaced => "replaced in",
                };
                self.notes.push(Note::Status(format!(
                    "Chain {chain_id} {what} pack {pack} (not saved yet: Pack view → Save)"
                )));
                self.view.select(doc, index);
                self.extract = None;
            }
            Err(e) => {
                if created {
                    self.docs.remove(doc);
                }
                self.notes.push(Note::Error(e));
            }
        }
    }

    fn make_window(&mut self, ctx: &egui::Context, wf: &Workflow) {
        let Some(m) = &mut self.make else { return };
        let (d, chain, _) = &m.into;
        let Some(open) = self.docs.get(*d) else {
            self.make = None;
            return;
        };
        let chain_label = open.doc.draft().chains().get(*chain).and_then(|c| c.get("label")).and_then(Value::as_str);
        let target = format!("“{}” in pack {}", chain_label.unwrap_or("?"), open.doc.draft().name());
        let mut answer = None;
        let mut keep = true;
        Scaffold::new(WindowId::MakeParameter, "Make parameter", &mut keep).fixed_size().show(ctx, |ui| {
            ui.label(wording::value_place(wf, &m.node, &m.pointer));
            ui.label(RichText::new(shown(&m.value)).monospace().color(theme::TEXT_DIM));
            ui.horizontal(|ui| {
                let label = ui.label("parameter name");
                ui.add(egui::TextEdit::singleline(&mut m.name).desired_width(200.0)).labelled_by(label.id);
            });
            ui.label(RichText::new(format!("The value becomes {{{{params.{}}}}} in {target}.", m.name)).small());
            if let Some(e) = &m.error {
                super::form::refusal(ui, e);
            }
            ui.horizontal(|ui| {
                if ui.button(RichText::new("Add to the chain").strong()).clicked() {
                    answer = Some(true);
                }
                if ui
                    .button("New draft chain…")
                    .on_hover_text("Extract a new chain with this value as a parameter")
                    .clicked()
                {
                    answer = Some(false);
                }
            });
        });
        if !keep {
            self.make = None;
            return;
        }
        match answer {
            Some(true) => {
                let (d, chain, fragment) = m.into.clone();
                let promotion = Promotion::new(&m.name, &fragment, &m.pointer);
                let cmd = crate::editor::pack_doc::PackCommand::Promote { chain, promotion };
                match self.docs[d].doc.apply(cmd) {
                    Ok(label) => {
                        self.notes.push(Note::Status(label));
                        self.view.select(d, chain);
                        self.make = None;
                    }
                    Err(e) => m.error = Some(e),
                }
            }
            Some(false) => {
                let m = self.make.take().expect("checked above");
                self.open_extract(wf, vec![m.node.clone()]);
                if let Some(d) = &mut self.extract {
                    d.focus = d.form.check_value(wf, &m.node, &m.pointer);
                }
            }
            None => {}
        }
    }
}

/// The value at `pointer` of a node (its members are the pointer's first segment).
fn value_in<'a>(node: &'a serde_json::Map<String, Value>, pointer: &str) -> Option<&'a Value> {
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

fn not_promotable(node: &str, pointer: &str) -> Error {
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

/// The dialog's content; returns whether Extract, and whether Cancel, was clicked.
fn extract_body(ui: &mut Ui, d: &mut ExtractDialog, packs: &[Pack], wf: &Workflow) -> (bool, bool) {
    let form = &d.form;
    let summary = selection_summary(&form.nodes, |id| wording::title(wf, id));
    ui.label(RichText::new(summary).color(theme::TEXT_DIM));
    let (confirm, cancel) =
        egui::Panel::bottom(Id::unique("cs-extract-actions")).show(ui, |ui| extract_actions(ui, form)).inner;
    let height = ui.available_height();
    let mut changed = false;
    ui.columns(2, |cols| {
        let scroll = |id| egui::ScrollArea::vertical().id_salt(id).max_height(height).auto_shrink([false, false]);
        scroll("cs-extract-left").show(&mut cols[0], |ui| {
            changed |= extract_target(ui, &mut d.form, packs);
            ui.add_space(6.0);
            changed |= extract_values(ui, d, wf);
        });
        scroll("cs-extract-right").show(&mut cols[1], |ui| extract_preview(ui, d));
    });
    if changed {
        d.form.touch();
    }
    (confirm, cancel)
}

/// The nodes being extracted, by id; a long selection names its first few and counts the
/// rest (all 100,000 ids of a large workflow filled the dialog, hiding its fields and
/// buttons).
fn selection_summary(nodes: &[String], title: impl Fn(&str) -> String) -> String {
    const NAMED: usize = 12;
    let named = nodes.iter().take(NAMED).map(|id| title(id)).collect::<Vec<_>>().join(", ");
    match nodes.len() {
        1 => format!("1 node: {named}"),
        n if n <= NAMED => format!("{n} nodes: {named}"),
        n => format!("{n} nodes: {named} and {} more", n - NAMED),
    }
}

/// Extract (enabled once the preview is a valid chain and every name is one) and Cancel;
/// returns which was clicked.
fn extract_actions(ui: &mut Ui, form: &ExtractForm) -> (bool, bool) {
    let (mut confirm, mut cancel) = (false, false);
    ui.add_space(4.0);
    let bad = form.bad_names();
    let ready = matches!(form.preview(), Some(Ok(_))) && bad.is_empty() && form.refusal.is_none();
    ui.horizontal(|ui| {
        let extract = ui.add_enabled(ready, egui::Button::new(RichText::new("Extract").strong()));
        if extract.clicked() {
            confirm = true;
        }
        extract.on_disabled_hover_text("Fix the problems shown first");
        if ui.button("Cancel").clicked() {
            cancel = true;
        }
        if !bad.is_empty() {
            ui.label(
                RichText::new(format!(
                    "Not a parameter name: {} (letters, digits and _, not starting with a digit)",
                    bad.join(", ")
                ))
                .color(theme::ERROR),
            );
        }
    });
    ui.add_space(2.0);
    (confirm, cancel)
}

/// Where the chain goes (a loaded chain pack or a new one) and what it is called; returns
/// whether anything changed.
fn extract_target(ui: &mut Ui, form: &mut ExtractForm, packs: &[Pack]) -> bool {
    let mut changed = false;
    egui::Grid::new("cs-extract-grid").num_columns(2).spacing([10.0, 6.0]).show(ui, |ui| {
        let pack_label = ui.label("pack");
        let chain_packs: Vec<usize> = (0..packs.len()).filter(|&i| packs[i].kind == PackKind::WorkflowChain).collect();
        let shown_target = match &form.target {
            PackTarget::New { .. } => "New pack".to_owned(),
            PackTarget::Loaded(i) => packs.get(*i).map_or("?".to_owned(), |p| p.name().to_owned()),
        };
        let combo = egui::ComboBox::from_id_salt("cs-extract-pack").selected_text(shown_target).width(260.0).show_ui(
            ui,
            |ui| {
                let is_new = matches!(form.target, PackTarget::New { .. });
                if ui.selectable_label(is_new, "New pack").clicked() && !is_new {
                    form.target = PackTarget::New { name: "vendor.my.chains".into(), version: "1.0.0".into() };
                    changed = true;
                }
                for i in chain_packs {
                    let sel = form.target == PackTarget::Loaded(i);
                    let text = format!("{} {}", packs[i].name(), packs[i].version());
                    if ui.selectable_label(sel, text).clicked() && !sel {
                        form.target = PackTarget::Loaded(i);
                        changed = true;
                    }
                }
            },
        );
        combo.response.labelled_by(pack_label.id);
        ui.end_row();
        if let PackTarget::New { name, version } = &mut form.target {
            changed |= labelled_text(ui, "new pack name", name);
            ui.end_row();
            changed |= labelled_text(ui, "new pack version", version);
            ui.end_row();
        }
        changed |= labelled_text(ui, "chainId", &mut form.chain_id);
        ui.end_row();
        changed |= labelled_text(ui, "label", &mut form.label);
        ui.end_row();
        let l = ui.label("description");
        changed |= ui
            .add(egui::TextEdit::multiline(&mut form.description).desired_rows(2).desired_width(300.0))
            .labelled_by(l.id)
            .changed();
        ui.end_row();
    });
    changed
}

/// The selection's values that can become parameters (each a checkbox and a name), then
/// the edges that cross the selection; returns whether anything changed.
fn extract_values(ui: &mut Ui, d: &mut ExtractDialog, wf: &Workflow) -> bool {
    let mut changed = false;
    let form = &mut d.form;
    ui.label(RichText::new("Values that can become parameters").strong());
    if let Some(e) = &form.refusal {
        super::form::refusal(ui, e);
    } else if form.rows.is_empty() {
        ui.label(RichText::new("The selected nodes hold no strings, numbers or booleans.").color(theme::TEXT_DIM));
    }
    // A row per value: its checkbox (wrapping) on one line, its name and value indented below.
    // No grid: a grid cell grows to its content, and a long node id and pointer pushed the
    // name and value columns past this column into the preview beside it.
    for (i, row) in form.rows.iter_mut().enumerate() {
        let place = wording::value_place(wf, &row.node, &row.candidate.pointer);
        let check = ui.checkbox(&mut row.checked, &place);
        changed |= check.changed();
        let name = ui
            .horizontal(|ui| {
                ui.add_space(24.0);
                let edit = egui::TextEdit::singleline(&mut row.name).hint_text("name");
                let name = ui.add_enabled_ui(row.checked, |ui| ui.add_sized([130.0, 20.0], edit)).inner;
                let value = RichText::new(shown(&row.candidate.value)).monospace().color(theme::TEXT_DIM);
                ui.add(egui::Label::new(value).truncate());
                name
            })
            .inner
            .labelled_by(check.id);
        changed |= name.changed();
        if d.focus == Some(i) {
            d.focus = None;
            name.request_focus();
            name.scroll_to_me(Some(egui::Align::Center));
        }
        ui.add_space(2.0);
    }
    let boundary = form.boundary();
    if !boundary.is_empty() {
        ui.add_space(6.0);
        ui.label(RichText::new("Edges crossing the selection (the splice wires them on insert)").strong());
        for b in boundary {
            let (from, to) = if b.incoming { (&b.outside, &b.inside) } else { (&b.inside, &b.outside) };
            let text = format!("{} ➡ {}", wording::title(wf, from), wording::title(wf, to));
            ui.label(RichText::new(text).small()).on_hover_text(format!("edge {}: {from} ➡ {to}", b.edge_id));
        }
    }
    changed
}

/// The chain as it would be extracted: its tile, its findings and its parameter form.
fn extract_preview(ui: &mut Ui, d: &mut ExtractDialog) {
    ui.label(RichText::new("Tile").strong());
    match d.form.preview() {
        Some(Ok(p)) => {
            let invalid = p.findings.iter().any(|f| f.is_error());
            palette::tile_card(ui, &p.chain, &[], invalid, false);
            for f in p.findings.iter().chain(&p.extraction.warnings) {
                let color = if f.is_error() { theme::ERROR } else { theme::WARN };
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new(f.code).monospace().small().color(color));
                    ui.label(RichText::new(&f.pointer).monospace().small().color(theme::TEXT_DIM));
                });
                ui.add(egui::Label::new(RichText::new(&f.message).small()).wrap());
            }
            ui.add_space(6.0);
            ui.label(RichText::new("Its parameter form").strong());
            let revision = d.form.preview_revision();
            if d.form_preview.as_ref().is_none_or(|(made_from, _)| *made_from != revision) {
                d.form_preview = Some((revision, FormSession::preview_of(&p.chain)));
            }
            if let Some((_, session)) = &mut d.form_preview {
                session.show_fields(ui, &p.chain);
            }
        }
        Some(Err(e)) => super::form::refusal(ui, e),
        None => {}
    }
}

/// A labelled single-line field in a grid row; returns whether it changed.
fn labelled_text(ui: &mut Ui, label: &str, text: &mut String) -> bool {
    let l = ui.label(label);
    ui.add(egui::TextEdit::singleline(text).desired_width(300.0)).labelled_by(l.id).changed()
}

#[cfg(test)]
mod tests {
    use super::selection_summary;

    #[test]
    fn a_long_selection_is_summed_up_not_listed() {
        let ids = |n: usize| (0..n).map(|i| format!("n{i}")).collect::<Vec<_>>();
        let same = |id: &str| id.to_owned();
        assert_eq!(selection_summary(&ids(1), same), "1 node: n0");
        assert_eq!(selection_summary(&ids(3), same), "3 nodes: n0, n1, n2");
        let long = selection_summary(&ids(100_000), same);
        assert!(long.starts_with("100000 nodes: n0, n1,"), "{long}");
        assert!(long.ends_with("n11 and 99988 more"), "{long}");
    }
}

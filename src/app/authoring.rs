//! Chain-pack authoring in the editor: the packs open for editing, the "Extract as chain"
//! dialog, the inspector's "Make parameter" window, and the pack view (in [`super::pack_view`]).
//! The packs themselves are [`PackDocs`] (GUI-free): every change goes through their pack
//! documents' commands (exact undo); after each frame the edited packs replace their loaded
//! copies, so the palette's tiles follow at once.

use super::action::Action;
use super::form::FormSession;
use super::pack_view::PackView;
use super::window::{Scaffold, WindowId};
use super::{palette, theme};
use crate::author::PackDraft;
use crate::catalog::Catalog;
use crate::editor::authoring::{Next, Note, PackDocs, ViewOp, not_promotable};
use crate::editor::commands::CommandId;
use crate::editor::extraction::{ExtractForm, PackTarget, shown};
use crate::editor::file_dialog::Purpose;
use crate::editor::wording;
use crate::error::{Error, code};
use crate::pack::{Pack, PackKind};
use crate::workflow::Workflow;
use egui::{Id, RichText, Ui};
use serde_json::Value;
use std::path::Path;

#[derive(Default)]
pub struct Authoring {
    /// The packs open for editing and the notes their changes leave.
    pub model: PackDocs,
    extract: Option<ExtractDialog>,
    make: Option<MakeParam>,
    pub view: PackView,
    /// Quitting waits for an answer about edited packs not saved.
    asking_quit: bool,
    /// The answer was "quit anyway".
    quit_agreed: bool,
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
    /// Whether a quit must wait: edited packs are not saved (the question opens).
    pub fn holds_quit(&mut self) -> bool {
        let holds = !self.quit_agreed && self.model.docs.iter().any(|d| d.doc.is_dirty());
        self.asking_quit |= holds;
        holds
    }

    /// The question before quitting with edited packs not saved.
    fn quit_question(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        if !self.asking_quit {
            return;
        }
        let unsaved: Vec<(usize, String)> = (self.model.docs.iter().enumerate())
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
            self.model.notes.push(Note::Error(Error::new(
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
        if self.extract.is_none() {
            if let Some(t) = self.model.promotion_target(wf, node, pointer) {
                let (node, pointer) = (node.to_owned(), pointer.to_owned());
                self.make = Some(MakeParam { node, pointer, value: t.value, name: t.name, into: t.into, error: None });
                return;
            }
            let nodes = if selection.iter().any(|n| n == node) { selection } else { vec![node.to_owned()] };
            self.open_extract(wf, nodes);
        }
        if let Some(d) = &mut self.extract {
            match d.form.check_value(wf, node, pointer) {
                Some(i) => d.focus = Some(i),
                None => self.model.notes.push(Note::Error(not_promotable(node, pointer))),
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

    /// Draw the authoring windows and apply what they ask for.
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
        self.view.show(ctx, &self.model.docs, packs, &mut ops);
        for op in ops {
            self.run(op, packs, catalog, actions);
        }
    }

    fn run(&mut self, op: ViewOp, packs: &[Pack], catalog: Option<&Catalog>, actions: &mut Vec<Action>) {
        let purpose = match self.model.apply(op, packs, catalog) {
            Some(Next::Select(d, chain)) => return self.view.select(d, chain),
            Some(Next::SavePath) => Purpose::SavePack,
            Some(Next::SigningKey) => Purpose::SigningKey,
            Some(Next::KeyPath) => Purpose::GenerateKey,
            None => return,
        };
        actions.push(Action::AskFile(purpose));
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
            self.model.save(d, path);
        }
    }

    /// Sign the pack view's saved pack with the private key at `key`.
    pub fn sign_view_pack(&mut self, key: &Path) {
        if let Some(d) = self.view.doc() {
            self.model.sign(d, key);
        }
    }

    fn extract_window(&mut self, ctx: &egui::Context, packs: &[Pack], wf: &Workflow) {
        let Some(d) = &mut self.extract else { return };
        // The target's current draft: its open document, or a read-only copy of the loaded pack.
        if let PackTarget::Loaded(i) = d.form.target
            && !self.model.docs.iter().any(|o| packs.get(i).is_some_and(|p| p.source == o.source))
            && d.loaded.as_ref().is_none_or(|(j, _)| *j != i)
        {
            d.loaded = packs.get(i).and_then(|p| PackDraft::from_pack(p, None).ok()).map(|draft| (i, draft));
            d.form.touch();
        }
        let target = match d.form.target {
            PackTarget::Loaded(i) => packs
                .get(i)
                .and_then(|p| self.model.docs.iter().find(|o| o.source == p.source))
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
        let Some(d) = &mut self.extract else { return };
        if let Some((doc, index)) = self.model.extract(&mut d.form, packs, wf) {
            self.view.select(doc, index);
            self.extract = None;
        }
    }

    fn make_window(&mut self, ctx: &egui::Context, wf: &Workflow) {
        let Some(m) = &mut self.make else { return };
        let (d, chain, _) = &m.into;
        let Some(open) = self.model.docs.get(*d) else {
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
            Some(true) => match self.model.promote(&m.into, &m.name, &m.pointer) {
                Ok(label) => {
                    self.model.notes.push(Note::Status(label));
                    self.view.select(m.into.0, m.into.1);
                    self.make = None;
                }
                Err(e) => m.error = Some(e),
            },
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

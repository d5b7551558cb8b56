//! Chain-pack authoring in the editor: the packs open for editing, the "Extract as chain"
//! dialog, the inspector's "Make parameter" window, and the pack view (in [`super::pack_view`]).
//! The model is [`AuthoringSession`] (GUI-free): the packs ([`crate::editor::authoring::PackDocs`]),
//! whose every change goes through their pack documents' commands (exact undo), and the
//! questions open about them; after each frame the edited packs replace their loaded copies,
//! so the palette's tiles follow at once.

use super::action::Action;
use super::form::FormSession;
use super::pack_view::PackView;
use super::window::{Window, WindowId, show_some};
use super::{palette, theme};
use crate::catalog::Catalog;
use crate::editor::authoring::ViewOp;
use crate::editor::authoring::session::{AuthoringSession, ExtractDialog, MakeParam, selection_summary};
use crate::editor::commands::CommandId;
use crate::editor::extraction::{ExtractForm, PackTarget, shown};
use crate::editor::insert_form::InsertForm;
use crate::editor::wording;
use crate::pack::{Pack, PackKind};
use crate::workflow::Workflow;
use egui::{Id, RichText, Ui};

/// The authoring windows' own state; their model is the editor model's [`AuthoringSession`].
#[derive(Default)]
pub struct Authoring {
    pub view: PackView,
    /// The extract dialog's form preview, rebuilt when the previewed chain changes; keyed
    /// by the preview it was made from ([`ExtractForm::preview_revision`]).
    form_preview: Option<(u64, FormSession)>,
    /// Esc was pressed this frame while a modal question was up (the shell takes it out of
    /// the input before anything else sees it).
    pub modal_escape: bool,
}

/// What the extract window reads while it draws.
pub struct ExtractInput<'a> {
    packs: &'a [Pack],
    wf: &'a Workflow,
    form_preview: &'a mut Option<(u64, FormSession)>,
}

impl Window for Option<ExtractDialog> {
    type Input<'a> = ExtractInput<'a>;
    /// Extract was clicked.
    type Response = bool;
    const ID: WindowId = WindowId::Extract;
    const SIZE: Option<egui::Vec2> = Some(egui::vec2(940.0, 620.0));

    fn close(&mut self) -> bool {
        self.take().is_some()
    }

    fn show(&mut self, ctx: &egui::Context, input: ExtractInput<'_>) -> bool {
        let ExtractInput { packs, wf, form_preview } = input;
        let body = |ui: &mut Ui, d: &mut ExtractDialog| extract_body(ui, d, packs, wf, form_preview);
        let (confirm, cancel) = show_some::<Self, _, _>(ctx, self, "Extract as chain", |s| s, body).unwrap_or_default();
        if cancel {
            self.close();
        }
        confirm
    }
}

impl Window for Option<MakeParam> {
    /// The workflow, and what the value is promoted into, in words.
    type Input<'a> = (&'a Workflow, String);
    /// `Some(true)`: "Add to the chain"; `Some(false)`: "New draft chain…".
    type Response = Option<bool>;
    const ID: WindowId = WindowId::MakeParameter;
    const SIZE: Option<egui::Vec2> = None;

    fn close(&mut self) -> bool {
        self.take().is_some()
    }

    fn show(&mut self, ctx: &egui::Context, (wf, target): (&Workflow, String)) -> Option<bool> {
        show_some::<Self, _, _>(ctx, self, "Make parameter", |s| s.fixed_size(), |ui, m| make_body(ui, m, wf, &target))
            .flatten()
    }
}

impl Authoring {
    /// The question before quitting with edited packs not saved.
    fn quit_question(&mut self, ctx: &egui::Context, session: &mut AuthoringSession, actions: &mut Vec<Action>) {
        if !session.asking_quit() {
            return;
        }
        let unsaved = session.unsaved_packs();
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
        let Some(quit) = answer else { return };
        if quit {
            actions.push(Action::Run(CommandId::Quit));
        }
        if session.answer_quit(quit) {
            self.view.open = true;
        }
    }

    /// Draw the authoring windows over `session` and apply what they ask for.
    pub fn show(
        &mut self,
        ctx: &egui::Context,
        session: &mut AuthoringSession,
        packs: &[Pack],
        catalog: Option<&Catalog>,
        wf: &Workflow,
        actions: &mut Vec<Action>,
    ) {
        session.refresh_extract(packs, wf);
        let input = ExtractInput { packs, wf, form_preview: &mut self.form_preview };
        if session.extract.show(ctx, input) {
            session.confirm_extract(packs, wf);
        }
        if session.extract.is_none() {
            // A new dialog's previews count from 0 again.
            self.form_preview = None;
        }
        if let Some(target) = session.make_target()
            && let Some(add) = session.make.show(ctx, (wf, target))
        {
            session.answer_make(wf, add);
        }
        self.quit_question(ctx, session, actions);
        for op in self.view.show(ctx, (&session.model.docs, packs, &mut session.shown)) {
            if let Some(purpose) = session.apply_view(op, packs, catalog) {
                actions.push(Action::AskFile(purpose));
            }
        }
    }

    /// The pack document whose history Ctrl+Z and Ctrl+Shift+Z step through: the one the
    /// pack view shows while the pointer is over it (elsewhere they undo the workflow's edits).
    pub fn undo_target(&self, ctx: &egui::Context, session: &AuthoringSession) -> Option<usize> {
        session.shown.doc.filter(|_| self.view.under_pointer(ctx))
    }

    /// Undo (or with `redo`, redo) the pack edit the pointer is over; `false` when it is not
    /// over the pack view.
    pub fn undo_under_pointer(
        &self,
        ctx: &egui::Context,
        redo: bool,
        session: &mut AuthoringSession,
        packs: &[Pack],
    ) -> bool {
        let Some(d) = self.undo_target(ctx, session) else { return false };
        let op = if redo { ViewOp::Redo(d) } else { ViewOp::Undo(d) };
        session.apply_view(op, packs, None);
        true
    }
}

/// The make-parameter window's content; `Some(true)`: "Add to the chain", `Some(false)`:
/// "New draft chain…".
fn make_body(ui: &mut Ui, m: &mut MakeParam, wf: &Workflow, target: &str) -> Option<bool> {
    let mut answer = None;
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
        if ui.button("New draft chain…").on_hover_text("Extract a new chain with this value as a parameter").clicked()
        {
            answer = Some(false);
        }
    });
    answer
}

/// The dialog's content; returns whether Extract, and whether Cancel, was clicked.
fn extract_body(
    ui: &mut Ui,
    d: &mut ExtractDialog,
    packs: &[Pack],
    wf: &Workflow,
    form_preview: &mut Option<(u64, FormSession)>,
) -> (bool, bool) {
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
        scroll("cs-extract-right").show(&mut cols[1], |ui| extract_preview(ui, &d.form, form_preview));
    });
    if changed {
        d.form.touch();
    }
    (confirm, cancel)
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
fn extract_preview(ui: &mut Ui, form: &ExtractForm, form_preview: &mut Option<(u64, FormSession)>) {
    ui.label(RichText::new("Tile").strong());
    match form.preview() {
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
            let revision = form.preview_revision();
            if form_preview.as_ref().is_none_or(|(made_from, _)| *made_from != revision) {
                *form_preview = Some((revision, InsertForm::preview_of(&p.chain).into()));
            }
            if let Some((_, session)) = form_preview {
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

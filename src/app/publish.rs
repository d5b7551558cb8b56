//! The "Publish as tool" window: a chain, or the whole workflow being edited, projected into
//! the CompactToolDescriptor and the MiRuntime tool contract side by side, each with its
//! validity against the bundled schema, the eligibility findings, and the two choices an
//! author makes before publishing: the toolId and the safetyTier.
//!
//! Projections are recomputed only when an input changes (the workflow's revision, the loaded
//! packs, the toolId text or the tier), never per frame. Copy and save are offered only for
//! publishable documents, as the CLI prints only documents that validate. Where to save is
//! asked like every other file question ([`Purpose::SaveTool`]), so the in-app file dialog
//! answers when the system one cannot be shown.

use super::action::{Action, Subject};
use super::palette::badge;
use super::theme;
use super::window::{Scaffold, Window, WindowId};
use crate::editor::file_dialog::Purpose;
use crate::editor::publish::{Computed, Side, document_name, invalid_text, plural, rows};
use crate::editor::publish_session::{PublishSession, Sources};
use crate::tool::{SafetyTier, ToolFormat, check_tool_id};
use egui::{RichText, Ui};

/// The tiers an author may choose: `exec` belongs to host extensions, never to a workflow.
const TIERS: [SafetyTier; 3] = [SafetyTier::Pure, SafetyTier::Read, SafetyTier::Write];

const WINDOW_SIZE: egui::Vec2 = egui::vec2(1040.0, 680.0);

/// Height of the findings list: fixed, so the window keeps its size while findings come and go.
const FINDINGS_HEIGHT: f32 = 130.0;

/// A button press, handled after the window is drawn (it needs the clipboard or a dialog).
enum Request {
    Copy(ToolFormat),
    Save(ToolFormat),
}

/// Draw the window; `false` once the author closed it.
fn show(p: &mut PublishSession, ctx: &egui::Context, src: &Sources, actions: &mut Vec<Action>) -> bool {
    if p.refresh(src) {
        p.status = None;
    }
    let title = match (&p.subject, &p.computed) {
        (Subject::Workflow, _) => "Publish workflow as tool".to_owned(),
        (Subject::Chain { .. }, Ok(c)) => format!("Publish “{}” as tool", c.title),
        (Subject::Chain { chain_id, .. }, Err(_)) => format!("Publish {chain_id} as tool"),
    };
    let mut open = true;
    let mut request = None;
    Scaffold::of::<Option<PublishSession>>(title, &mut open)
        .centred(ctx, WINDOW_SIZE)
        .constrained()
        .show(ctx, |ui| request = contents(p, ui, src));
    match request {
        Some(Request::Copy(format)) => {
            if let Some(text) = p.copy_text(format) {
                ctx.copy_text(text);
            }
        }
        Some(Request::Save(format)) => {
            if p.publishable(format) {
                actions.push(Action::AskFile(Purpose::SaveTool(format)));
            }
        }
        None => return open,
    }
    // The outcome is shown in the window, which was drawn before it was known.
    ctx.request_repaint();
    open
}

fn contents(p: &mut PublishSession, ui: &mut Ui, src: &Sources) -> Option<Request> {
    let (about, derived_tier) = match &p.computed {
        Ok(c) => (c.about.clone(), c.derived_tier),
        Err(message) => {
            ui.label(RichText::new(message.as_str()).color(theme::ERROR));
            return None;
        }
    };
    ui.label(RichText::new(about).color(theme::TEXT_DIM));
    choices(p, ui, derived_tier);
    // Show this frame's edit now rather than a frame late.
    if p.refresh(src) {
        p.status = None;
    }
    let Ok(c) = &p.computed else { return None };
    let workflow = matches!(p.subject, Subject::Workflow);
    // Panels share out the rest of the window exactly; content sized from the available
    // height alone would make a resizable window grow to fit it, frame after frame.
    let bare = egui::Frame::new().inner_margin(egui::Margin::symmetric(0, 4));
    egui::Panel::bottom("cs-publish-findings").resizable(false).frame(bare).show(ui, |ui| {
        ui.separator();
        findings(ui, c, workflow, p.status.as_ref());
    });
    let mut request = None;
    egui::CentralPanel::no_frame().show(ui, |ui| {
        ui.separator();
        ui.columns(2, |cols| {
            for (ui, format) in cols.iter_mut().zip([ToolFormat::Compact, ToolFormat::MiRuntime]) {
                if let Some(r) = document(ui, format, c.side(format)) {
                    request = Some(r);
                }
            }
        });
    });
    request
}

/// The toolId field with its inline error, and the tier choice.
fn choices(p: &mut PublishSession, ui: &mut Ui, derived_tier: Option<SafetyTier>) {
    let scope_hint = match p.subject {
        Subject::Chain { .. } => "a chain's scope is its pack name",
        Subject::Workflow => "a workflow's scope is workflow unless you name another (openwop is reserved)",
    };
    ui.horizontal(|ui| {
        let label = ui.label("Tool id");
        let edit = egui::TextEdit::singleline(&mut p.tool_id)
            .font(egui::TextStyle::Monospace)
            .hint_text("<scope>:<tool-id>")
            .desired_width(420.0);
        ui.add(edit).labelled_by(label.id).on_hover_text(scope_hint);
        ui.add_space(12.0);
        let label = ui.label("Safety tier");
        let effective = p.tier.or(derived_tier);
        let shown = match (p.tier, derived_tier) {
            (Some(t), _) => format!("{t} (override)"),
            (None, Some(t)) => format!("{t} (derived)"),
            (None, None) => "unknown".to_owned(),
        };
        let mut chosen = None;
        let combo = egui::ComboBox::from_id_salt("cs-publish-tier").selected_text(shown).show_ui(ui, |ui| {
            for t in TIERS {
                let text = if Some(t) == derived_tier { format!("{t} (derived)") } else { t.to_string() };
                if ui.selectable_label(effective == Some(t), text).clicked() {
                    chosen = Some(t);
                }
            }
        });
        combo
            .response
            .labelled_by(label.id)
            .on_hover_text("exec is reserved for host-extension tools: a workflow tool is pure, read or write");
        if let Some(t) = chosen {
            p.choose_tier(t);
            // The combo's text was drawn before the choice.
            ui.ctx().request_repaint();
        }
        let derived_id = p.computed.as_ref().ok().map(|c| c.derived_tool_id.as_str());
        let overridden = p.tier.is_some() || derived_id.is_some_and(|d| d != p.tool_id);
        if ui
            .add_enabled(overridden, egui::Button::new("Reset"))
            .on_hover_text("Use the derived toolId and safetyTier")
            .clicked()
        {
            p.reset();
        }
    });
    // One line either way, so the layout does not jump while typing.
    match check_tool_id(&p.tool_id) {
        Ok(()) => ui.label(RichText::new(format!("Form <scope>:<tool-id>: {scope_hint}")).color(theme::TEXT_DIM)),
        Err(message) => ui.label(RichText::new(message).color(theme::ERROR)),
    };
}

/// The Publish window is open while it holds a subject.
impl Window for Option<PublishSession> {
    type Input<'a> = &'a Sources<'a>;
    type Response = Vec<Action>;
    const ID: WindowId = WindowId::Publish;
    const SIZE: Option<egui::Vec2> = Some(WINDOW_SIZE);

    fn close(&mut self) -> bool {
        self.take().is_some()
    }

    fn show(&mut self, ctx: &egui::Context, src: &Sources) -> Vec<Action> {
        let mut actions = Vec::new();
        if let Some(publish) = self
            && !show(publish, ctx, src, &mut actions)
        {
            *self = None;
        }
        actions
    }
}

/// One side: its name and validity, its buttons, and its JSON.
fn document(ui: &mut Ui, format: ToolFormat, side: &Side) -> Option<Request> {
    let name = document_name(format);
    let short = match format {
        ToolFormat::Compact => "compact",
        ToolFormat::MiRuntime => "MiRuntime",
    };
    let p = &side.projection;
    let valid = p.is_valid();
    let mut request = None;
    ui.horizontal(|ui| {
        ui.label(RichText::new(name).strong());
        let (text, color) = if valid { ("valid".to_owned(), theme::OK) } else { (invalid_text(p), theme::ERROR) };
        badge(ui, &text, color).accessible_name(format!("{name}: {text}"));
    });
    ui.horizontal(|ui| {
        let why = "Not publishable: fix the errors listed below";
        if ui.add_enabled(valid, egui::Button::new(format!("Copy {short}"))).on_disabled_hover_text(why).clicked() {
            request = Some(Request::Copy(format));
        }
        if ui.add_enabled(valid, egui::Button::new(format!("Save {short}…"))).on_disabled_hover_text(why).clicked() {
            request = Some(Request::Save(format));
        }
    });
    // A code block: a dark well the text sits in, unframed itself.
    let well = egui::Frame::new()
        .fill(ui.visuals().extreme_bg_color)
        .stroke(egui::Stroke::new(1.0, theme::CARD_BORDER))
        .corner_radius(4.0)
        .inner_margin(4.0);
    well.show(ui, |ui| {
        let area = egui::ScrollArea::both().id_salt(("cs-publish-json", short));
        area.auto_shrink([false, false]).show(ui, |ui| {
            // JSON reads best unwrapped; the area scrolls sideways instead.
            let mut layouter = |ui: &Ui, text: &dyn egui::TextBuffer, _wrap: f32| {
                let font = egui::TextStyle::Monospace.resolve(ui.style());
                let job = egui::text::LayoutJob::simple(text.as_str().to_owned(), font, theme::TEXT, f32::INFINITY);
                ui.fonts_mut(|f| f.layout_job(job))
            };
            let mut text = side.text.as_str();
            let edit =
                egui::TextEdit::multiline(&mut text).code_editor().frame(egui::Frame::new()).layouter(&mut layouter);
            ui.add(edit).accessible_name(format!("{name} JSON"));
        });
    });
    request
}

/// The findings list, with the outcome of the last copy or save in its header.
fn findings(ui: &mut Ui, c: &Computed, workflow: bool, status: Option<&Result<String, String>>) {
    let rows = rows(c, workflow);
    let errors = rows.iter().filter(|r| r.error).count();
    let notes = rows.len() - errors;
    ui.horizontal(|ui| {
        ui.label(RichText::new("Findings").strong());
        ui.label(
            RichText::new(format!("{errors} error{}, {notes} note{}", plural(errors), plural(notes)))
                .color(theme::TEXT_DIM),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| match status {
            Some(Ok(text)) => ui.label(RichText::new(text.as_str()).color(theme::OK)),
            Some(Err(text)) => ui.label(RichText::new(text.as_str()).color(theme::ERROR)),
            None => ui.label(""),
        });
    });
    let area = egui::ScrollArea::vertical().id_salt("cs-publish-findings").auto_shrink([false, false]);
    area.min_scrolled_height(FINDINGS_HEIGHT).max_height(FINDINGS_HEIGHT).show(ui, |ui| {
        if rows.is_empty() {
            ui.label(RichText::new("Nothing to report: both documents are derived as they are.").color(theme::OK));
        }
        for r in &rows {
            let color = if r.error { theme::ERROR } else { theme::WARN };
            ui.horizontal_wrapped(|ui| {
                // What happened first; which document, where and the code after it.
                ui.label(RichText::new(if r.error { "error" } else { "note" }).small().strong().color(color));
                ui.label(r.message);
                ui.label(RichText::new(r.docs).small().color(theme::TEXT_DIM));
                if !r.pointer.is_empty() {
                    ui.label(RichText::new(&r.pointer).monospace().small().color(theme::TEXT_DIM))
                        .on_hover_text(r.pointer_hover);
                }
                ui.label(RichText::new(&r.code).monospace().small().color(color));
            });
        }
    });
}

//! The parameter form: widgets drawn from the core's `Form` model, validated on every edit
//! with the chain's compiled validator. A field's errors show (outline and message) once it
//! has been touched or Insert was reached for; a summary lists every failing path; Insert
//! stays disabled while anything is invalid.

use super::preview_pane::show_pane;
use super::theme;
use crate::catalog::Trust;
use crate::editor::extraction::shown;
use crate::editor::insert_session::InsertSession;
use crate::editor::packs::PackId;
use crate::error::{Error, code};
use crate::pack::{Chain, Pack};
use crate::params::{
    Field, FieldKind, Form, ParamError, ScalarKind, map_errors, owner_field, set_value_at, typed_number, value_at,
};
use crate::workflow::Workflow;
use egui::{Id, RichText, Stroke, StrokeKind, Ui};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

pub use crate::editor::insert_session::FormMode;

/// An open parameter form: the session's model (`editor::insert_session`), which it
/// dereferences to, and the fields as typed.
pub struct FormSession {
    session: InsertSession,
    fields: Fields,
    /// Frames drawn so far: the canvas has its docked size from the second one on.
    frames_shown: u32,
    /// Whether the app has framed the preview on the canvas yet.
    pub positioned: bool,
    /// The canvas region framed last (ghosts and the parents they wire to).
    pub framed: Option<egui::Rect>,
}

impl std::ops::Deref for FormSession {
    type Target = InsertSession;
    fn deref(&self) -> &InsertSession {
        &self.session
    }
}

impl std::ops::DerefMut for FormSession {
    fn deref_mut(&mut self) -> &mut InsertSession {
        &mut self.session
    }
}

/// The fields of a form being filled in, shared by the chain parameter form and the
/// inspector's node config form: values kept as typed, per-field errors shown once a field
/// has been touched (or every one after a refused submit), and a summary of every problem.
/// The owner validates the values and hands the errors over with [`Fields::set_errors`].
pub struct Fields {
    form: Form,
    values: Map<String, Value>,
    /// Raw JSON text of open-ended fields, by pointer, while it does not parse.
    raw_text: HashMap<String, String>,
    parse_errors: HashMap<String, String>,
    touched: HashSet<String>,
    /// Set when submitting was reached for: every error shows.
    show_all: bool,
    errors: Vec<ParamError>,
    /// Field pointer → its messages.
    field_errors: HashMap<String, Vec<String>>,
    /// A field to focus and scroll to on the next frame (an error summary entry was clicked).
    focus: Option<String>,
    /// A value changed since the owner last validated.
    stale: bool,
    /// Offer "Make parameter…" on each field's label (the inspector's node config form).
    pub offer_promotion: bool,
    /// The field whose "Make parameter…" was chosen, until the owner takes it.
    promoted: Option<String>,
    /// Enter was pressed in a one-line field this frame (the owner submits).
    entered: bool,
}

/// The docked form's height when it first opens (the user may drag its edge).
pub const HEIGHT: f32 = 380.0;

/// The error summary's largest height: past it, it scrolls. Below it, it takes the lines
/// it has, and the fields above get the rest.
const SUMMARY_MAX: f32 = 64.0;

/// What the user asked for this frame.
pub enum FormEvent {
    Submit,
    Cancel,
}

/// What the user asked of the form this frame (the canvas's `CanvasResponse` shape).
pub struct FormResponse {
    pub event: Option<FormEvent>,
    /// A node picked in the preview: the canvas selects its ghost.
    pub selected_ghost: Option<usize>,
}

impl FormSession {
    pub fn new(
        pack: Option<PackId>,
        chain: &Chain,
        mode: FormMode,
        expansion_id: String,
        values: Option<Map<String, Value>>,
    ) -> Self {
        Self::from_session(InsertSession::new(pack, chain, mode, expansion_id), chain, values)
    }

    /// The form of an opened session on `chain`, with these values or the form's initial ones.
    pub fn from_session(session: InsertSession, chain: &Chain, values: Option<Map<String, Value>>) -> Self {
        let form = Form::from_schema(chain.parameters());
        let values = values.unwrap_or_else(|| form.initial_values());
        Self { session, fields: Fields::new(form, values), frames_shown: 0, positioned: false, framed: None }
    }

    /// The values to expand with.
    pub fn values(&self) -> &Map<String, Value> {
        self.fields.values()
    }

    /// Start with the keyboard in the first field (a form the user is about to fill in).
    pub fn focus_first_field(&mut self) {
        self.fields.focus_first();
    }

    pub fn is_valid(&self) -> bool {
        self.session.accepts(!self.fields.has_problems())
    }

    /// Whether the canvas has been laid out beside the docked form (preview framing waits).
    pub fn docked(&self) -> bool {
        self.frames_shown >= 2
    }

    /// Show the errors of every field (after a submit attempt that was refused).
    pub fn reveal_errors(&mut self) {
        self.fields.reveal();
    }

    /// Re-validate and re-preview after an edit, and re-place when the workflow changed.
    fn refresh(&mut self, trust: &Trust, pack: &Pack, chain: &Chain, wf: &Workflow, revision: u64) {
        if !self.fields.stale && self.session.is_placed_on(revision) {
            return;
        }
        self.validate(chain);
        let valid = !self.fields.has_problems();
        self.session.preview(trust, pack, chain, wf, revision, self.fields.values(), valid);
    }

    fn validate(&mut self, chain: &Chain) {
        let errors = self.session.validate(chain, self.fields.values());
        self.fields.set_errors(errors);
    }

    /// The form of a chain being authored, as users will see it when they drop its tile:
    /// the same fields and checks, every error shown from the start (a default its own
    /// schema refuses shows at once). It inserts nothing; build a new one when the schema
    /// changes.
    pub fn preview_of(chain: &Chain) -> Self {
        let mode = FormMode::Insert { at: (0.0, 0.0), on_edge: None, after: None };
        let mut session = Self::new(None, chain, mode, format!("preview-{}", chain.chain_id()), None);
        session.fields.reveal();
        session
    }

    /// Draw only the fields and the problem summary, validated against `chain` after each edit.
    pub fn show_fields(&mut self, ui: &mut Ui, chain: &Chain) {
        if self.fields.stale {
            self.validate(chain);
        }
        if self.fields.form.fields.is_empty() {
            ui.label(RichText::new("This chain takes no parameters.").color(theme::TEXT_DIM));
        }
        self.fields.show(ui);
        self.summary(ui);
        if self.fields.stale {
            ui.ctx().request_repaint();
        }
    }

    /// The form, docked below the canvas (the caller gives it a panel of its own, so it never
    /// moves, never covers the inspector, and the canvas above frames the preview). Fields and
    /// preview scroll inside; the problems and the buttons stay at the bottom. Returns what
    /// the user chose.
    pub fn show(&mut self, ui: &mut Ui, trust: &Trust, pack: &Pack, wf: &Workflow, revision: u64) -> FormResponse {
        let Some(chain) = self.session.chain(pack) else {
            return FormResponse { event: Some(FormEvent::Cancel), selected_ghost: None };
        };
        self.refresh(trust, pack, chain, wf, revision);
        self.frames_shown = self.frames_shown.saturating_add(1);
        let (title, verb) = match &self.mode {
            FormMode::Insert { .. } => (format!("Insert “{}”", chain.label()), "Insert"),
            FormMode::Reparameterise { .. } => (format!("Parameters of “{}”", chain.label()), "Apply"),
        };
        let mut event = None;
        // A panel takes the height of what it holds as its size for the next frame: filling
        // it exactly keeps that the height the user gave it, however the content changes.
        ui.set_min_height(ui.available_height());
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            ui.add(egui::Label::new(RichText::new(&title).heading()).truncate());
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.small_button("🗙").on_hover_text("Cancel (Esc)").clicked() {
                    event = Some(FormEvent::Cancel);
                }
            });
        });
        self.header(ui, chain, pack);
        // The buttons keep their place at the bottom whatever the summary above them holds;
        // the summary grows upwards into the fields' viewport, which scrolls, so neither the
        // form's top edge nor a field's place on it moves.
        self.action_bar(ui, verb, &mut event);
        if !self.conflicts.is_empty() {
            egui::Panel::bottom(Id::unique("cs-form-conflicts")).resizable(false).show(ui, |ui| {
                let session = &mut self.session;
                super::conflicts::show(ui, &session.conflicts, &mut session.resolutions);
            });
        }
        egui::Panel::bottom(Id::unique("cs-form-summary")).resizable(false).show(ui, |ui| {
            ui.add_space(4.0);
            let summary = egui::ScrollArea::vertical().id_salt("cs-form-summary").auto_shrink([false, true]);
            summary.max_height(SUMMARY_MAX).show(ui, |ui| {
                self.summary(ui);
            });
        });
        let selected_ghost = self.columns(ui, chain);
        let ctx = ui.ctx();
        self.keys(ctx, &mut event);
        // A value changed while drawing: validate and preview it now, not at the next mouse move.
        if self.fields.stale {
            ctx.request_repaint();
        }
        FormResponse { event, selected_ghost }
    }

    /// The buttons at the form's bottom, which keep their place whatever the summary holds.
    fn action_bar(&mut self, ui: &mut Ui, verb: &str, event: &mut Option<FormEvent>) {
        egui::Panel::bottom(Id::unique("cs-form-actions")).resizable(false).show_separator_line(false).show(ui, |ui| {
            ui.add_space(2.0);
            ui.horizontal(|ui| {
                let valid = self.is_valid();
                let insert = ui.add_enabled(valid, egui::Button::new(RichText::new(verb).strong()));
                if insert.clicked() {
                    *event = Some(FormEvent::Submit);
                }
                if !valid && insert.hovered() {
                    self.fields.reveal();
                }
                insert.on_disabled_hover_text("Fix the problems listed above first.");
                if ui.button("Cancel").clicked() {
                    *event = Some(FormEvent::Cancel);
                }
                ui.label(RichText::new("Enter confirms · Tab moves · Esc cancels").small().color(theme::TEXT_DIM));
            });
            ui.add_space(2.0);
        });
    }

    /// The fields on the left and the preview of the expansion on the right; returns the
    /// node picked in the preview, if one was.
    fn columns(&mut self, ui: &mut Ui, chain: &Chain) -> Option<usize> {
        let height = ui.available_height();
        let mut picked = None;
        // Scroll state is keyed by the expansion, so each new form starts at its top.
        ui.columns(2, |cols| {
            egui::ScrollArea::vertical()
                .id_salt(("cs-form-fields", &self.expansion_id))
                .max_height(height)
                .auto_shrink([false, false])
                .show(&mut cols[0], |ui| {
                    if self.fields.form.fields.is_empty() {
                        ui.label(RichText::new("This chain takes no parameters.").color(theme::TEXT_DIM));
                    }
                    self.fields.show(ui);
                });
            egui::ScrollArea::vertical()
                .id_salt(("cs-form-preview", &self.expansion_id))
                .max_height(height)
                .auto_shrink([false, false])
                .show(&mut cols[1], |ui| {
                    ui.label(RichText::new("Preview").strong());
                    match self.session.expansion() {
                        Some(Ok(exp)) => {
                            let mut selected = self.session.selected_node;
                            let invalid = self.fields.invalid_params();
                            show_pane(ui, chain, exp, &mut selected, &invalid);
                            if selected != self.session.selected_node {
                                self.session.selected_node = selected;
                                picked = Some(selected);
                            }
                        }
                        Some(Err(e)) => refusal(ui, e),
                        None => {}
                    }
                });
        });
        picked
    }

    /// Enter (in a one-line field, or with nothing focused) and Ctrl+Enter confirm; Esc cancels.
    fn keys(&mut self, ctx: &egui::Context, event: &mut Option<FormEvent>) {
        // Enter in a one-line field, or with nothing focused, confirms; Ctrl+Enter anywhere.
        let entered = self.fields.take_entered()
            || (!ctx.egui_wants_keyboard_input()
                && ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Enter)));
        if entered || ctx.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::Enter)) {
            if self.is_valid() {
                *event = Some(FormEvent::Submit);
            } else {
                self.fields.reveal();
            }
        }
        if ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape)) {
            *event = Some(FormEvent::Cancel);
        }
    }

    fn header(&self, ui: &mut Ui, chain: &Chain, pack: &Pack) {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(chain.chain_id()).monospace());
            ui.label(RichText::new(format!("v{}", chain.version())).color(theme::TEXT_DIM));
            ui.label(RichText::new(format!("from {} {}", pack.name(), pack.version())).color(theme::TEXT_DIM));
            ui.label(RichText::new(format!("expansionId {}", self.expansion_id)).monospace().color(theme::GHOST));
            match &self.mode {
                FormMode::Insert { at, on_edge, after } => {
                    let place = match (on_edge, after) {
                        (Some(e), _) => format!("spliced between {} ➡ {}", e.source, e.target),
                        (None, Some(a)) => format!("wired after {}", a.node),
                        (None, None) => format!("at ({:.0}, {:.0})", at.0, at.1),
                    };
                    ui.label(RichText::new(place).color(theme::TEXT_DIM));
                }
                FormMode::Reparameterise { .. } => {
                    ui.label(
                        RichText::new("re-expands in place; edges to the outside are kept").color(theme::TEXT_DIM),
                    );
                }
            }
        });
        if !chain.description().is_empty() {
            ui.label(RichText::new(chain.description()).color(theme::TEXT_DIM));
        }
    }

    fn summary(&mut self, ui: &mut Ui) {
        if let Some(e) = self.session.shown_refusal() {
            refusal(ui, e);
            return;
        }
        self.fields.summary(ui, code::CHAIN_PARAMETER_INVALID, "All parameters are valid.");
    }
}

impl Fields {
    pub fn new(form: Form, values: Map<String, Value>) -> Self {
        Self {
            form,
            values,
            raw_text: HashMap::new(),
            parse_errors: HashMap::new(),
            touched: HashSet::new(),
            show_all: false,
            errors: Vec::new(),
            field_errors: HashMap::new(),
            focus: None,
            stale: true,
            offer_promotion: false,
            promoted: None,
            entered: false,
        }
    }

    /// Put the keyboard focus in the first field (into objects, to their first member), so
    /// the form is filled in from the keyboard alone.
    pub fn focus_first(&mut self) {
        let mut fields = &self.form.fields;
        while let Some(first) = fields.first() {
            match &first.kind {
                FieldKind::Object(children) if !children.is_empty() => fields = children,
                _ => {
                    self.focus = Some(first.pointer.clone());
                    return;
                }
            }
        }
    }

    /// Whether Enter was pressed in a one-line field since the last call.
    pub fn take_entered(&mut self) -> bool {
        std::mem::take(&mut self.entered)
    }

    /// The pointer of the field whose "Make parameter…" was chosen, once.
    pub fn take_promotion(&mut self) -> Option<String> {
        self.promoted.take()
    }

    /// The values as typed (an invalid one included).
    pub fn values(&self) -> &Map<String, Value> {
        &self.values
    }

    /// Whether a value changed since the last [`Fields::set_errors`].
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// The validation errors of the current values; each is shown under the field it concerns.
    pub fn set_errors(&mut self, errors: Vec<ParamError>) {
        self.field_errors = map_errors(&self.form.fields, &errors, &self.values);
        self.errors = errors;
        self.stale = false;
    }

    /// The parameters whose values are invalid (a field of theirs has an error), by name.
    pub fn invalid_params(&self) -> HashSet<String> {
        let with_errors = self.field_errors.iter().filter(|(_, e)| !e.is_empty()).map(|(p, _)| p);
        with_errors
            .chain(self.parse_errors.keys())
            .filter_map(|p| p.strip_prefix('/')?.split('/').next())
            .map(str::to_owned)
            .collect()
    }

    /// Schema errors, or text in a JSON field that does not parse.
    pub fn has_problems(&self) -> bool {
        !self.errors.is_empty() || !self.parse_errors.is_empty()
    }

    /// Show the errors of every field (a submit was reached for while invalid).
    pub fn reveal(&mut self) {
        self.show_all = true;
    }

    /// Every field, in schema order.
    pub fn show(&mut self, ui: &mut Ui) {
        let fields = self.form.fields.clone();
        for field in &fields {
            self.field(ui, field);
        }
    }

    /// What is wrong, under `code`, each entry a link to its field; `valid` when nothing is.
    pub fn summary(&mut self, ui: &mut Ui, code: &str, valid: &str) {
        let count = self.errors.len() + self.parse_errors.len();
        if count == 0 {
            ui.label(RichText::new(format!("✔ {valid}")).color(theme::OK));
            return;
        }
        if !self.show_all && self.touched.is_empty() {
            let required: Vec<&str> = self
                .form
                .fields
                .iter()
                .filter(|f| f.required && value_at(&self.values, &f.pointer).is_none())
                .map(|f| f.title.as_str())
                .collect();
            ui.label(
                RichText::new(format!("Fill in the required fields (marked *): {}", required.join(", ")))
                    .color(theme::TEXT_DIM),
            );
            return;
        }
        ui.label(
            RichText::new(format!("{code} — {count} problem{}:", if count == 1 { "" } else { "s" }))
                .color(theme::ERROR),
        );
        // Each entry is a link to the field it is about.
        let mut entries: Vec<(String, String)> = Vec::new();
        for e in &self.errors {
            let path = if e.path.is_empty() { "/" } else { e.path.as_str() };
            let field = owner_field(&self.form.fields, e, &self.values);
            entries.push((format!("{path}  {}", e.message), field.unwrap_or_default()));
        }
        for (ptr, msg) in &self.parse_errors {
            entries.push((format!("{ptr}  {msg}"), ptr.clone()));
        }
        for (text, field) in entries {
            let link = egui::Label::new(RichText::new(text).monospace().small().color(theme::ERROR).underline())
                .sense(egui::Sense::click());
            let r = ui.add(link);
            if !field.is_empty() && r.on_hover_text("Go to this field").clicked() {
                self.focus = Some(field);
                self.show_all = true;
            }
        }
    }

    fn field(&mut self, ui: &mut Ui, field: &Field) {
        let value = value_at(&self.values, &field.pointer).cloned();
        let label_text = if field.required { format!("{} *", field.title) } else { field.title.clone() };
        let shown_errors: Vec<String> = if self.show_all || self.touched.contains(&field.pointer) {
            let mut v = self.field_errors.get(&field.pointer).cloned().unwrap_or_default();
            v.extend(self.parse_errors.get(&field.pointer).cloned());
            v
        } else {
            Vec::new()
        };
        if let FieldKind::Object(children) = &field.kind {
            let header = field_label(ui, field, &label_text);
            let header = if field.description.is_empty() { header } else { header.on_hover_text(&field.description) };
            if self.focus.as_deref() == Some(field.pointer.as_str()) {
                self.focus = None;
                header.scroll_to_me(Some(egui::Align::Min));
            }
            egui::Frame::group(ui.style()).show(ui, |ui| {
                for child in children {
                    self.field(ui, child);
                }
            });
            error_lines(ui, &shown_errors);
            return;
        }
        let label = field_label(ui, field, &label_text);
        let label = if field.description.is_empty() { label } else { label.on_hover_text(&field.description) };
        if self.offer_promotion {
            label.context_menu(|ui| {
                let spec = crate::editor::commands::CommandId::MakeParameter.spec();
                if ui.button(spec.label).on_hover_text(spec.tooltip).clicked() {
                    self.promoted = Some(field.pointer.clone());
                    ui.close();
                }
            });
        }
        let response = ui.horizontal(|ui| self.widget(ui, field, value, label.id)).inner;
        if self.focus.as_deref() == Some(field.pointer.as_str()) {
            self.focus = None;
            let target = response.as_ref().unwrap_or(&label);
            target.request_focus();
            target.scroll_to_me(Some(egui::Align::Center));
        }
        if let Some(r) = &response {
            // Tab moves the focus here: bring the field into view (under it, its messages).
            if r.gained_focus() {
                r.scroll_to_me(None);
            }
            if r.changed() || r.lost_focus() {
                self.touched.insert(field.pointer.clone());
            }
            // A one-line field gives up the focus on Enter: that is the form's "confirm".
            if r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                self.entered = true;
            }
            if !shown_errors.is_empty() {
                ui.painter().rect_stroke(r.rect.expand(2.0), 4.0, Stroke::new(1.5, theme::ERROR), StrokeKind::Outside);
            }
        }
        if !field.description.is_empty() {
            ui.label(RichText::new(&field.description).small().color(theme::TEXT_DIM));
        }
        error_lines(ui, &shown_errors);
        ui.add_space(6.0);
    }

    /// The widget for one field; returns its response for outlining and touch tracking.
    fn widget(&mut self, ui: &mut Ui, field: &Field, value: Option<Value>, label: Id) -> Option<egui::Response> {
        // What the widget did: its response, and the field's new value (`Some(None)`: unset).
        let (response, set) = match &field.kind {
            FieldKind::Text | FieldKind::MultilineText => text_widget(ui, field, value.as_ref(), label),
            FieldKind::Enum(options) => enum_widget(ui, field, options, value.as_ref(), label),
            FieldKind::Number | FieldKind::Integer => self.number_widget(ui, field, value.as_ref(), label),
            FieldKind::Boolean => {
                let mut b = value.as_ref().and_then(Value::as_bool).unwrap_or(false);
                let r = ui.checkbox(&mut b, &field.title);
                let set = r.changed().then_some(Some(Value::Bool(b)));
                (Some(r), set)
            }
            FieldKind::Array(kind) => {
                let items = value.as_ref().and_then(Value::as_array).cloned().unwrap_or_default();
                let (new_items, r) = array_rows(ui, field, *kind, items, &mut self.raw_text);
                (r, new_items.map(|items| Some(Value::Array(items))))
            }
            FieldKind::Raw => self.raw_widget(ui, field, value.as_ref(), label),
            FieldKind::Object(_) => (None, None),
        };
        if let Some(v) = set {
            set_value_at(&mut self.values, &field.pointer, v);
            self.touched.insert(field.pointer.clone());
            self.stale = true;
        }
        response
    }

    /// A text box, not a drag value: what is typed stays as typed (`abc`, `2.5` in an
    /// integer field) and the schema says what is wrong with it.
    fn number_widget(&mut self, ui: &mut Ui, field: &Field, value: Option<&Value>, label: Id) -> Widget {
        let ptr = &field.pointer;
        let integer = field.kind == FieldKind::Integer;
        let mut text = self.raw_text.get(ptr).cloned().unwrap_or_else(|| value.map(shown).unwrap_or_default());
        let hint = if integer { "whole number" } else { "number" };
        let edit = egui::TextEdit::singleline(&mut text).desired_width(140.0).hint_text(hint);
        let r = ui.add(edit).labelled_by(label);
        let mut set = None;
        if r.changed() {
            set = Some(typed_number(&text));
            self.raw_text.insert(ptr.clone(), text);
        }
        if let Some(b) = field.bounds_hint() {
            ui.label(RichText::new(b).small().color(theme::TEXT_DIM));
        }
        (Some(r), set)
    }

    /// Any JSON, typed as text; text that does not parse is kept as typed and reported.
    fn raw_widget(&mut self, ui: &mut Ui, field: &Field, value: Option<&Value>, label: Id) -> Widget {
        let ptr = &field.pointer;
        let mut text = self
            .raw_text
            .get(ptr)
            .cloned()
            .unwrap_or_else(|| value.map(|v| serde_json::to_string_pretty(v).expect("JSON")).unwrap_or_default());
        let r = ui.add(
            egui::TextEdit::multiline(&mut text)
                .code_editor()
                .desired_rows(3)
                .desired_width(ui.available_width() - 8.0)
                .hint_text("JSON"),
        );
        let r = r.labelled_by(label);
        if !r.changed() {
            return (Some(r), None);
        }
        if text.trim().is_empty() {
            self.parse_errors.remove(ptr);
            self.raw_text.remove(ptr);
            return (Some(r), Some(None));
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => {
                self.parse_errors.remove(ptr);
                self.raw_text.remove(ptr);
                (Some(r), Some(Some(v)))
            }
            Err(e) => {
                self.parse_errors.insert(ptr.clone(), format!("not valid JSON: {e}"));
                self.raw_text.insert(ptr.clone(), text);
                self.stale = true;
                (Some(r), None)
            }
        }
    }
}

/// What a field's widget did: its response (none for an object, whose members have their
/// own), and the field's new value when it changed (`Some(None)`: unset).
type Widget = (Option<egui::Response>, Option<Option<Value>>);

fn text_widget(ui: &mut Ui, field: &Field, value: Option<&Value>, label: Id) -> Widget {
    let mut text = match value {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    };
    let mut edit = if field.kind == FieldKind::MultilineText {
        egui::TextEdit::multiline(&mut text).desired_rows(3)
    } else {
        egui::TextEdit::singleline(&mut text)
    };
    edit = edit.desired_width(ui.available_width() - 8.0).password(field.sensitive);
    if let Some(hint) = field.format_hint() {
        edit = edit.hint_text(hint);
    }
    let r = ui.add(edit).labelled_by(label);
    let set =
        r.changed().then(|| if text.is_empty() && field.default.is_none() { None } else { Some(Value::String(text)) });
    (Some(r), set)
}

fn enum_widget(ui: &mut Ui, field: &Field, options: &[Value], value: Option<&Value>, label: Id) -> Widget {
    let mut set = None;
    let current = value.map(shown).unwrap_or_else(|| "—".to_owned());
    let r = egui::ComboBox::from_id_salt(("cs-enum", &field.pointer))
        .selected_text(current)
        .width(ui.available_width().min(240.0))
        .show_ui(ui, |ui| {
            if !field.required && ui.selectable_label(value.is_none(), "—").clicked() {
                set = Some(None);
            }
            for option in options {
                if ui.selectable_label(value == Some(option), shown(option)).clicked() {
                    set = Some(Some(option.clone()));
                }
            }
        });
    let mut r = r.response.labelled_by(label);
    if set.is_some() {
        r.mark_changed();
    }
    (Some(r), set)
}

/// Rows of an array of scalars, with add, remove and reorder. Returns the new items when
/// anything changed.
fn array_rows(
    ui: &mut Ui,
    field: &Field,
    kind: ScalarKind,
    mut items: Vec<Value>,
    raw_text: &mut HashMap<String, String>,
) -> (Option<Vec<Value>>, Option<egui::Response>) {
    let mut changed = false;
    let mut response: Option<egui::Response> = None;
    ui.vertical(|ui| {
        let mut action: Option<(usize, i32)> = None;
        let n = items.len();
        for (i, item) in items.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                // The move and remove buttons stay beside the field in a narrow column.
                let buttons = 3.0 * (ui.spacing().interact_size.y + ui.spacing().item_spacing.x + 8.0);
                let room = (ui.available_width() - buttons).max(60.0);
                let r = array_item(ui, field, kind, i, item, room, raw_text);
                let r = r.on_hover_text(format!("{} item {}", field.title, i + 1));
                changed |= r.changed();
                response = Some(match response.take() {
                    Some(prev) => prev.union(r),
                    None => r,
                });
                if ui.add_enabled(i > 0, egui::Button::new("⏶").small()).on_hover_text("Move up").clicked() {
                    action = Some((i, -1));
                }
                if ui.add_enabled(i + 1 < n, egui::Button::new("⏷").small()).on_hover_text("Move down").clicked() {
                    action = Some((i, 1));
                }
                if ui.small_button("🗙").on_hover_text("Remove").clicked() {
                    action = Some((i, 0));
                }
            });
        }
        if action.is_some() {
            // Rows move: typed texts would stick to the wrong row.
            let prefix = format!("{}/", field.pointer);
            raw_text.retain(|k, _| !k.starts_with(&prefix));
        }
        match action {
            Some((i, 0)) => {
                items.remove(i);
                changed = true;
            }
            Some((i, d)) => {
                let j = (i as i32 + d) as usize;
                items.swap(i, j);
                changed = true;
            }
            None => {}
        }
        let add = ui.small_button("+ Add item");
        if add.clicked() {
            items.push(match kind {
                ScalarKind::Text => Value::String(String::new()),
                ScalarKind::Number | ScalarKind::Integer => Value::from(0),
                ScalarKind::Boolean => Value::Bool(false),
            });
            changed = true;
        }
        let add = if changed {
            let mut add = add;
            add.mark_changed();
            add
        } else {
            add
        };
        response = Some(match response.take() {
            Some(prev) => prev.union(add),
            None => add,
        });
    });
    (changed.then_some(items), response)
}

/// One item's widget in an array of scalars; a number keeps the text typed into it.
fn array_item(
    ui: &mut Ui,
    field: &Field,
    kind: ScalarKind,
    i: usize,
    item: &mut Value,
    room: f32,
    raw_text: &mut HashMap<String, String>,
) -> egui::Response {
    match kind {
        ScalarKind::Text => {
            let mut s = item.as_str().map(str::to_owned).unwrap_or_else(|| item.to_string());
            let r = ui.add(egui::TextEdit::singleline(&mut s).desired_width(room.min(180.0)));
            if r.changed() {
                *item = Value::String(s);
            }
            r
        }
        ScalarKind::Number | ScalarKind::Integer => {
            let key = format!("{}/{i}", field.pointer);
            let mut text = raw_text.get(&key).cloned().unwrap_or_else(|| shown(item));
            let r = ui.add(egui::TextEdit::singleline(&mut text).desired_width(room.min(120.0)));
            if r.changed() {
                *item = typed_number(&text).unwrap_or(Value::Null);
                raw_text.insert(key, text);
            }
            r
        }
        ScalarKind::Boolean => {
            let mut b = item.as_bool().unwrap_or(false);
            let r = ui.checkbox(&mut b, "");
            if r.changed() {
                *item = Value::Bool(b);
            }
            r
        }
    }
}

/// A field's label, with the property name small beside it when the label is not the name
/// itself (a schema `title`, or the name humanised), so `{{params.NAME}}` can be matched up.
fn field_label(ui: &mut Ui, field: &Field, text: &str) -> egui::Response {
    ui.horizontal_wrapped(|ui| {
        let label = ui.label(RichText::new(text).strong());
        if field.title != field.name {
            ui.label(RichText::new(&field.name).monospace().small().color(theme::TEXT_DIM));
        }
        label
    })
    .inner
}

fn error_lines(ui: &mut Ui, errors: &[String]) {
    for e in errors {
        ui.label(RichText::new(format!("⚠ {e}")).small().color(theme::ERROR));
    }
}

/// A refusal, shown with its spec code, message and details.
pub fn refusal(ui: &mut Ui, e: &Error) {
    // What happened in words first; the code, for a search or a report, under it.
    ui.label(RichText::new(&e.message).color(theme::ERROR));
    ui.label(RichText::new(e.code).monospace().small().color(theme::TEXT_DIM));
    if !e.details.is_empty() {
        let details = serde_json::to_string_pretty(&Value::Object(e.details.clone())).expect("JSON");
        ui.label(RichText::new(details).monospace().small().color(theme::TEXT_DIM));
    }
}

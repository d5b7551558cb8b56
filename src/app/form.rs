//! The parameter form as drawn: the fields of a `params::FormFields` (values as typed,
//! errors per field, the summary) and the docked insert form around an
//! `editor::insert_form::InsertForm` (validation and preview per edit). A field's errors
//! show (outline and message) once it has been touched or Insert was reached for; a summary
//! lists every failing path; Insert stays disabled while anything is invalid.

use super::preview_pane::show_pane;
use super::theme;
use crate::catalog::Trust;
use crate::editor::extraction::shown;
use crate::editor::insert_form::InsertForm;
use crate::editor::insert_session::InsertSession;
use crate::error::{Error, code};
use crate::pack::{Chain, Pack};
use crate::params::{Field, FieldKind, FormFields, ScalarKind, Summary, value_at};
use crate::workflow::Workflow;
use egui::{Id, RichText, Stroke, StrokeKind, Ui};
use serde_json::Value;

pub use crate::editor::insert_session::FormMode;

/// An open parameter form: the model (`editor::insert_form`), which it dereferences to,
/// and the canvas region the editor framed for it.
pub struct FormSession {
    form: InsertForm,
    /// The canvas region framed last (ghosts and the parents they wire to).
    pub framed: Option<egui::Rect>,
}

impl std::ops::Deref for FormSession {
    type Target = InsertForm;
    fn deref(&self) -> &InsertForm {
        &self.form
    }
}

impl std::ops::DerefMut for FormSession {
    fn deref_mut(&mut self) -> &mut InsertForm {
        &mut self.form
    }
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

impl From<InsertForm> for FormSession {
    fn from(form: InsertForm) -> Self {
        Self { form, framed: None }
    }
}

impl FormSession {
    /// Draw only the fields and the problem summary, validated against `chain` after each edit.
    pub fn show_fields(&mut self, ui: &mut Ui, chain: &Chain) {
        if self.fields.is_stale() {
            self.validate(chain);
        }
        if self.fields.form().fields.is_empty() {
            ui.label(RichText::new("This chain takes no parameters.").color(theme::TEXT_DIM));
        }
        fields(ui, &mut self.form.fields);
        self.summary(ui);
        if self.fields.is_stale() {
            ui.ctx().request_repaint();
        }
    }

    /// The form, docked below the canvas (the caller gives it a panel of its own, so it never
    /// moves, never covers the inspector, and the canvas above frames the preview). Fields and
    /// preview scroll inside; the problems and the buttons stay at the bottom. Returns what
    /// the user chose.
    pub fn show(&mut self, ui: &mut Ui, trust: &Trust, pack: &Pack, wf: &Workflow, revision: u64) -> FormResponse {
        let Some(chain) = self.form.chain(pack) else {
            return FormResponse { event: Some(FormEvent::Cancel), selected_ghost: None };
        };
        self.form.refresh(trust, pack, chain, wf, revision);
        self.form.shown();
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
                let session: &mut InsertSession = &mut self.form;
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
        if self.fields.is_stale() {
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
                    if self.fields.form().fields.is_empty() {
                        ui.label(RichText::new("This chain takes no parameters.").color(theme::TEXT_DIM));
                    }
                    fields(ui, &mut self.form.fields);
                });
            egui::ScrollArea::vertical()
                .id_salt(("cs-form-preview", &self.expansion_id))
                .max_height(height)
                .auto_shrink([false, false])
                .show(&mut cols[1], |ui| {
                    ui.label(RichText::new("Preview").strong());
                    match self.form.expansion() {
                        Some(Ok(exp)) => {
                            let mut selected = self.form.selected_node;
                            let invalid = self.form.fields.invalid_params();
                            show_pane(ui, chain, exp, &mut selected, &invalid);
                            if selected != self.form.selected_node {
                                self.form.selected_node = selected;
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
        if let Some(e) = self.form.shown_refusal() {
            refusal(ui, e);
            return;
        }
        summary(ui, &mut self.form.fields, code::CHAIN_PARAMETER_INVALID, "All parameters are valid.");
    }
}

/// Every field of a form being filled in, in schema order.
pub fn fields(ui: &mut Ui, fields: &mut FormFields) {
    let all = fields.form().fields.clone();
    for field in &all {
        field_row(ui, fields, field);
    }
}

/// What is wrong, under `code`, each entry a link to its field; `valid` when nothing is.
pub fn summary(ui: &mut Ui, fields: &mut FormFields, code: &str, valid: &str) {
    let entries = match fields.summary() {
        Summary::Valid => {
            ui.label(RichText::new(format!("✔ {valid}")).color(theme::OK));
            return;
        }
        Summary::Untouched(required) => {
            let text = format!("Fill in the required fields (marked *): {}", required.join(", "));
            ui.label(RichText::new(text).color(theme::TEXT_DIM));
            return;
        }
        Summary::Problems(entries) => entries,
    };
    // What to fix first, each a link to its field; the code after, small.
    let fix = crate::words::count(entries.len(), "value", "values");
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(format!("Fix {fix} to go on:")).color(theme::ERROR));
        ui.label(RichText::new(code).monospace().small().color(theme::TEXT_DIM));
    });
    for (text, field) in entries {
        let link =
            egui::Label::new(RichText::new(text).small().color(theme::ERROR).underline()).sense(egui::Sense::click());
        let r = ui.add(link);
        if !field.is_empty() && r.on_hover_text("Go to this field").clicked() {
            fields.go_to(field);
        }
    }
}

fn field_row(ui: &mut Ui, fields: &mut FormFields, field: &Field) {
    let value = value_at(fields.values(), &field.pointer).cloned();
    let label_text = if field.required { format!("{} *", field.title) } else { field.title.clone() };
    let shown_errors = fields.shown_errors(&field.pointer);
    if let FieldKind::Object(children) = &field.kind {
        let header = field_label(ui, field, &label_text);
        let header = if field.description.is_empty() { header } else { header.on_hover_text(&field.description) };
        if fields.take_focus(&field.pointer) {
            header.scroll_to_me(Some(egui::Align::Min));
        }
        egui::Frame::group(ui.style()).show(ui, |ui| {
            for child in children {
                field_row(ui, fields, child);
            }
        });
        error_lines(ui, &shown_errors);
        return;
    }
    let label = field_label(ui, field, &label_text);
    let label = if field.description.is_empty() { label } else { label.on_hover_text(&field.description) };
    if fields.offer_promotion {
        label.context_menu(|ui| {
            let spec = crate::editor::commands::CommandId::MakeParameter.spec();
            if ui.button(spec.label).on_hover_text(spec.tooltip).clicked() {
                fields.promote(field.pointer.clone());
                ui.close();
            }
        });
    }
    let response = ui.horizontal(|ui| widget(ui, fields, field, value, label.id)).inner;
    if fields.take_focus(&field.pointer) {
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
            fields.touch(&field.pointer);
        }
        // A one-line field gives up the focus on Enter: that is the form's "confirm".
        if r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            fields.enter();
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
fn widget(
    ui: &mut Ui,
    fields: &mut FormFields,
    field: &Field,
    value: Option<Value>,
    label: Id,
) -> Option<egui::Response> {
    // What the widget did: its response, and the field's new value (`Some(None)`: unset).
    let (response, set) = match &field.kind {
        FieldKind::Text | FieldKind::MultilineText => text_widget(ui, field, value.as_ref(), label),
        FieldKind::Enum(options) => enum_widget(ui, field, options, value.as_ref(), label),
        FieldKind::Number | FieldKind::Integer => number_widget(ui, fields, field, value.as_ref(), label),
        FieldKind::Boolean => {
            let mut b = value.as_ref().and_then(Value::as_bool).unwrap_or(false);
            let r = ui.checkbox(&mut b, &field.title);
            let set = r.changed().then_some(Some(Value::Bool(b)));
            (Some(r), set)
        }
        FieldKind::Array(kind) => {
            let items = value.as_ref().and_then(Value::as_array).cloned().unwrap_or_default();
            let (new_items, r) = array_rows(ui, field, *kind, items, fields);
            (r, new_items.map(|items| Some(Value::Array(items))))
        }
        FieldKind::Raw => raw_widget(ui, fields, field, value.as_ref(), label),
        FieldKind::Object(_) => (None, None),
    };
    if let Some(v) = set {
        fields.set(&field.pointer, v);
    }
    response
}

/// A text box, not a drag value: what is typed stays as typed (`abc`, `2.5` in an integer
/// field) and the schema says what is wrong with it.
fn number_widget(ui: &mut Ui, fields: &mut FormFields, field: &Field, value: Option<&Value>, label: Id) -> Widget {
    let ptr = &field.pointer;
    let integer = field.kind == FieldKind::Integer;
    let mut text = fields.typed(ptr).map(str::to_owned).unwrap_or_else(|| value.map(shown).unwrap_or_default());
    let hint = if integer { "whole number" } else { "number" };
    let edit = egui::TextEdit::singleline(&mut text).desired_width(140.0).hint_text(hint);
    let r = ui.add(edit).labelled_by(label);
    let set = r.changed().then(|| fields.type_number(ptr, text));
    if let Some(b) = field.bounds_hint() {
        ui.label(RichText::new(b).small().color(theme::TEXT_DIM));
    }
    (Some(r), set)
}

/// Any JSON, typed as text; text that does not parse is kept as typed and reported.
fn raw_widget(ui: &mut Ui, fields: &mut FormFields, field: &Field, value: Option<&Value>, label: Id) -> Widget {
    let ptr = &field.pointer;
    let mut text = fields
        .typed(ptr)
        .map(str::to_owned)
        .unwrap_or_else(|| value.map(|v| serde_json::to_string_pretty(v).expect("JSON")).unwrap_or_default());
    let r = ui.add(
        egui::TextEdit::multiline(&mut text)
            .code_editor()
            .desired_rows(3)
            .desired_width(ui.available_width() - 8.0)
            .hint_text("JSON"),
    );
    let r = r.labelled_by(label);
    let set = if r.changed() { fields.type_json(ptr, text) } else { None };
    (Some(r), set)
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
    fields: &mut FormFields,
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
                let r = array_item(ui, field, kind, i, item, room, fields);
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
            fields.forget_typed_items(&field.pointer);
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
    fields: &mut FormFields,
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
            let mut text = fields.typed(&key).map(str::to_owned).unwrap_or_else(|| shown(item));
            let r = ui.add(egui::TextEdit::singleline(&mut text).desired_width(room.min(120.0)));
            if r.changed() {
                *item = fields.type_number(&key, text).unwrap_or(Value::Null);
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

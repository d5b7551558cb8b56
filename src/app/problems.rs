//! The status and problems bar, drawn: the last refusal with its spec code (its details in
//! the Refusal window), the latest message, and the workflow's validation findings and
//! lints. What it holds is the model's ([`crate::editor::problems`]); the findings are
//! recomputed on the lint worker shortly after edits stop, so no frame waits for them.

use super::theme;
use super::window::{Scaffold, Window, WindowId};
use crate::editor::problems::arrow;
pub use crate::editor::problems::{ErrorAbout, List, Problems};
use crate::editor::wording::{self, Places};
use crate::error::{Finding, Severity};
use crate::workflow::Workflow;
use egui::{RichText, Ui};

/// The findings list's height: at least this, at most this share of the window.
const LIST_MIN: f32 = 90.0;
const LIST_SHARE: f32 = 0.5;
const LIST_DEFAULT: f32 = 220.0;

/// What the user picked in the list: a node to select.
pub enum ProblemPick {
    Node(String),
}

/// The status bar and the findings list, drawn over the model.
pub trait ProblemsBar {
    /// The status bar: the last action's result (its findings counted, a click lists them),
    /// and the workflow's findings counted (a click lists them).
    fn show_bar(&mut self, ui: &mut Ui);
    /// The open findings list as a panel above the status bar: resizable by its top edge
    /// (egui remembers the height), at most half the window, scrolled when longer.
    fn show_list_panel(&mut self, ui: &mut Ui, wf: &Workflow) -> Option<ProblemPick>;
}

impl ProblemsBar for Problems {
    fn show_bar(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            // The counts at the right first, so the message takes what is left and is cut to it.
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if !self.dialogs_note.is_empty() {
                    ui.label(RichText::new(self.dialogs_note).small().color(theme::TEXT_DIM));
                    ui.separator();
                }
                workflow_counts(self, ui);
                ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| message(self, ui));
            });
        });
        self.show(ui.ctx(), ());
    }

    fn show_list_panel(&mut self, ui: &mut Ui, wf: &Workflow) -> Option<ProblemPick> {
        if !self.list_open() {
            return None;
        }
        let window = ui.ctx().content_rect().height();
        let max = (window * LIST_SHARE).max(LIST_MIN);
        egui::Panel::bottom("cs-findings")
            .resizable(true)
            .default_size(LIST_DEFAULT.min(max))
            .size_range(LIST_MIN..=max)
            .show(ui, |ui| list(self, ui, wf))
            .inner
    }
}

/// The refusal's details.
impl Window for Problems {
    type Input<'a> = ();
    type Response = ();
    const ID: WindowId = WindowId::Refusal;
    const SIZE: Option<egui::Vec2> = None;

    fn close(&mut self) -> bool {
        let open = self.error_window_open();
        self.close_error_window();
        open
    }

    fn show(&mut self, ctx: &egui::Context, (): ()) {
        let Some(e) = self.last_error.as_ref().filter(|_| self.show_error) else { return };
        let mut open = true;
        Scaffold::of::<Self>("Refusal", &mut open).collapsible().show(ctx, |ui| {
            super::form::refusal(ui, e);
        });
        self.show_error = open;
    }
}

fn message(p: &mut Problems, ui: &mut Ui) {
    if let Some(e) = &p.last_error {
        // The dismiss button before the message, which is cut to what is left: after it,
        // it was drawn over the counts at the right.
        let dismiss = ui.small_button("🗙").on_hover_text("Dismiss").clicked();
        // What happened first, in the user's words; the code after it, as the secondary
        // part. The message is cut so the code keeps its room.
        let code = RichText::new(e.code).monospace().small().color(theme::TEXT_DIM);
        // Measured in the font it is drawn in: small, monospace.
        let font = egui::FontId::monospace(egui::TextStyle::Small.resolve(ui.style()).size);
        let code_width =
            ui.ctx().fonts_mut(|f| f.layout_no_wrap(e.code.to_owned(), font, egui::Color32::WHITE).size().x);
        let room = (ui.available_width() - code_width - 2.0 * ui.spacing().item_spacing.x).max(0.0);
        let text = RichText::new(format!("✖ {}", e.message)).strong().color(theme::ERROR);
        let message = ui
            .scope(|ui| {
                ui.set_max_width(room);
                ui.add(egui::Label::new(text).truncate().sense(egui::Sense::click()))
            })
            .inner;
        let code = ui.add(egui::Label::new(code).sense(egui::Sense::click()));
        if message.on_hover_text("Show details").clicked() || code.on_hover_text("Show details").clicked() {
            p.show_error = true;
        }
        if dismiss {
            p.clear_error();
        }
        return;
    }
    let text = p.status.clone().unwrap_or_else(|| "Ready".to_owned());
    if p.action_findings.is_empty() {
        let label = egui::Label::new(RichText::new(&text).color(theme::TEXT_DIM)).truncate();
        let label = ui.add(label.show_tooltip_when_elided(false));
        label.on_hover_text(format!("{text}\n\nThe result of the last action: the next one replaces it."));
        return;
    }
    // What the action itself reported is part of its message, not a second problems
    // count beside the workflow's: a click on the message lists it.
    let open = p.expanded && p.list == List::Action;
    let counts = wording::finding_counts(&p.action_findings);
    let said = format!("{text} ({counts} from this action {})", arrow(open));
    let label = egui::Label::new(RichText::new(&said).color(theme::TEXT_DIM)).truncate().sense(egui::Sense::click());
    let label = ui.add(label.show_tooltip_when_elided(false));
    let hover = format!("{said}\n\nThe result of the last action: click to list what it reported.");
    if label.on_hover_text(hover).clicked() {
        p.open_list(List::Action, !open);
    }
}

/// The workflow's findings counted, a button that opens their list.
fn workflow_counts(p: &mut Problems, ui: &mut Ui) {
    let open = p.expanded && p.list == List::Workflow;
    let notes = p.lint.findings.iter().filter(|f| f.severity == Severity::Info).count();
    let text = match (p.lint.findings.len() - notes, notes) {
        // Nothing is known before the worker's first answer.
        _ if p.lint.linted_revision.is_none() => "checking…".to_owned(),
        (0, 0) => "✔ no problems".to_owned(),
        (0, n) => format!("✔ no problems · {} {}", crate::words::count(n, "note", "notes"), arrow(open)),
        _ => format!("{} {}", wording::finding_counts(&p.lint.findings), arrow(open)),
    };
    let color = if p.lint.linted_revision.is_none() { theme::TEXT_DIM } else { counts_colour(&p.lint.findings) };
    let button = ui.add(egui::Button::new(RichText::new(text).color(color)).frame(false));
    let hover = if p.lint.findings.is_empty() {
        "The workflow's findings: schema, lints, and node configs and ports checked against the catalog"
    } else {
        "The workflow's findings: click to list them"
    };
    if button.on_hover_text(hover).clicked() && !p.lint.findings.is_empty() {
        p.open_list(List::Workflow, !open);
    }
}

fn list(p: &mut Problems, ui: &mut Ui, wf: &Workflow) -> Option<ProblemPick> {
    let mut pick = None;
    ui.horizontal(|ui| {
        let title = match p.list {
            List::Workflow => format!("Workflow findings · {}", wording::finding_counts(&p.lint.findings)),
            List::Action => {
                format!("Reported by the last action · {}", wording::finding_counts(&p.action_findings))
            }
        };
        ui.label(RichText::new(title).strong());
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let close = ui.small_button("🗙");
            close.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, "Close the findings list"));
            if close.on_hover_text("Close the findings list").clicked() {
                p.expanded = false;
            }
        });
    });
    let findings = match p.list {
        List::Workflow => &p.lint.findings,
        List::Action => &p.action_findings,
    };
    // One row per finding, laid out only where the list is scrolled to: a large workflow
    // can have thousands, and the list redraws on every input while it is open.
    let row = ui.spacing().interact_size.y + ui.spacing().item_spacing.y;
    let list = egui::ScrollArea::vertical().id_salt("cs-findings-list").auto_shrink([false, false]);
    // The workflow's findings point into it: their nodes go by title. An action's point
    // into what it made (an expansion): only a node they name goes by its title.
    let places = (p.list == List::Workflow).then(|| Places::new(wf));
    list.show_rows(ui, row, findings.len(), |ui, rows| {
        ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
        for f in &findings[rows] {
            ui.horizontal(|ui| {
                // Where, then what, then the code as the secondary part.
                let place = match &places {
                    Some(places) => places.describe(&f.pointer),
                    None => wording::node_place(wf, f),
                };
                let text = match place {
                    Some(place) => RichText::new(place),
                    None => RichText::new(&f.pointer).monospace(),
                };
                let link = ui.add(egui::Label::new(text.color(theme::ACCENT)).sense(egui::Sense::click()));
                let hover = format!("{}\nSelect what this is about", f.pointer);
                if link.on_hover_text(hover).clicked() {
                    let node = match &places {
                        Some(_) => wording::node_of(wf, &f.pointer),
                        None => f.details.get("nodeId").and_then(|id| id.as_str()).map(str::to_owned),
                    };
                    pick = node.filter(|id| wf.contains_node(id)).map(ProblemPick::Node);
                }
                ui.label(&f.message);
                ui.label(RichText::new(f.code).monospace().small().color(severity_colour(f.severity)));
            });
        }
    });
    pick
}

fn severity_colour(s: Severity) -> egui::Color32 {
    match s {
        Severity::Error => theme::ERROR,
        Severity::Warning => theme::WARN,
        Severity::Info => theme::TEXT_DIM,
    }
}

/// The colour of a set of findings' counts: their worst severity's.
fn counts_colour(findings: &[Finding]) -> egui::Color32 {
    findings.iter().map(|f| f.severity).max().map_or(theme::OK, severity_colour)
}

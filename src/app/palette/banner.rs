//! The blocked-chains banner above the tiles. Its rows stay where they are: a fix the user
//! applied leaves its row in place, marked done, at the height it had, so the next button
//! is still under the pointer (after "Declare", "Enable sub-chains" jumped up into the
//! place of the row that went and a click meant for it missed).

use super::super::action::Action;
use super::super::theme;
use crate::editor::blockers::{self, Fix};
use egui::{RichText, Stroke, Ui};

/// One row of the banner, by what it offers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Row {
    /// Every host-type family the blocked chains need, as one declaration.
    DeclareAll,
    Fix(Fix),
    /// Blocked for what no setting lifts.
    Unfixable,
}

/// The rows shown so far and the tallest each has been, for the chains loaded now.
#[derive(Default)]
pub struct Banner {
    /// The chain count the rows were met for: another set of packs starts afresh.
    chains: usize,
    rows: Vec<(Row, f32)>,
    dismissed: bool,
}

impl Banner {
    /// Above the tiles, when chains are blocked: how many of all, and per setting that would
    /// lift a refusal, how many chains need it, with a button that changes it. Once nothing
    /// is blocked the banner says so (its rows marked done) until hidden.
    pub fn show(&mut self, ui: &mut Ui, summary: &blockers::Summary, actions: &mut Vec<Action>) {
        if summary.chains != self.chains {
            *self = Banner { chains: summary.chains, ..Banner::default() };
        }
        let mut now: Vec<Row> = Vec::new();
        if summary.declare_all_host_types().is_some() {
            now.push(Row::DeclareAll);
        }
        for (fix, _) in summary.fixes.iter().filter(|(f, _)| !matches!(f, Fix::DeclareHostTypes(_))) {
            now.push(Row::Fix(fix.clone()));
        }
        if summary.unfixable > 0 {
            now.push(Row::Unfixable);
        }
        for row in &now {
            if !self.rows.iter().any(|(r, _)| r == row) {
                self.rows.push((row.clone(), 0.0));
            }
        }
        if self.dismissed || (summary.blocked == 0 && self.rows.is_empty()) {
            return;
        }
        // Red while a chain is blocked; green once every fix is done (the rows stay put).
        let (fill, edge) = if summary.blocked > 0 {
            (egui::Color32::from_rgb(58, 40, 44), theme::ERROR)
        } else {
            (egui::Color32::from_rgb(36, 52, 42), theme::OK)
        };
        let frame = egui::Frame::new()
            .fill(fill)
            .stroke(Stroke::new(1.0, edge.gamma_multiply(0.6)))
            .corner_radius(6.0)
            .inner_margin(6.0);
        frame.show(ui, |ui| {
            ui.set_width(ui.available_width());
            let title = if summary.blocked > 0 {
                let title = format!("{} of {} chains are blocked", summary.blocked, summary.chains);
                RichText::new(title).strong().color(theme::ERROR)
            } else {
                RichText::new("✔ No chain is blocked now").strong().color(theme::OK)
            };
            // In a short window it starts folded to its title, leaving the room to the tiles.
            let tall = ui.ctx().content_rect().height() >= BANNER_OPEN_HEIGHT;
            egui::CollapsingHeader::new(title)
                .id_salt("cs-blocked-banner")
                .default_open(tall)
                .show(ui, |ui| {
                    self.show_rows(ui, &now, summary, actions);
                    // Below the rows, so no row moves when it appears.
                    if summary.blocked == 0 && ui.small_button("Hide").on_hover_text("Hide this banner").clicked() {
                        self.dismissed = true;
                    }
                })
                .header_response
                .on_hover_text("Click to show or hide the fixes");
        });
    }

    fn show_rows(&mut self, ui: &mut Ui, now: &[Row], summary: &blockers::Summary, actions: &mut Vec<Action>) {
        for (row, height) in &mut self.rows {
            let active = now.contains(row);
            let top = ui.cursor().top();
            // A row keeps the tallest height it had, so those under it never move up.
            ui.allocate_ui(egui::vec2(ui.available_width(), *height), |ui| {
                ui.set_min_height(*height);
                if active {
                    active_row(ui, row, summary, actions);
                } else {
                    done_row(ui, row);
                }
            });
            *height = height.max(ui.cursor().top() - top - ui.spacing().item_spacing.y);
        }
    }
}

/// Below this window height the banner starts folded.
const BANNER_OPEN_HEIGHT: f32 = 800.0;

fn active_row(ui: &mut Ui, row: &Row, summary: &blockers::Summary, actions: &mut Vec<Action>) {
    let hover = "Changes the host profile in Settings; change it back there";
    match row {
        Row::DeclareAll => {
            // The node-type families as one declaration: a registry needs a dozen of them.
            let Some(fix) = summary.declare_all_host_types() else { return };
            let Fix::DeclareHostTypes(families) = &fix else { return };
            let shown: Vec<&str> = families.iter().take(3).map(String::as_str).collect();
            let more = if families.len() > 3 { format!(" and {} more", families.len() - 3) } else { String::new() };
            let need = Fix::DeclareHostTypes(Vec::new()).need(summary.need_host_types);
            let text = format!("{need} ({}{more})", shown.join(", "));
            ui.add(egui::Label::new(RichText::new(text).small()).wrap());
            let label =
                if families.len() == 1 { fix.label() } else { format!("Declare these {} families", families.len()) };
            if ui.small_button(label).on_hover_text(format!("{}\n{hover}", families.join(", "))).clicked() {
                actions.push(Action::Fix(fix.clone()));
            }
        }
        Row::Fix(fix) => {
            let n = summary.fixes.iter().find(|(f, _)| f == fix).map_or(0, |(_, n)| *n);
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(fix.need(n)).small());
                if ui.small_button(fix.label()).on_hover_text(hover).clicked() {
                    actions.push(Action::Fix(fix.clone()));
                }
            });
        }
        Row::Unfixable => {
            let text = format!("{} also refused for what no setting lifts: click a tile to see why", summary.unfixable);
            ui.add(egui::Label::new(RichText::new(text).small().color(theme::TEXT_DIM)).wrap());
        }
    }
}

/// A row whose fix is in place: what was done, where the button was.
fn done_row(ui: &mut Ui, row: &Row) {
    let text = match row {
        Row::DeclareAll => "✔ Done: node types declared as host-provided (Settings to change it back)".to_owned(),
        Row::Fix(fix) => format!("✔ Done: {} (Settings to change it back)", fix.label()),
        Row::Unfixable => "✔ No chain is refused for what no setting lifts".to_owned(),
    };
    ui.add(egui::Label::new(RichText::new(text).small().color(theme::OK)).wrap());
}

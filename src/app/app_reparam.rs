//! The window that re-parameterises a workflow the OpenWOP app expanded from one chain: it
//! says which nodes were edited by hand since the expansion (the re-expansion replaces those
//! edits), takes new values, and applies them as one undoable command. The model is
//! [`crate::editor::app_reparam`].

use super::action::Action;
use super::theme;
use super::window::{Window, WindowId, show_some};
use crate::editor::app_reparam::{AppReparam, ReparamSession};
use crate::error::Error;
use egui::{RichText, Ui};

const WINDOW_WIDTH: f32 = 560.0;
/// Roughly the window's height with a few parameters, for placing it.
pub(super) const WINDOW_HEIGHT: f32 = 360.0;

/// The window's state is the editor's ([`ReparamSession`]); this module draws it.
pub type AppReparamWindow = ReparamSession;

impl Window for AppReparamWindow {
    type Input<'a> = ();
    type Response = Vec<Action>;
    const ID: WindowId = WindowId::AppReparam;
    const SIZE: Option<egui::Vec2> = None;

    fn close(&mut self) -> bool {
        self.open.take().is_some()
    }

    fn show(&mut self, ctx: &egui::Context, (): ()) -> Vec<Action> {
        let mut actions = Vec::new();
        if self.open.is_none() {
            return actions;
        }
        // Low in the window, so the instance's frame and its edited nodes stay in view.
        let at =
            egui::pos2(ctx.content_rect().center().x - WINDOW_WIDTH / 2.0, ctx.content_rect().bottom() - WINDOW_HEIGHT);
        let refusal = self.refusal.as_ref();
        let answer = show_some::<Self, _, _>(
            ctx,
            &mut self.open,
            "Re-parameterise app workflow",
            |s| s.fixed_size().width(WINDOW_WIDTH).at(at).constrained(),
            |ui, r| contents(ui, r, refusal),
        )
        .flatten();
        if answer == Some(true)
            && let Some(command) = self.submit()
        {
            actions.push(Action::Doc(command));
        }
        // Cancelled, or closed by its button.
        if answer == Some(false) || (answer.is_none() && self.open.is_none()) {
            self.cancel();
        }
        actions
    }
}

/// `Some(true)`: "Re-parameterise" was clicked; `Some(false)`: "Cancel".
fn contents(ui: &mut Ui, r: &mut AppReparam, refusal: Option<&Error>) -> Option<bool> {
    let inst = &r.instance;
    ui.label(RichText::new(format!("{}@{}", inst.chain_id, inst.chain_version)).strong());
    dim(
        ui,
        &format!(
            "Expanded by the OpenWOP app with expansionId {}. Re-expanding uses the app's token rules; the new expansionId is the app's hash of the values.",
            inst.expansion_id
        ),
    );
    ui.add_space(4.0);
    if r.hand_edits.is_empty() {
        ui.label(RichText::new("No node was edited by hand since the expansion.").color(theme::OK));
    } else {
        ui.label(
            RichText::new(format!(
                "Edited by hand since the expansion ({}); re-parameterising keeps these edits:",
                r.hand_edits.len()
            ))
            .color(theme::WARN),
        );
        for line in r.describe_edits() {
            ui.label(RichText::new(line).monospace().small().color(theme::WARN));
        }
    }
    ui.separator();
    egui::Grid::new("cs-app-reparam-fields").num_columns(2).spacing([12.0, 6.0]).show(ui, |ui| {
        for (name, text) in &mut r.texts {
            let label = ui.label(name.as_str());
            let edit = egui::TextEdit::singleline(text).hint_text("recorded value or default").desired_width(320.0);
            ui.add(edit.id_salt(("cs-app-param", name.as_str()))).labelled_by(label.id);
            ui.end_row();
        }
    });
    if !r.conflicts.is_empty() {
        super::conflicts::show(ui, &r.conflicts, &mut r.resolutions);
    }
    if let Some(e) = refusal {
        ui.label(RichText::new(format!("{}: {}", e.code, e.message)).color(theme::ERROR));
    }
    ui.add_space(4.0);
    let mut answer = None;
    ui.horizontal(|ui| {
        if ui.button(RichText::new("Re-parameterise").strong()).clicked() {
            answer = Some(true);
        }
        if ui.button("Cancel").clicked() {
            answer = Some(false);
        }
    });
    answer
}

fn dim(ui: &mut Ui, text: &str) {
    ui.add(egui::Label::new(RichText::new(text).small().color(theme::TEXT_DIM)).wrap());
}

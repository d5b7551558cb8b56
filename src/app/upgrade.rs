//! Updating chain instances to a newer loaded version of their chain (issue 36, items 2
//! and 3): which instances have one (badges on their frames, a row in the inspector, the
//! versions a palette tile has), and the "Review update…" window. The review is the core's
//! ([`crate::editor::update_review::review_update`]), computed on a thread of its own so frames
//! keep drawing; applying it is the inline pipeline's re-expansion, one undo step.

use super::action::Action;
use super::conflicts;
use super::form;
use super::theme;
use super::window::{Window, WindowId, show_some};
use crate::diff::Level;
use crate::editor::document::Command;
use crate::editor::packs::PackId;
use crate::editor::update_review::{Line, Mark, Review, ReviewLines, ReviewSession, ReviewState};
use crate::error::code;
use crate::instance::update::Available;
use crate::instance::{Conflict, Resolutions};
use crate::params::FormFields;
use crate::workflow::Instance;
use egui::{Color32, RichText, Ui};
use serde_json::{Map, Value};

/// A patch update is safe, a minor one adds, a major one may break what the instance is
/// wired to.
pub fn level_color(level: Level) -> Color32 {
    match level {
        Level::Major => theme::ERROR,
        Level::Minor => theme::WARN,
        Level::Patch | Level::None => theme::OK,
    }
}

/// Removed in red, added in green, changed in amber, the rest dim; the chain's changes by
/// their level.
fn mark_color(mark: Mark) -> Color32 {
    match mark {
        Mark::Added => theme::OK,
        Mark::Removed => theme::ERROR,
        Mark::Changed => theme::WARN,
        Mark::Unchanged => theme::TEXT_DIM,
        Mark::Level(level) => level_color(level),
        Mark::Edit => theme::TEXT,
    }
}

/// What the review window asked for.
pub enum Answer {
    /// Update the reviewed instance with these values, conflicts settled so.
    Apply { values: Map<String, Value>, resolutions: Resolutions },
    /// The same for it, and every other instance of the chain with its own values.
    ApplyAll { values: Map<String, Value>, resolutions: Resolutions },
}

/// "Review update…" for one instance: the editor's review, drawn.
pub type ReviewWindow = ReviewSession;

/// The review window is open while it holds a review.
impl Window for Option<ReviewWindow> {
    /// How many other instances of the chain "Update all" would update too.
    type Input<'a> = usize;
    type Response = Option<Answer>;
    const ID: WindowId = WindowId::ReviewUpdate;
    /// 80% of the editor's window, at most 980x760, in its middle (`show`).
    const SIZE: Option<egui::Vec2> = None;

    fn close(&mut self) -> bool {
        self.take().is_some()
    }

    fn show(&mut self, ctx: &egui::Context, others: usize) -> Option<Answer> {
        let review = self.as_mut()?;
        review.receive();
        review.validate();
        let screen = ctx.content_rect();
        let size = egui::vec2((screen.width() * 0.8).min(980.0), (screen.height() * 0.8).min(760.0));
        let title = match &review.state {
            ReviewState::Ready(r, ..) => format!("Review update: {}", r.label),
            _ => "Review update".to_owned(),
        };
        // Centred: the review is read whole, the canvas behind it waits.
        show_some::<Self, _, _>(
            ctx,
            self,
            title,
            |s| s.centred(ctx, size).constrained(),
            |ui, w| {
                let ReviewSession { reviewed: r, chain, state, frames_waiting } = w;
                match state {
                    ReviewState::Computing(_) => {
                        *frames_waiting += 1;
                        ui.horizontal(|ui| {
                            ui.spinner();
                            ui.label(format!("Comparing the two expansions of {}…", chain.chain_id()));
                        });
                        None
                    }
                    ReviewState::Failed(e) => {
                        ui.label(RichText::new(format!("{}: {}", e.code, e.message)).color(theme::ERROR));
                        None
                    }
                    ReviewState::Ready(review, lines, fields) => {
                        let answer = body(ui, (review, lines), fields, (&r.conflicts[..], &mut r.resolutions), others);
                        if let Some(e) = &r.refusal {
                            ui.label(RichText::new(format!("{}: {}", e.code, e.message)).color(theme::ERROR));
                        }
                        answer
                    }
                }
            },
        )
        .flatten()
    }
}

/// The review; the answer when a button was clicked.
fn body(
    ui: &mut Ui,
    (review, lines): (&Review, &ReviewLines),
    fields: &mut FormFields,
    (conflicts_found, resolutions): (&[Conflict], &mut Resolutions),
    others: usize,
) -> Option<Answer> {
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("{} {} → {}", review.chain_id, review.from, review.to)).strong());
        super::palette::badge(ui, review.level.as_str(), level_color(review.level))
            .on_hover_text("What the changes need, by the semver check (chainsmith diff)");
    });
    let mut answer = None;
    egui::ScrollArea::vertical().id_salt("cs-review-body").max_height(ui.available_height() - 40.0).show(ui, |ui| {
        ui.columns(2, |cols| {
            cols[0].label(RichText::new(format!("{} (now)", review.from)).strong());
            list(&mut cols[0], "cs-review-old", &lines.old);
            cols[1].label(RichText::new(format!("{} (new)", review.to)).strong());
            list(&mut cols[1], "cs-review-new", &lines.new);
        });
        for (title, id, items) in [
            ("Node members changed", "cs-review-members", &lines.members),
            ("Edges", "cs-review-edges", &lines.edges),
            ("Chain changes", "cs-review-changes", &lines.changes),
            ("Your edits", "cs-review-edits", &lines.edits),
        ] {
            ui.add_space(6.0);
            ui.label(RichText::new(format!("{title} ({})", items.len())).strong());
            list(ui, id, items);
        }
        if !conflicts_found.is_empty() {
            conflicts::show(ui, conflicts_found, resolutions);
        }
        ui.add_space(6.0);
        ui.label(RichText::new("Values").strong());
        if !review.dropped.is_empty() {
            let text = format!("No longer declared, dropped: {}", review.dropped.join(", "));
            ui.label(RichText::new(text).small().color(theme::WARN));
        }
        form::fields(ui, fields);
        form::summary(ui, fields, code::CHAIN_PARAMETER_INVALID, "The values carried over are valid.");
    });
    let ready = !fields.has_problems() && resolutions.settle_all(conflicts_found);
    ui.separator();
    ui.horizontal(|ui| {
        let apply = ui.add_enabled(ready, egui::Button::new(RichText::new("Apply update").strong()));
        if apply.clicked() {
            answer = Some(Answer::Apply { values: fields.values().clone(), resolutions: resolutions.clone() });
        }
        if others > 0 {
            let all = ui
                .add_enabled(ready, egui::Button::new("Update all instances of this chain"))
                .on_hover_text(format!("This one and {others} more, as one undo step"));
            if all.clicked() {
                answer = Some(Answer::ApplyAll { values: fields.values().clone(), resolutions: resolutions.clone() });
            }
        }
    });
    answer
}

/// Rows shown at once in one list of the review; a longer list scrolls.
const LIST_ROWS: usize = 12;

/// A list of lines: all of them when short, else a scrolled view drawing only the rows in
/// view.
fn list(ui: &mut Ui, id: &str, items: &[Line]) {
    let draw = |ui: &mut Ui, (text, mark): &Line| {
        ui.add(egui::Label::new(RichText::new(text).monospace().small().color(mark_color(*mark))).truncate());
    };
    if items.len() <= LIST_ROWS {
        items.iter().for_each(|l| draw(ui, l));
        return;
    }
    let row = ui.text_style_height(&egui::TextStyle::Small).max(ui.text_style_height(&egui::TextStyle::Monospace));
    let spacing = ui.spacing().item_spacing.y;
    egui::ScrollArea::vertical()
        .id_salt(id)
        .max_height((row + spacing) * LIST_ROWS as f32)
        .auto_shrink([false, true])
        .show_rows(ui, row, items.len(), |ui, range| items[range].iter().for_each(|l| draw(ui, l)));
}

/// The inspector's row for an instance: the update at hand (with "Review update…") and
/// whether it is pinned to its version.
pub fn instance_row(ui: &mut Ui, inst: &Instance, up: Option<&Available>, actions: &mut Vec<Action>) {
    let key = inst.key();
    ui.horizontal_wrapped(|ui| {
        if let Some(up) = up {
            let text = format!("{} available ({})", up.to, up.level.as_str());
            ui.label(RichText::new(text).color(level_color(up.level)));
            let review = ui.button(format!("Review update to {}…", up.to));
            if review.on_hover_text("Compare both expansions, then update").clicked() {
                actions.push(Action::ReviewUpdate(key.clone()));
            }
        }
        let mut pinned = inst.pinned;
        let hover = "Keep this instance at its version: no update is offered, and `upgrade --all` skips it";
        if ui.checkbox(&mut pinned, format!("Pin to {}", inst.chain_version)).on_hover_text(hover).changed() {
            actions.push(Action::Doc(Command::PinInstance { key, pinned }));
        }
    });
}

/// Under a palette tile whose chain is loaded at several versions: each version, newest
/// first, the tile's own marked; picking another opens the insert form for it.
pub fn versions_row(
    ui: &mut Ui,
    versions: &[(String, PackId)],
    own: PackId,
    chain_id: &str,
    actions: &mut Vec<Action>,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("versions").small().color(theme::TEXT_DIM));
        for (version, pack) in versions {
            let own = *pack == own;
            let r = ui.add(egui::Button::selectable(own, RichText::new(version).small()));
            if r.on_hover_text(format!("Insert {chain_id} {version}")).clicked() {
                actions.push(Action::InsertChain { pack: *pack, chain_id: chain_id.to_owned() });
            }
        }
    });
}

//! Updating chain instances to a newer loaded version of their chain (issue 36, items 2
//! and 3): which instances have one (badges on their frames, a row in the inspector, the
//! versions a palette tile has), and the "Review update…" window. The review is the core's
//! ([`crate::editor::update_review::review_update`]), computed on a thread of its own so frames
//! keep drawing; applying it is the inline pipeline's re-expansion, one undo step.

use super::action::Action;
use super::conflicts;
use super::form;
use super::theme;
use super::window::{Scaffold, WindowId};
use crate::catalog::Trust;
use crate::diff::Level;
use crate::editor::document::Command;
use crate::editor::packs::PackId;
use crate::editor::update_review::{NodeChange, Review, Reviewed, one_line, review_update};
use crate::error::{Error, code};
use crate::host::HostProfile;
use crate::instance::update::Available;
use crate::instance::{Conflict, Resolutions};
use crate::pack::{Chain, Pack};
use crate::params::FormFields;
use crate::params::{Form, apply_defaults, check};
use crate::workflow::{Instance, Workflow};
use egui::{Color32, RichText, Ui};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};

/// A patch update is safe, a minor one adds, a major one may break what the instance is
/// wired to.
pub fn level_color(level: Level) -> Color32 {
    match level {
        Level::Major => theme::ERROR,
        Level::Minor => theme::WARN,
        Level::Patch | Level::None => theme::OK,
    }
}

/// The open review (the updates at hand are the editor model's).
#[derive(Default)]
pub struct Updates {
    pub review: Option<ReviewWindow>,
}

/// What the review window asked for.
pub enum Answer {
    /// Update the reviewed instance with these values, conflicts settled so.
    Apply { values: Map<String, Value>, resolutions: Resolutions },
    /// The same for it, and every other instance of the chain with its own values.
    ApplyAll { values: Map<String, Value>, resolutions: Resolutions },
}

enum State {
    Computing(Receiver<crate::error::Result<Review>>),
    Ready(Box<Review>, Box<Lines>, Box<FormFields>),
    Failed(Error),
}

/// One coloured line of the review.
type Line = (String, Color32);

/// The review's lists as drawn, made once when it arrives (a frame draws only the rows in
/// view, so a review of thousands of nodes costs a frame no more than a short one).
struct Lines {
    old: Vec<Line>,
    new: Vec<Line>,
    members: Vec<Line>,
    edges: Vec<Line>,
    changes: Vec<Line>,
    edits: Vec<Line>,
}

impl Lines {
    fn of(review: &Review) -> Self {
        let mut changed = std::collections::HashSet::new();
        let (mut gone, mut fresh) = (std::collections::HashSet::new(), std::collections::HashSet::new());
        let mut members = Vec::new();
        for c in &review.nodes {
            match c {
                NodeChange::Member { node, pointer, old, new } => {
                    changed.insert(node.as_str());
                    members.push((format!("~ {node} {pointer}: {} → {}", one_line(old), one_line(new)), theme::WARN));
                }
                NodeChange::Removed(id) => {
                    gone.insert(id.as_str());
                }
                NodeChange::Added(id) => {
                    fresh.insert(id.as_str());
                }
            }
        }
        let mark = |id: &String, ends: &std::collections::HashSet<&str>, (m, color): (&str, Color32)| {
            let (mark, color) = if ends.contains(id.as_str()) {
                (m, color)
            } else if changed.contains(id.as_str()) {
                ("~", theme::WARN)
            } else {
                (" ", theme::TEXT_DIM)
            };
            (format!("{mark} {id}"), color)
        };
        let old = review.old_nodes.iter().map(|id| mark(id, &gone, ("-", theme::ERROR))).collect();
        let new = review.new_nodes.iter().map(|id| mark(id, &fresh, ("+", theme::OK))).collect();
        let edges = (review.edges_added.iter().map(|e| (format!("+ {e}"), theme::OK)))
            .chain(review.edges_removed.iter().map(|e| (format!("- {e}"), theme::ERROR)))
            .collect();
        let changes = review
            .changes
            .iter()
            .map(|c| {
                let text = format!(
                    "{} {} {}: {} → {}",
                    c.level.as_str(),
                    c.kind,
                    c.pointer,
                    one_line(&c.old),
                    one_line(&c.new)
                );
                (text, level_color(c.level))
            })
            .collect();
        let edits = review.edits.iter().map(|e| (format!("you: {}", e.describe()), theme::TEXT)).collect();
        Self { old, new, members, edges, changes, edits }
    }
}

/// "Review update…" for one instance.
pub struct ReviewWindow {
    /// What is reviewed and what the last Apply left.
    pub reviewed: Reviewed,
    /// The chain at the reviewed version (its parameters make the form).
    chain: Chain,
    state: State,
    /// Frames drawn while the review was computed (the UI never waits for it).
    pub frames_waiting: u64,
}

impl ReviewWindow {
    /// Start computing the review of moving `key` to `packs[target]`'s version of its
    /// chain on a thread; the window shows a spinner until it is done. `host` is the host
    /// profile the expansions follow (whether sub-chains are co-expanded).
    pub fn start(
        ctx: &egui::Context,
        wf: Arc<Workflow>,
        key: &str,
        packs: Vec<Pack>,
        (target, target_id): (usize, PackId),
        host: HostProfile,
    ) -> Option<Self> {
        let inst = wf.instance(key)?;
        let chain = packs.get(target)?.chain(&inst.chain_id)?.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let (ctx2, key2) = (ctx.clone(), key.to_owned());
        let spawned = std::thread::Builder::new().name("cs-review-update".into()).spawn(move || {
            let trust = Trust { host, ..Trust::default() };
            let _ = tx.send(review_update(&wf, &key2, &packs, &packs[target], &trust));
            ctx2.request_repaint();
        });
        let state = match spawned {
            Ok(_) => State::Computing(rx),
            Err(e) => State::Failed(Error::new(code::IO_ERROR, format!("could not start the review: {e}"))),
        };
        Some(Self { reviewed: Reviewed::new(key, target_id), chain, state, frames_waiting: 0 })
    }

    /// Whether the review is still being computed.
    pub fn computing(&self) -> bool {
        matches!(self.state, State::Computing(_))
    }

    pub fn chain_id(&self) -> &str {
        self.chain.chain_id()
    }

    fn receive(&mut self) {
        let State::Computing(rx) = &self.state else { return };
        self.state = match rx.try_recv() {
            Ok(Ok(review)) => {
                let mut fields = FormFields::new(Form::from_schema(self.chain.parameters()), review.values.clone());
                // Carried values the new version refuses show at once, as in the insert form.
                fields.reveal();
                self.reviewed.conflicts = review.conflicts.clone();
                let lines = Lines::of(&review);
                State::Ready(Box::new(review), Box::new(lines), Box::new(fields))
            }
            Ok(Err(e)) => State::Failed(e),
            Err(TryRecvError::Empty) => return,
            Err(TryRecvError::Disconnected) => {
                State::Failed(Error::new(code::IO_ERROR, "the review stopped before it was done"))
            }
        };
    }

    /// Draw the window; `false` when it was closed.
    pub fn show(&mut self, ctx: &egui::Context, others: usize) -> (bool, Option<Answer>) {
        self.receive();
        let mut open = true;
        let mut answer = None;
        let screen = ctx.content_rect();
        let size = egui::vec2((screen.width() * 0.8).min(980.0), (screen.height() * 0.8).min(760.0));
        let title = match &self.state {
            State::Ready(r, ..) => format!("Review update: {}", r.label),
            _ => "Review update".to_owned(),
        };
        Scaffold::new(WindowId::ReviewUpdate, title, &mut open)
            .size(size)
            // Centred: the review is read whole, the canvas behind it waits.
            .at(egui::pos2(screen.center().x - size.x / 2.0, screen.top() + (screen.height() - size.y) / 2.0))
            .constrained()
            .show(ctx, |ui| match &mut self.state {
                State::Computing(_) => {
                    self.frames_waiting += 1;
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label(format!("Comparing the two expansions of {}…", self.chain.chain_id()));
                    });
                }
                State::Failed(e) => {
                    ui.label(RichText::new(format!("{}: {}", e.code, e.message)).color(theme::ERROR));
                }
                State::Ready(review, lines, fields) => {
                    let r = &mut self.reviewed;
                    answer =
                        body(ui, (review, lines), fields, &self.chain, (&r.conflicts[..], &mut r.resolutions), others);
                    if let Some(e) = &r.refusal {
                        ui.label(RichText::new(format!("{}: {}", e.code, e.message)).color(theme::ERROR));
                    }
                }
            });
        (open, answer)
    }
}

/// The review; the answer when a button was clicked.
fn body(
    ui: &mut Ui,
    (review, lines): (&Review, &Lines),
    fields: &mut FormFields,
    chain: &Chain,
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
        if fields.is_stale() {
            let mut with_defaults = fields.values().clone();
            apply_defaults(chain.parameters(), &mut with_defaults);
            fields.set_errors(check(chain, &Value::Object(with_defaults)).unwrap_or_default());
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
    let draw = |ui: &mut Ui, (text, color): &Line| {
        ui.add(egui::Label::new(RichText::new(text).monospace().small().color(*color)).truncate());
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

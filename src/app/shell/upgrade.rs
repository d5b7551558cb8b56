//! What updating chain instances asks of the editor: finding the updates when the workflow
//! or the packs change, opening the review, and applying it through the inline pipeline
//! (the same request `chainsmith upgrade` builds), one undo step.

use super::App;
use crate::app::upgrade::{Answer, ReviewWindow};
use crate::app::window::Window;
use crate::editor::insert::insert_place;
use crate::editor::packs::PackId;
use crate::editor::update_review::{chain_versions, others_to_update};
use crate::instance::Resolutions;
use serde_json::{Map, Value};

impl App {
    /// Find newer versions of the instances' chains again when the workflow or the loaded
    /// packs changed, for the frames' badges, the inspector and the palette's tiles.
    pub(super) fn refresh_updates(&mut self) {
        let packs = &self.model.library.packs;
        if !self.model.updates.refresh(self.model.doc.workflow(), self.model.doc.revision(), packs) {
            return;
        }
        self.panels.palette.versions = chain_versions(packs);
    }

    /// Whether "Review update…" is open (tests and tools).
    pub fn review_open(&self) -> bool {
        self.windows.review.is_some()
    }

    /// Whether the open review is still being computed, and how many frames were drawn
    /// while it was (tests and tools: the UI never waits for it).
    pub fn review_computing(&self) -> Option<(bool, u64)> {
        self.windows.review.as_ref().map(|r| (r.computing(), r.frames_waiting))
    }

    /// Open "Review update…" for instance `key`: the newest loaded version of its chain,
    /// compared on a thread.
    pub(super) fn open_review(&mut self, ctx: &egui::Context, key: &str) {
        let Some(inst) = self.model.doc.workflow().instance(key) else { return };
        let Some(up) = crate::instance::update::available(&inst, &self.model.library.packs) else {
            let why =
                if inst.pinned { "it is pinned to its version" } else { "no newer version of its chain is loaded" };
            self.model.problems.status(format!("Nothing to update for {}: {why}", inst.label));
            return;
        };
        let Some(target_id) = self.model.library.packs.id_at(up.pack) else { return };
        let host = self.model.library.trust.host.clone();
        let packs = self.model.library.packs.to_vec();
        let ctx = ctx.clone();
        self.windows.review =
            ReviewWindow::start(self.model.doc.snapshot(), key, packs, (up.pack, target_id), host, move || {
                ctx.request_repaint()
            });
        self.model.doc.selection.select_instance(key, inst.node_ids);
    }

    /// The review window, and what was asked of it.
    pub(super) fn review_window(&mut self, ctx: &egui::Context) {
        let Some(review) = &self.windows.review else { return };
        let available = &self.model.updates.available;
        let others =
            others_to_update(self.model.doc.workflow(), available, review.chain_id(), &review.reviewed.key).len();
        let answer = self.windows.review.show(ctx, others);
        if self.windows.review.as_ref().is_some_and(|r| r.computing()) {
            // Until the thread answers (it asks for a repaint too), the spinner turns.
            ctx.request_repaint();
        }
        match answer {
            Some(Answer::Apply { values, resolutions }) => self.apply_update(values, resolutions, false),
            Some(Answer::ApplyAll { values, resolutions }) => self.apply_update(values, resolutions, true),
            None => {}
        }
    }

    /// Update the reviewed instance (and with `all` every other one of its chain) to the
    /// reviewed version; the review closes when done, else shows what to settle or why.
    fn apply_update(&mut self, values: Map<String, Value>, resolutions: Resolutions, all: bool) {
        let Some(mut review) = self.windows.review.take() else { return };
        if !self.session(|s| s.apply_review(&mut review.reviewed, (values, resolutions), all)) {
            self.windows.review = Some(review);
        }
    }

    /// A chain picked outside the canvas (a version on a tile, "Insert now"): its insert
    /// form downstream of the selection, else mid-view.
    pub(super) fn insert_chain(&mut self, pack: PackId, chain_id: &str) {
        let c = self.panels.canvas.snap_point(self.panels.canvas.scene_rect.center());
        let at = (f64::from(c.x), f64::from(c.y));
        let place = insert_place(self.model.doc.workflow(), &self.model.doc.selection, at);
        self.panels.palette.close_explanation();
        self.open_insert_form(pack, chain_id, place);
    }
}

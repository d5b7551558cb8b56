use super::App;
use crate::app::theme;
use crate::editor::file_dialog::Purpose;
use crate::editor::session::{Effect, Session};
use crate::editor::{recovery, startup};
use egui::RichText;
use std::path::PathBuf;
use std::time::Duration;

impl App {
    /// Run `request` on the editor's model ([`Session`]), then show what it left.
    pub(super) fn session<T>(&mut self, request: impl FnOnce(&mut Session) -> T) -> T {
        let (done, effects) = self.model.run(request);
        for effect in effects {
            if let Some(effect) = self.model.absorb(effect) {
                self.show_effect(effect);
            }
        }
        done
    }

    /// What only the GUI can do for a request: the palette, the windows, the canvas's view.
    fn show_effect(&mut self, effect: Effect) {
        match effect {
            // The model's own, absorbed before (`Model::absorb`).
            Effect::Status(_)
            | Effect::Findings(..)
            | Effect::Error(_)
            | Effect::FormRefused(_)
            | Effect::Packs { .. } => {}
            Effect::Applied(refusal) => self.windows.app_reparam.answered(refusal.as_ref()),
            Effect::Explain(pack, chain_id) => self.panels.palette.explain(pack, &chain_id),
            Effect::Fit => self.panels.canvas.request_fit(),
            Effect::Replace(wf, path) => self.replace_workflow(*wf, path),
            Effect::Quit => (self.frame.allow_close, self.frame.quitting) = (true, true),
            Effect::RegistryWindow(open) => self.windows.registry.open = open,
            Effect::TrustChanged(reload_keys) => self.apply_trust_settings(reload_keys),
            Effect::FilesOpen => startup::trace_files_open(),
            Effect::Child(view) => self.windows.child_window.open = Some(*view),
        }
    }

    pub(super) fn open_paths(&mut self, paths: &[PathBuf]) {
        self.session(|s| s.open_paths(paths));
    }

    /// Open `files` and the packs open when the editor last closed, read off the UI thread:
    /// the window paints at once and the palette fills in as they arrive (a registry folder
    /// of 140 packs takes seconds). Remembered packs whose files are gone are skipped with a
    /// notice.
    pub fn open_at_start(&mut self, files: Vec<PathBuf>) {
        self.session(|s| s.open_at_start(files));
    }

    /// Take what the start's reader has read so far; with `wait`, block up to it for the rest.
    pub(super) fn take_loaded(&mut self, wait: Option<Duration>) {
        self.session(|s| s.take_loaded(wait));
    }

    /// Wait (up to `timeout`) until the files [`App::open_at_start`] reads are open.
    pub fn settle_loading(&mut self, timeout: Duration) {
        self.take_loaded(Some(timeout));
    }

    /// Files opened at start still being read.
    pub fn loading(&self) -> usize {
        self.model.start.left()
    }

    /// Ask for a file or folder; the answer is handled in [`App::answered`], at once for the
    /// system dialog, frames later for the in-app one.
    pub(super) fn ask(&mut self, purpose: Purpose) {
        let (suggested, start) = self.session(|s| s.question(&purpose));
        // Which dialog answers is always shown at the right of the status bar; saying it
        // again as the status would show the same note twice.
        if let Some(chosen) = self.windows.dialogs.ask(purpose.clone(), &suggested, start.as_deref()) {
            self.answered(purpose, chosen);
        }
    }

    /// What was chosen in a file dialog (nothing: cancelled).
    pub(super) fn answered(&mut self, purpose: Purpose, chosen: Vec<PathBuf>) {
        self.session(|s| s.answered(purpose, chosen));
    }

    pub(super) fn modals(&mut self, ctx: &egui::Context) {
        if let Some(offer) = &self.model.unsaved.offer {
            let mut answer = None;
            let shown = egui::Modal::new(egui::Id::unique("cs-recovery")).show(ctx, |ui| {
                ui.set_max_width(440.0);
                ui.heading("Recover unsaved work?");
                let when = recovery::describe_age(offer.saved_at);
                let of = offer.path.as_ref().map_or("an unsaved workflow".to_owned(), |p| p.display().to_string());
                ui.label(format!(
                    "chainsmith found changes to {of} that were not saved ({}, written {when}).",
                    crate::words::count(offer.workflow.node_count(), "node", "nodes")
                ));
                ui.horizontal(|ui| {
                    if ui.button(RichText::new("Restore").strong()).clicked() {
                        answer = Some(true);
                    }
                    if ui.button("Discard").clicked() {
                        answer = Some(false);
                    }
                });
                ui.label(
                    RichText::new("Esc restores it (nothing is lost); Discard deletes the recovery file.")
                        .small()
                        .color(theme::TEXT_DIM),
                );
            });
            // Esc (or a click beside it) takes the answer that loses nothing.
            if answer.is_none() && (shown.should_close() || (shown.is_top_modal && self.frame.modal_escape)) {
                answer = Some(true);
            }
            match answer {
                Some(true) => {
                    let offer = self.model.unsaved.offer.take().expect("shown above");
                    self.replace_workflow(offer.workflow, offer.path);
                    self.model.doc.mark_unsaved();
                    self.model.problems.status("Restored unsaved work from the recovery file");
                }
                Some(false) => {
                    self.model.unsaved.offer = None;
                    self.model.unsaved.recovery.clear();
                }
                None => {}
            }
        }
        if self.model.unsaved.pending.is_some() {
            let mut answer = None;
            let shown = egui::Modal::new(egui::Id::unique("cs-unsaved")).show(ctx, |ui| {
                ui.set_max_width(420.0);
                ui.heading("Save changes?");
                ui.label(format!("“{}” has changes that are not saved.", self.model.doc.workflow().name()));
                ui.horizontal(|ui| {
                    if ui.button(RichText::new("Save").strong()).clicked() {
                        answer = Some(0);
                    }
                    if ui.button("Don't save").clicked() {
                        answer = Some(1);
                    }
                    if ui.button("Cancel").on_hover_text("Esc").clicked() {
                        answer = Some(2);
                    }
                });
            });
            // Esc, or a click beside the question, cancels it.
            if answer.is_none() && (shown.should_close() || (shown.is_top_modal && self.frame.modal_escape)) {
                answer = Some(2);
            }
            match answer {
                // Without a file the question closes so the file dialog can be used; what
                // waited runs once the save is done.
                Some(0) if self.session(|s| s.save_pending()) => self.ask(Purpose::Save),
                Some(1) => {
                    if let Some(next) = self.model.unsaved.pending.take() {
                        self.session(|s| s.run(next));
                    }
                }
                Some(2) => self.model.unsaved.pending = None,
                _ => {}
            }
        }
    }
}

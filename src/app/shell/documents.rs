use super::App;
use crate::app::problems::ErrorAbout;
use crate::app::theme;
use crate::editor::file_dialog::Purpose;
use crate::editor::session::{Effect, ForWindow, Session};
use crate::editor::{recovery, startup};
use crate::pack::Pack;
use egui::RichText;
use std::path::PathBuf;
use std::time::Duration;

impl App {
    /// Run `request` on the editor's model ([`Session`]), then show what it left.
    pub(super) fn session<T>(&mut self, request: impl FnOnce(&mut Session) -> T) -> T {
        let mut session = Session {
            doc: &mut self.doc,
            packs: &self.library.packs,
            trust: &self.library.trust,
            updates: &self.windows.updates.found,
            settings: &mut self.settings,
            unsaved: &mut self.unsaved,
            start: &mut self.start,
            registry: &mut self.windows.registry.view,
            publish: &mut self.windows.publish,
            authoring: &mut self.windows.authoring.model,
            trust_files: &mut self.windows.trust_window.files,
            effects: Vec::new(),
        };
        let done = request(&mut session);
        for effect in std::mem::take(&mut session.effects) {
            self.show_effect(effect);
        }
        done
    }

    /// What only the window can do for a request: the status bar, the palette, the windows,
    /// the canvas's view.
    fn show_effect(&mut self, effect: Effect) {
        match effect {
            Effect::Status(text) => self.panels.problems.status(text),
            Effect::Findings(text, found) => self.panels.problems.status_with(text, found),
            Effect::Error(e) => self.panels.problems.error(e),
            Effect::FormRefused(e) => self.panels.problems.error_about(e, ErrorAbout::Form),
            Effect::Packs { packs, failures } => {
                self.library.failures.extend(failures);
                self.add_packs(packs);
            }
            Effect::Applied(refusal) => self.windows.app_reparam.answered(refusal.as_ref()),
            Effect::Explain(pack, chain_id) => self.panels.palette.explain(pack, &chain_id),
            Effect::Fit => self.panels.canvas.request_fit(),
            Effect::Replace(wf, path) => self.replace_workflow(*wf, path),
            Effect::Quit => (self.frame.allow_close, self.frame.quitting) = (true, true),
            Effect::RegistryWindow(open) => self.windows.registry.open = open,
            Effect::TrustChanged(reload_keys) => self.apply_trust_settings(reload_keys),
            Effect::Chosen(ForWindow::SavePack, path) => self.windows.authoring.save_view_pack(&path),
            Effect::Chosen(ForWindow::SigningKey, path) => self.windows.authoring.sign_view_pack(&path),
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
        self.start.left()
    }

    /// Put packs in the palette and re-check everything against the new catalog.
    pub(super) fn add_packs(&mut self, packs: Vec<Pack>) {
        // Re-opening a pack replaces the loaded copy; instances find it by name.
        self.library.packs.extend(packs);
        self.refresh_trust();
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
        if let Some(offer) = &self.unsaved.offer {
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
                    let offer = self.unsaved.offer.take().expect("shown above");
                    self.replace_workflow(offer.workflow, offer.path);
                    self.doc.mark_unsaved();
                    self.panels.problems.status("Restored unsaved work from the recovery file");
                }
                Some(false) => {
                    self.unsaved.offer = None;
                    self.unsaved.recovery.clear();
                }
                None => {}
            }
        }
        if self.unsaved.pending.is_some() {
            let mut answer = None;
            let shown = egui::Modal::new(egui::Id::unique("cs-unsaved")).show(ctx, |ui| {
                ui.set_max_width(420.0);
                ui.heading("Save changes?");
                ui.label(format!("“{}” has changes that are not saved.", self.doc.workflow().name()));
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
                    if let Some(next) = self.unsaved.pending.take() {
                        self.session(|s| s.run(next));
                    }
                }
                Some(2) => self.unsaved.pending = None,
                _ => {}
            }
        }
    }
}

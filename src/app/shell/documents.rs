use super::{App, Pending, trace_files_open};
use crate::app::theme;
use crate::editor::file_dialog::Purpose;
use crate::editor::files::{Loading, Read};
use crate::editor::{file_dialog, files, recovery};
use crate::error::Error;
use crate::pack::Pack;
use crate::workflow::{ExportMode, Workflow};
use egui::RichText;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

impl App {
    pub(super) fn open_paths(&mut self, paths: &[PathBuf]) {
        for path in paths {
            if self.open_registry(path) {
                continue;
            }
            let opened = files::open_path(path);
            self.opened(path, opened);
        }
    }

    /// A registry is browsed, not loaded whole: its packs are chosen one by one in the
    /// Registry window. Whether `path` is one.
    pub(super) fn open_registry(&mut self, path: &Path) -> bool {
        if !crate::registry::Registry::is_registry_folder(path) {
            return false;
        }
        self.windows.registry.open = true;
        self.windows.registry.view.open(path);
        self.settings.remember(path);
        true
    }

    /// What opening `path` gave: packs for the palette, or a workflow to edit.
    pub(super) fn opened(&mut self, path: &Path, opened: Result<files::Opened, Error>) {
        match opened {
            Ok(files::Opened::Packs(out)) => {
                let n = out.packs.len();
                self.panels.problems.status(format!(
                    "Loaded {} from {}",
                    crate::words::count(n, "pack", "packs"),
                    path.display()
                ));
                // A pack that failed to load is the news, not the ones that loaded.
                for e in &out.failures {
                    self.panels.problems.error(e.clone());
                }
                self.library.failures.extend(out.failures);
                // Packs open in the pack view follow their files unless edited since.
                self.windows.authoring.model.reloaded(&out.packs);
                self.add_packs(out.packs);
                self.settings.remember(path);
                self.settings.remember_packs(path);
            }
            Ok(files::Opened::Workflow(wf)) => {
                self.settings.remember(path);
                self.guard(Pending::Replace(wf, path.to_path_buf()));
            }
            Err(e) => self.panels.problems.error(e),
        }
    }

    /// Open `files` and the packs open when the editor last closed, read off the UI thread:
    /// the window paints at once and the palette fills in as they arrive (a registry folder
    /// of 140 packs takes seconds). Remembered packs whose files are gone are skipped with a
    /// notice.
    pub fn open_at_start(&mut self, files: Vec<PathBuf>) {
        let (reopen, gone) = self.settings.packs_to_reopen(&files);
        let queue: Vec<PathBuf> = reopen.into_iter().chain(files).filter(|path| !self.open_registry(path)).collect();
        // Said once the rest is open, or the packs' own messages would replace it.
        self.start.start_notice = files::not_reopened(&gone);
        if queue.is_empty() {
            self.files_open();
            return;
        }
        match Loading::start(queue) {
            Ok(loading) => self.start.loading = Some(loading),
            Err(e) => self.panels.problems.error(e),
        }
    }

    /// Take what the start's reader has read so far; with `wait`, block up to it for the rest.
    pub(super) fn take_loaded(&mut self, wait: Option<Duration>) {
        let deadline = wait.map(|w| Instant::now() + w);
        while let Some(loading) = &mut self.start.loading {
            match loading.next(deadline) {
                Read::File { path, opened, last } => {
                    if last {
                        self.start.loading = None;
                    }
                    self.opened(&path, opened);
                    if last {
                        self.files_open();
                    }
                }
                Read::NotYet => return,
                Read::Ended => self.start.loading = None,
            }
        }
    }

    /// The start's files are open: say what was not reopened.
    pub(super) fn files_open(&mut self) {
        if let Some(notice) = self.start.start_notice.take() {
            self.panels.problems.status(notice);
        }
        trace_files_open();
    }

    /// Wait (up to `timeout`) until the files [`App::open_at_start`] reads are open.
    pub fn settle_loading(&mut self, timeout: Duration) {
        self.take_loaded(Some(timeout));
    }

    /// Files opened at start still being read.
    pub fn loading(&self) -> usize {
        self.start.loading.as_ref().map_or(0, Loading::left)
    }

    /// Put packs in the palette and re-check everything against the new catalog.
    pub(super) fn add_packs(&mut self, packs: Vec<Pack>) {
        for pack in packs {
            // Re-opening a pack replaces the loaded copy; instances find it by name.
            self.library.packs.add(pack);
        }
        self.refresh_trust();
    }

    /// Run `next` now, or ask first when there are unsaved changes.
    pub(super) fn guard(&mut self, next: Pending) {
        if self.doc.is_dirty() {
            self.unsaved.pending = Some(next);
        } else {
            self.run_pending(next);
        }
    }

    pub(super) fn run_pending(&mut self, next: Pending) {
        match next {
            Pending::New => {
                self.unsaved.recovery.clear();
                self.replace_workflow(Workflow::new("Untitled workflow"), None);
                self.panels.problems.status("New workflow");
            }
            Pending::Replace(wf, path) => {
                self.unsaved.recovery.clear();
                self.panels.problems.status(format!("Opened {}", path.display()));
                self.replace_workflow(*wf, Some(path));
            }
            Pending::Quit => {
                self.unsaved.recovery.clear();
                self.frame.allow_close = true;
                self.frame.quitting = true;
            }
        }
    }

    /// Ask for a file or folder; the answer is handled in [`App::answered`], at once for the
    /// system dialog, frames later for the in-app one.
    pub(super) fn ask(&mut self, purpose: Purpose) {
        let suggested = match &purpose {
            Purpose::SaveTool(format) => {
                self.windows.publish.as_ref().and_then(|p| p.suggested_name(*format)).unwrap_or_default()
            }
            other => other.suggested_name(self.doc.workflow()),
        };
        let home = crate::fsio::home_folder();
        let last = self.settings.last_folders.get(purpose.kind()).map(PathBuf::as_path);
        let start = file_dialog::start_folder(&purpose, self.doc.path.as_deref(), last, home);
        // Which dialog answers is always shown at the right of the status bar; saying it
        // again as the status would show the same note twice.
        if let Some(chosen) = self.windows.dialogs.ask(purpose.clone(), &suggested, start.as_deref()) {
            self.answered(purpose, chosen);
        }
    }

    /// What was chosen in a file dialog (nothing: cancelled).
    pub(super) fn answered(&mut self, purpose: Purpose, chosen: Vec<PathBuf>) {
        let Some(first) = chosen.first().cloned() else {
            if purpose == Purpose::Save {
                self.unsaved.after_save = None;
            }
            return;
        };
        if let Some(folder) = purpose.folder_of(&first) {
            self.settings.last_folders.insert(purpose.kind().to_owned(), folder);
        }
        match purpose {
            Purpose::Open => self.open_paths(&chosen),
            Purpose::OpenFolder => self.open_paths(&[first]),
            Purpose::Save => {
                if self.save_to(&first)
                    && let Some(next) = self.unsaved.after_save.take()
                {
                    self.run_pending(next);
                }
            }
            Purpose::Export(mode) => self.export_to(&first, mode),
            Purpose::Registry => self.choose_registry(&first),
            Purpose::InstallFolder => self.windows.registry.view.install_dir = Some(first),
            Purpose::ExportBundle => self.export_bundle(&first),
            Purpose::Capabilities => self.import_capabilities(&first),
            Purpose::NodeCatalog => self.import_node_catalog(&first),
            Purpose::SavePack => self.windows.authoring.save_view_pack(&first),
            Purpose::SigningKey => self.windows.authoring.sign_view_pack(&first),
            Purpose::GenerateKey => self.windows.authoring.model.generate_key(&first),
            Purpose::SaveTool(format) => match &mut self.windows.publish {
                Some(publish) => publish.save_to(format, &first),
                None => self.panels.problems.status("Nothing saved: the Publish window was closed"),
            },
            Purpose::TrustedKeys => {
                // Choosing the same folder again re-reads it (a key file may have been added).
                self.settings.trust.trusted_keys = Some(first);
                self.apply_trust_settings(true);
            }
        }
    }

    /// A folder chosen in the Registry window: browsed when it is a registry; a folder of
    /// packs (what a newcomer often picks) is opened as File › Open pack folder… opens it,
    /// and the status says so.
    fn choose_registry(&mut self, dir: &Path) {
        if crate::registry::Registry::is_registry_folder(dir) || !files::holds_packs(dir) {
            self.windows.registry.view.open(dir);
            return;
        }
        self.windows.registry.open = false;
        let opened = files::open_path(dir);
        let n = match &opened {
            Ok(files::Opened::Packs(out)) => out.packs.len(),
            _ => 0,
        };
        self.opened(dir, opened);
        // A pack that failed to load stays the news.
        if self.panels.problems.last_error.is_none() {
            self.panels.problems.status(format!(
                "Opened {} as a pack folder (File › Open pack folder… opens these): it holds packs, not a \
                 registry, which has .well-known/openwop-registry.json. {}",
                crate::words::count(n, "pack", "packs"),
                dir.display()
            ));
        }
    }

    pub(super) fn save_to(&mut self, path: &Path) -> bool {
        match self.doc.workflow().save(path, ExportMode::Faithful) {
            Ok(()) => {
                self.doc.path = Some(path.to_path_buf());
                self.doc.mark_saved();
                self.unsaved.recovery.clear();
                self.settings.remember(path);
                self.panels.problems.clear_error();
                self.panels.problems.status(format!("Saved {}", path.display()));
                true
            }
            Err(e) => {
                self.panels.problems.error(e);
                false
            }
        }
    }

    pub(super) fn export_to(&mut self, path: &Path, mode: ExportMode) {
        match self.doc.workflow().save(path, mode) {
            Ok(()) => {
                let lints = self.doc.workflow().lint(mode);
                self.panels.problems.status_with(format!("Exported {}", path.display()), lints);
            }
            Err(e) => self.panels.problems.error(e),
        }
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
                Some(0) => match self.doc.path.clone() {
                    Some(p) => {
                        if self.save_to(&p)
                            && let Some(next) = self.unsaved.pending.take()
                        {
                            self.run_pending(next);
                        }
                    }
                    None => {
                        // The question closes so the file dialog can be used; what waited
                        // runs once the save is done.
                        self.unsaved.after_save = self.unsaved.pending.take();
                        self.ask(Purpose::Save);
                    }
                },
                Some(1) => {
                    if let Some(next) = self.unsaved.pending.take() {
                        self.run_pending(next);
                    }
                }
                Some(2) => self.unsaved.pending = None,
                _ => {}
            }
        }
    }
}

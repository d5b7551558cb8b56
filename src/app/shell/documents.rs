use super::{App, Loading, Pending, trace_files_open};
use crate::app::dialogs::Purpose;
use crate::app::problems;
use crate::editor::{files, recovery};
use crate::error::{Error, code};
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
                self.panels.problems.status(format!("Loaded {} from {}", problems::counted(n, "pack"), path.display()));
                // A pack that failed to load is the news, not the ones that loaded.
                for e in &out.failures {
                    self.panels.problems.error(e.clone());
                }
                self.library.failures.extend(out.failures);
                // Packs open in the pack view follow their files unless edited since.
                self.windows.authoring.reloaded(&out.packs);
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
        let mut queue = Vec::new();
        for path in reopen.into_iter().chain(files) {
            if !self.open_registry(&path) {
                queue.push(path);
            }
        }
        // Said once the rest is open, or the packs' own messages would replace it.
        self.start.start_notice = (!gone.is_empty()).then(|| {
            let names: Vec<String> = gone.iter().map(|p| p.display().to_string()).collect();
            let gone = problems::counted(gone.len(), "pack file");
            format!("Not reopened ({gone} no longer there): {}", names.join(", "))
        });
        if queue.is_empty() {
            self.files_open();
            return;
        }
        let (send, receive) = std::sync::mpsc::channel();
        self.start.loading = Some(Loading { left: queue.len(), receive });
        let spawned = std::thread::Builder::new().name("chainsmith-open".into()).spawn(move || {
            for path in queue {
                let opened = files::open_path(&path);
                if send.send((path, opened)).is_err() {
                    return;
                }
            }
        });
        if let Err(e) = spawned {
            self.start.loading = None;
            self.panels.problems.error(Error::new(code::IO_ERROR, format!("could not start reading the files: {e}")));
        }
    }

    /// Take what the start's reader has read so far; with `wait`, block up to it for the rest.
    pub(super) fn take_loaded(&mut self, wait: Option<Duration>) {
        use std::sync::mpsc::RecvTimeoutError;
        let deadline = wait.map(|w| Instant::now() + w);
        while let Some(loading) = &mut self.start.loading {
            let next = match deadline {
                Some(d) => loading.receive.recv_timeout(d.saturating_duration_since(Instant::now())),
                None => loading.receive.try_recv().map_err(|e| match e {
                    std::sync::mpsc::TryRecvError::Empty => RecvTimeoutError::Timeout,
                    std::sync::mpsc::TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
                }),
            };
            match next {
                Ok((path, opened)) => {
                    loading.left -= 1;
                    let done = loading.left == 0;
                    if done {
                        self.start.loading = None;
                    }
                    self.opened(&path, opened);
                    if done {
                        self.files_open();
                    }
                }
                Err(RecvTimeoutError::Timeout) => return,
                // The reader ended early (it cannot without sending; a panic would).
                Err(RecvTimeoutError::Disconnected) => self.start.loading = None,
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
        self.start.loading.as_ref().map_or(0, |l| l.left)
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
            Purpose::Save | Purpose::ExportBundle => files::suggested_name(self.doc.workflow()),
            Purpose::Export(_) => files::suggested_name(self.doc.workflow()).replace(".json", ".expanded.json"),
            Purpose::SavePack => "pack.json".to_owned(),
            Purpose::GenerateKey => "signing-key".to_owned(),
            Purpose::SaveTool(format) => {
                self.windows.publish.as_ref().and_then(|p| p.suggested_name(*format)).unwrap_or_default()
            }
            _ => String::new(),
        };
        let home = crate::fsio::home_folder();
        let start = dialog_start(&purpose, self.doc.path.as_deref(), &self.settings.recent, home);
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
            Purpose::Registry => self.windows.registry.view.open(&first),
            Purpose::InstallFolder => self.windows.registry.view.install_dir = Some(first),
            Purpose::ExportBundle => self.export_bundle(&first),
            Purpose::Capabilities => self.import_capabilities(&first),
            Purpose::NodeCatalog => self.import_node_catalog(&first),
            Purpose::SavePack => self.windows.authoring.save_view_pack(&first),
            Purpose::SigningKey => self.windows.authoring.sign_view_pack(&first),
            Purpose::GenerateKey => self.windows.authoring.generate_key(&first),
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
            egui::Modal::new(egui::Id::unique("cs-recovery")).show(ctx, |ui| {
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
            });
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
            egui::Modal::new(egui::Id::unique("cs-unsaved")).show(ctx, |ui| {
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
                    if ui.button("Cancel").clicked() {
                        answer = Some(2);
                    }
                });
            });
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

/// Where the in-app dialog starts: beside the workflow's file, else the last file opened; a
/// new key pair in the home folder, never by default beside the pack it will sign (a private
/// key there is one `git add .` away from being published).
fn dialog_start(
    purpose: &Purpose,
    workflow: Option<&Path>,
    recent: &[PathBuf],
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    if matches!(purpose, Purpose::GenerateKey) {
        return home;
    }
    let near = workflow.or_else(|| recent.first().map(PathBuf::as_path))?;
    if near.is_dir() { Some(near.to_path_buf()) } else { near.parent().map(Path::to_path_buf) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_pair_starts_in_the_home_folder_not_beside_the_pack() {
        let recent = vec![PathBuf::from("/work/acme-pack/pack.json")];
        let home = Some(PathBuf::from("/home/someone"));
        assert_eq!(dialog_start(&Purpose::GenerateKey, None, &recent, home.clone()), home);
        // Everything else starts beside the workflow, else the last file opened.
        let beside = Some(PathBuf::from("/work/acme-pack"));
        assert_eq!(dialog_start(&Purpose::SavePack, None, &recent, home.clone()), beside);
        let wf = Path::new("/work/flows/main.json");
        assert_eq!(dialog_start(&Purpose::SigningKey, Some(wf), &recent, home), Some(PathBuf::from("/work/flows")));
    }
}

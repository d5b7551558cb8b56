//! Opening files into the editor, and saving and exporting the workflow.

use super::{Effect, Pending, Session};
use crate::editor::file_dialog::{self, Purpose};
use crate::editor::files::{self, Loading, Read};
use crate::editor::registry_view::Done;
use crate::editor::subchains;
use crate::error::Error;
use crate::registry::Registry;
use crate::workflow::ExportMode;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

impl Session<'_> {
    /// Show the child of sub-chain node `node_id`, or say why it cannot be shown.
    pub fn open_child(&mut self, node_id: &str) {
        let (wf, path) = (self.doc.workflow(), self.doc.path.as_deref());
        match subchains::open_child(wf, path, self.packs, self.trust, node_id) {
            Ok(view) => {
                self.status(view.status());
                self.effects.push(Effect::Child(Box::new(view)));
            }
            Err(e) => self.error(e),
        }
    }

    /// Write the workflow and every sub-chain child beside it at `path`, all files or none.
    pub fn export_bundle(&mut self, path: &Path) {
        match subchains::export_bundle(self.doc.workflow(), self.packs, self.trust, path) {
            Ok((text, found)) => self.effects.push(Effect::Findings(text, found)),
            Err(e) => self.error(e),
        }
    }

    /// What a finished registry Install or Open came to: an opened pack for the palette,
    /// then the status line; or why it failed.
    pub fn registry_done(&mut self, answer: Result<Done, Error>) {
        let said = answer.as_ref().map(Done::status).map_err(Clone::clone);
        if let Ok(Done::Opened(pack)) = answer {
            self.effects.push(Effect::Packs { packs: vec![*pack], failures: Vec::new() });
        }
        match said {
            Ok(text) => self.status(text),
            Err(e) => self.error(e),
        }
    }

    /// Open each of `paths`: a registry in the Registry window, packs into the palette, a
    /// workflow to edit (asking first about unsaved changes).
    pub fn open_paths(&mut self, paths: &[PathBuf]) {
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
    fn open_registry(&mut self, path: &Path) -> bool {
        if !Registry::is_registry_folder(path) {
            return false;
        }
        self.effects.push(Effect::RegistryWindow(true));
        self.registry.open(path);
        self.settings.remember(path);
        true
    }

    /// What opening `path` gave: packs for the palette, or a workflow to edit.
    pub fn opened(&mut self, path: &Path, opened: Result<files::Opened, Error>) {
        match opened {
            Ok(files::Opened::Packs(out)) => {
                let n = out.packs.len();
                self.status(format!("Loaded {} from {}", crate::words::count(n, "pack", "packs"), path.display()));
                // A pack that failed to load is the news, not the ones that loaded.
                self.effects.extend(out.failures.iter().cloned().map(Effect::Error));
                // Packs open in the pack view follow their files unless edited since.
                self.authoring.model.reloaded(&out.packs);
                self.effects.push(Effect::Packs { packs: out.packs, failures: out.failures });
                self.settings.remember(path);
                self.settings.remember_packs(path);
            }
            Ok(files::Opened::Workflow(wf)) => {
                self.settings.remember(path);
                self.guard(Pending::Replace(wf, path.to_path_buf()));
            }
            Err(e) => self.error(e),
        }
    }

    /// Open `files` and the packs open when the editor last closed, read off the UI thread
    /// ([`Session::take_loaded`] takes them). Remembered packs whose files are gone are
    /// skipped with a notice, said once the rest is open.
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
            Err(e) => self.error(e),
        }
    }

    /// Take what the start's reader has read so far; with `wait`, block up to it for the rest.
    pub fn take_loaded(&mut self, wait: Option<Duration>) {
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
    fn files_open(&mut self) {
        if let Some(notice) = self.start.start_notice.take() {
            self.status(notice);
        }
        self.effects.push(Effect::FilesOpen);
    }

    /// Save the workflow to `path` (it is then the workflow's file); whether it was saved.
    pub fn save_to(&mut self, path: &Path) -> bool {
        match self.doc.workflow().save(path, ExportMode::Faithful) {
            Ok(()) => {
                self.doc.path = Some(path.to_path_buf());
                self.doc.mark_saved();
                self.unsaved.recovery.clear();
                self.settings.remember(path);
                self.status(format!("Saved {}", path.display()));
                true
            }
            Err(e) => {
                self.error(e);
                false
            }
        }
    }

    /// Write the expanded workflow to `path`; the status counts what `mode` lints.
    pub fn export_to(&mut self, path: &Path, mode: ExportMode) {
        match self.doc.workflow().save(path, mode) {
            Ok(()) => {
                let lints = self.doc.workflow().lint(mode);
                self.effects.push(Effect::Findings(format!("Exported {}", path.display()), lints));
            }
            Err(e) => self.error(e),
        }
    }

    /// What a file dialog for `purpose` starts with: the name it suggests and its folder.
    pub fn question(&self, purpose: &Purpose) -> (String, Option<PathBuf>) {
        let suggested = match purpose {
            Purpose::SaveTool(format) => {
                self.publish.as_ref().and_then(|p| p.suggested_name(*format)).unwrap_or_default()
            }
            other => other.suggested_name(self.doc.workflow()),
        };
        let home = crate::fsio::home_folder();
        let last = self.settings.last_folders.get(purpose.kind()).map(PathBuf::as_path);
        (suggested, file_dialog::start_folder(purpose, self.doc.path.as_deref(), last, home))
    }
}

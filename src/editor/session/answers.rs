//! What a file dialog's answer does, by what the file or folder was asked for.

use super::{Effect, Session};
use crate::editor::file_dialog::Purpose;
use crate::editor::files;
use crate::error::Error;
use crate::registry::Registry;
use std::path::{Path, PathBuf};

impl Session<'_> {
    /// What was chosen in a file dialog (nothing: cancelled). The folder it was chosen in is
    /// where the next dialog of its kind starts.
    pub fn answered(&mut self, purpose: Purpose, chosen: Vec<PathBuf>) {
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
                    self.run(next);
                }
            }
            Purpose::Export(mode) => self.export_to(&first, mode),
            Purpose::Registry => self.choose_registry(&first),
            Purpose::InstallFolder => self.registry.install_dir = Some(first),
            Purpose::GenerateKey => self.authoring.model.generate_key(&first),
            Purpose::SaveTool(format) => match self.publish.as_mut() {
                Some(publish) => publish.save_to(format, &first),
                None => self.status("Nothing saved: the Publish window was closed".to_owned()),
            },
            Purpose::TrustedKeys => {
                // Choosing the same folder again re-reads it (a key file may have been added).
                self.settings.trust.trusted_keys = Some(first);
                self.effects.push(Effect::TrustChanged(true));
            }
            Purpose::ExportBundle => self.export_bundle(&first),
            Purpose::Capabilities => {
                let said = self.settings.trust.import_capabilities_noted(self.trust_files, &first);
                self.trust_imported(said);
            }
            Purpose::NodeCatalog => {
                let said = self.settings.trust.import_node_catalog(self.trust_files, &first);
                self.trust_imported(said);
            }
            Purpose::SavePack => self.authoring.save_shown(&first),
            Purpose::SigningKey => self.authoring.sign_shown(&first),
        }
    }

    /// A folder chosen in the Registry window: browsed when it is a registry; a folder of
    /// packs (what a newcomer often picks) is opened as File › Open pack folder… opens it,
    /// and the status says so.
    fn choose_registry(&mut self, dir: &Path) {
        if Registry::is_registry_folder(dir) || !files::holds_packs(dir) {
            self.registry.open(dir);
            return;
        }
        self.effects.push(Effect::RegistryWindow(false));
        let opened = files::open_path(dir);
        let n = match &opened {
            Ok(files::Opened::Packs(out)) => out.packs.len(),
            _ => 0,
        };
        let before = self.effects.len();
        self.opened(dir, opened);
        // A pack that failed to load stays the news.
        if !self.effects[before..].iter().any(|e| matches!(e, Effect::Error(_))) {
            self.status(format!(
                "Opened {} as a pack folder (File › Open pack folder… opens these): it holds packs, not a \
                 registry, which has .well-known/openwop-registry.json. {}",
                crate::words::count(n, "pack", "packs"),
                dir.display()
            ));
        }
    }

    /// An import into the trust settings is done: carry them into the policy, then say so.
    fn trust_imported(&mut self, said: Result<String, Error>) {
        if said.is_ok() {
            self.effects.push(Effect::TrustChanged(false));
        }
        match said {
            Ok(text) => self.status(text),
            Err(e) => self.error(e),
        }
    }
}

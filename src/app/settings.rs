//! What persists between runs through eframe's storage: recent files, palette and canvas
//! preferences, the last view, and the host profile and trust policy. (Window size and panel
//! widths persist through eframe and egui themselves.)

use crate::editor::trust_settings::TrustSettings;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const KEY: &str = "chainsmith.settings";
const MAX_RECENT: usize = 10;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub recent: Vec<PathBuf>,
    pub show_internal: bool,
    pub snap: bool,
    pub minimap: bool,
    /// The side panels are shown (View → Palette panel, Inspector panel, or dragged shut).
    pub palette_panel: bool,
    pub inspector_panel: bool,
    /// The canvas rect in view: min x, min y, max x, max y.
    pub view: Option<[f32; 4]>,
    pub trust: TrustSettings,
    /// Use the in-app file dialog even where the system one works.
    pub in_app_dialogs: bool,
    /// Pack files and folders opened in the last session, reopened at the next start.
    pub open_packs: Vec<PathBuf>,
    /// The folder each kind of file dialog was last answered in, by kind
    /// (`file_dialog::Purpose::kind`): the next dialog of that kind starts there.
    pub last_folders: std::collections::BTreeMap<String, PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            recent: Vec::new(),
            show_internal: false,
            snap: true,
            minimap: true,
            palette_panel: true,
            inspector_panel: true,
            view: None,
            trust: TrustSettings::default(),
            in_app_dialogs: false,
            open_packs: Vec::new(),
            last_folders: Default::default(),
        }
    }
}

impl Settings {
    pub fn load(storage: Option<&dyn eframe::Storage>) -> Self {
        storage.and_then(|s| eframe::get_value(s, KEY)).unwrap_or_default()
    }

    pub fn save(&self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, KEY, self);
    }

    /// Put a file first in the recent list.
    pub fn remember(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(MAX_RECENT);
    }
}

impl Settings {
    /// A pack file or folder was opened: reopen it at the next start.
    pub fn remember_packs(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if !self.open_packs.contains(&path) {
            self.open_packs.push(path);
        }
    }

    /// The remembered packs to reopen now (those not among `given`, which open anyway) and
    /// those whose files are gone (forgotten now).
    pub fn packs_to_reopen(&mut self, given: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let given: Vec<PathBuf> = given.iter().map(|p| p.canonicalize().unwrap_or_else(|_| p.clone())).collect();
        let gone: Vec<PathBuf> = self.open_packs.iter().filter(|p| !p.exists()).cloned().collect();
        self.open_packs.retain(|p| p.exists());
        let reopen = self.open_packs.iter().filter(|p| !given.contains(p)).cloned().collect();
        (reopen, gone)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// eframe's storage in memory: the same RON encoding, no file.
    #[derive(Default)]
    struct Memory(HashMap<String, String>);

    impl eframe::Storage for Memory {
        fn get_string(&self, key: &str) -> Option<String> {
            self.0.get(key).cloned()
        }

        fn set_string(&mut self, key: &str, value: String) {
            self.0.insert(key.to_owned(), value);
        }

        fn remove_string(&mut self, key: &str) {
            self.0.remove(key);
        }

        fn flush(&mut self) {}
    }

    #[test]
    fn trust_settings_round_trip_through_storage() {
        let mut s = Settings::default();
        s.trust.host.compensation = false;
        s.trust.host.max_depth = 12;
        s.trust.trusted_keys = Some(PathBuf::from("/keys"));
        s.trust.require_signed = true;
        let mut storage = Memory::default();
        s.save(&mut storage);
        assert_eq!(Settings::load(Some(&storage)), s);
        assert_eq!(Settings::load(None).trust, TrustSettings::default());
    }

    #[test]
    fn settings_saved_before_trust_existed_load_with_its_defaults() {
        let mut storage = Memory::default();
        eframe::Storage::set_string(&mut storage, KEY, "(recent: [\"/a.json\"], snap: false)".to_owned());
        let s = Settings::load(Some(&storage));
        assert_eq!((s.recent, s.snap), (vec![PathBuf::from("/a.json")], false));
        assert_eq!(s.trust, TrustSettings::default());
    }

    #[test]
    fn recent_files_are_unique_newest_first_and_bounded() {
        let mut s = Settings::default();
        for i in 0..15 {
            s.remember(Path::new(&format!("/nope/{i}.json")));
        }
        s.remember(Path::new("/nope/3.json"));
        assert_eq!(s.recent.len(), MAX_RECENT);
        assert_eq!(s.recent[0], Path::new("/nope/3.json"));
        assert_eq!(s.recent.iter().filter(|p| p.ends_with("3.json")).count(), 1);
    }
}

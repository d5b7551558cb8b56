//! The editor's settings as they persist between runs (the GUI stores them through its
//! toolkit's storage): recent files, palette and canvas preferences, the last view, the
//! host profile and trust policy, the packs to reopen and where each kind of file dialog
//! was last answered.

use super::trust_settings::TrustSettings;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
    /// Put a file first in the recent list.
    pub fn remember(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(MAX_RECENT);
    }

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

    #[test]
    fn packs_reopen_unless_given_and_gone_ones_are_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        let mut s = Settings::default();
        s.remember_packs(&a);
        s.remember_packs(&b);
        s.remember_packs(&a);
        assert_eq!(s.open_packs.len(), 2, "remembered once");
        std::fs::remove_dir(&b).unwrap();
        let a = a.canonicalize().unwrap();
        let (reopen, gone) = s.packs_to_reopen(&[]);
        assert_eq!(reopen, std::slice::from_ref(&a));
        assert_eq!(gone.len(), 1, "{gone:?}");
        assert_eq!(s.open_packs, std::slice::from_ref(&a), "a gone pack is forgotten");
        let (reopen, _) = s.packs_to_reopen(&[a]);
        assert!(reopen.is_empty(), "a pack given on the command line opens anyway");
    }
}

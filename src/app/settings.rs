//! What persists between runs through eframe's storage: recent files, palette and canvas
//! preferences, and the last view. (Window size and panel widths persist through eframe
//! and egui themselves.)

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
    /// The canvas rect in view: min x, min y, max x, max y.
    pub view: Option<[f32; 4]>,
}

impl Default for Settings {
    fn default() -> Self {
        Self { recent: Vec::new(), show_internal: false, snap: true, minimap: true, view: None }
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
}

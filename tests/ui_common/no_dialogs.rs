//! File dialogs that are never answered, for UI tests and the frame timer, which open no
//! files through them.

use chainsmith::app::FileDialogs;
use std::path::PathBuf;

pub struct NoDialogs;

impl FileDialogs for NoDialogs {
    fn open_files(&mut self) -> Vec<PathBuf> {
        Vec::new()
    }

    fn open_folder(&mut self) -> Option<PathBuf> {
        None
    }

    fn save_file(&mut self, _title: &str, _suggested: &str) -> Option<PathBuf> {
        None
    }
}

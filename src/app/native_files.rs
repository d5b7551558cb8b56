//! The native file dialogs (rfd) behind the editor model's [`FileDialogs`] trait.
//!
//! rfd blocks, or returns nothing without a desktop portal, so the editor asks through the
//! trait and tests substitute a fake that answers from a script. What is asked, the start
//! folder included, is decided in `editor::file_dialog` ([`NativeRequest`]).

use crate::editor::file_dialog::{NativeRequest, Pick, system_dialog_here};
pub use crate::editor::files::FileDialogs;
use std::path::PathBuf;

/// Native dialogs through rfd.
pub struct NativeDialogs;

impl FileDialogs for NativeDialogs {
    fn available(&self) -> bool {
        system_dialog_here()
    }

    fn pick(&mut self, request: &NativeRequest) -> Vec<PathBuf> {
        let mut dialog = rfd::FileDialog::new().set_title(request.title);
        if let Some(start) = &request.start {
            dialog = dialog.set_directory(start);
        }
        for (name, extensions) in &request.filters {
            dialog = dialog.add_filter(*name, extensions);
        }
        match request.pick {
            Pick::Files { many: true } => dialog.pick_files().unwrap_or_default(),
            Pick::Files { many: false } => dialog.pick_file().into_iter().collect(),
            Pick::Folder => dialog.pick_folder().into_iter().collect(),
            Pick::Save => dialog.set_file_name(&request.suggested).save_file().into_iter().collect(),
        }
    }
}

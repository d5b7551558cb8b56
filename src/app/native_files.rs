//! The native file dialogs (rfd) behind the editor model's [`FileDialogs`] trait, and whether
//! they can be shown on this desktop at all.
//!
//! rfd blocks, or returns nothing without a desktop portal, so the editor asks through the
//! trait and tests substitute a fake that answers from a script.

use crate::editor::file_dialog::system_dialog_usable;
pub use crate::editor::files::FileDialogs;
use std::path::PathBuf;

/// Native dialogs through rfd.
pub struct NativeDialogs;

/// Whether rfd can show a dialog here, found once per run.
fn system_dialog_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let unix_desktop =
        cfg!(any(target_os = "linux", target_os = "freebsd", target_os = "openbsd", target_os = "netbsd"));
    *AVAILABLE.get_or_init(|| system_dialog_usable(|name| std::env::var_os(name), unix_desktop))
}

impl FileDialogs for NativeDialogs {
    fn available(&self) -> bool {
        system_dialog_available()
    }

    fn open_files(&mut self) -> Vec<PathBuf> {
        rfd::FileDialog::new()
            .set_title("Open packs or workflows")
            .add_filter("Packs and workflows", &["json", "tgz"])
            .add_filter("All files", &["*"])
            .pick_files()
            .unwrap_or_default()
    }

    fn open_folder(&mut self) -> Option<PathBuf> {
        rfd::FileDialog::new().set_title("Open a folder of packs").pick_folder()
    }

    fn save_file(&mut self, title: &str, suggested_name: &str) -> Option<PathBuf> {
        rfd::FileDialog::new().set_title(title).set_file_name(suggested_name).add_filter("JSON", &["json"]).save_file()
    }
}

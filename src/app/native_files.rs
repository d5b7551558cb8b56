//! The native file dialogs (rfd) behind the editor model's [`FileDialogs`] trait, and whether
//! they can be shown on this desktop at all.
//!
//! rfd blocks, or returns nothing without a desktop portal, so the editor asks through the
//! trait and tests substitute a fake that answers from a script.

pub use crate::editor::files::FileDialogs;
use std::path::{Path, PathBuf};

/// Native dialogs through rfd.
pub struct NativeDialogs;

/// `CHAINSMITH_FILE_DIALOG=in-app` or `=system` overrides what is detected.
const DIALOG_ENV: &str = "CHAINSMITH_FILE_DIALOG";

/// Whether rfd can show a dialog here: on Linux and the BSDs it needs the desktop portal
/// (a session bus, and the portal service installed for the bus to start) or zenity.
fn system_dialog_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| match std::env::var(DIALOG_ENV).as_deref() {
        Ok("in-app") => false,
        Ok("system") => true,
        _ => {
            !cfg!(any(target_os = "linux", target_os = "freebsd", target_os = "openbsd", target_os = "netbsd"))
                || on_path("zenity")
                || (session_bus() && portal_installed())
        }
    })
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

fn session_bus() -> bool {
    std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some()
        || std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| Path::new(&d).join("bus").exists())
}

/// The portal's D-Bus service file, in the data folders the bus looks in.
fn portal_installed() -> bool {
    let dirs = std::env::var("XDG_DATA_DIRS").unwrap_or_else(|_| "/usr/local/share:/usr/share".to_owned());
    let home = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".local/share")));
    dirs.split(':')
        .map(PathBuf::from)
        .chain(home)
        .any(|d| d.join("dbus-1/services/org.freedesktop.portal.Desktop.service").is_file())
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

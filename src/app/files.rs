//! File dialogs behind a trait, and what an opened path turns out to be.
//!
//! The editor never calls rfd directly: rfd blocks, or returns nothing without a desktop
//! portal, so tests substitute a fake that answers from a script.

use crate::error::{Error, code};
use crate::pack::{LoadOptions, LoadOutcome, load_bytes, load_path};
use crate::workflow::Workflow;
use std::path::{Path, PathBuf};

/// The dialogs the editor asks for. `None` or an empty list means the user cancelled.
pub trait FileDialogs {
    fn open_files(&mut self) -> Vec<PathBuf>;
    fn open_folder(&mut self) -> Option<PathBuf>;
    fn save_file(&mut self, title: &str, suggested_name: &str) -> Option<PathBuf>;
    /// Whether these dialogs can be shown at all; when not, the editor uses its own.
    fn available(&self) -> bool {
        true
    }
}

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
            .add_filter("JSON", &["json"])
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

/// What a path held.
pub enum Opened {
    Packs(LoadOutcome),
    Workflow(Box<Workflow>),
}

/// Open a folder (every pack in it), a pack manifest or a workflow file. Which one a file
/// is follows from its content: a workflow has `nodes` and `edges` and no pack markers.
pub fn open_path(path: &Path) -> Result<Opened, Error> {
    if path.is_dir() {
        return Ok(Opened::Packs(load_path(path, LoadOptions::default())));
    }
    let bytes = crate::fsio::read_limited(path, crate::workflow::MAX_WORKFLOW_BYTES, code::VALIDATION_ERROR)?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        Error::new(code::VALIDATION_ERROR, format!("{}: not valid JSON: {e}", path.display()))
            .with("path", path.display().to_string())
            .with("line", e.line())
            .with("column", e.column())
    })?;
    if is_workflow(&value) {
        let wf = Workflow::from_json(value)?;
        check_editable(&wf, path)?;
        return Ok(Opened::Workflow(Box::new(wf)));
    }
    let mut out = LoadOutcome::default();
    match load_bytes(path, &bytes, LoadOptions::default()) {
        Ok(p) => out.packs.push(p),
        Err(e) => out.failures.push(e),
    }
    Ok(Opened::Packs(out))
}

/// Most nodes the editor opens. Past it a frame (culling, hit-testing, the accessibility
/// tree) takes too long for editing to be usable; the CLI has no such limit.
pub const MAX_EDITOR_NODES: usize = 250_000;
/// Most edges the editor opens.
pub const MAX_EDITOR_EDGES: usize = 1_000_000;

/// Refuse, with `validation_error` naming the limit, a workflow the editor will not handle,
/// rather than risk the editor on it: a crash with it open would be offered again from the
/// recovery file on the next start, and again after that.
pub fn check_editable(wf: &Workflow, source: &Path) -> Result<(), Error> {
    let edges = wf.graph.edge_count() + wf.dangling_edges().len();
    let (what, count, limit) = if wf.node_count() > MAX_EDITOR_NODES {
        ("nodes", wf.node_count(), MAX_EDITOR_NODES)
    } else if edges > MAX_EDITOR_EDGES {
        ("edges", edges, MAX_EDITOR_EDGES)
    } else {
        return Ok(());
    };
    Err(Error::new(
        code::VALIDATION_ERROR,
        format!(
            "{}: the workflow has {count} {what}; the editor opens at most {limit} (the chainsmith CLI has no such limit)",
            source.display()
        ),
    )
    .with("path", source.display().to_string())
    .with("limit", limit))
}

fn is_workflow(v: &serde_json::Value) -> bool {
    let Some(obj) = v.as_object() else { return false };
    let pack_markers = ["kind", "chains", "signing", "dependencies"];
    obj.contains_key("edges") && obj.contains_key("nodes") && !pack_markers.iter().any(|k| obj.contains_key(*k))
}

/// A file name for Save As: the workflow id, which is already file-safe.
pub fn suggested_name(wf: &Workflow) -> String {
    let id = wf.id();
    if id.is_empty() { "workflow.json".to_owned() } else { format!("{id}.json") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_told_apart_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let wf = dir.path().join("flow.json");
        Workflow::new("Flow").save(&wf, crate::workflow::ExportMode::Faithful).unwrap();
        assert!(matches!(open_path(&wf).unwrap(), Opened::Workflow(_)));
        let pack = crate::pack::bundled_dir().join("vendor.chainsmith.support-desk/pack.json");
        let Opened::Packs(out) = open_path(&pack).unwrap() else { panic!("a pack") };
        assert_eq!(out.packs.len(), 1);
        let Opened::Packs(all) = open_path(&crate::pack::bundled_dir()).unwrap() else { panic!("a folder") };
        assert_eq!(all.packs.len(), 4);
        let too_big = dir.path().join("big.json");
        let nodes: Vec<serde_json::Value> =
            (0..=MAX_EDITOR_NODES).map(|i| serde_json::json!({"id": format!("n{i}"), "typeId": "core.noop"})).collect();
        let doc = serde_json::json!({"id": "big", "name": "Big", "version": "1", "nodes": nodes, "edges": []});
        std::fs::write(&too_big, doc.to_string()).unwrap();
        let err = open_path(&too_big).err().unwrap();
        assert_eq!((err.code, &err.details["limit"]), (code::VALIDATION_ERROR, &serde_json::json!(MAX_EDITOR_NODES)));
        assert!(err.message.contains(&format!("{} nodes", MAX_EDITOR_NODES + 1)), "{}", err.message);
        let junk = dir.path().join("junk.json");
        std::fs::write(&junk, "{nope").unwrap();
        assert_eq!(open_path(&junk).err().unwrap().code, code::VALIDATION_ERROR);
        assert!(open_path(&dir.path().join("missing.json")).is_err());
    }
}

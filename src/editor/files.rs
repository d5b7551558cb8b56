//! Files the editor opens and saves, without any toolkit: the dialogs it asks for (as a
//! trait the GUI implements with native or in-app dialogs and tests answer from a script),
//! what an opened path turns out to be, and the name Save As suggests.

use crate::error::{Error, code};
use crate::pack::{LoadOptions, LoadOutcome, load_bytes, load_path};
use crate::workflow::{Workflow, app_instance};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::Instant;

/// The dialogs the editor asks for. An empty list means the user cancelled.
pub trait FileDialogs {
    /// Ask `request`; the files or the folder chosen.
    fn pick(&mut self, request: &super::file_dialog::NativeRequest) -> Vec<PathBuf>;
    /// Whether these dialogs can be shown at all; when not, the editor uses its own.
    fn available(&self) -> bool {
        true
    }
}

/// Files read on a thread and handed over in order (the editor's start: the window paints at
/// once and the palette fills in as the packs arrive; a registry folder of 140 packs takes
/// seconds).
pub struct Loading {
    left: usize,
    receive: Receiver<(PathBuf, Result<Opened, Error>)>,
}

/// What [`Loading::next`] found.
pub enum Read {
    /// A file was read (`last`: it was the last one).
    File { path: PathBuf, opened: Result<Opened, Error>, last: bool },
    /// The next one is not read yet.
    NotYet,
    /// The reader ended without reading the rest (it cannot without sending; a panic would).
    Ended,
}

impl Loading {
    /// Start reading `paths` with [`open_path`] on a thread of its own.
    pub fn start(paths: Vec<PathBuf>) -> Result<Self, Error> {
        let (send, receive) = std::sync::mpsc::channel();
        let left = paths.len();
        std::thread::Builder::new()
            .name("chainsmith-open".into())
            .spawn(move || {
                for path in paths {
                    let opened = open_path(&path);
                    if send.send((path, opened)).is_err() {
                        return;
                    }
                }
            })
            .map_err(|e| Error::new(code::IO_ERROR, format!("could not start reading the files: {e}")))?;
        Ok(Self { left, receive })
    }

    /// Files not handed over yet.
    pub fn left(&self) -> usize {
        self.left
    }

    /// The next file read: waiting for it until `deadline`, or with `None` not at all.
    pub fn next(&mut self, deadline: Option<Instant>) -> Read {
        let next = match deadline {
            Some(d) => self.receive.recv_timeout(d.saturating_duration_since(Instant::now())),
            None => self.receive.try_recv().map_err(|e| match e {
                TryRecvError::Empty => RecvTimeoutError::Timeout,
                TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
            }),
        };
        match next {
            Ok((path, opened)) => {
                self.left -= 1;
                Read::File { path, opened, last: self.left == 0 }
            }
            Err(RecvTimeoutError::Timeout) => Read::NotYet,
            Err(RecvTimeoutError::Disconnected) => Read::Ended,
        }
    }
}

/// The notice for remembered pack files that are no longer there; `None` when none are gone.
pub fn not_reopened(gone: &[PathBuf]) -> Option<String> {
    (!gone.is_empty()).then(|| {
        let names: Vec<String> = gone.iter().map(|p| p.display().to_string()).collect();
        let count = crate::words::count(gone.len(), "pack file", "pack files");
        format!("Not reopened ({count} no longer there): {}", names.join(", "))
    })
}

/// What a path held.
pub enum Opened {
    Packs(LoadOutcome),
    Workflow(Box<Workflow>),
}

/// Open a folder (every pack in it), a pack tarball (`.tgz`, read in memory), a pack manifest
/// or a workflow file. Which one a JSON file is follows from its content: a workflow has
/// `nodes` and `edges` and no pack markers.
pub fn open_path(path: &Path) -> Result<Opened, Error> {
    if path.is_dir() || crate::registry::is_tarball_path(path) {
        return Ok(Opened::Packs(load_path(path, LoadOptions::default())));
    }
    // A WorkflowDefinition, the common case and the large one, is read member by member as
    // the file is read: parsing it whole first held it twice, and its bytes a third time.
    if let Some(wf) =
        Workflow::read_definition_file(path).filter(|wf| !PACK_ONLY.iter().any(|k| wf.member(k).is_some()))
    {
        check_editable(&wf, path)?;
        return Ok(Opened::Workflow(Box::new(wf)));
    }
    let bytes = crate::fsio::read_limited(path, crate::workflow::MAX_WORKFLOW_BYTES, code::VALIDATION_ERROR)?;
    let value: serde_json::Value = crate::fsio::parse_json(code::VALIDATION_ERROR, path, &bytes)?;
    if is_workflow(&value) {
        // The OpenWOP app writes `nodeId`/`edgeId` and no positions (interop §5).
        let app_form = app_instance::is_app_form(&value);
        let value = if app_form { app_instance::definition_form(value) } else { value };
        let mut wf = Workflow::from_json(value)?;
        check_editable(&wf, path)?;
        if app_form {
            lay_out_unplaced(&mut wf);
        }
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

/// Give every node a layered position when none has one.
fn lay_out_unplaced(wf: &mut Workflow) {
    if wf.graph.node_weights().any(|n| n.has_member("position")) {
        return;
    }
    let at = crate::workflow::layout::layered(&wf.graph, |n| n.seq as usize);
    for node in wf.graph.node_weights_mut() {
        let (x, y) = at[node.seq as usize];
        node.set_position(x, y);
    }
}

fn is_workflow(v: &serde_json::Value) -> bool {
    let Some(obj) = v.as_object() else { return false };
    let pack_markers = ["kind", "chains"].iter().chain(&PACK_ONLY);
    obj.contains_key("edges") && obj.contains_key("nodes") && !pack_markers.into_iter().any(|k| obj.contains_key(*k))
}

/// Members that make a document with `nodes` and `edges` a pack here, beyond those that make
/// it no WorkflowDefinition anywhere (`kind`, `chains`, …).
const PACK_ONLY: [&str; 2] = ["signing", "dependencies"];

/// A file name for Save As: the workflow id, which is already file-safe.
pub fn suggested_name(wf: &Workflow) -> String {
    let id = wf.id();
    if id.is_empty() { "workflow.json".to_owned() } else { format!("{id}.json") }
}

/// Whether `dir` holds packs: a `pack.json` or pack tarball in it or in a folder at most
/// [`PACK_FOLDER_DEPTH`] below (a checkout, an install cache, a registry's `packs/`). Bounded
/// by depth and by entries read, so asking is cheap on any folder.
pub fn holds_packs(dir: &Path) -> bool {
    fn walk(dir: &Path, depth: usize, budget: &mut usize) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else { return false };
        let mut folders = Vec::new();
        for entry in entries.flatten() {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.file_name().is_some_and(|n| n == "pack.json") || crate::registry::is_tarball_path(&path) {
                return true;
            }
        }
        depth > 0 && folders.iter().any(|f| walk(f, depth - 1, budget))
    }
    walk(dir, PACK_FOLDER_DEPTH, &mut 20_000)
}

/// How deep below a folder [`holds_packs`] looks.
const PACK_FOLDER_DEPTH: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_of_pack_folders_holds_packs_and_an_empty_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!holds_packs(dir.path()));
        let deep = dir.path().join("packs/acme.one");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("README.md"), "x").unwrap();
        assert!(!holds_packs(dir.path()), "no pack.json yet");
        std::fs::write(deep.join("pack.json"), "{}").unwrap();
        assert!(holds_packs(dir.path()), "two folders down");
        assert!(!holds_packs(&dir.path().join("missing")));
    }

    #[test]
    fn pack_tarballs_open_as_packs() {
        let dir = tempfile::tempdir().unwrap();
        let manifest =
            std::fs::read(crate::pack::bundled_dir().join("vendor.chainsmith.support-desk/pack.json")).unwrap();
        let files = [("pack.json".to_owned(), manifest)].into_iter().collect();
        let tgz = dir.path().join("support-desk-1.0.0.tgz");
        std::fs::write(&tgz, crate::registry::tarball::build(&files).unwrap()).unwrap();
        let Opened::Packs(out) = open_path(&tgz).unwrap() else { panic!("a pack") };
        assert_eq!((out.packs.len(), out.failures.len()), (1, 0));
        assert_eq!(
            (out.packs[0].name(), out.packs[0].source.as_path()),
            ("vendor.chainsmith.support-desk", tgz.as_path())
        );
        std::fs::write(&tgz, b"not gzip").unwrap();
        let Opened::Packs(bad) = open_path(&tgz).unwrap() else { panic!("a pack attempt") };
        assert_eq!(bad.failures[0].code, code::PACK_MANIFEST_INVALID);
    }

    /// A definition read member by member opens as the whole-document read opens it; one
    /// with a pack-only member is still read as a pack.
    #[test]
    fn definitions_open_as_read_whole_and_pack_members_still_mean_a_pack() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("flow.json");
        let doc = serde_json::json!({"id": "f", "name": "F", "version": "1", "x-later": [1.50],
            "nodes": [{"id": "a", "typeId": "t", "position": {"x": 1, "y": 2}}, {"id": "b", "typeId": "t"}],
            "edges": [{"id": "e", "sourceNodeId": "a", "targetNodeId": "b"}]});
        std::fs::write(&path, doc.to_string()).unwrap();
        let Opened::Workflow(wf) = open_path(&path).unwrap() else { panic!("a workflow") };
        let whole = Workflow::from_json(doc.clone()).unwrap();
        let faithful = crate::workflow::ExportMode::Faithful;
        assert_eq!(wf.to_file_bytes(faithful).unwrap(), whole.to_file_bytes(faithful).unwrap());
        let mut signed = doc;
        signed["signing"] = serde_json::json!({});
        std::fs::write(&path, signed.to_string()).unwrap();
        assert!(matches!(open_path(&path).unwrap(), Opened::Packs(_)));
    }

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

    #[test]
    fn files_read_at_start_come_in_order_then_the_reader_ends() {
        let dir = tempfile::tempdir().unwrap();
        let wf = dir.path().join("flow.json");
        std::fs::write(&wf, r#"{"nodes": [], "edges": []}"#).unwrap();
        let missing = dir.path().join("gone.json");
        let mut loading = Loading::start(vec![wf.clone(), missing.clone()]).unwrap();
        assert_eq!(loading.left(), 2);
        let deadline = Some(Instant::now() + std::time::Duration::from_secs(30));
        match loading.next(deadline) {
            Read::File { path, opened: Ok(Opened::Workflow(_)), last: false } => assert_eq!(path, wf),
            _ => panic!("the workflow first"),
        }
        match loading.next(deadline) {
            Read::File { path, opened: Err(_), last: true } => assert_eq!(path, missing),
            _ => panic!("then the missing file, refused, last"),
        }
        assert_eq!(loading.left(), 0);
        assert!(matches!(loading.next(deadline), Read::Ended), "nothing more comes");
    }

    #[test]
    fn pack_files_gone_since_the_last_session_are_named_in_one_notice() {
        assert_eq!(not_reopened(&[]), None);
        let gone = [PathBuf::from("/a/pack.json"), PathBuf::from("/b/pack.json")];
        assert_eq!(
            not_reopened(&gone).as_deref(),
            Some("Not reopened (2 pack files no longer there): /a/pack.json, /b/pack.json")
        );
        assert_eq!(
            not_reopened(&gone[..1]).as_deref(),
            Some("Not reopened (1 pack file no longer there): /a/pack.json")
        );
    }
}

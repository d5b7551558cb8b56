//! Crash recovery: unsaved work is written to a recovery file every few seconds and
//! offered back on the next start. Writes are atomic, so a kill mid-write leaves the
//! previous recovery file intact.

use crate::error::{Error, code};
use crate::workflow::{ExportMode, Workflow};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How often unsaved changes are written.
pub const INTERVAL: Duration = Duration::from_secs(3);

/// What a recovery file holds.
pub struct Recovered {
    pub workflow: Workflow,
    /// The file the work belonged to, if it had been saved before.
    pub path: Option<PathBuf>,
    /// Seconds since the epoch when it was written.
    pub saved_at: u64,
}

pub struct Recovery {
    file: Option<PathBuf>,
    last_write: Option<Instant>,
    written_revision: Option<u64>,
}

impl Recovery {
    /// `file: None` turns recovery off.
    pub fn new(file: Option<PathBuf>) -> Self {
        Self { file, last_write: None, written_revision: None }
    }

    /// The recovery file left by an earlier run, if there is a readable one.
    pub fn pending(&self) -> Option<Result<Recovered, Error>> {
        let file = self.file.as_ref()?;
        if !file.is_file() {
            return None;
        }
        Some(read(file))
    }

    /// Write the workflow when it has unsaved changes not yet written and the interval has
    /// passed. Returns whether it wrote.
    pub fn tick(
        &mut self,
        wf: &Workflow,
        path: Option<&Path>,
        revision: u64,
        dirty: bool,
        now: Instant,
    ) -> Result<bool, Error> {
        let Some(file) = &self.file else { return Ok(false) };
        if !dirty || self.written_revision == Some(revision) {
            return Ok(false);
        }
        if self.last_write.is_some_and(|t| now.duration_since(t) < INTERVAL) {
            return Ok(false);
        }
        self.last_write = Some(now);
        self.written_revision = Some(revision);
        write(file, wf, path)?;
        Ok(true)
    }

    /// The work is saved (or deliberately discarded): the recovery file is no longer needed.
    pub fn clear(&mut self) {
        self.written_revision = None;
        if let Some(file) = &self.file {
            let _ = std::fs::remove_file(file);
        }
    }
}

/// "2 minutes ago", for the restore prompt.
pub fn describe_age(saved_at: u64) -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let secs = now.saturating_sub(saved_at);
    match secs {
        0..60 => format!("{secs} seconds ago"),
        60..3600 => format!("{} minutes ago", secs / 60),
        3600..86400 => format!("{} hours ago", secs / 3600),
        _ => format!("{} days ago", secs / 86400),
    }
}

fn write(file: &Path, wf: &Workflow, path: Option<&Path>) -> Result<(), Error> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, &e))?;
    }
    let saved_at = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let doc = RecoveryFile {
        chainsmith_recovery: 1,
        saved_at,
        path: path.map(|p| p.display().to_string()),
        workflow: wf.exported(ExportMode::Faithful),
    };
    // Streamed from the graph: the document is never built, nor the file held in memory.
    crate::fsio::write_atomic_with(file, &mut |w| crate::fsio::write_pretty_json(w, &doc))
}

/// The recovery file's members, in the order they are written.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct RecoveryFile<W> {
    chainsmith_recovery: u32,
    saved_at: u64,
    path: Option<String>,
    workflow: W,
}

fn read(file: &Path) -> Result<Recovered, Error> {
    let bytes = crate::fsio::read_limited(file, crate::workflow::MAX_WORKFLOW_BYTES, code::VALIDATION_ERROR)?;
    let bad = |why: &str| {
        Error::new(code::VALIDATION_ERROR, format!("recovery file {}: {why}", file.display()))
            .with("path", file.display().to_string())
    };
    let mut doc: Value = serde_json::from_slice(&bytes).map_err(|e| bad(&e.to_string()))?;
    if doc.get("chainsmithRecovery").is_none() {
        return Err(bad("not a chainsmith recovery file"));
    }
    let workflow = Workflow::from_json(doc.get_mut("workflow").map(Value::take).unwrap_or(Value::Null))?;
    super::files::check_editable(&workflow, file)?;
    Ok(Recovered {
        workflow,
        path: doc.get("path").and_then(Value::as_str).map(PathBuf::from),
        saved_at: doc.get("savedAt").and_then(Value::as_u64).unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_only_unsaved_changes_at_most_every_interval() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sub/recovery.json");
        let mut r = Recovery::new(Some(file.clone()));
        let wf = Workflow::new("Flow");
        let t0 = Instant::now();
        assert!(!r.tick(&wf, None, 1, false, t0).unwrap(), "clean work is not written");
        assert!(r.tick(&wf, Some(Path::new("/x/flow.json")), 1, true, t0).unwrap());
        assert!(!r.tick(&wf, None, 1, true, t0 + INTERVAL * 2).unwrap(), "same revision");
        assert!(!r.tick(&wf, None, 2, true, t0 + INTERVAL / 2).unwrap(), "too soon");
        assert!(r.tick(&wf, None, 2, true, t0 + INTERVAL).unwrap());
        let back = Recovery::new(Some(file.clone())).pending().unwrap().unwrap();
        assert_eq!(back.workflow.to_json(ExportMode::Faithful), wf.to_json(ExportMode::Faithful));
        assert!(back.path.is_none(), "the last write had no path");
        r.clear();
        assert!(!file.exists());
        assert!(Recovery::new(Some(file)).pending().is_none());
    }

    #[test]
    fn a_damaged_file_is_reported_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("recovery.json");
        std::fs::write(&file, "{\"workflow\": {}}").unwrap();
        let err = Recovery::new(Some(file)).pending().unwrap().err().unwrap();
        assert_eq!(err.code, code::VALIDATION_ERROR);
        assert!(Recovery::new(None).pending().is_none());
    }

    #[test]
    fn a_workflow_too_big_to_edit_is_refused_not_offered() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("recovery.json");
        let nodes: Vec<Value> = (0..=crate::editor::files::MAX_EDITOR_NODES)
            .map(|i| json!({"id": format!("n{i}"), "typeId": "core.noop"}))
            .collect();
        let wf = json!({"id": "big", "name": "Big", "version": "1", "nodes": nodes, "edges": []});
        std::fs::write(&file, json!({"chainsmithRecovery": 1, "savedAt": 0, "workflow": wf}).to_string()).unwrap();
        let err = Recovery::new(Some(file)).pending().unwrap().err().unwrap();
        assert_eq!(err.code, code::VALIDATION_ERROR);
        assert!(err.message.contains("the editor opens at most"), "{}", err.message);
    }
}

//! Crash recovery: unsaved work is written to a recovery file every few seconds and
//! offered back on the next start. Writes are atomic, so a kill mid-write leaves the
//! previous recovery file intact.
//!
//! Serialising and writing a big workflow takes far longer than a frame (tens of
//! milliseconds at 20,000 nodes), so the editor only hands a shared snapshot of the
//! document to a writer thread; the writer copies it (nodes and edges stay shared, so that
//! is quick) and lets go before it writes. Writes and the removal of the file go through
//! one queue, so a removal after saving is never undone by a write still on its way.

use crate::error::{Error, code};
use crate::workflow::{ExportMode, Workflow};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
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
    /// The writer thread, started with the first write.
    writer: Option<Writer>,
}

/// What the writer thread is asked to do, in order.
enum Task {
    Write { wf: Arc<Workflow>, path: Option<PathBuf> },
    Remove,
}

struct Writer {
    tasks: Option<Sender<Task>>,
    /// One answer per task: the write's or removal's outcome.
    done: Receiver<Result<(), Error>>,
    /// Tasks sent whose answer has not been received.
    in_flight: usize,
    thread: Option<JoinHandle<()>>,
}

impl Recovery {
    /// `file: None` turns recovery off.
    pub fn new(file: Option<PathBuf>) -> Self {
        Self { file, last_write: None, written_revision: None, writer: None }
    }

    /// Where unsaved work is written (`None`: recovery is off).
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The recovery file left by an earlier run, if there is a readable one.
    pub fn pending(&self) -> Option<Result<Recovered, Error>> {
        let file = self.file.as_ref()?;
        if !file.is_file() {
            return None;
        }
        Some(read(file))
    }

    /// Hand the workflow to the writer when it has unsaved changes not yet written and the
    /// interval has passed. Returns whether it did; an error is that of an earlier write
    /// the writer has finished since. Never waits for the disk.
    pub fn tick(
        &mut self,
        wf: &Arc<Workflow>,
        path: Option<&Path>,
        revision: u64,
        dirty: bool,
        now: Instant,
    ) -> Result<bool, Error> {
        let Some(file) = &self.file else { return Ok(false) };
        let finished = self.writer.as_mut().map_or(Ok(()), Writer::finished);
        if !dirty || self.written_revision == Some(revision) {
            return finished.map(|()| false);
        }
        if self.last_write.is_some_and(|t| now.duration_since(t) < INTERVAL) {
            return finished.map(|()| false);
        }
        self.last_write = Some(now);
        self.written_revision = Some(revision);
        let file = file.clone();
        let writer = self.writer.get_or_insert_with(|| Writer::start(file));
        writer.send(Task::Write { wf: Arc::clone(wf), path: path.map(Path::to_path_buf) });
        finished.map(|()| true)
    }

    /// The work is saved (or deliberately discarded): the recovery file is no longer needed.
    pub fn clear(&mut self) {
        self.written_revision = None;
        match (&mut self.writer, &self.file) {
            // Behind any write still queued, which would otherwise bring the file back.
            (Some(writer), _) => writer.send(Task::Remove),
            (None, Some(file)) => {
                let _ = std::fs::remove_file(file);
            }
            (None, None) => {}
        }
    }

    /// Wait (up to `timeout`) until every write and removal handed over so far is done;
    /// returns the first error among them (tests, and callers that must see the file).
    pub fn settle(&mut self, timeout: Duration) -> Result<(), Error> {
        let Some(writer) = &mut self.writer else { return Ok(()) };
        let deadline = Instant::now() + timeout;
        let mut first = Ok(());
        while writer.in_flight > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(outcome) = writer.done.recv_timeout(left) else { break };
            writer.in_flight -= 1;
            if first.is_ok() {
                first = outcome;
            }
        }
        first
    }
}

impl Writer {
    fn start(file: PathBuf) -> Self {
        let (tasks, inbox) = channel::<Task>();
        let (outbox, done) = channel();
        let thread = std::thread::Builder::new()
            .name("chainsmith-autosave".into())
            .spawn(move || write_loop(&file, &inbox, &outbox))
            .expect("the autosave thread starts");
        Self { tasks: Some(tasks), done, in_flight: 0, thread: Some(thread) }
    }

    fn send(&mut self, task: Task) {
        if self.tasks.as_ref().is_some_and(|tx| tx.send(task).is_ok()) {
            self.in_flight += 1;
        }
    }

    /// The outcomes that have arrived, without waiting: the first error among them.
    fn finished(&mut self) -> Result<(), Error> {
        let mut first = Ok(());
        while let Ok(outcome) = self.done.try_recv() {
            self.in_flight -= 1;
            if first.is_ok() {
                first = outcome;
            }
        }
        first
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // Closing the queue lets the writer finish what it was given (the last autosave
        // before the editor closes lands) and end.
        self.tasks = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The writer's loop: tasks in order, each answered.
fn write_loop(file: &Path, inbox: &Receiver<Task>, outbox: &Sender<Result<(), Error>>) {
    for task in inbox {
        let outcome = match task {
            Task::Write { wf, path } => {
                // A copy of its own (nodes and edges shared), so the editor's next edit
                // does not have to copy the snapshot while it is being written.
                let own = Workflow::clone(&wf);
                drop(wf);
                write(file, &own, path.as_deref())
            }
            Task::Remove => match std::fs::remove_file(file) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(file, &e)),
                _ => Ok(()),
            },
        };
        if outbox.send(outcome).is_err() {
            return;
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
    let mut doc: Value = crate::fsio::json::from_slice(&bytes).map_err(|e| bad(&e.to_string()))?;
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

    const WAIT: Duration = Duration::from_secs(30);

    #[test]
    fn writes_only_unsaved_changes_at_most_every_interval() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sub/recovery.json");
        let mut r = Recovery::new(Some(file.clone()));
        let wf = Arc::new(Workflow::new("Flow"));
        let t0 = Instant::now();
        assert!(!r.tick(&wf, None, 1, false, t0).unwrap(), "clean work is not written");
        assert!(r.tick(&wf, Some(Path::new("/x/flow.json")), 1, true, t0).unwrap());
        assert!(!r.tick(&wf, None, 1, true, t0 + INTERVAL * 2).unwrap(), "same revision");
        assert!(!r.tick(&wf, None, 2, true, t0 + INTERVAL / 2).unwrap(), "too soon");
        assert!(r.tick(&wf, None, 2, true, t0 + INTERVAL).unwrap());
        r.settle(WAIT).unwrap();
        let back = Recovery::new(Some(file.clone())).pending().unwrap().unwrap();
        assert_eq!(back.workflow.to_json(ExportMode::Faithful), wf.to_json(ExportMode::Faithful));
        assert!(back.path.is_none(), "the last write had no path");
        r.clear();
        r.settle(WAIT).unwrap();
        assert!(!file.exists());
        assert!(Recovery::new(Some(file)).pending().is_none());
    }

    #[test]
    fn the_writer_thread_lands_the_revision_it_was_handed_and_a_clear_is_not_undone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("recovery.json");
        let mut r = Recovery::new(Some(file.clone()));
        let mut wf = Workflow::from_json(json!({
            "id": "flow", "name": "Flow", "version": "1.0.0",
            "nodes": [{"id": "a", "typeId": "core.noop", "position": {"x": 0, "y": 0}}], "edges": []
        }))
        .unwrap();
        let handed = Arc::new(wf.clone());
        let t0 = Instant::now();
        assert!(r.tick(&handed, None, 1, true, t0).unwrap());
        // The editor goes on editing its own copy: the write is of the revision handed over.
        let a = wf.node("a").unwrap();
        wf.graph[a].set_position(500.0, 0.0);
        r.settle(WAIT).unwrap();
        let back = Recovery::new(Some(file.clone())).pending().unwrap().unwrap();
        assert_eq!(back.workflow.to_json(ExportMode::Faithful), handed.to_json(ExportMode::Faithful));
        assert_eq!(Arc::strong_count(&handed), 1, "the writer let go of the snapshot");
        // A write and then a clear, queued back to back: the file ends up removed.
        assert!(r.tick(&Arc::new(wf), None, 2, true, t0 + INTERVAL).unwrap());
        r.clear();
        r.settle(WAIT).unwrap();
        assert!(!file.exists(), "the clear came after the write");
    }

    #[test]
    fn a_failed_write_is_reported_by_a_later_tick() {
        let dir = tempfile::tempdir().unwrap();
        // The recovery file's folder cannot be made: a file is in the way.
        std::fs::write(dir.path().join("blocked"), "x").unwrap();
        let mut r = Recovery::new(Some(dir.path().join("blocked/recovery.json")));
        let wf = Arc::new(Workflow::new("Flow"));
        let t0 = Instant::now();
        assert!(r.tick(&wf, None, 1, true, t0).unwrap(), "handed over; the disk is not waited for");
        let err = r.settle(WAIT).expect_err("the write failed");
        assert_eq!(err.code, code::IO_ERROR);
        assert!(r.tick(&wf, None, 2, true, t0 + INTERVAL).unwrap());
        let deadline = Instant::now() + WAIT;
        let reported = loop {
            match r.tick(&wf, None, 2, true, t0 + INTERVAL) {
                Err(e) => break Some(e),
                Ok(_) if Instant::now() > deadline => break None,
                Ok(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        };
        assert_eq!(reported.map(|e| e.code), Some(code::IO_ERROR), "the next tick says the write failed");
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

//! The workflow's findings (schema shape, lints, and the catalog's config and port checks),
//! computed on a worker thread. At 20,000 nodes they take about a tenth of a second, far
//! more than a frame, so the editor hands the worker a shared snapshot of the document
//! and keeps drawing; it polls for the answer each frame and drops any answer about a
//! revision that is no longer the current one.
//!
//! The snapshot is an `Arc` of the document's workflow: sending it costs nothing. The worker
//! copies it at once and lets go of the shared one; the copy shares every node and edge
//! ([`crate::workflow::NodeBody`], and its lookups), so it takes well under a millisecond at 20,000 nodes,
//! and an edit that comes meanwhile copies no more than that on the UI thread. Findings no
//! longer wanted (replaced, or about a revision that is gone) are freed on the worker too:
//! at 20,000 nodes freeing them is itself several milliseconds.

use crate::catalog::Catalog;
use crate::error::Finding;
use crate::workflow::{ExportMode, Workflow};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

/// Every finding the problems bar lists for `wf`.
pub fn findings(wf: &Workflow, catalog: Option<&Catalog>) -> Vec<Finding> {
    let mut out = wf.lint(ExportMode::Faithful);
    if wf.node_count() == 0 {
        // The schema wants at least one node; an empty canvas is where every workflow
        // starts, not a problem.
        out.retain(|f| f.pointer != "/nodes");
    }
    // Without a catalog, the schemas chainsmith bundles for Core types still apply.
    match catalog {
        Some(catalog) => out.extend(catalog.check_workflow(wf)),
        None => out.extend(Catalog::new().check_workflow(wf)),
    }
    out
}

/// What a result is about: the document's revision and the catalog's generation (loading
/// node packs changes the catalog checks' answers as much as an edit does).
pub type Revision = (u64, u64);

/// What the worker is asked to check.
struct Job {
    revision: Revision,
    wf: Arc<Workflow>,
    catalog: Option<Arc<Catalog>>,
}

/// The findings of one revision.
#[derive(Debug)]
pub struct Linted {
    pub revision: Revision,
    pub findings: Vec<Finding>,
}

/// What the worker is sent.
enum Message {
    Check(Job),
    /// Findings no longer shown, to free off the UI thread.
    Discard(Vec<Finding>),
}

/// The lint worker: one thread, started with the editor and stopped when this is dropped.
pub struct Linter {
    jobs: Option<Sender<Message>>,
    results: Receiver<Linted>,
    thread: Option<JoinHandle<()>>,
    /// The revision last sent, whose answer has not arrived yet.
    waiting: Option<Revision>,
}

impl Default for Linter {
    fn default() -> Self {
        Self::new()
    }
}

impl Linter {
    pub fn new() -> Self {
        let (jobs, inbox) = channel::<Message>();
        let (outbox, results) = channel();
        let thread = std::thread::Builder::new()
            .name("chainsmith-lint".into())
            .spawn(move || work(&inbox, &outbox))
            .expect("the lint thread starts");
        Self { jobs: Some(jobs), results, thread: Some(thread), waiting: None }
    }

    /// Check this revision of the workflow in the background.
    pub fn request(&mut self, revision: Revision, wf: Arc<Workflow>, catalog: Option<Arc<Catalog>>) {
        let job = Message::Check(Job { revision, wf, catalog });
        let sent = self.jobs.as_ref().is_some_and(|tx| tx.send(job).is_ok());
        self.waiting = sent.then_some(revision);
    }

    /// Free these findings on the worker.
    pub fn discard(&self, findings: Vec<Finding>) {
        if let Some(tx) = &self.jobs
            && let Err(back) = tx.send(Message::Discard(findings))
        {
            // The worker is gone (the editor is closing): free them here.
            drop(back);
        }
    }

    /// Whether an answer is still to come.
    pub fn busy(&self) -> bool {
        self.waiting.is_some()
    }

    /// The answer about `current`, if it has arrived; answers about older revisions are
    /// dropped. Never blocks.
    pub fn poll(&mut self, current: Revision) -> Option<Linted> {
        let mut found = None;
        while let Ok(done) = self.results.try_recv() {
            found = self.accept(done, current).or(found);
        }
        found
    }

    /// Like [`Linter::poll`], but waits up to `timeout` for the answer (tests and
    /// measurements that need the findings of the revision they just made).
    pub fn wait(&mut self, current: Revision, timeout: Duration) -> Option<Linted> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.results.recv_timeout(left) {
                Ok(done) => {
                    if let Some(found) = self.accept(done, current) {
                        return Some(found);
                    }
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    fn accept(&mut self, done: Linted, current: Revision) -> Option<Linted> {
        if self.waiting == Some(done.revision) {
            self.waiting = None;
        }
        if done.revision == current {
            return Some(done);
        }
        self.discard(done.findings);
        None
    }
}

impl Drop for Linter {
    fn drop(&mut self) {
        // Closing the channel ends the worker's loop once its current job is done.
        self.jobs = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The worker's loop: take the newest job (older ones queued behind it are stale), copy
/// its workflow and let go of the shared one, check the copy, send the findings back.
fn work(inbox: &Receiver<Message>, outbox: &Sender<Linted>) {
    while let Ok(message) = inbox.recv() {
        let mut newest = None;
        for message in std::iter::once(message).chain(inbox.try_iter()) {
            match message {
                Message::Check(job) => newest = Some(job),
                Message::Discard(old) => drop(old),
            }
        }
        let Some(job) = newest else { continue };
        let wf = Workflow::clone(&job.wf);
        drop(job.wf);
        let findings = findings(&wf, job.catalog.as_deref());
        if outbox.send(Linted { revision: job.revision, findings }).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code;
    use serde_json::json;

    fn with_dangling_edge() -> Workflow {
        Workflow::from_json(json!({
            "id": "flow", "name": "Flow", "version": "1.0.0",
            "nodes": [{"id": "a", "typeId": "core.noop", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}}],
            "edges": [{"id": "e", "sourceNodeId": "a", "targetNodeId": "ghost"}],
            "triggers": [], "variables": [], "metadata": {}, "settings": {}
        }))
        .unwrap()
    }

    #[test]
    fn bundled_core_config_schemas_apply_without_a_catalog() {
        let wf = Workflow::from_json(json!({
            "id": "flow", "name": "Flow", "version": "1.0.0",
            "nodes": [{"id": "m", "typeId": "core.conformance.mock-agent", "position": {"x": 0, "y": 0},
                       "config": {"mockConfidence": 1.5}, "inputs": {}}],
            "edges": [], "triggers": [], "variables": [], "metadata": {}, "settings": {}
        }))
        .unwrap();
        let found = findings(&wf, None);
        assert!(
            found.iter().any(|f| f.code == code::NODE_CONFIG_INVALID && f.pointer == "/nodes/0/config/mockConfidence"),
            "{found:?}"
        );
    }

    #[test]
    fn the_worker_answers_with_the_findings_of_the_revision_asked_about() {
        let wf = Arc::new(with_dangling_edge());
        let expected = findings(&wf, None);
        assert!(expected.iter().any(|f| f.code == code::EDGE_ENDPOINT_UNKNOWN), "{expected:?}");
        let mut linter = Linter::new();
        linter.request((7, 0), wf, None);
        assert!(linter.busy());
        let done = linter.wait((7, 0), Duration::from_secs(30)).expect("an answer");
        assert_eq!((done.revision, done.findings), ((7, 0), expected));
        assert!(!linter.busy());
    }

    #[test]
    fn answers_about_an_older_revision_are_dropped() {
        let mut linter = Linter::new();
        linter.request((1, 0), Arc::new(with_dangling_edge()), None);
        // The document moved on before the answer came: it is stale when it arrives.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while linter.busy() && std::time::Instant::now() < deadline {
            assert!(linter.poll((2, 0)).is_none(), "an answer about revision 1 is not one about 2");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!linter.busy(), "the stale answer was received and dropped");
        linter.request((2, 0), Arc::new(Workflow::new("Empty")), None);
        let done = linter.wait((2, 0), Duration::from_secs(30)).expect("the current answer");
        assert!(done.findings.is_empty(), "an empty workflow is not a problem: {:?}", done.findings);
    }

    #[test]
    fn the_snapshot_is_released_once_checked() {
        let wf = Arc::new(with_dangling_edge());
        let mut linter = Linter::new();
        linter.request((3, 0), Arc::clone(&wf), None);
        linter.wait((3, 0), Duration::from_secs(30)).expect("an answer");
        assert_eq!(Arc::strong_count(&wf), 1, "the worker keeps no copy");
    }
}

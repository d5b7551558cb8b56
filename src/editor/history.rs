//! The undo history both editable documents keep (the workflow and the pack being authored):
//! labelled steps holding the inverse of what was done, a bounded undo stack, and state ids
//! that tell when the saved state is reached again. What an inverse is and how it applies is
//! the document's business; the history only orders the steps.

/// Oldest steps are dropped beyond this; snapshots of large workflows are not small.
pub const MAX_UNDO: usize = 200;

struct Step<I> {
    label: String,
    inverse: I,
    /// The state ids before and after the step, to know when the saved state is reached again.
    before: u64,
    after: u64,
}

pub struct History<I> {
    undo: Vec<Step<I>>,
    redo: Vec<Step<I>>,
    state: u64,
    next_state: u64,
    saved_state: u64,
}

impl<I> History<I> {
    /// An empty history whose current state is saved, or not (a document with no file yet).
    pub fn new(saved: bool) -> Self {
        Self {
            undo: Vec::new(),
            redo: Vec::new(),
            state: 0,
            next_state: 1,
            saved_state: if saved { 0 } else { u64::MAX },
        }
    }

    pub fn is_dirty(&self) -> bool {
        self.state != self.saved_state
    }

    pub fn mark_saved(&mut self) {
        self.saved_state = self.state;
    }

    /// The content is unsaved work (restored from a recovery file, say).
    pub fn mark_unsaved(&mut self) {
        self.saved_state = u64::MAX;
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    pub fn undo_label(&self) -> Option<&str> {
        self.undo.last().map(|s| s.label.as_str())
    }

    pub fn redo_label(&self) -> Option<&str> {
        self.redo.last().map(|s| s.label.as_str())
    }

    pub fn undo_len(&self) -> usize {
        self.undo.len()
    }

    /// A step just done, undone by `inverse`; nothing is left to redo.
    pub fn record(&mut self, label: String, inverse: I) {
        let before = self.state;
        self.state = self.next_state;
        self.next_state += 1;
        self.undo.push(Step { label, inverse, before, after: self.state });
        if self.undo.len() > MAX_UNDO {
            self.undo.remove(0);
        }
        self.redo.clear();
    }

    /// Undo the newest step: `apply` applies its inverse and returns what reverses that.
    /// Returns the step's label.
    pub fn undo(&mut self, apply: impl FnOnce(I) -> I) -> Option<String> {
        let step = self.undo.pop()?;
        let forward = apply(step.inverse);
        self.state = step.before;
        let label = step.label.clone();
        self.redo.push(Step { label: step.label, inverse: forward, before: step.before, after: step.after });
        Some(label)
    }

    /// Redo the step undone last, as [`History::undo`] does the other way.
    pub fn redo(&mut self, apply: impl FnOnce(I) -> I) -> Option<String> {
        let step = self.redo.pop()?;
        let backward = apply(step.inverse);
        self.state = step.after;
        let label = step.label.clone();
        self.undo.push(Step { label: step.label, inverse: backward, before: step.before, after: step.after });
        Some(label)
    }

    /// Drop every step (the current state can no longer be left by undo or redo).
    pub fn forget(&mut self) {
        self.undo.clear();
        self.redo.clear();
    }
}

/// Revisions come from one process-wide counter: a cache keyed on a revision can never
/// mistake a new document (which would otherwise start again at 0) for the one it drew.
pub fn next_revision() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

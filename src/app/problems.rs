//! The status and problems bar: the last refusal with its spec code, the latest message,
//! and the workflow's validation findings and lints. Those are recomputed on the lint
//! worker shortly after edits stop ([`crate::editor::lint`]), so no frame waits for them.

use super::theme;
use crate::catalog::{Catalog, HostProfile};
use crate::editor::document::Document;
use crate::editor::lint::{Linted, Linter, Revision};
use crate::error::{Error, Finding, Severity};
use crate::workflow::Workflow;
use egui::{RichText, Ui};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Findings are recomputed this long after the last change.
const LINT_DELAY: Duration = Duration::from_millis(400);
/// How often a frame looks for the worker's answer while it is due.
const LINT_POLL: Duration = Duration::from_millis(25);

#[derive(Default)]
pub struct Problems {
    pub last_error: Option<Error>,
    status: Option<String>,
    findings: Vec<Finding>,
    linter: Linter,
    linted_revision: Option<Revision>,
    /// The revision sent to the worker last.
    requested: Option<Revision>,
    changed_at: Option<(Revision, Instant)>,
    pub expanded: bool,
    show_error: bool,
    /// Which file dialog answers (system or in-app), shown at the right.
    pub dialogs_note: &'static str,
}

/// What the user picked in the list: a node to select.
pub enum ProblemPick {
    Node(String),
}

impl Problems {
    pub fn status(&mut self, text: impl Into<String>) {
        self.status = Some(text.into());
    }

    pub fn error(&mut self, e: Error) {
        self.status = None;
        self.last_error = Some(e);
    }

    /// Look at the workflow again at the next update (the catalog or host changed).
    pub fn relint(&mut self) {
        self.linted_revision = None;
    }

    pub fn clear_error(&mut self) {
        self.last_error = None;
    }

    /// Take the worker's findings when they arrive, and ask it to re-lint once the workflow
    /// has been still for a moment. Never blocks. Returns when to look again.
    pub fn update(
        &mut self,
        doc: &Document,
        catalog: Option<&Arc<Catalog>>,
        catalog_gen: u64,
        host: &HostProfile,
        now: Instant,
    ) -> Option<Duration> {
        let revision = (doc.revision(), catalog_gen);
        if let Some(done) = self.linter.poll(revision) {
            self.take(done, doc, host);
            // The bar was drawn earlier in this frame, still without them: one more frame
            // shows them even when no input follows (a large workflow's answer comes after
            // every other frame has settled).
            return Some(Duration::ZERO);
        }
        if self.linted_revision == Some(revision) {
            return None;
        }
        // One check at a time: a request queued behind a running check would hold its
        // snapshot until the worker got to it, and an edit meanwhile would copy the workflow.
        if self.requested == Some(revision) || self.linter.busy() {
            return Some(LINT_POLL);
        }
        let since = match self.changed_at {
            Some((r, t)) if r == revision => now.duration_since(t),
            _ => {
                self.changed_at = Some((revision, now));
                Duration::ZERO
            }
        };
        // The first findings come at once; later ones wait for edits to pause.
        if since < LINT_DELAY && self.linted_revision.is_some() {
            return Some(LINT_DELAY - since);
        }
        self.linter.request(revision, doc.snapshot(), catalog.cloned());
        self.requested = Some(revision);
        Some(LINT_POLL)
    }

    /// Wait (up to `timeout`) for the findings of the document as it is now, as if the
    /// edits had paused and the worker had answered (tests and measurements).
    pub fn settle(
        &mut self,
        doc: &Document,
        catalog: Option<&Arc<Catalog>>,
        catalog_gen: u64,
        host: &HostProfile,
        timeout: Duration,
    ) {
        let revision = (doc.revision(), catalog_gen);
        if self.linted_revision == Some(revision) {
            return;
        }
        if self.requested != Some(revision) {
            self.linter.request(revision, doc.snapshot(), catalog.cloned());
            self.requested = Some(revision);
        }
        if let Some(done) = self.linter.wait(revision, timeout) {
            self.take(done, doc, host);
        }
    }

    /// Show the worker's answer (the findings it replaces are freed on the worker).
    fn take(&mut self, done: Linted, doc: &Document, host: &HostProfile) {
        let old = std::mem::replace(&mut self.findings, done.findings);
        self.linter.discard(old);
        // More nodes than the target host runs (`limits.maxNodeExecutions` of its document).
        self.findings.extend(host.node_count_finding(doc.workflow().node_count(), "the workflow"));
        self.linted_revision = Some(done.revision);
    }

    pub fn show(&mut self, ui: &mut Ui, wf: &Workflow) -> Option<ProblemPick> {
        let mut pick = None;
        ui.horizontal(|ui| {
            if let Some(e) = &self.last_error {
                let text = RichText::new(format!("✖ {}", e.code)).monospace().strong().color(theme::ERROR);
                if ui.add(egui::Label::new(text).sense(egui::Sense::click())).on_hover_text("Show details").clicked() {
                    self.show_error = true;
                }
                ui.label(RichText::new(&e.message).color(theme::ERROR));
                if ui.small_button("🗙").on_hover_text("Dismiss").clicked() {
                    self.last_error = None;
                }
            } else if let Some(s) = &self.status {
                ui.label(RichText::new(s).color(theme::TEXT_DIM));
            } else {
                ui.label(RichText::new("Ready").color(theme::TEXT_DIM));
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let count = |s: Severity| self.findings.iter().filter(|f| f.severity == s).count();
                let (errors, warnings, notes) =
                    (count(Severity::Error), count(Severity::Warning), count(Severity::Info));
                let color = if errors > 0 {
                    theme::ERROR
                } else if warnings > 0 {
                    theme::WARN
                } else {
                    theme::OK
                };
                let arrow = if self.expanded { "⏷" } else { "⏶" };
                // Notes (what chainsmith did or deliberately keeps, e.g. the spec-faithful
                // export's capabilities) are not problems.
                let problems = format!("{} · {}", counted(errors, "error"), counted(warnings, "warning"));
                let text = match (errors + warnings, notes) {
                    // Nothing is known before the worker's first answer.
                    _ if self.linted_revision.is_none() => "checking…".to_owned(),
                    (0, 0) => "✔ no problems".to_owned(),
                    (0, n) => format!("✔ no problems · {} {arrow}", counted(n, "note")),
                    (_, 0) => format!("{problems} {arrow}"),
                    (_, n) => format!("{problems} · {} {arrow}", counted(n, "note")),
                };
                if ui.add(egui::Button::new(RichText::new(text).color(color)).frame(false)).clicked() {
                    self.expanded = !self.expanded;
                }
                if !self.dialogs_note.is_empty() {
                    ui.separator();
                    ui.label(RichText::new(self.dialogs_note).small().color(theme::TEXT_DIM));
                }
            });
        });
        if self.expanded && !self.findings.is_empty() {
            ui.separator();
            egui::ScrollArea::vertical().max_height(160.0).auto_shrink([false, true]).show(ui, |ui| {
                for f in &self.findings {
                    ui.horizontal(|ui| {
                        let color = match f.severity {
                            Severity::Error => theme::ERROR,
                            Severity::Warning => theme::WARN,
                            Severity::Info => theme::TEXT_DIM,
                        };
                        ui.label(RichText::new(f.code).monospace().color(color));
                        let link = ui.add(
                            egui::Label::new(RichText::new(&f.pointer).monospace().color(theme::ACCENT))
                                .sense(egui::Sense::click()),
                        );
                        if link.on_hover_text("Select what this is about").clicked() {
                            pick = node_of(wf, &f.pointer).map(ProblemPick::Node);
                        }
                        ui.label(&f.message);
                    });
                }
            });
        }
        self.error_window(ui.ctx());
        pick
    }

    fn error_window(&mut self, ctx: &egui::Context) {
        let Some(e) = &self.last_error else { return };
        if !self.show_error {
            return;
        }
        let mut open = true;
        egui::Window::new("Refusal").id(egui::Id::unique("cs-error")).open(&mut open).show(ctx, |ui| {
            super::form::refusal(ui, e);
        });
        self.show_error = open;
    }
}

/// "1 warning", "2 warnings".
pub(super) fn counted(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// The node a finding's pointer is about (`/nodes/3/...` → the fourth node in file order).
fn node_of(wf: &Workflow, pointer: &str) -> Option<String> {
    let rest = pointer.strip_prefix("/nodes/")?;
    let index: usize = rest.split('/').next()?.parse().ok()?;
    let ix = *wf.nodes_in_order().get(index)?;
    Some(wf.graph[ix].id().to_owned())
}

//! What the status and problems bar holds, without drawing it: the last refusal and what it
//! is about, the latest message with the findings its action reported, and the workflow's
//! findings as the lint worker ([`crate::editor::lint`]) last gave them. `app::problems`
//! draws it.

use crate::editor::lint::WorkflowLint;
use crate::error::{Error, Finding};

#[derive(Default)]
pub struct Problems {
    pub last_error: Option<Error>,
    /// What the shown error is about: it goes when that is put right.
    error_about: ErrorAbout,
    pub status: Option<String>,
    /// Findings the last action reported (an insert's warnings, an export's lints): the
    /// status line counts them and the list below the canvas shows them.
    pub action_findings: Vec<Finding>,
    /// The workflow's findings, as the lint worker last gave them.
    pub lint: WorkflowLint,
    /// The findings list is open, and which one it shows.
    pub expanded: bool,
    pub list: List,
    /// The refusal's details are open in their window.
    pub show_error: bool,
    /// Which file dialog answers (system or in-app), shown at the right.
    pub dialogs_note: &'static str,
}

/// Which findings the list under the canvas shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum List {
    /// The workflow's findings (the lint worker's).
    #[default]
    Workflow,
    /// Those the last action reported.
    Action,
}

/// What an error shown in the status bar is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorAbout {
    /// The action that produced it: the next action's result replaces it.
    #[default]
    Action,
    /// The parameter form's values: it goes once the form no longer refuses them.
    Form,
}

impl Problems {
    /// The result of an action: it replaces what the previous action left, error or not.
    pub fn status(&mut self, text: impl Into<String>) {
        self.status_with(text, Vec::new());
    }

    /// The result of an action with the findings it reported (counted in the status line,
    /// listed under the canvas).
    pub fn status_with(&mut self, text: impl Into<String>, findings: Vec<Finding>) {
        self.last_error = None;
        self.show_error = false;
        self.status = Some(text.into());
        self.action_findings = findings;
        if self.list == List::Action && self.action_findings.is_empty() {
            self.list = List::Workflow;
        }
    }

    /// What an action came to: its status line, or its refusal.
    pub fn report(&mut self, done: Result<String, Error>) {
        self.report_with(done.map(|text| (text, Vec::new())));
    }

    /// What an action came to: its status line with the findings it reported, or its refusal.
    pub fn report_with(&mut self, done: Result<(String, Vec<Finding>), Error>) {
        match done {
            Ok((text, findings)) => self.status_with(text, findings),
            Err(e) => self.error(e),
        }
    }

    pub fn error(&mut self, e: Error) {
        self.error_about(e, ErrorAbout::Action);
    }

    pub fn error_about(&mut self, e: Error, about: ErrorAbout) {
        self.status = None;
        self.action_findings.clear();
        self.last_error = Some(e);
        self.error_about = about;
    }

    /// What `about` refused is put right: its error goes.
    pub fn resolved(&mut self, about: ErrorAbout) {
        if self.last_error.is_some() && self.error_about == about {
            self.clear_error();
        }
    }

    pub fn clear_error(&mut self) {
        self.last_error = None;
        self.show_error = false;
    }

    /// Show `list` under the canvas, or with `open` false, close it.
    pub fn open_list(&mut self, list: List, open: bool) {
        self.list = list;
        self.expanded = open;
    }

    /// Whether the findings list is to be shown under the canvas this frame.
    pub fn list_open(&self) -> bool {
        self.expanded && !self.listed().is_empty()
    }

    /// The findings the list shows.
    pub fn listed(&self) -> &[Finding] {
        match self.list {
            List::Workflow => &self.lint.findings,
            List::Action => &self.action_findings,
        }
    }

    /// The refusal's details are open in their window.
    pub fn error_window_open(&self) -> bool {
        self.show_error && self.last_error.is_some()
    }

    pub fn close_error_window(&mut self) {
        self.show_error = false;
    }
}

/// The arrow after a count that opens (`⏶`) or closes (`⏷`) its list.
pub fn arrow(open: bool) -> &'static str {
    if open { "⏷" } else { "⏶" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code;

    fn finding() -> Finding {
        Finding::warning(code::INVALID_REQUEST, "/nodes/0", "a warning")
    }

    #[test]
    fn an_action_result_replaces_the_last_error_and_its_findings_are_listed() {
        let mut p = Problems::default();
        p.error(Error::new(code::INVALID_REQUEST, "no"));
        p.show_error = true;
        assert!(p.error_window_open());
        p.status_with("Inserted", vec![finding()]);
        assert!(p.last_error.is_none() && !p.error_window_open());
        assert_eq!(p.status.as_deref(), Some("Inserted"));
        p.open_list(List::Action, true);
        assert!(p.list_open());
        assert_eq!(p.listed().len(), 1);
        // The next result reports nothing: the list goes back to the workflow's findings.
        p.status("Saved");
        assert_eq!(p.list, List::Workflow);
        assert!(!p.list_open(), "the workflow has no findings yet");
    }

    #[test]
    fn an_error_goes_when_what_it_is_about_is_put_right() {
        let mut p = Problems::default();
        p.error_about(Error::new(code::INVALID_REQUEST, "bad value"), ErrorAbout::Form);
        p.status_with("x", vec![finding()]);
        p.error_about(Error::new(code::INVALID_REQUEST, "bad value"), ErrorAbout::Form);
        assert!(p.status.is_none() && p.action_findings.is_empty(), "an error replaces the message");
        p.resolved(ErrorAbout::Action);
        assert!(p.last_error.is_some(), "not what it is about");
        p.resolved(ErrorAbout::Form);
        assert!(p.last_error.is_none());
    }

    #[test]
    fn a_report_is_a_status_line_or_a_refusal() {
        let mut p = Problems::default();
        p.report_with(Ok(("Exported".to_owned(), vec![finding()])));
        assert_eq!((p.status.as_deref(), p.action_findings.len()), (Some("Exported"), 1));
        p.report(Err(Error::new(code::INVALID_REQUEST, "no")));
        assert!(p.status.is_none() && p.action_findings.is_empty());
        assert_eq!(p.last_error.as_ref().map(|e| e.code), Some(code::INVALID_REQUEST));
        p.report(Ok("Opened".to_owned()));
        assert!(p.last_error.is_none());
    }

    #[test]
    fn the_arrow_points_the_way_the_list_moves() {
        assert_eq!(arrow(false), "⏶");
        assert_eq!(arrow(true), "⏷");
    }
}

//! The editor's whole model in one place: what the GUI draws and what its requests change.
//! The GUI holds one [`Model`] beside its panels and windows, and runs each request in a
//! [`Session`] over it.

use super::{Effect, Session, Start, Unsaved};
use crate::editor::authoring::session::AuthoringSession;
use crate::editor::document::Document;
use crate::editor::library::Library;
use crate::editor::problems::{ErrorAbout, Problems};
use crate::editor::publish_session::PublishSession;
use crate::editor::recovery::Recovery;
use crate::editor::registry_view::RegistryView;
use crate::editor::settings::Settings;
use crate::editor::trust_settings::TrustFiles;
use crate::editor::update_review::FoundUpdates;
use crate::error::Error;
use crate::pack::{LoadOutcome, Pack};
use crate::workflow::Workflow;
use std::time::{Duration, Instant};

pub struct Model {
    /// The loaded packs and what the trust policy says of them.
    pub library: Library,
    /// What the status and problems bar shows: the last refusal, the latest message, the
    /// workflow's findings.
    pub problems: Problems,
    /// The workflow being edited: its commands, undo and selection.
    pub doc: Document,
    pub settings: Settings,
    pub unsaved: Unsaved,
    pub start: Start,
    /// The newer versions of instances' chains found for the document.
    pub updates: FoundUpdates,
    /// The Registry window's model.
    pub registry: RegistryView,
    /// The Publish window's session, while it is open.
    pub publish: Option<PublishSession>,
    /// The packs open for authoring and the questions open about them.
    pub authoring: AuthoringSession,
    /// What reading and importing the trust settings' files found (the Settings window shows it).
    pub trust_files: TrustFiles,
}

impl Model {
    /// A new empty workflow over the `start` packs, with the settings' trust policy applied,
    /// and work left unsaved by an editor that did not close offered from `recovery`.
    pub fn new(start: LoadOutcome, settings: Settings, recovery: Recovery) -> Self {
        let mut problems = Problems::default();
        let offer = match recovery.pending() {
            Some(Ok(r)) => Some(r),
            Some(Err(e)) => {
                problems.error(e);
                None
            }
            None => None,
        };
        let mut model = Self {
            library: Library::new(start),
            problems,
            doc: Document::new(Workflow::new("Untitled workflow"), None),
            settings,
            unsaved: Unsaved::new(recovery, offer),
            start: Start::default(),
            updates: FoundUpdates::default(),
            registry: RegistryView::default(),
            publish: None,
            authoring: AuthoringSession::default(),
            trust_files: TrustFiles::default(),
        };
        model.apply_trust_settings(true);
        model
    }

    /// Run `request` in a session over the model; what it returned, and the effects it left
    /// for the GUI, in order.
    pub fn run<T>(&mut self, request: impl FnOnce(&mut Session) -> T) -> (T, Vec<Effect>) {
        let mut session = Session {
            doc: &mut self.doc,
            packs: &self.library.packs,
            trust: &self.library.trust,
            updates: &self.updates,
            settings: &mut self.settings,
            unsaved: &mut self.unsaved,
            start: &mut self.start,
            registry: &mut self.registry,
            publish: &mut self.publish,
            authoring: &mut self.authoring,
            trust_files: &mut self.trust_files,
            effects: Vec::new(),
        };
        let done = request(&mut session);
        (done, session.effects)
    }

    /// Apply an effect a request left on the model's own state (the status bar's messages,
    /// packs read from a file); the effect back when it is the GUI's to show.
    pub fn absorb(&mut self, effect: Effect) -> Option<Effect> {
        match effect {
            Effect::Status(text) => self.problems.status(text),
            Effect::Findings(text, found) => self.problems.status_with(text, found),
            Effect::Error(e) => self.problems.error(e),
            Effect::FormRefused(e) => self.problems.error_about(e, ErrorAbout::Form),
            Effect::Packs { packs, failures } => self.add_packs(packs, failures),
            gui => return Some(gui),
        }
        None
    }

    /// Carry the settings into the trust policy and re-check every pack and the workflow's
    /// findings against it. The trusted-keys folder is read only when `reload_keys` (at
    /// start, or when a folder is chosen); what reading it said goes to the status bar.
    pub fn apply_trust_settings(&mut self, reload_keys: bool) {
        if let Some(said) = self.settings.trust.apply(&mut self.library.trust, &mut self.trust_files, reload_keys) {
            self.problems.report(said);
        }
        self.recheck_packs();
        self.problems.lint.relint();
    }

    /// Rebuild the catalog (the loaded node packs and the host's node-type catalog file from
    /// Settings) and re-check every pack against it.
    pub fn recheck_packs(&mut self) {
        self.library.refresh(self.settings.trust.node_catalog.as_deref());
    }

    /// Put packs read from a file in the library (a re-opened pack replaces its loaded copy;
    /// instances find it by name), with the errors of those that did not load, and re-check.
    pub fn add_packs(&mut self, packs: Vec<Pack>, failures: Vec<Error>) {
        self.library.failures.extend(failures);
        self.library.packs.extend(packs);
        self.recheck_packs();
    }

    /// Wait (up to `timeout`) until the autosave writer has written (or removed) the
    /// recovery file as it was last told to; a failure goes to the status bar.
    pub fn settle_autosave(&mut self, timeout: Duration) {
        if let Err(e) = self.unsaved.recovery.settle(timeout) {
            self.problems.error(e);
        }
    }

    /// Autosave the document when it is due; a failure goes to the status bar.
    pub fn autosave(&mut self, now: Instant) {
        let wf = self.doc.snapshot();
        let doc = &self.doc;
        if let Err(e) = self.unsaved.recovery.tick(&wf, doc.path.as_deref(), doc.revision(), doc.is_dirty(), now) {
            self.problems.error(e);
        }
    }

    /// Take the lint worker's findings when they arrive, and ask it to look again once the
    /// workflow has been still for a moment: when to come back, if something is pending.
    pub fn update_lint(&mut self, now: Instant) -> Option<Duration> {
        let lib = &self.library;
        self.problems.lint.update(&self.doc, lib.lint_catalog.as_ref(), lib.catalog_gen, &lib.trust.host, now)
    }

    /// Wait (up to `timeout`) for the lint worker's findings about the workflow as it is now.
    pub fn settle_lint(&mut self, timeout: Duration) {
        let lib = &self.library;
        self.problems.lint.settle(&self.doc, lib.lint_catalog.as_ref(), lib.catalog_gen, &lib.trust.host, timeout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        Model::new(LoadOutcome::default(), Settings::default(), Recovery::new(None))
    }

    #[test]
    fn the_model_absorbs_its_own_effects_and_hands_back_the_guis() {
        let mut m = model();
        assert!(m.absorb(Effect::Status("Saved".to_owned())).is_none());
        assert_eq!(m.problems.status.as_deref(), Some("Saved"));
        let refused = Error::new("chain_parameter_invalid", "Title is required");
        assert!(m.absorb(Effect::FormRefused(refused)).is_none());
        assert_eq!(m.problems.last_error.as_ref().map(|e| e.code), Some("chain_parameter_invalid"));
        let packs = crate::pack::bundled().packs;
        let (count, gen_before) = (packs.len(), m.library.catalog_gen);
        assert!(m.absorb(Effect::Packs { packs, failures: Vec::new() }).is_none());
        assert_eq!((m.library.packs.len(), m.library.reports.len()), (count, count), "added and checked");
        assert_eq!(m.library.catalog_gen, gen_before + 1);
        assert!(matches!(m.absorb(Effect::Fit), Some(Effect::Fit)), "the canvas's, not the model's");
        assert!(matches!(m.absorb(Effect::Quit), Some(Effect::Quit)));
    }

    #[test]
    fn a_request_runs_on_the_models_parts() {
        let mut m = model();
        let (dirty, effects) = m.run(|s| {
            s.guard(super::super::Pending::New);
            s.doc.is_dirty()
        });
        assert!(!dirty);
        assert!(matches!(&effects[..], [Effect::Replace(..), Effect::Status(s)] if s == "New workflow"), "{effects:?}");
    }

    #[test]
    fn what_reading_the_trusted_keys_said_goes_to_the_status_bar() {
        let mut m = model();
        let dir = tempfile::tempdir().unwrap();
        m.settings.trust.trusted_keys = Some(dir.path().to_path_buf());
        m.apply_trust_settings(true);
        let said = m.problems.status.clone().unwrap_or_default();
        assert!(said.starts_with("Trusted keys: 0 loaded from"), "{said:?}");
        m.settings.trust.trusted_keys = Some(dir.path().join("absent"));
        m.apply_trust_settings(true);
        assert!(m.problems.last_error.is_some(), "a folder that is not there is refused");
        assert!(m.trust_files.keys_error.is_some(), "and the Settings window says so");
    }
}

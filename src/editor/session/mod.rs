//! The editor's requests that change its model and none of its widgets: opening files
//! (packs, workflows, registries, the start's files read on a thread), the unsaved-changes
//! guard, saving, exporting, and what a file dialog's answer is for. A [`Session`] borrows
//! the parts of the editor's [`Model`] a request needs; the request leaves [`Effect`]s, in order, for what only
//! the GUI does (the status bar, opening or closing a window, framing the new workflow).

mod answers;
mod commands;
mod documents;
mod model;

pub use commands::{Submit, command_context};
pub use model::Model;

use super::authoring::session::AuthoringSession;
use super::document::Document;
use super::files::Loading;
use super::packs::{PackId, Packs};
use super::publish_session::PublishSession;
use super::recovery::{Recovered, Recovery};
use super::registry_view::RegistryView;
use super::settings::Settings;
use super::subchains::ChildView;
use super::trust_settings::TrustFiles;
use super::update_review::FoundUpdates;
use crate::catalog::Trust;
use crate::error::{Error, Finding};
use crate::pack::Pack;
use crate::workflow::Workflow;
use std::path::PathBuf;

/// Work waiting for an answer about unsaved changes.
pub enum Pending {
    New,
    Replace(Box<Workflow>, PathBuf),
    Quit,
}

/// Unsaved work: the autosave, the recovery offer, and what waits for the save question.
pub struct Unsaved {
    pub recovery: Recovery,
    pub offer: Option<Recovered>,
    pub pending: Option<Pending>,
    /// What waits for a save to finish (the unsaved-changes question was answered "Save").
    pub after_save: Option<Pending>,
}

impl Unsaved {
    pub fn new(recovery: Recovery, offer: Option<Recovered>) -> Self {
        Self { recovery, offer, pending: None, after_save: None }
    }
}

/// The files opened at start.
#[derive(Default)]
pub struct Start {
    /// Files opened at start, being read on a thread.
    pub loading: Option<Loading>,
    /// What to say once they are open (remembered packs not found).
    pub start_notice: Option<String>,
}

impl Start {
    /// Files opened at start still being read.
    pub fn left(&self) -> usize {
        self.loading.as_ref().map_or(0, Loading::left)
    }
}

/// What a request leaves for the GUI, in the order it happened.
#[derive(Debug)]
pub enum Effect {
    /// The request's result for the status bar.
    Status(String),
    /// The same, with the findings it reported (counted in the status line, listed).
    Findings(String, Vec<Finding>),
    /// A refusal for the status bar.
    Error(Error),
    /// The parameter form's values are refused: the error stays until they are put right.
    FormRefused(Error),
    /// Packs read from a file, for the palette (the catalog is rebuilt with them), and the
    /// errors of those that did not load.
    Packs { packs: Vec<Pack>, failures: Vec<Error> },
    /// Edit this workflow from now on (the form closes, the canvas frames it).
    Replace(Box<Workflow>, Option<PathBuf>),
    /// A command reached the document (its refusal, if any), for the window that sent it.
    Applied(Option<Error>),
    /// Nothing of chain `.1` of pack `.0` can be inserted: the palette explains why.
    Explain(PackId, String),
    /// The canvas fits the whole workflow in view.
    Fit,
    /// The editor may close, and closes.
    Quit,
    /// The Registry window opens (`true`) or closes.
    RegistryWindow(bool),
    /// The trust settings changed: carry them into the policy, with `true` reading the
    /// trusted-keys folder again.
    TrustChanged(bool),
    /// The files given at start are open.
    FilesOpen,
    /// Show this child workflow of a sub-chain node, read-only.
    Child(Box<ChildView>),
}

/// The model parts one request of the editor works on, borrowed from it, and the effects
/// the request left so far.
pub struct Session<'a> {
    pub doc: &'a mut Document,
    /// The loaded packs and the trust policy with its node-type catalog.
    pub packs: &'a Packs,
    pub trust: &'a Trust,
    /// The newer versions of instances' chains found for the document.
    pub updates: &'a FoundUpdates,
    pub settings: &'a mut Settings,
    pub unsaved: &'a mut Unsaved,
    pub start: &'a mut Start,
    /// The Registry window's model.
    pub registry: &'a mut RegistryView,
    /// The Publish window's session, while it is open.
    pub publish: &'a mut Option<PublishSession>,
    /// The packs open for authoring, and the pack view's place in them.
    pub authoring: &'a mut AuthoringSession,
    /// What reading and importing the trust settings' files found (the Settings window shows it).
    pub trust_files: &'a mut TrustFiles,
    pub effects: Vec<Effect>,
}

impl Session<'_> {
    fn status(&mut self, text: String) {
        self.effects.push(Effect::Status(text));
    }

    fn error(&mut self, e: Error) {
        self.effects.push(Effect::Error(e));
    }

    /// Run `next` now, or keep it for the answer to "Save changes?" when there are unsaved
    /// changes.
    pub fn guard(&mut self, next: Pending) {
        if self.doc.is_dirty() {
            self.unsaved.pending = Some(next);
        } else {
            self.run(next);
        }
    }

    /// Do what waited (or needed no question): the recovery file goes with the work it kept.
    pub fn run(&mut self, next: Pending) {
        self.unsaved.recovery.clear();
        match next {
            Pending::New => {
                self.effects.push(Effect::Replace(Box::new(Workflow::new("Untitled workflow")), None));
                self.status("New workflow".to_owned());
            }
            Pending::Replace(wf, path) => {
                self.status(format!("Opened {}", path.display()));
                self.effects.push(Effect::Replace(wf, Some(path)));
            }
            Pending::Quit => self.effects.push(Effect::Quit),
        }
    }

    /// "Save changes?" was answered Save: save to the workflow's file and run what waited.
    /// Without a file the question closes and a file is asked for (`true`); what waited
    /// runs once it is saved there.
    pub fn save_pending(&mut self) -> bool {
        match self.doc.path.clone() {
            Some(p) => {
                if self.save_to(&p)
                    && let Some(next) = self.unsaved.pending.take()
                {
                    self.run(next);
                }
                false
            }
            None => {
                self.unsaved.after_save = self.unsaved.pending.take();
                true
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;

//! Changing the document: a command after the typed port check, one node of a catalogued
//! type, and updating chain instances to a newer version of their chain.

use super::{Effect, Pending, Session};
use crate::editor::commands::{CommandId, Context};
use crate::editor::document::Command;
use crate::editor::document::Document;
use crate::editor::insert::InsertPlace;
use crate::editor::insert_form::InsertForm;
use crate::editor::insert_session::{InsertSession, NotOpened, Submitted};
use crate::editor::node_type;
use crate::editor::packs::PackId;
use crate::editor::settings::Settings;
use crate::editor::update_review::{Reviewed, conflicts_for, update_instance};
use crate::instance::Resolutions;
use crate::instance::update::Available;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// What the command registry's enabled-when predicates look at, as far as the model
/// decides: the document (`available`: the updates at hand) and the settings' switches.
/// The GUI adds what its windows decide (a form or the finder open, a pack view's undo).
pub fn command_context(doc: &Document, settings: &Settings, available: &HashMap<String, Available>) -> Context {
    Context {
        snap: settings.snap,
        minimap: settings.minimap,
        show_internal: settings.show_internal,
        palette_panel: settings.palette_panel,
        inspector_panel: settings.inspector_panel,
        ..doc.command_context(available)
    }
}

/// How a form's submit went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submit {
    /// Inserted or re-parameterised: the form closes.
    Done,
    /// The refusal is the form's now: every field's errors should show.
    Refused,
    /// A re-parameterisation's conflicts are listed in the form to settle.
    Conflicts,
}

impl Session<'_> {
    /// Run `c` when it is one of the model's own commands (those that change the workflow,
    /// the selection or the settings, and nothing on screen but through them). Whether it
    /// was.
    pub fn command(&mut self, c: CommandId) -> bool {
        let catalog = self.trust.catalog.as_ref();
        let (wf, sel) = (self.doc.workflow(), &self.doc.selection);
        match c {
            CommandId::New => self.guard(Pending::New),
            CommandId::Delete => {
                let (nodes, edges) = (sel.nodes.iter().cloned().collect(), sel.edges.iter().copied().collect());
                self.apply(Command::Delete { nodes, edges });
            }
            CommandId::SelectAll => {
                let all = wf.graph.node_weights().map(|n| n.id().to_owned()).collect();
                self.doc.selection.clear();
                self.doc.selection.nodes = all;
            }
            CommandId::SelectNone => self.doc.selection.clear(),
            CommandId::RemoveInstance => {
                if let Some(key) = self.doc.selected_instance() {
                    self.apply(Command::RemoveInstance { key });
                }
            }
            CommandId::PinInstance => {
                if let Some(inst) = self.doc.selected_instance().and_then(|k| wf.instance(&k)) {
                    self.apply(Command::PinInstance { key: inst.key(), pinned: !inst.pinned });
                }
            }
            CommandId::Duplicate => self.apply(Command::duplicate_selection(wf, sel, catalog)),
            CommandId::TogglePalettePanel => self.settings.palette_panel ^= true,
            CommandId::ToggleInspectorPanel => self.settings.inspector_panel ^= true,
            CommandId::ToggleSnap => self.settings.snap ^= true,
            CommandId::ToggleMinimap => self.settings.minimap ^= true,
            CommandId::ToggleInternal => self.settings.show_internal ^= true,
            _ => match c.arrangement() {
                Some(how) => {
                    let (cmd, whole) = Command::arrange_selection(how, wf, sel, catalog);
                    self.apply(cmd);
                    if whole {
                        self.effects.push(Effect::Fit);
                    }
                }
                None => return false,
            },
        }
        true
    }

    /// Undo (or with `redo`, redo) the document's last step, and say which.
    pub fn undo(&mut self, redo: bool) {
        let done = if redo {
            self.doc.redo().map(|l| format!("Redid {l}"))
        } else {
            self.doc.undo().map(|l| format!("Undid {l}"))
        };
        if let Some(text) = done {
            self.status(text);
        }
    }

    /// Apply `cmd` and select the nodes it made. A connection between ports whose types do
    /// not fit is refused before the document sees it.
    pub fn apply(&mut self, cmd: Command) {
        if let Err(e) = node_type::check_command(self.doc.workflow(), self.trust.catalog.as_ref(), &cmd) {
            self.error(e);
            return;
        }
        let result = self.doc.apply(cmd);
        self.effects.push(Effect::Applied(result.as_ref().err().cloned()));
        match result {
            Ok(outcome) => {
                self.doc.selection.select_made(&outcome.new_nodes);
                self.effects.push(Effect::Findings(outcome.status_text(), outcome.warnings));
            }
            Err(e) => self.error(e),
        }
    }

    /// One node of a catalogued type at `place`: downstream of its node, spliced into its
    /// edge, or unwired ([`node_type::new_node_link`]). Nothing when that node is gone.
    pub fn insert_node(&mut self, type_id: &str, place: InsertPlace) {
        let catalog = self.trust.catalog.as_ref();
        let wf = self.doc.workflow();
        let Some(link) = node_type::new_node_link(catalog, wf, type_id, place.on_edge, place.after) else { return };
        match node_type::insert_command(catalog, wf, type_id, place.at, link) {
            Ok(cmd) => self.apply(cmd),
            Err(e) => self.error(e),
        }
    }

    /// The form to insert `chain_id` from `pack` at `place`, its first field focused (it was
    /// dropped or picked: the user fills it in from the keyboard). A refusal is said; when
    /// nothing can be filled in the palette explains why.
    pub fn open_insert(&mut self, pack: PackId, chain_id: &str, place: InsertPlace) -> Option<InsertForm> {
        let p = self.packs.get(pack)?;
        match InsertSession::open_insert(self.trust, pack, p, chain_id, self.doc.workflow(), place)? {
            Ok((session, chain)) => {
                let mut form = InsertForm::from_session(session, chain, None);
                form.focus_first_field();
                Some(form)
            }
            Err(NotOpened::Failed(e)) => {
                self.error(e);
                None
            }
            Err(NotOpened::Refused(e)) => {
                self.effects.push(Effect::Explain(pack, chain_id.to_owned()));
                self.error(e);
                None
            }
        }
    }

    /// Re-parameterise instance `key`: its form, filled with the values it was made with, and
    /// the instance selected. A note when it came from another version of its pack.
    pub fn open_instance(&mut self, key: &str) -> Option<InsertForm> {
        let packs = self.packs;
        let reopened = match InsertSession::open_instance(self.trust, packs, self.doc.workflow(), key)? {
            Ok(r) => r,
            Err(e) => {
                self.error(e);
                return None;
            }
        };
        if let Some(note) = reopened.note {
            self.status(note);
        }
        self.doc.selection.select_instance(key, reopened.nodes);
        Some(InsertForm::from_session(reopened.session, reopened.chain, Some(reopened.values)))
    }

    /// Insert or re-parameterise with the form's values ([`InsertSession::submit`]), one
    /// undo step; a refused form shows every field's errors. `None` when the form's pack is
    /// no longer loaded.
    pub fn submit(&mut self, form: &mut InsertForm) -> Option<Submit> {
        let values = form.values().clone();
        Some(match form.submit(self.doc, self.trust, self.packs, values)? {
            Submitted::Done(outcome) => {
                self.effects.push(Effect::Findings(outcome.label, outcome.warnings));
                Submit::Done
            }
            Submitted::Refused(e) => {
                self.effects.push(Effect::FormRefused(e));
                form.reveal_errors();
                Submit::Refused
            }
            Submitted::Conflicts(e) => {
                self.status(e.message);
                Submit::Conflicts
            }
        })
    }

    /// Update the reviewed instance to its chain's version in the review's pack (and with
    /// `all` every other instance of the chain with an update), one undo step. Whether it
    /// was done (the review closes); a refusal leaves in `review` the conflicts to settle
    /// (its message is the status) or why. Nothing when the instance, its chain or the pack
    /// is gone.
    pub fn apply_review(
        &mut self,
        review: &mut Reviewed,
        answer: (Map<String, Value>, Resolutions),
        all: bool,
    ) -> bool {
        let Some(target) = self.packs.get(review.target) else { return false };
        let available = all.then_some(&self.updates.available);
        let key = &review.key;
        let Some(applied) = update_instance(self.doc, self.trust, self.packs, target, key, answer, available) else {
            return false;
        };
        match applied {
            Ok(outcome) => {
                self.effects.push(Effect::Findings(outcome.label, outcome.warnings));
                return true;
            }
            Err(e) => match conflicts_for(&e, key) {
                Some(conflicts) => {
                    self.status(e.message);
                    (review.conflicts, review.refusal) = (conflicts, None);
                }
                None => {
                    self.error(e.clone());
                    review.refusal = Some(e);
                }
            },
        }
        false
    }
}

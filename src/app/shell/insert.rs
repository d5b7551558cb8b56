use super::App;
use crate::app::form::FormSession;
use crate::app::problems::ErrorAbout;
use crate::editor::insert::InsertPlace;
use crate::editor::insert_session::{InsertSession, NotOpened, Submitted};
use crate::editor::packs::PackId;

impl App {
    pub(super) fn open_insert_form(
        &mut self,
        pack: PackId,
        chain_id: &str,
        at: (f64, f64),
        on_edge: Option<u64>,
        after: Option<String>,
    ) {
        let Some(p) = self.library.packs.get(pack) else { return };
        let place = InsertPlace { at, on_edge, after };
        let opened = InsertSession::open_insert(&self.library.trust, pack, p, chain_id, self.doc.workflow(), place);
        match opened {
            None => {}
            Some(Ok((session, chain))) => {
                let mut form = FormSession::from_session(session, chain, None);
                // Dropped, picked in the palette or in quick-add: it is filled in from the keyboard.
                form.focus_first_field();
                // The preview frames its ghosts; a cancel goes back to the view the user had.
                self.panels.canvas.remember_view();
                self.windows.form = Some(form);
            }
            Some(Err(NotOpened::Failed(e))) => self.panels.problems.error(e),
            Some(Err(NotOpened::Refused(e))) => {
                // Nothing to fill in: say why instead of opening a form that cannot insert.
                self.panels.palette.explain(pack, chain_id);
                self.panels.problems.error(e);
            }
        }
    }

    pub(super) fn open_instance_form(&mut self, key: &str) {
        let opened = InsertSession::open_instance(&self.library.trust, &self.library.packs, self.doc.workflow(), key);
        match opened {
            None => {}
            Some(Err(e)) => self.panels.problems.error(e),
            Some(Ok(r)) => {
                if let Some(note) = r.note {
                    self.panels.problems.status(note);
                }
                self.windows.form = Some(FormSession::from_session(r.session, r.chain, Some(r.values)));
                self.panels.canvas.forget_view();
                self.doc.selection.select_instance(key, r.nodes);
            }
        }
    }

    /// Insert or re-parameterise with the form's values; on a refusal the form stays open.
    pub(super) fn submit_form(&mut self) {
        let Some(form) = &mut self.windows.form else { return };
        let values = form.values().clone();
        let Some(submitted) = form.submit(&mut self.doc, &self.library.trust, &self.library.packs, values) else {
            return;
        };
        match submitted {
            Submitted::Done(outcome) => {
                self.windows.form = None;
                self.panels.canvas.forget_view();
                self.panels.problems.status_with(outcome.label, outcome.warnings);
            }
            Submitted::Refused(e) => {
                form.reveal_errors();
                self.panels.problems.error_about(e, ErrorAbout::Form);
            }
            Submitted::Conflicts(e) => self.panels.problems.status(e.message),
        }
    }
}

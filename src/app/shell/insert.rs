use super::App;
use crate::app::form::FormSession;
use crate::editor::insert::InsertPlace;
use crate::editor::insert_form::InsertForm;
use crate::editor::packs::PackId;
use crate::editor::session::Submit;

impl App {
    pub(super) fn open_insert_form(&mut self, pack: PackId, chain_id: &str, place: InsertPlace) {
        let Some(session) = self.session(|s| s.open_insert(pack, chain_id, place)) else { return };
        let Some(chain) = self.library.packs.get(pack).and_then(|p| session.chain(p)) else { return };
        let mut form = FormSession::from(InsertForm::from_session(session, chain, None));
        // Dropped, picked in the palette or in quick-add: it is filled in from the keyboard.
        form.focus_first_field();
        // The preview frames its ghosts; a cancel goes back to the view the user had.
        self.panels.canvas.remember_view();
        self.windows.form = Some(form);
    }

    pub(super) fn open_instance_form(&mut self, key: &str) {
        let Some((session, values)) = self.session(|s| s.open_instance(key)) else { return };
        let pack = session.pack.and_then(|id| self.library.packs.get(id));
        let Some(chain) = pack.and_then(|p| session.chain(p)) else { return };
        self.windows.form = Some(InsertForm::from_session(session, chain, Some(values)).into());
        self.panels.canvas.forget_view();
    }

    /// Insert or re-parameterise with the form's values; on a refusal the form stays open.
    pub(super) fn submit_form(&mut self) {
        let Some(mut form) = self.windows.form.take() else { return };
        let values = form.values().clone();
        let submitted = self.session(|s| s.submit(&mut form, values));
        match submitted {
            Some(Submit::Done) => return self.panels.canvas.forget_view(),
            Some(Submit::Refused) => form.reveal_errors(),
            Some(Submit::Conflicts) | None => {}
        }
        self.windows.form = Some(form);
    }
}

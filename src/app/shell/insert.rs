use super::App;
use crate::editor::insert::InsertPlace;
use crate::editor::packs::PackId;
use crate::editor::session::Submit;

impl App {
    pub(super) fn open_insert_form(&mut self, pack: PackId, chain_id: &str, place: InsertPlace) {
        let Some(form) = self.session(|s| s.open_insert(pack, chain_id, place)) else { return };
        // The preview frames its ghosts; a cancel goes back to the view the user had.
        self.panels.canvas.remember_view();
        self.windows.form = Some(form.into());
    }

    pub(super) fn open_instance_form(&mut self, key: &str) {
        let Some(form) = self.session(|s| s.open_instance(key)) else { return };
        self.windows.form = Some(form.into());
        self.panels.canvas.forget_view();
    }

    /// Insert or re-parameterise with the form's values; on a refusal the form stays open.
    pub(super) fn submit_form(&mut self) {
        let Some(mut form) = self.windows.form.take() else { return };
        match self.session(|s| s.submit(&mut form)) {
            Some(Submit::Done) => self.panels.canvas.forget_view(),
            Some(Submit::Refused | Submit::Conflicts) | None => self.windows.form = Some(form),
        }
    }
}

//! The parameter form of an insert or a re-parameterisation, without its widgets: the
//! session ([`InsertSession`], which it dereferences to), the fields being filled in
//! ([`FormFields`]), and when to validate, preview and frame. `app::form` draws it.

use super::insert_session::{FormMode, InsertSession};
use super::packs::{PackId, Packs};
use crate::catalog::Trust;
use crate::pack::{Chain, Pack};
use crate::params::{Form, FormFields};
use crate::workflow::Workflow;
use serde_json::{Map, Value};

pub struct InsertForm {
    session: InsertSession,
    pub fields: FormFields,
    /// Frames drawn so far: the canvas has its docked size from the second one on.
    frames_shown: u32,
    /// Whether the front end has framed the preview on the canvas yet.
    pub positioned: bool,
}

impl std::ops::Deref for InsertForm {
    type Target = InsertSession;
    fn deref(&self) -> &InsertSession {
        &self.session
    }
}

impl std::ops::DerefMut for InsertForm {
    fn deref_mut(&mut self) -> &mut InsertSession {
        &mut self.session
    }
}

impl InsertForm {
    pub fn new(
        pack: Option<PackId>,
        chain: &Chain,
        mode: FormMode,
        expansion_id: String,
        values: Option<Map<String, Value>>,
    ) -> Self {
        Self::from_session(InsertSession::new(pack, chain, mode, expansion_id), chain, values)
    }

    /// The form of an opened session on `chain`, with these values or the form's initial ones.
    pub fn from_session(session: InsertSession, chain: &Chain, values: Option<Map<String, Value>>) -> Self {
        let form = Form::from_schema(chain.parameters());
        let values = values.unwrap_or_else(|| form.initial_values());
        Self { session, fields: FormFields::new(form, values), frames_shown: 0, positioned: false }
    }

    /// The form of a chain being authored, as users will see it when they drop its tile:
    /// the same fields and checks, every error shown from the start (a default its own
    /// schema refuses shows at once). It inserts nothing; build a new one when the schema
    /// changes.
    pub fn preview_of(chain: &Chain) -> Self {
        let mode = FormMode::Insert { at: (0.0, 0.0), on_edge: None, after: None };
        let mut form = Self::new(None, chain, mode, format!("preview-{}", chain.chain_id()), None);
        form.fields.reveal();
        form
    }

    /// The values to expand with.
    pub fn values(&self) -> &Map<String, Value> {
        self.fields.values()
    }

    /// Start with the keyboard in the first field (a form the user is about to fill in).
    pub fn focus_first_field(&mut self) {
        self.fields.focus_first();
    }

    pub fn is_valid(&self) -> bool {
        self.session.accepts(!self.fields.has_problems())
    }

    /// Show the errors of every field (after a submit attempt that was refused).
    pub fn reveal_errors(&mut self) {
        self.fields.reveal();
    }

    /// A frame is drawn with the form docked.
    pub fn shown(&mut self) {
        self.frames_shown = self.frames_shown.saturating_add(1);
    }

    /// Whether the canvas has been laid out beside the docked form (preview framing waits).
    pub fn docked(&self) -> bool {
        self.frames_shown >= 2
    }

    /// Re-validate and re-preview after an edit, and re-place when the workflow changed.
    pub fn refresh(&mut self, trust: &Trust, pack: &Pack, chain: &Chain, wf: &Workflow, revision: u64) {
        if !self.fields.is_stale() && self.session.is_placed_on(revision) {
            return;
        }
        self.validate(chain);
        let valid = !self.fields.has_problems();
        self.session.preview(trust, pack, chain, wf, revision, self.fields.values(), valid);
    }

    /// Open the form afresh on its pack in `packs` ([`InsertForm::rechecked`]); it stays as
    /// it is when its pack is no longer loaded or no longer has the chain.
    pub fn recheck(&mut self, packs: &Packs, trust: &Trust) {
        if let Some(form) = self.pack.and_then(|id| packs.get(id)).and_then(|p| self.rechecked(p, trust)) {
            *self = form;
        }
    }

    /// The form opened afresh on `pack` under the trust policy now in force, with the values
    /// typed so far, so that what blocks it and its preview follow the policy; `None` when
    /// `pack` no longer has the chain.
    pub fn rechecked(&self, pack: &Pack, trust: &Trust) -> Option<Self> {
        let chain = pack.chain(&self.chain_id)?;
        let values = Some(self.values().clone());
        let mut form = Self::new(self.pack, chain, self.mode.clone(), self.expansion_id.clone(), values);
        // The view stays as it was framed; framing it again would jump.
        form.positioned = self.positioned;
        if let Some(e) = trust.check_chain(pack, &self.chain_id).refusal() {
            form.block(e);
        }
        Some(form)
    }

    /// Check the values against `chain`'s schema; each error goes to its field.
    pub fn validate(&mut self, chain: &Chain) {
        let errors = self.session.validate(chain, self.fields.values());
        self.fields.set_errors(errors);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::bundled;
    use crate::params::Summary;

    fn triage() -> Pack {
        bundled().packs.into_iter().find(|p| p.chain("support.triage").is_some()).unwrap()
    }

    #[test]
    fn an_edit_is_validated_and_previewed_once_and_a_refused_default_shows_at_once() {
        let pack = triage();
        let chain = pack.chain("support.triage").unwrap();
        let mode = FormMode::Insert { at: (0.0, 0.0), on_edge: None, after: None };
        let mut form = InsertForm::new(None, chain, mode, "ab12".into(), None);
        assert!(form.fields.is_stale() && !form.docked());
        let wf = Workflow::new("w");
        form.refresh(&Trust::default(), &pack, chain, &wf, 3);
        assert!(!form.fields.is_stale() && form.is_placed_on(3));
        // support.triage requires values its defaults do not give: nothing is valid yet,
        // and nothing is touched, so the summary asks for the required fields.
        assert!(!form.is_valid());
        assert!(matches!(form.fields.summary(), Summary::Untouched(r) if !r.is_empty()));
        form.reveal_errors();
        assert!(matches!(form.fields.summary(), Summary::Problems(_)));
        form.shown();
        form.shown();
        assert!(form.docked());
        // The authoring preview shows every error from the start: the required queue too.
        let mut preview = InsertForm::preview_of(chain);
        assert_eq!(preview.expansion_id, "preview-support.triage");
        preview.validate(chain);
        assert_eq!(preview.fields.shown_errors("/queueName"), ["Queue is required"]);
        assert_eq!(form.fields.shown_errors("/queueName"), ["Queue is required"], "after reveal_errors");
    }

    #[test]
    fn a_recheck_keeps_the_values_and_framing_and_follows_the_new_policy() {
        let pack = triage();
        let chain = pack.chain("support.triage").unwrap();
        let mode = FormMode::Reparameterise { key: "k".into() };
        let values: Map<String, Value> = serde_json::from_str(r#"{"queueName": "ops"}"#).unwrap();
        let mut form = InsertForm::new(None, chain, mode, "ab12".into(), Some(values.clone()));
        form.positioned = true;
        let again = form.rechecked(&pack, &Trust::default()).expect("the pack still has the chain");
        assert_eq!(again.values(), &values);
        assert!(again.positioned && again.expansion_id == "ab12");
        assert!(matches!(&again.mode, FormMode::Reparameterise { key } if key == "k"));
        assert!(again.shown_refusal().is_none(), "the default policy admits the bundled chain");
        // The bundled pack is unsigned: a policy that requires signatures blocks it.
        let strict = Trust { require_signed: true, ..Trust::default() };
        let blocked = form.rechecked(&pack, &strict).unwrap();
        assert!(blocked.shown_refusal().is_some());
        let other = bundled().packs.into_iter().find(|p| p.chain("support.triage").is_none()).unwrap();
        assert!(form.rechecked(&other, &Trust::default()).is_none(), "a pack without the chain");
    }

    #[test]
    fn a_recheck_in_place_follows_its_loaded_pack_and_leaves_a_form_whose_pack_is_gone() {
        let packs = Packs::new(vec![triage()]);
        let id = packs.id_at(0).unwrap();
        let chain = packs.get(id).unwrap().chain("support.triage").unwrap();
        let mode = FormMode::Reparameterise { key: "k".into() };
        let mut form = InsertForm::new(Some(id), chain, mode.clone(), "ab12".into(), None);
        let strict = Trust { require_signed: true, ..Trust::default() };
        form.recheck(&packs, &strict);
        assert!(form.shown_refusal().is_some(), "the loaded pack is unsigned: the strict policy blocks it");
        assert_eq!(form.expansion_id, "ab12");

        let mut orphan = InsertForm::new(Some(id), chain, mode, "cd34".into(), None);
        orphan.recheck(&Packs::new(Vec::new()), &strict);
        assert!(orphan.shown_refusal().is_none(), "no pack loaded: the form is left as it was");
    }
}

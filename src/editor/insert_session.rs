//! The parameter form's model without its widgets: which chain it fills in and where the
//! result goes, the values' schema errors, the preview (expansion and ghosts) and when it
//! is redone, what refuses the insert whatever the values, and a re-parameterisation's
//! conflicts. `app::form` draws it and keeps the values as typed.

use super::document::{Document, Outcome};
use super::insert::{InsertPlace, insert_target, select_inserted};
use super::packs::{PackId, Packs};
use super::preview::{self, DropEdge, Ghost, Placement};
use crate::catalog::Trust;
use crate::error::{Error, code};
use crate::expand::Expansion;
use crate::instance::{Conflict, Resolutions};
use crate::pack::{Chain, Pack};
use crate::params::{ParamError, violations};
use crate::workflow::{After, Workflow};
use serde_json::{Map, Value};

/// Where the form's result goes.
#[derive(Debug, Clone)]
pub enum FormMode {
    /// At a point, into the edge it was dropped on, or downstream of a node (`after`).
    Insert {
        at: (f64, f64),
        on_edge: Option<DropEdge>,
        after: Option<After>,
    },
    Reparameterise {
        key: String,
    },
}

impl FormMode {
    /// Where an insert form drops its chain, in canvas coordinates (`None` when it
    /// re-parameterises an instance in place).
    pub fn insert_point(&self) -> Option<(f64, f64)> {
        match self {
            FormMode::Insert { at, .. } => Some(*at),
            FormMode::Reparameterise { .. } => None,
        }
    }
}

/// An open parameter form's state besides its fields.
pub struct InsertSession {
    /// `None` for the preview of a chain being authored, which belongs to no loaded pack.
    pub pack: Option<PackId>,
    pub chain_id: String,
    pub mode: FormMode,
    pub expansion_id: String,
    /// Where the chain sits in its pack, found when the form opened.
    at: Option<usize>,
    /// A refusal that is not about values (bad schema, splice conflict, insert failure).
    pub refusal: Option<Error>,
    /// What the trust policy refuses about this chain whatever the values (unresolvable
    /// typeIds, unmet dependencies, host gates).
    blocked: Option<Error>,
    expansion: Option<Result<Expansion, Error>>,
    ghost: Option<Ghost>,
    placed_revision: Option<u64>,
    pub selected_node: usize,
    /// Re-parameterising: members both the user and the new values changed, found by the
    /// last Apply (nothing was applied), and how the user settles each.
    pub conflicts: Vec<Conflict>,
    pub resolutions: Resolutions,
}

/// Why an insert form does not open.
#[derive(Debug)]
pub enum NotOpened {
    /// The trust policy refuses the chain whatever the values: there is nothing to fill in,
    /// so the palette explains the refusal instead.
    Refused(Error),
    /// No expansionId could be minted for the workflow.
    Failed(Error),
}

/// What a submit did.
#[derive(Debug)]
pub enum Submitted {
    /// Inserted or re-parameterised (one undo step); the instance's nodes are selected.
    Done(Outcome),
    /// Refused: the refusal is the form's now, every field's errors should show.
    Refused(Error),
    /// A re-parameterisation's conflicts are listed for the user to settle; nothing changed.
    Conflicts(Error),
}

/// An instance's form, ready to open: the session, its chain, the values recorded, a note
/// when the loaded pack is another version than the instance's, and the instance's nodes
/// (selected while the form is open).
pub struct Reopened<'p> {
    pub session: InsertSession,
    pub chain: &'p Chain,
    pub values: Map<String, Value>,
    pub note: Option<String>,
    pub nodes: Vec<String>,
}

impl InsertSession {
    /// The form for inserting `chain_id` of `pack` at `place` in `wf`: the chain looked up
    /// once, the target the form carries, and the expansionId the preview and the insert
    /// share. `None` when the pack has no such chain.
    pub fn open_insert<'p>(
        trust: &Trust,
        pack_id: PackId,
        pack: &'p Pack,
        chain_id: &str,
        wf: &Workflow,
        place: InsertPlace,
    ) -> Option<Result<(Self, &'p Chain), NotOpened>> {
        let at = pack.chain_position(chain_id)?;
        let chain = &pack.chains[at];
        let (on_edge, after) = insert_target(wf, trust.catalog.as_ref(), place.on_edge, place.after);
        let id = match preview::fresh_expansion_id(chain, wf) {
            Ok(id) => id,
            Err(e) => return Some(Err(NotOpened::Failed(e))),
        };
        if let Some(e) = trust.check_chain_at(pack, chain_id, Some(at)).refusal() {
            return Some(Err(NotOpened::Refused(e)));
        }
        let mode = FormMode::Insert { at: place.at, on_edge, after };
        Some(Ok((Self { at: Some(at), ..Self::new(Some(pack_id), chain, mode, id) }, chain)))
    }

    /// The form for re-parameterising instance `key` of `wf`: the chain from the loaded
    /// pack of the instance's name (looked up once), the recorded values and expansionId,
    /// and the trust policy's refusal as a block. `None` when `wf` has no such instance;
    /// refused with `chain_not_found` when no loaded pack has its chain.
    pub fn open_instance<'p>(
        trust: &Trust,
        packs: &'p Packs,
        wf: &Workflow,
        key: &str,
    ) -> Option<Result<Reopened<'p>, Error>> {
        let inst = wf.instance(key)?;
        let found = (packs.with_ids())
            .filter(|(_, p)| p.name() == inst.pack_name)
            .find_map(|(id, p)| Some((id, p, p.chain_position(&inst.chain_id)?)));
        let Some((pack, p, at)) = found else {
            return Some(Err(Error::new(
                code::CHAIN_NOT_FOUND,
                format!(
                    "chain {} from pack {} is not loaded; open the pack to re-parameterise this instance",
                    inst.chain_id, inst.pack_name
                ),
            )
            .with("chainId", inst.chain_id.as_str())
            .with("packName", inst.pack_name.as_str())));
        };
        let chain = &p.chains[at];
        let note = (p.version() != inst.pack_version).then(|| {
            format!(
                "Note: the instance came from {} {}; the loaded version is {}",
                inst.pack_name,
                inst.pack_version,
                p.version()
            )
        });
        let mode = FormMode::Reparameterise { key: key.to_owned() };
        let mut session = Self { at: Some(at), ..Self::new(Some(pack), chain, mode, inst.expansion_id.clone()) };
        if let Some(e) = trust.check_chain_at(p, &inst.chain_id, Some(at)).refusal() {
            session.block(e);
        }
        Some(Ok(Reopened { session, chain, values: inst.params, note, nodes: inst.node_ids }))
    }

    pub fn new(pack: Option<PackId>, chain: &Chain, mode: FormMode, expansion_id: String) -> Self {
        Self {
            pack,
            chain_id: chain.chain_id().to_owned(),
            mode,
            expansion_id,
            at: None,
            refusal: None,
            blocked: None,
            expansion: None,
            ghost: None,
            placed_revision: None,
            selected_node: 0,
            conflicts: Vec::new(),
            resolutions: Resolutions::default(),
        }
    }

    /// The session's chain in `pack`: at the place found when the form opened (no lookup
    /// each frame), else looked up by its id.
    pub fn chain<'p>(&self, pack: &'p Pack) -> Option<&'p Chain> {
        match self.at.and_then(|at| pack.chains.get(at)) {
            Some(chain) if chain.chain_id() == self.chain_id => Some(chain),
            _ => pack.chain(&self.chain_id),
        }
    }

    /// Whether the insert may go ahead, given whether the values have problems: nothing
    /// refuses it and every conflict is settled.
    pub fn accepts(&self, values_ok: bool) -> bool {
        values_ok && self.refusal.is_none() && self.blocked.is_none() && self.resolutions.settle_all(&self.conflicts)
    }

    /// Refuse this chain whatever the values (shown with its code; Insert stays off).
    pub fn block(&mut self, e: Error) {
        self.blocked = Some(e);
    }

    /// The refusal to show instead of the values' problems: the trust policy's, then any other.
    pub fn shown_refusal(&self) -> Option<&Error> {
        self.blocked.as_ref().or(self.refusal.as_ref())
    }

    pub fn expansion(&self) -> Option<&Result<Expansion, Error>> {
        self.expansion.as_ref()
    }

    pub fn ghost(&self) -> Option<&Ghost> {
        self.ghost.as_ref()
    }

    pub fn select_ghost(&mut self, i: usize) {
        self.selected_node = i;
        if let Some(g) = &mut self.ghost {
            g.selected = Some(i);
        }
    }

    pub fn placement(&self) -> Placement {
        match &self.mode {
            FormMode::Insert { at, on_edge, after } => {
                Placement::Insert { at: *at, on_edge: on_edge.clone(), after: after.clone() }
            }
            FormMode::Reparameterise { key } => {
                Placement::Existing { key: key.clone(), resolutions: self.resolutions.clone() }
            }
        }
    }

    /// Insert or re-parameterise with `values` through the inline pipeline, as one undo
    /// step of `doc`; `None` when the form's pack is no longer loaded.
    pub fn submit(
        &mut self,
        doc: &mut Document,
        trust: &Trust,
        packs: &Packs,
        values: Map<String, Value>,
    ) -> Option<Submitted> {
        let pack = packs.get(self.pack?)?;
        let placement = self.placement();
        let req = preview::request(trust, pack, &self.chain_id, values, &self.expansion_id, packs, &placement);
        Some(match doc.inline(req) {
            Ok(outcome) => {
                // The inserted instance is selected, so the inspector offers its parameters.
                let (wf, sel) = doc.parts();
                select_inserted(wf, sel, &outcome.new_nodes);
                Submitted::Done(outcome)
            }
            Err(e) if self.refused(&e) => Submitted::Refused(e),
            Err(e) => Submitted::Conflicts(e),
        })
    }

    /// A submit the document refused. A re-parameterisation's conflicts are listed for the
    /// user to settle (nothing was applied; returns `false`); any other refusal becomes the
    /// form's (returns `true`: every field's errors should show).
    pub fn refused(&mut self, e: &Error) -> bool {
        if e.code == code::UPGRADE_CONFLICT {
            self.conflicts = Conflict::listed_in(e);
            return false;
        }
        self.refusal = Some(e.clone());
        true
    }

    /// Whether the preview was placed on this revision of the workflow.
    pub fn is_placed_on(&self, revision: u64) -> bool {
        self.placed_revision == Some(revision)
    }

    /// The schema errors of `values` (defaults filled in), checked with the chain's compiled
    /// validator; a schema that does not compile becomes the refusal instead.
    pub fn validate(&mut self, chain: &Chain, values: &Map<String, Value>) -> Vec<ParamError> {
        self.refusal = None;
        match violations(chain, values) {
            Ok(errors) => errors,
            Err(e) => {
                self.refusal = Some(e);
                Vec::new()
            }
        }
    }

    /// Re-preview `values` (substituted even while not `valid`), and re-place the ghosts
    /// when the workflow's `revision` changed.
    #[allow(clippy::too_many_arguments)]
    pub fn preview(
        &mut self,
        trust: &Trust,
        pack: &Pack,
        chain: &Chain,
        wf: &Workflow,
        revision: u64,
        values: &Map<String, Value>,
        valid: bool,
    ) {
        let exp = preview::expand_preview(trust, pack, chain, wf, values, &self.expansion_id, valid);
        if let Ok(e) = &exp
            && self.placed_revision != Some(revision)
        {
            match preview::place(trust, wf, e, &self.placement()) {
                Ok(ghost) => {
                    self.ghost = ghost.map(|mut g| {
                        g.selected = Some(self.selected_node);
                        g
                    });
                }
                Err(err) => {
                    self.ghost = None;
                    self.refusal = Some(err);
                }
            }
            self.placed_revision = Some(revision);
        }
        if let Err(e) = &exp
            && self.refusal.is_none()
        {
            self.refusal = Some(e.clone());
        }
        self.expansion = Some(exp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::bundled;
    use serde_json::json;

    fn triage() -> Pack {
        bundled().packs.into_iter().find(|p| p.chain("support.triage").is_some()).unwrap()
    }

    fn at_origin() -> FormMode {
        FormMode::Insert { at: (0.0, 0.0), on_edge: None, after: None }
    }

    #[test]
    fn only_an_insert_form_has_an_insert_point() {
        let at = FormMode::Insert { at: (12.5, -3.0), on_edge: None, after: None };
        assert_eq!(at.insert_point(), Some((12.5, -3.0)));
        assert_eq!(FormMode::Reparameterise { key: "k".into() }.insert_point(), None);
    }

    #[test]
    fn valid_values_preview_and_place_once_per_revision() {
        let pack = triage();
        let chain = pack.chain("support.triage").unwrap();
        let mut s = InsertSession::new(None, chain, at_origin(), "ab12".into());
        let values = json!({"queueName": "billing", "owner": {"email": "a@b.c"}}).as_object().unwrap().clone();
        assert!(s.validate(chain, &values).is_empty());
        let wf = Workflow::new("w");
        s.preview(&Trust::default(), &pack, chain, &wf, 7, &values, true);
        assert!(s.is_placed_on(7) && !s.is_placed_on(8));
        let exp = s.expansion().unwrap().as_ref().unwrap();
        assert_eq!(exp.expansion_id, "ab12");
        // The bundled chain has four nodes; the ghost shows each.
        assert_eq!(s.ghost().unwrap().nodes.len(), 4);
        assert!(s.accepts(true) && !s.accepts(false));
        s.select_ghost(2);
        assert_eq!(s.ghost().unwrap().selected, Some(2));
    }

    #[test]
    fn a_missing_required_value_is_an_error_and_a_block_refuses_whatever_the_values() {
        let pack = triage();
        let chain = pack.chain("support.triage").unwrap();
        let mut s = InsertSession::new(None, chain, at_origin(), "ab12".into());
        let errors = s.validate(chain, &Map::new());
        assert!(!errors.is_empty(), "queueName is required and has no default");
        s.block(Error::new("typeid_unresolved", "no"));
        assert!(!s.accepts(true));
        assert_eq!(s.shown_refusal().unwrap().code, "typeid_unresolved");
    }

    #[test]
    fn an_insert_opens_on_a_fresh_id_and_a_refused_chain_opens_nothing() {
        let packs = super::super::packs::Packs::new(vec![triage()]);
        let (id, pack) = packs.with_ids().next().unwrap();
        let wf = Workflow::new("w");
        let place = || InsertPlace { at: (10.0, 20.0), on_edge: None, after: None };
        let (s, chain) =
            InsertSession::open_insert(&Trust::default(), id, pack, "support.triage", &wf, place()).unwrap().unwrap();
        assert_eq!(chain.chain_id(), "support.triage");
        assert_eq!(s.expansion_id.len(), 4);
        assert!(matches!(s.mode, FormMode::Insert { at: (10.0, 20.0), on_edge: None, after: None }));
        // Each frame finds the chain where it opened, and the preview expands it without a lookup.
        crate::pack::lookups::take();
        let chain = s.chain(pack).unwrap();
        let mut s = s;
        let values = json!({"queueName": "billing", "owner": {"email": "a@b.c"}}).as_object().unwrap().clone();
        s.preview(&Trust::default(), pack, chain, &wf, 1, &values, true);
        assert!(s.expansion().unwrap().is_ok());
        assert_eq!(crate::pack::lookups::take(), Vec::<String>::new());
        assert!(InsertSession::open_insert(&Trust::default(), id, pack, "no.such", &wf, place()).is_none());
        let strict = Trust { require_signed: true, ..Trust::default() };
        let refused = InsertSession::open_insert(&strict, id, pack, "support.triage", &wf, place()).unwrap();
        assert!(matches!(refused, Err(NotOpened::Refused(e)) if e.code == crate::error::code::PACK_UNSIGNED));
    }

    #[test]
    fn an_instance_reopens_with_its_values_and_an_unloaded_chain_is_refused() {
        let packs = super::super::packs::Packs::new(vec![triage()]);
        let (_, pack) = packs.with_ids().next().unwrap();
        let mut wf = Workflow::new("w");
        let values = json!({"queueName": "billing", "owner": {"email": "a@b.c"}}).as_object().unwrap().clone();
        let trust = Trust::default();
        let req = crate::inline::InlineRequest::new(&trust, pack, "support.triage", values.clone());
        let key = crate::inline::inline(&mut wf, req).unwrap().instance.key();
        let r = InsertSession::open_instance(&trust, &packs, &wf, &key).unwrap().unwrap();
        assert_eq!(r.chain.chain_id(), "support.triage");
        assert_eq!(r.values["queueName"], "billing");
        assert_eq!(r.nodes.len(), 4, "the bundled chain's four nodes");
        assert!(r.note.is_none(), "the loaded pack is the instance's version");
        assert!(matches!(r.session.mode, FormMode::Reparameterise { key: ref k } if *k == key));
        assert!(InsertSession::open_instance(&trust, &packs, &wf, "nope").is_none());
        let none = super::super::packs::Packs::new(Vec::new());
        let refused = InsertSession::open_instance(&trust, &none, &wf, &key).unwrap();
        assert_eq!(refused.err().unwrap().code, code::CHAIN_NOT_FOUND);
    }

    #[test]
    fn a_refused_submit_lists_conflicts_or_becomes_the_form_s_refusal() {
        let pack = triage();
        let chain = pack.chain("support.triage").unwrap();
        let mut s = InsertSession::new(None, chain, at_origin(), "x".into());
        let conflict = Error::new(code::UPGRADE_CONFLICT, "c")
            .with("conflicts", json!([{"node": "n", "member": "/config/a", "base": 1, "mine": 2, "new": 3}]));
        assert!(!s.refused(&conflict));
        assert_eq!(s.conflicts.len(), 1, "{:?}", s.conflicts);
        assert!(s.refusal.is_none() && !s.accepts(true), "unsettled conflicts keep Apply off");
        assert!(s.refused(&Error::new(code::DUPLICATE_NODE_ID, "taken")));
        assert_eq!(s.refusal.as_ref().unwrap().code, code::DUPLICATE_NODE_ID);
    }

    #[test]
    fn a_reparameterisation_places_at_its_instance_with_the_resolutions() {
        let pack = triage();
        let chain = pack.chain("support.triage").unwrap();
        let s = InsertSession::new(None, chain, FormMode::Reparameterise { key: "k".into() }, "x".into());
        assert!(matches!(s.placement(), Placement::Existing { key, .. } if key == "k"));
    }

    #[test]
    fn a_submit_inserts_one_undo_step_and_selects_it_and_a_refusal_is_the_forms() {
        let packs = super::super::packs::Packs::new(vec![triage()]);
        let (id, pack) = packs.with_ids().next().unwrap();
        let chain = pack.chain("support.triage").unwrap();
        let trust = Trust::default();
        let mut doc = Document::new(Workflow::new("w"), None);
        let mut s = InsertSession::new(Some(id), chain, at_origin(), "ab12".into());
        // queueName is required: the inline refuses, the refusal becomes the form's.
        match s.submit(&mut doc, &trust, &packs, Map::new()) {
            Some(Submitted::Refused(e)) => assert_eq!(s.refusal.as_ref().unwrap().code, e.code),
            other => panic!("expected a refusal, got {other:?}"),
        }
        assert_eq!(doc.workflow().node_count(), 0, "a refusal changes nothing");
        let values = json!({"queueName": "billing", "owner": {"email": "a@b.c"}}).as_object().unwrap().clone();
        let Some(Submitted::Done(outcome)) = s.submit(&mut doc, &trust, &packs, values) else { panic!("inserted") };
        assert_eq!(outcome.new_nodes.len(), 4, "the bundled chain's four nodes");
        assert_eq!(doc.selection.nodes.len(), 4, "the new instance is selected");
        assert!(doc.selection.instance.is_some());
        doc.undo();
        assert_eq!(doc.workflow().node_count(), 0, "one undo step");
        // A form whose pack is not loaded (a chain being authored) submits nothing.
        let mut unloaded = InsertSession::new(None, chain, at_origin(), "ab13".into());
        assert!(unloaded.submit(&mut doc, &trust, &packs, Map::new()).is_none());
    }
}

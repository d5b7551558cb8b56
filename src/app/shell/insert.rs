use super::App;
use crate::app::form::{FormMode, FormSession};
use crate::app::problems::ErrorAbout;
use crate::editor::document::{NodeLink, edge_by_seq};
use crate::editor::insert::{insert_target, select_inserted};
use crate::editor::node_type;
use crate::editor::packs::PackId;
use crate::editor::preview;
use crate::error::{Error, code};

impl App {
    /// One node of a catalogued type downstream of `source`, wired through the first ports
    /// whose types fit.
    pub(super) fn insert_node_after(&mut self, type_id: &str, at: (f64, f64), source: &str) {
        let catalog = self.library.trust.catalog.as_ref();
        let wf = self.doc.workflow();
        let Some(ix) = wf.node(source) else { return };
        let (source_port, input) = node_type::after_ports(catalog, wf.graph[ix].type_id(), type_id);
        let link = NodeLink::After { source: source.to_owned(), source_port, input };
        match node_type::insert_command(catalog, self.doc.workflow(), type_id, at, link) {
            Ok(cmd) => self.apply(cmd),
            Err(e) => self.panels.problems.error(e),
        }
    }

    /// One node of a catalogued type at `at`, spliced into the edge `on_edge` when given.
    pub(super) fn insert_node_type(&mut self, type_id: &str, at: (f64, f64), on_edge: Option<u64>) {
        let catalog = self.library.trust.catalog.as_ref();
        let wf = self.doc.workflow();
        let type_of = |id: &str| wf.node(id).map_or("", |ix| wf.graph[ix].type_id());
        let link = match on_edge {
            Some(seq) => {
                // An edge gone by now: untyped ends, and the document refuses the splice.
                let (from, into) = edge_by_seq(wf, seq).map_or((("", "output"), ("", "input")), |ix| {
                    let e = &wf.graph[ix];
                    ((type_of(e.source()), e.source_port()), (type_of(e.target()), e.target_port()))
                });
                let (input, output) = node_type::splice_ports(catalog, type_id, from, into);
                NodeLink::Splice { seq, input, output }
            }
            None => NodeLink::Unwired,
        };
        match node_type::insert_command(catalog, self.doc.workflow(), type_id, at, link) {
            Ok(cmd) => self.apply(cmd),
            Err(e) => self.panels.problems.error(e),
        }
    }

    pub(super) fn open_insert_form(
        &mut self,
        pack: PackId,
        chain_id: &str,
        at: (f64, f64),
        on_edge: Option<u64>,
        after: Option<String>,
    ) {
        let Some(chain) = self.library.packs.get(pack).and_then(|p| p.chain(chain_id)) else { return };
        let wf = self.doc.workflow();
        let (on_edge, after) = insert_target(wf, self.library.trust.catalog.as_ref(), on_edge, after);
        let id = match preview::fresh_expansion_id(chain, wf) {
            Ok(id) => id,
            Err(e) => return self.panels.problems.error(e),
        };
        if let Some(e) =
            self.library.packs.get(pack).and_then(|p| self.library.trust.check_chain(p, chain_id).refusal())
        {
            // Nothing to fill in: say why instead of opening a form that cannot insert.
            self.panels.palette.explain(pack, chain_id);
            self.panels.problems.error(e);
            return;
        }
        let mode = FormMode::Insert { at, on_edge, after };
        let mut form = FormSession::new(Some(pack), chain, mode, id, None);
        // Dropped, picked in the palette or in quick-add: it is filled in from the keyboard.
        form.focus_first_field();
        // The preview frames its ghosts; a cancel goes back to the view the user had.
        self.panels.canvas.remember_view();
        self.windows.form = Some(form);
    }

    pub(super) fn open_instance_form(&mut self, key: &str) {
        let Some(inst) = self.doc.workflow().instance(key) else { return };
        let found = self
            .library
            .packs
            .with_ids()
            .find(|(_, p)| p.name() == inst.pack_name && p.chain(&inst.chain_id).is_some());
        let Some((pack, p)) = found else {
            self.panels.problems.error(
                Error::new(
                    code::CHAIN_NOT_FOUND,
                    format!(
                        "chain {} from pack {} is not loaded; open the pack to re-parameterise this instance",
                        inst.chain_id, inst.pack_name
                    ),
                )
                .with("chainId", inst.chain_id.as_str())
                .with("packName", inst.pack_name.as_str()),
            );
            return;
        };
        let chain = p.chain(&inst.chain_id).expect("found above");
        if p.version() != inst.pack_version {
            self.panels.problems.status(format!(
                "Note: the instance came from {} {}; the loaded version is {}",
                inst.pack_name,
                inst.pack_version,
                p.version()
            ));
        }
        let mode = FormMode::Reparameterise { key: key.to_owned() };
        let mut form = FormSession::new(Some(pack), chain, mode, inst.expansion_id.clone(), Some(inst.params.clone()));
        if let Some(e) = self.library.trust.check_chain(p, &inst.chain_id).refusal() {
            form.block(e);
        }
        self.windows.form = Some(form);
        self.panels.canvas.forget_view();
        self.doc.selection.clear();
        self.doc.selection.instance = Some(key.to_owned());
        self.doc.selection.nodes = inst.node_ids.iter().cloned().collect();
    }

    /// Insert or re-parameterise with the form's values; on a refusal the form stays open.
    pub(super) fn submit_form(&mut self) {
        let Some(form) = &mut self.windows.form else { return };
        let Some(pack) = form.pack.and_then(|id| self.library.packs.get(id)) else { return };
        let (values, placement) = (form.values().clone(), form.placement());
        let req = preview::request(
            &self.library.trust,
            pack,
            &form.chain_id,
            values,
            &form.expansion_id,
            &self.library.packs,
            &placement,
        );
        let applied = self.doc.inline(req);
        match applied {
            Ok(outcome) => {
                self.windows.form = None;
                self.panels.canvas.forget_view();
                // Select the inserted instance, so the inspector offers its parameters.
                let (wf, sel) = self.doc.parts();
                select_inserted(wf, sel, &outcome.new_nodes);
                self.panels.problems.status_with(outcome.label, outcome.warnings);
            }
            Err(e) if e.code == crate::error::code::UPGRADE_CONFLICT => {
                // Nothing was applied: the form lists the conflicts for the user to settle.
                if let Some(form) = &mut self.windows.form {
                    form.conflicts = crate::instance::Conflict::listed_in(&e);
                }
                self.panels.problems.status(e.message);
            }
            Err(e) => {
                if let Some(form) = &mut self.windows.form {
                    form.refusal = Some(e.clone());
                    form.reveal_errors();
                }
                self.panels.problems.error_about(e, ErrorAbout::Form);
            }
        }
    }
}

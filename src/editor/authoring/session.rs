//! What the authoring windows hold and decide, without drawing them: the open "Extract as
//! chain" dialog and its target pack, the "Make parameter" question, the pack view's place
//! (the pack and chain it shows, saved and signed from there), and the question before
//! quitting with edited packs not saved. The editor's `app::authoring` draws them.

use super::{Next, Note, PackDocs, ViewOp, ViewPlace, not_promotable};
use crate::author::PackDraft;
use crate::catalog::Catalog;
use crate::editor::extraction::{ExtractForm, PackTarget};
use crate::editor::file_dialog::Purpose;
use crate::error::{Error, code};
use crate::pack::Pack;
use crate::workflow::Workflow;
use serde_json::Value;
use std::path::Path;

/// The packs open for editing, and the authoring questions open about them.
#[derive(Default)]
pub struct AuthoringSession {
    /// The packs open for editing and the notes their changes leave.
    pub model: PackDocs,
    pub extract: Option<ExtractDialog>,
    pub make: Option<MakeParam>,
    /// What the pack view shows: the pack, chain and parameter, and the field texts being typed.
    pub shown: ViewPlace,
    /// Quitting waits for an answer about edited packs not saved.
    asking_quit: bool,
    /// The answer was "quit anyway".
    quit_agreed: bool,
}

/// The open "Extract as chain" dialog.
pub struct ExtractDialog {
    pub form: ExtractForm,
    /// The target pack's draft when it is a loaded pack nobody edits yet (read-only copy).
    pub loaded: Option<(usize, PackDraft)>,
    /// A row to scroll to and focus (ticked from the inspector).
    pub focus: Option<usize>,
}

/// "Make parameter…" for a value of a node that went into the chain extracted last.
pub struct MakeParam {
    pub node: String,
    pub pointer: String,
    pub value: Value,
    pub name: String,
    /// Pack document, chain index and fragment node of the chain being authored.
    pub into: (usize, usize, String),
    pub error: Option<Error>,
}

impl AuthoringSession {
    /// Whether a quit must wait: edited packs are not saved (the question opens).
    pub fn holds_quit(&mut self) -> bool {
        let holds = !self.quit_agreed && self.model.docs.iter().any(|d| d.doc.is_dirty());
        self.asking_quit |= holds;
        holds
    }

    /// The question before quitting is open.
    pub fn asking_quit(&self) -> bool {
        self.asking_quit
    }

    /// The edited packs not saved: document index, and name and version.
    pub fn unsaved_packs(&self) -> Vec<(usize, String)> {
        (self.model.docs.iter().enumerate())
            .filter(|(_, d)| d.doc.is_dirty())
            .map(|(i, d)| (i, format!("{} {}", d.doc.draft().name(), d.doc.draft().version())))
            .collect()
    }

    /// The answer to the quit question: `true` quits anyway (asked again never), `false`
    /// cancels the quit and shows the first unsaved pack (`true` back: the pack view opens).
    pub fn answer_quit(&mut self, quit: bool) -> bool {
        self.asking_quit = false;
        self.quit_agreed |= quit;
        let first = if quit { None } else { self.unsaved_packs().first().map(|(i, _)| *i) };
        first.inspect(|d| self.shown.select(*d, 0)).is_some()
    }

    /// Apply what the pack view asked; a file to ask for, when it needs one.
    pub fn apply_view(&mut self, op: ViewOp, packs: &[Pack], catalog: Option<&Catalog>) -> Option<Purpose> {
        match self.model.apply(op, packs, catalog)? {
            Next::Select(d, chain) => self.shown.select(d, chain),
            Next::Ask(purpose) => return Some(purpose),
        }
        None
    }

    /// Save the pack the view shows to `path` (the answer to Save as…).
    pub fn save_shown(&mut self, path: &Path) {
        if let Some(d) = self.shown.doc {
            self.model.save(d, path);
        }
    }

    /// Sign the saved pack the view shows with the private key at `key`.
    pub fn sign_shown(&mut self, key: &Path) {
        if let Some(d) = self.shown.doc {
            self.model.sign(d, key);
        }
    }

    /// Open the extract dialog for these workflow nodes.
    pub fn open_extract(&mut self, wf: &Workflow, nodes: Vec<String>) {
        if nodes.is_empty() {
            self.model.notes.push(Note::Error(Error::new(
                code::INVALID_REQUEST,
                "select the nodes to extract first (click, Shift+click or drag a box on the canvas)",
            )));
            return;
        }
        self.extract = Some(ExtractDialog { form: ExtractForm::new(wf, nodes), loaded: None, focus: None });
    }

    /// The inspector's "Make parameter…" on `pointer` (inside the node) of workflow node `node`:
    /// tick it in the open extract dialog; else offer to promote it into the chain extracted
    /// last when the node went into it; else start a draft chain from `selection` (with the
    /// node) and tick it there.
    pub fn make_parameter(&mut self, wf: &Workflow, node: &str, pointer: &str, selection: Vec<String>) {
        if self.extract.is_none() {
            if let Some(t) = self.model.promotion_target(wf, node, pointer) {
                let (node, pointer) = (node.to_owned(), pointer.to_owned());
                self.make = Some(MakeParam { node, pointer, value: t.value, name: t.name, into: t.into, error: None });
                return;
            }
            let nodes = if selection.iter().any(|n| n == node) { selection } else { vec![node.to_owned()] };
            self.open_extract(wf, nodes);
        }
        if let Some(d) = &mut self.extract {
            match d.form.check_value(wf, node, pointer) {
                Some(i) => d.focus = Some(i),
                None => self.model.notes.push(Note::Error(not_promotable(node, pointer))),
            }
        }
    }

    /// "Make parameter…" on a node without a value picked: its values are listed to tick in
    /// the extract dialog (the open one, with the node added, or a new draft for the node).
    pub fn make_parameter_of(&mut self, wf: &Workflow, node: &str) {
        match &mut self.extract {
            Some(d) => d.form.add_node(wf, node),
            None => self.open_extract(wf, vec![node.to_owned()]),
        }
    }

    /// Bring the extract dialog's form up to date with its target pack: its open document,
    /// or a read-only copy of the loaded pack nobody edits yet.
    pub fn refresh_extract(&mut self, packs: &[Pack], wf: &Workflow) {
        let Some(d) = &mut self.extract else { return };
        if let PackTarget::Loaded(i) = d.form.target
            && !self.model.docs.iter().any(|o| packs.get(i).is_some_and(|p| p.source == o.source))
            && d.loaded.as_ref().is_none_or(|(j, _)| *j != i)
        {
            d.loaded = packs.get(i).and_then(|p| PackDraft::from_pack(p, None).ok()).map(|draft| (i, draft));
            d.form.touch();
        }
        let target = match d.form.target {
            PackTarget::Loaded(i) => packs
                .get(i)
                .and_then(|p| self.model.docs.iter().find(|o| o.source == p.source))
                .map(|o| o.doc.draft())
                .or(d.loaded.as_ref().filter(|(j, _)| *j == i).map(|(_, draft)| draft)),
            PackTarget::New { .. } => None,
        };
        d.form.refresh(wf, target);
    }

    /// Extract was clicked: the chain goes into its pack, the pack view shows it, and the
    /// dialog closes.
    pub fn confirm_extract(&mut self, packs: &[Pack], wf: &Workflow) {
        let Some(d) = self.extract.as_mut() else { return };
        let Some((d, chain)) = self.model.extract(&mut d.form, packs, wf) else { return };
        self.shown.select(d, chain);
        self.extract = None;
    }

    /// What "Make parameter" promotes into, in words; the question closes when that pack is
    /// no longer open.
    pub fn make_target(&mut self) -> Option<String> {
        let (d, chain, _) = &self.make.as_ref()?.into;
        let Some(open) = self.model.docs.get(*d) else {
            self.make = None;
            return None;
        };
        let draft = open.doc.draft();
        let label = draft.chains().get(*chain).and_then(|c| c.get("label")).and_then(Value::as_str);
        Some(format!("“{}” in pack {}", label.unwrap_or("?"), draft.name()))
    }

    /// The answer to "Make parameter": `true` adds the value to the chain as a parameter
    /// (the pack view shows the chain when it did), `false` starts a new draft chain with it
    /// ticked.
    pub fn answer_make(&mut self, wf: &Workflow, add: bool) {
        let Some(m) = self.make.as_mut() else { return };
        if add {
            match self.model.promote(&m.into, &m.name, &m.pointer) {
                Ok(label) => {
                    self.shown.select(m.into.0, m.into.1);
                    self.model.notes.push(Note::Status(label));
                    self.make = None;
                }
                Err(e) => m.error = Some(e),
            }
            return;
        }
        let Some(m) = self.make.take() else { return };
        self.open_extract(wf, vec![m.node.clone()]);
        if let Some(d) = &mut self.extract {
            d.focus = d.form.check_value(wf, &m.node, &m.pointer);
        }
    }
}

/// The nodes being extracted, by id; a long selection names its first few and counts the
/// rest (all 100,000 ids of a large workflow filled the dialog, hiding its fields and
/// buttons).
pub fn selection_summary(nodes: &[String], title: impl Fn(&str) -> String) -> String {
    const NAMED: usize = 12;
    let named = nodes.iter().take(NAMED).map(|id| title(id)).collect::<Vec<_>>().join(", ");
    match nodes.len() {
        1 => format!("1 node: {named}"),
        n if n <= NAMED => format!("{n} nodes: {named}"),
        n => format!("{n} nodes: {named} and {} more", n - NAMED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_selection_is_summed_up_not_listed() {
        let ids = |n: usize| (0..n).map(|i| format!("n{i}")).collect::<Vec<_>>();
        let same = |id: &str| id.to_owned();
        assert_eq!(selection_summary(&ids(1), same), "1 node: n0");
        assert_eq!(selection_summary(&ids(3), same), "3 nodes: n0, n1, n2");
        let long = selection_summary(&ids(100_000), same);
        assert!(long.starts_with("100000 nodes: n0, n1,"), "{long}");
        assert!(long.ends_with("n11 and 99988 more"), "{long}");
    }

    fn wf() -> Workflow {
        Workflow::from_json(serde_json::json!({"nodes": [
            {"id": "fetch", "typeId": "core.http", "position": {"x": 100, "y": 0},
             "config": {"url": "https://a.test", "retries": 3}},
            {"id": "log", "typeId": "core.log", "position": {"x": 300, "y": 0}, "config": {"level": "info"}}],
          "edges": [{"id": "e2", "sourceNodeId": "fetch", "targetNodeId": "log"}]}))
        .unwrap()
    }

    #[test]
    fn extracting_nothing_is_refused_with_its_code() {
        let mut s = AuthoringSession::default();
        s.open_extract(&wf(), Vec::new());
        assert!(s.extract.is_none());
        assert!(matches!(s.model.notes.last(), Some(Note::Error(e)) if e.code == code::INVALID_REQUEST));
    }

    #[test]
    fn make_parameter_without_an_extracted_chain_opens_a_draft_with_the_value_ticked() {
        let mut s = AuthoringSession::default();
        // The node is not in the selection: the draft holds the node alone.
        s.make_parameter(&wf(), "fetch", "/config/retries", vec!["log".to_owned()]);
        assert!(s.make.is_none(), "no chain was extracted: nothing to promote into");
        let d = s.extract.as_ref().expect("the extract dialog opens");
        assert_eq!(d.form.nodes, ["fetch"]);
        let row = &d.form.rows[d.focus.expect("the value's row takes focus")];
        assert_eq!(
            (row.node.as_str(), row.candidate.pointer.as_str(), row.checked),
            ("fetch", "/config/retries", true)
        );
        // With the node selected, the draft holds the whole selection.
        let mut s = AuthoringSession::default();
        s.make_parameter(&wf(), "fetch", "/config/url", vec!["fetch".to_owned(), "log".to_owned()]);
        assert_eq!(s.extract.as_ref().unwrap().form.nodes.len(), 2);
        assert_eq!(s.make_target(), None, "no promotion asked");
    }

    #[test]
    fn an_unsaved_pack_holds_the_quit_until_the_answer() {
        let mut s = AuthoringSession::default();
        assert!(!s.holds_quit(), "nothing edited");
        s.model.new_doc("vendor.my.chains", "1.0.0");
        assert!(s.holds_quit() && s.asking_quit());
        assert_eq!(s.unsaved_packs(), [(0, "vendor.my.chains 1.0.0".to_owned())]);
        assert!(s.answer_quit(false), "cancelled: the pack view opens");
        assert_eq!((s.shown.doc, s.shown.chain), (Some(0), 0), "on the unsaved pack");
        assert!(!s.asking_quit() && s.holds_quit(), "asked again at the next quit");
        assert!(!s.answer_quit(true));
        assert!(!s.holds_quit(), "quit anyway: not asked again");
    }
}

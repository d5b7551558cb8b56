//! The "Extract as chain" dialog without a GUI: the selected nodes, the chain's fields, the
//! target pack, and the values found in the selection that may become parameters, each with
//! a checkbox and a name. The preview is the real thing: [`crate::author::extract_into`] run
//! on a copy of the target pack, so what the dialog shows is what Confirm writes.

use crate::author::{
    BoundaryEdge, Candidate, ChainInfo, ExtractRequest, Extraction, PackDraft, PackInfo, Placement, Promotion,
    candidates, extract, extract_into, is_param_name,
};
use crate::editor::pack_doc::PackDocument;
use crate::error::{Error, Finding, Result};
use crate::pack::Chain;
use crate::workflow::Workflow;
use serde_json::Value;

/// Where the chain goes.
#[derive(Debug, Clone, PartialEq)]
pub enum PackTarget {
    /// A new pack with this name and version.
    New { name: String, version: String },
    /// A loaded pack, by its index among the editor's packs.
    Loaded(usize),
}

/// One promotable value: where it is, and whether and as what it becomes a parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamRow {
    /// The workflow node holding it.
    pub node: String,
    pub candidate: Candidate,
    pub checked: bool,
    pub name: String,
}

/// What the dialog would write, as of its last refresh.
#[derive(Debug, Clone)]
pub struct Preview {
    pub extraction: Extraction,
    /// The chain as the palette will load it (its tile and its form).
    pub chain: Chain,
    /// The target pack's findings about this chain after the change.
    pub findings: Vec<Finding>,
}

pub struct ExtractForm {
    /// Workflow node ids, in selection order.
    pub nodes: Vec<String>,
    pub chain_id: String,
    pub label: String,
    pub description: String,
    pub target: PackTarget,
    pub rows: Vec<ParamRow>,
    /// Why the selection cannot be extracted at all (no candidates are offered then).
    pub refusal: Option<Error>,
    preview: Option<Result<Preview>>,
    /// Counts the previews made, so a view built from one knows when it is out of date.
    preview_revision: u64,
    stale: bool,
}

impl ExtractForm {
    /// A dialog for the nodes `nodes` of `wf`, with a chainId and label made from the name
    /// of the first of them in file order (the order the chain lists them in).
    pub fn new(wf: &Workflow, mut nodes: Vec<String>) -> Self {
        nodes.sort_by_key(|id| wf.node(id).map_or(u64::MAX, |ix| wf.graph[ix].seq));
        let first = nodes.first().and_then(|id| wf.node(id)).map(|ix| &wf.graph[ix]);
        let label = first.map(|n| if n.name().is_empty() { n.id() } else { n.name() }).unwrap_or("Chain");
        let slug: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
            .collect::<String>()
            .split('-')
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("-");
        let slug = if slug.is_empty() { "chain".to_owned() } else { slug };
        let mut form = Self {
            nodes,
            chain_id: format!("vendor.my.{slug}"),
            label: label.to_owned(),
            description: String::new(),
            target: PackTarget::New { name: "vendor.my.chains".into(), version: "1.0.0".into() },
            rows: Vec::new(),
            refusal: None,
            preview: None,
            preview_revision: 0,
            stale: true,
        };
        form.find_rows(wf);
        form
    }

    /// Re-read the promotable values after the node set changed; kept rows keep their state.
    fn find_rows(&mut self, wf: &Workflow) {
        let info = ChainInfo::new(&self.chain_id, &self.label);
        match extract(wf, Some(&self.nodes), &info) {
            Ok(ex) => {
                self.refusal = None;
                let workflow_of: std::collections::HashMap<&str, &str> =
                    ex.ids.iter().map(|(w, f)| (f.as_str(), w.as_str())).collect();
                let old = std::mem::take(&mut self.rows);
                self.rows = candidates(ex.chain)
                    .into_iter()
                    .map(|c| {
                        let node = workflow_of.get(c.node.as_str()).copied().unwrap_or_default().to_owned();
                        let kept = old.iter().find(|r| r.node == node && r.candidate.pointer == c.pointer);
                        let (checked, name) = kept.map_or((false, c.name.clone()), |r| (r.checked, r.name.clone()));
                        ParamRow { node, candidate: c, checked, name }
                    })
                    .collect();
            }
            Err(e) => {
                self.refusal = Some(e);
                self.rows.clear();
            }
        }
        self.stale = true;
    }

    /// Add workflow node `node` to the nodes to extract (kept in file order).
    pub fn add_node(&mut self, wf: &Workflow, node: &str) {
        if !self.nodes.iter().any(|n| n == node) {
            self.nodes.push(node.to_owned());
            self.nodes.sort_by_key(|id| wf.node(id).map_or(u64::MAX, |ix| wf.graph[ix].seq));
            self.find_rows(wf);
        }
    }

    /// Tick the value at `pointer` (inside the node) of workflow node `node`, adding the
    /// node to the selection first when it is not in it. Returns the row's index.
    pub fn check_value(&mut self, wf: &Workflow, node: &str, pointer: &str) -> Option<usize> {
        self.add_node(wf, node);
        let i = self.rows.iter().position(|r| r.node == node && r.candidate.pointer == pointer)?;
        self.rows[i].checked = true;
        self.stale = true;
        Some(i)
    }

    /// Something the preview depends on changed.
    pub fn touch(&mut self) {
        self.stale = true;
    }

    /// The request Confirm sends: checked rows, grouped by name in first-use order.
    pub fn request(&self) -> ExtractRequest {
        let mut params: Vec<Promotion> = Vec::new();
        for r in self.rows.iter().filter(|r| r.checked) {
            let target = (r.candidate.node.clone(), r.candidate.pointer.clone());
            match params.iter_mut().find(|p| p.name == r.name) {
                Some(p) => p.targets.push(target),
                None => params.push(Promotion { name: r.name.clone(), targets: vec![target], ..Default::default() }),
            }
        }
        let description = (!self.description.is_empty()).then(|| self.description.clone());
        ExtractRequest {
            chain: ChainInfo { description, ..ChainInfo::new(&self.chain_id, &self.label) },
            nodes: Some(self.nodes.clone()),
            params,
        }
    }

    /// Names of checked rows that a token cannot name.
    pub fn bad_names(&self) -> Vec<&str> {
        self.rows.iter().filter(|r| r.checked && !is_param_name(&r.name)).map(|r| r.name.as_str()).collect()
    }

    /// The pack a new target starts as.
    pub fn new_pack(name: &str, version: &str) -> PackDraft {
        PackDraft::new(&PackInfo { name: name.to_owned(), version: version.to_owned(), ..Default::default() })
    }

    /// Recompute the preview when anything changed, against `target` (the loaded pack's
    /// draft; `None` for a new pack).
    pub fn refresh(&mut self, wf: &Workflow, target: Option<&PackDraft>) {
        if !self.stale {
            return;
        }
        self.stale = false;
        self.preview_revision += 1;
        let mut draft = match (&self.target, target) {
            (_, Some(d)) => d.clone(),
            (PackTarget::New { name, version }, None) => Self::new_pack(name, version),
            (PackTarget::Loaded(_), None) => {
                self.preview = None;
                return;
            }
        };
        let request = self.request();
        self.preview = Some(extract_into(&mut draft, wf, &request).map(|done| {
            // The chain as the draft's validation loaded it: it shares the draft's manifest
            // (no copy of a chain that may hold 100,000 nodes) and its compiled form.
            let chain = draft
                .pack()
                .and_then(|p| p.chains.iter().find(|c| c.index == done.index))
                .cloned()
                .unwrap_or_else(|| Chain::new(done.index, draft.chains()[done.index].clone()));
            let at = chain.pointer();
            let findings = draft
                .findings()
                .iter()
                .filter(|f| f.chain_id.as_deref() == Some(&self.chain_id) || f.pointer.starts_with(&format!("{at}/")))
                .cloned()
                .collect();
            Preview { extraction: done.extraction, chain, findings }
        }));
    }

    /// Confirm: extract into `doc` (the target pack's document) as one undo step, as
    /// [`PackDocument::extract`] does. The preview is let go first (Confirm makes the chain
    /// again, and both at once were two copies of it); when the extraction is refused, the
    /// next refresh makes the preview again.
    pub fn confirm(&mut self, doc: &mut PackDocument, wf: &Workflow) -> Result<(usize, Placement)> {
        let request = self.request();
        self.preview = None;
        self.stale = true;
        doc.extract(wf, &request)
    }

    pub fn preview(&self) -> Option<&Result<Preview>> {
        self.preview.as_ref()
    }

    /// Which preview [`Self::preview`] is: it changes whenever the preview is made again.
    pub fn preview_revision(&self) -> u64 {
        self.preview_revision
    }

    pub fn boundary(&self) -> &[BoundaryEdge] {
        match &self.preview {
            Some(Ok(p)) => &p.extraction.boundary,
            _ => &[],
        }
    }
}

/// A value as a row shows it: text without quotes, other JSON as written.
pub fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wf() -> Workflow {
        Workflow::from_json(json!({"nodes": [
            {"id": "in", "typeId": "core.x", "position": {"x": 0, "y": 0}},
            {"id": "fetch", "typeId": "core.http", "name": "Fetch feed", "position": {"x": 100, "y": 0},
             "config": {"url": "https://a.test", "retries": 3, "verbose": false}},
            {"id": "log", "typeId": "core.log", "position": {"x": 300, "y": 0}, "config": {"level": "info"}}],
          "edges": [{"id": "e1", "sourceNodeId": "in", "targetNodeId": "fetch"},
                    {"id": "e2", "sourceNodeId": "fetch", "targetNodeId": "log"}]}))
        .unwrap()
    }

    #[test]
    fn rows_list_the_selection_values_and_the_preview_promotes_the_checked_ones() {
        let w = wf();
        let f = ExtractForm::new(&w, vec!["log".into(), "fetch".into()]);
        assert_eq!(f.nodes, ["fetch", "log"], "file order");
        let mut f = ExtractForm::new(&w, vec!["fetch".into()]);
        assert_eq!((f.chain_id.as_str(), f.label.as_str()), ("vendor.my.fetch-feed", "Fetch feed"));
        let rows: Vec<(&str, &str)> = f.rows.iter().map(|r| (r.candidate.pointer.as_str(), r.name.as_str())).collect();
        assert_eq!(rows, [("/config/url", "url"), ("/config/retries", "retries"), ("/config/verbose", "verbose")]);
        f.rows[0].checked = true;
        f.rows[0].name = "feed".into();
        f.touch();
        f.refresh(&w, None);
        let p = f.preview().unwrap().as_ref().unwrap();
        assert_eq!(p.chain.nodes()[0]["config"]["url"], "{{params.feed}}");
        assert_eq!(p.chain.parameters()["properties"]["feed"], json!({"type": "string", "default": "https://a.test"}));
        let b: Vec<(&str, bool)> = f.boundary().iter().map(|b| (b.edge_id.as_str(), b.incoming)).collect();
        assert_eq!(b, [("e1", true), ("e2", false)]);
    }

    #[test]
    fn checking_a_value_of_another_node_adds_the_node_and_keeps_earlier_choices() {
        let w = wf();
        let mut f = ExtractForm::new(&w, vec!["fetch".into()]);
        f.rows[1].checked = true;
        let i = f.check_value(&w, "log", "/config/level").unwrap();
        assert_eq!(f.nodes, ["fetch", "log"]);
        assert!(f.rows[i].checked && f.rows[1].checked);
        assert_eq!(f.request().params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["retries", "level"]);
        f.add_node(&w, "in");
        assert_eq!(f.nodes, ["in", "fetch", "log"], "file order");
        assert_eq!(f.rows.iter().filter(|r| r.checked).count(), 2, "ticks survive a node added");
        assert_eq!(f.check_value(&w, "log", "/config/nope"), None);
    }

    #[test]
    fn shared_names_make_one_parameter_and_bad_names_are_reported() {
        let w = wf();
        let mut f = ExtractForm::new(&w, vec!["fetch".into(), "log".into()]);
        for r in &mut f.rows {
            r.checked = r.candidate.pointer != "/config/verbose";
        }
        f.rows[0].name = "1bad".into();
        assert_eq!(f.bad_names(), ["1bad"]);
        f.rows[0].name = "url".into();
        f.rows[3].name = "url".into();
        let req = f.request();
        assert_eq!(req.params[0].targets.len(), 2);
        f.touch();
        f.refresh(&w, None);
        let err = f.preview().unwrap().as_ref().unwrap_err();
        assert!(err.message.contains("must be equal"), "{err:?}");
    }

    #[test]
    fn the_preview_runs_against_the_target_pack() {
        let w = wf();
        let mut f = ExtractForm::new(&w, vec!["fetch".into()]);
        f.chain_id = "acme.fetch".into();
        f.touch();
        f.refresh(&w, None);
        let mut chain = f.preview().unwrap().as_ref().unwrap().chain.raw().clone();
        chain["description"] = json!("written by hand");
        let mut target = ExtractForm::new_pack("vendor.acme.tiles", "1.0.0");
        target.apply(crate::author::PackEdit::InsertChain { index: 0, chain }).unwrap();
        f.target = PackTarget::Loaded(3);
        f.label = "Fetch again".into();
        f.touch();
        f.refresh(&w, Some(&target));
        let p = f.preview().unwrap().as_ref().unwrap();
        assert_eq!((p.chain.index, p.chain.label()), (0, "Fetch again"), "replaced in place");
        assert_eq!(p.chain.description(), "written by hand", "what extraction cannot know is kept");
        assert_eq!(target.chains()[0]["label"], "Fetch feed", "the target itself is not changed");
    }

    #[test]
    fn an_unextractable_selection_says_why() {
        let w = Workflow::from_json(json!({"nodes": [
            {"id": "r", "typeId": "core.x", "inputs": {"p": {"type": "variable", "variableName": "plan"}}}]}))
        .unwrap();
        let f = ExtractForm::new(&w, vec!["r".into()]);
        assert_eq!(f.refusal.as_ref().unwrap().code, crate::error::code::VARIABLE_UNDECLARED);
        assert!(f.rows.is_empty());
    }
}

//! Where a finding is, in the user's words: a JSON pointer into the exported workflow
//! (`/nodes/3/config/url`) becomes the node's title and the member (`Fetch queue ›
//! config/url`), an edge's becomes its ends' titles. Titles are model data, so this lives
//! in the core; the findings list shows it, with the pointer kept for its tooltip.

use crate::error::{Finding, Severity};
use crate::workflow::Workflow;
use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use serde_json::Value;

/// The workflow's nodes and edges in export order, looked up once for a list of findings.
pub struct Places<'a> {
    wf: &'a Workflow,
    nodes: Vec<NodeIndex>,
    edges: Vec<EdgeIndex>,
}

impl<'a> Places<'a> {
    pub fn new(wf: &'a Workflow) -> Self {
        Self { wf, nodes: wf.nodes_in_order(), edges: wf.edges_in_order() }
    }

    /// The place `pointer` addresses, named; `None` for the workflow itself or a pointer
    /// into nothing the workflow has.
    pub fn describe(&self, pointer: &str) -> Option<String> {
        let (kind, rest) = pointer.strip_prefix('/')?.split_once('/')?;
        let (index, inner) = rest.split_once('/').map_or((rest, ""), |(i, inner)| (i, inner));
        let index: usize = index.parse().ok()?;
        let within = |name: String| if inner.is_empty() { name } else { format!("{name} › {inner}") };
        match kind {
            "nodes" => Some(within(self.title(self.wf.graph[*self.nodes.get(index)?].id()))),
            "edges" => {
                let edge = &self.wf.graph[*self.edges.get(index)?];
                Some(within(format!("edge {} ➡ {}", self.title(edge.source()), self.title(edge.target()))))
            }
            _ => None,
        }
    }

    fn title(&self, id: &str) -> String {
        title(self.wf, id)
    }
}

/// Where an action's finding is, when it names a node of the workflow in its details
/// (`nodeId`): the node's title and the member its pointer goes into (an insert's pointers
/// address the expansion it made, not the workflow, so they cannot be looked up).
pub fn node_place(wf: &Workflow, f: &Finding) -> Option<String> {
    let id = f.details.get("nodeId").and_then(Value::as_str).filter(|id| wf.contains_node(id))?;
    let inner = f.pointer.strip_prefix("/nodes/").and_then(|rest| rest.split_once('/')).map(|(_, inner)| inner);
    Some(match inner {
        Some(inner) => format!("{} › {inner}", title(wf, id)),
        None => title(wf, id),
    })
}

/// A node as the user knows it: its title (`name`), its id when it has none or is gone.
pub fn title(wf: &Workflow, id: &str) -> String {
    let named = wf.node(id).map(|ix| wf.graph[ix].name()).filter(|n| !n.trim().is_empty());
    named.unwrap_or(id).to_owned()
}

/// Where a value of a node is: `Fetch feed › config/url` for `/config/url` of node `fetch`.
pub fn value_place(wf: &Workflow, id: &str, pointer: &str) -> String {
    format!("{} › {}", title(wf, id), pointer.trim_start_matches('/'))
}

/// Where a pack finding is, in the author's words: `/chains/0/dag/nodes/2/config/url` of a
/// chain pack's manifest (given its `chains`) becomes `chain Triage › node Fetch feed › config/url` (a chain by its
/// label, a node by its name, each by its id when it has none); `None` for a pointer outside
/// the chains or into nothing the manifest has.
pub fn pack_place(chains: &[Value], pointer: &str) -> Option<String> {
    let mut parts = pointer.strip_prefix("/chains/")?.splitn(2, '/');
    let index: usize = parts.next()?.parse().ok()?;
    let rest = parts.next().unwrap_or_default();
    let chain = chains.get(index)?;
    let named = |v: &Value, name: &str, id: &str| {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
        text(name).or(text(id)).map(str::to_owned)
    };
    let mut place =
        vec![format!("chain {}", named(chain, "label", "chainId").unwrap_or_else(|| format!("#{}", index + 1)))];
    let mut inner = rest.to_owned();
    if let Some(node_rest) = rest.strip_prefix("dag/nodes/") {
        let (i, within) = node_rest.split_once('/').unwrap_or((node_rest, ""));
        let node = i.parse::<usize>().ok().and_then(|i| chain.pointer(&format!("/dag/nodes/{i}")))?;
        place.push(format!("node {}", named(node, "name", "id").unwrap_or_else(|| i.to_owned())));
        inner = within.to_owned();
    }
    if !inner.is_empty() {
        place.push(inner);
    }
    Some(place.join(" › "))
}

/// Findings counted by severity, the one wording every count in the editor uses: "1 error ·
/// 2 warnings", "5 warnings · 1 note"; a severity none has is left out.
pub fn finding_counts(findings: &[Finding]) -> String {
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let (errors, warnings, notes) = (count(Severity::Error), count(Severity::Warning), count(Severity::Info));
    let mut parts = Vec::new();
    if errors > 0 {
        parts.push(crate::words::count(errors, "error", "errors"));
    }
    if warnings > 0 {
        parts.push(crate::words::count(warnings, "warning", "warnings"));
    }
    if notes > 0 {
        parts.push(crate::words::count(notes, "note", "notes"));
    }
    if parts.is_empty() { "no findings".to_owned() } else { parts.join(" · ") }
}

/// The node a finding's pointer is about (`/nodes/3/...` → the fourth node in file order).
pub fn node_of(wf: &Workflow, pointer: &str) -> Option<String> {
    let rest = pointer.strip_prefix("/nodes/")?;
    let index: usize = rest.split('/').next()?.parse().ok()?;
    let ix = *wf.nodes_in_order().get(index)?;
    Some(wf.graph[ix].id().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_read_as_titles_and_members() {
        let wf = Workflow::from_json(json!({
            "id": "wf", "name": "wf", "version": "1.0.0",
            "nodes": [
                {"id": "support_triage_d869_decide", "typeId": "core.noop", "name": "Decision", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
                {"id": "q7", "typeId": "core.noop", "name": " ", "position": {"x": 400, "y": 0}, "config": {"url": "x"}, "inputs": {}}
            ],
            "edges": [{"id": "e1", "sourceNodeId": "support_triage_d869_decide", "targetNodeId": "q7"}],
            "triggers": [], "variables": [], "metadata": {}, "settings": {}
        }))
        .unwrap();
        let places = Places::new(&wf);
        assert_eq!(places.describe("/nodes/0").as_deref(), Some("Decision"));
        assert_eq!(places.describe("/nodes/1/config/url").as_deref(), Some("q7 › config/url"));
        assert_eq!(places.describe("/edges/0/condition").as_deref(), Some("edge Decision ➡ q7 › condition"));
        assert_eq!(value_place(&wf, "support_triage_d869_decide", "/config/url"), "Decision › config/url");
        assert_eq!(title(&wf, "gone"), "gone", "a node not in the workflow goes by its id");
        // An insert's finding: its pointer is into the expansion, its nodeId into the workflow.
        let f = Finding::warning("node_config_invalid", "/nodes/7/config/fanOutPolicy", "m").with("nodeId", "q7");
        assert_eq!(node_place(&wf, &f).as_deref(), Some("q7 › config/fanOutPolicy"));
        let gone = Finding::warning("node_config_invalid", "/nodes/0", "m").with("nodeId", "gone");
        assert_eq!(node_place(&wf, &gone), None);
        for nowhere in ["", "/", "/nodes/2", "/nodes/x", "/settings/timeout", "/edges"] {
            assert_eq!(places.describe(nowhere), None, "{nowhere}");
        }
    }

    #[test]
    fn pack_pointers_read_as_chain_labels_and_node_names() {
        let manifest = json!({"name": "vendor.acme.tiles", "chains": [
            {"chainId": "acme.triage", "label": "Triage", "dag": {"nodes": [
                {"id": "fetch", "name": "Fetch feed"}, {"id": "log"}]}},
            {"chainId": "acme.bare"}]});
        let chains = manifest["chains"].as_array().unwrap();
        assert_eq!(
            pack_place(chains, "/chains/0/dag/nodes/0/config/url").as_deref(),
            Some("chain Triage › node Fetch feed › config/url")
        );
        assert_eq!(pack_place(chains, "/chains/0/dag/nodes/1").as_deref(), Some("chain Triage › node log"));
        assert_eq!(
            pack_place(chains, "/chains/1/parameters/properties/x").as_deref(),
            Some("chain acme.bare › parameters/properties/x")
        );
        assert_eq!(pack_place(chains, "/chains/1").as_deref(), Some("chain acme.bare"));
        for nowhere in ["", "/name", "/chains/2", "/chains/x", "/chains/0/dag/nodes/5/config"] {
            assert_eq!(pack_place(chains, nowhere), None, "{nowhere}");
        }
    }

    #[test]
    fn findings_are_counted_by_severity_and_pointers_name_their_node() {
        assert_eq!(finding_counts(&[]), "no findings");
        let w = |c| Finding::warning(c, "/nodes/1", "m");
        let findings = [Finding::error("e", "/nodes/0", "m"), w("w1"), w("w2"), Finding::info("i", "", "m")];
        assert_eq!(finding_counts(&findings), "1 error · 2 warnings · 1 note");
        assert_eq!(finding_counts(&findings[1..2]), "1 warning");
        let wf = Workflow::from_json(json!({"nodes": [
            {"id": "first", "typeId": "core.noop", "position": {"x": 0, "y": 0}},
            {"id": "second", "typeId": "core.noop", "position": {"x": 9, "y": 0}}], "edges": []}))
        .unwrap();
        assert_eq!(node_of(&wf, "/nodes/1/config/url").as_deref(), Some("second"));
        assert_eq!(node_of(&wf, "/nodes/2"), None);
        assert_eq!(node_of(&wf, "/edges/0"), None);
    }
}

//! Export: the workflow back to WorkflowDefinition JSON, the pre-export lints, and saving.

use super::{Edge, Node, Workflow};
use crate::error::{Error, Finding, Result, code, pointer_join};
use crate::grammar::token;
use crate::schemas::{MAX_LISTED_VIOLATIONS, Schema};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExportMode {
    /// What the spec says: expanded nodes keep the chain's `capabilities`, and `inputs` keep
    /// the chain's values verbatim, PortValue or not.
    #[default]
    Faithful,
    /// Valid against the closed WorkflowDefinition schema: node `capabilities` removed (A1),
    /// every input that is not a PortValue wrapped as `{"type": "static", "value": V}` (A5).
    /// Saving refuses a document that still does not validate.
    StrictSchema,
}

/// The PortValue kinds. An input whose `type` names one of them is the author's PortValue and
/// is kept as written (and checked by the schema); anything else is a plain value.
const PORT_VALUE_KINDS: [&str; 4] = ["static", "expression", "connection", "variable"];

fn is_port_value(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str).is_some_and(|t| PORT_VALUE_KINDS.contains(&t))
}

/// One node as strict mode exports it: `capabilities` removed, plain inputs wrapped.
fn strict_node(mut json: Map<String, Value>) -> Map<String, Value> {
    // `shift_remove` keeps the other members in order (`remove` swaps the last in).
    json.shift_remove("capabilities");
    if let Some(Value::Object(inputs)) = json.get_mut("inputs") {
        for (_, v) in inputs.iter_mut().filter(|(_, v)| !is_port_value(v)) {
            *v = json!({"type": "static", "value": v.take()});
        }
    }
    json
}

/// What strict mode changes in the node at `/nodes/{i}`, one info finding per change.
fn strict_changes(i: usize, node: &Map<String, Value>, out: &mut Vec<Finding>) {
    if node.contains_key("capabilities") {
        out.push(Finding::info(
            code::STRICT_CAPABILITIES_REMOVED,
            format!("/nodes/{i}/capabilities"),
            "removed the chain's `capabilities`, which the closed WorkflowNode schema rejects",
        ));
    }
    if let Some(Value::Object(inputs)) = node.get("inputs") {
        for (port, _) in inputs.iter().filter(|(_, v)| !is_port_value(v)) {
            out.push(Finding::info(
                code::STRICT_INPUT_WRAPPED,
                pointer_join(&format!("/nodes/{i}/inputs"), port),
                "wrapped a plain input value as a static PortValue",
            ));
        }
    }
}

impl Workflow {
    /// The WorkflowDefinition JSON, members in their original order.
    pub fn to_json(&self, mode: ExportMode) -> Value {
        let nodes: Vec<Value> = self
            .nodes_in_order()
            .into_iter()
            .map(|ix| {
                let node = self.graph[ix].object();
                Value::Object(if mode == ExportMode::StrictSchema { strict_node(node) } else { node })
            })
            .collect();
        let edges: Vec<Value> = self.export_edges().into_iter().map(|e| Value::Object(e.json())).collect();
        // Moved, not cloned again: member names are unique, so each is taken once.
        let (mut nodes, mut edges) = (Value::Array(nodes), Value::Array(edges));
        let mut out = Map::with_capacity(self.doc.len());
        for (k, v) in &self.doc {
            let v = match k.as_str() {
                "nodes" => std::mem::take(&mut nodes),
                "edges" => std::mem::take(&mut edges),
                _ => v.clone(),
            };
            out.insert(k.clone(), v);
        }
        Value::Object(out)
    }

    /// Edges in file order, dangling ones included, as they are exported.
    fn export_edges(&self) -> Vec<&Edge> {
        let mut edges: Vec<&Edge> = self.graph.edge_weights().chain(&self.dangling).collect();
        edges.sort_by_key(|e| e.seq);
        edges
    }

    /// The strict-schema export with one info finding per change it made, refused
    /// (`validation_error`, every failing pointer in `details.errors`) when it still does not
    /// validate against the WorkflowDefinition schema.
    pub fn strict_export(&self) -> Result<(Value, Vec<Finding>)> {
        self.refuse_invalid_strict()?;
        let mut changes = Vec::new();
        for (i, ix) in self.nodes_in_order().into_iter().enumerate() {
            strict_changes(i, &self.graph[ix].object(), &mut changes);
        }
        Ok((self.to_json(ExportMode::StrictSchema), changes))
    }

    /// The strict export's schema violations as one refusal (checked piece by piece).
    fn refuse_invalid_strict(&self) -> Result<()> {
        let violations = self.schema_findings(ExportMode::StrictSchema);
        if violations.is_empty() {
            return Ok(());
        }
        let mut pointers: Vec<&str> = violations.iter().map(|v| v.pointer.as_str()).collect();
        pointers.dedup();
        let shown = pointers.iter().take(10).map(|p| if p.is_empty() { "(root)" } else { p }).collect::<Vec<_>>();
        let more = if pointers.len() > shown.len() {
            format!(" and {} more", pointers.len() - shown.len())
        } else {
            String::new()
        };
        let errors: Vec<Value> = violations
            .iter()
            .map(|v| json!({"path": v.pointer, "keyword": v.details.get("keyword"), "message": v.message}))
            .collect();
        Err(Error::new(
            code::VALIDATION_ERROR,
            format!(
                "the strict-schema export would still break the WorkflowDefinition schema at {}{more}; nothing was written",
                shown.join(", ")
            ),
        )
        .with("errors", errors))
    }

    /// Validate against the embedded WorkflowDefinition schema; violations are warnings
    /// because the seed schema predates fields the spec requires (capabilities, compensation).
    ///
    /// Checked in pieces (the members around `nodes` and `edges`, then each node and each
    /// edge against its definition) so the exported document is never built as a whole:
    /// that was a second copy of every node. At most [`MAX_LISTED_VIOLATIONS`] are listed.
    pub fn schema_findings(&self, mode: ExportMode) -> Vec<Finding> {
        self.schema_pass(mode, |_, _| {})
    }

    /// [`Self::schema_findings`], handing each node's object to `visit` (with the node's
    /// place in file order) before it is checked: a node is parsed from its text to be read
    /// ([`super::Node`]), so the lint reads each one once for its own checks and this one.
    fn schema_pass(&self, mode: ExportMode, mut visit: impl FnMut(usize, &Map<String, Value>)) -> Vec<Finding> {
        let validators = piece_validators();
        let mut out = Vec::new();
        let mut omitted = 0usize;
        let mut add = |prefix: &str, violations: Vec<crate::schemas::Violation>| {
            for v in violations {
                if out.len() >= MAX_LISTED_VIOLATIONS || v.keyword == crate::schemas::OMITTED_KEYWORD {
                    omitted += 1;
                    continue;
                }
                out.push(
                    Finding::warning(code::WORKFLOW_SCHEMA_VIOLATION, format!("{prefix}{}", v.pointer), v.message)
                        .with("keyword", v.keyword),
                );
            }
        };
        let nodes = self.nodes_in_order();
        let edges = self.export_edges();
        // The document with placeholder items: their number is what `minItems` and `maxItems`
        // see, so past the largest of those more would change nothing (and 100,000 of them
        // were 8 MB).
        let placeholders = |n: usize| Value::Array(vec![Value::Null; n.min(validators.placeholders)]);
        let frame: Map<String, Value> = self
            .doc
            .iter()
            .map(|(k, v)| match k.as_str() {
                "nodes" => (k.clone(), placeholders(nodes.len())),
                "edges" => (k.clone(), placeholders(edges.len())),
                _ => (k.clone(), v.clone()),
            })
            .collect();
        add("", crate::schemas::collect_violations(&validators.frame, &Value::Object(frame)));
        for (i, ix) in nodes.into_iter().enumerate() {
            // One node at a time: the copy lives only while it is checked.
            let node = self.graph[ix].object();
            visit(i, &node);
            let json = if mode == ExportMode::StrictSchema { strict_node(node) } else { node };
            add(&format!("/nodes/{i}"), crate::schemas::collect_violations(&validators.node, &Value::Object(json)));
        }
        for (i, e) in edges.into_iter().enumerate() {
            let json = Value::Object(e.json());
            add(&format!("/edges/{i}"), crate::schemas::collect_violations(&validators.edge, &json));
        }
        if omitted > 0 {
            out.push(
                Finding::warning(
                    code::WORKFLOW_SCHEMA_VIOLATION,
                    "",
                    format!("{omitted} more violations are not listed (at most {MAX_LISTED_VIOLATIONS} are)"),
                )
                .with("keyword", crate::schemas::OMITTED_KEYWORD),
            );
        }
        out
    }

    /// The pre-export lints (workflow-definition §8.4) plus schema violations. Schema
    /// violations are those of the strict form, so the faithful export's two known departures
    /// (A1 `capabilities`, A5 plain inputs) are one info finding, not a warning per node;
    /// strict mode lists what it changed as info findings.
    pub fn lint(&self, mode: ExportMode) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut changes = Vec::new();
        // Each node is read once, by the schema pass (its findings are listed after the
        // edges', and the schema's last).
        let mut node_findings = Vec::new();
        let schema = self.schema_pass(ExportMode::StrictSchema, |i, n| {
            strict_changes(i, n, &mut changes);
            self.node_lints(i, n, &mut node_findings);
        });
        match mode {
            ExportMode::StrictSchema => out.append(&mut changes),
            ExportMode::Faithful => {
                let count = |c: &str| changes.iter().filter(|f| f.code == c).count();
                let (caps, inputs) = (count(code::STRICT_CAPABILITIES_REMOVED), count(code::STRICT_INPUT_WRAPPED));
                if caps + inputs > 0 {
                    out.push(
                        Finding::info(
                            code::FAITHFUL_SCHEMA_DEPARTURE,
                            "",
                            format!(
                                "Written as the chain-packs spec asks: {} the chain's capabilities and {} \
                                 plain values. A tool that checks the closed WorkflowNode schema rejects \
                                 them; for such a tool use File › Export expanded JSON (strict schema), \
                                 which removes the capabilities and wraps the values",
                                crate::words::count(caps, "node carries", "nodes carry"),
                                crate::words::count(inputs, "input holds", "inputs hold")
                            ),
                        )
                        .with("capabilities", caps)
                        .with("plainInputs", inputs),
                    );
                }
            }
        }
        let id = self.id();
        let id_ok = id.starts_with(|c: char| c.is_ascii_lowercase())
            && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
            && id.len() <= 128;
        if !id_ok {
            out.push(Finding::warning(
                code::VALIDATION_ERROR,
                "/id",
                format!("workflow id \"{id}\" breaks ^[a-z][a-z0-9_-]*$ (≤128)"),
            ));
        }
        // Read in place: the lints never need the exported document itself. Node ids are
        // looked up in the workflow's own index, and only ids the lookups count more than
        // once are remembered: at 100,000 nodes sets of every id were ~5 MB more at the peak.
        let mut edge_ids: HashMap<&str, usize> = HashMap::new();
        for (i, e) in self.export_edges().into_iter().enumerate() {
            let at = format!("/edges/{i}");
            if let Some(eid) = e.id_member()
                && self.edge_id_uses(eid) > 1
                && let Some(first) = edge_ids.insert(eid, i)
            {
                out.push(Finding::warning(
                    code::VALIDATION_ERROR,
                    format!("{at}/id"),
                    format!("edge id \"{eid}\" repeats /edges/{first}"),
                ));
            }
            for (key, end) in [("sourceNodeId", e.source()), ("targetNodeId", e.target())] {
                if !self.contains_node(end) {
                    out.push(Finding::warning(
                        code::EDGE_ENDPOINT_UNKNOWN,
                        format!("{at}/{key}"),
                        format!("edge endpoint \"{end}\" names no node"),
                    ));
                }
            }
            if let Some(c) = e.condition()
                && matches!(c["type"].as_str(), Some("truthy" | "falsy"))
                && c["left"].as_str().is_none_or(str::is_empty)
            {
                out.push(Finding::warning(
                    code::CHAIN_EDGE_CONDITION_INVALID,
                    format!("{at}/condition"),
                    "a truthy/falsy condition needs `left`",
                ));
            }
        }
        out.append(&mut node_findings);
        out.extend(schema);
        out
    }

    /// The lints of the node at `/nodes/{i}`: connection inputs naming no node, and
    /// parameter-token text left in `config` or `inputs`.
    fn node_lints(&self, i: usize, n: &Map<String, Value>, out: &mut Vec<Finding>) {
        let at = format!("/nodes/{i}");
        if let Some(inputs) = n.get("inputs").and_then(Value::as_object) {
            for (port, v) in inputs {
                let pp = pointer_join(&format!("{at}/inputs"), port);
                // Plain values are counted above; PortValues are checked by the schema.
                if v.get("type").and_then(Value::as_str) == Some("connection") {
                    let target = v.get("nodeId").and_then(Value::as_str).unwrap_or_default();
                    if !self.contains_node(target) {
                        out.push(Finding::warning(
                            code::EDGE_ENDPOINT_UNKNOWN,
                            pp,
                            format!("connection input names node \"{target}\", which does not exist"),
                        ));
                    }
                }
            }
        }
        for key in ["config", "inputs"] {
            if let Some(v) = n.get(key) {
                crate::json_walk::strings(v, &format!("{at}/{key}"), |loc, s| {
                    if !token::tokens(s).is_empty() || !token::near_tokens(s).is_empty() {
                        out.push(Finding::warning(
                            code::LEFTOVER_TOKEN,
                            loc.pointer(),
                            "parameter-token text reaches the runtime as literal text",
                        ));
                    }
                });
            }
        }
    }

    /// The file bytes: pretty JSON, written straight from the graph ([`Self::write_file`]).
    pub fn to_file_bytes(&self, mode: ExportMode) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_file(&mut out, mode)?;
        Ok(out)
    }

    /// Refuse what [`Self::write_file`] would not write: a strict export that would not
    /// validate (with every failing pointer), and a document nested deeper than chainsmith
    /// (and serde_json) reads, so nothing is written that could not be opened again.
    pub fn check_writable(&self, mode: ExportMode) -> Result<()> {
        use crate::fsio::{MAX_JSON_NESTING, nesting};
        if mode == ExportMode::StrictSchema {
            self.refuse_invalid_strict()?;
        }
        let deepest_node = self.graph.node_weights().map(Node::nesting).max().unwrap_or(0);
        let deepest_edge = self.export_edges().iter().map(|e| e.nesting()).max().unwrap_or(0);
        let depth = 1 + self
            .doc
            .iter()
            .map(|(k, v)| match k.as_str() {
                "nodes" => 1 + deepest_node,
                "edges" => 1 + deepest_edge,
                _ => nesting(v),
            })
            .max()
            .unwrap_or(0);
        if depth > MAX_JSON_NESTING {
            return Err(Error::new(
                code::VALIDATION_ERROR,
                format!(
                    "workflow {} would nest {depth} levels deep, and workflows are read only up to \
                     {MAX_JSON_NESTING} levels; it is not written, so it stays openable",
                    self.id()
                ),
            )
            .with("limit", MAX_JSON_NESTING));
        }
        Ok(())
    }

    /// The file as pretty JSON, streamed to `w` from the graph: neither the exported document
    /// nor the file's bytes are ever built whole (each was another copy of every node).
    /// Refused as [`Self::check_writable`] says, before anything is written.
    pub fn write_file(&self, w: &mut dyn std::io::Write, mode: ExportMode) -> Result<()> {
        self.check_writable(mode)?;
        self.write_unchecked(w, mode).map_err(|e| Error::new(code::IO_ERROR, format!("writing the workflow: {e}")))
    }

    fn write_unchecked(&self, w: &mut dyn std::io::Write, mode: ExportMode) -> std::io::Result<()> {
        crate::fsio::write_pretty_json(w, &self.exported(mode))
    }

    /// The exported document, to serialise (inside another document, say) without building it.
    pub fn exported(&self, mode: ExportMode) -> impl serde::Serialize + '_ {
        Exported { wf: self, mode }
    }

    /// Save atomically, streamed ([`Self::write_file`]).
    pub fn save(&self, path: &Path, mode: ExportMode) -> Result<()> {
        self.check_writable(mode).map_err(|e| e.with("path", path.display().to_string()))?;
        crate::fsio::write_atomic_with(path, &mut |w| self.write_unchecked(w, mode))
    }

    /// What [`Self::save`] writes, as a writer for [`crate::fsio::write_all_atomic_with`];
    /// call [`Self::check_writable`] first.
    pub(crate) fn writer(&self, mode: ExportMode) -> impl FnMut(&mut dyn std::io::Write) -> std::io::Result<()> + '_ {
        move |w| self.write_unchecked(w, mode)
    }
}

/// The exported document as [`Workflow::to_json`] builds it, serialised from the graph.
struct Exported<'a> {
    wf: &'a Workflow,
    mode: ExportMode,
}

impl serde::Serialize for Exported<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Exported<'a>(&'a Node, bool);
        impl serde::Serialize for Exported<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                // Strict: one node's copy at a time, dropped once written.
                if self.1 {
                    serde::Serialize::serialize(&strict_node(self.0.object()), s)
                } else {
                    serde::Serialize::serialize(self.0, s)
                }
            }
        }
        /// The nodes in file order, each wrapped as it is written (a list of every wrapper
        /// was 1.6 MB more at 100,000 nodes).
        struct Nodes<'a>(&'a Workflow, bool);
        impl serde::Serialize for Nodes<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                let Self(wf, strip) = *self;
                s.collect_seq(wf.nodes_in_order().into_iter().map(|ix| Exported(&wf.graph[ix], strip)))
            }
        }
        let strip = self.mode == ExportMode::StrictSchema;
        let mut map = s.serialize_map(Some(self.wf.doc.len()))?;
        for (k, v) in &self.wf.doc {
            match k.as_str() {
                "nodes" => map.serialize_entry(k, &Nodes(self.wf, strip))?,
                "edges" => map.serialize_entry(k, &self.wf.export_edges())?,
                _ => map.serialize_entry(k, v)?,
            }
        }
        map.end()
    }
}

/// Validators for the pieces [`Workflow::schema_findings`] checks: the document with its
/// `nodes` and `edges` items unconstrained, one WorkflowNode, one WorkflowEdge.
struct PieceValidators {
    frame: jsonschema::Validator,
    node: jsonschema::Validator,
    edge: jsonschema::Validator,
    /// How many placeholder items the frame's `nodes` and `edges` need at most: one more
    /// than any `minItems`/`maxItems` they have, the only keywords of theirs that count
    /// items (the test `frame_arrays_are_constrained_only_by_their_length` checks that).
    placeholders: usize,
}

/// The keywords of the frame's `nodes` and `edges` (their `items` removed) whose verdict on
/// an array depends on its length alone.
const LENGTH_KEYWORDS: [&str; 2] = ["minItems", "maxItems"];

fn piece_validators() -> &'static PieceValidators {
    static PIECES: std::sync::OnceLock<PieceValidators> = std::sync::OnceLock::new();
    PIECES.get_or_init(|| {
        let document = Schema::WorkflowDefinition.document();
        let mut frame = document.clone();
        let mut placeholders = 1;
        for key in ["nodes", "edges"] {
            if let Some(items) = frame.pointer_mut(&format!("/properties/{key}")).and_then(Value::as_object_mut) {
                items.shift_remove("items");
                for bound in LENGTH_KEYWORDS.iter().filter_map(|k| items.get(*k).and_then(Value::as_u64)) {
                    placeholders = placeholders.max(usize::try_from(bound).unwrap_or(usize::MAX).saturating_add(1));
                }
            }
        }
        let id = document.get("$id").and_then(Value::as_str).unwrap_or("workflow-definition.schema.json");
        let build = |schema: &Value| {
            crate::schemas::options().build(schema).expect("the embedded WorkflowDefinition schema compiles")
        };
        PieceValidators {
            frame: build(&frame),
            node: build(&serde_json::json!({"$ref": format!("{id}#/$defs/WorkflowNode")})),
            edge: build(&serde_json::json!({"$ref": format!("{id}#/$defs/WorkflowEdge")})),
            placeholders,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The frame's `nodes` and `edges` hold at most [`PieceValidators::placeholders`]
    /// placeholder items; that gives the verdict the real length would only while nothing but
    /// their length is constrained.
    #[test]
    fn frame_arrays_are_constrained_only_by_their_length() {
        let document = Schema::WorkflowDefinition.document();
        for key in ["nodes", "edges"] {
            let property = document.pointer(&format!("/properties/{key}")).and_then(Value::as_object).unwrap();
            for keyword in property.keys() {
                assert!(
                    ["type", "items", "description"].contains(&keyword.as_str())
                        || LENGTH_KEYWORDS.contains(&keyword.as_str()),
                    "/properties/{key} has `{keyword}`"
                );
            }
        }
        // nodes' minItems is 1: one placeholder past it.
        assert_eq!(piece_validators().placeholders, 2);
    }

    #[test]
    fn a_long_node_list_meets_min_items_as_the_whole_list_would() {
        let nodes: Vec<Value> = (0..5).map(|i| json!({"id": format!("n{i}"), "typeId": "core.noop"})).collect();
        let doc = |nodes: &[Value]| {
            json!({"id": "w", "name": "w", "version": "1", "nodes": nodes, "edges": [], "triggers": [],
                "variables": [], "metadata": {}, "settings": {}})
        };
        let frame_findings = |nodes: &[Value]| {
            let wf = Workflow::from_json(doc(nodes)).unwrap();
            let found: Vec<String> = wf
                .schema_findings(ExportMode::StrictSchema)
                .into_iter()
                .filter(|f| !f.pointer.starts_with("/nodes/"))
                .map(|f| f.pointer)
                .collect();
            found
        };
        for n in 0..5 {
            let whole = crate::schemas::collect_violations(Schema::WorkflowDefinition.validator(), &doc(&nodes[..n]));
            let expected: Vec<String> =
                whole.into_iter().map(|v| v.pointer).filter(|p| !p.starts_with("/nodes/")).collect();
            assert_eq!(frame_findings(&nodes[..n]), expected, "{n} nodes");
        }
        assert_eq!(frame_findings(&[]), ["/nodes"]);
    }
}

//! Export: the workflow back to WorkflowDefinition JSON, the pre-export lints, and saving.

use super::{Edge, Workflow};
use crate::error::{Error, Finding, Result, code, pointer_join};
use crate::expand::token;
use crate::schemas::Schema;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExportMode {
    /// What the spec says: expanded nodes keep the chain's `capabilities`.
    #[default]
    Faithful,
    /// Strip node `capabilities`, which the closed WorkflowNode schema rejects (A1).
    StrictSchema,
}

impl Workflow {
    /// The WorkflowDefinition JSON, members in their original order.
    pub fn to_json(&self, mode: ExportMode) -> Value {
        let nodes: Vec<Value> = self
            .nodes_in_order()
            .into_iter()
            .map(|ix| {
                let mut json = self.graph[ix].json.clone();
                if mode == ExportMode::StrictSchema {
                    // `shift_remove` keeps the other members in order (`remove` swaps the last in).
                    json.shift_remove("capabilities");
                }
                Value::Object(json)
            })
            .collect();
        let mut edges: Vec<&Edge> = self.graph.edge_weights().chain(&self.dangling).collect();
        edges.sort_by_key(|e| e.seq);
        let edges: Vec<Value> = edges.into_iter().map(|e| Value::Object(e.json.clone())).collect();
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

    /// Validate against the embedded WorkflowDefinition schema; violations are warnings
    /// because the seed schema predates fields the spec requires (capabilities, compensation).
    pub fn schema_findings(&self, mode: ExportMode) -> Vec<Finding> {
        schema_findings_of(&self.to_json(mode))
    }

    /// The pre-export lints (workflow-definition §8.4) plus schema violations.
    pub fn lint(&self, mode: ExportMode) -> Vec<Finding> {
        let mut out = Vec::new();
        let doc = self.to_json(mode);
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
        let nodes = doc["nodes"].as_array().map(Vec::as_slice).unwrap_or_default();
        let edges = doc["edges"].as_array().map(Vec::as_slice).unwrap_or_default();
        let node_ids: HashSet<&str> = nodes.iter().filter_map(|n| n["id"].as_str()).collect();
        let mut edge_ids: HashMap<&str, usize> = HashMap::new();
        for (i, e) in edges.iter().enumerate() {
            let at = format!("/edges/{i}");
            if let Some(eid) = e["id"].as_str()
                && let Some(first) = edge_ids.insert(eid, i)
            {
                out.push(Finding::warning(
                    code::VALIDATION_ERROR,
                    format!("{at}/id"),
                    format!("edge id \"{eid}\" repeats /edges/{first}"),
                ));
            }
            for key in ["sourceNodeId", "targetNodeId"] {
                let end = e[key].as_str().unwrap_or_default();
                if !node_ids.contains(end) {
                    out.push(Finding::warning(
                        code::EDGE_ENDPOINT_UNKNOWN,
                        format!("{at}/{key}"),
                        format!("edge endpoint \"{end}\" names no node"),
                    ));
                }
            }
            if let Some(c) = e.get("condition")
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
        for (i, n) in nodes.iter().enumerate() {
            let at = format!("/nodes/{i}");
            if let Some(inputs) = n.get("inputs").and_then(Value::as_object) {
                for (port, v) in inputs {
                    let pp = pointer_join(&format!("{at}/inputs"), port);
                    match v.get("type").and_then(Value::as_str) {
                        Some("static" | "expression" | "variable") => {}
                        Some("connection") => {
                            let target = v.get("nodeId").and_then(Value::as_str).unwrap_or_default();
                            if !node_ids.contains(target) {
                                out.push(Finding::warning(
                                    code::EDGE_ENDPOINT_UNKNOWN,
                                    pp,
                                    format!("connection input names node \"{target}\", which does not exist"),
                                ));
                            }
                        }
                        _ => out.push(Finding::warning(
                            code::VALIDATION_ERROR,
                            pp,
                            "input is not a PortValue ({type: static|expression|connection|variable, …})",
                        )),
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
        out.extend(schema_findings_of(&doc));
        out
    }

    /// The file bytes: pretty JSON. A document nested deeper than chainsmith (and
    /// serde_json) reads is refused, so nothing is written that could not be opened again.
    pub fn to_file_bytes(&self, mode: ExportMode) -> Result<Vec<u8>> {
        let doc = self.to_json(mode);
        let depth = crate::fsio::nesting(&doc);
        if depth > crate::fsio::MAX_JSON_NESTING {
            return Err(Error::new(
                code::VALIDATION_ERROR,
                format!(
                    "workflow {} would nest {depth} levels deep, and workflows are read only up to {} levels; \
                     it is not written, so it stays openable",
                    self.id(),
                    crate::fsio::MAX_JSON_NESTING
                ),
            )
            .with("limit", crate::fsio::MAX_JSON_NESTING));
        }
        Ok(crate::fsio::to_pretty_json(&doc))
    }

    /// Save atomically ([`Self::to_file_bytes`]).
    pub fn save(&self, path: &Path, mode: ExportMode) -> Result<()> {
        crate::fsio::write_atomic(
            path,
            &self.to_file_bytes(mode).map_err(|e| e.with("path", path.display().to_string()))?,
        )
    }
}

fn schema_findings_of(doc: &Value) -> Vec<Finding> {
    Schema::WorkflowDefinition
        .violations(doc)
        .into_iter()
        .map(|v| Finding::warning(code::WORKFLOW_SCHEMA_VIOLATION, v.pointer, v.message).with("keyword", v.keyword))
        .collect()
}

//! Workflows the OpenWOP app expanded from one chain (interop §5): recognised by
//! `metadata.source == "workflow-chain-pack"`, they are one chain instance that can be
//! re-parameterised the way the app would redo it, after listing what was edited by hand.
//!
//! These functions work on the workflow JSON as the app wrote it (nodes keyed `nodeId`,
//! edges `sourceNodeId`/`targetNodeId`) and on WorkflowDefinitions alike (`id`).

use super::merge3::{Merge, Resolutions, Sides};
use crate::error::{Error, Result, code};
use crate::expand::app::{APP_SOURCE, app_expand_nodes, expansion_id_hash, node_prefix, resolved_params};
use crate::pack::Chain;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The node members a chain's expansion sets; the rest of a node is the workflow's.
const MEMBERS: [&str; 4] = ["typeId", "config", "inputs", "compensation"];

/// The chain instance an app-written workflow records in its workflow-level `metadata`.
#[derive(Debug, Clone, PartialEq)]
pub struct AppInstance {
    pub chain_id: String,
    /// `expandedFrom.version`, else `chainVersion`.
    pub chain_version: String,
    pub expansion_id: String,
    /// `expandedFrom.params`: the resolved values the app expanded with.
    pub params: Map<String, Value>,
}

/// How a node differs from what the recorded expansion produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandEdit {
    /// The node's members that differ (`typeId`, `config`, `inputs`, `compensation`).
    Changed { node_id: String, members: Vec<&'static str> },
    /// A node of the chain that is no longer in the workflow.
    Removed { node_id: String },
}

impl AppInstance {
    /// The instance recorded in `doc`, when the app expanded it from a chain.
    pub fn recognise(doc: &Value) -> Option<Self> {
        let meta = doc.get("metadata")?;
        if meta.get("source").and_then(Value::as_str) != Some(APP_SOURCE) {
            return None;
        }
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        let from = meta.get("expandedFrom");
        Some(Self {
            chain_id: text(meta.get("chainId")).or_else(|| text(from.and_then(|f| f.get("chainId"))))?,
            chain_version: text(from.and_then(|f| f.get("version"))).or_else(|| text(meta.get("chainVersion")))?,
            expansion_id: text(meta.get("expansionId"))?,
            params: from.and_then(|f| f.get("params")).and_then(Value::as_object).cloned().unwrap_or_default(),
        })
    }

    /// The prefix of every node id of this instance.
    pub fn prefix(&self) -> String {
        node_prefix(&self.chain_id, &self.expansion_id)
    }

    /// Nodes that differ from a fresh expansion of the recorded values: what the user
    /// changed by hand since the app expanded the chain.
    pub fn hand_edits(&self, doc: &Value, chain: &Chain) -> Result<Vec<HandEdit>> {
        self.check_chain(chain)?;
        let expected = app_expand_nodes(chain, &resolved_params(chain, &self.params), &self.expansion_id);
        let present: HashMap<&str, &Map<String, Value>> =
            nodes(doc).iter().filter_map(Value::as_object).filter_map(|n| Some((node_id(n)?, n))).collect();
        let mut edits = Vec::new();
        for want in &expected {
            let id = want.get("id").and_then(Value::as_str).unwrap_or_default();
            let Some(have) = present.get(id) else {
                edits.push(HandEdit::Removed { node_id: id.to_owned() });
                continue;
            };
            let members: Vec<&'static str> = ["typeId", "config", "inputs", "compensation"]
                .into_iter()
                .filter(|m| !same(have.get(*m), want.get(*m)))
                .collect();
            if !members.is_empty() {
                edits.push(HandEdit::Changed { node_id: id.to_owned(), members });
            }
        }
        Ok(edits)
    }

    /// `doc` re-expanded with `values` merged over the recorded ones, as the app would: its
    /// token rules, its expansionId of the new values, every node of the chain renamed to
    /// the new prefix (position, name and other members kept), edges rewired, metadata
    /// updated. [`Self::upgrade`] with the recorded chain as the new one.
    pub fn reparameterise(
        &self,
        doc: &Value,
        chain: &Chain,
        values: Map<String, Value>,
        res: &Resolutions,
    ) -> Result<Value> {
        self.upgrade(doc, chain, chain, values, res)
    }

    /// `doc` re-expanded from `new_chain` (the recorded chain `base_chain`, or another version
    /// of it), keeping the user's edits: each node's `typeId`, `config`, `inputs` and
    /// `compensation` are merged three ways (recorded expansion, workflow, new expansion).
    /// Nodes removed by hand stay removed; nodes the new version adds are added, those it
    /// drops are removed with their edges. A member changed on both sides that `res` does
    /// not settle refuses the whole re-expansion (`upgrade_conflict`).
    pub fn upgrade(
        &self,
        doc: &Value,
        base_chain: &Chain,
        new_chain: &Chain,
        values: Map<String, Value>,
        res: &Resolutions,
    ) -> Result<Value> {
        self.check_chain(base_chain)?;
        if new_chain.chain_id() != self.chain_id {
            return Err(Error::new(
                code::INSTANCE_PACK_MISMATCH,
                format!(
                    "the workflow was expanded from {}, and the chain given is {}",
                    self.chain_id,
                    new_chain.chain_id()
                ),
            )
            .with("instance", self.prefix())
            .with("chainId", new_chain.chain_id()));
        }
        let mut merged = self.params.clone();
        merged.extend(values);
        let resolved = resolved_params(new_chain, &merged);
        let new_id = expansion_id_hash(new_chain, &merged);
        let (old_prefix, new_prefix) = (self.prefix(), node_prefix(&self.chain_id, &new_id));
        let by_local = |nodes: Vec<Map<String, Value>>, prefix: &str| -> Vec<(String, Map<String, Value>)> {
            nodes
                .into_iter()
                .filter_map(|n| Some((n.get("id")?.as_str()?.strip_prefix(prefix)?.to_owned(), n)))
                .collect()
        };
        let base: HashMap<String, Map<String, Value>> = by_local(
            app_expand_nodes(base_chain, &resolved_params(base_chain, &self.params), &self.expansion_id),
            &old_prefix,
        )
        .into_iter()
        .collect();
        let fresh = by_local(app_expand_nodes(new_chain, &resolved, &new_id), &new_prefix);
        let fresh_by_local: HashMap<&str, &Map<String, Value>> = fresh.iter().map(|(l, n)| (l.as_str(), n)).collect();
        let merged_members = |m: &Map<String, Value>| -> Map<String, Value> {
            MEMBERS.iter().filter_map(|k| Some(((*k).to_owned(), m.get(*k)?.clone()))).collect()
        };
        let mut merge = Merge::new(res);

        let mut out = doc.clone();
        let rename = |id: &str| id.strip_prefix(&old_prefix).map(|rest| format!("{new_prefix}{rest}"));
        let mut id_key = "nodeId";
        let mut gone: std::collections::HashSet<String> = Default::default();
        let mut seen: std::collections::HashSet<String> = Default::default();
        if let Some(list) = out.get_mut("nodes").and_then(Value::as_array_mut) {
            for node in list.iter_mut().filter_map(Value::as_object_mut) {
                let key = if node.contains_key("nodeId") { "nodeId" } else { "id" };
                id_key = key;
                let Some(old_id) = node.get(key).and_then(Value::as_str).map(str::to_owned) else { continue };
                let Some(local) = old_id.strip_prefix(&old_prefix).map(str::to_owned) else { continue };
                let new_node_id = format!("{new_prefix}{local}");
                seen.insert(local.clone());
                match (base.get(&local), fresh_by_local.get(local.as_str())) {
                    (b, Some(f)) => {
                        for member in MEMBERS {
                            let at = format!("/{member}");
                            let sides = Sides {
                                base: b.and_then(|b| b.get(member)),
                                mine: node.get(member),
                                new: f.get(member),
                            };
                            let v = merge.value(&new_node_id, &at, sides);
                            match v {
                                Some(v) => node.insert(member.into(), v),
                                None => node.remove(member),
                            };
                        }
                        node.insert(key.into(), Value::String(new_node_id));
                    }
                    // The new version no longer has it: removed, unless the user edited it and
                    // keeps it.
                    (Some(b), None) => {
                        let (b, m) = (merged_members(b), merged_members(node));
                        if b == m
                            || merge
                                .conflict(
                                    &old_id,
                                    "",
                                    Sides { base: Some(&Value::Object(b)), mine: Some(&Value::Object(m)), new: None },
                                )
                                .is_none()
                        {
                            gone.insert(old_id);
                        }
                    }
                    (None, None) => {}
                }
            }
            list.retain(|n| n.get(id_key).and_then(Value::as_str).is_none_or(|id| !gone.contains(id)));
            // Nodes of the chain the workflow does not have, in fragment order: new in this
            // version, or removed by hand (they stay removed unless the new version changes
            // them and "take new" is chosen).
            for (local, node) in &fresh {
                if seen.contains(local) {
                    continue;
                }
                let id = format!("{new_prefix}{local}");
                let add = match base.get(local) {
                    None => true,
                    Some(b) => {
                        let (b, f) = (merged_members(b), merged_members(node));
                        b != f
                            && merge
                                .conflict(
                                    &id,
                                    "",
                                    Sides { base: Some(&Value::Object(b)), mine: None, new: Some(&Value::Object(f)) },
                                )
                                .is_some()
                    }
                };
                if add {
                    let mut restored = node.clone();
                    if id_key != "id"
                        && let Some(v) = restored.shift_remove("id")
                    {
                        restored.insert(id_key.into(), v);
                    }
                    list.push(Value::Object(restored));
                }
            }
        }
        if merge.unresolved > 0 {
            return Err(super::merge3::conflict_error(&old_prefix, &merge.conflicts));
        }
        if let Some(edges) = out.get_mut("edges").and_then(Value::as_array_mut) {
            let ends = ["sourceNodeId", "targetNodeId", "from", "to"];
            edges.retain(|e| {
                !ends.iter().any(|k| e.get(*k).and_then(Value::as_str).is_some_and(|id| gone.contains(id)))
            });
        }
        if let Some(edges) = out.get_mut("edges").and_then(Value::as_array_mut) {
            for edge in edges.iter_mut().filter_map(Value::as_object_mut) {
                for key in ["sourceNodeId", "targetNodeId", "from", "to"] {
                    if let Some(Value::String(end)) = edge.get_mut(key)
                        && let Some(new) = rename(end)
                    {
                        *end = new;
                    }
                }
            }
        }
        if let Some(meta) = out.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert("expansionId".into(), Value::String(new_id));
            if meta.contains_key("chainVersion") {
                meta.insert("chainVersion".into(), Value::String(new_chain.version().to_owned()));
            }
            let from = meta.entry("expandedFrom").or_insert_with(|| Value::Object(Map::new()));
            if let Some(from) = from.as_object_mut() {
                from.insert("chainId".into(), Value::String(self.chain_id.clone()));
                from.insert("version".into(), Value::String(new_chain.version().to_owned()));
                from.insert("params".into(), Value::Object(resolved));
            }
            if let Some(list) = meta.get_mut("unresolvedParams").and_then(Value::as_array_mut) {
                for entry in list.iter_mut() {
                    if let Some(Value::String(id)) = entry.get_mut("nodeId")
                        && let Some(new) = rename(id)
                    {
                        *id = new;
                    }
                }
            }
        }
        Ok(out)
    }

    fn check_chain(&self, chain: &Chain) -> Result<()> {
        if chain.chain_id() != self.chain_id || chain.version() != self.chain_version {
            return Err(Error::new(
                code::CHAIN_NOT_FOUND,
                format!(
                    "the workflow was expanded from {}@{}, and the chain given is {}@{}",
                    self.chain_id,
                    self.chain_version,
                    chain.chain_id(),
                    chain.version()
                ),
            )
            .with("chainId", self.chain_id.as_str())
            .with("version", self.chain_version.as_str()));
        }
        Ok(())
    }
}

/// Whether `doc` is written the app's way: a node keyed `nodeId` rather than `id`.
pub fn is_app_form(doc: &Value) -> bool {
    nodes(doc).iter().any(|n| n.get("nodeId").is_some() && n.get("id").is_none())
}

/// The app's workflow as a WorkflowDefinition, for tools that address nodes by `id`:
/// `workflowId` becomes `id`, each node's `nodeId` and each edge's `edgeId` become `id`, and
/// every other member stays as it was. A member already named `id` is left alone.
pub fn definition_form(doc: Value) -> Value {
    let Value::Object(mut doc) = doc else { return doc };
    rename(&mut doc, "workflowId");
    for (list, key) in [("nodes", "nodeId"), ("edges", "edgeId")] {
        if let Some(Value::Array(items)) = doc.get_mut(list) {
            for item in items.iter_mut().filter_map(Value::as_object_mut) {
                rename(item, key);
            }
        }
    }
    Value::Object(doc)
}

/// `from` becomes `id` in place (member order kept), unless `id` is already there.
fn rename(obj: &mut Map<String, Value>, from: &str) {
    if obj.contains_key("id") || !obj.contains_key(from) {
        return;
    }
    let old = std::mem::take(obj);
    *obj = old.into_iter().map(|(k, v)| if k == from { ("id".to_owned(), v) } else { (k, v) }).collect();
}

fn nodes(doc: &Value) -> &[Value] {
    doc.get("nodes").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

fn node_id(node: &Map<String, Value>) -> Option<&str> {
    node.get("nodeId").or_else(|| node.get("id")).and_then(Value::as_str)
}

/// Equal as JSON values (map equality ignores member order); an absent member equals an
/// empty object, since hosts fill in missing `config` and `inputs` with `{}`.
fn same(a: Option<&Value>, b: Option<&Value>) -> bool {
    let empty = |v: Option<&Value>| v.is_none_or(|v| v.as_object().is_some_and(Map::is_empty));
    a == b || (empty(a) && empty(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use sha2::{Digest, Sha256};

    fn triage() -> Chain {
        let raw: Value =
            serde_json::from_str(include_str!("../../tests/fixtures/app/ticket-triage.json")).expect("fixture");
        Chain::new(0, raw["chains"][0].clone())
    }

    /// A workflow as the app writes it for `{queue: billing, maxTickets: 40, provider:
    /// anthropic}` (expansionId fd9b00f727d5, interop §5), written out by hand: `filter` and
    /// `labels` are missing, so their whole-value members are gone.
    fn app_workflow() -> Value {
        json!({
            "workflowId": "wf.ticket-triage.1a2b3c4d", "name": "Ticket triage",
            "nodes": [
                {"nodeId": "vendor_example_ticket-triage_fd9b00f727d5_fetch", "typeId": "core.http.request",
                 "config": {"url": "https://tickets.example/billing?limit=40"}, "inputs": {}},
                {"nodeId": "vendor_example_ticket-triage_fd9b00f727d5_classify", "typeId": "core.ai.callPrompt",
                 "config": {"provider": "anthropic", "note": "for billing"},
                 "inputs": {"tickets": {"type": "connection", "nodeId": "fetch"}}, "outputRole": "primary"}
            ],
            "edges": [{"edgeId": "e1", "sourceNodeId": "vendor_example_ticket-triage_fd9b00f727d5_fetch",
                       "targetNodeId": "vendor_example_ticket-triage_fd9b00f727d5_classify"}],
            "metadata": {"source": "workflow-chain-pack", "name": "Ticket triage", "chainId": "vendor.example.ticket-triage",
                         "chainVersion": "1.2.0", "expansionId": "fd9b00f727d5", "expansionMode": "expansion-time",
                         "expandedFrom": {"chainId": "vendor.example.ticket-triage", "version": "1.2.0",
                                          "params": {"queue": "billing", "maxTickets": 40, "provider": "anthropic"}}}
        })
    }

    #[test]
    fn recognises_only_app_chain_workflows() {
        let inst = AppInstance::recognise(&app_workflow()).unwrap();
        assert_eq!(
            (inst.chain_id.as_str(), inst.chain_version.as_str(), inst.expansion_id.as_str()),
            ("vendor.example.ticket-triage", "1.2.0", "fd9b00f727d5")
        );
        assert_eq!(inst.prefix(), "vendor_example_ticket-triage_fd9b00f727d5_");
        let mut other = app_workflow();
        other["metadata"]["source"] = json!("builder");
        assert!(AppInstance::recognise(&other).is_none());
    }

    #[test]
    fn an_untouched_app_workflow_has_no_hand_edits_and_edits_are_listed() {
        let inst = AppInstance::recognise(&app_workflow()).unwrap();
        assert_eq!(inst.hand_edits(&app_workflow(), &triage()).unwrap(), []);
        let mut edited = app_workflow();
        edited["nodes"][1]["config"]["note"] = json!("by hand");
        edited["nodes"].as_array_mut().unwrap().remove(0);
        assert_eq!(
            inst.hand_edits(&edited, &triage()).unwrap(),
            [
                HandEdit::Removed { node_id: "vendor_example_ticket-triage_fd9b00f727d5_fetch".into() },
                HandEdit::Changed {
                    node_id: "vendor_example_ticket-triage_fd9b00f727d5_classify".into(),
                    members: vec!["config"]
                },
            ]
        );
    }

    #[test]
    fn reparameterise_as_the_app_would() {
        let inst = AppInstance::recognise(&app_workflow()).unwrap();
        let values = json!({"queue": "sales", "labels": ["a", "b"]}).as_object().unwrap().clone();
        let out = inst.reparameterise(&app_workflow(), &triage(), values, &Resolutions::default()).unwrap();
        // The app's id of the merged values, from its formula written out by hand.
        let canonical = r#"{"labels":["a","b"],"maxTickets":40,"provider":"anthropic","queue":"sales"}"#;
        let digest = Sha256::digest(format!("vendor.example.ticket-triage@1.2.0:{canonical}").as_bytes());
        let id: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
        let p = format!("vendor_example_ticket-triage_{id}_");
        assert_eq!(out["metadata"]["expansionId"], json!(id));
        assert_eq!(out["nodes"][0]["nodeId"], json!(format!("{p}fetch")));
        assert_eq!(out["nodes"][0]["config"], json!({"url": "https://tickets.example/sales?limit=40"}));
        assert_eq!(
            out["nodes"][1]["config"],
            json!({"provider": "anthropic", "labels": ["a", "b"], "note": "for sales"})
        );
        assert_eq!(out["nodes"][1]["outputRole"], "primary", "members the chain does not set are kept");
        assert_eq!(out["edges"][0]["sourceNodeId"], json!(format!("{p}fetch")));
        assert_eq!(out["edges"][0]["targetNodeId"], json!(format!("{p}classify")));
        assert_eq!(
            out["metadata"]["expandedFrom"]["params"],
            json!({"queue": "sales", "maxTickets": 40, "provider": "anthropic", "labels": ["a", "b"]})
        );
        // Re-parameterised output is itself an untouched instance.
        let again = AppInstance::recognise(&out).unwrap();
        assert_eq!(again.hand_edits(&out, &triage()).unwrap(), []);
    }

    #[test]
    fn hand_edits_are_kept_and_a_collision_is_refused_until_settled() {
        use super::super::merge3::Choice;
        let inst = AppInstance::recognise(&app_workflow()).unwrap();
        let mut edited = app_workflow();
        edited["nodes"][1]["config"]["provider"] = json!("openai");
        let sales = json!({"queue": "sales"}).as_object().unwrap().clone();
        let out = inst.reparameterise(&edited, &triage(), sales, &Resolutions::default()).unwrap();
        assert_eq!(out["nodes"][1]["config"]["provider"], "openai", "the hand edit is kept");
        assert_eq!(out["nodes"][1]["config"]["note"], "for sales", "what the user did not touch follows the values");
        let both = json!({"provider": "mistral"}).as_object().unwrap().clone();
        let e = inst.reparameterise(&edited, &triage(), both.clone(), &Resolutions::default()).unwrap_err();
        assert_eq!(e.code, code::UPGRADE_CONFLICT);
        assert_eq!(e.details["conflicts"][0]["member"], "/config/provider");
        assert_eq!(
            (&e.details["conflicts"][0]["mine"], &e.details["conflicts"][0]["new"]),
            (&json!("openai"), &json!("mistral"))
        );
        let out = inst.reparameterise(&edited, &triage(), both, &Resolutions::prefer(Choice::New)).unwrap();
        assert_eq!(out["nodes"][1]["config"]["provider"], "mistral");
    }

    #[test]
    fn the_app_form_becomes_a_definition_and_stays_one_instance() {
        assert!(is_app_form(&app_workflow()));
        let def = definition_form(app_workflow());
        assert!(!is_app_form(&def));
        assert_eq!(def["id"], "wf.ticket-triage.1a2b3c4d");
        assert_eq!(def["nodes"][0]["id"], "vendor_example_ticket-triage_fd9b00f727d5_fetch");
        assert_eq!(def["edges"][0]["id"], "e1");
        assert_eq!(def["nodes"][1]["outputRole"], "primary");
        assert_eq!(def.as_object().unwrap().keys().next().map(String::as_str), Some("id"), "member order kept");
        let inst = AppInstance::recognise(&def).unwrap();
        assert_eq!(inst.hand_edits(&def, &triage()).unwrap(), []);
    }

    #[test]
    fn a_different_chain_version_is_refused() {
        let mut doc = app_workflow();
        doc["metadata"]["expandedFrom"]["version"] = json!("1.1.0");
        let inst = AppInstance::recognise(&doc).unwrap();
        assert_eq!(inst.hand_edits(&doc, &triage()).unwrap_err().code, code::CHAIN_NOT_FOUND);
    }
}

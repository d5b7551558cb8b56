//! Where each inlined chain came from, saved in the workflow itself under
//! `metadata.customProperties.chainsmith.instances`, so an instance can be re-parameterised
//! or removed after a save and load. (WorkflowNode is closed, so per-node markers cannot be
//! used; workflow metadata is open — chain-packs A2.)

use super::Workflow;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// One inlined chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Instance {
    pub pack_name: String,
    pub pack_version: String,
    pub chain_id: String,
    pub chain_version: String,
    pub expansion_id: String,
    pub label: String,
    #[serde(with = "params_codec")]
    pub params: Map<String, Value>,
    /// Expanded node ids, in fragment order.
    pub node_ids: Vec<String>,
    /// Edge ids this instance added: fragment edges and the wiring to the parent.
    pub edge_ids: Vec<String>,
    /// The chain's `producedVariables`, `producedBy` naming expanded node ids. A workflow
    /// does not say which node writes a variable, so extraction reads it from here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub produced_variables: Vec<Value>,
    /// With co-expanded sub-chains: which `subChains[]` ref each node's `config.workflowId`
    /// replaced (a minted id folds `.` into `_`, so the chainId cannot be read back from it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sub_chains: Vec<crate::expand::subchain::SubChainLink>,
    /// The expanded nodes' `capabilities` when every node has the same (the chain's), kept
    /// because a strict-schema export strips them from the nodes: they are what the tool
    /// projection knows the nodes do.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    /// Otherwise each node's own non-empty `capabilities`, by expanded node id.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub node_capabilities: Map<String, Value>,
    /// Kept at its version: no update is offered for it, and `upgrade --all` skips it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
}

/// What [`Instance::capabilities`] and [`Instance::node_capabilities`] keep for these
/// expanded nodes.
pub(crate) fn recorded_capabilities(nodes: &[Value]) -> (Vec<String>, Map<String, Value>) {
    let caps = |n: &Value| n.get("capabilities").filter(|c| c.as_array().is_some_and(|a| !a.is_empty())).cloned();
    let first = nodes.first().and_then(caps);
    if let Some(shared) = &first
        && nodes.iter().all(|n| n.get("capabilities") == Some(shared))
    {
        let list = shared.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
        return (list, Map::new());
    }
    let per_node = nodes.iter().filter_map(|n| Some((n.get("id")?.as_str()?.to_owned(), caps(n)?))).collect();
    (Vec::new(), per_node)
}

/// `params` as saved: an object, or, when an object would nest the workflow deeper than it
/// can be read, the same object as JSON text. Both forms are read.
mod params_codec {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::{Map, Value};

    /// Containers above `params` in a saved workflow: the document, `metadata`,
    /// `customProperties`, `chainsmith`, `instances` and the instance itself.
    const LEVELS_ABOVE: usize = 6;

    pub fn serialize<S: Serializer>(params: &Map<String, Value>, s: S) -> Result<S::Ok, S::Error> {
        let depth = 1 + params.values().map(crate::fsio::nesting).max().unwrap_or(0);
        if LEVELS_ABOVE + depth > crate::fsio::MAX_JSON_NESTING {
            s.serialize_str(&serde_json::to_string(params).map_err(serde::ser::Error::custom)?)
        } else {
            params.serialize(s)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Map<String, Value>, D::Error> {
        match Value::deserialize(d)? {
            Value::Object(m) => Ok(m),
            Value::String(text) => serde_json::from_str(&text).map_err(serde::de::Error::custom),
            other => Err(serde::de::Error::custom(format!("params is {}", crate::pack::json_kind(&other)))),
        }
    }
}

impl Instance {
    /// The expanded-id prefix; unique within a workflow, because a splice refuses a second
    /// instance with the same prefix.
    pub fn key(&self) -> String {
        format!("{}_{}_", crate::expand::chain_id_slug(&self.chain_id), self.expansion_id)
    }
}

impl Workflow {
    /// The recorded chain instances (entries that do not parse are skipped, but kept in
    /// the file untouched until an instance is added or removed).
    pub fn instances(&self) -> Vec<Instance> {
        self.member("metadata")
            .and_then(|m| m.pointer("/customProperties/chainsmith/instances"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|v| serde_json::from_value(v.clone()).ok()).collect())
            .unwrap_or_default()
    }

    pub fn instance(&self, key: &str) -> Option<Instance> {
        self.instances().into_iter().find(|i| i.key() == key)
    }

    /// The instance a node belongs to, if any.
    pub fn instance_of_node(&self, node_id: &str) -> Option<Instance> {
        self.instances().into_iter().find(|i| i.node_ids.iter().any(|n| n == node_id))
    }

    pub(crate) fn record_instance(&mut self, instance: Instance) {
        let list = self.instances_array();
        let key = instance.key();
        list.retain(|v| serde_json::from_value::<Instance>(v.clone()).map(|i| i.key() != key).unwrap_or(true));
        list.push(serde_json::to_value(instance).expect("an Instance always serialises"));
    }

    /// Pin instance `key` to its chain version, or unpin it; `None` when there is no such
    /// instance.
    pub fn pin_instance(&mut self, key: &str, pinned: bool) -> Option<()> {
        let mut instance = self.instance(key)?;
        instance.pinned = pinned;
        let list = self.instances_array();
        let at =
            list.iter().position(|v| serde_json::from_value::<Instance>(v.clone()).is_ok_and(|i| i.key() == key))?;
        list[at] = serde_json::to_value(instance).expect("an Instance always serialises");
        Some(())
    }

    /// Drop removed edges from the instances that added them, so no record lists an edge the
    /// workflow no longer has.
    pub(crate) fn forget_edges<'a>(&mut self, removed: impl IntoIterator<Item = &'a str>) {
        let removed: std::collections::HashSet<&str> = removed.into_iter().collect();
        if removed.is_empty() {
            return;
        }
        for entry in self.instances_array() {
            let Ok(mut instance) = serde_json::from_value::<Instance>(entry.clone()) else { continue };
            let before = instance.edge_ids.len();
            instance.edge_ids.retain(|id| !removed.contains(id.as_str()));
            if instance.edge_ids.len() != before {
                *entry = serde_json::to_value(instance).expect("an Instance always serialises");
            }
        }
    }

    /// Forget an instance's provenance (its nodes are removed separately).
    pub fn forget_instance(&mut self, key: &str) -> Option<Instance> {
        let found = self.instance(key)?;
        self.instances_array()
            .retain(|v| serde_json::from_value::<Instance>(v.clone()).map(|i| i.key() != key).unwrap_or(true));
        Some(found)
    }

    /// Remove an instance: its nodes, every edge touching them, its own edges, its record.
    pub fn remove_instance(&mut self, key: &str) -> Option<Instance> {
        let instance = self.forget_instance(key)?;
        let nodes: Vec<_> = instance.node_ids.iter().filter_map(|id| self.node(id)).collect();
        self.remove_all(&nodes, &[]);
        let own: std::collections::HashSet<&str> = instance.edge_ids.iter().map(String::as_str).collect();
        self.retain_dangling(|e| !own.contains(e.id()));
        Some(instance)
    }

    fn instances_array(&mut self) -> &mut Vec<Value> {
        let metadata = self.member_mut("metadata");
        if !metadata.is_object() {
            *metadata = json!({});
        }
        let custom = metadata.as_object_mut().expect("object").entry("customProperties").or_insert_with(|| json!({}));
        if !custom.is_object() {
            *custom = json!({});
        }
        let ours = custom.as_object_mut().expect("object").entry("chainsmith").or_insert_with(|| json!({}));
        if !ours.is_object() {
            *ours = json!({});
        }
        let list = ours.as_object_mut().expect("object").entry("instances").or_insert_with(|| json!([]));
        if !list.is_array() {
            *list = json!([]);
        }
        list.as_array_mut().expect("array")
    }
}

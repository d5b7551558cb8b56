//! Re-parameterising a workflow the OpenWOP app expanded from one chain (interop §5), as the
//! editor offers it: the workflow's app instance is found with the loaded pack that holds its
//! chain at the recorded version, the nodes edited by hand since the expansion are listed,
//! and new values typed as text (as the CLI's `--set` reads them) are merged over the
//! recorded ones; the re-expansion keeps those edits. The re-expansion itself is [`crate::workflow::app_instance`]'s; applying
//! it is the document's `ReparameteriseApp` command, so it undoes like any edit.

use super::document::Command;
use super::packs::{PackId, Packs};
use crate::error::{Error, Result, code};
use crate::pack::Chain;
use crate::params::Form;
use crate::workflow::Workflow;
use crate::workflow::app_instance::{AppInstance, HandEdit};
use serde_json::{Map, Value, json};

/// The app instance a workflow records in its metadata, if the app wrote it.
pub fn app_instance(wf: &Workflow) -> Option<AppInstance> {
    let metadata = wf.member("metadata")?;
    AppInstance::recognise(&json!({ "metadata": metadata }))
}

/// The node ids of `wf` that belong to its app instance (they carry its prefix), in order.
pub fn instance_nodes(wf: &Workflow, inst: &AppInstance) -> Vec<String> {
    let prefix = inst.prefix();
    wf.nodes_in_order()
        .into_iter()
        .map(|ix| wf.graph[ix].id())
        .filter(|id| id.starts_with(&prefix))
        .map(str::to_owned)
        .collect()
}

/// A re-parameterisation being prepared.
#[derive(Debug, Clone)]
pub struct AppReparam {
    pub instance: AppInstance,
    /// The loaded pack whose chain the workflow was expanded from.
    pub pack: PackId,
    pub chain: Chain,
    /// What differs from a fresh expansion of the recorded values.
    pub hand_edits: Vec<HandEdit>,
    /// One text per declared parameter, in declaration order: the recorded value as JSON
    /// (strings bare), edited by the user.
    pub texts: Vec<(String, String)>,
    /// Hand edits the new values also change, found by the last attempt (nothing applied),
    /// and how the user settles each.
    pub conflicts: Vec<crate::instance::Conflict>,
    pub resolutions: crate::instance::Resolutions,
}

impl AppReparam {
    /// Prepare to re-parameterise `wf`. Refused when the app did not write it, or when no
    /// loaded pack holds its chain at the recorded version (`chain_not_found`, naming both).
    pub fn open(wf: &Workflow, packs: &Packs) -> Result<Self> {
        let instance = app_instance(wf).ok_or_else(|| {
            Error::new(
                code::INVALID_REQUEST,
                "this workflow was not expanded by the OpenWOP app (its metadata.source is not \"workflow-chain-pack\")",
            )
            .with("path", "/metadata/source")
        })?;
        let found = packs.with_ids().find_map(|(i, p)| {
            p.chain(&instance.chain_id).filter(|c| c.version() == instance.chain_version).map(|c| (i, c.clone()))
        });
        let Some((pack, chain)) = found else {
            return Err(Error::new(
                code::CHAIN_NOT_FOUND,
                format!(
                    "chain {}@{} is not loaded; open the pack that holds it to re-parameterise this workflow",
                    instance.chain_id, instance.chain_version
                ),
            )
            .with("chainId", instance.chain_id.as_str())
            .with("version", instance.chain_version.as_str()));
        };
        let doc = wf.to_json(crate::workflow::ExportMode::Faithful);
        let hand_edits = instance.hand_edits(&doc, &chain)?;
        let texts = Form::from_schema(chain.parameters())
            .fields
            .iter()
            .map(|f| {
                let text = match instance.params.get(&f.name) {
                    None => String::new(),
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                };
                (f.name.clone(), text)
            })
            .collect();
        Ok(Self { instance, pack, chain, hand_edits, texts, conflicts: Vec::new(), resolutions: Default::default() })
    }

    /// The values typed, read as the CLI's `--set` reads them; an empty text leaves the
    /// parameter out (the recorded value, else the default, applies).
    pub fn values(&self) -> Result<Map<String, Value>> {
        let form = Form::from_schema(self.chain.parameters());
        let mut out = Map::new();
        for (name, text) in &self.texts {
            if text.is_empty() {
                continue;
            }
            let Some(field) = form.field(name) else { continue };
            let value = field.parse_text(text).map_err(|msg| {
                Error::new(code::CHAIN_PARAMETER_INVALID, format!("{name}: {msg}")).with("path", format!("/{name}"))
            })?;
            out.insert(name.clone(), value);
        }
        Ok(out)
    }

    /// The hand edits in words, one line per node.
    pub fn describe_edits(&self) -> Vec<String> {
        self.hand_edits
            .iter()
            .map(|e| match e {
                HandEdit::Changed { node_id, members } => format!("{node_id}: {} edited by hand", members.join(", ")),
                HandEdit::Removed { node_id } => format!("{node_id}: removed by hand"),
            })
            .collect()
    }
}

/// The re-parameterisation window's state: what is open, why its values were refused, and
/// the one just submitted until the document says how it went.
#[derive(Default)]
pub struct ReparamSession {
    pub open: Option<AppReparam>,
    /// Why the values typed cannot be used.
    pub refusal: Option<Error>,
    /// The re-parameterisation just submitted: a conflict brings it back with the
    /// conflicts to settle.
    submitted: Option<AppReparam>,
}

impl ReparamSession {
    pub fn start(&mut self, r: AppReparam) {
        self.open = Some(r);
        self.refusal = None;
    }

    /// "Re-parameterise" was clicked: the command that applies the values typed, and the
    /// window closes; or, when a value does not read, nothing and the refusal shows.
    pub fn submit(&mut self) -> Option<Command> {
        let r = self.open.as_ref()?;
        match r.values() {
            Ok(values) => {
                let chain = Box::new(r.chain.clone());
                let command = Command::ReparameteriseApp { chain, values, resolutions: r.resolutions.clone() };
                self.submitted = self.open.take();
                self.refusal = None;
                Some(command)
            }
            Err(e) => {
                self.refusal = Some(e);
                None
            }
        }
    }

    /// Closed without submitting.
    pub fn cancel(&mut self) {
        (self.open, self.refusal, self.submitted) = (None, None, None);
    }

    /// What the document said to the submitted re-parameterisation: refused with conflicts,
    /// the window opens again listing them; otherwise it is done.
    pub fn answered(&mut self, e: Option<&Error>) {
        let Some(mut r) = self.submitted.take() else { return };
        if let Some(e) = e.filter(|e| e.code == code::UPGRADE_CONFLICT) {
            r.conflicts = crate::instance::Conflict::listed_in(e);
            self.open = Some(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workflow::app_instance::definition_form;

    fn triage_pack() -> crate::pack::Pack {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/app/ticket-triage.json");
        crate::pack::load_path(&path, crate::pack::LoadOptions::default()).packs.remove(0)
    }

    fn app_workflow() -> Workflow {
        let doc = json!({
            "workflowId": "wf.ticket-triage.1a2b3c4d", "name": "Ticket triage",
            "nodes": [
                {"nodeId": "vendor_example_ticket-triage_fd9b00f727d5_fetch", "typeId": "core.http.request",
                 "config": {"url": "https://tickets.example/billing?limit=40"}, "inputs": {}},
                {"nodeId": "vendor_example_ticket-triage_fd9b00f727d5_classify", "typeId": "core.ai.callPrompt",
                 "config": {"provider": "anthropic", "note": "edited"},
                 "inputs": {"tickets": {"type": "connection", "nodeId": "fetch"}}, "outputRole": "primary"},
                {"nodeId": "mine", "typeId": "core.noop"}
            ],
            "edges": [{"edgeId": "e1", "sourceNodeId": "vendor_example_ticket-triage_fd9b00f727d5_fetch",
                       "targetNodeId": "vendor_example_ticket-triage_fd9b00f727d5_classify"}],
            "metadata": {"source": "workflow-chain-pack", "chainId": "vendor.example.ticket-triage",
                         "chainVersion": "1.2.0", "expansionId": "fd9b00f727d5",
                         "expandedFrom": {"chainId": "vendor.example.ticket-triage", "version": "1.2.0",
                                          "params": {"queue": "billing", "maxTickets": 40, "provider": "anthropic"}}}
        });
        Workflow::from_json(definition_form(doc)).unwrap()
    }

    #[test]
    fn lists_hand_edits_and_reads_typed_values() {
        let wf = app_workflow();
        let inst = app_instance(&wf).unwrap();
        assert_eq!(
            instance_nodes(&wf, &inst),
            ["vendor_example_ticket-triage_fd9b00f727d5_fetch", "vendor_example_ticket-triage_fd9b00f727d5_classify"]
        );
        let mut r = AppReparam::open(&wf, &Packs::new(vec![triage_pack()])).unwrap();
        assert_eq!(r.describe_edits(), ["vendor_example_ticket-triage_fd9b00f727d5_classify: config edited by hand"]);
        let texts: Vec<(&str, &str)> = r.texts.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        assert_eq!(
            texts,
            [("queue", "billing"), ("maxTickets", "40"), ("provider", "anthropic"), ("filter", ""), ("labels", "")]
        );
        r.texts[1].1 = "7".into();
        r.texts[4].1 = r#"["a"]"#.into();
        let values = r.values().unwrap();
        assert_eq!(
            Value::Object(values),
            json!({"queue": "billing", "maxTickets": 7, "provider": "anthropic", "labels": ["a"]})
        );
        r.texts[1].1 = "many".into();
        let e = r.values().unwrap_err();
        assert_eq!((e.code, e.details["path"].as_str()), (code::CHAIN_PARAMETER_INVALID, Some("/maxTickets")));
    }

    #[test]
    fn a_submit_applies_or_keeps_the_refusal_and_a_conflict_reopens_it() {
        let wf = app_workflow();
        let packs = Packs::new(vec![triage_pack()]);
        let mut s = ReparamSession::default();
        s.start(AppReparam::open(&wf, &packs).unwrap());
        s.open.as_mut().unwrap().texts[1].1 = "many".into();
        assert!(s.submit().is_none());
        assert_eq!(s.refusal.as_ref().map(|e| e.code), Some(code::CHAIN_PARAMETER_INVALID));
        assert!(s.open.is_some(), "a refused value keeps the window open");
        s.open.as_mut().unwrap().texts[1].1 = "7".into();
        let Some(Command::ReparameteriseApp { values, .. }) = s.submit() else { panic!("a command") };
        assert_eq!(values["maxTickets"], json!(7));
        assert!(s.open.is_none() && s.refusal.is_none());
        // The document refuses with a conflict: the window comes back listing it.
        let conflict = Error::new(code::UPGRADE_CONFLICT, "conflict").with("conflicts", json!([]));
        s.answered(Some(&conflict));
        assert!(s.open.is_some());
        // Done otherwise: an answer after a cancel opens nothing.
        s.cancel();
        s.answered(Some(&conflict));
        assert!(s.open.is_none());
    }

    #[test]
    fn refused_without_the_chain_or_the_app_marker() {
        let e = AppReparam::open(&app_workflow(), &Packs::default()).unwrap_err();
        assert_eq!((e.code, e.details["version"].as_str()), (code::CHAIN_NOT_FOUND, Some("1.2.0")));
        let plain = Workflow::new("Plain");
        assert!(app_instance(&plain).is_none());
        assert_eq!(AppReparam::open(&plain, &Packs::new(vec![triage_pack()])).unwrap_err().code, code::INVALID_REQUEST);
    }
}

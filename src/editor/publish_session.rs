//! The "Publish as tool" window's model, without the window: the subject (a chain, or the
//! workflow being edited), its projections into the CompactToolDescriptor and the MiRuntime
//! tool contract, the author's toolId and safetyTier, and saving or copying a document.
//! Projections are made again only when an input changes (the workflow's revision, the
//! loaded packs, the toolId text or the tier), never per frame; only publishable documents
//! are copied or saved, as the CLI prints only documents that validate.

use super::packs::Packs;
use super::publish::{Computed, Side, Subject, document_name, resolve, suggested_name, target};
use crate::catalog::Catalog;
use crate::fsio::write_atomic;
use crate::tool::{EffectOracle, SafetyTier, ToolFormat, ToolOptions};
use crate::workflow::{ExportMode, Workflow};
use serde_json::Value;
use std::path::Path;

/// What the projections are made from, as of this frame.
pub struct Sources<'a> {
    pub packs: &'a Packs,
    pub workflow: &'a Workflow,
    /// The workflow's revision: a workflow subject is projected again when it changes.
    pub revision: u64,
    pub catalog: Option<&'a Catalog>,
    /// Changes whenever packs are (re)loaded, which may change a chain or what its types do.
    pub catalog_gen: u64,
}

pub struct PublishSession {
    pub subject: Subject,
    /// The chain's pack name, so the chain is found again when re-opening packs shifts indices.
    pack_name: Option<String>,
    /// The toolId as shown in the field: the derived one until the author types another.
    pub tool_id: String,
    /// The author's tier; `None` keeps the derived one.
    pub tier: Option<SafetyTier>,
    /// The (revision, catalog generation) the projections were made at.
    key: Option<(u64, u64)>,
    /// The workflow definition as exported at `key`, so a toolId keystroke does not export again.
    workflow_json: Option<Value>,
    /// The projections, or why the subject cannot be projected (its pack was closed).
    pub computed: Result<Computed, String>,
    /// The outcome of the last copy or save, until an input changes.
    pub status: Option<Result<String, String>>,
}

impl PublishSession {
    pub fn new(subject: Subject) -> Self {
        Self {
            subject,
            pack_name: None,
            tool_id: String::new(),
            tier: None,
            key: None,
            workflow_json: None,
            computed: Err(String::new()),
            status: None,
        }
    }

    /// Show `subject` in `slot`, keeping the author's choices when it is already shown.
    pub fn open(slot: &mut Option<PublishSession>, subject: Subject) {
        if slot.as_ref().is_none_or(|p| p.subject != subject) {
            *slot = Some(PublishSession::new(subject));
        }
    }

    /// Bring the projections up to date with `src` and the author's choices; `true` when
    /// anything was projected again.
    pub fn refresh(&mut self, src: &Sources) -> bool {
        // A chain does not depend on the workflow being edited.
        let revision = if self.subject == Subject::Workflow { src.revision } else { 0 };
        let key = (revision, src.catalog_gen);
        let effects = src.catalog.map(|c| c as &dyn EffectOracle);
        let rebuilt = self.key != Some(key);
        if rebuilt {
            self.key = Some(key);
            let previous = self.computed.as_ref().ok().map(|c| c.derived_tool_id.clone());
            self.computed = self.rebuild(src, effects);
            if let Ok(c) = &self.computed
                && previous.is_none_or(|p| p == self.tool_id)
            {
                // The field follows the derived id until the author types their own.
                self.tool_id = c.derived_tool_id.clone();
            }
        }
        let Ok(computed) = &mut self.computed else { return rebuilt };
        let tool_id = (self.tool_id != computed.derived_tool_id).then(|| self.tool_id.clone());
        let options = (tool_id, self.tier);
        if computed.compact_options == options {
            return rebuilt;
        }
        let Some(target) = target(&self.subject, src.packs, self.workflow_json.as_ref()) else { return rebuilt };
        let opts = ToolOptions { tool_id: options.0.as_deref(), safety_tier: options.1, effects, host_tiers: None };
        computed.compact = Side::new(target.project(ToolFormat::Compact, &opts));
        computed.compact_options = options;
        true
    }

    /// Project the subject without overrides; the derived toolId and tier come from that.
    fn rebuild(&mut self, src: &Sources, effects: Option<&dyn EffectOracle>) -> Result<Computed, String> {
        resolve(&mut self.subject, &mut self.pack_name, src.packs);
        self.workflow_json = (self.subject == Subject::Workflow).then(|| src.workflow.to_json(ExportMode::Faithful));
        Computed::of(&self.subject, src.packs, src.workflow, self.workflow_json.as_ref(), effects)
    }

    /// Pick a tier; picking the derived one removes the override.
    pub fn choose_tier(&mut self, tier: SafetyTier) {
        let derived = self.computed.as_ref().ok().and_then(|c| c.derived_tier);
        self.tier = (Some(tier) != derived).then_some(tier);
    }

    /// Drop both overrides.
    pub fn reset(&mut self) {
        if let Ok(c) = &self.computed {
            self.tool_id = c.derived_tool_id.clone();
        }
        self.tier = None;
    }

    /// Whether the document in `format` may be saved; when not, the window says why.
    pub fn publishable(&mut self, format: ToolFormat) -> bool {
        let Ok(c) = &self.computed else { return false };
        let valid = c.side(format).projection.is_valid();
        if !valid {
            self.status = Some(Err(not_publishable(format)));
        }
        valid
    }

    /// The file name to offer when saving the document in `format`.
    pub fn suggested_name(&self, format: ToolFormat) -> Option<String> {
        let c = self.computed.as_ref().ok()?;
        Some(suggested_name(format, &c.side(format).projection.value))
    }

    /// Write the document in `format` as shown now, atomically; the answer to the save
    /// question. The author may have edited while the in-app dialog was open, so only a
    /// document that is publishable now is written.
    pub fn save_to(&mut self, format: ToolFormat, path: &Path) {
        if !self.publishable(format) {
            return;
        }
        let Ok(c) = &self.computed else { return };
        let name = document_name(format);
        self.status = Some(match write_atomic(path, c.side(format).text.as_bytes()) {
            Ok(()) => Ok(format!("Saved the {name} to {}", path.display())),
            Err(e) => Err(format!("Not saved: {} ({})", e.message, e.code)),
        });
    }

    /// The document in `format` to copy to the clipboard when it is publishable; the window
    /// says which way it went.
    pub fn copy_text(&mut self, format: ToolFormat) -> Option<String> {
        let Ok(c) = &self.computed else { return None };
        let side = c.side(format);
        let valid = side.projection.is_valid();
        self.status = Some(if valid {
            Ok(format!("Copied the {} to the clipboard", document_name(format)))
        } else {
            Err(not_publishable(format))
        });
        valid.then(|| side.text.clone())
    }
}

/// Why a document was not copied or saved, and what makes it publishable.
fn not_publishable(format: ToolFormat) -> String {
    format!(
        "The {} is not publishable yet: fix the errors listed under Findings, then try again",
        document_name(format)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editor::publish::rows;
    use crate::error::code;
    use crate::pack::{Pack, bundled};

    struct Fixture {
        packs: Packs,
        catalog: Catalog,
        workflow: Workflow,
        revision: u64,
        catalog_gen: u64,
    }

    impl Fixture {
        fn new() -> Self {
            let packs = bundled().packs;
            let mut catalog = Catalog::new();
            for p in &packs {
                catalog.add_pack(p);
            }
            Self {
                packs: Packs::new(packs),
                catalog,
                workflow: Workflow::new("Alpha flow"),
                revision: 1,
                catalog_gen: 1,
            }
        }

        fn sources(&self) -> Sources<'_> {
            Sources {
                packs: &self.packs,
                workflow: &self.workflow,
                revision: self.revision,
                catalog: Some(&self.catalog),
                catalog_gen: self.catalog_gen,
            }
        }

        fn triage(&self) -> Subject {
            let pack = self.packs.with_ids().find(|(_, p)| p.chain("support.triage").is_some()).unwrap().0;
            Subject::Chain { pack, chain_id: "support.triage".into() }
        }
    }

    fn computed(p: &PublishSession) -> &Computed {
        p.computed.as_ref().unwrap()
    }

    fn compact(p: &PublishSession) -> &Value {
        &computed(p).compact.projection.value
    }

    #[test]
    fn projections_are_recomputed_only_when_an_input_changes() {
        let mut fx = Fixture::new();
        let mut p = PublishSession::new(fx.triage());
        assert!(p.refresh(&fx.sources()), "the first frame projects");
        assert!(!p.refresh(&fx.sources()), "an unchanged frame does not");
        fx.revision += 1;
        assert!(!p.refresh(&fx.sources()), "a chain does not depend on the workflow being edited");
        fx.catalog_gen += 1;
        assert!(p.refresh(&fx.sources()), "re-loaded packs do");
        p.tool_id.push('x');
        assert!(p.refresh(&fx.sources()), "a toolId keystroke does");
        assert!(!p.refresh(&fx.sources()));
        p.choose_tier(SafetyTier::Read);
        assert!(p.refresh(&fx.sources()), "a tier choice does");
        assert!(!p.refresh(&fx.sources()));

        let mut w = PublishSession::new(Subject::Workflow);
        assert!(w.refresh(&fx.sources()));
        assert!(!w.refresh(&fx.sources()));
        fx.revision += 1;
        assert!(w.refresh(&fx.sources()), "a workflow subject follows its revisions");
    }

    #[test]
    fn the_tool_id_follows_the_derived_one_until_the_author_types_another() {
        let mut fx = Fixture::new();
        let mut p = PublishSession::new(fx.triage());
        p.refresh(&fx.sources());
        let derived = "vendor.chainsmith.support-desk:support.triage";
        assert_eq!(p.tool_id, derived);
        assert!(computed(&p).compact.projection.is_valid());

        p.tool_id = "no scope".into();
        p.refresh(&fx.sources());
        let side = &computed(&p).compact;
        assert!(!side.projection.is_valid(), "an invalid override makes the compact side unpublishable");
        assert!(side.projection.findings.iter().any(|f| f.code == code::TOOL_ID_INVALID));
        assert_eq!(compact(&p)["toolId"], "no scope");
        assert!(computed(&p).miruntime.projection.is_valid(), "the MiRuntime contract has no toolId");

        p.tool_id = "acme:triage".into();
        p.refresh(&fx.sources());
        assert!(computed(&p).compact.projection.is_valid());
        assert_eq!(compact(&p)["toolId"], "acme:triage");
        assert_eq!(computed(&p).compact_options.0.as_deref(), Some("acme:triage"));
        p.reset();
        p.refresh(&fx.sources());
        assert_eq!(p.tool_id, derived);
        assert_eq!(computed(&p).compact_options, (None, None), "typing the derived id is no override");

        // A workflow's derived id changes with the workflow; an untouched field follows it.
        let mut w = PublishSession::new(Subject::Workflow);
        w.refresh(&fx.sources());
        let first = w.tool_id.clone();
        assert!(first.starts_with("workflow:"), "{first}");
        fx.workflow = Workflow::new("Beta flow");
        fx.revision += 1;
        w.refresh(&fx.sources());
        assert_ne!(w.tool_id, first);
        assert_eq!(w.tool_id, computed(&w).derived_tool_id);
        w.tool_id = "vendor.me:mine".into();
        fx.workflow = Workflow::new("Gamma flow");
        fx.revision += 1;
        w.refresh(&fx.sources());
        assert_eq!(w.tool_id, "vendor.me:mine", "the author's id is kept");
        assert_eq!(compact(&w)["toolId"], "vendor.me:mine");
    }

    #[test]
    fn tier_overrides_apply_to_the_compact_side_and_the_derived_tier_is_no_override() {
        let fx = Fixture::new();
        let mut p = PublishSession::new(fx.triage());
        p.refresh(&fx.sources());
        assert_eq!(computed(&p).derived_tier, Some(SafetyTier::Write));
        p.choose_tier(SafetyTier::Read);
        p.refresh(&fx.sources());
        assert_eq!(compact(&p)["safetyTier"], "read");
        let noted = computed(&p).compact.projection.findings.iter().any(|f| f.code == code::TOOL_FIELD_ADJUSTED);
        assert!(noted, "lowering the tier is noted");
        p.choose_tier(SafetyTier::Write);
        assert_eq!(p.tier, None, "choosing the derived tier removes the override");
        p.refresh(&fx.sources());
        assert_eq!(compact(&p)["safetyTier"], "write");
    }

    #[test]
    fn only_publishable_documents_are_saved_and_exactly_as_shown() {
        let dir = tempfile::tempdir().unwrap();
        let fx = Fixture::new();
        let mut p = PublishSession::new(fx.triage());
        p.refresh(&fx.sources());
        assert!(p.publishable(ToolFormat::MiRuntime), "a valid document is asked where to go");
        assert!(p.status.is_none(), "asking reports nothing yet");
        let path = dir.path().join("triage.json");
        p.save_to(ToolFormat::MiRuntime, &path);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), computed(&p).miruntime.text);
        assert!(matches!(&p.status, Some(Ok(_))), "{:?}", p.status);

        // An invalid document is not asked for, and says why.
        p.tool_id = "bad".into();
        p.refresh(&fx.sources());
        p.status = None;
        assert!(!p.publishable(ToolFormat::Compact));
        assert!(matches!(&p.status, Some(Err(_))));
        // Made invalid while the dialog was open: the answer writes nothing.
        let late = dir.path().join("late.json");
        p.save_to(ToolFormat::Compact, &late);
        assert!(!late.exists(), "an unpublishable document is never written");
        assert!(matches!(&p.status, Some(Err(_))));

        // An unwritable target is reported, not panicked on.
        p.reset();
        p.refresh(&fx.sources());
        p.save_to(ToolFormat::Compact, &dir.path().join("missing/dir/x.json"));
        assert!(matches!(&p.status, Some(Err(_))), "{:?}", p.status);

        // The compact side is written with the author's choices, as shown.
        p.tool_id = "acme:triage".into();
        p.refresh(&fx.sources());
        let compact = dir.path().join("compact.json");
        p.save_to(ToolFormat::Compact, &compact);
        assert_eq!(std::fs::read_to_string(&compact).unwrap(), computed(&p).compact.text);
        assert!(computed(&p).compact.text.contains("acme:triage"));
        assert_eq!(p.suggested_name(ToolFormat::Compact).as_deref(), Some("acme-triage.compact-tool.json"));
    }

    #[test]
    fn a_chain_whose_pack_moved_is_found_again_and_a_closed_one_is_reported() {
        let mut fx = Fixture::new();
        let subject = fx.triage();
        let mut p = PublishSession::new(subject.clone());
        p.refresh(&fx.sources());
        // Re-opening a pack moves it to the end of the list; its id stays.
        let Subject::Chain { pack, .. } = subject.clone() else { unreachable!() };
        let at = fx.packs.index_of(pack).unwrap();
        let reopened = fx.packs[at].clone();
        fx.packs.add(reopened);
        assert_eq!(fx.packs.index_of(pack), Some(fx.packs.len() - 1));
        fx.catalog_gen += 1;
        p.refresh(&fx.sources());
        assert_eq!(p.subject, subject);
        assert!(p.computed.is_ok());

        let others: Vec<Pack> = fx.packs.iter().filter(|p| p.chain("support.triage").is_none()).cloned().collect();
        fx.packs = Packs::new(others);
        fx.catalog_gen += 1;
        p.refresh(&fx.sources());
        assert!(p.computed.as_ref().is_err_and(|m| m.contains("support.triage")));
        assert!(!p.publishable(ToolFormat::Compact), "nothing to save: no question is asked");
        assert_eq!(p.suggested_name(ToolFormat::Compact), None);
        let dir = tempfile::tempdir().unwrap();
        p.save_to(ToolFormat::Compact, &dir.path().join("x.json"));
        assert!(!dir.path().join("x.json").exists());
    }

    #[test]
    fn suggested_names_are_file_safe() {
        let compact = serde_json::json!({"toolId": "vendor.acme:support/triage"});
        assert_eq!(suggested_name(ToolFormat::Compact, &compact), "vendor.acme-support-triage.compact-tool.json");
        assert_eq!(
            suggested_name(ToolFormat::MiRuntime, &serde_json::json!({"name": "a.b"})),
            "a.b.miruntime-tool.json"
        );
        assert_eq!(suggested_name(ToolFormat::MiRuntime, &serde_json::json!({})), "tool.miruntime-tool.json");
    }

    #[test]
    fn findings_merge_across_sides_and_list_errors_first() {
        let fx = Fixture::new();
        let mut p = PublishSession::new(fx.triage());
        p.refresh(&fx.sources());
        p.tool_id = "bad".into();
        p.refresh(&fx.sources());
        let rows = rows(computed(&p), false);
        assert!(rows[0].error && rows[0].code == code::TOOL_ID_INVALID, "errors first");
        let first_note = rows.iter().position(|r| !r.error).unwrap_or(rows.len());
        assert!(rows[first_note..].iter().all(|r| !r.error), "then notes");
        let mut seen = std::collections::HashSet::new();
        for r in &rows {
            assert!(seen.insert((r.code.clone(), r.pointer.clone(), r.message)), "no duplicate rows");
        }
    }
}

//! The model of the "Publish as tool" window: what is published (a chain or the workflow),
//! its two projections and their text, the findings list's rows, and a saved document's
//! name. No GUI: app/publish.rs draws these.

use super::packs::{PackId, Packs};
use crate::error::Finding;
use crate::fsio::to_pretty_json;
use crate::pack::{Chain, Pack};
use crate::tool::{EffectOracle, Projection, SafetyTier, ToolFormat, ToolOptions};
use crate::workflow::Workflow;
use serde_json::Value;

/// What is published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// A chain of a loaded pack (index into the app's packs).
    Chain { pack: PackId, chain_id: String },
    /// The workflow being edited.
    Workflow,
}

/// One projected document and its text, which is exactly what is shown, copied and saved.
pub struct Side {
    pub projection: Projection,
    pub text: String,
}

impl Side {
    pub fn new(projection: Projection) -> Self {
        let text = String::from_utf8_lossy(&to_pretty_json(&projection.value)).into_owned();
        Self { projection, text }
    }
}

/// The projections of the subject at one (revision, catalog) state.
pub struct Computed {
    /// Short name of the subject, for the window title.
    pub title: String,
    /// What the subject is, for the header line.
    pub about: String,
    pub derived_tool_id: String,
    pub derived_tier: Option<SafetyTier>,
    pub compact: Side,
    pub miruntime: Side,
    /// The (toolId, tier) overrides `compact` was projected with.
    pub compact_options: (Option<String>, Option<SafetyTier>),
}

impl Computed {
    pub fn side(&self, format: ToolFormat) -> &Side {
        match format {
            ToolFormat::Compact => &self.compact,
            ToolFormat::MiRuntime => &self.miruntime,
        }
    }
}

/// What a subject resolves to in this frame's sources.
pub enum Target<'a> {
    Chain(&'a Pack, &'a Chain),
    Workflow(&'a Value),
}

impl Target<'_> {
    pub fn project(&self, format: ToolFormat, opts: &ToolOptions) -> Projection {
        match self {
            Target::Chain(pack, chain) => format.project_chain(pack, chain, opts),
            Target::Workflow(workflow) => format.project_workflow(workflow, opts),
        }
    }
}

pub fn target<'a>(subject: &'a Subject, packs: &'a Packs, workflow_json: Option<&'a Value>) -> Option<Target<'a>> {
    match subject {
        Subject::Chain { pack, chain_id } => {
            let pack = packs.get(*pack)?;
            Some(Target::Chain(pack, pack.chain(chain_id)?))
        }
        Subject::Workflow => workflow_json.map(Target::Workflow),
    }
}

pub fn document_name(format: ToolFormat) -> &'static str {
    match format {
        ToolFormat::Compact => "CompactToolDescriptor",
        ToolFormat::MiRuntime => "MiRuntime tool contract",
    }
}

/// A file name from the document's own identifier (toolId or name), made file-safe.
pub fn suggested_name(format: ToolFormat, value: &Value) -> String {
    let (key, suffix) = match format {
        ToolFormat::Compact => ("toolId", "compact-tool"),
        ToolFormat::MiRuntime => ("name", "miruntime-tool"),
    };
    let id = value.get(key).and_then(Value::as_str).unwrap_or_default();
    let safe: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '-' }).collect();
    let stem = safe.trim_matches(['-', '.']);
    format!("{}.{suffix}.json", if stem.is_empty() { "tool" } else { stem })
}

/// "1 error, 2 schema violations": why a side is not publishable.
pub fn invalid_text(p: &Projection) -> String {
    let errors = p.findings.iter().filter(|f| f.is_error()).count();
    let violations = p.violations.len();
    let mut parts = Vec::new();
    if errors > 0 {
        parts.push(format!("{errors} error{}", plural(errors)));
    }
    if violations > 0 {
        parts.push(format!("{violations} schema violation{}", plural(violations)));
    }
    parts.join(", ")
}

pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// One line of the findings list.
pub struct Row<'a> {
    pub error: bool,
    pub code: String,
    /// Which documents it concerns: "compact", "MiRuntime" or "both".
    pub docs: &'static str,
    pub pointer: String,
    /// Where `pointer` points: the source (pack or workflow) or the projected output.
    pub pointer_hover: &'static str,
    pub message: &'a str,
}

/// Findings of both sides (one row when both report the same), then schema violations;
/// errors first.
pub fn rows(c: &Computed, workflow: bool) -> Vec<Row<'_>> {
    let source = if workflow { "JSON pointer into the workflow" } else { "JSON pointer into the pack manifest" };
    let mut rows: Vec<(Row, Option<&Finding>)> = Vec::new();
    for (format, docs) in [(ToolFormat::Compact, "compact"), (ToolFormat::MiRuntime, "MiRuntime")] {
        let p = &c.side(format).projection;
        for f in &p.findings {
            let same =
                |other: &Finding| other.code == f.code && other.pointer == f.pointer && other.message == f.message;
            match rows.iter_mut().find(|(_, seen)| seen.is_some_and(same)) {
                Some((row, _)) => row.docs = "both",
                None => rows.push((
                    Row {
                        error: f.is_error(),
                        code: f.code.to_owned(),
                        docs,
                        pointer: f.pointer.clone(),
                        pointer_hover: source,
                        message: &f.message,
                    },
                    Some(f),
                )),
            }
        }
        for v in &p.violations {
            let row = Row {
                error: true,
                code: format!("schema: {}", v.keyword),
                docs,
                pointer: v.pointer.clone(),
                pointer_hover: "JSON pointer into the projected document",
                message: &v.message,
            };
            rows.push((row, None));
        }
    }
    let mut rows: Vec<Row> = rows.into_iter().map(|(row, _)| row).collect();
    rows.sort_by_key(|r| !r.error);
    rows
}

impl Computed {
    /// The projections of `subject` ([`resolve`]d first), or why there is none.
    pub fn of(
        subject: &Subject,
        packs: &Packs,
        workflow: &Workflow,
        workflow_json: Option<&Value>,
        effects: Option<&dyn EffectOracle>,
    ) -> Result<Computed, String> {
        let Some(target) = target(subject, packs, workflow_json) else {
            let chain = match subject {
                Subject::Chain { chain_id, .. } => chain_id.as_str(),
                Subject::Workflow => "",
            };
            return Err(format!("The chain {chain} is no longer loaded: open its pack again to publish it."));
        };
        let (title, about) = match &target {
            Target::Chain(pack, chain) => (
                if chain.label().is_empty() { chain.chain_id().to_owned() } else { chain.label().to_owned() },
                format!("Chain {} from {} {}", chain.chain_id(), pack.name(), pack.version()),
            ),
            Target::Workflow(_) => {
                let (name, nodes) = (workflow.name(), workflow.node_count());
                (name.to_owned(), format!("The whole workflow “{name}” ({nodes} node{})", plural(nodes)))
            }
        };
        let plain = ToolOptions { effects, ..ToolOptions::default() };
        let compact = target.project(ToolFormat::Compact, &plain);
        let miruntime = target.project(ToolFormat::MiRuntime, &plain);
        let field = |name: &str| compact.value.get(name).and_then(Value::as_str).unwrap_or_default().to_owned();
        let derived_tool_id = field("toolId");
        let derived_tier = SafetyTier::parse(&field("safetyTier")).ok();
        Ok(Computed {
            title,
            about,
            derived_tool_id,
            derived_tier,
            compact: Side::new(compact),
            miruntime: Side::new(miruntime),
            compact_options: (None, None),
        })
    }
}

/// Point a chain subject at the pack that holds it now: the same pack while it is loaded
/// and still holds the chain, otherwise the pack of the same name.
pub fn resolve(subject: &mut Subject, pack_name: &mut Option<String>, packs: &Packs) {
    let Subject::Chain { pack, chain_id } = subject else { return };
    let name = pack_name.get_or_insert_with(|| packs.get(*pack).map(|p| p.name().to_owned()).unwrap_or_default());
    let fits = |p: &Pack| p.name() == name.as_str() && p.chain(chain_id).is_some();
    if !packs.get(*pack).is_some_and(&fits)
        && let Some((found, _)) = packs.with_ids().find(|(_, p)| fits(p))
    {
        *pack = found;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::bundled;
    use serde_json::json;

    #[test]
    fn a_saved_document_is_named_after_its_identifier_made_file_safe() {
        let compact = json!({"toolId": "support triage/v1"});
        assert_eq!(suggested_name(ToolFormat::Compact, &compact), "support-triage-v1.compact-tool.json");
        let miruntime = json!({"name": "..acme.tool.."});
        assert_eq!(suggested_name(ToolFormat::MiRuntime, &miruntime), "acme.tool.miruntime-tool.json");
        assert_eq!(suggested_name(ToolFormat::Compact, &json!({})), "tool.compact-tool.json");
    }

    #[test]
    fn a_chain_subject_follows_its_pack_by_name_and_projects_both_formats() {
        let packs = Packs::new(bundled().packs);
        let (at, pack) = packs.with_ids().find(|(_, p)| p.chain("support.triage").is_some()).unwrap();
        let workflow = Workflow::new("Alpha flow");
        // An index that no longer holds the chain: the pack of the same name is found again.
        let stale = packs.with_ids().find(|(id, _)| *id != at).unwrap().0;
        let mut subject = Subject::Chain { pack: stale, chain_id: "support.triage".into() };
        let mut name = Some(pack.name().to_owned());
        resolve(&mut subject, &mut name, &packs);
        assert_eq!(subject, Subject::Chain { pack: at, chain_id: "support.triage".into() });
        let c = Computed::of(&subject, &packs, &workflow, None, None).unwrap();
        assert!(c.about.starts_with("Chain support.triage from "), "{}", c.about);
        assert_eq!(c.compact.projection.value["toolId"].as_str(), Some(c.derived_tool_id.as_str()));
        assert!(!c.miruntime.text.is_empty());
        // Errors first in the findings list.
        let rows = rows(&c, false);
        assert!(rows.windows(2).all(|w| w[0].error || !w[1].error));
        // A chain no pack holds any more is said so.
        let gone = Subject::Chain { pack: at, chain_id: "no.such.chain".into() };
        let err = Computed::of(&gone, &packs, &workflow, None, None).err().unwrap();
        assert!(err.contains("no.such.chain"), "{err}");
    }

    #[test]
    fn the_workflow_subject_is_described_by_its_name_and_size() {
        let packs = Packs::new(Vec::new());
        let workflow = Workflow::new("Alpha flow");
        let json = workflow.to_json(crate::workflow::ExportMode::Faithful);
        let c = Computed::of(&Subject::Workflow, &packs, &workflow, Some(&json), None).unwrap();
        assert_eq!(c.title, "Alpha flow");
        assert_eq!(c.about, "The whole workflow “Alpha flow” (0 nodes)");
    }
}

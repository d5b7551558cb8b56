//! The "Publish as tool" window: a chain, or the whole workflow being edited, projected into
//! the CompactToolDescriptor and the MiRuntime tool contract side by side, each with its
//! validity against the bundled schema, the eligibility findings, and the two choices an
//! author makes before publishing: the toolId and the safetyTier.
//!
//! Projections are recomputed only when an input changes (the workflow's revision, the loaded
//! packs, the toolId text or the tier), never per frame. Copy and save are offered only for
//! publishable documents, as the CLI prints only documents that validate. Where to save is
//! asked like every other file question ([`Purpose::SaveTool`]), so the in-app file dialog
//! answers when the system one cannot be shown.

use super::action::{Action, Subject};
use crate::editor::file_dialog::Purpose;
use super::palette::badge;
use super::theme;
use super::window::{Scaffold, Window, WindowId};
use crate::catalog::Catalog;
use crate::editor::packs::Packs;
use crate::editor::publish::{
    Computed, Side, document_name, invalid_text, plural, resolve, rows, suggested_name, target,
};
use crate::fsio::write_atomic;
use crate::tool::{EffectOracle, SafetyTier, ToolFormat, ToolOptions, check_tool_id};
use crate::workflow::{ExportMode, Workflow};
use egui::{RichText, Ui};
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

/// The tiers an author may choose: `exec` belongs to host extensions, never to a workflow.
const TIERS: [SafetyTier; 3] = [SafetyTier::Pure, SafetyTier::Read, SafetyTier::Write];

const WINDOW_SIZE: egui::Vec2 = egui::vec2(1040.0, 680.0);

/// Height of the findings list: fixed, so the window keeps its size while findings come and go.
const FINDINGS_HEIGHT: f32 = 130.0;

/// A button press, handled after the window is drawn (it needs the clipboard or a dialog).
enum Request {
    Copy(ToolFormat),
    Save(ToolFormat),
}

pub struct Publish {
    subject: Subject,
    /// The chain's pack name, so the chain is found again when re-opening packs shifts indices.
    pack_name: Option<String>,
    /// The toolId as shown in the field: the derived one until the author types another.
    tool_id: String,
    /// The author's tier; `None` keeps the derived one.
    tier: Option<SafetyTier>,
    /// The (revision, catalog generation) the projections were made at.
    key: Option<(u64, u64)>,
    /// The workflow definition as exported at `key`, so a toolId keystroke does not export again.
    workflow_json: Option<Value>,
    /// The projections, or why the subject cannot be projected (its pack was closed).
    computed: Result<Computed, String>,
    /// The outcome of the last copy or save, until an input changes.
    status: Option<Result<String, String>>,
}

impl Publish {
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
    pub fn open(slot: &mut Option<Publish>, subject: Subject) {
        if slot.as_ref().is_none_or(|p| p.subject != subject) {
            *slot = Some(Publish::new(subject));
        }
    }

    /// Bring the projections up to date with `src` and the author's choices; `true` when
    /// anything was projected again.
    fn refresh(&mut self, src: &Sources) -> bool {
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
    fn choose_tier(&mut self, tier: SafetyTier) {
        let derived = self.computed.as_ref().ok().and_then(|c| c.derived_tier);
        self.tier = (Some(tier) != derived).then_some(tier);
    }

    /// Drop both overrides.
    fn reset(&mut self) {
        if let Ok(c) = &self.computed {
            self.tool_id = c.derived_tool_id.clone();
        }
        self.tier = None;
    }

    fn copy(&mut self, ctx: &egui::Context, format: ToolFormat) {
        let Ok(c) = &self.computed else { return };
        let side = c.side(format);
        self.status = Some(if side.projection.is_valid() {
            ctx.copy_text(side.text.clone());
            Ok(format!("Copied the {} to the clipboard", document_name(format)))
        } else {
            Err(format!("The {} is not publishable", document_name(format)))
        });
    }

    /// Whether the document in `format` may be saved; when not, the window says why.
    fn publishable(&mut self, format: ToolFormat) -> bool {
        let Ok(c) = &self.computed else { return false };
        let valid = c.side(format).projection.is_valid();
        if !valid {
            self.status = Some(Err(format!("The {} is not publishable", document_name(format))));
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
            Err(e) => Err(e.to_string()),
        });
    }

    /// Draw the window; `false` once the author closed it.
    pub fn show(&mut self, ctx: &egui::Context, src: &Sources, actions: &mut Vec<Action>) -> bool {
        if self.refresh(src) {
            self.status = None;
        }
        let title = match (&self.subject, &self.computed) {
            (Subject::Workflow, _) => "Publish workflow as tool".to_owned(),
            (Subject::Chain { .. }, Ok(c)) => format!("Publish “{}” as tool", c.title),
            (Subject::Chain { chain_id, .. }, Err(_)) => format!("Publish {chain_id} as tool"),
        };
        let mut open = true;
        let mut request = None;
        Scaffold::of::<Option<Self>>(title, &mut open)
            .centred(ctx, WINDOW_SIZE)
            .constrained()
            .show(ctx, |ui| request = self.contents(ui, src));
        match request {
            Some(Request::Copy(format)) => self.copy(ctx, format),
            Some(Request::Save(format)) => {
                if self.publishable(format) {
                    actions.push(Action::AskFile(Purpose::SaveTool(format)));
                }
            }
            None => return open,
        }
        // The outcome is shown in the window, which was drawn before it was known.
        ctx.request_repaint();
        open
    }

    fn contents(&mut self, ui: &mut Ui, src: &Sources) -> Option<Request> {
        let (about, derived_tier) = match &self.computed {
            Ok(c) => (c.about.clone(), c.derived_tier),
            Err(message) => {
                ui.label(RichText::new(message.as_str()).color(theme::ERROR));
                return None;
            }
        };
        ui.label(RichText::new(about).color(theme::TEXT_DIM));
        self.choices(ui, derived_tier);
        // Show this frame's edit now rather than a frame late.
        if self.refresh(src) {
            self.status = None;
        }
        let Ok(c) = &self.computed else { return None };
        let workflow = matches!(self.subject, Subject::Workflow);
        // Panels share out the rest of the window exactly; content sized from the available
        // height alone would make a resizable window grow to fit it, frame after frame.
        let bare = egui::Frame::new().inner_margin(egui::Margin::symmetric(0, 4));
        egui::Panel::bottom("cs-publish-findings").resizable(false).frame(bare).show(ui, |ui| {
            ui.separator();
            findings(ui, c, workflow, self.status.as_ref());
        });
        let mut request = None;
        egui::CentralPanel::no_frame().show(ui, |ui| {
            ui.separator();
            ui.columns(2, |cols| {
                for (ui, format) in cols.iter_mut().zip([ToolFormat::Compact, ToolFormat::MiRuntime]) {
                    if let Some(r) = document(ui, format, c.side(format)) {
                        request = Some(r);
                    }
                }
            });
        });
        request
    }

    /// The toolId field with its inline error, and the tier choice.
    fn choices(&mut self, ui: &mut Ui, derived_tier: Option<SafetyTier>) {
        let scope_hint = match self.subject {
            Subject::Chain { .. } => "a chain's scope is its pack name",
            Subject::Workflow => "a workflow's scope is openwop unless you name another",
        };
        ui.horizontal(|ui| {
            let label = ui.label("Tool id");
            let edit = egui::TextEdit::singleline(&mut self.tool_id)
                .font(egui::TextStyle::Monospace)
                .hint_text("<scope>:<tool-id>")
                .desired_width(420.0);
            ui.add(edit).labelled_by(label.id).on_hover_text(scope_hint);
            ui.add_space(12.0);
            let label = ui.label("Safety tier");
            let effective = self.tier.or(derived_tier);
            let shown = match (self.tier, derived_tier) {
                (Some(t), _) => format!("{t} (override)"),
                (None, Some(t)) => format!("{t} (derived)"),
                (None, None) => "unknown".to_owned(),
            };
            let mut chosen = None;
            let combo = egui::ComboBox::from_id_salt("cs-publish-tier").selected_text(shown).show_ui(ui, |ui| {
                for t in TIERS {
                    let text = if Some(t) == derived_tier { format!("{t} (derived)") } else { t.to_string() };
                    if ui.selectable_label(effective == Some(t), text).clicked() {
                        chosen = Some(t);
                    }
                }
            });
            combo
                .response
                .labelled_by(label.id)
                .on_hover_text("exec is reserved for host-extension tools: a workflow tool is pure, read or write");
            if let Some(t) = chosen {
                self.choose_tier(t);
                // The combo's text was drawn before the choice.
                ui.ctx().request_repaint();
            }
            let derived_id = self.computed.as_ref().ok().map(|c| c.derived_tool_id.as_str());
            let overridden = self.tier.is_some() || derived_id.is_some_and(|d| d != self.tool_id);
            if ui
                .add_enabled(overridden, egui::Button::new("Reset"))
                .on_hover_text("Use the derived toolId and safetyTier")
                .clicked()
            {
                self.reset();
            }
        });
        // One line either way, so the layout does not jump while typing.
        match check_tool_id(&self.tool_id) {
            Ok(()) => ui.label(RichText::new(format!("Form <scope>:<tool-id>: {scope_hint}")).color(theme::TEXT_DIM)),
            Err(message) => ui.label(RichText::new(message).color(theme::ERROR)),
        };
    }
}

/// The Publish window is open while it holds a subject.
impl Window for Option<Publish> {
    type Input<'a> = &'a Sources<'a>;
    type Response = Vec<Action>;
    const ID: WindowId = WindowId::Publish;
    const SIZE: Option<egui::Vec2> = Some(WINDOW_SIZE);

    fn is_open(&self) -> bool {
        self.is_some()
    }

    fn close(&mut self) {
        *self = None;
    }

    fn show(&mut self, ctx: &egui::Context, src: &Sources) -> Vec<Action> {
        let mut actions = Vec::new();
        if let Some(publish) = self
            && !publish.show(ctx, src, &mut actions)
        {
            *self = None;
        }
        actions
    }
}

/// One side: its name and validity, its buttons, and its JSON.
fn document(ui: &mut Ui, format: ToolFormat, side: &Side) -> Option<Request> {
    let name = document_name(format);
    let short = match format {
        ToolFormat::Compact => "compact",
        ToolFormat::MiRuntime => "MiRuntime",
    };
    let p = &side.projection;
    let valid = p.is_valid();
    let mut request = None;
    ui.horizontal(|ui| {
        ui.label(RichText::new(name).strong());
        let (text, color) = if valid { ("valid".to_owned(), theme::OK) } else { (invalid_text(p), theme::ERROR) };
        badge(ui, &text, color).accessible_name(format!("{name}: {text}"));
    });
    ui.horizontal(|ui| {
        let why = "Not publishable: fix the errors listed below";
        if ui.add_enabled(valid, egui::Button::new(format!("Copy {short}"))).on_disabled_hover_text(why).clicked() {
            request = Some(Request::Copy(format));
        }
        if ui.add_enabled(valid, egui::Button::new(format!("Save {short}…"))).on_disabled_hover_text(why).clicked() {
            request = Some(Request::Save(format));
        }
    });
    // A code block: a dark well the text sits in, unframed itself.
    let well = egui::Frame::new()
        .fill(ui.visuals().extreme_bg_color)
        .stroke(egui::Stroke::new(1.0, theme::CARD_BORDER))
        .corner_radius(4.0)
        .inner_margin(4.0);
    well.show(ui, |ui| {
        let area = egui::ScrollArea::both().id_salt(("cs-publish-json", short));
        area.auto_shrink([false, false]).show(ui, |ui| {
            // JSON reads best unwrapped; the area scrolls sideways instead.
            let mut layouter = |ui: &Ui, text: &dyn egui::TextBuffer, _wrap: f32| {
                let font = egui::TextStyle::Monospace.resolve(ui.style());
                let job = egui::text::LayoutJob::simple(text.as_str().to_owned(), font, theme::TEXT, f32::INFINITY);
                ui.fonts_mut(|f| f.layout_job(job))
            };
            let mut text = side.text.as_str();
            let edit =
                egui::TextEdit::multiline(&mut text).code_editor().frame(egui::Frame::new()).layouter(&mut layouter);
            ui.add(edit).accessible_name(format!("{name} JSON"));
        });
    });
    request
}

/// The findings list, with the outcome of the last copy or save in its header.
fn findings(ui: &mut Ui, c: &Computed, workflow: bool, status: Option<&Result<String, String>>) {
    let rows = rows(c, workflow);
    let errors = rows.iter().filter(|r| r.error).count();
    let notes = rows.len() - errors;
    ui.horizontal(|ui| {
        ui.label(RichText::new("Findings").strong());
        ui.label(
            RichText::new(format!("{errors} error{}, {notes} note{}", plural(errors), plural(notes)))
                .color(theme::TEXT_DIM),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| match status {
            Some(Ok(text)) => ui.label(RichText::new(text.as_str()).color(theme::OK)),
            Some(Err(text)) => ui.label(RichText::new(text.as_str()).color(theme::ERROR)),
            None => ui.label(""),
        });
    });
    let area = egui::ScrollArea::vertical().id_salt("cs-publish-findings").auto_shrink([false, false]);
    area.min_scrolled_height(FINDINGS_HEIGHT).max_height(FINDINGS_HEIGHT).show(ui, |ui| {
        if rows.is_empty() {
            ui.label(RichText::new("Nothing to report: both documents are derived as they are.").color(theme::OK));
        }
        for r in &rows {
            let color = if r.error { theme::ERROR } else { theme::WARN };
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(if r.error { "error" } else { "note" }).small().strong().color(color));
                ui.label(RichText::new(&r.code).monospace().color(color));
                ui.label(RichText::new(r.docs).small().color(theme::TEXT_DIM));
                if !r.pointer.is_empty() {
                    ui.label(RichText::new(&r.pointer).monospace().small().color(theme::TEXT_DIM))
                        .on_hover_text(r.pointer_hover);
                }
                ui.label(r.message);
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
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

    fn computed(p: &Publish) -> &Computed {
        p.computed.as_ref().unwrap()
    }

    fn compact(p: &Publish) -> &Value {
        &computed(p).compact.projection.value
    }

    #[test]
    fn projections_are_recomputed_only_when_an_input_changes() {
        let mut fx = Fixture::new();
        let mut p = Publish::new(fx.triage());
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

        let mut w = Publish::new(Subject::Workflow);
        assert!(w.refresh(&fx.sources()));
        assert!(!w.refresh(&fx.sources()));
        fx.revision += 1;
        assert!(w.refresh(&fx.sources()), "a workflow subject follows its revisions");
    }

    #[test]
    fn the_tool_id_follows_the_derived_one_until_the_author_types_another() {
        let mut fx = Fixture::new();
        let mut p = Publish::new(fx.triage());
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
        let mut w = Publish::new(Subject::Workflow);
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
        let mut p = Publish::new(fx.triage());
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
        let mut p = Publish::new(fx.triage());
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
        let mut p = Publish::new(subject.clone());
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
        let mut p = Publish::new(fx.triage());
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

//! The session's requests on a real document, settings and files in a temporary folder.

use super::*;
use crate::editor::authoring::Note;
use crate::editor::document::{Command, Member, Target};
use crate::editor::file_dialog::Purpose;
use crate::editor::registry_view::Done;
use crate::editor::update_review::Reviewed;
use crate::pack::LoadOutcome;
use crate::tool::ToolFormat;
use std::path::Path;

/// A new model with no packs, default settings and no recovery file.
fn model() -> Model {
    Model::new(LoadOutcome::default(), Settings::default(), Recovery::new(None))
}

impl Model {
    /// Run `request` in a session over the model; the effects it left.
    fn effects(&mut self, request: impl FnOnce(&mut Session)) -> Vec<Effect> {
        self.run(request).1
    }

    /// An unsaved change: the workflow renamed.
    fn edit(&mut self) {
        let member = Member::new(Target::Workflow, "name").unwrap();
        let cmd = Command::SetMember { member, value: Some(serde_json::json!("Edited")) };
        self.doc.apply(cmd).expect("a workflow renames");
        assert!(self.doc.is_dirty());
    }
}

/// A folder holding one bundled pack (a pack folder, not a registry).
fn pack_folder(dir: &Path) -> PathBuf {
    let folder = dir.join("packs");
    let one = folder.join("support-desk");
    std::fs::create_dir_all(&one).unwrap();
    let manifest = crate::pack::bundled_dir().join("vendor.chainsmith.support-desk/pack.json");
    std::fs::copy(manifest, one.join("pack.json")).unwrap();
    folder
}

fn statuses(effects: &[Effect]) -> Vec<&str> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Status(s) | Effect::Findings(s, _) => Some(s.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn new_runs_at_once_on_a_clean_document_and_waits_on_a_changed_one() {
    let mut parts = model();
    let effects = parts.effects(|s| s.guard(Pending::New));
    assert!(matches!(&effects[..], [Effect::Replace(wf, None), Effect::Status(s)]
        if wf.name() == "Untitled workflow" && s == "New workflow"));

    parts.edit();
    let effects = parts.effects(|s| s.guard(Pending::Quit));
    assert!(effects.is_empty(), "nothing runs before the question is answered: {effects:?}");
    assert!(matches!(parts.unsaved.pending, Some(Pending::Quit)));
}

#[test]
fn a_workflow_opened_over_unsaved_changes_waits_for_the_question() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flow.json");
    Workflow::new("Flow").save(&file, crate::workflow::ExportMode::Faithful).unwrap();
    let mut parts = model();
    parts.edit();
    let effects = parts.effects(|s| s.open_paths(std::slice::from_ref(&file)));
    assert!(effects.is_empty(), "{effects:?}");
    assert!(matches!(&parts.unsaved.pending, Some(Pending::Replace(wf, p)) if wf.name() == "Flow" && p == &file));
    assert_eq!(parts.settings.recent.len(), 1, "the file is remembered as opened");
}

#[test]
fn saving_makes_the_file_the_documents_and_runs_what_waited() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("saved.json");
    let mut parts = model();
    parts.edit();
    parts.unsaved.after_save = Some(Pending::Quit);
    let effects = parts.effects(|s| s.answered(Purpose::Save, vec![file.clone()]));
    assert_eq!(statuses(&effects), [format!("Saved {}", file.display())]);
    assert!(matches!(effects.last(), Some(Effect::Quit)), "{effects:?}");
    assert_eq!(parts.doc.path.as_deref(), Some(file.as_path()));
    assert!(!parts.doc.is_dirty());
    assert!(file.is_file());
    // The next save dialog starts in the folder it was answered in.
    assert_eq!(parts.settings.last_folders.get("workflow"), Some(&dir.path().to_path_buf()));
}

#[test]
fn a_cancelled_save_drops_what_waited_for_it() {
    let mut parts = model();
    parts.unsaved.after_save = Some(Pending::New);
    let effects = parts.effects(|s| s.answered(Purpose::Save, Vec::new()));
    assert!(effects.is_empty());
    assert!(parts.unsaved.after_save.is_none());
}

#[test]
fn a_save_that_fails_says_why_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut parts = model();
    parts.edit();
    parts.unsaved.after_save = Some(Pending::Quit);
    // A folder where the file should go: the write is refused.
    let effects = parts.effects(|s| s.answered(Purpose::Save, vec![dir.path().to_path_buf()]));
    assert!(matches!(&effects[..], [Effect::Error(_)]), "{effects:?}");
    assert!(parts.doc.is_dirty());
    assert!(parts.unsaved.after_save.is_some(), "it waits for a save that works");
}

#[test]
fn save_changes_without_a_file_asks_for_one_and_keeps_what_waited() {
    let mut parts = model();
    parts.unsaved.pending = Some(Pending::New);
    let ask = parts.effects(|s| assert!(s.save_pending()));
    assert!(ask.is_empty());
    assert!(parts.unsaved.pending.is_none());
    assert!(matches!(parts.unsaved.after_save, Some(Pending::New)));
}

#[test]
fn a_pack_folder_chosen_as_a_registry_opens_as_packs_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let folder = pack_folder(dir.path());
    let mut parts = model();
    let effects = parts.effects(|s| s.answered(Purpose::Registry, vec![folder.clone()]));
    assert!(matches!(effects[0], Effect::RegistryWindow(false)));
    let packs: Vec<usize> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Packs { packs, failures } => Some(packs.len() + failures.len()),
            _ => None,
        })
        .collect();
    assert_eq!(packs, [1], "the one pack copied into the folder");
    let said = statuses(&effects);
    assert_eq!(said.len(), 2, "{said:?}");
    assert_eq!(said[0], format!("Loaded 1 pack from {}", folder.display()));
    assert!(said[1].starts_with("Opened 1 pack as a pack folder"), "{}", said[1]);
    assert_eq!(parts.settings.open_packs.len(), 1, "reopened at the next start");
}

#[test]
fn a_pack_that_fails_to_load_is_the_news() {
    let dir = tempfile::tempdir().unwrap();
    let folder = pack_folder(dir.path());
    std::fs::create_dir_all(folder.join("broken")).unwrap();
    std::fs::write(folder.join("broken/pack.json"), "{").unwrap();
    let mut parts = model();
    let effects = parts.effects(|s| s.answered(Purpose::Registry, vec![folder.clone()]));
    let errors = effects.iter().filter(|e| matches!(e, Effect::Error(_))).count();
    assert_eq!(errors, 1, "{effects:?}");
    assert!(
        matches!(effects.last(), Some(Effect::Packs { packs, failures }) if packs.len() == 1 && failures.len() == 1)
    );
    assert!(!statuses(&effects).iter().any(|s| s.contains("as a pack folder")), "the failure stays the news");
}

#[test]
fn a_registry_folder_opens_in_the_registry_window_and_is_not_loaded() {
    let dir = tempfile::tempdir().unwrap();
    // What marks a registry: its discovery document (the view reads it; a bad one is its
    // own refusal there).
    std::fs::create_dir_all(dir.path().join(".well-known")).unwrap();
    std::fs::write(dir.path().join(".well-known/openwop-registry.json"), "{}").unwrap();
    let mut parts = model();
    let effects = parts.effects(|s| s.open_paths(&[dir.path().to_path_buf()]));
    assert!(matches!(&effects[..], [Effect::RegistryWindow(true)]), "{effects:?}");
    assert_eq!(parts.settings.recent.len(), 1);
    assert!(parts.settings.open_packs.is_empty(), "a registry is not reopened as packs");
}

#[test]
fn an_export_reports_its_lints_and_a_refused_one_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.json");
    let mut parts = model();
    let faithful = crate::workflow::ExportMode::Faithful;
    let effects = parts.effects(|s| s.answered(Purpose::Export(faithful), vec![file.clone()]));
    // The status carries the export's own lints (passed through, not recounted).
    let lints = Workflow::new("Untitled workflow").lint(faithful);
    assert!(
        matches!(&effects[..], [Effect::Findings(s, found)]
        if *s == format!("Exported {}", file.display()) && *found == lints),
        "{effects:?}"
    );
    assert!(file.is_file());
    assert_eq!(parts.doc.path, None, "an export is not the workflow's file");

    // The strict schema needs at least one node: refused, with its code, and not written.
    let strict = dir.path().join("strict.json");
    let mode = crate::workflow::ExportMode::StrictSchema;
    let effects = parts.effects(|s| s.answered(Purpose::Export(mode), vec![strict.clone()]));
    assert!(matches!(&effects[..], [Effect::Error(e)] if e.code == "validation_error"), "{effects:?}");
    assert!(!strict.exists());
}

#[test]
fn answers_for_the_pack_view_act_on_the_pack_it_shows_and_trusted_keys_change_the_settings() {
    let dir = tempfile::tempdir().unwrap();
    let mut parts = model();
    let other = parts.authoring.model.new_doc("vendor.other.chains", "1.0.0");
    let shown = parts.authoring.model.new_doc("vendor.shown.chains", "1.0.0");
    parts.authoring.shown.select(shown, 0);
    let saved = dir.path().join("pack.json");
    assert!(parts.effects(|s| s.answered(Purpose::SavePack, vec![saved.clone()])).is_empty());
    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
    assert_eq!(manifest["name"], "vendor.shown.chains", "the pack the view shows is saved");
    assert!(parts.authoring.model.docs[other].doc.path().is_none(), "the other pack is not");
    let key = dir.path().join("signing.pem");
    parts.effects(|s| s.answered(Purpose::GenerateKey, vec![key.clone()]));
    let private = dir.path().join("signing.private.pem");
    assert!(parts.effects(|s| s.answered(Purpose::SigningKey, vec![private])).is_empty());
    // Signing reads the shown pack's saved file (a new pack without chains is refused there).
    let notes = std::mem::take(&mut parts.authoring.model.notes);
    let file = saved.display().to_string();
    assert!(
        matches!(notes.last(), Some(Note::Error(e)) if e.details.get("file").and_then(|f| f.as_str()) == Some(file.as_str())),
        "{notes:?}"
    );
    let effects = parts.effects(|s| s.answered(Purpose::TrustedKeys, vec![dir.path().to_path_buf()]));
    assert!(matches!(&effects[..], [Effect::TrustChanged(true)]));
    assert_eq!(parts.settings.trust.trusted_keys.as_deref(), Some(dir.path()));
    let effects = parts.effects(|s| s.answered(Purpose::InstallFolder, vec![dir.path().to_path_buf()]));
    assert!(effects.is_empty());
    assert_eq!(parts.registry.install_dir.as_deref(), Some(dir.path()));
    let effects = parts.effects(|s| s.answered(Purpose::SaveTool(ToolFormat::Compact), vec![key]));
    assert_eq!(statuses(&effects), ["Nothing saved: the Publish window was closed"]);
}

#[test]
fn a_question_starts_beside_the_workflow_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut parts = model();
    parts.doc.path = Some(dir.path().join("mine.json"));
    let (name, folder) = parts.run_question(&Purpose::Save);
    assert_eq!(name, crate::editor::files::suggested_name(parts.doc.workflow()));
    assert_eq!(folder.as_deref(), Some(dir.path()));
}

#[test]
fn files_at_start_are_read_in_the_background_and_say_what_was_not_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let folder = pack_folder(dir.path());
    let mut parts = model();
    let gone = dir.path().join("gone");
    parts.settings.open_packs.push(gone.clone());
    let effects = parts.effects(|s| s.open_at_start(vec![folder.clone()]));
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(parts.start.left(), 1);
    let effects = parts.effects(|s| s.take_loaded(Some(std::time::Duration::from_secs(30))));
    assert_eq!(parts.start.left(), 0);
    let said = statuses(&effects);
    assert_eq!(said[0], format!("Loaded 1 pack from {}", folder.display()));
    assert!(said[1].starts_with("Not reopened (1 pack file no longer there)"), "{said:?}");
    assert!(matches!(effects.last(), Some(Effect::FilesOpen)));
}

impl Model {
    fn run_question(&mut self, purpose: &Purpose) -> (String, Option<PathBuf>) {
        let mut asked = None;
        self.effects(|s| asked = Some(s.question(purpose)));
        asked.expect("asked")
    }
}

/// Two typed nodes wired c.label → p.assignee, with the bundled node types' catalog.
fn typed_parts() -> Model {
    let mut parts = model();
    let wf = Workflow::from_json(serde_json::json!({
        "id": "wf", "name": "wf", "version": "1.0.0",
        "nodes": [
            {"id": "c", "typeId": "vendor.chainsmith.classify", "name": "C", "position": {"x": 0, "y": 0}},
            {"id": "p", "typeId": "vendor.chainsmith.pager-send", "name": "P", "position": {"x": 400, "y": 0}}
        ],
        "edges": [{"id": "e1", "sourceNodeId": "c", "sourceOutput": "label", "targetNodeId": "p", "targetInput": "assignee"}]
    }))
    .unwrap();
    parts.doc = Document::new(wf, None);
    let nodes = crate::pack::bundled_dir().join("vendor.chainsmith.nodes");
    parts.library.trust.catalog = Some(crate::catalog::Catalog::load(&[nodes]));
    parts
}

#[test]
fn the_documents_own_commands_change_it_and_what_is_selected() {
    use crate::editor::commands::CommandId;
    let mut parts = typed_parts();
    assert!(
        !parts.effects(|s| assert!(!s.command(CommandId::ZoomIn))).iter().any(|_| true),
        "a view command is not its"
    );
    parts.effects(|s| assert!(s.command(CommandId::SelectAll)));
    assert_eq!(parts.doc.selection.nodes.len(), 2);
    let effects = parts.effects(|s| assert!(s.command(CommandId::Duplicate)));
    assert!(matches!(&effects[..], [Effect::Applied(None), Effect::Findings(..)]), "{effects:?}");
    assert_eq!(parts.doc.workflow().node_count(), 4);
    assert_eq!(parts.doc.selection.nodes.len(), 2, "the copies are selected");
    assert!(!parts.doc.selection.nodes.contains("c"));
    let copies = parts.doc.selection.clone();
    let effects = parts.effects(|s| s.undo(false));
    assert!(matches!(&effects[..], [Effect::Status(s)] if s.starts_with("Undid ")), "{effects:?}");
    assert_eq!(parts.doc.workflow().node_count(), 2);
    let effects = parts.effects(|s| s.undo(true));
    assert!(matches!(&effects[..], [Effect::Status(s)] if s.starts_with("Redid ")), "{effects:?}");
    parts.doc.selection = copies;
    parts.effects(|s| assert!(s.command(CommandId::Delete)));
    assert_eq!(parts.doc.workflow().node_count(), 2, "the two selected copies are deleted");
    parts.effects(|s| assert!(s.command(CommandId::SelectNone)));
    assert!(parts.doc.selection.is_empty());
    parts.effects(|s| assert!(s.command(CommandId::TogglePalettePanel)));
    assert!(!parts.settings.palette_panel && parts.settings.inspector_panel, "shown by default, one hidden");
    // The view switches are the settings' (saved with them), flipped by their commands.
    let before = (parts.settings.snap, parts.settings.minimap, parts.settings.show_internal);
    for c in [CommandId::ToggleSnap, CommandId::ToggleMinimap, CommandId::ToggleInternal] {
        parts.effects(|s| assert!(s.command(c), "{c:?}"));
    }
    assert_eq!(
        (parts.settings.snap, parts.settings.minimap, parts.settings.show_internal),
        (!before.0, !before.1, !before.2)
    );
    // The registry's predicates see the switches as the commands left them.
    let cx = command_context(&parts.doc, &parts.settings, &parts.updates.available);
    assert_eq!((cx.snap, cx.minimap, cx.show_internal), (!before.0, !before.1, !before.2));
    assert_eq!((cx.palette_panel, cx.inspector_panel), (false, true));
    assert_eq!(cx.has_nodes, parts.doc.workflow().node_count() > 0, "the document's part");
    // Tidy with fewer than two selected tidies everything, and the view fits it.
    let effects = parts.effects(|s| assert!(s.command(CommandId::Tidy)));
    assert!(matches!(effects.last(), Some(Effect::Fit)), "{effects:?}");
}

#[test]
fn a_connection_whose_types_do_not_fit_never_reaches_the_document() {
    let mut parts = typed_parts();
    let revision = parts.doc.revision();
    let connect = |source_port: &str| Command::Connect {
        source: "c".into(),
        source_port: source_port.into(),
        target: "p".into(),
        target_port: "assignee".into(),
    };
    // `urgent` gives a boolean, `assignee` takes a string.
    let effects = parts.effects(|s| s.apply(connect("urgent")));
    assert!(matches!(&effects[..], [Effect::Error(e)] if e.code == "edge_port_incompatible"), "{effects:?}");
    assert_eq!(parts.doc.revision(), revision, "the document never saw it");
    // A refusal of the document itself is answered to the window that sent it too.
    let effects = parts.effects(|s| s.apply(Command::RemoveInstance { key: "nothing_here_".into() }));
    assert!(matches!(&effects[..], [Effect::Applied(Some(a)), Effect::Error(b)] if a.code == b.code), "{effects:?}");
}

#[test]
fn a_node_inserted_after_another_is_wired_and_selected() {
    let mut parts = typed_parts();
    let place = crate::editor::insert::InsertPlace { at: (800.0, 0.0), on_edge: None, after: Some("p".into()) };
    let effects = parts.effects(|s| s.insert_node("core.noop", place));
    assert!(matches!(&effects[..], [Effect::Applied(None), Effect::Findings(..)]), "{effects:?}");
    let wf = parts.doc.workflow();
    assert_eq!((wf.node_count(), wf.graph.edge_count()), (3, 2));
    assert_eq!(parts.doc.selection.nodes.iter().collect::<Vec<_>>(), ["noop"]);
    // After a node that is gone: nothing at all.
    let place = crate::editor::insert::InsertPlace { at: (0.0, 0.0), on_edge: None, after: Some("gone".into()) };
    assert!(parts.effects(|s| s.insert_node("core.noop", place)).is_empty());
    assert_eq!(parts.doc.workflow().node_count(), 3);
}

#[test]
fn an_update_is_done_or_refused_for_the_conflicts_the_review_settles() {
    use crate::instance::tests::{pack, set_config, workflow};
    let (wf, key) = workflow();
    let mut parts = model();
    // Two files, or the second would replace the first as the same pack read again.
    let (mut old, mut new) = (pack("1.0.0"), pack("2.0.0"));
    (old.source, new.source) = ("one/pack.json".into(), "two/pack.json".into());
    parts.library.packs = Packs::new(vec![old, new]);
    let target = parts.library.packs.id_at(1).unwrap();
    let answer = || (serde_json::Map::new(), crate::instance::Resolutions::default());
    let mut review = Reviewed::new(&key, target);
    let mut done = true;

    // A hand edit of a value the new version changes: the conflict goes to the review and
    // the refusal's message is the status; nothing changed.
    let mut edited = wf.clone();
    set_config(&mut edited, "t_two_k1_a", "url", serde_json::json!("https://mine.test"));
    parts.doc = Document::new(edited, None);
    review.refusal = Some(crate::error::Error::new("earlier", "an earlier refusal"));
    let effects = parts.effects(|s| done = s.apply_review(&mut review, answer(), false));
    assert!(!done);
    assert!(review.conflicts.iter().any(|c| c.node_id == "t_two_k1_a"), "{:?}", review.conflicts);
    assert!(review.refusal.is_none(), "the conflicts replace an earlier refusal");
    assert!(matches!(&effects[..], [Effect::Status(_)]), "{effects:?}");
    assert_eq!(parts.doc.workflow().instance(&key).unwrap().chain_version, "1.0.0");

    parts.doc = Document::new(wf, None);
    let effects = parts.effects(|s| done = s.apply_review(&mut review, answer(), false));
    assert!(done);
    assert!(matches!(&effects[..], [Effect::Findings(label, _)] if label.starts_with("Re-parameterise ")));
    assert_eq!(parts.doc.workflow().instance(&key).unwrap().chain_version, "2.0.0");
    let mut gone = Reviewed::new("no-such-key", target);
    let effects = parts.effects(|s| done = s.apply_review(&mut gone, answer(), false));
    assert!(!done && effects.is_empty(), "an instance gone: nothing");
    assert!(gone.conflicts.is_empty() && gone.refusal.is_none());
}

/// A model whose one loaded pack is the bundled one with `support.triage`, and its id.
fn model_with_triage() -> (Model, PackId) {
    let triage = crate::pack::bundled().packs.into_iter().find(|p| p.chain("support.triage").is_some()).unwrap();
    let mut parts = model();
    parts.library.packs = Packs::new(vec![triage]);
    let pack = parts.library.packs.id_at(0).unwrap();
    (parts, pack)
}

#[test]
fn an_insert_the_policy_refuses_is_explained_in_the_palette() {
    let (mut parts, pack) = model_with_triage();
    let place = || crate::editor::insert::InsertPlace { at: (0.0, 0.0), on_edge: None, after: None };
    let mut opened = None;
    let effects = parts.effects(|s| opened = s.open_insert(pack, "support.triage", place()));
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(opened.map(|f| f.chain_id.clone()), Some("support.triage".to_owned()));
    let effects = parts.effects(|s| assert!(s.open_insert(pack, "no.such.chain", place()).is_none()));
    assert!(effects.is_empty(), "no such chain: nothing to say");

    // The bundled packs are not signed: a policy that requires signatures refuses them.
    parts.library.trust.require_signed = true;
    let effects = parts.effects(|s| assert!(s.open_insert(pack, "support.triage", place()).is_none()));
    assert!(
        matches!(&effects[..], [Effect::Explain(p, c), Effect::Error(_)] if *p == pack && c == "support.triage"),
        "{effects:?}"
    );
}

#[test]
fn an_instance_opens_with_its_values_selected_and_a_note_for_another_version() {
    use crate::instance::tests::{pack, workflow};
    let (wf, key) = workflow();
    let mut parts = model();
    parts.doc = Document::new(wf, None);
    let mut opened = None;
    let effects = parts.effects(|s| opened = s.open_instance(&key));
    assert!(opened.is_none());
    assert!(matches!(&effects[..], [Effect::Error(e)] if e.code == "chain_not_found"), "no pack loaded: {effects:?}");

    parts.library.packs = Packs::new(vec![pack("2.0.0")]);
    let effects = parts.effects(|s| opened = s.open_instance(&key));
    let form = opened.take().expect("its form opens");
    assert_eq!(form.chain_id, parts.doc.workflow().instance(&key).unwrap().chain_id);
    assert_eq!(form.values()["topic"], "a", "the values it was made with");
    assert!(
        matches!(&effects[..], [Effect::Status(s)] if s.starts_with("Note: the instance came from")),
        "{effects:?}"
    );
    assert_eq!(parts.doc.selection.instance.as_deref(), Some(key.as_str()));
    let nodes = &parts.doc.workflow().instance(&key).unwrap().node_ids;
    assert_eq!(parts.doc.selection.nodes.iter().collect::<Vec<_>>(), nodes.iter().collect::<Vec<_>>());

    assert!(parts.effects(|s| assert!(s.open_instance("no-such-key").is_none())).is_empty());
}

#[test]
fn a_submitted_form_inserts_or_keeps_the_refusal_as_its_own() {
    use crate::editor::session::Submit;
    let (mut parts, pack) = model_with_triage();
    let place = crate::editor::insert::InsertPlace { at: (0.0, 0.0), on_edge: None, after: None };
    let mut form = None;
    parts.effects(|s| form = s.open_insert(pack, "support.triage", place));
    let mut form = form.expect("the insert opens");

    let mut submitted = None;
    form.fields.set("/queueName", Some(serde_json::json!(5)));
    let effects = parts.effects(|s| submitted = s.submit(&mut form));
    assert_eq!(submitted, Some(Submit::Refused));
    assert!(matches!(&effects[..], [Effect::FormRefused(_)]), "{effects:?}");
    assert_eq!(parts.doc.workflow().node_count(), 0);

    form.fields.set("/queueName", Some(serde_json::json!("billing")));
    let effects = parts.effects(|s| submitted = s.submit(&mut form));
    assert_eq!(submitted, Some(Submit::Done));
    assert!(matches!(&effects[..], [Effect::Findings(..)]), "{effects:?}");
    let wf = parts.doc.workflow();
    assert_eq!(wf.instances().len(), 1);
    assert_eq!(parts.doc.selection.instance, Some(wf.instances()[0].key()), "the inserted instance is selected");
}

#[test]
fn a_registry_open_brings_its_pack_then_its_status_and_a_failure_its_refusal() {
    let mut parts = model();
    let pack = crate::pack::bundled().packs.into_iter().next().unwrap();
    let (name, version) = (pack.name().to_owned(), pack.version().to_owned());
    let effects = parts.effects(|s| s.registry_done(Ok(Done::Opened(Box::new(pack)))));
    assert!(
        matches!(&effects[..], [Effect::Packs { packs, failures }, Effect::Status(text)]
        if packs.len() == 1 && failures.is_empty() && text.starts_with(&format!("Opened {name}@{version} from the registry"))),
        "{effects:?}"
    );
    let refused = Error::new(crate::error::code::INVALID_REQUEST, "no such pack");
    let effects = parts.effects(|s| s.registry_done(Err(refused)));
    assert!(matches!(&effects[..], [Effect::Error(e)] if e.message == "no such pack"), "{effects:?}");
}

#[test]
fn a_child_that_cannot_be_shown_is_refused_with_the_node_at_fault() {
    let mut parts = model();
    let effects = parts.effects(|s| s.open_child("missing"));
    assert!(
        matches!(&effects[..], [Effect::Error(e)] if e.code == crate::error::code::SUB_CHAIN_UNRESOLVED
        && e.message == "no node missing"),
        "{effects:?}"
    );
}

#[test]
fn a_bundle_is_exported_by_the_session_and_a_refused_one_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let mut parts = model();
    let path = dir.path().join("bundle.json");
    let effects = parts.effects(|s| s.answered(Purpose::ExportBundle, vec![path.clone()]));
    let expected = format!("Exported bundle {}: the workflow and 0 child workflows", path.display());
    assert!(matches!(&effects[..], [Effect::Findings(text, _)] if *text == expected), "{effects:?}");
    assert!(path.is_file());
    // Into a folder that is not there: refused, nothing written.
    let missing = dir.path().join("no-such-folder").join("bundle.json");
    let effects = parts.effects(|s| s.answered(Purpose::ExportBundle, vec![missing.clone()]));
    assert!(matches!(&effects[..], [Effect::Error(_)]), "{effects:?}");
    assert!(!missing.exists());
}

#[test]
fn an_imported_node_catalog_changes_the_policy_and_a_refused_one_changes_nothing() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/app");
    let mut parts = model();
    let catalog = fixtures.join("node-catalog.json");
    let effects = parts.effects(|s| s.answered(Purpose::NodeCatalog, vec![catalog.clone()]));
    let said = format!("2 host node types imported from {}", catalog.display());
    assert!(
        matches!(&effects[..], [Effect::TrustChanged(false), Effect::Status(text)] if *text == said),
        "{effects:?}"
    );
    assert_eq!(parts.settings.trust.node_catalog.as_deref(), Some(catalog.as_path()));
    assert_eq!(parts.trust_files.node_catalog.as_ref().unwrap().as_ref().unwrap().len(), 2);
    // Not a capabilities document: the window notes why, and the policy is left alone.
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("caps.json");
    std::fs::write(&junk, "{").unwrap();
    let effects = parts.effects(|s| s.answered(Purpose::Capabilities, vec![junk]));
    assert!(matches!(&effects[..], [Effect::Error(_)]), "{effects:?}");
    assert!(parts.trust_files.import_error.is_some());
}

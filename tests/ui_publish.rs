//! The "Publish as tool" window driven without a display (egui_kittest): opened from a chain
//! tile's context menu and from the File menu, with toolId and tier overrides typed and picked
//! as a person would, and saving answered by a scripted dialog instead of rfd, or by the
//! editor's own file dialog when there is no system one.

mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use chainsmith::schemas::Schema;
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::Value;
use ui_common::{Asked, Script, drag, harness, type_into};

const COMPACT: &str = "CompactToolDescriptor";
const MIRUNTIME: &str = "MiRuntime tool contract";

fn start(dialogs: Script) -> Harness<'static, App> {
    let app = App::new(
        StartOptions { files: Vec::new(), dialogs: Box::new(dialogs), recovery_file: None, packs: bundled() },
        None,
    );
    harness(app)
}

/// The text of one side's JSON view.
fn json_text(h: &Harness<'_, App>, document: &str) -> String {
    let label = format!("{document} JSON");
    h.get(By::new().label(&label).role(Role::MultilineTextInput)).value().unwrap_or_default()
}

fn json(h: &Harness<'_, App>, document: &str) -> Value {
    serde_json::from_str(&json_text(h, document)).expect("the view shows JSON")
}

/// The validity badge of one side: "valid", or what makes it unpublishable.
fn badge_says(h: &Harness<'_, App>, document: &str, text: &str) -> bool {
    // A label's own text is its value; the badge's accessible name says which side it is on.
    let name = format!("{document}: {text}");
    h.query(By::new().role(Role::Label).predicate(move |n| n.label().as_deref() == Some(name.as_str()))).is_some()
}

fn button_enabled(h: &Harness<'_, App>, label: &str) -> bool {
    !h.get(By::new().label(label).role(Role::Button)).accesskit_node().is_disabled()
}

fn open_from_tile(h: &mut Harness<'_, App>, tile: &str) {
    h.get_by_label(tile).click_secondary();
    h.run();
    h.get(By::new().label("Publish as tool…").role(Role::Button)).click();
    h.run();
}

#[test]
fn publish_a_tile_see_both_documents_override_tool_id_and_tier_copy_and_save() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::default();
    let mut h = start(script.clone());
    open_from_tile(&mut h, "Triage queue");
    assert!(h.query_by_label("Publish “Triage queue” as tool").is_some(), "the window is open");

    // Both documents, derived and valid.
    let compact = json(&h, COMPACT);
    assert_eq!(compact["toolId"], "vendor.chainsmith.support-desk:support.triage");
    assert_eq!(compact["safetyTier"], "write");
    assert_eq!(json(&h, MIRUNTIME)["permissionClass"], "reversible-write", "no node declares an irreversible effect");
    assert!(badge_says(&h, COMPACT, "valid") && badge_says(&h, MIRUNTIME, "valid"));
    assert!(h.query_all_by_label_contains("tool_field_adjusted").count() >= 1, "the shortened description is noted");

    // An invalid toolId: an inline error, the compact side is not publishable.
    type_into(&mut h, "Tool id", "no scope");
    let error = "is not of the form <scope>:<tool-id>";
    assert!(h.query_all_by_label_contains(error).count() >= 1, "inline error under the field");
    assert!(h.query_by_label_contains("tool_id_invalid").is_some(), "and in the findings");
    assert!(badge_says(&h, COMPACT, "1 error"));
    assert!(!button_enabled(&h, "Save compact…") && !button_enabled(&h, "Copy compact"));
    assert!(badge_says(&h, MIRUNTIME, "valid"), "the MiRuntime contract has no toolId");
    assert!(button_enabled(&h, "Save MiRuntime…"));

    // Fixed: valid again, with the author's id.
    type_into(&mut h, "Tool id", "acme:triage");
    assert!(h.query_by_label_contains(error).is_none());
    assert!(badge_says(&h, COMPACT, "valid"));
    assert!(button_enabled(&h, "Save compact…"));
    assert_eq!(json(&h, COMPACT)["toolId"], "acme:triage");

    // The tier: no exec on offer; read lowers it, with a note.
    h.get(By::new().label("Safety tier")).click();
    h.run();
    assert!(h.query(By::new().label_contains("exec")).is_none(), "exec is never offered");
    h.get(By::new().label("read").role(Role::Button)).click();
    h.run();
    assert!(json_text(&h, COMPACT).contains("\"safetyTier\": \"read\""));
    assert!(h.query_by_label_contains("safetyTier overridden to `read`").is_some());

    // Copy puts exactly the shown text on the clipboard.
    h.get(By::new().label("Copy compact").role(Role::Button)).click();
    h.step();
    let copied = h.output().platform_output.commands.iter().find_map(|c| match c {
        egui::OutputCommand::CopyText(t) => Some(t.clone()),
        _ => None,
    });
    assert_eq!(copied, Some(json_text(&h, COMPACT)));
    h.run();

    // Save writes the shown document, which validates against the bundled schema.
    let out = dir.path().join("triage.tool.json");
    script.will_save(&out);
    h.get(By::new().label("Save compact…").role(Role::Button)).click();
    h.run();
    assert_eq!(script.asked(), [Asked::Save("Save the CompactToolDescriptor".into())]);
    let saved: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(saved, json(&h, COMPACT));
    assert_eq!((saved["toolId"].as_str(), saved["safetyTier"].as_str()), (Some("acme:triage"), Some("read")));
    assert!(Schema::CompactToolDescriptor.violations(&saved).is_empty());
    assert!(h.query_by_label_contains("Saved the CompactToolDescriptor to").is_some());

    // Reset brings the derived choices back; closing the window ends the session.
    h.get(By::new().label("Reset").role(Role::Button)).click();
    h.run();
    assert_eq!(json(&h, COMPACT)["toolId"], "vendor.chainsmith.support-desk:support.triage");
    assert_eq!(json(&h, COMPACT)["safetyTier"], "write");
}

#[test]
fn publish_the_whole_workflow_follows_its_edits() {
    let mut h = start(Script::default());
    // Insert the triage chain: drop its tile on the canvas and fill the form.
    let from = h.get_by_label("Triage queue").rect().center();
    let to = h.state().canvas_rect().center();
    drag(&mut h, from, to, Modifiers::NONE);
    assert!(h.state().form().is_some());
    type_into(&mut h, "Queue *", "billing");
    h.get(By::new().label("Insert").role(Role::Button)).click();
    h.run();
    assert_eq!(h.state().doc().workflow().node_count(), 4, "{:?}", h.state().last_error());

    h.get_by_label("File").click();
    h.run();
    h.get_by_label_contains("Publish workflow as tool…").click();
    h.run();
    assert!(h.query_by_label("Publish workflow as tool").is_some());
    assert!(h.query_by_label_contains("The whole workflow “Untitled workflow” (4 nodes)").is_some());
    let compact = json(&h, COMPACT);
    assert!(compact["toolId"].as_str().is_some_and(|id| id.starts_with("workflow:")), "{compact}");
    assert_eq!(compact["safetyTier"], "write", "the inserted chain pages and appends");
    assert!(badge_says(&h, COMPACT, "valid") && badge_says(&h, MIRUNTIME, "valid"));
    let contract = json(&h, MIRUNTIME);
    assert!(Schema::MiRuntimeToolContract.violations(&contract).is_empty());
    assert_eq!(contract["sideEffects"]["changesExternalState"], true);

    // Undoing the insert re-projects the now empty workflow.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().doc().workflow().node_count(), 0);
    assert!(h.query_by_label_contains("(0 nodes)").is_some());
    assert_eq!(json(&h, COMPACT)["safetyTier"], "pure");
}

#[test]
fn without_a_system_dialog_publish_saves_through_the_in_app_dialog() {
    let dir = tempfile::tempdir().unwrap();
    let absent = Script::unavailable();
    let mut h = start(absent.clone());
    open_from_tile(&mut h, "Triage queue");
    type_into(&mut h, "Tool id", "acme:triage");
    h.get(By::new().label("Save compact…").role(Role::Button)).click();
    h.run();
    // The editor's own dialog, titled for the document and offering a name made from it.
    assert!(h.query_by_label("Save the CompactToolDescriptor").is_some(), "the in-app dialog opened");
    let name = h.get(By::new().label("File name").role(Role::TextInput));
    assert_eq!(name.value().as_deref(), Some("acme-triage.compact-tool.json"));
    // Go to the folder, keep the offered name, save.
    type_into(&mut h, "Folder", &dir.path().display().to_string());
    h.key_press(Key::Enter);
    h.run();
    let save =
        |n: &egui_kittest::kittest::AccessKitNode<'_>| n.role() == Role::Button && n.label().as_deref() == Some("Save");
    h.query_all(By::new().predicate(save)).last().expect("the dialog's Save button").click();
    h.run();
    assert!(h.query_by_label("Save the CompactToolDescriptor").is_none(), "the dialog closed");
    let out = dir.path().join("acme-triage.compact-tool.json");
    let saved = std::fs::read_to_string(&out).expect("the document was written");
    assert_eq!(saved, json_text(&h, COMPACT), "exactly as shown");
    assert!(h.query_by_label_contains("Saved the CompactToolDescriptor to").is_some());
    assert_eq!(absent.asked(), [], "the missing system dialog was never asked");
}

#[test]
fn the_in_app_dialog_makes_a_missing_folder_and_a_new_one_instead_of_failing() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start(Script::unavailable());
    open_from_tile(&mut h, "Triage queue");
    h.get(By::new().label("Save compact…").role(Role::Button)).click();
    h.run();
    type_into(&mut h, "Folder", &dir.path().display().to_string());
    h.key_press(Key::Enter);
    h.run();
    // A name in a folder that does not exist: the dialog stays open and offers to make it.
    type_into(&mut h, "File name", "tools/compact.json");
    h.key_press(Key::Enter);
    h.run();
    assert!(h.query_by_label("Save the CompactToolDescriptor").is_some(), "the dialog stays open");
    assert!(h.query_by_label_contains("does not exist").is_some(), "and says why it cannot save there");
    assert!(h.state().last_error().is_none(), "no io_error: {:?}", h.state().last_error());
    h.get(By::new().label("Create folder").role(Role::Button)).click();
    h.run();
    assert!(dir.path().join("tools").is_dir(), "the folder was made");
    let save =
        |n: &egui_kittest::kittest::AccessKitNode<'_>| n.role() == Role::Button && n.label().as_deref() == Some("Save");
    h.query_all(By::new().predicate(save)).last().expect("the dialog's Save button").click();
    h.run();
    assert!(dir.path().join("tools/compact.json").is_file(), "saved there: {:?}", h.state().last_error());

    // "New folder" makes a folder where the dialog is and goes into it.
    h.get(By::new().label("Save compact…").role(Role::Button)).click();
    h.run();
    type_into(&mut h, "Folder", &dir.path().display().to_string());
    h.key_press(Key::Enter);
    h.run();
    h.get(By::new().label("🗀 New folder").role(Role::Button)).click();
    h.run();
    type_into(&mut h, "New folder", "drafts");
    h.get(By::new().label("Create").role(Role::Button)).click();
    h.run();
    let made = dir.path().join("drafts");
    assert!(made.is_dir(), "the new folder exists");
    let folder = h.get(By::new().label("Folder").role(Role::TextInput)).value();
    assert_eq!(folder.as_deref(), Some(made.display().to_string().as_str()), "the dialog shows it");
}

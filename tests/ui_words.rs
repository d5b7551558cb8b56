//! Refusals in the user's words (issue 37 item 11), produced by driving the real widgets of
//! the pack view and the Publish window: each says what happened and what to do next, names
//! nodes by their titles, and shows its code after the message, never before it. And the
//! system file dialog starts in the folder its kind was last answered in (item 8).

mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use egui::Key;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use ui_common::{Script, harness, labels_containing, type_into};

fn start(dialogs: Script) -> Harness<'static, App> {
    let app = App::new(
        StartOptions { files: Vec::new(), dialogs: Box::new(dialogs), recovery_file: None, packs: bundled() },
        None,
    );
    harness(app)
}

fn click(h: &mut Harness<'_, App>, label: &str) {
    h.get(By::new().label(label).role(Role::Button)).click();
    h.run();
}

/// View › Pack view, then New pack.
fn new_pack_in_view(h: &mut Harness<'_, App>) {
    h.get_by_label("View").click();
    h.run();
    click(h, "Pack view");
    click(h, "New pack");
}

/// The pack view's result line and the status bar say `what` after "✖ ", and no line leads
/// with the code.
fn refused_with(h: &Harness<'_, App>, what: &str, code: &str) {
    let lines = labels_containing(h, what);
    assert!(lines.iter().any(|l| l.starts_with("✖ ")), "a refusal saying {what:?}: {lines:?}");
    let code_first = labels_containing(h, &format!("{code} — "));
    assert!(code_first.is_empty(), "the code comes after the message: {code_first:?}");
    // In the pack view's result line and in the status bar.
    assert_eq!(h.query_all(By::new().label(code)).count(), 2, "the code is shown after the message, in both");
}

#[test]
fn signing_an_unsaved_pack_says_to_save_it_first() {
    let mut h = start(Script::default());
    new_pack_in_view(&mut h);
    click(&mut h, "Sign…");
    refused_with(
        &h,
        "this pack has no file yet, and a signature covers the saved pack.json. Save pack first, then Sign…",
        "invalid_request",
    );
}

#[test]
fn signing_with_the_public_key_names_the_private_one_and_the_code_comes_second() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::default();
    let mut h = start(script.clone());
    new_pack_in_view(&mut h);
    script.will_save(&dir.path().join("pack.json"));
    click(&mut h, "Save pack");
    let keys = chainsmith::registry::keys::generate(&dir.path().join("signer")).unwrap();
    script.will_open(&keys.public_key);
    click(&mut h, "Sign…");
    refused_with(&h, "this is the public key; pick the private one (signer.private.pem beside it)", "invalid_request");
}

#[test]
fn a_parameter_name_tokens_cannot_read_says_which_names_work() {
    let mut h = start(Script::default());
    new_pack_in_view(&mut h);
    click(&mut h, "+ Add chain");
    click(&mut h, "+ Add parameter");
    type_into(&mut h, "parameter name", "1x");
    h.key_press(Key::Enter);
    h.run();
    refused_with(&h, "use letters, digits and _, starting with a letter or _", "invalid_request");
}

#[test]
fn the_pack_views_problems_say_what_to_do_where_by_label_and_the_code_last() {
    let mut h = start(Script::default());
    new_pack_in_view(&mut h);
    click(&mut h, "+ Add chain");
    click(&mut h, "+ Add parameter");
    let message = "parameter \"param1\" is declared but no token uses it: write {{params.param1}} where its value \
                   belongs, or remove it";
    let row: Vec<String> = h
        .query_all(By::new().role(Role::Label))
        .map(|n| n.accesskit_node().label().or_else(|| n.value()).unwrap_or_default())
        .collect();
    let at = row.iter().position(|l| l == message).unwrap_or_else(|| panic!("{row:?}"));
    // blank_chain labels a new chain "New chain N".
    assert_eq!(row[at + 1..at + 3], ["chain New chain 1 › parameters/properties/param1", "parameter_unused"]);
}

#[test]
fn dependencies_without_node_packs_say_how_to_load_them() {
    let app = App::new(
        StartOptions {
            files: Vec::new(),
            dialogs: Box::new(Script::default()),
            recovery_file: None,
            packs: chainsmith::pack::LoadOutcome::default(),
        },
        None,
    );
    let mut h = harness(app);
    new_pack_in_view(&mut h);
    click(&mut h, "Compute from catalog");
    refused_with(
        &h,
        "Open the node packs (File › Open pack folder…), then Compute from catalog again",
        "invalid_request",
    );
}

/// Right-click the tile, Publish as tool….
fn publish_tile(h: &mut Harness<'_, App>, tile: &str) {
    h.get_by_label(tile).click_secondary();
    h.run();
    click(h, "Publish as tool…");
}

#[test]
fn a_lowered_safety_tier_names_the_writing_nodes_by_title_and_says_how_to_undo_it() {
    let mut h = start(Script::default());
    publish_tile(&mut h, "Triage queue");
    h.get(By::new().label("Safety tier")).click();
    h.run();
    h.get(By::new().label("read").role(Role::Button)).click();
    h.run();
    let notes = labels_containing(&h, "safetyTier overridden to `read`");
    let note = notes.first().unwrap_or_else(|| panic!("the override is noted"));
    // Nodes by their names, ids after them: vendor.chainsmith.nodes declares http-request,
    // pager-send and sheet-append `side-effectful`.
    for node in ["Fetch queue (fetch)", "Page on-call (page)", "Log ticket (log)"] {
        assert!(note.contains(node), "{note}");
    }
    assert!(note.ends_with("Reset (or --safety-tier write) publishes the derived tier"), "{note}");
    // The row reads severity, message, then which documents, where, and the code.
    let row: Vec<String> = h
        .query_all(By::new().role(Role::Label))
        .map(|n| n.accesskit_node().label().or_else(|| n.value()).unwrap_or_default())
        .collect();
    let at = row.iter().position(|l| l == note).expect("the note's label");
    assert_eq!(row[at - 1], "note", "{row:?}");
    assert!(row[at + 1..at + 4].iter().any(|l| l == "tool_field_adjusted"), "{:?}", &row[at - 3..at + 4]);
}

#[test]
fn a_tool_id_without_a_scope_shows_the_form_to_write() {
    let mut h = start(Script::default());
    publish_tile(&mut h, "Triage queue");
    type_into(&mut h, "Tool id", "triage");
    let shown = labels_containing(&h, "write a scope (such as the pack's name), a colon and the tool's id");
    assert!(!shown.is_empty(), "the inline error says what to write");
}

#[test]
fn the_system_dialog_starts_where_the_last_of_its_kind_was_answered() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::default();
    let mut h = start(script.clone());
    new_pack_in_view(&mut h);
    let folder = dir.path().join("packs");
    std::fs::create_dir_all(&folder).unwrap();
    script.will_save(&folder.join("pack.json"));
    click(&mut h, "Save pack as…");
    click(&mut h, "Save pack as…");
    let starts = script.starts();
    assert_eq!(starts.len(), 2, "{starts:?}");
    assert_ne!(starts[0].as_deref(), Some(folder.as_path()));
    assert_eq!(starts[1].as_deref(), Some(folder.as_path()), "the second save starts where the first went");
    // Another kind keeps its own folder: the key picker does not start among the packs.
    click(&mut h, "Generate key…");
    assert_ne!(script.starts()[2].as_deref(), Some(folder.as_path()));
}

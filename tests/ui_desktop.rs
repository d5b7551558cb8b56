//! The editor as a new user meets it on a real desktop and with real packs (issue 9): a new
//! document never shows the old one, file dialogs work with and without a desktop portal,
//! typed numbers are never changed behind the user's back, the docked form keeps still,
//! long names do not widen panels, cards fit their ports, and blocked tiles explain
//! themselves. Real widgets are driven with real events (egui_kittest).

use chainsmith_test_env::needs;
mod common;
mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::{LoadOptions, LoadOutcome, bundled, load_path};
use chainsmith::workflow::Workflow;
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use ui_common::{Asked, Script, drag, harness, text_field, write_workflow};

fn start_with(files: Vec<PathBuf>, dialogs: Script, packs: LoadOutcome) -> Harness<'static, App> {
    harness(App::new(StartOptions { files, dialogs: Box::new(dialogs), recovery_file: None, packs }, None))
}

fn start(files: Vec<PathBuf>, dialogs: Script) -> Harness<'static, App> {
    start_with(files, dialogs, bundled())
}

fn two_nodes() -> Value {
    json!({
        "id": "parent", "name": "Parent", "version": "1.0.0",
        "nodes": [
            {"id": "a", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
            {"id": "b", "typeId": "core.end", "name": "End", "position": {"x": 600, "y": 0}, "config": {}, "inputs": {}}
        ],
        "edges": [{"id": "e1", "sourceNodeId": "a", "targetNodeId": "b"}],
        "triggers": [], "variables": [], "metadata": {}, "settings": {}
    })
}

/// The rect of a node card (canvas coordinates), when one is drawn.
fn card(h: &Harness<'_, App>, id: &str) -> Option<Rect> {
    let label = format!("({id})");
    h.query_all(By::new().label_contains(&label).role(Role::Button)).next().map(|n| n.rect())
}

fn type_into(h: &mut Harness<'_, App>, label: &str, text: &str) {
    // The form's fields scroll inside it.
    text_field(h, label).scroll_to_me();
    h.run();
    ui_common::type_into(h, label, text);
}

fn insert_button<'a>(h: &'a Harness<'_, App>) -> egui_kittest::Node<'a> {
    h.get(By::new().label("Insert").role(Role::Button))
}

fn drop_tile(h: &mut Harness<'_, App>, label: &str) {
    let from = h.get_by_label(label).rect().center();
    let to = h.state().canvas_rect().center();
    drag(h, from, to, Modifiers::NONE);
}

fn click_menu(h: &mut Harness<'_, App>, menu: &str, item: &str) {
    h.get_by_label(menu).click();
    h.run();
    h.get_by_label_contains(item).click();
    h.run();
}

#[test]
fn new_after_open_leaves_nothing_drawn_or_clickable() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_workflow(dir.path(), two_nodes());
    let mut h = start(vec![file], Script::default());
    let node = card(&h, "a").expect("the opened workflow is drawn");
    let at = h.state().canvas_to_screen(node.center());
    h.key_press_modifiers(Modifiers::COMMAND, Key::N);
    h.run();
    assert_eq!(h.state().doc().workflow().node_count(), 0);
    assert!(card(&h, "a").is_none() && card(&h, "b").is_none(), "no card of the old document is drawn");
    assert!(h.query_by_label_contains("0 nodes · 0 edges").is_some(), "the toolbar counts the new document");
    // Where the old card was, a click selects nothing.
    h.hover_at(at);
    h.run();
    for pressed in [true, false] {
        let modifiers = Modifiers::NONE;
        h.event(egui::Event::PointerButton { pos: at, button: egui::PointerButton::Primary, pressed, modifiers });
    }
    h.run();
    assert!(h.state().doc().selection.node_ids().is_empty(), "{:?}", h.state().doc().selection.node_ids());
}

#[test]
fn an_empty_workflow_is_not_a_problem() {
    let mut h = start(Vec::new(), Script::default());
    h.state_mut().settle_lint(std::time::Duration::from_secs(60));
    h.run();
    assert!(h.query_by_label_contains("no problems").is_some(), "an empty canvas reports no problems");
    assert!(h.query_by_label_contains("warnings").is_none());
}

#[test]
fn save_uses_the_system_dialog_when_there_is_one() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::default();
    let target = dir.path().join("system.json");
    script.will_save(&target);
    let mut h = start(Vec::new(), script.clone());
    assert!(h.query_by_label_contains("File dialogs: system").is_some(), "the status bar says which dialog");
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    h.run();
    assert_eq!(script.asked(), [Asked::Save("Save workflow".into())]);
    assert!(target.is_file(), "saved through the system dialog");
    assert_eq!(h.state().doc().path.as_deref(), Some(target.as_path()));
}

/// Answer the in-app dialog: type a file name and press its confirm button.
fn save_in_app(h: &mut Harness<'_, App>, name: &str) {
    type_into(h, "File name", name);
    let confirm = |n: &egui_kittest::kittest::AccessKitNode<'_>| {
        n.role() == Role::Button && matches!(n.label().as_deref(), Some("Save" | "Replace"))
    };
    // The dialog is on top of everything else; its button is the last one drawn.
    h.query_all(By::new().predicate(confirm)).last().expect("the dialog's Save button").click();
    h.run();
}

#[test]
fn without_a_portal_save_export_and_the_quit_question_use_the_in_app_dialog() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_workflow(dir.path(), two_nodes());
    let script = Script::unavailable();
    let mut h = start(vec![file.clone()], script.clone());
    assert!(h.query_by_label_contains("File dialogs: in-app").is_some(), "the status bar says which dialog");
    // Opening the in-app dialog does not repeat that note as the status.
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    h.run();
    assert_eq!(h.query_all_by_label_contains("File dialogs: in-app").count(), 1, "the note shows once");
    h.key_press(Key::Escape);
    h.run();

    // Save As: the in-app dialog opens beside the workflow's file with the suggested name.
    click_menu(&mut h, "File", "Save as");
    assert_eq!(text_field(&h, "File name").value().as_deref(), Some("parent.json"));
    assert!(h.query(By::new().label("🗋 parent.json")).is_some(), "it lists the folder of the workflow");
    save_in_app(&mut h, "copy.json");
    let copy = dir.path().join("copy.json");
    assert!(copy.is_file(), "Save As wrote through the in-app dialog");
    assert_eq!(h.state().doc().path.as_deref(), Some(copy.as_path()));

    // Export goes the same way, with its own suggested name.
    click_menu(&mut h, "File", "as the spec writes it");
    assert_eq!(text_field(&h, "File name").value().as_deref(), Some("parent.expanded.json"));
    save_in_app(&mut h, "parent.expanded.json");
    assert!(dir.path().join("parent.expanded.json").is_file());

    // A changed document that was never saved: quitting asks, its Save opens the in-app
    // dialog, and the editor quits once the file is written.
    h.key_press_modifiers(Modifiers::COMMAND, Key::N);
    h.run();
    h.state_mut().replace_workflow(Workflow::from_json(two_nodes()).unwrap(), None);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    h.key_press(Key::Delete);
    h.run();
    assert!(h.state().doc().is_dirty());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    h.run();
    assert!(h.query_by_label_contains("Save changes?").is_some());
    h.get(By::new().label("Save").role(Role::Button)).click();
    h.run();
    assert!(h.query_by_label_contains("Save changes?").is_none(), "the question gave way to the dialog");
    save_in_app(&mut h, "at-quit.json");
    assert!(dir.path().join("at-quit.json").is_file(), "the quit question's Save saved");
    assert!(!h.state().doc().is_dirty());
    assert!(h.state().quit_requested(), "and then the editor quits");
    assert_eq!(script.asked(), [], "the missing system dialog was never asked");
}

#[test]
fn number_fields_keep_what_was_typed_and_flag_it() {
    let mut h = start(Vec::new(), Script::default());
    drop_tile(&mut h, "Triage queue");
    assert!(h.state().form().is_some());
    type_into(&mut h, "Queue *", "billing");
    assert!(!insert_button(&h).accesskit_node().is_disabled());

    type_into(&mut h, "Batch size", "2.5");
    assert_eq!(text_field(&h, "Batch size").value().as_deref(), Some("2.5"), "not rounded to 3");
    assert!(h.query_all_by_label_contains("2.5 is not of type").next().is_some(), "the schema's message");
    assert!(insert_button(&h).accesskit_node().is_disabled(), "Insert stays off");

    type_into(&mut h, "Batch size", "abc");
    assert_eq!(text_field(&h, "Batch size").value().as_deref(), Some("abc"), "not reverted");
    assert!(h.query_all_by_label_contains("\"abc\" is not of type").next().is_some(), "the schema's message");
    assert!(insert_button(&h).accesskit_node().is_disabled());

    // A summary entry names its field by its title and leads to it.
    let entry = h.get(By::new().label_contains("Batch size: \"abc\" is not of type"));
    entry.click();
    h.run();
    assert!(text_field(&h, "Batch size").accesskit_node().is_focused(), "clicking the summary entry focuses the field");

    type_into(&mut h, "Batch size", "40");
    assert!(!insert_button(&h).accesskit_node().is_disabled());
    insert_button(&h).click();
    h.run();
    let wf = h.state().doc().workflow();
    let inst = wf.instances().into_iter().next().expect("inserted");
    assert_eq!(inst.params["maxTickets"], json!(40));
}

#[test]
fn fields_without_a_title_are_humanised_with_their_name_beside() {
    let mut h = start(Vec::new(), Script::default());
    drop_tile(&mut h, "Triage queue");
    // `owner.email` has no title: "Email", with the property name small beside it.
    assert!(h.query(By::new().label("Email *")).is_some(), "humanised label");
    assert!(h.query(By::new().label("email")).is_some(), "the property name beside it");
    assert!(h.query(By::new().label("maxTickets")).is_some(), "titled fields show their name too");
}

#[test]
fn the_preview_follows_the_values_without_a_pointer_move() {
    let mut h = start(Vec::new(), Script::default());
    drop_tile(&mut h, "Triage queue");
    type_into(&mut h, "Queue *", "payments");
    assert!(h.query_by_label_contains("payments").is_some(), "the preview shows the value");
    // One frame takes the typed text; the preview was drawn before the value changed, so that
    // frame must ask for the next one at once (no pointer move will come to repaint it).
    text_field(&h, "Queue *").type_text("x");
    h.step();
    h.step();
    // egui reports a pass's repaint requests once the next pass has run.
    let causes = h.ctx.repaint_causes();
    assert!(causes.iter().any(|c| c.file.ends_with("form.rs")), "a changed value asks for the next frame: {causes:?}");
    assert!(h.query_by_label_contains("paymentsx").is_some(), "the preview shows the new value");
}

#[test]
fn the_docked_form_keeps_still_and_covers_neither_ghosts_nor_inspector() {
    let mut h = start(Vec::new(), Script::default());
    let screen = Rect::from_min_size(Pos2::ZERO, egui::vec2(1440.0, 900.0));
    drop_tile(&mut h, "Triage queue");
    let insert = insert_button(&h).rect();
    let cancel = h.get(By::new().label("Cancel").role(Role::Button)).rect();
    assert!(screen.contains_rect(insert) && screen.contains_rect(cancel), "buttons on screen: {insert:?}");
    // Messages appear and go: nothing moves.
    type_into(&mut h, "Queue *", "Bad Queue");
    type_into(&mut h, "Batch size", "abc");
    h.get(By::new().label("Insert").role(Role::Button)).hover();
    h.run();
    assert_eq!(insert_button(&h).rect(), insert, "Insert stays where it was");
    type_into(&mut h, "Queue *", "billing");
    type_into(&mut h, "Batch size", "25");
    assert_eq!(insert_button(&h).rect(), insert);
    // Under the canvas, beside the inspector: the ghosts are in the canvas above it.
    let canvas = h.state().canvas_rect();
    assert!(insert.min.y > canvas.max.y, "the form is below the canvas: {insert:?} vs {canvas:?}");
    let inspector = h.get_by_label("Workflow").rect();
    assert!(insert.max.x < inspector.min.x, "the form leaves the inspector alone");
    for ghost in h.query_all(By::new().label_contains("Preview ").role(Role::Button)) {
        let r = ghost.rect();
        let on_screen = Rect::from_two_pos(h.state().canvas_to_screen(r.min), h.state().canvas_to_screen(r.max));
        assert!(canvas.contains_rect(on_screen), "ghost {on_screen:?} is framed inside the canvas {canvas:?}");
    }
}

/// The docked form's title: its top edge is the form's top edge (plus a fixed margin).
fn form_title(h: &Harness<'_, App>) -> Rect {
    h.get(By::new().label("Insert “Triage queue”").role(Role::Label)).rect()
}

#[test]
fn the_form_keeps_its_top_edge_and_size_as_messages_come_and_go() {
    let mut h = start(Vec::new(), Script::default());
    drop_tile(&mut h, "Triage queue");
    let (title, insert) = (form_title(&h), insert_button(&h).rect());
    let canvas = h.state().canvas_rect();
    // One invalid value: its message under the field and a summary of one line more.
    type_into(&mut h, "Queue *", "billing");
    type_into(&mut h, "Batch size", "abc");
    assert!(h.query_all_by_label_contains("\"abc\" is not of type").next().is_some(), "the message is shown");
    assert_eq!(form_title(&h), title, "the form's top edge stays put");
    assert_eq!(h.state().canvas_rect(), canvas, "the canvas above keeps its size");
    assert_eq!(insert_button(&h).rect(), insert, "Insert stays put");
    // More messages (a second invalid field), then none: still nothing moves.
    type_into(&mut h, "Queue *", "Bad Queue");
    assert_eq!(form_title(&h), title);
    type_into(&mut h, "Queue *", "billing");
    type_into(&mut h, "Batch size", "25");
    assert!(h.query_all_by_label_contains("is not of type").next().is_none(), "the messages are gone");
    assert_eq!((form_title(&h), insert_button(&h).rect()), (title, insert));
    assert_eq!(h.state().canvas_rect(), canvas);
}

#[test]
fn a_long_pack_name_widens_no_panel() {
    let dir = tempfile::tempdir().unwrap();
    let source = chainsmith::pack::bundled_dir().join("vendor.chainsmith.support-desk/pack.json");
    let mut manifest: Value = serde_json::from_slice(&std::fs::read(source).unwrap()).unwrap();
    let long = format!("vendor.chainsmith.{}", "support-desk-with-a-very-long-name-".repeat(5).trim_end_matches('-'));
    manifest["name"] = json!(long);
    manifest["dependencies"] = json!({});
    std::fs::create_dir(dir.path().join("long")).unwrap();
    std::fs::write(dir.path().join("long/pack.json"), manifest.to_string()).unwrap();
    let packs = load_path(&dir.path().join("long"), LoadOptions::default());
    assert_eq!(packs.packs.len(), 1, "{:?}", packs.failures);
    let mut h = start_with(Vec::new(), Script::default(), packs);
    let canvas = h.state().canvas_rect();
    let minimap = h.get(By::new().label("Minimap").role(Role::CheckBox)).rect();
    assert!(canvas.width() > 500.0, "{canvas:?}");
    drop_tile(&mut h, "Triage queue");
    type_into(&mut h, "Queue *", "billing");
    insert_button(&h).click();
    h.run();
    assert!(h.query(By::new().label("Chain instance")).is_some(), "the inspector shows the instance and its pack");
    h.run();
    assert_eq!(h.state().canvas_rect().width(), canvas.width(), "the panels keep their widths");
    let now = h.get(By::new().label("Minimap").role(Role::CheckBox)).rect();
    assert_eq!(now, minimap, "the canvas toolbar keeps its controls");
}

/// The registry's packs (tests using them are ignored where tests/env found no corpus).
fn registry() -> PathBuf {
    common::corpus_dir().join("registry/packs")
}

/// Find a tile through the search field, so it is in view.
fn search(h: &mut Harness<'_, App>, text: &str) {
    h.get(By::new().label("Search tiles")).click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get(By::new().label("Search tiles")).type_text(text);
    h.run();
}

#[needs(corpus)]
#[test]
fn real_packs_blocked_tiles_explain_themselves_and_host_types_unblock_them() {
    let registry = registry();
    let mut h = start(vec![registry], Script::default());
    search(&mut h, "starters.webhook-notify");
    // Dropping the blocked tile explains instead of opening a form.
    drop_tile(&mut h, "Webhook → Notification");
    assert!(h.state().form().is_none(), "no form for a chain that cannot be inserted");
    let window = h.get_by_label_contains("cannot be inserted").rect();
    let tile = h.get_by_label("Webhook → Notification").rect();
    assert!(!window.intersects(tile), "the explanation {window:?} leaves the tile {tile:?} in view");
    let canvas = h.state().canvas_rect();
    assert!(!window.contains(canvas.center()), "and the middle of the canvas, where tiles are dropped");
    let missing = h.query_all(By::new().label("feature.notifications.nodes.notify")).count();
    assert!(missing >= 1, "the missing typeId is named");
    assert!(h.query(By::new().label("Notify me")).is_some(), "with the node that uses it, by its name");
    assert!(h.query_by_label_contains("/dag/nodes/1/typeId").is_some(), "and where");

    // The way forward: declare the host's node types; the chain now inserts.
    h.get_by_label("Declare feature.* as host-provided").click();
    h.run();
    assert!(h.query_by_label_contains("Nothing blocks this chain").is_some());
    drop_tile(&mut h, "Webhook → Notification");
    assert!(h.state().form().is_some(), "the chain is insertable once the host provides feature.*");
}

#[needs(corpus)]
#[test]
fn palette_filters_hide_blocked_filter_by_pack_clear_search_and_group_samples() {
    let registry = registry();
    let width = start(Vec::new(), Script::default()).state().canvas_rect().width();
    let mut h = start(vec![registry], Script::default());
    assert_eq!(h.state().canvas_rect().width(), width, "140 real packs widen neither panel");
    assert!(h.query(By::new().label("Opened packs")).is_some());
    assert!(h.query(By::new().label("Bundled samples")).is_some());
    search(&mut h, "webhook");
    assert!(h.query(By::new().label("Webhook → Notification")).is_some());
    h.get(By::new().label("Hide blocked").role(Role::CheckBox)).click();
    h.run();
    assert!(h.query(By::new().label("Webhook → Notification")).is_none(), "blocked tiles hidden");
    h.get(By::new().label("Hide blocked").role(Role::CheckBox)).click();
    h.get_by_label("Clear the search").click();
    h.run();
    assert_eq!(h.get(By::new().label("Search tiles")).value().as_deref(), Some(""));
    assert!(h.query(By::new().label("Triage queue")).is_some(), "every pack shows again");
    h.get_by_label("Collapse all packs").click();
    h.run();
    assert!(h.query(By::new().label("Request Sign-off")).is_none(), "collapsed packs show no tiles");
    h.get_by_label("Expand all packs").click();
    h.run();
    assert!(h.query(By::new().label("Request Sign-off")).is_some());
}

#[needs(corpus)]
#[test]
fn settings_edit_the_node_types_the_host_provides() {
    let registry = registry();
    let mut h = start(vec![registry], Script::default());
    search(&mut h, "starters.webhook-notify");
    assert!(h.query(By::new().label("chain_unresolvable_typeid")).is_some(), "blocked before");
    h.get_by_label("Edit").click();
    h.run();
    h.get_by_label("Settings…").click();
    h.run();
    type_into(&mut h, "Add", "feature*x");
    assert!(h.query_by_label_contains("only a trailing `*`").is_some(), "a bad pattern is explained");
    assert!(h.get(By::new().label("Add type").role(Role::Button)).accesskit_node().is_disabled());
    type_into(&mut h, "Add", "feature.*");
    h.get(By::new().label("Add type").role(Role::Button)).click();
    h.run();
    assert!(h.query(By::new().label("feature.*")).is_some(), "listed in the host profile");
    assert!(h.query(By::new().label("chain_unresolvable_typeid")).is_none(), "the tile is no longer blocked");
    h.get_by_label("Remove feature.*").click();
    h.run();
    assert!(h.query(By::new().label("chain_unresolvable_typeid")).is_some(), "blocked again");
}

#[needs(corpus)]
#[test]
fn cards_grow_to_fit_many_ports_without_overlap() {
    let registry = registry();
    // The catalogued node type with the most input ports, counted from its schema file here.
    let (type_id, ports) = most_inputs(&registry);
    assert!(ports.len() >= 6, "{type_id}: {ports:?}");
    let dir = tempfile::tempdir().unwrap();
    let file = write_workflow(
        dir.path(),
        json!({"id": "many", "name": "Many", "version": "1.0.0",
               "nodes": [{"id": "n", "typeId": type_id, "name": "Many ports", "position": {"x": 0, "y": 0},
                          "config": {}, "inputs": {}}],
               "edges": [], "triggers": [], "variables": [], "metadata": {}, "settings": {}}),
    );
    let mut h = start(vec![registry, file], Script::default());
    h.key_press(Key::F);
    h.run();
    let card = card(&h, "n").expect("the node is drawn");
    let mut rects: Vec<Rect> =
        ports.iter().map(|p| h.get(By::new().label(&format!("Input {p} of n"))).rect()).collect();
    rects.sort_by(|a, b| a.min.y.total_cmp(&b.min.y));
    for w in rects.windows(2) {
        assert!(w[1].center().y - w[0].center().y >= 14.0, "ports a label line apart: {w:?}");
    }
    for r in &rects {
        assert!(r.center().y > card.min.y && r.center().y < card.max.y, "port {r:?} on the card {card:?}");
    }
}

/// The node type whose input schema declares the most properties, with their names.
fn most_inputs(registry: &Path) -> (String, Vec<String>) {
    let mut best = (String::new(), Vec::new());
    for manifest in common::files_under(registry, "json").into_iter().filter(|p| p.ends_with("pack.json")) {
        let m: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
        for node in m["nodes"].as_array().into_iter().flatten() {
            let Some(reference) = node["inputSchemaRef"].as_str() else { continue };
            let Ok(bytes) = std::fs::read(manifest.parent().unwrap().join(reference)) else { continue };
            let Ok(schema) = serde_json::from_slice::<Value>(&bytes) else { continue };
            let names: Vec<String> =
                schema["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default();
            if names.len() > best.1.len() {
                best = (node["typeId"].as_str().unwrap_or_default().to_owned(), names);
            }
        }
    }
    best
}

#[needs(corpus)]
#[test]
fn no_palette_row_is_wider_than_the_palette_with_the_real_registry() {
    let h = start(vec![registry()], Script::default());
    // The palette is the pane holding the search field, which spans the palette's width.
    let search = h.get(By::new().label("Search tiles").role(Role::SearchInput)).accesskit_node();
    let right = search.bounding_box().expect("the search field is drawn").x1;
    let pane = std::iter::successors(Some(search), |n| n.parent())
        .find(|n| n.role() == Role::Pane)
        .expect("the palette is a pane")
        .id();
    let in_palette = move |n: &egui_kittest::kittest::AccessKitNode<'_>| {
        n.bounding_box().is_some() && std::iter::successors(n.parent(), |p| p.parent()).any(|p| p.id() == pane)
    };
    let nodes: Vec<_> = h.query_all(By::new().predicate(in_palette)).map(|n| n.accesskit_node()).collect();
    assert!(nodes.len() > 1_000, "every pack's rows are laid out: {}", nodes.len());
    let too_wide: Vec<String> = nodes
        .iter()
        .filter(|n| n.bounding_box().is_some_and(|b| b.x1 > right + 0.5))
        .map(|n| format!("{:?} {:?} {:?}", n.role(), n.label().or(n.value()), n.bounding_box()))
        .collect();
    assert!(too_wide.is_empty(), "rows wider than the palette (right edge {right}): {too_wide:#?}");
    let sideways = nodes.iter().filter(|n| n.role() == Role::ScrollBar).filter_map(|n| n.bounding_box());
    assert_eq!(sideways.filter(|b| b.width() > b.height()).count(), 0, "no horizontal scrollbar");
}

#[test]
fn the_form_summary_takes_only_its_lines_and_the_last_field_scrolls_into_view() {
    let mut h = start(Vec::new(), Script::default());
    drop_tile(&mut h, "Triage queue");
    let (title, insert) = (form_title(&h), insert_button(&h).rect());
    type_into(&mut h, "Queue *", "billing");
    // One line of summary: it sits right above the buttons, not a fixed box's height above.
    let summary = h.get_by_label_contains("All parameters are valid").rect();
    assert!(summary.bottom() <= insert.top(), "{summary:?} above {insert:?}");
    assert!(insert.top() - summary.bottom() < 16.0, "{summary:?} leaves a gap above {insert:?}");
    // The fields scroll inside the form: wheel down over them to the end, and the last field
    // (the owner's email) is whole between the form's title and the summary.
    let left_column = insert.left() + 300.0;
    let last_field = |h: &Harness<'_, App>| {
        h.query_all(By::new().role(Role::TextInput))
            .map(|n| n.rect())
            .filter(|r| r.left() < left_column && r.top() > title.bottom())
            .max_by(|a, b| a.top().total_cmp(&b.top()))
            .unwrap()
    };
    assert!(last_field(&h).bottom() > summary.top(), "the last field starts out of view");
    h.hover_at(h.get(By::new().label("Queue *").role(Role::TextInput)).rect().center());
    h.run();
    for _ in 0..12 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Line,
            delta: egui::vec2(0.0, -3.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
            modifiers: Modifiers::NONE,
        });
        h.run();
    }
    let summary = h.get_by_label_contains("All parameters are valid").rect();
    let last = last_field(&h);
    assert!(
        last.top() > title.bottom() && last.bottom() <= summary.top(),
        "{last:?} between {title:?} and {summary:?}"
    );
    assert_eq!((form_title(&h), insert_button(&h).rect()), (title, insert), "scrolling moved neither");
}

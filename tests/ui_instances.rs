//! Chain instances keep the user's edits when re-parameterised (issue 36, item 1), driven
//! through the real widgets (egui_kittest): a node's config edited in the inspector survives
//! "Edit parameters…" → Apply, and a member changed by both the user and the new values is
//! listed with "Keep mine" / "Take new" before anything is applied.
//!
//! Canvas widgets live in an `egui::Scene`, whose accessibility rects are in canvas
//! coordinates (`canvas_to_screen` maps them).

mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use chainsmith::workflow::ExportMode;
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::{Value, json};
use ui_common::{Script, click_button, click_still, drag, harness, text_field, type_into};

fn start() -> Harness<'static, App> {
    let opts =
        StartOptions { files: Vec::new(), dialogs: Box::new(Script::default()), recovery_file: None, packs: bundled() };
    harness(App::new(opts, None))
}

fn json_of(h: &Harness<'_, App>) -> Value {
    h.state().doc().workflow().to_json(ExportMode::Faithful)
}

/// Where a canvas widget (node card) is on screen.
fn on_screen(h: &Harness<'_, App>, label_contains: &str) -> Pos2 {
    let rect = h.get(By::new().label_contains(label_contains).role(Role::Button)).rect();
    h.state().canvas_to_screen(rect.center())
}

/// Insert the bundled "Triage queue" chain for queue `billing`; the id of its Classify node.
fn insert_triage(h: &mut Harness<'_, App>) -> String {
    let from = h.get_by_label("Triage queue").rect().center();
    let to = h.state().canvas_rect().center();
    drag(h, from, to, Modifiers::NONE);
    type_into(h, "Queue *", "billing");
    click_button(h, "Insert");
    assert!(h.state().form().is_none(), "{:?}", h.state().last_error());
    h.key_press(Key::F);
    h.run();
    let inst = h.state().doc().workflow().instances()[0].clone();
    inst.node_ids.iter().find(|id| id.ends_with("_classify")).unwrap().clone()
}

fn threshold(h: &Harness<'_, App>, classify: &str) -> Value {
    let out = json_of(h);
    let node = out["nodes"].as_array().unwrap().iter().find(|n| n["id"] == classify).unwrap().clone();
    node["config"]["threshold"].clone()
}

/// Select the Classify node and set its threshold through the inspector's config form.
fn edit_threshold_in_inspector(h: &mut Harness<'_, App>, classify: &str, value: &str) {
    let p = on_screen(h, &format!("({classify})"));
    click_still(h, p, 1);
    type_into(h, "Threshold", value);
    click_button(h, "Apply config");
}

#[test]
fn an_inspector_edit_survives_edit_parameters_apply() {
    let mut h = start();
    let classify = insert_triage(&mut h);
    assert_eq!(threshold(&h, &classify), json!(0.7), "the chain's default");
    edit_threshold_in_inspector(&mut h, &classify, "0.9");
    assert_eq!(threshold(&h, &classify), json!(0.9), "{:?}", h.state().last_error());

    // Edit parameters… → Apply without changing anything: the edit is kept.
    click_button(&mut h, "Edit parameters…");
    assert!(h.state().form().is_some());
    click_button(&mut h, "Apply");
    assert!(h.state().form().is_none(), "{:?}", h.state().last_error());
    assert_eq!(threshold(&h, &classify), json!(0.9), "the inspector edit is kept");

    // A new queue changes the other nodes; the edit still stands.
    click_button(&mut h, "Edit parameters…");
    type_into(&mut h, "Queue *", "refunds");
    click_button(&mut h, "Apply");
    assert!(h.state().form().is_none(), "{:?}", h.state().last_error());
    assert_eq!(threshold(&h, &classify), json!(0.9));
    let out = json_of(&h);
    let url = out["nodes"][0]["config"]["url"].as_str().unwrap();
    assert!(url.contains("/queues/refunds?"), "{url}");
}

#[test]
fn a_member_changed_on_both_sides_is_listed_before_anything_is_applied() {
    let mut h = start();
    let classify = insert_triage(&mut h);
    edit_threshold_in_inspector(&mut h, &classify, "0.9");
    let before = json_of(&h);

    click_button(&mut h, "Edit parameters…");
    // The field is below the fold of the docked form: scrolled to, as a person would.
    text_field(&h, "Confidence threshold").scroll_to_me();
    h.run();
    type_into(&mut h, "Confidence threshold", "0.8");
    assert_eq!(text_field(&h, "Confidence threshold").value().as_deref(), Some("0.8"));
    click_button(&mut h, "Apply");
    assert!(
        h.state().form().is_some(),
        "the form stays open with the conflict: threshold {}, params {:?}, {:?}",
        threshold(&h, &classify),
        h.state().doc().workflow().instances()[0].params,
        h.state().last_error()
    );
    assert_eq!(json_of(&h), before, "nothing is applied");
    let listed = format!("{classify} /config/threshold: mine 0.9, new 0.8");
    assert!(h.query_by_label(&listed).is_some(), "the form lists the conflict");
    assert!(h.get(By::new().label("Apply").role(Role::Button)).accesskit_node().is_disabled(), "until it is settled");

    h.get(By::new().label("Take new").role(Role::RadioButton)).click();
    h.run();
    click_button(&mut h, "Apply");
    assert!(h.state().form().is_none(), "{:?}", h.state().last_error());
    assert_eq!(threshold(&h, &classify), json!(0.8), "the new value, as chosen");
    assert_eq!(h.state().doc().workflow().instances()[0].params["threshold"], json!(0.8));

    // One undo step takes the whole re-parameterisation back.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(json_of(&h), before);
}

/// "Compare with saved version" (issue 36, item 4) lists what changed since the file was
/// saved: a node moved by a drag shows as its position member, old and new.
#[test]
fn compare_with_saved_version_lists_the_changed_members() {
    let (_dir, mut h) = ui_common::open_workflow(ui_common::two_nodes());
    let from = on_screen(&h, "(start)");
    drag(&mut h, from, from + egui::vec2(0.0, 120.0), Modifiers::NONE);
    let moved = json_of(&h)["nodes"][0]["position"]["y"].clone();
    assert_ne!(moved, json!(0), "the drag moved the node");
    h.get_by_label("File").click();
    h.run();
    h.get(By::new().label_contains("Compare with saved version").role(Role::Button)).click();
    h.run();
    assert!(h.query_by_label("nodes: 0 added, 0 removed, 1 member changed").is_some());
    assert!(h.query_by_label(&format!("~ start /position/y: 0 → {moved}")).is_some());
}

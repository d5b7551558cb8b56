//! Chain instances with a newer version of their chain loaded (issue 36, items 2 and 3),
//! driven through the real widgets (egui_kittest): the frame's update badge, "Review
//! update…" (computed off the UI thread), Apply and "Update all instances of this chain"
//! as one undo step each, and pinning an instance to its version. The last test runs the
//! `chainsmith upgrade --all` command line on a pinned instance.
//!
//! Canvas widgets live in an `egui::Scene`, whose accessibility rects are in canvas
//! coordinates (`canvas_to_screen` maps them).

mod common;
mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::catalog::Trust;
use chainsmith::inline::{Destination, ExpansionIdChoice, InlineRequest, inline};
use chainsmith::pack::{LoadOptions, LoadOutcome, Pack, bundled, load_bytes, load_path};
use chainsmith::workflow::{ExportMode, SpliceOptions, Workflow};
use common::big_chain::Layout;
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::{Map, Value, json};
use std::path::Path;
use std::time::{Duration, Instant};
use ui_common::{Script, click_button, harness};

const TRIAGE: &str = "support.triage";

/// The bundled support-desk pack as version 1.1.0 of itself, written into `dir`
/// (`common::support_desk`).
fn support_desk_1_1(dir: &Path) -> Pack {
    support_desk_1_1_with(dir, |_| {})
}

/// [`support_desk_1_1`] with `more` changes to its Triage chain.
fn support_desk_1_1_with(dir: &Path, more: impl Fn(&mut Value)) -> Pack {
    load_path(&common::support_desk::v1_1_with(dir, more), LoadOptions::default()).packs.remove(0)
}

fn bundled_support_desk() -> Pack {
    load_path(&common::support_desk::dir(), LoadOptions::default()).packs.remove(0)
}

/// A workflow with one "Triage queue" instance (queue billing) per expansionId, inserted
/// by the inline pipeline at 1.0.0; the first instance's Classify threshold set to 0.9 by
/// hand afterwards.
fn triage_workflow(ids: &[&str]) -> Value {
    let (trust, pack) = (Trust::default(), bundled_support_desk());
    let mut wf = Workflow::new("Parent");
    for (i, id) in ids.iter().enumerate() {
        let values: Map<String, Value> = json!({"queueName": "billing"}).as_object().unwrap().clone();
        let mut req = InlineRequest::new(&trust, &pack, TRIAGE, values);
        req.expansion_id = ExpansionIdChoice::Given((*id).to_owned());
        req.destination =
            Destination::Splice(SpliceOptions { at: Some((0.0, 700.0 * i as f64)), ..SpliceOptions::default() });
        inline(&mut wf, req).unwrap();
    }
    let mut doc = wf.to_json(ExportMode::Faithful);
    let classify = format!("support_triage_{}_classify", ids[0]);
    let node = doc["nodes"].as_array_mut().unwrap().iter_mut().find(|n| n["id"] == classify.as_str()).unwrap();
    node["config"]["threshold"] = json!(0.9);
    doc
}

/// The editor opened on `doc`, with `packs` loaded (besides nothing else).
fn start_with(dir: &Path, doc: &Value, packs: Vec<Pack>) -> Harness<'static, App> {
    let file = dir.join("wf.json");
    Workflow::from_json(doc.clone()).unwrap().save(&file, ExportMode::Faithful).unwrap();
    let packs = LoadOutcome { packs, failures: Vec::new() };
    let opts = StartOptions { files: vec![file], dialogs: Box::new(Script::default()), recovery_file: None, packs };
    let mut h = harness(App::new(opts, None));
    h.key_press(Key::F);
    h.run();
    h
}

/// Bundled packs and support-desk 1.1.0.
fn with_update(dir: &Path) -> Vec<Pack> {
    bundled_and(support_desk_1_1(dir))
}

/// The bundled packs and `v11`.
fn bundled_and(v11: Pack) -> Vec<Pack> {
    let mut packs = bundled().packs;
    packs.push(v11);
    packs
}

fn json_of(h: &Harness<'_, App>) -> Value {
    h.state().doc().workflow().to_json(ExportMode::Faithful)
}

fn node<'a>(doc: &'a Value, id: &str) -> Option<&'a Value> {
    doc["nodes"].as_array().unwrap().iter().find(|n| n["id"] == id)
}

fn instance(h: &Harness<'_, App>, key: &str) -> chainsmith::workflow::Instance {
    h.state().doc().workflow().instance(key).unwrap()
}

fn badge_label(key: &str) -> String {
    format!("Update {key} to 1.1.0 (major)")
}

/// Where a canvas widget is on screen.
fn on_screen(h: &Harness<'_, App>, label: &str, role: Role) -> Pos2 {
    let rect = h.get(By::new().label_contains(label).role(role)).rect();
    h.state().canvas_to_screen(rect.center())
}

fn press(h: &mut Harness<'_, App>, p: Pos2, button: egui::PointerButton) {
    h.hover_at(p);
    h.run_steps(3);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton { pos: p, button, pressed, modifiers: Modifiers::NONE });
    }
    h.step();
}

/// Step frame by frame until the review is computed (at most 60 s); how many frames ran
/// while it was, and the longest frame.
/// Press the update badge of the instance `key` and wait for its review.
fn open_review(h: &mut Harness<'_, App>, key: &str) {
    let p = on_screen(h, &badge_label(key), Role::Button);
    press(h, p, egui::PointerButton::Primary);
    wait_for_review(h);
}

fn wait_for_review(h: &mut Harness<'_, App>) -> (u64, Duration) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut longest = Duration::ZERO;
    while h.state().review_computing().is_some_and(|(c, _)| c) {
        assert!(Instant::now() < deadline, "the review never finished");
        let t = Instant::now();
        h.step();
        longest = longest.max(t.elapsed());
    }
    h.run();
    (h.state().review_computing().map_or(0, |(_, n)| n), longest)
}

fn undo(h: &mut Harness<'_, App>) {
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
}

#[test]
fn the_badge_opens_the_review_and_apply_updates_keeping_the_edit_in_one_undo_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start_with(dir.path(), &triage_workflow(&["t001"]), with_update(dir.path()));
    let key = "support_triage_t001_";
    let before = json_of(&h);
    // The frame shows the update, coloured as major (an exit node is gone).
    let p = on_screen(&h, &badge_label(key), Role::Button);
    press(&mut h, p, egui::PointerButton::Primary);
    assert!(h.state().review_open(), "the badge opens the review: {:?}", h.state().last_error());
    wait_for_review(&mut h);

    // Old and new side by side: the node removed, the node added, the member changed, the
    // edges, the chain's changes, and the user's edit.
    for line in [
        "1.0.0 (now)",
        "1.1.0 (new)",
        &format!("- {key}page"),
        &format!("+ {key}audit"),
        &format!("~ {key}fetch /config/timeoutMs: 15000 → 30000"),
        &format!("+ {key}log.done → {key}audit.row"),
        &format!("you: {key}classify /config/threshold set to 0.9"),
    ] {
        assert!(h.query_by_label_contains(line).is_some(), "the review lists {line:?}");
    }
    assert!(h.query_by_label_contains("major exit_node_removed").is_some(), "the semver check's kinds");

    click_button(&mut h, "Apply update");
    assert!(!h.state().review_open(), "{:?}", h.state().last_error());
    let out = json_of(&h);
    let inst = instance(&h, key);
    assert_eq!((inst.chain_version.as_str(), inst.pack_version.as_str()), ("1.1.0", "1.1.0"));
    assert_eq!(node(&out, &format!("{key}classify")).unwrap()["config"]["threshold"], json!(0.9), "the edit is kept");
    assert_eq!(node(&out, &format!("{key}fetch")).unwrap()["config"]["timeoutMs"], json!(30000));
    assert!(node(&out, &format!("{key}audit")).is_some() && node(&out, &format!("{key}page")).is_none());
    assert!(h.query_by_label(&badge_label(key)).is_none(), "up to date: no badge");

    undo(&mut h);
    assert_eq!(json_of(&h), before, "one undo step takes the whole update back");
    assert!(h.query_by_label(&badge_label(key)).is_some());
}

#[test]
fn update_all_instances_of_the_chain_from_the_frame_menu_is_one_undo_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start_with(dir.path(), &triage_workflow(&["t001", "t002"]), with_update(dir.path()));
    let before = json_of(&h);
    // The frame's context menu: "Review update…".
    let frame = h.get(By::new().label_contains("Chain instance Triage queue · t002").role(Role::Group)).rect();
    let header = h.state().canvas_to_screen(frame.min + egui::vec2(40.0, 10.0));
    press(&mut h, header, egui::PointerButton::Secondary);
    h.run();
    h.get(By::new().label_contains("Review update…").role(Role::Button)).click();
    h.run();
    assert!(h.state().review_open(), "{:?}", h.state().last_error());
    wait_for_review(&mut h);

    click_button(&mut h, "Update all instances of this chain");
    assert!(!h.state().review_open(), "{:?}", h.state().last_error());
    for key in ["support_triage_t001_", "support_triage_t002_"] {
        assert_eq!(instance(&h, key).chain_version, "1.1.0", "{key}");
    }
    assert_eq!(node(&json_of(&h), "support_triage_t001_classify").unwrap()["config"]["threshold"], json!(0.9));

    undo(&mut h);
    assert_eq!(json_of(&h), before, "one undo step takes both back");
}

#[test]
fn a_pinned_instance_has_no_badge_and_stays_pinned_through_save_and_load() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start_with(dir.path(), &triage_workflow(&["t001"]), with_update(dir.path()));
    let key = "support_triage_t001_";
    assert!(h.query_by_label(&badge_label(key)).is_some());
    let frame = h.get(By::new().label_contains("Chain instance Triage queue").role(Role::Group)).rect();
    let header = h.state().canvas_to_screen(frame.min + egui::vec2(40.0, 10.0));
    press(&mut h, header, egui::PointerButton::Secondary);
    h.run();
    h.get(By::new().label_contains("Pin chain version")).click();
    h.run();
    assert!(instance(&h, key).pinned, "{:?}", h.state().last_error());
    assert!(h.query_by_label(&badge_label(key)).is_none(), "no badge when pinned");

    // Saved and opened again: still pinned, still no badge; the inspector says so.
    let saved = json_of(&h);
    assert_eq!(saved["metadata"]["customProperties"]["chainsmith"]["instances"][0]["pinned"], json!(true));
    let again = tempfile::tempdir().unwrap();
    let h2 = start_with(again.path(), &saved, with_update(again.path()));
    assert!(h2.state().doc().workflow().instance(key).unwrap().pinned);
    assert!(h2.query_by_label(&badge_label(key)).is_none());
    drop(h2);

    // Unpinned by undo: the badge is back.
    undo(&mut h);
    assert!(!instance(&h, key).pinned);
    assert!(h.query_by_label(&badge_label(key)).is_some());
}

#[test]
fn a_new_required_parameter_is_asked_in_the_review_before_apply() {
    let dir = tempfile::tempdir().unwrap();
    // 1.1.0 also asks for a region, required and without a default.
    let v11 = support_desk_1_1_with(dir.path(), |chain| {
        let params = &mut chain["parameters"];
        params["properties"]["region"] = json!({"type": "string", "title": "Region", "minLength": 2});
        params["required"].as_array_mut().unwrap().push(json!("region"));
    });
    let mut h = start_with(dir.path(), &triage_workflow(&["t001"]), bundled_and(v11));
    let key = "support_triage_t001_";
    open_review(&mut h, key);
    assert!(h.query_by_label_contains("parameter_required_without_default").is_some(), "the chain's change is listed");
    let apply = || By::new().label("Apply update").role(Role::Button);
    assert!(h.get(apply()).accesskit_node().is_disabled(), "off until the region is given");

    // Below the fold of the review: scrolled to, as a person would.
    ui_common::text_field(&h, "Region *").scroll_to_me();
    h.run();
    ui_common::type_into(&mut h, "Region *", "eu");
    assert_eq!(ui_common::text_field(&h, "Region *").value().as_deref(), Some("eu"));
    assert!(!h.get(apply()).accesskit_node().is_disabled(), "{:?}", h.state().last_error());
    click_button(&mut h, "Apply update");
    assert!(!h.state().review_open(), "{:?}", h.state().last_error());
    let inst = instance(&h, key);
    assert_eq!((inst.chain_version.as_str(), &inst.params["region"]), ("1.1.0", &json!("eu")));
    assert_eq!(inst.params["queueName"], json!("billing"), "the recorded values carried over");
}

#[test]
fn a_carried_value_the_new_version_refuses_is_flagged_as_in_the_insert_form() {
    let dir = tempfile::tempdir().unwrap();
    // 1.1.0 allows queue names of at most 4 characters: the recorded "billing" is refused.
    let v11 = support_desk_1_1_with(dir.path(), |chain| {
        chain["parameters"]["properties"]["queueName"]["maxLength"] = json!(4);
    });
    let mut h = start_with(dir.path(), &triage_workflow(&["t001"]), bundled_and(v11));
    let key = "support_triage_t001_";
    open_review(&mut h, key);
    // Flagged at once, in words first: the field by its title, the code after.
    assert!(h.query_by_label_contains("Fix 1 value to go on").is_some(), "flagged at once");
    assert!(h.query_by_label("chain_parameter_invalid").is_some(), "the code, second");
    assert!(h.query_by_label_contains("Queue: ").is_some(), "the field named by its title");
    let apply = || By::new().label("Apply update").role(Role::Button);
    assert!(h.get(apply()).accesskit_node().is_disabled());
    ui_common::type_into(&mut h, "Queue *", "ops");
    click_button(&mut h, "Apply update");
    assert!(!h.state().review_open(), "{:?}", h.state().last_error());
    assert_eq!(instance(&h, key).params["queueName"], json!("ops"));
}

#[test]
fn a_tile_lists_the_versions_loaded_and_a_pick_inserts_that_version() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = start_with(dir.path(), &ui_common::two_nodes(), with_update(dir.path()));
    // Each Triage tile lists both versions, newest first.
    let versions: Vec<String> = h
        .query_all(By::new().role(Role::Button))
        .filter_map(|n| n.accesskit_node().label())
        .filter(|l| l == "1.1.0" || l == "1.0.0")
        .collect();
    assert_eq!(versions, ["1.1.0", "1.0.0", "1.1.0", "1.0.0"]);
    h.query_all(By::new().label("1.0.0").role(Role::Button)).next().unwrap().click();
    h.run();
    assert!(h.state().form().is_some(), "the pick opens the insert form: {:?}", h.state().last_error());
    ui_common::type_into(&mut h, "Queue *", "billing");
    click_button(&mut h, "Insert");
    assert!(h.state().form().is_none(), "{:?}", h.state().last_error());
    assert_eq!(h.state().doc().workflow().instances()[0].chain_version, "1.0.0");
}

#[test]
fn the_ui_keeps_drawing_frames_while_a_review_is_computed() {
    let dir = tempfile::tempdir().unwrap();
    let n = 3_000;
    let pack = |v: u32| {
        let path = dir.path().join(format!("big-{v}.json"));
        load_bytes(
            &path,
            common::big_chain::manifest(n, v, Layout::Grid).to_string().as_bytes(),
            LoadOptions { skip_schema: true },
        )
        .unwrap()
    };
    let (p1, p2) = (pack(1), pack(2));
    let trust = Trust::default();
    let mut wf = Workflow::new("Big parent");
    let mut req = InlineRequest::new(&trust, &p1, "grow.big", Map::new());
    req.expansion_id = ExpansionIdChoice::Given("k1".into());
    inline(&mut wf, req).unwrap();
    let doc = wf.to_json(ExportMode::Faithful);
    let mut h = start_with(dir.path(), &doc, vec![p1, p2]);
    // Fit stops at a legible zoom on the entry; F again shows the whole frame and its badge.
    h.key_press(Key::F);
    h.run();

    let clicked = Instant::now();
    let p = on_screen(&h, "Update grow_big_k1_ to 2.0.0", Role::Button);
    press(&mut h, p, egui::PointerButton::Primary);
    assert!(h.state().review_open(), "{:?}", h.state().last_error());
    let (frames, longest) = wait_for_review(&mut h);
    let total = clicked.elapsed();
    // On the UI thread the whole computation would sit in one frame and none would be drawn
    // while it ran; off it, frames keep coming, each far shorter than the computation.
    eprintln!(
        "review of a {n}-node instance: {frames} frames drawn while it computed, longest {longest:?}, in all {total:?}"
    );
    assert!(frames >= 3, "{frames} frames drawn while the review was computed ({total:?})");
    assert!(longest < total / 2, "longest frame {longest:?} of {total:?}");
    // Every tenth of the 3,000 nodes has its `v` changed by version 2.
    assert!(h.query_by_label("Node members changed (300)").is_some(), "the review arrived");
}

#[test]
fn upgrade_all_on_the_command_line_skips_a_pinned_instance_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = triage_workflow(&["t001", "t002"]);
    doc["metadata"]["customProperties"]["chainsmith"]["instances"][0]["pinned"] = json!(true);
    let wf = dir.path().join("wf.json");
    std::fs::write(&wf, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    support_desk_1_1(dir.path());
    let out = dir.path().join("out.json");
    let (a, b, o) = (wf.display().to_string(), dir.path().join("support-desk-1.1.0"), out.display().to_string());
    let answer = common::cli::ok_json(&common::cli::run(&[
        "upgrade",
        &a,
        "--pack",
        &common::support_desk::dir().display().to_string(),
        "--pack",
        &b.display().to_string(),
        "--all",
        "--prefer",
        "mine",
        "-o",
        &o,
        "--json",
    ]));
    assert_eq!(
        answer["skipped"],
        json!([{"instance": "support_triage_t001_", "reason": "pinned", "version": "1.0.0"}])
    );
    assert_eq!(answer["instances"].as_array().unwrap().len(), 1);
    let written = Workflow::from_json(serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap()).unwrap();
    let (pinned, other) =
        (written.instance("support_triage_t001_").unwrap(), written.instance("support_triage_t002_").unwrap());
    assert_eq!((pinned.chain_version.as_str(), pinned.pinned), ("1.0.0", true));
    assert_eq!(other.chain_version, "1.1.0");
}

//! Issue 37, the forms and words of the editor (egui_kittest): the Extract-as-chain dialog
//! lays its table and its preview side by side without overlap; a palette tile warns what
//! inserting it would warn; messages name nodes by their titles; a control stays under
//! the pointer in the frame after a click.

use chainsmith_test_env::needs;
mod common;
mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::pack::bundled;
use chainsmith::workflow::{ExportMode, Workflow};
use egui::accesskit::Role;
use egui::{Modifiers, Rect, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use serde_json::json;
use std::path::{Path, PathBuf};
use ui_common::{Script, chain_pack, drag, hover_still, pointer_click};

fn sized(files: Vec<PathBuf>, w: f32, h: f32) -> Harness<'static, App> {
    let app = App::new(
        StartOptions { files, dialogs: Box::new(Script::default()), recovery_file: None, packs: bundled() },
        None,
    );
    ui_common::sized(app, w, h)
}

/// start → fetch → log → finish, with ids as long as real ones; fetch holds a long url, a
/// number and a nested header, log a long string.
fn feeds(dir: &Path) -> PathBuf {
    let v = json!({
        "id": "feeds", "name": "Feeds", "version": "1.0.0",
        "nodes": [
            {"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
            {"id": "support_triage_d869_fetch", "typeId": "vendor.chainsmith.http-request", "name": "Fetch feed",
             "position": {"x": 320, "y": 0},
             "config": {"url": "https://feeds.example.test/a/rather/long/path/to/the/feed.xml?with=query&and=more", "retries": 3,
                        "headers": {"X-Feed-Authorization-Token": "a-long-token-value-for-the-feed-server"}},
             "inputs": {}},
            {"id": "support_triage_d869_log", "typeId": "vendor.chainsmith.sheet-append", "name": "Append rows", "position": {"x": 640, "y": 0},
             "config": {"sheet": "The quarterly log sheet of every feed we read"}, "inputs": {}},
            {"id": "finish", "typeId": "core.end", "name": "Finish", "position": {"x": 1280, "y": 0}, "config": {}, "inputs": {}}
        ],
        "edges": [
            {"id": "e1", "sourceNodeId": "start", "targetNodeId": "support_triage_d869_fetch"},
            {"id": "e2", "sourceNodeId": "support_triage_d869_fetch", "targetNodeId": "support_triage_d869_log"},
            {"id": "e3", "sourceNodeId": "support_triage_d869_log", "targetNodeId": "finish"}
        ],
        "triggers": [], "variables": [], "metadata": {}, "settings": {}
    });
    let p = dir.join("feeds.json");
    Workflow::from_json(v).unwrap().save(&p, ExportMode::Faithful).unwrap();
    p
}

fn rect_of(h: &Harness<'_, App>, by: By<'_>) -> Rect {
    h.get(by).rect()
}

/// Open the Extract dialog on fetch and append with every value ticked, so the preview's
/// form has a field per value.
fn open_extract(h: &mut Harness<'_, App>) {
    let a = h.state().canvas_to_screen(pos2(280.0, -60.0));
    let b = h.state().canvas_to_screen(pos2(1200.0, 200.0));
    drag(h, a, b, Modifiers::SHIFT);
    assert_eq!(h.state().doc().selection.node_ids(), ["support_triage_d869_fetch", "support_triage_d869_log"]);
    h.get(By::new().label("Extract as chain…").role(Role::Button)).click();
    h.run();
    for place in [
        "Fetch feed › config/url",
        "Fetch feed › config/retries",
        "Fetch feed › config/headers/X-Feed-Authorization-Token",
        "Append rows › config/sheet",
    ] {
        h.get(By::new().label(place).role(Role::CheckBox)).click();
        h.run();
    }
}

/// Item 6: at both sizes, no row of the values table (checkbox, name, value) reaches into
/// the preview column (tile, findings, parameter form), and every value stays inside the
/// dialog.
#[test]
fn the_extract_dialog_keeps_its_table_and_its_preview_apart() {
    for (w, hh) in [(1000.0, 700.0), (1600.0, 1000.0)] {
        let dir = tempfile::tempdir().unwrap();
        let mut h = sized(vec![feeds(dir.path())], w, hh);
        open_extract(&mut h);
        let preview = [rect_of(&h, By::new().label("Tile")), rect_of(&h, By::new().label("Its parameter form"))];
        let left_edge = preview.iter().map(|r| r.left()).fold(f32::INFINITY, f32::min);
        // The table's cells: its checkboxes and name fields (labelled by their node's title
        // and the pointer), and its value labels.
        let table: Vec<(String, Rect)> = h
            .query_all(By::new().predicate(|n| {
                let row = n.label().is_some_and(|l| l.starts_with("Fetch feed › ") || l.starts_with("Append rows › "));
                let value = n.role() == Role::Label
                    && n.value().is_some_and(|v| {
                        ["https://feeds", "The quarterly", "a-long-token"].iter().any(|p| v.starts_with(p))
                    });
                row || value
            }))
            .map(|n| (n.accesskit_node().label().or_else(|| n.value()).unwrap_or_default(), n.rect()))
            .collect();
        assert_eq!(table.len(), 4 * 2 + 3, "{w}x{hh}: the table's cells are found: {table:?}");
        // Item 11: the selection and its values go by the nodes' titles.
        assert!(!texts_with(&h, "2 nodes: Fetch feed, Append rows").is_empty(), "{:?}", texts_with(&h, "2 nodes"));
        let window = rect_of(&h, By::new().label("Resize window right edge"));
        assert!(window.right() <= w, "{w}x{hh}: the dialog stays on the screen (right edge at {})", window.right());
        for (what, r) in &table {
            assert!(r.right() <= left_edge, "{w}x{hh}: {what} at {r:?} reaches into the preview from x={left_edge}");
        }
    }
}

/// Every label or value holding `part`.
fn texts_with(h: &Harness<'_, App>, part: &str) -> Vec<String> {
    let part = part.to_owned();
    h.query_all(By::new().predicate(move |n| {
        n.label().is_some_and(|l| l.contains(&part)) || n.value().is_some_and(|v| v.contains(&part))
    }))
    .map(|n| n.accesskit_node().label().or_else(|| n.value()).unwrap_or_default())
    .collect()
}

fn chain(id: &str, label: &str, nodes: serde_json::Value) -> serde_json::Value {
    json!({"chainId": id, "version": "1.0.0", "label": label, "description": "d",
        "parameters": {"type": "object"}, "dag": {"nodes": nodes, "edges": []}})
}

/// Item 12: the banner's "Enable sub-chains" is where it was after "Declare" above it is
/// clicked, and a click at its old place enables sub-chains.
#[test]
fn a_banner_button_stays_under_the_pointer_after_the_fix_above_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut composes = chain(
        "acme.composes",
        "Composes",
        json!([{"id": "a", "typeId": "core.subWorkflow", "config": {"subChainRef": "acme.ok"}}]),
    );
    composes["subChains"] = json!([{"ref": "acme.ok"}]);
    let packs = chain_pack(
        dir.path(),
        "tiles",
        vec![
            chain(
                "acme.summary",
                "Summarise a page",
                json!([{"id": "a", "typeId": "feature.demo.summarise", "config": {}}]),
            ),
            composes,
            chain("acme.ok", "Plain", json!([{"id": "a", "typeId": "vendor.chainsmith.classify", "config": {}}])),
        ],
    );
    for (w, hh) in [(1000.0, 700.0), (1600.0, 1000.0)] {
        let mut h = sized(vec![packs.clone()], w, hh);
        let enable = || By::new().label("Enable sub-chains").role(Role::Button);
        // In a short window the banner starts folded: its title opens it.
        if h.query_all(enable()).next().is_none() {
            h.query_all(By::new().label_contains("chains are blocked")).next().unwrap().click();
            h.run();
        }
        let before = rect_of(&h, enable());
        let declare = rect_of(&h, By::new().label("Declare feature.* as host-provided").role(Role::Button));
        assert!(declare.bottom() <= before.top(), "Declare is above Enable sub-chains");
        pointer_click(&mut h, declare.center());
        // The bundled samples' chains count too.
        let banner = texts_with(&h, "chains are blocked");
        assert!(banner.iter().all(|t| t.starts_with("1 of ")), "only the composing chain is left: {banner:?}");
        assert_eq!(rect_of(&h, enable()), before, "{w}x{hh}: Enable sub-chains stayed where it was");
        assert!(!texts_with(&h, "Done: node types declared").is_empty(), "the declared row says what was done");
        pointer_click(&mut h, before.center());
        assert!(texts_with(&h, "chains are blocked").is_empty(), "{w}x{hh}: the click enabled sub-chains");
        assert!(!texts_with(&h, "No chain is blocked now").is_empty());
    }
}

/// Item 12: "Apply config" stays put when the problem above it clears, and a click at its
/// old place applies the config.
#[test]
fn apply_config_stays_under_the_pointer_when_a_problem_clears() {
    let dir = tempfile::tempdir().unwrap();
    let v = json!({"id": "w", "name": "W", "version": "1.0.0",
        "nodes": [{"id": "fetch", "typeId": "vendor.chainsmith.http-request", "name": "Fetch", "position": {"x": 0, "y": 0},
                   "config": {"method": "GET"}, "inputs": {}}],
        "edges": [], "triggers": [], "variables": [], "metadata": {}, "settings": {}});
    let p = dir.path().join("w.json");
    Workflow::from_json(v).unwrap().save(&p, ExportMode::Faithful).unwrap();
    let mut h = sized(vec![p], 1000.0, 700.0);
    let card = h.get(By::new().label_contains("(fetch)").role(Role::Button)).rect().center();
    let card = h.state().canvas_to_screen(card);
    pointer_click(&mut h, card);
    assert!(h.query_all_by_label_contains("Url is required").next().is_some(), "the stored config lacks the url");
    let apply = || By::new().label("Apply config").role(Role::Button);
    let before = rect_of(&h, apply());
    ui_common::type_into(&mut h, "Url *", "https://example.test/hook");
    assert!(h.query_all_by_label_contains("Url is required").next().is_none(), "the problem cleared");
    assert_eq!(rect_of(&h, apply()), before, "Apply config stayed where it was");
    pointer_click(&mut h, before.center());
    let config = h.state().doc().workflow().to_json(ExportMode::Faithful)["nodes"][0]["config"].clone();
    assert_eq!(config, json!({"method": "GET", "url": "https://example.test/hook"}));
}

/// Item 10: a tile whose insert would be warned says so before it is dropped: a badge with
/// the code and the reason in its tooltip, as the insert reports it.
#[test]
fn a_tile_warns_what_its_insert_would_warn() {
    let dir = tempfile::tempdir().unwrap();
    let packs = chain_pack(
        dir.path(),
        "tiles",
        vec![chain(
            "acme.dispatch",
            "Dispatch all",
            json!([{"id": "d", "typeId": "core.dispatch", "config": {"fanOutPolicy": "parallel"}}]),
        )],
    );
    let mut h = sized(vec![packs], 1000.0, 700.0);
    let badge =
        h.query_all(By::new().label("node_config_invalid")).next().expect("the tile has the code's badge").rect();
    hover_still(&mut h, badge.center());
    let tip = texts_with(&h, "Inserting it will be warned: node_config_invalid — core.dispatch config: \"parallel\"");
    assert!(!tip.is_empty(), "{:?}", texts_with(&h, "Inserting it"));
    assert!(tip[0].contains("(config field fanOutPolicy)"), "the tooltip says where: {tip:?}");
    assert!(tip[0].contains("It still inserts: fix what is warned in the inspector"), "and what to do: {tip:?}");
}

/// Item 10 on the real registry: Challenge Factory, unblocked by the banner's fixes, is
/// marked with what its insert warns (a config member its node type does not allow, and a
/// parameter its sub-chain reads that it does not supply).
#[needs(corpus)]
#[test]
fn challenge_factory_s_tile_warns_what_its_insert_warns() {
    let packs = common::corpus_dir().join("registry/packs");
    let mut h = sized(vec![packs], 1600.0, 1000.0);
    h.get(By::new().label_contains("Declare these").role(Role::Button)).click();
    h.run();
    h.get(By::new().label("Enable sub-chains").role(Role::Button)).click();
    h.run();
    ui_common::type_into(&mut h, "Search tiles", "Challenge Factory");
    for code in ["node_config_invalid", "sub_chain_param_not_supplied"] {
        assert!(h.query_all(By::new().label(code)).next().is_some(), "the tile has a {code} badge");
    }
    let tile = h.query_all(By::new().label("Challenge Factory")).next().expect("the tile").rect();
    hover_still(&mut h, tile.center());
    let tip = texts_with(&h, "Inserting it will be warned: node_config_invalid");
    assert!(tip.first().is_some_and(|t| t.contains("suitability")), "{tip:?}");
}

/// Item 10's cost: every tile's insert predicted over the real registry (every chain let
/// through: host types declared, sub-chains on) stays well under a second even in a debug
/// build; the node types' config validators are compiled once and reused.
#[needs(corpus)]
#[test]
fn predicting_every_tile_of_the_real_registry_takes_under_a_second() {
    use chainsmith::catalog::{Catalog, Trust};
    use chainsmith::editor::blockers::{Fix, pack_reports, summarise};
    let mut packs = bundled().packs;
    for entry in std::fs::read_dir(common::corpus_dir().join("registry/packs")).unwrap() {
        let manifest = entry.unwrap().path().join("pack.json");
        packs.push(chainsmith::pack::load_file(&manifest, Default::default()).unwrap());
    }
    let mut catalog = Catalog::new();
    for p in &packs {
        catalog.add_pack(p);
    }
    let mut trust = Trust { catalog: Some(catalog), ..Default::default() };
    if let Some(Fix::DeclareHostTypes(families)) =
        summarise(&packs, &pack_reports(&trust, &packs), false).declare_all_host_types()
    {
        trust.host.node_types = families;
    }
    trust.host.sub_chains = true;
    let started = std::time::Instant::now();
    let reports = pack_reports(&trust, &packs);
    let took = started.elapsed();
    let predicted =
        reports.iter().flat_map(|r| &r.findings).filter(|f| f.code == "sub_chain_param_not_supplied").count();
    eprintln!("{} packs: reports with predictions in {took:?}", packs.len());
    assert!(predicted > 0, "the sub-chain warnings are predicted");
    assert!(took < std::time::Duration::from_secs(1), "{took:?}");
}

/// Item 11: a wire that closes a loop is reported with the nodes' titles, not their ids,
/// with what to do.
#[test]
fn a_loop_is_reported_with_the_nodes_titles() {
    let dir = tempfile::tempdir().unwrap();
    let v = json!({"id": "w", "name": "W", "version": "1.0.0",
        "nodes": [
            {"id": "support_triage_d869_decide", "typeId": "core.noop", "name": "Decision", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
            {"id": "support_triage_d869_queue", "typeId": "core.noop", "name": "Fetch queue", "position": {"x": 600, "y": 0}, "config": {}, "inputs": {}}
        ],
        "edges": [{"id": "e1", "sourceNodeId": "support_triage_d869_queue", "targetNodeId": "support_triage_d869_decide"}],
        "triggers": [], "variables": [], "metadata": {}, "settings": {}});
    let p = dir.path().join("w.json");
    Workflow::from_json(v).unwrap().save(&p, ExportMode::Faithful).unwrap();
    let mut h = sized(vec![p], 1000.0, 700.0);
    let port = h.get(By::new().label("Output output of support_triage_d869_decide").role(Role::Button)).rect().center();
    let from = h.state().canvas_to_screen(port);
    let to = h.state().canvas_to_screen(pos2(600.0, 65.0));
    drag(&mut h, from, to, Modifiers::NONE);
    assert_eq!(h.state().doc().workflow().graph.edge_count(), 2, "the wire is kept");
    let said = texts_with(&h, "closes a loop");
    assert!(said.iter().any(|t| t.contains("Connect Decision ➡ Fetch queue closes a loop")), "{said:?}");
    assert!(said.iter().all(|t| !t.contains("support_triage_d869")), "no ids in the message: {said:?}");
    assert!(said.iter().all(|t| t.matches("Connect Decision").count() == 1), "said once: {said:?}");
}

/// Item 11: the findings list says where a finding is by the nodes' titles (the pointer is
/// in its tooltip), then what, then the code.
#[test]
fn the_findings_list_names_places_by_titles() {
    let dir = tempfile::tempdir().unwrap();
    let v = json!({"id": "w", "name": "W", "version": "1.0.0",
        "nodes": [
            {"id": "support_triage_d869_decide", "typeId": "core.noop", "name": "Decision", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
            {"id": "support_triage_d869_queue", "typeId": "core.noop", "name": "Fetch queue", "position": {"x": 600, "y": 0}, "config": {}, "inputs": {}}
        ],
        // A condition without `left`: one warning, on the edge.
        "edges": [{"id": "e1", "sourceNodeId": "support_triage_d869_decide", "targetNodeId": "support_triage_d869_queue",
                   "condition": {"type": "truthy"}}],
        "triggers": [], "variables": [], "metadata": {}, "settings": {}});
    let p = dir.path().join("w.json");
    Workflow::from_json(v).unwrap().save(&p, ExportMode::Faithful).unwrap();
    let mut h = sized(vec![p], 1000.0, 700.0);
    h.state_mut().settle_lint(std::time::Duration::from_secs(60));
    h.run();
    h.get(By::new().label_contains("1 warning").role(Role::Button)).click();
    h.run();
    let place = texts_with(&h, "edge Decision ➡ Fetch queue › condition");
    assert!(!place.is_empty(), "{:?}", texts_with(&h, "edge"));
    assert!(texts_with(&h, "/edges/0/condition").is_empty(), "the pointer is not the row's text");
    // Counts in words: one edge is "1 edge" in the toolbar (at 1000x700 in its form without
    // the instances, which fits) and the inspector.
    assert!(!texts_with(&h, "2 nodes · 1 edge").is_empty(), "{:?}", texts_with(&h, "2 nodes"));
    assert!(!texts_with(&h, "2 nodes, 1 edge, 0 chain instances").is_empty(), "{:?}", texts_with(&h, "2 nodes"));
}

/// Item 11: a refusal's window says what happened first, the code under it.
#[test]
fn a_refusal_says_what_happened_before_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = sized(vec![dir.path().join("gone.json")], 1000.0, 700.0);
    let e = h.state().last_error().cloned().expect("the missing file is refused");
    h.get(By::new().label(e.code)).click();
    h.run();
    let window = rect_of(&h, By::new().label("Refusal"));
    let in_window = |text: &str| {
        let wanted = text.to_owned();
        h.query_all(By::new().role(Role::Label).predicate(move |n| n.value().as_deref() == Some(wanted.as_str())))
            .map(|n| n.rect())
            // The status bar, at the bottom, says the message too: the window's is the top one.
            .filter(|r| r.top() >= window.top())
            .min_by(|a, b| a.top().total_cmp(&b.top()))
            .unwrap_or_else(|| panic!("{text} in the window"))
    };
    let (message, code) = (in_window(&e.message), in_window(e.code));
    assert!(message.bottom() <= code.top(), "message {message:?} above code {code:?}");
    // The status bar in the same order: the message (cut to its room), then the code.
    let in_bar = |wanted: fn(&str, &str) -> bool| {
        let code = e.code;
        h.query_all(By::new().role(Role::Label).predicate(move |n| n.value().is_some_and(|v| wanted(&v, code))))
            .map(|n| n.rect())
            .max_by(|a, b| a.top().total_cmp(&b.top()))
            .expect("in the status bar")
    };
    let bar_message = in_bar(|v, _| v.starts_with("✖ "));
    let bar_code = in_bar(|v, code| v == code);
    assert!(bar_message.right() <= bar_code.left(), "message {bar_message:?} before code {bar_code:?}");
}

/// Item 11: what an insert warned about names the inserted node by its title, and the
/// place selects it.
#[test]
fn an_insert_s_warning_names_the_node_it_made() {
    let dir = tempfile::tempdir().unwrap();
    let packs = chain_pack(
        dir.path(),
        "tiles",
        vec![chain(
            "acme.dispatch",
            "Dispatch all",
            json!([{"id": "d", "typeId": "core.dispatch", "name": "Fan out", "config": {"fanOutPolicy": "parallel"}}]),
        )],
    );
    let mut h = sized(vec![packs], 1600.0, 1000.0);
    let from = h.query_all(By::new().label("Dispatch all")).next().unwrap().rect().center();
    let to = h.state().canvas_rect().center();
    drag(&mut h, from, to, Modifiers::NONE);
    h.get(By::new().label("Insert").role(Role::Button)).click();
    h.run();
    assert_eq!(h.state().doc().workflow().node_count(), 1, "{:?}", h.state().last_error());
    // The insert's own count (the config, and the pack being unsigned).
    h.get(By::new().label_contains("2 warnings from this action")).click();
    h.run();
    let place = texts_with(&h, "Fan out › config/fanOutPolicy");
    assert!(!place.is_empty(), "{:?}", texts_with(&h, "fanOutPolicy"));
    h.get(By::new().label("Fan out › config/fanOutPolicy")).click();
    h.run();
    assert_eq!(h.state().doc().selection.node_ids().len(), 1, "the place selects the node");
}

//! The editor's interop windows driven without a display (egui_kittest): the Registry window
//! lists a registry folder built from the shared corpus, installs a version into the install
//! cache and opens one into the palette; a capabilities document and a node catalog
//! imported in Settings change what the palette blocks; a workflow written the way the
//! OpenWOP app writes it shows as one chain instance and is re-parameterised with the nodes
//! edited by hand listed first. Every file dialog is answered by a script, never rfd.

use chainsmith_test_env::needs;
mod common;
mod ui_common;

use chainsmith::app::{App, StartOptions};
use chainsmith::editor::registry_view::Outcome;
use chainsmith::pack::bundled;
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, Queryable};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use ui_common::{Script, click_button, click_still, harness, label_starting, menu_item, text_field, type_into};

fn start(files: Vec<PathBuf>, dialogs: Script) -> Harness<'static, App> {
    let opts = StartOptions { files, dialogs: Box::new(dialogs), recovery_file: None, packs: bundled() };
    harness(App::new(opts, None))
}

/// A registry folder holding every pack of the corpus, unsigned, built by
/// `tests/tools/make_registry.py` (Python, not chainsmith), plus one bundled sample pack
/// published and signed by chainsmith. Returns the folder and how many corpus packs there
/// are and how many of them carry no `signing` (both counted from the corpus's own files).
fn corpus_registry(root: &Path) -> (PathBuf, usize, usize) {
    let packs_dir = common::corpus_dir().join("registry/packs");
    let reg = root.join("registry");
    common::registry::tool_script("make_registry.py", &["--corpus", common::cli::s(&packs_dir), common::cli::s(&reg)]);
    let manifests: Vec<Value> = std::fs::read_dir(&packs_dir)
        .unwrap()
        .map(|e| e.unwrap().path().join("pack.json"))
        .filter(|p| p.is_file())
        .map(|p| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap())
        .collect();
    let unsigned = manifests.iter().filter(|m| m.get("signing").is_none()).count();
    // A copy, so the bundled pack is never written to (signing rewrites pack.json).
    let sample = root.join("sample");
    std::fs::create_dir_all(&sample).unwrap();
    std::fs::copy(chainsmith::pack::bundled_dir().join(SAMPLE).join("pack.json"), sample.join("pack.json")).unwrap();
    // Signed into the v2 tree, whose typeIds are pinned.
    let mut m: Value = serde_json::from_slice(&std::fs::read(sample.join("pack.json")).unwrap()).unwrap();
    for node in m["chains"].as_array_mut().unwrap().iter_mut().flat_map(|c| c["dag"]["nodes"].as_array_mut().unwrap()) {
        let pinned = format!("{}@1.0.0", node["typeId"].as_str().unwrap());
        node["typeId"] = pinned.into();
    }
    std::fs::write(sample.join("pack.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let key = ed25519_dalek::SigningKey::from_bytes(&[9u8; 32]);
    chainsmith::registry::publish::publish(&sample, &reg, Some((&key, "sample-key"))).unwrap();
    (reg, manifests.len(), unsigned)
}

/// The bundled pack the registry above also holds, signed.
const SAMPLE: &str = "vendor.chainsmith.support-desk";

fn wait_for_listing(h: &mut Harness<'_, App>) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while h.state().registry_view().is_loading() {
        assert!(Instant::now() < deadline, "the registry listing never answered");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.run();
}

/// Install and Open run in the background: step frames until the job answers.
fn wait_for_job(h: &mut Harness<'_, App>) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while h.state().registry_view().job().is_some() {
        assert!(Instant::now() < deadline, "the registry job never answered");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.run();
}

#[needs(corpus, registry_tools)]
#[test]
fn the_registry_window_lists_the_corpus_registry_installs_and_opens() {
    let root = tempfile::tempdir().unwrap();
    let (reg, corpus, unsigned) = corpus_registry(root.path());
    let count = corpus + 1;
    let cache = root.path().join("cache");
    let dialogs = Script::default();
    dialogs.will_pick_folder(&reg);
    dialogs.will_pick_folder(&cache);
    let mut h = start(Vec::new(), dialogs);
    menu_item(&mut h, "File", "Registry…");
    assert!(h.query_by_label("Registry").is_some(), "the window is open");
    click_button(&mut h, "Choose folder…");
    wait_for_listing(&mut h);
    let listed = h.state().registry_view().packs().len();
    assert_eq!(listed, count, "every pack of the corpus is listed");
    let summary = label_starting(&h, &format!("{count} of {count} packs")).expect("the count is shown");
    assert!(summary.contains("listed and verified in"), "{summary}");
    // The listing ran the real verification: the sample verified with its registry key,
    // every corpus pack without a `signing` block unsigned.
    let view = h.state().registry_view();
    let label_of = |name: &str| view.packs().iter().find(|p| p.name == name).map(|p| p.check.label());
    assert_eq!(label_of(SAMPLE).as_deref(), Some("verified (sample-key)"));
    assert_eq!(view.packs().iter().filter(|p| p.check.label() == "unsigned").count(), unsigned);

    let name = "core.openwop.workflows.kicktodo-challenge-factory";
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(common::corpus_dir().join("registry/packs").join(name).join("pack.json")).unwrap(),
    )
    .unwrap();
    let version = manifest["version"].as_str().unwrap().to_owned();
    type_into(&mut h, "Filter", "challenge-factory");
    assert!(label_starting(&h, &format!("1 of {count} packs")).is_some(), "the filter leaves one pack");
    assert!(h.query_by_label(name).is_some(), "its name is shown");

    click_button(&mut h, "Change…");
    click_button(&mut h, &format!("Install {name}@{version}"));
    wait_for_job(&mut h);
    let Some(Outcome::Installed(done)) = &h.state().registry_view().outcome else {
        panic!("installed: {:?}", h.state().registry_view().outcome)
    };
    let tgz = cache.join(name).join(&version).join(format!("{version}.tgz"));
    assert_eq!(done.tarball, tgz);
    assert!(tgz.is_file() && cache.join(name).join(&version).join(format!("{version}.json")).is_file());
    assert!(label_starting(&h, &format!("Installed {name}@{version}")).is_some(), "the result is shown");

    let before = h.state().packs().len();
    click_button(&mut h, &format!("Open {name}@{version}"));
    wait_for_job(&mut h);
    let packs = h.state().packs();
    assert_eq!(packs.len(), before + 1, "{:?}", h.state().last_error());
    let opened = packs.last().unwrap();
    assert_eq!((opened.name(), opened.version()), (name, version.as_str()));
    assert!(opened.source.ends_with(format!("{version}.tgz")), "{}", opened.source.display());
    assert!(h.query_by_label("Challenge Factory").is_some(), "its chain is a palette tile");

    // A tampered tarball: Open refuses with the integrity code, shown in the window.
    let reg_tgz = chainsmith::registry::Registry::open(&reg).unwrap().tarball_path(name, &version).unwrap();
    std::fs::write(&reg_tgz, b"tampered").unwrap();
    click_button(&mut h, &format!("Open {name}@{version}"));
    wait_for_job(&mut h);
    assert_eq!(h.state().last_error().map(|e| e.code), Some("pack_integrity_failure"));
    assert!(label_starting(&h, &format!("Open {name}@{version} refused: pack_integrity_failure")).is_some());
}

/// Whether the palette tile labelled `tile` carries the badge `code` (a label right below it).
fn tile_badge(h: &Harness<'_, App>, tile: &str, code: &str) -> bool {
    let title = h.get_by_label(tile).rect();
    let code = code.to_owned();
    h.query_all(By::new().role(Role::Label).predicate(move |n| n.value().as_deref() == Some(code.as_str()))).any(|b| {
        let b = b.rect();
        b.min.y > title.max.y && b.min.y < title.max.y + 60.0 && b.max.x < title.min.x + 400.0
    })
}

#[test]
fn capabilities_and_a_node_catalog_imported_in_settings_change_what_is_blocked() {
    let dir = tempfile::tempdir().unwrap();
    // interop §4.4's document, families at the root, from a host without compensation and
    // with a limit of one node execution.
    let caps = dir.path().join("capabilities.json");
    let doc = json!({"protocolVersion": "1.1", "protocolVersions": ["1.1"], "preferredVersion": "1.1",
        "limits": {"clarificationRounds": 3, "schemaRounds": 2, "envelopesPerTurn": 5, "maxNodeExecutions": 1},
        "compensation": {"supported": false},
        "workflowChainPacks": {"supported": true, "subChains": {"supported": true, "maxDepth": 3}},
        "capabilities": {"compensation": {"supported": false}}});
    std::fs::write(&caps, doc.to_string()).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let catalog = repo.join("tests/fixtures/app/node-catalog.json");
    let feature = repo.join("tests/fixtures/app/feature-chain.json");
    // A workflow of two nodes: over the host's limit once the document is imported.
    let wf = dir.path().join("two.json");
    let two = json!({"id": "two", "name": "Two", "version": "1.0.0",
        "nodes": [{"id": "a", "typeId": "core.noop"}, {"id": "b", "typeId": "core.noop"}], "edges": []});
    std::fs::write(&wf, two.to_string()).unwrap();
    let dialogs = Script::default();
    dialogs.will_open(&caps);
    dialogs.will_open(&catalog);
    let mut h = start(vec![feature, wf], dialogs);
    assert!(!tile_badge(&h, "Book trip", "capability_required"), "compensation is on by default");
    menu_item(&mut h, "Edit", "Settings…");
    click_button(&mut h, "Import capabilities…");
    assert!(tile_badge(&h, "Book trip", "capability_required"), "the imported host has no compensation");
    let shown = label_starting(&h, "Profile imported from").expect("what was imported is shown");
    assert!(shown.ends_with("capabilities.json (v1 families at the root)"), "{shown}");
    assert!(
        label_starting(&h, "protocol major 1 · compensation not supported · sub-chains supported, max depth 3")
            .is_some()
    );
    let limit = label_starting(&h, "host_node_limit_exceeded: The open workflow has 2 nodes").expect("the limit warns");
    assert!(limit.contains("at most 1 node execution"), "{limit}");
    // The problems bar lists it with the workflow's other findings, once the lint worker
    // has checked the workflow against the new host.
    h.state_mut().settle_lint(std::time::Duration::from_secs(60));
    h.run();
    h.get(By::new().label_contains(" warning").role(Role::Button)).click();
    h.run();
    // The list lays out only the rows in view: scroll until the finding is among them.
    // Below the canvas: the palette's tiles predict the same warning for their inserts.
    let in_list = |h: &Harness<'_, App>| {
        let below = h.state().canvas_rect().bottom();
        let limit =
            |n: &egui_kittest::kittest::AccessKitNode<'_>| n.value().as_deref() == Some("host_node_limit_exceeded");
        h.query_all(By::new().role(Role::Label).predicate(limit)).filter(|n| n.rect().top() > below).count()
    };
    for _ in 0..30 {
        if in_list(&h) > 0 {
            break;
        }
        let code =
            |n: &egui_kittest::kittest::AccessKitNode<'_>| n.value().as_deref() == Some("workflow_schema_violation");
        let Some(row) = h.query_all(By::new().predicate(code)).next() else { break };
        row.scroll_down();
        h.run();
    }
    assert_eq!(in_list(&h), 1, "the problems list names it once");

    let feature_tile = "Summarise a page";
    let blocked = |h: &Harness<'_, App>| tile_badge(h, feature_tile, "chain_unresolvable_typeid");
    let before = blocked(&h);
    click_button(&mut h, "Import node catalog…");
    let types = label_starting(&h, "Host node types from").expect("the imported types are shown");
    assert!(types.ends_with("feature.demo.summarise, feature.demo.translate"), "{types}");
    assert!(before && !blocked(&h), "the host's node type resolves once its catalog is imported");
}

#[test]
fn an_app_written_workflow_is_one_instance_re_parameterised_with_hand_edits_shown() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut doc: Value = serde_json::from_slice(
        &std::fs::read(repo.join("tests/fixtures/app/ticket-triage.app-workflow.json")).unwrap(),
    )
    .unwrap();
    let classify = "vendor_example_ticket-triage_fd9b00f727d5_classify";
    doc["nodes"][1]["config"]["note"] = json!("typed by hand");
    let wf = dir.path().join("triage.json");
    std::fs::write(&wf, doc.to_string()).unwrap();
    let mut h = start(vec![repo.join("tests/fixtures/app/ticket-triage.json"), wf], Script::default());
    assert_eq!(h.state().doc().workflow().node_count(), 2, "{:?}", h.state().last_error());

    // One frame around both nodes; a double-click on it opens the re-parameterisation.
    let frame = h.get(By::new().label("Chain instance Ticket triage · fd9b00f727d5 (OpenWOP app)").role(Role::Group));
    let corner = frame.rect().min + egui::vec2(12.0, 10.0);
    let at = h.state().canvas_to_screen(corner);
    click_still(&mut h, at, 2);
    assert!(h.state().app_reparam_open(), "{:?}", h.state().last_error());
    assert!(label_starting(&h, "Edited by hand since the expansion (1)").is_some());
    assert!(h.query_by_label(&format!("{classify}: config edited by hand")).is_some(), "the edited node is named");
    assert_eq!(h.state().doc().selection.node_ids(), [classify], "and selected on the canvas");
    assert_eq!(text_field(&h, "queue").value().as_deref(), Some("billing"), "the recorded values");

    type_into(&mut h, "queue", "sales");
    click_button(&mut h, "Re-parameterise");
    // The note was typed by hand and the new queue changes it too: a conflict, listed in the
    // window with nothing applied until it is settled.
    assert!(h.state().app_reparam_open(), "the window comes back with the conflict");
    let unchanged = h.state().doc().workflow().to_json(chainsmith::workflow::ExportMode::Faithful);
    assert_eq!(unchanged["metadata"]["expansionId"], "fd9b00f727d5");
    // Listed in the window (and named in the status bar).
    let listed = "/config/note: mine \"typed by hand\", new \"for sales\"";
    assert!(h.query_all_by_label_contains(listed).count() >= 2, "the conflict is listed");
    h.get(By::new().label("Take new").role(Role::RadioButton)).click();
    h.run();
    click_button(&mut h, "Re-parameterise");
    assert!(!h.state().app_reparam_open(), "{:?}", h.state().last_error());
    let canonical = r#"{"maxTickets":40,"provider":"anthropic","queue":"sales"}"#;
    let id = app_expansion_id(canonical);
    let out = h.state().doc().workflow().to_json(chainsmith::workflow::ExportMode::Faithful);
    let p = format!("vendor_example_ticket-triage_{id}_");
    assert_eq!(out["metadata"]["expansionId"], json!(id));
    assert_eq!(out["nodes"][0]["id"], json!(format!("{p}fetch")));
    assert_eq!(out["nodes"][0]["config"]["url"], "https://tickets.example/sales?limit=40");
    assert_eq!(out["nodes"][1]["config"]["note"], "for sales", "the new value, as chosen");
    assert_eq!(out["edges"][0]["sourceNodeId"], json!(format!("{p}fetch")));
    let title = format!("Chain instance Ticket triage · {id} (OpenWOP app)");
    assert!(h.query_by_label(&title).is_some(), "still one frame, under the new id");

    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    let undone = h.state().doc().workflow().to_json(chainsmith::workflow::ExportMode::Faithful);
    assert_eq!(undone["metadata"]["expansionId"], "fd9b00f727d5");
    assert_eq!(undone["nodes"][1]["config"]["note"], "typed by hand");
}

/// The app's expansionId (interop §5) from its formula: 12 hex digits of
/// sha256("<chainId>@<version>:" + sorted-key JSON of the resolved values).
fn app_expansion_id(canonical: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("vendor.example.ticket-triage@1.2.0:{canonical}").as_bytes());
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_sub_chain_node_opens_its_child_read_only_and_exports_the_bundle() {
    use chainsmith::expand::{ExpandOptions, expand};
    use chainsmith::workflow::{ExportMode, SpliceOptions, Workflow, splice};
    let dir = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pack_path = repo.join("tests/fixtures/subchain/packs/two-level.json");
    // The parent as the editor inserts it for a host with sub-chains: the node keeps its ref.
    let pack = chainsmith::pack::load_path(&pack_path, Default::default()).packs.remove(0);
    let host = chainsmith::catalog::HostProfile { sub_chains: true, ..Default::default() };
    let opts = ExpandOptions { expansion_id: Some("ab12".into()), host, ..Default::default() };
    let values = json!({"topic": "tides"}).as_object().unwrap().clone();
    let exp = expand(&pack, "vendor.test.parent", values, &opts).unwrap();
    let mut wf = Workflow::new("Parent");
    splice(&mut wf, &exp, &SpliceOptions::default()).unwrap();
    let wf_path = dir.path().join("parent.json");
    wf.save(&wf_path, ExportMode::Faithful).unwrap();
    // The child id the reference `expandChainTree` minted for this chain (its vector).
    let vector: Value =
        serde_json::from_slice(&std::fs::read(repo.join("tests/fixtures/subchain/vectors/two-level.json")).unwrap())
            .unwrap();
    let child_id = vector["expected"]["subChainWorkflowIds"][0].as_str().unwrap().to_owned();

    let bundle = dir.path().join("bundle/parent.json");
    std::fs::create_dir_all(bundle.parent().unwrap()).unwrap();
    let dialogs = Script::default();
    dialogs.will_save(&bundle);
    let mut h = start(vec![pack_path, wf_path], dialogs);
    let run = "vendor_test_parent_ab12_run";
    let card = h.get(By::new().label_contains(&format!("({run})")).role(Role::Button)).rect();
    let at = h.state().canvas_to_screen(card.center());
    h.hover_at(at);
    h.run();
    for pressed in [true, false] {
        let (button, modifiers) = (egui::PointerButton::Secondary, Modifiers::NONE);
        h.event(egui::Event::PointerButton { pos: at, button, pressed, modifiers });
    }
    h.run();
    let editable = |h: &Harness<'_, App>| {
        let field = |n: &egui_kittest::kittest::AccessKitNode<'_>| {
            matches!(n.role(), Role::TextInput | Role::MultilineTextInput | Role::SearchInput)
        };
        h.query_all(By::new().predicate(field)).count()
    };
    let (fields, parent_nodes) = (editable(&h), h.state().doc().workflow().node_count());
    click_button(&mut h, "Open child workflow");
    let view = h.state().child_view().expect("the child is shown");
    assert_eq!(view.workflow_id, child_id, "{:?}", h.state().last_error());
    // The child the reference minted: the same nodes (by fragment id and type) and edges.
    let want = &vector["expected"]["children"][0];
    let want_nodes: Vec<(String, &str)> = want["idMap"]
        .as_object()
        .unwrap()
        .keys()
        .zip(want["nodes"].as_array().unwrap())
        .map(|(fragment, n)| (fragment.clone(), n["typeId"].as_str().unwrap()))
        .collect();
    let got_nodes: Vec<(String, String)> = view
        .workflow
        .nodes_in_order()
        .into_iter()
        .map(|ix| (view.workflow.graph[ix].id().to_owned(), view.workflow.graph[ix].type_id().to_owned()))
        .collect();
    assert_eq!(got_nodes.len(), want_nodes.len(), "{got_nodes:?}");
    for ((id, type_id), (fragment, want_type)) in got_nodes.iter().zip(&want_nodes) {
        assert!(
            id.ends_with(&format!("_{fragment}")) && type_id == want_type,
            "{id} {type_id} ≠ {fragment} {want_type}"
        );
    }
    assert_eq!(view.workflow.graph.edge_count(), want["edges"].as_array().unwrap().len());
    let child_nodes = want_nodes.len();
    assert!(h.query_by_label(&child_id).is_some(), "the window names the child");
    assert!(label_starting(&h, &format!("{child_nodes} nodes")).is_some());
    // Read only: the window says so and adds no editable field; the document is untouched.
    assert!(h.query_by_label_contains("Read-only.").is_some(), "the window says it is read only");
    assert_eq!(editable(&h), fields, "the child window offers nothing to edit");
    assert_eq!(h.state().doc().workflow().node_count(), parent_nodes, "the open document is still the parent");
    assert!(!h.state().doc().is_dirty());

    click_button(&mut h, "Export bundle…");
    let parent: Value = serde_json::from_slice(&std::fs::read(&bundle).unwrap()).unwrap();
    let node = parent["nodes"].as_array().unwrap().iter().find(|n| n["id"] == run).unwrap();
    assert_eq!(node["config"]["workflowId"], json!(child_id), "the ref became the child's id");
    assert!(node["config"].get("subChainRef").is_none());
    let child: Value =
        serde_json::from_slice(&std::fs::read(bundle.with_file_name(format!("{child_id}.json"))).unwrap()).unwrap();
    assert_eq!(child["id"], json!(child_id));
    assert_eq!(child["nodes"].as_array().unwrap().len(), child_nodes);
    let status = label_starting(&h, "Exported bundle").expect("the status says what was written");
    assert!(status.contains(": the workflow and 1 child workflow"), "{status}");
}

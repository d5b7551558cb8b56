use super::*;
use crate::catalog::Trust;
use crate::editor::clipboard::{clipboard_json, parse_clipboard};
use crate::editor::history::MAX_UNDO;
use crate::editor::preview::{DropEdge, Placement, request};
use crate::pack::{Pack, bundled};
use crate::workflow::ExportMode;
use serde_json::json;
use std::collections::BTreeSet;

fn sample() -> Workflow {
    Workflow::from_json(json!({
        "id": "wf", "name": "wf", "version": "1.0.0",
        "nodes": [
            {"id": "a", "typeId": "core.start", "name": "A", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
            {"id": "b", "typeId": "core.end", "name": "B", "position": {"x": 400, "y": 0}, "config": {}, "inputs": {}}
        ],
        "edges": [{"id": "e1", "sourceNodeId": "a", "targetNodeId": "b"}],
        "triggers": [], "variables": [], "metadata": {}, "settings": {}
    }))
    .unwrap()
}

fn set(target: Target, key: &str, value: Value) -> Command {
    Command::SetMember { member: Member::new(target, key).unwrap(), value: Some(value) }
}

fn snapshot(doc: &Document) -> Value {
    doc.workflow().to_json(ExportMode::Faithful)
}

fn triage_pack() -> Pack {
    bundled().packs.into_iter().find(|p| p.chain("support.triage").is_some()).unwrap()
}

/// Insert support.triage as `t001` at `at`, optionally onto an edge, as the editor does.
fn insert_triage(doc: &mut Document, at: (f64, f64), on_edge: Option<DropEdge>) -> Result<Outcome, Error> {
    let (trust, pack) = (Trust::default(), triage_pack());
    let values = json!({"queueName": "billing"}).as_object().unwrap().clone();
    let placement = Placement::Insert { at, on_edge, after: None };
    doc.inline(request(&trust, &pack, "support.triage", values, "t001", &[], &placement))
}

#[test]
fn every_command_undoes_and_redoes_exactly() {
    let mut doc = Document::new(sample(), None);
    let wf = doc.workflow().clone();
    let seq = doc.workflow().graph.edge_weights().next().unwrap().seq;
    let commands = vec![
        Command::MoveNodes(vec![("a".into(), (10.5, 20.25))]),
        set(Target::Node("a".into()), "name", json!("Start")),
        set(Target::Edge(seq), "label", json!("go")),
        Command::Connect {
            source: "a".into(),
            source_port: "alt".into(),
            target: "b".into(),
            target_port: "input".into(),
        },
        Command::Delete { nodes: vec!["b".into()], edges: vec![] },
        Command::Paste { nodes: vec![wf.graph[wf.node("a").unwrap()].clone()], edges: vec![], offset: (40.0, 40.0) },
        Command::RemoveInstance { key: "support_triage_t001_".into() },
        set(Target::Workflow, "name", json!("Renamed")),
    ];
    let mut states = vec![snapshot(&doc)];
    for (i, c) in commands.into_iter().enumerate() {
        if i == 4 {
            insert_triage(&mut doc, (0.0, 300.0), None).unwrap();
            states.push(snapshot(&doc));
        }
        doc.apply(c).unwrap();
        states.push(snapshot(&doc));
    }
    for want in states.iter().rev().skip(1) {
        doc.undo().unwrap();
        assert_eq!(&snapshot(&doc), want);
    }
    assert!(!doc.is_dirty(), "back at the saved state");
    for want in states.iter().skip(1) {
        doc.redo().unwrap();
        assert_eq!(&snapshot(&doc), want);
    }
    assert!(doc.is_dirty());
}

/// Every kind of inline (onto an edge, after a node with room made, re-parameterised,
/// into a workflow without `variables` or `metadata`) undoes and redoes to the exact
/// document, member order and edge order included, from a step holding only what changed.
#[test]
fn inline_steps_undo_and_redo_exactly_without_a_copy_of_the_workflow() {
    let mut wf = sample();
    wf.swap_members(
        json!({"id": "wf", "nodes": [], "name": "wf", "edges": [], "version": "1.0.0"}).as_object().unwrap().clone(),
    );
    let mut doc = Document::new(wf, None);
    let (trust, pack) = (Trust::default(), triage_pack());
    let mut states = vec![snapshot(&doc)];
    let on_edge = DropEdge { id: "e1".into(), source: "a".into(), target: "b".into() };
    insert_triage(&mut doc, (200.0, 0.0), Some(on_edge)).unwrap();
    states.push(snapshot(&doc));
    let values = json!({"queueName": "sales"}).as_object().unwrap().clone();
    let after = crate::workflow::After { node: "a".into(), output: None };
    let placement = Placement::Insert { at: (300.0, 0.0), on_edge: None, after: Some(after) };
    doc.inline(request(&trust, &pack, "support.triage", values.clone(), "t002", &[], &placement)).unwrap();
    states.push(snapshot(&doc));
    let existing = Placement::Existing { key: "support_triage_t001_".into(), resolutions: Default::default() };
    doc.inline(request(&trust, &pack, "support.triage", values, "t001", &[], &existing)).unwrap();
    states.push(snapshot(&doc));
    assert_ne!(states[2]["nodes"], states[3]["nodes"], "re-parameterising changed a config");
    assert_ne!(states[1]["nodes"][1]["position"], states[2]["nodes"][1]["position"], "b made room");
    for want in states.iter().rev().skip(1) {
        doc.undo().unwrap();
        assert_eq!(&snapshot(&doc), want);
        assert_eq!(snapshot(&doc).to_string(), want.to_string(), "member order too");
    }
    for want in states.iter().skip(1) {
        doc.redo().unwrap();
        assert_eq!(snapshot(&doc).to_string(), want.to_string());
    }
    let mut history = std::mem::replace(&mut doc.history, History::new(true));
    while history
        .undo(|step| {
            assert!(!step.holds_a_workflow(), "an inline step holds what changed, not the workflow");
            step
        })
        .is_some()
    {}
}

#[test]
fn move_undo_keeps_integer_positions_verbatim() {
    let mut doc = Document::new(sample(), None);
    doc.apply(Command::MoveNodes(vec![("a".into(), (5.0, 5.0))])).unwrap();
    doc.undo();
    assert_eq!(snapshot(&doc)["nodes"][0]["position"].to_string(), r#"{"x":0,"y":0}"#);
}

#[test]
fn refusals_change_nothing_and_record_no_step() {
    let mut doc = Document::new(sample(), None);
    let before = snapshot(&doc);
    let same_port = Command::Connect {
        source: "a".into(),
        source_port: "output".into(),
        target: "a".into(),
        target_port: "output".into(),
    };
    assert_eq!(doc.apply(same_port).unwrap_err().code, code::VALIDATION_ERROR);
    let dup = Command::Connect {
        source: "a".into(),
        source_port: "output".into(),
        target: "b".into(),
        target_port: "input".into(),
    };
    assert_eq!(doc.apply(dup).unwrap_err().code, code::VALIDATION_ERROR);
    // Members the graph is indexed by cannot even be named in a command.
    assert!(Member::new(Target::Node("a".into()), "id").is_err());
    assert!(Member::new(Target::Edge(1), "sourceNodeId").is_err());
    assert!(Member::new(Target::Workflow, "edges").is_err());
    let gone = set(Target::Node("nope".into()), "name", json!("x"));
    assert_eq!(doc.apply(gone).unwrap_err().code, code::INVALID_REQUEST);
    assert_eq!(snapshot(&doc), before);
    assert!(!doc.can_undo() && !doc.is_dirty());
}

#[test]
fn loopback_connects_with_a_warning() {
    let mut doc = Document::new(sample(), None);
    let back = Command::Connect {
        source: "b".into(),
        source_port: "output".into(),
        target: "a".into(),
        target_port: "input".into(),
    };
    let out = doc.apply(back).unwrap();
    assert_eq!(out.warnings.len(), 1);
    assert_eq!(doc.workflow().graph.edge_count(), 2);
}

#[test]
fn drop_on_edge_replaces_only_that_edge_and_keeps_its_ports() {
    let mut wf = sample();
    let mut parallel = Map::new();
    parallel.insert("id".into(), json!("e2"));
    parallel.insert("sourceNodeId".into(), json!("a"));
    parallel.insert("sourceOutput".into(), json!("err"));
    parallel.insert("targetNodeId".into(), json!("b"));
    wf.add_edge(parallel);
    let mut doc = Document::new(wf, None);
    let on_edge = DropEdge { id: "e2".into(), source: "a".into(), target: "b".into() };
    insert_triage(&mut doc, (200.0, 200.0), Some(on_edge)).unwrap();
    let out = snapshot(&doc);
    let edges = out["edges"].as_array().unwrap();
    assert!(edges.iter().any(|e| e["id"] == "e1"), "the other edge stays");
    assert!(!edges.iter().any(|e| e["id"] == "e2"), "the dropped-on edge goes");
    let wire_in = edges.iter().find(|e| e["id"] == "support_triage_t001_in1").unwrap();
    assert_eq!(wire_in["sourceNodeId"], "a");
    assert_eq!(wire_in["sourceOutput"], "err");
    let keys: Vec<&str> = wire_in.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["id", "sourceNodeId", "sourceOutput", "targetNodeId"]);
    assert!(
        edges.iter().any(
            |e| e["sourceNodeId"].as_str().unwrap().starts_with("support_triage_t001_") && e["targetNodeId"] == "b"
        )
    );
}

#[test]
fn deleting_all_of_an_instance_forgets_it_and_undo_brings_it_back() {
    let mut doc = Document::new(sample(), None);
    let ids = insert_triage(&mut doc, (0.0, 300.0), None).unwrap().new_nodes;
    assert_eq!(ids.len(), 4);
    let with_instance = snapshot(&doc);
    doc.apply(Command::Delete { nodes: ids, edges: vec![] }).unwrap();
    assert!(doc.workflow().instances().is_empty());
    doc.undo();
    assert_eq!(snapshot(&doc), with_instance);
    assert_eq!(doc.workflow().instances().len(), 1);
}

#[test]
fn clipboard_round_trips_and_paste_renames() {
    let mut doc = Document::new(sample(), None);
    let ids: HashSet<String> = ["a".to_owned(), "b".to_owned()].into();
    let text = clipboard_json(doc.workflow(), &ids).unwrap();
    let (nodes, edges) = parse_clipboard(&text).unwrap();
    assert_eq!((nodes.len(), edges.len()), (2, 1));
    let out = doc.apply(Command::Paste { nodes, edges, offset: (40.0, 40.0) }).unwrap();
    assert_eq!(out.new_nodes, ["a-2", "b-2"]);
    let json = snapshot(&doc);
    assert_eq!(json["edges"][1]["sourceNodeId"], "a-2");
    assert_eq!(json["nodes"][2]["position"]["x"], 40.0);
    assert!(parse_clipboard("{\"nodes\": []}").is_none());
}

#[test]
fn saved_state_tracks_undo_and_the_stack_is_bounded() {
    let mut doc = Document::new(sample(), None);
    doc.apply(Command::MoveNodes(vec![("a".into(), (1.0, 1.0))])).unwrap();
    doc.mark_saved();
    doc.apply(Command::MoveNodes(vec![("a".into(), (2.0, 1.0))])).unwrap();
    assert!(doc.is_dirty());
    doc.undo();
    assert!(!doc.is_dirty());
    for i in 0..(MAX_UNDO + 10) {
        doc.apply(Command::MoveNodes(vec![("a".into(), (i as f64, 0.0))])).unwrap();
    }
    assert_eq!(doc.history.undo_len(), MAX_UNDO);
}

/// `n` nodes as a line closed back to its start, or as a fan-out from `n0`.
fn big(n: usize, fan_out: bool) -> Workflow {
    let nodes: Vec<Value> = (0..n).map(|i| json!({"id": format!("n{i}"), "typeId": "core.noop"})).collect();
    let edges: Vec<Value> = (1..=n)
        .filter(|i| !(fan_out && *i == n))
        .map(|i| {
            let (from, to) = if fan_out { (0, i) } else { (i - 1, i % n) };
            json!({"id": format!("e{i}"), "sourceNodeId": format!("n{from}"), "targetNodeId": format!("n{to}")})
        })
        .collect();
    Workflow::from_json(json!({"id": "big", "name": "Big", "version": "1", "nodes": nodes, "edges": edges})).unwrap()
}

#[test]
fn node_limit_workflows_delete_undo_redo_and_connect() {
    let n = crate::pack::MAX_FRAGMENT_NODES;
    for fan_out in [false, true] {
        let mut doc = Document::new(big(n, fan_out), None);
        let edges = doc.workflow().graph.edge_count();
        let all: Vec<String> = (0..n).map(|i| format!("n{i}")).collect::<BTreeSet<_>>().into_iter().collect();
        doc.apply(Command::Delete { nodes: all, edges: vec![] }).unwrap();
        assert_eq!((doc.workflow().node_count(), doc.workflow().graph.edge_count()), (0, 0));
        doc.undo();
        assert_eq!((doc.workflow().node_count(), doc.workflow().graph.edge_count()), (n, edges));
        doc.redo();
        assert_eq!(doc.workflow().node_count(), 0);
        doc.undo();
        // The last node already leads back to the first in both shapes' reverse: n0
        // reaches n(N-1), so this edge closes a loop through the whole graph.
        let back = Command::Connect {
            source: format!("n{}", n - 1),
            source_port: "output".into(),
            target: "n0".into(),
            target_port: "retry".into(),
        };
        let out = doc.apply(back).unwrap();
        assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
        assert_eq!(doc.workflow().graph.edge_count(), edges + 1);
    }
}

/// Issue 37 item 11: what a command says names nodes by their titles (ids stay in the
/// details), says what happens and what to do.
#[test]
fn messages_name_nodes_by_their_titles() {
    let wf = Workflow::from_json(json!({
        "id": "wf", "name": "wf", "version": "1.0.0",
        "nodes": [
            {"id": "support_triage_d869_decide", "typeId": "core.noop", "name": "Decision", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
            {"id": "support_triage_d869_queue", "typeId": "core.noop", "name": "Fetch queue", "position": {"x": 400, "y": 0}, "config": {}, "inputs": {}},
            {"id": "untitled_7", "typeId": "core.noop", "name": "", "position": {"x": 800, "y": 0}, "config": {}, "inputs": {}}
        ],
        "edges": [{"id": "e1", "sourceNodeId": "support_triage_d869_queue", "targetNodeId": "support_triage_d869_decide"}],
        "triggers": [], "variables": [], "metadata": {}, "settings": {}
    }))
    .unwrap();
    let mut doc = Document::new(wf, None);
    let connect = |s: &str, t: &str| Command::Connect {
        source: s.into(),
        source_port: "output".into(),
        target: t.into(),
        target_port: "input".into(),
    };
    let out = doc.apply(connect("support_triage_d869_decide", "support_triage_d869_queue")).unwrap();
    assert_eq!(out.label, "Connect Decision ➡ Fetch queue");
    assert_eq!(out.warnings.len(), 1);
    let w = &out.warnings[0];
    assert!(
        w.message.starts_with("Connect Decision ➡ Fetch queue closes a loop: Fetch queue already leads to Decision"),
        "{}",
        w.message
    );
    assert!(w.message.contains("undo it (Ctrl+Z)"), "{}", w.message);
    assert_eq!(w.details["sourceNodeId"], "support_triage_d869_decide", "the id stays in the details");

    let dup = doc.apply(connect("support_triage_d869_decide", "support_triage_d869_queue")).unwrap_err();
    assert!(dup.message.starts_with("Decision ➡ Fetch queue are already connected"), "{}", dup.message);
    // A node without a title goes by its id.
    let out = doc.apply(connect("support_triage_d869_queue", "untitled_7")).unwrap();
    assert_eq!(out.label, "Connect Fetch queue ➡ untitled_7");
    let out = doc.apply(Command::Delete { nodes: vec!["support_triage_d869_decide".into()], edges: vec![] }).unwrap();
    assert_eq!(out.label, "Delete Decision");
}

#[test]
fn the_status_line_says_the_first_warning_unless_it_names_the_action() {
    let mut out = Outcome { label: "Insert Triage".into(), ..Default::default() };
    assert_eq!(out.status_text(), "Insert Triage");
    out.warnings.push(Finding::warning("w_one", "/nodes/0", "first thing"));
    out.warnings.push(Finding::warning("w_two", "/nodes/1", "second thing"));
    assert_eq!(out.status_text(), "Insert Triage — first thing");
    out.warnings[0].message = "Insert Triage left a dangling edge".into();
    assert_eq!(out.status_text(), "Insert Triage left a dangling edge");
}

#[test]
fn tidying_fewer_than_two_selected_nodes_tidies_the_whole_workflow() {
    let wf = sample();
    let mut sel = Selection::default();
    sel.nodes.insert("a".into());
    let (cmd, whole) = Command::arrange_selection(Arrangement::Tidy, &wf, &sel, None);
    assert!(whole && matches!(cmd, Command::Arrange { ref nodes, .. } if nodes.is_empty()));
    let (cmd, whole) = Command::arrange_selection(Arrangement::Align(arrange::Align::Left), &wf, &sel, None);
    assert!(!whole && matches!(cmd, Command::Arrange { ref nodes, .. } if nodes == &["a"]));
    sel.nodes.insert("b".into());
    let (_, whole) = Command::arrange_selection(Arrangement::Tidy, &wf, &sel, None);
    assert!(!whole, "two selected nodes are tidied among themselves");
    let dup = Command::duplicate_selection(&wf, &sel, None);
    assert!(matches!(dup, Command::Duplicate { ref nodes, .. } if nodes == &["a", "b"]));
    sel.select_made(&[]);
    assert_eq!(sel.nodes.len(), 2, "nothing made: the selection stays");
    sel.select_made(&["c".to_owned()]);
    assert_eq!(sel.nodes.iter().collect::<Vec<_>>(), ["c"]);
}

#[test]
fn the_command_context_follows_the_selection_and_the_updates() {
    let mut doc = Document::new(sample(), None);
    let none = HashMap::new();
    let cx = doc.command_context(&none);
    assert!(cx.has_nodes && !cx.has_selection() && !cx.can_undo && !cx.instance_selected);
    doc.selection.only_node("a");
    assert_eq!((doc.command_context(&none).nodes_selected, doc.selected_instance()), (1, None));

    let new_nodes = insert_triage(&mut doc, (0.0, 300.0), None).unwrap().new_nodes;
    doc.selection.only_node(&new_nodes[0]);
    let key = doc.selected_instance().expect("one node of an instance stands for it");
    let cx = doc.command_context(&none);
    assert!(cx.instance_selected && cx.can_undo && !cx.instance_outdated && !cx.instance_pinned);
    let update = crate::instance::update::Available {
        key: key.clone(),
        chain_id: "support.triage".into(),
        from: "1.0.0".into(),
        to: "2.0.0".into(),
        level: crate::diff::Level::Major,
        pack: 0,
    };
    let available = HashMap::from([(key.clone(), update)]);
    assert!(doc.command_context(&available).instance_outdated);
    doc.selection.only_node("a");
    assert!(!doc.command_context(&available).instance_outdated, "another node, not the instance");
}

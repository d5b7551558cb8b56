use super::*;
use crate::error::code;
use crate::expand::{ExpandOptions, Expansion, expand};
use crate::pack::{LoadOptions, Pack, load_bytes};
use crate::workflow::{ExportMode, SpliceOptions, Workflow, splice};
use serde_json::{Map, Value, json};

/// Version 1.0.0: a → b. Version 2.0.0: a → b → c, with b's trigger rule and a's url changed.
pub(crate) fn pack(version: &str) -> Pack {
    let (nodes, edges) = if version == "1.0.0" {
        (
            json!([
                {"id": "a", "typeId": "core.identity", "position": {"x": 0, "y": 0},
                 "config": {"url": "https://x.test/{{params.topic}}", "threshold": "{{params.threshold}}"}},
                {"id": "b", "typeId": "core.identity", "position": {"x": 300, "y": 0}, "config": {"note": "b"}},
                {"id": "z", "typeId": "core.identity", "position": {"x": 300, "y": 200}}
            ]),
            json!([{"from": "a.out", "to": "b.in"}, {"from": "a.out", "to": "z.in"}]),
        )
    } else {
        (
            json!([
                {"id": "a", "typeId": "core.identity", "position": {"x": 0, "y": 0},
                 "config": {"url": "https://y.test/{{params.topic}}", "threshold": "{{params.threshold}}"}},
                {"id": "b", "typeId": "core.identity", "position": {"x": 300, "y": 0}, "config": {"note": "b"}},
                {"id": "c", "typeId": "core.identity", "position": {"x": 600, "y": 0}}
            ]),
            json!([{"from": "a.out", "to": "b.in"}, {"from": "b.out", "to": "c.in"}]),
        )
    };
    let m = json!({"name": "vendor.t.p", "version": version, "kind": "workflow-chain", "engines": {"openwop": "*"},
      "chains": [{"chainId": "t.two", "version": version, "label": "Two", "description": "d",
        "parameters": {"type": "object", "properties": {
            "topic": {"type": "string", "default": "x"},
            "threshold": {"type": "number", "default": 0.7}}},
        "dag": {"nodes": nodes, "edges": edges}}]});
    load_bytes(std::path::Path::new("p"), m.to_string().as_bytes(), LoadOptions { skip_schema: true }).unwrap()
}

fn values(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn expansion(version: &str, v: Value) -> Expansion {
    let o = ExpandOptions { expansion_id: Some("k1".into()), ..Default::default() };
    expand(&pack(version), "t.two", values(v), &o).unwrap()
}

/// start → instance (a … b) → done, spliced between the two.
pub(crate) fn workflow() -> (Workflow, String) {
    let mut wf = Workflow::from_json(json!({
        "id": "w", "name": "w", "version": "1.0.0",
        "nodes": [{"id": "start", "typeId": "core.start", "position": {"x": 0, "y": 0}},
                  {"id": "done", "typeId": "core.end", "position": {"x": 900, "y": 0}}],
        "edges": [{"id": "go", "sourceNodeId": "start", "targetNodeId": "done"}]
    }))
    .unwrap();
    let opts = SpliceOptions { between: Some(("start".into(), "done".into())), ..Default::default() };
    let rep = splice(&mut wf, &expansion("1.0.0", json!({"topic": "a"})), &opts).unwrap();
    (wf, rep.instance.key())
}

fn config(wf: &Workflow, id: &str) -> Value {
    wf.graph[wf.node(id).unwrap()].object()["config"].clone()
}

pub(crate) fn set_config(wf: &mut Workflow, id: &str, key: &str, v: Value) {
    let ix = wf.node(id).unwrap();
    wf.graph[ix].edit(|n| n["config"][key] = v);
}

#[test]
fn a_config_edit_survives_reparameterising_with_the_same_values() {
    let (mut wf, key) = workflow();
    assert_eq!(config(&wf, "t_two_k1_a")["threshold"], 0.7);
    set_config(&mut wf, "t_two_k1_a", "threshold", json!(0.9));
    let ix = wf.node("t_two_k1_b").unwrap();
    wf.graph[ix].set_position(999.0, 5.0);
    let edges_before: Vec<String> = wf.graph.edge_weights().map(|e| e.id().to_owned()).collect();
    let base = expansion("1.0.0", json!({"topic": "a"}));
    let done = reexpand(&mut wf, &key, &base, &base.clone(), &Resolutions::default()).unwrap();
    assert_eq!(config(&wf, "t_two_k1_a")["threshold"], 0.9, "the edit is kept");
    assert_eq!(wf.graph[wf.node("t_two_k1_b").unwrap()].position(), (999.0, 5.0), "the move is kept");
    assert_eq!(wf.graph.edge_weights().map(|e| e.id().to_owned()).collect::<Vec<_>>(), edges_before);
    assert_eq!(done.edits.len(), 1, "{:?}", done.edits);
    assert!(done.conflicts.is_empty());
}

#[test]
fn new_values_change_what_the_user_did_not_touch() {
    let (mut wf, key) = workflow();
    set_config(&mut wf, "t_two_k1_a", "threshold", json!(0.9));
    let base = expansion("1.0.0", json!({"topic": "a"}));
    let new = expansion("1.0.0", json!({"topic": "b"}));
    reexpand(&mut wf, &key, &base, &new, &Resolutions::default()).unwrap();
    assert_eq!(config(&wf, "t_two_k1_a"), json!({"url": "https://x.test/b", "threshold": 0.9}));
    let inst = wf.instance(&key).unwrap();
    assert_eq!(inst.params["topic"], "b");
}

#[test]
fn a_member_changed_on_both_sides_is_refused_until_settled() {
    let (mut wf, key) = workflow();
    set_config(&mut wf, "t_two_k1_a", "threshold", json!(0.9));
    let before = wf.to_json(ExportMode::Faithful);
    let base = expansion("1.0.0", json!({"topic": "a"}));
    let new = expansion("1.0.0", json!({"topic": "a", "threshold": 0.8}));
    let (edits, conflicts) = review(&wf, &key, &base, &new).unwrap();
    assert_eq!(edits.len(), 1);
    assert_eq!(conflicts.len(), 1);
    assert_eq!((conflicts[0].node_id.as_str(), conflicts[0].pointer.as_str()), ("t_two_k1_a", "/config/threshold"));
    let e = reexpand(&mut wf, &key, &base, &new, &Resolutions::default()).unwrap_err();
    assert_eq!(e.code, code::UPGRADE_CONFLICT);
    let listed = &e.details["conflicts"][0];
    assert_eq!((&listed["mine"], &listed["new"]), (&json!(0.9), &json!(0.8)));
    assert_eq!(wf.to_json(ExportMode::Faithful), before, "nothing is applied");

    let mut mine = wf.clone();
    reexpand(&mut mine, &key, &base, &new, &Resolutions::prefer(Choice::Mine)).unwrap();
    assert_eq!(config(&mine, "t_two_k1_a")["threshold"], 0.9);
    let mut res = Resolutions::default();
    res.set(&conflicts[0], Choice::New);
    reexpand(&mut wf, &key, &base, &new, &res).unwrap();
    assert_eq!(config(&wf, "t_two_k1_a")["threshold"], 0.8);
}

#[test]
fn an_upgrade_adds_and_removes_nodes_keeping_ids_edits_and_parent_edges() {
    let (mut wf, key) = workflow();
    set_config(&mut wf, "t_two_k1_b", "note", json!("mine"));
    // The user's own edge out of the instance, and the wiring into it.
    wf.add_edge(
        json!({"id": "mine", "sourceNodeId": "t_two_k1_b", "targetNodeId": "start"}).as_object().unwrap().clone(),
    );
    let a_pos = wf.graph[wf.node("t_two_k1_a").unwrap()].position();
    let base = expansion("1.0.0", json!({"topic": "a"}));
    let new = expansion("2.0.0", json!({"topic": "a"}));
    let edits = user_edits(&wf, &wf.instance(&key).unwrap(), &base);
    assert_eq!(edits.len(), 2, "{edits:?}");
    let done = reexpand(&mut wf, &key, &base, &new, &Resolutions::default()).unwrap();
    assert_eq!(config(&wf, "t_two_k1_a")["url"], "https://y.test/a", "the new version's change");
    assert_eq!(config(&wf, "t_two_k1_b")["note"], "mine", "the user's edit");
    assert!(!wf.contains_node("t_two_k1_z"), "removed by the new version");
    let c = wf.graph[wf.node("t_two_k1_c").unwrap()].position();
    assert_eq!(c, (a_pos.0 + 600.0, a_pos.1), "placed where the chain puts it, relative to the others");
    assert_eq!(wf.graph[wf.node("t_two_k1_a").unwrap()].position(), a_pos, "ids and positions are stable");
    let ends: Vec<(String, String)> =
        wf.graph.edge_weights().map(|e| (e.source().to_owned(), e.target().to_owned())).collect();
    for (s, t) in
        [("start", "t_two_k1_a"), ("t_two_k1_a", "t_two_k1_b"), ("t_two_k1_b", "t_two_k1_c"), ("t_two_k1_b", "start")]
    {
        assert!(ends.contains(&(s.into(), t.into())), "{s} → {t} in {ends:?}");
    }
    assert!(!ends.iter().any(|(s, t)| s == "t_two_k1_z" || t == "t_two_k1_z"));
    // z was an exit node, wired to done: that parent edge went with it, and is reported.
    assert_eq!(
        done.warnings.iter().filter(|f| f.code == code::INSTANCE_EDGE_DETACHED).count(),
        1,
        "{:?}",
        done.warnings
    );
    let inst = wf.instance(&key).unwrap();
    assert_eq!(inst.chain_version, "2.0.0");
    assert_eq!(inst.node_ids, ["t_two_k1_a", "t_two_k1_b", "t_two_k1_c"]);
    let listed: Vec<&str> = inst.edge_ids.iter().map(String::as_str).collect();
    assert!(listed.iter().all(|id| wf.has_edge_id(id)), "{listed:?}");
}

#[test]
fn a_node_the_user_removed_stays_removed() {
    let (mut wf, key) = workflow();
    let ix = wf.node("t_two_k1_b").unwrap();
    wf.remove_node(ix);
    let base = expansion("1.0.0", json!({"topic": "a"}));
    let edits = user_edits(&wf, &wf.instance(&key).unwrap(), &base);
    assert!(edits.contains(&Edit::NodeRemoved { node_id: "t_two_k1_b".into() }), "{edits:?}");
    reexpand(&mut wf, &key, &base, &expansion("1.0.0", json!({"topic": "b"})), &Resolutions::default()).unwrap();
    assert!(!wf.contains_node("t_two_k1_b"));
}

#[test]
fn the_recorded_version_is_needed() {
    let (mut wf, key) = workflow();
    let newer = expansion("2.0.0", json!({"topic": "a"}));
    let e = reexpand(&mut wf, &key, &newer, &newer.clone(), &Resolutions::default()).unwrap_err();
    assert_eq!((e.code, e.details["instance"].as_str()), (code::INSTANCE_BASE_UNAVAILABLE, Some(key.as_str())));
    let e = reexpand(&mut wf, "nope_", &newer, &newer.clone(), &Resolutions::default()).unwrap_err();
    assert_eq!(e.code, code::INSTANCE_NOT_FOUND);
    let p1 = pack("1.0.0");
    let p2 = pack("2.0.0");
    let inst = wf.instance(&key).unwrap();
    assert_eq!(base_pack(&inst, [&p2, &p1]).map(Pack::version), Some("1.0.0"));
    assert!(base_pack(&inst, [&p2]).is_none());
}

#[test]
fn newer_versions_are_found_with_the_semver_checks_level_and_pinned_instances_are_left_alone() {
    use crate::diff::Level;
    use update::{available, versions};
    let (mut wf, key) = workflow();
    let (old, minor_by_number) = (pack("1.0.0"), pack("1.1.0"));
    let packs = [old.clone(), minor_by_number.clone()];
    assert_eq!(versions(&packs, "t.two"), [("1.1.0".to_owned(), 1), ("1.0.0".to_owned(), 0)]);
    let inst = wf.instance(&key).unwrap();
    // 1.1.0 drops z, an exit node (a → z, nothing after z): the check says major, whatever
    // the version number says.
    let up = available(&inst, &packs).unwrap();
    assert_eq!((up.to.as_str(), up.level, up.pack), ("1.1.0", Level::Major, 1));
    // Without the recorded version to compare with, the version numbers' bump is all there is.
    assert_eq!(available(&inst, std::slice::from_ref(&minor_by_number)).unwrap().level, Level::Minor);
    assert!(available(&inst, std::slice::from_ref(&old)).is_none(), "up to date");

    wf.pin_instance(&key, true).unwrap();
    let reread = Workflow::from_json(wf.to_json(ExportMode::Faithful)).unwrap();
    let pinned = reread.instance(&key).unwrap();
    assert!(pinned.pinned, "pinned survives save and load");
    assert!(available(&pinned, &packs).is_none(), "no update offered for a pinned instance");
}

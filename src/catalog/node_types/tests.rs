use super::*;
use crate::pack::load_file;
use serde_json::json;

#[test]
fn workflow_check_flags_bad_configs_and_named_ports_the_type_lacks() {
    let catalog = Catalog::load(&[crate::pack::bundled_dir().join("vendor.chainsmith.nodes")]);
    let wf = Workflow::from_json(json!({"id": "w", "name": "w", "version": "1", "nodes": [
        {"id": "c", "typeId": "vendor.chainsmith.classify", "name": "c", "position": {"x": 0, "y": 0},
         "config": {"labels": ["a"]}, "inputs": {}},
        {"id": "p", "typeId": "vendor.chainsmith.pager-send", "name": "p", "position": {"x": 0, "y": 0},
         "config": {"severity": "meh"}, "inputs": {}},
        {"id": "x", "typeId": "vendor.unknown.type", "name": "x", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}}],
      "edges": [
        {"id": "ok", "sourceNodeId": "c", "sourceOutput": "urgent", "targetNodeId": "p", "targetInput": "payload"},
        {"id": "bad", "sourceNodeId": "c", "sourceOutput": "verdict", "targetNodeId": "p", "targetInput": "body"},
        {"id": "implicit", "sourceNodeId": "c", "targetNodeId": "p"},
        {"id": "unknown-type", "sourceNodeId": "x", "sourceOutput": "anything", "targetNodeId": "c", "targetInput": "ticket"}],
      "triggers": [], "variables": [], "metadata": {}, "settings": {}}))
    .unwrap();
    let findings = catalog.check_workflow(&wf);
    let found: Vec<(&str, &str)> = findings.iter().map(|f| (f.code, f.pointer.as_str())).collect();
    assert!(found.contains(&(code::NODE_CONFIG_INVALID, "/nodes/1/config")), "room is required: {found:?}");
    assert!(found.contains(&(code::NODE_CONFIG_INVALID, "/nodes/1/config/severity")), "{found:?}");
    assert!(found.contains(&(code::EDGE_PORT_UNKNOWN, "/edges/1/sourceOutput")), "{found:?}");
    assert!(found.contains(&(code::EDGE_PORT_UNKNOWN, "/edges/1/targetInput")), "{found:?}");
    assert_eq!(found.len(), 4, "defaults, known ports and uncatalogued types pass: {found:?}");
}

#[test]
fn connections_are_checked_by_port_type() {
    let catalog = Catalog::load(&[crate::pack::bundled_dir().join("vendor.chainsmith.nodes")]);
    let classify = "vendor.chainsmith.classify";
    let pager = "vendor.chainsmith.pager-send";
    let e = catalog.check_connection((classify, "urgent"), (pager, "assignee")).unwrap_err();
    assert_eq!(e.code, code::EDGE_PORT_INCOMPATIBLE);
    assert_eq!(e.message, "output \"urgent\" gives boolean, but input \"assignee\" takes string");
    assert_eq!((e.details["outputType"].as_str(), e.details["inputType"].as_str()), (Some("boolean"), Some("string")));
    assert!(catalog.check_connection((classify, "label"), (pager, "assignee")).is_ok());
    // `payload` declares no type; undeclared ports and uncatalogued types are not judged here.
    assert!(catalog.check_connection((classify, "urgent"), (pager, "payload")).is_ok());
    assert!(catalog.check_connection((classify, "nope"), (pager, "assignee")).is_ok());
    assert!(catalog.check_connection(("core.start", "output"), (pager, "assignee")).is_ok());
    // integer into number fits; number into integer does not.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("node-catalog.json");
    let typed = |t: &str| json!({"type": "object", "properties": {"v": {"type": t}}});
    std::fs::write(
        &path,
        json!({"nodes": [
            {"typeId": "x.int", "outputSchema": typed("integer"), "inputSchema": typed("integer")},
            {"typeId": "x.num", "outputSchema": typed("number"), "inputSchema": typed("number")}]})
        .to_string(),
    )
    .unwrap();
    let mut cat = Catalog::new();
    cat.add_node_catalog(&path).unwrap();
    assert!(cat.check_connection(("x.int", "v"), ("x.num", "v")).is_ok());
    let e = cat.check_connection(("x.num", "v"), ("x.int", "v")).unwrap_err();
    assert_eq!(e.message, "output \"v\" gives number, but input \"v\" takes integer");
    // Edges already in a workflow are flagged in its problems.
    let wf = Workflow::from_json(json!({"id": "w", "name": "w", "version": "1", "nodes": [
        {"id": "i", "typeId": "x.int"}, {"id": "n", "typeId": "x.num"}],
      "edges": [
        {"id": "widen", "sourceNodeId": "i", "sourceOutput": "v", "targetNodeId": "n", "targetInput": "v"},
        {"id": "narrow", "sourceNodeId": "n", "sourceOutput": "v", "targetNodeId": "i", "targetInput": "v"}]}))
    .unwrap();
    let found: Vec<(&str, String)> = cat.check_workflow(&wf).into_iter().map(|f| (f.code, f.pointer)).collect();
    assert_eq!(found, [(code::EDGE_PORT_INCOMPATIBLE, "/edges/1".to_owned())]);
}

/// A node pack folder with one typed node and its schema files.
fn node_pack(dir: &Path, name: &str, version: &str) {
    let manifest = json!({
        "name": name, "version": version,
        "engines": {"openwop": ">=1.0.0"},
        "runtime": {"language": "javascript", "entry": "dist/index.js"},
        "nodes": [{
            "typeId": "vendor.acme.send", "version": "1.0.0", "category": "integration",
            "role": "side-effect", "capabilities": ["side-effectful"],
            "configSchemaRef": "schemas/send.config.json",
            "inputSchemaRef": "schemas/send.input.json",
            "outputSchemaRef": "schemas/send.output.json",
            "outputs": {"receipt": {"sensitive": false}}
        }, {
            "typeId": "vendor.acme.pure", "version": "1.0.0", "category": "data", "role": "pure",
            "configSchemaRef": "schemas/missing.json",
            "inputSchemaRef": "../outside.json"
        }]
    });
    std::fs::create_dir_all(dir.join("schemas")).unwrap();
    std::fs::write(dir.join("pack.json"), serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    let config = json!({"type": "object", "required": ["to"], "additionalProperties": false,
        "properties": {"to": {"type": "string"}, "retries": {"type": "integer", "minimum": 0}}});
    let input = json!({"type": "object", "additionalProperties": false, "properties": {"body": {}, "subject": {}}});
    let output = json!({"type": "object", "properties": {"messageId": {}}, "additionalProperties": false});
    std::fs::write(dir.join("schemas/send.config.json"), config.to_string()).unwrap();
    std::fs::write(dir.join("schemas/send.input.json"), input.to_string()).unwrap();
    std::fs::write(dir.join("schemas/send.output.json"), output.to_string()).unwrap();
}

fn chain_pack(nodes: Value, edges: Value) -> Pack {
    let m = json!({
        "name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"},
        "chains": [{"chainId": "acme.send", "version": "1.0.0", "label": "Send", "description": "d",
            "parameters": {"type": "object", "properties": {"to": {"type": "string"}}},
            "dag": {"nodes": nodes, "edges": edges}}]
    });
    crate::pack::load_bytes(Path::new("mem/pack.json"), m.to_string().as_bytes(), LoadOptions::default()).unwrap()
}

#[test]
fn catalog_reads_types_schemas_and_reports_bad_refs() {
    let dir = tempfile::tempdir().unwrap();
    node_pack(dir.path(), "vendor.acme.nodes", "1.0.0");
    let cat = Catalog::load(&[dir.path()]);
    assert_eq!(cat.len(), 2);
    assert_eq!(cat.packs()[0].type_ids, ["vendor.acme.send", "vendor.acme.pure"]);
    let send = cat.node_type("vendor.acme.send").unwrap();
    assert_eq!((send.pack_name(), send.category(), send.role()), ("vendor.acme.nodes", "integration", "side-effect"));
    assert!(cat.is_side_effectful("vendor.acme.send") && !cat.is_side_effectful("vendor.acme.pure"));
    let codes: Vec<_> = cat.findings().iter().map(|f| (f.code, f.pointer.as_str())).collect();
    assert!(codes.contains(&(code::NODE_SCHEMA_UNAVAILABLE, "/nodes/1/configSchemaRef")), "{codes:?}");
    assert!(codes.contains(&(code::NODE_SCHEMA_UNAVAILABLE, "/nodes/1/inputSchemaRef")), "{codes:?}");
    assert!(cat.resolves("vendor.acme.send") && cat.resolves("core.anything") && !cat.resolves("vendor.x.y"));
    // v2 pins: the bare id resolves and the catalogued version must be exactly the pin.
    assert!(cat.resolves("vendor.acme.send@1.0.0") && cat.resolves("core.anything@9.9.9"));
    assert!(!cat.resolves("vendor.acme.send@1.0.1") && !cat.resolves("vendor.x.y@1.0.0"));
    assert!(cat.ports("vendor.acme.send@1.0.0").is_some());
    // A broken schema file leaves the type resolvable, just unchecked.
    assert!(cat.check_config("vendor.acme.pure", &json!({"anything": 1})).is_empty());
}

#[test]
fn ports_come_from_schema_properties_and_outputs() {
    let dir = tempfile::tempdir().unwrap();
    node_pack(dir.path(), "vendor.acme.nodes", "1.0.0");
    let cat = Catalog::load(&[dir.path()]);
    let p = cat.ports("vendor.acme.send").unwrap();
    assert_eq!(p.inputs, ["body", "subject"]);
    assert_eq!(p.outputs, ["messageId", "receipt"]);
    assert!(!p.accepts_input("title") && p.accepts_output("receipt"));
    let open = cat.ports("vendor.acme.pure").unwrap();
    assert!(open.accepts_input("whatever") && open.accepts_output("whatever"));
    assert!(cat.ports("core.identity").is_none());
}

#[test]
fn config_is_checked_against_the_schema_without_sub_chain_ref() {
    let dir = tempfile::tempdir().unwrap();
    node_pack(dir.path(), "vendor.acme.nodes", "1.0.0");
    let cat = Catalog::load(&[dir.path()]);
    assert!(cat.check_config("vendor.acme.send", &json!({"to": "a", "subChainRef": "x"})).is_empty());
    let v = cat.check_config("vendor.acme.send", &json!({"retries": -1, "cc": 1}));
    let kinds: Vec<_> = v.iter().map(|v| (v.pointer.as_str(), v.keyword.as_str())).collect();
    assert!(kinds.contains(&("", "required")) && kinds.contains(&("/retries", "minimum")), "{kinds:?}");
    assert!(kinds.contains(&("", "additionalProperties")), "{kinds:?}");
    // Bundled schemas apply to Core typeIds no pack provides.
    assert!(cat.has_config_schema("core.dispatch"));
    assert_eq!(cat.check_config("core.dispatch", &json!({"fanOutPolicy": "parallel"})).len(), 1);
    assert!(cat.check_config("core.identity", &json!({"x": 1})).is_empty());
}

#[test]
fn unusable_schema_is_a_violation_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    node_pack(dir.path(), "vendor.acme.nodes", "1.0.0");
    std::fs::write(dir.path().join("schemas/send.config.json"), r#"{"$ref": "https://example.test/x.json"}"#).unwrap();
    let cat = Catalog::load(&[dir.path()]);
    let v = cat.check_config("vendor.acme.send", &json!({}));
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].keyword, "$schema");
    std::fs::write(dir.path().join("schemas/send.config.json"), "[1]").unwrap();
    let cat = Catalog::load(&[dir.path()]);
    assert!(cat.findings().iter().any(|f| f.pointer == "/nodes/0/configSchemaRef"));
}

#[test]
fn newest_version_of_a_pack_wins_and_other_packs_are_duplicates() {
    let root = tempfile::tempdir().unwrap();
    node_pack(&root.path().join("a1"), "vendor.acme.nodes", "1.0.0");
    node_pack(&root.path().join("a2"), "vendor.acme.nodes", "1.2.0");
    node_pack(&root.path().join("b"), "vendor.other.nodes", "9.0.0");
    let cat = Catalog::load(&[root.path()]);
    assert_eq!(cat.node_type("vendor.acme.send").unwrap().pack_version(), "1.2.0");
    assert_eq!(cat.pack_versions("vendor.acme.nodes"), [Version::new(1, 2, 0), Version::new(1, 0, 0)]);
    assert_eq!(cat.findings().iter().filter(|f| f.code == code::TYPEID_DUPLICATE).count(), 2);
}

#[test]
fn chain_resolution_and_expansion_checks() {
    let dir = tempfile::tempdir().unwrap();
    node_pack(dir.path(), "vendor.acme.nodes", "1.0.0");
    let cat = Catalog::load(&[dir.path()]);
    let pack = chain_pack(
        json!([
            {"id": "a", "typeId": "vendor.acme.send", "config": {"to": "{{params.to}}", "retries": "x"}},
            {"id": "b", "typeId": "vendor.acme.send", "compensation": {"nodeTypeId": "vendor.gone.undo"}},
            {"id": "c", "typeId": "core.identity"},
            {"id": "d", "typeId": "vendor.gone.step"}
        ]),
        json!([{"from": "a.messageId", "to": "b.body"}, {"from": "a.nope", "to": "b.title"}, {"from": "c", "to": "d.any"}]),
    );
    let res = cat.resolution(&pack);
    assert_eq!(res[0].unresolved, ["vendor.gone.undo", "vendor.gone.step"]);
    let f = cat.unresolved_findings(&pack.chains[0]);
    assert_eq!(f[0].pointer, "/chains/0/dag/nodes/1/compensation/nodeTypeId");
    assert_eq!(f[1].pointer, "/chains/0/dag/nodes/3/typeId");

    let mut params = Map::new();
    params.insert("to".into(), json!("ops@example.test"));
    let opts = crate::expand::ExpandOptions { expansion_id: Some("x1".into()), ..Default::default() };
    let exp = crate::expand::expand(&pack, "acme.send", params, &opts).unwrap();
    let found: Vec<_> = cat.check_expansion(&exp).into_iter().map(|f| (f.code, f.pointer)).collect();
    assert!(found.contains(&(code::NODE_CONFIG_INVALID, "/nodes/0/config/retries".into())), "{found:?}");
    assert!(found.contains(&(code::NODE_CONFIG_INVALID, "/nodes/1/config".into())), "{found:?}");
    assert!(found.contains(&(code::EDGE_PORT_UNKNOWN, "/edges/1/from".into())), "{found:?}");
    assert!(found.contains(&(code::EDGE_PORT_UNKNOWN, "/edges/1/to".into())), "{found:?}");
    assert!(!found.iter().any(|(_, p)| p.starts_with("/edges/0") || p.starts_with("/edges/2")), "{found:?}");
}

#[test]
fn chain_and_other_packs_are_not_catalogued() {
    let dir = tempfile::tempdir().unwrap();
    let pack = chain_pack(json!([{"id": "a", "typeId": "core.identity"}]), json!([]));
    std::fs::write(dir.path().join("pack.json"), pack.manifest.to_string()).unwrap();
    let mut cat = Catalog::new();
    cat.add_pack(&load_file(&dir.path().join("pack.json"), LoadOptions::default()).unwrap());
    assert!(cat.is_empty() && cat.packs().is_empty());
    let cat = Catalog::load(&[Path::new("/definitely/not/here")]);
    assert_eq!(cat.findings()[0].code, code::PACK_NOT_FOUND);
}

#[test]
fn node_catalog_response_types_resolve_with_their_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("node-catalog.json");
    std::fs::write(
        &path,
        json!({"nodes": [
            {"typeId": "feature.demo.summarise", "version": "2.0.0", "label": "Summarise", "category": "ai",
             "source": "local", "configSchema": {"type": "object", "properties": {"maxWords": {"type": "integer"}},
                                                 "required": ["maxWords"]},
             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": false}},
            {"typeId": "vendor.acme.send", "version": "1.0.0", "source": "pack", "packName": "vendor.acme.mail"},
            {"label": "no typeId: skipped"}
        ]})
        .to_string(),
    )
    .unwrap();
    let mut cat = Catalog::new();
    assert_eq!(cat.add_node_catalog(&path).unwrap(), 2);
    assert!(cat.resolves("feature.demo.summarise") && cat.resolves("vendor.acme.send"));
    assert!(cat.resolves("feature.demo.summarise@2.0.0") && !cat.resolves("feature.demo.summarise@1.0.0"));
    assert!(!cat.resolves("feature.demo.other"));
    let t = cat.node_type("feature.demo.summarise").unwrap();
    assert_eq!((t.label(), t.pack_name(), t.category()), ("Summarise", "host:node-catalog", "ai"));
    assert_eq!(cat.node_type("vendor.acme.send").unwrap().pack_name(), "vendor.acme.mail");
    assert!(cat.check_config("feature.demo.summarise", &json!({"maxWords": 5})).is_empty());
    assert_eq!(cat.check_config("feature.demo.summarise", &json!({"maxWords": "many"})).len(), 1);
    let ports = cat.ports("feature.demo.summarise").unwrap();
    assert!(ports.accepts_input("text") && !ports.accepts_input("other"));

    std::fs::write(&path, b"{\"types\": []}").unwrap();
    assert_eq!(Catalog::new().add_node_catalog(&path).unwrap_err().code, code::INVALID_REQUEST);
}

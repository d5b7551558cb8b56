//! Single nodes of a catalogued type, without a GUI: the node a palette drop, the quick-add
//! popup or a script inserts for a typeId, the config form of a node's type, and the typed
//! port check a connection goes through before it becomes a `Connect` command.

use super::cards::PortTable;
use super::document::{Command, NodeLink, edge_by_seq};
use crate::catalog::{Catalog, builtin_config_schema};
use crate::error::{Error, code};
use crate::params::{Form, ParamError};
use crate::workflow::{Node, Workflow};
use serde_json::{Map, Value};

/// The config schema that applies to a typeId: the catalogued type's, else the one
/// chainsmith bundles for a reserved Core type.
pub fn config_schema<'a>(catalog: Option<&'a Catalog>, type_id: &str) -> Option<&'a Value> {
    catalog
        .and_then(|c| c.node_type(type_id))
        .and_then(|t| t.config_schema())
        .or_else(|| builtin_config_schema(type_id))
}

/// The form for a node's `config`, when its type has a config schema (the same model the
/// chain parameter form is drawn from).
pub fn config_form(catalog: Option<&Catalog>, type_id: &str) -> Option<Form> {
    config_schema(catalog, type_id).map(Form::from_schema)
}

/// What is wrong with `config` for its type, as the parameter form reports it (pointers into
/// the config object). Empty when no schema is known.
pub fn config_errors(catalog: Option<&Catalog>, type_id: &str, config: &Value) -> Vec<ParamError> {
    let empty;
    let catalog = match catalog {
        Some(c) => c,
        None => {
            empty = Catalog::new();
            &empty
        }
    };
    catalog
        .check_config(type_id, config)
        .into_iter()
        .map(|v| ParamError { path: v.pointer, keyword: v.keyword, message: v.message })
        .collect()
}

/// A new node of `type_id` with its top-left at `at`: named after the type's label, its id
/// the last segment of the typeId (the document makes it unique on insert), and its
/// `config` the starting values of its config form (schema defaults, required empties).
/// Refused with `chain_unresolvable_typeid` when no catalogued pack provides the type and it
/// is not a reserved `core.*` one.
pub fn node_from_type(catalog: Option<&Catalog>, type_id: &str, at: (f64, f64)) -> Result<Map<String, Value>, Error> {
    let known = catalog.and_then(|c| c.node_type(type_id));
    if known.is_none() && !crate::catalog::is_core(type_id) {
        return Err(Error::new(
            code::CHAIN_UNRESOLVABLE_TYPEID,
            format!("typeId \"{type_id}\" is not provided by any catalogued node pack"),
        )
        .with("typeId", type_id));
    }
    let bare = crate::pack::v2::split_pin(type_id).0;
    let base = bare.rsplit('.').next().filter(|s| !s.is_empty()).unwrap_or("node");
    let config = config_form(catalog, type_id).map(|f| f.initial_values()).unwrap_or_default();
    let mut json = Map::new();
    json.insert("id".into(), Value::String(base.to_owned()));
    json.insert("typeId".into(), Value::String(type_id.to_owned()));
    json.insert("name".into(), Value::String(known.map_or(base, |t| t.label()).to_owned()));
    json.insert("config".into(), Value::Object(config));
    json.insert("inputs".into(), Value::Object(Map::new()));
    let mut node = Node::new(json, 0);
    node.set_position(at.0, at.1);
    Ok(node.object())
}

/// The output ports a type declares, in order (none when the type is not catalogued).
pub fn declared_outputs<'a>(catalog: Option<&'a Catalog>, type_id: &str) -> impl Iterator<Item = &'a str> {
    let ports = catalog.and_then(|c| c.ports(type_id));
    ports.into_iter().flat_map(|p| p.outputs.iter().map(String::as_str))
}

/// The ports a wire to or from a node of this type can use: those it declares, in order,
/// else the implicit `input` or `output`.
fn wirable(catalog: Option<&Catalog>, type_id: &str, output: bool) -> Vec<String> {
    let ports = catalog.and_then(|c| c.ports(type_id));
    let declared = ports.map(|p| if output { &p.outputs } else { &p.inputs }).filter(|names| !names.is_empty());
    match declared {
        Some(names) => names.clone(),
        None => vec![(if output { "output" } else { "input" }).to_owned()],
    }
}

/// Whether values from `from` may go into `into` (the rule connecting by hand goes through,
/// [`Catalog::check_connection`]); anything fits without a catalog.
fn fits(catalog: Option<&Catalog>, from: (&str, &str), into: (&str, &str)) -> bool {
    catalog.is_none_or(|c| c.check_connection(from, into).is_ok())
}

/// How a new node of `type_id` is wired where it goes: downstream of node `after` (through
/// the first ports whose types fit), else spliced into the edge `on_edge` (an edge gone by
/// now has untyped ends, and the document refuses the splice), else not at all. `None` when
/// the node it goes after is gone.
pub fn new_node_link(
    catalog: Option<&Catalog>,
    wf: &Workflow,
    type_id: &str,
    on_edge: Option<u64>,
    after: Option<String>,
) -> Option<NodeLink> {
    let type_of = |id: &str| wf.node(id).map_or("", |ix| wf.graph[ix].type_id());
    Some(match (after, on_edge) {
        (Some(source), _) => {
            let ix = wf.node(&source)?;
            let (source_port, input) = after_ports(catalog, wf.graph[ix].type_id(), type_id);
            NodeLink::After { source, source_port, input }
        }
        (None, Some(seq)) => {
            let (from, into) = edge_by_seq(wf, seq).map_or((("", "output"), ("", "input")), |ix| {
                let e = &wf.graph[ix];
                ((type_of(e.source()), e.source_port()), (type_of(e.target()), e.target_port()))
            });
            let (input, output) = splice_ports(catalog, type_id, from, into);
            NodeLink::Splice { seq, input, output }
        }
        (None, None) => NodeLink::Unwired,
    })
}

/// The ports a new node of `new_type` inserted after a `source_type` node is wired
/// through: `(source output, new input)`, the first pair whose types fit, trying the
/// source's outputs in order and for each the new node's inputs in order. When none fits,
/// the first of each, which the typed check then refuses with its reason.
pub fn after_ports(catalog: Option<&Catalog>, source_type: &str, new_type: &str) -> (String, String) {
    let (outputs, inputs) = (wirable(catalog, source_type, true), wirable(catalog, new_type, false));
    let pair = outputs
        .iter()
        .flat_map(|o| inputs.iter().map(move |i| (o, i)))
        .find(|(o, i)| fits(catalog, (source_type, o), (new_type, i)));
    let (o, i) = pair.unwrap_or((&outputs[0], &inputs[0]));
    (o.clone(), i.clone())
}

/// The ports a new node of `new_type` spliced into an edge is wired through: `(input,
/// output)`, its first input that takes what the edge's source port gives and its first
/// output the edge's target port takes. Where none fits, the first, which the typed check
/// then refuses with its reason.
pub fn splice_ports(
    catalog: Option<&Catalog>,
    new_type: &str,
    from: (&str, &str),
    into: (&str, &str),
) -> (String, String) {
    let (inputs, outputs) = (wirable(catalog, new_type, false), wirable(catalog, new_type, true));
    let input = inputs.iter().find(|i| fits(catalog, from, (new_type, i))).unwrap_or(&inputs[0]);
    let output = outputs.iter().find(|o| fits(catalog, (new_type, o), into)).unwrap_or(&outputs[0]);
    (input.clone(), output.clone())
}

/// The command that inserts one node of `type_id` into `wf` at `at`, wired as `link` says
/// (for the palette's Catalog section and the quick-add popup), with the ports its cards
/// and the workflow's are sized by when it makes room.
pub fn insert_command(
    catalog: Option<&Catalog>,
    wf: &Workflow,
    type_id: &str,
    at: (f64, f64),
    link: NodeLink,
) -> Result<Command, Error> {
    let node = Box::new(node_from_type(catalog, type_id, at)?);
    let ports = PortTable::of(catalog, wf.graph.node_weights().map(Node::type_id).chain([type_id]));
    Ok(Command::InsertNode { node, link, ports })
}

/// Refuse a connection whose output port's type does not fit the input port's (the rule is
/// [`Catalog::check_connection`]'s). Nodes missing from the workflow, or no catalog, pass:
/// the document reports the former, and without a catalog no port has a type.
pub fn check_connection(
    wf: &Workflow,
    catalog: Option<&Catalog>,
    (source, source_port): (&str, &str),
    (target, target_port): (&str, &str),
) -> Result<(), Error> {
    let Some(catalog) = catalog else { return Ok(()) };
    let (Some(a), Some(b)) = (wf.node(source), wf.node(target)) else { return Ok(()) };
    let (source_type, target_type) = (wf.graph[a].type_id(), wf.graph[b].type_id());
    catalog
        .check_connection((source_type, source_port), (target_type, target_port))
        .map_err(|e| e.with("sourceNodeId", source).with("targetNodeId", target))
}

/// [`check_connection`] for a command: a `Connect`, and the wires an `InsertNode` draws to
/// and from its new node (judged by the new node's type, before it exists).
pub fn check_command(wf: &Workflow, catalog: Option<&Catalog>, command: &Command) -> Result<(), Error> {
    let Some(cat) = catalog else { return Ok(()) };
    let type_of = |id: &str| wf.node(id).map(|ix| wf.graph[ix].type_id());
    match command {
        Command::Connect { source, source_port, target, target_port } => {
            check_connection(wf, catalog, (source, source_port), (target, target_port))
        }
        Command::InsertNode { node, link, .. } => {
            let new_type = node.get("typeId").and_then(Value::as_str).unwrap_or_default();
            match link {
                NodeLink::Unwired => Ok(()),
                NodeLink::After { source, source_port, input } => match type_of(source) {
                    Some(t) => cat.check_connection((t, source_port), (new_type, input)),
                    None => Ok(()),
                },
                NodeLink::Splice { seq, input, output } => {
                    let Some(ix) = super::document::edge_by_seq(wf, *seq) else { return Ok(()) };
                    let edge = &wf.graph[ix];
                    let (Some(s), Some(t)) = (type_of(edge.source()), type_of(edge.target())) else { return Ok(()) };
                    cat.check_connection((s, edge.source_port()), (new_type, input))?;
                    cat.check_connection((new_type, output), (t, edge.target_port()))
                }
            }
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editor::document::Document;
    use crate::workflow::ExportMode;
    use serde_json::json;

    fn catalog() -> Catalog {
        Catalog::load(&[crate::pack::bundled_dir().join("vendor.chainsmith.nodes")])
    }

    fn two_nodes() -> Workflow {
        Workflow::from_json(json!({
            "id": "wf", "name": "wf", "version": "1.0.0",
            "nodes": [
                {"id": "c", "typeId": "vendor.chainsmith.classify", "name": "C", "position": {"x": 0, "y": 0}},
                {"id": "p", "typeId": "vendor.chainsmith.pager-send", "name": "P", "position": {"x": 400, "y": 0}}
            ],
            "edges": [{"id": "e1", "sourceNodeId": "c", "sourceOutput": "label", "targetNodeId": "p", "targetInput": "assignee"}]
        }))
        .unwrap()
    }

    #[test]
    fn a_node_from_a_type_starts_from_its_config_form() {
        let cat = catalog();
        let node = node_from_type(Some(&cat), "vendor.chainsmith.http-request", (40.0, 60.5)).unwrap();
        assert_eq!(
            Value::Object(node),
            json!({"id": "http-request", "typeId": "vendor.chainsmith.http-request", "name": "HTTP request",
                   "config": {"method": "GET"}, "inputs": {}, "position": {"x": 40, "y": 60.5}})
        );
        // Required arrays start empty; the schema then says what is missing.
        let classify = node_from_type(Some(&cat), "vendor.chainsmith.classify", (0.0, 0.0)).unwrap();
        assert_eq!(classify["config"], json!({"labels": []}));
        let errors = config_errors(Some(&cat), "vendor.chainsmith.classify", &classify["config"]);
        assert_eq!(
            errors.iter().map(|e| (e.path.as_str(), e.keyword.as_str())).collect::<Vec<_>>(),
            [("/labels", "minItems")]
        );
        assert!(node_from_type(Some(&cat), "core.noop", (0.0, 0.0)).is_ok(), "core types need no pack");
        let e = node_from_type(Some(&cat), "vendor.gone.thing", (0.0, 0.0)).unwrap_err();
        assert_eq!(e.code, code::CHAIN_UNRESOLVABLE_TYPEID);
        assert!(config_form(None, "core.dispatch").is_some(), "bundled Core schemas give forms too");
    }

    #[test]
    fn inserted_nodes_get_fresh_ids_and_undo_exactly() {
        let cat = catalog();
        let mut doc = Document::new(two_nodes(), None);
        let before = doc.workflow().to_json(ExportMode::Faithful);
        let cmd = |wf: &Workflow| {
            insert_command(Some(&cat), wf, "vendor.chainsmith.classify", (0.0, 200.0), NodeLink::Unwired)
        };
        assert_eq!(doc.apply(cmd(doc.workflow()).unwrap()).unwrap().new_nodes, ["classify"]);
        assert_eq!(doc.apply(cmd(doc.workflow()).unwrap()).unwrap().new_nodes, ["classify-2"]);
        let two = doc.workflow().to_json(ExportMode::Faithful);
        doc.undo();
        doc.undo();
        assert_eq!(doc.workflow().to_json(ExportMode::Faithful), before);
        doc.redo();
        doc.redo();
        assert_eq!(doc.workflow().to_json(ExportMode::Faithful), two);
    }

    #[test]
    fn inserting_after_a_node_or_into_an_edge_wires_it_in_one_step() {
        let cat = catalog();
        let mut doc = Document::new(two_nodes(), None);
        let before = doc.workflow().to_json(ExportMode::Faithful);
        // Into c.label (string) → p.assignee (string): http-request's `body` takes anything,
        // its `status` (integer) would not fit `assignee`, its untyped `body` does.
        let edge = (("vendor.chainsmith.classify", "label"), ("vendor.chainsmith.pager-send", "assignee"));
        let (input, output) = splice_ports(Some(&cat), "vendor.chainsmith.http-request", edge.0, edge.1);
        assert_eq!((input.as_str(), output.as_str()), ("body", "body"));
        let seq = doc.workflow().graph.edge_weights().next().unwrap().seq;
        let link = NodeLink::Splice { seq, input, output };
        let cmd = insert_command(Some(&cat), doc.workflow(), "vendor.chainsmith.http-request", (200.0, 0.0), link);
        doc.apply(cmd.unwrap()).unwrap();
        let out = doc.workflow().to_json(ExportMode::Faithful);
        assert_eq!(
            out["edges"],
            json!([
                {"id": "e-c-http-request", "sourceNodeId": "c", "sourceOutput": "label", "targetNodeId": "http-request", "targetInput": "body"},
                {"id": "e-http-request-p", "sourceNodeId": "http-request", "sourceOutput": "body", "targetNodeId": "p", "targetInput": "assignee"}
            ])
        );
        doc.undo();
        assert_eq!(doc.workflow().to_json(ExportMode::Faithful), before, "one undo restores the edge");
        doc.redo();
        assert_eq!(doc.workflow().to_json(ExportMode::Faithful), out);

        let after = NodeLink::After { source: "p".into(), source_port: "pageId".into(), input: "input".into() };
        doc.apply(insert_command(None, doc.workflow(), "core.noop", (600.0, 0.0), after).unwrap()).unwrap();
        let edges = doc.workflow().to_json(ExportMode::Faithful)["edges"].clone();
        assert_eq!(
            edges[2],
            json!({"id": "e-p-noop", "sourceNodeId": "p", "sourceOutput": "pageId", "targetNodeId": "noop"})
        );
        let gone = NodeLink::After { source: "zz".into(), source_port: "output".into(), input: "input".into() };
        let n = doc.workflow().node_count();
        assert!(doc.apply(insert_command(None, doc.workflow(), "core.noop", (0.0, 0.0), gone).unwrap()).is_err());
        assert_eq!(doc.workflow().node_count(), n, "a refused insert leaves nothing behind");
    }

    #[test]
    fn connections_are_judged_by_the_node_types() {
        let cat = catalog();
        let wf = two_nodes();
        let e = check_connection(&wf, Some(&cat), ("c", "urgent"), ("p", "assignee")).unwrap_err();
        assert_eq!(e.code, code::EDGE_PORT_INCOMPATIBLE);
        assert_eq!(e.details["sourceNodeId"], "c");
        assert!(check_connection(&wf, Some(&cat), ("c", "label"), ("p", "assignee")).is_ok());
        assert!(check_connection(&wf, None, ("c", "urgent"), ("p", "assignee")).is_ok());
        let connect = Command::Connect {
            source: "c".into(),
            source_port: "confidence".into(),
            target: "p".into(),
            target_port: "assignee".into(),
        };
        assert!(check_command(&wf, Some(&cat), &connect).is_err());
        // The wires of an inserted node are judged by its type, before the node exists.
        let insert = |type_id: &str, link| insert_command(Some(&cat), &wf, type_id, (0.0, 0.0), link).unwrap();
        let after = NodeLink::After { source: "c".into(), source_port: "urgent".into(), input: "assignee".into() };
        let e = check_command(&wf, Some(&cat), &insert("vendor.chainsmith.pager-send", after)).unwrap_err();
        assert_eq!(e.code, code::EDGE_PORT_INCOMPATIBLE);
        let after = NodeLink::After { source: "c".into(), source_port: "label".into(), input: "assignee".into() };
        assert!(check_command(&wf, Some(&cat), &insert("vendor.chainsmith.pager-send", after)).is_ok());
        let seq = wf.graph.edge_weights().next().unwrap().seq;
        // Into c.label → p.assignee: http-request's `status` (integer) would reach `assignee` (string).
        let splice = NodeLink::Splice { seq, input: "body".into(), output: "status".into() };
        let e = check_command(&wf, Some(&cat), &insert("vendor.chainsmith.http-request", splice)).unwrap_err();
        assert_eq!(e.message, "output \"status\" gives integer, but input \"assignee\" takes string");
        let splice = NodeLink::Splice { seq, input: "context".into(), output: "label".into() };
        assert!(check_command(&wf, Some(&cat), &insert("vendor.chainsmith.classify", splice)).is_ok());
    }

    #[test]
    fn inserted_nodes_are_wired_through_the_first_ports_whose_types_fit() {
        let cat = Some(catalog());
        let cat = cat.as_ref();
        let (classify, pager, http, sheet) = (
            "vendor.chainsmith.classify",
            "vendor.chainsmith.pager-send",
            "vendor.chainsmith.http-request",
            "vendor.chainsmith.sheet-append",
        );
        // After http-request (status: integer, body: any) a classify (ticket: object,
        // context: string): status fits neither input, so the untyped body goes to ticket.
        assert_eq!(after_ports(cat, http, classify), ("body".to_owned(), "ticket".to_owned()));
        // After classify (label: string, …) a pager-send (payload: any, …): the first pair fits.
        assert_eq!(after_ports(cat, classify, pager), ("label".to_owned(), "payload".to_owned()));
        // After sheet-append (appended: integer) nothing of classify fits: the first of each,
        // which the typed check refuses with its reason.
        assert_eq!(after_ports(cat, sheet, classify), ("appended".to_owned(), "ticket".to_owned()));
        let wf = two_nodes();
        let after = NodeLink::After { source: "c".into(), source_port: "urgent".into(), input: "rows".into() };
        let cmd = insert_command(cat, &wf, sheet, (0.0, 0.0), after).unwrap();
        assert_eq!(check_command(&wf, cat, &cmd).unwrap_err().code, code::EDGE_PORT_INCOMPATIBLE);
        // Untyped types and no catalog: the implicit ports.
        assert_eq!(after_ports(cat, "core.start", "core.noop"), ("output".to_owned(), "input".to_owned()));
        assert_eq!(after_ports(None, classify, pager), ("output".to_owned(), "input".to_owned()));
        // Into an edge c.label (string) → p.assignee (string), a classify: `context` takes
        // the string (`ticket` wants an object), `label` gives one (`urgent` would not fit).
        let (input, output) = splice_ports(cat, classify, (classify, "label"), (pager, "assignee"));
        assert_eq!((input.as_str(), output.as_str()), ("context", "label"));
        let seq = wf.graph.edge_weights().next().unwrap().seq;
        let cmd = insert_command(cat, &wf, classify, (0.0, 0.0), NodeLink::Splice { seq, input, output }).unwrap();
        assert!(check_command(&wf, cat, &cmd).is_ok(), "the picked ports pass the connection check");
    }

    #[test]
    fn a_new_node_goes_after_the_node_else_into_the_edge_else_unwired() {
        let cat = Some(catalog());
        let cat = cat.as_ref();
        let wf = two_nodes();
        let (classify, pager) = ("vendor.chainsmith.classify", "vendor.chainsmith.pager-send");
        let seq = wf.graph.edge_weights().next().unwrap().seq;
        // After classify a pager-send: label (string) into payload (any), as above.
        let after = new_node_link(cat, &wf, pager, Some(seq), Some("c".into()));
        let want = NodeLink::After { source: "c".into(), source_port: "label".into(), input: "payload".into() };
        assert_eq!(after, Some(want), "downstream of the node wins over the edge");
        let splice = new_node_link(cat, &wf, classify, Some(seq), None);
        let want = NodeLink::Splice { seq, input: "context".into(), output: "label".into() };
        assert_eq!(splice, Some(want));
        assert_eq!(new_node_link(cat, &wf, classify, None, None), Some(NodeLink::Unwired));
        assert_eq!(new_node_link(cat, &wf, classify, None, Some("gone".into())), None);
    }
}

//! Reading a workflow file without holding it twice: the file is parsed member by member as
//! it is read, and each node and edge is turned into its compact text ([`super::Node`],
//! [`Edge`]) and added to the graph as soon as it is parsed. Parsing the whole document
//! first held every node once as parsed and the `nodes` array around them, next to the
//! graph they were moved into.
//!
//! Only a well-formed document takes this path. Anything it does not expect (a document that
//! is not an object, `nodes` or `edges` that are not arrays or appear twice, invalid JSON) is
//! read again as one value by [`Workflow::from_json`]'s rules, so every refusal is the one a
//! whole-document read gives, word for word.

use super::{Edge, Workflow, object_member};
use crate::error::{Error, Result};
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use std::path::Path;

/// The workflow in the file at `path`, read as it is parsed: the file's bytes are never
/// all in memory beside the graph (they were as much again as the file). `None` when the
/// document needs the whole-document read (which then gives the exact refusal), or is no
/// regular file within `limit` bytes (the whole-document read says which).
pub(super) fn streamed_file(path: &Path, limit: u64) -> Option<Result<Workflow>> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > limit {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    // One byte past the limit: a file grown past it ends mid-document and is read whole.
    let reader = std::io::BufReader::with_capacity(1 << 16, file.take(limit + 1));
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut read = Reader::default();
    (&mut read).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(read.finish(path))
}

#[derive(Default)]
struct Reader {
    /// Top-level members in file order, `nodes` and `edges` as empty placeholders.
    doc: Map<String, Value>,
    graph: Option<Workflow>,
    /// Edges read before the nodes were; they are added once the nodes are in.
    early_edges: Vec<Edge>,
    seen_nodes: bool,
    seen_edges: bool,
    node_count: usize,
    edge_count: usize,
    /// The first node refusal and the first edge refusal, reported as the whole-document
    /// read does: nodes before edges.
    node_failure: Option<Error>,
    edge_failure: Option<Error>,
}

impl Reader {
    fn workflow(&mut self) -> &mut Workflow {
        self.graph.get_or_insert_with(|| Workflow::without_nodes(Map::new()))
    }

    fn node(&mut self, node: Value) {
        let i = self.node_count;
        self.node_count += 1;
        if self.node_failure.is_some() {
            return;
        }
        let added = object_member("nodes", i, node)
            .and_then(|json| self.workflow().add_node(json).map_err(|e| e.with("path", format!("/nodes/{i}"))));
        self.node_failure = added.err();
    }

    fn edge(&mut self, edge: Value) {
        let i = self.edge_count;
        self.edge_count += 1;
        if self.edge_failure.is_some() {
            return;
        }
        let json = match object_member("edges", i, edge) {
            Ok(json) => json,
            Err(e) => {
                self.edge_failure = Some(e);
                return;
            }
        };
        // Endpoints are looked up when an edge is added: one read before the nodes waits.
        if self.seen_nodes {
            self.workflow().add_edge(json);
        } else {
            self.early_edges.push(Edge::new(json, 0));
        }
    }

    fn finish(self, path: &Path) -> Result<Workflow> {
        let doc = Value::Object(self.doc);
        if let Some(why) = super::not_a_definition(&doc) {
            return Err(super::not_a_definition_error(path, &why));
        }
        if let Some(e) = self.node_failure.or(self.edge_failure) {
            return Err(e);
        }
        let Value::Object(doc) = doc else { unreachable!("built as an object") };
        let mut wf = self.graph.unwrap_or_else(|| Workflow::without_nodes(Map::new()));
        wf.doc = doc;
        for edge in self.early_edges {
            wf.add_new_edge(edge);
        }
        Ok(wf)
    }
}

impl<'de> DeserializeSeed<'de> for &mut Reader {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for &mut Reader {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a WorkflowDefinition object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "nodes" | "edges" => {
                    let nodes = key == "nodes";
                    let seen = if nodes { &mut self.seen_nodes } else { &mut self.seen_edges };
                    if std::mem::replace(seen, true) {
                        return Err(A::Error::custom("repeated member"));
                    }
                    map.next_value_seed(Items { reader: &mut *self, nodes })?;
                    self.doc.insert(key, Value::Array(Vec::new()));
                }
                _ => {
                    let value = map.next_value_seed(crate::fsio::json::Reader::streamed())?;
                    self.doc.insert(key, value);
                }
            }
        }
        Ok(())
    }
}

/// The items of `nodes` or `edges`, each handed to the reader as it is parsed.
struct Items<'r> {
    reader: &'r mut Reader,
    nodes: bool,
}

impl<'de> DeserializeSeed<'de> for Items<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Items<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        while let Some(item) = seq.next_element_seed(crate::fsio::json::Reader::streamed())? {
            if self.nodes {
                self.reader.node(item);
            } else {
                self.reader.edge(item);
            }
        }
        Ok(())
    }
}

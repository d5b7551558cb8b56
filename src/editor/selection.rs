//! What is selected on the canvas, by stable keys: node ids, edge `seq`s and at most one
//! chain instance. Positions and screen coordinates play no part.

use super::document::edge_by_seq;
use crate::workflow::Workflow;
use std::collections::BTreeSet;

/// What is selected: nodes by id, edges by `seq`, and at most one chain instance by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    pub nodes: BTreeSet<String>,
    pub edges: BTreeSet<u64>,
    pub instance: Option<String>,
}

impl Selection {
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.edges.is_empty() && self.instance.is_none()
    }

    pub fn only_node(&mut self, id: &str) {
        self.clear();
        self.nodes.insert(id.to_owned());
    }

    pub fn toggle_node(&mut self, id: &str) {
        self.instance = None;
        if !self.nodes.remove(id) {
            self.nodes.insert(id.to_owned());
        }
    }

    pub fn only_edge(&mut self, seq: u64) {
        self.clear();
        self.edges.insert(seq);
    }

    /// Drop whatever an undo, redo or delete made disappear.
    pub fn retain_existing(&mut self, wf: &Workflow) {
        self.nodes.retain(|id| wf.contains_node(id));
        self.edges.retain(|seq| edge_by_seq(wf, *seq).is_some());
        if self.instance.as_ref().is_some_and(|k| wf.instance(k).is_none()) {
            self.instance = None;
        }
    }
}

//! What is selected on the canvas, by stable keys: node ids, edge `seq`s and at most one
//! chain instance. Positions and screen coordinates play no part.

use super::document::edge_by_seq;
use crate::workflow::Workflow;
use crate::workflow::layout::{NODE_H, NODE_W};
use petgraph::Direction;
use petgraph::stable_graph::NodeIndex;
use std::collections::BTreeSet;

/// Which way an arrow key moves the selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Left,
    Right,
    Up,
    Down,
}

impl Step {
    /// The unit vector of the step on the canvas (y grows downwards).
    fn unit(self) -> (f64, f64) {
        match self {
            Step::Left => (-1.0, 0.0),
            Step::Right => (1.0, 0.0),
            Step::Up => (0.0, -1.0),
            Step::Down => (0.0, 1.0),
        }
    }
}

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

    /// Select the nodes a command made instead of what was selected (none made: no change).
    pub fn select_made(&mut self, made: &[String]) {
        if !made.is_empty() {
            self.clear();
            self.nodes = made.iter().cloned().collect();
        }
    }

    /// Select chain instance `key` and its nodes (what its form or review is about).
    pub fn select_instance(&mut self, key: &str, nodes: impl IntoIterator<Item = String>) {
        self.clear();
        self.instance = Some(key.to_owned());
        self.nodes = nodes.into_iter().collect();
    }

    /// Ids of the selected nodes, sorted.
    pub fn node_ids(&self) -> Vec<String> {
        self.nodes.iter().cloned().collect()
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

    /// Move the selection one step, as an arrow key does, and name the node now selected.
    /// From a node, Right goes downstream along its edges and Left upstream (to the
    /// neighbour most level with it), else, and for Up and Down, to the nearest card in
    /// that direction. From a lone edge, Right goes to its target and Left to its source.
    /// With nothing selected, the node nearest to `centre` (the middle of the view).
    pub fn step(&mut self, wf: &Workflow, dir: Step, centre: (f64, f64)) -> Option<String> {
        let mid = |n: NodeIndex| {
            let (x, y) = wf.graph[n].position();
            (x + NODE_W / 2.0, y + NODE_H / 2.0)
        };
        let from = if let Some(first) = self.nodes.iter().filter_map(|id| wf.node(id)).min_by(|&a, &b| {
            let (pa, pb) = (mid(a), mid(b));
            pa.1.total_cmp(&pb.1).then(pa.0.total_cmp(&pb.0))
        }) {
            Some(first)
        } else if let [seq] = self.edges.iter().copied().collect::<Vec<_>>()[..]
            && let Some((a, z)) = edge_by_seq(wf, seq).and_then(|e| wf.graph.edge_endpoints(e))
        {
            match dir {
                Step::Right => return self.select(wf, Some(z)),
                Step::Left => return self.select(wf, Some(a)),
                _ => Some(a),
            }
        } else {
            None
        };
        let Some(from) = from else {
            let nearest = wf.graph.node_indices().min_by(|&a, &b| {
                let d = |n| {
                    let p = mid(n);
                    (p.0 - centre.0).powi(2) + (p.1 - centre.1).powi(2)
                };
                d(a).total_cmp(&d(b))
            });
            return self.select(wf, nearest);
        };
        let here = mid(from);
        let (ux, uy) = dir.unit();
        // Along the step and across it, from `from`'s centre.
        let offset = |n: NodeIndex| {
            let p = mid(n);
            let (dx, dy) = (p.0 - here.0, p.1 - here.1);
            (dx * ux + dy * uy, (dx * uy - dy * ux).abs())
        };
        let flow = match dir {
            Step::Right => Some(Direction::Outgoing),
            Step::Left => Some(Direction::Incoming),
            _ => None,
        };
        let along_edges = flow.and_then(|d| {
            wf.graph.neighbors_directed(from, d).filter(|&n| n != from).min_by(|&a, &b| {
                let (oa, ob) = (offset(a), offset(b));
                oa.1.total_cmp(&ob.1).then(oa.0.total_cmp(&ob.0))
            })
        });
        // Nearest in the direction, a card off to the side counting as twice as far.
        let spatial = || {
            wf.graph.node_indices().filter(|&n| n != from && offset(n).0 > 1.0).min_by(|&a, &b| {
                let score = |n| {
                    let (along, across) = offset(n);
                    along + 2.0 * across
                };
                score(a).total_cmp(&score(b))
            })
        };
        let next = along_edges.or_else(spatial);
        self.select(wf, next)
    }

    fn select(&mut self, wf: &Workflow, n: Option<NodeIndex>) -> Option<String> {
        let id = wf.graph[n?].id().to_owned();
        self.only_node(&id);
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_are_the_selected_nodes_sorted() {
        let mut sel = Selection::default();
        assert!(sel.node_ids().is_empty());
        sel.toggle_node("b");
        sel.toggle_node("a");
        sel.edges.insert(7);
        assert_eq!(sel.node_ids(), ["a", "b"]);
    }
}

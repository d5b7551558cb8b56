//! Graph walks that hold their state on the heap, never on the call stack.
//!
//! petgraph's `depth_first_search` and `tarjan_scc` recurse once per node on a path, so a
//! linear fragment of 50,000 nodes overflowed the main thread's stack. Every walk over a
//! fragment or a workflow goes through here instead: an explicit stack of edge iterators,
//! and edges reported by their own index, so parallel edges cost nothing extra to identify.

use petgraph::visit::{EdgeRef, IntoEdges, NodeIndexable};

/// What one depth-first pass found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DfsOutcome<N, E> {
    /// Nodes in the order they finished (all their successors done). Reversed, it is a
    /// topological order of the graph without its back edges.
    pub finish: Vec<N>,
    /// Edges that lead to a node still on the current path: each closes a cycle. Self loops
    /// are back edges too. In the order they were met.
    pub back_edges: Vec<E>,
}

/// Depth-first search from each of `starts` in turn (nodes already reached are skipped),
/// following edges in the graph's own order — the classification petgraph's recursive
/// `depth_first_search` makes, in time and memory linear in nodes plus edges.
pub fn dfs<G, I>(graph: G, starts: I) -> DfsOutcome<G::NodeId, G::EdgeId>
where
    G: IntoEdges + NodeIndexable,
    I: IntoIterator<Item = G::NodeId>,
{
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; graph.node_bound()];
    let mut out = DfsOutcome { finish: Vec::new(), back_edges: Vec::new() };
    let mut path: Vec<(G::NodeId, G::Edges)> = Vec::new();
    for start in starts {
        if state[graph.to_index(start)] != NEW {
            continue;
        }
        state[graph.to_index(start)] = ON_PATH;
        path.push((start, graph.edges(start)));
        while let Some((node, edges)) = path.last_mut() {
            match edges.next() {
                Some(edge) => {
                    let next = edge.target();
                    match state[graph.to_index(next)] {
                        NEW => {
                            state[graph.to_index(next)] = ON_PATH;
                            path.push((next, graph.edges(next)));
                        }
                        ON_PATH => out.back_edges.push(edge.id()),
                        _ => {}
                    }
                }
                None => {
                    let node = *node;
                    state[graph.to_index(node)] = DONE;
                    out.finish.push(node);
                    path.pop();
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::graph::DiGraph;
    use petgraph::stable_graph::StableDiGraph;
    use petgraph::visit::{DfsEvent, depth_first_search};

    /// The pairs petgraph's recursive search reports, for comparison on small graphs.
    fn reference(g: &DiGraph<(), ()>) -> (Vec<usize>, Vec<(usize, usize)>) {
        let (mut finish, mut back) = (Vec::new(), Vec::new());
        depth_first_search(g, g.node_indices(), |e| match e {
            DfsEvent::Finish(n, _) => finish.push(n.index()),
            DfsEvent::BackEdge(a, b) => back.push((a.index(), b.index())),
            _ => {}
        });
        (finish, back)
    }

    #[test]
    fn matches_the_recursive_search_on_scattered_graphs() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        for round in 0..300 {
            let n = 1 + next(12) as usize;
            let mut g = DiGraph::<(), ()>::new();
            let ix: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
            for _ in 0..next(3 * n as u64 + 1) {
                g.add_edge(ix[next(n as u64) as usize], ix[next(n as u64) as usize], ());
            }
            let got = dfs(&g, g.node_indices());
            let back: Vec<(usize, usize)> = got
                .back_edges
                .iter()
                .map(|e| {
                    let (a, b) = g.edge_endpoints(*e).unwrap();
                    (a.index(), b.index())
                })
                .collect();
            let finish: Vec<usize> = got.finish.iter().map(|n| n.index()).collect();
            assert_eq!((finish, back), reference(&g), "round {round}");
        }
    }

    #[test]
    fn parallel_back_edges_are_each_named_once() {
        let mut g = StableDiGraph::<(), u32>::new();
        let (a, b) = (g.add_node(()), g.add_node(()));
        g.add_edge(a, b, 0);
        let back: Vec<_> = (1..=3).map(|w| g.add_edge(b, a, w)).collect();
        let self_loop = g.add_edge(a, a, 9);
        let mut got = dfs(&g, [a]).back_edges;
        got.sort();
        let mut want = back;
        want.push(self_loop);
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn a_path_longer_than_any_stack_is_walked() {
        // 1,000,000 nodes in a line: the recursive search needs a frame per node.
        let n = 1_000_000;
        let mut g = DiGraph::<(), ()>::with_capacity(n, n);
        let ix: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
        for w in ix.windows(2) {
            g.add_edge(w[0], w[1], ());
        }
        g.add_edge(ix[n - 1], ix[0], ());
        let out = dfs(&g, [ix[0]]);
        assert_eq!(out.finish.len(), n);
        assert_eq!(out.finish[0], ix[n - 1]);
        assert_eq!(out.back_edges.len(), 1);
    }
}

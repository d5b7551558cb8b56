//! The path each link takes with the cards where they are now, a drag in progress included.

use super::{CanvasView, Link};
use crate::editor::geometry::{Curve, Point, port_pos};

impl CanvasView {
    /// The path of an edge, with cards at `positions`.
    pub fn link_curve(&self, link: &Link, positions: &[Point]) -> Curve {
        let (a, b) = (self.rect(link.from, positions[link.from]), self.rect(link.to, positions[link.to]));
        let from = port_pos(a, link.from_port, self.boxes[link.from].outputs as usize, true);
        let to = port_pos(b, link.to_port, self.boxes[link.to].inputs as usize, false);
        // The cached span and bend are of the cards at rest; the two ends may be being dragged.
        let (top, bottom) = link.span;
        let at_rest =
            positions[link.from] == self.boxes[link.from].pos && positions[link.to] == self.boxes[link.to].pos;
        Curve::between(a, from, b, to)
            .around((top.min(a.top()).min(b.top()), bottom.max(a.bottom()).max(b.bottom())))
            .bent(link.bend.filter(|_| at_rest))
    }
}

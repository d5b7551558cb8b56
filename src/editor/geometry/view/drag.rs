//! The path each link takes with the cards where they are now, a drag in progress included:
//! the wires of the cards being dragged are routed round the other cards every time the drag
//! moves, against the grid of the cards at rest plus one of the moved cards only.

use super::{CanvasView, Drag, Link};
use crate::editor::geometry::{Curve, Dragged, Point, port_pos};

impl CanvasView {
    /// Route the wires of the cards `drag` moves round the cards as they are now (the other
    /// wires keep the routes [`CanvasView::refresh`] gave them); with no drag, forget them.
    pub fn follow_drag(&mut self, drag: Option<&Drag>) {
        let key = drag.map(|d| (d.ids.len(), d.delta));
        if key == self.dragged {
            return;
        }
        self.dragged = key;
        let (Some(drag), Some(router)) = (drag, &self.router) else {
            for l in &mut self.links {
                l.drag_bend = None;
            }
            return;
        };
        let positions = self.positions(Some(drag));
        let live = self.live(Some(drag));
        let moved = (0..live.len()).filter(|&i| live[i]).map(|i| (i, self.rect(i, positions[i]))).collect();
        let cards = Dragged::new(router, moved);
        let bends: Vec<(usize, Option<f32>)> = (self.links.iter().enumerate())
            .filter(|(_, l)| live[l.from] || live[l.to])
            .map(|(k, l)| (k, cards.route(self.plain_curve(l, &positions), (l.from, l.to)).bend))
            .collect();
        for (k, bend) in bends {
            self.links[k].drag_bend = bend;
        }
    }

    /// The path of an edge, with cards at `positions`.
    pub fn link_curve(&self, link: &Link, positions: &[Point]) -> Curve {
        // The cached bend is of the cards at rest; a dragged end has the drag's.
        let at_rest =
            positions[link.from] == self.boxes[link.from].pos && positions[link.to] == self.boxes[link.to].pos;
        self.plain_curve(link, positions).bent(if at_rest { link.bend } else { link.drag_bend })
    }

    /// The path of an edge before it is bent round cards in its way.
    fn plain_curve(&self, link: &Link, positions: &[Point]) -> Curve {
        let (a, b) = (self.rect(link.from, positions[link.from]), self.rect(link.to, positions[link.to]));
        let from = port_pos(a, link.from_port, self.boxes[link.from].outputs as usize, true);
        let to = port_pos(b, link.to_port, self.boxes[link.to].inputs as usize, false);
        // The cached span is of the cards at rest; the two ends may be being dragged.
        let (top, bottom) = link.span;
        Curve::between(a, from, b, to).around((top.min(a.top()).min(b.top()), bottom.max(a.bottom()).max(b.bottom())))
    }
}

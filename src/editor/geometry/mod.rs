//! The canvas's pure geometry: edge curves (cubic Béziers, and the loops back edges take),
//! where an edge's label goes, where a card's ports are, what a card's text covers, and the
//! distances the hit tests use. No GUI types: [`Point`] and [`Rect`] are this module's own,
//! converted where `app/` draws.

use super::cards;
use std::ops::{Add, Mul, Sub};

pub mod lod;
pub mod raster;
mod route;
pub mod view;
pub use route::{BEND_ARM, Dragged, Router};

/// Grid pitch in canvas units; positions snap to it.
pub const GRID: f32 = 20.0;

/// A card's width (canvas units).
pub const W: f32 = cards::CARD_W as f32;
const PORT_TOP: f32 = cards::PORT_TOP as f32;

/// A point, or a vector between points (canvas units).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

pub const fn point(x: f32, y: f32) -> Point {
    Point { x, y }
}

impl Point {
    pub const ZERO: Point = point(0.0, 0.0);

    /// The point `t` of the way from `self` to `other`.
    pub fn lerp(self, other: Point, t: f32) -> Point {
        point(self.x + (other.x - self.x) * t, self.y + (other.y - self.y) * t)
    }

    pub fn dot(self, other: Point) -> f32 {
        self.x * other.x + self.y * other.y
    }

    pub fn length_sq(self) -> f32 {
        self.x * self.x + self.y * self.y
    }

    pub fn length(self) -> f32 {
        self.x.hypot(self.y)
    }

    pub fn distance(self, other: Point) -> f32 {
        (self - other).length()
    }

    /// The smaller of each coordinate.
    pub fn min(self, other: Point) -> Point {
        point(self.x.min(other.x), self.y.min(other.y))
    }

    /// The larger of each coordinate.
    pub fn max(self, other: Point) -> Point {
        point(self.x.max(other.x), self.y.max(other.y))
    }
}

impl Add for Point {
    type Output = Point;
    fn add(self, o: Point) -> Point {
        point(self.x + o.x, self.y + o.y)
    }
}

impl Sub for Point {
    type Output = Point;
    fn sub(self, o: Point) -> Point {
        point(self.x - o.x, self.y - o.y)
    }
}

impl Mul<f32> for Point {
    type Output = Point;
    fn mul(self, k: f32) -> Point {
        point(self.x * k, self.y * k)
    }
}

impl Mul<Point> for f32 {
    type Output = Point;
    fn mul(self, p: Point) -> Point {
        point(self * p.x, self * p.y)
    }
}

/// An axis-aligned rectangle from `min` (top left) to `max` (bottom right).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub min: Point,
    pub max: Point,
}

impl Rect {
    /// Holds nothing; extending it by a point gives that point.
    pub const NOTHING: Rect =
        Rect { min: point(f32::INFINITY, f32::INFINITY), max: point(-f32::INFINITY, -f32::INFINITY) };

    pub fn from_min_max(min: Point, max: Point) -> Rect {
        Rect { min, max }
    }

    pub fn from_min_size(min: Point, size: Point) -> Rect {
        Rect { min, max: min + size }
    }

    pub fn from_center_size(center: Point, size: Point) -> Rect {
        Rect { min: center - size * 0.5, max: center + size * 0.5 }
    }

    pub fn from_two_pos(a: Point, b: Point) -> Rect {
        Rect { min: a.min(b), max: a.max(b) }
    }

    pub fn from_points(points: &[Point]) -> Rect {
        let mut r = Rect::NOTHING;
        for p in points {
            r.extend_with(*p);
        }
        r
    }

    pub fn left(&self) -> f32 {
        self.min.x
    }

    pub fn right(&self) -> f32 {
        self.max.x
    }

    pub fn top(&self) -> f32 {
        self.min.y
    }

    pub fn bottom(&self) -> f32 {
        self.max.y
    }

    pub fn width(&self) -> f32 {
        self.max.x - self.min.x
    }

    pub fn height(&self) -> f32 {
        self.max.y - self.min.y
    }

    pub fn area(&self) -> f32 {
        self.width() * self.height()
    }

    /// Wider and taller than nothing.
    pub fn is_positive(&self) -> bool {
        self.width() > 0.0 && self.height() > 0.0
    }

    pub fn extend_with(&mut self, p: Point) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    pub fn union(self, other: Rect) -> Rect {
        Rect { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    pub fn intersect(self, other: Rect) -> Rect {
        Rect { min: self.min.max(other.min), max: self.max.min(other.max) }
    }

    pub fn intersects(self, other: Rect) -> bool {
        self.min.x <= other.max.x && other.min.x <= self.max.x && self.min.y <= other.max.y && other.min.y <= self.max.y
    }

    pub fn contains(&self, p: Point) -> bool {
        self.min.x <= p.x && p.x <= self.max.x && self.min.y <= p.y && p.y <= self.max.y
    }

    pub fn contains_rect(&self, other: Rect) -> bool {
        self.contains(other.min) && self.contains(other.max)
    }

    /// Grown by `by` on every side.
    pub fn expand(self, by: f32) -> Rect {
        self.expand2(point(by, by))
    }

    /// Grown by `by.x` left and right, `by.y` above and below.
    pub fn expand2(self, by: Point) -> Rect {
        Rect { min: self.min - by, max: self.max + by }
    }

    pub fn shrink(self, by: f32) -> Rect {
        self.expand(-by)
    }
}

/// How far below the lower of its two cards a back edge's loop runs.
pub const LOOP_GAP: f32 = 36.0;

/// How far a back edge's turns reach out of the source's right and the target's left side
/// (three quarters of the control arm).
pub const LOOP_ARM: f32 = 64.0;

/// The path an edge is drawn along, hit-tested on and fitted by. A forward edge is one
/// S-curve from the source's output to the target's input. A back edge (its target left of
/// its source) would cut straight back through the cards between them, so it loops
/// instead, as node editors draw loops: out of the source to the right, down and back
/// along a lane below both cards, and into the target from the left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Curve {
    pub from: Point,
    pub to: Point,
    /// The height of a back edge's lane; `None` for a forward edge.
    pub lane: Option<f32>,
    /// The height of the lane a forward edge takes round cards it would cross ([`Router`]);
    /// `None` for the plain S-curve. For a back edge, the lane the router moved its loop to.
    pub bend: Option<f32>,
}

impl Curve {
    /// A curve that ignores the cards (a wire being dragged to the pointer).
    pub fn forward(from: Point, to: Point) -> Self {
        Self { from, to, lane: None, bend: None }
    }

    /// The edge from port `from` on card `a` to port `to` on card `b`. It loops when `b`
    /// starts left of `a` (a card straight below or above is reached by the S-curve).
    pub fn between(a: Rect, from: Point, b: Rect, to: Point) -> Self {
        let lane = (b.left() < a.left()).then(|| a.bottom().max(b.bottom()) + LOOP_GAP);
        Self { from, to, lane, bend: None }
    }

    /// A forward edge bent along a lane at height `lane`: out of the source, a turn within
    /// [`BEND_ARM`] to the lane, along it, and a turn into the target. Unchanged for a back
    /// edge, for `None`, and where the ends are too close for the two turns.
    /// For a back edge, `lane` is the height its loop runs at instead (the router's choice
    /// when the loop round every card would cross one); kept as `bend` too, so what a view
    /// caches gives the same curve back.
    pub fn bent(mut self, lane: Option<f32>) -> Self {
        match (self.lane, lane) {
            (Some(_), Some(y)) => (self.lane, self.bend) = (Some(y), Some(y)),
            (None, _) if self.to.x - self.from.x >= 2.0 * BEND_ARM => self.bend = lane,
            _ => {}
        }
        self
    }

    /// A back edge whose lane must clear every card between its ends (these included),
    /// which reach from `top` down to `bottom`: it runs under them or over them, whichever
    /// is the shorter way round.
    pub fn around(mut self, (top, bottom): (f32, f32)) -> Self {
        if let Some(lane) = &mut self.lane {
            let (a, b) = (self.from.y, self.to.y);
            let (below, above) = (bottom + LOOP_GAP, top - LOOP_GAP);
            *lane = if (a - above) + (b - above) < (below - a) + (below - b) { above } else { below };
        }
        self
    }

    /// The curve as cubic Bézier segments, each `[start, control, control, end]`.
    /// On the stack: the full view asks this of tens of thousands of edges.
    pub fn segments(&self) -> ([[Point; 4]; 3], usize) {
        let (from, to) = (self.from, self.to);
        if let (None, Some(y)) = (self.lane, self.bend) {
            // Each turn an S within its arm's width: it stays clear of the next column.
            let half = point(BEND_ARM / 2.0, 0.0);
            let (p1, p2) = (point(from.x + BEND_ARM, y), point(to.x - BEND_ARM, y));
            let segs = [
                [from, from + half, p1 - half, p1],
                [p1, p1.lerp(p2, 1.0 / 3.0), p1.lerp(p2, 2.0 / 3.0), p2],
                [p2, p2 + half, to - half, to],
            ];
            return (segs, 3);
        }
        let Some(lane) = self.lane else {
            let d = ((to.x - from.x).abs() * 0.5).max(50.0);
            let s = [from, from + point(d, 0.0), to - point(d, 0.0), to];
            return ([s, s, s], 1);
        };
        // Each turn is a U: both arms point the same way, so it reaches 3/4 of an arm out.
        let arm = point(LOOP_ARM / 0.75, 0.0);
        let (down, up) = (point(from.x, lane), point(to.x, lane));
        let segs = [
            [from, from + arm, down + arm, down],
            [down, down.lerp(up, 1.0 / 3.0), down.lerp(up, 2.0 / 3.0), up],
            [up, up - arm, to - arm, to],
        ];
        (segs, 3)
    }

    /// The point a fraction `t` along the curve (by segment, evenly).
    pub fn at(&self, t: f32) -> Point {
        let (segs, n) = self.segments();
        let segs = &segs[..n];
        let scaled = t.clamp(0.0, 1.0) * segs.len() as f32;
        let i = (scaled as usize).min(segs.len() - 1);
        cubic(&segs[i], scaled - i as f32)
    }

    /// Points along the curve, `n` steps per segment.
    pub fn points(&self, n: usize) -> Vec<Point> {
        let (segs, count) = self.segments();
        let segs = &segs[..count];
        let mut out = vec![self.from];
        for s in segs {
            out.extend((1..=n).map(|i| cubic(s, i as f32 / n as f32)));
        }
        out
    }

    /// The corners of the curve drawn as straight lines (zoomed far out).
    pub fn polyline(&self) -> Vec<Point> {
        let (from, to) = (self.from, self.to);
        if let (None, Some(y)) = (self.lane, self.bend) {
            let (right, left) = (from.x + BEND_ARM / 2.0, to.x - BEND_ARM / 2.0);
            return vec![from, point(right, from.y), point(right, y), point(left, y), point(left, to.y), to];
        }
        match self.lane {
            None => vec![from, to],
            Some(lane) => {
                let (right, left) = (from.x + LOOP_ARM, to.x - LOOP_ARM);
                vec![from, point(right, from.y), point(right, lane), point(left, lane), point(left, to.y), to]
            }
        }
    }

    /// What the drawn curve covers (not its control points, which reach further out).
    pub fn bounds(&self) -> Rect {
        let (segs, n) = self.segments();
        segs[..n].iter().map(cubic_bounds).reduce(|a, b| a.union(b)).unwrap_or(Rect::NOTHING)
    }

    /// A cheap rect that holds the curve (a Bézier stays inside its control points' hull):
    /// enough to cull by, tens of thousands of times a frame, where exact bounds cost more.
    pub fn hull(&self) -> Rect {
        let (segs, n) = self.segments();
        let mut hull = Rect::NOTHING;
        for p in segs[..n].iter().flatten() {
            hull.extend_with(*p);
        }
        hull
    }
}

/// The cards by their left edge, to ask how high and how low those over a range of x
/// reach: a back edge's lane runs over or under all of them. Sparse tables of extremes
/// answer each question in constant time after an O(n log n) build, so many back edges
/// over many cards stay cheap.
pub struct CardSpans {
    pub lefts: Vec<f32>,
    /// `reach[k][i]`: the highest top and lowest bottom among the cards `i .. i + 2^k` in
    /// order of `lefts`.
    pub reach: Vec<Vec<(f32, f32)>>,
}

impl CardSpans {
    /// From each card's left edge, top and bottom.
    pub fn new(cards: impl Iterator<Item = (f32, f32, f32)>) -> Self {
        let mut cards: Vec<(f32, f32, f32)> = cards.collect();
        cards.sort_by(|a, b| a.0.total_cmp(&b.0));
        let lefts = cards.iter().map(|c| c.0).collect();
        let mut reach = vec![cards.iter().map(|c| (c.1, c.2)).collect::<Vec<_>>()];
        let mut width = 1;
        while 2 * width <= cards.len() {
            let prev = &reach[reach.len() - 1];
            let next = (0..=cards.len() - 2 * width).map(|i| join(prev[i], prev[i + width])).collect();
            reach.push(next);
            width *= 2;
        }
        Self { lefts, reach }
    }

    /// The highest top and lowest bottom of the cards (all `W` wide) that overlap `x0 ..= x1`.
    pub fn reach(&self, x0: f32, x1: f32) -> Option<(f32, f32)> {
        let i = self.lefts.partition_point(|&l| l + W < x0);
        let j = self.lefts.partition_point(|&l| l <= x1);
        if i >= j {
            return None;
        }
        let k = (j - i).ilog2() as usize;
        Some(join(self.reach[k][i], self.reach[k][j - (1 << k)]))
    }
}

/// Two vertical extents as one: the higher top, the lower bottom.
pub fn join(a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
    (a.0.min(b.0), a.1.max(b.1))
}

pub fn cubic(p: &[Point; 4], t: f32) -> Point {
    let u = 1.0 - t;
    u * u * u * p[0] + 3.0 * u * u * t * p[1] + 3.0 * u * t * t * p[2] + t * t * t * p[3]
}

/// The exact bounds of a cubic Bézier: its ends and the points where either coordinate
/// turns (roots of the derivative, a quadratic per axis).
pub fn cubic_bounds(p: &[Point; 4]) -> Rect {
    let mut r = Rect::from_two_pos(p[0], p[3]);
    let axis = |f: fn(Point) -> f32| {
        let (a, b, c, d) = (f(p[0]), f(p[1]), f(p[2]), f(p[3]));
        // B'(t)/3 = qa t² + qb t + qc
        let (qa, qb, qc) = (-a + 3.0 * b - 3.0 * c + d, 2.0 * (a - 2.0 * b + c), b - a);
        // Up to two roots, on the stack; NaN where there is none (the range test drops it).
        let mut ts = [f32::NAN; 2];
        if qa.abs() < 1e-6 {
            if qb.abs() > 1e-6 {
                ts[0] = -qc / qb;
            }
        } else {
            let disc = qb * qb - 4.0 * qa * qc;
            if disc >= 0.0 {
                let s = disc.sqrt();
                ts = [(-qb + s) / (2.0 * qa), (-qb - s) / (2.0 * qa)];
            }
        }
        ts
    };
    for t in axis(|q| q.x).into_iter().chain(axis(|q| q.y)) {
        if t > 0.0 && t < 1.0 {
            r.extend_with(cubic(p, t));
        }
    }
    r
}

pub fn dist_to_segment(p: Point, a: Point, b: Point) -> f32 {
    let ab = b - a;
    let t = if ab.length_sq() > 0.0 { ((p - a).dot(ab) / ab.length_sq()).clamp(0.0, 1.0) } else { 0.0 };
    p.distance(a + ab * t)
}

/// Where along `curve` a label of `size` goes: the middle, or the spot nearest to it whose
/// label covers none of `obstacles` (the text on cards, see [`card_text_areas`], and labels
/// already placed): first sliding along the edge, then stacked above or
/// below it (parallel edges between the same cards have the same middle). Where every
/// spot is covered, the one covering least.
pub fn label_spot(curve: Curve, size: Point, obstacles: &[Rect]) -> Point {
    const TRIES: [f32; 9] = [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82];
    const STACK: [f32; 11] = [0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0, 5.0, -5.0];
    let span = curve.bounds().expand2(point(size.x, size.y * 7.0));
    let near: Vec<&Rect> = obstacles.iter().filter(|t| t.intersects(span)).collect();
    let covered = |p: Point| {
        let r = Rect::from_center_size(p, size);
        near.iter().map(|t| t.intersect(r)).filter(|i| i.is_positive()).map(|i| i.area()).sum::<f32>()
    };
    let mut best = (f32::INFINITY, curve.at(0.5));
    for k in STACK {
        for &t in &TRIES {
            let p = curve.at(t) + point(0.0, k * (size.y + 2.0));
            let c = covered(p);
            if c == 0.0 {
                return p;
            }
            if c < best.0 {
                best = (c, p);
            }
        }
    }
    best.1
}

/// Where a card at `rect` with `(inputs, outputs)` ports draws text, port names in `font`
/// (canvas units): its title and type line across the top, and a half-width row per port
/// name, inside the port dots.
pub fn card_text_areas(rect: Rect, (inputs, outputs): (usize, usize), font: f32) -> impl Iterator<Item = Rect> {
    let top = Rect::from_min_max(rect.min, point(rect.max.x, rect.min.y + PORT_TOP));
    let half = W / 2.0 - 16.0;
    let row = move |k: usize, n: usize, output: bool| {
        let p = port_pos(rect, k, n, output);
        let left = if output { p.x - 10.0 - half } else { p.x + 10.0 };
        Rect::from_min_size(point(left, p.y - font * 0.75), point(half, font * 1.5))
    };
    let ins = (0..inputs).map(move |k| row(k, inputs, false));
    let outs = (0..outputs).map(move |k| row(k, outputs, true));
    std::iter::once(top).chain(ins).chain(outs)
}

pub fn port_pos(card: Rect, i: usize, n: usize, output: bool) -> Point {
    let top = card.top() + PORT_TOP;
    let h = card.bottom() - 6.0 - top;
    let y = top + (i as f32 + 0.5) * h / n.max(1) as f32;
    point(if output { card.right() } else { card.left() }, y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editor::cards;
    // The points and sizes of the tests read as the canvas's own.
    use super::point as pos2;
    use super::point as vec2;

    const H: f32 = cards::CARD_H as f32;

    #[test]
    fn edge_labels_move_off_card_titles() {
        let curve = Curve::forward(pos2(0.0, 0.0), pos2(400.0, 0.0));
        let size = vec2(60.0, 16.0);
        assert_eq!(label_spot(curve, size, &[]), curve.at(0.5));
        // A card title right where the middle of the edge is.
        let title = Rect::from_center_size(curve.at(0.5), vec2(120.0, 24.0));
        let at = label_spot(curve, size, &[title]);
        assert!(!Rect::from_center_size(at, size).intersects(title), "{at:?}");
        // Covered everywhere: the middle, where it would have been.
        let wall = Rect::from_min_max(pos2(-100.0, -500.0), pos2(500.0, 500.0));
        assert_eq!(label_spot(curve, size, &[wall]), curve.at(0.5));
    }

    /// Labels of `n` edges between the same two cards one column apart, with two ports
    /// each (so some edges join the same pair of ports), placed as [`Canvas::paint_still`]
    /// does: the cards' text and each placed label are obstacles.
    fn parallel_labels(n: usize, size: Point) -> (Vec<Rect>, Vec<Rect>) {
        let a = Rect::from_min_size(pos2(0.0, 0.0), vec2(W, H));
        let b = Rect::from_min_size(pos2(W + 90.0, 0.0), vec2(W, H));
        let mut obstacles: Vec<Rect> = [a, b].iter().flat_map(|&c| card_text_areas(c, (2, 2), 11.0)).collect();
        let mut labels = Vec::new();
        for k in 0..n {
            let curve = Curve::between(a, port_pos(a, k % 2, 2, true), b, port_pos(b, k % 2, 2, false));
            let at = label_spot(curve, size, &obstacles);
            obstacles.push(Rect::from_center_size(at, size));
            labels.push(Rect::from_center_size(at, size));
        }
        let text = [a, b].iter().flat_map(|&c| card_text_areas(c, (2, 2), 11.0)).collect();
        (labels, text)
    }

    #[test]
    fn labels_of_parallel_edges_stack_apart_and_clear_of_the_cards_port_names() {
        // Three conditional edges between the same two cards, labels wider than the gap
        // between the cards: they landed in the middle of the gap, over the port names on
        // both cards (only titles kept labels off).
        let (labels, text) = parallel_labels(3, vec2(120.0, 16.0));
        for (i, l) in labels.iter().enumerate() {
            for c in &text {
                assert!(!l.intersects(*c), "label {i} {l:?} covers card text {c:?}");
            }
            for (j, m) in labels.iter().enumerate().skip(i + 1) {
                assert!(!l.intersects(*m), "labels {i} {l:?} and {j} {m:?} overlap");
            }
        }
    }

    /// Three cards in a row and an edge from the last back to the first.
    fn back_edge() -> (Rect, Rect, Rect, Curve) {
        let card = |x: f32| Rect::from_min_size(pos2(x, 0.0), vec2(W, H));
        let (a, b, c) = (card(0.0), card(300.0), card(600.0));
        let curve = Curve::between(c, port_pos(c, 0, 1, true), a, port_pos(a, 0, 1, false));
        (a, b, c, curve)
    }

    #[test]
    fn a_back_edge_loops_under_the_cards_it_would_cross() {
        let (a, b, c, curve) = back_edge();
        assert_eq!(curve.lane, Some(H + LOOP_GAP));
        let pts = curve.points(32);
        // Between its ends, it touches no card: not the two it joins, not the one between.
        for p in &pts[1..pts.len() - 1] {
            for r in [a, b, c] {
                assert!(!r.shrink(0.5).contains(*p), "{p:?} inside {r:?}");
            }
        }
        // It leaves the source to the right and enters the target from the left.
        assert!(pts[1].x > c.right() && pts[pts.len() - 2].x < a.left());
        let lowest = pts.iter().map(|p| p.y).fold(f32::MIN, f32::max);
        assert!((lowest - (H + LOOP_GAP)).abs() < 0.01, "{lowest}");
        // A forward edge stays one curve.
        assert_eq!(Curve::between(a, port_pos(a, 0, 1, true), b, port_pos(b, 0, 1, false)).lane, None);
    }

    #[test]
    fn a_back_edge_lane_goes_round_every_card_between_its_ends_the_shorter_way() {
        let (a, _, c, curve) = back_edge();
        // A tall card hangs lower between them, another further right than the loop reaches.
        let cards = [(0.0, 0.0, H), (300.0, -20.0, 400.0), (600.0, 0.0, H), (1200.0, -900.0, 900.0)];
        let spans = CardSpans::new(cards.into_iter());
        let reach = spans.reach(a.left() - LOOP_ARM, c.right() + LOOP_ARM).unwrap();
        assert_eq!(reach, (-20.0, 400.0));
        assert_eq!(curve.around(reach).lane, Some(-20.0 - LOOP_GAP), "over the cards: the shorter way");
        assert_eq!(curve.around((0.0, H)).lane, Some(H + LOOP_GAP), "under, when it is as short");
        assert_eq!(spans.reach(1000.0, 1100.0), None, "nothing there");
        assert_eq!(spans.reach(1100.0, 5000.0), Some((-900.0, 900.0)));
        // Against every contiguous range, on cards in no particular order.
        let cards: Vec<(f32, f32, f32)> = (0..37)
            .map(|i| (((i * 7919) % 37) as f32 * 90.0, -(((i * 13) % 7) as f32), ((i * 31) % 11) as f32))
            .collect();
        let spans = CardSpans::new(cards.iter().copied());
        for x0 in (0..40).map(|i| i as f32 * 85.0 - 300.0) {
            for x1 in (0..40).map(|i| x0 + i as f32 * 70.0) {
                let expected =
                    cards.iter().filter(|(l, _, _)| *l + W >= x0 && *l <= x1).map(|c| (c.1, c.2)).reduce(join);
                assert_eq!(spans.reach(x0, x1), expected, "{x0} ..= {x1}");
            }
        }
    }

    #[test]
    fn curve_bounds_are_what_is_drawn_not_the_control_points() {
        let (a, _, c, back) = back_edge();
        let forward = Curve::forward(pos2(0.0, 0.0), pos2(30.0, 200.0));
        for curve in [back, forward] {
            let drawn = Rect::from_points(&curve.points(400));
            let b = curve.bounds();
            assert!(b.expand(0.01).contains_rect(drawn), "{b:?} holds {drawn:?}");
            assert!(drawn.expand(0.5).contains_rect(b), "{b:?} no bigger than {drawn:?}");
        }
        // The loop reaches one turn out of each end card and one gap below them.
        let b = back.bounds();
        assert!((b.right() - (c.right() + LOOP_ARM)).abs() < 0.01 && (b.left() - (a.left() - LOOP_ARM)).abs() < 0.01);
        assert!((b.bottom() - (H + LOOP_GAP)).abs() < 0.01, "{b:?}");
    }

    #[test]
    fn ports_on_a_card_of_the_model_height_keep_a_label_line_apart() {
        let pitch = cards::PORT_PITCH as f32;
        let h = cards::card_height(12) as f32;
        let card = Rect::from_min_size(Point::ZERO, vec2(W, h));
        let gap = port_pos(card, 1, 12, false).y - port_pos(card, 0, 12, false).y;
        assert!(gap >= pitch - 0.01, "{gap}");
    }
}

//! Wires round cards: a forward edge whose S-curve would pass through a card other than its
//! two ends is bent along a horizontal lane clear of every card between them, so it never
//! reads as going into a card it does not touch. Cards are kept in a grid of cells, and each
//! edge looks only at the cells near it, up to [`LOOK_LIMIT`] cells and cards: the work
//! grows with the edges, not with edges times cards.

use super::{Curve, LOOP_ARM, Point, Rect, point};
use std::collections::HashMap;

/// How far each turn of a bent edge reaches out of its card (less than half the gap Tidy
/// leaves between columns, so a turn stays in the gap).
pub const BEND_ARM: f32 = 40.0;
/// Room a lane keeps above and below the cards it runs past.
const CLEARANCE: f32 = 12.0;
/// Side of a grid cell (canvas units): about a card's width (larger for cards spread far).
const CELL: f32 = 256.0;
/// An edge looks at no more cards than this; past it, it is left as it is.
const LOOK_LIMIT: usize = 4_096;
/// How far above and below its ends an edge looks for a lane, at first (canvas units);
/// doubled until a lane is found, up to [`SEARCHES`] times.
const REACH: f32 = 240.0;
const SEARCHES: usize = 5;
/// Lanes tried per search, nearest first: each try looks at the cards round its turns.
const TRIES: usize = 8;

/// The cards, by grid cell, to route edges round: each cell's cards are one run of `items`
/// (from `start[cell]` to `start[cell + 1]`), built in two passes with no map or list per
/// cell (a map of lists cost several milliseconds per edit of a 20,000-node workflow).
pub struct Router {
    cards: Vec<Rect>,
    origin: Point,
    cell: f32,
    cols: usize,
    rows: usize,
    start: Vec<u32>,
    items: Vec<u32>,
}

/// The cells a rect covers, clamped to a grid of `cols` × `rows` cells of side `cell` from
/// `origin`: column and row ranges.
fn span(r: Rect, origin: Point, cell: f32, (cols, rows): (usize, usize)) -> (usize, usize, usize, usize) {
    let at = |v: f32, o: f32, n: usize| (((v - o) / cell).max(0.0) as usize).min(n - 1);
    (at(r.min.x, origin.x, cols), at(r.max.x, origin.x, cols), at(r.min.y, origin.y, rows), at(r.max.y, origin.y, rows))
}

impl Router {
    /// From every card's rect; a card is named by its index in `cards`.
    pub fn new(cards: Vec<Rect>) -> Self {
        let bounds = cards.iter().fold(Rect::NOTHING, |b, r| b.union(*r));
        let (origin, size) =
            if cards.is_empty() { (Point::ZERO, point(1.0, 1.0)) } else { (bounds.min, bounds.max - bounds.min) };
        // Cards spread far apart would make most cells empty: cells grow to keep their
        // number within a few per card.
        let most = (4 * cards.len() + 1_024) as f32;
        let cell = CELL.max((size.x.max(1.0) * size.y.max(1.0) / most).sqrt());
        let (cols, rows) = ((size.x / cell) as usize + 1, (size.y / cell) as usize + 1);
        let mut start = vec![0u32; cols * rows + 1];
        for r in &cards {
            let (x0, x1, y0, y1) = span(*r, origin, cell, (cols, rows));
            for y in y0..=y1 {
                for x in x0..=x1 {
                    start[y * cols + x + 1] += 1;
                }
            }
        }
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut fill = start.clone();
        let mut items = vec![0u32; start[start.len() - 1] as usize];
        for (i, r) in cards.iter().enumerate() {
            let (x0, x1, y0, y1) = span(*r, origin, cell, (cols, rows));
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let slot = &mut fill[y * cols + x];
                    items[*slot as usize] = i as u32;
                    *slot += 1;
                }
            }
        }
        Self { cards, origin, cell, cols, rows, start, items }
    }

    /// The cards that overlap `area`, but for `ends`; `None` past [`LOOK_LIMIT`].
    fn cards_in(&self, area: Rect, ends: (usize, usize)) -> Option<Vec<usize>> {
        let (x0, x1, y0, y1) = span(area, self.origin, self.cell, (self.cols, self.rows));
        if (x1 - x0 + 1) * (y1 - y0 + 1) > LOOK_LIMIT {
            return None;
        }
        let mut found = Vec::new();
        for y in y0..=y1 {
            for x in x0..=x1 {
                let k = y * self.cols + x;
                for &i in &self.items[self.start[k] as usize..self.start[k + 1] as usize] {
                    let i = i as usize;
                    if i != ends.0 && i != ends.1 && self.cards[i].intersects(area) {
                        found.push(i);
                    }
                }
                if found.len() > LOOK_LIMIT {
                    return None;
                }
            }
        }
        if found.len() > 1 {
            found.sort_unstable();
            found.dedup();
        }
        Some(found)
    }

    /// The curve an edge from card `ends.0` to card `ends.1` is drawn along: `curve` itself
    /// when it crosses no other card, else bent along the free lane nearest its ends (a back
    /// edge's loop moved to one: [`route_among`]). Left as it is when no lane is found
    /// near enough, or the cards near it are too many to look at.
    pub fn route(&self, curve: Curve, ends: (usize, usize)) -> Curve {
        route_among(self, curve, ends)
    }
}

/// Cards to route round: those overlapping an area, and each one's rect.
trait Cards {
    fn cards_in(&self, area: Rect, ends: (usize, usize)) -> Option<Vec<usize>>;
    fn card(&self, i: usize) -> Rect;
}

impl Cards for Router {
    fn cards_in(&self, area: Rect, ends: (usize, usize)) -> Option<Vec<usize>> {
        Router::cards_in(self, area, ends)
    }

    fn card(&self, i: usize) -> Rect {
        self.cards[i]
    }
}

/// The cards of a [`Router`] while some of them are dragged: those are where they are now,
/// kept in a router of their own, so routing the wires of a drag costs as many cards as it
/// moves, not a new grid of every card.
pub struct Dragged<'a> {
    still: &'a Router,
    moved: Router,
    /// Card index of each of `moved`'s cards, and the reverse.
    index: Vec<usize>,
    local: HashMap<usize, usize>,
}

impl<'a> Dragged<'a> {
    /// `still`'s cards with those in `moved` (card index, rect now) moved.
    pub fn new(still: &'a Router, moved: Vec<(usize, Rect)>) -> Self {
        let index: Vec<usize> = moved.iter().map(|(i, _)| *i).collect();
        let local = index.iter().enumerate().map(|(k, i)| (*i, k)).collect();
        Self { still, moved: Router::new(moved.into_iter().map(|(_, r)| r).collect()), index, local }
    }

    /// [`Router::route`] among the cards as they are now.
    pub fn route(&self, curve: Curve, ends: (usize, usize)) -> Curve {
        route_among(self, curve, ends)
    }
}

impl Cards for Dragged<'_> {
    fn cards_in(&self, area: Rect, ends: (usize, usize)) -> Option<Vec<usize>> {
        let mut found = self.still.cards_in(area, ends)?;
        found.retain(|i| !self.local.contains_key(i));
        let now = self.moved.cards_in(area, (usize::MAX, usize::MAX))?;
        found.extend(now.into_iter().map(|k| self.index[k]).filter(|&i| i != ends.0 && i != ends.1));
        found.sort_unstable();
        Some(found)
    }

    fn card(&self, i: usize) -> Rect {
        match self.local.get(&i) {
            Some(&k) => self.moved.cards[k],
            None => self.still.cards[i],
        }
    }
}

/// The first of `near` whose body `curve` passes through, as it is drawn.
fn crossed(cards: &impl Cards, curve: &Curve, near: &[usize]) -> Option<usize> {
    if near.is_empty() {
        return None;
    }
    let pts = curve.points(24);
    near.iter().copied().find(|&i| {
        let body = cards.card(i).shrink(1.0);
        pts.windows(2).any(|s| segment_hits(s[0], s[1], body))
    })
}

/// [`Router::route`] among `cards`. A forward edge that crosses a card is bent along the
/// nearest free lane between its turns. A back edge's loop runs over or under every card
/// between its ends, but its two drops can still pass through a card above or below an end
/// (two chains stacked and wired end to start): then its loop moves to the nearest free lane
/// whose drops and run cross no card, its own two included (a lane level with them would
/// run through them).
fn route_among(cards: &impl Cards, curve: Curve, ends: (usize, usize)) -> Curve {
    let (from, to) = (curve.from, curve.to);
    let (ends, (left, right)) = if curve.lane.is_some() {
        ((usize::MAX, usize::MAX), (to.x - LOOP_ARM, from.x + LOOP_ARM))
    } else if to.x - from.x < 2.0 * BEND_ARM {
        return curve;
    } else {
        (ends, (from.x + BEND_ARM, to.x - BEND_ARM))
    };
    match cards.cards_in(curve.hull(), ends) {
        Some(near) if crossed(cards, &curve, &near).is_some() => {}
        _ => return curve,
    }
    let (lo, hi) = (from.y.min(to.y), from.y.max(to.y));
    let mut reach = REACH;
    for _ in 0..SEARCHES {
        // The cards between the two turns, over the heights searched.
        let band = Rect::from_min_max(point(left, lo - reach), point(right, hi + reach));
        let Some(between) = cards.cards_in(band, ends) else { return curve };
        let near_lanes = lanes(&between.iter().map(|&i| cards.card(i)).collect::<Vec<_>>(), band, (from.y, to.y));
        for y in near_lanes.into_iter().take(TRIES) {
            let bent = curve.bent(Some(y));
            let Some(near) = cards.cards_in(bent.hull(), ends) else { return curve };
            if crossed(cards, &bent, &near).is_none() {
                return bent;
            }
        }
        reach *= 2.0;
    }
    curve
}

/// Heights inside `band` where a horizontal line crosses none of `cards` (with
/// [`CLEARANCE`]), one per free gap, the nearest each gap has to the ends' heights; in order
/// of how far the edge goes out of its way.
fn lanes(cards: &[Rect], band: Rect, (a, b): (f32, f32)) -> Vec<f32> {
    let mut blocked: Vec<(f32, f32)> = cards.iter().map(|r| (r.min.y - CLEARANCE, r.max.y + CLEARANCE)).collect();
    blocked.sort_by(|p, q| p.0.total_cmp(&q.0));
    let mut gaps = Vec::new();
    let mut free_from = band.min.y;
    for (top, bottom) in blocked {
        if top > free_from {
            gaps.push((free_from, top));
        }
        free_from = free_from.max(bottom);
    }
    if free_from < band.max.y {
        gaps.push((free_from, band.max.y));
    }
    let detour = |y: f32| (y - a).abs() + (y - b).abs();
    let mut ys: Vec<f32> = gaps.into_iter().map(|(top, bottom)| ((a + b) / 2.0).clamp(top, bottom)).collect();
    ys.sort_by(|p, q| detour(*p).total_cmp(&detour(*q)));
    ys
}

/// Whether the segment from `a` to `b` touches `r` (Liang–Barsky clipping).
pub fn segment_hits(a: Point, b: Point, r: Rect) -> bool {
    let d = b - a;
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (p, q) in [(-d.x, a.x - r.min.x), (d.x, r.max.x - a.x), (-d.y, a.y - r.min.y), (d.y, r.max.y - a.y)] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
            if t0 > t1 {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::{W, port_pos};
    use super::*;

    const H: f32 = 96.0;

    fn card(x: f32, y: f32) -> Rect {
        Rect::from_min_size(point(x, y), point(W, H))
    }

    /// The edge from card `a` to card `b` among `cards`, routed.
    fn routed(cards: &[Rect], a: usize, b: usize) -> Curve {
        let (ra, rb) = (cards[a], cards[b]);
        let curve = Curve::between(ra, port_pos(ra, 0, 1, true), rb, port_pos(rb, 0, 1, false));
        Router::new(cards.to_vec()).route(curve, (a, b))
    }

    /// Every card but the edge's ends that a point of the drawn curve lies inside; sampled
    /// densely, independently of the router's own test.
    fn bodies_crossed(curve: &Curve, cards: &[Rect], ends: (usize, usize)) -> Vec<usize> {
        let pts = curve.points(400);
        (0..cards.len())
            .filter(|&i| i != ends.0 && i != ends.1 && pts.iter().any(|p| cards[i].shrink(1.0).contains(*p)))
            .collect()
    }

    #[test]
    fn an_edge_past_a_card_in_its_way_goes_round_it() {
        // Decision → Fetch queue two columns on, Summarize between them at the same height:
        // the plain S-curve runs straight through Summarize.
        let cards = [card(0.0, 0.0), card(310.0, 0.0), card(620.0, 0.0)];
        let plain = Curve::between(cards[0], port_pos(cards[0], 0, 1, true), cards[2], port_pos(cards[2], 0, 1, false));
        assert_eq!(bodies_crossed(&plain, &cards, (0, 2)), vec![1], "the plain curve crosses the middle card");
        let curve = routed(&cards, 0, 2);
        assert_eq!(bodies_crossed(&curve, &cards, (0, 2)), Vec::<usize>::new(), "{curve:?}");
        // It bends just past the middle card (above or below), not further.
        let lane = curve.bend.expect("bent");
        assert!(!(-CLEARANCE + 0.01..=H + CLEARANCE - 0.01).contains(&lane), "{lane}");
        assert!(lane > -CLEARANCE - 60.0 && lane < H + CLEARANCE + 60.0, "{lane}");
        // Still starting and ending at the ports, leaving and entering horizontally.
        let pts = curve.points(8);
        assert_eq!((pts[0], pts[pts.len() - 1]), (curve.from, curve.to));
        assert!(pts[1].x > curve.from.x && pts[pts.len() - 2].x < curve.to.x);
    }

    #[test]
    fn an_edge_with_nothing_in_its_way_is_left_alone() {
        let cards = [card(0.0, 0.0), card(310.0, 200.0), card(620.0, 0.0)];
        assert_eq!(routed(&cards, 0, 2).bend, None);
        // Nor a back edge, which loops round the cards already.
        assert_eq!(routed(&cards, 2, 0).bend, None);
    }

    #[test]
    fn a_lane_is_found_between_stacked_cards() {
        // A column of cards 40 apart between the ends, the gap nearest the ends' height
        // a little below it: the lane runs through that gap, not round the whole column.
        let mut cards = vec![card(0.0, 0.0), card(620.0, 0.0)];
        cards.extend((-5..5).map(|k| card(310.0, k as f32 * (H + 40.0) + 30.0)));
        let curve = routed(&cards, 0, 1);
        assert_eq!(bodies_crossed(&curve, &cards, (0, 1)), Vec::<usize>::new(), "{curve:?}");
        let lane = curve.bend.expect("bent");
        // The gaps are 40 high: 30 - 40 .. 30 and 30 + 96 .. 30 + 136; the first is nearer.
        assert!((-10.0..30.0).contains(&lane), "{lane}");
    }

    #[test]
    fn a_back_edge_takes_the_gap_between_rows_rather_than_drop_through_a_card() {
        // Two chains one above the other, the upper's last card wired back to the lower's
        // first (as a user connects them): looping over every card would drop down the
        // target's left side straight through the card above it. The free gap between the
        // rows is clear all the way.
        let upper = [card(0.0, 0.0), card(310.0, 0.0), card(620.0, 0.0)];
        let lower = [card(100.0, 300.0), card(410.0, 300.0), card(720.0, 300.0)];
        let cards: Vec<Rect> = upper.iter().chain(&lower).copied().collect();
        let (a, b) = (cards[2], cards[3]);
        let plain = Curve::between(a, port_pos(a, 0, 1, true), b, port_pos(b, 0, 1, false)).around((-20.0, 396.0));
        assert!(plain.lane.is_some(), "a back edge");
        assert!(
            !bodies_crossed(&plain, &cards, (usize::MAX, usize::MAX)).is_empty(),
            "the loop over all crosses a card"
        );
        let curve = Router::new(cards.clone()).route(plain, (2, 3));
        assert_eq!(bodies_crossed(&curve, &cards, (usize::MAX, usize::MAX)), Vec::<usize>::new(), "{curve:?}");
        let lane = curve.lane.expect("still a loop");
        assert!(lane > H + CLEARANCE && lane < 300.0 - CLEARANCE, "between the rows: {lane}");
        // What the view cache keeps (the bend) gives the same curve back.
        assert_eq!(plain.bent(curve.bend), curve);
    }

    #[test]
    fn a_back_edge_never_lanes_through_its_own_cards() {
        // Source and target side by side with a card above and below each: no gap between
        // the rows reaches across both ends' heights, so the loop stays round everything.
        let cards = [card(0.0, 0.0), card(400.0, 0.0), card(0.0, -200.0), card(400.0, 200.0)];
        let (a, b) = (cards[1], cards[0]);
        let plain = Curve::between(a, port_pos(a, 0, 1, true), b, port_pos(b, 0, 1, false)).around((-200.0, 296.0));
        let curve = Router::new(cards.to_vec()).route(plain, (1, 0));
        assert_eq!(bodies_crossed(&curve, &cards, (usize::MAX, usize::MAX)), Vec::<usize>::new(), "{curve:?}");
    }

    #[test]
    fn segments_that_touch_a_rect_are_found() {
        let r = Rect::from_min_max(point(0.0, 0.0), point(10.0, 10.0));
        assert!(segment_hits(point(-5.0, 5.0), point(15.0, 5.0), r), "straight through");
        assert!(segment_hits(point(-5.0, -5.0), point(15.0, 15.0), r), "diagonally");
        assert!(segment_hits(point(2.0, 2.0), point(3.0, 3.0), r), "inside");
        assert!(!segment_hits(point(-5.0, -1.0), point(15.0, -1.0), r), "above");
        assert!(!segment_hits(point(11.0, -5.0), point(20.0, 5.0), r), "beside, slanted");
        assert!(!segment_hits(point(-5.0, 27.0), point(27.0, -5.0), r), "past the corner");
    }
}

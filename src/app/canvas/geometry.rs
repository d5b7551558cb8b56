//! The canvas's side of [`crate::editor::geometry`], where its curves, labels, ports and hit
//! distances are computed without egui: conversions between egui's points and rects and that
//! module's own, and the few calls the canvas makes in egui's terms.

use crate::editor::geometry::{self as geo, Point};
use egui::{Pos2, Rect, Vec2, pos2};

pub(super) use geo::Curve;

pub(super) fn pt(p: Pos2) -> Point {
    geo::point(p.x, p.y)
}

pub(super) fn pos(p: Point) -> Pos2 {
    pos2(p.x, p.y)
}

pub(super) fn geo_rect(r: Rect) -> geo::Rect {
    geo::Rect::from_min_max(pt(r.min), pt(r.max))
}

pub(super) fn egui_rect(r: geo::Rect) -> Rect {
    Rect::from_min_max(pos(r.min), pos(r.max))
}

/// An edge's curve from port `from` on card `a` to port `to` on card `b` ([`Curve::between`]).
pub(super) fn curve_between(a: Rect, from: Pos2, b: Rect, to: Pos2) -> Curve {
    Curve::between(geo_rect(a), pt(from), geo_rect(b), pt(to))
}

/// A curve that ignores the cards ([`Curve::forward`]).
pub(super) fn curve_forward(from: Pos2, to: Pos2) -> Curve {
    Curve::forward(pt(from), pt(to))
}

/// Points along `curve`, `n` steps per segment.
pub(super) fn points(curve: &Curve, n: usize) -> Vec<Pos2> {
    curve.points(n).into_iter().map(pos).collect()
}

/// The corners of `curve` drawn as straight lines.
pub(super) fn polyline(curve: &Curve) -> Vec<Pos2> {
    curve.polyline().into_iter().map(pos).collect()
}

/// A cheap rect that holds `curve` ([`Curve::hull`]).
pub(super) fn hull(curve: &Curve) -> Rect {
    egui_rect(curve.hull())
}

/// Where port `i` of `n` on `card` is ([`geo::port_pos`]).
pub(super) fn port_pos(card: Rect, i: usize, n: usize, output: bool) -> Pos2 {
    pos(geo::port_pos(geo_rect(card), i, n, output))
}

/// Where a card at `rect` draws text ([`geo::card_text_areas`]), kept in the geometry's rects
/// for [`label_spot`].
pub(super) fn card_text_areas(rect: Rect, ports: (usize, usize), font: f32) -> impl Iterator<Item = geo::Rect> {
    geo::card_text_areas(geo_rect(rect), ports, font)
}

/// Where along `curve` a label of `size` goes, clear of `obstacles` ([`geo::label_spot`]).
pub(super) fn label_spot(curve: Curve, size: Vec2, obstacles: &[geo::Rect]) -> Pos2 {
    pos(geo::label_spot(curve, geo::point(size.x, size.y), obstacles))
}

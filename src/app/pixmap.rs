//! A small CPU raster the far-zoomed canvas is drawn into and shown as one texture.
//!
//! Zoomed far out, tens of thousands of cards and edges are a pixel or two each: a mesh of
//! a quad per card and per edge segment costs about a hundred bytes per quad three times
//! over (the cached mesh, the frame's copy and the renderer's vertex buffer), for a picture
//! no finer than the screen's pixels. Drawn into pixels instead, the cost is four bytes per
//! pixel of the canvas, however many cards there are; cards that share a pixel blend into
//! it by how much of it each covers, so the picture keeps its density.
//!
//! Coordinates are in pixels of the image, (0, 0) its top-left corner. Colours are
//! premultiplied, as egui's, and blended "over" what is there.

use crate::editor::geometry::raster::{scale, spans};
use egui::{Color32, ColorImage, Pos2, Rect};

pub struct Pixmap {
    width: usize,
    height: usize,
    pixels: Vec<Color32>,
}

impl Pixmap {
    /// A transparent image, in `buffer`'s memory (its pixels are cleared): a redraw reuses
    /// the last one's instead of faulting in fresh pages.
    pub fn new(width: usize, height: usize, mut buffer: Vec<Color32>) -> Self {
        buffer.clear();
        buffer.resize(width * height, Color32::TRANSPARENT);
        Self { width, height, pixels: buffer }
    }

    /// Fill `r`; pixels on its border by the fraction of them it covers.
    pub fn fill_rect(&mut self, r: Rect, color: Color32) {
        let (x0, x1) = (r.min.x.max(0.0), r.max.x.min(self.width as f32));
        if x1 <= x0 {
            return;
        }
        // The columns touched: a first and a last in part, those between whole.
        let (first, end) = (x0.floor() as usize, (x1.ceil() as usize).min(self.width));
        let (left, right) =
            if end - first == 1 { (x1 - x0, 0.0) } else { (first as f32 + 1.0 - x0, x1 - (end - 1) as f32) };
        for (y, cy) in spans(r.min.y, r.max.y, self.height) {
            let row = y * self.width;
            self.blend_run(row + first..row + first + 1, color, left * cy);
            if end - first > 1 {
                self.blend_run(row + first + 1..row + end - 1, color, cy);
                self.blend_run(row + end - 1..row + end, color, right * cy);
            }
        }
    }

    /// The outline of `r`, `width` pixels wide, inside it.
    pub fn stroke_rect(&mut self, r: Rect, width: f32, color: Color32) {
        let w = width.min(r.width() / 2.0).min(r.height() / 2.0);
        let (min, max) = (r.min, r.max);
        self.fill_rect(Rect::from_min_max(min, Pos2::new(max.x, min.y + w)), color);
        self.fill_rect(Rect::from_min_max(Pos2::new(min.x, max.y - w), max), color);
        self.fill_rect(Rect::from_min_max(Pos2::new(min.x, min.y + w), Pos2::new(min.x + w, max.y - w)), color);
        self.fill_rect(Rect::from_min_max(Pos2::new(max.x - w, min.y + w), Pos2::new(max.x, max.y - w)), color);
    }

    /// A straight line `width` pixels wide. Stepping along its longer axis, each step
    /// covers the line's cross-section there, its end pixels by the fraction they hold:
    /// anti-aliased like the canvas's feathered lines, at a few operations per pixel.
    pub fn line(&mut self, a: Pos2, b: Pos2, width: f32, color: Color32) {
        let steep = (b.y - a.y).abs() > (b.x - a.x).abs();
        // Along `u` (the longer axis), across `v`.
        let (a, b) = if steep { ((a.y, a.x), (b.y, b.x)) } else { ((a.x, a.y), (b.x, b.y)) };
        let (a, b) = if a.0 <= b.0 { (a, b) } else { (b, a) };
        let length = b.0 - a.0;
        if length <= 0.0 {
            return;
        }
        let slope = (b.1 - a.1) / length;
        if slope == 0.0 {
            // Level (most edges of a laid-out graph): a rect, filled a row at a time.
            let (lo, hi) = (a.1 - width / 2.0, a.1 + width / 2.0);
            let r = if steep {
                Rect::from_min_max(Pos2::new(lo, a.0), Pos2::new(hi, b.0))
            } else {
                Rect::from_min_max(Pos2::new(a.0, lo), Pos2::new(b.0, hi))
            };
            self.fill_rect(r, color);
            return;
        }
        // The band the line covers across one step of `u`.
        let half = width / 2.0 * (1.0 + slope * slope).sqrt();
        let (along, across) = if steep { (self.height, self.width) } else { (self.width, self.height) };
        // Moving one pixel along `u` and along `v`, in the image's indices.
        let (step_u, step_v) = if steep { (self.width, 1) } else { (1, self.width) };
        let packed = u32::from_le_bytes(color.to_array());
        let opaque = color.a() == 255;
        for (u, cu) in spans(a.0, b.0, along) {
            let mid = (u as f32 + 0.5).clamp(a.0, b.0);
            let v = a.1 + (mid - a.0) * slope;
            let (lo, hi) = (v - half, v + half);
            let (first, end) = (lo.max(0.0) as usize, (hi.min(across as f32).ceil().max(0.0)) as usize);
            for w in first..end {
                let c = (hi.min(w as f32 + 1.0) - lo.max(w as f32)).min(1.0) * cu;
                blend_one(&mut self.pixels[u * step_u + w * step_v], packed, opaque, c);
            }
        }
    }

    /// Blend `color` over the pixels `run` (indices into the image), each covered by
    /// `coverage`.
    #[inline]
    fn blend_run(&mut self, run: std::ops::Range<usize>, color: Color32, coverage: f32) {
        let px = &mut self.pixels[run];
        if coverage >= 1.0 && color.a() == 255 {
            px.fill(color);
            return;
        }
        let packed = u32::from_le_bytes(color.to_array());
        for p in px {
            blend_one(p, packed, false, coverage);
        }
    }

    pub fn into_image(self) -> ColorImage {
        ColorImage::new([self.width, self.height], self.pixels)
    }
}

/// Blend the packed colour `src` over `px`, which it covers by `coverage`. Tens of
/// thousands of cards and edges a redraw: a covered pixel is a store, a partly covered one a
/// few integer operations on the packed colour.
#[inline]
fn blend_one(px: &mut Color32, src: u32, opaque: bool, coverage: f32) {
    if coverage >= 1.0 && opaque {
        *px = Color32::from_rgba_premultiplied(src as u8, (src >> 8) as u8, (src >> 16) as u8, (src >> 24) as u8);
        return;
    }
    if coverage <= 0.0 {
        return;
    }
    let src = scale(src, (coverage.min(1.0) * 256.0 + 0.5) as u32);
    // What shows through: 255 - alpha, as a fraction of 256.
    let keep = 255 - (src >> 24);
    let [r, g, b, a] = (src + scale(u32::from_le_bytes(px.to_array()), keep + (keep >> 7))).to_le_bytes();
    *px = Color32::from_rgba_premultiplied(r, g, b, a);
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::pos2;

    fn alpha(p: &Pixmap, x: usize, y: usize) -> u8 {
        p.pixels[y * p.width + x].a()
    }

    fn coverage(p: &Pixmap) -> f32 {
        p.pixels.iter().map(|c| f32::from(c.a()) / 255.0).sum()
    }

    #[test]
    fn a_rect_covers_its_area_its_border_pixels_in_part() {
        let mut p = Pixmap::new(10, 10, Vec::new());
        p.fill_rect(Rect::from_min_max(pos2(1.5, 2.0), pos2(4.0, 3.25)), Color32::WHITE);
        assert_eq!(alpha(&p, 2, 2), 255);
        // Within one step of 255 for the rounding.
        let near = |a: u8, expected: u8| a.abs_diff(expected) <= 1;
        assert!(near(alpha(&p, 1, 2), 128), "half of the pixel");
        assert!(near(alpha(&p, 2, 3), 64), "a quarter");
        assert!(near(alpha(&p, 1, 3), 32), "half of a quarter");
        assert_eq!(alpha(&p, 4, 2), 0);
        assert!((coverage(&p) - 2.5 * 1.25).abs() < 0.05, "{}", coverage(&p));
        // Outside the image: clipped, not a panic.
        p.fill_rect(Rect::from_min_max(pos2(-5.0, 8.0), pos2(20.0, 30.0)), Color32::WHITE);
        assert_eq!(alpha(&p, 9, 9), 255);
    }

    #[test]
    fn a_line_covers_its_length_times_its_width_whatever_its_direction() {
        for (a, b) in [
            (pos2(1.0, 5.0), pos2(19.0, 5.0)),
            (pos2(5.0, 1.0), pos2(5.0, 19.0)),
            (pos2(2.0, 3.0), pos2(17.0, 15.0)),
            (pos2(17.0, 2.0), pos2(3.0, 18.0)),
        ] {
            let mut p = Pixmap::new(20, 20, Vec::new());
            p.line(a, b, 1.5, Color32::WHITE);
            let expected = a.distance(b) * 1.5;
            let got = coverage(&p);
            assert!((got - expected).abs() < expected * 0.08, "{a:?}-{b:?}: {got} vs {expected}");
            // Only pixels the line passes through or touches are drawn.
            for (i, c) in p.pixels.iter().enumerate() {
                let centre = pos2((i % 20) as f32 + 0.5, (i / 20) as f32 + 0.5);
                let t = ((centre - a).dot(b - a) / (b - a).length_sq()).clamp(0.0, 1.0);
                let off = centre.distance(a.lerp(b, t));
                assert!(c.a() == 0 || off <= 0.75 + 0.71, "{a:?}-{b:?}: pixel {i} drawn {off} away");
            }
        }
        let mut p = Pixmap::new(4, 4, Vec::new());
        p.line(pos2(1.0, 1.0), pos2(1.0, 1.0), 2.0, Color32::WHITE);
        assert_eq!(coverage(&p), 0.0, "no length, nothing drawn");
    }

    #[test]
    fn colours_blend_over_what_is_there() {
        let mut p = Pixmap::new(1, 1, Vec::new());
        p.fill_rect(Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)), Color32::from_rgb(200, 0, 0));
        p.fill_rect(Rect::from_min_max(pos2(0.0, 0.0), pos2(0.5, 1.0)), Color32::from_rgb(0, 0, 200));
        let c = p.pixels[0];
        assert_eq!(c.a(), 255);
        assert!((99..=101).contains(&c.r()) && (99..=101).contains(&c.b()), "{c:?}");
        // An opaque colour over the whole pixel replaces it.
        p.fill_rect(Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)), Color32::from_rgb(0, 50, 0));
        assert_eq!(p.pixels[0], Color32::from_rgb(0, 50, 0));
        p.stroke_rect(Rect::from_min_max(pos2(-1.0, -1.0), pos2(2.0, 2.0)), 0.5, Color32::WHITE);
        assert_eq!(p.pixels[0], Color32::from_rgb(0, 50, 0), "an outline leaves its inside alone");
    }
}

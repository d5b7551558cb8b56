//! Drawing that stays still, tessellated once and reused: the canvas's cards, edges, frames
//! and grid, and the minimap, are painted into a private paint list, turned into one
//! screen-space [`Mesh`] and kept with the key they were drawn for (document revision,
//! view, selection, …). While only the pointer moves, a frame hands the renderer the same
//! shared mesh again, so neither the drawing code nor the tessellator runs.
//!
//! The mesh is tessellated in the coordinates it was painted in, with the pixel density
//! scaled by the zoom (so anti-aliasing feathers one screen pixel and text snaps to screen
//! pixels), and then moved to the screen: the same result as egui's own layer transform.

use egui::emath::TSTransform;
use egui::epaint::{Mesh, Shape, Tessellator};
use egui::{Context, Id, LayerId, Order, Painter, Rect};
use std::sync::Arc;

/// One cached drawing and what it was drawn for.
pub struct MeshCache<K> {
    key: Option<K>,
    mesh: Arc<Mesh>,
}

impl<K> Default for MeshCache<K> {
    fn default() -> Self {
        Self { key: None, mesh: Arc::new(Mesh::default()) }
    }
}

/// What decides the look of text and anti-aliasing besides the caller's key.
#[derive(Clone, Copy, PartialEq)]
pub struct Raster {
    pixels_per_point: f32,
    /// Glyph UVs are normalised by the font atlas size; a grown atlas moves them.
    font_atlas: [usize; 2],
}

impl Raster {
    pub fn of(ctx: &Context) -> Self {
        Self { pixels_per_point: ctx.pixels_per_point(), font_atlas: ctx.fonts(|f| f.font_image_size()) }
    }
}

impl<K: PartialEq> MeshCache<K> {
    /// Whether the mesh held is the one for `key` (the next [`MeshCache::get`] reuses it).
    pub fn holds(&self, key: &K) -> bool {
        self.key.as_ref() == Some(key)
    }

    /// The mesh for `key`: the cached one, or `draw` painted into `clip` (in the drawing's
    /// own coordinates), tessellated, and moved to the screen by `to_screen`.
    pub fn get(
        &mut self,
        ctx: &Context,
        key: K,
        to_screen: TSTransform,
        clip: Rect,
        draw: impl FnOnce(&Painter),
    ) -> Arc<Mesh> {
        if !self.holds(&key) {
            let shapes = paint_offscreen(ctx, clip, draw);
            self.mesh = Arc::new(tessellate(ctx, shapes, to_screen, clip));
            self.key = Some(key);
        }
        Arc::clone(&self.mesh)
    }
}

/// Run `draw` on a painter whose shapes are taken back instead of shown.
fn paint_offscreen(ctx: &Context, clip: Rect, draw: impl FnOnce(&Painter)) -> Vec<Shape> {
    let layer = LayerId::new(Order::Background, Id::unique("cs-offscreen-paint"));
    draw(&Painter::new(ctx.clone(), layer, clip));
    let list = ctx.graphics_mut(|g| std::mem::take(g.entry(layer)));
    list.all_entries().map(|c| c.shape.clone()).collect()
}

fn tessellate(ctx: &Context, shapes: Vec<Shape>, to_screen: TSTransform, clip: Rect) -> Mesh {
    let raster = Raster::of(ctx);
    let options = ctx.tessellation_options(|o| *o);
    // Pixels per unit of the drawing's own coordinates.
    let density = raster.pixels_per_point * to_screen.scaling;
    let mut shapes_tess = Tessellator::new(density, options, raster.font_atlas, Vec::new());
    shapes_tess.set_clip_rect(clip);
    // Text was laid out, its glyphs placed and rasterised, at the context's density: a
    // tessellator at another one cut the tops or bottoms off glyphs (at 75%, "input" read
    // "ınpuc").
    let mut text_tess = Tessellator::new(raster.pixels_per_point, options, raster.font_atlas, Vec::new());
    text_tess.set_clip_rect(clip);
    let mut mesh = Mesh::default();
    let mut pending = shapes;
    pending.reverse();
    // In painting order, so text stays over the card it is on.
    while let Some(shape) = pending.pop() {
        match shape {
            Shape::Vec(inner) => pending.extend(inner.into_iter().rev()),
            Shape::Text(_) => text_tess.tessellate_shape(shape, &mut mesh),
            other => shapes_tess.tessellate_shape(other, &mut mesh),
        }
    }
    mesh.transform(to_screen);
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{Color32, Pos2, pos2, vec2};

    fn frame(ctx: &Context, f: impl FnMut(&Context)) {
        let mut f = f;
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| f(ui.ctx()));
        out.textures_delta.clear();
    }

    #[test]
    fn text_is_placed_as_it_was_laid_out_at_any_zoom() {
        // Drawn at 75%, glyphs lost their tops or bottoms: the text was tessellated at the
        // zoomed density though laid out at the context's.
        let ctx = Context::default();
        let clip = Rect::from_min_size(Pos2::ZERO, vec2(1000.0, 1000.0));
        let at = pos2(10.3, 20.6);
        for scaling in [0.75, 0.5, 1.0, 1.6] {
            let to_screen = TSTransform::new(vec2(7.0, 3.0), scaling);
            let (mut ours, mut reference) = (None, None);
            let draw = |p: &Painter| {
                p.text(at, egui::Align2::LEFT_TOP, "input output", egui::FontId::proportional(11.0), Color32::WHITE);
            };
            frame(&ctx, |ctx| {
                let mut cache = MeshCache::default();
                ours = Some(cache.get(ctx, 1, to_screen, clip, draw));
                let shapes = paint_offscreen(ctx, clip, draw);
                let raster = Raster::of(ctx);
                let mut tess =
                    Tessellator::new(raster.pixels_per_point, Default::default(), raster.font_atlas, Vec::new());
                let mut mesh = Mesh::default();
                for s in shapes {
                    tess.tessellate_shape(s, &mut mesh);
                }
                mesh.transform(to_screen);
                reference = Some(mesh);
            });
            let (ours, reference) = (ours.unwrap(), reference.unwrap());
            assert!(!reference.vertices.is_empty());
            let places = |m: &Mesh| m.vertices.iter().map(|v| (v.pos, v.uv)).collect::<Vec<_>>();
            assert_eq!(places(&ours), places(&reference), "at {scaling}: glyphs moved against their layout");
        }
    }

    #[test]
    fn a_drawing_is_tessellated_once_per_key_and_moved_to_the_screen() {
        let ctx = Context::default();
        let mut cache = MeshCache::default();
        let mut draws = 0;
        let to_screen = TSTransform::new(vec2(100.0, 50.0), 0.5);
        let clip = Rect::from_min_size(Pos2::ZERO, vec2(1000.0, 1000.0));
        let mut meshes = Vec::new();
        for key in [1, 1, 2] {
            frame(&ctx, |ctx| {
                meshes.push(cache.get(ctx, key, to_screen, clip, |p| {
                    draws += 1;
                    p.rect_filled(Rect::from_min_size(pos2(10.0, 10.0), vec2(200.0, 100.0)), 0.0, Color32::RED);
                }));
            });
        }
        assert_eq!(draws, 2, "the second frame with the same key reuses the mesh");
        assert!(Arc::ptr_eq(&meshes[0], &meshes[1]));
        let bounds = meshes[2].calc_bounds();
        // The rect (10,10)-(210,110) at half size, moved by (100,50); feathering adds ≤ 1 px.
        let expected = Rect::from_min_max(pos2(105.0, 55.0), pos2(205.0, 105.0));
        assert!(
            bounds.expand(0.01).contains_rect(expected) && expected.expand(1.01).contains_rect(bounds),
            "{bounds:?}"
        );
    }
}

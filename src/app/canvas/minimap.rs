//! The minimap in the canvas's corner: a density image of the cards and the view's outline.

use super::Canvas;
use super::geometry::egui_rect;
use super::paint::show_image;
use crate::app::mesh_cache::Raster;
use crate::app::theme;
use crate::editor::geometry::view::MinimapCells;
use egui::emath::TSTransform;
use egui::epaint::{ColorImage, Mesh, Shape};
use egui::{Color32, Id, Pos2, Rect, Role, Sense, Stroke, StrokeKind, Vec2, WidgetInfo, pos2, vec2};
use std::sync::Arc;

/// Everything the minimap's drawing depends on.
#[derive(PartialEq)]
pub(super) struct MinimapKey {
    pub(super) revision: Option<(u64, u64)>,
    pub(super) view: Rect,
    pub(super) at: Rect,
    pub(super) raster: Raster,
}

impl Canvas {
    pub(super) fn show_minimap(&mut self, ctx: &egui::Context, outer: Rect, size: Vec2) {
        let Some(bounds) = self.cache.view.bounds.map(egui_rect) else { return };
        let world = bounds.union(self.scene_rect).expand(40.0);
        let pos = outer.max - size - vec2(12.0, 12.0);
        egui::Area::new(Id::unique("cs-minimap")).fixed_pos(pos).order(egui::Order::Middle).show(ctx, |ui| {
            let (rect, resp) = ui.allocate_exact_size(size, Sense::click_and_drag());
            resp.widget_info(|| WidgetInfo::labeled(Role::Image, true, "Minimap"));
            let inner = rect.shrink(6.0);
            // To scale, except that a workflow far wider than high (or the reverse) is
            // stretched across to a quarter of the map, so it shows as more than a hairline.
            let scale = (inner.width() / world.width()).min(inner.height() / world.height());
            let scale = vec2(
                scale.max((inner.width() / 4.0 / world.width()).min(inner.width() / world.width())),
                scale.max((inner.height() / 4.0 / world.height()).min(inner.height() / world.height())),
            );
            let offset = inner.center().to_vec2() - world.center().to_vec2() * scale;
            let map = |p: Pos2| pos2(p.x * scale.x, p.y * scale.y) + offset;
            // Thousands of cells: drawn once per document and view, not every frame.
            let key = MinimapKey {
                revision: self.cache.view.revision,
                view: self.scene_rect,
                at: rect,
                raster: Raster::of(ctx),
            };
            let minimap = &self.cache.minimap;
            let mesh = self.minimap_mesh.get(ctx, key, TSTransform::IDENTITY, rect, |painter| {
                painter.rect_filled(rect, 6.0, theme::MINIMAP_BG);
                painter.rect_stroke(rect, 6.0, Stroke::new(1.0, theme::CARD_BORDER), StrokeKind::Inside);
                if let Minimap::Cards(cards) = minimap {
                    let shapes = cards.iter().map(|r| {
                        let r = Rect::from_min_max(map(r.min), map(r.max));
                        let r = Rect::from_min_size(r.min, r.size().max(vec2(1.5, 1.5)));
                        Shape::rect_filled(r, 0.0, minimap_colour(1))
                    });
                    painter.extend(shapes.collect::<Vec<_>>());
                }
            });
            let painter = ui.painter_at(rect);
            painter.add(Shape::Mesh(mesh));
            if let Minimap::Density { area, image } = minimap {
                let texture = match self.minimap_texture.take() {
                    Some((shown, t)) if Arc::ptr_eq(&shown, image) => t,
                    held => show_image(ctx, held.map(|(_, t)| t), "cs-minimap", image),
                };
                let mut quad = Mesh::with_texture(texture.id());
                let uv = Rect::from_min_max(Pos2::ZERO, pos2(1.0, 1.0));
                quad.add_rect_with_uv(Rect::from_min_max(map(area.min), map(area.max)), uv, Color32::WHITE);
                painter.add(Shape::mesh(quad));
                self.minimap_texture = Some((Arc::clone(image), texture));
            }
            // A view far smaller than the workflow still shows where it is.
            let view = Rect::from_min_max(map(self.scene_rect.min), map(self.scene_rect.max));
            let view = Rect::from_center_size(view.center(), view.size().max(vec2(6.0, 6.0))).intersect(rect);
            painter.rect_stroke(view, 2.0, Stroke::new(1.5, theme::ACCENT), StrokeKind::Inside);
            if (resp.clicked() || resp.dragged())
                && let Some(p) = resp.interact_pointer_pos()
            {
                let target = (p - offset).to_vec2() / scale;
                self.scene_rect = Rect::from_center_size(pos2(target.x, target.y), self.scene_rect.size());
            }
        });
    }
}

/// What the minimap draws: each card, or the density of cards as an image of one texel per
/// cell, drawn as one textured quad (drawn as a rect per cell, the 6,144 cells of a
/// 100,000-node workflow were 49,000 vertices the renderer took again every frame).
#[derive(Default)]
pub(super) enum Minimap {
    #[default]
    Empty,
    Cards(Vec<Rect>),
    Density {
        area: Rect,
        image: Arc<ColorImage>,
    },
}

impl Minimap {
    pub(super) fn of(cells: &MinimapCells) -> Self {
        match cells {
            MinimapCells::Empty => Self::Empty,
            MinimapCells::Cards(cards) => Self::Cards(cards.iter().map(|r| egui_rect(*r)).collect()),
            MinimapCells::Density { area, cols, rows, counts } => {
                let pixels: Vec<Color32> =
                    counts.iter().map(|&n| if n == 0 { Color32::TRANSPARENT } else { minimap_colour(n) }).collect();
                Self::Density { area: egui_rect(*area), image: Arc::new(ColorImage::new([*cols, *rows], pixels)) }
            }
        }
    }
}

/// A minimap cell holding `cards` cards: more opaque the more it holds.
fn minimap_colour(cards: u32) -> Color32 {
    let alpha = (90.0 + 40.0 * (cards as f32).ln_1p()).min(230.0) as u8;
    Color32::from_rgba_unmultiplied(140, 160, 190, alpha)
}

//! The canvas's view of the workflow ([`CanvasView`]: cards, ports, links, frames, measured
//! per revision) with what drawing it needs besides: each card's colour and the minimap.

use super::geometry::egui_rect;
use super::minimap::Minimap;
use super::{CanvasCtx, theme};
use crate::editor::geometry::Point;
use crate::editor::geometry::view::CanvasView;
use egui::{Color32, Rect};

#[derive(Default)]
pub(super) struct ViewCache {
    pub(super) view: CanvasView,
    /// Each card's colour, by the view's card index.
    pub(super) colors: Vec<Color32>,
    pub(super) minimap: Minimap,
}

impl ViewCache {
    /// Brought to the revision of the frame's workflow: following the moves of the last
    /// edit when it only moved nodes, else rebuilt.
    pub(super) fn update(&mut self, cx: &CanvasCtx<'_>) {
        let Some(rebuilt) = self.view.refresh(cx.wf, cx.revision, cx.moves, cx.catalog) else { return };
        if rebuilt {
            self.colors = self.view.cards.iter().map(|c| theme::type_color(cx.wf.graph[c.node].type_id())).collect();
        }
        self.minimap = Minimap::of(&self.view.minimap);
    }

    /// The card `i` drawn with its top-left at `pos`.
    pub(super) fn rect(&self, i: usize, pos: Point) -> Rect {
        egui_rect(self.view.rect(i, pos))
    }
}

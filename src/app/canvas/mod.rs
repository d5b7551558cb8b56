//! The node canvas: the parent workflow drawn with the painter inside an `egui::Scene`
//! (pan and zoom), with selection, moving, connecting, box select, chain-instance frames,
//! the insert preview's ghost nodes and the drop target of a dragged tile.
//!
//! Large workflows stay interactive because everything derived from the model (cards,
//! ports, edge endpoints, frames) is cached per document revision, only what intersects
//! the visible rect is drawn or made interactive, and detail drops with zoom: text goes
//! first, then port dots, then curves become straight lines.

mod badge;
mod geometry;
mod input;
mod minimap;
mod paint;
mod view_cache;

use super::action::Action;
use super::command_ui;
use super::mesh_cache::{MeshCache, Raster};
use super::palette::{NodeTypeDrag, TileDrag};
use super::pixmap::Pixmap;
use super::theme;
use crate::catalog::Catalog;
use crate::editor::cards;
use crate::editor::commands::{self, CommandId, Os, Place};
use crate::editor::document::Command;
use crate::editor::geometry::lod::*;
use crate::editor::geometry::view::{CardText, Drag, Link, marks_meaning, stats_forms};
use crate::editor::geometry::{Point, point};
use crate::editor::packs::PackId;
use crate::editor::preview::{Ghost, GhostEnd, GhostNode};
use crate::editor::selection::{Selection, Step};
use crate::error::Error;
use crate::instance::update::Available;
use crate::workflow::Workflow;
use egui::emath::TSTransform;
use egui::epaint::{ColorImage, CornerRadius, ImageData, Mesh, PathShape, Shape, TextShape};
use egui::text::{LayoutJob, TextFormat, TextWrapping};
use egui::{
    Align2, Color32, FontFamily, FontId, Id, Modifiers, PointerButton, Pos2, Rect, Role, Sense, Stroke, StrokeKind,
    TextureHandle, TextureOptions, Ui, Vec2, WidgetInfo, pos2, vec2,
};
use geometry::*;
use input::*;
use minimap::*;
use paint::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use view_cache::*;

const W: f32 = cards::CARD_W as f32;
const H: f32 = cards::CARD_H as f32;
pub use crate::editor::geometry::GRID;
const HEADER: f32 = 24.0;
const PORT_TOP: f32 = cards::PORT_TOP as f32;
const PORT_R: f32 = 4.5;
const FRAME_PAD: f32 = cards::FRAME_PAD as f32;
const FRAME_HEADER: f32 = cards::FRAME_HEADER as f32;
/// Room Fit leaves round the cards' bounds (canvas units).
const FIT_MARGIN: f32 = FRAME_PAD + 32.0;
/// The zoom a workflow too large to show legibly whole opens at, around its entry.
const OPEN_ZOOM: f32 = 0.75;
/// Largest zoom change one wheel notch (one line of scrolling) makes.
pub const WHEEL_STEP: f32 = 1.15;
/// Zoomed out far enough to show 20,000 nodes and more in one view.
const ZOOM_RANGE: std::ops::RangeInclusive<f32> = 0.01..=2.5;

/// Fit goes no further out than this: a card's title and type read there (a card is 88
/// points wide). Fitting further would show boxes; the minimap shows the whole.
const FIT_FLOOR: f32 = 0.4;

/// What the canvas needs from the app for one frame.
pub struct CanvasCtx<'a> {
    pub wf: &'a Workflow,
    /// Changes whenever the workflow or the catalog does; the drawing cache keys on it.
    pub revision: (u64, u64),
    /// When the last edit only moved nodes: the revision it was made from, and which.
    pub moves: Option<(u64, &'a [String])>,
    /// Named ports of catalogued node types.
    pub catalog: Option<&'a Catalog>,
    pub selection: &'a mut Selection,
    pub ghost: Option<&'a Ghost>,
    /// For the toolbar and the context menus, which come from the command registry.
    pub commands: &'a commands::Context,
    pub os: Os,
    /// Newer versions of instances' chains at hand, by instance key (a frame's menu).
    pub updates: &'a HashMap<String, Available>,
}

/// What one frame of the canvas asks of the editor (as egui-snarl's viewer reports back):
/// commands from its toolbar and menus, document edits made by the pointer (moves,
/// connections), a dropped tile or node type, a frame double-clicked, a ghost picked.
#[must_use]
pub struct CanvasResponse {
    pub actions: Vec<Action>,
}

pub struct Canvas {
    /// The part of the canvas in view (Scene's own state).
    pub scene_rect: Rect,
    /// Where the open context menu of empty canvas was opened (screen points).
    menu_origin: Option<Pos2>,
    /// The settings' snap to the grid, as of the last frame ([`commands::Context::snap`]).
    snap: bool,
    cache: ViewCache,
    drag: Option<Drag>,
    wire: Option<Wire>,
    marquee: Option<Rect>,
    fit_requested: bool,
    /// The pending fit is for a workflow just opened (see [`Canvas::open_rect`]).
    opening: bool,
    to_global: TSTransform,
    outer: Rect,
    tile_target: Option<TileTarget>,
    /// The wire being dragged is over an input port whose type does not fit (drawn red).
    wire_refused: bool,
    last_pass: Duration,
    /// The still part of the canvas, tessellated (see [`Canvas::paint_still`]).
    scene: MeshCache<SceneKey>,
    /// This frame's still mesh, put under the canvas layer once the scene is shown.
    still: Option<Arc<Mesh>>,
    /// Zoomed far out, the still drawing's edges and cards, in pixels (see [`pixmap`]).
    far: Option<FarView>,
    minimap_mesh: MeshCache<MinimapKey>,
    /// The selection the still drawing was last asked for, copied only when it changes: with
    /// 100,000 nodes selected, copying it into every frame's key cost 13 ms a frame.
    selection_drawn: Arc<Selection>,
    /// The minimap's density image as a texture, and the image it shows.
    minimap_texture: Option<(Arc<ColorImage>, TextureHandle)>,
    /// The card whose context menu is open (it keeps taking input while many are in view).
    menu_card: Option<String>,
    /// The view (centre, zoom) before an insert's preview framed its ghosts, for a cancel.
    remembered: Option<(Pos2, f32)>,
    /// The last view Fit stopped at [`FIT_FLOOR`] for, and whether the pending fit shows the
    /// whole workflow instead (Fit asked again on that view).
    legible_fit: Option<Rect>,
    fit_whole: bool,
    /// Cards in view this frame, counted where titles alone may be drawn (see [`Lod::new`]).
    in_view: usize,
}

/// Everything the still drawing depends on.
#[derive(PartialEq)]
struct SceneKey {
    revision: Option<(u64, u64)>,
    /// The view transform: translation and zoom.
    view: [f32; 3],
    visible: Rect,
    raster: Raster,
    /// Shared with [`Canvas::selection_drawn`]: frames with the same selection compare it by
    /// pointer.
    selection: Arc<Selection>,
    /// Cards being dragged, left out of the still drawing.
    live: Vec<usize>,
    target_edge: Option<u64>,
    /// Cards an insert preview shows moved to make room, and where.
    moved: Vec<(usize, Point)>,
    replaced: Option<u64>,
}

/// What one still drawing is of (see [`Canvas::paint_still`]).
#[derive(Clone, Copy)]
struct Still<'a> {
    /// The workflow the view cache was built from (the cards' text is read from it).
    wf: &'a Workflow,
    visible: Rect,
    zoom: f32,
    positions: &'a [Point],
    /// Cards being dragged, drawn every frame instead.
    live: &'a [bool],
    selection: &'a Selection,
    target_edge: Option<u64>,
    /// The edge a previewed splice replaces: left out, the preview draws it going away.
    replaced: Option<u64>,
    /// Whether every card is where the document has it (no insert preview moves one).
    at_rest: bool,
}

/// The still drawing's edges and cards zoomed far out: one texture, shown over `rect` (screen
/// points, on the pixel grid so each texel is one pixel).
struct FarView {
    texture: TextureHandle,
    rect: Rect,
    /// The texture's pixels, kept for the next redraw to draw into once the renderer is done
    /// with them: faulting in a fresh canvas-sized buffer cost about a millisecond a redraw.
    image: Arc<ColorImage>,
}

/// What a click or a menu on the canvas acts on: the selection, the editor (through the
/// actions asked of it), and the context the command menus are built from.
struct Acting<'a> {
    selection: &'a mut Selection,
    actions: &'a mut Vec<Action>,
    commands: &'a commands::Context,
    os: Os,
    updates: &'a HashMap<String, Available>,
}

/// A connection being dragged out of an output port.
struct Wire {
    from: usize,
    port: usize,
    end: Pos2,
}

/// Where a tile or node type being dragged would land.
struct TileTarget {
    label: String,
    /// Card rects relative to the drop point.
    footprint: Vec<Rect>,
    dropped: Dropped,
    at: Pos2,
    edge: Option<u64>,
}

/// What a drag from the palette carries.
enum Dropped {
    Chain { pack: PackId, chain_id: String },
    NodeType(String),
}

impl Canvas {
    pub fn new(scene_rect: Option<Rect>, snap: bool) -> Self {
        Self {
            scene_rect: scene_rect.unwrap_or(Rect::NOTHING),
            menu_origin: None,
            snap,
            cache: ViewCache::default(),
            drag: None,
            wire: None,
            marquee: None,
            fit_requested: scene_rect.is_none(),
            opening: scene_rect.is_none(),
            to_global: TSTransform::IDENTITY,
            outer: Rect::NOTHING,
            tile_target: None,
            wire_refused: false,
            last_pass: Duration::ZERO,
            scene: MeshCache::default(),
            still: None,
            far: None,
            minimap_mesh: MeshCache::default(),
            selection_drawn: Arc::default(),
            minimap_texture: None,
            menu_card: None,
            remembered: None,
            legible_fit: None,
            fit_whole: false,
            in_view: 0,
        }
    }

    /// Where quick-add should open: where the canvas context menu was opened while it is
    /// open, else at the pointer when it is over the canvas, else in the middle of the canvas.
    pub fn quick_add_origin(&self, pointer: Option<Pos2>) -> Pos2 {
        self.menu_origin.or(pointer.filter(|p| self.outer.contains(*p))).unwrap_or(self.outer.center())
    }

    /// Frame every node (and the preview) on the next frame.
    pub fn request_fit(&mut self) {
        // Fit again on the legible fit it made: the whole workflow, however small.
        self.fit_whole = self.legible_fit.is_some_and(|r| same_view(r, self.scene_rect));
        self.fit_requested = true;
        self.opening = false;
    }

    /// Show a workflow just opened: whole, or its entry when whole it would be unreadable.
    pub fn request_open_view(&mut self) {
        self.fit_requested = true;
        self.opening = true;
        self.remembered = None;
    }

    /// Keep the view as it is now, to go back to ([`Canvas::return_to_remembered_view`]).
    pub fn remember_view(&mut self) {
        let zoom = self.zoom();
        self.remembered = (self.scene_rect.is_finite() && zoom > 0.0).then(|| (self.scene_rect.center(), zoom));
    }

    pub fn forget_view(&mut self) {
        self.remembered = None;
    }

    /// Show the remembered view again (same centre and zoom), if there is one.
    pub fn return_to_remembered_view(&mut self) {
        if let Some((centre, zoom)) = self.remembered.take()
            && self.outer.is_positive()
        {
            self.scene_rect = Rect::from_center_size(centre, self.outer.size() / zoom);
            self.fit_requested = false;
        }
    }

    /// CPU time of the last canvas pass (layout, culling, drawing, interaction).
    pub fn last_pass(&self) -> Duration {
        self.last_pass
    }

    pub fn zoom(&self) -> f32 {
        self.to_global.scaling
    }

    /// Canvas coordinates to screen points, as of the last frame.
    pub fn canvas_to_screen(&self, p: Pos2) -> Pos2 {
        self.to_global * p
    }

    pub fn screen_to_canvas(&self, p: Pos2) -> Pos2 {
        self.to_global.inverse() * p
    }

    /// The screen rect of the canvas area, as of the last frame.
    pub fn screen_rect(&self) -> Rect {
        self.outer
    }

    pub fn snap_point(&self, p: Pos2) -> Pos2 {
        if self.snap { pos2((p.x / GRID).round() * GRID, (p.y / GRID).round() * GRID) } else { p }
    }

    /// One frame of the canvas; what the user asked of the editor comes back in the response.
    pub fn show(&mut self, ui: &mut Ui, cx: CanvasCtx<'_>) -> CanvasResponse {
        let started = Instant::now();
        self.cache.update(&cx);
        let CanvasCtx { wf, catalog, selection, ghost, commands, os, updates, .. } = cx;
        self.snap = commands.snap;
        let mut asked = Vec::new();
        let actions = &mut asked;
        self.cache.view.follow_drag(self.drag.as_ref());
        let shown_zoom = self.zoom();
        self.toolbar(ui, wf, commands, os, actions);
        let outer = ui.available_rect_before_wrap();
        let settled = outer == self.outer;
        // A layout change (a panel opened or hidden, the window resized) keeps the zoom and
        // the point at the centre of the canvas: the scene alone would fit the old view
        // into the new size, zooming with the canvas's width.
        if !settled && !self.fit_requested {
            self.scene_rect = keep_view(self.scene_rect, self.outer, outer);
        }
        self.outer = outer;
        ui.painter().rect_filled(outer, 0.0, theme::CANVAS_BG);
        // Panels size themselves over the first frames: fit now if there is no view yet,
        // and again once the canvas keeps its size.
        let no_view = !(self.scene_rect.is_finite() && self.scene_rect.is_positive());
        if (self.fit_requested || no_view) && outer.is_positive() {
            self.scene_rect = if self.opening { self.open_rect(outer) } else { self.fit_view(ghost, outer) };
            self.fit_requested &= !settled;
            self.opening &= self.fit_requested;
            self.fit_whole &= self.fit_requested;
        }
        self.track_tile(ui, outer, actions);

        let ctx = ui.ctx().clone();
        self.arrow_keys(&ctx, wf, selection);
        let modifiers = ctx.input(|i| i.modifiers);
        let box_mode = self.marquee.is_some() || modifiers.shift;
        let pan_buttons = if box_mode {
            egui::containers::DragPanButtons::MIDDLE
        } else {
            egui::containers::DragPanButtons::PRIMARY | egui::containers::DragPanButtons::MIDDLE
        };
        // Judged before drawing, so the wire's colour and the note at the pointer agree.
        let refusal = self.wire_refusal(wf, catalog, ctx.pointer_latest_pos());
        self.wire_refused = refusal.is_some();
        // The still drawing goes here, under the scene's layer, once the scene has drawn it.
        let still_slot = ui.painter().add(Shape::Noop);
        let far_slot = ui.painter().add(Shape::Noop);
        let mut scene_rect = self.scene_rect;
        let scene = egui::Scene::new().zoom_range(ZOOM_RANGE).drag_pan_buttons(pan_buttons);
        let response = scene
            .show(ui, &mut scene_rect, |ui| {
                self.to_global = ctx.layer_transform_to_global(ui.layer_id()).unwrap_or_default();
                let mut acting = Acting { selection, actions, commands, os, updates };
                self.contents(ui, wf, ghost, &mut acting);
            })
            .response;
        self.scene_rect = scene_rect;
        // Text that keeps its size on screen whatever the zoom is drawn here, in screen
        // space: laid out in the scene at its size over the zoom, its glyphs were rasterised
        // that many times larger (at 1% zoom the empty canvas's hint grew the font atlas and
        // its texture to 134 MB each).
        let painter = ui.painter_at(outer);
        if self.cache.view.cards.is_empty() && ghost.is_none() && self.tile_target.is_none() {
            paint_empty_hint(&painter, outer.center());
        }
        if let Some(t) = &self.tile_target {
            paint_tile_label(&painter, t, self.to_global);
        }
        // The toolbar above shows the zoom of the last frame; when the view moved in this
        // one (Fit, a zoom step, the fit once the panels settle), no input may follow to
        // draw it again.
        if self.zoom() != shown_zoom {
            ctx.request_repaint();
        }
        if let Some(mesh) = self.still.take() {
            let painter = ui.painter_at(outer);
            painter.set(still_slot, Shape::Mesh(mesh));
            if let Some(far) = &self.far {
                let mut quad = Mesh::with_texture(far.texture.id());
                quad.add_rect_with_uv(far.rect, Rect::from_min_max(Pos2::ZERO, pos2(1.0, 1.0)), Color32::WHITE);
                painter.set(far_slot, Shape::mesh(quad));
            }
        }
        // "Add here…" adds where the menu was opened, not where its item is clicked.
        if response.secondary_clicked() {
            self.menu_origin = ctx.pointer_latest_pos();
        }
        let menu = response.context_menu(|ui| command_ui::context_items(ui, Place::CanvasMenu, commands, os, actions));
        if menu.is_none() && !response.secondary_clicked() {
            self.menu_origin = None;
        }
        if let Some(e) = &refusal {
            show_refusal_at_pointer(&ctx, e);
        }
        self.background(&ctx, &response, modifiers, selection, actions);
        // While a form previews an insert, the minimap would cover the ghosts in the corner;
        // on a small canvas it would cover the cards (or spill over the panels).
        if commands.minimap
            && ghost.is_none()
            && let Some(size) = minimap_size(outer.size())
        {
            self.show_minimap(&ctx, outer, size);
        }
        self.last_pass = started.elapsed();
        CanvasResponse { actions: asked }
    }

    /// Arrow keys move the selection from node to node ([`Selection::step`]) unless a
    /// widget has the keyboard focus (a text field keeps its arrows), and pan the node
    /// reached into view.
    fn arrow_keys(&mut self, ctx: &egui::Context, wf: &Workflow, selection: &mut Selection) {
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        const KEYS: [(egui::Key, Step); 4] = [
            (egui::Key::ArrowLeft, Step::Left),
            (egui::Key::ArrowRight, Step::Right),
            (egui::Key::ArrowUp, Step::Up),
            (egui::Key::ArrowDown, Step::Down),
        ];
        let pressed = ctx.input_mut(|i| KEYS.iter().find(|(k, _)| i.consume_key(Modifiers::NONE, *k)).map(|(_, d)| *d));
        let centre = self.scene_rect.center();
        let Some(id) = pressed.and_then(|dir| selection.step(wf, dir, (f64::from(centre.x), f64::from(centre.y))))
        else {
            return;
        };
        if let Some(&i) = self.cache.view.by_id.get(&id) {
            let card = self.cache.rect(i, self.cache.view.boxes[i].pos).expand(40.0);
            let view = self.scene_rect;
            let shift = |lo: f32, hi: f32, v_lo: f32, v_hi: f32| (lo - v_lo).min(0.0) + (hi - v_hi).max(0.0);
            let d = vec2(
                shift(card.min.x, card.max.x, view.min.x, view.max.x),
                shift(card.min.y, card.max.y, view.min.y, view.max.y),
            );
            self.scene_rect = view.translate(d);
        }
    }

    /// Fit, zoom and the view toggles, from the command registry.
    fn toolbar(&mut self, ui: &mut Ui, wf: &Workflow, cx: &commands::Context, os: Os, actions: &mut Vec<Action>) {
        ui.horizontal(|ui| {
            command_ui::tool_button(ui, "⛶ Fit", CommandId::Fit, cx, os, actions);
            command_ui::tool_button(ui, "−", CommandId::ZoomOut, cx, os, actions);
            ui.label(egui::RichText::new(format!("{:>3.0}%", self.zoom() * 100.0)).monospace());
            command_ui::tool_button(ui, "+", CommandId::ZoomIn, cx, os, actions);
            ui.separator();
            // On a narrow canvas the view toggles go into a menu rather than being cut.
            let toggles = [CommandId::ToggleSnap, CommandId::ToggleMinimap];
            if ui.available_width() >= command_ui::toggles_width(ui, &toggles) {
                for c in toggles {
                    command_ui::tool_button(ui, "", c, cx, os, actions);
                }
            } else {
                command_ui::overflow_menu(ui, &toggles, cx, os, actions);
            }
            ui.separator();
            let forms = stats_forms(wf.node_count(), wf.graph.edge_count(), self.cache.view.frames.len());
            // The longest form that fits: a count cut in the middle reads as another number.
            let font = egui::TextStyle::Body.resolve(ui.style());
            let width = ui.available_width();
            let fits = |s: &String| {
                ui.ctx().fonts_mut(|f| f.layout_no_wrap(s.clone(), font.clone(), egui::Color32::WHITE).size().x)
                    <= width
            };
            let shown = forms.iter().find(|s| fits(s)).unwrap_or(&forms[forms.len() - 1]);
            let stats = egui::RichText::new(shown).color(theme::TEXT_DIM);
            ui.add(egui::Label::new(stats).truncate()).on_hover_text(&forms[0]);
        });
    }

    /// Show `region` (canvas coordinates) inside `band` (a part of the canvas on screen),
    /// never magnified past 1:1.
    pub fn frame_region(&mut self, region: Rect, band: Rect) {
        let outer = self.outer;
        if !(region.is_positive() && band.is_positive() && outer.is_positive()) {
            return;
        }
        let region = region.expand(30.0);
        let zoom = (band.width() / region.width()).min(band.height() / region.height()).min(1.0);
        let centre = region.center() + (outer.center() - band.center()) / zoom;
        self.scene_rect = Rect::from_center_size(centre, outer.size() / zoom);
        self.fit_requested = false;
    }

    /// Frame the cards of these nodes (and nothing when none is on the canvas).
    pub fn zoom_to_nodes<'a>(&mut self, ids: impl IntoIterator<Item = &'a String>) {
        let region = ids
            .into_iter()
            .filter_map(|id| self.cache.view.by_id.get(id))
            .map(|&i| self.cache.rect(i, self.cache.view.boxes[i].pos))
            .reduce(|a, b| a.union(b));
        if let Some(region) = region {
            let band = self.outer.shrink(8.0);
            self.frame_region(region, band);
        }
    }

    /// One zoom step in, about the centre of the view (as far as a wheel notch goes).
    pub fn zoom_in(&mut self) {
        self.zoom_by(WHEEL_STEP);
    }

    pub fn zoom_out(&mut self) {
        self.zoom_by(1.0 / WHEEL_STEP);
    }

    fn zoom_by(&mut self, factor: f32) {
        let c = self.scene_rect.center();
        let size = self.scene_rect.size() / factor;
        self.scene_rect = Rect::from_center_size(c, size);
    }

    fn fit_rect(&self, ghost: Option<&Ghost>, outer: Rect) -> Rect {
        let mut bounds = self.cache.view.fit_bounds.map(egui_rect);
        if let Some(g) = ghost {
            let moved = g.moved.iter().map(|(_, p)| card_rect(pos2(p.0 as f32, p.1 as f32)));
            for r in g.nodes.iter().map(ghost_rect).chain(moved) {
                bounds = Some(bounds.map_or(r, |b| b.union(r)));
            }
        }
        let Some(b) = bounds else {
            return Rect::from_center_size(pos2(outer.width() / 2.0 - 80.0, outer.height() / 2.0 - 80.0), outer.size());
        };
        // A margin for frames and a little air (it was 60 units a side, and 82 above and
        // below: a row that fits at 1:1 was shown at 98%).
        let b = b.expand2(vec2(FIT_MARGIN, FIT_MARGIN + FRAME_HEADER));
        // Never magnify past 1:1 when fitting a small graph.
        let scale = (outer.width() / b.width()).min(outer.height() / b.height()).min(1.0);
        Rect::from_center_size(b.center(), outer.size() / scale)
    }

    /// What Fit shows: every card and edge (and the preview), unless that is further out
    /// than [`FIT_FLOOR`]; then the entry at that zoom, level with the middle, at the left,
    /// and the whole only when Fit is asked again on that view.
    fn fit_view(&mut self, ghost: Option<&Ghost>, outer: Rect) -> Rect {
        let whole = self.fit_rect(ghost, outer);
        if ghost.is_some() || self.fit_whole || outer.width() / whole.width() >= FIT_FLOOR {
            self.legible_fit = None;
            return whole;
        }
        let legible = self.entry_view(outer, FIT_FLOOR, false).unwrap_or(whole);
        self.legible_fit = Some(legible);
        legible
    }

    /// At `zoom`, the left edge of the cards in view and the entry card (the leftmost card
    /// without an incoming edge) in view: with `top`, the entry level with the middle but
    /// no higher than the cards' top; else the cards' middle level with the canvas's as far
    /// as the entry stays in view (two stacked rows are both shown, not the lower half empty).
    fn entry_view(&self, outer: Rect, zoom: f32, top: bool) -> Option<Rect> {
        let (bounds, entry) = (egui_rect(self.cache.view.bounds?), egui_rect(self.cache.view.entry()?));
        let size = outer.size() / zoom;
        let centred_on_entry = entry.center().y - size.y / 2.0;
        let y = if top {
            centred_on_entry.max(bounds.min.y - FIT_MARGIN - FRAME_HEADER)
        } else {
            let (min_top, max_top) = (entry.max.y + FIT_MARGIN - size.y, entry.min.y - FIT_MARGIN - FRAME_HEADER);
            if min_top <= max_top {
                (bounds.center().y - size.y / 2.0).clamp(min_top, max_top)
            } else {
                centred_on_entry
            }
        };
        Some(Rect::from_min_size(pos2(bounds.min.x - FIT_MARGIN, y), size))
    }

    /// Where a workflow opens: fitted whole when its cards' type and port names are drawn at
    /// that zoom, else (five cards in a 500-point canvas fit at 32%, where only titles are
    /// left; 20,000 nodes at a hairline) its entry at [`OPEN_ZOOM`]: the left edge of the
    /// cards in view, level with the leftmost card that has no incoming edge. The minimap
    /// shows the whole, and Fit shows it all in the canvas.
    fn open_rect(&self, outer: Rect) -> Rect {
        let fit = self.fit_rect(None, outer);
        if outer.width() / fit.width() >= LOD_DETAIL {
            return fit;
        }
        self.entry_view(outer, OPEN_ZOOM, true).unwrap_or(fit)
    }
}

/// Wheel zoom in steps of at most [`WHEEL_STEP`]: egui turns a scrolled line into this many
/// points, and a zoom of `exp(points × speed)`.
pub fn configure_input(ctx: &egui::Context) {
    ctx.options_mut(|o| {
        let line = o.input_options.line_scroll_speed.max(1.0);
        o.input_options.scroll_zoom_speed = WHEEL_STEP.ln() / line;
    });
}

/// Ctrl+wheel lines arriving in one frame count as one notch: X11 reports every notch twice
/// (with the same timestamp), which would zoom two steps at a time. A fast spin still zooms
/// a step every frame.
pub fn one_zoom_notch_per_frame(raw: &mut egui::RawInput) {
    let zooming = |e: &egui::Event| matches!(e, egui::Event::MouseWheel { unit: egui::MouseWheelUnit::Line, modifiers, .. } if modifiers.command);
    let mut seen = false;
    raw.events.retain_mut(|e| {
        if !zooming(e) {
            return true;
        }
        if let egui::Event::MouseWheel { delta, .. } = e {
            *delta = delta.clamp(Vec2::splat(-1.0), Vec2::splat(1.0));
        }
        !std::mem::replace(&mut seen, true)
    });
}

/// The minimap's size on a canvas of at least [`MINIMAP_ROOM`].
const MINIMAP_FULL: Vec2 = vec2(210.0, 140.0);
/// The canvas size below which the minimap shrinks with the canvas.
const MINIMAP_ROOM: Vec2 = vec2(560.0, 400.0);
/// The smallest minimap worth drawing; on a canvas too small for it, it is hidden (its
/// tooltip says so).
const MINIMAP_LEAST: Vec2 = vec2(90.0, 60.0);

/// The minimap's size on a canvas of `canvas` points: full size, or smaller in proportion
/// on a small canvas, or `None` where even the smallest would cover most of the cards.
fn minimap_size(canvas: Vec2) -> Option<Vec2> {
    let share = (canvas.x / MINIMAP_ROOM.x).min(canvas.y / MINIMAP_ROOM.y).min(1.0);
    let size = MINIMAP_FULL * share;
    (size.x >= MINIMAP_LEAST.x && size.y >= MINIMAP_LEAST.y).then_some(size)
}

/// Whether two views are the same but for rounding (the scene recomputes the one it shows).
fn same_view(a: Rect, b: Rect) -> bool {
    (a.center() - b.center()).length() <= 0.01 * a.width() && (a.width() / b.width() - 1.0).abs() <= 0.01
}

/// `view` (canvas units) shown on a canvas that was `before` and is now `after` (screen
/// points): the same zoom and the same centre. Without a view or an old size, unchanged.
fn keep_view(view: Rect, before: Rect, after: Rect) -> Rect {
    if !(view.is_finite() && view.is_positive() && before.is_positive() && after.is_positive()) {
        return view;
    }
    // The scene fits the whole view into the canvas: its zoom is the smaller ratio.
    let zoom = (before.width() / view.width()).min(before.height() / view.height());
    Rect::from_center_size(view.center(), after.size() / zoom)
}

/// Capability marks a card's title shows, in the order of the view's mark bits: glyph and
/// colour.
const MARKS: [(&str, Color32); 4] = [("⚡", theme::WARN), ("♻", theme::OK), ("⚠", theme::ERROR), ("↺", theme::ACCENT)];

/// The text shown on an edge: its condition, and its triggerRule when not the default.
pub fn edge_label(edge: &crate::workflow::Edge) -> Option<String> {
    use serde_json::Value;
    let mut parts = Vec::new();
    if let Some(c) = edge.condition() {
        let s = |k: &str| c.get(k).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).unwrap_or_default();
        let text = match c.get("type").and_then(Value::as_str) {
            Some("truthy") => format!("if {}", s("left")),
            Some("falsy") => format!("unless {}", s("left")),
            Some("equals") => format!("{} = {}", s("left"), s("right")),
            Some("notEquals") => format!("{} ≠ {}", s("left"), s("right")),
            Some("contains") => format!("{} contains {}", s("left"), s("right")),
            Some("regex") => format!("{} ~ /{}/", s("left"), s("right")),
            Some("expression") => s("expression"),
            _ => c.to_string(),
        };
        parts.push(text);
    }
    if let Some(rule) = edge.trigger_rule().filter(|r| *r != "all_success") {
        parts.push(rule.to_owned());
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// A card of the layout's size (ghosts, drop footprints, framing).
/// Where a ghost node's card is drawn.
pub fn ghost_rect(n: &GhostNode) -> Rect {
    card_rect(pos2(n.pos.0 as f32, n.pos.1 as f32))
}

pub fn card_rect(pos: Pos2) -> Rect {
    Rect::from_min_size(pos, vec2(W, H))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_zooms_one_notch_however_many_are_reported() {
        let wheel = |dy: f32, command: bool| egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Line,
            delta: vec2(0.0, dy),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: if command { Modifiers::COMMAND } else { Modifiers::NONE },
        };
        let mut raw = egui::RawInput {
            events: vec![wheel(1.0, true), wheel(1.0, true), wheel(3.0, false), wheel(2.0, true)],
            ..Default::default()
        };
        one_zoom_notch_per_frame(&mut raw);
        assert_eq!(raw.events, vec![wheel(1.0, true), wheel(3.0, false)], "plain scrolling is left alone");
        let mut big = egui::RawInput { events: vec![wheel(-4.0, true)], ..Default::default() };
        one_zoom_notch_per_frame(&mut big);
        assert_eq!(big.events, vec![wheel(-1.0, true)]);
    }
}

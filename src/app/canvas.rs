//! The node canvas: the parent workflow drawn with the painter inside an `egui::Scene`
//! (pan and zoom), with selection, moving, connecting, box select, chain-instance frames,
//! the insert preview's ghost nodes and the drop target of a dragged tile.
//!
//! Large workflows stay interactive because everything derived from the model (cards,
//! ports, edge endpoints, frames) is cached per document revision, only what intersects
//! the visible rect is drawn or made interactive, and detail drops with zoom: text goes
//! first, then port dots, then curves become straight lines.

use super::action::Action;
use super::command_ui;
use super::mesh_cache::{MeshCache, Raster};
use super::palette::{NodeTypeDrag, TileDrag};
use super::pixmap::Pixmap;
use super::theme;
use crate::catalog::Catalog;
use crate::editor::cards::{self, CardPorts, card_ports};
use crate::editor::commands::{self, CommandId, Os, Place};
use crate::editor::document::Command;
use crate::editor::node_type;
use crate::editor::packs::PackId;
use crate::editor::preview::{Ghost, GhostEnd, GhostNode};
use crate::editor::selection::{Selection, Step};
use crate::error::Error;
use crate::workflow::Workflow;
use egui::emath::TSTransform;
use egui::epaint::{ColorImage, CornerRadius, ImageData, Mesh, PathShape, Shape, TextShape};
use egui::text::{LayoutJob, TextFormat, TextWrapping};
use egui::{
    Align2, Color32, FontFamily, FontId, Id, Modifiers, PointerButton, Pos2, Rect, Role, Sense, Stroke, StrokeKind,
    TextureHandle, TextureOptions, Ui, Vec2, WidgetInfo, pos2, vec2,
};
use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

const W: f32 = cards::CARD_W as f32;
const H: f32 = cards::CARD_H as f32;
/// Grid pitch in canvas units; positions snap to it.
pub const GRID: f32 = 20.0;
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

/// Below these zoom levels a detail is not drawn (screen points per canvas unit). Type
/// lines, port names and edge labels grow as the view zooms out (see [`detail_font`]) and
/// are dropped only where even their largest size, a port pitch, falls under
/// [`LEGIBLE`] on screen.
const LOD_DETAIL: f32 = LEGIBLE / DETAIL_MAX;
const LOD_TEXT: f32 = 0.42;
const LOD_PORTS: f32 = 0.28;
const LOD_SOLID: f32 = 0.12;
/// With more cards than this in view, only those the pointer can reach take input.
const INTERACT_ALL: usize = 400;
/// A workflow of at most this many cards keeps its names down to [`LOD_TEXT_FEW`]: Fit on a
/// small workflow often lands just under [`LOD_TEXT`], and a dozen nameless cards are
/// unreadable, while the cost of text only matters on large graphs.
const FEW_CARDS: usize = INTERACT_ALL;
const LOD_TEXT_FEW: f32 = 0.3;
/// Smallest glyph size (screen points) worth drawing.
const LEGIBLE: f32 = 8.0;
/// Size of a card's small print at 1:1, and the most it grows to as the view zooms out:
/// a port name fills its port pitch at most.
const DETAIL_FONT: f32 = 11.0;
const DETAIL_MAX: f32 = cards::PORT_PITCH as f32 - 2.0;

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
    pub actions: &'a mut Vec<Action>,
    /// For the toolbar and the context menus, which come from the command registry.
    pub commands: &'a commands::Context,
    pub os: Os,
}

pub struct Canvas {
    /// The part of the canvas in view (Scene's own state).
    pub scene_rect: Rect,
    /// Where the open context menu of empty canvas was opened (screen points).
    menu_origin: Option<Pos2>,
    pub snap: bool,
    pub minimap: bool,
    cache: ViewCache,
    drag: Option<NodeDrag>,
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
    moved: Vec<(usize, Pos2)>,
    replaced: Option<u64>,
}

/// What one still drawing is of (see [`Canvas::paint_still`]).
#[derive(Clone, Copy)]
struct Still<'a> {
    /// The workflow the view cache was built from (the cards' text is read from it).
    wf: &'a Workflow,
    visible: Rect,
    zoom: f32,
    positions: &'a [Pos2],
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

/// Everything the minimap's drawing depends on.
#[derive(PartialEq)]
struct MinimapKey {
    revision: Option<(u64, u64)>,
    view: Rect,
    at: Rect,
    raster: Raster,
}

/// Nodes being moved: their ids and how far, in canvas units.
struct NodeDrag {
    ids: Vec<String>,
    delta: Vec2,
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
    pub fn new(scene_rect: Option<Rect>, snap: bool, minimap: bool) -> Self {
        Self {
            scene_rect: scene_rect.unwrap_or(Rect::NOTHING),
            menu_origin: None,
            snap,
            minimap,
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
        }
    }

    /// Where quick-add should open: where the canvas context menu was opened while it is
    /// open, else at the pointer when it is over the canvas, else in the middle of the canvas.
    pub fn quick_add_origin(&self, pointer: Option<Pos2>) -> Pos2 {
        self.menu_origin.or(pointer.filter(|p| self.outer.contains(*p))).unwrap_or(self.outer.center())
    }

    /// Frame every node (and the preview) on the next frame.
    pub fn request_fit(&mut self) {
        self.fit_requested = true;
        self.opening = false;
    }

    /// Show a workflow just opened: whole, or its entry when whole it would be unreadable.
    pub fn request_open_view(&mut self) {
        self.fit_requested = true;
        self.opening = true;
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

    pub fn show(&mut self, ui: &mut Ui, cx: CanvasCtx<'_>) {
        let started = Instant::now();
        let CanvasCtx { wf, revision, moves, catalog, selection, ghost, actions, commands, os } = cx;
        if self.cache.revision != Some(revision) && !self.cache.follow_moves(wf, revision, moves) {
            self.cache = ViewCache::build(wf, revision, catalog);
        }
        let shown_zoom = self.zoom();
        self.toolbar(ui, wf, commands, os, actions);
        let outer = ui.available_rect_before_wrap();
        let settled = outer == self.outer;
        self.outer = outer;
        ui.painter().rect_filled(outer, 0.0, theme::CANVAS_BG);
        // Panels size themselves over the first frames: fit now if there is no view yet,
        // and again once the canvas keeps its size.
        let no_view = !(self.scene_rect.is_finite() && self.scene_rect.is_positive());
        if (self.fit_requested || no_view) && outer.is_positive() {
            self.scene_rect = if self.opening { self.open_rect(outer) } else { self.fit_rect(ghost, outer) };
            self.fit_requested &= !settled;
            self.opening &= self.fit_requested;
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
                self.contents(ui, wf, selection, ghost, actions, (commands, os));
            })
            .response;
        self.scene_rect = scene_rect;
        // Text that keeps its size on screen whatever the zoom is drawn here, in screen
        // space: laid out in the scene at its size over the zoom, its glyphs were rasterised
        // that many times larger (at 1% zoom the empty canvas's hint grew the font atlas and
        // its texture to 134 MB each).
        let painter = ui.painter_at(outer);
        if self.cache.cards.is_empty() && ghost.is_none() && self.tile_target.is_none() {
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
        if self.minimap && ghost.is_none() && outer.width() >= MINIMAP_ROOM.x && outer.height() >= MINIMAP_ROOM.y {
            self.show_minimap(&ctx, outer);
        }
        self.last_pass = started.elapsed();
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
        if let Some(&i) = self.cache.by_id.get(&id) {
            let card = self.cache.rect(i, self.cache.boxes[i].pos).expand(40.0);
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
            let stats = egui::RichText::new(format!(
                "{} nodes · {} edges · {} chain instances",
                wf.node_count(),
                wf.graph.edge_count(),
                self.cache.frames.len()
            ))
            .color(theme::TEXT_DIM);
            ui.add(egui::Label::new(stats).truncate());
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
            .filter_map(|id| self.cache.by_id.get(id))
            .map(|&i| self.cache.rect(i, self.cache.boxes[i].pos))
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
        let mut bounds = self.cache.fit_bounds;
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

    /// Where a workflow opens: fitted whole when its cards' type and port names are drawn at
    /// that zoom, else (five cards in a 500-point canvas fit at 32%, where only titles are
    /// left; 20,000 nodes at a hairline) its entry at [`OPEN_ZOOM`]: the left edge of the
    /// cards in view, level with the leftmost card that has no incoming edge. The minimap
    /// shows the whole, and Fit shows it all in the canvas.
    fn open_rect(&self, outer: Rect) -> Rect {
        let fit = self.fit_rect(None, outer);
        let (Some(bounds), Some(entry)) = (self.cache.bounds, self.cache.entry()) else { return fit };
        if outer.width() / fit.width() >= LOD_DETAIL {
            return fit;
        }
        let size = outer.size() / OPEN_ZOOM;
        let top = (entry.center().y - size.y / 2.0).max(bounds.min.y - FIT_MARGIN - FRAME_HEADER);
        Rect::from_min_size(pos2(bounds.min.x - FIT_MARGIN, top), size)
    }

    /// While a tile or a node type is dragged over the canvas: where it would land, and on
    /// which edge.
    fn track_tile(&mut self, ui: &Ui, outer: Rect, actions: &mut Vec<Action>) {
        self.tile_target = None;
        let ctx = ui.ctx();
        let (label, footprint, dropped) = if let Some(tile) = egui::DragAndDrop::payload::<TileDrag>(ctx) {
            let dropped = Dropped::Chain { pack: tile.pack, chain_id: tile.chain_id.clone() };
            (tile.label.clone(), tile.footprint.clone(), dropped)
        } else if let Some(t) = egui::DragAndDrop::payload::<NodeTypeDrag>(ctx) {
            (t.label.clone(), vec![card_rect(Pos2::ZERO)], Dropped::NodeType(t.type_id.clone()))
        } else {
            return;
        };
        let Some(pointer) = ctx.pointer_latest_pos().filter(|p| outer.contains(*p)) else { return };
        let p = self.screen_to_canvas(pointer);
        let edge = self.edge_at(p, 10.0 / self.zoom().max(0.05), None);
        let at = self.snap_point(p);
        if ctx.input(|i| i.pointer.any_released()) {
            egui::DragAndDrop::clear_payload(ctx);
            let at = (f64::from(at.x), f64::from(at.y));
            actions.push(match dropped {
                Dropped::Chain { pack, chain_id } => {
                    Action::OpenInsertForm { pack, chain_id, at, on_edge: edge, after: None }
                }
                Dropped::NodeType(type_id) => Action::InsertNodeType { type_id, at, on_edge: edge },
            });
            return;
        }
        self.tile_target = Some(TileTarget { label, footprint, dropped, at, edge });
    }

    fn contents(
        &mut self,
        ui: &mut Ui,
        wf: &Workflow,
        selection: &mut Selection,
        ghost: Option<&Ghost>,
        actions: &mut Vec<Action>,
        (commands, os): (&commands::Context, Os),
    ) {
        let zoom = self.to_global.scaling;
        let visible = ui.clip_rect();
        let painter = ui.painter().clone();
        let ctx = ui.ctx().clone();
        let mut positions = self.positions();
        // While an insert previews, the nodes it will move to make room are drawn there.
        let mut moved = Vec::new();
        for (id, (x, y)) in ghost.map(|g| g.moved.as_slice()).unwrap_or_default() {
            if let Some(&i) = self.cache.by_id.get(id) {
                positions[i] = pos2(*x as f32, *y as f32);
                moved.push((i, positions[i]));
            }
        }
        let live = self.live_cards();
        let target_edge = self.tile_target.as_ref().and_then(|t| t.edge);
        let replaced = ghost.and_then(|g| g.replaced);
        let still = Still {
            wf,
            visible,
            zoom,
            positions: &positions,
            live: &live,
            selection,
            target_edge,
            replaced,
            at_rest: moved.is_empty(),
        };
        self.draw_still(&ctx, &still, moved);

        self.frames(ui, &positions, &live, selection, actions, (commands, os));
        // Edges to and from the cards being dragged follow them.
        for link in self.cache.links.iter().filter(|l| live[l.from] || live[l.to]) {
            let curve = self.link_curve(link, &positions);
            let selected = selection.edges.contains(&link.seq);
            paint_edge(&painter, curve, link_stroke(link, selected, false, zoom), zoom);
        }
        self.cards(ui, wf, &positions, &live, selection, actions, (commands, os));
        if let Some(g) = ghost {
            self.ghost(ui, g, &positions, actions);
        }
        self.gestures(&painter, &positions);
    }

    /// What stays still (grid, frames, edges, cards not being dragged) is drawn into a
    /// cached mesh, redrawn only when the document, the view or the selection changes;
    /// `show` puts it under this layer. What moves or reacts to the pointer is drawn
    /// after it, every frame, on top of it. `moved`: the cards an insert preview moves.
    fn draw_still(&mut self, ctx: &egui::Context, still: &Still, moved: Vec<(usize, Pos2)>) {
        let zoom = still.zoom;
        if *self.selection_drawn != *still.selection {
            self.selection_drawn = Arc::new(still.selection.clone());
        }
        let key = SceneKey {
            revision: self.cache.revision,
            view: [self.to_global.translation.x, self.to_global.translation.y, zoom],
            visible: still.visible,
            raster: Raster::of(ctx),
            selection: Arc::clone(&self.selection_drawn),
            live: still.live.iter().enumerate().filter(|(_, l)| **l).map(|(i, _)| i).collect(),
            target_edge: still.target_edge,
            moved,
            replaced: still.replaced,
        };
        let mut scene = std::mem::take(&mut self.scene);
        let to_screen = self.to_global;
        if !scene.holds(&key) {
            let last = self.far.take();
            self.far = if zoom < LOD_SOLID { self.rasterize(ctx, to_screen, still, last) } else { None };
        }
        let mesh = scene.get(ctx, key, to_screen, still.visible, |p| self.paint_still(p, still));
        self.scene = scene;
        self.still = Some(mesh);
    }

    /// The chain instances' frames, for clicks and menus (drawn first: they sit under their
    /// nodes and only take clicks, so dragging on them still pans).
    fn frames(
        &mut self,
        ui: &mut Ui,
        positions: &[Pos2],
        live: &[bool],
        selection: &mut Selection,
        actions: &mut Vec<Action>,
        (commands, os): (&commands::Context, Os),
    ) {
        let zoom = self.to_global.scaling;
        let lod = self.lod(zoom);
        let visible = ui.clip_rect();
        let painter = ui.painter().clone();
        for fi in 0..self.cache.frames.len() {
            let Some(rect) = self.frame_rect(fi, positions) else { continue };
            if !rect.intersects(visible) {
                continue;
            }
            let frame = &self.cache.frames[fi];
            let id = Id::unique(("cs-frame", &frame.key));
            let resp = ui.interact(rect, id, Sense::click());
            let title = frame.title.clone();
            resp.widget_info(|| WidgetInfo::labeled(Role::Group, true, format!("Chain instance {title}")));
            let selected = selection.instance.as_deref() == Some(frame.key.as_str());
            if frame.nodes.iter().any(|&n| live[n]) {
                paint_frame(&painter, rect, &frame.title, lod, selected || resp.hovered());
            } else if resp.hovered() && !selected {
                painter.rect_stroke(rect, 10.0, Stroke::new(px(zoom, 1.0), theme::ACCENT), StrokeKind::Inside);
            }
            if resp.double_clicked() {
                actions.push(if frame.app {
                    Action::Run(CommandId::ReparamApp)
                } else {
                    Action::EditInstance(frame.key.clone())
                });
            } else if resp.clicked() {
                selection.clear();
                // The app's instance has no chainsmith record for the inspector to show.
                if !frame.app {
                    selection.instance = Some(frame.key.clone());
                }
                selection.nodes = frame.nodes.iter().map(|i| self.cache.cards[*i].id.clone()).collect();
            }
            let (key, members, app) = (frame.key.clone(), frame.nodes.clone(), frame.app);
            resp.context_menu(|ui| {
                if app {
                    command_ui::item(ui, CommandId::ReparamApp, commands, os, actions);
                    return;
                }
                // The menu acts on the selection: right-clicking a frame selects its instance.
                if selection.instance.as_deref() != Some(key.as_str()) {
                    selection.clear();
                    selection.instance = Some(key.clone());
                    selection.nodes = members.iter().map(|i| self.cache.cards[*i].id.clone()).collect();
                }
                let cx = commands::Context { instance_selected: true, nodes_selected: members.len(), ..*commands };
                command_ui::context_items(ui, Place::SelectionMenu, &cx, os, actions);
            });
        }
    }

    /// The cards that take the pointer this frame, as widgets (drawn here when they move or
    /// show the hover), and their ports' handles when zoomed in enough to use them.
    #[allow(clippy::too_many_arguments)]
    fn cards(
        &mut self,
        ui: &mut Ui,
        wf: &Workflow,
        positions: &[Pos2],
        live: &[bool],
        selection: &mut Selection,
        actions: &mut Vec<Action>,
        (commands, os): (&commands::Context, Os),
    ) {
        let zoom = self.to_global.scaling;
        let lod = self.lod(zoom);
        let ctx = ui.ctx().clone();
        let painter = ui.painter().clone();
        let interactive = self.interactive_cards(&ctx, ui.clip_rect(), positions, live);
        for &i in &interactive {
            let rect = self.cache.rect(i, positions[i]);
            let card = &self.cache.cards[i];
            let resp = ui.interact(rect, Id::unique(("cs-node", &card.id)), Sense::click_and_drag());
            let selected = selection.nodes.contains(&card.id);
            let text = self.cache.text(wf, i);
            resp.widget_info(|| {
                WidgetInfo::selected(Role::Button, true, selected, format!("{} ({})", text.name, card.id))
            });
            // The still drawing has this card already, unless it moves or shows the hover.
            if live[i] || resp.hovered() {
                paint_card(&painter, rect, &text, lod, selected, resp.hovered());
            }
            if resp.secondary_clicked() {
                self.menu_card = Some(card.id.clone());
            }
            let marks = text.marks;
            self.node_interaction(&resp, i, selection, actions, (commands, os));
            // The title's marks say what they mean on hover.
            if marks != 0 {
                resp.on_hover_text(marks_meaning(marks));
            }
        }
        if zoom >= LOD_PORTS {
            for &i in &interactive {
                self.port_handles(ui, i, positions[i]);
            }
        }
    }

    /// An insert's preview: the edge a splice replaces going away, the ghost nodes and
    /// edges, each ghost a button that shows its node in the form.
    fn ghost(&self, ui: &mut Ui, g: &Ghost, positions: &[Pos2], actions: &mut Vec<Action>) {
        let zoom = self.to_global.scaling;
        let painter = ui.painter().clone();
        // Faint and dashed under the ghosts' edges that take its place.
        if let Some(link) = self.cache.links.iter().find(|l| Some(l.seq) == g.replaced) {
            let stroke = Stroke::new(px(zoom, 1.2), theme::TEXT_DIM.gamma_multiply(0.35));
            let pts = self.link_curve(link, positions).points(16);
            painter.extend(Shape::dashed_line(&pts, stroke, px(zoom, 3.0), px(zoom, 5.0)));
        }
        paint_ghost(&painter, g, &self.cache, positions, self.lod(zoom));
        for (gi, n) in g.nodes.iter().enumerate() {
            let resp = ui.interact(ghost_rect(n), Id::unique(("cs-ghost", gi)), Sense::click());
            resp.widget_info(|| WidgetInfo::labeled(Role::Button, true, format!("Preview {}", n.id)));
            if resp.clicked() {
                actions.push(Action::SelectGhost(gi));
            }
        }
    }

    /// What a gesture in progress shows: the wire being dragged from a port, the marquee,
    /// and where a dragged tile would land.
    fn gestures(&self, painter: &egui::Painter, positions: &[Pos2]) {
        let zoom = self.to_global.scaling;
        if let Some(wire) = &self.wire {
            let outputs = self.cache.boxes[wire.from].outputs as usize;
            let from = port_pos(self.cache.rect(wire.from, positions[wire.from]), wire.port, outputs, true);
            let hit = self.input_port_at(wire.end, positions);
            let end = hit.map_or(wire.end, |(n, p)| {
                port_pos(self.cache.rect(n, positions[n]), p, self.cache.boxes[n].inputs as usize, false)
            });
            let color = match hit {
                Some(_) if self.wire_refused => theme::ERROR,
                Some(_) => theme::ACCENT,
                None => theme::TEXT_DIM,
            };
            paint_edge(painter, Curve::forward(from, end), Stroke::new(px(zoom, 2.0), color), zoom);
        }
        if let Some(m) = self.marquee {
            painter.rect_filled(m, 0.0, theme::ACCENT.gamma_multiply(0.12));
            painter.rect_stroke(m, 0.0, Stroke::new(px(zoom, 1.0), theme::ACCENT), StrokeKind::Inside);
        }
        if let Some(t) = &self.tile_target {
            paint_tile_ghost(painter, t, zoom);
        }
    }

    /// The still part of the canvas: grid, frames, edges, cards and edge labels, leaving out
    /// the cards being dragged (`live`) and everything attached to them. With everything in
    /// view, edges and cards are left to [`Canvas::rasterize`].
    fn paint_still(&self, painter: &egui::Painter, still: &Still) {
        let Still { wf, visible, zoom, positions, live, selection, target_edge, replaced, .. } = *still;
        let lod = self.lod(zoom);
        self.paint_grid(painter, visible, zoom);
        for (fi, frame) in self.cache.frames.iter().enumerate() {
            if frame.nodes.iter().any(|&n| live[n]) {
                continue;
            }
            let Some(rect) = self.frame_rect(fi, positions).filter(|r| r.intersects(visible)) else { continue };
            let selected = selection.instance.as_deref() == Some(frame.key.as_str());
            paint_frame(painter, rect, &frame.title, lod, selected);
        }
        if zoom < LOD_SOLID {
            return;
        }
        // Edge labels go on top of the cards, so a card never hides a condition.
        let mut labels = Vec::new();
        for link in self.cache.links.iter().filter(|l| !live[l.from] && !live[l.to] && Some(l.seq) != replaced) {
            let curve = self.link_curve(link, positions);
            if !curve.hull().intersects(visible) {
                continue;
            }
            let selected = selection.edges.contains(&link.seq);
            let stroke = link_stroke(link, selected, target_edge == Some(link.seq), zoom);
            paint_edge(painter, curve, stroke, zoom);
            if zoom >= LOD_DETAIL
                && let Some(label) = edge_label(&wf.graph[link.edge])
            {
                labels.push((curve, label, stroke.color));
            }
        }
        let mut drawn = Vec::new();
        for (i, card) in self.cache.cards.iter().enumerate() {
            let rect = self.cache.rect(i, positions[i]);
            if live[i] || !rect.intersects(visible) {
                continue;
            }
            let selected = selection.nodes.contains(&card.id);
            paint_card(painter, rect, &self.cache.text(wf, i), lod, selected, false);
            if !labels.is_empty() {
                let ports = (self.cache.inputs(i).len(), self.cache.outputs(i).len());
                drawn.extend(card_text_areas(rect, ports, detail_font(zoom)));
            }
        }
        // A label moves off the text of any card it would cover (title, type, port names);
        // labels placed so far are obstacles too, so two labels never draw over each other.
        let mut obstacles = drawn;
        let font = FontId::proportional(detail_font(zoom));
        for (curve, text, color) in labels {
            let galley = painter.layout_no_wrap(text, font.clone(), theme::TEXT);
            let size = galley.size() + vec2(10.0, 4.0);
            let at = label_spot(curve, size, &obstacles);
            obstacles.push(Rect::from_center_size(at, size));
            paint_pill(painter, at, galley, color);
        }
    }

    /// The edges and cards of [`Canvas::paint_still`] zoomed far out, in pixels: edges (the
    /// highlighted ones over the rest), then cards, as [`paint_edge`] and [`paint_card`]
    /// draw them at this zoom (straight lines, solid rects, a ring round a selected card too
    /// small to show its colour). `None` when the canvas has no pixels.
    fn rasterize(
        &self,
        ctx: &egui::Context,
        to_screen: TSTransform,
        still: &Still,
        last: Option<FarView>,
    ) -> Option<FarView> {
        let Still { visible, zoom, positions, live, selection, target_edge, replaced, at_rest, .. } = *still;
        let screen = to_screen * visible;
        // Pixels per screen point: the display's, unless the canvas is wider than a texture
        // may be.
        let max_side = ctx.input(|i| i.max_texture_side) as f32;
        let ppp = ctx.pixels_per_point();
        let extent = screen.width().max(screen.height()) * ppp;
        let density = if extent > max_side { ppp * max_side / extent } else { ppp };
        let (origin, end) = ((screen.min.to_vec2() * density).floor(), (screen.max.to_vec2() * density).ceil());
        let size = (end - origin).min(Vec2::splat(max_side));
        if size.x < 1.0 || size.y < 1.0 {
            return None;
        }
        let (texture, buffer) = match last {
            Some(FarView { texture, image, .. }) => {
                (Some(texture), Arc::try_unwrap(image).map(|i| i.pixels).unwrap_or_default())
            }
            None => (None, Vec::new()),
        };
        let mut pixmap = Pixmap::new(size.x as usize, size.y as usize, buffer);
        let to_px = |p: Pos2| ((to_screen * p).to_vec2() * density - origin).to_pos2();
        let cards = &self.cache.boxes;
        // By index, once: looking every card up in the selection's set would compare ids.
        let mut selected = vec![false; cards.len()];
        for id in &selection.nodes {
            if let Some(&i) = self.cache.by_id.get(id) {
                selected[i] = true;
            }
        }
        let mut over = Vec::new();
        // Everything in view (the usual far view): no edge to cull.
        let all_in_view = at_rest && self.cache.fit_bounds.is_some_and(|b| visible.contains_rect(b));
        for link in self.cache.links.iter().filter(|l| !live[l.from] && !live[l.to] && Some(l.seq) != replaced) {
            let curve = self.link_curve(link, positions);
            if !all_in_view && !curve.hull().intersects(visible) {
                continue;
            }
            let highlighted = selection.edges.contains(&link.seq) || target_edge == Some(link.seq);
            if highlighted {
                over.push((curve, link));
                continue;
            }
            draw_line_px(&mut pixmap, curve, &to_px, link_stroke(link, false, false, zoom), zoom * density);
        }
        for (curve, link) in over {
            let stroke = link_stroke(link, selection.edges.contains(&link.seq), target_edge == Some(link.seq), zoom);
            draw_line_px(&mut pixmap, curve, &to_px, stroke, zoom * density);
        }
        let mut rings = Vec::new();
        for (i, card) in cards.iter().enumerate() {
            let rect = self.cache.rect(i, positions[i]);
            if live[i] || !rect.intersects(visible) {
                continue;
            }
            let px = Rect::from_min_max(to_px(rect.min), to_px(rect.max));
            pixmap.fill_rect(px, if selected[i] { theme::ACCENT } else { card.color });
            if selected[i] && is_tiny(px, density) {
                rings.push(mark_ring(px, density));
            }
        }
        // Last, so no card covers them.
        for ring in rings {
            pixmap.stroke_rect(ring, MARK_LINE * density, theme::ACCENT);
        }
        let image = Arc::new(pixmap.into_image());
        let texture = show_image(ctx, texture, "cs-canvas-far", &image);
        let rect = Rect::from_min_size((origin / density).to_pos2(), size / density);
        Some(FarView { texture, rect, image })
    }

    fn lod(&self, zoom: f32) -> Lod {
        Lod::new(zoom, self.cache.cards.len())
    }

    /// The path of an edge, with cards at `positions`.
    fn link_curve(&self, link: &Link, positions: &[Pos2]) -> Curve {
        let (a, b) = (self.cache.rect(link.from, positions[link.from]), self.cache.rect(link.to, positions[link.to]));
        let from = port_pos(a, link.from_port, self.cache.boxes[link.from].outputs as usize, true);
        let to = port_pos(b, link.to_port, self.cache.boxes[link.to].inputs as usize, false);
        // The cached span is of the cards at rest; the two ends may be being dragged.
        let (top, bottom) = link.span;
        Curve::between(a, from, b, to).around((top.min(a.top()).min(b.top()), bottom.max(a.bottom()).max(b.bottom())))
    }

    /// Per card: whether it is being dragged (drawn every frame instead of from the cache).
    fn live_cards(&self) -> Vec<bool> {
        let mut live = vec![false; self.cache.cards.len()];
        if let Some(d) = &self.drag {
            for id in &d.ids {
                if let Some(&i) = self.cache.by_id.get(id) {
                    live[i] = true;
                }
            }
        }
        live
    }

    /// The cards that take the pointer this frame. With few cards in view, all of them
    /// (each is a named widget for assistive technology). With many, only those the
    /// pointer can reach: under it, under where a press began, being dragged, or whose
    /// context menu is open; registering thousands of widgets a frame would cost more
    /// than drawing them.
    fn interactive_cards(
        &mut self,
        ctx: &egui::Context,
        visible: Rect,
        positions: &[Pos2],
        live: &[bool],
    ) -> Vec<usize> {
        let in_view: Vec<usize> = (0..self.cache.cards.len())
            .filter(|&i| live[i] || self.cache.rect(i, positions[i]).intersects(visible))
            .collect();
        if in_view.len() <= INTERACT_ALL {
            return in_view;
        }
        if !egui::Popup::is_any_open(ctx) {
            self.menu_card = None;
        }
        let from_global = self.to_global.inverse();
        let (hover, press) = ctx.input(|i| (i.pointer.hover_pos(), i.pointer.press_origin()));
        let points: Vec<Pos2> = hover.into_iter().chain(press).map(|p| from_global * p).collect();
        // A port's handle reaches a little outside its card.
        let reach = 8.0 / self.zoom().max(0.01);
        let menu = self.menu_card.as_ref().and_then(|id| self.cache.by_id.get(id)).copied();
        in_view
            .into_iter()
            .filter(|&i| {
                let r = self.cache.rect(i, positions[i]).expand(reach);
                live[i] || Some(i) == menu || points.iter().any(|p| r.contains(*p))
            })
            .collect()
    }

    /// Current top-left of every card, with a drag in progress applied.
    fn positions(&self) -> Vec<Pos2> {
        let mut out: Vec<Pos2> = self.cache.boxes.iter().map(|c| c.pos).collect();
        if let Some(d) = &self.drag {
            for id in &d.ids {
                if let Some(&i) = self.cache.by_id.get(id) {
                    out[i] += d.delta;
                }
            }
        }
        out
    }

    fn frame_rect(&self, fi: usize, positions: &[Pos2]) -> Option<Rect> {
        let frame = &self.cache.frames[fi];
        let mut r: Option<Rect> = None;
        for &n in &frame.nodes {
            let c = self.cache.rect(n, positions[n]);
            r = Some(r.map_or(c, |r| r.union(c)));
        }
        let r = r?.expand(FRAME_PAD);
        Some(Rect::from_min_max(pos2(r.min.x, r.min.y - FRAME_HEADER), r.max))
    }

    fn node_interaction(
        &mut self,
        resp: &egui::Response,
        i: usize,
        selection: &mut Selection,
        actions: &mut Vec<Action>,
        (commands, os): (&commands::Context, Os),
    ) {
        let (id, anchor, instance, child) = {
            let card = &self.cache.cards[i];
            (
                card.id.clone(),
                self.cache.boxes[i].pos,
                card.instance.map(|f| self.cache.frames[f].key.clone()),
                card.child,
            )
        };
        let only = |selection: &Selection| selection.nodes.len() == 1;
        let mods = resp.ctx.input(|inp| inp.modifiers);
        let additive = mods.shift || mods.command;
        if resp.clicked() {
            if additive {
                selection.toggle_node(&id);
            } else {
                selection.only_node(&id);
            }
        }
        if resp.double_clicked()
            && let Some(key) = &instance
        {
            actions.push(Action::EditInstance(key.clone()));
        }
        if resp.drag_started_by(PointerButton::Primary) {
            if !selection.nodes.contains(&id) {
                if !additive {
                    selection.clear();
                }
                selection.nodes.insert(id.clone());
            }
            // egui starts a drag once the pointer has moved a few points; the cards catch up
            // with it at once, so they stay under the pointer (tiny cards in full view too).
            let zoom = self.zoom().max(0.01);
            let moved = resp.ctx.input(|i| Some((i.pointer.latest_pos()? - i.pointer.press_origin()?) / zoom));
            self.drag =
                Some(NodeDrag { ids: selection.nodes.iter().cloned().collect(), delta: moved.unwrap_or_default() });
        } else if resp.dragged_by(PointerButton::Primary)
            && let Some(d) = &mut self.drag
        {
            d.delta += resp.drag_delta();
        }
        if resp.drag_stopped()
            && let Some(d) = self.drag.take()
        {
            let delta = self.snap_point(anchor + d.delta) - anchor;
            if delta != Vec2::ZERO {
                let moves = d
                    .ids
                    .iter()
                    .filter_map(|id| {
                        let p = self.cache.boxes[*self.cache.by_id.get(id)?].pos + delta;
                        Some((id.clone(), (f64::from(p.x), f64::from(p.y))))
                    })
                    .collect();
                actions.push(Action::Doc(Command::MoveNodes(moves)));
            }
        }
        resp.context_menu(|ui| {
            // The menu acts on the selection: right-clicking a node outside it selects it.
            if !selection.nodes.contains(&id) {
                selection.only_node(&id);
            }
            // The selection changed this frame: the app's context is a frame old.
            let cx = commands::Context {
                nodes_selected: selection.nodes.len(),
                edges_selected: selection.edges.len(),
                instance_selected: selection.instance.is_some() || (only(selection) && instance.is_some()),
                child_selected: only(selection) && child,
                ..*commands
            };
            command_ui::context_items(ui, Place::SelectionMenu, &cx, os, actions);
        });
    }

    /// Output ports take drags that become connections; input ports are named for
    /// assistive technology (and tests) and highlight on hover.
    fn port_handles(&mut self, ui: &Ui, i: usize, pos: Pos2) {
        let rect = self.cache.rect(i, pos);
        let inputs = self.cache.inputs(i).len();
        for k in 0..inputs {
            let card = &self.cache.cards[i];
            let at = port_pos(rect, k, inputs, false);
            let resp = ui.interact(
                Rect::from_center_size(at, vec2(14.0, 14.0)),
                Id::unique(("cs-in-port", &card.id, k)),
                Sense::hover(),
            );
            let label = format!("Input {} of {}", self.cache.inputs(i)[k], card.id);
            resp.widget_info(|| WidgetInfo::labeled(Role::Button, true, &label));
            if resp.hovered() {
                ui.painter().circle_stroke(at, PORT_R + 3.0, Stroke::new(1.5, theme::ACCENT));
            }
        }
        let count = self.cache.outputs(i).len();
        for p in 0..count {
            let card = &self.cache.cards[i];
            let at = port_pos(rect, p, count, true);
            let id = Id::unique(("cs-port", &card.id, p));
            let resp = ui.interact(Rect::from_center_size(at, vec2(14.0, 14.0)), id, Sense::drag());
            let label = format!("Output {} of {}", self.cache.outputs(i)[p], card.id);
            resp.widget_info(|| WidgetInfo::labeled(Role::Button, true, &label));
            if resp.hovered() {
                ui.painter().circle_stroke(at, PORT_R + 3.0, Stroke::new(1.5, theme::ACCENT));
            }
            if resp.drag_started() {
                self.wire = Some(Wire { from: i, port: p, end: at });
            }
            if let Some(w) = &mut self.wire
                && w.from == i
                && w.port == p
                && let Some(hover) = ui.ctx().pointer_latest_pos()
            {
                w.end = self.to_global.inverse() * hover;
            }
        }
    }

    /// Background: clicks select edges or clear, shift-drags draw the selection box, and a
    /// wire released over an input port connects.
    fn background(
        &mut self,
        ctx: &egui::Context,
        resp: &egui::Response,
        mods: Modifiers,
        selection: &mut Selection,
        actions: &mut Vec<Action>,
    ) {
        let pointer = ctx.pointer_latest_pos();
        let positions = self.positions();
        if resp.clicked()
            && let Some(p) = pointer
        {
            let p = self.screen_to_canvas(p);
            match self.edge_at(p, 6.0 / self.zoom().max(0.05), Some(&positions)) {
                Some(seq) if (mods.shift || mods.command) && !selection.edges.remove(&seq) => {
                    selection.edges.insert(seq);
                }
                Some(_) if mods.shift || mods.command => {}
                Some(seq) => selection.only_edge(seq),
                None if !(mods.shift || mods.command) => selection.clear(),
                None => {}
            }
        }
        // A double-click on empty canvas opens quick-add there (the first click cleared the
        // selection, so it inserts unwired).
        if resp.double_clicked()
            && let Some(p) = pointer
            && self.edge_at(self.screen_to_canvas(p), 6.0 / self.zoom().max(0.05), Some(&positions)).is_none()
        {
            actions.push(Action::Run(CommandId::QuickAdd));
        }
        if resp.drag_started_by(PointerButton::Primary) && mods.shift {
            let origin = ctx.input(|i| i.pointer.press_origin()).unwrap_or_default();
            let o = self.screen_to_canvas(origin);
            self.marquee = Some(Rect::from_two_pos(o, o));
        }
        if let Some(m) = &mut self.marquee
            && let Some(p) = pointer
        {
            *m = Rect::from_two_pos(m.min, self.to_global.inverse() * p);
        }
        if resp.drag_stopped()
            && let Some(m) = self.marquee.take()
        {
            if !mods.command {
                selection.clear();
            }
            for (i, card) in self.cache.cards.iter().enumerate() {
                if self.cache.rect(i, positions[i]).intersects(m) {
                    selection.nodes.insert(card.id.clone());
                }
            }
        }
        if self.wire.is_some() && ctx.input(|i| i.pointer.any_released()) {
            // The wire and any refusal beside the pointer were drawn this frame: draw again without them.
            ctx.request_repaint();
        }
        if ctx.input(|i| i.pointer.any_released())
            && let Some(w) = self.wire.take()
            && let Some((n, p)) = self.input_port_at(w.end, &positions)
        {
            let from = &self.cache.cards[w.from];
            let to = &self.cache.cards[n];
            actions.push(Action::Doc(Command::Connect {
                source: from.id.clone(),
                source_port: self.cache.outputs(w.from)[w.port].clone(),
                target: to.id.clone(),
                target_port: self.cache.inputs(n)[p].clone(),
            }));
        }
    }

    /// Why the wire being dragged cannot connect to the input port under it: the output's
    /// type does not fit the input's (the app refuses the `Connect` for the same reason).
    fn wire_refusal(&self, wf: &Workflow, catalog: Option<&Catalog>, pointer: Option<Pos2>) -> Option<Error> {
        let w = self.wire.as_ref()?;
        let end = pointer.map_or(w.end, |p| self.screen_to_canvas(p));
        let (n, p) = self.input_port_at(end, &self.positions())?;
        let (from, to) = (&self.cache.cards[w.from], &self.cache.cards[n]);
        let (output, input) = (&self.cache.outputs(w.from)[w.port], &self.cache.inputs(n)[p]);
        node_type::check_connection(wf, catalog, (&from.id, output), (&to.id, input)).err()
    }

    /// The nearest edge within `tol` canvas units of `p`, by seq.
    fn edge_at(&self, p: Pos2, tol: f32, positions: Option<&[Pos2]>) -> Option<u64> {
        let owned;
        let positions = match positions {
            Some(p) => p,
            None => {
                owned = self.positions();
                &owned
            }
        };
        let mut best: Option<(f32, u64)> = None;
        for link in &self.cache.links {
            let curve = self.link_curve(link, positions);
            if !curve.hull().expand(tol).contains(p) {
                continue;
            }
            let pts = curve.points(24);
            let d = pts.windows(2).map(|s| dist_to_segment(p, s[0], s[1])).fold(f32::INFINITY, f32::min);
            if d <= tol && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, link.seq));
            }
        }
        best.map(|(_, s)| s)
    }

    /// The input port nearest `p`: on its dot, or anywhere over its card (first port).
    fn input_port_at(&self, p: Pos2, positions: &[Pos2]) -> Option<(usize, usize)> {
        let mut best: Option<(f32, usize, usize)> = None;
        for (i, card) in self.cache.boxes.iter().enumerate() {
            let rect = self.cache.rect(i, positions[i]);
            if !rect.expand(16.0).contains(p) {
                continue;
            }
            let inputs = card.inputs as usize;
            for k in 0..inputs {
                let d = port_pos(rect, k, inputs, false).distance(p);
                if best.is_none_or(|(bd, _, _)| d < bd) {
                    best = Some((d, i, k));
                }
            }
        }
        best.map(|(_, i, k)| (i, k))
    }

    fn paint_grid(&self, painter: &egui::Painter, visible: Rect, zoom: f32) {
        // Pick a pitch that stays at least 14 screen points apart.
        let mut pitch = GRID;
        while pitch * zoom < 14.0 {
            pitch *= 5.0;
        }
        let major = pitch * 5.0;
        let thin = Stroke::new(px(zoom, 1.0), theme::GRID_MINOR);
        let thick = Stroke::new(px(zoom, 1.0), theme::GRID_MAJOR);
        let mut shapes = Vec::new();
        let mut x = (visible.min.x / pitch).floor() * pitch;
        while x <= visible.max.x {
            let s = if (x / major).round() * major == x { thick } else { thin };
            shapes.push(Shape::line_segment([pos2(x, visible.min.y), pos2(x, visible.max.y)], s));
            x += pitch;
        }
        let mut y = (visible.min.y / pitch).floor() * pitch;
        while y <= visible.max.y {
            let s = if (y / major).round() * major == y { thick } else { thin };
            shapes.push(Shape::line_segment([pos2(visible.min.x, y), pos2(visible.max.x, y)], s));
            y += pitch;
        }
        painter.extend(shapes);
    }

    fn show_minimap(&mut self, ctx: &egui::Context, outer: Rect) {
        let size = vec2(210.0, 140.0);
        let Some(bounds) = self.cache.bounds else { return };
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
            let key =
                MinimapKey { revision: self.cache.revision, view: self.scene_rect, at: rect, raster: Raster::of(ctx) };
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

/// The canvas size below which the minimap is not shown.
const MINIMAP_ROOM: Vec2 = vec2(560.0, 400.0);

/// Minimap cells: small graphs draw each card; large ones a density grid.
const MINIMAP_CARDS: usize = 2_000;

/// Everything drawn that derives from the model, rebuilt when the document revision changes.
#[derive(Default)]
struct ViewCache {
    revision: Option<(u64, u64)>,
    /// Where each card is and how it looks from afar, in file order: what the hot loops
    /// (culling, edges, the far view) read, packed together apart from the text.
    boxes: Vec<CardBox>,
    /// What else a card shows, by the same index.
    cards: Vec<Card>,
    /// Each distinct list of port names once: most cards of a type have the same ports.
    ports: CardPorts,
    by_id: HashMap<String, usize>,
    links: Vec<Link>,
    frames: Vec<FrameView>,
    bounds: Option<Rect>,
    /// The cards and every edge's curve.
    fit_bounds: Option<Rect>,
    minimap: Minimap,
}

#[derive(Clone, Copy)]
struct CardBox {
    pos: Pos2,
    /// Taller than the layout's card when it has more ports than fit.
    h: f32,
    color: Color32,
    inputs: u32,
    outputs: u32,
}

struct Card {
    id: String,
    node: NodeIndex,
    /// Its input and output port lists, in [`ViewCache::ports`].
    ports: [u32; 2],
    /// Capability marks, as bits of [`MARKS`].
    marks: u8,
    instance: Option<usize>,
    /// The node names a sub-chain child (`config.subChainRef` or `config.workflowId`).
    child: bool,
}

/// What a card shows, read from the workflow when it is drawn with text.
struct CardText<'a> {
    name: &'a str,
    type_id: &'a str,
    inputs: &'a [String],
    outputs: &'a [String],
    marks: u8,
    color: Color32,
}

struct Link {
    seq: u64,
    /// The edge in the workflow the cache was built from (its label is read from there).
    edge: EdgeIndex,
    from: usize,
    from_port: usize,
    to: usize,
    to_port: usize,
    conditional: bool,
    loopback: bool,
    /// For a back edge: how high and how low the cards between its ends reach (set by
    /// [`ViewCache::measure`]), so its lane clears them all.
    span: (f32, f32),
}

struct FrameView {
    key: String,
    title: String,
    nodes: Vec<usize>,
    /// The one chain instance of a workflow the OpenWOP app expanded (interop §5).
    app: bool,
}

impl ViewCache {
    /// The card of the leftmost node with no incoming edge (the topmost of those level),
    /// else the leftmost card.
    fn entry(&self) -> Option<Rect> {
        let mut fed = vec![false; self.boxes.len()];
        for l in self.links.iter().filter(|l| l.from != l.to) {
            fed[l.to] = true;
        }
        let leftmost = |candidates: &mut dyn Iterator<Item = usize>| {
            candidates.min_by(|&a, &b| {
                let (pa, pb) = (self.boxes[a].pos, self.boxes[b].pos);
                pa.x.total_cmp(&pb.x).then(pa.y.total_cmp(&pb.y))
            })
        };
        let i = leftmost(&mut (0..self.boxes.len()).filter(|&i| !fed[i]))
            .or_else(|| leftmost(&mut (0..self.boxes.len())))?;
        Some(self.rect(i, self.boxes[i].pos))
    }

    fn inputs(&self, i: usize) -> &[String] {
        self.ports.list(self.cards[i].ports[0])
    }

    fn outputs(&self, i: usize) -> &[String] {
        self.ports.list(self.cards[i].ports[1])
    }

    /// What card `i` shows, from `wf`, the workflow the cache was built from.
    fn text<'a>(&'a self, wf: &'a Workflow, i: usize) -> CardText<'a> {
        let card = &self.cards[i];
        let node = &wf.graph[card.node];
        CardText {
            name: if node.name().is_empty() { node.id() } else { node.name() },
            type_id: node.type_id(),
            inputs: self.inputs(i),
            outputs: self.outputs(i),
            marks: card.marks,
            color: self.boxes[i].color,
        }
    }

    /// The card `i` drawn with its top-left at `pos`.
    fn rect(&self, i: usize, pos: Pos2) -> Rect {
        Rect::from_min_size(pos, vec2(W, self.boxes[i].h))
    }

    fn build(wf: &Workflow, revision: (u64, u64), catalog: Option<&Catalog>) -> Self {
        let order = wf.nodes_in_order();
        let mut cards = Vec::with_capacity(order.len());
        let mut boxes = Vec::with_capacity(order.len());
        let mut by_id = HashMap::with_capacity(order.len());
        let mut index_of = HashMap::with_capacity(order.len());
        // Declared ports first, then ports only edges mention: the model's card geometry.
        let ports = card_ports(wf, &catalog);
        for ix in &order {
            let node = &wf.graph[*ix];
            let (x, y) = node.position();
            by_id.insert(node.id().to_owned(), cards.len());
            index_of.insert(*ix, cards.len());
            boxes.push(CardBox {
                pos: pos2(x as f32, y as f32),
                h: ports.size(*ix).1 as f32,
                color: theme::type_color(node.type_id()),
                inputs: ports.inputs(*ix).len() as u32,
                outputs: ports.outputs(*ix).len() as u32,
            });
            cards.push(Card {
                id: node.id().to_owned(),
                node: *ix,
                ports: ports.of(*ix),
                marks: marks(node),
                instance: None,
                child: node.child_ref().is_some(),
            });
        }
        let back: HashSet<_> = crate::graph::dfs(&wf.graph, order.iter().copied()).back_edges.into_iter().collect();
        let mut links = Vec::with_capacity(wf.graph.edge_count());
        for e in wf.edges_in_order() {
            let Some((a, b)) = wf.graph.edge_endpoints(e) else { continue };
            let edge = &wf.graph[e];
            let (from, to) = (index_of[&a], index_of[&b]);
            let from_port = port_index(ports.outputs(a), edge.source_port());
            let to_port = port_index(ports.inputs(b), edge.target_port());
            links.push(Link {
                seq: edge.seq,
                from,
                from_port,
                to,
                to_port,
                edge: e,
                conditional: edge.has_condition(),
                loopback: back.contains(&e),
                span: (f32::INFINITY, f32::NEG_INFINITY),
            });
        }
        let mut frames = Vec::new();
        for inst in wf.instances() {
            let nodes: Vec<usize> = inst.node_ids.iter().filter_map(|id| by_id.get(id).copied()).collect();
            if nodes.is_empty() {
                continue;
            }
            for &n in &nodes {
                cards[n].instance = Some(frames.len());
            }
            let title = format!("{} · {}", inst.label, inst.expansion_id);
            frames.push(FrameView { key: inst.key(), title, nodes, app: false });
        }
        if let Some(app) = crate::editor::app_reparam::app_instance(wf) {
            let prefix = app.prefix();
            let nodes: Vec<usize> =
                (0..cards.len()).filter(|&i| cards[i].instance.is_none() && cards[i].id.starts_with(&prefix)).collect();
            for &n in &nodes {
                cards[n].instance = Some(frames.len());
            }
            if !nodes.is_empty() {
                let title = format!("{} · {} (OpenWOP app)", wf.name(), app.expansion_id);
                frames.push(FrameView { key: prefix, title, nodes, app: true });
            }
        }
        let mut cache = Self { revision: Some(revision), boxes, cards, ports, by_id, links, frames, ..Self::default() };
        cache.measure();
        cache
    }

    /// After an edit that only moved nodes (a drag, its undo and redo) from the revision
    /// this view shows: take their new positions and keep everything else. Returns `false`
    /// when the view cannot follow; the caller then rebuilds it.
    fn follow_moves(&mut self, wf: &Workflow, revision: (u64, u64), moves: Option<(u64, &[String])>) -> bool {
        let (Some(old), Some((from, ids))) = (self.revision, moves) else { return false };
        if old != (from, revision.1) {
            return false;
        }
        for id in ids {
            let (Some(&i), Some(ix)) = (self.by_id.get(id), wf.node(id)) else { return false };
            let (x, y) = wf.graph[ix].position();
            self.boxes[i].pos = pos2(x as f32, y as f32);
        }
        self.revision = Some(revision);
        self.measure();
        true
    }

    /// The bounds, the fitting bounds and the minimap, from the cards and links.
    fn measure(&mut self) {
        // Back edges only: a loop runs from the target's left to the source's right.
        let back = |l: &Link, cards: &[CardBox]| cards[l.to].pos.x < cards[l.from].pos.x;
        let lanes = self
            .links
            .iter()
            .any(|l| back(l, &self.boxes))
            .then(|| CardSpans::new(self.boxes.iter().map(|c| (c.pos.x, c.pos.y, c.pos.y + c.h))));
        for l in &mut self.links {
            let (a, b) = (&self.boxes[l.from], &self.boxes[l.to]);
            l.span = match &lanes {
                Some(lanes) if back(l, &self.boxes) => lanes
                    .reach(b.pos.x - LOOP_ARM, a.pos.x + W + LOOP_ARM)
                    .unwrap_or((f32::INFINITY, f32::NEG_INFINITY)),
                _ => (f32::INFINITY, f32::NEG_INFINITY),
            };
        }
        let cards = &self.boxes;
        let bounds = cards.iter().map(|c| Rect::from_min_size(c.pos, vec2(W, c.h))).reduce(|a, b| a.union(b));
        // Curves bulge past the cards they join (a loopback most of all): fitting shows them.
        // Exact bounds only for a curve whose hull leaves the cards' bounds (most do not).
        let fit_bounds = self.links.iter().fold(bounds, |acc, l| {
            let (a, b) = (&cards[l.from], &cards[l.to]);
            let (ra, rb) = (Rect::from_min_size(a.pos, vec2(W, a.h)), Rect::from_min_size(b.pos, vec2(W, b.h)));
            let from = port_pos(ra, l.from_port, a.outputs as usize, true);
            let to = port_pos(rb, l.to_port, b.inputs as usize, false);
            let curve = Curve::between(ra, from, rb, to).around(l.span);
            match acc {
                Some(fit) if fit.contains_rect(curve.hull()) => Some(fit),
                _ => {
                    let drawn = curve.bounds();
                    Some(acc.map_or(drawn, |fit| fit.union(drawn)))
                }
            }
        });
        self.minimap = Minimap::of(cards, bounds);
        self.bounds = bounds;
        self.fit_bounds = fit_bounds;
    }
}

/// Where a port an edge names is on its card (the card lists every such port).
fn port_index(ports: &[String], name: &str) -> usize {
    ports.iter().position(|p| p == name).unwrap_or(0)
}

/// `image` as a texture sampled nearest-neighbour: into `held` when there is one, else a new
/// texture called `name`.
fn show_image(ctx: &egui::Context, held: Option<TextureHandle>, name: &str, image: &Arc<ColorImage>) -> TextureHandle {
    let data = ImageData::Color(Arc::clone(image));
    match held {
        Some(mut t) => {
            t.set(data, TextureOptions::NEAREST);
            t
        }
        None => ctx.load_texture(name, data, TextureOptions::NEAREST),
    }
}

/// What the minimap shows of the cards.
#[derive(Default)]
enum Minimap {
    #[default]
    Empty,
    /// Up to [`MINIMAP_CARDS`]: each card.
    Cards(Vec<Rect>),
    /// More: how many cards fall in each cell of a grid over `area`, as an image of one
    /// texel per cell, drawn as one textured quad. Drawn as a rect per cell, the 6,144 cells
    /// of a 100,000-node workflow were 49,000 vertices the renderer took again every frame.
    Density { area: Rect, image: Arc<ColorImage> },
}

impl Minimap {
    fn of(cards: &[CardBox], bounds: Option<Rect>) -> Self {
        let Some(b) = bounds else { return Self::Empty };
        if cards.len() <= MINIMAP_CARDS {
            return Self::Cards(cards.iter().map(|c| Rect::from_min_size(c.pos, vec2(W, c.h))).collect());
        }
        const COLS: usize = 96;
        const ROWS: usize = 64;
        let cell = vec2(b.width() / COLS as f32, b.height() / ROWS as f32);
        let mut counts = vec![0u32; COLS * ROWS];
        for c in cards {
            let col = (((c.pos.x - b.min.x) / cell.x) as usize).min(COLS - 1);
            let row = (((c.pos.y - b.min.y) / cell.y) as usize).min(ROWS - 1);
            counts[row * COLS + col] += 1;
        }
        let pixels = counts.iter().map(|&n| if n == 0 { Color32::TRANSPARENT } else { minimap_colour(n) }).collect();
        Self::Density { area: b, image: Arc::new(ColorImage::new([COLS, ROWS], pixels)) }
    }
}

/// A minimap cell holding `cards` cards: more opaque the more it holds.
fn minimap_colour(cards: u32) -> Color32 {
    let alpha = (90.0 + 40.0 * (cards as f32).ln_1p()).min(230.0) as u8;
    Color32::from_rgba_unmultiplied(140, 160, 190, alpha)
}

/// Capability marks a card's title shows: glyph and colour.
const MARKS: [(&str, Color32); 4] = [("⚡", theme::WARN), ("♻", theme::OK), ("⚠", theme::ERROR), ("↺", theme::ACCENT)];

/// What each of [`MARKS`] means, for the card's tooltip.
const MARK_MEANINGS: [&str; 4] = [
    "side-effectful: it changes something outside the workflow",
    "cacheable: its result may be reused",
    "irreversible effect: it cannot be undone",
    "has a compensation step that undoes it on failure",
];

/// The marks a card shows, one per line with its meaning.
fn marks_meaning(marks: u8) -> String {
    let lines =
        (0..MARKS.len()).filter(|k| marks & 1 << k != 0).map(|k| format!("{} {}", MARKS[k].0, MARK_MEANINGS[k]));
    lines.collect::<Vec<_>>().join("\n")
}

/// Which of [`MARKS`] a node has (side-effectful, cacheable, irreversible effect, has
/// compensation), as bits.
fn marks(node: &crate::workflow::Node) -> u8 {
    let caps = node.capabilities();
    let has = [
        caps.iter().any(|c| c == "side-effectful"),
        caps.iter().any(|c| c == "cacheable"),
        node.is_irreversible(),
        node.has_member("compensation"),
    ];
    has.iter().enumerate().filter(|(_, h)| **h).fold(0, |bits, (k, _)| bits | 1 << k)
}

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

fn port_pos(card: Rect, i: usize, n: usize, output: bool) -> Pos2 {
    let top = card.top() + PORT_TOP;
    let h = card.bottom() - 6.0 - top;
    let y = top + (i as f32 + 0.5) * h / n.max(1) as f32;
    pos2(if output { card.right() } else { card.left() }, y)
}

/// A stroke `n` screen points wide when zoomed out, growing with the zoom when zoomed in.
fn px(zoom: f32, n: f32) -> f32 {
    n / zoom.min(1.0)
}

/// An edge drawn far out: a line, or a loop's corners; `stroke` in canvas units and `scale`
/// pixels per canvas unit.
fn draw_line_px(pixmap: &mut Pixmap, curve: Curve, to_px: &impl Fn(Pos2) -> Pos2, stroke: Stroke, scale: f32) {
    let width = stroke.width * scale;
    if curve.lane.is_none() {
        pixmap.line(to_px(curve.from), to_px(curve.to), width, stroke.color);
    } else {
        for corner in curve.polyline().windows(2) {
            pixmap.line(to_px(corner[0]), to_px(corner[1]), width, stroke.color);
        }
    }
}

/// A card drawn smaller than this (screen points) either way cannot show it is selected or
/// hovered by its own colour: it gets a ring that size instead.
const MARK: f32 = 7.0;
/// The width of that ring, in screen points.
const MARK_LINE: f32 = 1.5;

/// Whether `card` (`unit` of its units to a screen point) is too small to show a highlight.
fn is_tiny(card: Rect, unit: f32) -> bool {
    card.width() < MARK * unit || card.height() < MARK * unit
}

/// The ring round a highlighted card: at least [`MARK`] screen points across, one point
/// clear of the card.
fn mark_ring(card: Rect, unit: f32) -> Rect {
    Rect::from_center_size(card.center(), card.size().max(Vec2::splat(MARK * unit))).expand(unit + MARK_LINE * unit)
}

/// How an edge is drawn: accent when selected or targeted by a dragged tile, else by kind.
fn link_stroke(link: &Link, selected: bool, targeted: bool, zoom: f32) -> Stroke {
    let color = if selected || targeted {
        theme::ACCENT
    } else if link.loopback {
        theme::EDGE_LOOP
    } else if link.conditional {
        theme::EDGE_CONDITIONAL
    } else {
        theme::EDGE
    };
    Stroke::new(px(zoom, if selected || targeted { 2.5 } else { 1.6 }), color)
}

/// How far below the lower of its two cards a back edge's loop runs.
const LOOP_GAP: f32 = 36.0;
/// How far a back edge's turns reach out of the source's right and the target's left side
/// (three quarters of the control arm).
const LOOP_ARM: f32 = 64.0;

/// The path an edge is drawn along, hit-tested on and fitted by. A forward edge is one
/// S-curve from the source's output to the target's input. A back edge (its target left of
/// its source) would cut straight back through the cards between them, so it loops
/// instead, as node editors draw loops: out of the source to the right, down and back
/// along a lane below both cards, and into the target from the left.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Curve {
    from: Pos2,
    to: Pos2,
    /// The height of a back edge's lane; `None` for a forward edge.
    lane: Option<f32>,
}

impl Curve {
    /// A curve that ignores the cards (a wire being dragged to the pointer).
    fn forward(from: Pos2, to: Pos2) -> Self {
        Self { from, to, lane: None }
    }

    /// The edge from port `from` on card `a` to port `to` on card `b`. It loops when `b`
    /// starts left of `a` (a card straight below or above is reached by the S-curve).
    fn between(a: Rect, from: Pos2, b: Rect, to: Pos2) -> Self {
        let lane = (b.left() < a.left()).then(|| a.bottom().max(b.bottom()) + LOOP_GAP);
        Self { from, to, lane }
    }

    /// A back edge whose lane must clear every card between its ends (these included),
    /// which reach from `top` down to `bottom`: it runs under them or over them, whichever
    /// is the shorter way round.
    fn around(mut self, (top, bottom): (f32, f32)) -> Self {
        if let Some(lane) = &mut self.lane {
            let (a, b) = (self.from.y, self.to.y);
            let (below, above) = (bottom + LOOP_GAP, top - LOOP_GAP);
            *lane = if (a - above) + (b - above) < (below - a) + (below - b) { above } else { below };
        }
        self
    }

    /// The curve as cubic Bézier segments, each `[start, control, control, end]`.
    /// On the stack: the full view asks this of tens of thousands of edges.
    fn segments(&self) -> ([[Pos2; 4]; 3], usize) {
        let (from, to) = (self.from, self.to);
        let Some(lane) = self.lane else {
            let d = ((to.x - from.x).abs() * 0.5).max(50.0);
            let s = [from, from + vec2(d, 0.0), to - vec2(d, 0.0), to];
            return ([s, s, s], 1);
        };
        // Each turn is a U: both arms point the same way, so it reaches 3/4 of an arm out.
        let arm = vec2(LOOP_ARM / 0.75, 0.0);
        let (down, up) = (pos2(from.x, lane), pos2(to.x, lane));
        let segs = [
            [from, from + arm, down + arm, down],
            [down, down.lerp(up, 1.0 / 3.0), down.lerp(up, 2.0 / 3.0), up],
            [up, up - arm, to - arm, to],
        ];
        (segs, 3)
    }

    /// The point a fraction `t` along the curve (by segment, evenly).
    fn at(&self, t: f32) -> Pos2 {
        let (segs, n) = self.segments();
        let segs = &segs[..n];
        let scaled = t.clamp(0.0, 1.0) * segs.len() as f32;
        let i = (scaled as usize).min(segs.len() - 1);
        cubic(&segs[i], scaled - i as f32)
    }

    /// Points along the curve, `n` steps per segment.
    fn points(&self, n: usize) -> Vec<Pos2> {
        let (segs, count) = self.segments();
        let segs = &segs[..count];
        let mut out = vec![self.from];
        for s in segs {
            out.extend((1..=n).map(|i| cubic(s, i as f32 / n as f32)));
        }
        out
    }

    /// The corners of the curve drawn as straight lines (zoomed far out).
    fn polyline(&self) -> Vec<Pos2> {
        let (from, to) = (self.from, self.to);
        match self.lane {
            None => vec![from, to],
            Some(lane) => {
                let (right, left) = (from.x + LOOP_ARM, to.x - LOOP_ARM);
                vec![from, pos2(right, from.y), pos2(right, lane), pos2(left, lane), pos2(left, to.y), to]
            }
        }
    }

    /// What the drawn curve covers (not its control points, which reach further out).
    fn bounds(&self) -> Rect {
        let (segs, n) = self.segments();
        segs[..n].iter().map(cubic_bounds).reduce(|a, b| a.union(b)).unwrap_or(Rect::NOTHING)
    }

    /// A cheap rect that holds the curve (a Bézier stays inside its control points' hull):
    /// enough to cull by, tens of thousands of times a frame, where exact bounds cost more.
    fn hull(&self) -> Rect {
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
struct CardSpans {
    lefts: Vec<f32>,
    /// `reach[k][i]`: the highest top and lowest bottom among the cards `i .. i + 2^k` in
    /// order of `lefts`.
    reach: Vec<Vec<(f32, f32)>>,
}

impl CardSpans {
    /// From each card's left edge, top and bottom.
    fn new(cards: impl Iterator<Item = (f32, f32, f32)>) -> Self {
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
    fn reach(&self, x0: f32, x1: f32) -> Option<(f32, f32)> {
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
fn join(a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
    (a.0.min(b.0), a.1.max(b.1))
}

fn cubic(p: &[Pos2; 4], t: f32) -> Pos2 {
    let u = 1.0 - t;
    let v = u * u * u * p[0].to_vec2()
        + 3.0 * u * u * t * p[1].to_vec2()
        + 3.0 * u * t * t * p[2].to_vec2()
        + t * t * t * p[3].to_vec2();
    v.to_pos2()
}

/// The exact bounds of a cubic Bézier: its ends and the points where either coordinate
/// turns (roots of the derivative, a quadratic per axis).
fn cubic_bounds(p: &[Pos2; 4]) -> Rect {
    let mut r = Rect::from_two_pos(p[0], p[3]);
    let axis = |f: fn(Pos2) -> f32| {
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

fn dist_to_segment(p: Pos2, a: Pos2, b: Pos2) -> f32 {
    let ab = b - a;
    let t = if ab.length_sq() > 0.0 { ((p - a).dot(ab) / ab.length_sq()).clamp(0.0, 1.0) } else { 0.0 };
    p.distance(a + ab * t)
}

fn paint_edge(painter: &egui::Painter, curve: Curve, stroke: Stroke, zoom: f32) {
    if zoom < LOD_PORTS {
        painter.add(PathShape::line(curve.polyline(), stroke));
        return;
    }
    let pts = curve.points(if zoom >= LOD_DETAIL { 24 } else { 12 });
    let tip = pts[pts.len() - 1];
    let dir = (tip - pts[pts.len() - 2]).normalized();
    painter.add(PathShape::line(pts, stroke));
    let size = px(zoom, 7.0);
    let side = vec2(-dir.y, dir.x) * size * 0.5;
    let base = tip - dir * size;
    painter.add(Shape::convex_polygon(vec![tip, base + side, base - side], stroke.color, Stroke::NONE));
}

/// Where along `curve` a label of `size` goes: the middle, or the spot nearest to it whose
/// label covers none of `obstacles` (the text on cards, see [`card_text_areas`], and labels
/// already placed): first sliding along the edge, then stacked above or
/// below it (parallel edges between the same cards have the same middle). Where every
/// spot is covered, the one covering least.
fn label_spot(curve: Curve, size: Vec2, obstacles: &[Rect]) -> Pos2 {
    const TRIES: [f32; 9] = [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82];
    const STACK: [f32; 11] = [0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0, 5.0, -5.0];
    let span = curve.bounds().expand2(vec2(size.x, size.y * 7.0));
    let near: Vec<&Rect> = obstacles.iter().filter(|t| t.intersects(span)).collect();
    let covered = |p: Pos2| {
        let r = Rect::from_center_size(p, size);
        near.iter().map(|t| t.intersect(r)).filter(|i| i.is_positive()).map(|i| i.area()).sum::<f32>()
    };
    let mut best = (f32::INFINITY, curve.at(0.5));
    for k in STACK {
        for &t in &TRIES {
            let p = curve.at(t) + vec2(0.0, k * (size.y + 2.0));
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
fn card_text_areas(rect: Rect, (inputs, outputs): (usize, usize), font: f32) -> impl Iterator<Item = Rect> {
    let top = Rect::from_min_max(rect.min, pos2(rect.max.x, rect.min.y + PORT_TOP));
    let half = W / 2.0 - 16.0;
    let row = move |k: usize, n: usize, output: bool| {
        let p = port_pos(rect, k, n, output);
        let left = if output { p.x - 10.0 - half } else { p.x + 10.0 };
        Rect::from_min_size(pos2(left, p.y - font * 0.75), vec2(half, font * 1.5))
    };
    let ins = (0..inputs).map(move |k| row(k, inputs, false));
    let outs = (0..outputs).map(move |k| row(k, outputs, true));
    std::iter::once(top).chain(ins).chain(outs)
}

fn paint_pill(painter: &egui::Painter, at: Pos2, galley: Arc<egui::Galley>, color: Color32) {
    let rect = Rect::from_center_size(at, galley.size() + vec2(10.0, 4.0));
    painter.rect_filled(rect, 8.0, Color32::from_rgb(30, 33, 40));
    painter.rect_stroke(rect, 8.0, Stroke::new(1.0, color), StrokeKind::Inside);
    painter.galley(rect.min + vec2(5.0, 2.0), galley, theme::TEXT);
}

/// One line of text cut to `width` with an ellipsis.
fn text_line(painter: &egui::Painter, text: &str, font: FontId, color: Color32, width: f32) -> Arc<egui::Galley> {
    let mut job = LayoutJob::single_section(text.to_owned(), TextFormat::simple(font, color));
    job.wrap = TextWrapping::truncate_at_width(width);
    painter.layout_job(job)
}

fn paint_card(painter: &egui::Painter, rect: Rect, card: &CardText<'_>, lod: Lod, selected: bool, hovered: bool) {
    let zoom = lod.zoom;
    let header = Rect::from_min_max(rect.min, pos2(rect.max.x, rect.min.y + HEADER));
    if zoom < LOD_SOLID {
        painter.rect_filled(rect, 0.0, if selected { theme::ACCENT } else { card.color });
        // A hovered card is outlined, and so is a selected one too small to show its colour.
        let unit = 1.0 / zoom;
        if hovered || (selected && is_tiny(rect, unit)) {
            let color = if selected { theme::ACCENT } else { theme::TEXT };
            let ring = if is_tiny(rect, unit) { mark_ring(rect, unit) } else { rect.expand(unit + MARK_LINE * unit) };
            painter.rect_stroke(ring, 0.0, Stroke::new(MARK_LINE * unit, color), StrokeKind::Inside);
        }
        return;
    }
    painter.rect_filled(rect, 6.0, theme::CARD_BG);
    painter.rect_filled(header, CornerRadius { nw: 6, ne: 6, sw: 0, se: 0 }, card.color);
    let border = if selected {
        Stroke::new(px(zoom, 2.0), theme::ACCENT)
    } else if hovered {
        Stroke::new(px(zoom, 1.5), theme::TEXT_DIM)
    } else {
        Stroke::new(px(zoom, 1.0), theme::CARD_BORDER)
    };
    painter.rect_stroke(rect, 6.0, border, StrokeKind::Outside);
    if zoom >= LOD_PORTS {
        for (k, _) in card.inputs.iter().enumerate() {
            let p = port_pos(rect, k, card.inputs.len(), false);
            painter.circle(p, PORT_R, theme::CARD_BG, Stroke::new(1.5, theme::EDGE));
        }
        for (k, _) in card.outputs.iter().enumerate() {
            let p = port_pos(rect, k, card.outputs.len(), true);
            painter.circle(p, PORT_R, theme::EDGE, Stroke::new(1.5, theme::EDGE));
        }
    }
    if !lod.text() {
        return;
    }
    let marks: Vec<(&str, Color32)> =
        MARKS.iter().enumerate().filter(|(k, _)| card.marks & 1 << k != 0).map(|(_, m)| *m).collect();
    let marks_w = marks.len() as f32 * 16.0;
    let name = text_line(painter, card.name, name_font(zoom), Color32::WHITE, W - 16.0 - marks_w);
    painter.galley(pos2(rect.min.x + 8.0, header.center().y - name.size().y / 2.0), name, Color32::WHITE);
    for (k, (glyph, color)) in marks.iter().enumerate() {
        let at = pos2(rect.max.x - 12.0 - 16.0 * k as f32, header.center().y);
        painter.text(at, Align2::CENTER_CENTER, *glyph, FontId::proportional(13.0), *color);
    }
    if zoom < LOD_DETAIL {
        return;
    }
    // The type line has the room between the title and the first port name.
    let type_font = FontId::new(detail_font(zoom).min(PORT_TOP - HEADER - 2.0), FontFamily::Monospace);
    let type_id = text_line(painter, card.type_id, type_font, theme::TEXT_DIM, W - 16.0);
    painter.galley(pos2(rect.min.x + 8.0, header.max.y + 1.0), type_id, theme::TEXT_DIM);
    let label_w = W / 2.0 - 16.0;
    let port_font = FontId::proportional(detail_font(zoom));
    for (k, name) in card.inputs.iter().enumerate() {
        let p = port_pos(rect, k, card.inputs.len(), false);
        let g = text_line(painter, name, port_font.clone(), theme::TEXT, label_w);
        painter.galley(pos2(p.x + 10.0, p.y - g.size().y / 2.0), g, theme::TEXT);
    }
    for (k, name) in card.outputs.iter().enumerate() {
        let p = port_pos(rect, k, card.outputs.len(), true);
        let g = text_line(painter, name, port_font.clone(), theme::TEXT, label_w);
        painter.galley(pos2(p.x - 10.0 - g.size().x, p.y - g.size().y / 2.0), g, theme::TEXT);
    }
}

/// Card names grow as the view zooms out, so they stay readable (about 10 screen points)
/// down to the zoom where text is dropped.
fn name_font(zoom: f32) -> FontId {
    FontId::proportional(13.5 * (0.8 / zoom).clamp(1.0, 2.5))
}

/// The size (canvas units) of a card's small print and of edge labels at `zoom`: 11 at
/// 1:1 and closer, growing as the view zooms out to stay [`LEGIBLE`] on screen, up to
/// [`DETAIL_MAX`].
fn detail_font(zoom: f32) -> f32 {
    (LEGIBLE / zoom).clamp(DETAIL_FONT, DETAIL_MAX)
}

/// What detail a zoom level draws; text also depends on the workflow's size.
#[derive(Clone, Copy)]
struct Lod {
    zoom: f32,
    text_from: f32,
}

impl Lod {
    fn new(zoom: f32, cards: usize) -> Self {
        Lod { zoom, text_from: if cards <= FEW_CARDS { LOD_TEXT_FEW } else { LOD_TEXT } }
    }

    fn text(self) -> bool {
        self.zoom >= self.text_from
    }
}

fn paint_frame(painter: &egui::Painter, rect: Rect, title: &str, lod: Lod, highlighted: bool) {
    let zoom = lod.zoom;
    let color = if highlighted { theme::ACCENT } else { Color32::from_rgb(110, 150, 210) };
    painter.rect_filled(rect, 10.0, color.gamma_multiply(0.07));
    painter.rect_stroke(rect, 10.0, Stroke::new(px(zoom, 1.0), color.gamma_multiply(0.6)), StrokeKind::Inside);
    if lod.text() {
        // Grows as the view zooms out, like card names, into the padding above the cards.
        let font = FontId::proportional(12.5 * (0.8 / zoom).clamp(1.0, 1.8));
        let g = text_line(painter, title, font, color, rect.width() - 20.0);
        painter.galley(rect.min + vec2(10.0, ((FRAME_HEADER - g.size().y) / 2.0 + 2.0).max(3.0)), g, color);
    }
}

fn paint_ghost(painter: &egui::Painter, g: &Ghost, cache: &ViewCache, positions: &[Pos2], lod: Lod) {
    let zoom = lod.zoom;
    let stroke = Stroke::new(px(zoom, 1.5), theme::GHOST);
    // Each end: the card's rect and the port's position.
    let ghost_port = |i: usize, output: bool| {
        let r = ghost_rect(&g.nodes[i]);
        (r, port_pos(r, 0, 1, output))
    };
    let parent_port = |id: &str, output: bool| {
        let i = *cache.by_id.get(id)?;
        let card = &cache.boxes[i];
        let r = cache.rect(i, positions[i]);
        Some((r, port_pos(r, 0, if output { card.outputs } else { card.inputs } as usize, output)))
    };
    for e in &g.edges {
        let from = match &e.from {
            GhostEnd::Ghost(i) => Some(ghost_port(*i, true)),
            GhostEnd::Parent(id) => parent_port(id, true),
        };
        let to = match &e.to {
            GhostEnd::Ghost(i) => Some(ghost_port(*i, false)),
            GhostEnd::Parent(id) => parent_port(id, false),
        };
        if let (Some((ra, a)), Some((rb, b))) = (from, to) {
            let pts = Curve::between(ra, a, rb, b).points(16);
            painter.add(Shape::dashed_line(&pts, stroke, px(zoom, 6.0), px(zoom, 4.0)));
        }
    }
    for (i, n) in g.nodes.iter().enumerate() {
        let rect = ghost_rect(n);
        let selected = g.selected == Some(i);
        painter.rect_filled(rect, 6.0, theme::GHOST.gamma_multiply(if selected { 0.22 } else { 0.12 }));
        let border = if selected { Stroke::new(px(zoom, 2.5), theme::GHOST) } else { stroke };
        painter.rect_stroke(rect, 6.0, border, StrokeKind::Outside);
        if lod.text() {
            let name = text_line(painter, &n.name, name_font(zoom), Color32::WHITE, W - 16.0);
            painter.galley(rect.min + vec2(8.0, 6.0), name, Color32::WHITE);
            let id = text_line(painter, &n.id, FontId::new(11.0, FontFamily::Monospace), theme::GHOST, W - 16.0);
            painter.galley(rect.min + vec2(8.0, 30.0), id, theme::GHOST);
            let ty =
                text_line(painter, &n.type_id, FontId::new(11.0, FontFamily::Monospace), theme::TEXT_DIM, W - 16.0);
            painter.galley(rect.min + vec2(8.0, 46.0), ty, theme::TEXT_DIM);
        }
    }
    if lod.text()
        && let Some(first) = g.nodes.first()
    {
        let at = ghost_rect(first).min - vec2(0.0, 18.0);
        painter.text(at, Align2::LEFT_BOTTOM, &g.title, FontId::proportional(12.5), theme::GHOST);
    }
}

/// A refused connection's reason, beside the pointer while the wire is still being dragged.
fn show_refusal_at_pointer(ctx: &egui::Context, e: &Error) {
    let Some(p) = ctx.pointer_latest_pos() else { return };
    // Above and to the left of the pointer: over the gap the wire crosses, not over the
    // target card's port names.
    egui::Area::new(Id::unique("cs-wire-refusal"))
        .order(egui::Order::Tooltip)
        .pivot(Align2::RIGHT_BOTTOM)
        .fade_in(false)
        .fixed_pos(p + vec2(-18.0, -18.0))
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_max_width(360.0);
                ui.label(egui::RichText::new(format!("✖ Cannot connect: {}", e.message)).color(theme::ERROR));
                ui.label(egui::RichText::new(e.code).monospace().small().color(theme::TEXT_DIM));
            });
        });
}

/// What to do on an empty canvas, at a constant size on screen.
/// What an empty canvas says, centred on `c` (screen space).
fn paint_empty_hint(painter: &egui::Painter, c: Pos2) {
    let big = FontId::proportional(20.0);
    let small = FontId::proportional(13.0);
    painter.text(
        c,
        Align2::CENTER_BOTTOM,
        "Drag a chain tile or a node type from the palette here",
        big,
        theme::TEXT_DIM,
    );
    let help = "Drag: pan  ·  Shift+drag: box select  ·  Ctrl+wheel or pinch: zoom  ·  F: fit";
    painter.text(c + vec2(0.0, 12.0), Align2::CENTER_TOP, help, small, theme::TEXT_DIM);
}

/// Where a dragged tile would land: its cards' outlines (canvas space).
fn paint_tile_ghost(painter: &egui::Painter, t: &TileTarget, zoom: f32) {
    let stroke = Stroke::new(px(zoom, 1.5), theme::GHOST);
    for r in &t.footprint {
        let rect = r.translate(t.at.to_vec2());
        painter.rect_filled(rect, 6.0, theme::GHOST.gamma_multiply(0.10));
        painter.rect_stroke(rect, 6.0, stroke, StrokeKind::Outside);
    }
}

/// What a dropped tile would be, over the top-left of its outlines: drawn in screen space
/// (`to_screen` maps the canvas there), never smaller than 13 points, growing with the
/// cards when zoomed in.
fn paint_tile_label(painter: &egui::Painter, t: &TileTarget, to_screen: TSTransform) {
    let top_left = t.footprint.iter().map(|r| r.min + t.at.to_vec2()).reduce(|a, b| a.min(b)).unwrap_or(t.at);
    let scale = to_screen.scaling.max(1.0);
    let hint = if t.edge.is_some() { "drop to splice into this edge" } else { "drop to insert here" };
    let what = match &t.dropped {
        Dropped::Chain { .. } => "",
        Dropped::NodeType(_) => " (one node)",
    };
    let text = format!("{}{what} — {hint}", t.label);
    painter.add(TextShape::new(
        to_screen * top_left - vec2(0.0, 24.0 * scale),
        painter.layout_no_wrap(text, FontId::proportional(13.0 * scale), theme::GHOST),
        theme::GHOST,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_labels_move_off_card_titles() {
        let curve = Curve::forward(pos2(0.0, 0.0), pos2(400.0, 0.0));
        let size = vec2(60.0, 16.0);
        assert_eq!(label_spot(curve, size, &[]), curve.at(0.5));
        // A card title right where the middle of the edge is.
        let title = Rect::from_center_size(curve.at(0.5), vec2(120.0, HEADER));
        let at = label_spot(curve, size, &[title]);
        assert!(!Rect::from_center_size(at, size).intersects(title), "{at:?}");
        // Covered everywhere: the middle, where it would have been.
        let wall = Rect::from_min_max(pos2(-100.0, -500.0), pos2(500.0, 500.0));
        assert_eq!(label_spot(curve, size, &[wall]), curve.at(0.5));
    }

    /// Labels of `n` edges between the same two cards one column apart, with two ports
    /// each (so some edges join the same pair of ports), placed as [`Canvas::paint_still`]
    /// does: the cards' text and each placed label are obstacles.
    fn parallel_labels(n: usize, size: Vec2) -> (Vec<Rect>, Vec<Rect>) {
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

    #[test]
    fn ports_on_a_card_of_the_model_height_keep_a_label_line_apart() {
        let pitch = cards::PORT_PITCH as f32;
        let h = cards::card_height(12) as f32;
        let card = Rect::from_min_size(Pos2::ZERO, vec2(W, h));
        let gap = port_pos(card, 1, 12, false).y - port_pos(card, 0, 12, false).y;
        assert!(gap >= pitch - 0.01, "{gap}");
    }
}

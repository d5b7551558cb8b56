//! Painting the canvas: the still drawing (tessellated once, or rasterised zoomed far out), the
//! live cards, frames, the insert preview's ghosts and the drag gestures.

use super::*;
use egui::{Color32, FontId, Pos2, Rect, Stroke, Ui, Vec2};

impl Canvas {
    pub(super) fn contents(&mut self, ui: &mut Ui, wf: &Workflow, ghost: Option<&Ghost>, acting: &mut Acting<'_>) {
        let zoom = self.to_global.scaling;
        let visible = ui.clip_rect();
        let painter = ui.painter().clone();
        let ctx = ui.ctx().clone();
        let mut positions = self.cache.view.positions(self.drag.as_ref());
        // While an insert previews, the nodes it will move to make room are drawn there.
        let mut moved = Vec::new();
        for (id, (x, y)) in ghost.map(|g| g.moved.as_slice()).unwrap_or_default() {
            if let Some(&i) = self.cache.view.by_id.get(id) {
                positions[i] = point(*x as f32, *y as f32);
                moved.push((i, positions[i]));
            }
        }
        let live = self.cache.view.live(self.drag.as_ref());
        // Counted only where titles alone may be drawn: not where cards show their text anyway.
        let text = Lod::new(zoom, self.cache.view.cards.len(), usize::MAX).text();
        self.in_view = if !text && titles_fit(zoom) {
            self.cache.view.count_in(geo_rect(visible), &positions, TITLES_IN_VIEW + 1)
        } else {
            0
        };
        let target_edge = self.tile_target.as_ref().and_then(|t| t.edge);
        let replaced = ghost.and_then(|g| g.replaced);
        let still = Still {
            wf,
            visible,
            zoom,
            positions: &positions,
            live: &live,
            selection: acting.selection,
            target_edge,
            replaced,
            at_rest: moved.is_empty(),
        };
        self.draw_still(&ctx, &still, moved);

        self.frames(ui, &positions, &live, acting);
        // Edges to and from the cards being dragged follow them.
        for link in self.cache.view.links.iter().filter(|l| live[l.from] || live[l.to]) {
            let curve = self.cache.view.link_curve(link, &positions);
            let selected = acting.selection.edges.contains(&link.seq);
            paint_edge(&painter, curve, link_stroke(link, selected, false, zoom), zoom);
        }
        self.cards(ui, wf, &positions, &live, acting);
        if let Some(g) = ghost {
            self.ghost(ui, g, &positions, acting.actions);
        }
        self.gestures(&painter, &positions);
    }

    /// What stays still (grid, frames, edges, cards not being dragged) is drawn into a
    /// cached mesh, redrawn only when the document, the view or the selection changes;
    /// `show` puts it under this layer. What moves or reacts to the pointer is drawn
    /// after it, every frame, on top of it. `moved`: the cards an insert preview moves.
    pub(super) fn draw_still(&mut self, ctx: &egui::Context, still: &Still, moved: Vec<(usize, Point)>) {
        let zoom = still.zoom;
        if *self.selection_drawn != *still.selection {
            self.selection_drawn = Arc::new(still.selection.clone());
        }
        let key = SceneKey {
            revision: self.cache.view.revision,
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
    pub(super) fn frames(&mut self, ui: &mut Ui, positions: &[Point], live: &[bool], acting: &mut Acting<'_>) {
        let zoom = self.to_global.scaling;
        let lod = self.lod(zoom);
        let visible = ui.clip_rect();
        let painter = ui.painter().clone();
        for fi in 0..self.cache.view.frames.len() {
            let Some(rect) = self.cache.view.frame_rect(fi, positions).map(egui_rect) else { continue };
            if !rect.intersects(visible) {
                continue;
            }
            let frame = &self.cache.view.frames[fi];
            let id = Id::unique(("cs-frame", &frame.key));
            let resp = ui.interact(rect, id, Sense::click());
            let title = frame.title.clone();
            resp.widget_info(|| WidgetInfo::labeled(Role::Group, true, format!("Chain instance {title}")));
            let selected = acting.selection.instance.as_deref() == Some(frame.key.as_str());
            if frame.nodes.iter().any(|&n| live[n]) {
                paint_frame(&painter, rect, &frame.title, lod, selected || resp.hovered());
            } else if resp.hovered() && !selected {
                painter.rect_stroke(rect, 10.0, Stroke::new(px(zoom, 1.0), theme::ACCENT), StrokeKind::Inside);
            }
            if resp.double_clicked() {
                acting.actions.push(if frame.app {
                    Action::Run(CommandId::ReparamApp)
                } else {
                    Action::EditInstance(frame.key.clone())
                });
            } else if resp.clicked() {
                self.cache.view.select_instance(fi, acting.selection);
            }
            let (key, members, app) = (frame.key.clone(), frame.nodes.len(), frame.app);
            resp.context_menu(|ui| {
                let Acting { selection, actions, commands, os, updates } = acting;
                if app {
                    command_ui::item(ui, CommandId::ReparamApp, commands, *os, actions);
                    return;
                }
                // The menu acts on the selection: right-clicking a frame selects its instance.
                if !selected {
                    self.cache.view.select_instance(fi, selection);
                }
                let cx = commands::Context {
                    instance_selected: true,
                    nodes_selected: members,
                    instance_outdated: updates.contains_key(&key),
                    ..**commands
                };
                command_ui::context_items(ui, Place::SelectionMenu, &cx, *os, actions);
            });
            if let Some(up) = acting.updates.get(&key) {
                badge::update_badge(ui, rect, up, zoom, acting.actions);
            }
        }
    }

    /// The cards that take the pointer this frame, as widgets (drawn here when they move or
    /// show the hover), and their ports' handles when zoomed in enough to use them.
    pub(super) fn cards(
        &mut self,
        ui: &mut Ui,
        wf: &Workflow,
        positions: &[Point],
        live: &[bool],
        acting: &mut Acting<'_>,
    ) {
        let zoom = self.to_global.scaling;
        let lod = self.lod(zoom);
        let ctx = ui.ctx().clone();
        let painter = ui.painter().clone();
        let interactive = self.interactive_cards(&ctx, ui.clip_rect(), positions, live);
        for &i in &interactive {
            let rect = self.cache.rect(i, positions[i]);
            let card = &self.cache.view.cards[i];
            let resp = ui.interact(rect, Id::unique(("cs-node", &card.id)), Sense::click_and_drag());
            let selected = acting.selection.nodes.contains(&card.id);
            let text = self.cache.view.text(wf, i);
            resp.widget_info(|| {
                WidgetInfo::selected(Role::Button, true, selected, format!("{} ({})", text.name, card.id))
            });
            // The still drawing has this card already, unless it moves or shows the hover.
            if live[i] || resp.hovered() {
                paint_card(&painter, rect, &text, self.cache.colors[i], lod, selected, resp.hovered());
            }
            if resp.secondary_clicked() {
                self.menu_card = Some(card.id.clone());
            }
            let marks = text.marks;
            self.node_interaction(&resp, i, acting);
            // The title's marks say what they mean on hover.
            if marks != 0 {
                resp.on_hover_text(marks_meaning(marks, MARKS.map(|m| m.0)));
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
    pub(super) fn ghost(&self, ui: &mut Ui, g: &Ghost, positions: &[Point], actions: &mut Vec<Action>) {
        let zoom = self.to_global.scaling;
        let painter = ui.painter().clone();
        // Faint and dashed under the ghosts' edges that take its place.
        if let Some(link) = self.cache.view.links.iter().find(|l| Some(l.seq) == g.replaced) {
            let stroke = Stroke::new(px(zoom, 1.2), theme::TEXT_DIM.gamma_multiply(0.35));
            let pts = points(&self.cache.view.link_curve(link, positions), 16);
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
    pub(super) fn gestures(&self, painter: &egui::Painter, positions: &[Point]) {
        let zoom = self.to_global.scaling;
        if let Some(wire) = &self.wire {
            let boxes = &self.cache.view.boxes;
            let from = port_pos(
                self.cache.rect(wire.from, positions[wire.from]),
                wire.port,
                boxes[wire.from].outputs as usize,
                true,
            );
            let hit = self.cache.view.input_port_at(pt(wire.end), positions);
            let end = hit.map_or(wire.end, |(n, p)| {
                port_pos(self.cache.rect(n, positions[n]), p, boxes[n].inputs as usize, false)
            });
            let color = match hit {
                Some(_) if self.wire_refused => theme::ERROR,
                Some(_) => theme::ACCENT,
                None => theme::TEXT_DIM,
            };
            paint_edge(painter, curve_forward(from, end), Stroke::new(px(zoom, 2.0), color), zoom);
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
    pub(super) fn paint_still(&self, painter: &egui::Painter, still: &Still) {
        let Still { wf, visible, zoom, positions, live, selection, target_edge, replaced, .. } = *still;
        let lod = self.lod(zoom);
        self.paint_grid(painter, visible, zoom);
        for (fi, frame) in self.cache.view.frames.iter().enumerate() {
            if frame.nodes.iter().any(|&n| live[n]) {
                continue;
            }
            let rect = self.cache.view.frame_rect(fi, positions).map(egui_rect);
            let Some(rect) = rect.filter(|r| r.intersects(visible)) else { continue };
            let selected = selection.instance.as_deref() == Some(frame.key.as_str());
            paint_frame(painter, rect, &frame.title, lod, selected);
        }
        if zoom < LOD_SOLID {
            return;
        }
        // Edge labels go on top of the cards, so a card never hides a condition.
        let mut labels = Vec::new();
        for link in self.cache.view.links.iter().filter(|l| !live[l.from] && !live[l.to] && Some(l.seq) != replaced) {
            let curve = self.cache.view.link_curve(link, positions);
            if !hull(&curve).intersects(visible) {
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
        let view = &self.cache.view;
        for (i, card) in view.cards.iter().enumerate() {
            let rect = self.cache.rect(i, positions[i]);
            if live[i] || !rect.intersects(visible) {
                continue;
            }
            let selected = selection.nodes.contains(&card.id);
            paint_card(painter, rect, &view.text(wf, i), self.cache.colors[i], lod, selected, false);
            if !labels.is_empty() {
                let ports = (view.inputs(i).len(), view.outputs(i).len());
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
            obstacles.push(geo_rect(Rect::from_center_size(at, size)));
            paint_pill(painter, at, galley, color);
        }
    }

    /// The edges and cards of [`Canvas::paint_still`] zoomed far out, in pixels: edges (the
    /// highlighted ones over the rest), then cards, as [`paint_edge`] and [`paint_card`]
    /// draw them at this zoom (straight lines, solid rects, a ring round a selected card too
    /// small to show its colour). `None` when the canvas has no pixels.
    pub(super) fn rasterize(
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
        let view = &self.cache.view;
        let cards = &view.boxes;
        // By index, once: looking every card up in the selection's set would compare ids.
        let mut selected = vec![false; cards.len()];
        for id in &selection.nodes {
            if let Some(&i) = view.by_id.get(id) {
                selected[i] = true;
            }
        }
        let mut over = Vec::new();
        // Everything in view (the usual far view): no edge to cull.
        let all_in_view = at_rest && view.fit_bounds.is_some_and(|b| visible.contains_rect(egui_rect(b)));
        for link in view.links.iter().filter(|l| !live[l.from] && !live[l.to] && Some(l.seq) != replaced) {
            let curve = view.link_curve(link, positions);
            if !all_in_view && !hull(&curve).intersects(visible) {
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
        for (i, color) in self.cache.colors.iter().enumerate().take(cards.len()) {
            let rect = self.cache.rect(i, positions[i]);
            if live[i] || !rect.intersects(visible) {
                continue;
            }
            let px = Rect::from_min_max(to_px(rect.min), to_px(rect.max));
            pixmap.fill_rect(px, if selected[i] { theme::ACCENT } else { *color });
            if selected[i] && is_tiny(geo_rect(px), density) {
                rings.push(egui_rect(mark_ring(geo_rect(px), density)));
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

    pub(super) fn lod(&self, zoom: f32) -> Lod {
        Lod::new(zoom, self.cache.view.cards.len(), self.in_view)
    }

    pub(super) fn paint_grid(&self, painter: &egui::Painter, visible: Rect, zoom: f32) {
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
}

/// `image` as a texture sampled nearest-neighbour: into `held` when there is one, else a new
/// texture called `name`.
pub(super) fn show_image(
    ctx: &egui::Context,
    held: Option<TextureHandle>,
    name: &str,
    image: &Arc<ColorImage>,
) -> TextureHandle {
    let data = ImageData::Color(Arc::clone(image));
    match held {
        Some(mut t) => {
            t.set(data, TextureOptions::NEAREST);
            t
        }
        None => ctx.load_texture(name, data, TextureOptions::NEAREST),
    }
}

/// An edge drawn far out: a line, or a loop's corners; `stroke` in canvas units and `scale`
/// pixels per canvas unit.
pub(super) fn draw_line_px(
    pixmap: &mut Pixmap,
    curve: Curve,
    to_px: &impl Fn(Pos2) -> Pos2,
    stroke: Stroke,
    scale: f32,
) {
    let width = stroke.width * scale;
    if curve.lane.is_none() && curve.bend.is_none() {
        pixmap.line(to_px(pos(curve.from)), to_px(pos(curve.to)), width, stroke.color);
    } else {
        for corner in polyline(&curve).windows(2) {
            pixmap.line(to_px(corner[0]), to_px(corner[1]), width, stroke.color);
        }
    }
}

/// How an edge is drawn: accent when selected or targeted by a dragged tile, else by kind.
pub(super) fn link_stroke(link: &Link, selected: bool, targeted: bool, zoom: f32) -> Stroke {
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

pub(super) fn paint_edge(painter: &egui::Painter, curve: Curve, stroke: Stroke, zoom: f32) {
    if zoom < LOD_PORTS {
        painter.add(PathShape::line(polyline(&curve), stroke));
        return;
    }
    let pts = points(&curve, if zoom >= LOD_DETAIL { 24 } else { 12 });
    let tip = pts[pts.len() - 1];
    let dir = (tip - pts[pts.len() - 2]).normalized();
    painter.add(PathShape::line(pts, stroke));
    let size = px(zoom, 7.0);
    let side = vec2(-dir.y, dir.x) * size * 0.5;
    let base = tip - dir * size;
    painter.add(Shape::convex_polygon(vec![tip, base + side, base - side], stroke.color, Stroke::NONE));
}

pub(super) fn paint_pill(painter: &egui::Painter, at: Pos2, galley: Arc<egui::Galley>, color: Color32) {
    let rect = Rect::from_center_size(at, galley.size() + vec2(10.0, 4.0));
    painter.rect_filled(rect, 8.0, Color32::from_rgb(30, 33, 40));
    painter.rect_stroke(rect, 8.0, Stroke::new(1.0, color), StrokeKind::Inside);
    painter.galley(rect.min + vec2(5.0, 2.0), galley, theme::TEXT);
}

/// One line of text cut to `width` with an ellipsis.
pub(super) fn text_line(
    painter: &egui::Painter,
    text: &str,
    font: FontId,
    color: Color32,
    width: f32,
) -> Arc<egui::Galley> {
    let mut job = LayoutJob::single_section(text.to_owned(), TextFormat::simple(font, color));
    job.wrap = TextWrapping::truncate_at_width(width);
    painter.layout_job(job)
}

pub(super) fn paint_card(
    painter: &egui::Painter,
    rect: Rect,
    card: &CardText<'_>,
    color: Color32,
    lod: Lod,
    selected: bool,
    hovered: bool,
) {
    let zoom = lod.zoom;
    let header = Rect::from_min_max(rect.min, pos2(rect.max.x, rect.min.y + HEADER));
    if zoom < LOD_SOLID {
        painter.rect_filled(rect, 0.0, if selected { theme::ACCENT } else { color });
        // A hovered card is outlined, and so is a selected one too small to show its colour.
        let unit = 1.0 / zoom;
        let tiny = is_tiny(geo_rect(rect), unit);
        if hovered || (selected && tiny) {
            let color = if selected { theme::ACCENT } else { theme::TEXT };
            let ring =
                if tiny { egui_rect(mark_ring(geo_rect(rect), unit)) } else { rect.expand(unit + MARK_LINE * unit) };
            painter.rect_stroke(ring, 0.0, Stroke::new(MARK_LINE * unit, color), StrokeKind::Inside);
        }
        return;
    }
    // Zoomed out, the title keeps a readable size on screen and the card's header grows to
    // hold it; the details (type, port names) go first (semantic zoom).
    let far = lod.title() && zoom < LOD_DETAIL;
    let text_zoom = quantized(zoom);
    let header = if far {
        let band = (TITLE_PX * 1.5 / text_zoom).clamp(HEADER, rect.height());
        Rect::from_min_max(rect.min, pos2(rect.max.x, rect.min.y + band))
    } else {
        header
    };
    painter.rect_filled(rect, 6.0, theme::CARD_BG);
    painter.rect_filled(header, CornerRadius { nw: 6, ne: 6, sw: 0, se: 0 }, color);
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
    if !lod.title() {
        return;
    }
    // A title alone (see `TITLE_MIN_PX`) has the card's width to itself: the marks are left
    // to the tooltip, the padding is two points.
    let alone = !lod.text();
    let marks: Vec<(&str, Color32)> =
        (MARKS.iter().enumerate()).filter(|(k, _)| !alone && card.marks & 1 << k != 0).map(|(_, m)| *m).collect();
    let (title, mark_size, pad) = if alone {
        let size = TITLE_ALONE_PX / quantized_up(zoom);
        (FontId::proportional(size), size, 2.0 / zoom)
    } else if far {
        (FontId::proportional(TITLE_PX / text_zoom), TITLE_PX / text_zoom, 4.0 / text_zoom)
    } else {
        (name_font(zoom), 13.0, 8.0)
    };
    let mark_w = mark_size * 1.2;
    let marks_w = marks.len() as f32 * mark_w;
    let name = text_line(painter, card.name, title, Color32::WHITE, W - 2.0 * pad - marks_w);
    painter.galley(pos2(rect.min.x + pad, header.center().y - name.size().y / 2.0), name, Color32::WHITE);
    for (k, (glyph, color)) in marks.iter().enumerate() {
        let at = pos2(rect.max.x - pad - mark_w * (k as f32 + 0.5), header.center().y);
        painter.text(at, Align2::CENTER_CENTER, *glyph, FontId::proportional(mark_size), *color);
    }
    if far {
        // The type under the title, where the card has room for it at a readable size.
        let size = TYPE_PX / text_zoom;
        if !alone && header.max.y + size * 1.3 <= rect.max.y {
            let font = FontId::new(size, FontFamily::Monospace);
            let type_id = text_line(painter, card.type_id, font, theme::TEXT_DIM, W - 2.0 * pad);
            painter.galley(pos2(rect.min.x + pad, header.max.y + size * 0.15), type_id, theme::TEXT_DIM);
        }
        return;
    }
    paint_details(painter, rect, header, card, zoom);
}

/// A card's type line and port names, from [`LOD_DETAIL`] in.
fn paint_details(painter: &egui::Painter, rect: Rect, header: Rect, card: &CardText<'_>, zoom: f32) {
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

/// Card names grow as the view zooms out, to about 11 screen points at [`LOD_DETAIL`]
/// (further out, [`paint_card`] draws them at [`TITLE_PX`]).
pub(super) fn name_font(zoom: f32) -> FontId {
    FontId::proportional(13.5 * (0.8 / zoom).clamp(1.0, 2.5))
}

pub(super) fn paint_frame(painter: &egui::Painter, rect: Rect, title: &str, lod: Lod, highlighted: bool) {
    let zoom = lod.zoom;
    let color = if highlighted { theme::ACCENT } else { Color32::from_rgb(110, 150, 210) };
    painter.rect_filled(rect, 10.0, color.gamma_multiply(0.07));
    painter.rect_stroke(rect, 10.0, Stroke::new(px(zoom, 1.0), color.gamma_multiply(0.6)), StrokeKind::Inside);
    if lod.title() {
        // Grows as the view zooms out, like card names, into the padding above the cards;
        // further out, kept at a size on screen above the frame.
        let size = if zoom < LOD_DETAIL { TITLE_PX / quantized(zoom) } else { 12.5 * (0.8 / zoom).clamp(1.0, 1.8) };
        let g = text_line(painter, title, FontId::proportional(size), color, rect.width() - 20.0);
        let y = if g.size().y > FRAME_HEADER + FRAME_PAD - 4.0 {
            -g.size().y
        } else {
            ((FRAME_HEADER - g.size().y) / 2.0 + 2.0).max(3.0)
        };
        painter.galley(rect.min + vec2(10.0, y), g, color);
    }
}

pub(super) fn paint_ghost(painter: &egui::Painter, g: &Ghost, cache: &ViewCache, positions: &[Point], lod: Lod) {
    let zoom = lod.zoom;
    let stroke = Stroke::new(px(zoom, 1.5), theme::GHOST);
    // Each end: the card's rect and the port's position.
    let ghost_port = |i: usize, output: bool| {
        let r = ghost_rect(&g.nodes[i]);
        (r, port_pos(r, 0, 1, output))
    };
    let parent_port = |id: &str, output: bool| {
        let i = *cache.view.by_id.get(id)?;
        let card = &cache.view.boxes[i];
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
            let pts = points(&curve_between(ra, a, rb, b), 16);
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

/// What to do on an empty canvas, at a constant size on screen.
/// What an empty canvas says, centred on `c` (screen space).
pub(super) fn paint_empty_hint(painter: &egui::Painter, c: Pos2) {
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
pub(super) fn paint_tile_ghost(painter: &egui::Painter, t: &TileTarget, zoom: f32) {
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
pub(super) fn paint_tile_label(painter: &egui::Painter, t: &TileTarget, to_screen: TSTransform) {
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

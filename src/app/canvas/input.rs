//! The canvas's input: dropped tiles, clicks and drags on cards and ports, the background's
//! pan, box select and context menu, and the hit tests they use.

use super::*;
use egui::{Pos2, Rect, Ui, Vec2};

impl Canvas {
    /// While a tile or a node type is dragged over the canvas: where it would land, and on
    /// which edge.
    pub(super) fn track_tile(&mut self, ui: &Ui, outer: Rect, actions: &mut Vec<Action>) {
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
        let edge = self.cache.view.edge_at(
            pt(p),
            10.0 / self.zoom().max(0.05),
            &self.cache.view.positions(self.drag.as_ref()),
        );
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

    /// The cards that take the pointer this frame. With few cards in view, all of them
    /// (each is a named widget for assistive technology). With many, only those the
    /// pointer can reach: under it, under where a press began, being dragged, or whose
    /// context menu is open; registering thousands of widgets a frame would cost more
    /// than drawing them.
    pub(super) fn interactive_cards(
        &mut self,
        ctx: &egui::Context,
        visible: Rect,
        positions: &[Point],
        live: &[bool],
    ) -> Vec<usize> {
        let in_view: Vec<usize> = (0..self.cache.view.cards.len())
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
        let menu = self.menu_card.as_ref().and_then(|id| self.cache.view.by_id.get(id)).copied();
        in_view
            .into_iter()
            .filter(|&i| {
                let r = self.cache.rect(i, positions[i]).expand(reach);
                live[i] || Some(i) == menu || points.iter().any(|p| r.contains(*p))
            })
            .collect()
    }

    pub(super) fn node_interaction(
        &mut self,
        resp: &egui::Response,
        i: usize,
        Acting { selection, actions, commands, os, .. }: &mut Acting<'_>,
    ) {
        let (id, anchor, instance, child) = {
            let card = &self.cache.view.cards[i];
            (
                card.id.clone(),
                pos(self.cache.view.boxes[i].pos),
                card.instance.map(|f| self.cache.view.frames[f].key.clone()),
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
            let delta = pt(moved.unwrap_or_default().to_pos2());
            self.drag = Some(Drag { ids: selection.nodes.iter().cloned().collect(), delta });
        } else if resp.dragged_by(PointerButton::Primary)
            && let Some(d) = &mut self.drag
        {
            d.delta = d.delta + pt(resp.drag_delta().to_pos2());
        }
        if resp.drag_stopped()
            && let Some(d) = self.drag.take()
        {
            let delta = self.snap_point(anchor + pos(d.delta).to_vec2()) - anchor;
            if delta != Vec2::ZERO {
                let moves = d
                    .ids
                    .iter()
                    .filter_map(|id| {
                        let p = pos(self.cache.view.boxes[*self.cache.view.by_id.get(id)?].pos) + delta;
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
                ..**commands
            };
            command_ui::context_items(ui, Place::SelectionMenu, &cx, *os, actions);
        });
    }

    /// Output ports take drags that become connections; input ports are named for
    /// assistive technology (and tests) and highlight on hover.
    pub(super) fn port_handles(&mut self, ui: &Ui, i: usize, at: Point) {
        let rect = self.cache.rect(i, at);
        let inputs = self.cache.view.inputs(i).len();
        for k in 0..inputs {
            let card = &self.cache.view.cards[i];
            let at = port_pos(rect, k, inputs, false);
            let resp = ui.interact(
                Rect::from_center_size(at, vec2(14.0, 14.0)),
                Id::unique(("cs-in-port", &card.id, k)),
                Sense::hover(),
            );
            let label = format!("Input {} of {}", self.cache.view.inputs(i)[k], card.id);
            resp.widget_info(|| WidgetInfo::labeled(Role::Button, true, &label));
            if resp.hovered() {
                ui.painter().circle_stroke(at, PORT_R + 3.0, Stroke::new(1.5, theme::ACCENT));
            }
        }
        let count = self.cache.view.outputs(i).len();
        for p in 0..count {
            let card = &self.cache.view.cards[i];
            let at = port_pos(rect, p, count, true);
            let id = Id::unique(("cs-port", &card.id, p));
            let resp = ui.interact(Rect::from_center_size(at, vec2(14.0, 14.0)), id, Sense::drag());
            let label = format!("Output {} of {}", self.cache.view.outputs(i)[p], card.id);
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
    pub(super) fn background(
        &mut self,
        ctx: &egui::Context,
        resp: &egui::Response,
        mods: Modifiers,
        selection: &mut Selection,
        actions: &mut Vec<Action>,
    ) {
        let pointer = ctx.pointer_latest_pos();
        let positions = self.cache.view.positions(self.drag.as_ref());
        if resp.clicked()
            && let Some(p) = pointer
        {
            let p = self.screen_to_canvas(p);
            match self.cache.view.edge_at(pt(p), 6.0 / self.zoom().max(0.05), &positions) {
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
            && self.cache.view.edge_at(pt(self.screen_to_canvas(p)), 6.0 / self.zoom().max(0.05), &positions).is_none()
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
            for (i, card) in self.cache.view.cards.iter().enumerate() {
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
            && let Some((n, p)) = self.cache.view.input_port_at(pt(w.end), &positions)
        {
            let view = &self.cache.view;
            let (from, to) = (&view.cards[w.from], &view.cards[n]);
            actions.push(Action::Doc(Command::Connect {
                source: from.id.clone(),
                source_port: view.outputs(w.from)[w.port].clone(),
                target: to.id.clone(),
                target_port: view.inputs(n)[p].clone(),
            }));
        }
    }

    /// Why the wire being dragged cannot connect to the input port under `pointer` (screen
    /// points; where the wire ends without one).
    pub(super) fn wire_refusal(
        &self,
        wf: &Workflow,
        catalog: Option<&Catalog>,
        pointer: Option<Pos2>,
    ) -> Option<Error> {
        let w = self.wire.as_ref()?;
        let end = pointer.map_or(w.end, |p| self.screen_to_canvas(p));
        let to = self.cache.view.input_port_at(pt(end), &self.cache.view.positions(self.drag.as_ref()))?;
        self.cache.view.connection_refusal(wf, catalog, (w.from, w.port), to)
    }
}

/// A refused connection's reason, beside the pointer while the wire is still being dragged.
pub(super) fn show_refusal_at_pointer(ctx: &egui::Context, e: &Error) {
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

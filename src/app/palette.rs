//! The tile palette: every loaded pack with its validity and trust badges, the chain
//! tiles to drag onto the canvas, and the Catalog section's node types (one node each). Search filters by label, chainId and typeId; internal
//! chains stay hidden unless asked for (chain-packs §11.2); invalid packs list their errors.

mod banner;
mod notices;

use super::action::{Action, Subject};
use super::theme;
use super::window::{Scaffold, Window, WindowId};
use crate::catalog::{Catalog, SignatureStatus, TrustReport};
use crate::editor::blockers::{
    self, Fix, TileFilter, blocked_summary, has_errors, missing_type_ids, shown_tiles, uses_of,
};
use crate::editor::commands::CommandId;
use crate::editor::packs::{PackId, Packs};
use crate::error::{Error, Finding, code};
use crate::pack::{Chain, Pack, PackKind};
use crate::workflow::layout::{NODE_H, NODE_W, layered};
use egui::{Id, Rect, RichText, Sense, Stroke, Ui, pos2, vec2};
use notices::{insertable_now, no_tile_matches};
use petgraph::stable_graph::StableDiGraph;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// The drag-and-drop payload of a tile: which chain, and the outline of its nodes for the
/// drop preview.
pub struct TileDrag {
    pub pack: PackId,
    pub chain_id: String,
    pub label: String,
    /// Card rects relative to the drop point.
    pub footprint: Vec<Rect>,
}

#[derive(Default)]
pub struct Palette {
    pub search: String,
    /// Show only tiles that can be inserted.
    pub hide_blocked: bool,
    /// Show only this pack's tiles (by pack name).
    pub pack_filter: Option<String>,
    /// The window of a pack's findings.
    pub findings: Findings,
    /// The window saying why a blocked tile cannot be inserted.
    pub explanation: Explanation,
    /// Sources of packs edited for authoring and not saved since.
    pub unsaved: HashSet<PathBuf>,
    /// Chains loaded at several versions: each version (newest first) and its pack.
    pub versions: std::collections::HashMap<String, Vec<(String, PackId)>>,
    banner: banner::Banner,
}

/// The window of a pack's findings (opened from its error or lint badge).
#[derive(Default)]
pub struct Findings {
    open: Option<PackId>,
}

/// The window saying why a chain cannot be inserted: its pack and chainId.
#[derive(Default)]
pub struct Explanation {
    open: Option<(PackId, String)>,
}

/// Where the explanation window first appears, and what it reads.
type ExplainInput<'a> = (egui::Pos2, &'a Packs, &'a [TrustReport], &'a mut Vec<Action>);

/// What one pack is, for the palette.
pub struct PaletteCtx<'a> {
    /// Files opened at start still being read.
    pub loading: usize,
    pub packs: &'a Packs,
    pub reports: &'a [TrustReport],
    pub catalog: Option<&'a Catalog>,
    pub failures: &'a [Error],
    /// Manifests of the packs the editor started with (the bundled samples).
    pub samples: &'a HashSet<PathBuf>,
    /// Internal chains' tiles are shown (the settings' switch, the filters' checkbox).
    pub show_internal: &'a mut bool,
}

/// What the user asked of the palette this frame, for the `App` to apply (the canvas's
/// `CanvasResponse` shape).
pub struct PaletteResponse {
    pub actions: Vec<Action>,
}

impl Palette {
    /// Open the explanation of why a chain cannot be inserted.
    pub fn explain(&mut self, pack: PackId, chain_id: &str) {
        self.explanation.open = Some((pack, chain_id.to_owned()));
    }

    pub fn close_explanation(&mut self) {
        self.explanation.close();
    }

    /// The chain whose explanation is open, if any.
    pub fn explained(&self) -> Option<(PackId, &str)> {
        self.explanation.open.as_ref().map(|(p, c)| (*p, c.as_str()))
    }

    /// Draw the palette; returns what the user asked of it.
    pub fn show(&mut self, ui: &mut Ui, cx: PaletteCtx<'_>) -> PaletteResponse {
        let PaletteCtx { loading, packs, reports, catalog, failures, samples, show_internal } = cx;
        let mut asked = Vec::new();
        let actions = &mut asked;
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            ui.heading("Tiles");
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let hide = ui.small_button("«");
                hide.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, "Hide the palette"));
                if hide.on_hover_text("Hide the palette (View → Palette panel); the canvas takes its width").clicked()
                {
                    actions.push(Action::Run(CommandId::TogglePalettePanel));
                }
                if ui.small_button("Open…").on_hover_text(CommandId::Open.spec().tooltip).clicked() {
                    actions.push(Action::Run(CommandId::Open));
                }
            });
        });
        ui.horizontal(|ui| {
            let enabled = !self.search.is_empty();
            let clear = ui.add_enabled(enabled, egui::Button::new("🗙").small());
            clear.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, "Clear the search"));
            if clear.on_hover_text("Clear the search").clicked() {
                self.search.clear();
            }
            let search = ui.add(
                egui::TextEdit::singleline(&mut self.search)
                    .hint_text("Search label, chainId, typeId")
                    .desired_width(f32::INFINITY),
            );
            search.widget_info(|| egui::WidgetInfo::labeled(egui::Role::SearchInput, true, "Search tiles"));
        });
        self.filters(ui, packs, show_internal);
        if loading > 0 {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(
                    RichText::new(format!("Opening {}…", crate::words::count(loading, "file", "files")))
                        .color(theme::TEXT_DIM),
                );
            });
        }
        self.banner.show(ui, &blockers::summarise(packs, reports, *show_internal), actions);
        ui.separator();
        let query = self.search.trim().to_lowercase();
        let filter = TileFilter { query: &query, show_internal: *show_internal, hide_blocked: self.hide_blocked };
        // Under a search, packs with no tile left go, and so does a group left empty (its
        // header alone said nothing).
        let order = blockers::listed_packs(packs, reports, self.pack_filter.as_deref(), filter);
        let nothing_matches = order.is_empty() && filter.narrows() && !packs.is_empty();
        let (bundled, opened): (Vec<usize>, Vec<usize>) =
            order.into_iter().partition(|&i| samples.contains(&packs[i].source));
        egui::ScrollArea::both().auto_shrink([false, false]).show(ui, |ui| {
            // Long names are cut with an ellipsis (full text on hover) rather than widening the panel.
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
            for (title, group) in [("Opened packs", &opened), ("Bundled samples", &bundled)] {
                if group.is_empty() {
                    continue;
                }
                if !opened.is_empty() {
                    ui.label(RichText::new(title).small().strong().color(theme::TEXT_DIM));
                }
                for &i in group {
                    let Some(id) = packs.id_at(i) else { continue };
                    self.pack(ui, id, &packs[i], reports.get(i), filter, actions);
                }
                ui.add_space(6.0);
            }
            if nothing_matches {
                no_tile_matches(ui, &self.search, self.hide_blocked);
            }
            catalog_section(ui, catalog, &query);
            if !failures.is_empty() {
                ui.add_space(8.0);
                ui.label(RichText::new(format!("Failed to load ({})", failures.len())).strong().color(theme::ERROR));
                for e in failures {
                    ui.label(RichText::new(e.code).monospace().small().color(theme::ERROR));
                    ui.add(egui::Label::new(RichText::new(&e.message).small()).wrap());
                }
            }
            if packs.is_empty() {
                ui.label(
                    RichText::new("No packs loaded. Open a pack.json or a folder of packs.").color(theme::TEXT_DIM),
                );
            }
        });
        self.findings.show(ui.ctx(), packs);
        // Beside the palette, under the canvas toolbar: neither the tile nor the middle of the
        // canvas, where the next drop goes, is covered.
        let beside = egui::pos2(ui.max_rect().right() + 16.0, ui.max_rect().top() + 40.0);
        self.explanation.show(ui.ctx(), (beside, packs, reports, actions));
        PaletteResponse { actions: asked }
    }

    /// Show internal / hide blocked, the pack filter, and collapse or expand every pack.
    fn filters(&mut self, ui: &mut Ui, packs: &Packs, show_internal: &mut bool) {
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(show_internal, "Show internal chains");
            ui.checkbox(&mut self.hide_blocked, "Hide blocked");
        });
        ui.horizontal(|ui| {
            let mut names: Vec<&str> = packs.iter().filter(|p| p.kind != PackKind::Node).map(Pack::name).collect();
            names.sort_unstable();
            names.dedup();
            if self.pack_filter.as_deref().is_some_and(|f| !names.contains(&f)) {
                self.pack_filter = None;
            }
            let shown = self.pack_filter.clone().unwrap_or_else(|| "All packs".to_owned());
            egui::ComboBox::from_id_salt("cs-pack-filter")
                .selected_text(shown)
                .width((ui.available_width() - 120.0).max(80.0))
                .truncate()
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.pack_filter, None, "All packs");
                    for n in names {
                        ui.selectable_value(&mut self.pack_filter, Some(n.to_owned()), n);
                    }
                })
                .response
                .on_hover_text("Show one pack's tiles");
            let mut set_all = None;
            for (glyph, what, open) in [("⏶", "Collapse all packs", false), ("⏷", "Expand all packs", true)] {
                let button = ui.small_button(glyph);
                button.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, what));
                if button.on_hover_text(what).clicked() {
                    set_all = Some(open);
                }
            }
            if let Some(open) = set_all {
                for (pack, _) in packs.with_ids() {
                    let id = Id::unique(("cs-pack", pack));
                    let mut state =
                        egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, true);
                    state.set_open(open);
                    state.store(ui.ctx());
                }
            }
        });
    }

    fn pack(
        &mut self,
        ui: &mut Ui,
        index: PackId,
        pack: &Pack,
        report: Option<&TrustReport>,
        filter: TileFilter,
        actions: &mut Vec<Action>,
    ) {
        // What inserting it will be warned for: its own edges' port types and what the insert's
        // checks find with its defaults (editor::predict); pack-wide warnings concern no tile.
        let warned = |chain: &Chain| -> Vec<&Finding> {
            let own = |f: &&Finding| f.chain_id.as_deref() == Some(chain.chain_id());
            report.map(|r| r.warnings().filter(own).collect()).unwrap_or_default()
        };
        let tiles = shown_tiles(pack, report, filter);
        if filter.narrows() && tiles.is_empty() {
            return;
        }
        let id = Id::unique(("cs-pack", index));
        let name = if pack.name().is_empty() { pack.source.display().to_string() } else { pack.name().to_owned() };
        egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, true)
            .show_header(ui, |ui| {
                // The validity badge first, so the name can take what is left and be cut to it.
                let errors = pack.errors().count();
                if errors == 0 {
                    badge(ui, "valid", theme::OK).on_hover_text("Schema and semantic checks pass");
                } else if badge(ui, &crate::words::count(errors, "error", "errors"), theme::ERROR)
                    .on_hover_text("Click for details")
                    .clicked()
                {
                    self.findings.open = Some(index);
                }
                let hover = format!("{name} {}\n{}", pack.version(), pack.source.display());
                // Cut in the middle: packs named alike differ at their ends.
                let font = egui::TextStyle::Body.resolve(ui.style());
                let shown = middle_ellipsis(ui, &name, &font, ui.available_width() - 4.0);
                ui.add(egui::Label::new(RichText::new(shown).strong())).on_hover_text(hover);
            })
            .body(|ui| {
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new(pack.version()).small().color(theme::TEXT_DIM));
                    if self.unsaved.contains(&pack.source) {
                        badge(ui, "unsaved", theme::WARN).on_hover_text("Edited in the pack view and not saved yet");
                    }
                    let warnings = pack.warnings().count();
                    if warnings > 0
                        && badge(ui, &crate::words::count(warnings, "lint", "lints"), theme::WARN)
                            .on_hover_text("Click for details")
                            .clicked()
                    {
                        self.findings.open = Some(index);
                    }
                    if let Some(r) = report {
                        trust_badge(ui, r);
                    }
                    let blocked = tiles.iter().filter(|(_, b)| !b.is_empty()).count();
                    if blocked > 0 {
                        badge(ui, &format!("{blocked} of {} blocked", tiles.len()), theme::ERROR)
                            .on_hover_text("Hover a blocked tile to see why, click it for a way forward");
                    }
                });
                if pack.kind != PackKind::WorkflowChain {
                    let kind = pack.kind.as_str();
                    ui.label(RichText::new(format!("A {kind} pack: nothing to insert")).small().color(theme::TEXT_DIM));
                    return;
                }
                if tiles.is_empty() {
                    ui.label(RichText::new("No tiles match.").small().color(theme::TEXT_DIM));
                }
                for (chain, blocked) in &tiles {
                    if tile(ui, index, pack, chain, blocked, &warned(chain), actions) {
                        self.explain(index, chain.chain_id());
                    }
                    if let Some(versions) = self.versions.get(chain.chain_id()) {
                        super::upgrade::versions_row(ui, versions, index, chain.chain_id(), actions);
                    }
                }
            });
    }
}

impl Window for Findings {
    type Input<'a> = &'a Packs;
    type Response = ();
    const ID: WindowId = WindowId::PackFindings;
    const SIZE: Option<egui::Vec2> = Some(egui::vec2(560.0, 360.0));

    fn close(&mut self) -> bool {
        self.open.take().is_some()
    }

    fn show(&mut self, ctx: &egui::Context, packs: &Packs) {
        let Some(i) = self.open else { return };
        let Some(pack) = packs.get(i) else {
            self.open = None;
            return;
        };
        let mut open = true;
        Scaffold::of::<Self>(format!("Findings — {}", pack.name()), &mut open).collapsible().show(ctx, |ui| {
            ui.label(RichText::new(pack.source.display().to_string()).monospace().small());
            egui::ScrollArea::vertical().show(ui, |ui| {
                for f in &pack.findings {
                    let color = if f.is_error() { theme::ERROR } else { theme::WARN };
                    ui.horizontal_wrapped(|ui| {
                        ui.label(RichText::new(f.code).monospace().color(color));
                        if !f.pointer.is_empty() {
                            ui.label(RichText::new(&f.pointer).monospace().small().color(theme::TEXT_DIM));
                        }
                    });
                    ui.label(&f.message);
                    ui.separator();
                }
            });
        });
        if !open {
            self.open = None;
        }
    }
}

/// Why a chain cannot be inserted: every blocking finding; for missing node types, each
/// typeId with the nodes and pointers that use it, and a way forward (declare it as
/// provided by the host, or open the node pack that provides it).
impl Window for Explanation {
    type Input<'a> = ExplainInput<'a>;
    type Response = ();
    const ID: WindowId = WindowId::Explanation;
    const SIZE: Option<egui::Vec2> = Some(egui::vec2(620.0, 380.0));

    fn close(&mut self) -> bool {
        self.open.take().is_some()
    }

    fn show(&mut self, ctx: &egui::Context, (at, packs, reports, actions): ExplainInput<'_>) {
        let Some((i, chain_id)) = &self.open else { return };
        let Some((pack, chain)) = packs.get(*i).and_then(|p| Some((p, p.chain(chain_id)?))) else {
            self.open = None;
            return;
        };
        let concerns = |f: &&Finding| f.chain_id.as_deref().is_none_or(|c| c == chain.chain_id());
        let blocked: Vec<&Finding> = packs
            .index_of(*i)
            .and_then(|at| reports.get(at))
            .map(|r| r.blocking().filter(concerns).collect())
            .unwrap_or_default();
        let mut open = true;
        // Once a fix has lifted every refusal the window says so, in its title too, and
        // offers the insert itself.
        let title = if blocked.is_empty() {
            format!("“{}” can be inserted now", chain.label())
        } else {
            format!("Why “{}” cannot be inserted", chain.label())
        };
        let pack_id = *i;
        Scaffold::of::<Self>(title, &mut open)
            .at(at)
            .show(ctx, |ui| {
                ui.label(RichText::new(format!("{} · {} {}", chain.chain_id(), pack.name(), pack.version())).monospace().small());
                if blocked.is_empty() {
                    insertable_now(ui, pack_id, chain.chain_id(), actions);
                    return;
                }
                egui::ScrollArea::vertical().max_height(300.0).show(ui, |ui| {
                    let missing = missing_type_ids(&blocked);
                    if !missing.is_empty() {
                        ui.label(RichText::new(format!("{} — node types no loaded node pack provides", code::CHAIN_UNRESOLVABLE_TYPEID)).color(theme::ERROR));
                        egui::Grid::new("cs-missing-types").num_columns(2).striped(true).spacing([12.0, 4.0]).show(ui, |ui| {
                            ui.label(RichText::new("typeId").strong());
                            ui.label(RichText::new("used by").strong());
                            ui.end_row();
                            for t in &missing {
                                ui.label(RichText::new(*t).monospace());
                                ui.vertical(|ui| {
                                    for node in uses_of(chain, t) {
                                        ui.horizontal(|ui| {
                                            ui.label(node.label());
                                            ui.label(RichText::new(node.pointer).monospace().small().color(theme::TEXT_DIM));
                                        });
                                    }
                                });
                                ui.end_row();
                            }
                        });
                        ui.add_space(6.0);
                        ui.label(RichText::new("A way forward").strong());
                        ui.add(egui::Label::new(RichText::new("If the host that will run the workflow implements these node types itself, declare them in the host profile; they then resolve like catalogued types. Otherwise open the node pack that publishes them.").small()).wrap());
                        ui.horizontal_wrapped(|ui| {
                            let families = blockers::fixes_of(blocked.iter().copied().filter(|f| f.code == code::CHAIN_UNRESOLVABLE_TYPEID));
                            for fix in families {
                                if ui.button(fix.label()).clicked() {
                                    actions.push(Action::Fix(fix));
                                }
                            }
                            if ui.button("Declare these exact types").clicked() {
                                let exact = missing.iter().map(|t| (*t).to_owned()).collect();
                                actions.push(Action::Fix(Fix::DeclareHostTypes(exact)));
                            }
                            if ui.button("Open Settings…").clicked() {
                                actions.push(Action::Run(CommandId::Settings));
                            }
                        });
                        ui.separator();
                    }
                    for f in blocked.iter().filter(|f| f.code != code::CHAIN_UNRESOLVABLE_TYPEID) {
                        ui.label(RichText::new(f.code).monospace().color(theme::ERROR));
                        ui.add(egui::Label::new(&f.message).wrap());
                        match blockers::fix_for(f) {
                            Some(fix) => {
                                if ui.button(fix.label()).on_hover_text("Changes the host profile in Settings").clicked() {
                                    actions.push(Action::Fix(fix));
                                }
                            }
                            None => {
                                ui.label(RichText::new("No setting lifts this: the pack itself must change.").small().color(theme::TEXT_DIM));
                            }
                        }
                        ui.separator();
                    }
                });
            });
        if !open {
            self.open = None;
        }
    }
}

/// `text` cut in the middle to fit `width` ("community.exa…tiles-a"), whole when it fits.
fn middle_ellipsis(ui: &Ui, text: &str, font: &egui::FontId, width: f32) -> String {
    let chars: Vec<char> = text.chars().collect();
    let cut = |keep: usize| -> String {
        let tail = keep / 2;
        let head: String = chars[..keep - tail].iter().collect();
        let tail: String = chars[chars.len() - tail..].iter().collect();
        format!("{head}…{tail}")
    };
    let fits = |s: &str| {
        ui.ctx().fonts_mut(|f| f.layout_no_wrap(s.to_owned(), font.clone(), egui::Color32::WHITE).size().x) <= width
    };
    if fits(text) {
        return text.to_owned();
    }
    // The most characters kept that still fit (at least one at each end).
    let (mut lo, mut hi) = (2.min(chars.len()), chars.len().saturating_sub(1));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(&cut(mid)) { lo = mid } else { hi = mid - 1 }
    }
    cut(lo)
}

pub(super) fn badge(ui: &mut Ui, text: &str, color: egui::Color32) -> egui::Response {
    let text = egui::WidgetText::from(RichText::new(text).small().color(color));
    let galley = text.clone().into_galley(ui, Some(egui::TextWrapMode::Extend), f32::INFINITY, egui::TextStyle::Small);
    // A badge never breaks inside; in a wrapping row that has no room left it starts the next
    // row. (In a wrapping layout `available_width` is a whole row's, not what is left of this one.)
    let row_started = ui.cursor().min.x > ui.max_rect().min.x + 0.5;
    if ui.layout().main_wrap && row_started && galley.size().x + 12.0 > ui.available_size_before_wrap().x {
        ui.end_row();
    }
    // Wider than a whole row: cut with an ellipsis (the full text on hover) rather than widen the panel.
    let room = ui.available_size_before_wrap().x - 12.0;
    let galley = if galley.size().x > room {
        text.into_galley(ui, Some(egui::TextWrapMode::Truncate), room.max(24.0), egui::TextStyle::Small)
    } else {
        galley
    };
    let label = egui::Label::new(galley).sense(Sense::click());
    let frame = egui::Frame::new()
        .stroke(Stroke::new(1.0, color.gamma_multiply(0.6)))
        .corner_radius(8.0)
        .inner_margin(vec2(5.0, 0.0));
    frame.show(ui, |ui| ui.add(label)).inner
}

/// What the untrusted badge says on hover: what it means and how to trust the key.
const UNTRUSTED_HOVER: &str = "Signature verifies, but its key is not trusted. To trust it: put the publisher's \
    public key (a .pem file) in a folder and choose that folder in Settings › Trusted keys folder.";

/// The signature badge: what the trust layer found, red when the policy refuses the pack for it.
fn trust_badge(ui: &mut Ui, r: &TrustReport) {
    let (glyph, color, hover) = match &r.signature {
        SignatureStatus::Trusted { key } => ("✔ ", theme::OK, format!("Signature verified with {}", key.display())),
        SignatureStatus::Untrusted => ("⚠ ", theme::WARN, UNTRUSTED_HOVER.to_owned()),
        SignatureStatus::Invalid { reason } => ("✖ ", theme::ERROR, format!("Signature invalid: {reason}")),
        SignatureStatus::Unverifiable { reason } => ("⚠ ", theme::WARN, format!("Signature not checkable: {reason}")),
        SignatureStatus::Unsigned => {
            ("", theme::TEXT_DIM, "No signature: trust it only if you know its source".to_owned())
        }
    };
    let signature_codes = [code::PACK_UNSIGNED, code::PACK_SIGNATURE_UNTRUSTED, code::PACK_SIGNATURE_UNVERIFIABLE];
    let refused = r.blocking().find(|f| signature_codes.contains(&f.code));
    let color = if refused.is_some() { theme::ERROR } else { color };
    let hover = refused.map_or(hover, |f| format!("Refused: {}", f.message));
    badge(ui, &format!("{glyph}{}", r.signature.as_str()), color).on_hover_text(hover);
}

/// The drag-and-drop payload of a catalogued node type: dropped on the canvas, it inserts
/// one node of that type.
pub struct NodeTypeDrag {
    pub type_id: String,
    pub label: String,
}

/// The node types the catalog knows, each draggable onto the canvas to insert one node;
/// the search filters them by typeId, label and category (and opens the section).
fn catalog_section(ui: &mut Ui, catalog: Option<&Catalog>, query: &str) {
    let Some(catalog) = catalog else {
        ui.label(RichText::new("No node packs loaded: typeIds are not checked.").small().color(theme::WARN));
        return;
    };
    let types: Vec<_> = catalog
        .node_types()
        .filter(|t| {
            query.is_empty() || [t.type_id(), t.label(), t.category()].iter().any(|s| s.to_lowercase().contains(query))
        })
        .collect();
    if !query.is_empty() && types.is_empty() {
        return;
    }
    // Short enough for the narrowest palette: a wider header would widen every tile under it.
    let title = format!("Catalog · {} node types", catalog.len());
    let from =
        format!("Node types of {} loaded", crate::words::count(catalog.packs().len(), "node pack", "node packs"));
    egui::CollapsingHeader::new(RichText::new(title).strong())
        .id_salt("cs-catalog")
        .default_open(false)
        .open((!query.is_empty()).then_some(true))
        .show(ui, |ui| {
            ui.label(
                RichText::new("Drag a node type onto the canvas to insert one node.").small().color(theme::TEXT_DIM),
            );
            // A registry's catalog holds hundreds of types: tiles out of view only take their
            // room (every tile is as tall as the first one drawn).
            let clip = ui.clip_rect();
            let mut pitch: Option<f32> = None;
            for t in types {
                let top = ui.cursor().top();
                if let Some(h) = pitch
                    && (top > clip.bottom() || top + h < clip.top())
                {
                    ui.add_space(h);
                    continue;
                }
                node_type_tile(ui, catalog, t);
                pitch.get_or_insert(ui.cursor().top() - top);
            }
        })
        .header_response
        .on_hover_text(from);
}

/// One node type: its label, typeId and port counts; the whole tile is the drag handle.
fn node_type_tile(ui: &mut Ui, catalog: &Catalog, t: &crate::catalog::NodeType) {
    let id = Id::unique(("cs-node-type", t.type_id()));
    let ports = catalog.ports(t.type_id());
    let dragging = ui.ctx().is_being_dragged(id);
    let stroke = if dragging { Stroke::new(1.5, theme::GHOST) } else { Stroke::new(1.0, theme::CARD_BORDER) };
    let frame =
        egui::Frame::new().fill(theme::CARD_BG).stroke(stroke).corner_radius(6.0).inner_margin(6.0).show(ui, |ui| {
            ui.set_width(ui.available_width());
            // A press on the text starts dragging the tile, not selecting the text.
            ui.style_mut().interaction.selectable_labels = false;
            ui.horizontal(|ui| {
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if let Some(p) = ports {
                        let text = format!("{} in · {} out", p.inputs.len(), p.outputs.len());
                        ui.label(RichText::new(text).small().color(theme::TEXT_DIM));
                    }
                    ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                        ui.add(egui::Label::new(RichText::new(t.label()).strong().color(theme::TEXT)).truncate());
                    });
                });
            });
            ui.add(egui::Label::new(RichText::new(t.type_id()).monospace().small().color(theme::TEXT_DIM)).truncate());
        });
    let response = ui.interact(frame.response.rect, id, Sense::drag()).on_hover_cursor(egui::CursorIcon::Grab);
    let name = format!("Node type {}", t.label());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &name));
    if response.drag_started() {
        let payload = NodeTypeDrag { type_id: t.type_id().to_owned(), label: t.label().to_owned() };
        egui::DragAndDrop::set_payload(ui.ctx(), payload);
    }
    if response.dragged()
        && let Some(p) = ui.ctx().pointer_latest_pos()
    {
        drag_chip(ui.ctx(), id, p, t.label());
    }
    let list = |names: Option<&Vec<String>>| names.map(|n| n.join(", ")).filter(|s| !s.is_empty());
    let hover = format!(
        "{}\n{} · {} {}\nrole: {}\ninputs: {}\noutputs: {}",
        if t.description().is_empty() { t.type_id() } else { t.description() },
        t.category(),
        t.pack_name(),
        t.pack_version(),
        t.role(),
        list(ports.map(|p| &p.inputs)).unwrap_or_else(|| "any".into()),
        list(ports.map(|p| &p.outputs)).unwrap_or_else(|| "any".into()),
    );
    response.on_hover_text(hover);
    ui.add_space(2.0);
}

/// The small chip that follows the pointer while a tile is dragged, so the drop preview on
/// the canvas is not covered.
fn drag_chip(ctx: &egui::Context, id: Id, p: egui::Pos2, label: &str) {
    let layer = egui::LayerId::new(egui::Order::Tooltip, id.with("chip"));
    let painter = ctx.layer_painter(layer);
    let galley = painter.layout_no_wrap(label.to_owned(), egui::FontId::proportional(13.0), theme::TEXT);
    let rect = Rect::from_min_size(p + vec2(14.0, 14.0), galley.size() + vec2(14.0, 8.0));
    painter.rect_filled(rect, 10.0, theme::CARD_BG);
    painter.rect_stroke(rect, 10.0, Stroke::new(1.0, theme::GHOST), egui::StrokeKind::Inside);
    painter.galley(rect.min + vec2(7.0, 4.0), galley, theme::TEXT);
}

/// One chain tile, draggable onto the canvas, with a context menu. `blocked` is what the trust
/// policy refuses. Returns whether the user asked why it is blocked.
fn tile(
    ui: &mut Ui,
    pack_index: PackId,
    pack: &Pack,
    chain: &Chain,
    blocked: &[&Finding],
    warned: &[&Finding],
    actions: &mut Vec<Action>,
) -> bool {
    let id = Id::unique(("cs-tile", pack_index, chain.chain_id()));
    let invalid = has_errors(pack, chain) || !blocked.is_empty();
    let dragging = ui.ctx().is_being_dragged(id);
    let marked: Vec<&Finding> = blocked.iter().chain(warned).copied().collect();
    let (frame, mut explain) = tile_card(ui, chain, &marked, invalid, dragging);
    // The whole tile is the drag handle; it stays in place while a small chip follows the
    // pointer, so the drop preview on the canvas is not covered.
    // It senses clicks too: on top of its badges, a drag-only tile would swallow a click on
    // the red code (egui gives a click to nothing under a drag-only widget).
    let response = ui.interact(frame.rect, id, Sense::click_and_drag()).on_hover_cursor(egui::CursorIcon::Grab);
    explain |= response.clicked() && !blocked.is_empty();
    if response.drag_started() {
        let payload = TileDrag {
            pack: pack_index,
            chain_id: chain.chain_id().to_owned(),
            label: chain.label().to_owned(),
            footprint: footprint(chain),
        };
        egui::DragAndDrop::set_payload(ui.ctx(), payload);
    }
    if response.dragged()
        && let Some(p) = ui.ctx().pointer_latest_pos()
    {
        drag_chip(ui.ctx(), id, p, chain.label());
    }
    // A container menu: the tile senses drags only, so it never sees a secondary click itself.
    response.container_context_menu(|ui| {
        if !blocked.is_empty() && ui.button("Why is this blocked?").clicked() {
            explain = true;
        }
        if ui.button("Publish as tool…").clicked() {
            actions.push(Action::Publish(Subject::Chain { pack: pack_index, chain_id: chain.chain_id().to_owned() }));
        }
    });
    let mut hover = String::new();
    if !blocked.is_empty() {
        hover.push_str(&blocked_summary(chain, blocked));
    }
    for f in warned {
        if !hover.is_empty() {
            hover.push('\n');
        }
        hover.push_str(&format!("Inserting it will be warned: {} — {}", f.code, f.message));
        // Where in the config, for a finding the expansion made (its own words name no field).
        if let Some((_, field)) = f.pointer.split_once("/config/") {
            hover.push_str(&format!(" (config field {field})"));
        }
    }
    if !warned.is_empty() && blocked.is_empty() {
        hover
            .push_str("\nIt still inserts: fix what is warned in the inspector afterwards, or tell the pack's author.");
    }
    if !chain.description().is_empty() {
        if !hover.is_empty() {
            hover.push_str("\n\n");
        }
        hover.push_str(chain.description());
    }
    if !hover.is_empty() {
        response.on_hover_text(hover);
    }
    ui.add_space(2.0);
    explain
}

/// A tile's card: label, node count, chainId and badges. Also the extract dialog's preview
/// of a tile to be. Returns the card and whether a refusal badge was clicked.
pub(super) fn tile_card(
    ui: &mut Ui,
    chain: &Chain,
    blocked: &[&Finding],
    invalid: bool,
    dragging: bool,
) -> (egui::Response, bool) {
    let mut explain = false;
    let fill = if invalid { egui::Color32::from_rgb(58, 40, 44) } else { theme::CARD_BG };
    let stroke = if dragging { Stroke::new(1.5, theme::GHOST) } else { Stroke::new(1.0, theme::CARD_BORDER) };
    let frame = egui::Frame::new().fill(fill).stroke(stroke).corner_radius(6.0).inner_margin(8.0).show(ui, |ui| {
        ui.set_width(ui.available_width());
        // The node count first, at the right; the label gets what is left and is cut to it.
        ui.horizontal(|ui| {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let n = chain.nodes().len();
                ui.label(RichText::new(crate::words::count(n, "node", "nodes")).small().color(theme::TEXT_DIM));
                ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                    ui.add(egui::Label::new(RichText::new(chain.label()).strong().color(theme::TEXT)).truncate());
                });
            });
        });
        ui.add(egui::Label::new(RichText::new(chain.chain_id()).monospace().small().color(theme::TEXT_DIM)).truncate());
        let badges = !chain.capabilities().is_empty()
            || chain.compensation().is_some()
            || chain.internal()
            || !blocked.is_empty()
            || invalid;
        // No empty badge row: a tile without badges ends under its chainId.
        if badges {
            ui.horizontal_wrapped(|ui| {
                for cap in chain.capabilities() {
                    let color = match cap {
                        "side-effectful" => theme::WARN,
                        "cacheable" => theme::OK,
                        _ => theme::ACCENT,
                    };
                    badge(ui, cap, color);
                }
                if chain.compensation().is_some() {
                    badge(ui, "compensation", theme::ACCENT);
                }
                if chain.internal() {
                    badge(ui, "internal", theme::TEXT_DIM);
                }
                // One badge per refusal code, so each setting that blocks the chain is visible;
                // a click opens the full explanation.
                let mut shown: Vec<&str> = Vec::new();
                for f in blocked {
                    if shown.contains(&f.code) {
                        continue;
                    }
                    shown.push(f.code);
                    let same: Vec<&str> =
                        blocked.iter().filter(|g| g.code == f.code).map(|g| g.message.as_str()).collect();
                    let (color, hover) = if f.is_error() {
                        (theme::ERROR, format!("{}\nClick for details and a way forward", same.join("\n")))
                    } else {
                        (theme::WARN, format!("Inserting it will be warned:\n{}", same.join("\n")))
                    };
                    explain |= badge(ui, f.code, color).on_hover_text(hover).clicked();
                }
                if blocked.is_empty() && invalid {
                    badge(ui, "invalid", theme::ERROR);
                }
            });
        }
    });
    (frame.response, explain)
}

/// The chain's cards laid out as the splice will lay them out when fragment positions are
/// missing, relative to the drop point.
fn footprint(chain: &Chain) -> Vec<Rect> {
    let nodes = chain.nodes();
    let given: Option<Vec<(f64, f64)>> = nodes
        .iter()
        .map(|n| {
            let p = n.get("position")?;
            Some((p.get("x")?.as_f64().unwrap_or(0.0), p.get("y")?.as_f64().unwrap_or(0.0)))
        })
        .collect();
    let positions = given.unwrap_or_else(|| {
        let mut g = StableDiGraph::<usize, ()>::new();
        let mut ix = HashMap::new();
        for (i, n) in nodes.iter().enumerate() {
            ix.insert(n.get("id").and_then(Value::as_str).unwrap_or_default(), g.add_node(i));
        }
        for e in chain.edges() {
            let end = |k: &str| {
                let s = e.get(k).and_then(Value::as_str).unwrap_or_default();
                ix.get(s.split('.').next().unwrap_or_default()).copied()
            };
            if let (Some(a), Some(b)) = (end("from"), end("to")) {
                g.add_edge(a, b, ());
            }
        }
        layered(&g, |w| *w)
    });
    positions
        .into_iter()
        .take(nodes.len())
        .map(|(x, y)| Rect::from_min_size(pos2(x as f32, y as f32), vec2(NODE_W as f32, NODE_H as f32)))
        .collect()
}

//! The desktop editor (egui lives only under this module).
//!
//! Layout: menu bar on top, the tile palette on the left, the canvas in the centre, the
//! inspector on the right and the status/problems bar at the bottom; the parameter form
//! opens as a window at the drop point. UI code never changes the model mid-frame: it
//! pushes [`Action`]s, which are drained once per frame after everything is drawn, and
//! every model change goes through the document's undoable commands.

mod app_reparam;
mod authoring;
mod canvas;
mod child_view;
mod command_ui;
mod compare;
mod conflicts;
mod dialogs;
mod finder;
mod form;
mod inspector;
mod mesh_cache;
mod native_files;
mod pack_view;
mod palette;
mod pixmap;
mod preview_pane;
mod problems;
mod publish;
mod registry;
mod settings;
mod theme;
mod trust_settings;

pub use native_files::{FileDialogs, NativeDialogs};

use crate::catalog::{Catalog, Trust, TrustReport};
use crate::editor::arrange::Arrangement;
use crate::editor::blockers::{self, Fix};
use crate::editor::cards::PortTable;
use crate::editor::clipboard::{clipboard_json, parse_clipboard};
use crate::editor::commands::{self, CommandId, Menu, Os};
use crate::editor::document::{Command, Document, NodeLink, edge_by_seq};
use crate::editor::files;
use crate::editor::finder::{Entry, Target};
use crate::editor::node_type;
use crate::editor::packs::{PackId, Packs};
use crate::editor::preview::{self, DropEdge};
use crate::editor::recovery::{self, Recovered, Recovery};
use crate::error::{Error, code};
use crate::pack::{LoadOutcome, Pack, bundled};
use crate::workflow::{After, ExportMode, Workflow};
use canvas::{Canvas, CanvasCtx};
use dialogs::Purpose;
use egui::{Pos2, Rect, RichText, Ui};
use form::{FormEvent, FormMode, FormSession};
use inspector::Inspector;
use palette::Palette;
use problems::{ErrorAbout, ProblemPick, Problems};
use settings::Settings;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Something the UI asked for this frame; applied after drawing.
pub(crate) enum Action {
    /// A command of the registry ([`crate::editor::commands`]): menus, shortcuts, context
    /// menus, toolbar buttons and the command palette all come here.
    Run(CommandId),
    Doc(Command),
    /// Open a chain's parameter form to insert it at `at`, into the edge `on_edge` (by
    /// `seq`), or downstream of the node `after`.
    OpenInsertForm {
        pack: PackId,
        chain_id: String,
        at: (f64, f64),
        on_edge: Option<u64>,
        after: Option<String>,
    },
    /// Re-parameterise this chain instance (a frame's double-click).
    EditInstance(String),
    /// Insert one node of a catalogued type, on an edge (by `seq`) when dropped on one.
    InsertNodeType {
        type_id: String,
        at: (f64, f64),
        on_edge: Option<u64>,
    },
    SelectGhost(usize),
    /// Paste this clipboard text (the desktop's paste event carries it).
    Paste(String),
    OpenPaths(Vec<PathBuf>),
    Publish(publish::Subject),
    /// Change the host profile or trust policy so that a refusal goes (a blocked tile's fix).
    Fix(Fix),
    /// Promote a node's value (pointer inside the node) to a parameter.
    MakeParameter {
        node: String,
        pointer: String,
    },
    /// Ask a file dialog question for a window that cannot ask itself.
    AskFile(Purpose),
}

/// Work waiting for an answer about unsaved changes.
enum Pending {
    New,
    Replace(Box<Workflow>, PathBuf),
    Quit,
}

/// How the editor starts.
pub struct StartOptions {
    /// Packs, pack folders and workflow files to open.
    pub files: Vec<PathBuf>,
    pub dialogs: Box<dyn FileDialogs>,
    /// Where unsaved work is autosaved; `None` turns recovery off.
    pub recovery_file: Option<PathBuf>,
    /// The packs loaded before `files` (the bundled ones for a normal start).
    pub packs: LoadOutcome,
}

impl StartOptions {
    /// A normal start: bundled packs, native dialogs, recovery in eframe's data folder.
    pub fn standard(files: Vec<PathBuf>) -> Self {
        // Absolute from the start: the paths are remembered (recent files, recovery) and
        // must still name the same files when the editor next starts elsewhere.
        let files = files.into_iter().map(|f| std::path::absolute(&f).unwrap_or(f)).collect();
        Self {
            files,
            dialogs: Box::new(NativeDialogs),
            recovery_file: eframe::storage_dir(APP_ID).map(|d| d.join("recovery.json")),
            packs: bundled(),
        }
    }
}

const APP_ID: &str = "chainsmith";

pub struct App {
    packs: Packs,
    /// Manifests of the packs the editor started with (the palette groups them apart).
    samples: std::collections::HashSet<PathBuf>,
    failures: Vec<Error>,
    /// The node-pack catalog of the loaded node packs, with the host profile and trust policy
    /// from the Settings window: what `chainsmith inline` uses with `--catalog` pointing at the
    /// same node packs and the same `--host` and trust flags.
    trust: Trust,
    /// Per pack: signature status and what blocks or warns (palette badges).
    reports: Vec<TrustReport>,
    catalog_gen: u64,
    /// The catalog again, shared with the lint worker (copied when the catalog changes).
    lint_catalog: Option<std::sync::Arc<Catalog>>,
    doc: Document,
    canvas: Canvas,
    palette: Palette,
    inspector: Inspector,
    problems: Problems,
    form: Option<FormSession>,
    publish: Option<publish::Publish>,
    dialogs: dialogs::Dialogs,
    /// What waits for a save to finish (the unsaved-changes question was answered "Save").
    after_save: Option<Pending>,
    recovery: Recovery,
    offer: Option<Recovered>,
    settings: Settings,
    trust_window: trust_settings::TrustWindow,
    registry: registry::RegistryWindow,
    app_reparam: app_reparam::AppReparamWindow,
    compare: compare::CompareWindow,
    /// Packs open for authoring, the extract dialog and the pack view.
    authoring: authoring::Authoring,
    child_window: child_view::ChildWindow,
    actions: Vec<Action>,
    /// Help → Keyboard shortcuts is open.
    shortcut_help: bool,
    /// The command palette or quick-add, when open.
    finder: Option<finder::Finder>,
    /// The pointer is over the pack view, whose edits undo and redo on their own (as of the
    /// start of this frame).
    pack_view_here: bool,
    pending: Option<Pending>,
    allow_close: bool,
    quitting: bool,
    themed: bool,
    title: String,
    first_frame: Option<Instant>,
    /// When tracing the start: the frame number of the first drawn frame, until a later
    /// frame has begun (it was then on screen).
    first_frame_nr: Option<u64>,
    /// Files opened at start, being read on a thread.
    loading: Option<Loading>,
    /// What to say once they are open (remembered packs not found).
    start_notice: Option<String>,
}

/// The start's files as a thread reads them, in order.
struct Loading {
    left: usize,
    receive: std::sync::mpsc::Receiver<(PathBuf, Result<files::Opened, Error>)>,
}

impl App {
    pub fn new(opts: StartOptions, storage: Option<&dyn eframe::Storage>) -> Self {
        let settings = Settings::load(storage);
        let view = settings.view.map(|[a, b, c, d]| Rect::from_min_max(egui::pos2(a, b), egui::pos2(c, d)));
        let recovery = Recovery::new(opts.recovery_file);
        let mut problems = Problems::default();
        let offer = match recovery.pending() {
            Some(Ok(r)) => Some(r),
            Some(Err(e)) => {
                problems.error(e);
                None
            }
            None => None,
        };
        let mut palette = Palette::default();
        palette.show_internal = settings.show_internal;
        let samples = opts.packs.packs.iter().map(|p| p.source.clone()).collect();
        let mut app = Self {
            samples,
            packs: Packs::new(opts.packs.packs),
            failures: opts.packs.failures,
            trust: Trust::default(),
            reports: Vec::new(),
            catalog_gen: 0,
            lint_catalog: None,
            doc: Document::new(Workflow::new("Untitled workflow"), None),
            canvas: Canvas::new(view, settings.snap, settings.minimap),
            palette,
            inspector: Inspector::default(),
            problems,
            form: None,
            publish: None,
            dialogs: dialogs::Dialogs::new(opts.dialogs),
            after_save: None,
            recovery,
            offer,
            settings,
            trust_window: Default::default(),
            registry: Default::default(),
            app_reparam: Default::default(),
            compare: Default::default(),
            authoring: Default::default(),
            child_window: Default::default(),
            actions: Vec::new(),
            shortcut_help: false,
            finder: None,
            pack_view_here: false,
            pending: None,
            allow_close: false,
            quitting: false,
            themed: false,
            title: String::new(),
            first_frame: None,
            first_frame_nr: None,
            loading: None,
            start_notice: None,
        };
        app.apply_trust_settings(true);
        if !opts.files.is_empty() {
            app.open_paths(&opts.files);
        }
        app
    }

    /// Rebuild the catalog from the loaded node packs and re-check every pack against it.
    fn refresh_trust(&mut self) {
        let mut catalog = Catalog::new();
        for p in self.packs.iter() {
            catalog.add_pack(p);
        }
        // The host's own node types (Settings); a file that went away is reported there.
        if let Some(file) = &self.settings.trust.node_catalog {
            let _ = catalog.add_node_catalog(file);
        }
        self.trust.catalog = (!catalog.is_empty()).then_some(catalog);
        self.reports = trust_settings::pack_reports(&self.trust, &self.packs);
        self.lint_catalog = self.trust.catalog.clone().map(std::sync::Arc::new);
        self.catalog_gen += 1;
    }

    /// The workflow being edited.
    pub fn workflow(&self) -> &Workflow {
        self.doc.workflow()
    }

    pub fn document_path(&self) -> Option<&Path> {
        self.doc.path.as_deref()
    }

    pub fn is_dirty(&self) -> bool {
        self.doc.is_dirty()
    }

    pub fn packs(&self) -> &[Pack] {
        &self.packs
    }

    /// Ids of the selected nodes, sorted.
    pub fn selected_nodes(&self) -> Vec<String> {
        self.doc.selection.nodes.iter().cloned().collect()
    }

    pub fn last_error(&self) -> Option<&Error> {
        self.problems.last_error.as_ref()
    }

    /// Select exactly these nodes (tests and tools; the canvas selects by pointer).
    pub fn set_selection(&mut self, ids: &[&str]) {
        self.doc.selection.clear();
        self.doc.selection.nodes = ids.iter().map(|id| (*id).to_owned()).collect();
    }

    /// The drop point of the open insert form, in canvas coordinates.
    pub fn pending_insert_point(&self) -> Option<(f64, f64)> {
        match &self.form.as_ref()?.mode {
            FormMode::Insert { at, .. } => Some(*at),
            FormMode::Reparameterise { .. } => None,
        }
    }

    /// Whether the editor has been told it may close (a quit that nothing holds up any more).
    pub fn quit_requested(&self) -> bool {
        self.allow_close
    }

    /// The chain whose "why is it blocked" explanation is open: its chainId.
    pub fn explained_chain(&self) -> Option<&str> {
        self.palette.explained().map(|(_, c)| c)
    }

    pub fn form_is_open(&self) -> bool {
        self.form.is_some()
    }

    /// A recovery file was found and is waiting for the user's answer.
    pub fn recovery_offered(&self) -> bool {
        self.offer.is_some()
    }

    /// Canvas coordinates to screen points (as of the last frame), for tests and tools that
    /// drive the canvas with real pointer events.
    pub fn canvas_to_screen(&self, p: Pos2) -> Pos2 {
        self.canvas.canvas_to_screen(p)
    }

    pub fn screen_to_canvas(&self, p: Pos2) -> Pos2 {
        self.canvas.screen_to_canvas(p)
    }

    /// Show this part of the canvas (canvas coordinates) from the next frame on.
    pub fn set_canvas_view(&mut self, view: Rect) {
        self.canvas.scene_rect = view;
    }

    /// The part of the canvas in view (canvas coordinates).
    pub fn canvas_view(&self) -> Rect {
        self.canvas.scene_rect
    }

    /// Where the canvas is on screen (as of the last frame).
    pub fn canvas_rect(&self) -> Rect {
        self.canvas.screen_rect()
    }

    /// Wait (up to `timeout`) until the autosave writer has written (or removed) the
    /// recovery file as it was last told to; a failure shows in the problems bar.
    pub fn settle_autosave(&mut self, timeout: Duration) {
        if let Err(e) = self.recovery.settle(timeout) {
            self.problems.error(e);
        }
    }

    /// Wait (up to `timeout`) for the lint worker's findings about the workflow as it is now.
    /// The editor never waits for them; tests and measurements that read them do.
    pub fn settle_lint(&mut self, timeout: Duration) {
        self.problems.settle(&self.doc, self.lint_catalog.as_ref(), self.catalog_gen, &self.trust.host, timeout);
    }

    /// CPU time of the last canvas pass.
    pub fn canvas_pass_time(&self) -> Duration {
        self.canvas.last_pass()
    }

    /// Replace the workflow being edited (no unsaved-changes question; callers ask first).
    pub fn replace_workflow(&mut self, wf: Workflow, path: Option<PathBuf>) {
        self.doc = Document::new(wf, path);
        self.form = None;
        self.canvas.request_open_view();
    }

    /// One frame of the whole editor.
    pub fn show(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        if !self.themed {
            // Fonts apply from the next frame on: draw nothing with the old ones.
            theme::apply(&ctx);
            canvas::configure_input(&ctx);
            self.themed = true;
            ctx.request_repaint();
            return;
        }
        self.first_frame.get_or_insert_with(Instant::now);
        if self.loading.is_some() {
            self.take_loaded(None);
            // Nothing else may come to draw the packs once they are read.
            ctx.request_repaint_after(Duration::from_millis(50));
        }
        let os = command_ui::os(&ctx);
        self.pack_view_here = self.authoring.view.undo_target(&ctx).is_some();
        self.close_topmost_window(&ctx);
        self.shortcuts(&ctx, os);
        self.dropped_files(&ctx);

        egui::Panel::top("cs-menu").show(ui, |ui| self.menu_bar(ui, os));
        self.dialogs.prefer_in_app = self.settings.in_app_dialogs;
        self.problems.dialogs_note = self.dialogs.describe();
        egui::Panel::bottom("cs-problems").show(ui, |ui| self.problems.show_bar(ui));
        if let Some(ProblemPick::Node(id)) = self.problems.show_list_panel(ui, self.doc.workflow()) {
            self.doc.selection.only_node(&id);
        }
        self.palette.unsaved = self.authoring.unsaved();
        let sides = SidePanels::for_window(ctx.content_rect().width());
        let palette = egui::Panel::left("cs-palette").default_size(sides.palette.max.min(290.0));
        palette.size_range(sides.palette).show_collapsible(ui, &mut self.settings.palette_panel, |ui| {
            let cx = palette::PaletteCtx {
                loading: self.loading.as_ref().map_or(0, |l| l.left),
                packs: &self.packs,
                reports: &self.reports,
                catalog: self.trust.catalog.as_ref(),
                failures: &self.failures,
                samples: &self.samples,
            };
            self.palette.show(ui, cx, &mut self.actions);
        });
        let inspector = egui::Panel::right("cs-inspector").default_size(sides.inspector.max.min(330.0));
        inspector.size_range(sides.inspector).show_collapsible(ui, &mut self.settings.inspector_panel, |ui| {
            let (wf, selection) = self.doc.parts();
            self.inspector.show(ui, wf, self.trust.catalog.as_ref(), selection, &mut self.actions);
        });
        let mut form_event = None;
        if let Some(form) = &mut self.form {
            let revision = self.doc.revision();
            let (packs, trust, wf, actions) = (&self.packs, &self.trust, self.doc.workflow(), &mut self.actions);
            egui::Panel::bottom("cs-form").resizable(true).default_size(form::HEIGHT).size_range(240.0..=720.0).show(
                ui,
                |ui| {
                    form_event = match form.pack.and_then(|id| packs.get(id)) {
                        Some(pack) => form.show(ui, trust, pack, wf, revision, actions),
                        None => Some(FormEvent::Cancel),
                    };
                },
            );
        }
        egui::CentralPanel::no_frame().show(ui, |ui| {
            let revision = (self.doc.revision(), self.catalog_gen);
            let ghost = self.form.as_ref().and_then(FormSession::ghost);
            let catalog = self.trust.catalog.as_ref();
            let commands = &self.command_context();
            let (wf, selection, moves) = self.doc.parts_with_moves();
            let actions = &mut self.actions;
            let cx = CanvasCtx { wf, revision, moves, catalog, selection, ghost, actions, commands, os };
            self.canvas.show(ui, cx);
        });

        match form_event {
            Some(FormEvent::Submit) => {
                self.submit_form();
                // The keyboard comes back to the canvas (its shortcuts), not to a leftover widget.
                if self.form.is_none() {
                    ctx.memory_mut(|m| m.stop_text_input());
                }
            }
            Some(FormEvent::Cancel) => self.form = None,
            None => {}
        }
        if let Some(publish) = &mut self.publish {
            let src = publish::Sources {
                packs: &self.packs,
                workflow: self.doc.workflow(),
                revision: self.doc.revision(),
                catalog: self.trust.catalog.as_ref(),
                catalog_gen: self.catalog_gen,
            };
            if !publish.show(&ctx, &src, &mut self.actions) {
                self.publish = None;
            }
        }
        self.trust_settings_window(&ctx);
        command_ui::shortcut_help(&ctx, &mut self.shortcut_help, os);
        self.registry_window(&ctx);
        self.app_reparam.show(&ctx, &mut self.actions);
        self.compare.show(&ctx);
        let catalog = self.trust.catalog.as_ref();
        self.authoring.show(&ctx, &self.packs, catalog, self.doc.workflow(), &mut self.actions);
        self.child_window.show(&ctx, &mut self.actions);
        if let Some((purpose, chosen)) = self.dialogs.show(&ctx) {
            self.answered(purpose, chosen);
        }
        self.finder(&ctx, os);
        self.place_form(&ctx);
        self.modals(&ctx);
        self.process(&ctx);
        self.housekeeping(&ctx);
    }

    /// Once the canvas has made room for the docked form, frame what the form changes (the
    /// ghosts and the parent nodes they wire to, or the instance) in the canvas.
    fn place_form(&mut self, ctx: &egui::Context) {
        let Some(form) = &mut self.form else { return };
        if !form.docked() {
            // Until it is framed, keep drawing: no input may come to ask for the next frame.
            ctx.request_repaint();
            return;
        }
        let region = match (&form.mode, form.ghost()) {
            (FormMode::Insert { .. }, Some(g)) => {
                // The new nodes and the parent nodes they will be wired to.
                let wf = self.doc.workflow();
                let parents = g.edges.iter().flat_map(|e| [&e.from, &e.to]).filter_map(|end| match end {
                    preview::GhostEnd::Parent(id) => wf.node(id).map(|ix| {
                        // Where the insert will move it, if it makes room.
                        let moved = g.moved.iter().find(|(m, _)| m == id).map(|(_, p)| *p);
                        let (x, y) = moved.unwrap_or_else(|| wf.graph[ix].position());
                        canvas::card_rect(egui::pos2(x as f32, y as f32))
                    }),
                    preview::GhostEnd::Ghost(_) => None,
                });
                g.nodes.iter().map(canvas::ghost_rect).chain(parents).reduce(Rect::union)
            }
            (FormMode::Reparameterise { key }, _) => self.doc.workflow().instance(key).and_then(|inst| {
                let wf = self.doc.workflow();
                inst.node_ids
                    .iter()
                    .filter_map(|id| wf.node(id))
                    .map(|ix| {
                        let (x, y) = wf.graph[ix].position();
                        canvas::card_rect(egui::pos2(x as f32, y as f32))
                    })
                    .reduce(Rect::union)
            }),
            // The preview is not computed yet, or was refused: wait a frame, or leave the view.
            (FormMode::Insert { .. }, None) if form.refusal.is_none() && !form.positioned => {
                ctx.request_repaint();
                return;
            }
            (FormMode::Insert { .. }, None) => None,
        };
        form.positioned = true;
        // Framed again only when the preview moved (a placement that settles a frame later);
        // otherwise the view is the user's to pan and zoom.
        if region == form.framed {
            return;
        }
        form.framed = region;
        if let Some(region) = region {
            let canvas = self.canvas.screen_rect();
            // Below the canvas toolbar's row, clear of the minimap in the bottom-right corner.
            let band = Rect::from_min_max(canvas.min + egui::vec2(8.0, 8.0), canvas.max - egui::vec2(8.0, 8.0));
            self.canvas.frame_region(region, band);
        }
    }

    /// What the registry's enabled-when predicates look at, as of now.
    fn command_context(&self) -> commands::Context {
        let wf = self.doc.workflow();
        let sel = &self.doc.selection;
        let single_node_instance =
            sel.nodes.len() == 1 && sel.nodes.iter().next().is_some_and(|id| wf.instance_of_node(id).is_some());
        commands::Context {
            has_nodes: wf.node_count() > 0,
            nodes_selected: sel.nodes.len(),
            edges_selected: sel.edges.len(),
            instance_selected: sel.instance.is_some() || single_node_instance,
            can_undo: self.doc.can_undo() || self.pack_view_here,
            can_redo: self.doc.can_redo() || self.pack_view_here,
            form_open: self.form.is_some(),
            app_instance: crate::editor::app_reparam::app_instance(wf).is_some(),
            finder_open: self.finder.is_some(),
            child_selected: sel.nodes.len() == 1
                && sel.nodes.iter().filter_map(|id| wf.node(id)).any(|ix| wf.graph[ix].child_ref().is_some()),
            snap: self.canvas.snap,
            minimap: self.canvas.minimap,
            show_internal: self.palette.show_internal,
            palette_panel: self.settings.palette_panel,
            inspector_panel: self.settings.inspector_panel,
        }
    }

    /// The chain instance the selection stands for: the selected one, or the instance of
    /// the one selected node.
    fn selected_instance(&self) -> Option<String> {
        let sel = &self.doc.selection;
        if let Some(key) = &sel.instance {
            return Some(key.clone());
        }
        let [id] = sel.nodes.iter().collect::<Vec<_>>()[..] else { return None };
        self.doc.workflow().instance_of_node(id).map(|inst| inst.key())
    }

    /// The menu bar, generated from the command registry.
    fn menu_bar(&mut self, ui: &mut Ui, os: Os) {
        let cx = self.command_context();
        let recent = self.settings.recent.clone();
        egui::MenuBar::new().ui(ui, |ui| {
            for m in Menu::ALL {
                command_ui::menu(ui, m, &cx, os, &mut self.actions, |ui, section, actions| {
                    // After New / Open / Open folder: the files opened lately (not commands).
                    if m == Menu::File && section == 0 {
                        ui.menu_button("Open recent", |ui| {
                            if recent.is_empty() {
                                ui.label(RichText::new("Nothing yet").color(theme::TEXT_DIM));
                            }
                            for p in &recent {
                                if ui.button(p.display().to_string()).clicked() {
                                    actions.push(Action::OpenPaths(vec![p.clone()]));
                                }
                            }
                        });
                    }
                });
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let name = self.doc.workflow().name().to_owned();
                let dirty = if self.doc.is_dirty() { " •" } else { "" };
                let where_ = self.doc.path.as_ref().map_or("not saved yet".to_owned(), |p| p.display().to_string());
                ui.label(RichText::new(where_).small().color(theme::TEXT_DIM));
                ui.label(RichText::new(format!("{name}{dirty}")).strong());
            });
        });
    }

    /// Esc closes the topmost of the editor's open windows (by their layers' order), before
    /// anything under them sees it (the form, the selection). The in-app file dialog, the
    /// palette, quick-add, menus and modal questions answer Esc themselves.
    fn close_topmost_window(&mut self, ctx: &egui::Context) {
        let busy =
            self.finder.is_some() || ctx.memory(|m| m.top_modal_layer()).is_some() || egui::Popup::is_any_open(ctx);
        if busy || !ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
            return;
        }
        let open = [
            (EscWindow::FileDialog, self.dialogs.is_open()),
            (EscWindow::ShortcutHelp, self.shortcut_help),
            (EscWindow::Explanation, self.palette.explained().is_some()),
            (EscWindow::PackFindings, self.palette.detail_open()),
            (EscWindow::Refusal, self.problems.error_window_open()),
            (EscWindow::Settings, self.trust_window.open),
            (EscWindow::Registry, self.registry.open),
            (EscWindow::Publish, self.publish.is_some()),
            (EscWindow::AppReparam, self.app_reparam.open.is_some()),
            (EscWindow::PackView, self.authoring.view.open),
            (EscWindow::Extract, self.authoring.extract_open()),
            (EscWindow::MakeParameter, self.authoring.make_open()),
        ];
        let layers: Vec<egui::LayerId> = ctx.memory(|m| m.layer_ids().collect());
        let depth = |w: EscWindow| layers.iter().position(|l| l.id == egui::Id::unique(w.id()));
        let Some(top) = open.iter().filter(|(_, is_open)| *is_open).map(|(w, _)| *w).max_by_key(|w| depth(*w)) else {
            return;
        };
        if top == EscWindow::FileDialog {
            return;
        }
        ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape));
        match top {
            EscWindow::FileDialog => {}
            EscWindow::ShortcutHelp => self.shortcut_help = false,
            EscWindow::Explanation => self.palette.close_explanation(),
            EscWindow::PackFindings => self.palette.close_detail(),
            EscWindow::Refusal => self.problems.close_error_window(),
            EscWindow::Settings => self.trust_window.open = false,
            EscWindow::Registry => self.registry.open = false,
            EscWindow::Publish => self.publish = None,
            EscWindow::AppReparam => self.app_reparam.open = None,
            EscWindow::PackView => self.authoring.view.open = false,
            EscWindow::Extract => self.authoring.close_extract(),
            EscWindow::MakeParameter => self.authoring.close_make(),
        }
    }

    /// Keyboard shortcuts, from the command registry; a paste event carries its text.
    fn shortcuts(&mut self, ctx: &egui::Context, os: Os) {
        // Behind an open modal (recovery offer, save question) keys belong to its buttons:
        // Tab must move focus there, not open quick-add on the canvas underneath.
        if ctx.memory(|m| m.top_modal_layer()).is_some() {
            return;
        }
        let cx = self.command_context();
        for c in command_ui::pressed(ctx, os, &cx) {
            self.actions.push(Action::Run(c));
        }
        if !ctx.egui_wants_keyboard_input() && !cx.form_open {
            let pasted: Vec<String> = ctx.input(|i| {
                i.events
                    .iter()
                    .filter_map(|e| match e {
                        egui::Event::Paste(text) => Some(text.clone()),
                        _ => None,
                    })
                    .collect()
            });
            self.actions.extend(pasted.into_iter().map(Action::Paste));
        }
    }

    fn dropped_files(&mut self, ctx: &egui::Context) {
        let paths: Vec<PathBuf> = ctx.input(|i| i.raw.dropped_files.iter().map(|f| f.path().to_path_buf()).collect());
        if !paths.is_empty() {
            self.actions.push(Action::OpenPaths(paths));
        }
    }

    fn process(&mut self, ctx: &egui::Context) {
        if !self.actions.is_empty() {
            // What the actions change (model, status bar) is drawn by the next frame.
            ctx.request_repaint();
        }
        for action in std::mem::take(&mut self.actions) {
            match action {
                Action::Run(c) => self.run_command(ctx, c),
                Action::Doc(cmd) => self.apply(cmd),
                Action::OpenInsertForm { pack, chain_id, at, on_edge, after } => {
                    self.open_insert_form(pack, &chain_id, at, on_edge, after);
                }
                Action::EditInstance(key) => self.open_instance_form(&key),
                Action::SelectGhost(i) => {
                    if let Some(f) = &mut self.form {
                        f.select_ghost(i);
                    }
                }
                Action::Paste(text) => match parse_clipboard(&text) {
                    Some((nodes, edges)) => self.apply(Command::Paste { nodes, edges, offset: (40.0, 40.0) }),
                    None => self.problems.status("The clipboard holds no chainsmith nodes to paste"),
                },
                Action::InsertNodeType { type_id, at, on_edge } => self.insert_node_type(&type_id, at, on_edge),
                Action::OpenPaths(paths) => self.open_paths(&paths),
                Action::Publish(subject) => publish::Publish::open(&mut self.publish, subject),
                Action::Fix(fix) => {
                    let trust = &mut self.settings.trust;
                    fix.apply(&mut trust.host, &mut trust.require_signed);
                    let before = blockers::summarise(&self.packs, &self.reports, self.palette.show_internal).blocked;
                    self.apply_trust_settings(false);
                    let after = blockers::summarise(&self.packs, &self.reports, self.palette.show_internal).blocked;
                    let freed = before.saturating_sub(after);
                    self.problems.status(format!(
                        "{}: {} unblocked, {after} still blocked (Settings changes it back)",
                        fix.label(),
                        problems::counted(freed, "chain")
                    ));
                }
                Action::MakeParameter { node, pointer } => {
                    let selection = self.selected_nodes();
                    self.authoring.make_parameter(self.doc.workflow(), &node, &pointer, selection);
                }
                Action::AskFile(purpose) => self.ask(purpose),
            }
        }
        // Edited packs replace their loaded copies: the palette shows them from this frame on.
        if self.authoring.sync(&mut self.packs) {
            self.refresh_trust();
        }
        for note in std::mem::take(&mut self.authoring.notes) {
            match note {
                authoring::Note::Status(s) => {
                    self.problems.clear_error();
                    self.problems.status(s);
                }
                authoring::Note::Error(e) => self.problems.error(e),
            }
        }
    }

    /// What each command of the registry does. A command that is not enabled (its shortcut
    /// or a stale click) does nothing.
    fn run_command(&mut self, ctx: &egui::Context, c: CommandId) {
        if !c.is_enabled(&self.command_context()) {
            return;
        }
        // Commands run after drawing: what they open (a window, the palette) is drawn on the
        // next frame, which must come now, not at the next input event (whose typing the
        // palette would miss).
        ctx.request_repaint();
        match c {
            CommandId::New => self.guard(Pending::New),
            CommandId::Open => self.ask(Purpose::Open),
            CommandId::OpenFolder => self.ask(Purpose::OpenFolder),
            CommandId::OpenRegistry => self.registry.open = true,
            CommandId::Save => match self.doc.path.clone() {
                Some(p) => {
                    self.save_to(&p);
                }
                None => self.ask(Purpose::Save),
            },
            CommandId::SaveAs => self.ask(Purpose::Save),
            CommandId::ExportFaithful => self.ask(Purpose::Export(ExportMode::Faithful)),
            CommandId::ExportStrict => self.ask(Purpose::Export(ExportMode::StrictSchema)),
            CommandId::ExportBundle => self.ask(Purpose::ExportBundle),
            CommandId::CopyJson => {
                let json = self.doc.workflow().to_json(ExportMode::Faithful);
                ctx.copy_text(serde_json::to_string_pretty(&json).expect("JSON values serialise"));
                self.problems.status("Copied the workflow JSON to the clipboard");
            }
            CommandId::PublishWorkflow => publish::Publish::open(&mut self.publish, publish::Subject::Workflow),
            CommandId::Quit => {
                // Packs edited and not saved ask first (their own question).
                if !self.authoring.holds_quit() {
                    self.guard(Pending::Quit);
                }
            }
            CommandId::Undo => {
                // Over the pack view, undo is the pack's.
                if self.authoring.undo_under_pointer(ctx, false, &self.packs) {
                    return;
                }
                if let Some(label) = self.doc.undo() {
                    self.problems.status(format!("Undid {label}"));
                }
            }
            CommandId::Redo => {
                if self.authoring.undo_under_pointer(ctx, true, &self.packs) {
                    return;
                }
                if let Some(label) = self.doc.redo() {
                    self.problems.status(format!("Redid {label}"));
                }
            }
            CommandId::Copy => {
                let ids = self.doc.selection.nodes.iter().cloned().collect();
                if let Some(text) = clipboard_json(self.doc.workflow(), &ids) {
                    ctx.copy_text(text);
                    self.problems
                        .status(format!("Copied {}", problems::counted(self.doc.selection.nodes.len(), "node")));
                }
            }
            // The desktop answers with a paste event holding the clipboard's text, which
            // `shortcuts` turns into `Action::Paste` on the next frame.
            CommandId::Paste => ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaste),
            CommandId::Delete => {
                let sel = &self.doc.selection;
                let nodes: Vec<String> = sel.nodes.iter().cloned().collect();
                let edges: Vec<u64> = sel.edges.iter().copied().collect();
                self.apply(Command::Delete { nodes, edges });
            }
            CommandId::SelectAll => {
                let wf = self.doc.workflow();
                let all = wf.graph.node_weights().map(|n| n.id().to_owned()).collect();
                self.doc.selection.clear();
                self.doc.selection.nodes = all;
            }
            CommandId::SelectNone => self.doc.selection.clear(),
            CommandId::QuickAdd => {
                let screen = self.canvas.quick_add_origin(ctx.pointer_latest_pos());
                let p = self.canvas.snap_point(self.canvas.screen_to_canvas(screen));
                let at = (f64::from(p.x), f64::from(p.y));
                self.finder = Some(finder::Finder::new(finder::Mode::QuickAdd { screen, at }));
            }
            CommandId::OpenChild => {
                if let [id] = &self.selected_nodes()[..] {
                    self.open_child(id);
                }
            }
            CommandId::EditInstance => {
                if let Some(key) = self.selected_instance() {
                    self.open_instance_form(&key);
                }
            }
            CommandId::RemoveInstance => {
                if let Some(key) = self.selected_instance() {
                    self.apply(Command::RemoveInstance { key });
                }
            }
            CommandId::ReparamApp => self.open_app_reparam(),
            CommandId::CompareSaved => match crate::editor::compare::compare_with_saved(&self.doc) {
                Ok(lines) => self.compare.lines = Some(lines),
                Err(e) => self.problems.error(e),
            },
            CommandId::ExtractChain => {
                let nodes = self.selected_nodes();
                self.authoring.open_extract(self.doc.workflow(), nodes);
            }
            CommandId::MakeParameter => {
                if let [node] = self.selected_nodes().as_slice() {
                    self.authoring.make_parameter_of(self.doc.workflow(), node);
                }
            }
            CommandId::Settings => self.trust_window.open = true,
            CommandId::ImportCapabilities => self.ask(Purpose::Capabilities),
            CommandId::ImportNodeCatalog => self.ask(Purpose::NodeCatalog),
            CommandId::Tidy
            | CommandId::AlignLeft
            | CommandId::AlignCentreX
            | CommandId::AlignRight
            | CommandId::AlignTop
            | CommandId::AlignCentreY
            | CommandId::AlignBottom
            | CommandId::DistributeHorizontally
            | CommandId::DistributeVertically => {
                let how = c.arrangement().expect("an arrange command");
                let sel = &self.doc.selection.nodes;
                let whole = how == Arrangement::Tidy && sel.len() < 2;
                let nodes = if whole { Vec::new() } else { sel.iter().cloned().collect() };
                let ports = PortTable::for_workflow(self.trust.catalog.as_ref(), self.doc.workflow());
                self.apply(Command::Arrange { how, nodes, ports });
                if whole {
                    self.canvas.request_fit();
                }
            }
            CommandId::Duplicate => {
                let nodes = self.doc.selection.nodes.iter().cloned().collect();
                let ports = PortTable::for_workflow(self.trust.catalog.as_ref(), self.doc.workflow());
                self.apply(Command::Duplicate { nodes, ports });
            }
            CommandId::ZoomToSelection => self.canvas.zoom_to_nodes(&self.doc.selection.nodes),
            CommandId::CommandPalette => self.finder = Some(finder::Finder::new(finder::Mode::Palette)),
            CommandId::Fit => self.canvas.request_fit(),
            CommandId::ZoomIn => self.canvas.zoom_in(),
            CommandId::ZoomOut => self.canvas.zoom_out(),
            CommandId::ToggleSnap => self.canvas.snap = !self.canvas.snap,
            CommandId::ToggleMinimap => self.canvas.minimap = !self.canvas.minimap,
            CommandId::TogglePalettePanel => self.settings.palette_panel ^= true,
            CommandId::ToggleInspectorPanel => self.settings.inspector_panel ^= true,
            CommandId::ToggleInternal => self.palette.show_internal = !self.palette.show_internal,
            CommandId::PackView => self.authoring.view.open = true,
            CommandId::ShortcutHelp => self.shortcut_help = true,
        }
    }

    fn apply(&mut self, cmd: Command) {
        // A connection between ports whose types do not fit is refused before the document sees it.
        if let Err(e) = node_type::check_command(self.doc.workflow(), self.trust.catalog.as_ref(), &cmd) {
            self.problems.error(e);
            return;
        }
        let result = self.doc.apply(cmd);
        self.app_reparam.answered(result.as_ref().err());
        match result {
            Ok(outcome) => {
                self.problems.clear_error();
                if !outcome.new_nodes.is_empty() {
                    self.doc.selection.clear();
                    self.doc.selection.nodes = outcome.new_nodes.iter().cloned().collect();
                }
                // The first warning said in words; all of them are counted beside it.
                let text = match outcome.warnings.first() {
                    Some(w) => format!("{} — {}", outcome.label, w.message),
                    None => outcome.label,
                };
                self.problems.status_with(text, outcome.warnings);
            }
            Err(e) => self.problems.error(e),
        }
    }

    /// The command palette or quick-add, and what was picked in it.
    fn finder(&mut self, ctx: &egui::Context, os: Os) {
        let Some(f) = &mut self.finder else { return };
        let entries = finder_entries(
            f.mode,
            &self.command_context(),
            os,
            &self.packs,
            &self.reports,
            self.trust.catalog.as_ref(),
            self.palette.show_internal,
        );
        let Some(f) = &mut self.finder else { return };
        let mut close = false;
        let picked = f.show(ctx, &entries, &mut close);
        if close {
            self.finder = None;
        }
        let Some(picked) = picked else { return };
        let at = match picked.mode {
            finder::Mode::QuickAdd { at, .. } => at,
            finder::Mode::Palette => {
                let c = self.canvas.snap_point(self.canvas.scene_rect.center());
                (f64::from(c.x), f64::from(c.y))
            }
        };
        match picked.target {
            Target::Command(c) => self.actions.push(Action::Run(c)),
            Target::Chain { pack, chain_id } => {
                let (at, on_edge, after) = self.insert_place(at);
                self.actions.push(Action::OpenInsertForm { pack, chain_id, at, on_edge, after });
            }
            Target::NodeType(type_id) => {
                let (at, on_edge, after) = self.insert_place(at);
                match after {
                    Some(source) => self.insert_node_after(&type_id, at, &source),
                    None => self.actions.push(Action::InsertNodeType { type_id, at, on_edge }),
                }
            }
        }
    }

    /// Where an insert from the palette or quick-add goes, given the point it was asked at:
    /// into the one selected edge (by `seq`), or downstream of the one selected node (to
    /// its right, with that node's id), or at the point.
    fn insert_place(&self, at: (f64, f64)) -> ((f64, f64), Option<u64>, Option<String>) {
        let sel = &self.doc.selection;
        let wf = self.doc.workflow();
        if sel.nodes.is_empty()
            && let [seq] = sel.edges.iter().copied().collect::<Vec<_>>()[..]
        {
            return (at, Some(seq), None);
        }
        if sel.edges.is_empty()
            && let [id] = sel.nodes.iter().collect::<Vec<_>>()[..]
            && let Some(ix) = wf.node(id)
        {
            let (x, y) = wf.graph[ix].position();
            let gap = f64::from(canvas::GRID) * 4.0;
            return ((x + crate::workflow::layout::NODE_W + gap, y), None, Some(id.clone()));
        }
        (at, None, None)
    }

    /// One node of a catalogued type downstream of `source`, wired through the first ports
    /// whose types fit.
    fn insert_node_after(&mut self, type_id: &str, at: (f64, f64), source: &str) {
        let catalog = self.trust.catalog.as_ref();
        let wf = self.doc.workflow();
        let Some(ix) = wf.node(source) else { return };
        let (source_port, input) = node_type::after_ports(catalog, wf.graph[ix].type_id(), type_id);
        let link = NodeLink::After { source: source.to_owned(), source_port, input };
        match node_type::insert_command(catalog, self.doc.workflow(), type_id, at, link) {
            Ok(cmd) => self.apply(cmd),
            Err(e) => self.problems.error(e),
        }
    }

    /// One node of a catalogued type at `at`, spliced into the edge `on_edge` when given.
    fn insert_node_type(&mut self, type_id: &str, at: (f64, f64), on_edge: Option<u64>) {
        let catalog = self.trust.catalog.as_ref();
        let wf = self.doc.workflow();
        let type_of = |id: &str| wf.node(id).map_or("", |ix| wf.graph[ix].type_id());
        let link = match on_edge {
            Some(seq) => {
                // An edge gone by now: untyped ends, and the document refuses the splice.
                let (from, into) = edge_by_seq(wf, seq).map_or((("", "output"), ("", "input")), |ix| {
                    let e = &wf.graph[ix];
                    ((type_of(e.source()), e.source_port()), (type_of(e.target()), e.target_port()))
                });
                let (input, output) = node_type::splice_ports(catalog, type_id, from, into);
                NodeLink::Splice { seq, input, output }
            }
            None => NodeLink::Unwired,
        };
        match node_type::insert_command(catalog, self.doc.workflow(), type_id, at, link) {
            Ok(cmd) => self.apply(cmd),
            Err(e) => self.problems.error(e),
        }
    }

    fn open_insert_form(
        &mut self,
        pack: PackId,
        chain_id: &str,
        at: (f64, f64),
        on_edge: Option<u64>,
        after: Option<String>,
    ) {
        let Some(chain) = self.packs.get(pack).and_then(|p| p.chain(chain_id)) else { return };
        let wf = self.doc.workflow();
        let on_edge = on_edge.and_then(|seq| {
            let e = &wf.graph[edge_by_seq(wf, seq)?];
            Some(DropEdge { id: e.id().to_owned(), source: e.source().to_owned(), target: e.target().to_owned() })
        });
        // Downstream of a node: the wire leaves from its first declared output.
        let after = after.and_then(|node| {
            let ix = wf.node(&node)?;
            let output = node_type::declared_outputs(self.trust.catalog.as_ref(), wf.graph[ix].type_id()).next();
            Some(After { node, output: output.map(str::to_owned) })
        });
        let id = match preview::fresh_expansion_id(chain, wf) {
            Ok(id) => id,
            Err(e) => return self.problems.error(e),
        };
        if let Some(e) = self.packs.get(pack).and_then(|p| self.trust.check_chain(p, chain_id).refusal()) {
            // Nothing to fill in: say why instead of opening a form that cannot insert.
            self.palette.explain(pack, chain_id);
            self.problems.error(e);
            return;
        }
        let mode = FormMode::Insert { at, on_edge, after };
        let mut form = FormSession::new(Some(pack), chain, mode, id, None);
        // Dropped, picked in the palette or in quick-add: it is filled in from the keyboard.
        form.focus_first_field();
        self.form = Some(form);
    }

    fn open_instance_form(&mut self, key: &str) {
        let Some(inst) = self.doc.workflow().instance(key) else { return };
        let found =
            self.packs.with_ids().find(|(_, p)| p.name() == inst.pack_name && p.chain(&inst.chain_id).is_some());
        let Some((pack, p)) = found else {
            self.problems.error(
                Error::new(
                    code::CHAIN_NOT_FOUND,
                    format!(
                        "chain {} from pack {} is not loaded; open the pack to re-parameterise this instance",
                        inst.chain_id, inst.pack_name
                    ),
                )
                .with("chainId", inst.chain_id.as_str())
                .with("packName", inst.pack_name.as_str()),
            );
            return;
        };
        let chain = p.chain(&inst.chain_id).expect("found above");
        if p.version() != inst.pack_version {
            self.problems.status(format!(
                "Note: the instance came from {} {}; the loaded version is {}",
                inst.pack_name,
                inst.pack_version,
                p.version()
            ));
        }
        let mode = FormMode::Reparameterise { key: key.to_owned() };
        let mut form = FormSession::new(Some(pack), chain, mode, inst.expansion_id.clone(), Some(inst.params.clone()));
        if let Some(e) = self.trust.check_chain(p, &inst.chain_id).refusal() {
            form.block(e);
        }
        self.form = Some(form);
        self.doc.selection.clear();
        self.doc.selection.instance = Some(key.to_owned());
        self.doc.selection.nodes = inst.node_ids.iter().cloned().collect();
    }

    /// Insert or re-parameterise with the form's values; on a refusal the form stays open.
    fn submit_form(&mut self) {
        let Some(form) = &mut self.form else { return };
        let Some(pack) = form.pack.and_then(|id| self.packs.get(id)) else { return };
        let (values, placement) = (form.values().clone(), form.placement());
        let req =
            preview::request(&self.trust, pack, &form.chain_id, values, &form.expansion_id, &self.packs, &placement);
        let applied = self.doc.inline(req);
        match applied {
            Ok(outcome) => {
                self.form = None;
                // Select the inserted instance, so the inspector offers its parameters.
                if let Some(first) = outcome.new_nodes.first()
                    && let Some(inst) = self.doc.workflow().instance_of_node(first)
                {
                    self.doc.selection.clear();
                    self.doc.selection.instance = Some(inst.key());
                    self.doc.selection.nodes = inst.node_ids.into_iter().collect();
                }
                self.problems.status_with(outcome.label, outcome.warnings);
            }
            Err(e) if e.code == crate::error::code::UPGRADE_CONFLICT => {
                // Nothing was applied: the form lists the conflicts for the user to settle.
                if let Some(form) = &mut self.form {
                    form.conflicts = crate::instance::Conflict::listed_in(&e);
                }
                self.problems.status(e.message);
            }
            Err(e) => {
                if let Some(form) = &mut self.form {
                    form.refusal = Some(e.clone());
                    form.reveal_errors();
                }
                self.problems.error_about(e, ErrorAbout::Form);
            }
        }
    }

    fn open_paths(&mut self, paths: &[PathBuf]) {
        for path in paths {
            if self.open_registry(path) {
                continue;
            }
            let opened = files::open_path(path);
            self.opened(path, opened);
        }
    }

    /// A registry is browsed, not loaded whole: its packs are chosen one by one in the
    /// Registry window. Whether `path` is one.
    fn open_registry(&mut self, path: &Path) -> bool {
        if !crate::registry::Registry::is_registry_folder(path) {
            return false;
        }
        self.registry.open = true;
        self.registry.view.open(path);
        self.settings.remember(path);
        true
    }

    /// What opening `path` gave: packs for the palette, or a workflow to edit.
    fn opened(&mut self, path: &Path, opened: Result<files::Opened, Error>) {
        match opened {
            Ok(files::Opened::Packs(out)) => {
                let n = out.packs.len();
                self.problems.status(format!("Loaded {} from {}", problems::counted(n, "pack"), path.display()));
                // A pack that failed to load is the news, not the ones that loaded.
                for e in &out.failures {
                    self.problems.error(e.clone());
                }
                self.failures.extend(out.failures);
                // Packs open in the pack view follow their files unless edited since.
                self.authoring.reloaded(&out.packs);
                self.add_packs(out.packs);
                self.settings.remember(path);
                self.settings.remember_packs(path);
            }
            Ok(files::Opened::Workflow(wf)) => {
                self.settings.remember(path);
                self.guard(Pending::Replace(wf, path.to_path_buf()));
            }
            Err(e) => self.problems.error(e),
        }
    }

    /// Open `files` and the packs open when the editor last closed, read off the UI thread:
    /// the window paints at once and the palette fills in as they arrive (a registry folder
    /// of 140 packs takes seconds). Remembered packs whose files are gone are skipped with a
    /// notice.
    pub fn open_at_start(&mut self, files: Vec<PathBuf>) {
        let (reopen, gone) = self.settings.packs_to_reopen(&files);
        let mut queue = Vec::new();
        for path in reopen.into_iter().chain(files) {
            if !self.open_registry(&path) {
                queue.push(path);
            }
        }
        // Said once the rest is open, or the packs' own messages would replace it.
        self.start_notice = (!gone.is_empty()).then(|| {
            let names: Vec<String> = gone.iter().map(|p| p.display().to_string()).collect();
            let gone = problems::counted(gone.len(), "pack file");
            format!("Not reopened ({gone} no longer there): {}", names.join(", "))
        });
        if queue.is_empty() {
            self.files_open();
            return;
        }
        let (send, receive) = std::sync::mpsc::channel();
        self.loading = Some(Loading { left: queue.len(), receive });
        let spawned = std::thread::Builder::new().name("chainsmith-open".into()).spawn(move || {
            for path in queue {
                let opened = files::open_path(&path);
                if send.send((path, opened)).is_err() {
                    return;
                }
            }
        });
        if let Err(e) = spawned {
            self.loading = None;
            self.problems.error(Error::new(code::IO_ERROR, format!("could not start reading the files: {e}")));
        }
    }

    /// Take what the start's reader has read so far; with `wait`, block up to it for the rest.
    fn take_loaded(&mut self, wait: Option<Duration>) {
        use std::sync::mpsc::RecvTimeoutError;
        let deadline = wait.map(|w| Instant::now() + w);
        while let Some(loading) = &mut self.loading {
            let next = match deadline {
                Some(d) => loading.receive.recv_timeout(d.saturating_duration_since(Instant::now())),
                None => loading.receive.try_recv().map_err(|e| match e {
                    std::sync::mpsc::TryRecvError::Empty => RecvTimeoutError::Timeout,
                    std::sync::mpsc::TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
                }),
            };
            match next {
                Ok((path, opened)) => {
                    loading.left -= 1;
                    let done = loading.left == 0;
                    if done {
                        self.loading = None;
                    }
                    self.opened(&path, opened);
                    if done {
                        self.files_open();
                    }
                }
                Err(RecvTimeoutError::Timeout) => return,
                // The reader ended early (it cannot without sending; a panic would).
                Err(RecvTimeoutError::Disconnected) => self.loading = None,
            }
        }
    }

    /// The start's files are open: say what was not reopened.
    fn files_open(&mut self) {
        if let Some(notice) = self.start_notice.take() {
            self.problems.status(notice);
        }
        trace_files_open();
    }

    /// Wait (up to `timeout`) until the files [`App::open_at_start`] reads are open.
    pub fn settle_loading(&mut self, timeout: Duration) {
        self.take_loaded(Some(timeout));
    }

    /// Files opened at start still being read.
    pub fn loading(&self) -> usize {
        self.loading.as_ref().map_or(0, |l| l.left)
    }

    /// Put packs in the palette and re-check everything against the new catalog.
    fn add_packs(&mut self, packs: Vec<Pack>) {
        for pack in packs {
            // Re-opening a pack replaces the loaded copy; instances find it by name.
            self.packs.add(pack);
        }
        self.refresh_trust();
    }

    /// Run `next` now, or ask first when there are unsaved changes.
    fn guard(&mut self, next: Pending) {
        if self.doc.is_dirty() {
            self.pending = Some(next);
        } else {
            self.run_pending(next);
        }
    }

    fn run_pending(&mut self, next: Pending) {
        match next {
            Pending::New => {
                self.recovery.clear();
                self.replace_workflow(Workflow::new("Untitled workflow"), None);
                self.problems.status("New workflow");
            }
            Pending::Replace(wf, path) => {
                self.recovery.clear();
                self.problems.status(format!("Opened {}", path.display()));
                self.replace_workflow(*wf, Some(path));
            }
            Pending::Quit => {
                self.recovery.clear();
                self.allow_close = true;
                self.quitting = true;
            }
        }
    }

    /// Ask for a file or folder; the answer is handled in [`App::answered`], at once for the
    /// system dialog, frames later for the in-app one.
    fn ask(&mut self, purpose: Purpose) {
        let suggested = match &purpose {
            Purpose::Save | Purpose::ExportBundle => files::suggested_name(self.doc.workflow()),
            Purpose::Export(_) => files::suggested_name(self.doc.workflow()).replace(".json", ".expanded.json"),
            Purpose::SavePack => "pack.json".to_owned(),
            Purpose::GenerateKey => "signing-key".to_owned(),
            Purpose::SaveTool(format) => {
                self.publish.as_ref().and_then(|p| p.suggested_name(*format)).unwrap_or_default()
            }
            _ => String::new(),
        };
        let home = crate::fsio::home_folder();
        let start = dialog_start(&purpose, self.doc.path.as_deref(), &self.settings.recent, home);
        // Which dialog answers is always shown at the right of the status bar; saying it
        // again as the status would show the same note twice.
        if let Some(chosen) = self.dialogs.ask(purpose.clone(), &suggested, start.as_deref()) {
            self.answered(purpose, chosen);
        }
    }

    /// What was chosen in a file dialog (nothing: cancelled).
    fn answered(&mut self, purpose: Purpose, chosen: Vec<PathBuf>) {
        let Some(first) = chosen.first().cloned() else {
            if purpose == Purpose::Save {
                self.after_save = None;
            }
            return;
        };
        match purpose {
            Purpose::Open => self.open_paths(&chosen),
            Purpose::OpenFolder => self.open_paths(&[first]),
            Purpose::Save => {
                if self.save_to(&first)
                    && let Some(next) = self.after_save.take()
                {
                    self.run_pending(next);
                }
            }
            Purpose::Export(mode) => self.export_to(&first, mode),
            Purpose::Registry => self.registry.view.open(&first),
            Purpose::InstallFolder => self.registry.view.install_dir = Some(first),
            Purpose::ExportBundle => self.export_bundle(&first),
            Purpose::Capabilities => self.import_capabilities(&first),
            Purpose::NodeCatalog => self.import_node_catalog(&first),
            Purpose::SavePack => self.authoring.save_view_pack(&first),
            Purpose::SigningKey => self.authoring.sign_view_pack(&first),
            Purpose::GenerateKey => self.authoring.generate_key(&first),
            Purpose::SaveTool(format) => match &mut self.publish {
                Some(publish) => publish.save_to(format, &first),
                None => self.problems.status("Nothing saved: the Publish window was closed"),
            },
            Purpose::TrustedKeys => {
                // Choosing the same folder again re-reads it (a key file may have been added).
                self.settings.trust.trusted_keys = Some(first);
                self.apply_trust_settings(true);
            }
        }
    }

    fn save_to(&mut self, path: &Path) -> bool {
        match self.doc.workflow().save(path, ExportMode::Faithful) {
            Ok(()) => {
                self.doc.path = Some(path.to_path_buf());
                self.doc.mark_saved();
                self.recovery.clear();
                self.settings.remember(path);
                self.problems.clear_error();
                self.problems.status(format!("Saved {}", path.display()));
                true
            }
            Err(e) => {
                self.problems.error(e);
                false
            }
        }
    }

    fn export_to(&mut self, path: &Path, mode: ExportMode) {
        match self.doc.workflow().save(path, mode) {
            Ok(()) => {
                let lints = self.doc.workflow().lint(mode);
                self.problems.status_with(format!("Exported {}", path.display()), lints);
            }
            Err(e) => self.problems.error(e),
        }
    }

    fn modals(&mut self, ctx: &egui::Context) {
        if let Some(offer) = &self.offer {
            let mut answer = None;
            egui::Modal::new(egui::Id::unique("cs-recovery")).show(ctx, |ui| {
                ui.set_max_width(440.0);
                ui.heading("Recover unsaved work?");
                let when = recovery::describe_age(offer.saved_at);
                let of = offer.path.as_ref().map_or("an unsaved workflow".to_owned(), |p| p.display().to_string());
                ui.label(format!(
                    "chainsmith found changes to {of} that were not saved ({} nodes, written {when}).",
                    offer.workflow.node_count()
                ));
                ui.horizontal(|ui| {
                    if ui.button(RichText::new("Restore").strong()).clicked() {
                        answer = Some(true);
                    }
                    if ui.button("Discard").clicked() {
                        answer = Some(false);
                    }
                });
            });
            match answer {
                Some(true) => {
                    let offer = self.offer.take().expect("shown above");
                    self.replace_workflow(offer.workflow, offer.path);
                    self.doc.mark_unsaved();
                    self.problems.status("Restored unsaved work from the recovery file");
                }
                Some(false) => {
                    self.offer = None;
                    self.recovery.clear();
                }
                None => {}
            }
        }
        if self.pending.is_some() {
            let mut answer = None;
            egui::Modal::new(egui::Id::unique("cs-unsaved")).show(ctx, |ui| {
                ui.set_max_width(420.0);
                ui.heading("Save changes?");
                ui.label(format!("“{}” has changes that are not saved.", self.doc.workflow().name()));
                ui.horizontal(|ui| {
                    if ui.button(RichText::new("Save").strong()).clicked() {
                        answer = Some(0);
                    }
                    if ui.button("Don't save").clicked() {
                        answer = Some(1);
                    }
                    if ui.button("Cancel").clicked() {
                        answer = Some(2);
                    }
                });
            });
            match answer {
                Some(0) => match self.doc.path.clone() {
                    Some(p) => {
                        if self.save_to(&p)
                            && let Some(next) = self.pending.take()
                        {
                            self.run_pending(next);
                        }
                    }
                    None => {
                        // The question closes so the file dialog can be used; what waited
                        // runs once the save is done.
                        self.after_save = self.pending.take();
                        self.ask(Purpose::Save);
                    }
                },
                Some(1) => {
                    if let Some(next) = self.pending.take() {
                        self.run_pending(next);
                    }
                }
                Some(2) => self.pending = None,
                _ => {}
            }
        }
    }

    /// Autosave, lint, window title, and the close request.
    fn housekeeping(&mut self, ctx: &egui::Context) {
        let now = Instant::now();
        // The form's refusal is put right (values fixed, or the form closed): its error goes.
        if self.form.as_ref().is_none_or(|f| f.refusal.is_none()) {
            self.problems.resolved(ErrorAbout::Form);
        }
        let wf = self.doc.snapshot();
        match self.recovery.tick(&wf, self.doc.path.as_deref(), self.doc.revision(), self.doc.is_dirty(), now) {
            Ok(_) => {}
            Err(e) => self.problems.error(e),
        }
        if self.doc.is_dirty() {
            ctx.request_repaint_after(recovery::INTERVAL);
        }
        let host = &self.trust.host;
        if let Some(wait) = self.problems.update(&self.doc, self.lint_catalog.as_ref(), self.catalog_gen, host, now) {
            ctx.request_repaint_after(wait);
        }
        let dirty = if self.doc.is_dirty() { "• " } else { "" };
        let title = format!("{dirty}{} — chainsmith", self.doc.workflow().name());
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        if self.quitting {
            self.quitting = false;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        let closing = ctx.input(|i| i.viewport().close_requested()) && !self.allow_close;
        if closing && self.authoring.holds_quit() {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
        } else if closing && self.doc.is_dirty() {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.pending = Some(Pending::Quit);
        }
        self.settings.show_internal = self.palette.show_internal;
        self.settings.snap = self.canvas.snap;
        self.settings.minimap = self.canvas.minimap;
        let r = self.canvas.scene_rect;
        if r.is_finite() && r.is_positive() {
            self.settings.view = Some([r.min.x, r.min.y, r.max.x, r.max.y]);
        }
    }
}

impl eframe::App for App {
    fn raw_input_hook(&mut self, _ctx: &egui::Context, raw: &mut egui::RawInput) {
        canvas::one_zoom_notch_per_frame(raw);
    }
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        let first = self.first_frame.is_none();
        // A frame begins once the one before it is tessellated, painted and swapped: the first
        // drawn frame is on screen when the next begins (a second pass of one frame is not a
        // new frame; the script adds the time before main).
        if let Some(n) = self.first_frame_nr
            && ui.ctx().cumulative_frame_nr() > n
        {
            self.first_frame_nr = None;
            if let Some(t) = STARTED.get() {
                let unix = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
                eprintln!(
                    "chainsmith: first frame shown {:.1} ms after start (unix {:.6})",
                    t.elapsed().as_secs_f64() * 1000.0,
                    unix.as_secs_f64()
                );
            }
        }
        self.show(ui);
        // The theming frame draws nothing; the first frame is the first one drawn.
        let first = first && self.first_frame.is_some();
        // Measuring cold start needs a hook the script can read; it prints nothing otherwise.
        if first
            && let Some(t) = STARTED.get()
            && std::env::var_os("CHAINSMITH_TRACE_STARTUP").is_some()
        {
            eprintln!("chainsmith: first frame {:.1} ms after start", t.elapsed().as_secs_f64() * 1000.0);
            self.first_frame_nr = Some(ui.ctx().cumulative_frame_nr());
            // The next frame's start says when this one was on screen.
            ui.ctx().request_repaint();
        }
        // The restore prompt is on screen from the first frame; a driver waits for this line
        // before answering it (tests/crash_recovery.rs).
        if first
            && let Some(offer) = &self.offer
            && std::env::var_os("CHAINSMITH_TRACE_STARTUP").is_some()
        {
            eprintln!("chainsmith: recovery offered: {} nodes", offer.workflow.node_count());
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        self.settings.save(storage);
    }
}

/// Where the in-app dialog starts: beside the workflow's file, else the last file opened; a
/// new key pair in the home folder, never by default beside the pack it will sign (a private
/// key there is one `git add .` away from being published).
fn dialog_start(
    purpose: &Purpose,
    workflow: Option<&Path>,
    recent: &[PathBuf],
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    if matches!(purpose, Purpose::GenerateKey) {
        return home;
    }
    let near = workflow.or_else(|| recent.first().map(PathBuf::as_path))?;
    if near.is_dir() { Some(near.to_path_buf()) } else { near.parent().map(Path::to_path_buf) }
}

static STARTED: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// The files given at start are open (their packs checked and in the palette): a line for
/// scripts that wait for them and for measuring, when tracing the start.
fn trace_files_open() {
    if let Some(t) = STARTED.get()
        && std::env::var_os("CHAINSMITH_TRACE_STARTUP").is_some()
    {
        eprintln!("chainsmith: files open {:.1} ms after start", t.elapsed().as_secs_f64() * 1000.0);
    }
}

/// Open the editor window: the bundled packs, a new empty workflow, and `files` (packs,
/// pack folders or workflows) opened on top.
pub fn run(files: Vec<PathBuf>) -> eframe::Result<()> {
    STARTED.get_or_init(Instant::now);
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("chainsmith")
            .with_app_id(APP_ID)
            .with_inner_size([1440.0, 900.0])
            .with_min_inner_size([960.0, 600.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    eframe::run_native(
        APP_ID,
        options,
        Box::new(move |cc| {
            let mut opts = StartOptions::standard(files);
            let files = std::mem::take(&mut opts.files);
            let mut app = App::new(opts, cc.storage);
            app.open_at_start(files);
            Ok(Box::new(app))
        }),
    )
}

/// The editor's windows that Esc closes, by the id their window is shown with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EscWindow {
    FileDialog,
    ShortcutHelp,
    Explanation,
    PackFindings,
    Refusal,
    Settings,
    Registry,
    Publish,
    AppReparam,
    PackView,
    Extract,
    MakeParameter,
}

impl EscWindow {
    fn id(self) -> &'static str {
        match self {
            EscWindow::FileDialog => "cs-file-dialog",
            EscWindow::ShortcutHelp => "cs-shortcut-help",
            EscWindow::Explanation => "cs-blocked",
            EscWindow::PackFindings => "cs-pack-detail",
            EscWindow::Refusal => "cs-error",
            EscWindow::Settings => "cs-settings",
            EscWindow::Registry => "cs-registry",
            EscWindow::Publish => "cs-publish",
            EscWindow::AppReparam => "cs-app-reparam",
            EscWindow::PackView => "cs-pack-view",
            EscWindow::Extract => "cs-extract",
            EscWindow::MakeParameter => "cs-make-param",
        }
    }
}

/// The side panels' width ranges for a window this wide: each may take at most a share of it
/// (a width remembered from a wider window is cut to that), so the canvas keeps half the
/// window or more.
struct SidePanels {
    palette: egui::Rangef,
    inspector: egui::Rangef,
}

impl SidePanels {
    fn for_window(width: f32) -> Self {
        let range = |min: f32, share: f32, max: f32| {
            let most = (width * share).min(max);
            egui::Rangef::new(min.min(most), most)
        };
        Self { palette: range(180.0, 0.24, 520.0), inspector: range(200.0, 0.26, 640.0) }
    }
}

/// What the palette or quick-add lists: commands (palette only; not the palette itself),
/// disabled ones marked so, then chain tiles of the loaded chain packs (internal ones when
/// shown), then the catalog's node types.
fn finder_entries(
    mode: finder::Mode,
    cx: &commands::Context,
    os: Os,
    packs: &Packs,
    reports: &[TrustReport],
    catalog: Option<&Catalog>,
    show_internal: bool,
) -> Vec<Entry> {
    let mut out = Vec::new();
    if mode == finder::Mode::Palette {
        for &c in CommandId::ALL {
            if c == CommandId::CommandPalette {
                continue;
            }
            let spec = c.spec();
            let (title, detail, shortcut) = (spec.label.to_owned(), spec.id.to_owned(), c.shortcut_text(os));
            out.push(Entry { target: Target::Command(c), title, detail, shortcut, enabled: c.is_enabled(cx) });
        }
    }
    let chain_packs =
        packs.with_ids().zip(reports).filter(|((_, p), _)| p.kind == crate::pack::PackKind::WorkflowChain);
    for ((i, pack), report) in chain_packs {
        for chain in pack.chains.iter().filter(|c| show_internal || !c.internal()) {
            // A blocked chain stays pickable (picking it explains why), marked as the palette marks it.
            let concerns = |f: &&crate::error::Finding| f.chain_id.as_deref().is_none_or(|c| c == chain.chain_id());
            let blocked = report.blocking().find(concerns).map(|f| f.code);
            let invalid = pack.findings_for(chain.chain_id()).any(|f| f.is_error());
            let (mark, why) = match (blocked, invalid) {
                (Some(code), _) => (" · blocked", format!("{code} · ")),
                (None, true) => (" · invalid", String::new()),
                (None, false) => ("", String::new()),
            };
            let detail = format!("{why}{} · {}", chain.chain_id(), pack.name());
            let target = Target::Chain { pack: i, chain_id: chain.chain_id().to_owned() };
            let title = format!("{}{mark}", chain.label());
            out.push(Entry { target, title, detail, shortcut: String::new(), enabled: true });
        }
    }
    if let Some(catalog) = catalog {
        for t in catalog.node_types() {
            let target = Target::NodeType(t.type_id().to_owned());
            let (title, detail) = (t.label().to_owned(), t.type_id().to_owned());
            out.push(Entry { target, title, detail, shortcut: String::new(), enabled: true });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_pair_starts_in_the_home_folder_not_beside_the_pack() {
        let recent = vec![PathBuf::from("/work/acme-pack/pack.json")];
        let home = Some(PathBuf::from("/home/someone"));
        assert_eq!(dialog_start(&Purpose::GenerateKey, None, &recent, home.clone()), home);
        // Everything else starts beside the workflow, else the last file opened.
        let beside = Some(PathBuf::from("/work/acme-pack"));
        assert_eq!(dialog_start(&Purpose::SavePack, None, &recent, home.clone()), beside);
        let wf = Path::new("/work/flows/main.json");
        assert_eq!(dialog_start(&Purpose::SigningKey, Some(wf), &recent, home), Some(PathBuf::from("/work/flows")));
    }
}

//! The editor as a whole: the [`App`] that eframe runs. It holds the editor session (packs,
//! trust policy, the document), the panels and windows, and the frame's state; it draws them
//! in order and then applies the frame's [`Action`]s. The parts of its work live beside it:
//! `actions.rs` (commands and actions), `insert.rs` (the insert form's session),
//! `documents.rs` (requests run on the model's `editor::session` and their effects shown,
//! the recovery and unsaved-changes questions), `windows.rs` (what the
//! windows ask of the editor, and Esc).

mod actions;
mod documents;
mod insert;
mod upgrade;
mod windows;

use crate::app::action::Action;
use crate::app::canvas::{self, Canvas, CanvasCtx};
use crate::app::form::{self, FormEvent, FormMode, FormSession};
use crate::app::inspector::Inspector;
use crate::app::native_files::{FileDialogs, NativeDialogs};
use crate::app::palette::{self, Palette};
use crate::app::problems::{ErrorAbout, ProblemPick, ProblemsBar};
use crate::app::window::Window;
use crate::app::{
    app_reparam, authoring, child_view, command_ui, compare, finder, registry, theme, trust_settings,
    upgrade as updates,
};
use crate::editor::commands::Os;
use crate::editor::document::Document;
use crate::editor::file_dialog::Dialogs;
use crate::editor::files::Loading;
use crate::editor::preview;
use crate::editor::recovery::{self, Recovery};
use crate::editor::session::{Model, Pending};
use crate::editor::settings::Settings;
use crate::editor::startup;
use crate::error::Error;
use crate::pack::{LoadOutcome, Pack, bundled};
use crate::workflow::Workflow;
use egui::{Pos2, Rect, Ui};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
    /// The editor's model: the packs and trust policy, the document, the settings, unsaved
    /// work, and the windows' own models. Requests run on it in a session.
    model: Model,
    panels: Panels,
    windows: Windows,
    /// What the UI asked for this frame, applied after drawing.
    actions: Vec<Action>,
    frame: FrameState,
}

/// The panels always on screen.
struct Panels {
    canvas: Canvas,
    palette: Palette,
    inspector: Inspector,
}

/// The windows, open or not.
struct Windows {
    form: Option<FormSession>,
    dialogs: Dialogs,
    trust_window: trust_settings::TrustWindow,
    registry: registry::RegistryWindow,
    app_reparam: app_reparam::AppReparamWindow,
    compare: compare::CompareWindow,
    /// "Review update…" for an instance whose chain has a newer version loaded.
    review: Option<updates::ReviewWindow>,
    /// Packs open for authoring, the extract dialog and the pack view.
    authoring: authoring::Authoring,
    child_window: child_view::ChildWindow,
    /// Help → Keyboard shortcuts is open.
    shortcut_help: bool,
    /// The command palette or quick-add, when open.
    finder: Option<finder::Finder>,
}

/// What carries from one frame to the next.
#[derive(Default)]
struct FrameState {
    /// The pointer is over the pack view, whose edits undo and redo on their own (as of the
    /// start of this frame).
    pack_view_here: bool,
    /// Esc was pressed while a modal question was up: it answers the question (drawn last),
    /// nothing under it.
    modal_escape: bool,
    allow_close: bool,
    quitting: bool,
    themed: bool,
    title: String,
    first_frame: Option<Instant>,
    /// When tracing the start: the frame number of the first drawn frame, until a later
    /// frame has begun (it was then on screen).
    first_frame_nr: Option<u64>,
}

impl App {
    pub fn new(opts: StartOptions, storage: Option<&dyn eframe::Storage>) -> Self {
        let settings = Settings::load(storage);
        let view = settings.view.map(|[a, b, c, d]| Rect::from_min_max(egui::pos2(a, b), egui::pos2(c, d)));
        let model = Model::new(opts.packs, settings, Recovery::new(opts.recovery_file));
        let panels = Panels {
            canvas: Canvas::new(view, model.settings.snap),
            palette: Palette::default(),
            inspector: Inspector::default(),
        };
        let windows = Windows {
            form: None,
            dialogs: Dialogs::new(opts.dialogs),
            trust_window: Default::default(),
            registry: Default::default(),
            app_reparam: Default::default(),
            compare: Default::default(),
            review: None,
            authoring: Default::default(),
            child_window: Default::default(),
            shortcut_help: false,
            finder: None,
        };
        let mut app = Self { model, panels, windows, actions: Vec::new(), frame: FrameState::default() };
        if !opts.files.is_empty() {
            app.open_paths(&opts.files);
        }
        app
    }

    /// The document being edited: its workflow, file, unsaved state and selection (tests and
    /// tools read the model through it).
    pub fn doc(&self) -> &Document {
        &self.model.doc
    }

    pub fn packs(&self) -> &[Pack] {
        &self.model.library.packs
    }

    pub fn last_error(&self) -> Option<&Error> {
        self.model.problems.last_error.as_ref()
    }

    /// Select exactly these nodes (tests and tools; the canvas selects by pointer).
    pub fn set_selection(&mut self, ids: &[&str]) {
        self.model.doc.selection.clear();
        self.model.doc.selection.nodes = ids.iter().map(|id| (*id).to_owned()).collect();
    }

    /// The open parameter form (tests and tools read its model through it).
    pub fn form(&self) -> Option<&FormSession> {
        self.windows.form.as_ref()
    }

    /// Whether the editor has been told it may close (a quit that nothing holds up any more).
    pub fn quit_requested(&self) -> bool {
        self.frame.allow_close
    }

    /// The chain whose "why is it blocked" explanation is open: its chainId.
    pub fn explained_chain(&self) -> Option<&str> {
        self.panels.palette.explained().map(|(_, c)| c)
    }

    /// A recovery file was found and is waiting for the user's answer.
    pub fn recovery_offered(&self) -> bool {
        self.model.unsaved.offer.is_some()
    }

    /// Canvas coordinates to screen points (as of the last frame), for tests and tools that
    /// drive the canvas with real pointer events.
    pub fn canvas_to_screen(&self, p: Pos2) -> Pos2 {
        self.panels.canvas.canvas_to_screen(p)
    }

    pub fn screen_to_canvas(&self, p: Pos2) -> Pos2 {
        self.panels.canvas.screen_to_canvas(p)
    }

    /// Show this part of the canvas (canvas coordinates) from the next frame on.
    pub fn set_canvas_view(&mut self, view: Rect) {
        self.panels.canvas.scene_rect = view;
    }

    /// The part of the canvas in view (canvas coordinates).
    pub fn canvas_view(&self) -> Rect {
        self.panels.canvas.scene_rect
    }

    /// Where the canvas is on screen (as of the last frame).
    pub fn canvas_rect(&self) -> Rect {
        self.panels.canvas.screen_rect()
    }

    /// Wait (up to `timeout`) until the autosave writer has written (or removed) the
    /// recovery file as it was last told to; a failure shows in the problems bar.
    pub fn settle_autosave(&mut self, timeout: Duration) {
        self.model.settle_autosave(timeout);
    }

    /// Wait (up to `timeout`) for the lint worker's findings about the workflow as it is now.
    /// The editor never waits for them; tests and measurements that read them do.
    pub fn settle_lint(&mut self, timeout: Duration) {
        self.model.settle_lint(timeout);
    }

    /// CPU time of the last canvas pass.
    pub fn canvas_pass_time(&self) -> Duration {
        self.panels.canvas.last_pass()
    }

    /// Replace the workflow being edited (no unsaved-changes question; callers ask first).
    pub fn replace_workflow(&mut self, wf: Workflow, path: Option<PathBuf>) {
        self.model.doc = Document::new(wf, path);
        self.windows.form = None;
        self.panels.canvas.request_open_view();
    }

    /// One frame of the whole editor.
    pub fn show(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        if !self.frame.themed {
            // Fonts apply from the next frame on: draw nothing with the old ones.
            theme::apply(&ctx);
            canvas::configure_input(&ctx);
            self.frame.themed = true;
            ctx.request_repaint();
            return;
        }
        self.frame.first_frame.get_or_insert_with(Instant::now);
        if self.model.start.loading.is_some() {
            self.take_loaded(None);
            // Nothing else may come to draw the packs once they are read.
            ctx.request_repaint_after(Duration::from_millis(50));
        }
        let os = command_ui::os(&ctx);
        self.frame.pack_view_here = self.windows.authoring.undo_target(&ctx, &self.model.authoring).is_some();
        self.frame.modal_escape = modal_takes_keys(&ctx);
        self.close_topmost_window(&ctx);
        self.shortcuts(&ctx, os);
        self.dropped_files(&ctx);

        let menu = egui::Panel::top("cs-menu").show(ui, |ui| self.menu_bar(ui, os)).response.rect;
        self.windows.dialogs.prefer_in_app = self.model.settings.in_app_dialogs;
        self.model.problems.dialogs_note = self.windows.dialogs.describe();
        let status = egui::Panel::bottom("cs-problems").show(ui, |ui| self.model.problems.show_bar(ui)).response.rect;
        // Big windows stay between the menu bar and the status bar, so both stay in sight.
        let content = ctx.content_rect();
        self.windows.authoring.view.area =
            Some(Rect::from_min_max(egui::pos2(content.min.x, menu.max.y), egui::pos2(content.max.x, status.min.y)));
        if let Some(ProblemPick::Node(id)) = self.model.problems.show_list_panel(ui, self.model.doc.workflow()) {
            self.model.doc.selection.only_node(&id);
        }
        self.refresh_updates();
        self.side_panels(ui, &ctx);
        let form_event = self.form_panel(ui);
        self.central_panel(ui, os);

        match form_event {
            Some(FormEvent::Submit) => {
                self.submit_form();
                // The keyboard comes back to the canvas (its shortcuts), not to a leftover widget.
                if self.windows.form.is_none() {
                    ctx.memory_mut(|m| m.stop_text_input());
                }
            }
            Some(FormEvent::Cancel) => {
                self.windows.form = None;
                self.panels.canvas.return_to_remembered_view();
            }
            None => {}
        }
        self.show_windows(&ctx, os);
        self.finder(&ctx, os);
        self.place_form(&ctx);
        self.modals(&ctx);
        self.process(&ctx);
        self.housekeeping(&ctx);
    }

    /// The palette on the left and the inspector on the right, each at most a share of the window.
    fn side_panels(&mut self, ui: &mut Ui, ctx: &egui::Context) {
        self.panels.palette.unsaved = self.model.authoring.model.unsaved();
        let sides = SidePanels::for_window(ctx.content_rect().width());
        let palette = egui::Panel::left("cs-palette").default_size(sides.palette.max.min(290.0));
        palette.size_range(sides.palette).show_collapsible(ui, &mut self.model.settings.palette_panel, |ui| {
            let cx = palette::PaletteCtx {
                loading: self.model.start.loading.as_ref().map_or(0, Loading::left),
                packs: &self.model.library.packs,
                reports: &self.model.library.reports,
                catalog: self.model.library.trust.catalog.as_ref(),
                failures: &self.model.library.failures,
                samples: &self.model.library.samples,
                show_internal: &mut self.model.settings.show_internal,
            };
            let asked = self.panels.palette.show(ui, cx);
            self.actions.extend(asked.actions);
        });
        let inspector = egui::Panel::right("cs-inspector").default_size(sides.inspector.max.min(330.0));
        inspector.size_range(sides.inspector).show_collapsible(ui, &mut self.model.settings.inspector_panel, |ui| {
            let (wf, selection) = self.model.doc.parts();
            let updates = &self.model.updates.available;
            let asked =
                self.panels.inspector.show(ui, wf, self.model.library.trust.catalog.as_ref(), selection, updates);
            self.actions.extend(asked.actions);
        });
    }

    /// The docked parameter form, when one is open, and what was asked of it.
    fn form_panel(&mut self, ui: &mut Ui) -> Option<FormEvent> {
        let mut form_event = None;
        if let Some(form) = &mut self.windows.form {
            let revision = self.model.doc.revision();
            let (packs, trust, wf, actions) =
                (&self.model.library.packs, &self.model.library.trust, self.model.doc.workflow(), &mut self.actions);
            egui::Panel::bottom("cs-form").resizable(true).default_size(form::HEIGHT).size_range(240.0..=720.0).show(
                ui,
                |ui| {
                    form_event = match form.pack.and_then(|id| packs.get(id)) {
                        Some(pack) => {
                            let asked = form.show(ui, trust, pack, wf, revision);
                            actions.extend(asked.selected_ghost.map(Action::SelectGhost));
                            asked.event
                        }
                        None => Some(FormEvent::Cancel),
                    };
                },
            );
        }
        form_event
    }

    /// The canvas, in what the panels leave.
    fn central_panel(&mut self, ui: &mut Ui, os: Os) {
        egui::CentralPanel::no_frame().show(ui, |ui| {
            let revision = (self.model.doc.revision(), self.model.library.catalog_gen);
            let ghost = self.windows.form.as_ref().and_then(|form| form.ghost());
            let catalog = self.model.library.trust.catalog.as_ref();
            let commands = &self.command_context();
            let (wf, selection, moves) = self.model.doc.parts_with_moves();
            let updates = &self.model.updates.available;
            let cx = CanvasCtx { wf, revision, moves, catalog, selection, ghost, commands, os, updates };
            let asked = self.panels.canvas.show(ui, cx);
            self.actions.extend(asked.actions);
        });
    }

    /// The windows over the panels, each while it is open.
    fn show_windows(&mut self, ctx: &egui::Context, os: Os) {
        if self.model.publish.is_some() {
            let src = crate::editor::publish_session::Sources {
                packs: &self.model.library.packs,
                workflow: self.model.doc.workflow(),
                revision: self.model.doc.revision(),
                catalog: self.model.library.trust.catalog.as_ref(),
                catalog_gen: self.model.library.catalog_gen,
            };
            let asked = self.model.publish.show(ctx, &src);
            self.actions.extend(asked);
        }
        self.trust_settings_window(ctx);
        if self.windows.shortcut_help {
            let about = command_ui::About {
                settings: eframe::storage_dir(APP_ID),
                recovery: self.model.unsaved.recovery.file().map(Path::to_path_buf),
            };
            command_ui::Help(&mut self.windows.shortcut_help).show(ctx, (os, &about));
        }
        self.registry_window(ctx);
        let asked = self.windows.app_reparam.show(ctx, ());
        self.actions.extend(asked);
        self.windows.compare.show(ctx, ());
        self.review_window(ctx);
        self.windows.authoring.modal_escape = self.frame.modal_escape;
        let m = &mut self.model;
        let (packs, catalog) = (&m.library.packs, m.library.trust.catalog.as_ref());
        self.windows.authoring.show(ctx, &mut m.authoring, packs, catalog, m.doc.workflow(), &mut self.actions);
        let asked = self.windows.child_window.show(ctx, ());
        self.actions.extend(asked);
        if let Some((purpose, chosen)) = self.windows.dialogs.show(ctx, ()) {
            self.answered(purpose, chosen);
        }
    }

    /// Once the canvas has made room for the docked form, frame what the form changes (the
    /// ghosts and the parent nodes they wire to, or the instance) in the canvas.
    fn place_form(&mut self, ctx: &egui::Context) {
        let Some(form) = &mut self.windows.form else { return };
        if !form.docked() {
            // Until it is framed, keep drawing: no input may come to ask for the next frame.
            ctx.request_repaint();
            return;
        }
        let region = match (&form.mode, form.ghost()) {
            (FormMode::Insert { .. }, Some(g)) => {
                // The new nodes and the parent nodes they will be wired to.
                let wf = self.model.doc.workflow();
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
            (FormMode::Reparameterise { key }, _) => self.model.doc.workflow().instance(key).and_then(|inst| {
                let wf = self.model.doc.workflow();
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
            let canvas = self.panels.canvas.screen_rect();
            // Below the canvas toolbar's row, clear of the minimap in the bottom-right corner.
            let band = Rect::from_min_max(canvas.min + egui::vec2(8.0, 8.0), canvas.max - egui::vec2(8.0, 8.0));
            self.panels.canvas.frame_region(region, band);
        }
    }

    /// Autosave, lint, window title, and the close request.
    fn housekeeping(&mut self, ctx: &egui::Context) {
        let now = Instant::now();
        // The form's refusal is put right (values fixed, or the form closed): its error goes.
        if self.windows.form.as_ref().is_none_or(|f| f.refusal.is_none()) {
            self.model.problems.resolved(ErrorAbout::Form);
        }
        self.model.autosave(now);
        if self.model.doc.is_dirty() {
            ctx.request_repaint_after(recovery::INTERVAL);
        }
        if let Some(wait) = self.model.update_lint(now) {
            ctx.request_repaint_after(wait);
        }
        let dirty = if self.model.doc.is_dirty() { "• " } else { "" };
        let title = format!("{dirty}{} — chainsmith", self.model.doc.workflow().name());
        if title != self.frame.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.frame.title = title;
        }
        if self.frame.quitting {
            self.frame.quitting = false;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        let closing = ctx.input(|i| i.viewport().close_requested()) && !self.frame.allow_close;
        if closing && self.model.authoring.holds_quit() {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
        } else if closing && self.model.doc.is_dirty() {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.model.unsaved.pending = Some(Pending::Quit);
        }
        let r = self.panels.canvas.scene_rect;
        if r.is_finite() && r.is_positive() {
            self.model.settings.view = Some([r.min.x, r.min.y, r.max.x, r.max.y]);
        }
    }
}

impl eframe::App for App {
    fn raw_input_hook(&mut self, _ctx: &egui::Context, raw: &mut egui::RawInput) {
        canvas::one_zoom_notch_per_frame(raw);
    }
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        let first = self.frame.first_frame.is_none();
        // A frame begins once the one before it is tessellated, painted and swapped: the first
        // drawn frame is on screen when the next begins (a second pass of one frame is not a
        // new frame; the script adds the time before main).
        if let Some(n) = self.frame.first_frame_nr
            && ui.ctx().cumulative_frame_nr() > n
        {
            self.frame.first_frame_nr = None;
            if let Some(t) = startup::elapsed() {
                let unix = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
                eprintln!(
                    "chainsmith: first frame shown {:.1} ms after start (unix {:.6})",
                    t.as_secs_f64() * 1000.0,
                    unix.as_secs_f64()
                );
            }
        }
        self.show(ui);
        // The theming frame draws nothing; the first frame is the first one drawn.
        let first = first && self.frame.first_frame.is_some();
        // Measuring cold start needs a hook the script can read; it prints nothing otherwise.
        if first
            && let Some(t) = startup::elapsed()
            && startup::traced()
        {
            eprintln!("chainsmith: first frame {:.1} ms after start", t.as_secs_f64() * 1000.0);
            self.frame.first_frame_nr = Some(ui.ctx().cumulative_frame_nr());
            // The next frame's start says when this one was on screen.
            ui.ctx().request_repaint();
        }
        // The restore prompt is on screen from the first frame; a driver waits for this line
        // before answering it (tests/crash_recovery.rs).
        if first
            && let Some(offer) = &self.model.unsaved.offer
            && startup::traced()
        {
            eprintln!("chainsmith: recovery offered: {} nodes", offer.workflow.node_count());
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        self.model.settings.save(storage);
    }
}

/// Open the editor window: the bundled packs, a new empty workflow, and `files` (packs,
/// pack folders or workflows) opened on top.
pub fn run(files: Vec<PathBuf>) -> eframe::Result<()> {
    startup::mark();
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

/// While a modal question is up (as of the last frame) it has the keyboard: Esc and the
/// arrow keys are taken out of this frame's input before the canvas, the form or a window
/// can act on them (egui has already moved focus between the question's buttons). Whether
/// Esc was among them.
fn modal_takes_keys(ctx: &egui::Context) -> bool {
    if ctx.memory(|m| m.top_modal_layer()).is_none() {
        return false;
    }
    use egui::Key::{ArrowDown, ArrowLeft, ArrowRight, ArrowUp, Escape};
    ctx.input_mut(|i| {
        let escape = i.key_pressed(Escape);
        i.events.retain(|e| {
            !matches!(e, egui::Event::Key { key: Escape | ArrowDown | ArrowLeft | ArrowRight | ArrowUp, .. })
        });
        i.keys_down.retain(|k| !matches!(k, Escape | ArrowDown | ArrowLeft | ArrowRight | ArrowUp));
        escape
    })
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

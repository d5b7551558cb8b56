use super::App;
use crate::app::action::{self, Action};
use crate::app::{command_ui, finder, theme};
use crate::editor::authoring::Note;
use crate::editor::blockers;
use crate::editor::clipboard::{clipboard_json, parse_clipboard};
use crate::editor::commands::{self, CommandId, Menu, Os};
use crate::editor::document::Command;
use crate::editor::file_dialog::Purpose;
use crate::editor::finder::Target;
use crate::editor::insert::{InsertPlace, insert_place};
use crate::editor::publish_session::PublishSession;
use crate::editor::session::{Pending, command_context};
use crate::workflow::ExportMode;
use egui::{RichText, Ui};
use std::path::PathBuf;

impl App {
    /// What the registry's enabled-when predicates look at, as of now.
    pub(super) fn command_context(&self) -> commands::Context {
        let cx = command_context(&self.model.doc, &self.model.settings, &self.model.updates.available);
        cx.with_windows(self.frame.pack_view_here, self.windows.form.is_some(), self.windows.finder.is_some())
    }

    /// The menu bar, generated from the command registry.
    pub(super) fn menu_bar(&mut self, ui: &mut Ui, os: Os) {
        let cx = self.command_context();
        let recent = self.model.settings.recent.clone();
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
                let name = self.model.doc.workflow().name().to_owned();
                let dirty = if self.model.doc.is_dirty() { " •" } else { "" };
                let where_ =
                    self.model.doc.path.as_ref().map_or("not saved yet".to_owned(), |p| p.display().to_string());
                ui.label(RichText::new(where_).small().color(theme::TEXT_DIM));
                ui.label(RichText::new(format!("{name}{dirty}")).strong());
            });
        });
    }

    /// Keyboard shortcuts, from the command registry; a paste event carries its text.
    pub(super) fn shortcuts(&mut self, ctx: &egui::Context, os: Os) {
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

    pub(super) fn dropped_files(&mut self, ctx: &egui::Context) {
        let paths: Vec<PathBuf> = ctx.input(|i| i.raw.dropped_files.iter().map(|f| f.path().to_path_buf()).collect());
        if !paths.is_empty() {
            self.actions.push(Action::OpenPaths(paths));
        }
    }

    pub(super) fn process(&mut self, ctx: &egui::Context) {
        if !self.actions.is_empty() {
            // What the actions change (model, status bar) is drawn by the next frame.
            ctx.request_repaint();
        }
        for action in std::mem::take(&mut self.actions) {
            match action {
                Action::Run(c) => self.run_command(ctx, c),
                Action::Doc(cmd) => self.apply(cmd),
                Action::OpenInsertForm { pack, chain_id, at, on_edge, after } => {
                    self.open_insert_form(pack, &chain_id, InsertPlace { at, on_edge, after });
                }
                Action::EditInstance(key) => self.open_instance_form(&key),
                Action::ReviewUpdate(key) => self.open_review(ctx, &key),
                Action::InsertChain { pack, chain_id } => self.insert_chain(pack, &chain_id),
                Action::SelectGhost(i) => {
                    if let Some(f) = &mut self.windows.form {
                        f.select_ghost(i);
                    }
                }
                Action::Paste(text) => match parse_clipboard(&text) {
                    Some((nodes, edges)) => self.apply(Command::Paste { nodes, edges, offset: (40.0, 40.0) }),
                    None => self.model.problems.status("The clipboard holds no chainsmith nodes to paste"),
                },
                Action::InsertNodeType { type_id, at, on_edge } => {
                    self.session(|s| s.insert_node(&type_id, InsertPlace { at, on_edge, after: None }));
                }
                Action::OpenPaths(paths) => self.open_paths(&paths),
                Action::Publish(subject) => PublishSession::open(&mut self.model.publish, subject),
                Action::Fix(fix) => {
                    let trust = &mut self.model.settings.trust;
                    fix.apply(&mut trust.host, &mut trust.require_signed);
                    let before = blockers::summarise(
                        &self.model.library.packs,
                        &self.model.library.reports,
                        self.model.settings.show_internal,
                    )
                    .blocked;
                    self.apply_trust_settings(false);
                    let after = blockers::summarise(
                        &self.model.library.packs,
                        &self.model.library.reports,
                        self.model.settings.show_internal,
                    )
                    .blocked;
                    let freed = before.saturating_sub(after);
                    self.model.problems.status(format!(
                        "{}: {} unblocked, {after} still blocked (Settings changes it back)",
                        fix.label(),
                        crate::words::count(freed, "chain", "chains")
                    ));
                }
                Action::MakeParameter { node, pointer } => {
                    let selection = self.model.doc.selection.node_ids();
                    self.model.authoring.make_parameter(self.model.doc.workflow(), &node, &pointer, selection);
                }
                Action::AskFile(purpose) => self.ask(purpose),
            }
        }
        // Edited packs replace their loaded copies: the palette shows them from this frame on.
        if self.model.authoring.model.sync(&mut self.model.library.packs) {
            self.model.recheck_packs();
        }
        let view_open = self.windows.authoring.view.open;
        for note in std::mem::take(&mut self.model.authoring.model.notes) {
            // With the pack view open the result shows in it too: it may hide the status bar.
            let view_result = match &note {
                Note::Status(s) => (s.clone(), None),
                Note::Error(e) => (e.message.clone(), Some(e.code)),
            };
            if view_open {
                self.windows.authoring.view.result = Some(view_result);
            }
            match note {
                Note::Status(s) => {
                    self.model.problems.clear_error();
                    self.model.problems.status(s);
                }
                Note::Error(e) => self.model.problems.error(e),
            }
        }
    }

    /// What each command of the registry does. A command that is not enabled (its shortcut
    /// or a stale click) does nothing.
    pub(super) fn run_command(&mut self, ctx: &egui::Context, c: CommandId) {
        if !c.is_enabled(&self.command_context()) {
            return;
        }
        // Commands run after drawing: what they open (a window, the palette) is drawn on the
        // next frame, which must come now, not at the next input event (whose typing the
        // palette would miss).
        ctx.request_repaint();
        let _ = self.session(|s| s.command(c))
            || self.file_command(ctx, c)
            || self.edit_command(ctx, c)
            || self.tool_command(ctx, c)
            || self.view_command(c);
    }

    /// Commands of files, export, publishing and quitting (New is the document's own).
    /// Whether `c` is one of them.
    fn file_command(&mut self, ctx: &egui::Context, c: CommandId) -> bool {
        match c {
            CommandId::Open => self.ask(Purpose::Open),
            CommandId::OpenFolder => self.ask(Purpose::OpenFolder),
            CommandId::OpenRegistry => self.windows.registry.open = true,
            CommandId::Save => match self.model.doc.path.clone() {
                Some(p) => {
                    self.session(|s| s.save_to(&p));
                }
                None => self.ask(Purpose::Save),
            },
            CommandId::SaveAs => self.ask(Purpose::Save),
            CommandId::ExportFaithful => self.ask(Purpose::Export(ExportMode::Faithful)),
            CommandId::ExportStrict => self.ask(Purpose::Export(ExportMode::StrictSchema)),
            CommandId::ExportBundle => self.ask(Purpose::ExportBundle),
            CommandId::CopyJson => {
                let json = self.model.doc.workflow().to_json(ExportMode::Faithful);
                ctx.copy_text(serde_json::to_string_pretty(&json).expect("JSON values serialise"));
                self.model.problems.status("Copied the workflow JSON to the clipboard");
            }
            CommandId::PublishWorkflow => PublishSession::open(&mut self.model.publish, action::Subject::Workflow),
            CommandId::Quit => {
                // Packs edited and not saved ask first (their own question).
                if !self.model.authoring.holds_quit() {
                    self.session(|s| s.guard(Pending::Quit));
                }
            }
            _ => return false,
        }
        true
    }

    /// Undo and the clipboard. Whether `c` is one of them.
    fn edit_command(&mut self, ctx: &egui::Context, c: CommandId) -> bool {
        match c {
            CommandId::Undo | CommandId::Redo => {
                let redo = c == CommandId::Redo;
                // Over the pack view, undo is the pack's.
                let (authoring, packs) = (&mut self.model.authoring, &self.model.library.packs);
                if !self.windows.authoring.undo_under_pointer(ctx, redo, authoring, packs) {
                    self.session(|s| s.undo(redo));
                }
            }
            CommandId::Copy => {
                let ids = self.model.doc.selection.nodes.iter().cloned().collect();
                if let Some(text) = clipboard_json(self.model.doc.workflow(), &ids) {
                    ctx.copy_text(text);
                    self.model.problems.status(format!(
                        "Copied {}",
                        crate::words::count(self.model.doc.selection.nodes.len(), "node", "nodes")
                    ));
                }
            }
            // The desktop answers with a paste event holding the clipboard's text, which
            // `shortcuts` turns into `Action::Paste` on the next frame.
            CommandId::Paste => ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaste),
            _ => return false,
        }
        true
    }

    /// Quick-add, chain instances, authoring and the Settings window. Whether `c` is one of them.
    fn tool_command(&mut self, ctx: &egui::Context, c: CommandId) -> bool {
        match c {
            CommandId::QuickAdd => {
                let screen = self.panels.canvas.quick_add_origin(ctx.pointer_latest_pos());
                let p = self.panels.canvas.snap_point(self.panels.canvas.screen_to_canvas(screen));
                let at = (f64::from(p.x), f64::from(p.y));
                self.windows.finder = Some(finder::Finder::new(finder::Mode::QuickAdd { screen, at }));
            }
            CommandId::OpenChild => {
                if let [id] = &self.model.doc.selection.node_ids()[..] {
                    self.session(|s| s.open_child(id));
                }
            }
            CommandId::EditInstance => {
                if let Some(key) = self.model.doc.selected_instance() {
                    self.open_instance_form(&key);
                }
            }
            CommandId::ReviewUpdate => {
                if let Some(key) = self.model.doc.selected_instance() {
                    self.open_review(ctx, &key);
                }
            }
            CommandId::ReparamApp => self.open_app_reparam(),
            CommandId::CompareSaved => match crate::editor::compare::compare_with_saved(&self.model.doc) {
                Ok(lines) => self.windows.compare.lines = Some(lines),
                Err(e) => self.model.problems.error(e),
            },
            CommandId::ExtractChain => {
                let nodes = self.model.doc.selection.node_ids();
                self.model.authoring.open_extract(self.model.doc.workflow(), nodes);
            }
            CommandId::MakeParameter => {
                if let [node] = self.model.doc.selection.node_ids().as_slice() {
                    self.model.authoring.make_parameter_of(self.model.doc.workflow(), node);
                }
            }
            CommandId::Settings => self.windows.trust_window.open = true,
            CommandId::ImportCapabilities => self.ask(Purpose::Capabilities),
            CommandId::ImportNodeCatalog => self.ask(Purpose::NodeCatalog),
            _ => return false,
        }
        true
    }

    /// What the canvas, panels and windows show. Whether `c` is one of them.
    fn view_command(&mut self, c: CommandId) -> bool {
        match c {
            CommandId::ZoomToSelection => self.panels.canvas.zoom_to_nodes(&self.model.doc.selection.nodes),
            CommandId::CommandPalette => self.windows.finder = Some(finder::Finder::new(finder::Mode::Palette)),
            CommandId::Fit => self.panels.canvas.request_fit(),
            CommandId::ZoomIn => self.panels.canvas.zoom_in(),
            CommandId::ZoomOut => self.panels.canvas.zoom_out(),
            CommandId::PackView => self.windows.authoring.view.open = true,
            // One Help window: the version and files above the shortcuts.
            CommandId::ShortcutHelp | CommandId::About => self.windows.shortcut_help = true,
            _ => return false,
        }
        true
    }

    pub(super) fn apply(&mut self, cmd: Command) {
        self.session(|s| s.apply(cmd));
    }

    /// The command palette or quick-add, and what was picked in it.
    pub(super) fn finder(&mut self, ctx: &egui::Context, os: Os) {
        let Some(f) = &mut self.windows.finder else { return };
        let entries = crate::editor::finder::entries(
            f.mode == finder::Mode::Palette,
            &self.command_context(),
            os,
            &self.model.library.packs,
            &self.model.library.reports,
            self.model.library.trust.catalog.as_ref(),
            self.model.settings.show_internal,
        );
        let Some(f) = &mut self.windows.finder else { return };
        let mut close = false;
        let picked = f.show(ctx, &entries, &mut close);
        if close {
            self.windows.finder = None;
        }
        let Some(picked) = picked else { return };
        let at = match picked.mode {
            finder::Mode::QuickAdd { at, .. } => at,
            finder::Mode::Palette => {
                let c = self.panels.canvas.snap_point(self.panels.canvas.scene_rect.center());
                (f64::from(c.x), f64::from(c.y))
            }
        };
        match picked.target {
            Target::Command(c) => self.actions.push(Action::Run(c)),
            Target::Chain { pack, chain_id } => {
                let InsertPlace { at, on_edge, after } =
                    insert_place(self.model.doc.workflow(), &self.model.doc.selection, at);
                self.actions.push(Action::OpenInsertForm { pack, chain_id, at, on_edge, after });
            }
            Target::NodeType(type_id) => {
                let place = insert_place(self.model.doc.workflow(), &self.model.doc.selection, at);
                match place.after {
                    Some(_) => self.session(|s| s.insert_node(&type_id, place)),
                    None => self.actions.push(Action::InsertNodeType { type_id, at: place.at, on_edge: place.on_edge }),
                }
            }
        }
    }
}

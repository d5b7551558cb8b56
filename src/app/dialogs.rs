//! Which file dialog the editor uses, and the in-app one it falls back to.
//!
//! The system dialog (rfd) needs a desktop portal or zenity on Linux; without either it
//! returns "nothing chosen" at once, which looks exactly like a cancel. So the editor asks
//! first whether the system dialog can be shown at all, and when it cannot, opens a small
//! file dialog of its own inside the window. That one answers frames later, so every
//! question carries its [`Purpose`] and the answer is handled when it arrives, by the same
//! code for both dialogs. (The egui file-dialog crates for egui 0.37 leave their text
//! fields without accessible names, which screen readers and the UI tests rely on.)

use super::native_files::FileDialogs;
use super::theme;
use super::window::{Scaffold, WindowId};
use crate::editor::file_dialog::{Browse, NativeRequest, Purpose};
use egui::{RichText, Ui};
use std::path::{Path, PathBuf};

/// The system dialogs, and the in-app dialog while one is open.
pub struct Dialogs {
    system: Box<dyn FileDialogs>,
    /// Set in Settings: always use the in-app dialog.
    pub prefer_in_app: bool,
    open: Option<InApp>,
}

impl Dialogs {
    /// The in-app dialog is open.
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    pub fn new(system: Box<dyn FileDialogs>) -> Self {
        Self { system, prefer_in_app: false, open: None }
    }

    /// Whether questions go to the system dialog.
    pub fn uses_system(&self) -> bool {
        !self.prefer_in_app && self.system.available()
    }

    /// For the status bar: which dialog answers, and why.
    pub fn describe(&self) -> &'static str {
        if self.prefer_in_app {
            "File dialogs: in-app (chosen in Settings)"
        } else if self.system.available() {
            "File dialogs: system"
        } else {
            "File dialogs: in-app (no desktop portal or zenity found)"
        }
    }

    /// Ask for a file or folder. The system dialog answers here (an empty list is a cancel);
    /// the in-app one opens and answers later through [`Dialogs::show`].
    pub fn ask(&mut self, purpose: Purpose, suggested: &str, start: Option<&Path>) -> Option<Vec<PathBuf>> {
        if self.open.is_some() {
            // One question at a time: the open dialog stays, the new question is dropped.
            return None;
        }
        if self.uses_system() {
            return Some(self.system.pick(&NativeRequest::new(&purpose, suggested, start)));
        }
        // Never the folder the editor was started from by default: that may be a corpus or
        // a checkout, where a save or a new key does not belong.
        let dir = start.map(Path::to_path_buf).or_else(crate::fsio::home_folder).unwrap_or_else(|| PathBuf::from("/"));
        if std::env::var_os("CHAINSMITH_TRACE_STARTUP").is_some() {
            // A driver under Xvfb waits for this line (tests/file_dialog_fallback.rs).
            eprintln!("chainsmith: in-app file dialog: {}", purpose.title());
        }
        self.open = Some(InApp::new(purpose, dir, suggested));
        None
    }

    /// Draw the in-app dialog; what it was asked for and the answer once the user is done
    /// (an empty list when cancelled).
    pub fn show(&mut self, ctx: &egui::Context) -> Option<(Purpose, Vec<PathBuf>)> {
        let dialog = self.open.as_mut()?;
        let answer = dialog.show(ctx)?;
        let purpose = self.open.take().expect("checked above").browse.purpose;
        Some((purpose, answer))
    }
}

/// The in-app dialog: the folder it browses, and which of its fields takes the keyboard.
struct InApp {
    browse: Browse,
    /// The name field (the folder field when choosing a folder) takes focus when the dialog
    /// opens.
    focus_name: bool,
    /// The name of the folder being made with "New folder", while its field is open.
    new_folder: Option<String>,
    /// The new folder's name field takes focus when it opens.
    focus_new_folder: bool,
}

impl InApp {
    fn new(purpose: Purpose, dir: PathBuf, suggested: &str) -> Self {
        let browse = Browse::new(purpose, dir, suggested);
        Self { browse, focus_name: true, new_folder: None, focus_new_folder: false }
    }

    /// `Some(answer)` once the user confirms (one path) or cancels (none).
    fn show(&mut self, ctx: &egui::Context) -> Option<Vec<PathBuf>> {
        let mut answer = None;
        let mut open = true;
        Scaffold::new(WindowId::FileDialog, self.browse.purpose.title(), &mut open)
            .size([640.0, 440.0])
            .anchored_centre()
            .show(ctx, |ui| answer = self.contents(ui));
        if !open || (answer.is_none() && ctx.input(|i| i.key_pressed(egui::Key::Escape))) {
            return Some(Vec::new());
        }
        answer
    }

    fn contents(&mut self, ui: &mut Ui) -> Option<Vec<PathBuf>> {
        let mut answer = None;
        let mut go = self.folder_row(ui);
        let footer = if self.browse.purpose.is_folder() { 64.0 } else { 92.0 };
        let list_height = (ui.available_height() - footer).max(120.0);
        go = self.entry_list(ui, list_height, &mut answer).or(go);
        if !self.browse.purpose.is_folder() {
            answer = self.name_row(ui).or(answer);
        }
        if let Some(folder) = self.folder_questions(ui) {
            go = Some(folder);
        }
        if let Some(problem) = &self.browse.problem {
            ui.label(RichText::new(problem).color(theme::ERROR));
        }
        go = self.button_row(ui, &mut answer).or(go);
        if let Some(dir) = go {
            self.browse.enter(dir);
        }
        answer
    }

    /// "Up" and the folder field: the folder to go to, when one is asked for.
    fn folder_row(&mut self, ui: &mut Ui) -> Option<PathBuf> {
        let mut go = None;
        ui.horizontal(|ui| {
            let up = ui.add_enabled(self.browse.dir.parent().is_some(), egui::Button::new("⬆ Up"));
            if up.on_hover_text("The folder above").clicked() {
                go = self.browse.dir.parent().map(Path::to_path_buf);
            }
            let label = ui.label("Folder");
            let field = ui.add(egui::TextEdit::singleline(&mut self.browse.dir_text).desired_width(f32::INFINITY));
            let field = field.labelled_by(label.id);
            // Choosing a folder, the folder is what is typed: its field takes focus.
            if self.browse.purpose.is_folder() && std::mem::take(&mut self.focus_name) {
                field.request_focus();
            }
            if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                go = Some(PathBuf::from(self.browse.dir_text.trim()));
            }
        });
        go
    }

    /// The folder's entries: a click picks a file, a double click opens a folder or answers
    /// with a file (into `answer`); returns the folder to go to.
    fn entry_list(&mut self, ui: &mut Ui, height: f32, answer: &mut Option<Vec<PathBuf>>) -> Option<PathBuf> {
        let mut go = None;
        egui::ScrollArea::vertical().id_salt("cs-file-list").max_height(height).auto_shrink([false, false]).show(
            ui,
            |ui| match &self.browse.entries {
                Err(e) => {
                    ui.label(RichText::new(e).color(theme::ERROR));
                }
                Ok(entries) if entries.is_empty() => {
                    ui.label(RichText::new("Nothing here.").color(theme::TEXT_DIM));
                }
                Ok(entries) => {
                    for e in entries {
                        let text = if e.is_dir { format!("🗀 {}", e.name) } else { format!("🗋 {}", e.name) };
                        let selected = !e.is_dir && e.name == self.browse.name;
                        let r = ui.selectable_label(selected, text);
                        if e.is_dir && (r.double_clicked() || (self.browse.purpose.is_folder() && r.clicked())) {
                            go = Some(self.browse.dir.join(&e.name));
                        } else if !e.is_dir && r.clicked() {
                            self.browse.name = e.name.clone();
                        }
                        if !e.is_dir && r.double_clicked() {
                            *answer = Some(vec![self.browse.dir.join(&e.name)]);
                        }
                    }
                }
            },
        );
        go
    }

    /// The file name field; Enter in it answers with the target.
    fn name_row(&mut self, ui: &mut Ui) -> Option<Vec<PathBuf>> {
        let mut answer = None;
        ui.horizontal(|ui| {
            let label = ui.label("File name");
            let edit = egui::TextEdit::singleline(&mut self.browse.name).desired_width(f32::INFINITY);
            let field = ui.add(edit).labelled_by(label.id);
            if std::mem::take(&mut self.focus_name) {
                field.request_focus();
            }
            if field.lost_focus()
                && ui.input(|i| i.key_pressed(egui::Key::Enter))
                && let Some(t) = self.browse.target()
            {
                answer = Some(vec![t]);
            }
        });
        answer
    }

    /// "Show all files", "New folder", Cancel and the confirming button (answers go into
    /// `answer`); returns the folder to list again when the filter changes.
    fn button_row(&mut self, ui: &mut Ui, answer: &mut Option<Vec<PathBuf>>) -> Option<PathBuf> {
        let mut go = None;
        let target = self.browse.target();
        let replaces = self.browse.purpose.is_save() && target.as_ref().is_some_and(|t| t.exists());
        ui.horizontal(|ui| {
            if ui.checkbox(&mut self.browse.show_all, "Show all files").changed() {
                go = Some(self.browse.dir.clone());
            }
            if ui.button("🗀 New folder").on_hover_text("Make a folder here").clicked() {
                self.new_folder = Some(String::new());
                self.focus_new_folder = true;
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.button("Cancel").clicked() {
                    *answer = Some(Vec::new());
                }
                let verb = match &self.browse.purpose {
                    _ if replaces => "Replace",
                    p if p.is_save() => "Save",
                    p if p.is_folder() => "Choose this folder",
                    _ => "Open",
                };
                if ui.add_enabled(target.is_some(), egui::Button::new(RichText::new(verb).strong())).clicked() {
                    *answer = target.clone().map(|t| vec![t]);
                }
                if replaces {
                    ui.label(RichText::new("A file of this name exists and will be replaced.").color(theme::WARN));
                }
            });
        });
        go
    }

    /// A missing folder to create, and the new-folder row while it is open: the folder to
    /// go to once one is made.
    fn folder_questions(&mut self, ui: &mut Ui) -> Option<PathBuf> {
        let mut go = None;
        if let Some(folder) = self.browse.missing_folder() {
            ui.horizontal(|ui| {
                ui.label(RichText::new(format!("The folder {} does not exist.", folder.display())).color(theme::WARN));
                if ui.button("Create folder").on_hover_text("Make it, then save there").clicked()
                    && self.browse.make_folder(&folder)
                {
                    go = Some(self.browse.dir.clone());
                }
            });
        } else if !self.browse.dir.is_dir() && self.browse.purpose.is_folder() {
            ui.horizontal(|ui| {
                ui.label(RichText::new("This folder does not exist.").color(theme::WARN));
                if ui.button("Create folder").clicked() && self.browse.make_folder(&self.browse.dir.clone()) {
                    go = Some(self.browse.dir.clone());
                }
            });
        }
        if let Some(name) = &mut self.new_folder {
            let mut made = None;
            let mut close = false;
            ui.horizontal(|ui| {
                let label = ui.label("New folder");
                let field = ui.add(egui::TextEdit::singleline(name).desired_width(240.0)).labelled_by(label.id);
                // Typing goes to the name as soon as the row opens.
                if std::mem::take(&mut self.focus_new_folder) {
                    field.request_focus();
                }
                let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if ui.add_enabled(!name.trim().is_empty(), egui::Button::new("Create")).clicked()
                    || (entered && !name.trim().is_empty())
                {
                    made = Some(self.browse.dir.join(name.trim()));
                }
                close = ui.button("Cancel").clicked();
            });
            if let Some(folder) = made
                && self.browse.make_folder(&folder)
            {
                self.new_folder = None;
                go = Some(folder);
            } else if close {
                self.new_folder = None;
            }
        }
        go
    }
}

//! The in-app file dialog, drawn: the editor falls back to it when the system dialog cannot
//! be shown. Which dialog answers, and the folder being browsed, are the model's
//! ([`crate::editor::file_dialog`]). (The egui file-dialog crates for egui 0.37 leave their
//! text fields without accessible names, which screen readers and the UI tests rely on.)

use super::theme;
use super::window::{Scaffold, Window, WindowId};
use crate::editor::file_dialog::{Dialogs, InApp, Purpose};
use egui::{RichText, Ui};
use std::path::{Path, PathBuf};

impl Window for Dialogs {
    type Input<'a> = ();
    /// What the in-app dialog was asked for, and the answer once the user is done (an empty
    /// list when cancelled).
    type Response = Option<(Purpose, Vec<PathBuf>)>;
    const ID: WindowId = WindowId::FileDialog;
    const SIZE: Option<egui::Vec2> = Some(egui::vec2(640.0, 440.0));

    /// Cancel it.
    fn close(&mut self) -> bool {
        self.open.take().is_some()
    }

    fn show(&mut self, ctx: &egui::Context, (): ()) -> Self::Response {
        let dialog = self.open.as_mut()?;
        let mut answer = None;
        let mut open = true;
        Scaffold::of::<Self>(dialog.browse.purpose.title(), &mut open)
            .anchored_centre()
            .show(ctx, |ui| answer = contents(dialog, ui));
        if !open || (answer.is_none() && ctx.input(|i| i.key_pressed(egui::Key::Escape))) {
            answer = Some(Vec::new());
        }
        self.answered(answer?)
    }
}

fn contents(d: &mut InApp, ui: &mut Ui) -> Option<Vec<PathBuf>> {
    let mut answer = None;
    let mut go = folder_row(d, ui);
    let footer = if d.browse.purpose.is_folder() { 64.0 } else { 92.0 };
    let list_height = (ui.available_height() - footer).max(120.0);
    go = entry_list(d, ui, list_height, &mut answer).or(go);
    if !d.browse.purpose.is_folder() {
        answer = name_row(d, ui).or(answer);
    }
    if let Some(folder) = folder_questions(d, ui) {
        go = Some(folder);
    }
    if let Some(problem) = &d.browse.problem {
        ui.label(RichText::new(problem).color(theme::ERROR));
    }
    go = button_row(d, ui, &mut answer).or(go);
    if let Some(dir) = go {
        d.browse.enter(dir);
    }
    answer
}

/// "Up" and the folder field: the folder to go to, when one is asked for.
fn folder_row(d: &mut InApp, ui: &mut Ui) -> Option<PathBuf> {
    let mut go = None;
    ui.horizontal(|ui| {
        let up = ui.add_enabled(d.browse.dir.parent().is_some(), egui::Button::new("⬆ Up"));
        if up.on_hover_text("The folder above").clicked() {
            go = d.browse.dir.parent().map(Path::to_path_buf);
        }
        let label = ui.label("Folder");
        let field = ui.add(egui::TextEdit::singleline(&mut d.browse.dir_text).desired_width(f32::INFINITY));
        let field = field.labelled_by(label.id);
        // Choosing a folder, the folder is what is typed: its field takes focus.
        if d.browse.purpose.is_folder() && std::mem::take(&mut d.focus_name) {
            field.request_focus();
        }
        if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            go = Some(PathBuf::from(d.browse.dir_text.trim()));
        }
    });
    go
}

/// The folder's entries: a click picks a file, a double click opens a folder or answers
/// with a file (into `answer`); returns the folder to go to.
fn entry_list(d: &mut InApp, ui: &mut Ui, height: f32, answer: &mut Option<Vec<PathBuf>>) -> Option<PathBuf> {
    let mut go = None;
    egui::ScrollArea::vertical().id_salt("cs-file-list").max_height(height).auto_shrink([false, false]).show(
        ui,
        |ui| match &d.browse.entries {
            Err(e) => {
                ui.label(RichText::new(e).color(theme::ERROR));
            }
            Ok(entries) if entries.is_empty() => {
                ui.label(RichText::new("Nothing here.").color(theme::TEXT_DIM));
            }
            Ok(entries) => {
                for e in entries {
                    let text = if e.is_dir { format!("🗀 {}", e.name) } else { format!("🗋 {}", e.name) };
                    let selected = !e.is_dir && e.name == d.browse.name;
                    let r = ui.selectable_label(selected, text);
                    if e.is_dir && (r.double_clicked() || (d.browse.purpose.is_folder() && r.clicked())) {
                        go = Some(d.browse.dir.join(&e.name));
                    } else if !e.is_dir && r.clicked() {
                        d.browse.name = e.name.clone();
                    }
                    if !e.is_dir && r.double_clicked() {
                        *answer = Some(vec![d.browse.dir.join(&e.name)]);
                    }
                }
            }
        },
    );
    go
}

/// The file name field; Enter in it answers with the target.
fn name_row(d: &mut InApp, ui: &mut Ui) -> Option<Vec<PathBuf>> {
    let mut answer = None;
    ui.horizontal(|ui| {
        let label = ui.label("File name");
        let edit = egui::TextEdit::singleline(&mut d.browse.name).desired_width(f32::INFINITY);
        let field = ui.add(edit).labelled_by(label.id);
        if std::mem::take(&mut d.focus_name) {
            field.request_focus();
        }
        if field.lost_focus()
            && ui.input(|i| i.key_pressed(egui::Key::Enter))
            && let Some(t) = d.browse.target()
        {
            answer = Some(vec![t]);
        }
    });
    answer
}

/// "Show all files", "New folder", Cancel and the confirming button (answers go into
/// `answer`); returns the folder to list again when the filter changes.
fn button_row(d: &mut InApp, ui: &mut Ui, answer: &mut Option<Vec<PathBuf>>) -> Option<PathBuf> {
    let mut go = None;
    let target = d.browse.target();
    let replaces = d.browse.purpose.is_save() && target.as_ref().is_some_and(|t| t.exists());
    ui.horizontal(|ui| {
        if ui.checkbox(&mut d.browse.show_all, "Show all files").changed() {
            go = Some(d.browse.dir.clone());
        }
        if ui.button("🗀 New folder").on_hover_text("Make a folder here").clicked() {
            d.new_folder = Some(String::new());
            d.focus_new_folder = true;
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if ui.button("Cancel").clicked() {
                *answer = Some(Vec::new());
            }
            let verb = match &d.browse.purpose {
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
fn folder_questions(d: &mut InApp, ui: &mut Ui) -> Option<PathBuf> {
    let mut go = None;
    if let Some(folder) = d.browse.missing_folder() {
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("The folder {} does not exist.", folder.display())).color(theme::WARN));
            if ui.button("Create folder").on_hover_text("Make it, then save there").clicked()
                && d.browse.make_folder(&folder)
            {
                go = Some(d.browse.dir.clone());
            }
        });
    } else if !d.browse.dir.is_dir() && d.browse.purpose.is_folder() {
        ui.horizontal(|ui| {
            ui.label(RichText::new("This folder does not exist.").color(theme::WARN));
            if ui.button("Create folder").clicked() && d.browse.make_folder(&d.browse.dir.clone()) {
                go = Some(d.browse.dir.clone());
            }
        });
    }
    if let Some(name) = &mut d.new_folder {
        let mut made = None;
        let mut close = false;
        ui.horizontal(|ui| {
            let label = ui.label("New folder");
            let field = ui.add(egui::TextEdit::singleline(name).desired_width(240.0)).labelled_by(label.id);
            // Typing goes to the name as soon as the row opens.
            if std::mem::take(&mut d.focus_new_folder) {
                field.request_focus();
            }
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui.add_enabled(!name.trim().is_empty(), egui::Button::new("Create")).clicked()
                || (entered && !name.trim().is_empty())
            {
                made = Some(d.browse.dir.join(name.trim()));
            }
            close = ui.button("Cancel").clicked();
        });
        if let Some(folder) = made
            && d.browse.make_folder(&folder)
        {
            d.new_folder = None;
            go = Some(folder);
        } else if close {
            d.new_folder = None;
        }
    }
    go
}

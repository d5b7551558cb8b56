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
use crate::tool::ToolFormat;
use crate::workflow::ExportMode;
use egui::{RichText, Ui};
use std::path::{Path, PathBuf};

/// What the chosen file or folder is for.
#[derive(Debug, Clone, PartialEq)]
pub enum Purpose {
    /// Packs, pack folders or a workflow to open.
    Open,
    OpenFolder,
    /// Save the workflow there (and then run what waited for the save, if anything).
    Save,
    Export(ExportMode),
    /// The trusted-keys folder of the Settings window.
    TrustedKeys,
    /// A registry folder to browse in the Registry window.
    Registry,
    /// The install cache the Registry window installs into.
    InstallFolder,
    /// An `openwop capabilities --json` document to take the host profile from.
    Capabilities,
    /// A saved OpenWOP app `node-catalog` response.
    NodeCatalog,
    /// Where the pack view saves the pack being authored (a `pack.json`).
    SavePack,
    /// The Ed25519 private key (PKCS#8 PEM) the pack view signs with.
    SigningKey,
    /// Where the pack view writes a new key pair (`NAME.private.pem`, `NAME.public.pem`).
    GenerateKey,
    /// Where the workflow goes, its sub-chain children beside it.
    ExportBundle,
    /// Where the Publish window saves the tool document it shows in this format.
    SaveTool(ToolFormat),
}

impl Purpose {
    fn title(&self) -> &'static str {
        match self {
            Purpose::Open => "Open packs or a workflow",
            Purpose::OpenFolder => "Open a pack folder (pack.json files in it or below)",
            Purpose::Save => "Save workflow",
            Purpose::Export(ExportMode::Faithful) => "Export expanded workflow (spec-faithful)",
            Purpose::Export(ExportMode::StrictSchema) => "Export expanded workflow (strict schema)",
            Purpose::TrustedKeys => "Choose the trusted-keys folder",
            Purpose::Registry => "Choose a registry folder (.well-known/openwop-registry.json)",
            Purpose::InstallFolder => "Choose the install cache folder",
            Purpose::Capabilities => "Import a host capabilities document",
            Purpose::NodeCatalog => "Import a host node catalog",
            Purpose::SavePack => "Save pack",
            Purpose::SigningKey => "Choose the private key to sign with",
            Purpose::GenerateKey => "Generate a signing key: its folder and name",
            Purpose::ExportBundle => "Export the workflow with its sub-chain children",
            Purpose::SaveTool(ToolFormat::Compact) => "Save the CompactToolDescriptor",
            Purpose::SaveTool(ToolFormat::MiRuntime) => "Save the MiRuntime tool contract",
        }
    }

    /// The kind of file it asks for: dialogs of one kind start in the folder the last one
    /// was answered in. An export is not a save (the two go to different places), and a
    /// registry is not a pack folder.
    pub fn kind(&self) -> &'static str {
        match self {
            Purpose::Open => "open",
            Purpose::OpenFolder => "pack-folder",
            Purpose::Save => "workflow",
            Purpose::Export(_) | Purpose::ExportBundle => "export",
            Purpose::TrustedKeys => "trusted-keys",
            Purpose::Registry => "registry",
            Purpose::InstallFolder => "install",
            Purpose::Capabilities | Purpose::NodeCatalog => "host",
            Purpose::SavePack => "pack",
            Purpose::SigningKey | Purpose::GenerateKey => "signing-key",
            Purpose::SaveTool(_) => "tool",
        }
    }

    /// The folder to remember of an answer: a chosen folder itself, a file's folder.
    pub fn folder_of(&self, chosen: &Path) -> Option<PathBuf> {
        if self.is_folder() { Some(chosen.to_path_buf()) } else { chosen.parent().map(Path::to_path_buf) }
    }

    fn is_save(&self) -> bool {
        matches!(
            self,
            Purpose::Save
                | Purpose::Export(_)
                | Purpose::SavePack
                | Purpose::ExportBundle
                | Purpose::SaveTool(_)
                | Purpose::GenerateKey
        )
    }

    /// The files listed unless "Show all files" is on, by how their names end.
    fn extensions(&self) -> &'static [&'static str] {
        match self {
            Purpose::SigningKey | Purpose::GenerateKey => &[".pem"],
            _ => &[".json", ".tgz"],
        }
    }

    fn is_folder(&self) -> bool {
        matches!(self, Purpose::OpenFolder | Purpose::TrustedKeys | Purpose::Registry | Purpose::InstallFolder)
    }
}

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
            let title = purpose.title();
            let chosen = match &purpose {
                // One key file: the open dialog is the one that picks an existing file.
                Purpose::Open | Purpose::Capabilities | Purpose::NodeCatalog | Purpose::SigningKey => {
                    self.system.open_files()
                }
                p if p.is_folder() => self.system.open_folder().into_iter().collect(),
                _ => self.system.save_file(title, suggested).into_iter().collect(),
            };
            return Some(chosen);
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
        let purpose = self.open.take().expect("checked above").purpose;
        Some((purpose, answer))
    }
}

/// One entry of the folder being shown.
struct Entry {
    name: String,
    is_dir: bool,
}

/// The in-app dialog: a folder's entries, a way up, a file name for saving.
struct InApp {
    purpose: Purpose,
    dir: PathBuf,
    /// The folder field's text, applied on Enter.
    dir_text: String,
    entries: Result<Vec<Entry>, String>,
    name: String,
    show_all: bool,
    /// The name field (the folder field when choosing a folder) takes focus when the dialog
    /// opens.
    focus_name: bool,
    /// The name of the folder being made with "New folder", while its field is open.
    new_folder: Option<String>,
    /// The new folder's name field takes focus when it opens.
    focus_new_folder: bool,
    /// Why the last folder could not be made.
    problem: Option<String>,
}

/// Folders list at most this many entries (a folder is read whenever it is entered).
const MAX_ENTRIES: usize = 5_000;

impl InApp {
    fn new(purpose: Purpose, dir: PathBuf, suggested: &str) -> Self {
        let mut d = Self {
            purpose,
            dir_text: String::new(),
            dir: PathBuf::new(),
            entries: Ok(Vec::new()),
            name: suggested.to_owned(),
            show_all: false,
            focus_name: true,
            new_folder: None,
            focus_new_folder: false,
            problem: None,
        };
        d.enter(dir);
        d
    }

    fn enter(&mut self, dir: PathBuf) {
        self.dir_text = dir.display().to_string();
        let shown = if self.purpose.is_folder() { None } else { Some(self.purpose.extensions()) };
        self.entries = read_folder(&dir, self.show_all, shown);
        self.dir = dir;
    }

    /// The file or folder the confirm button would answer with.
    fn target(&self) -> Option<PathBuf> {
        if self.purpose.is_folder() {
            return Some(self.dir.clone());
        }
        let name = self.name.trim();
        if name.is_empty() {
            return None;
        }
        let path = self.dir.join(name);
        let ok =
            if self.purpose.is_save() { !path.is_dir() && self.missing_folder().is_none() } else { path.is_file() };
        ok.then_some(path)
    }

    /// The folder a save would go into when it does not exist (the folder shown, or one
    /// named in the file name): saving waits until it is made.
    fn missing_folder(&self) -> Option<PathBuf> {
        let folder = self.dir.join(self.name.trim()).parent()?.to_path_buf();
        (self.purpose.is_save() && !folder.is_dir()).then_some(folder)
    }

    /// Make `folder` (and what leads to it); a failure is shown in the dialog, which stays.
    fn make_folder(&mut self, folder: &Path) -> bool {
        match std::fs::create_dir_all(folder) {
            Ok(()) => {
                self.problem = None;
                true
            }
            Err(e) => {
                self.problem = Some(format!("Could not make the folder {}: {e}", folder.display()));
                false
            }
        }
    }

    /// `Some(answer)` once the user confirms (one path) or cancels (none).
    fn show(&mut self, ctx: &egui::Context) -> Option<Vec<PathBuf>> {
        let mut answer = None;
        let mut open = true;
        Scaffold::new(WindowId::FileDialog, self.purpose.title(), &mut open)
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
        let footer = if self.purpose.is_folder() { 64.0 } else { 92.0 };
        let list_height = (ui.available_height() - footer).max(120.0);
        go = self.entry_list(ui, list_height, &mut answer).or(go);
        if !self.purpose.is_folder() {
            answer = self.name_row(ui).or(answer);
        }
        if let Some(folder) = self.folder_questions(ui) {
            go = Some(folder);
        }
        if let Some(problem) = &self.problem {
            ui.label(RichText::new(problem).color(theme::ERROR));
        }
        go = self.button_row(ui, &mut answer).or(go);
        if let Some(dir) = go {
            self.enter(dir);
        }
        answer
    }

    /// "Up" and the folder field: the folder to go to, when one is asked for.
    fn folder_row(&mut self, ui: &mut Ui) -> Option<PathBuf> {
        let mut go = None;
        ui.horizontal(|ui| {
            let up = ui.add_enabled(self.dir.parent().is_some(), egui::Button::new("⬆ Up"));
            if up.on_hover_text("The folder above").clicked() {
                go = self.dir.parent().map(Path::to_path_buf);
            }
            let label = ui.label("Folder");
            let field = ui.add(egui::TextEdit::singleline(&mut self.dir_text).desired_width(f32::INFINITY));
            let field = field.labelled_by(label.id);
            // Choosing a folder, the folder is what is typed: its field takes focus.
            if self.purpose.is_folder() && std::mem::take(&mut self.focus_name) {
                field.request_focus();
            }
            if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                go = Some(PathBuf::from(self.dir_text.trim()));
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
            |ui| match &self.entries {
                Err(e) => {
                    ui.label(RichText::new(e).color(theme::ERROR));
                }
                Ok(entries) if entries.is_empty() => {
                    ui.label(RichText::new("Nothing here.").color(theme::TEXT_DIM));
                }
                Ok(entries) => {
                    for e in entries {
                        let text = if e.is_dir { format!("🗀 {}", e.name) } else { format!("🗋 {}", e.name) };
                        let selected = !e.is_dir && e.name == self.name;
                        let r = ui.selectable_label(selected, text);
                        if e.is_dir && (r.double_clicked() || (self.purpose.is_folder() && r.clicked())) {
                            go = Some(self.dir.join(&e.name));
                        } else if !e.is_dir && r.clicked() {
                            self.name = e.name.clone();
                        }
                        if !e.is_dir && r.double_clicked() {
                            *answer = Some(vec![self.dir.join(&e.name)]);
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
            let edit = egui::TextEdit::singleline(&mut self.name).desired_width(f32::INFINITY);
            let field = ui.add(edit).labelled_by(label.id);
            if std::mem::take(&mut self.focus_name) {
                field.request_focus();
            }
            if field.lost_focus()
                && ui.input(|i| i.key_pressed(egui::Key::Enter))
                && let Some(t) = self.target()
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
        let target = self.target();
        let replaces = self.purpose.is_save() && target.as_ref().is_some_and(|t| t.exists());
        ui.horizontal(|ui| {
            if ui.checkbox(&mut self.show_all, "Show all files").changed() {
                go = Some(self.dir.clone());
            }
            if ui.button("🗀 New folder").on_hover_text("Make a folder here").clicked() {
                self.new_folder = Some(String::new());
                self.focus_new_folder = true;
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.button("Cancel").clicked() {
                    *answer = Some(Vec::new());
                }
                let verb = match &self.purpose {
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
        if let Some(folder) = self.missing_folder() {
            ui.horizontal(|ui| {
                ui.label(RichText::new(format!("The folder {} does not exist.", folder.display())).color(theme::WARN));
                if ui.button("Create folder").on_hover_text("Make it, then save there").clicked()
                    && self.make_folder(&folder)
                {
                    go = Some(self.dir.clone());
                }
            });
        } else if !self.dir.is_dir() && self.purpose.is_folder() {
            ui.horizontal(|ui| {
                ui.label(RichText::new("This folder does not exist.").color(theme::WARN));
                if ui.button("Create folder").clicked() && self.make_folder(&self.dir.clone()) {
                    go = Some(self.dir.clone());
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
                    made = Some(self.dir.join(name.trim()));
                }
                close = ui.button("Cancel").clicked();
            });
            if let Some(folder) = made
                && self.make_folder(&folder)
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

/// A folder's entries: folders first, then files, each by name; hidden ones and (unless
/// `all`) files whose names do not end in one of `extensions` left out; no files at all
/// when `extensions` is `None` (choosing a folder).
fn read_folder(dir: &Path, all: bool, extensions: Option<&[&str]>) -> Result<Vec<Entry>, String> {
    let read = std::fs::read_dir(dir).map_err(|e| format!("Cannot read {}: {e}", dir.display()))?;
    let mut out: Vec<Entry> = read
        .flatten()
        .take(MAX_ENTRIES)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            // Follows symbolic links, so a link to a folder can be entered.
            let is_dir = entry.path().is_dir();
            let hidden = name.starts_with('.');
            let file_shown = extensions.is_some_and(|ext| all || ext.iter().any(|e| name.ends_with(e)));
            let shown = !hidden && (is_dir || file_shown);
            shown.then_some(Entry { name, is_dir })
        })
        .collect();
    out.sort_by(|a, b| b.is_dir.cmp(&a.is_dir).then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase())));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_list_folders_first_and_json_files_unless_all() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("packs")).unwrap();
        std::fs::create_dir(dir.path().join(".hidden")).unwrap();
        for f in ["b.json", "A.json", "notes.txt", ".secret.json"] {
            std::fs::write(dir.path().join(f), "{}").unwrap();
        }
        let names = |all, purpose: Purpose| {
            let shown = if purpose.is_folder() { None } else { Some(purpose.extensions()) };
            read_folder(dir.path(), all, shown).unwrap().into_iter().map(|e| e.name).collect::<Vec<_>>()
        };
        assert_eq!(names(false, Purpose::Open), ["packs", "A.json", "b.json"]);
        assert_eq!(names(true, Purpose::Open), ["packs", "A.json", "b.json", "notes.txt"]);
        assert_eq!(names(false, Purpose::OpenFolder), ["packs"]);
        assert!(read_folder(&dir.path().join("missing"), false, None).is_err());
    }

    #[test]
    fn the_key_picker_lists_pem_files() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["signer.private.pem", "signer.public.pem", "pack.json"] {
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
        let picker = InApp::new(Purpose::SigningKey, dir.path().to_path_buf(), "");
        let names: Vec<String> = picker.entries.unwrap().into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["signer.private.pem", "signer.public.pem"]);
    }

    #[test]
    fn the_answer_is_a_file_in_the_folder_shown() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("flow.json"), "{}").unwrap();
        let save = InApp::new(Purpose::Save, dir.path().to_path_buf(), "new.json");
        assert_eq!(save.target(), Some(dir.path().join("new.json")));
        let mut open = InApp::new(Purpose::Open, dir.path().to_path_buf(), "");
        assert_eq!(open.target(), None, "nothing chosen yet");
        open.name = "missing.json".into();
        assert_eq!(open.target(), None, "only an existing file opens");
        open.name = "flow.json".into();
        assert_eq!(open.target(), Some(dir.path().join("flow.json")));
        let folder = InApp::new(Purpose::OpenFolder, dir.path().to_path_buf(), "");
        assert_eq!(folder.target(), Some(dir.path().to_path_buf()));
    }
}

//! The in-app file dialog's model, without its widgets: what a question is for (its title,
//! the files it lists, the folder it remembers), the folder being browsed with its entries,
//! the answer a confirm would give, and making a missing folder; and which dialog answers
//! ([`Dialogs`]: the system's, or the in-app one). `app::dialogs` draws the in-app one.

use super::files::FileDialogs;
use crate::tool::ToolFormat;
use crate::workflow::{ExportMode, Workflow};
use std::ffi::OsString;
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
    pub fn title(&self) -> &'static str {
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

    /// The name a save starts with (a tool document's comes from the Publish window).
    pub fn suggested_name(&self, wf: &Workflow) -> String {
        match self {
            Purpose::Save | Purpose::ExportBundle => super::files::suggested_name(wf),
            Purpose::Export(_) => super::files::suggested_name(wf).replace(".json", ".expanded.json"),
            Purpose::SavePack => "pack.json".to_owned(),
            Purpose::GenerateKey => "signing-key".to_owned(),
            _ => String::new(),
        }
    }

    /// The folder to remember of an answer: a chosen folder itself, a file's folder.
    pub fn folder_of(&self, chosen: &Path) -> Option<PathBuf> {
        if self.is_folder() { Some(chosen.to_path_buf()) } else { chosen.parent().map(Path::to_path_buf) }
    }

    pub fn is_save(&self) -> bool {
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
    pub fn extensions(&self) -> &'static [&'static str] {
        match self {
            Purpose::SigningKey | Purpose::GenerateKey => &[".pem"],
            _ => &[".json", ".tgz"],
        }
    }

    pub fn is_folder(&self) -> bool {
        matches!(self, Purpose::OpenFolder | Purpose::TrustedKeys | Purpose::Registry | Purpose::InstallFolder)
    }
}

/// Where the in-app dialog starts: where the last dialog of its kind was answered (a folder
/// since removed is passed over), else the home folder; a save first beside the workflow's
/// own file, an export beside it when none was made yet. Never beside the last file opened
/// (after opening a registry, Save started in it) and a new key pair never by default beside
/// the pack it will sign (a private key there is one `git add .` away from being published).
pub fn start_folder(
    purpose: &Purpose,
    workflow: Option<&Path>,
    last: Option<&Path>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    let beside = workflow.and_then(Path::parent);
    let last = last.filter(|d| d.is_dir());
    let start = match purpose {
        Purpose::Save => beside.or(last),
        Purpose::Export(_) | Purpose::ExportBundle => last.or(beside),
        _ => last,
    };
    start.map(Path::to_path_buf).or(home)
}

/// Which system dialog answers a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// An existing file; several at once only when `many`.
    Files {
        many: bool,
    },
    Folder,
    /// A file to write.
    Save,
}

/// The question put to the system dialog: the one the in-app dialog gets, in the terms rfd
/// takes (its title, filters, the name a save suggests and the folder it starts in).
#[derive(Debug, Clone, PartialEq)]
pub struct NativeRequest {
    pub pick: Pick,
    pub title: &'static str,
    /// Each filter's name and the extensions it lists (without the dot).
    pub filters: Vec<(&'static str, &'static [&'static str])>,
    pub suggested: String,
    /// The folder [`start_folder`] chose, so both dialogs remember the last folder per kind.
    pub start: Option<PathBuf>,
}

impl NativeRequest {
    pub fn new(purpose: &Purpose, suggested: &str, start: Option<&Path>) -> Self {
        const PACKS: (&str, &[&str]) = ("Packs and workflows", &["json", "tgz"]);
        const KEYS: (&str, &[&str]) = ("PEM keys", &["pem"]);
        const JSON: (&str, &[&str]) = ("JSON", &["json"]);
        const ALL: (&str, &[&str]) = ("All files", &["*"]);
        let (pick, filters) = match purpose {
            Purpose::Open => (Pick::Files { many: true }, vec![PACKS, ALL]),
            Purpose::Capabilities | Purpose::NodeCatalog => (Pick::Files { many: false }, vec![JSON, ALL]),
            Purpose::SigningKey => (Pick::Files { many: false }, vec![KEYS, ALL]),
            Purpose::GenerateKey => (Pick::Save, vec![KEYS]),
            p if p.is_folder() => (Pick::Folder, Vec::new()),
            _ => (Pick::Save, vec![JSON]),
        };
        Self {
            pick,
            title: purpose.title(),
            filters,
            suggested: suggested.to_owned(),
            start: start.map(Path::to_path_buf),
        }
    }
}

/// `CHAINSMITH_FILE_DIALOG=in-app` or `=system` overrides what is detected.
const DIALOG_ENV: &str = "CHAINSMITH_FILE_DIALOG";

/// Whether the system file dialog (rfd) can be shown, with the environment read through
/// `var`: on Linux and the BSDs (`unix_desktop`) it needs the desktop portal (a session bus,
/// and the portal service installed for the bus to start) or zenity; elsewhere it is there.
pub fn system_dialog_usable(var: impl Fn(&str) -> Option<OsString>, unix_desktop: bool) -> bool {
    match var(DIALOG_ENV).as_deref().and_then(|v| v.to_str()) {
        Some("in-app") => false,
        Some("system") => true,
        _ => !unix_desktop || on_path(&var, "zenity") || (session_bus(&var) && portal_installed(&var)),
    }
}

/// Whether the system dialog can be shown on this desktop, found once per run.
pub fn system_dialog_here() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let unix_desktop =
        cfg!(any(target_os = "linux", target_os = "freebsd", target_os = "openbsd", target_os = "netbsd"));
    *AVAILABLE.get_or_init(|| system_dialog_usable(|name| std::env::var_os(name), unix_desktop))
}

fn on_path(var: &impl Fn(&str) -> Option<OsString>, tool: &str) -> bool {
    var("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

fn session_bus(var: &impl Fn(&str) -> Option<OsString>) -> bool {
    var("DBUS_SESSION_BUS_ADDRESS").is_some()
        || var("XDG_RUNTIME_DIR").is_some_and(|d| Path::new(&d).join("bus").exists())
}

/// The portal's D-Bus service file, in the data folders the bus looks in.
fn portal_installed(var: &impl Fn(&str) -> Option<OsString>) -> bool {
    let dirs = var("XDG_DATA_DIRS")
        .and_then(|d| d.into_string().ok())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".to_owned());
    let home =
        var("XDG_DATA_HOME").map(PathBuf::from).or_else(|| var("HOME").map(|h| Path::new(&h).join(".local/share")));
    dirs.split(':')
        .map(PathBuf::from)
        .chain(home)
        .any(|d| d.join("dbus-1/services/org.freedesktop.portal.Desktop.service").is_file())
}

/// One entry of the folder being shown.
pub struct Entry {
    pub name: String,
    pub is_dir: bool,
}

/// The folder the in-app dialog shows, and the name typed for the answer.
pub struct Browse {
    pub purpose: Purpose,
    pub dir: PathBuf,
    /// The folder field's text, applied on Enter.
    pub dir_text: String,
    pub entries: Result<Vec<Entry>, String>,
    pub name: String,
    pub show_all: bool,
    /// Why the last folder could not be made.
    pub problem: Option<String>,
}

/// Folders list at most this many entries (a folder is read whenever it is entered).
const MAX_ENTRIES: usize = 5_000;

impl Browse {
    pub fn new(purpose: Purpose, dir: PathBuf, suggested: &str) -> Self {
        let mut d = Self {
            purpose,
            dir_text: String::new(),
            dir: PathBuf::new(),
            entries: Ok(Vec::new()),
            name: suggested.to_owned(),
            show_all: false,
            problem: None,
        };
        d.enter(dir);
        d
    }

    /// Show `dir`, its entries read again.
    pub fn enter(&mut self, dir: PathBuf) {
        self.dir_text = dir.display().to_string();
        let shown = if self.purpose.is_folder() { None } else { Some(self.purpose.extensions()) };
        self.entries = read_folder(&dir, self.show_all, shown);
        self.dir = dir;
    }

    /// The file or folder the confirm button would answer with.
    pub fn target(&self) -> Option<PathBuf> {
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
    pub fn missing_folder(&self) -> Option<PathBuf> {
        let folder = self.dir.join(self.name.trim()).parent()?.to_path_buf();
        (self.purpose.is_save() && !folder.is_dir()).then_some(folder)
    }

    /// Make `folder` (and what leads to it); a failure is shown in the dialog, which stays.
    pub fn make_folder(&mut self, folder: &Path) -> bool {
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
}

/// A folder's entries: folders first, then files, each by name; hidden ones and (unless
/// `all`) files whose names do not end in one of `extensions` left out; no files at all
/// when `extensions` is `None` (choosing a folder).
pub fn read_folder(dir: &Path, all: bool, extensions: Option<&[&str]>) -> Result<Vec<Entry>, String> {
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

/// Which file dialog answers the editor's questions: the system's (through
/// [`FileDialogs`]), or the in-app one while it is open. The system dialog needs a desktop
/// portal or zenity on Linux; without either it returns "nothing chosen" at once, which looks
/// exactly like a cancel, so the in-app dialog answers when the system one cannot be shown.
/// The in-app dialog answers frames later: every question carries its [`Purpose`].
pub struct Dialogs {
    system: Box<dyn FileDialogs>,
    /// Set in Settings: always use the in-app dialog.
    pub prefer_in_app: bool,
    pub open: Option<InApp>,
}

/// The in-app dialog: the folder it browses, and which of its fields takes the keyboard.
pub struct InApp {
    pub browse: Browse,
    /// The name field (the folder field when choosing a folder) takes focus when the dialog
    /// opens.
    pub focus_name: bool,
    /// The name of the folder being made with "New folder", while its field is open.
    pub new_folder: Option<String>,
    /// The new folder's name field takes focus when it opens.
    pub focus_new_folder: bool,
}

impl Dialogs {
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
    /// the in-app one opens and answers later, through [`Dialogs::answered`].
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
        let browse = Browse::new(purpose, dir, suggested);
        self.open = Some(InApp { browse, focus_name: true, new_folder: None, focus_new_folder: false });
        None
    }

    /// The in-app dialog's answer (an empty list when cancelled): it closes, and says what it
    /// was asked for.
    pub fn answered(&mut self, answer: Vec<PathBuf>) -> Option<(Purpose, Vec<PathBuf>)> {
        Some((self.open.take()?.browse.purpose, answer))
    }
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
        let picker = Browse::new(Purpose::SigningKey, dir.path().to_path_buf(), "");
        let names: Vec<String> = picker.entries.unwrap().into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["signer.private.pem", "signer.public.pem"]);
    }

    #[test]
    fn the_answer_is_a_file_in_the_folder_shown() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("flow.json"), "{}").unwrap();
        let save = Browse::new(Purpose::Save, dir.path().to_path_buf(), "new.json");
        assert_eq!(save.target(), Some(dir.path().join("new.json")));
        let mut open = Browse::new(Purpose::Open, dir.path().to_path_buf(), "");
        assert_eq!(open.target(), None, "nothing chosen yet");
        open.name = "missing.json".into();
        assert_eq!(open.target(), None, "only an existing file opens");
        open.name = "flow.json".into();
        assert_eq!(open.target(), Some(dir.path().join("flow.json")));
        let folder = Browse::new(Purpose::OpenFolder, dir.path().to_path_buf(), "");
        assert_eq!(folder.target(), Some(dir.path().to_path_buf()));
    }

    #[test]
    fn a_save_into_a_missing_folder_waits_until_it_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let mut save = Browse::new(Purpose::SavePack, dir.path().to_path_buf(), "new/pack.json");
        let missing = dir.path().join("new");
        assert_eq!(save.missing_folder(), Some(missing.clone()));
        assert_eq!(save.target(), None, "no answer until the folder exists");
        assert!(save.make_folder(&missing) && save.problem.is_none());
        assert_eq!(save.target(), Some(missing.join("pack.json")));
        std::fs::write(dir.path().join("file"), "x").unwrap();
        assert!(!save.make_folder(&dir.path().join("file").join("below")));
        assert!(save.problem.as_deref().is_some_and(|p| p.starts_with("Could not make the folder ")));
    }

    #[test]
    fn dialogs_start_where_their_kind_was_last_answered_else_at_home() {
        let dir = tempfile::tempdir().unwrap();
        let home = Some(PathBuf::from("/home/someone"));
        // Nothing remembered: the home folder, a new key pair included.
        assert_eq!(start_folder(&Purpose::GenerateKey, None, None, home.clone()), home);
        assert_eq!(start_folder(&Purpose::Registry, None, None, home.clone()), home);
        // Remembered: there, while it exists.
        let last = Some(dir.path());
        assert_eq!(start_folder(&Purpose::SavePack, None, last, home.clone()).as_deref(), last);
        let gone = dir.path().join("gone");
        assert_eq!(start_folder(&Purpose::SavePack, None, Some(&gone), home.clone()), home);
        // A save goes beside the workflow's file first.
        let wf = Path::new("/work/flows/main.json");
        assert_eq!(start_folder(&Purpose::Save, Some(wf), last, home.clone()), Some(PathBuf::from("/work/flows")));
        assert_eq!(start_folder(&Purpose::SigningKey, Some(wf), None, home.clone()), home);
        // An export beside it until one was made elsewhere.
        let export = Purpose::Export(crate::workflow::ExportMode::Faithful);
        assert_eq!(start_folder(&export, Some(wf), None, home.clone()), Some(PathBuf::from("/work/flows")));
        assert_eq!(start_folder(&export, Some(wf), last, home.clone()).as_deref(), last);
    }

    #[test]
    fn the_system_dialog_starts_where_its_kind_was_last_answered() {
        let dir = tempfile::tempdir().unwrap();
        let home = Some(dir.path().join("home"));
        // One remembered folder per kind, as the settings keep them.
        let mut last = std::collections::BTreeMap::new();
        let purposes = [
            Purpose::Open,
            Purpose::OpenFolder,
            Purpose::Registry,
            Purpose::InstallFolder,
            Purpose::Save,
            Purpose::Export(ExportMode::Faithful),
            Purpose::SavePack,
            Purpose::SigningKey,
            Purpose::GenerateKey,
            Purpose::Capabilities,
            Purpose::SaveTool(ToolFormat::Compact),
        ];
        for p in &purposes {
            let folder = dir.path().join(p.kind());
            std::fs::create_dir_all(&folder).unwrap();
            last.insert(p.kind().to_owned(), folder);
        }
        for p in &purposes {
            let start = start_folder(p, None, last.get(p.kind()).map(PathBuf::as_path), home.clone());
            let request = NativeRequest::new(p, "", start.as_deref());
            assert_eq!(request.start.as_deref(), Some(dir.path().join(p.kind()).as_path()), "{p:?}");
        }
        // Nothing remembered: the home folder, never the folder the editor was started in.
        let request = NativeRequest::new(
            &Purpose::Registry,
            "",
            start_folder(&Purpose::Registry, None, None, home.clone()).as_deref(),
        );
        assert_eq!(request.start, home);
        // The request asks the dialog that fits, titled and filtered as the in-app one.
        let key = NativeRequest::new(&Purpose::SigningKey, "", None);
        assert_eq!(
            (key.pick, key.title, key.filters[0].1),
            (Pick::Files { many: false }, Purpose::SigningKey.title(), &["pem"][..])
        );
        assert_eq!(NativeRequest::new(&Purpose::Registry, "", None).pick, Pick::Folder);
        let save = NativeRequest::new(&Purpose::SavePack, "pack.json", None);
        assert_eq!((save.pick, save.suggested.as_str()), (Pick::Save, "pack.json"));
    }

    #[test]
    fn saves_suggest_a_name_from_the_workflow() {
        let wf = Workflow::new("Support triage");
        let name = crate::editor::files::suggested_name(&wf);
        assert_eq!(Purpose::Save.suggested_name(&wf), name);
        assert_eq!(Purpose::Export(ExportMode::Faithful).suggested_name(&wf), name.replace(".json", ".expanded.json"));
        assert_eq!(Purpose::SavePack.suggested_name(&wf), "pack.json");
        assert_eq!(Purpose::GenerateKey.suggested_name(&wf), "signing-key");
        assert_eq!(Purpose::Open.suggested_name(&wf), "");
    }

    #[test]
    fn the_system_dialog_needs_a_portal_or_zenity_on_a_unix_desktop() {
        let dir = tempfile::tempdir().unwrap();
        let env = |pairs: Vec<(&'static str, OsString)>| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone())
        };
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        // Nothing found (the data folders point at an empty one).
        let bare = || vec![("XDG_DATA_DIRS", empty.clone().into_os_string()), ("HOME", empty.clone().into_os_string())];
        assert!(!system_dialog_usable(env(bare()), true));
        assert!(system_dialog_usable(env(bare()), false), "elsewhere the system dialog is there");
        // The override wins either way.
        let mut forced = bare();
        forced.push((DIALOG_ENV, "system".into()));
        assert!(system_dialog_usable(env(forced), true));
        assert!(!system_dialog_usable(env(vec![(DIALOG_ENV, "in-app".into())]), false));
        // zenity on PATH.
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::write(bin.join("zenity"), "").unwrap();
        let mut zenity = bare();
        zenity.push(("PATH", bin.into_os_string()));
        assert!(system_dialog_usable(env(zenity), true));
        // A session bus and the portal's service file.
        let services = dir.path().join("share/dbus-1/services");
        std::fs::create_dir_all(&services).unwrap();
        std::fs::write(services.join("org.freedesktop.portal.Desktop.service"), "").unwrap();
        let portal = || {
            vec![("XDG_DATA_DIRS", dir.path().join("share").into_os_string()), ("HOME", empty.clone().into_os_string())]
        };
        assert!(!system_dialog_usable(env(portal()), true), "no session bus");
        let mut with_bus = portal();
        with_bus.push(("DBUS_SESSION_BUS_ADDRESS", "unix:path=/x".into()));
        assert!(system_dialog_usable(env(with_bus), true));
    }

    /// System dialogs that answer from a list, and count the questions they were asked.
    struct Answering {
        available: bool,
        asked: std::rc::Rc<std::cell::Cell<usize>>,
    }

    impl FileDialogs for Answering {
        fn pick(&mut self, request: &NativeRequest) -> Vec<PathBuf> {
            self.asked.set(self.asked.get() + 1);
            vec![match request.pick {
                Pick::Files { .. } => PathBuf::from("/chosen/pack.json"),
                Pick::Folder => PathBuf::from("/chosen"),
                Pick::Save => Path::new("/chosen").join(&request.suggested),
            }]
        }
        fn available(&self) -> bool {
            self.available
        }
    }

    fn dialogs(available: bool) -> (Dialogs, std::rc::Rc<std::cell::Cell<usize>>) {
        let asked = std::rc::Rc::new(std::cell::Cell::new(0));
        (Dialogs::new(Box::new(Answering { available, asked: asked.clone() })), asked)
    }

    #[test]
    fn the_system_dialog_answers_at_once_by_the_kind_of_question() {
        let (mut d, asked) = dialogs(true);
        assert!(d.uses_system());
        assert_eq!(d.describe(), "File dialogs: system");
        assert_eq!(d.ask(Purpose::SigningKey, "", None), Some(vec![PathBuf::from("/chosen/pack.json")]));
        assert_eq!(d.ask(Purpose::Registry, "", None), Some(vec![PathBuf::from("/chosen")]));
        assert_eq!(d.ask(Purpose::Save, "flow.json", None), Some(vec![PathBuf::from("/chosen/flow.json")]));
        assert_eq!(asked.get(), 3);
        assert!(d.open.is_none());
    }

    #[test]
    fn without_a_system_dialog_the_in_app_one_opens_and_answers_later() {
        let dir = tempfile::tempdir().unwrap();
        let (mut d, asked) = dialogs(false);
        assert_eq!(d.describe(), "File dialogs: in-app (no desktop portal or zenity found)");
        assert_eq!(d.ask(Purpose::Save, "flow.json", Some(dir.path())), None);
        let open = d.open.as_ref().expect("the in-app dialog is open");
        assert_eq!((open.browse.dir.as_path(), open.browse.name.as_str()), (dir.path(), "flow.json"));
        assert!(open.focus_name);
        // One question at a time: a second is dropped, the first stays.
        assert_eq!(d.ask(Purpose::Open, "", None), None);
        assert_eq!(d.open.as_ref().unwrap().browse.purpose, Purpose::Save);
        let answer = vec![dir.path().join("flow.json")];
        assert_eq!(d.answered(answer.clone()), Some((Purpose::Save, answer)));
        assert!(d.open.is_none() && d.answered(Vec::new()).is_none());
        assert_eq!(asked.get(), 0, "the system dialog was never asked");
    }

    #[test]
    fn chosen_in_settings_the_in_app_dialog_answers_even_with_a_system_one() {
        let (mut d, asked) = dialogs(true);
        d.prefer_in_app = true;
        assert!(!d.uses_system());
        assert_eq!(d.describe(), "File dialogs: in-app (chosen in Settings)");
        assert_eq!(d.ask(Purpose::Registry, "", Some(Path::new("/"))), None);
        assert!(d.open.is_some());
        assert_eq!(asked.get(), 0);
    }
}

//! The Settings window: the target host profile (chain-packs §11.8) and the trust policy
//! (node-packs §4.3) that every chain is checked against before it is inserted. A change
//! applies at once: the policy is rebuilt, every pack is re-checked (palette badges, blocked
//! tiles), an open parameter form is re-checked, and the settings persist with the others.

use super::theme;
use super::window::{Scaffold, Window, WindowId};
use crate::catalog::{HostProfile, TrustedKeys};
use crate::editor::commands::CommandId;
use crate::editor::host_import;
use crate::editor::settings::Settings;
use crate::editor::trust_settings::{DEPTHS, TrustFiles, TrustSettings};
use crate::error::{Error, code};
use egui::text::LayoutJob;
use egui::{Align, FontSelection, RichText, Ui};

const WINDOW_WIDTH: f32 = 800.0;

/// Key-loading findings shown at most this tall; a folder of junk must not grow the window.
const FINDINGS_HEIGHT: f32 = 72.0;

/// The window's own state; the settings themselves live in [`Settings`].
#[derive(Default)]
pub struct TrustWindow {
    pub open: bool,
    /// The node-type pattern being typed, before "Add".
    pub(super) new_node_type: String,
}

/// What the Settings window reads while it draws, at `at` until moved; `settings` change in
/// place.
pub struct SettingsInput<'a> {
    pub settings: &'a mut Settings,
    pub keys: &'a TrustedKeys,
    /// What reading the settings' files found.
    pub files: &'a TrustFiles,
    /// The workflow's node count (the host's node limit is shown against it).
    pub nodes: usize,
    /// How file dialogs are shown, for the dialogs setting's note.
    pub dialogs_note: &'a str,
    pub at: egui::Pos2,
}

/// What the Settings window asked for this frame, besides the settings it changed in place.
pub struct Asked {
    /// Choose the trusted-keys folder.
    pub choose_keys: bool,
    /// Run an import command (capabilities, node catalog).
    pub import: Option<CommandId>,
}

impl Window for TrustWindow {
    type Input<'a> = SettingsInput<'a>;
    type Response = Asked;
    const ID: WindowId = WindowId::Settings;
    const SIZE: Option<egui::Vec2> = None;

    fn close(&mut self) -> bool {
        std::mem::take(&mut self.open)
    }

    /// The window while it is open, at `at` until moved; `settings` change in place.
    fn show(&mut self, ctx: &egui::Context, input: SettingsInput<'_>) -> Asked {
        let SettingsInput { settings, keys, files, nodes, dialogs_note, at } = input;
        let mut asked = Asked { choose_keys: false, import: None };
        if !self.open {
            return asked;
        }
        let mut open = true;
        let imported = (files.node_catalog.as_ref(), files.import_error.as_ref());
        let keys_error = files.keys_error.as_ref();
        let new_node_type = &mut self.new_node_type;
        let in_app_dialogs = &mut settings.in_app_dialogs;
        let s = &mut settings.trust;
        Scaffold::of::<Self>("Settings", &mut open).fixed_size().width(WINDOW_WIDTH).at(at).constrained().show(
            ctx,
            |ui| {
                // Columns are justified, which would stretch wrapped explanations word by word.
                let left = egui::Layout::top_down(Align::LEFT);
                ui.columns(2, |cols| {
                    cols[0].with_layout(left, |ui| {
                        asked.import = import_section(ui, s, imported, nodes);
                        host_section(ui, &mut s.host, new_node_type);
                    });
                    asked.choose_keys = cols[1].with_layout(left, |ui| trust_section(ui, s, keys, keys_error)).inner;
                });
                ui.separator();
                ui.checkbox(in_app_dialogs, "Always use the in-app file dialog");
                dim(ui, &format!("{dialogs_note}. The system dialog needs a desktop portal or zenity."));
                ui.separator();
                ui.horizontal(|ui| {
                    if ui.button("Reset to defaults").clicked() {
                        *s = TrustSettings::default();
                    }
                    dim(ui, "Changes apply at once and are kept between runs.");
                });
            },
        );
        self.open = open;
        asked
    }
}

/// Importing what a host publishes: its capabilities document and its node catalog, with
/// what was imported and whether the open workflow fits the host's node limit.
fn import_section(
    ui: &mut Ui,
    s: &mut TrustSettings,
    (node_catalog, import_error): (Option<&Result<Vec<String>, Error>>, Option<&Error>),
    nodes: usize,
) -> Option<CommandId> {
    let mut import = None;
    ui.horizontal(|ui| {
        // The buttons are the registry's commands: same label, same tooltip as the menu's.
        for command in [CommandId::ImportCapabilities, CommandId::ImportNodeCatalog] {
            let spec = command.spec();
            if ui.button(spec.label).on_hover_text(spec.tooltip).clicked() {
                import = Some(command);
            }
        }
    });
    if let Some(e) = import_error {
        ui.label(RichText::new(format!("{}: {}", e.code, e.message)).small().color(theme::ERROR));
    }
    if let Some(from) = &s.capabilities {
        let text = format!("Profile imported from {} ({})", from.path.display(), from.form);
        ui.label(RichText::new(text).small().color(theme::OK));
        dim(ui, &host_import::describe(&s.host).join(" · "));
    }
    if let Some(finding) = s.host.node_count_finding(nodes, "The open workflow") {
        ui.label(RichText::new(format!("{}: {}", finding.code, finding.message)).small().color(theme::WARN));
    }
    if let Some(path) = s.node_catalog.clone() {
        ui.horizontal(|ui| {
            let text = match node_catalog {
                Some(Ok(ids)) => format!("Host node types from {}: {}", path.display(), ids.join(", ")),
                Some(Err(e)) => format!("{} cannot be read: {} {}", path.display(), e.code, e.message),
                None => format!("Host node types from {}", path.display()),
            };
            let color = if matches!(node_catalog, Some(Err(_))) { theme::ERROR } else { theme::OK };
            ui.add(egui::Label::new(RichText::new(text).small().color(color)).wrap());
            if ui.small_button("Clear").on_hover_text("Stop using this node catalog").clicked() {
                s.node_catalog = None;
            }
        });
    }
    ui.add_space(4.0);
    import
}

fn host_section(ui: &mut Ui, host: &mut HostProfile, new_entry: &mut String) {
    ui.label(RichText::new("Target host profile").heading());
    dim(
        ui,
        "What the host that will run the exported workflow supports. A chain that needs more is refused here, before it is inserted.",
    );
    ui.add_space(4.0);
    ui.checkbox(&mut host.compensation, "Compensation");
    explain(ui, "Off: a chain with a compensation policy is refused with ", code::CAPABILITY_REQUIRED, ".");
    ui.horizontal(|ui| {
        ui.checkbox(&mut host.sub_chains, "Sub-chains");
        let label = ui.add_enabled(host.sub_chains, egui::Label::new("max depth"));
        let depth = egui::DragValue::new(&mut host.max_depth).range(DEPTHS);
        ui.add_enabled(host.sub_chains, depth).labelled_by(label.id);
    });
    explain(
        ui,
        "Off: a chain that composes sub-chains is refused with ",
        code::SUB_CHAIN_UNSUPPORTED,
        ". Sub-chain nodes stay references; the host resolves them up to its max depth.",
    );
    ui.checkbox(&mut host.secrets, "Secrets");
    ui.checkbox(&mut host.deferred_parameters, "Deferred parameters");
    explain(
        ui,
        "A parameter marked x-openwop-sensitive that a token writes into config or inputs is refused with ",
        code::SENSITIVE_PARAM_NOT_DEFERRABLE,
        " whatever these say: only a deferred prompt variable may carry it, and chainsmith writes every value into the workflow.",
    );
    ui.add_space(4.0);
    node_types_section(ui, host, new_entry);
}

/// The node types the host provides itself: a removable list and a field to add one.
fn node_types_section(ui: &mut Ui, host: &mut HostProfile, new_entry: &mut String) {
    ui.label(RichText::new("Node types the host provides").strong());
    explain(
        ui,
        "typeIds no node pack declares because the host application implements them. Exact ids, or prefixes ending in * (feature.*). Otherwise a chain using them is refused with ",
        code::CHAIN_UNRESOLVABLE_TYPEID,
        ".",
    );
    let mut remove = None;
    egui::ScrollArea::vertical().id_salt("cs-host-types").max_height(FINDINGS_HEIGHT).show(ui, |ui| {
        for (i, p) in host.node_types.iter().enumerate() {
            ui.horizontal(|ui| {
                let what = format!("Remove {p}");
                let button = ui.small_button("🗙");
                button.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &what));
                if button.on_hover_text(&what).clicked() {
                    remove = Some(i);
                }
                ui.label(RichText::new(p).monospace());
            });
        }
    });
    if let Some(i) = remove {
        host.node_types.remove(i);
    }
    let problem = (!new_entry.is_empty()).then(|| HostProfile::node_type_problem(new_entry.trim())).flatten();
    let duplicate = host.node_types.iter().any(|p| p == new_entry.trim());
    ui.horizontal(|ui| {
        let label = ui.label("Add");
        let edit = egui::TextEdit::singleline(new_entry).hint_text("feature.*").desired_width(220.0);
        let field = ui.add(edit.id_salt("cs-host-type-new")).labelled_by(label.id);
        let ok = !new_entry.trim().is_empty() && problem.is_none() && !duplicate;
        let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let add = ui.add_enabled(ok, egui::Button::new("Add type")).clicked();
        if ok && (add || enter) {
            host.node_types.push(new_entry.trim().to_owned());
            new_entry.clear();
        }
    });
    if let Some(p) = problem {
        ui.label(RichText::new(p).small().color(theme::ERROR));
    }
}

/// Returns whether "Choose…" was clicked; the dialog is asked for after the window is drawn.
fn trust_section(ui: &mut Ui, s: &mut TrustSettings, keys: &TrustedKeys, error: Option<&Error>) -> bool {
    ui.label(RichText::new("Trust policy").heading());
    let mut choose = false;
    ui.horizontal(|ui| {
        ui.label("Trusted keys folder");
        choose = ui.button("Choose…").on_hover_text("A folder of PEM public keys (SPKI Ed25519)").clicked();
        if ui.add_enabled(s.trusted_keys.is_some(), egui::Button::new("Clear")).clicked() {
            s.trusted_keys = None;
        }
    });
    match (&s.trusted_keys, error) {
        (None, _) => dim(ui, "None chosen: a pack with a valid signature shows as ⚠ untrusted."),
        (Some(dir), Some(e)) => {
            ui.label(RichText::new(dir.display().to_string()).monospace().small());
            // The code names the I/O failure generically; the message says what happened.
            let text = format!("Cannot read this folder, so no key is trusted: {}", e.message);
            ui.label(RichText::new(text).small().color(theme::ERROR));
        }
        (Some(dir), None) => {
            ui.label(RichText::new(dir.display().to_string()).monospace().small());
            let n = keys.len();
            let color = if n == 0 { theme::WARN } else { theme::OK };
            ui.label(RichText::new(format!("{n} key{} loaded", if n == 1 { "" } else { "s" })).color(color));
        }
    }
    if !keys.findings.is_empty() {
        egui::ScrollArea::vertical().id_salt("cs-key-findings").max_height(FINDINGS_HEIGHT).show(ui, |ui| {
            for f in &keys.findings {
                ui.label(RichText::new(format!("{}: {}", f.code, f.message)).small().color(theme::WARN));
            }
        });
    }
    ui.add_space(4.0);
    ui.checkbox(&mut s.require_signed, "Require signed packs");
    explain(
        ui,
        "On: an unsigned, untrusted or unverifiable pack is refused (",
        code::PACK_UNSIGNED,
        " and its kin) instead of warned about. An invalid signature is always refused.",
    );
    ui.checkbox(&mut s.strict, "Strict node-config checks");
    explain(
        ui,
        "On: node config and port findings against the catalog's schemas (",
        code::NODE_CONFIG_INVALID,
        ") block the insert instead of warning.",
    );
    choose
}

fn dim(ui: &mut Ui, text: &str) {
    ui.label(RichText::new(text).small().color(theme::TEXT_DIM));
}

/// A dim explanation naming the refusal code it concerns, in one label so that the code is
/// not mistaken for a finding.
fn explain(ui: &mut Ui, before: &str, code: &str, after: &str) {
    let mut job = LayoutJob::default();
    let style = ui.style().clone();
    let parts = [
        RichText::new(before).small().color(theme::TEXT_DIM),
        RichText::new(code).small().family(egui::FontFamily::Monospace).color(theme::WARN),
        RichText::new(after).small().color(theme::TEXT_DIM),
    ];
    for part in parts {
        part.append_to(&mut job, &style, FontSelection::Default, Align::Center);
    }
    ui.add(egui::Label::new(job).wrap());
    ui.add_space(2.0);
}

//! The Registry window: a registry's packs, from a folder or an `https://` URL (name, kind,
//! versions, yanked and deprecated, how the version an install takes verified), a filter,
//! and per version Install (into the OpenWOP install cache) and Open (its tarball as a pack
//! in the palette). Listing, Install and Open run in the background: a spinner, the time
//! taken so far and a Cancel button stand for them while the window keeps drawing. The
//! model is [`crate::editor::registry_view`]; this file only draws it.

use super::theme;
use super::window::{Scaffold, Window, WindowId};
use crate::editor::registry_view::{Listing, Outcome, RegistryView};
use crate::registry::{Check, PackListing};
use egui::{Color32, RichText, Ui};
use std::time::Duration;

const WINDOW_SIZE: egui::Vec2 = egui::vec2(900.0, 560.0);
/// Every row of the list is this tall, so only the rows in view are laid out.
const ROW_HEIGHT: f32 = 26.0;
/// The space kept for what the last Install or Open did.
const OUTCOME_HEIGHT: f32 = 36.0;

/// The next step under a folder that could not be listed.
const NOT_A_REGISTRY: &str = "A registry folder has .well-known/openwop-registry.json. Choose another folder, \
    or open a folder of pack.json files with File › Open pack folder….";

/// What the user asked the window for; handled by the app after drawing.
pub enum Request {
    ChooseFolder,
    /// Open the URL in the window's field.
    OpenUrl,
    ChooseInstallFolder,
    Install {
        name: String,
        version: String,
    },
    Open {
        name: String,
        version: String,
    },
}

/// Whether the window is open; what it shows is the editor model's [`RegistryView`].
#[derive(Default)]
pub struct RegistryWindow {
    pub open: bool,
}

/// One line of the list: a version of a pack (the pack's own columns on its first line).
struct Line<'a> {
    pack: &'a PackListing,
    first: bool,
    version: usize,
}

fn contents(view: &mut RegistryView, ui: &mut Ui) -> Option<Request> {
    let mut request = None;
    ui.horizontal(|ui| {
        ui.label("Location");
        let shown = view.location().unwrap_or("none chosen").to_owned();
        ui.label(RichText::new(shown).monospace().small());
        if ui.button("Choose folder…").on_hover_text("A folder with .well-known/openwop-registry.json").clicked() {
            request = Some(Request::ChooseFolder);
        }
    });
    ui.horizontal(|ui| {
        let label = ui.label("Registry URL");
        let edit = egui::TextEdit::singleline(&mut view.url).hint_text("https://packs.example.org");
        let field = ui.add(edit.id_salt("cs-registry-url").desired_width(360.0)).labelled_by(label.id);
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let filled = !view.url.trim().is_empty();
        let open = ui
            .add_enabled(filled, egui::Button::new("Open URL"))
            .on_hover_text("Read the registry over HTTPS (plain HTTP only to this machine)");
        if filled && (open.clicked() || entered) {
            request = Some(Request::OpenUrl);
        }
    });
    ui.horizontal(|ui| {
        ui.label("Install into");
        let base = view.install_base().map_or("no folder (set HOME)".to_owned(), |p| p.display().to_string());
        ui.label(RichText::new(base).monospace().small());
        if ui.button("Change…").clicked() {
            request = Some(Request::ChooseInstallFolder);
        }
    });
    ui.horizontal(|ui| {
        let label = ui.label("Filter");
        let edit = egui::TextEdit::singleline(&mut view.filter).hint_text("name, kind or description");
        ui.add(edit.id_salt("cs-registry-filter").desired_width(280.0)).labelled_by(label.id);
        ui.label(RichText::new(view.summary()).small().color(theme::TEXT_DIM));
    });
    // Room for two lines whether or not there is progress or an outcome, so the list does
    // not move under the pointer when one appears.
    ui.allocate_ui_with_layout(
        egui::vec2(ui.available_width(), OUTCOME_HEIGHT),
        egui::Layout::top_down(egui::Align::LEFT),
        |ui| {
            ui.set_min_height(OUTCOME_HEIGHT);
            if !progress(view, ui) {
                outcome(view, ui);
            }
        },
    );
    ui.separator();
    if let Listing::Failed(e) = &view.listing {
        ui.label(RichText::new(format!("{}: {}", e.code, e.message)).color(theme::ERROR));
        ui.label(NOT_A_REGISTRY);
        return request;
    }
    // One Install or Open at a time: their buttons wait while one runs.
    let busy = view.job().is_some();
    let packs = view.visible();
    let lines: Vec<Line> = packs
        .iter()
        .flat_map(|p| (0..p.versions.len().max(1)).map(move |i| Line { pack: p, first: i == 0, version: i }))
        .collect();
    header(ui);
    egui::ScrollArea::vertical().id_salt("cs-registry-list").auto_shrink([false, false]).show_rows(
        ui,
        ROW_HEIGHT,
        lines.len(),
        |ui, range| {
            for line in &lines[range] {
                if let Some(r) = draw_line(ui, line, busy) {
                    request = Some(r);
                }
            }
        },
    );
    request
}

/// What runs in the background, how long it has run, and its Cancel button; whether
/// anything runs.
fn progress(view: &mut RegistryView, ui: &mut Ui) -> bool {
    let running = match (&view.listing, view.job()) {
        (_, Some(job)) => Some((format!("{}: fetching and verifying", job.what), job.started, true)),
        (Listing::Loading { started, .. }, None) => {
            let at = view.location().unwrap_or_default();
            Some((format!("Listing {at}: fetching and verifying"), *started, false))
        }
        _ => None,
    };
    let Some((text, started, is_job)) = running else { return false };
    ui.horizontal(|ui| {
        spinner(ui);
        let secs = started.elapsed().as_secs_f64();
        ui.label(RichText::new(format!("{text}… {secs:.1} s")).color(theme::TEXT_DIM));
        let cancel = ui.button("Cancel").on_hover_text("Stop waiting; what arrives later is dropped");
        if cancel.clicked() {
            if is_job {
                view.cancel_job();
            } else {
                view.cancel_listing();
            }
        }
    });
    true
}

fn outcome(view: &RegistryView, ui: &mut Ui) {
    let Some(outcome) = &view.outcome else { return };
    match outcome {
        Outcome::Installed(done) => {
            let sig = match &done.signature {
                crate::registry::SignatureCheck::Verified { key_id, .. } => format!("verified ({key_id})"),
                crate::registry::SignatureCheck::Unsigned => "unsigned".to_owned(),
            };
            let text = format!(
                "Installed {}@{} ({sig}, {}) to {}",
                done.name,
                done.version,
                done.integrity,
                done.tarball.display()
            );
            ui.label(RichText::new(text).color(theme::OK));
            for w in &done.warnings {
                ui.label(RichText::new(format!("{}: {}", w.code, w.message)).small().color(theme::WARN));
            }
        }
        Outcome::Opened { name, version, chains } => {
            let text = format!(
                "Opened {name}@{version} into the palette ({})",
                crate::words::count(*chains, "chain", "chains")
            );
            ui.label(RichText::new(text).color(theme::OK));
        }
        Outcome::Refused { what, error } => {
            let text = format!("{what} refused: {} — {}", error.code, error.message);
            ui.label(RichText::new(text).color(theme::ERROR));
        }
        Outcome::Cancelled { what } => {
            ui.label(RichText::new(format!("{what} cancelled")).color(theme::WARN));
        }
    }
}

impl Window for RegistryWindow {
    type Input<'a> = &'a mut RegistryView;
    type Response = Option<Request>;
    const ID: WindowId = WindowId::Registry;
    const SIZE: Option<egui::Vec2> = Some(WINDOW_SIZE);

    fn close(&mut self) -> bool {
        std::mem::take(&mut self.open)
    }

    /// Draw the window while it is open; what was clicked.
    fn show(&mut self, ctx: &egui::Context, view: &mut RegistryView) -> Option<Request> {
        if !self.open {
            return None;
        }
        if view.poll() || view.job().is_some() {
            // Nothing else will wake the UI when a thread answers (and the time shown moves).
            ctx.request_repaint_after(Duration::from_millis(30));
        }
        let mut request = None;
        let mut open = true;
        Scaffold::of::<Self>("Registry", &mut open)
            .centred(ctx, WINDOW_SIZE)
            .constrained()
            .show(ctx, |ui| request = contents(view, ui));
        self.open = open;
        request
    }
}

/// A turning arc. Not `egui::Spinner`: that asks for a repaint every frame, where the
/// window's 30 ms repaint (while something runs) is enough to turn it.
fn spinner(ui: &mut Ui) {
    let size = ui.spacing().interact_size.y;
    let (rect, _) = ui.allocate_exact_size(egui::vec2(size, size), egui::Sense::hover());
    let (centre, radius) = (rect.center(), rect.height() * 0.35);
    let start = ui.input(|i| i.time) * 5.0;
    let points: Vec<egui::Pos2> = (0..=16)
        .map(|i| {
            let angle = start + f64::from(i) / 16.0 * 4.5;
            centre + radius * egui::vec2(angle.cos() as f32, angle.sin() as f32)
        })
        .collect();
    ui.painter().add(egui::Shape::line(points, egui::Stroke::new(2.0, theme::ACCENT)));
}

fn check_color(check: &Check) -> Color32 {
    match check {
        Check::Verified { .. } => theme::OK,
        Check::Unsigned { .. } => theme::WARN,
        Check::Refused { .. } => theme::ERROR,
    }
}

/// Column widths of the list (the state column takes what is left before the buttons).
const NAME_W: f32 = 320.0;
const KIND_W: f32 = 110.0;
const VERSION_W: f32 = 80.0;

/// A left-aligned, truncated label in a column of this width.
fn cell(ui: &mut Ui, width: f32, text: RichText) -> egui::Response {
    let layout = egui::Layout::left_to_right(egui::Align::Center);
    ui.allocate_ui_with_layout(egui::vec2(width, ROW_HEIGHT - 6.0), layout, |ui| {
        ui.set_width(width);
        ui.add(egui::Label::new(text).truncate())
    })
    .inner
}

fn header(ui: &mut Ui) {
    ui.horizontal(|ui| {
        let head = |t: &str| RichText::new(t).small().strong().color(theme::TEXT_DIM);
        cell(ui, NAME_W, head("Pack"));
        cell(ui, KIND_W, head("Kind"));
        cell(ui, VERSION_W, head("Version"));
        ui.label(head("State"));
    });
}

fn draw_line(ui: &mut Ui, line: &Line, busy: bool) -> Option<Request> {
    let mut request = None;
    let pack = line.pack;
    ui.horizontal(|ui| {
        ui.set_height(ROW_HEIGHT - ui.spacing().item_spacing.y);
        let (name, kind) = if line.first {
            (RichText::new(&pack.name).strong(), RichText::new(&pack.kind).small().color(theme::TEXT_DIM))
        } else {
            (RichText::new(""), RichText::new(""))
        };
        cell(ui, NAME_W, name).on_hover_text(&pack.description);
        cell(ui, KIND_W, kind);
        let Some(row) = pack.versions.get(line.version) else {
            ui.label(RichText::new("no versions listed").small().color(theme::TEXT_DIM));
            return;
        };
        cell(ui, VERSION_W, RichText::new(&row.version).monospace());
        let mut flags = Vec::new();
        if row.yanked {
            flags.push(("yanked".to_owned(), theme::ERROR));
        }
        if let Some(reason) = &row.deprecated {
            flags.push((format!("deprecated: {reason}"), theme::WARN));
        }
        // Listing verifies the version an install without a spec takes; other versions show
        // what their index row claims until they are installed or opened.
        let checked = match &pack.check {
            Check::Verified { version, .. } | Check::Unsigned { version } => Some(version.as_str()),
            Check::Refused { version, .. } => version.as_deref(),
        };
        if checked == Some(row.version.as_str()) || (checked.is_none() && line.first) {
            flags.push((pack.check.label(), check_color(&pack.check)));
        } else {
            let claim = row.signing.as_deref().unwrap_or("unsigned");
            flags.push((format!("{claim} (not checked)"), theme::TEXT_DIM));
        }
        for (text, color) in flags {
            let tip = match &pack.check {
                Check::Refused { error, .. } if text == error.code => error.message.clone(),
                _ => text.clone(),
            };
            ui.label(RichText::new(text).small().color(color)).on_hover_text(tip);
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let what = format!("{}@{}", pack.name, row.version);
            let open = ui.add_enabled(!busy, egui::Button::new("Open"));
            open.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, format!("Open {what}")));
            if open.on_hover_text(format!("Verify {what} and open its tarball as a pack")).clicked() {
                request = Some(Request::Open { name: pack.name.clone(), version: row.version.clone() });
            }
            let install = ui.add_enabled(!busy, egui::Button::new("Install"));
            install.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, format!("Install {what}")));
            if install.on_hover_text(format!("Verify {what} and write it to the install cache")).clicked() {
                request = Some(Request::Install { name: pack.name.clone(), version: row.version.clone() });
            }
        });
    });
    request
}

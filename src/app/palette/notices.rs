//! What the palette says besides its tiles: the blocked-chains banner with its fixes, the
//! line shown when a search leaves no tile, and the explanation's "Insert now" once nothing
//! blocks a chain.

use super::super::action::Action;
use super::super::theme;
use crate::editor::blockers::{self, Fix};
use crate::editor::packs::PackId;
use egui::{RichText, Stroke, Ui};

/// Said instead of empty group headers when the search and filters leave no tile.
pub(super) fn no_tile_matches(ui: &mut Ui, search: &str, hide_blocked: bool) {
    let also = if hide_blocked { ", or untick Hide blocked" } else { "" };
    let text = if search.trim().is_empty() {
        "Every chain is blocked: untick Hide blocked to see them, or unblock them above.".to_owned()
    } else {
        format!(
            "No tile matches “{}”: search by label, chainId or typeId, or clear the search (🗙){also}.",
            search.trim()
        )
    };
    ui.add(egui::Label::new(RichText::new(text).color(theme::TEXT_DIM)).wrap());
}

/// What the explanation says once nothing blocks the chain: so, and a button that opens its
/// form where the next insert goes.
pub(super) fn insertable_now(ui: &mut Ui, pack: PackId, chain_id: &str, actions: &mut Vec<Action>) {
    ui.label(RichText::new("✔ Nothing blocks this chain any more.").color(theme::OK));
    ui.horizontal(|ui| {
        let insert = ui.button(RichText::new("Insert now").strong());
        if insert.on_hover_text("Open its parameter form: downstream of the selection, else mid-view").clicked() {
            actions.push(Action::InsertChain { pack, chain_id: chain_id.to_owned() });
        }
        ui.label(RichText::new("or drag its tile onto the canvas").color(theme::TEXT_DIM));
    });
}

/// Above the tiles, when chains are blocked: how many of all, and per setting that would lift
/// a refusal, how many chains need it, with a button that changes it.
pub(super) fn blocked_banner(ui: &mut Ui, summary: &blockers::Summary, actions: &mut Vec<Action>) {
    if summary.blocked == 0 {
        return;
    }
    let frame = egui::Frame::new()
        .fill(egui::Color32::from_rgb(58, 40, 44))
        .stroke(Stroke::new(1.0, theme::ERROR.gamma_multiply(0.6)))
        .corner_radius(6.0)
        .inner_margin(6.0);
    frame.show(ui, |ui| {
        ui.set_width(ui.available_width());
        let title = format!("{} of {} chains are blocked", summary.blocked, summary.chains);
        // In a short window it starts folded to its title, leaving the room to the tiles.
        let tall = ui.ctx().content_rect().height() >= BANNER_OPEN_HEIGHT;
        egui::CollapsingHeader::new(RichText::new(title).strong().color(theme::ERROR))
            .id_salt("cs-blocked-banner")
            .default_open(tall)
            .show(ui, |ui| banner_fixes(ui, summary, actions))
            .header_response
            .on_hover_text("Click to show or hide the fixes");
    });
}

/// Below this window height the blocked-chains banner starts folded.
const BANNER_OPEN_HEIGHT: f32 = 800.0;

/// The banner's body: per setting that would lift a refusal, how many chains need it and a
/// button that changes it.
fn banner_fixes(ui: &mut Ui, summary: &blockers::Summary, actions: &mut Vec<Action>) {
    let hover = "Changes the host profile in Settings; change it back there";
    // The node-type families as one declaration: a registry needs a dozen of them.
    if let Some(fix) = summary.declare_all_host_types()
        && let Fix::DeclareHostTypes(families) = &fix
    {
        let shown: Vec<&str> = families.iter().take(3).map(String::as_str).collect();
        let more = if families.len() > 3 { format!(" and {} more", families.len() - 3) } else { String::new() };
        let need = Fix::DeclareHostTypes(Vec::new()).need(summary.need_host_types);
        let text = format!("{need} ({}{more})", shown.join(", "));
        ui.add(egui::Label::new(RichText::new(text).small()).wrap());
        let label =
            if families.len() == 1 { fix.label() } else { format!("Declare these {} families", families.len()) };
        if ui.small_button(label).on_hover_text(format!("{}\n{hover}", families.join(", "))).clicked() {
            actions.push(Action::Fix(fix.clone()));
        }
    }
    for (fix, n) in summary.fixes.iter().filter(|(f, _)| !matches!(f, Fix::DeclareHostTypes(_))) {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(fix.need(*n)).small());
            if ui.small_button(fix.label()).on_hover_text(hover).clicked() {
                actions.push(Action::Fix(fix.clone()));
            }
        });
    }
    if summary.unfixable > 0 {
        let text = format!("{} also refused for what no setting lifts: click a tile to see why", summary.unfixable);
        ui.add(egui::Label::new(RichText::new(text).small().color(theme::TEXT_DIM)).wrap());
    }
}

//! What the palette says besides its tiles and its banner: the line shown when a search
//! leaves no tile, and the explanation's "Insert now" once nothing blocks a chain.

use super::super::action::Action;
use super::super::theme;
use crate::editor::packs::PackId;
use egui::{RichText, Ui};

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

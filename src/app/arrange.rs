//! The Arrange menu and its keys: tidy, align, distribute, duplicate, zoom to selection.
//! Each item becomes an [`Action`]; the model computes and applies the arrangement
//! ([`crate::editor::arrange`]) as one undoable command.

use super::Action;
use crate::editor::arrange::{Align, Arrangement, Axis};
use egui::{Key, KeyboardShortcut, Modifiers, Ui};

pub const TIDY: KeyboardShortcut = KeyboardShortcut::new(Modifiers::SHIFT.plus(Modifiers::ALT), Key::T);
pub const DUPLICATE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::D);
pub const ZOOM_TO_SELECTION: KeyboardShortcut = KeyboardShortcut::new(Modifiers::SHIFT, Key::F);

const ALIGNMENTS: [Align; 6] = [Align::Left, Align::CentreX, Align::Right, Align::Top, Align::CentreY, Align::Bottom];

/// The menu; `selected` is how many nodes are selected.
pub fn menu(ui: &mut Ui, selected: usize, actions: &mut Vec<Action>) {
    let ctx = ui.ctx().clone();
    let keys = |s: &KeyboardShortcut| ctx.format_shortcut(s);
    let hint = if selected >= 2 {
        "Lay out the selected nodes left to right"
    } else {
        "Lay out the whole workflow left to right"
    };
    if ui.add(egui::Button::new("Tidy").shortcut_text(keys(&TIDY))).on_hover_text(hint).clicked() {
        actions.push(Action::Arrange(Arrangement::Tidy));
    }
    let dup = egui::Button::new("Duplicate").shortcut_text(keys(&DUPLICATE));
    if ui.add_enabled(selected >= 1, dup).clicked() {
        actions.push(Action::Duplicate);
    }
    let zoom = egui::Button::new("Zoom to selection").shortcut_text(keys(&ZOOM_TO_SELECTION));
    if ui.add_enabled(selected >= 1, zoom).clicked() {
        actions.push(Action::ZoomToSelection);
    }
    ui.separator();
    for how in ALIGNMENTS {
        let how = Arrangement::Align(how);
        if ui.add_enabled(selected >= how.minimum(), egui::Button::new(how.label())).clicked() {
            actions.push(Action::Arrange(how));
        }
    }
    ui.separator();
    for axis in [Axis::Horizontal, Axis::Vertical] {
        let how = Arrangement::Distribute(axis);
        if ui.add_enabled(selected >= how.minimum(), egui::Button::new(how.label())).clicked() {
            actions.push(Action::Arrange(how));
        }
    }
}

/// The keys, while no text field has focus; `take` consumes a shortcut if it was pressed.
pub fn shortcuts(take: &mut dyn FnMut(&KeyboardShortcut) -> bool, actions: &mut Vec<Action>) {
    if take(&TIDY) {
        actions.push(Action::Arrange(Arrangement::Tidy));
    }
    if take(&DUPLICATE) {
        actions.push(Action::Duplicate);
    }
    if take(&ZOOM_TO_SELECTION) {
        actions.push(Action::ZoomToSelection);
    }
}

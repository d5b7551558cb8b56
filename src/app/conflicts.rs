//! The conflicts of re-expanding an instance, listed before anything is applied: each
//! member both the user and the new expansion changed, with "Keep mine" and "Take new".
//! The merge is the core's (`crate::instance`); this only draws it and records the choices.

use super::theme;
use crate::instance::{Choice, Conflict, Resolutions};
use egui::{RichText, Ui};

pub fn show(ui: &mut Ui, conflicts: &[Conflict], res: &mut Resolutions) {
    ui.add_space(4.0);
    ui.label(
        RichText::new(format!(
            "{} of your edits collide with the new values; nothing is applied until you choose:",
            conflicts.len()
        ))
        .color(theme::WARN),
    );
    egui::ScrollArea::vertical().id_salt("cs-form-conflicts").max_height(120.0).show(ui, |ui| {
        for c in conflicts {
            ui.horizontal(|ui| {
                let mut choice = res.choice(&c.node_id, &c.pointer);
                ui.label(RichText::new(c.describe()).monospace().small());
                ui.radio_value(&mut choice, Some(Choice::Mine), "Keep mine");
                ui.radio_value(&mut choice, Some(Choice::New), "Take new");
                if let Some(choice) = choice {
                    res.set(c, choice);
                }
            });
        }
    });
}

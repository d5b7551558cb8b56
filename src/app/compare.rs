//! The window "Compare with saved version" shows; the comparison is
//! [`crate::editor::compare`]'s.

use super::theme;
use egui::{Id, RichText};

#[derive(Default)]
pub struct CompareWindow {
    pub lines: Option<Vec<String>>,
}

impl CompareWindow {
    pub fn show(&mut self, ctx: &egui::Context) {
        let Some(lines) = &self.lines else { return };
        let mut open = true;
        egui::Window::new("Compare with saved version")
            .id(Id::unique("cs-compare-saved"))
            .open(&mut open)
            .default_width(520.0)
            .show(ctx, |ui| {
                egui::ScrollArea::vertical().max_height(360.0).show(ui, |ui| {
                    for line in lines {
                        let text = RichText::new(line).monospace();
                        ui.label(if line.starts_with(['+', '-', '~']) {
                            text.small()
                        } else {
                            text.color(theme::TEXT_DIM)
                        });
                    }
                });
            });
        if !open {
            self.lines = None;
        }
    }
}

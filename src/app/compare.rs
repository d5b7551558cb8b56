//! The window "Compare with saved version" shows; the comparison is
//! [`crate::editor::compare`]'s.

use super::theme;
use super::window::{Scaffold, Window, WindowId};
use egui::RichText;

#[derive(Default)]
pub struct CompareWindow {
    pub lines: Option<Vec<String>>,
}

impl Window for CompareWindow {
    type Input<'a> = ();
    type Response = ();
    const ID: WindowId = WindowId::Compare;
    const SIZE: Option<egui::Vec2> = None;

    fn close(&mut self) -> bool {
        self.lines.take().is_some()
    }

    fn show(&mut self, ctx: &egui::Context, (): ()) {
        let Some(lines) = &self.lines else { return };
        let mut open = true;
        Scaffold::of::<Self>("Compare with saved version", &mut open).collapsible().width(520.0).show(ctx, |ui| {
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

//! The command palette (Ctrl+K) and the canvas quick-add popup: one search field over
//! [`crate::editor::finder`] entries, with the list under it. Typing filters (fuzzy), the
//! arrow keys move, Enter picks, Esc or a click elsewhere closes. The pick goes back to the
//! app, which runs the command or inserts the chain or node type.

use super::theme;
use crate::editor::finder::{Entry, Target, rank};
use egui::{Id, Key, Modifiers, Pos2, RichText};

/// Rows listed at most (the best matches; typing more narrows the rest).
const ROWS: usize = 60;
const WIDTH: f32 = 480.0;

/// Where the finder was opened, which decides what it lists and where an insert goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// Everything, at the top of the window.
    Palette,
    /// Chains and node types, at `screen`; inserts land at `at` (canvas units).
    QuickAdd { screen: Pos2, at: (f64, f64) },
}

pub struct Finder {
    pub mode: Mode,
    query: String,
    selected: usize,
    focused: bool,
}

/// What the user picked, with the mode it was picked in.
pub struct Picked {
    pub target: Target,
    pub mode: Mode,
}

impl Finder {
    pub fn new(mode: Mode) -> Self {
        Self { mode, query: String::new(), selected: 0, focused: false }
    }

    /// Draw it; returns the pick, and sets `close` when it should go away.
    pub fn show(&mut self, ctx: &egui::Context, entries: &[Entry], close: &mut bool) -> Option<Picked> {
        let ranked = rank(&self.query, entries);
        let shown = ranked.len().min(ROWS);
        self.selected = self.selected.min(shown.saturating_sub(1));
        // Read before the text field sees them: the arrows move the selection, Enter picks.
        let (down, up, enter, escape) = ctx.input_mut(|i| {
            (
                i.consume_key(Modifiers::NONE, Key::ArrowDown),
                i.consume_key(Modifiers::NONE, Key::ArrowUp),
                i.consume_key(Modifiers::NONE, Key::Enter),
                i.consume_key(Modifiers::NONE, Key::Escape),
            )
        });
        if down && self.selected + 1 < shown {
            self.selected += 1;
        }
        if up {
            self.selected = self.selected.saturating_sub(1);
        }
        // A disabled command is listed so a search finds it, but it does not run.
        let pickable = |row: usize| ranked.get(row).is_some_and(|&i| entries[i].enabled);
        let mut picked = enter.then_some(self.selected).filter(|&row| row < shown && pickable(row));
        let (pos, title, hint) = match self.mode {
            Mode::Palette => {
                let top = ctx.content_rect().center_top() + egui::vec2(-WIDTH / 2.0, 60.0);
                (top, "Command palette", "Search commands, chains and node types")
            }
            Mode::QuickAdd { screen, .. } => (screen, "Add here", "Search chains and node types"),
        };
        let area = egui::Area::new(Id::unique("cs-finder"))
            .order(egui::Order::Foreground)
            .fixed_pos(pos)
            .constrain(true)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.set_width(WIDTH);
                    ui.label(RichText::new(title).strong());
                    let before = self.query.clone();
                    let edit = egui::TextEdit::singleline(&mut self.query).hint_text(hint).desired_width(f32::INFINITY);
                    let r = ui.add(edit);
                    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::SearchInput, true, hint));
                    if !self.focused {
                        r.request_focus();
                        self.focused = true;
                    }
                    // Arrow keys stay with the field instead of moving the keyboard focus.
                    let filter = egui::EventFilter { vertical_arrows: true, ..Default::default() };
                    ui.memory_mut(|m| m.set_focus_lock_filter(r.id, filter));
                    if self.query != before {
                        self.selected = 0;
                    }
                    ui.add_space(4.0);
                    if shown == 0 {
                        ui.label(RichText::new("Nothing matches.").color(theme::TEXT_DIM));
                    }
                    egui::ScrollArea::vertical().max_height(340.0).auto_shrink([false, true]).show(ui, |ui| {
                        for (row, &i) in ranked.iter().take(shown).enumerate() {
                            let e = &entries[i];
                            let selected = row == self.selected;
                            let r = row_widget(ui, e, selected);
                            if selected && (up || down) {
                                r.scroll_to_me(None);
                            }
                            if r.clicked() && e.enabled {
                                picked = Some(row);
                            }
                        }
                    });
                    ui.label(RichText::new("↑↓ choose · Enter runs · Esc closes").small().color(theme::TEXT_DIM));
                });
            });
        if escape || area.response.clicked_elsewhere() {
            *close = true;
        }
        let target = picked.and_then(|row| ranked.get(row)).map(|&i| entries[i].target.clone());
        if target.is_some() {
            *close = true;
        }
        target.map(|target| Picked { target, mode: self.mode })
    }
}

/// One row: the kind, the title and the detail, highlighted when selected.
fn row_widget(ui: &mut egui::Ui, e: &Entry, selected: bool) -> egui::Response {
    let kind = match e.target {
        Target::Command(_) => "command",
        Target::Chain { .. } => "chain",
        Target::NodeType(_) => "node",
    };
    let mut job = egui::text::LayoutJob::default();
    let font = egui::FontId::proportional(13.5);
    let small = egui::FontId::proportional(11.0);
    let fmt = |font: egui::FontId, color| egui::TextFormat::simple(font, color);
    let (title, accent) = if e.enabled { (theme::TEXT, theme::ACCENT) } else { (theme::TEXT_DIM, theme::TEXT_DIM) };
    job.append(kind, 0.0, fmt(small.clone(), theme::GHOST));
    job.append(&e.title, 10.0, fmt(font, title));
    if !e.shortcut.is_empty() {
        job.append(&e.shortcut, 10.0, fmt(small.clone(), accent));
    }
    job.append(&e.detail, 10.0, fmt(small.clone(), theme::TEXT_DIM));
    if !e.enabled {
        job.append("not available now", 10.0, fmt(small, theme::TEXT_DIM));
    }
    // Full-width rows, so the selection reads as a bar and the whole row takes the click.
    // A disabled row stays selectable with the arrows (it is the best match, dimmed) but
    // does not take the click.
    let width = ui.available_width();
    let button = egui::Button::selectable(selected, job).truncate().min_size(egui::vec2(width, 0.0));
    let r = ui.add_enabled(e.enabled, button);
    r.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, e.enabled, selected, &e.title));
    r
}

//! The command registry ([`crate::editor::commands`]) turned into egui: its plain-data
//! shortcuts into egui's, key presses into commands, and its table into the menu bar, the
//! context menus, toolbar buttons and the keyboard shortcut help. Nothing here decides what
//! a command does; `App::run_command` does.

use super::action::Action;
use super::theme;
use super::window::{Scaffold, Window, WindowId};
use crate::editor::commands::{self, CommandId, Context, Key, Menu, Os, Place, Shortcut};
use egui::{KeyboardShortcut, Modifiers, RichText, Ui};

/// Which shortcuts and symbols apply: egui knows the OS it runs on.
pub fn os(ctx: &egui::Context) -> Os {
    if ctx.os() == egui::os::OperatingSystem::Mac { Os::Mac } else { Os::Other }
}

fn key(k: Key) -> egui::Key {
    use egui::Key as E;
    #[rustfmt::skip]
    const LETTERS: [E; 26] = [
        E::A, E::B, E::C, E::D, E::E, E::F, E::G, E::H, E::I, E::J, E::K, E::L, E::M, E::N, E::O, E::P, E::Q,
        E::R, E::S, E::T, E::U, E::V, E::W, E::X, E::Y, E::Z,
    ];
    match k {
        Key::Delete => E::Delete,
        Key::Backspace => E::Backspace,
        Key::Escape => E::Escape,
        Key::Tab => E::Tab,
        Key::Space => E::Space,
        Key::Enter => E::Enter,
        Key::F1 => E::F1,
        Key::F2 => E::F2,
        Key::Questionmark => E::Questionmark,
        Key::Plus => E::Plus,
        Key::Minus => E::Minus,
        Key::Equals => E::Equals,
        Key::ArrowUp => E::ArrowUp,
        Key::ArrowDown => E::ArrowDown,
        Key::ArrowLeft => E::ArrowLeft,
        Key::ArrowRight => E::ArrowRight,
        letter => LETTERS[letter as usize],
    }
}

/// The registry's shortcut as egui matches it (`COMMAND` is ⌘ on macOS, Ctrl elsewhere).
pub fn to_egui(s: Shortcut) -> KeyboardShortcut {
    let mut m = Modifiers::NONE;
    if s.mods.command {
        m |= Modifiers::COMMAND;
    }
    if s.mods.shift {
        m |= Modifiers::SHIFT;
    }
    if s.mods.alt {
        m |= Modifiers::ALT;
    }
    KeyboardShortcut::new(m, key(s.key))
}

/// The enabled commands whose shortcuts were pressed this frame, each key press consumed by
/// at most one command. While a widget has keyboard focus (a text field, a focused button)
/// only commands marked `while_typing` listen, and only to shortcuts that type no text, so
/// typing a letter or "?" never runs a command. A
/// disabled command leaves its key alone, for the widget that does want it (Esc for an
/// open form).
pub fn pressed(ctx: &egui::Context, os: Os, cx: &Context) -> Vec<CommandId> {
    let typing = ctx.egui_wants_keyboard_input();
    let mut out = Vec::new();
    ctx.input_mut(|i| {
        for (shortcut, c) in commands::bindings(os) {
            let heard_while_typing = c.spec().while_typing && !shortcut.types_text();
            if (typing && !heard_while_typing) || !c.is_enabled(cx) {
                continue;
            }
            if i.consume_shortcut(&to_egui(shortcut)) && !out.contains(&c) {
                out.push(c);
            }
        }
        // The desktop integration turns the copy and paste shortcuts into clipboard events
        // instead of key presses (and pastes the clipboard's text with it): the same commands.
        if !typing {
            for event in &i.events {
                if matches!(event, egui::Event::Copy)
                    && CommandId::Copy.is_enabled(cx)
                    && !out.contains(&CommandId::Copy)
                {
                    out.push(CommandId::Copy);
                }
            }
        }
    });
    out
}

/// The registry label with the shortcut shown on `os`, enabled and checked as the registry
/// says; clicking pushes the command. A toggle is a checkbox.
pub fn item(ui: &mut Ui, c: CommandId, cx: &Context, os: Os, actions: &mut Vec<Action>) -> egui::Response {
    let spec = c.spec();
    let enabled = c.is_enabled(cx);
    let r = menu_toggle(ui, c, cx, enabled, os).unwrap_or_else(|| {
        let shortcut = c.shortcut_text(os);
        let button = egui::Button::new(spec.label);
        // An empty shortcut text would still be appended to the button's name.
        let button = if shortcut.is_empty() { button } else { button.shortcut_text(shortcut) };
        ui.add_enabled(enabled, button)
    });
    let r = r.on_hover_text(spec.tooltip);
    if r.clicked() {
        actions.push(Action::Run(c));
        ui.close();
    }
    r
}

/// A compact toolbar button (`glyph`) that runs `c`, named and explained by the registry;
/// a toggle is a checkbox with the registry's label.
pub fn tool_button(
    ui: &mut Ui,
    glyph: &str,
    c: CommandId,
    cx: &Context,
    os: Os,
    actions: &mut Vec<Action>,
) -> egui::Response {
    let spec = c.spec();
    let enabled = c.is_enabled(cx);
    let r = toggle(ui, c, cx, enabled).unwrap_or_else(|| {
        let r = ui.add_enabled(enabled, egui::Button::new(glyph));
        r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, spec.label));
        r
    });
    let shortcut = c.shortcut_text(os);
    let hover = if shortcut.is_empty() {
        format!("{}\n{}", spec.label, spec.tooltip)
    } else {
        format!("{} ({shortcut})\n{}", spec.label, spec.tooltip)
    };
    let r = r.on_hover_text(hover);
    if r.clicked() {
        actions.push(Action::Run(c));
    }
    r
}

/// The width these toolbar toggles take side by side (checkbox, label, spacing).
pub fn toggles_width(ui: &Ui, commands: &[CommandId]) -> f32 {
    let spacing = ui.spacing();
    let box_and_gap = spacing.icon_width + spacing.icon_spacing + spacing.button_padding.x * 2.0;
    let font = egui::TextStyle::Button.resolve(ui.style());
    commands
        .iter()
        .map(|c| {
            let text =
                ui.ctx().fonts_mut(|f| f.layout_no_wrap(c.spec().label.to_owned(), font.clone(), egui::Color32::WHITE));
            text.size().x + box_and_gap + spacing.item_spacing.x
        })
        .sum()
}

/// Toolbar buttons that did not fit, in a "»" menu.
pub fn overflow_menu(ui: &mut Ui, commands: &[CommandId], cx: &Context, os: Os, actions: &mut Vec<Action>) {
    let menu = ui.menu_button("»", |ui| {
        for &c in commands {
            if tool_button(ui, "", c, cx, os, actions).clicked() {
                ui.close();
            }
        }
    });
    let what = "More tools";
    menu.response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, what));
    menu.response.on_hover_text(what);
}

/// A toggle command as a checkbox with the registry's label, showing its state (a click
/// runs the command, which flips it); `None` when `c` is not a toggle.
fn toggle(ui: &mut Ui, c: CommandId, cx: &Context, enabled: bool) -> Option<egui::Response> {
    let spec = c.spec();
    let mut checked = (spec.checked?)(cx);
    Some(ui.add_enabled(enabled, egui::Checkbox::new(&mut checked, spec.label)))
}

/// A toggle in a menu: its shortcut, if it has one, dim at the right as a button's is, and
/// part of its name as a button's is.
fn menu_toggle(ui: &mut Ui, c: CommandId, cx: &Context, enabled: bool, os: Os) -> Option<egui::Response> {
    let shortcut = c.shortcut_text(os);
    if shortcut.is_empty() {
        return toggle(ui, c, cx, enabled);
    }
    let spec = c.spec();
    let checked = (spec.checked?)(cx);
    let r = ui
        .horizontal(|ui| {
            // Clicked, the command flips the state; the box only shows it.
            let mut shown = checked;
            let r = ui.add_enabled(enabled, egui::Checkbox::new(&mut shown, spec.label));
            ui.add_space(12.0);
            ui.label(RichText::new(&shortcut).color(theme::TEXT_DIM));
            r
        })
        .inner;
    let name = format!("{} {shortcut}", spec.label);
    r.widget_info(|| egui::WidgetInfo::selected(egui::Role::CheckBox, enabled, checked, &name));
    Some(r)
}

/// One menu of the menu bar, from the registry, sections apart. `extra` draws what is not a
/// command (the recent files) after a section, given its index.
pub fn menu(
    ui: &mut Ui,
    m: Menu,
    cx: &Context,
    os: Os,
    actions: &mut Vec<Action>,
    mut extra: impl FnMut(&mut Ui, usize, &mut Vec<Action>),
) {
    ui.menu_button(m.title(), |ui| {
        for (k, section) in commands::menu(m).into_iter().enumerate() {
            if k > 0 {
                ui.separator();
            }
            for c in section {
                item(ui, c, cx, os, actions);
            }
            extra(ui, k, actions);
        }
    });
}

/// The commands of a context menu (empty canvas, or a node or frame), from the registry.
pub fn context_items(ui: &mut Ui, place: Place, cx: &Context, os: Os, actions: &mut Vec<Action>) {
    for c in commands::in_place(place) {
        item(ui, c, cx, os, actions);
    }
}

/// Help → Keyboard shortcuts: every registry entry, its shortcuts on this OS and what it
/// does, in registry order.
/// What the Help window says besides the shortcuts: where the editor keeps its files.
pub struct About {
    /// eframe's folder for this app (settings, window size, panel widths).
    pub settings: Option<std::path::PathBuf>,
    /// The autosave of unsaved work (`None`: recovery is off).
    pub recovery: Option<std::path::PathBuf>,
}

/// The version, the documentation and the editor's files, one line each.
fn about(ui: &mut Ui, about: &About) {
    let shown = |p: &Option<std::path::PathBuf>| {
        p.as_ref().map_or("none on this system".to_owned(), |p| p.display().to_string())
    };
    // The docs ship in the source tree; a build made from one knows where it is.
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let docs = if docs.is_dir() {
        format!("{} (editor.md: the editor; cli.md: the command line)", docs.display())
    } else {
        "docs/editor.md and docs/cli.md in the chainsmith source; `chainsmith --help` lists the commands".to_owned()
    };
    egui::Grid::new("cs-about").num_columns(2).spacing([12.0, 4.0]).show(ui, |ui| {
        ui.label(RichText::new("Version").strong());
        ui.label(format!("chainsmith {}", env!("CARGO_PKG_VERSION")));
        ui.end_row();
        ui.label(RichText::new("Documentation").strong());
        ui.add(egui::Label::new(RichText::new(docs).monospace()).wrap());
        ui.end_row();
        ui.label(RichText::new("Settings folder").strong());
        ui.add(egui::Label::new(RichText::new(shown(&about.settings)).monospace()).wrap());
        ui.end_row();
        ui.label(RichText::new("Recovery file").strong());
        ui.add(egui::Label::new(RichText::new(shown(&about.recovery)).monospace()).wrap());
        ui.end_row();
    });
    ui.separator();
}

/// The Help window (Help → Keyboard shortcuts, or About): over the editor's flag that it is
/// open, which the shell's commands set.
pub struct Help<'a>(pub &'a mut bool);

impl Window for Help<'_> {
    type Input<'a> = (Os, &'a About);
    type Response = ();
    const ID: WindowId = WindowId::ShortcutHelp;
    const SIZE: Option<egui::Vec2> = None;

    fn close(&mut self) -> bool {
        std::mem::take(self.0)
    }

    fn show(&mut self, ctx: &egui::Context, (os, info): (Os, &About)) {
        if *self.0 {
            shortcut_help(ctx, self.0, os, info);
        }
    }
}

fn shortcut_help(ctx: &egui::Context, open: &mut bool, os: Os, info: &About) {
    // At most about three quarters of the window, so a small window keeps the canvas in
    // sight behind it (760x600 covered nearly all of 1000x700).
    let room = ctx.content_rect().size() * 0.72;
    let size = egui::vec2(room.x.min(760.0), room.y.min(600.0));
    Scaffold::of::<Help>("Help", open)
        .size(size)
        .max_size(ctx.content_rect().size() - egui::vec2(40.0, 40.0))
        .pivot_centred(ctx)
        .show(ctx, |ui| {
            about(ui, info);
            ui.label(RichText::new("Every command and its keys").strong());
            ui.label(
                RichText::new("Every command, also found by name in the command palette.")
                    .small()
                    .color(theme::TEXT_DIM),
            );
            egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
                // The descriptions wrap in what is left of the window's width.
                let width = (ui.available_width() - 340.0).max(160.0);
                ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Wrap);
                let grid = egui::Grid::new("cs-shortcut-grid").num_columns(3).striped(true).spacing([14.0, 4.0]);
                grid.max_col_width(width).show(ui, |ui| {
                    for &c in CommandId::ALL {
                        let spec = c.spec();
                        ui.label(spec.label);
                        let keys: Vec<String> = c.shortcuts(os).map(|s| s.text(os)).collect();
                        let keys = if keys.is_empty() { "—".to_owned() } else { keys.join("  or  ") };
                        ui.label(RichText::new(keys).monospace().color(theme::ACCENT));
                        ui.label(RichText::new(spec.tooltip).small().color(theme::TEXT_DIM));
                        ui.end_row();
                    }
                });
            });
        });
}

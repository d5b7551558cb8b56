//! The editor's look: a dark theme with enough contrast for small canvas text, and the few
//! colours every panel shares.

use egui::{Color32, CornerRadius, FontFamily, FontId, Stroke, TextStyle, Visuals};

pub const CANVAS_BG: Color32 = Color32::from_rgb(24, 26, 31);
/// Opaque: cards and edges under the map would show through its cells.
pub const MINIMAP_BG: Color32 = Color32::from_rgb(16, 18, 22);
pub const GRID_MINOR: Color32 = Color32::from_rgb(33, 36, 43);
pub const GRID_MAJOR: Color32 = Color32::from_rgb(44, 48, 57);
pub const CARD_BG: Color32 = Color32::from_rgb(43, 47, 56);
pub const CARD_BORDER: Color32 = Color32::from_rgb(70, 76, 90);
pub const TEXT: Color32 = Color32::from_rgb(226, 230, 238);
pub const TEXT_DIM: Color32 = Color32::from_rgb(150, 158, 174);
pub const ACCENT: Color32 = Color32::from_rgb(92, 170, 255);
pub const EDGE: Color32 = Color32::from_rgb(128, 140, 162);
pub const EDGE_CONDITIONAL: Color32 = Color32::from_rgb(226, 178, 92);
pub const EDGE_LOOP: Color32 = Color32::from_rgb(190, 132, 230);
pub const OK: Color32 = Color32::from_rgb(102, 204, 128);
pub const WARN: Color32 = Color32::from_rgb(240, 186, 80);
pub const ERROR: Color32 = Color32::from_rgb(255, 110, 110);
pub const GHOST: Color32 = Color32::from_rgb(120, 220, 190);
pub const SUBSTITUTED_BG: Color32 = Color32::from_rgb(36, 86, 64);
/// A substituted value the form finds invalid (the preview pane).
pub const INVALID_BG: Color32 = Color32::from_rgb(122, 38, 44);

/// Install the theme: dark visuals, slightly larger text, rounded widgets.
pub fn apply(ctx: &egui::Context) {
    ctx.set_theme(egui::Theme::Dark);
    let mut style = (*ctx.global_style()).clone();
    style.text_styles = [
        (TextStyle::Heading, FontId::new(17.0, FontFamily::Proportional)),
        (TextStyle::Body, FontId::new(13.5, FontFamily::Proportional)),
        (TextStyle::Monospace, FontId::new(12.5, FontFamily::Monospace)),
        (TextStyle::Button, FontId::new(13.5, FontFamily::Proportional)),
        (TextStyle::Small, FontId::new(11.0, FontFamily::Proportional)),
    ]
    .into();
    style.spacing.item_spacing = egui::vec2(8.0, 6.0);
    style.spacing.button_padding = egui::vec2(8.0, 3.0);
    style.spacing.interact_size.y = 22.0;
    let mut v = Visuals::dark();
    v.panel_fill = Color32::from_rgb(32, 35, 41);
    v.window_fill = Color32::from_rgb(36, 39, 46);
    v.extreme_bg_color = Color32::from_rgb(22, 24, 28);
    v.faint_bg_color = Color32::from_rgb(40, 44, 52);
    v.window_stroke = Stroke::new(1.0, Color32::from_rgb(64, 70, 82));
    v.window_corner_radius = CornerRadius::same(8);
    v.selection.bg_fill = Color32::from_rgb(44, 92, 150);
    v.selection.stroke = Stroke::new(1.0, ACCENT);
    v.hyperlink_color = ACCENT;
    v.error_fg_color = ERROR;
    v.warn_fg_color = WARN;
    v.override_text_color = None;
    v.widgets.noninteractive.fg_stroke.color = TEXT;
    v.widgets.inactive.fg_stroke.color = TEXT;
    v.widgets.inactive.bg_fill = Color32::from_rgb(52, 57, 67);
    v.widgets.inactive.weak_bg_fill = Color32::from_rgb(52, 57, 67);
    v.widgets.hovered.weak_bg_fill = Color32::from_rgb(64, 71, 84);
    v.widgets.hovered.bg_fill = Color32::from_rgb(64, 71, 84);
    for w in [&mut v.widgets.noninteractive, &mut v.widgets.inactive, &mut v.widgets.hovered, &mut v.widgets.active] {
        w.corner_radius = CornerRadius::same(4);
    }
    style.visuals = v;
    ctx.set_global_style(style);
    // Real packs write arrows and other symbols (`Webhook → Notification`) that the
    // proportional font lacks; the monospace font has them.
    let mut fonts = egui::FontDefinitions::default();
    if let Some(family) = fonts.families.get_mut(&FontFamily::Proportional) {
        family.push("Hack".to_owned());
    }
    ctx.set_fonts(fonts);
}

/// A stable header colour for a typeId: `core.*` nodes are slate, others get a hue from
/// the typeId so the same kind of node always looks the same.
pub fn type_color(type_id: &str) -> Color32 {
    if type_id.starts_with("core.") {
        return Color32::from_rgb(70, 82, 104);
    }
    let hash = type_id.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    let hue = (hash % 360) as f32 / 360.0;
    egui::ecolor::HsvaGamma { h: hue, s: 0.5, v: 0.42, a: 1.0 }.into()
}

//! The update badge on a chain instance's frame: a newer version of its chain is loaded.
//! Colour-coded by what the update needs (patch, minor, major); a click opens the review.

use super::*;
use crate::instance::update::Available;

/// The badge at the right of the frame's header, when `up` is given.
pub(super) fn update_badge(ui: &mut Ui, frame: Rect, up: &Available, zoom: f32, actions: &mut Vec<Action>) {
    let color = crate::app::upgrade::level_color(up.level);
    let font = FontId::proportional(11.0 * (0.8 / zoom).clamp(1.0, 1.8));
    let galley = ui.painter().layout_no_wrap(format!("{} · {}", up.to, up.level.as_str()), font, color);
    let size = galley.size() + vec2(12.0, 4.0);
    let top = frame.min.y + ((FRAME_HEADER - size.y) / 2.0).max(2.0);
    let rect = Rect::from_min_size(pos2(frame.max.x - size.x - 8.0, top), size);
    let resp = ui.interact(rect, Id::unique(("cs-update", &up.key)), Sense::click());
    let name = format!("Update {} to {} ({})", up.key, up.to, up.level.as_str());
    resp.widget_info(|| WidgetInfo::labeled(Role::Button, true, &name));
    let painter = ui.painter();
    let fill = if resp.hovered() { color.gamma_multiply(0.35) } else { color.gamma_multiply(0.18) };
    painter.rect_filled(rect, 8.0, fill);
    painter.rect_stroke(rect, 8.0, Stroke::new(px(zoom, 1.0), color), StrokeKind::Inside);
    painter.galley(rect.min + vec2(6.0, 2.0), galley, color);
    if resp.clicked() {
        actions.push(Action::ReviewUpdate(up.key.clone()));
    }
    resp.on_hover_text(format!(
        "{} {} is loaded (this instance is {}): a {} update. Click to review it.",
        up.chain_id,
        up.to,
        up.from,
        up.level.as_str()
    ));
}

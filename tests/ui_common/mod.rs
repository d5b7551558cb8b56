//! Input helpers shared by the headless editor tests.

use chainsmith::app::App;
use egui::{Modifiers, Pos2};
use egui_kittest::Harness;

/// Press at `from`, move in ten steps (so egui sees a drag, not a click), release at `to`,
/// holding `modifiers` throughout.
pub fn drag(h: &mut Harness<'_, App>, from: Pos2, to: Pos2, modifiers: Modifiers) {
    h.hover_at(from);
    h.step();
    if modifiers != Modifiers::NONE {
        h.event(egui::Event::ModifiersChanged(modifiers));
    }
    h.event(egui::Event::PointerButton { pos: from, button: egui::PointerButton::Primary, pressed: true, modifiers });
    h.step();
    for i in 1..=10 {
        h.hover_at(from.lerp(to, i as f32 / 10.0));
        h.step();
    }
    h.event(egui::Event::PointerButton { pos: to, button: egui::PointerButton::Primary, pressed: false, modifiers });
    h.step();
    if modifiers != Modifiers::NONE {
        h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
    }
    h.run();
}

/// Run `app` headlessly in the default 1440x900 window until it settles.
pub fn harness(app: App) -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size([1440.0, 900.0])
        .with_step_dt(1.0 / 60.0)
        .with_max_steps(64)
        .build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

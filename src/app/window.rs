//! What the editor's windows share: one trait ([`Window`], the shape of egui_demo_lib's
//! `Demo`/`View`) and one scaffold ([`Scaffold`]). Each is an `egui::Window` with its own id
//! (the Esc handler finds the topmost window egui drew by it), a title, and where and how large
//! it first appears; a window's module draws only its body and returns what the user asked.
//! Below every window: it imports none.

use egui::{Align2, Context, Id, InnerResponse, Pos2, Ui, Vec2, WidgetText};

/// The editor's windows, by the id each is shown with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowId {
    FileDialog,
    ShortcutHelp,
    Explanation,
    PackFindings,
    Refusal,
    Settings,
    Registry,
    Publish,
    AppReparam,
    PackView,
    Extract,
    MakeParameter,
    Child,
    Compare,
    ReviewUpdate,
}

impl WindowId {
    /// The egui id the window's area is shown with.
    pub fn id(self) -> Id {
        Id::unique(match self {
            WindowId::FileDialog => "cs-file-dialog",
            WindowId::ShortcutHelp => "cs-shortcut-help",
            WindowId::Explanation => "cs-blocked",
            WindowId::PackFindings => "cs-pack-detail",
            WindowId::Refusal => "cs-error",
            WindowId::Settings => "cs-settings",
            WindowId::Registry => "cs-registry",
            WindowId::Publish => "cs-publish",
            WindowId::AppReparam => "cs-app-reparam",
            WindowId::PackView => "cs-pack-view",
            WindowId::Extract => "cs-extract",
            WindowId::MakeParameter => "cs-make-param",
            WindowId::Child => "cs-child",
            WindowId::Compare => "cs-compare-saved",
            WindowId::ReviewUpdate => "cs-review-update",
        })
    }
}

/// An editor window: its id, closing it, and drawing it, which returns
/// what the user asked of it this frame (the canvas's `CanvasResponse` shape) instead of
/// pushing into the `App`'s list.
pub(crate) trait Window {
    /// What the window reads from the rest of the editor while it draws.
    type Input<'a>;
    /// What the user asked of it this frame.
    type Response;
    /// Its id: where its area is, and how the Esc handler finds it.
    const ID: WindowId;
    /// The size it first appears at; `None` when its content decides.
    const SIZE: Option<Vec2>;

    /// Close it (Esc, or the editor closing what it shows); whether it was open. Whether a
    /// window is open is its own state; which is on top, egui's ([`WindowId::id`]).
    fn close(&mut self) -> bool;
    /// Draw it while it is open.
    fn show(&mut self, ctx: &Context, input: Self::Input<'_>) -> Self::Response;
}

/// A window being set up: not collapsible, resizable, placed where egui puts a new window
/// unless told otherwise.
#[must_use]
pub struct Scaffold<'open> {
    window: egui::Window<'open>,
}

impl<'open> Scaffold<'open> {
    /// `open` is cleared when the window's close button is clicked.
    pub fn new(id: WindowId, title: impl Into<WidgetText>, open: &'open mut bool) -> Self {
        Self { window: egui::Window::new(title).id(id.id()).open(open).collapsible(false) }
    }

    /// The scaffold of window `W`: its id, and its first size when it has one.
    pub fn of<W: Window>(title: impl Into<WidgetText>, open: &'open mut bool) -> Self {
        let scaffold = Self::new(W::ID, title, open);
        match W::SIZE {
            Some(size) => scaffold.size(size),
            None => scaffold,
        }
    }

    /// Keep egui's title-bar button that folds the window to its title.
    pub fn collapsible(self) -> Self {
        Self { window: self.window.collapsible(true) }
    }

    /// Sized by its content; the user cannot resize it.
    pub fn fixed_size(self) -> Self {
        Self { window: self.window.resizable(false) }
    }

    pub fn size(self, size: impl Into<Vec2>) -> Self {
        Self { window: self.window.default_size(size) }
    }

    pub fn width(self, width: f32) -> Self {
        Self { window: self.window.default_width(width) }
    }

    pub fn max_size(self, size: impl Into<Vec2>) -> Self {
        Self { window: self.window.max_size(size) }
    }

    /// First shown with its top left corner at `at`.
    pub fn at(self, at: Pos2) -> Self {
        Self { window: self.window.default_pos(at) }
    }

    /// First shown `size` large in the middle of the editor's window.
    pub fn centred(self, ctx: &Context, size: Vec2) -> Self {
        Self { window: self.window.default_size(size).default_pos(ctx.content_rect().center() - size / 2.0) }
    }

    /// First shown with its centre at the middle of the editor's window, whatever its size.
    pub fn pivot_centred(self, ctx: &Context) -> Self {
        Self { window: self.window.pivot(Align2::CENTER_CENTER).default_pos(ctx.content_rect().center()) }
    }

    /// Held in the middle of the editor's window; it cannot be moved.
    pub fn anchored_centre(self) -> Self {
        Self { window: self.window.anchor(Align2::CENTER_CENTER, [0.0, 0.0]) }
    }

    /// First shown at the top left of `area`, at most its size, and kept inside it (a big
    /// window between the menu bar and the status bar covers neither).
    pub fn within(self, area: egui::Rect, size: Vec2) -> Self {
        let size = size.min(area.size() - Vec2::splat(8.0)).max(Vec2::splat(120.0));
        let window = self.window.constrain_to(area).default_pos(area.min + Vec2::splat(4.0));
        Self { window: window.default_size(size).max_size(area.size()) }
    }

    /// Kept inside the editor's window.
    pub fn constrained(self) -> Self {
        Self { window: self.window.constrain(true) }
    }

    pub fn show<R>(self, ctx: &Context, add: impl FnOnce(&mut Ui) -> R) -> Option<InnerResponse<Option<R>>> {
        self.window.show(ctx, add)
    }
}

/// The preamble every window over an `Option` repeats: window `W` is drawn while `shown`
/// holds what it shows, its scaffold finished by `place`, and its close button empties
/// `shown`. What the body returned, when it was drawn.
pub fn show_some<W: Window, T, R>(
    ctx: &Context,
    shown: &mut Option<T>,
    title: impl Into<WidgetText>,
    place: impl FnOnce(Scaffold<'_>) -> Scaffold<'_>,
    body: impl FnOnce(&mut Ui, &mut T) -> R,
) -> Option<R> {
    let what = shown.as_mut()?;
    let mut keep = true;
    let answer = place(Scaffold::of::<W>(title, &mut keep)).show(ctx, |ui| body(ui, what)).and_then(|r| r.inner);
    if !keep {
        *shown = None;
    }
    answer
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every window is set up by `Scaffold::of` from its `Window` impl, its id and first size
    /// in one place.
    #[test]
    fn windows_are_scaffolded_from_their_window_impl() {
        fn walk(dir: &Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, found);
                } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("app/window.rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    if text.contains("Scaffold::new(") || text.contains("egui::Window::new(") {
                        found.push(path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().display().to_string());
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app"), &mut found);
        found.sort();
        assert_eq!(found, Vec::<String>::new(), "windows that name their id by hand");
    }
}

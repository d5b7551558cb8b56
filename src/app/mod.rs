//! The desktop editor (egui lives only under this module).
//!
//! Layout: menu bar on top, the tile palette on the left, the canvas in the centre, the
//! inspector on the right and the status/problems bar at the bottom; the parameter form
//! opens as a window at the drop point. UI code never changes the model mid-frame: it
//! pushes [`Action`]s, which are drained once per frame after everything is drawn, and
//! every model change goes through the document's undoable commands.

mod action;
mod app_reparam;
mod authoring;
mod canvas;
mod child_view;
mod command_ui;
mod compare;
mod conflicts;
mod dialogs;
mod finder;
mod form;
mod inspector;
mod mesh_cache;
mod native_files;
mod pack_view;
mod palette;
mod pixmap;
mod preview_pane;
mod problems;
mod publish;
mod registry;
mod settings;
mod shell;
mod theme;
mod trust_settings;
mod upgrade;
mod window;

pub use native_files::{FileDialogs, NativeDialogs};
pub use shell::{App, StartOptions, run};

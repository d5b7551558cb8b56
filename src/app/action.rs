//! What the UI asks for during a frame. Windows and panels push an [`Action`]; the editor
//! applies them once per frame, after everything is drawn, so no drawing code changes the
//! model mid-frame. It sits below every window: they all import it, it imports none of them.

use crate::editor::blockers::Fix;
use crate::editor::commands::CommandId;
use crate::editor::document::Command;
use crate::editor::file_dialog::Purpose;
use crate::editor::packs::PackId;
pub use crate::editor::publish::Subject;
use std::path::PathBuf;

/// Something the UI asked for this frame; applied after drawing.
pub(crate) enum Action {
    /// A command of the registry ([`crate::editor::commands`]): menus, shortcuts, context
    /// menus, toolbar buttons and the command palette all come here.
    Run(CommandId),
    Doc(Command),
    /// Open a chain's parameter form to insert it at `at`, into the edge `on_edge` (by
    /// `seq`), or downstream of the node `after`.
    OpenInsertForm {
        pack: PackId,
        chain_id: String,
        at: (f64, f64),
        on_edge: Option<u64>,
        after: Option<String>,
    },
    /// Open a chain's parameter form where the command palette inserts: downstream of the
    /// selection, else at the middle of the view ("Insert now" once nothing blocks it, a
    /// version picked on a tile).
    InsertChain {
        pack: PackId,
        chain_id: String,
    },
    /// Re-parameterise this chain instance (a frame's double-click).
    EditInstance(String),
    /// Open "Review update…" for this chain instance (its frame's update badge).
    ReviewUpdate(String),
    /// Insert one node of a catalogued type, on an edge (by `seq`) when dropped on one.
    InsertNodeType {
        type_id: String,
        at: (f64, f64),
        on_edge: Option<u64>,
    },
    SelectGhost(usize),
    /// Paste this clipboard text (the desktop's paste event carries it).
    Paste(String),
    OpenPaths(Vec<PathBuf>),
    Publish(Subject),
    /// Change the host profile or trust policy so that a refusal goes (a blocked tile's fix).
    Fix(Fix),
    /// Promote a node's value (pointer inside the node) to a parameter.
    MakeParameter {
        node: String,
        pointer: String,
    },
    /// Ask a file dialog question for a window that cannot ask itself.
    AskFile(Purpose),
}

//! The command registry: every user action of the editor declared once — a stable id, the
//! label and tooltip a user reads, its keyboard shortcuts per operating system, where it
//! appears (menus, context menus, toolbar) and when it is enabled. The menus, the context
//! menus, the canvas toolbar, the command palette, the keyboard shortcut help and the
//! shortcut handling are all generated from this one table, so none of them can disagree
//! with the real bindings. Nothing here knows about egui: shortcuts are plain data that
//! `app` converts, and "enabled" is a predicate over a small [`Context`] the app fills in.
//!
//! # Adding a command
//! 1. Add a variant to the `command_ids!` list (its order is the order in menus, context
//!    menus and the shortcut help).
//! 2. Give it a row in [`CommandId::spec`]: a dotted id that never changes once released
//!    (`area.verb`), a label in sentence case ("…" when it asks for more before acting), a
//!    tooltip that says what happens, its [`Binding`]s, its [`Place`]s and an `enabled`
//!    predicate over [`Context`] (add a field to `Context` if it needs to know more; the app
//!    fills it in `App::command_context`).
//! 3. Handle it in `App::run_command` (src/app/mod.rs): the match there is exhaustive, so
//!    the compiler points at the spot. Buttons elsewhere in the UI push
//!    `Action::Run(CommandId::…)` rather than doing the work themselves.
//! 4. `cargo test --lib editor::commands` checks that the id is unique, that no shortcut is
//!    taken twice on one OS, and that the command can be reached from a menu, a context menu
//!    or the toolbar (or is listed in [`PALETTE_ONLY`] with the reason). Every command is
//!    in the command palette (Ctrl+K) without further work.

/// The operating systems whose shortcuts differ: macOS uses ⌘ where the others use Ctrl,
/// and draws shortcuts with symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Mac,
    Other,
}

impl Os {
    pub const ALL: [Os; 2] = [Os::Mac, Os::Other];
}

/// Modifier keys of a shortcut. `command` is ⌘ on macOS and Ctrl elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Mods {
    pub command: bool,
    pub shift: bool,
    pub alt: bool,
}

/// The keys the editor binds. Letters are their own names; `Questionmark` is the `?`
/// character whatever keys type it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rustfmt::skip]
pub enum Key {
    A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z,
    Delete, Backspace, Escape, Tab, Space, Enter, F1, F2, Questionmark, Plus, Minus, Equals,
    ArrowUp, ArrowDown, ArrowLeft, ArrowRight,
}

impl Key {
    /// How the key is written in a shortcut on `os`.
    pub fn name(self, os: Os) -> &'static str {
        use Key::*;
        match (self, os) {
            (Delete, Os::Mac) => "⌦",
            (Delete, Os::Other) => "Del",
            (Backspace, Os::Mac) => "⌫",
            (Backspace, Os::Other) => "Backspace",
            (Escape, Os::Mac) => "⎋",
            (Escape, Os::Other) => "Esc",
            (Tab, Os::Mac) => "⇥",
            (Tab, Os::Other) => "Tab",
            (Enter, Os::Mac) => "↩",
            (Enter, Os::Other) => "Enter",
            (Space, _) => "Space",
            (F1, _) => "F1",
            (F2, _) => "F2",
            (Questionmark, _) => "?",
            (Plus, _) => "+",
            (Minus, _) => "-",
            (Equals, _) => "=",
            (ArrowUp, _) => "↑",
            (ArrowDown, _) => "↓",
            (ArrowLeft, _) => "←",
            (ArrowRight, _) => "→",
            (letter, _) => LETTERS[letter as usize],
        }
    }
}

#[rustfmt::skip]
const LETTERS: [&str; 26] = [
    "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "Q", "R", "S", "T", "U",
    "V", "W", "X", "Y", "Z",
];

/// A key with its modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shortcut {
    pub mods: Mods,
    pub key: Key,
}

impl Shortcut {
    pub const fn plain(key: Key) -> Self {
        Self { mods: Mods { command: false, shift: false, alt: false }, key }
    }

    pub const fn command(key: Key) -> Self {
        Self { mods: Mods { command: true, shift: false, alt: false }, key }
    }

    pub const fn command_shift(key: Key) -> Self {
        Self { mods: Mods { command: true, shift: true, alt: false }, key }
    }

    /// The shortcut as written on `os`: "Ctrl+Shift+Z" elsewhere, "⇧⌘Z" on macOS (whose
    /// menus put the modifier symbols in the order ⌥⇧⌘ before the key).
    pub fn text(&self, os: Os) -> String {
        let Mods { command, shift, alt } = self.mods;
        let mut out = String::new();
        match os {
            Os::Mac => {
                for (on, symbol) in [(alt, "⌥"), (shift, "⇧"), (command, "⌘")] {
                    if on {
                        out.push_str(symbol);
                    }
                }
            }
            Os::Other => {
                for (on, name) in [(command, "Ctrl+"), (alt, "Alt+"), (shift, "Shift+")] {
                    if on {
                        out.push_str(name);
                    }
                }
            }
        }
        out.push_str(self.key.name(os));
        out
    }

    /// Whether pressing it can type text: without ⌘/Ctrl, anything but a function key can.
    pub fn types_text(&self) -> bool {
        !self.mods.command && !matches!(self.key, Key::F1 | Key::F2)
    }

    /// How many modifiers it holds: a more specific shortcut is matched first, so that
    /// Ctrl+Shift+S is never taken for Ctrl+S.
    pub fn specificity(&self) -> usize {
        usize::from(self.mods.command) + usize::from(self.mods.shift) + usize::from(self.mods.alt)
    }
}

/// Which operating systems a binding is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnOs {
    All,
    Mac,
    NotMac,
}

impl OnOs {
    fn includes(self, os: Os) -> bool {
        match self {
            OnOs::All => true,
            OnOs::Mac => os == Os::Mac,
            OnOs::NotMac => os != Os::Mac,
        }
    }
}

/// A shortcut on some operating systems.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    pub shortcut: Shortcut,
    pub on: OnOs,
}

const fn all(shortcut: Shortcut) -> Binding {
    Binding { shortcut, on: OnOs::All }
}

const fn not_mac(shortcut: Shortcut) -> Binding {
    Binding { shortcut, on: OnOs::NotMac }
}

/// The menu bar's menus, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Menu {
    File,
    Edit,
    Arrange,
    View,
    Help,
}

impl Menu {
    pub const ALL: [Menu; 5] = [Menu::File, Menu::Edit, Menu::Arrange, Menu::View, Menu::Help];

    pub fn title(self) -> &'static str {
        match self {
            Menu::File => "File",
            Menu::Edit => "Edit",
            Menu::Arrange => "Arrange",
            Menu::View => "View",
            Menu::Help => "Help",
        }
    }
}

/// Where a command is offered besides the command palette (which offers every command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// In a menu of the menu bar, in a section (a separator goes between sections).
    Menu(Menu, u8),
    /// The context menu of a node or a chain instance frame (it acts on the selection,
    /// which the right-click sets).
    SelectionMenu,
    /// The context menu of empty canvas (it acts at the point clicked).
    CanvasMenu,
    /// The canvas toolbar.
    Toolbar,
}

/// What the enabled-when predicates may ask about the editor's state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Context {
    /// The workflow has at least one node.
    pub has_nodes: bool,
    pub nodes_selected: usize,
    pub edges_selected: usize,
    /// A chain instance is selected, or a node of one is the only node selected.
    pub instance_selected: bool,
    pub can_undo: bool,
    pub can_redo: bool,
    /// A parameter form is open (it owns Enter and Esc, and inserting waits for it).
    pub form_open: bool,
    /// A newer version of the selected instance's chain is loaded (and it is not pinned).
    pub instance_outdated: bool,
    /// The selected instance is pinned to its version.
    pub instance_pinned: bool,
    /// The workflow is one an OpenWOP app expanded from a chain (it can be re-parameterised).
    pub app_instance: bool,
    /// The one selected node names a sub-chain child workflow.
    pub child_selected: bool,
    /// The command palette or quick-add is open (it owns the keyboard: Esc closes it).
    pub finder_open: bool,
    /// States of the View toggles.
    pub snap: bool,
    pub minimap: bool,
    pub show_internal: bool,
    /// Whether the side panels are shown (hidden, the canvas takes their width).
    pub palette_panel: bool,
    pub inspector_panel: bool,
}

impl Context {
    pub fn has_selection(&self) -> bool {
        self.nodes_selected + self.edges_selected > 0 || self.instance_selected
    }

    /// With what the windows decide: a pack view open here takes Undo and Redo, and whether
    /// a form or the finder is open.
    pub fn with_windows(self, pack_view_here: bool, form_open: bool, finder_open: bool) -> Self {
        let (can_undo, can_redo) = (self.can_undo || pack_view_here, self.can_redo || pack_view_here);
        Self { can_undo, can_redo, form_open, finder_open, ..self }
    }
}

/// One row of the registry.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// Stable across releases (settings and scripts may name it).
    pub id: &'static str,
    pub label: &'static str,
    pub tooltip: &'static str,
    /// Every shortcut, the one menus show first (per OS: the first binding for that OS).
    pub bindings: &'static [Binding],
    pub places: &'static [Place],
    pub enabled: fn(&Context) -> bool,
    /// For toggles: whether it is on (menus draw a check mark).
    pub checked: Option<fn(&Context) -> bool>,
    /// The shortcut also works while a text field has keyboard focus: those of its
    /// shortcuts that type no text (with ⌘/Ctrl, or function keys), so "?" still types.
    pub while_typing: bool,
}

/// Commands that are on purpose in the command palette only, with the reason.
pub const PALETTE_ONLY: &[(CommandId, &str)] = &[];

/// Declares [`CommandId`] and its [`CommandId::ALL`] from one list, so neither can miss a
/// variant.
macro_rules! command_ids {
    ($($name:ident),* $(,)?) => {
        /// Every user action that is not about one particular object of the UI.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum CommandId {
            $($name),*
        }

        impl CommandId {
            /// Every command, in the order of menus and of the shortcut help.
            pub const ALL: &'static [CommandId] = &[$(CommandId::$name),*];
        }
    };
}

command_ids! {
    New,
    Open,
    OpenFolder,
    OpenRegistry,
    Save,
    SaveAs,
    ExportFaithful,
    ExportStrict,
    ExportBundle,
    CopyJson,
    PublishWorkflow,
    Quit,
    Undo,
    Redo,
    QuickAdd,
    Copy,
    Paste,
    Delete,
    SelectAll,
    SelectNone,
    OpenChild,
    EditInstance,
    RemoveInstance,
    ReviewUpdate,
    PinInstance,
    ReparamApp,
    CompareSaved,
    ExtractChain,
    MakeParameter,
    Settings,
    ImportCapabilities,
    ImportNodeCatalog,
    Tidy,
    Duplicate,
    AlignLeft,
    AlignCentreX,
    AlignRight,
    AlignTop,
    AlignCentreY,
    AlignBottom,
    DistributeHorizontally,
    DistributeVertically,
    CommandPalette,
    Fit,
    ZoomToSelection,
    ZoomIn,
    ZoomOut,
    ToggleSnap,
    ToggleMinimap,
    TogglePalettePanel,
    ToggleInspectorPanel,
    ToggleInternal,
    PackView,
    ShortcutHelp,
    About,
}

fn always(_: &Context) -> bool {
    true
}

fn no_form(c: &Context) -> bool {
    !c.form_open
}

use crate::editor::arrange::{Align, Arrangement, Axis};
use Key::*;
use Menu::{Arrange, Edit, File, Help, View};

impl CommandId {
    /// The command with this stable id.
    pub fn from_id(id: &str) -> Option<CommandId> {
        Self::ALL.iter().copied().find(|c| c.spec().id == id)
    }

    pub fn spec(self) -> Spec {
        let base = Spec {
            id: "",
            label: "",
            tooltip: "",
            bindings: &[],
            places: &[],
            enabled: always,
            checked: None,
            while_typing: false,
        };
        self.file_spec(base)
            .or_else(|| self.edit_spec(base))
            .or_else(|| self.insert_spec(base))
            .or_else(|| self.arrange_spec(base))
            .or_else(|| self.view_spec(base))
            .or_else(|| self.panel_spec(base))
            .expect("every command is in one group")
    }

    /// The rows of files, export, publishing and quitting.
    fn file_spec(self, base: Spec) -> Option<Spec> {
        Some(match self {
            CommandId::New => Spec {
                id: "file.new",
                label: "New workflow",
                tooltip: "Start an empty workflow (asks first when there are unsaved changes)",
                bindings: const { &[all(Shortcut::command(N))] },
                places: &[Place::Menu(File, 0)],
                while_typing: true,
                ..base
            },
            CommandId::Open => Spec {
                id: "file.open",
                label: "Open packs or workflow…",
                tooltip: "Open files: pack manifests (pack.json), pack tarballs (.tgz) or a workflow (.json)",
                bindings: const { &[all(Shortcut::command(O))] },
                places: &[Place::Menu(File, 0)],
                while_typing: true,
                ..base
            },
            CommandId::OpenFolder => Spec {
                id: "file.open_folder",
                label: "Open pack folder…",
                tooltip: "Open every pack in a folder: the pack.json files and pack tarballs in it and in its subfolders (a checkout, an install cache, a registry's packs)",
                places: &[Place::Menu(File, 0)],
                ..base
            },
            CommandId::OpenRegistry => Spec {
                id: "file.registry",
                label: "Registry…",
                tooltip: "Browse a registry (a folder with .well-known/openwop-registry.json): verify, install and open its packs one by one; a folder of packs opens as a pack folder",
                places: &[Place::Menu(File, 0)],
                ..base
            },
            CommandId::Save => Spec {
                id: "file.save",
                label: "Save",
                tooltip: "Save the workflow to its file (asks for one the first time)",
                bindings: const { &[all(Shortcut::command(S))] },
                places: &[Place::Menu(File, 1)],
                while_typing: true,
                ..base
            },
            CommandId::SaveAs => Spec {
                id: "file.save_as",
                label: "Save as…",
                tooltip: "Save the workflow to a new file",
                bindings: const { &[all(Shortcut::command_shift(S))] },
                places: &[Place::Menu(File, 1)],
                while_typing: true,
                ..base
            },
            CommandId::ExportFaithful => Spec {
                id: "file.export_faithful",
                label: "Export expanded JSON, as the spec writes it…",
                tooltip: "Write the workflow as the chain-packs spec describes it: expanded nodes keep the chain's capabilities and inputs verbatim (spec-faithful)",
                places: &[Place::Menu(File, 2)],
                ..base
            },
            CommandId::ExportStrict => Spec {
                id: "file.export_strict",
                label: "Export expanded JSON for strict schema validators…",
                tooltip: "Write the workflow so that it validates against the closed WorkflowDefinition schema (node capabilities dropped, inputs wrapped as static PortValues), or say why not",
                places: &[Place::Menu(File, 2)],
                ..base
            },
            CommandId::ExportBundle => Spec {
                id: "file.export_bundle",
                label: "Export bundle (with sub-chain children)…",
                tooltip: "The workflow and every sub-chain child, each as its own WorkflowDefinition, written together",
                places: &[Place::Menu(File, 2)],
                ..base
            },
            CommandId::CopyJson => Spec {
                id: "file.copy_json",
                label: "Copy workflow JSON",
                tooltip: "Put the whole workflow on the clipboard as JSON",
                places: &[Place::Menu(File, 2)],
                ..base
            },
            CommandId::PublishWorkflow => Spec {
                id: "file.publish_workflow",
                label: "Publish workflow as tool…",
                tooltip: "Project the workflow into OpenWOP tool documents",
                places: &[Place::Menu(File, 2)],
                ..base
            },
            CommandId::Quit => Spec {
                id: "file.quit",
                label: "Quit",
                tooltip: "Close the editor (asks first when there are unsaved changes)",
                bindings: const { &[all(Shortcut::command(Q))] },
                places: &[Place::Menu(File, 3)],
                while_typing: true,
                ..base
            },
            _ => return None,
        })
    }

    /// The rows of undo, the clipboard, deleting and selecting.
    fn edit_spec(self, base: Spec) -> Option<Spec> {
        Some(match self {
            CommandId::Undo => Spec {
                id: "edit.undo",
                label: "Undo",
                tooltip: "Undo the last change",
                bindings: const { &[all(Shortcut::command(Z))] },
                places: &[Place::Menu(Edit, 0)],
                enabled: |c| c.can_undo,
                ..base
            },
            CommandId::Redo => Spec {
                id: "edit.redo",
                label: "Redo",
                tooltip: "Redo the change undone last",
                bindings: const { &[all(Shortcut::command_shift(Z)), not_mac(Shortcut::command(Y))] },
                places: &[Place::Menu(Edit, 0)],
                enabled: |c| c.can_redo,
                ..base
            },
            CommandId::Copy => Spec {
                id: "edit.copy",
                label: "Copy",
                tooltip: "Copy the selected nodes and the edges among them",
                bindings: const { &[all(Shortcut::command(C))] },
                places: &[Place::Menu(Edit, 1), Place::SelectionMenu],
                enabled: |c| c.nodes_selected > 0,
                ..base
            },
            CommandId::Paste => Spec {
                id: "edit.paste",
                label: "Paste",
                // The system clipboard is only read when pasting (reading it every frame
                // would be slow and intrusive), so Paste is always offered and says so when
                // the clipboard holds no nodes.
                tooltip: "Add copies of the nodes on the clipboard, with fresh ids",
                bindings: const { &[all(Shortcut::command(V))] },
                places: &[Place::Menu(Edit, 1), Place::CanvasMenu],
                enabled: no_form,
                ..base
            },
            CommandId::Delete => Spec {
                id: "edit.delete",
                label: "Delete",
                tooltip: "Delete the selected nodes (with their edges) and edges",
                bindings: const { &[all(Shortcut::plain(Delete)), all(Shortcut::plain(Backspace))] },
                places: &[Place::Menu(Edit, 1), Place::SelectionMenu],
                enabled: |c| c.nodes_selected + c.edges_selected > 0,
                ..base
            },
            CommandId::SelectAll => Spec {
                id: "edit.select_all",
                label: "Select all",
                tooltip: "Select every node",
                bindings: const { &[all(Shortcut::command(A))] },
                places: &[Place::Menu(Edit, 2), Place::CanvasMenu],
                enabled: |c| c.has_nodes,
                ..base
            },
            CommandId::SelectNone => Spec {
                id: "edit.select_none",
                label: "Select none",
                tooltip: "Clear the selection",
                bindings: const { &[all(Shortcut::plain(Escape))] },
                places: &[Place::Menu(Edit, 2)],
                // While a form, the palette or quick-add is open, Esc closes that instead.
                enabled: |c| c.has_selection() && !c.form_open && !c.finder_open,
                ..base
            },
            _ => return None,
        })
    }

    /// The rows of quick-add, chain instances and authoring.
    fn insert_spec(self, base: Spec) -> Option<Spec> {
        Some(match self {
            CommandId::QuickAdd => Spec {
                id: "edit.quick_add",
                label: "Add here…",
                tooltip: "Search chains and node types and insert one at the pointer: downstream of the one \
                          selected node, or into the selected edge",
                bindings: const { &[all(Shortcut::plain(Tab)), all(Shortcut::plain(Space))] },
                places: &[Place::Menu(Edit, 3), Place::CanvasMenu],
                enabled: |c| !c.form_open && !c.finder_open,
                ..base
            },
            CommandId::OpenChild => Spec {
                id: "edit.open_child",
                label: "Open child workflow",
                tooltip: "Show the workflow the selected sub-chain node runs, read-only",
                places: &[Place::SelectionMenu],
                enabled: |c| c.child_selected,
                ..base
            },
            CommandId::EditInstance => Spec {
                id: "instance.edit",
                label: "Edit chain parameters…",
                tooltip: "Re-parameterise the selected chain instance in place",
                places: &[Place::Menu(Edit, 4), Place::SelectionMenu],
                enabled: |c| c.instance_selected && !c.form_open,
                ..base
            },
            CommandId::RemoveInstance => Spec {
                id: "instance.remove",
                label: "Remove chain instance",
                tooltip: "Remove the selected chain instance: its nodes, edges and provenance",
                places: &[Place::Menu(Edit, 4), Place::SelectionMenu],
                enabled: |c| c.instance_selected,
                ..base
            },
            CommandId::ReviewUpdate => Spec {
                id: "instance.review_update",
                label: "Review update…",
                tooltip: "Compare the selected chain instance with the newest loaded version of its chain, then update it",
                places: &[Place::Menu(Edit, 4), Place::SelectionMenu],
                enabled: |c| c.instance_selected && c.instance_outdated && !c.form_open,
                ..base
            },
            CommandId::PinInstance => Spec {
                id: "instance.pin",
                label: "Pin chain version",
                tooltip: "Keep the selected chain instance at its version: no update is offered, and `upgrade --all` skips it",
                places: &[Place::Menu(Edit, 4), Place::SelectionMenu],
                enabled: |c| c.instance_selected,
                checked: Some(|c| c.instance_pinned),
                ..base
            },
            CommandId::ReparamApp => Spec {
                id: "edit.reparam_app",
                label: "Re-parameterise app workflow…",
                tooltip: "Re-expand the chain the OpenWOP app expanded this workflow from, with new values",
                places: &[Place::Menu(Edit, 4)],
                enabled: |c| c.app_instance && !c.form_open,
                ..base
            },
            CommandId::CompareSaved => Spec {
                id: "file.compare_saved",
                label: "Compare with saved version",
                tooltip: "The nodes, edges and members changed since the workflow was last saved",
                places: &[Place::Menu(File, 2)],
                ..base
            },
            CommandId::ExtractChain => Spec {
                id: "edit.extract_chain",
                label: "Extract as chain…",
                tooltip: "Make a chain tile from the selected nodes",
                places: &[Place::Menu(Edit, 4), Place::SelectionMenu],
                enabled: |c| c.nodes_selected > 0,
                ..base
            },
            CommandId::MakeParameter => Spec {
                id: "edit.make_parameter",
                label: "Make parameter…",
                tooltip: "Turn a value of the selected node into a parameter: of the chain being extracted, of the \
                          chain it went into, or of a new draft chain (right-click a value in the inspector to pick it)",
                places: &[Place::SelectionMenu],
                enabled: |c| c.nodes_selected == 1 && !c.form_open,
                ..base
            },
            _ => return None,
        })
    }

    /// The rows of arranging the selection, and the Settings window and its imports.
    fn arrange_spec(self, base: Spec) -> Option<Spec> {
        Some(match self {
            CommandId::Tidy => Spec {
                id: "arrange.tidy",
                label: "Tidy",
                tooltip: "Lay out the selected nodes (two or more), else the whole workflow, left to right",
                bindings: const { &[all(Shortcut { mods: Mods { command: false, shift: true, alt: true }, key: T })] },
                places: &[Place::Menu(Arrange, 0), Place::CanvasMenu],
                enabled: |c| c.has_nodes,
                ..base
            },
            CommandId::Duplicate => Spec {
                id: "arrange.duplicate",
                label: "Duplicate",
                tooltip: "Copy the selected nodes and the edges among them below the originals, clear of every card",
                bindings: const { &[all(Shortcut::command(D))] },
                places: &[Place::Menu(Arrange, 0), Place::SelectionMenu],
                enabled: |c| c.nodes_selected > 0,
                ..base
            },
            CommandId::AlignLeft => arrange(self, "arrange.align_left", "Line up the left edges of the selected nodes"),
            CommandId::AlignCentreX => arrange(
                self,
                "arrange.align_centre_x",
                "Line up the centres of the selected nodes on one vertical line",
            ),
            CommandId::AlignRight => {
                arrange(self, "arrange.align_right", "Line up the right edges of the selected nodes")
            }
            CommandId::AlignTop => arrange(self, "arrange.align_top", "Line up the top edges of the selected nodes"),
            CommandId::AlignCentreY => arrange(
                self,
                "arrange.align_centre_y",
                "Line up the centres of the selected nodes on one horizontal line",
            ),
            CommandId::AlignBottom => {
                arrange(self, "arrange.align_bottom", "Line up the bottom edges of the selected nodes")
            }
            CommandId::DistributeHorizontally => arrange(
                self,
                "arrange.distribute_horizontally",
                "Space the selected nodes evenly from left to right (three or more)",
            ),
            CommandId::DistributeVertically => arrange(
                self,
                "arrange.distribute_vertically",
                "Space the selected nodes evenly from top to bottom (three or more)",
            ),
            CommandId::Settings => Spec {
                id: "edit.settings",
                label: "Settings…",
                tooltip: "Target host profile and trust policy",
                places: &[Place::Menu(Edit, 5)],
                ..base
            },
            CommandId::ImportCapabilities => Spec {
                id: "settings.import_capabilities",
                label: "Import capabilities…",
                tooltip: "Take the target host profile from an `openwop capabilities --json` document",
                places: &[Place::Menu(Edit, 5)],
                ..base
            },
            CommandId::ImportNodeCatalog => Spec {
                id: "settings.import_node_catalog",
                label: "Import node catalog…",
                tooltip: "Take the host's own node types, with their schemas, from a saved OpenWOP app node-catalog response",
                places: &[Place::Menu(Edit, 5)],
                ..base
            },
            _ => return None,
        })
    }

    /// The rows of the command palette and the canvas's view.
    fn view_spec(self, base: Spec) -> Option<Spec> {
        Some(match self {
            CommandId::CommandPalette => Spec {
                id: "view.command_palette",
                label: "Command palette…",
                tooltip: "Search every command, chain and node type by name",
                bindings: const { &[all(Shortcut::command(K)), all(Shortcut::command_shift(P))] },
                places: &[Place::Menu(View, 0)],
                enabled: |c| !c.finder_open,
                while_typing: true,
                ..base
            },
            CommandId::Fit => Spec {
                id: "view.fit",
                label: "Fit to view",
                tooltip: "Show every node, or, when that would be too far out to read (under 40%), the entry node at 40% with the minimap for the rest; again to show every node anyway",
                bindings: const { &[all(Shortcut::plain(F))] },
                places: &[Place::Menu(View, 1), Place::CanvasMenu, Place::Toolbar],
                ..base
            },
            CommandId::ZoomToSelection => Spec {
                id: "view.zoom_to_selection",
                label: "Zoom to selection",
                tooltip: "Frame the selected nodes",
                bindings: const { &[all(Shortcut { mods: Mods { command: false, shift: true, alt: false }, key: F })] },
                places: &[Place::Menu(Arrange, 0), Place::Menu(View, 1)],
                enabled: |c| c.nodes_selected > 0,
                ..base
            },
            CommandId::ZoomIn => Spec {
                id: "view.zoom_in",
                label: "Zoom in",
                tooltip: "Magnify the canvas one step",
                places: &[Place::Menu(View, 1), Place::Toolbar],
                ..base
            },
            CommandId::ZoomOut => Spec {
                id: "view.zoom_out",
                label: "Zoom out",
                tooltip: "Shrink the canvas one step",
                places: &[Place::Menu(View, 1), Place::Toolbar],
                ..base
            },
            CommandId::ToggleSnap => {
                toggle("view.snap", "Snap to grid", "Moved and inserted nodes land on the grid", true, |c| c.snap)
            }
            CommandId::ToggleMinimap => toggle(
                "view.minimap",
                "Minimap",
                "An overview of the whole workflow in the canvas corner, smaller on a small canvas; hidden while an insert is previewed (it would cover the ghosts) and on a canvas under 240 × 172 points",
                true,
                |c| c.minimap,
            ),
            _ => return None,
        })
    }

    /// The rows of the panels, the pack view and help.
    fn panel_spec(self, base: Spec) -> Option<Spec> {
        Some(match self {
            CommandId::TogglePalettePanel => Spec {
                bindings: const { &[all(Shortcut::command(B))] },
                ..toggle(
                    "view.palette_panel",
                    "Palette panel",
                    "Show or hide the chain palette on the left; hidden, the canvas takes its width",
                    false,
                    |c| c.palette_panel,
                )
            },
            CommandId::ToggleInspectorPanel => Spec {
                bindings: const { &[all(Shortcut { mods: Mods { command: true, shift: false, alt: true }, key: B })] },
                ..toggle(
                    "view.inspector_panel",
                    "Inspector panel",
                    "Show or hide the inspector on the right; hidden, the canvas takes its width",
                    false,
                    |c| c.inspector_panel,
                )
            },
            CommandId::ToggleInternal => toggle(
                "view.show_internal",
                "Show internal chains",
                "List chains their packs mark internal in the palette",
                false,
                |c| c.show_internal,
            ),
            CommandId::PackView => Spec {
                id: "view.pack_view",
                label: "Pack view",
                tooltip: "Edit a chain pack: manifest, chains, parameters",
                places: &[Place::Menu(View, 3)],
                ..base
            },
            CommandId::About => Spec {
                id: "help.about",
                label: "About: version, documentation, files",
                tooltip: "The version, where the documentation is, and where settings and the recovery file live",
                places: &[Place::Menu(Help, 0)],
                ..base
            },
            CommandId::ShortcutHelp => Spec {
                id: "help.shortcuts",
                label: "Keyboard shortcuts",
                tooltip: "List every command with its shortcuts",
                bindings: const { &[all(Shortcut::plain(F1)), all(Shortcut::plain(Questionmark))] },
                places: &[Place::Menu(Help, 0)],
                while_typing: true,
                ..base
            },
            _ => return None,
        })
    }

    /// The arrangement an Arrange command applies (the model computes it).
    pub fn arrangement(self) -> Option<Arrangement> {
        Some(match self {
            CommandId::Tidy => Arrangement::Tidy,
            CommandId::AlignLeft => Arrangement::Align(Align::Left),
            CommandId::AlignCentreX => Arrangement::Align(Align::CentreX),
            CommandId::AlignRight => Arrangement::Align(Align::Right),
            CommandId::AlignTop => Arrangement::Align(Align::Top),
            CommandId::AlignCentreY => Arrangement::Align(Align::CentreY),
            CommandId::AlignBottom => Arrangement::Align(Align::Bottom),
            CommandId::DistributeHorizontally => Arrangement::Distribute(Axis::Horizontal),
            CommandId::DistributeVertically => Arrangement::Distribute(Axis::Vertical),
            _ => return None,
        })
    }

    /// The shortcuts that run this command on `os`; the first is the one menus show.
    pub fn shortcuts(self, os: Os) -> impl Iterator<Item = Shortcut> {
        self.spec().bindings.iter().filter(move |b| b.on.includes(os)).map(|b| b.shortcut)
    }

    /// The shortcut text a menu shows on `os` (empty when there is none).
    pub fn shortcut_text(self, os: Os) -> String {
        self.shortcuts(os).next().map(|s| s.text(os)).unwrap_or_default()
    }

    pub fn is_enabled(self, cx: &Context) -> bool {
        (self.spec().enabled)(cx)
    }

    pub fn in_place(self, place: Place) -> bool {
        self.spec().places.contains(&place)
    }
}

/// An align or distribute command: its label is the arrangement's (the undo history uses
/// it too), and it needs as many selected nodes as the arrangement does.
fn arrange(c: CommandId, id: &'static str, tooltip: &'static str) -> Spec {
    let how = c.arrangement().expect("an arrange command");
    let section = if matches!(how, Arrangement::Distribute(_)) { 2 } else { 1 };
    Spec {
        id,
        label: how.label(),
        tooltip,
        bindings: &[],
        places: match section {
            1 => &[Place::Menu(Arrange, 1)],
            _ => &[Place::Menu(Arrange, 2)],
        },
        enabled: match how {
            Arrangement::Distribute(_) => |c| c.nodes_selected >= 3,
            _ => |c| c.nodes_selected >= 2,
        },
        checked: None,
        while_typing: false,
    }
}

/// A View toggle: in the View menu's section of toggles (and on the canvas toolbar when
/// `toolbar`), checked while `on` says it is on.
fn toggle(
    id: &'static str,
    label: &'static str,
    tooltip: &'static str,
    toolbar: bool,
    on: fn(&Context) -> bool,
) -> Spec {
    Spec {
        id,
        label,
        tooltip,
        bindings: &[],
        places: if toolbar { &[Place::Menu(View, 2), Place::Toolbar] } else { &[Place::Menu(View, 2)] },
        enabled: always,
        checked: Some(on),
        while_typing: false,
    }
}

/// The commands of one menu, in sections.
pub fn menu(menu: Menu) -> Vec<Vec<CommandId>> {
    let mut sections: Vec<(u8, Vec<CommandId>)> = Vec::new();
    for &c in CommandId::ALL {
        for place in c.spec().places {
            if let Place::Menu(m, section) = *place
                && m == menu
            {
                match sections.iter_mut().find(|(s, _)| *s == section) {
                    Some((_, list)) => list.push(c),
                    None => sections.push((section, vec![c])),
                }
            }
        }
    }
    sections.sort_by_key(|(s, _)| *s);
    sections.into_iter().map(|(_, list)| list).collect()
}

/// The commands offered in a context menu or the toolbar, in registry order.
pub fn in_place(place: Place) -> Vec<CommandId> {
    CommandId::ALL.iter().copied().filter(|c| c.in_place(place)).collect()
}

/// Every (shortcut, command) on `os`, most specific first: the order to match key presses in.
pub fn bindings(os: Os) -> Vec<(Shortcut, CommandId)> {
    let mut out: Vec<(Shortcut, CommandId)> =
        CommandId::ALL.iter().flat_map(|&c| c.shortcuts(os).map(move |s| (s, c))).collect();
    out.sort_by_key(|(s, _)| std::cmp::Reverse(s.specificity()));
    out
}

#[cfg(test)]
mod tests;

use super::*;
use std::collections::{HashMap, HashSet};

#[test]
fn ids_and_labels_are_unique_and_all_lists_every_variant() {
    let mut ids = HashSet::new();
    let mut labels = HashSet::new();
    for c in CommandId::ALL {
        let s = c.spec();
        assert!(ids.insert(s.id), "id {} twice", s.id);
        assert!(labels.insert(s.label), "label {} twice", s.label);
        assert!(s.id.contains('.') && !s.label.is_empty() && !s.tooltip.is_empty(), "{c:?}");
        assert_eq!(CommandId::from_id(s.id), Some(*c));
    }
}

#[test]
fn no_two_commands_share_a_shortcut_on_one_os() {
    for os in Os::ALL {
        let mut seen: HashMap<Shortcut, CommandId> = HashMap::new();
        for (s, c) in bindings(os) {
            if let Some(other) = seen.insert(s, c) {
                panic!("{} is bound to both {other:?} and {c:?} on {os:?}", s.text(os));
            }
        }
    }
}

#[test]
fn every_command_is_reachable_from_a_menu_or_documented_as_palette_only() {
    for &c in CommandId::ALL {
        let placed = !c.spec().places.is_empty();
        let palette_only = PALETTE_ONLY.iter().any(|(p, why)| *p == c && !why.is_empty());
        assert!(placed != palette_only, "{c:?}: placed somewhere, or palette-only with a reason (not both)");
    }
}

#[test]
fn shortcut_text_follows_the_os() {
    assert_eq!(CommandId::Redo.shortcut_text(Os::Other), "Ctrl+Shift+Z");
    assert_eq!(CommandId::Redo.shortcut_text(Os::Mac), "⇧⌘Z");
    // Ctrl+Y redoes on Windows and Linux only; ⌘Y is not a Mac convention.
    assert_eq!(CommandId::Redo.shortcuts(Os::Other).count(), 2);
    assert_eq!(CommandId::Redo.shortcuts(Os::Mac).count(), 1);
    assert_eq!(CommandId::Delete.shortcut_text(Os::Other), "Del");
    assert_eq!(CommandId::Delete.shortcuts(Os::Mac).map(|s| s.text(Os::Mac)).collect::<Vec<_>>(), ["⌦", "⌫"]);
    assert_eq!(CommandId::Save.shortcut_text(Os::Mac), "⌘S");
    assert_eq!(CommandId::OpenFolder.shortcut_text(Os::Other), "");
    for c in CommandId::ALL {
        for s in c.shortcuts(Os::Mac) {
            assert!(!s.text(Os::Mac).contains("Ctrl"), "{c:?}");
        }
    }
}

#[test]
fn only_shortcuts_that_type_nothing_work_while_typing() {
    assert!(!Shortcut::plain(F1).types_text());
    assert!(Shortcut::plain(Questionmark).types_text());
    assert!(!Shortcut::command(K).types_text());
}

#[test]
fn more_specific_shortcuts_are_matched_first() {
    let order = bindings(Os::Other);
    let at = |s: Shortcut| order.iter().position(|(b, _)| *b == s).unwrap();
    assert!(at(Shortcut::command_shift(S)) < at(Shortcut::command(S)));
    assert!(at(Shortcut::command_shift(Z)) < at(Shortcut::command(Z)));
}

#[test]
fn enabled_when_follows_the_context() {
    let empty = Context::default();
    assert!(!CommandId::Undo.is_enabled(&empty));
    assert!(!CommandId::Copy.is_enabled(&empty));
    assert!(!CommandId::Delete.is_enabled(&empty));
    assert!(!CommandId::EditInstance.is_enabled(&empty));
    assert!(CommandId::Save.is_enabled(&empty));
    let one_edge = Context { edges_selected: 1, ..empty };
    assert!(CommandId::Delete.is_enabled(&one_edge));
    assert!(!CommandId::Copy.is_enabled(&one_edge), "edges alone are not copied");
    let form = Context { form_open: true, nodes_selected: 1, ..empty };
    assert!(!CommandId::SelectNone.is_enabled(&form), "Esc belongs to the form");
    assert!(!CommandId::QuickAdd.is_enabled(&form));
}

#[test]
fn arrange_commands_need_as_many_nodes_as_their_arrangement() {
    for &c in CommandId::ALL {
        let Some(how) = c.arrangement() else { continue };
        assert_eq!(c.spec().label, how.label());
        if how != Arrangement::Tidy {
            let short = Context { nodes_selected: how.minimum() - 1, has_nodes: true, ..Context::default() };
            let enough = Context { nodes_selected: how.minimum(), has_nodes: true, ..Context::default() };
            assert!(!c.is_enabled(&short) && c.is_enabled(&enough), "{c:?}");
        }
    }
}

#[test]
fn menus_keep_registry_order_in_sections() {
    let file = menu(Menu::File);
    assert_eq!(file[0], [CommandId::New, CommandId::Open, CommandId::OpenFolder, CommandId::OpenRegistry]);
    assert_eq!(file.last().unwrap(), &[CommandId::Quit]);
    let edit: Vec<CommandId> = menu(Menu::Edit).into_iter().flatten().collect();
    assert!(edit.contains(&CommandId::Paste), "Edit → Paste exists");
    assert_eq!(in_place(Place::CanvasMenu).first(), Some(&CommandId::QuickAdd), "Add here… first");
}

#[test]
fn review_update_needs_an_outdated_instance_and_pin_shows_its_state() {
    let selected = Context { instance_selected: true, ..Context::default() };
    assert!(!CommandId::ReviewUpdate.is_enabled(&selected), "up to date: nothing to review");
    let outdated = Context { instance_outdated: true, ..selected };
    assert!(CommandId::ReviewUpdate.is_enabled(&outdated));
    assert!(!CommandId::ReviewUpdate.is_enabled(&Context { form_open: true, ..outdated }));
    assert!(!CommandId::PinInstance.is_enabled(&Context::default()));
    let checked = CommandId::PinInstance.spec().checked.unwrap();
    assert!(!checked(&selected) && checked(&Context { instance_pinned: true, ..selected }));
}

#[test]
fn the_windows_add_a_pack_views_undo_and_what_is_open() {
    let doc = Context { can_undo: true, nodes_selected: 2, ..Context::default() };
    let cx = doc.with_windows(false, true, false);
    assert_eq!((cx.can_undo, cx.can_redo, cx.form_open, cx.finder_open), (true, false, true, false));
    assert_eq!(cx.nodes_selected, 2, "the document's part is kept");
    let cx = Context::default().with_windows(true, false, true);
    assert_eq!((cx.can_undo, cx.can_redo, cx.form_open, cx.finder_open), (true, true, false, true));
}

//! The editor's model, without any GUI toolkit: the open document with its commands and
//! exact undo, the selection, the clipboard, crash recovery, the files it opens and saves,
//! single nodes of catalogued types (new nodes, config forms, typed port checks), the pure
//! half of the insert preview (expand, then place), the size of cards and frames,
//! arrangements (tidy, room for a splice, align, distribute), the Registry window's model,
//! the host imports of Settings, the re-parameterisation of OpenWOP app workflows, and pack
//! authoring: the extract-as-chain dialog's model and the pack document with its own undo,
//! the command registry that menus, shortcuts and the command palette are generated from,
//! and the session the editor's requests run in (opening, saving, commands, forms' submits).
//! Positions are plain numbers in canvas units.
//!
//! `app` draws this model with egui and turns pointer and keyboard input into
//! [`document::Command`]s; nothing here knows about pixels, widgets or frames, so the model
//! is tested directly and builds without the `gui` feature.

pub mod app_reparam;
pub mod arrange;
pub mod authoring;
pub mod blockers;
pub mod cards;
pub mod clipboard;
pub mod commands;
pub mod compare;
pub mod document;
pub mod extraction;
pub mod file_dialog;
pub mod files;
pub mod finder;
pub mod geometry;
pub mod history;
pub mod host_import;
pub mod insert;
pub mod insert_form;
pub mod insert_session;
pub mod json_edit;
pub mod library;
pub mod lint;
pub mod node_type;
pub mod pack_doc;
pub mod packs;
pub mod predict;
pub mod preview;
pub mod problems;
pub mod publish;
pub mod publish_session;
pub mod recovery;
pub mod registry_view;
pub mod selection;
pub mod session;
pub mod settings;
pub mod startup;
pub mod subchains;
pub mod substituted;
pub mod trust_settings;
pub mod update_review;
pub mod wording;

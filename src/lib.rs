//! chainsmith: load, validate and expand OpenWOP workflow-chain packs, splice them into
//! workflows, and export the result.
//!
//! The pipeline is the layout:
//! - [`pack`] loads manifests (files or folders) and validates them (schema, semantics, lints);
//! - [`params`] turns a chain's `parameters` schema into a form and validates values;
//! - [`expand`] substitutes tokens and rewrites ids, yielding a petgraph fragment;
//! - [`workflow`] holds the parent WorkflowDefinition as a graph, splices fragments in,
//!   and exports JSON atomically;
//! - [`inline`] is the one pipeline the CLI and the editor both run: trust and host checks,
//!   values, expansion, checks, splice;
//! - [`diff`] compares two packs (with the semver level their changes need) or two
//!   workflows;
//! - [`instance`] re-expands an inserted chain in place (new values or a new version),
//!   keeping what the user changed since;
//! - [`catalog`] answers what the target host and known node packs provide, and whether a
//!   pack is trusted (signatures, dependencies, lockfiles);
//! - [`registry`] reads, verifies, installs from and publishes to OpenWOP registry folders
//!   (canonical JSON, signing, tarballs), offline;
//! - [`tool`] projects a chain or a workflow into the OpenWOP tool documents;
//! - [`author`] goes the other way: workflow nodes become a chain, values become
//!   parameters, and packs are created, edited and saved;
//! - [`editor`] is the editor's model without a GUI: document, commands and exact undo,
//!   selection, clipboard, recovery, files and the insert preview.
//!
//! Every graph walk goes through [`graph`], which keeps its state on the heap, so input size
//! never translates into stack depth.
//!
//! Only `app`, the egui editor drawing [`editor`], depends on a GUI toolkit, and only when the default `gui`
//! feature is on (`cargo build --no-default-features` builds the library and the CLI without
//! any GUI crate); the CLI (`src/cli.rs`, in the binary) and the editor are thin layers over
//! the modules above.

#[cfg(feature = "gui")]
pub mod app;
pub mod author;
pub mod catalog;
pub mod diff;
pub mod editor;
pub mod error;
pub mod expand;
pub mod fsio;
pub mod grammar;
pub mod graph;
pub mod host;
pub mod ids;
pub mod inline;
pub mod instance;
pub mod jcs;
pub mod json_walk;
pub mod net;
pub mod pack;
mod parallel;
pub mod params;
mod pretty;
pub mod range;
pub mod registry;
pub mod schemas;
pub mod tarball;
pub mod tool;
pub mod words;
pub mod workflow;

pub use error::{Error, Finding, Result, Severity};

//! OpenWOP registry interop, offline (interop.md §1–3): RFC 8785 canonical JSON, key files
//! and pack signing (v1 manual and v2 `ed25519-canonical-json`), registry folders (a local
//! mirror of a registry's HTTP tree, paths from its discovery document), deterministic pack
//! tarballs, integrity and signature verification, installs into the OpenWOP cache, and
//! publishing into a registry folder. A registry is read from a folder or by URL through a
//! `source::Source`; the network itself is `crate::net`.

pub use crate::{jcs, tarball};

pub mod install;
pub mod keys;
pub mod layout;
pub mod listing;
pub mod opened;
pub mod publish;
pub mod search;
pub mod served;
pub mod sign;
pub mod source;
pub mod verify;

pub use install::{InstallOptions, Installed, cache_base, install, resolve_version, split_spec};
pub use layout::{KeyEntry, Registry, Tree, covers};
pub use listing::{Check, PackListing, VersionRow, list};
pub use opened::{external_packs, open_version, tarball_location};
pub use sign::{Scheme, Signed, sign_manifest, sign_pack};
pub use tarball::{PackArchive, is_tarball_path};
pub use verify::{SignatureCheck, Verified, integrity_matches, sri, verify};

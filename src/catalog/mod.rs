//! What the target host and the known node packs provide: the host profile that gates
//! capability-dependent chains, and typeId resolution.

mod host;

pub use host::HostProfile;

/// Answers whether a typeId is provided by a pack the editor knows.
pub trait TypeResolver {
    fn resolves(&self, type_id: &str) -> bool;
}

/// `core.*` typeIds are reserved and always resolve (node-packs §1.4).
pub fn is_core(type_id: &str) -> bool {
    type_id.starts_with("core.")
}

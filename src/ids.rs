//! Identifiers every layer mints or checks the same way: the id slug of a chainId, the
//! reference's child workflow ids and the tenant they belong to by default, and the
//! WorkflowDefinition id grammar. A leaf: it depends on nothing else in the crate.

/// The tenant child workflow ids are scoped to when none is named.
pub const DEFAULT_TENANT: &str = "local";

/// `chainId` with every `.` replaced by `_` (chain-packs §4.2).
pub fn chain_id_slug(chain_id: &str) -> String {
    chain_id.replace('.', "_")
}

/// The reference's child workflow id: in each part every character outside
/// `[0-9A-Za-z._-]` becomes `_`, then every `.` becomes `_`.
pub fn mint_child_workflow_id(tenant: &str, chain_id: &str, version: &str) -> String {
    fn slug(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        for c in s.chars() {
            match c {
                '0'..='9' | 'A'..='Z' | 'a'..='z' | '-' => out.push(c),
                // JavaScript replaces each UTF-16 unit: a character beyond the BMP gives two.
                _ => out.extend(std::iter::repeat_n('_', c.len_utf16())),
            }
        }
        out
    }
    format!("wfc_{}__{}__{}", slug(tenant), slug(chain_id), slug(version))
}

/// Whether `id` is a valid WorkflowDefinition id (`^[a-z][a-z0-9_-]*$`, at most 128).
pub fn is_valid_workflow_id(id: &str) -> bool {
    id.len() <= 128
        && id.starts_with(|c: char| c.is_ascii_lowercase())
        && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

//! Which key signs a publish. A key id the registry lists must name this private key's
//! public half, be active and cover the pack's name. A key id it does not list is added
//! with the pack's two-segment namespace (`vendor.acme.tiles` → `vendor.acme.*`), and only
//! then: never `core.*` (the working group's scope, node-packs-and-lockfiles §1); never a
//! namespace another key or assignment holds, unless `--share-namespace`; and, once the
//! registry has keys, only when `--grant-namespace` asks (the first key of a registry takes
//! its pack's namespace unasked). What was granted, and why, is in the publish's output.

use super::PublishOptions;
use super::document::new_document;
use crate::error::{Error, Finding, Result, code};
use crate::registry::keys;
use crate::registry::layout::{KeyEntry, Registry, namespaces_overlap};
use ed25519_dalek::SigningKey;
use serde_json::{Value, json};
use std::path::PathBuf;

/// `a.b.c` → `a.b.*`: the namespace a new registry key is granted.
fn namespace_of(name: &str) -> String {
    let parts: Vec<&str> = name.split('.').collect();
    if parts.len() >= 3 { format!("{}.{}.*", parts[0], parts[1]) } else { name.to_owned() }
}

/// Names the working group alone publishes under.
fn reserved(name: &str) -> bool {
    name == "core" || name.starts_with("core.")
}

/// A namespace granted to a key the registry did not list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub key_id: String,
    pub namespace: String,
    /// Why it was granted: `first_key`, `grant_namespace` or `share_namespace` (the flag).
    pub basis: &'static str,
}

impl Grant {
    pub fn to_json(&self) -> Value {
        json!({"keyId": self.key_id, "namespace": self.namespace, "basis": self.basis})
    }
}

/// A key's public half to add to the registry, and the document that lists it.
pub(super) struct NewKey {
    pub document: Value,
    /// The key file to write, unless the same key is there already.
    pub file: Option<(PathBuf, Vec<u8>)>,
    pub grant: Grant,
}

/// Make sure the registry lists `key_id` for this key and pack, and that the key may sign
/// new versions: a listed key is checked, an unlisted one added under the rules above.
pub(super) fn ensure_key(
    reg: &Registry,
    key: &SigningKey,
    key_id: &str,
    name: &str,
    opts: &PublishOptions,
    warnings: &mut Vec<Finding>,
) -> Result<Option<NewKey>> {
    if let Some(entry) = reg.key(key_id) {
        let listed = reg
            .public_key(entry)
            .map_err(|m| key_refusal(key_id, name, "unknown_key", format!("registry key \"{key_id}\": {m}")))?;
        if listed != key.verifying_key() {
            return Err(key_refusal(
                key_id,
                name,
                "unknown_key",
                format!("the registry's key \"{key_id}\" is not the public half of this private key"),
            ));
        }
        check_signer(entry, name)?;
        return Ok(None);
    }
    let namespace = namespace_of(name);
    let basis = grant_basis(reg, key_id, name, &namespace, opts, warnings)?;
    add_key(reg, key, key_id, name, Grant { key_id: key_id.to_owned(), namespace, basis }, warnings).map(Some)
}

fn key_refusal(key_id: &str, name: &str, reason: &str, msg: String) -> Error {
    Error::new(code::PACK_SIGNATURE_INVALID, msg).with("reason", reason).with("keyId", key_id).with("packName", name)
}

/// Why a key the registry does not list may be granted `namespace`, or the refusal: never
/// `core.*`; a namespace another key holds only with --share-namespace; the first key of a
/// registry unasked, any later one only with --grant-namespace.
fn grant_basis(
    reg: &Registry,
    key_id: &str,
    name: &str,
    namespace: &str,
    opts: &PublishOptions,
    warnings: &mut Vec<Finding>,
) -> Result<&'static str> {
    let unauthorized = |reason: &str, msg: String| {
        Error::new(code::PACK_NAMESPACE_UNAUTHORIZED, msg)
            .with("reason", reason)
            .with("keyId", key_id)
            .with("packName", name)
            .with("namespace", namespace)
    };
    if reserved(name) {
        return Err(unauthorized(
            "namespace_reserved",
            format!(
                "{name}: core.* is reserved for the OpenWOP working group, so no key is granted {namespace}; \
                 sign with a key the registry already lists for it"
            ),
        ));
    }
    match held_by(reg, namespace) {
        Some((holder, ns)) if !opts.share_namespace => Err(unauthorized(
            "namespace_held",
            format!(
                "{name}: the new key \"{key_id}\" would be granted {namespace}, but the registry's key \"{holder}\" \
                 holds {ns}; sign with that key, or pass --share-namespace to grant it to both"
            ),
        )
        .with("heldBy", holder.as_str())
        .with("heldNamespace", ns.as_str())),
        Some((holder, ns)) => {
            warnings.push(
                Finding::warning(
                    code::PACK_NAMESPACE_UNAUTHORIZED,
                    "/signingKeys",
                    format!("{namespace} is shared with key \"{holder}\" ({ns}) as --share-namespace asked"),
                )
                .with("keyId", key_id),
            );
            Ok("share_namespace")
        }
        None if reg.keys.is_empty() => Ok("first_key"),
        None if opts.grant_namespace => Ok("grant_namespace"),
        None => {
            let listed: Vec<&str> = reg.keys.iter().map(|k| k.key_id.as_str()).collect();
            Err(unauthorized(
                "grant_not_requested",
                format!(
                    "{name}: the registry already has signing keys ({}), so the new key \"{key_id}\" is granted \
                     {namespace} only when asked: pass --grant-namespace, or sign with a listed key",
                    listed.join(", ")
                ),
            ))
        }
    }
}

/// The discovery document with the new key listed for its grant, and the key file to
/// write unless the same key is there already.
fn add_key(
    reg: &Registry,
    key: &SigningKey,
    key_id: &str,
    name: &str,
    grant: Grant,
    warnings: &mut Vec<Finding>,
) -> Result<NewKey> {
    let mut doc = reg.document.clone().unwrap_or_else(|| new_document(reg.tree));
    let url = reg.endpoints.public_key.replace("{keyId}", key_id);
    let key_file = reg.local(&url)?;
    let pem = keys::public_key_pem(&key.verifying_key()).into_bytes();
    // A file there is compared (bounded: a key file is a few hundred bytes); anything else
    // is left to the commit, which refuses a link and fails on a folder.
    let file = if std::fs::symlink_metadata(&key_file).is_ok_and(|m| m.is_file()) {
        let existing = crate::fsio::read_limited(&key_file, 64 * 1024, code::INVALID_REQUEST)?;
        if existing != pem {
            return Err(key_refusal(
                key_id,
                name,
                "unknown_key",
                format!("{} already holds another key", key_file.display()),
            ));
        }
        None
    } else {
        Some((key_file, pem))
    };
    let entry = json!({"keyId": key_id, "algorithm": "ed25519", "publicKeyUrl": url,
        "permittedNamespaces": [grant.namespace], "status": "active"});
    match doc.get_mut("signingKeys").and_then(Value::as_array_mut) {
        Some(list) => list.push(entry),
        None => doc["signingKeys"] = json!([entry]),
    }
    let why = match grant.basis {
        "first_key" => "the registry's first key".to_owned(),
        flag => format!("--{} asked", flag.replace('_', "-")),
    };
    warnings.push(
        Finding::warning(
            code::REGISTRY_KEY_ADDED,
            "/signingKeys",
            format!("registry key \"{key_id}\" added to signingKeys for {} ({why})", grant.namespace),
        )
        .with("keyId", key_id)
        .with("namespace", grant.namespace.as_str()),
    );
    Ok(NewKey { document: doc, file, grant })
}

/// The first key or assignment holding any of `namespace`: (holder, its namespace).
fn held_by(reg: &Registry, namespace: &str) -> Option<(String, String)> {
    let keys = reg.keys.iter().flat_map(|k| k.permitted_namespaces.iter().map(|ns| (k.key_id.clone(), ns.clone())));
    let assignments = reg.document.as_ref().and_then(|d| d.get("namespaceAssignments")).and_then(Value::as_array);
    let assigned = assignments.into_iter().flatten().filter_map(|a| {
        let ns = a.get("namespace").and_then(Value::as_str)?;
        let holder = a.get("signingKeyId").and_then(Value::as_str).unwrap_or("an assignment");
        Some((holder.to_owned(), ns.to_owned()))
    });
    keys.chain(assigned).find(|(_, ns)| namespaces_overlap(ns, namespace))
}

/// A listed key signs a new version only while it is active (the one status check `verify`
/// and `pack sign` use) and covers the name.
pub(super) fn check_signer(entry: &KeyEntry, name: &str) -> Result<()> {
    let key_id = entry.key_id.as_str();
    keys::check_key_status(key_id, &entry.status, keys::KeyUse::Sign).map_err(|e| e.with("packName", name))?;
    if !entry.covers(name) {
        return Err(Error::new(
            code::PACK_NAMESPACE_UNAUTHORIZED,
            format!(
                "registry key \"{key_id}\" may not sign {name}: it may sign only {}; sign with a key whose \
                 namespaces cover {name}",
                entry.permitted_namespaces.join(", ")
            ),
        )
        .with("keyId", key_id)
        .with("packName", name)
        .with("permittedNamespaces", entry.permitted_namespaces.clone()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_are_two_segments_and_core_is_reserved() {
        assert_eq!(namespace_of("community.example.tiles"), "community.example.*");
        assert_eq!(namespace_of("solo"), "solo");
        assert!(reserved("core.openwop.x") && reserved("core"));
        assert!(!reserved("corex.a.b") && !reserved("vendor.core.x"));
    }
}

//! The manifest bytes a publish writes and their signature, by the tree's recipe.

use super::Source;
use crate::error::{Error, Result, code};
use crate::registry::jcs;
use crate::registry::layout::Tree;
use crate::registry::sign::{SIGNATURE_FILE, Scheme, sign_manifest};
use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};

/// The manifest bytes to publish and their signature: signed now with `signer` by the
/// tree's recipe (v2 `{keyId, scheme}`; v1 `{method: "manual", publicKeyRef: keyId,
/// signatureRef}`), or as the pack carries them when that is the tree's recipe under a
/// registry key id, or unsigned.
pub(super) fn signed_bytes(
    src: &mut Source,
    manifest: &mut Value,
    signer: Option<(&SigningKey, &str)>,
    tree: Tree,
) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    let v2 = tree == Tree::V2;
    if let Some((key, key_id)) = signer {
        let (b, s) = if v2 {
            sign_manifest(manifest, key, Scheme::V2 { key_id })?
        } else {
            let obj = manifest.as_object_mut().ok_or_else(|| src.bad("a manifest is a JSON object".into()))?;
            obj.insert(
                "signing".into(),
                json!({"method": "manual", "publicKeyRef": key_id, "signatureRef": SIGNATURE_FILE}),
            );
            let bytes = jcs::canonical(manifest).map_err(|m| src.bad(m))?;
            let sig = key.sign(&bytes).to_bytes();
            (bytes, sig)
        };
        return Ok((b, Some(s.to_vec())));
    }
    let Some(signing) = manifest.get("signing") else {
        return Ok((jcs::canonical(manifest).map_err(|m| src.bad(m))?, None));
    };
    let carries_v2 = signing.get("keyId").is_some() || signing.get("scheme").is_some();
    // The v1 registry recipe names a key id in `publicKeyRef`; `pack sign` without
    // --key-id names a key file inside the pack, which no registry lists.
    let carries_v1 = signing.get("method").and_then(Value::as_str) == Some("manual")
        && signing.get("publicKeyRef").and_then(Value::as_str).is_some_and(|r| !r.contains('/'));
    if carries_v2 != v2 && (carries_v2 || carries_v1) {
        let (has, wants) = if carries_v2 { ("v2", "v1") } else { ("v1", "v2") };
        return Err(Error::new(
            code::REGISTRY_TREE_MISMATCH,
            format!(
                "{} is signed with the {has} recipe, but the registry's tree is {wants}; publish with --key and \
                 --key-id to sign it for this tree",
                src.manifest_file.display()
            ),
        )
        .with("path", src.manifest_file.display().to_string())
        .with("tree", wants));
    }
    if !carries_v2 && !carries_v1 {
        return Err(Error::new(
            code::INVALID_REQUEST,
            "this pack carries a v1 signature whose key a registry does not list; publish with --key and --key-id to sign it for the registry",
        ));
    }
    if carries_v2 && !jcs::is_canonical(&src.original) {
        return Err(
            src.bad("a v2-signed pack.json must be in canonical form; sign it again with `pack sign --key-id`".into())
        );
    }
    let sig_path = src.pack_dir.join(SIGNATURE_FILE);
    let sig = crate::fsio::read_limited(&sig_path, 4096, code::SIGNATURE_NOT_AVAILABLE)
        .map_err(|e| Error::new(code::SIGNATURE_NOT_AVAILABLE, format!("{}: {}", sig_path.display(), e.message)))?;
    Ok((std::mem::take(&mut src.original), Some(sig)))
}

/// The registry key a manifest's `signing` names (v2 `keyId`, v1 `publicKeyRef`).
pub(super) fn signing_key_id(manifest: &Value) -> Option<&str> {
    let signing = manifest.get("signing")?;
    signing.get("keyId").or_else(|| signing.get("publicKeyRef")).and_then(Value::as_str)
}

//! The registry folder a publish writes into: its discovery document, or the new one a
//! folder without a document gets.

use crate::error::{Error, Result, code};
use crate::registry::layout::{DISCOVERY_PATH, Endpoints, Registry, Tree, read_json};
use crate::registry::sign::V2_SCHEME;
use serde_json::{Value, json};
use std::path::Path;

/// The discovery document a new registry folder gets: it names only the tree it is written
/// with, so a client never reads a tree that was not written.
pub(super) fn new_document(tree: Tree) -> Value {
    let tree_name = tree.as_str();
    let t = Endpoints::standard(tree_name);
    let templates = json!({
        "registryIndex": t.registry_index,
        "packMetadata": t.pack_metadata,
        "versionManifest": t.version_manifest,
        "versionTarball": t.version_tarball,
        "versionSignature": t.version_signature,
    });
    let (protocol, methods, endpoints) = match tree {
        Tree::V2 => ("2.0", json!([V2_SCHEME]), json!({"publicKey": t.public_key, "v2": templates})),
        Tree::V1 | Tree::Legacy => {
            let mut flat = templates;
            flat["publicKey"] = json!(t.public_key);
            ("1.0", json!(["ed25519"]), flat)
        }
    };
    json!({
        "registryVersion": "1.0.0",
        "protocolVersion": protocol,
        "name": "chainsmith local registry",
        "supportedSigningMethods": methods,
        "endpoints": endpoints,
        "writeApi": {"supported": false},
        "lifecycle": {"yankSupported": true, "deprecateSupported": true, "keyRotationSupported": true},
        "signingKeys": [],
        "namespaceAssignments": [],
    })
}

/// The registry folder read through the tree publish writes: `--tree`, else the one its
/// discovery document names (the CLI's choice), which must be named whole. A folder
/// without a document gets a new one: v1 when it already holds a legacy `/v1` tree,
/// else v2. Returns whether the document is new.
pub(super) fn open_registry(root: &Path, tree: Option<Tree>) -> Result<(Registry, bool)> {
    let doc_path = root.join(DISCOVERY_PATH);
    if doc_path.is_file() {
        let doc = read_json(&doc_path)?;
        let chosen = tree.unwrap_or(Registry::from_document(root, doc.clone())?.tree);
        let reg = Registry::from_document_tree(root, doc, Some(chosen)).map_err(|e| match tree {
            Some(asked) => Error::new(
                code::INVALID_REQUEST,
                format!("--tree {}: {}; publish without --tree to use the tree it names", asked.as_str(), e.message),
            )
            .with("tree", asked.as_str())
            .with("path", doc_path.display().to_string()),
            None => e,
        })?;
        return Ok((reg, false));
    }
    let legacy = Endpoints::standard("v1");
    let has_legacy = root.join(legacy.registry_index.trim_start_matches('/')).is_file();
    let tree = tree.unwrap_or(if has_legacy { Tree::V1 } else { Tree::V2 });
    Ok((Registry::from_document_tree(root, new_document(tree), Some(tree))?, true))
}

#![no_main]
//! Arbitrary discovery documents: `DOC SEP NAME SEP VERSION SEP URL` (see `chainsmith_fuzz::parts`).
//! The document is read as `Registry::open` reads it and opened in every tree. The tree chosen
//! is the one the OpenWOP CLI chooses (v2 exactly when `endpoints.v2` names all five
//! templates), and every file a template, key or URL resolves to is inside the registry
//! folder, whatever the name, version and URL.

use chainsmith::registry::layout::{Registry, Tree};
use chainsmith_fuzz::registry_oracle::{inside, names_whole_v2};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let p = chainsmith_fuzz::parts(data, 4);
    let root = Path::new("/fuzz/registry");
    let Ok(doc) = chainsmith::fsio::parse_json(
        chainsmith::error::code::INVALID_REQUEST,
        &root.join(".well-known/openwop-registry.json"),
        p[0],
    ) else {
        return;
    };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let (name, version, url) = (text(p[1]), text(p[2]), text(p[3]));
    for asked in [None, Some(Tree::V2), Some(Tree::V1), Some(Tree::Legacy)] {
        let Ok(registry) = Registry::from_document_tree(root, doc.clone(), asked) else {
            assert!(
                asked.is_some() || doc.get("endpoints").and_then(|e| e.as_object()).is_none(),
                "a document with endpoints opens"
            );
            continue;
        };
        let v2 = names_whole_v2(&doc);
        match asked {
            None => assert_eq!(registry.tree == Tree::V2, v2, "the tree the OpenWOP CLI picks"),
            Some(Tree::V2) => assert!(v2 && registry.tree == Tree::V2, "v2 only when the document names it whole"),
            Some(_) => assert_eq!(registry.tree, Tree::V1),
        }
        let mut paths = vec![
            registry.registry_index_path(),
            registry.pack_index_path(&name),
            registry.version_manifest_path(&name, &version),
            registry.tarball_path(&name, &version),
            registry.signature_path(&name, &version),
            registry.sbom_path(&name, &version),
            registry.local(&url),
        ];
        paths.extend(registry.keys.iter().map(|k| registry.public_key_path(k)));
        for path in paths.into_iter().flatten() {
            assert!(inside(root, &path), "{} is outside the registry folder", path.display());
        }
    }
});

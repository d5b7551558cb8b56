//! A pack's `dependencies` (pack name → semver range) checked against the node packs the
//! catalog holds.

use super::{Catalog, Range};
use crate::error::{Finding, code, pointer_join};
use crate::pack::Pack;

/// One error finding per dependency the catalog cannot satisfy: an unparseable range
/// (`dependency_range_invalid`), no pack of that name (`pack_dependency_missing`), or no
/// catalogued version in range (`pack_dependency_unsatisfied`).
pub fn check_dependencies(pack: &Pack, catalog: &Catalog) -> Vec<Finding> {
    let mut out = Vec::new();
    for (name, range_text) in pack.dependencies() {
        let pointer = pointer_join("/dependencies", name);
        let base = |code, message: String| {
            Finding::error(code, pointer.as_str(), message)
                .with("packName", name)
                .with("range", range_text)
                .with("requestedBy", pack.name())
        };
        let range = match Range::parse(range_text) {
            Ok(r) => r,
            Err(msg) => {
                out.push(base(code::DEPENDENCY_RANGE_INVALID, format!("dependency {name}: {msg}")));
                continue;
            }
        };
        let versions = catalog.pack_versions(name);
        if versions.is_empty() {
            out.push(base(
                code::PACK_DEPENDENCY_MISSING,
                format!("{} depends on {name} {range_text}, and no catalogued node pack is named {name}", pack.name()),
            ));
        } else if range.highest(&versions).is_none() {
            let available: Vec<String> = versions.iter().map(ToString::to_string).collect();
            out.push(
                base(
                    code::PACK_DEPENDENCY_UNSATISFIED,
                    format!(
                        "{} depends on {name} {range_text}; the catalog has {name} {} only",
                        pack.name(),
                        available.join(", ")
                    ),
                )
                .with("available", available),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::{LoadOptions, load_bytes};
    use serde_json::json;
    use std::path::Path;

    fn node_pack(version: &str) -> Pack {
        let m = json!({"name": "vendor.acme.nodes", "version": version, "engines": {"openwop": ">=1.0.0"},
            "runtime": {"language": "javascript", "entry": "x.js"},
            "nodes": [{"typeId": "vendor.acme.x", "version": "1.0.0", "category": "data", "role": "pure"}]});
        load_bytes(Path::new("n/pack.json"), m.to_string().as_bytes(), LoadOptions::default()).unwrap()
    }

    fn chain_pack(deps: serde_json::Value) -> Pack {
        let m = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
            "engines": {"openwop": ">=1.0.0"}, "dependencies": deps,
            "chains": [{"chainId": "a.b", "version": "1.0.0", "label": "L", "description": "d",
                "parameters": {"type": "object"}, "dag": {"nodes": [{"id": "n", "typeId": "vendor.acme.x"}]}}]});
        load_bytes(Path::new("c/pack.json"), m.to_string().as_bytes(), LoadOptions::default()).unwrap()
    }

    #[test]
    fn dependencies_are_checked_against_catalogued_versions() {
        let mut cat = Catalog::new();
        cat.add_pack(&node_pack("1.4.0"));
        cat.add_pack(&node_pack("2.0.0-rc.1"));
        let pack = chain_pack(json!({
            "vendor.acme.nodes": "^1.2.0",
            "vendor.acme.gone": "^1.0.0",
            "vendor.acme.nodes2": "not a range"
        }));
        let f = check_dependencies(&pack, &cat);
        let codes: Vec<_> = f.iter().map(|f| (f.code, f.pointer.as_str())).collect();
        assert_eq!(
            codes,
            [
                (code::PACK_DEPENDENCY_MISSING, "/dependencies/vendor.acme.gone"),
                (code::DEPENDENCY_RANGE_INVALID, "/dependencies/vendor.acme.nodes2")
            ]
        );
        let f = check_dependencies(&chain_pack(json!({"vendor.acme.nodes": "^2.0.0"})), &cat);
        assert_eq!(f[0].code, code::PACK_DEPENDENCY_UNSATISFIED);
        assert_eq!(f[0].details["available"], json!(["2.0.0-rc.1", "1.4.0"]));
        assert!(check_dependencies(&chain_pack(json!({"vendor.acme.nodes": "^2.0.0-rc.0"})), &cat).is_empty());
    }
}

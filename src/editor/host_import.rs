//! What the Settings window imports as the target host (interop §4): an `openwop
//! capabilities --json` document (v1 families at the root, the deprecated `capabilities`
//! wrapper, or v2 records) becomes the host profile, and a saved OpenWOP app `node-catalog`
//! response supplies the host's own node types with their schemas. Both are read here, and
//! described in words for the window to show what was imported.

use crate::catalog::{Catalog, HostProfile, capabilities_form};
use crate::error::{Error, Result, code};
use serde_json::Value;
use std::path::Path;

/// Largest capabilities document read (real ones are a few KiB).
const MAX_CAPABILITIES_BYTES: u64 = 1024 * 1024;

/// A host profile read from a capabilities document.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedCapabilities {
    pub profile: HostProfile,
    /// Which form the document had (`v1 families at the root`, …).
    pub form: &'static str,
}

/// Read a capabilities document. A file in chainsmith's own profile form is refused: the
/// import is for what a host publishes.
pub fn read_capabilities(path: &Path) -> Result<ImportedCapabilities> {
    let with_path = |e: Error| e.with("path", path.display().to_string());
    let bytes = crate::fsio::read_limited(path, MAX_CAPABILITIES_BYTES, code::INVALID_REQUEST)?;
    let doc: Value = crate::fsio::parse_json(code::INVALID_REQUEST, path, &bytes)?;
    let Some(form) = capabilities_form(&doc) else {
        return Err(with_path(Error::new(
            code::INVALID_REQUEST,
            format!(
                "{} is not an `openwop capabilities --json` document: it has no capability family and no protocol version",
                path.display()
            ),
        )));
    };
    let profile = HostProfile::from_capabilities(&doc).map_err(with_path)?;
    Ok(ImportedCapabilities { profile, form })
}

/// The profile in one line per switch and limit, as a capabilities document would say it.
pub fn describe(host: &HostProfile) -> Vec<String> {
    let on = |b: bool| if b { "supported" } else { "not supported" };
    let mut lines = vec![
        format!("protocol major {}", host.protocol_major),
        format!("compensation {}", on(host.compensation)),
        if host.sub_chains {
            format!("sub-chains supported, max depth {}", host.max_depth)
        } else {
            "sub-chains not supported".to_owned()
        },
        format!("secrets {}", on(host.secrets)),
        format!("deferred parameters {}", on(host.deferred_parameters)),
    ];
    lines.push(match host.max_node_executions {
        Some(n) => format!("limits.maxNodeExecutions {n}"),
        None => "no node execution limit given".to_owned(),
    });
    lines
}

/// The typeIds a saved `node-catalog` response provides, sorted; refused as the CLI's
/// `--node-catalog` refuses it.
pub fn read_node_catalog(path: &Path) -> Result<Vec<String>> {
    let mut catalog = Catalog::new();
    catalog.add_node_catalog(path)?;
    Ok(catalog.node_types().map(|t| t.type_id().to_owned()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/app").join(name)
    }

    #[test]
    fn the_three_forms_import_and_say_what_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let root = write(
            "root.json",
            r#"{"protocolVersion": "1.1", "limits": {"clarificationRounds": 3, "schemaRounds": 2, "envelopesPerTurn": 5, "maxNodeExecutions": 2},
                "compensation": {"supported": false}, "workflowChainPacks": {"supported": true, "subChains": {"supported": true, "maxDepth": 4}}}"#,
        );
        let got = read_capabilities(&root).unwrap();
        assert_eq!(got.form, "v1 families at the root");
        assert!(!got.profile.compensation && got.profile.sub_chains);
        assert_eq!(
            describe(&got.profile),
            [
                "protocol major 1",
                "compensation not supported",
                "sub-chains supported, max depth 4",
                "secrets not supported",
                "deferred parameters not supported",
                "limits.maxNodeExecutions 2"
            ]
        );
        let wrapped =
            write("wrapped.json", r#"{"protocolVersion": "1.0", "capabilities": {"secrets": {"supported": true}}}"#);
        let got = read_capabilities(&wrapped).unwrap();
        assert_eq!(
            (got.form, got.profile.secrets, got.profile.compensation),
            ("v1 deprecated `capabilities` wrapper", true, false)
        );
        let v2 = write(
            "v2.json",
            r#"{"protocolVersions": ["2.0"], "preferredVersion": "2.0", "compensation": {"status": "stable", "since": "2.0", "witness": "w"}}"#,
        );
        let got = read_capabilities(&v2).unwrap();
        assert_eq!((got.form, got.profile.compensation, got.profile.protocol_major), ("v2 family records", true, 2));

        let own = write("own.json", r#"{"subChains": true}"#);
        assert_eq!(read_capabilities(&own).unwrap_err().code, code::INVALID_REQUEST);
        let junk = write("junk.json", "{");
        let e = read_capabilities(&junk).unwrap_err();
        assert_eq!((e.code, e.details["path"].as_str()), (code::INVALID_REQUEST, junk.to_str()));
    }

    #[test]
    fn a_node_catalog_lists_its_types() {
        let ids = read_node_catalog(&fixture("node-catalog.json")).unwrap();
        assert_eq!(ids, ["feature.demo.summarise", "feature.demo.translate"]);
        assert_eq!(read_node_catalog(&fixture("feature-chain.json")).unwrap_err().code, code::INVALID_REQUEST);
    }
}

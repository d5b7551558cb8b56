//! The trust settings the Settings window edits, without the window: the target host
//! profile (chain-packs §11.8) and the trust policy (node-packs §4.3) as they persist, and
//! carrying them into the [`Trust`] every chain is checked against.

use super::host_import;
use crate::catalog::{HostProfile, Trust, TrustedKeys};
use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

/// Sub-chain nesting limits a host profile may claim (the spec's default is 8).
pub const DEPTHS: RangeInclusive<u32> = 1..=64;

/// What persists. The defaults are the conservative ones: compensation on and every other
/// host switch off, no trusted keys, unsigned packs accepted with a warning.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TrustSettings {
    pub host: HostProfile,
    /// The folder of PEM public keys whose signatures are trusted; `None` trusts no key.
    pub trusted_keys: Option<PathBuf>,
    /// Unsigned, untrusted or unverifiable packs are refused instead of warned about.
    pub require_signed: bool,
    /// Node config and port findings block an insert instead of warning.
    pub strict: bool,
    /// The capabilities document the host profile was last imported from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<ImportedFrom>,
    /// A saved OpenWOP app `node-catalog` response: its node types resolve like catalogued
    /// ones (the CLI's `--node-catalog`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_catalog: Option<PathBuf>,
}

/// Where an imported host profile came from, and the form its document had.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedFrom {
    pub path: PathBuf,
    pub form: String,
}

/// What reading the settings' files found, for the Settings window to show.
#[derive(Default)]
pub struct TrustFiles {
    /// Why the trusted-keys folder could not be read, when it could not.
    pub keys_error: Option<Error>,
    /// The typeIds of the imported node catalog, or why it could not be read.
    pub node_catalog: Option<Result<Vec<String>, Error>>,
    /// Why the last capabilities import was refused.
    pub import_error: Option<Error>,
}

impl TrustSettings {
    /// Carry the settings into `trust` (a host depth outside [`DEPTHS`] is brought inside).
    /// The trusted keys are read apart, by [`TrustSettings::load_keys`].
    pub fn carry_into(&mut self, trust: &mut Trust) {
        self.host.max_depth = self.host.max_depth.clamp(*DEPTHS.start(), *DEPTHS.end());
        trust.host = self.host.clone();
        trust.require_signed = self.require_signed;
        trust.strict = self.strict;
    }

    /// Read the trusted-keys folder: its keys and a status line, or why it could not be read
    /// (then no key is trusted). No folder: no keys and nothing to say.
    pub fn load_keys(&self) -> (TrustedKeys, Result<Option<String>, Error>) {
        let Some(dir) = &self.trusted_keys else { return (TrustedKeys::default(), Ok(None)) };
        match TrustedKeys::load(dir) {
            Ok(keys) => {
                let status = format!("Trusted keys: {} loaded from {}", keys.len(), dir.display());
                (keys, Ok(Some(status)))
            }
            Err(e) => (TrustedKeys::default(), Err(e)),
        }
    }

    /// Carry the settings into `trust` ([`TrustSettings::carry_into`]); with `reload`, first
    /// read the trusted-keys folder and the node catalog again, noting in `files` what could
    /// not be read. What reading the keys said, when there is something to say.
    pub fn apply(&mut self, trust: &mut Trust, files: &mut TrustFiles, reload: bool) -> Option<Result<String, Error>> {
        let mut said = None;
        if reload {
            let (keys, loaded) = self.load_keys();
            files.keys_error = loaded.as_ref().err().cloned();
            files.node_catalog = self.node_catalog.as_deref().map(host_import::read_node_catalog);
            trust.trusted_keys = keys;
            said = loaded.transpose();
        }
        self.carry_into(trust);
        said
    }

    /// Import the capabilities document at `path` ([`TrustSettings::import_capabilities`]),
    /// noting a refusal in `files`: the status line that says what was imported.
    pub fn import_capabilities_noted(&mut self, files: &mut TrustFiles, path: &Path) -> Result<String, Error> {
        let imported = self.import_capabilities(path);
        files.import_error = imported.as_ref().err().cloned();
        Ok(format!("Host profile imported from {} ({})", path.display(), imported?))
    }

    /// Take the host's node types from a saved `node-catalog` response at `path`: the status
    /// line that says how many.
    pub fn import_node_catalog(&mut self, files: &mut TrustFiles, path: &Path) -> Result<String, Error> {
        let ids = host_import::read_node_catalog(path)?;
        let types = crate::words::count(ids.len(), "host node type", "host node types");
        self.node_catalog = Some(path.to_path_buf());
        files.node_catalog = Some(Ok(ids));
        Ok(format!("{types} imported from {}", path.display()))
    }

    /// Make the capabilities document at `path` the host profile; the node types the user
    /// declared stay. Returns the form the document had.
    pub fn import_capabilities(&mut self, path: &Path) -> Result<&'static str, Error> {
        let got = host_import::read_capabilities(path)?;
        let node_types = std::mem::take(&mut self.host.node_types);
        self.host = HostProfile { node_types, ..got.profile };
        self.capabilities = Some(ImportedFrom { path: path.to_path_buf(), form: got.form.to_owned() });
        Ok(got.form)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_conservative_profile_and_policy() {
        let s = TrustSettings::default();
        assert_eq!(s.host, HostProfile::default());
        assert!(s.host.compensation && !s.host.sub_chains && !s.host.secrets && !s.host.deferred_parameters);
        assert_eq!((s.trusted_keys, s.require_signed, s.strict), (None, false, false));
    }

    #[test]
    fn serialises_camel_case_and_fills_what_is_missing() {
        let s = TrustSettings {
            host: HostProfile { sub_chains: true, max_depth: 3, ..HostProfile::default() },
            trusted_keys: Some(PathBuf::from("/keys")),
            require_signed: true,
            strict: true,
            ..TrustSettings::default()
        };
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["host"]["subChains"], true);
        assert_eq!(json["host"]["maxDepth"], 3);
        assert_eq!(json["trustedKeys"], "/keys");
        assert_eq!(json["requireSigned"], true);
        assert_eq!(serde_json::from_value::<TrustSettings>(json).unwrap(), s);
        let partial: TrustSettings = serde_json::from_str(r#"{"requireSigned": true}"#).unwrap();
        assert_eq!(partial, TrustSettings { require_signed: true, ..TrustSettings::default() });
    }

    #[test]
    fn the_settings_carry_into_the_policy_with_the_depth_in_range() {
        let mut s = TrustSettings { require_signed: true, strict: true, ..Default::default() };
        s.host.max_depth = 0;
        let mut trust = Trust::default();
        s.carry_into(&mut trust);
        assert_eq!((s.host.max_depth, trust.host.max_depth), (1, 1));
        assert!(trust.require_signed && trust.strict);
        s.host.max_depth = 1000;
        s.carry_into(&mut trust);
        assert_eq!(trust.host.max_depth, 64);
    }

    #[test]
    fn keys_load_from_the_folder_set_and_a_bad_folder_trusts_none() {
        let s = TrustSettings::default();
        let (keys, loaded) = s.load_keys();
        assert!(keys.is_empty() && matches!(loaded, Ok(None)), "no folder, nothing said");
        let dir = tempfile::tempdir().unwrap();
        let s = TrustSettings { trusted_keys: Some(dir.path().to_path_buf()), ..Default::default() };
        let (keys, loaded) = s.load_keys();
        assert!(keys.is_empty());
        assert_eq!(loaded.unwrap(), Some(format!("Trusted keys: 0 loaded from {}", dir.path().display())));
        let s = TrustSettings { trusted_keys: Some(dir.path().join("missing")), ..Default::default() };
        let (keys, loaded) = s.load_keys();
        assert!(keys.is_empty() && loaded.is_err());
    }

    #[test]
    fn an_imported_profile_keeps_the_declared_node_types() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("caps.json");
        std::fs::write(
            &path,
            r#"{"protocolVersion": "1.1", "limits": {"clarificationRounds": 3, "schemaRounds": 2, "envelopesPerTurn": 5, "maxNodeExecutions": 2},
                "compensation": {"supported": false}, "workflowChainPacks": {"supported": true, "subChains": {"supported": true, "maxDepth": 4}}}"#,
        )
        .unwrap();
        let mut s = TrustSettings::default();
        s.host.node_types = vec!["acme.*".into()];
        assert_eq!(s.import_capabilities(&path).unwrap(), "v1 families at the root");
        assert_eq!((s.host.max_depth, s.host.node_types.as_slice()), (4, ["acme.*".to_owned()].as_slice()));
        assert_eq!(s.capabilities.as_ref().map(|c| c.path.clone()), Some(path));
        let before = s.clone();
        assert!(s.import_capabilities(&dir.path().join("missing.json")).is_err());
        assert_eq!(s, before, "a refused import changes nothing");
    }

    #[test]
    fn imported_files_are_noted_for_the_window_and_said_in_a_status_line() {
        let dir = tempfile::tempdir().unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/app");
        let mut s = TrustSettings::default();
        let mut files = TrustFiles::default();
        let catalog = fixtures.join("node-catalog.json");
        let said = s.import_node_catalog(&mut files, &catalog).unwrap();
        assert_eq!(said, format!("2 host node types imported from {}", catalog.display()));
        assert_eq!(s.node_catalog.as_deref(), Some(catalog.as_path()));
        assert_eq!(files.node_catalog.as_ref().unwrap().as_ref().unwrap().len(), 2);
        // Not a node catalog: refused, and nothing changes.
        let chain = fixtures.join("feature-chain.json");
        assert_eq!(s.import_node_catalog(&mut files, &chain).unwrap_err().code, crate::error::code::INVALID_REQUEST);
        assert_eq!(s.node_catalog.as_deref(), Some(catalog.as_path()));

        let junk = dir.path().join("junk.json");
        std::fs::write(&junk, "{").unwrap();
        assert!(s.import_capabilities_noted(&mut files, &junk).is_err());
        assert!(files.import_error.is_some(), "the window shows why");
        let caps = dir.path().join("caps.json");
        std::fs::write(&caps, r#"{"protocolVersion": "1.0", "capabilities": {"secrets": {"supported": true}}}"#)
            .unwrap();
        let said = s.import_capabilities_noted(&mut files, &caps).unwrap();
        assert_eq!(
            said,
            format!("Host profile imported from {} (v1 deprecated `capabilities` wrapper)", caps.display())
        );
        assert!(files.import_error.is_none() && s.host.secrets);

        // A keys folder that is not there: no keys, and the window says why.
        s.trusted_keys = Some(dir.path().join("missing"));
        let mut trust = Trust::default();
        let said = s.apply(&mut trust, &mut files, true).expect("the keys' refusal is said");
        assert_eq!(trust.trusted_keys.len(), 0);
        assert_eq!(files.keys_error.as_ref().map(|e| e.code), said.err().map(|e| e.code));
        assert!(files.keys_error.is_some());
        assert!(matches!(files.node_catalog, Some(Ok(_))), "the node catalog is read again");
        assert!(trust.host.secrets, "and the settings carried into the policy");
        // Without `reload` nothing is read again and nothing said: the files stay as noted.
        files.node_catalog = None;
        assert!(s.apply(&mut trust, &mut files, false).is_none());
        assert!(files.node_catalog.is_none());
        // A folder that reads: its status line is said.
        s.trusted_keys = Some(dir.path().to_path_buf());
        let said = s.apply(&mut trust, &mut files, true).unwrap().unwrap();
        assert_eq!(said, format!("Trusted keys: 0 loaded from {}", dir.path().display()));
        assert!(files.keys_error.is_none());
    }
}

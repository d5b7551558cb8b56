//! The target host profile (chain-packs §11.8): which capability-gated features the host
//! that will run the exported workflow supports.

use crate::error::{Error, code};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct HostProfile {
    pub compensation: bool,
    pub sub_chains: bool,
    pub max_depth: u32,
    pub secrets: bool,
    pub deferred_parameters: bool,
    /// The OpenWOP protocol major the host speaks; a v2 manifest's `engines.openwop` must
    /// admit it (interop §3.2).
    pub protocol_major: u64,
}

impl Default for HostProfile {
    /// Compensation on, everything else off: refuse rather than emit what a host rejects.
    fn default() -> Self {
        Self {
            compensation: true,
            sub_chains: false,
            max_depth: 8,
            secrets: false,
            deferred_parameters: false,
            protocol_major: 1,
        }
    }
}

impl HostProfile {
    /// Every switch on; used where a run must not be gated (conformance replay).
    pub fn permissive() -> Self {
        Self { sub_chains: true, secrets: true, deferred_parameters: true, ..Self::default() }
    }

    /// Read a profile from JSON text (`--host FILE`).
    pub fn from_json(text: &str) -> Result<Self, Error> {
        serde_json::from_str(text).map_err(|e| {
            Error::new(code::INVALID_REQUEST, format!("host profile: {e}"))
                .with("line", e.line())
                .with("column", e.column())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_conservative() {
        let h = HostProfile::default();
        assert!(h.compensation && !h.sub_chains && !h.secrets && !h.deferred_parameters);
        assert_eq!(h.max_depth, 8);
    }

    #[test]
    fn partial_json_keeps_defaults_and_unknown_keys_fail() {
        let h = HostProfile::from_json(r#"{"subChains": true}"#).unwrap();
        assert!(h.sub_chains && h.compensation);
        assert_eq!(HostProfile::from_json(r#"{"subchains": true}"#).unwrap_err().code, code::INVALID_REQUEST);
    }
}

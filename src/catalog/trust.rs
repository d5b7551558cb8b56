//! The trust policy the CLI and the editor carry around: which node packs are known,
//! which keys are trusted, whether signatures are required, and what the target host
//! supports. [`Trust::check_chain`] gathers everything that blocks or warns about
//! expanding one chain, before any parameter is asked for.

use super::signature::{SignatureReport, SignatureStatus, TrustedKeys, verify_pack};
use super::{Catalog, HostProfile, TypeResolver, check_dependencies, finding_from};
use crate::error::{Error, Finding, Severity, code};
use crate::expand::{ExpandOptions, Expansion, preflight_at};
use crate::pack::{Chain, Pack};
use serde_json::Value;

#[derive(Debug, Default)]
pub struct Trust {
    /// The node-pack catalog; `None` means typeIds and dependencies are not checked.
    pub catalog: Option<Catalog>,
    pub trusted_keys: TrustedKeys,
    /// Unsigned, untrusted or unverifiable packs are refused instead of warned about.
    pub require_signed: bool,
    /// Node config and port findings on an expansion are errors instead of warnings.
    pub strict: bool,
    pub host: HostProfile,
}

/// Everything that blocks (errors) or warns about one pack or chain.
#[derive(Debug, Clone, PartialEq)]
pub struct TrustReport {
    pub signature: SignatureStatus,
    pub findings: Vec<Finding>,
}

impl TrustReport {
    pub fn is_blocked(&self) -> bool {
        self.findings.iter().any(Finding::is_error)
    }

    pub fn blocking(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.is_error())
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| !f.is_error())
    }

    /// The first blocking finding as the refusal to report (envelope form).
    pub fn refusal(&self) -> Option<Error> {
        self.blocking().next().cloned().map(Finding::into_error)
    }
}

/// A typeId resolves when the catalog knows it or the host profile declares it.
impl TypeResolver for Trust {
    fn resolves(&self, type_id: &str) -> bool {
        self.host.provides(type_id) || self.catalog.as_ref().is_some_and(|c| c.resolves(type_id))
    }
}

impl Trust {
    /// `None` without a catalog: typeIds are then unchecked rather than refused.
    pub fn resolver(&self) -> Option<&dyn TypeResolver> {
        self.catalog.as_ref().map(|_| self as &dyn TypeResolver)
    }

    /// Expansion options carrying this policy's resolver and host profile.
    pub fn expand_options(&self) -> ExpandOptions<'_> {
        ExpandOptions { resolver: self.resolver(), host: self.host.clone(), ..Default::default() }
    }

    pub fn signature(&self, pack: &Pack) -> SignatureReport {
        verify_pack(pack, &self.trusted_keys, self.require_signed)
    }

    /// For `validate` and the palette: the pack's signature, its dependencies, and the
    /// typeIds of every chain.
    pub fn check_pack(&self, pack: &Pack) -> TrustReport {
        let (signature, mut findings) = self.signature_findings(pack);
        findings.extend(self.engine_findings(pack));
        for chain in &pack.chains {
            findings.extend(self.type_id_findings(chain));
        }
        findings.extend(self.dependency_findings(pack));
        TrustReport { signature, findings }
    }

    /// Before expanding `chain_id`: the signature, the expander's own parameter-independent
    /// refusals under this host profile (sub-chains, compensation capability, sensitive
    /// parameters, manifest errors), unresolved typeIds and unmet dependencies.
    pub fn check_chain(&self, pack: &Pack, chain_id: &str) -> TrustReport {
        self.check_chain_at(pack, chain_id, pack.chain_position(chain_id))
    }

    /// [`Trust::check_chain`] of a chain already looked up: `at` is its position in
    /// `pack.chains`, `None` when the pack has no `chain_id`.
    pub fn check_chain_at(&self, pack: &Pack, chain_id: &str, at: Option<usize>) -> TrustReport {
        let (signature, mut findings) = self.signature_findings(pack);
        findings.extend(self.engine_findings(pack));
        // The expander's own preflight applies exactly its gates without duplicating them;
        // typeIds are left to the catalog below so that all of them are listed.
        let gates = ExpandOptions { host: self.host.clone(), ..Default::default() };
        if let Err(err) = preflight_at(pack, chain_id, at, &gates) {
            // Expansion refusals carry the manifest pointer at fault in `details.path`.
            let pointer = err.details.get("path").and_then(Value::as_str).filter(|p| p.starts_with('/'));
            let pointer = pointer.unwrap_or_default().to_owned();
            findings.push(finding_from(err, &pointer, Severity::Error));
        }
        if let Some(chain) = at.and_then(|at| pack.chains.get(at)) {
            findings.extend(self.type_id_findings(chain));
        }
        findings.extend(self.dependency_findings(pack));
        TrustReport { signature, findings }
    }

    /// Config and port findings for an expansion, errors under `strict`: against the catalog's
    /// schemas, and without a catalog against the schemas chainsmith bundles for Core types.
    /// The host's conformance gates are errors whatever `strict` says.
    pub fn check_expansion(&self, exp: &Expansion) -> Vec<Finding> {
        let bundled_only;
        let catalog = match &self.catalog {
            Some(catalog) => catalog,
            None => {
                bundled_only = Catalog::new();
                &bundled_only
            }
        };
        let mut findings = catalog.check_expansion(exp);
        if self.strict {
            for f in &mut findings {
                f.severity = Severity::Error;
            }
        }
        findings.extend(super::builtin::host_gates(&self.host, exp));
        findings
    }

    fn signature_findings(&self, pack: &Pack) -> (SignatureStatus, Vec<Finding>) {
        let report = self.signature(pack);
        (report.status, report.finding.into_iter().collect())
    }

    /// Unresolved typeIds are errors with a catalog; without one, every non-core typeId
    /// is an "unchecked" warning, as the expander reports it.
    fn type_id_findings(&self, chain: &Chain) -> Vec<Finding> {
        let mut findings = match &self.catalog {
            Some(catalog) => catalog.unresolved_findings(chain),
            None => Catalog::new()
                .unresolved_findings(chain)
                .into_iter()
                .map(|mut f| {
                    let type_id = f.details.get("typeId").and_then(Value::as_str).unwrap_or_default().to_owned();
                    f.code = code::TYPEID_UNCHECKED;
                    f.severity = Severity::Warning;
                    f.message = format!("typeId \"{type_id}\" was not checked: no node-pack catalog is loaded");
                    f
                })
                .collect(),
        };
        // What the host provides needs no node pack.
        findings.retain(|f| !f.details.get("typeId").and_then(Value::as_str).is_some_and(|t| self.host.provides(t)));
        findings
    }

    /// v2 manifests (interop §3.2): `engines.openwop` must admit the host's protocol major;
    /// an unparseable range is refused too, as one host does.
    pub fn engine_findings(&self, pack: &Pack) -> Vec<Finding> {
        if !crate::pack::v2::is_v2(&pack.manifest) {
            return Vec::new();
        }
        let major = self.host.protocol_major;
        let range = pack.manifest.pointer("/engines/openwop").and_then(Value::as_str).unwrap_or_default();
        let message = match crate::pack::v2::engine_admits(range, major) {
            Ok(true) => return Vec::new(),
            Ok(false) => format!("engines.openwop \"{range}\" does not admit the target host's protocol major {major}"),
            Err(msg) => msg,
        };
        vec![
            Finding::error(code::PACK_ENGINE_UNSUPPORTED, "/engines/openwop", message)
                .with("range", range)
                .with("protocolMajor", major)
                .with("packName", pack.name()),
        ]
    }

    fn dependency_findings(&self, pack: &Pack) -> Vec<Finding> {
        self.catalog.as_ref().map(|c| check_dependencies(pack, c)).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::expand;
    use crate::pack::{LoadOptions, load_bytes};
    use serde_json::{Map, json};
    use std::path::Path;

    fn pack(chain: Value, deps: Value) -> Pack {
        let m = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
            "engines": {"openwop": ">=1.0.0"}, "dependencies": deps, "chains": [chain]});
        load_bytes(Path::new("/nonexistent/pack.json"), m.to_string().as_bytes(), LoadOptions::default()).unwrap()
    }

    fn chain(nodes: Value) -> Value {
        json!({"chainId": "acme.c", "version": "1.0.0", "label": "C", "description": "d",
            "parameters": {"type": "object", "properties": {}}, "dag": {"nodes": nodes}})
    }

    fn codes(r: &TrustReport) -> Vec<(&'static str, Severity)> {
        r.findings.iter().map(|f| (f.code, f.severity)).collect()
    }

    #[test]
    fn without_catalog_unsigned_and_unchecked_are_warnings() {
        let p = pack(
            chain(json!([{"id": "a", "typeId": "vendor.x.step"}, {"id": "b", "typeId": "core.identity"}])),
            json!({}),
        );
        let r = Trust::default().check_chain(&p, "acme.c");
        assert_eq!(r.signature, SignatureStatus::Unsigned);
        assert_eq!(codes(&r), [(code::PACK_UNSIGNED, Severity::Warning), (code::TYPEID_UNCHECKED, Severity::Warning)]);
        assert!(!r.is_blocked() && r.refusal().is_none());
    }

    #[test]
    fn with_catalog_unresolved_types_and_missing_dependencies_block() {
        let p = pack(chain(json!([{"id": "a", "typeId": "vendor.x.step"}])), json!({"vendor.x.nodes": "^1.0.0"}));
        let trust = Trust { catalog: Some(Catalog::new()), require_signed: true, ..Default::default() };
        let r = trust.check_chain(&p, "acme.c");
        assert_eq!(
            codes(&r),
            [
                (code::PACK_UNSIGNED, Severity::Error),
                (code::CHAIN_UNRESOLVABLE_TYPEID, Severity::Error),
                (code::PACK_DEPENDENCY_MISSING, Severity::Error)
            ]
        );
        assert_eq!(r.refusal().unwrap().code, code::PACK_UNSIGNED);
        assert_eq!(trust.check_pack(&p).findings.len(), 3);
    }

    #[test]
    fn host_declared_node_types_resolve_like_catalogued_ones() {
        let p = pack(
            chain(json!([{"id": "a", "typeId": "feature.notify.send"}, {"id": "b", "typeId": "vendor.x.step"}])),
            json!({}),
        );
        let mut trust = Trust { catalog: Some(Catalog::new()), ..Default::default() };
        let unresolved = |t: &Trust| {
            t.check_chain(&p, "acme.c")
                .findings
                .iter()
                .filter(|f| f.code == code::CHAIN_UNRESOLVABLE_TYPEID)
                .map(|f| f.details["typeId"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(unresolved(&trust), ["feature.notify.send", "vendor.x.step"]);
        trust.host.node_types = vec!["feature.*".into()];
        assert_eq!(unresolved(&trust), ["vendor.x.step"]);
        let e = expand(&p, "acme.c", Map::new(), &trust.expand_options()).unwrap_err();
        assert_eq!((e.code, e.details["typeId"].as_str()), (code::CHAIN_UNRESOLVABLE_TYPEID, Some("vendor.x.step")));
        trust.host.node_types.push("vendor.x.step".into());
        assert!(unresolved(&trust).is_empty());
        assert!(!trust.check_chain(&p, "acme.c").is_blocked());
        assert_eq!(expand(&p, "acme.c", Map::new(), &trust.expand_options()).unwrap().nodes.len(), 2);
        // Without a catalog, host types are not "unchecked" either.
        let loose = Trust { host: trust.host.clone(), ..Default::default() };
        assert!(!loose.check_chain(&p, "acme.c").findings.iter().any(|f| f.code == code::TYPEID_UNCHECKED));
    }

    #[test]
    fn host_gates_come_from_the_expander() {
        let mut c = chain(json!([{"id": "a", "typeId": "core.subWorkflow", "config": {"subChainRef": "acme.child"}}]));
        c["subChains"] = json!([{"ref": "acme.child"}]);
        let mut p = pack(c, json!({}));
        let mut child = chain(json!([{"id": "b", "typeId": "core.identity"}]));
        child["chainId"] = json!("acme.child");
        std::sync::Arc::make_mut(&mut p.manifest)["chains"].as_array_mut().unwrap().push(child.clone());
        p.chains.push(Chain::new(1, child));
        let r = Trust::default().check_chain(&p, "acme.c");
        assert!(codes(&r).contains(&(code::SUB_CHAIN_UNSUPPORTED, Severity::Error)), "{r:?}");
        let permissive = Trust { host: HostProfile::permissive(), ..Default::default() };
        assert!(!permissive.check_chain(&p, "acme.c").is_blocked());
        let missing = Trust::default().check_chain(&p, "nope");
        assert!(codes(&missing).contains(&(code::CHAIN_NOT_FOUND, Severity::Error)));
    }

    #[test]
    fn strict_promotes_expansion_findings() {
        let p = pack(
            chain(json!([{"id": "a", "typeId": "core.dispatch", "config": {"fanOutPolicy": "parallel"}}])),
            json!({}),
        );
        let mut trust = Trust { catalog: Some(Catalog::new()), ..Default::default() };
        let exp = expand(&p, "acme.c", Map::new(), &trust.expand_options()).unwrap();
        assert_eq!(trust.check_expansion(&exp)[0].severity, Severity::Warning);
        trust.strict = true;
        let f = &trust.check_expansion(&exp)[0];
        assert_eq!(
            (f.code, f.severity, f.pointer.as_str()),
            (code::NODE_CONFIG_INVALID, Severity::Error, "/nodes/0/config/fanOutPolicy")
        );
        // Without a catalog the schema chainsmith bundles for `core.dispatch` still applies.
        let bundled = Trust::default().check_expansion(&exp);
        assert_eq!((bundled[0].code, bundled[0].severity), (code::NODE_CONFIG_INVALID, Severity::Warning));
    }

    #[test]
    fn v2_engine_ceiling_follows_the_host_major() {
        let mut p = pack(chain(json!([{"id": "a", "typeId": "core.identity@1.0.0"}])), json!({}));
        std::sync::Arc::make_mut(&mut p.manifest)["signing"] =
            json!({"keyId": "k", "scheme": "ed25519-canonical-json"});
        let host = |major| Trust {
            host: HostProfile { protocol_major: major, ..HostProfile::default() },
            ..Default::default()
        };
        let engine = |t: &Trust, p: &Pack| {
            t.check_chain(p, "acme.c").findings.iter().filter(|f| f.code == code::PACK_ENGINE_UNSUPPORTED).count()
        };
        // `>=1.0.0` reads as `<2.0.0`: fine on a v1 host, refused on a v2 host.
        assert_eq!((engine(&host(1), &p), engine(&host(2), &p)), (0, 1));
        std::sync::Arc::make_mut(&mut p.manifest)["engines"]["openwop"] = json!(">=1.0.0 <3.0.0");
        assert_eq!((engine(&host(1), &p), engine(&host(2), &p), engine(&host(3), &p)), (0, 0, 1));
        std::sync::Arc::make_mut(&mut p.manifest)["engines"]["openwop"] = json!("^1.0.0");
        assert_eq!(engine(&host(1), &p), 1);
        assert!(host(1).check_pack(&p).is_blocked());
        // v1 manifests keep their npm ranges unchecked here.
        std::sync::Arc::make_mut(&mut p.manifest).as_object_mut().unwrap().remove("signing");
        assert_eq!(engine(&host(2), &p), 0);
    }
}

//! What inserting a palette tile would report, found before it is dropped: the insert's own
//! pipeline ([`crate::inline::expand_for`]) run once per chain with the chain's defaults,
//! so the tile and the insert cannot disagree. The trust policy's findings are already on
//! the pack's report; only what the expansion adds (config checks against the node types'
//! schemas, sub-chain parameters the parent does not supply, the host's gates) is kept.

use crate::catalog::Trust;
use crate::error::{Finding, Severity, code};
use crate::inline::{InlineRequest, expand_for};
use crate::pack::{Chain, Pack};
use serde_json::{Map, Value};

/// The findings an insert of `chain` with its defaults would add to `known` (what the pack's
/// trust report already says about it), each marked as this chain's. A refusal comes back
/// as one error finding; `external` are the packs sub-chain refs resolve from.
pub fn insert_findings(
    trust: &Trust,
    pack: &Pack,
    chain: &Chain,
    external: &[Pack],
    known: &[Finding],
) -> Vec<Finding> {
    let mut req = InlineRequest::new(trust, pack, chain.chain_id(), Map::new());
    // Defaults applied, values not judged: the form asks for what has no default.
    req.preview = true;
    req.external = external;
    let found = match expand_for(None, req) {
        Ok(expanded) => expanded.expansion.warnings,
        Err(e) => {
            let mut f = Finding::error(e.code, "", e.message);
            f.details = e.details;
            vec![f]
        }
    };
    // The expansion repeats the trust policy's warnings; the tile shows those already.
    let already = |f: &Finding| known.iter().any(|k| k.code == f.code && k.message == f.message);
    let mut out: Vec<Finding> = Vec::new();
    let keep = |f: &Finding| f.severity != Severity::Info && !already(f) && !users_value(pack, chain, f);
    for mut f in found.into_iter().filter(keep) {
        f.chain_id = Some(chain.chain_id().to_owned());
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// Whether a config finding is about a value the form will ask for: the field, in the
/// chain's node, holds a token of a parameter without a default (its "" stands in for what
/// the user types, e.g. `{{params.hotelApi}}/reservations` is no URI until then).
fn users_value(pack: &Pack, parent: &Chain, f: &Finding) -> bool {
    if f.code != code::NODE_CONFIG_INVALID {
        return false;
    }
    let Some(rest) = f.pointer.strip_prefix("/nodes/") else { return false };
    let Some((index, field)) = rest.split_once("/config/") else { return false };
    let chain = f.chain_id.as_deref().and_then(|c| pack.chain(c)).unwrap_or(parent);
    let Some(node) = index.parse::<usize>().ok().and_then(|i| chain.nodes().get(i)) else { return false };
    let Some(value) = node.get("config").and_then(|c| c.pointer(&format!("/{field}"))) else { return false };
    let text = value.to_string();
    let props = parent.parameters().get("properties").and_then(Value::as_object);
    props.into_iter().flatten().filter(|(_, p)| p.get("default").is_none()).any(|(name, _)| names(&text, name))
}

/// Whether `text` holds `params.<name>` with no more of a name after it.
fn names(text: &str, name: &str) -> bool {
    let needle = format!("params.{name}");
    text.match_indices(&needle).any(|(at, _)| {
        text[at + needle.len()..].chars().next().is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::editor::blockers::pack_reports;
    use crate::error::code;
    use crate::pack::{LoadOptions, load_bytes};
    use serde_json::{Value, json};
    use std::path::Path;

    /// A pack of `chains`; the parent composes `acme.child`, which reads `{{params.topic}}`
    /// the parent does not declare; `acme.dispatch` gives core.dispatch a policy its schema
    /// does not allow.
    fn tiles() -> Pack {
        let chain = |id: &str, nodes: Value| {
            json!({"chainId": id, "version": "1.0.0", "label": id, "description": "d",
                "parameters": {"type": "object", "properties": {}}, "dag": {"nodes": nodes}})
        };
        let mut parent = chain(
            "acme.parent",
            json!([{"id": "a", "typeId": "core.subWorkflow", "config": {"subChainRef": "acme.child"}}]),
        );
        parent["subChains"] = json!([{"ref": "acme.child"}]);
        let mut child = chain(
            "acme.child",
            json!([{"id": "b", "typeId": "core.identity", "config": {"note": "{{params.topic}}"}}]),
        );
        child["parameters"] = json!({"type": "object", "properties": {"topic": {"type": "string"}}});
        let dispatch = chain(
            "acme.dispatch",
            json!([{"id": "d", "typeId": "core.dispatch", "config": {"fanOutPolicy": "parallel"}}]),
        );
        let m = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
            "engines": {"openwop": ">=1.0.0"}, "chains": [parent, child, dispatch]});
        load_bytes(Path::new("/nonexistent/pack.json"), m.to_string().as_bytes(), LoadOptions::default()).unwrap()
    }

    fn codes_of(report: &crate::catalog::TrustReport, chain: &str) -> Vec<(&'static str, bool)> {
        let own = |f: &&Finding| f.chain_id.as_deref() == Some(chain);
        report.findings.iter().filter(own).map(|f| (f.code, f.is_error())).collect()
    }

    #[test]
    fn a_tile_s_report_carries_what_its_insert_would_warn() {
        let packs = vec![tiles()];
        let mut trust = Trust { catalog: Some(Catalog::new()), ..Default::default() };
        // The host co-expands sub-chains: the child reads a parameter the parent lacks.
        trust.host.sub_chains = true;
        let reports = pack_reports(&trust, &packs);
        assert_eq!(codes_of(&reports[0], "acme.parent"), [(code::SUB_CHAIN_PARAM_NOT_SUPPLIED, false)]);
        assert_eq!(codes_of(&reports[0], "acme.dispatch"), [(code::NODE_CONFIG_INVALID, false)]);
        let f = reports[0].findings.iter().find(|f| f.code == code::NODE_CONFIG_INVALID).unwrap();
        assert_eq!(f.pointer, "/nodes/0/config/fanOutPolicy");
        // The pack-wide unsigned warning stays the pack's, not repeated per tile.
        assert!(reports[0].findings.iter().filter(|f| f.code == code::PACK_UNSIGNED).all(|f| f.chain_id.is_none()));

        // Under --strict the config violation refuses the insert, so the tile is blocked.
        trust.strict = true;
        let reports = pack_reports(&trust, &packs);
        assert_eq!(codes_of(&reports[0], "acme.dispatch"), [(code::NODE_CONFIG_INVALID, true)]);

        // A chain the policy blocks is not expanded: its refusal is what the tile shows.
        trust.host.sub_chains = false;
        let reports = pack_reports(&trust, &packs);
        assert!(codes_of(&reports[0], "acme.parent").iter().all(|(c, _)| *c != code::SUB_CHAIN_PARAM_NOT_SUPPLIED));
        assert!(codes_of(&reports[0], "acme.parent").contains(&(code::SUB_CHAIN_UNSUPPORTED, true)));
    }
}

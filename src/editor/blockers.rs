//! What keeps the palette's chains from being inserted, summed over every loaded pack, and
//! the one change of the host profile or trust policy that lifts each refusal where one
//! exists. The palette's banner, a tile's explanation and its badges all read these, so the
//! totals and the buttons agree.

use crate::catalog::{Catalog, HostProfile, Trust, TrustReport};
use crate::error::{Finding, code};
use crate::pack::{Chain, Pack, PackKind};
use serde_json::Value;
use std::collections::HashMap;

/// A setting change that lifts a refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fix {
    /// Declare these typeIds or `prefix.*` patterns as provided by the host.
    DeclareHostTypes(Vec<String>),
    /// Turn on the host profile's sub-chain support.
    EnableSubChains,
    /// Raise the host's sub-chain nesting limit to this depth.
    RaiseMaxDepth(u32),
    /// Turn on the host profile's compensation support.
    EnableCompensation,
    /// Stop refusing unsigned, untrusted or unverifiable packs (they are warned about).
    AcceptUnsigned,
}

impl Fix {
    /// The button's text.
    pub fn label(&self) -> String {
        match self {
            Fix::DeclareHostTypes(p) => format!("Declare {} as host-provided", p.join(", ")),
            Fix::EnableSubChains => "Enable sub-chains".to_owned(),
            Fix::RaiseMaxDepth(d) => format!("Allow sub-chains {d} deep"),
            Fix::EnableCompensation => "Enable compensation".to_owned(),
            Fix::AcceptUnsigned => "Accept unsigned packs (warn only)".to_owned(),
        }
    }

    /// What the `n` chains it unblocks have in common ("148 chains need node types the host
    /// provides", "1 chain composes sub-chains").
    pub fn need(&self, n: usize) -> String {
        let one = n == 1;
        let (verb, rest) = match self {
            Fix::DeclareHostTypes(_) => (if one { "needs" } else { "need" }, "node types the host provides"),
            Fix::EnableSubChains => (if one { "composes" } else { "compose" }, "sub-chains"),
            Fix::RaiseMaxDepth(_) => (if one { "nests" } else { "nest" }, "sub-chains deeper than the host allows"),
            Fix::EnableCompensation => (if one { "carries" } else { "carry" }, "a compensation policy"),
            Fix::AcceptUnsigned => (if one { "comes" } else { "come" }, "from an unsigned or untrusted pack"),
        };
        format!("{n} {} {verb} {rest}", if one { "chain" } else { "chains" })
    }

    /// Apply it to the host profile and the "require signed" switch.
    pub fn apply(&self, host: &mut HostProfile, require_signed: &mut bool) {
        match self {
            Fix::DeclareHostTypes(patterns) => {
                for p in patterns {
                    if !host.node_types.contains(p) {
                        host.node_types.push(p.clone());
                    }
                }
            }
            Fix::EnableSubChains => host.sub_chains = true,
            Fix::RaiseMaxDepth(d) => host.max_depth = host.max_depth.max(*d),
            Fix::EnableCompensation => host.compensation = true,
            Fix::AcceptUnsigned => *require_signed = false,
        }
    }
}

/// The `prefix.*` pattern that declares a typeId's family (`feature.ai.summarise` →
/// `feature.*`); the typeId itself when it has no dot.
pub fn family_of(type_id: &str) -> String {
    match type_id.split_once('.') {
        Some((first, _)) => format!("{first}.*"),
        None => type_id.to_owned(),
    }
}

/// What lifts this refusal, if a setting does. `chain_unresolvable_typeid` is lifted for
/// its typeId's whole family (the way hosts provide their own types).
pub fn fix_for(f: &Finding) -> Option<Fix> {
    match f.code {
        code::CHAIN_UNRESOLVABLE_TYPEID => {
            let t = f.details.get("typeId").and_then(Value::as_str)?;
            Some(Fix::DeclareHostTypes(vec![family_of(t)]))
        }
        code::SUB_CHAIN_UNSUPPORTED => Some(Fix::EnableSubChains),
        code::SUB_CHAIN_MAX_DEPTH_EXCEEDED => {
            let allowed = f.details.get("maxDepth").and_then(Value::as_u64)?;
            u32::try_from(allowed + 1).ok().map(Fix::RaiseMaxDepth)
        }
        code::CAPABILITY_REQUIRED
            if f.details.get("requiredCapability").and_then(Value::as_str) == Some("compensation") =>
        {
            Some(Fix::EnableCompensation)
        }
        code::PACK_UNSIGNED | code::PACK_SIGNATURE_UNTRUSTED | code::PACK_SIGNATURE_UNVERIFIABLE => {
            Some(Fix::AcceptUnsigned)
        }
        _ => None,
    }
}

/// The fixes a set of refusals has, each once, in the order first met. Missing typeIds of
/// one family share one declaration.
pub fn fixes_of<'a>(blocking: impl IntoIterator<Item = &'a Finding>) -> Vec<Fix> {
    let mut out: Vec<Fix> = Vec::new();
    for fix in blocking.into_iter().filter_map(fix_for) {
        if !out.contains(&fix) {
            out.push(fix);
        }
    }
    out
}

/// The chain's own edges whose port types do not fit, by the catalog: what the problems bar
/// flags as `edge_port_incompatible` once the chain is inserted, as warnings for its tile
/// (the palette predicts what an insert will report). Edges to nodes outside the fragment
/// and untyped ports are not judged.
pub fn port_findings(catalog: &Catalog, chain: &Chain) -> Vec<Finding> {
    let type_of = |node: &str| {
        chain.nodes().iter().find(|n| n.get("id").and_then(Value::as_str) == Some(node))?.get("typeId")?.as_str()
    };
    let mut out = Vec::new();
    for (j, edge) in chain.edges().iter().enumerate() {
        let end = |key: &str, default_port: &'static str| {
            let text = edge.get(key).and_then(Value::as_str)?;
            let (node, port) = text.split_once('.').unwrap_or((text, default_port));
            Some((type_of(node)?, port))
        };
        let (Some(from), Some(to)) = (end("from", "output"), end("to", "input")) else { continue };
        if let Err(e) = catalog.check_connection(from, to) {
            let mut f =
                Finding::warning(code::EDGE_PORT_INCOMPATIBLE, format!("{}/dag/edges/{j}", chain.pointer()), e.message);
            f.chain_id = Some(chain.chain_id().to_owned());
            f.details.extend(e.details);
            out.push(f);
        }
    }
    out
}

/// The loaded chains, how many are blocked, and per fix how many chains it would unblock
/// on its own (more than one fix may be needed for a chain).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub chains: usize,
    pub blocked: usize,
    /// Blocked chains that no setting unblocks (refusals without a fix).
    pub unfixable: usize,
    /// Each fix with the number of blocked chains that need it, most first.
    pub fixes: Vec<(Fix, usize)>,
    /// Blocked chains that need node types the host would provide (any family).
    pub need_host_types: usize,
}

impl Summary {
    /// Every host-type declaration the blocked chains need, as one fix (the banner's button).
    pub fn declare_all_host_types(&self) -> Option<Fix> {
        let patterns: Vec<String> = self
            .fixes
            .iter()
            .filter_map(|(f, _)| match f {
                Fix::DeclareHostTypes(p) => Some(p.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        (!patterns.is_empty()).then_some(Fix::DeclareHostTypes(patterns))
    }
}

/// Sum up the chains of the workflow-chain packs (`reports[i]` is `packs[i]`'s report);
/// internal chains count only when shown.
pub fn summarise(packs: &[Pack], reports: &[TrustReport], show_internal: bool) -> Summary {
    let mut s = Summary::default();
    for (pack, report) in packs.iter().zip(reports).filter(|(p, _)| p.kind == PackKind::WorkflowChain) {
        for chain in pack.chains.iter().filter(|c| show_internal || !c.internal()) {
            s.chains += 1;
            let concerns = |f: &&Finding| f.chain_id.as_deref().is_none_or(|c| c == chain.chain_id());
            let blocking: Vec<&Finding> = report.blocking().filter(concerns).collect();
            if blocking.is_empty() {
                continue;
            }
            s.blocked += 1;
            if blocking.iter().any(|f| fix_for(f).is_none()) {
                s.unfixable += 1;
            }
            let fixes = fixes_of(blocking);
            if fixes.iter().any(|f| matches!(f, Fix::DeclareHostTypes(_))) {
                s.need_host_types += 1;
            }
            for fix in fixes {
                match s.fixes.iter_mut().find(|(f, _)| *f == fix) {
                    Some((_, n)) => *n += 1,
                    None => s.fixes.push((fix, 1)),
                }
            }
        }
    }
    // Stable: equal counts keep the order first met.
    s.fixes.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    s
}

/// Per pack: its own check (signature, typeIds, dependencies) plus what each chain is refused
/// for whatever the values (host gates, sensitive parameters), which is what the insert form
/// checks, so that a tile shows it before it is dropped.
pub fn pack_reports(trust: &Trust, packs: &[Pack]) -> Vec<TrustReport> {
    packs
        .iter()
        .map(|pack| {
            let mut report = trust.check_pack(pack);
            for chain in &pack.chains {
                let id = chain.chain_id();
                let extra: Vec<_> = trust
                    .check_chain(pack, id)
                    .findings
                    .into_iter()
                    .filter(|f| !report.findings.contains(f))
                    .map(|mut f| {
                        // Found by checking this chain, so it concerns this chain's tile only.
                        f.chain_id.get_or_insert_with(|| id.to_owned());
                        f
                    })
                    .collect();
                report.findings.extend(extra);
                // Port types the fragment's own edges get wrong: the insert will be flagged for them.
                if let Some(catalog) = &trust.catalog {
                    report.findings.extend(port_findings(catalog, chain));
                }
                // What the insert itself would warn, for a chain the policy lets through.
                let concerns = |f: &&Finding| f.chain_id.as_deref().is_none_or(|c| c == id);
                if !report.findings.iter().filter(concerns).any(Finding::is_error) {
                    let known: Vec<Finding> = report.findings.iter().filter(concerns).cloned().collect();
                    let predicted = super::predict::insert_findings(trust, pack, chain, packs, &known);
                    report.findings.extend(predicted);
                }
            }
            report
        })
        .collect()
}

/// A node of a chain that uses a typeId: what the user calls it and where the use is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeUse {
    pub id: String,
    /// The node's title as its card shows it (`name`), its id when it has none.
    pub title: String,
    /// Another node of the chain has the same title: the id tells them apart.
    pub ambiguous: bool,
    /// JSON pointer of the `typeId` (or `compensation/nodeTypeId`) in the manifest.
    pub pointer: String,
}

impl NodeUse {
    /// The title, with the id after it only when the title alone does not say which node.
    pub fn label(&self) -> String {
        if self.ambiguous { format!("{} ({})", self.title, self.id) } else { self.title.clone() }
    }
}

/// Where a typeId is used in a chain, for `typeId` and `compensation.nodeTypeId` alike.
pub fn uses_of(chain: &Chain, type_id: &str) -> Vec<NodeUse> {
    let nodes = chain.nodes();
    let str_of = |node: &Value, key: &str| node.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let title_of = |node: &Value| Some(str_of(node, "name")).filter(|n| !n.trim().is_empty());
    // How many nodes have each title, counted once: the window is drawn every frame.
    let mut titles: HashMap<String, usize> = HashMap::new();
    for title in nodes.iter().filter_map(title_of) {
        *titles.entry(title).or_default() += 1;
    }
    let mut out = Vec::new();
    for (j, node) in nodes.iter().enumerate() {
        let id = str_of(node, "id");
        let title = title_of(node);
        let ambiguous = title.as_ref().is_some_and(|t| titles.get(t).is_some_and(|n| *n > 1));
        for (at, value) in
            [("typeId", node.get("typeId")), ("compensation/nodeTypeId", node.pointer("/compensation/nodeTypeId"))]
        {
            if value.and_then(Value::as_str) == Some(type_id) {
                out.push(NodeUse {
                    id: id.clone(),
                    title: title.clone().unwrap_or_else(|| id.clone()),
                    ambiguous,
                    pointer: format!("{}/dag/nodes/{j}/{at}", chain.pointer()),
                });
            }
        }
    }
    out
}

/// The typeIds a set of findings names as missing, in order, once each.
pub fn missing_type_ids<'a>(blocked: &[&'a Finding]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for f in blocked.iter().filter(|f| f.code == code::CHAIN_UNRESOLVABLE_TYPEID) {
        if let Some(t) = f.details.get("typeId").and_then(Value::as_str)
            && !out.contains(&t)
        {
            out.push(t);
        }
    }
    out
}

/// The tile's tooltip: each missing typeId with the nodes that use it, then other refusals.
pub fn blocked_summary(chain: &Chain, blocked: &[&Finding]) -> String {
    let missing = missing_type_ids(blocked);
    let mut lines = Vec::new();
    if !missing.is_empty() {
        lines.push(format!(
            "Blocked: {} no loaded node pack provides:",
            crate::words::count(missing.len(), "node type", "node types")
        ));
        for t in &missing {
            let nodes: Vec<String> = uses_of(chain, t).iter().map(NodeUse::label).collect();
            lines.push(format!("  • {t} — used by {}", nodes.join(", ")));
        }
    }
    for f in blocked.iter().filter(|f| f.code != code::CHAIN_UNRESOLVABLE_TYPEID) {
        lines.push(format!("Blocked: {} — {}", f.code, f.message));
    }
    lines.push("Click the tile for details and a way forward.".to_owned());
    lines.join("\n")
}

/// What the palette lists of a pack: the search (lower case; empty lists all), internal
/// chains or not, blocked ones or not.
#[derive(Debug, Clone, Copy)]
pub struct TileFilter<'q> {
    pub query: &'q str,
    pub show_internal: bool,
    pub hide_blocked: bool,
}

impl TileFilter<'_> {
    /// The search or "Hide blocked" leaves some tiles out: a pack with none left is not
    /// listed, nor a group left empty.
    pub fn narrows(&self) -> bool {
        !self.query.is_empty() || self.hide_blocked
    }
}

/// The tiles of `pack` the filter leaves, each with what blocks it in `report`.
pub fn shown_tiles<'p>(
    pack: &'p Pack,
    report: Option<&'p TrustReport>,
    filter: TileFilter,
) -> Vec<(&'p Chain, Vec<&'p Finding>)> {
    // A finding about no chain in particular (signature, dependencies) blocks them all.
    let blocked_by = |chain: &Chain| -> Vec<&'p Finding> {
        let concerns = |f: &&Finding| f.chain_id.as_deref().is_none_or(|c| c == chain.chain_id());
        report.map(|r| r.blocking().filter(concerns).collect()).unwrap_or_default()
    };
    pack.chains
        .iter()
        .filter(|c| filter.show_internal || !c.internal())
        .filter(|c| filter.query.is_empty() || matches(c, filter.query))
        .map(|c| (c, blocked_by(c)))
        .filter(|(c, blocked)| !filter.hide_blocked || (blocked.is_empty() && !has_errors(pack, c)))
        .collect()
}

/// The positions of the packs the palette lists, by name: every pack but node packs (only
/// the one named `only`, when given), and under a search or "Hide blocked" only those with
/// a tile left, so no header stands alone.
pub fn listed_packs(packs: &[Pack], reports: &[TrustReport], only: Option<&str>, filter: TileFilter) -> Vec<usize> {
    let mut order: Vec<usize> = (0..packs.len())
        .filter(|&i| packs[i].kind != PackKind::Node)
        .filter(|&i| only.is_none_or(|n| packs[i].name() == n))
        .collect();
    order.sort_by_key(|&i| packs[i].name().to_owned());
    if filter.narrows() {
        order.retain(|&i| !shown_tiles(&packs[i], reports.get(i), filter).is_empty());
    }
    order
}

/// Whether a search (lower case) finds the chain: in its label, chainId or a typeId.
pub fn matches(chain: &Chain, query: &str) -> bool {
    chain.label().to_lowercase().contains(query)
        || chain.chain_id().to_lowercase().contains(query)
        || chain.type_ids().iter().any(|t| t.to_lowercase().contains(query))
}

/// Whether the pack's own validation found errors in the chain.
pub fn has_errors(pack: &Pack, chain: &Chain) -> bool {
    pack.findings_for(chain.chain_id()).any(|f| f.is_error())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Finding;
    use serde_json::json;

    fn missing(t: &str) -> Finding {
        let mut f = Finding::error(code::CHAIN_UNRESOLVABLE_TYPEID, "/chains/0", format!("{t} missing"));
        f.details.insert("typeId".into(), json!(t));
        f
    }

    #[test]
    fn a_blocked_tile_names_each_missing_type_once_with_the_nodes_that_use_it() {
        let m = json!({"name": "vendor.t.p", "version": "1.0.0", "kind": "workflow-chain", "chains": [
            {"chainId": "t.c", "version": "1.0.0", "label": "C", "description": "d",
             "parameters": {"type": "object"},
             "dag": {"nodes": [{"id": "a", "typeId": "x.one"},
                               {"id": "b", "typeId": "core.noop", "compensation": {"nodeTypeId": "x.one"}},
                               {"id": "c", "typeId": "x.two"}]}}]});
        let opts = crate::pack::LoadOptions::default();
        let pack = crate::pack::load_value(std::path::Path::new("p"), std::sync::Arc::new(m), opts).unwrap();
        let chain = pack.chain("t.c").unwrap();
        let uses: Vec<(String, String)> = uses_of(chain, "x.one").into_iter().map(|u| (u.label(), u.pointer)).collect();
        assert_eq!(
            uses,
            [
                ("a".to_owned(), "/chains/0/dag/nodes/0/typeId".to_owned()),
                ("b".to_owned(), "/chains/0/dag/nodes/1/compensation/nodeTypeId".to_owned())
            ]
        );
        let (one, two, again) = (missing("x.one"), missing("x.two"), missing("x.one"));
        let other = Finding::error(code::PACK_UNSIGNED, "", "unsigned");
        let blocked = [&one, &two, &again, &other];
        assert_eq!(missing_type_ids(&blocked), ["x.one", "x.two"]);
        assert_eq!(
            blocked_summary(chain, &blocked),
            "Blocked: 2 node types no loaded node pack provides:\n  • x.one — used by a, b\n  • x.two — used by c\n\
             Blocked: pack_unsigned — unsigned\nClick the tile for details and a way forward."
        );
    }

    #[test]
    fn a_blocked_tile_names_the_nodes_that_use_a_type_by_their_titles() {
        // Titles as the cards show them; the id only where two share a title or one has none.
        let m = json!({"name": "vendor.t.p", "version": "1.0.0", "kind": "workflow-chain", "chains": [
            {"chainId": "t.c", "version": "1.0.0", "label": "C", "description": "d",
             "parameters": {"type": "object"},
             "dag": {"nodes": [{"id": "fetch_1", "name": "Fetch feed", "typeId": "x.one"},
                               {"id": "sum", "name": "Summarize", "typeId": "x.one"},
                               {"id": "log_a", "name": "Log", "typeId": "x.one"},
                               {"id": "log_b", "name": "Log", "typeId": "x.two"},
                               {"id": "bare", "name": " ", "typeId": "x.one"}]}}]});
        let opts = crate::pack::LoadOptions::default();
        let pack = crate::pack::load_value(std::path::Path::new("p"), std::sync::Arc::new(m), opts).unwrap();
        let chain = pack.chain("t.c").unwrap();
        let (one, two) = (missing("x.one"), missing("x.two"));
        assert_eq!(
            blocked_summary(chain, &[&one, &two]),
            "Blocked: 2 node types no loaded node pack provides:\n  • x.one — used by Fetch feed, Summarize, \
             Log (log_a), bare\n  • x.two — used by Log (log_b)\nClick the tile for details and a way forward."
        );
    }

    #[test]
    fn every_host_gate_and_signature_refusal_has_a_fix_and_missing_types_share_their_family() {
        let sub = Finding::error(code::SUB_CHAIN_UNSUPPORTED, "", "subchains");
        assert_eq!(fix_for(&sub), Some(Fix::EnableSubChains));
        let mut deep = Finding::error(code::SUB_CHAIN_MAX_DEPTH_EXCEEDED, "", "deep");
        deep.details.insert("maxDepth".into(), json!(8));
        assert_eq!(fix_for(&deep), Some(Fix::RaiseMaxDepth(9)));
        let mut comp = Finding::error(code::CAPABILITY_REQUIRED, "", "comp");
        comp.details.insert("requiredCapability".into(), json!("compensation"));
        assert_eq!(fix_for(&comp), Some(Fix::EnableCompensation));
        assert_eq!(fix_for(&Finding::error(code::PACK_UNSIGNED, "", "u")), Some(Fix::AcceptUnsigned));
        assert_eq!(fix_for(&Finding::error(code::SENSITIVE_PARAM_NOT_DEFERRABLE, "", "s")), None);
        let (a, b) = (missing("feature.ai.summarise"), missing("feature.mail.send"));
        assert_eq!(fixes_of([&a, &b]), vec![Fix::DeclareHostTypes(vec!["feature.*".into()])]);

        let (mut host, mut require_signed) = (HostProfile::default(), true);
        for f in [Fix::EnableSubChains, Fix::RaiseMaxDepth(9), Fix::AcceptUnsigned, fixes_of([&a]).remove(0)] {
            f.apply(&mut host, &mut require_signed);
        }
        assert!(host.sub_chains && host.max_depth == 9 && !require_signed);
        assert_eq!(host.node_types, ["feature.*"]);
    }

    #[test]
    fn a_chain_s_edge_between_ports_of_unfitting_types_is_predicted_and_no_bundled_chain_has_one() {
        let packs = crate::pack::bundled().packs;
        let mut catalog = Catalog::new();
        for p in &packs {
            catalog.add_pack(p);
        }
        for p in &packs {
            for c in &p.chains {
                assert_eq!(port_findings(&catalog, c), Vec::new(), "{}", c.chain_id());
            }
        }
        // The triage chain as it was shipped: the classifier's label (a string) into the
        // sheet's rows (an array).
        let source = crate::pack::bundled_dir().join("vendor.chainsmith.support-desk/pack.json");
        let text = std::fs::read_to_string(&source).unwrap().replace("\"log.row\"", "\"log.rows\"");
        let pack = crate::pack::load_bytes(&source, text.as_bytes(), Default::default()).unwrap();
        let found = port_findings(&catalog, pack.chain("support.triage").unwrap());
        assert_eq!(
            found.iter().map(|f| (f.code, f.pointer.as_str())).collect::<Vec<_>>(),
            [(code::EDGE_PORT_INCOMPATIBLE, "/chains/0/dag/edges/2")]
        );
    }

    #[test]
    fn reports_block_chains_the_host_cannot_run() {
        let packs = crate::pack::bundled().packs;
        let book = |trust: &Trust| {
            let reports = pack_reports(trust, &packs);
            let i = packs.iter().position(|p| p.chain("travel.book-trip").is_some()).unwrap();
            reports[i].blocking().map(|f| (f.code, f.chain_id.clone())).collect::<Vec<_>>()
        };
        let mut trust = Trust::default();
        assert!(book(&trust).is_empty());
        trust.host.compensation = false;
        assert_eq!(book(&trust), [(code::CAPABILITY_REQUIRED, Some("travel.book-trip".to_owned()))]);
        // Pack-wide refusals are not repeated per chain.
        trust.require_signed = true;
        let codes = book(&trust);
        assert_eq!(codes.iter().filter(|(c, _)| *c == code::PACK_UNSIGNED).count(), 1, "{codes:?}");
    }

    #[test]
    fn tiles_follow_the_search_the_internal_switch_and_what_blocks_them() {
        let m = json!({"name": "vendor.t.p", "version": "1.0.0", "kind": "workflow-chain",
          "engines": {"openwop": ">=1.0.0"}, "chains": [
            {"chainId": "t.fetch", "version": "1.0.0", "label": "Fetch feed", "description": "d",
             "parameters": {"type": "object"}, "dag": {"nodes": [{"id": "a", "typeId": "x.http"}]}},
            {"chainId": "t.log", "version": "1.0.0", "label": "Log", "description": "d", "internal": true,
             "parameters": {"type": "object"}, "dag": {"nodes": [{"id": "a", "typeId": "x.log"}]}}]});
        let opts = crate::pack::LoadOptions::default();
        let manifest = m.clone();
        let pack = crate::pack::load_value(std::path::Path::new("p"), std::sync::Arc::new(m), opts).unwrap();
        let ids = |tiles: Vec<(&Chain, Vec<&Finding>)>| -> Vec<String> {
            tiles.into_iter().map(|(c, _)| c.chain_id().to_owned()).collect()
        };
        let all = TileFilter { query: "", show_internal: true, hide_blocked: false };
        assert_eq!(ids(shown_tiles(&pack, None, all)), ["t.fetch", "t.log"]);
        // The palette lists packs by name; a search leaves out a pack with no tile left.
        let other = {
            let mut m = manifest.clone();
            m["name"] = json!("vendor.a.first");
            let opts = crate::pack::LoadOptions::default();
            crate::pack::load_value(std::path::Path::new("q"), std::sync::Arc::new(m), opts).unwrap()
        };
        let packs = [pack.clone(), other];
        assert_eq!(listed_packs(&packs, &[], None, all), [1, 0]);
        assert_eq!(listed_packs(&packs, &[], Some("vendor.t.p"), all), [0]);
        assert!(listed_packs(&packs, &[], None, TileFilter { query: "nothing", ..all }).is_empty());
        // Listing everything, a pack with no tile still shows; a search or "Hide blocked" hides it.
        assert!(!all.narrows() && !TileFilter { show_internal: false, ..all }.narrows());
        assert!(TileFilter { query: "x", ..all }.narrows() && TileFilter { hide_blocked: true, ..all }.narrows());
        assert_eq!(ids(shown_tiles(&pack, None, TileFilter { show_internal: false, ..all })), ["t.fetch"]);
        assert_eq!(ids(shown_tiles(&pack, None, TileFilter { query: "x.log", ..all })), ["t.log"], "by typeId");
        assert_eq!(ids(shown_tiles(&pack, None, TileFilter { query: "feed", ..all })), ["t.fetch"], "by label");
        let mut about_log = missing("x.log");
        about_log.chain_id = Some("t.log".into());
        let report = TrustReport { signature: crate::catalog::SignatureStatus::Unsigned, findings: vec![about_log] };
        let tiles = shown_tiles(&pack, Some(&report), all);
        assert_eq!(tiles.iter().map(|(_, b)| b.len()).collect::<Vec<_>>(), [0, 1], "blocked: only its own chain");
        let hide = TileFilter { hide_blocked: true, ..all };
        assert_eq!(ids(shown_tiles(&pack, Some(&report), hide)), ["t.fetch"]);
        let whole_pack =
            TrustReport { signature: crate::catalog::SignatureStatus::Unsigned, findings: vec![missing("x.y")] };
        assert!(shown_tiles(&pack, Some(&whole_pack), hide).is_empty(), "a pack-wide refusal blocks every tile");
    }
}

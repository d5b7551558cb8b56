//! Sub-chain co-expansion (RFC 0133, chain-packs §8): a chain whose nodes name child chains
//! through `config.subChainRef` is expanded together with every child, each child becoming
//! its own workflow under a deterministic, tenant-scoped id.
//!
//! The walk reproduces the reference `expandChainTree` step for step, so ids, order and
//! refusals match it: children are expanded depth-first before the chain that uses them;
//! at each chain the depth bound is checked before the cycle check; refs are taken in node
//! order and must be declared in `subChains[]`; a child already registered is not expanded
//! again. The walk keeps its own stack: nothing recurses in the size of the input.

use super::{
    ExpandOptions, Expansion, PackSource, Resolved, chain_id_slug, choose_expansion_id, expand_resolved, preflight_at,
};
use crate::error::{Error, Finding, Result, code};
use crate::pack::{Chain, Pack, PackKind};
use crate::params::{Values, prepare};
use crate::range::Range;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

pub use crate::ids::{DEFAULT_TENANT, is_valid_workflow_id, mint_child_workflow_id};

/// What a co-expansion needs besides the root pack, chain and parameter values.
pub struct TreeOptions<'a> {
    /// Options for the root; children get the same resolver and host, their own ids.
    pub expand: ExpandOptions<'a>,
    /// The tenant that owns the child workflows (their ids are scoped to it).
    pub tenant: &'a str,
    /// Packs that external refs (`{packName, chainId, version}`) resolve from.
    pub external: &'a [Pack],
}

/// A child workflow id that replaced a node's `config.subChainRef`, and the `subChains[]`
/// ref (a sibling chainId, or an external `{packName, chainId, version}`) it came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubChainLink {
    pub workflow_id: String,
    #[serde(rename = "ref")]
    pub reference: Value,
}

impl SubChainLink {
    /// The chainId the ref names (what `config.subChainRef` holds).
    pub fn chain_id(&self) -> Option<&str> {
        match &self.reference {
            Value::String(r) => Some(r),
            Value::Object(o) => o.get("chainId").and_then(Value::as_str),
            _ => None,
        }
    }
}

/// One child chain registered as its own workflow.
#[derive(Debug, Clone)]
pub struct Child {
    /// The minted `wfc_<tenant>__<chainId>__<version>` id.
    pub workflow_id: String,
    pub expansion: Expansion,
    /// The chain's position in the pack it came from (`expansion.pack_name` at
    /// `expansion.pack_version`), found when the walk resolved its ref: a later step
    /// (the trust check of an external child) need not look it up again.
    pub at: usize,
}

/// A parent expansion and every child it composes, in the reference's order (a child
/// before the children that registered before it finished, i.e. post-order).
#[derive(Debug, Clone)]
pub struct TreeExpansion {
    /// The root chain; its warnings include every child's.
    pub parent: Expansion,
    pub children: Vec<Child>,
}

impl TreeExpansion {
    /// `subChainWorkflowIds` of the `from-chain` response: the children's ids, deduplicated.
    pub fn sub_chain_workflow_ids(&self) -> Vec<&str> {
        self.children.iter().map(|c| c.workflow_id.as_str()).collect()
    }
}

/// The CLI's `expand` output: the parent's fields plus `children` and `subChainWorkflowIds`.
impl serde::Serialize for TreeExpansion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        self.members(&mut map)?;
        map.end()
    }
}

impl TreeExpansion {
    fn members<M: crate::pretty::Members>(&self, out: &mut M) -> std::result::Result<(), M::Error> {
        self.parent.members(out)?;
        let children: Vec<ChildOut> = self.children.iter().map(ChildOut).collect();
        out.member("children", &children)?;
        out.member("subChainWorkflowIds", &self.sub_chain_workflow_ids())?;
        self.parent.warnings_member(out)
    }

    /// The CLI's `expand` output as pretty JSON, as [`super::Expansion::write_pretty`] writes it.
    pub fn write_pretty(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let mut object = crate::pretty::Object::begin(out)?;
        self.members(&mut object)?;
        object.end()
    }
}

/// A child as the tree's output lists it.
struct ChildOut<'a>(&'a Child);

impl serde::Serialize for ChildOut<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("workflowId", &self.0.workflow_id)?;
        map.serialize_entry("chainId", &self.0.expansion.chain_id)?;
        map.serialize_entry("nodes", &self.0.expansion.nodes)?;
        map.serialize_entry("edges", &self.0.expansion.edges)?;
        map.serialize_entry("idMap", &super::IdMap(&self.0.expansion.id_map))?;
        map.end()
    }
}

/// One chain on the walk's stack.
struct Frame<'p> {
    pack: &'p Pack,
    /// The chain's position in `pack.chains`, found when its ref was resolved.
    at: usize,
    chain: &'p Chain,
    depth: u32,
    /// Distinct string `config.subChainRef`s in node order.
    refs: Vec<&'p str>,
    /// `subChains[]` by the chainId each entry names: `None` for a sibling (string) ref,
    /// the entry for an external one.
    declared: HashMap<&'p str, Option<&'p Map<String, Value>>>,
    next: usize,
    /// Ref → the resolved child's version, for the rewrite to `workflowId`.
    versions: HashMap<&'p str, &'p str>,
    /// The child id this chain registers under; `None` for the root.
    registers_as: Option<String>,
}

/// Co-expand `chain_id` and every sub-chain it composes.
pub fn expand_tree<'p>(
    pack: &'p Pack,
    chain_id: &str,
    supplied: Map<String, Value>,
    opts: &TreeOptions<'p>,
) -> Result<TreeExpansion> {
    expand_tree_at(pack, chain_id, pack.chain_position(chain_id), supplied, opts.expand.values(), opts)
}

/// [`expand_tree`] of a root chain already looked up (`at`, its position in `pack.chains`),
/// its values treated as `how` says (`opts.expand.params_as_given` is not read).
pub fn expand_tree_at<'p>(
    pack: &'p Pack,
    chain_id: &str,
    at: Option<usize>,
    supplied: Map<String, Value>,
    how: Values,
    opts: &TreeOptions<'p>,
) -> Result<TreeExpansion> {
    let root = match at.and_then(|at| Some((at, pack.chains.get(at)?))) {
        Some(found) if pack.kind == PackKind::WorkflowChain => found,
        // preflight words the refusal (wrong kind, unknown chain) exactly as `expand` does.
        _ => {
            return Err(preflight_at(pack, chain_id, at, &opts.expand).err().unwrap_or_else(|| {
                Error::new(code::CHAIN_NOT_FOUND, format!("no chain \"{chain_id}\"")).with("chainId", chain_id)
            }));
        }
    };
    let params = prepare(root.1, supplied, how)?;
    let expansion_id = choose_expansion_id(root.1, &opts.expand)?;
    let mut walk = Walk {
        opts,
        params,
        expansion_id,
        stack: Vec::new(),
        on_stack: HashSet::new(),
        registered: HashSet::new(),
        minted: HashMap::new(),
        children: Vec::new(),
        warnings: Vec::new(),
    };
    walk.enter(pack, root.0, 0, None)?;
    let mut parent = walk.run()?;
    parent.warnings.append(&mut walk.warnings);
    Ok(TreeExpansion { parent, children: walk.children })
}

/// The depth-first walk's state: the stack of chains being composed and what is registered.
struct Walk<'p, 'o> {
    opts: &'o TreeOptions<'p>,
    /// The root's values: every chain expands with them (the reference passes them on).
    params: Map<String, Value>,
    expansion_id: String,
    stack: Vec<Frame<'p>>,
    on_stack: HashSet<&'p str>,
    registered: HashSet<String>,
    /// Each minted id and the (pack, chainId, version) it was minted for: the slug folds `.`
    /// into `_`, so `q.a.b` and `q.a_b` mint one id, and the second would run the first.
    minted: HashMap<String, (&'p str, &'p str, &'p str)>,
    children: Vec<Child>,
    warnings: Vec<Finding>,
}

impl<'p> Walk<'p, '_> {
    /// Visit each frame's refs in order, then expand it: returns the root's expansion.
    fn run(&mut self) -> Result<Expansion> {
        loop {
            // The root is entered first and returns when it is popped, so a frame is left.
            let frame = self.stack.last_mut().expect("the root frame is popped last");
            if let Some(&r) = frame.refs.get(frame.next) {
                frame.next += 1;
                self.visit(r)?;
                continue;
            }
            let frame = self.stack.pop().expect("the loop holds a frame");
            if let Some(root) = self.finish(frame)? {
                return Ok(root);
            }
        }
    }

    /// Push a chain: the depth bound first, then the cycle check, as the reference does.
    fn enter(&mut self, pack: &'p Pack, at: usize, depth: u32, registers_as: Option<String>) -> Result<()> {
        let chain = &pack.chains[at];
        let id = chain.chain_id();
        let max_depth = self.opts.expand.host.max_depth;
        if depth > max_depth {
            return Err(Error::new(
                code::SUB_CHAIN_MAX_DEPTH_EXCEEDED,
                format!("sub-chain {id} is nested {depth} levels deep; the target host allows {max_depth}"),
            )
            .with("chainId", id)
            .with("maxDepth", max_depth));
        }
        if !self.on_stack.insert(id) {
            return Err(Error::new(
                code::SUB_CHAIN_CYCLE,
                format!("chain {id} composes itself through its sub-chains"),
            )
            .with("chainId", id));
        }
        let mut seen = HashSet::new();
        let refs: Vec<&'p str> = chain
            .nodes()
            .iter()
            .filter_map(|node| node.pointer("/config/subChainRef").and_then(Value::as_str))
            .filter(|r| seen.insert(*r))
            .collect();
        self.stack.push(Frame {
            pack,
            at,
            chain,
            depth,
            refs,
            declared: declared_refs(chain),
            next: 0,
            versions: HashMap::new(),
            registers_as,
        });
        Ok(())
    }

    /// The top frame's ref `r`: resolve it, mint its child id (refusing a collision), and
    /// enter the child unless it is registered already.
    fn visit(&mut self, r: &'p str) -> Result<()> {
        let frame = self.stack.last_mut().expect("a ref is visited from a frame");
        let (child_pack, at) = resolve_ref(frame, r, self.opts.external)?;
        let child = &child_pack.chains[at];
        frame.versions.insert(r, child.version());
        let depth = frame.depth + 1;
        let workflow_id = mint_child_workflow_id(self.opts.tenant, r, child.version());
        let identity = (child_pack.name(), child.chain_id(), child.version());
        match self.minted.get(workflow_id.as_str()) {
            Some(first) if *first != identity => return Err(workflow_id_collision(&workflow_id, *first, identity)),
            Some(_) => {}
            None => _ = self.minted.insert(workflow_id.clone(), identity),
        }
        if !self.registered.contains(&workflow_id) {
            self.enter(child_pack, at, depth, Some(workflow_id))?;
        }
        Ok(())
    }

    /// Expand a chain whose refs are all visited: the root is returned, a child registered.
    fn finish(&mut self, frame: Frame<'p>) -> Result<Option<Expansion>> {
        self.on_stack.remove(frame.chain.chain_id());
        let is_root = frame.registers_as.is_none();
        let opts = &self.opts.expand;
        let chain_opts = ExpandOptions {
            expansion_id: Some(if is_root {
                self.expansion_id.clone()
            } else {
                format!("{}_{}", self.expansion_id, chain_id_slug(frame.chain.chain_id()))
            }),
            taken_ids: if is_root { opts.taken_ids } else { None },
            resolver: opts.resolver,
            parent_compensation: if is_root { opts.parent_compensation } else { None },
            host: opts.host.clone(),
            params_as_given: true,
        };
        let (at, warnings) = preflight_at(frame.pack, frame.chain.chain_id(), Some(frame.at), &chain_opts)?;
        let resolved = Resolved { source: PackSource::Lent(frame.pack), at, values: self.params.clone() };
        let mut exp = expand_resolved(resolved, warnings, &chain_opts)?;
        exp.sub_chain_links = rewrite_refs(&mut exp.nodes, &frame, self.opts.tenant);
        let Some(workflow_id) = frame.registers_as else { return Ok(Some(exp)) };
        warn_unsupplied(frame.chain, &self.params, &mut self.warnings);
        if !is_valid_workflow_id(&workflow_id) {
            self.warnings.push(invalid_child_id(frame.chain, &workflow_id));
        }
        self.warnings.append(&mut exp.warnings);
        self.registered.insert(workflow_id.clone());
        self.children.push(Child { workflow_id, expansion: exp, at: frame.at });
        Ok(None)
    }
}

/// First declaration of each ref in `subChains[]`: string (sibling) or object (external).
fn declared_refs(chain: &Chain) -> HashMap<&str, Option<&Map<String, Value>>> {
    let mut declared = HashMap::new();
    for entry in chain.sub_chains() {
        match entry.get("ref") {
            Some(Value::String(r)) => declared.entry(r.as_str()).or_insert(None),
            Some(Value::Object(o)) => match o.get("chainId").and_then(Value::as_str) {
                Some(r) => declared.entry(r).or_insert(Some(o)),
                None => continue,
            },
            _ => continue,
        };
    }
    declared
}

/// A child workflow id a strictly validating host would reject.
fn invalid_child_id(chain: &Chain, workflow_id: &str) -> Finding {
    Finding::warning(
        code::CHILD_WORKFLOW_ID_INVALID,
        "",
        format!(
            "child workflow id \"{workflow_id}\" does not match the WorkflowDefinition id \
             pattern ^[a-z][a-z0-9_-]*$ (at most 128 characters); a strictly validating host \
             rejects it"
        ),
    )
    .in_chain(chain.chain_id())
    .with("workflowId", workflow_id)
}

/// Two different chains whose child workflow ids are the same.
fn workflow_id_collision(workflow_id: &str, first: (&str, &str, &str), second: (&str, &str, &str)) -> Error {
    let name = |(pack, chain, version): (&str, &str, &str)| format!("{chain}@{version} (pack {pack})");
    Error::new(
        code::SUB_CHAIN_WORKFLOW_ID_COLLISION,
        format!(
            "sub-chains {} and {} both become child workflow \"{workflow_id}\" (the id turns `.` into `_`); \
             one would silently run the other: rename one of the chains",
            name(first),
            name(second)
        ),
    )
    .with("workflowId", workflow_id)
    .with("chainIds", vec![first.1, second.1])
    .with("chainId", second.1)
}

/// The chain a node's `subChainRef` names: declared in `subChains[]`, then a sibling in the
/// same pack (string ref) or a chain of a known pack (external ref).
fn resolve_ref<'p>(frame: &Frame<'p>, r: &str, external: &'p [Pack]) -> Result<(&'p Pack, usize)> {
    let (pack, chain) = (frame.pack, frame.chain);
    let unresolved = |why: String| {
        Error::new(code::SUB_CHAIN_UNRESOLVED, format!("sub-chain \"{r}\" used by chain {}: {why}", chain.chain_id()))
            .with("ref", r)
            .with("chainId", chain.chain_id())
    };
    let declared = frame.declared.get(r).copied();
    match declared {
        None => Err(unresolved("it is not declared in subChains[]".into())),
        Some(None) => pack
            .chain_position(r)
            .map(|at| (pack, at))
            .ok_or_else(|| unresolved(format!("pack {} has no such chain", pack.name()))),
        Some(Some(ext)) => {
            let pack_name = ext.get("packName").and_then(Value::as_str).unwrap_or_default();
            let range_text = ext.get("version").and_then(Value::as_str).unwrap_or_default();
            let range = Range::parse(range_text)
                .map_err(|e| unresolved(format!("its version \"{range_text}\" is not a range: {e}")))?;
            // The range selects the chain's own version; the highest match wins.
            std::iter::once(pack)
                .chain(external)
                .filter(|p| p.kind == PackKind::WorkflowChain && p.name() == pack_name)
                .filter_map(|p| {
                    let at = p.chain_position(r)?;
                    let v = semver::Version::parse(p.chains[at].version()).ok()?;
                    range.matches(&v).then_some((v, p, at))
                })
                .max_by(|a, b| a.0.cmp(&b.0))
                .map(|(_, p, c)| (p, c))
                .ok_or_else(|| unresolved(format!("no loaded pack {pack_name} has it at a version in {range_text}")))
        }
    }
}

/// `config.subChainRef` → `config.workflowId` (the minted child id), as the reference does:
/// the ref is taken after substitution, and an unknown one mints with version `0.0.0`.
/// Returns each distinct id with the declared ref it stands for.
fn rewrite_refs(nodes: &mut [Value], frame: &Frame<'_>, tenant: &str) -> Vec<SubChainLink> {
    let mut links: Vec<SubChainLink> = Vec::new();
    let mut linked = HashSet::new();
    for node in nodes {
        let Some(config) = node.get_mut("config").and_then(Value::as_object_mut) else { continue };
        let Some(Value::String(r)) = config.get("subChainRef") else { continue };
        let id = mint_child_workflow_id(tenant, r, frame.versions.get(r.as_str()).copied().unwrap_or("0.0.0"));
        if linked.insert(id.clone()) {
            let reference = match frame.declared.get(r.as_str()) {
                Some(Some(external)) => Value::Object((*external).clone()),
                _ => Value::String(r.clone()),
            };
            links.push(SubChainLink { workflow_id: id.clone(), reference });
        }
        config.shift_remove("subChainRef");
        config.insert("workflowId".into(), Value::String(id));
    }
    links
}

/// A child is expanded with the parent's values (the reference passes them unchanged);
/// a token naming a value the parent does not have becomes "" there.
fn warn_unsupplied(chain: &Chain, params: &Map<String, Value>, warnings: &mut Vec<Finding>) {
    let mut missing: Vec<&String> = chain.token_uses().keys().filter(|name| !params.contains_key(*name)).collect();
    missing.sort();
    for name in missing {
        warnings.push(
            Finding::warning(
                code::SUB_CHAIN_PARAM_NOT_SUPPLIED,
                "",
                format!(
                    "sub-chain {} reads parameter \"{name}\", which the parent chain does not supply; it expands to \"\"",
                    chain.chain_id()
                ),
            )
            .in_chain(chain.chain_id())
            .with("param", name.as_str()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::HostProfile;
    use crate::pack::{LoadOptions, load_bytes};
    use serde_json::json;
    use std::path::Path;

    /// `n` chains in a line, each composing the next.
    fn line(n: usize) -> Pack {
        let chains: Vec<Value> = (0..n)
            .map(|i| {
                let mut c = json!({"chainId": format!("t.c{i}"), "version": "1.0.0", "label": "c", "description": "d",
                    "parameters": {"type": "object"}, "dag": {"nodes": [{"id": "n", "typeId": "core.noop"}]}});
                if i + 1 < n {
                    c["dag"]["nodes"][0] = json!({"id": "n", "typeId": "core.subWorkflow",
                        "config": {"subChainRef": format!("t.c{}", i + 1)}});
                    c["subChains"] = json!([{"ref": format!("t.c{}", i + 1)}]);
                }
                c
            })
            .collect();
        let m = json!({"name": "vendor.t.line", "version": "1.0.0", "kind": "workflow-chain", "description": "d",
            "engines": {"openwop": ">=1.0.0"}, "chains": chains});
        load_bytes(Path::new("line"), m.to_string().as_bytes(), LoadOptions::default()).unwrap()
    }

    #[test]
    fn deep_nesting_is_walked_without_recursion() {
        // 2,000 levels on a 256 KiB stack: a walk recursing once per level (with an
        // expansion inside each frame) would need several times that.
        let n = 2_000;
        let pack = line(n);
        let tree = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn_scoped(scope, || {
                    let host = HostProfile { sub_chains: true, max_depth: n as u32, ..HostProfile::default() };
                    let opts = TreeOptions {
                        expand: ExpandOptions { expansion_id: Some("x".into()), host, ..Default::default() },
                        tenant: DEFAULT_TENANT,
                        external: &[],
                    };
                    expand_tree(&pack, "t.c0", Map::new(), &opts)
                })
                .unwrap()
                .join()
                .unwrap()
        })
        .unwrap();
        assert_eq!(tree.children.len(), n - 1);
        // Post-order: the deepest chain registers first.
        assert_eq!(tree.children[0].workflow_id, format!("wfc_local__t_c{}__1_0_0", n - 1));
        assert_eq!(tree.children[n - 2].workflow_id, "wfc_local__t_c1__1_0_0");
    }

    #[test]
    fn minted_ids_follow_the_reference_slug() {
        // Worked by hand from the rule: non-[0-9A-Za-z._-] → '_', then '.' → '_'.
        assert_eq!(mint_child_workflow_id("tenant-a", "lesson-batch", "1.0.0"), "wfc_tenant-a__lesson-batch__1_0_0");
        assert_eq!(mint_child_workflow_id("Acme Corp/EU", "a.bC", "1.0.0+b.7"), "wfc_Acme_Corp_EU__a_bC__1_0_0_b_7");
    }

    #[test]
    fn workflow_id_pattern() {
        assert!(is_valid_workflow_id("wfc_local__a_b__1_0_0"));
        assert!(!is_valid_workflow_id("wfc_local__lessonBatch__1_0_0"));
        assert!(!is_valid_workflow_id(&format!("wfc_{}", "a".repeat(125))));
        assert!(!is_valid_workflow_id("_x"));
    }
}

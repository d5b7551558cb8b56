//! Reading manifests from bytes, files and folders, with explicit limits.

use super::parse::parse_json;
use super::{Chain, Pack, PackKind, checks, lint};
use crate::error::{Error, Finding, Result, code};
use crate::schemas::Schema;
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Largest manifest read (the registry caps manifests far lower; this only bounds memory).
pub const MAX_MANIFEST_BYTES: u64 = 16 * 1024 * 1024;
/// Largest fragment accepted; beyond it checks and layout would stop being interactive.
pub const MAX_FRAGMENT_NODES: usize = 100_000;
/// From this manifest size on, the chain-manifest validator is compiled during the parse and
/// the node pass runs beside the schema walk, each on a second thread; below it, starting a
/// thread costs more than it saves.
const PARALLEL_CHECKS_BYTES: usize = 256 * 1024;

/// How many `pack.json` files one folder scan loads at most.
const MAX_PACKS_PER_SCAN: usize = 10_000;

#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions {
    /// Skip the manifest JSON-Schema check (semantic checks still run).
    pub skip_schema: bool,
}

/// Everything a path yielded: packs that parsed (valid or not) and files that did not.
#[derive(Debug, Default)]
pub struct LoadOutcome {
    pub packs: Vec<Pack>,
    pub failures: Vec<Error>,
}

/// Load one manifest from a file: a `pack.json`, or a registry tarball (`.tgz`), whose
/// `pack.json` is read in memory (the pack's `source` stays the tarball).
pub fn load_file(path: &Path, opts: LoadOptions) -> Result<Pack> {
    if crate::tarball::is_tarball_path(path) {
        let archive = crate::tarball::PackArchive::read(path)?;
        let bytes = archive.manifest().ok_or_else(|| {
            Error::new(code::PACK_NOT_FOUND, format!("{} holds no pack.json", path.display()))
                .with("path", path.display().to_string())
        })?;
        return load_bytes(path, bytes, opts);
    }
    let bytes = crate::fsio::read_limited(path, MAX_MANIFEST_BYTES, code::PACK_MANIFEST_INVALID)?;
    load_bytes(path, &bytes, opts)
}

/// Load one manifest from bytes; `source` labels it in messages.
pub fn load_bytes(source: &Path, bytes: &[u8], opts: LoadOptions) -> Result<Pack> {
    let large = bytes.len() >= PARALLEL_CHECKS_BYTES;
    if large && !opts.skip_schema {
        compile_chain_schema_aside();
    }
    let crate::fsio::json::Document { value: manifest, repeated_names } = parse_json(source, bytes)?;
    let mut findings = Vec::new();
    if repeated_names && manifest.is_object() {
        findings.extend(repeated_name_findings(bytes));
    }
    // Only a signed manifest is read again (to verify it); the digest spares that re-read a
    // parse and a deep comparison.
    let sha256 = manifest.get("signing").is_some().then(|| {
        use sha2::{Digest, Sha256};
        Sha256::digest(bytes).into()
    });
    load_parsed(source, Arc::new(manifest), findings, large, sha256, opts)
}

/// Load a manifest already in memory (an edited draft), checked as [`load_bytes`] checks
/// the same document read from a file, without writing it out and parsing it again: the
/// pack reads the very value given (shared, not copied).
pub fn load_value(source: &Path, manifest: Arc<Value>, opts: LoadOptions) -> Result<Pack> {
    let large = elements(&manifest) * 128 >= PARALLEL_CHECKS_BYTES;
    if large && !opts.skip_schema {
        compile_chain_schema_aside();
    }
    load_parsed(source, manifest, Vec::new(), large, None, opts)
}

/// Node and edge elements over a chain manifest's chains: what most of a large one is.
fn elements(manifest: &Value) -> usize {
    super::array_at(manifest, "chains")
        .iter()
        .filter_map(|c| c.get("dag"))
        .map(|dag| super::array_at(dag, "nodes").len() + super::array_at(dag, "edges").len())
        .sum()
}

/// Compiling the chain-manifest validator (once per process) needs nothing from the
/// file, so on the first large one it is done on another thread while the file is
/// parsed. No thread (the system refused one) only means compiling it later, here.
fn compile_chain_schema_aside() {
    static COMPILING: std::sync::Once = std::sync::Once::new();
    COMPILING.call_once(|| _ = std::thread::Builder::new().spawn(|| _ = Schema::ChainManifest.validator()));
}

/// The checks of a parsed manifest. `large`: the checks run on two threads; `sha256`: the
/// digest of the bytes a signed manifest was parsed from.
fn load_parsed(
    source: &Path,
    mut manifest: Arc<Value>,
    mut findings: Vec<Finding>,
    large: bool,
    sha256: Option<[u8; 32]>,
    opts: LoadOptions,
) -> Result<Pack> {
    let Some(obj) = manifest.as_object() else {
        return Err(Error::new(
            code::INVALID_MANIFEST,
            format!("{}: a manifest is a JSON object, found {}", source.display(), json_kind(&manifest)),
        )
        .with("path", ""));
    };
    let kind = manifest_kind(source, obj)?;

    kind_findings(&kind, obj, &mut findings);
    unsignable_number_findings(&manifest, &mut findings);
    if kind == PackKind::WorkflowChain {
        check_fragment_sizes(&manifest)?;
    }
    let schema = match kind {
        _ if opts.skip_schema => None,
        PackKind::WorkflowChain => Some(Schema::ChainManifest),
        PackKind::Node => Some(Schema::NodeManifest),
        PackKind::Other(_) => None,
    };
    // v2 manifests (interop §3) are checked by their own rules; the v1 schema then sees a
    // view without the v2-only spellings. A manifest no one else holds is made that view
    // itself, validated, and put back (a copy was one more whole manifest at the peak);
    // the schema walk then runs before the semantic checks instead of beside them, which
    // must read the manifest as written.
    let mut v2_view = None;
    let mut schema_found = None;
    if super::v2::is_v2(&manifest) {
        let in_place = Arc::get_mut(&mut manifest)
            .and_then(|m| super::v2::view_in_place(m, &mut findings).map(|edits| (m, edits)));
        match in_place {
            Some((m, edits)) => {
                schema_found = Some(schema_findings(schema, m));
                super::v2::restore(m, edits);
            }
            None => v2_view = Some(super::v2::check(&manifest, &mut findings)),
        }
    }
    let chains: Vec<Chain> = match kind {
        PackKind::WorkflowChain => super::array_at(&manifest, "chains")
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_object())
            .map(|(i, _)| Chain::in_manifest(i, Arc::clone(&manifest)))
            .collect(),
        _ => Vec::new(),
    };
    match schema_found {
        Some(found) => {
            findings.extend(found);
            findings.extend(semantic_findings(&chains));
        }
        None => {
            let instance = v2_view.as_ref().unwrap_or(&manifest);
            findings.extend(check_manifest(schema, instance, &chains, large));
        }
    }
    drop(v2_view);
    if kind == PackKind::WorkflowChain {
        prefer_specific_codes(&mut findings);
    }

    let loaded_from = sha256.map(|sha256| super::LoadedFrom { sha256, manifest: Arc::downgrade(&manifest) });
    Ok(Pack {
        source: source.to_path_buf(),
        manifest,
        kind,
        chains,
        findings,
        chain_index: std::sync::OnceLock::new(),
        loaded_from,
    })
}

/// The manifest's `kind`: absent is a node pack; a kind that is not a string is refused.
fn manifest_kind(source: &Path, obj: &serde_json::Map<String, Value>) -> Result<PackKind> {
    Ok(match obj.get("kind") {
        None => PackKind::Node,
        Some(Value::String(k)) if k == "node" => PackKind::Node,
        Some(Value::String(k)) if k == "workflow-chain" => PackKind::WorkflowChain,
        Some(Value::String(k)) => PackKind::Other(k.clone()),
        Some(other) => {
            return Err(Error::new(
                code::PACK_KIND_INVALID,
                format!("{}: `kind` must be a string, found {}", source.display(), json_kind(other)),
            )
            .with("path", "/kind"));
        }
    })
}

/// Numbers signing refuses (JCS cannot carry them exactly) are said at load, not first at
/// `pack sign`; the manifest keeps their text. Past the cap they are counted in one more
/// finding, at the root.
fn unsignable_number_findings(manifest: &Value, findings: &mut Vec<Finding>) {
    let (listed, total) = crate::jcs::first_unsignable_numbers(manifest, crate::error::MAX_LISTED_PER_CODE);
    let mut cap = crate::error::FindingCap::default();
    for r in listed {
        let f = Finding::warning(
            code::NUMBER_NOT_SIGNABLE,
            r.pointer,
            format!("{}; `pack sign` and `pack publish` refuse it", r.message),
        );
        cap.push(findings, f);
    }
    for _ in crate::error::MAX_LISTED_PER_CODE..total {
        cap.admit(code::NUMBER_NOT_SIGNABLE, crate::error::Severity::Warning);
    }
    findings.extend(cap.omitted(""));
}

/// Refuse a chain with more nodes than an expansion may hold.
fn check_fragment_sizes(manifest: &Value) -> Result<()> {
    let chains = super::array_at(manifest, "chains").iter().enumerate().filter(|(_, c)| c.is_object());
    for (i, chain) in chains {
        let nodes = chain.get("dag").map(|d| super::array_at(d, "nodes")).unwrap_or_default().len();
        if nodes > MAX_FRAGMENT_NODES {
            let id = super::str_at(chain, "chainId");
            return Err(Error::new(
                code::INVALID_MANIFEST,
                format!("chain {id} has {nodes} nodes; the limit is {MAX_FRAGMENT_NODES}"),
            )
            .with("path", format!("/chains/{i}/dag/nodes"))
            .with("limit", MAX_FRAGMENT_NODES));
        }
    }
    Ok(())
}

/// How many repeated member names are listed one by one.
const MAX_REPEATED_NAME_FINDINGS: usize = 100;

/// A warning per member whose name its object already has: this reader keeps the last
/// value, others keep the first or refuse, and signing refuses the manifest (a canonical
/// form has no room for two members of one name), so `validate` says so first.
fn repeated_name_findings(bytes: &[u8]) -> Vec<Finding> {
    crate::fsio::json::repeated_member_pointers(bytes, MAX_REPEATED_NAME_FINDINGS)
        .into_iter()
        .map(|pointer| {
            let name = pointer.rsplit('/').next().unwrap_or_default().replace("~1", "/").replace("~0", "~");
            Finding::warning(
                code::DUPLICATE_MEMBER_NAME,
                pointer.as_str(),
                format!(
                    "member \"{name}\" appears more than once in its object; chainsmith reads the last value, \
                     other readers may read the first, and `pack sign` and `pack publish` refuse the manifest: \
                     keep one"
                ),
            )
            .with("name", name)
        })
        .collect()
}

/// The schema's findings on `instance`, then the semantic checks' and token lints' on
/// `chains` (empty for packs that are not workflow-chain packs).
fn check_manifest(schema: Option<Schema>, instance: &Value, chains: &[Chain], parallel: bool) -> Vec<Finding> {
    let schema_findings = || schema_findings(schema, instance);
    let semantic_findings = || semantic_findings(chains);
    // On a large manifest the schema walk runs on a second thread beside the semantic
    // checks (whose pass over the nodes, [`Chain::scan`], shares its work with a thread of
    // its own). Without a second thread, all run here.
    let (mut found, semantic) = std::thread::scope(|scope| {
        let schema =
            parallel.then(|| std::thread::Builder::new().spawn_scoped(scope, schema_findings)).and_then(Result::ok);
        let semantic = semantic_findings();
        let schema = match schema {
            Some(thread) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => schema_findings(),
        };
        (schema, semantic)
    });
    found.extend(semantic);
    found
}

/// The schema's findings on `instance`.
fn schema_findings(schema: Option<Schema>, instance: &Value) -> Vec<Finding> {
    let Some(schema) = schema else { return Vec::new() };
    schema
        .violations(instance)
        .into_iter()
        .map(|v| Finding::error(code::INVALID_MANIFEST, v.pointer, v.message).with("keyword", v.keyword))
        .collect()
}

/// The semantic checks' and token lints' findings on `chains`.
fn semantic_findings(chains: &[Chain]) -> Vec<Finding> {
    let mut found = Vec::new();
    checks::check_pack(chains, &mut found);
    for chain in chains {
        lint::lint_chain(chain, &mut found);
    }
    found
}

/// A semantic check with its own spec code says more than the schema keyword that rejects the
/// same spot: `config.workflowId` is `chain_fragment_pins_workflow_id`, not the schema's
/// `{"required":["workflowId"]} is not allowed` at `config`. A schema error is dropped when a
/// specific error points at the same place, or (for a `not`, which forbids a member) at one
/// of its members.
fn prefer_specific_codes(findings: &mut Vec<Finding>) {
    // The spec's load-time codes (chain-packs §2.7 and the error table); chainsmith's own
    // codes do not displace the schema's `invalid_manifest`.
    const SPECIFIC: [&str; 7] = [
        code::CHAIN_FRAGMENT_PINS_WORKFLOW_ID,
        code::CHAIN_IRREVERSIBLE_WITH_COMPENSATION,
        code::CHAIN_EDGE_CONDITION_INVALID,
        code::SUB_CHAIN_UNRESOLVED,
        code::SUB_CHAIN_CYCLE,
        code::VARIABLE_UNDECLARED,
        code::PRODUCED_VAR_PRODUCER_UNKNOWN,
    ];
    let mut same = std::collections::HashSet::new();
    let mut parents = std::collections::HashSet::new();
    for f in findings.iter().filter(|f| f.is_error() && SPECIFIC.contains(&f.code)) {
        same.insert(f.pointer.clone());
        if let Some((parent, _)) = f.pointer.rsplit_once('/') {
            parents.insert(parent.to_owned());
        }
    }
    if same.is_empty() {
        return;
    }
    findings.retain(|f| {
        let keyword = f.details.get("keyword").and_then(Value::as_str);
        let covered = keyword.is_some()
            && (same.contains(&f.pointer) || (keyword == Some("not") && parents.contains(&f.pointer)));
        !(f.code == code::INVALID_MANIFEST && covered)
    });
}

/// The kind discriminator rules (chain-packs §2.1).
fn kind_findings(kind: &PackKind, obj: &serde_json::Map<String, Value>, findings: &mut Vec<Finding>) {
    match kind {
        PackKind::WorkflowChain => {
            for key in ["nodes", "agents", "runtime"] {
                if obj.contains_key(key) {
                    findings.push(Finding::error(
                        code::PACK_KIND_INVALID,
                        format!("/{key}"),
                        format!("a workflow-chain pack must not carry `{key}`"),
                    ));
                }
            }
            if !obj.get("chains").is_some_and(Value::is_array) {
                findings.push(Finding::error(
                    code::INVALID_MANIFEST,
                    "/chains",
                    "a workflow-chain pack needs a `chains` array",
                ));
            }
        }
        PackKind::Node => {
            if obj.contains_key("chains") {
                findings.push(Finding::error(
                    code::PACK_KIND_INVALID,
                    "/chains",
                    "`chains` belongs to kind \"workflow-chain\"; this manifest is a node pack (kind absent or \"node\")",
                ));
            }
        }
        PackKind::Other(k) => findings.push(Finding::warning(
            code::PACK_KIND_INVALID,
            "/kind",
            format!("kind \"{k}\" is not a node or workflow-chain pack; chainsmith ignores it"),
        )),
    }
}

/// Load a `pack.json` file or a `.tgz`, or every `pack.json` and `.tgz` under a folder
/// (recursively; the OpenWOP install cache keeps `<name>/<version>/<version>.tgz`).
pub fn load_path(path: &Path, opts: LoadOptions) -> LoadOutcome {
    let mut out = LoadOutcome::default();
    match std::fs::metadata(path) {
        Err(e) => out.failures.push(Error::io(path, &e)),
        Ok(meta) if meta.is_dir() => {
            let mut files = Vec::new();
            find_manifests(path, &mut files, 0, &mut HashSet::new());
            if files.is_empty() {
                out.failures.push(
                    Error::new(code::PACK_NOT_FOUND, format!("no pack.json under {}", path.display()))
                        .with("path", path.display().to_string()),
                );
            }
            files.sort();
            files.truncate(MAX_PACKS_PER_SCAN);
            for file in files {
                match load_file(&file, opts) {
                    Ok(p) => out.packs.push(p),
                    Err(e) => out.failures.push(e),
                }
            }
        }
        Ok(_) => match load_file(path, opts) {
            Ok(p) => out.packs.push(p),
            Err(e) => out.failures.push(e),
        },
    }
    out
}

/// Load exactly one workflow-chain pack from a file or folder.
pub fn load_one(path: &Path, opts: LoadOptions) -> Result<Pack> {
    let mut out = load_path(path, opts);
    if let Some(e) = out.failures.into_iter().next() {
        return Err(e);
    }
    match out.packs.len() {
        1 if out.packs[0].kind != PackKind::WorkflowChain => {
            let pack = &out.packs[0];
            Err(Error::new(
                code::PACK_KIND_INVALID,
                format!(
                    "{} is a {} pack; only workflow-chain packs hold chains",
                    pack.source.display(),
                    pack.kind.as_str()
                ),
            )
            .with("kind", pack.kind.as_str())
            .with("path", pack.source.display().to_string()))
        }
        1 => Ok(out.packs.remove(0)),
        0 => Err(Error::new(code::PACK_NOT_FOUND, format!("no pack at {}", path.display()))
            .with("path", path.display().to_string())),
        n => {
            // A folder of several packs: take the one that is a chain pack, if unique.
            let mut chains: Vec<Pack> = out.packs.into_iter().filter(|p| p.kind == PackKind::WorkflowChain).collect();
            if chains.len() == 1 {
                Ok(chains.remove(0))
            } else {
                Err(Error::new(
                    code::INVALID_REQUEST,
                    format!("{} holds {n} packs; name the pack.json to expand", path.display()),
                )
                .with("path", path.display().to_string()))
            }
        }
    }
}

fn find_manifests(dir: &Path, out: &mut Vec<PathBuf>, depth: usize, visited: &mut HashSet<PathBuf>) {
    // Absurdly deep trees end the walk instead of the process; each folder is entered once
    // by its canonical path, so a symlink loop (or two links to one folder) ends it too.
    if depth > 32 || out.len() >= MAX_PACKS_PER_SCAN {
        return;
    }
    if !std::fs::canonicalize(dir).is_ok_and(|real| visited.insert(real)) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Ok(mut ft) = entry.file_type() else { continue };
        let path = entry.path();
        if ft.is_symlink() {
            // A linked pack folder is scanned like a real one.
            let Ok(meta) = std::fs::metadata(&path) else { continue };
            ft = meta.file_type();
        }
        if ft.is_dir() {
            let name = entry.file_name();
            if name == ".git" || name == "node_modules" || name == "target" {
                continue;
            }
            find_manifests(&path, out, depth + 1, visited);
        } else if entry.file_name() == "pack.json" || crate::tarball::is_tarball_path(&path) {
            out.push(path);
        }
    }
}

/// How a JSON value is named in messages ("an array", "null", …).
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Pack> {
        load_bytes(Path::new("t/pack.json"), text.as_bytes(), LoadOptions::default())
    }

    fn minimal_chain_pack() -> Value {
        serde_json::json!({
            "name": "vendor.test.pack", "version": "1.0.0", "kind": "workflow-chain",
            "engines": {"openwop": ">=1.0.0"},
            "chains": [{"chainId": "t.one", "version": "1.0.0", "label": "One", "description": "d",
                "parameters": {"type": "object", "properties": {}},
                "dag": {"nodes": [{"id": "a", "typeId": "core.identity"}], "edges": []}}]
        })
    }

    #[test]
    fn unparseable_json_reports_line_and_column() {
        let err = load("{\n  \"name\": ,\n}").unwrap_err();
        assert_eq!(err.code, code::PACK_MANIFEST_INVALID);
        assert_eq!(err.details["line"], 2);
        assert!(err.details["column"].as_u64().unwrap() > 0);
    }

    #[test]
    fn root_must_be_object() {
        assert_eq!(load("[1,2]").unwrap_err().code, code::INVALID_MANIFEST);
        assert_eq!(load("\"x\"").unwrap_err().code, code::INVALID_MANIFEST);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(load(&deep).unwrap_err().code, code::PACK_MANIFEST_INVALID);
    }

    #[test]
    fn minimal_chain_pack_is_valid() {
        let p = load(&minimal_chain_pack().to_string()).unwrap();
        assert_eq!(p.kind, PackKind::WorkflowChain);
        assert!(p.is_valid(), "{:?}", p.findings);
        assert_eq!(p.chains.len(), 1);
    }

    #[test]
    fn mixed_kinds_are_pack_kind_invalid() {
        let mut m = minimal_chain_pack();
        m["nodes"] = serde_json::json!([]);
        let p = load(&m.to_string()).unwrap();
        assert!(p.errors().any(|f| f.code == code::PACK_KIND_INVALID && f.pointer == "/nodes"));

        let mut m = minimal_chain_pack();
        m.as_object_mut().unwrap().remove("kind");
        let p = load(&m.to_string()).unwrap();
        assert_eq!(p.kind, PackKind::Node);
        assert!(p.errors().any(|f| f.code == code::PACK_KIND_INVALID && f.pointer == "/chains"));
    }

    #[test]
    fn chain_kind_without_chains_is_invalid_manifest() {
        let mut m = minimal_chain_pack();
        m.as_object_mut().unwrap().remove("chains");
        let p = load(&m.to_string()).unwrap();
        assert!(p.errors().any(|f| f.code == code::INVALID_MANIFEST && f.pointer == "/chains"));
    }

    #[test]
    fn schema_errors_carry_pointer_and_keyword() {
        let mut m = minimal_chain_pack();
        m["chains"][0]["chainId"] = serde_json::json!("Bad Id");
        m["version"] = serde_json::json!("one");
        let p = load(&m.to_string()).unwrap();
        let errs: Vec<_> = p.errors().filter(|f| f.code == code::INVALID_MANIFEST).collect();
        assert!(errs.iter().any(|f| f.pointer == "/chains/0/chainId" && f.details["keyword"] == "pattern"));
        assert!(errs.iter().any(|f| f.pointer == "/version" && f.details["keyword"] == "pattern"));
    }

    #[test]
    fn v2_manifests_accept_pins_and_extensions_and_keep_the_v1_rules_otherwise() {
        let mut m = minimal_chain_pack();
        m["signing"] = serde_json::json!({"keyId": "openwop-team-1", "scheme": "ed25519-canonical-json"});
        m["chains"][0]["dag"]["nodes"][0]["typeId"] = serde_json::json!("core.identity@1.0.0");
        m["x-review"] = serde_json::json!({"by": "me"});
        m["chains"][0]["openwop-ui"] = serde_json::json!(true);
        let p = load(&m.to_string()).unwrap();
        assert!(p.is_valid(), "{:?}", p.findings);
        assert!(p.warnings().next().is_none(), "{:?}", p.findings);
        // The same pins and extension keys are schema errors in a v1 manifest.
        m["signing"] = serde_json::json!({"method": "manual", "publicKeyRef": "k.pem", "signatureRef": "s"});
        let v1 = load(&m.to_string()).unwrap();
        let bad: Vec<_> = v1.errors().map(|f| f.pointer.as_str()).collect();
        assert!(bad.contains(&"") && bad.contains(&"/chains/0/dag/nodes/0/typeId"), "{bad:?}");
        m["signing"] = serde_json::json!({"method": "bogus"});
        assert!(load(&m.to_string()).unwrap().errors().any(|f| f.pointer.starts_with("/signing")));
    }

    /// A v2 manifest is made its own v1 view in place when no one else holds it, and put
    /// back exactly (member order included); the findings are those of the copied view.
    #[test]
    fn a_v2_view_made_in_place_is_put_back_and_finds_what_the_copy_finds() {
        for at in [0, 2, 5] {
            let mut m = minimal_chain_pack();
            m["chains"][0]["dag"]["nodes"] = serde_json::json!([
                {"id": "a", "typeId": "core.identity@1.0.0"},
                {"id": "b", "typeId": "core.identity", "compensation": {"nodeTypeId": "core.undo@x"}}]);
            m["chains"][0]["chainId"] = serde_json::json!("v2:chain~ok");
            m["version"] = serde_json::json!("one");
            let mut members: Vec<(String, Value)> = m.as_object().unwrap().clone().into_iter().collect();
            let signing = serde_json::json!({"keyId": "k-1", "scheme": "ed25519-canonical-json", "extra": 1});
            members.insert(at.min(members.len()), ("signing".into(), signing));
            let text = serde_json::to_string(&serde_json::Map::from_iter(members)).unwrap();
            let in_place = load(&text).unwrap();
            assert_eq!(serde_json::to_string(&*in_place.manifest).unwrap(), text, "signing at {at}");
            // Held elsewhere too, so the view is a copy.
            let shared = Arc::new(crate::fsio::json::from_str(&text).unwrap());
            let _other = Arc::clone(&shared);
            let copied = load_value(Path::new("t/pack.json"), shared, LoadOptions::default()).unwrap();
            assert_eq!(in_place.findings, copied.findings, "signing at {at}");
            assert!(in_place.errors().any(|f| f.pointer == "/signing/extra"), "{:?}", in_place.findings);
            assert!(in_place.errors().any(|f| f.pointer == "/version"), "{:?}", in_place.findings);
        }
    }

    #[test]
    fn tarballs_load_in_memory_and_folder_scans_find_them() {
        let dir = tempfile::tempdir().unwrap();
        let files = [("pack.json".to_owned(), minimal_chain_pack().to_string().into_bytes())].into_iter().collect();
        let tgz = dir.path().join("cache/vendor.test.pack/1.0.0/1.0.0.tgz");
        std::fs::create_dir_all(tgz.parent().unwrap()).unwrap();
        std::fs::write(&tgz, crate::tarball::build(&files).unwrap()).unwrap();
        let p = load_file(&tgz, LoadOptions::default()).unwrap();
        assert_eq!((p.name(), p.source.as_path()), ("vendor.test.pack", tgz.as_path()));
        let out = load_path(&dir.path().join("cache"), LoadOptions::default());
        assert_eq!(out.packs.len(), 1);
        std::fs::write(&tgz, b"garbage").unwrap();
        assert_eq!(load_file(&tgz, LoadOptions::default()).unwrap_err().code, code::PACK_MANIFEST_INVALID);
    }

    #[test]
    fn skip_schema_skips_only_the_schema() {
        let mut m = minimal_chain_pack();
        m["chains"][0]["dag"]["nodes"][0]["config"] = serde_json::json!({"workflowId": "w"});
        let p = load_bytes(Path::new("p"), m.to_string().as_bytes(), LoadOptions { skip_schema: true }).unwrap();
        assert!(p.errors().all(|f| f.code != code::INVALID_MANIFEST));
        assert!(p.errors().any(|f| f.code == code::CHAIN_FRAGMENT_PINS_WORKFLOW_ID));
    }

    #[test]
    fn folders_are_scanned_recursively_and_bad_files_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("a/b/pack.json"), minimal_chain_pack().to_string()).unwrap();
        std::fs::create_dir_all(dir.path().join("c")).unwrap();
        std::fs::write(dir.path().join("c/pack.json"), "{").unwrap();
        let out = load_path(dir.path(), LoadOptions::default());
        assert_eq!(out.packs.len(), 1);
        assert_eq!(out.failures.len(), 1);
        assert_eq!(out.failures[0].code, code::PACK_MANIFEST_INVALID);
    }

    #[cfg(unix)]
    #[test]
    fn linked_pack_folders_are_scanned_and_link_loops_end() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("elsewhere/p");
        std::fs::create_dir_all(&real).unwrap();
        std::fs::write(real.join("pack.json"), minimal_chain_pack().to_string()).unwrap();
        let scanned = dir.path().join("scanned");
        std::fs::create_dir_all(&scanned).unwrap();
        std::os::unix::fs::symlink(&real, scanned.join("linked")).unwrap();
        // A loop: the scanned folder links to itself, and to the linked folder a second time.
        std::os::unix::fs::symlink(&scanned, scanned.join("again")).unwrap();
        std::os::unix::fs::symlink(&real, scanned.join("twice")).unwrap();
        let out = load_path(&scanned, LoadOptions::default());
        assert!(out.failures.is_empty(), "{:?}", out.failures);
        assert_eq!(out.packs.len(), 1, "the linked pack, found once");
    }

    #[test]
    fn missing_path_and_folder_as_file() {
        let out = load_path(Path::new("/definitely/not/here"), LoadOptions::default());
        assert_eq!(out.failures[0].code, code::PACK_NOT_FOUND);
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load_file(dir.path(), LoadOptions::default()).unwrap_err().code, code::INVALID_REQUEST);
    }
}

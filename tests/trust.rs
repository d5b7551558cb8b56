//! Trust and resolution end to end: the corpus node packs as a catalog against every
//! corpus chain; host-profile refusals; signed chain packs; lockfile resolution against
//! temporary registries.

use chainsmith_test_env::needs;
mod common;

use common::cli::{envelope, ok_json, run};

use chainsmith::catalog::{
    Catalog, HostProfile, Lockfile, Requirement, ResolveOptions, SignatureStatus, Trust, TrustedKeys, TypeResolver,
    resolve,
};
use chainsmith::error::{Severity, code};
use chainsmith::expand::{ExpandOptions, expand};
use chainsmith::pack::{LoadOptions, Pack, PackKind, load_file, load_path};
use ed25519_dalek::pkcs8::EncodePublicKey;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn chain_packs(corpus: &Path) -> Vec<Pack> {
    let mut packs = load_path(&corpus.join("registry/packs"), LoadOptions::default()).packs;
    packs.extend(load_path(&corpus.join("examples"), LoadOptions::default()).packs);
    packs.retain(|p| p.kind == PackKind::WorkflowChain);
    packs
}

#[needs(corpus)]
#[test]
fn corpus_node_packs_resolve_corpus_chains() {
    let corpus = common::corpus_dir();
    let catalog = Catalog::load(&[corpus.join("registry/packs")]);
    assert_eq!(catalog.packs().len(), common::corpus_count("nodePacks"), "node packs catalogued");
    assert_eq!(catalog.len(), common::corpus_count("nodeTypeIds"), "typeIds catalogued");
    // Real manifests carry schema errors (e.g. category "flow"): reported, types still usable.
    let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
    for f in catalog.findings() {
        assert_eq!(f.severity, Severity::Warning, "{f}");
        *by_code.entry(f.code).or_default() += 1;
    }
    eprintln!("catalog findings by code: {by_code:?}");
    assert_eq!(by_code.get(code::NODE_SCHEMA_UNAVAILABLE), None, "every schema ref resolves");
    assert_eq!(by_code.get(code::TYPEID_DUPLICATE), None);

    // Every real config schema compiles (an unusable one reports keyword `$schema`).
    for node in catalog.node_types() {
        let v = catalog.check_config(node.type_id(), &json!({}));
        assert!(v.iter().all(|v| v.keyword != "$schema"), "{}: {v:?}", node.type_id());
    }
    let fetch = catalog.ports("core.openwop.http.fetch").unwrap();
    assert!(!fetch.inputs.is_empty() && !fetch.outputs.is_empty());
    assert!(catalog.is_side_effectful("core.openwop.http.fetch"));

    let packs = chain_packs(&corpus);
    let mut total = 0;
    let mut resolving = 0;
    let mut from_examples = (0, 0);
    let mut unresolved: BTreeMap<String, usize> = BTreeMap::new();
    let mut reserved_only: BTreeMap<String, usize> = BTreeMap::new();
    for pack in &packs {
        let example = pack.source.starts_with(corpus.join("examples"));
        for (r, chain) in catalog.resolution(pack).into_iter().zip(&pack.chains) {
            total += 1;
            if r.resolves() {
                resolving += 1;
            }
            if example {
                from_examples.0 += usize::from(r.resolves());
                from_examples.1 += 1;
            }
            for t in r.unresolved {
                *unresolved.entry(t).or_default() += 1;
            }
            for t in chain.type_ids().into_iter().filter(|t| t.starts_with("core.") && catalog.node_type(t).is_none()) {
                *reserved_only.entry(t.to_owned()).or_default() += 1;
            }
        }
    }
    eprintln!(
        "chains fully resolving against the 85 corpus node packs: {resolving} of {total} \
         (registry {} of {}, examples {} of {})",
        resolving - from_examples.0,
        total - from_examples.1,
        from_examples.0,
        from_examples.1
    );
    eprintln!("core.* typeIds no catalogued pack provides (resolve as reserved ids): {reserved_only:?}");
    eprintln!("{} distinct typeIds do not resolve (typeId: chains using it):", unresolved.len());
    for (t, n) in &unresolved {
        eprintln!("  {t}: {n}");
    }
    assert_eq!(total, common::corpus_count("chains"), "167 registry chains + 4 example chains");
    assert_eq!(resolving, common::corpus_count("chainsResolving"));
    assert_eq!(unresolved.len(), common::corpus_count("unresolvedTypeIds"));
    // core.* ids always resolve, catalogued or not.
    assert!(unresolved.keys().all(|t| !t.starts_with("core.")));
    assert!(catalog.resolves("core.approvalGate"));
}

#[needs(corpus)]
#[test]
fn corpus_expansions_are_checked_against_node_schemas() {
    let corpus = common::corpus_dir();
    let catalog = Catalog::load(&[corpus.join("registry/packs")]);
    let packs = chain_packs(&corpus);
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    let mut expanded = 0;
    for vector in common::files_under(&corpus.join("vectors"), "json") {
        let v: Value = serde_json::from_slice(&std::fs::read(&vector).unwrap()).unwrap();
        let manifest = corpus.join(v["pack"].as_str().unwrap());
        let Some(pack) = packs.iter().find(|p| p.source == manifest) else { continue };
        let opts = ExpandOptions {
            expansion_id: Some(v["expansionId"].as_str().unwrap().to_owned()),
            params_as_given: true,
            host: HostProfile::permissive(),
            ..Default::default()
        };
        let params = v["params"].as_object().cloned().unwrap_or_default();
        let exp = expand(pack, v["chainId"].as_str().unwrap(), params, &opts).unwrap();
        expanded += 1;
        for f in catalog.check_expansion(&exp) {
            assert_eq!(f.severity, Severity::Warning);
            assert!(f.pointer.starts_with("/nodes/") || f.pointer.starts_with("/edges/"), "{f}");
            *tally.entry(f.code).or_default() += 1;
        }
    }
    eprintln!("{expanded} corpus expansions checked; findings by code: {tally:?}");
    assert_eq!(expanded, common::corpus_count("vectors"));
    // Real chains feed catalogued nodes config their schemas refuse, and wire some
    // undeclared ports (e.g. `_order`): both must surface.
    assert!(tally.get(code::NODE_CONFIG_INVALID).is_some_and(|n| *n > 0));
    assert!(tally.get(code::EDGE_PORT_UNKNOWN).is_some_and(|n| *n > 0));
}

// ---------------------------------------------------------------------------------------
// Host profile and signatures, through the Trust policy.

fn write_chain_pack(dir: &Path, chain: Value, signing: Option<Value>) -> PathBuf {
    let mut m = json!({"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain",
        "engines": {"openwop": ">=1.0.0"}, "chains": [chain]});
    if let Some(s) = signing {
        m["signing"] = s;
    }
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("pack.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    path
}

fn simple_chain() -> Value {
    json!({"chainId": "acme.c", "version": "1.0.0", "label": "C", "description": "d",
        "parameters": {"type": "object", "properties": {"to": {"type": "string"}}},
        "dag": {"nodes": [{"id": "a", "typeId": "core.identity", "config": {"to": "{{params.to}}"}}]}})
}

fn blocking_codes(trust: &Trust, pack: &Pack) -> Vec<&'static str> {
    trust.check_chain(pack, "acme.c").blocking().map(|f| f.code).collect()
}

#[test]
fn each_host_profile_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let conservative = Trust::default();
    let permissive = Trust { host: HostProfile::permissive(), ..Default::default() };

    let mut sub = simple_chain();
    sub["subChains"] = json!([{"ref": {"packName": "vendor.acme.other", "chainId": "x.y", "version": "1.0.0"}}]);
    let pack = load_file(&write_chain_pack(&dir.path().join("sub"), sub, None), LoadOptions::default()).unwrap();
    assert_eq!(blocking_codes(&conservative, &pack), [code::SUB_CHAIN_UNSUPPORTED]);
    assert!(blocking_codes(&permissive, &pack).is_empty());

    let mut comp = simple_chain();
    comp["compensation"] = json!({"triggers": ["node-failure"]});
    let pack = load_file(&write_chain_pack(&dir.path().join("comp"), comp, None), LoadOptions::default()).unwrap();
    let no_comp = Trust { host: HostProfile { compensation: false, ..HostProfile::default() }, ..Default::default() };
    let report = no_comp.check_chain(&pack, "acme.c");
    let refusal = report.refusal().unwrap();
    assert_eq!(refusal.code, code::CAPABILITY_REQUIRED);
    assert_eq!(refusal.details["requiredCapability"], "compensation");

    let mut sensitive = simple_chain();
    sensitive["parameters"]["properties"]["to"]["x-openwop-sensitive"] = json!(true);
    let pack = load_file(&write_chain_pack(&dir.path().join("sens"), sensitive, None), LoadOptions::default()).unwrap();
    assert_eq!(blocking_codes(&conservative, &pack), [code::SENSITIVE_PARAM_NOT_DEFERRABLE]);
}

fn pem(k: &SigningKey) -> String {
    k.verifying_key().to_public_key_pem(LineEnding::LF).unwrap()
}

/// A chain pack signed with `k` (raw 64-byte signature), loaded back.
fn signed(dir: &Path, k: &SigningKey) -> Pack {
    let signing = json!({"method": "manual", "publicKeyRef": "keys/acme.pem", "signatureRef": "pack.json.sig"});
    let path = write_chain_pack(dir, simple_chain(), Some(signing));
    std::fs::create_dir_all(dir.join("keys")).unwrap();
    std::fs::write(dir.join("keys/acme.pem"), pem(k)).unwrap();
    std::fs::write(dir.join("pack.json.sig"), k.sign(&std::fs::read(&path).unwrap()).to_bytes()).unwrap();
    load_file(&path, LoadOptions::default()).unwrap()
}

#[test]
fn signed_chain_packs_under_the_trust_policy() {
    let root = tempfile::tempdir().unwrap();
    let key = SigningKey::from_bytes(&rand::random::<[u8; 32]>());
    let keys_dir = root.path().join("trusted");
    std::fs::create_dir(&keys_dir).unwrap();
    std::fs::write(keys_dir.join("acme.pem"), pem(&key)).unwrap();
    let trusted = TrustedKeys::load(&keys_dir).unwrap();
    let strict = Trust { trusted_keys: trusted.clone(), require_signed: true, ..Default::default() };

    // valid + trusted
    let pack = signed(&root.path().join("ok"), &key);
    let report = strict.check_chain(&pack, "acme.c");
    assert!(matches!(report.signature, SignatureStatus::Trusted { .. }));
    assert!(!report.is_blocked(), "{report:?}");

    // valid, untrusted key: a warning, or blocking when signatures are required
    let stranger = SigningKey::from_bytes(&rand::random::<[u8; 32]>());
    let pack = signed(&root.path().join("untrusted"), &stranger);
    let lenient = Trust { trusted_keys: trusted.clone(), ..Default::default() };
    let report = lenient.check_chain(&pack, "acme.c");
    assert_eq!(report.signature, SignatureStatus::Untrusted);
    assert_eq!(report.warnings().next().unwrap().code, code::PACK_SIGNATURE_UNTRUSTED);
    assert!(!report.is_blocked());
    assert_eq!(blocking_codes(&strict, &pack), [code::PACK_SIGNATURE_UNTRUSTED]);

    // tampered after signing: invalid, refused even under the lenient policy
    let dir = root.path().join("tampered");
    signed(&dir, &key);
    let text = std::fs::read_to_string(dir.join("pack.json")).unwrap().replace("\"label\": \"C\"", "\"label\": \"D\"");
    std::fs::write(dir.join("pack.json"), text).unwrap();
    let pack = load_file(&dir.join("pack.json"), LoadOptions::default()).unwrap();
    assert_eq!(blocking_codes(&lenient, &pack), [code::PACK_SIGNATURE_INVALID]);
    let refusal = lenient.check_chain(&pack, "acme.c").refusal().unwrap();
    assert_eq!(refusal.envelope()["error"], code::PACK_SIGNATURE_INVALID);

    // signature file missing: unverifiable
    let dir = root.path().join("missing");
    let pack = signed(&dir, &key);
    std::fs::remove_file(dir.join("pack.json.sig")).unwrap();
    let report = lenient.check_chain(&pack, "acme.c");
    assert!(matches!(report.signature, SignatureStatus::Unverifiable { .. }));
    assert_eq!(report.warnings().next().unwrap().code, code::PACK_SIGNATURE_UNVERIFIABLE);
    assert_eq!(blocking_codes(&strict, &pack), [code::PACK_SIGNATURE_UNVERIFIABLE]);

    // unsigned: accepted with a warning, refused when signatures are required
    let path = write_chain_pack(&root.path().join("unsigned"), simple_chain(), None);
    let pack = load_file(&path, LoadOptions::default()).unwrap();
    assert_eq!(lenient.check_chain(&pack, "acme.c").warnings().next().unwrap().code, code::PACK_UNSIGNED);
    assert_eq!(blocking_codes(&strict, &pack), [code::PACK_UNSIGNED]);
}

#[test]
fn catalog_refuses_unresolvable_type_ids_before_output() {
    let root = tempfile::tempdir().unwrap();
    let mut chain = simple_chain();
    chain["dag"]["nodes"][0]["typeId"] = json!("vendor.acme.missing");
    let pack = load_file(&write_chain_pack(root.path(), chain, None), LoadOptions::default()).unwrap();
    let trust = Trust { catalog: Some(Catalog::new()), ..Default::default() };
    let err = expand(&pack, "acme.c", Default::default(), &trust.expand_options()).unwrap_err();
    assert_eq!(err.code, code::CHAIN_UNRESOLVABLE_TYPEID);
    assert_eq!(
        (err.details["typeId"].as_str(), err.details["chainId"].as_str()),
        (Some("vendor.acme.missing"), Some("acme.c"))
    );
    let report = trust.check_chain(&pack, "acme.c");
    let f = report.blocking().find(|f| f.code == code::CHAIN_UNRESOLVABLE_TYPEID).unwrap();
    assert_eq!(f.pointer, "/chains/0/dag/nodes/0/typeId");
}

// ---------------------------------------------------------------------------------------
// Lockfile resolution against temporary registries (the worked example of node-packs §10).

const INTEGRITY: &str = "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

fn node_pack_manifest(name: &str, version: &str, deps: Value) -> Value {
    json!({"name": name, "version": version, "engines": {"openwop": ">=1.0.0"},
        "runtime": {"language": "javascript", "entry": "dist/index.js"}, "dependencies": deps,
        "nodes": [{"typeId": format!("{name}.step"), "version": "1.0.0", "category": "data", "role": "pure"}]})
}

fn put(dir: &Path, manifest: &Value) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("pack.json"), serde_json::to_vec_pretty(manifest).unwrap()).unwrap();
}

/// Primary registry in `<name>/<version>/pack.json` layout; a fallback that is a plain
/// folder of packs holding crm 3.0.0 and 2.1.4 only.
fn registries(root: &Path) -> (PathBuf, PathBuf) {
    let primary = root.join("primary");
    for v in ["2.1.2", "2.1.5", "2.2.0", "3.0.0-rc.1"] {
        put(&primary.join("vendor.acme.crm").join(v), &node_pack_manifest("vendor.acme.crm", v, json!({})));
    }
    let sync = node_pack_manifest("vendor.beta.sync", "1.4.0", json!({"vendor.acme.crm": "~2.1.3"}));
    put(&primary.join("vendor.beta.sync/1.4.0"), &sync);
    let fallback = root.join("mirror dir");
    for v in ["3.0.0", "2.1.4"] {
        put(&fallback.join(format!("crm-{v}")), &node_pack_manifest("vendor.acme.crm", v, json!({})));
    }
    (primary, fallback)
}

fn lockfile(root: &Path, extra: Value) -> Lockfile {
    let mut doc = json!({
        "lockfileVersion": 1, "generatedAt": "2026-09-01T10:00:00Z",
        "registry": "https://packs.example.test",
        "packs": [
            {"name": "vendor.beta.sync", "version": "1.4.0", "integrity": INTEGRITY,
             "dependencies": {"vendor.acme.crm": "2.1.5"}},
            {"name": "vendor.acme.crm", "version": "2.1.5", "integrity": INTEGRITY}
        ]
    });
    for (k, v) in extra.as_object().unwrap() {
        doc[k] = v.clone();
    }
    let path = root.join("pack-lock.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    Lockfile::read(&path).unwrap()
}

fn workspace() -> Vec<Requirement> {
    let req = |name: &str, range: &str| Requirement {
        requested_by: "workspace".into(),
        name: name.into(),
        range: range.into(),
    };
    vec![req("vendor.acme.crm", "^2.1.0"), req("vendor.beta.sync", "^1.0.0")]
}

fn errors(r: &chainsmith::catalog::Resolution) -> Vec<(&'static str, String)> {
    r.findings.iter().filter(|f| f.is_error()).map(|f| (f.code, f.pointer.clone())).collect()
}

fn file_url(p: &Path) -> String {
    format!("file://{}", p.display().to_string().replace(' ', "%20"))
}

#[test]
fn lockfile_resolves_from_primary_and_reports_unreachable_remote() {
    let root = tempfile::tempdir().unwrap();
    let (primary, _) = registries(root.path());
    let lock = lockfile(root.path(), json!({}));
    assert!(lock.is_valid(), "{:?}", lock.findings());
    let reqs = workspace();
    let opts = ResolveOptions { registries: std::slice::from_ref(&primary), requirements: &reqs, ..Default::default() };
    let r = resolve(&lock, &opts);
    assert!(r.is_ok(), "{:?}", r.findings);
    let got: Vec<_> = r.packs.iter().map(|p| (p.name.as_str(), p.version.as_str())).collect();
    assert_eq!(got, [("vendor.acme.crm", "2.1.5"), ("vendor.beta.sync", "1.4.0")]);
    // The https primary in the lockfile is named, not fetched.
    let w = &r.findings[0];
    assert_eq!((w.code, w.pointer.as_str(), w.severity), (code::REGISTRY_UNREACHABLE, "/registry", Severity::Warning));

    // Deterministic output: byte-identical across runs, sorted, final newline.
    let a = r.to_json_string();
    assert_eq!(a, resolve(&lock, &opts).to_json_string());
    assert!(a.ends_with("}\n") && a.contains("\n  \"packs\""));
    let out: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(out["packs"][0]["name"], "vendor.acme.crm");
    assert_eq!(out["packs"][1]["dependencies"], json!({"vendor.acme.crm": "2.1.5"}));
    assert_eq!(out["integrityVerified"], false);
}

#[test]
fn lockfile_overrides_follow_the_parent_range_rule() {
    let root = tempfile::tempdir().unwrap();
    let (primary, fallback) = registries(root.path());
    let reqs = workspace();
    let fallbacks = json!(["https://mirror.example.test", file_url(&fallback)]);
    let run = |over: &str| {
        let lock =
            lockfile(root.path(), json!({"overrides": {"vendor.acme.crm": over}, "fallbackRegistries": fallbacks}));
        let opts =
            ResolveOptions { registries: std::slice::from_ref(&primary), requirements: &reqs, ..Default::default() };
        resolve(&lock, &opts)
    };

    // 3.0.0 (served only by the file:// fallback) satisfies neither ^2.1.0 nor ~2.1.3.
    let r = run("3.0.0");
    assert_eq!(errors(&r), [(code::PACK_DEPENDENCY_CONFLICT, "/overrides/vendor.acme.crm".to_owned())]);
    let conflict = r.findings.iter().find(|f| f.is_error()).unwrap();
    assert_eq!(conflict.details["conflictingRanges"].as_array().unwrap().len(), 2);
    assert!(r.packs[0].registry.starts_with("file://"));

    // 2.2.0 satisfies the workspace's ^2.1.0 only: accepted ("at least one parent").
    let r = run("2.2.0");
    assert!(r.is_ok(), "{:?}", r.findings);
    let crm = &r.packs[0];
    assert_eq!((crm.version.as_str(), crm.locked_version.as_deref()), ("2.2.0", Some("2.1.5")));

    // 2.1.4 satisfies both, and is found in the fallback after the unreachable mirror.
    let r = run("2.1.4");
    assert!(r.is_ok(), "{:?}", r.findings);
    assert_eq!(r.packs[0].version, "2.1.4");
    let unreachable: Vec<_> =
        r.findings.iter().filter(|f| f.code == code::REGISTRY_UNREACHABLE).map(|f| f.pointer.as_str()).collect();
    assert_eq!(unreachable, ["/registry", "/fallbackRegistries/0"]);

    // An override no registry serves.
    let r = run("2.1.9");
    assert_eq!(errors(&r), [(code::PACK_VERSION_NOT_FOUND, "/overrides/vendor.acme.crm".to_owned())]);
}

#[test]
fn lockfile_incomplete_conflicting_and_missing_versions() {
    let root = tempfile::tempdir().unwrap();
    let (primary, _) = registries(root.path());

    // The workspace needs a pack the lockfile lacks, and sync's manifest needs crm.
    let path = root.path().join("partial.json");
    let doc = json!({"lockfileVersion": 1, "generatedAt": "2026-09-01T10:00:00Z",
        "packs": [{"name": "vendor.beta.sync", "version": "1.4.0", "integrity": INTEGRITY,
                   "dependencies": {"vendor.acme.crm": "2.1.5"}}]});
    std::fs::write(&path, doc.to_string()).unwrap();
    let lock = Lockfile::read(&path).unwrap();
    let reqs = workspace();
    let r = resolve(
        &lock,
        &ResolveOptions { registries: std::slice::from_ref(&primary), requirements: &reqs, ..Default::default() },
    );
    let codes: Vec<_> = errors(&r).into_iter().map(|(c, _)| c).collect();
    assert_eq!(codes, [code::PACK_LOCKFILE_INCOMPLETE; 3], "{:?}", r.findings);
    assert!(r.findings.iter().any(|f| f.pointer == "/packs/0/dependencies/vendor.acme.crm"));

    // A pin that disagrees with the locked version; a locked version nobody serves.
    let lock = lockfile(
        root.path(),
        json!({"packs": [
            {"name": "vendor.beta.sync", "version": "1.4.0", "integrity": INTEGRITY, "dependencies": {"vendor.acme.crm": "2.1.2"}},
            {"name": "vendor.acme.crm", "version": "2.1.7", "integrity": INTEGRITY}
        ]}),
    );
    let r = resolve(&lock, &ResolveOptions { registries: std::slice::from_ref(&primary), ..Default::default() });
    assert_eq!(
        errors(&r),
        [
            (code::PACK_VERSION_NOT_FOUND, "/packs/1/version".to_owned()),
            (code::PACK_DEPENDENCY_CONFLICT, "/packs/0/dependencies/vendor.acme.crm".to_owned())
        ]
    );
    let nf = r.findings.iter().find(|f| f.code == code::PACK_VERSION_NOT_FOUND).unwrap();
    assert_eq!(nf.details["available"], json!(["2.1.2", "2.1.5", "2.2.0", "3.0.0-rc.1"]));

    // Nothing local at all: every pack is not found, nothing is fetched.
    let lock = lockfile(root.path(), json!({}));
    let r = resolve(&lock, &ResolveOptions::default());
    assert_eq!(errors(&r).len(), 2);
    assert!(r.packs.is_empty());
}

#[test]
fn lockfile_relative_registry_and_signature_checks() {
    let root = tempfile::tempdir().unwrap();
    registries(root.path());
    let lock = lockfile(root.path(), json!({"registry": "primary"}));
    // A relative path is not a URI: a warning, then read relative to the lockfile.
    assert!(lock.is_valid());
    let keys = TrustedKeys::default();
    let r = resolve(&lock, &ResolveOptions { trusted_keys: Some(&keys), require_signed: true, ..Default::default() });
    assert_eq!(r.packs.len(), 2);
    assert!(r.packs.iter().all(|p| p.signature == Some(SignatureStatus::Unsigned)));
    let unsigned: Vec<_> =
        r.findings.iter().filter(|f| f.code == code::PACK_UNSIGNED).map(|f| f.pointer.as_str()).collect();
    assert_eq!(unsigned, ["/packs/1", "/packs/0"]);
    assert_eq!(serde_json::from_str::<Value>(&r.to_json_string()).unwrap()["packs"][0]["signature"], "unsigned");
}

// ---------------------------------------------------------------------------------------
// The CLI: --catalog, --trusted-keys, --require-signed, --strict, and `resolve`.

const SUPPORT: &str = "packs/vendor.chainsmith.support-desk/pack.json";
const NODES: &str = "packs/vendor.chainsmith.nodes";

#[test]
fn cli_expand_with_a_catalog_and_signature_policy() {
    let triage = ["expand", SUPPORT, "--chain", "support.triage", "--set", "queueName=billing"];
    let with = |extra: &[&str]| run(&[&triage[..], extra].concat());

    let v = ok_json(&with(&["--catalog", NODES]));
    let codes: Vec<&str> = v["warnings"].as_array().unwrap().iter().map(|w| w["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&code::PACK_UNSIGNED), "{codes:?}");
    assert!(!codes.contains(&code::TYPEID_UNCHECKED), "{codes:?}");

    // A catalog without the pack's node types refuses before any output.
    let other = tempfile::tempdir().unwrap();
    put(other.path(), &node_pack_manifest("vendor.acme.crm", "1.0.0", json!({})));
    let out = with(&["--catalog", other.path().to_str().unwrap()]);
    assert!(out.stdout.is_empty());
    let env = envelope(&out);
    assert_eq!(env["error"], code::CHAIN_UNRESOLVABLE_TYPEID);
    assert_eq!(env["details"]["chainId"], "support.triage");
    assert!(env["details"]["typeId"].as_str().unwrap().starts_with("vendor.chainsmith."));

    assert_eq!(envelope(&with(&["--catalog", "no/such/dir"]))["error"], code::PACK_NOT_FOUND);
    assert_eq!(envelope(&with(&["--require-signed"]))["error"], code::PACK_UNSIGNED);
}

#[test]
fn cli_strict_turns_config_findings_into_a_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let mut chain = simple_chain();
    chain["dag"]["nodes"][0] = json!({"id": "d", "typeId": "core.dispatch", "config": {"fanOutPolicy": "parallel"}});
    let pack = write_chain_pack(dir.path(), chain, None);
    let base = ["expand", pack.to_str().unwrap(), "--chain", "acme.c", "--catalog", NODES];
    let v = ok_json(&run(&base));
    let finding = v["warnings"].as_array().unwrap().iter().find(|w| w["code"] == code::NODE_CONFIG_INVALID).unwrap();
    assert_eq!(finding["path"], "/nodes/0/config/fanOutPolicy");
    let env = envelope(&run(&[&base[..], &["--strict"]].concat()));
    assert_eq!(env["error"], code::NODE_CONFIG_INVALID);
    assert_eq!(env["details"]["errors"].as_array().unwrap().len(), 1);
}

#[test]
fn cli_validate_with_a_catalog() {
    assert_eq!(run(&["validate", "packs", "--catalog", NODES]).status.code(), Some(0));
    let empty = tempfile::tempdir().unwrap();
    put(empty.path(), &node_pack_manifest("vendor.acme.crm", "1.0.0", json!({})));
    let out = run(&["validate", "--json", SUPPORT, "--catalog", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let findings: Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<&str> = findings.as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&code::CHAIN_UNRESOLVABLE_TYPEID), "{codes:?}");
    assert!(codes.contains(&code::PACK_DEPENDENCY_MISSING), "{codes:?}");
}

#[test]
fn cli_resolve_prints_the_resolved_set() {
    let root = tempfile::tempdir().unwrap();
    let (primary, fallback) = registries(root.path());
    let lock = lockfile(root.path(), json!({"fallbackRegistries": [file_url(&fallback)]}));
    let lock_path = lock.source().to_str().unwrap().to_owned();
    let out = run(&["resolve", &lock_path, "--registry", primary.to_str().unwrap()]);
    let v = ok_json(&out);
    let names: Vec<&str> = v["packs"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["vendor.acme.crm", "vendor.beta.sync"]);
    assert_eq!(out.stdout, run(&["resolve", &lock_path, "--registry", primary.to_str().unwrap()]).stdout);

    // Without the primary folder only the fallback answers, and it lacks 2.1.5.
    let out = run(&["resolve", &lock_path]);
    assert_eq!(envelope(&out)["error"], code::PACK_VERSION_NOT_FOUND);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["findings"].as_array().unwrap().iter().any(|f| f["code"] == code::REGISTRY_UNREACHABLE));

    // A workspace pack whose dependency the lockfile does not lock.
    let ws = root.path().join("ws");
    let mut chain = simple_chain();
    chain["dag"]["nodes"][0]["typeId"] = json!("vendor.gamma.x.step");
    let pack = write_chain_pack(&ws, chain, None);
    let mut m: Value = serde_json::from_slice(&std::fs::read(&pack).unwrap()).unwrap();
    m["dependencies"] = json!({"vendor.gamma.x": "^1.0.0"});
    std::fs::write(&pack, m.to_string()).unwrap();
    let out = run(&["resolve", &lock_path, "--registry", primary.to_str().unwrap(), "--pack", pack.to_str().unwrap()]);
    assert_eq!(envelope(&out)["error"], code::PACK_LOCKFILE_INCOMPLETE);
    assert_eq!(envelope(&run(&["resolve", "no/such/lock.json"]))["error"], code::PACK_NOT_FOUND);
}

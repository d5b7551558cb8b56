//! OpenWOP v2 manifests (interop §3). A manifest whose `signing` carries `keyId` or
//! `scheme` is routed to the v2 rules, as the OpenWOP app routes it:
//! - `signing` is exactly `{keyId, scheme: "ed25519-canonical-json"}`;
//! - `kind` is required;
//! - every fragment `typeId` is pinned to an exact version (`core.ai.chatCompletion@1.0.0`,
//!   split at the last `@`); a pin that is not an exact SemVer is an error, a missing pin a
//!   warning (the published v2 tree still has unpinned packs), but signing or publishing
//!   one is refused ([`check_signable`]);
//! - keys matching `^(openwop-|x-|vendor\.)` are ignored wherever they appear;
//! - chainIds follow the v2 pattern `^[A-Za-z0-9._~:-]{1,128}$`;
//! - `engines` is closed; whether its `openwop` range admits the target host's protocol
//!   major is a host question ([`engine_admits`], checked by the trust policy).
//!
//! No v2 manifest schema is bundled, so the v1 schema checks a *view* of the manifest with
//! the v2-only spellings taken out; the rules above are checked here instead.

use crate::error::{Error, Finding, code, pointer_join};
use serde_json::Value;

pub const V2_SCHEME: &str = "ed25519-canonical-json";

/// Whether the manifest is routed to the v2 rules.
pub fn is_v2(manifest: &Value) -> bool {
    manifest
        .get("signing")
        .and_then(Value::as_object)
        .is_some_and(|s| s.contains_key("keyId") || s.contains_key("scheme"))
}

/// `core.identity@1.0.0` → (`core.identity`, `Some("1.0.0")`); split at the last `@`.
pub fn split_pin(type_id: &str) -> (&str, Option<&str>) {
    match type_id.rfind('@') {
        Some(i) if i > 0 => (&type_id[..i], Some(&type_id[i + 1..])),
        _ => (type_id, None),
    }
}

/// An extension key v2 readers ignore.
pub fn is_extension_key(key: &str) -> bool {
    key.starts_with("openwop-") || key.starts_with("x-") || key.starts_with("vendor.")
}

fn v2_chain_id_ok(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '~' | ':' | '-'))
}

/// Whether `engines.openwop` admits protocol major `major`. v2 ranges read
/// `>=A[.B[.C]] <N.0.0`; without an upper bound the ceiling is `<2.0.0`. Anything else is
/// refused as unparseable, as one host does.
pub fn engine_admits(range: &str, major: u64) -> Result<bool, String> {
    let unparseable = || format!("engines.openwop \"{range}\" is not a v2 range (`>=1.0.0 <3.0.0`)");
    let mut parts = range.split_whitespace();
    let low = parts.next().and_then(|p| p.strip_prefix(">=")).ok_or_else(unparseable)?;
    let high = parts.next();
    if parts.next().is_some() {
        return Err(unparseable());
    }
    let numbers: Vec<u64> =
        low.split('.').map(|n| n.parse::<u64>()).collect::<Result<_, _>>().map_err(|_| unparseable())?;
    if numbers.is_empty() || numbers.len() > 3 {
        return Err(unparseable());
    }
    let ceiling = match high {
        None => 2,
        Some(h) => {
            let h = h.strip_prefix('<').and_then(|v| v.strip_suffix(".0.0")).ok_or_else(unparseable)?;
            h.parse::<u64>().map_err(|_| unparseable())?
        }
    };
    Ok(numbers[0] <= major && major < ceiling)
}

/// The protocol majors a v2 range must admit one of to be installable by some host.
const KNOWN_MAJORS: [u64; 2] = [1, 2];

/// What a manifest must meet before it is signed or published under the v2 recipe, beyond
/// what `validate` requires of v1: an `engines.openwop` range hosts read (interop §3.2,
/// `^1.0.0` is refused by hosts) admitting a known protocol major, and every fragment
/// `typeId`, compensation `nodeTypeId` and external sub-chain `ref.version` pinned to an
/// exact version (§3.3; registration refuses the others). Signing such a pack as v2 would
/// publish a version every host refuses. `Err` names the first member at fault.
pub fn check_signable(manifest: &Value) -> Result<(), Error> {
    let range = manifest.pointer("/engines/openwop").and_then(Value::as_str);
    let problem = match range {
        None => Some("a v2 manifest needs `engines.openwop`, a range such as `>=1.0.0 <3.0.0`".to_owned()),
        Some(range) => match KNOWN_MAJORS.map(|major| engine_admits(range, major)) {
            [Err(msg), _] | [_, Err(msg)] => Some(format!("{msg}; hosts refuse to install it")),
            [Ok(false), Ok(false)] => {
                Some(format!("engines.openwop \"{range}\" admits neither protocol major 1 nor 2"))
            }
            _ => None,
        },
    };
    if let Some(message) = problem {
        return Err(Error::new(code::PACK_ENGINE_UNSUPPORTED, format!("{message}; v2 signing refused"))
            .with("path", "/engines/openwop")
            .with("range", range.unwrap_or_default()));
    }
    for (i, chain) in array(manifest, "chains").iter().enumerate() {
        let nodes = chain.get("dag").map(|d| array(d, "nodes")).unwrap_or_default();
        for (j, node) in nodes.iter().enumerate() {
            for at in ["/typeId", "/compensation/nodeTypeId"] {
                if let Some(type_id) = node.pointer(at).and_then(Value::as_str) {
                    check_pin(type_id, split_pin(type_id).1, &format!("/chains/{i}/dag/nodes/{j}{at}"))?;
                }
            }
        }
        for (k, entry) in array(chain, "subChains").iter().enumerate() {
            if let Some(reference) = entry.get("ref").filter(|r| r.is_object()) {
                let version = reference.get("version").and_then(Value::as_str);
                let id = reference.get("chainId").and_then(Value::as_str).unwrap_or_default();
                check_pin(id, version, &format!("/chains/{i}/subChains/{k}/ref/version"))?;
            }
        }
    }
    Ok(())
}

fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

/// A pin must be an exact SemVer (`1.2.3`), not a range or nothing.
fn check_pin(what: &str, pin: Option<&str>, pointer: &str) -> Result<(), Error> {
    if pin.is_some_and(|v| semver::Version::parse(v).is_ok()) {
        return Ok(());
    }
    let message = match pin {
        Some(v) => format!("\"{what}\" is pinned to \"{v}\", not an exact version"),
        None => format!("\"{what}\" is not pinned to a version"),
    };
    Err(Error::new(
        code::VALIDATION_ERROR,
        format!("{message}: v2 registration refuses it (pin as `id@1.2.3`); v2 signing refused"),
    )
    .with("path", pointer))
}

/// The v2 findings of a manifest, and the view of it the v1 schema validates.
pub(crate) fn check(manifest: &Value, findings: &mut Vec<Finding>) -> Value {
    let mut view = manifest.clone();
    make_view(&mut view, findings, &mut ViewEdits::default());
    strip_extension_keys(&mut view);
    view
}

/// What [`view_in_place`] changed in a manifest, for [`restore`] to put back.
#[derive(Default)]
pub(crate) struct ViewEdits {
    /// Where `signing` was, whether it was the last member, and its value.
    signing: Option<(usize, bool, Value)>,
    /// `chains[i].chainId` as written.
    chain_ids: Vec<(usize, Value)>,
    /// `chains[i].dag.nodes[j]` at `/typeId` or `/compensation/nodeTypeId`, as written.
    type_ids: Vec<(usize, usize, &'static str, Value)>,
}

/// [`check`] without the copy: the manifest itself is made the view (the caller validates
/// it, then puts it back with [`restore`]). `None` when it has extension keys: removing
/// those everywhere is not undone here, so the caller makes the copy instead.
pub(crate) fn view_in_place(manifest: &mut Value, findings: &mut Vec<Finding>) -> Option<ViewEdits> {
    if has_extension_keys(manifest) {
        return None;
    }
    let mut edits = ViewEdits::default();
    make_view(manifest, findings, &mut edits);
    Some(edits)
}

/// Undo [`view_in_place`]: the manifest is again as it was read, member order included.
pub(crate) fn restore(manifest: &mut Value, edits: ViewEdits) {
    let Some(obj) = manifest.as_object_mut() else { return };
    if let Some(chains) = obj.get_mut("chains").and_then(Value::as_array_mut) {
        for (i, j, at, old) in edits.type_ids {
            let node = chains.get_mut(i).and_then(|c| c.get_mut("dag")).and_then(|d| d.get_mut("nodes"));
            if let Some(slot) = node.and_then(|n| n.get_mut(j)).and_then(|n| n.pointer_mut(at)) {
                *slot = old;
            }
        }
        for (i, old) in edits.chain_ids {
            if let Some(slot) = chains.get_mut(i).and_then(|c| c.get_mut("chainId")) {
                *slot = old;
            }
        }
    }
    if let Some((index, was_last, signing)) = edits.signing {
        // `remove` took it out as `swap_remove` does: the last member took its place.
        if was_last {
            obj.insert("signing".into(), signing);
        } else if let Some((key, value)) =
            obj.iter().nth(index).map(|(k, _)| k.clone()).and_then(|k| obj.shift_remove_entry(&k))
        {
            obj.shift_insert(index, "signing".into(), signing);
            obj.insert(key, value);
        }
    }
}

/// Whether any object, at any depth, has a member v2 readers ignore.
fn has_extension_keys(root: &Value) -> bool {
    let mut stack = vec![root];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if m.keys().any(|k| is_extension_key(k)) {
                    return true;
                }
                stack.extend(m.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

/// The v2 findings, and `view` made the v1 schema's view of it (but for extension keys),
/// each change noted in `edits`.
fn make_view(view: &mut Value, findings: &mut Vec<Finding>, edits: &mut ViewEdits) {
    let Some(obj) = view.as_object_mut() else { return };

    let signing_at = obj.keys().position(|k| k == "signing");
    let last = obj.len().saturating_sub(1);
    let removed = obj.remove("signing");
    if let (Some(index), Some(value)) = (signing_at, &removed) {
        edits.signing = Some((index, index == last, value.clone()));
    }
    if let Some(signing) = removed.as_ref().and_then(Value::as_object) {
        for key in signing.keys().filter(|k| !matches!(k.as_str(), "keyId" | "scheme")) {
            findings.push(Finding::error(
                code::INVALID_MANIFEST,
                pointer_join("/signing", key),
                format!("a v2 `signing` block is exactly {{keyId, scheme}}; `{key}` belongs to the v1 recipe"),
            ));
        }
        if signing.get("scheme").and_then(Value::as_str) != Some(V2_SCHEME) {
            findings.push(Finding::error(
                code::INVALID_MANIFEST,
                "/signing/scheme",
                format!("`signing.scheme` must be \"{V2_SCHEME}\""),
            ));
        }
        if signing.get("keyId").and_then(Value::as_str).is_none_or(str::is_empty) {
            findings.push(Finding::error(
                code::INVALID_MANIFEST,
                "/signing/keyId",
                "`signing.keyId` must name the signing key",
            ));
        }
    }
    if !obj.contains_key("kind") {
        findings.push(Finding::error(code::INVALID_MANIFEST, "/kind", "v2 manifests must name their `kind`"));
    }
    if let Some(engines) = obj.get("engines").and_then(Value::as_object) {
        for key in engines.keys().filter(|k| *k != "openwop" && !is_extension_key(k)) {
            findings.push(Finding::error(
                code::INVALID_MANIFEST,
                pointer_join("/engines", key),
                format!("v2 `engines` is closed; `{key}` is not allowed"),
            ));
        }
    }

    if let Some(chains) = obj.get_mut("chains").and_then(Value::as_array_mut) {
        for (i, chain) in chains.iter_mut().enumerate() {
            let Some(chain) = chain.as_object_mut() else { continue };
            if let Some(id) = chain.get("chainId").and_then(Value::as_str) {
                if v2_chain_id_ok(id) {
                    // Valid in v2; keep the v1 pattern from reporting it.
                    let old = chain.insert("chainId".into(), Value::String("v2.chain".into()));
                    edits.chain_ids.extend(old.map(|old| (i, old)));
                } else {
                    findings.push(Finding::error(
                        code::INVALID_MANIFEST,
                        format!("/chains/{i}/chainId"),
                        format!("chainId \"{id}\" does not match the v2 pattern ^[A-Za-z0-9._~:-]{{1,128}}$"),
                    ));
                }
            }
            let nodes = chain.get_mut("dag").and_then(|d| d.get_mut("nodes")).and_then(Value::as_array_mut);
            for (j, node) in nodes.into_iter().flatten().enumerate() {
                for at in ["/typeId", "/compensation/nodeTypeId"] {
                    let Some(slot) = node.pointer_mut(at) else { continue };
                    let Some(type_id) = slot.as_str().map(str::to_owned) else { continue };
                    let pointer = format!("/chains/{i}/dag/nodes/{j}{at}");
                    let (bare, pin) = split_pin(&type_id);
                    match pin {
                        Some(v) if semver::Version::parse(v).is_ok() => {}
                        Some(v) => findings.push(
                            Finding::error(
                                code::VALIDATION_ERROR,
                                pointer.as_str(),
                                format!("typeId \"{type_id}\": \"{v}\" is not an exact version; v2 pins every typeId as `id@1.2.3`"),
                            )
                            .with("typeId", type_id.as_str()),
                        ),
                        None => findings.push(
                            Finding::warning(
                                code::VALIDATION_ERROR,
                                pointer.as_str(),
                                format!("typeId \"{type_id}\" is not pinned; v2 registration refuses typeIds without `@<version>`"),
                            )
                            .with("typeId", type_id.as_str()),
                        ),
                    }
                    let old = std::mem::replace(slot, Value::String(bare.to_owned()));
                    edits.type_ids.push((i, j, at, old));
                }
            }
        }
    }
}

/// Remove extension keys from every object, without recursion.
fn strip_extension_keys(root: &mut Value) {
    let mut stack = vec![root];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                m.retain(|k, _| !is_extension_key(k));
                stack.extend(m.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pins_split_at_the_last_at() {
        assert_eq!(split_pin("core.ai.chatCompletion@1.0.0"), ("core.ai.chatCompletion", Some("1.0.0")));
        assert_eq!(split_pin("core.identity"), ("core.identity", None));
        assert_eq!(split_pin("a@b@2.0.0"), ("a@b", Some("2.0.0")));
        assert_eq!(split_pin("@1.0.0"), ("@1.0.0", None));
    }

    #[test]
    fn engine_ceiling() {
        assert_eq!(engine_admits(">=1.0.0 <3.0.0", 2), Ok(true));
        assert_eq!(engine_admits(">=1.0.0 <3.0.0", 1), Ok(true));
        assert_eq!(engine_admits(">=1.0.0 <3.0.0", 3), Ok(false));
        assert_eq!(engine_admits(">=1.0.0", 2), Ok(false));
        assert_eq!(engine_admits(">=1.0.0", 1), Ok(true));
        assert_eq!(engine_admits(">=1.0.0 <2.0.0", 2), Ok(false));
        assert_eq!(engine_admits(">=2 <3.0.0", 1), Ok(false));
        for bad in ["^1.0.0", ">=1.0.0 <3.1.0", "", ">=x", ">=1.0.0 <3.0.0 x", ">=1.2.3.4"] {
            assert!(engine_admits(bad, 2).is_err(), "{bad}");
        }
    }

    #[test]
    fn v2_view_drops_pins_extensions_and_signing() {
        let m = json!({"name": "n", "kind": "workflow-chain", "x-note": 1, "openwop-meta": {}, "vendor.acme": 2,
            "engines": {"openwop": ">=1.0.0 <3.0.0", "node": ">=18"},
            "signing": {"keyId": "k", "scheme": V2_SCHEME},
            "chains": [{"chainId": "Tiles:Echo~1", "x-ui": {}, "dag": {"nodes": [
                {"id": "a", "typeId": "core.identity@1.0.0", "compensation": {"nodeTypeId": "core.undo@^1"}},
                {"id": "b", "typeId": "core.noop"}]}}]});
        let mut f = Vec::new();
        let view = check(&m, &mut f);
        assert!(
            view.get("x-note").is_none() && view.get("openwop-meta").is_none() && view.get("vendor.acme").is_none()
        );
        assert!(view.get("signing").is_none() && view["chains"][0].get("x-ui").is_none());
        assert_eq!(view["chains"][0]["dag"]["nodes"][0]["typeId"], "core.identity");
        let got: Vec<_> = f.iter().map(|f| (f.code, f.severity, f.pointer.as_str())).collect();
        use crate::error::Severity::{Error, Warning};
        assert_eq!(
            got,
            [
                (code::INVALID_MANIFEST, Error, "/engines/node"),
                (code::VALIDATION_ERROR, Error, "/chains/0/dag/nodes/0/compensation/nodeTypeId"),
                (code::VALIDATION_ERROR, Warning, "/chains/0/dag/nodes/1/typeId"),
            ]
        );
        let mut f = Vec::new();
        check(
            &json!({"signing": {"keyId": "", "scheme": "x", "method": "manual"}, "chains": [{"chainId": "bad id"}]}),
            &mut f,
        );
        let pointers: Vec<_> = f.iter().map(|f| f.pointer.as_str()).collect();
        assert_eq!(pointers, ["/signing/method", "/signing/scheme", "/signing/keyId", "/kind", "/chains/0/chainId"]);
        assert!(is_v2(&json!({"signing": {"scheme": "s"}})) && !is_v2(&json!({"signing": {"method": "manual"}})));
    }
}

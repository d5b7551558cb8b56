//! The documents a publish rewrites beside the version: the pack index, the registry
//! index and the version's CycloneDX SBOM, with their timestamps.

use super::signing::signing_key_id;
use crate::pack::{Pack, PackKind};
use crate::registry::layout::{Registry, Tree};
use crate::registry::sign::V2_SCHEME;
use crate::registry::verify::sha256_hex;
use semver::Version;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Now as RFC 3339 UTC (`SOURCE_DATE_EPOCH` wins, for reproducible registries).
pub(super) fn timestamp() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.parse::<i64>().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
    });
    rfc3339(secs)
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
fn rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from a day count (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Counts and ids an index row repeats from the manifest.
fn summary(pack: &Pack) -> Map<String, Value> {
    let m = &pack.manifest;
    let len = |k: &str| m.get(k).and_then(Value::as_array).map_or(0, Vec::len);
    let type_ids: Vec<Value> = match pack.kind {
        PackKind::WorkflowChain => pack.chains.iter().map(|c| json!(c.chain_id())).collect(),
        _ => pack.node_types().iter().filter_map(|n| n.get("typeId").cloned()).collect(),
    };
    let mut o = Map::new();
    o.insert("name".into(), json!(pack.name()));
    o.insert("kind".into(), m.get("kind").cloned().unwrap_or(json!("node")));
    o.insert("description".into(), json!(pack.description()));
    o.insert("license".into(), m.get("license").cloned().unwrap_or(Value::Null));
    o.insert("tags".into(), m.get("keywords").cloned().unwrap_or(json!([])));
    o.insert("typeIds".into(), Value::Array(type_ids));
    o.insert("nodeCount".into(), json!(len("nodes")));
    o.insert("agentCount".into(), json!(len("agents")));
    o
}

/// The highest unyanked stable version of index rows, else the highest unyanked one.
fn latest(rows: &[Value]) -> Option<String> {
    let versions: Vec<Version> = rows
        .iter()
        .filter(|r| !r.get("yanked").and_then(Value::as_bool).unwrap_or(false))
        .filter_map(|r| Version::parse(r.get("version")?.as_str()?).ok())
        .collect();
    let stable = versions.iter().filter(|v| v.pre.is_empty()).max();
    stable.or_else(|| versions.iter().max()).map(ToString::to_string)
}

pub(super) fn sbom(pack: &Pack, tgz: &[u8], files: &BTreeMap<String, Vec<u8>>) -> Value {
    let purl = format!("pkg:openwop/{}@{}", pack.name(), pack.version());
    let mut component = json!({
        "bom-ref": purl, "type": "library", "name": pack.name(), "version": pack.version(),
        "description": pack.description(),
    });
    if let Some(license) = pack.manifest.get("license").and_then(Value::as_str) {
        component["licenses"] = json!([{"license": {"id": license}}]);
    }
    component["externalReferences"] = json!([]);
    component["hashes"] = json!([{"alg": "SHA-256", "content": sha256_hex(tgz)}]);
    component["purl"] = json!(purl);
    let components: Vec<Value> = files
        .iter()
        .map(|(name, data)| {
            json!({"type": "file", "name": name, "hashes": [{"alg": "SHA-256", "content": sha256_hex(data)}],
                "properties": [{"name": "openwop:size", "value": data.len().to_string()}]})
        })
        .collect();
    json!({
        "bomFormat": "CycloneDX", "specVersion": "1.6", "version": 1,
        "metadata": {"component": component,
            "tools": [{"vendor": "chainsmith", "name": "chainsmith", "version": env!("CARGO_PKG_VERSION")}]},
        "components": components,
        "dependencies": [{"ref": purl, "dependsOn": []}],
    })
}

/// The pack's index with this version added (versions in semver order, the summary the
/// newest one's), and whether this version is the newest. Rows are the tree's: v2 names
/// the `signingScheme` and `versionDeprecated`, v1 the `signingMethod` and `deprecated`.
/// A row the index already has (an interrupted publish being finished) is kept.
pub(super) fn pack_index(reg: &Registry, pack: &Pack, index: Value, integrity: &str, now: &str) -> (Value, bool) {
    let (name, version) = (pack.name(), pack.version());
    let mut rows: Vec<Value> = index.get("versions").and_then(Value::as_array).cloned().unwrap_or_default();
    if !rows.iter().any(|r| r.get("version").and_then(Value::as_str) == Some(version)) {
        let url = |template: &str| json!(reg.url(template, name, version));
        let mut row = Map::new();
        row.insert("version".into(), json!(version));
        row.insert("publishedAt".into(), json!(now));
        row.insert("manifestUrl".into(), url(&reg.endpoints.version_manifest));
        row.insert("tarballUrl".into(), url(&reg.endpoints.version_tarball));
        let key_id = signing_key_id(&pack.manifest);
        if key_id.is_some() {
            row.insert("signatureUrl".into(), url(&reg.endpoints.version_signature));
        }
        let v2 = reg.tree == Tree::V2;
        if v2 {
            row.insert("sbomUrl".into(), url(&reg.sbom_template()));
        }
        if let Some(id) = key_id {
            let (field, recipe) = if v2 { ("signingScheme", V2_SCHEME) } else { ("signingMethod", "manual") };
            row.insert(field.into(), json!(recipe));
            row.insert("signingKeyId".into(), json!(id));
        }
        row.insert("integrity".into(), json!(integrity));
        row.insert((if v2 { "versionDeprecated" } else { "deprecated" }).into(), json!(false));
        row.insert("yanked".into(), json!(false));
        rows.push(Value::Object(row));
    }
    rows.sort_by(|a, b| {
        let v = |r: &Value| r.get("version").and_then(Value::as_str).and_then(|s| Version::parse(s).ok());
        v(a).cmp(&v(b))
    });
    let latest_version = latest(&rows).unwrap_or_else(|| version.to_owned());
    let newest_is_this = latest_version == version;
    let mut top = index.as_object().cloned().unwrap_or_default();
    if newest_is_this || top.is_empty() {
        top.extend(summary(pack));
        top.insert("chainCount".into(), json!(pack.chains.len()));
    }
    top.insert("latest".into(), json!(latest_version));
    top.entry("deprecated").or_insert(json!(false));
    top.insert("versions".into(), Value::Array(rows));
    (Value::Object(top), newest_is_this)
}

/// The registry's index with the pack's row added or replaced (its summary taken from this
/// version when it is the newest), packs in name order.
pub(super) fn registry_index(
    pack: &Pack,
    index: Value,
    latest_version: &str,
    newest_is_this: bool,
    now: &str,
) -> Value {
    let name = pack.name();
    let mut packs: Vec<Value> = index.get("packs").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut row = summary(pack);
    if !newest_is_this
        && let Some(existing) = packs.iter().find(|p| p.get("name").and_then(Value::as_str) == Some(name))
    {
        row = existing.as_object().cloned().unwrap_or(row);
    }
    row.insert("latestVersion".into(), json!(latest_version));
    row.entry("deprecated").or_insert(json!(false));
    row.entry("yanked").or_insert(json!(false));
    packs.retain(|p| p.get("name").and_then(Value::as_str) != Some(name));
    packs.push(Value::Object(row));
    packs.sort_by(|a, b| a.get("name").and_then(Value::as_str).cmp(&b.get("name").and_then(Value::as_str)));
    let registry_version = index.get("registryVersion").cloned().unwrap_or(json!("1.0.0"));
    json!({"registryVersion": registry_version, "generatedAt": now, "packCount": packs.len(), "packs": packs})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
    }
}

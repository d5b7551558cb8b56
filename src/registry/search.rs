//! What `search` and `info` show of a registry, as the OpenWOP CLI's `packs search` and
//! `packs info` show it: the registry index filtered client-side (name, description, tags,
//! typeIds, case-insensitive), and a pack index's versions with their flags. Reading only:
//! nothing here verifies a version (`verify` does).

use serde_json::Value;

/// The registry index's packs whose name, description, tags or typeIds contain `query`
/// (every pack for an empty query).
pub fn matching<'a>(index: &'a Value, query: &str) -> Vec<&'a Value> {
    let query = query.to_lowercase();
    let packs = index.get("packs").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    packs
        .iter()
        .filter(|p| {
            if query.is_empty() {
                return true;
            }
            let mut hay: Vec<&str> = ["name", "description"].iter().filter_map(|k| p.get(*k)?.as_str()).collect();
            for list in ["tags", "typeIds"] {
                hay.extend(p.get(list).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str));
            }
            hay.join(" ").to_lowercase().contains(&query)
        })
        .collect()
}

/// `yanked`, `deprecated` or nothing: v2 names the version flag `versionDeprecated`, v1
/// `deprecated`.
pub fn flags(row: &Value) -> &'static str {
    let on =
        |k: &str| row.get(k).is_some_and(|v| v.as_bool() == Some(true) || v.as_str().is_some_and(|s| !s.is_empty()));
    if on("yanked") {
        "yanked"
    } else if on("versionDeprecated") || on("deprecated") {
        "deprecated"
    } else {
        ""
    }
}

/// How a version row or manifest says it is signed: `scheme keyId`, as far as it says.
pub fn signing(row: &Value) -> String {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let block = row.get("signing").cloned().unwrap_or(Value::Null);
    let scheme = text(row, "signingScheme")
        .or_else(|| text(row, "signingMethod"))
        .or_else(|| text(&block, "scheme"))
        .or_else(|| text(&block, "method"));
    let key = text(row, "signingKeyId").or_else(|| text(&block, "keyId")).or_else(|| text(&block, "publicKeyRef"));
    [scheme, key].into_iter().flatten().collect::<Vec<_>>().join(" ")
}

/// Rows as a plain table: a header, then columns padded to their widest cell.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        padded.join("  ").trim_end().to_owned()
    };
    let mut out = vec![line(header.to_vec())];
    out.extend(rows.iter().map(|r| line(r.iter().map(String::as_str).collect())));
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn search_reads_names_descriptions_tags_and_type_ids() {
        let index = json!({"packs": [
            {"name": "core.a.crm", "description": "Contacts"},
            {"name": "vendor.b.x", "tags": ["Billing"]},
            {"name": "vendor.c.y", "typeIds": ["vendor.c.invoice"]}]});
        let names = |q: &str| matching(&index, q).iter().map(|p| p["name"].as_str().unwrap()).collect::<Vec<_>>();
        assert_eq!(names(""), ["core.a.crm", "vendor.b.x", "vendor.c.y"]);
        assert_eq!(names("CONTACT"), ["core.a.crm"]);
        assert_eq!(names("billing"), ["vendor.b.x"]);
        assert_eq!(names("invoice"), ["vendor.c.y"]);
        assert!(names("nothing").is_empty());
    }

    #[test]
    fn flags_and_signing() {
        assert_eq!(flags(&json!({"yanked": true, "deprecated": true})), "yanked");
        assert_eq!(flags(&json!({"versionDeprecated": true})), "deprecated");
        assert_eq!(flags(&json!({"deprecated": "use 2"})), "deprecated");
        assert_eq!(flags(&json!({"deprecated": false})), "");
        assert_eq!(
            signing(&json!({"signingScheme": "ed25519-canonical-json", "signingKeyId": "k"})),
            "ed25519-canonical-json k"
        );
        assert_eq!(signing(&json!({"signing": {"method": "manual", "publicKeyRef": "k1"}})), "manual k1");
        assert_eq!(table(&["a", "bb"], &[vec!["xyz".into(), "1".into()]]), "a    bb\nxyz  1");
    }
}

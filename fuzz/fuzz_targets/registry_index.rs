#![no_main]
//! Arbitrary registry and pack indexes: `DOC SEP REGISTRY_INDEX SEP PACK_INDEX SEP NAME[@SPEC]`,
//! written into a scratch registry folder where the document's templates put them (an
//! empty DOC is a folder without one: the legacy tree). Version resolution picks what the
//! OpenWOP CLI picks from the rows alone: an exact version as given; otherwise an unyanked
//! row, the index's `latest` or else the highest stable (else highest) unyanked one for no
//! spec; and "not found" only when no row is left. Listing never reports a version verified
//! without a key, nor unsigned unless its tarball holds that pack.

use chainsmith::error::code;
use chainsmith::registry::listing::Check;
use chainsmith::registry::{Registry, list, resolve_version, split_spec};
use chainsmith_fuzz::{put, scratch, tar_oracle};
use libfuzzer_sys::fuzz_target;
use semver::Version;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let p = chainsmith_fuzz::parts(data, 4);
    let root = scratch("registry_index");
    if !p[0].is_empty() {
        put(&root.join(".well-known/openwop-registry.json"), p[0]);
    }
    let Ok(registry) = Registry::open(&root) else { return };
    let spec_text = String::from_utf8_lossy(p[3]).into_owned();
    let (name, spec) = split_spec(&spec_text);
    if let Ok(path) = registry.registry_index_path() {
        put(&path, p[1]);
    }
    if let Ok(path) = registry.pack_index_path(name) {
        put(&path, p[2]);
    }

    let index: Value = serde_json::from_slice(p[2]).unwrap_or(Value::Null);
    // (version text, version, yanked) of every row naming a semver version.
    let rows: Vec<(String, Version, bool)> = index
        .get("versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let text = r.get("version")?.as_str()?;
            Some((text.to_owned(), Version::parse(text).ok()?, r.get("yanked") == Some(&Value::Bool(true))))
        })
        .collect();
    let unyanked: Vec<&(String, Version, bool)> = rows.iter().filter(|r| !r.2).collect();
    let trimmed = spec.map(str::trim).filter(|s| !s.is_empty());
    match resolve_version(&registry, name, spec) {
        Ok(v) => {
            if let Some(exact) = trimmed.filter(|s| Version::parse(s).is_ok()) {
                assert_eq!(v, exact, "a pin is taken as given");
            } else {
                assert!(unyanked.iter().any(|r| r.0 == v), "{v} is not an unyanked row of the index");
            }
            if matches!(trimmed, None | Some("latest")) {
                let named =
                    ["latest", "latestVersion"].iter().any(|k| index.get(*k).and_then(Value::as_str) == Some(&v));
                let highest = |stable: bool| {
                    unyanked.iter().filter(|r| !stable || r.1.pre.is_empty()).map(|r| &r.1).max().cloned()
                };
                let best = highest(true).or_else(|| highest(false));
                assert!(
                    named || best == Version::parse(&v).ok(),
                    "{v} is neither the index's latest nor the highest unyanked version"
                );
            }
        }
        Err(e) => {
            if e.code == code::PACK_VERSION_NOT_FOUND && matches!(trimmed, None | Some("latest")) {
                assert!(unyanked.is_empty(), "\"not found\" with unyanked rows: {}", e.message);
            }
        }
    }

    let Ok(listing) = list(&registry) else { return };
    for pack in listing {
        match pack.check {
            Check::Verified { .. } => panic!("{} verified in a registry without keys", pack.name),
            Check::Unsigned { version } => {
                let tgz = registry.tarball_path(&pack.name, &version).ok().and_then(|t| std::fs::read(t).ok());
                let files = tgz
                    .and_then(|t| tar_oracle::read_tgz(&t).ok())
                    .expect("an unsigned version has a readable tarball");
                let packed: Value =
                    files.get("pack.json").and_then(|m| serde_json::from_slice(m).ok()).expect("with a pack.json");
                assert_eq!(
                    (packed["name"].as_str(), packed["version"].as_str()),
                    (Some(pack.name.as_str()), Some(version.as_str()))
                );
            }
            Check::Refused { .. } => {}
        }
    }
});

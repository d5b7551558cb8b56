//! Issue 33 items 8 and 9: `pack sign` and `pack publish` refuse, before writing anything,
//! what signing would change (a number spelled as a float that a double cannot hold) and
//! what every host would refuse of a v2 pack (an engine range hosts cannot read, an
//! unpinned typeId). Runs the real binary.

use serde_json::Value;
use std::path::{Path, PathBuf};

mod common;
use common::cli::{envelope, ok_json, run, s};

/// The interop §1.4 test vector's manifest (v2, pinned, `>=1.0.0 <3.0.0`).
const VECTOR: &str = r#"{"chains":[{"chainId":"tiles.echo","dag":{"nodes":[{"config":{"value":"{{params.text}}"},"id":"say","typeId":"core.identity@1.0.0"}]},"description":"Say it back.","label":"Echo","parameters":{"properties":{"text":{"type":"string"}},"type":"object"},"version":"0.1.0"}],"engines":{"openwop":">=1.0.0 <3.0.0"},"kind":"workflow-chain","name":"community.example.tiles","signing":{"keyId":"example-1","scheme":"ed25519-canonical-json"},"version":"0.1.0"}"#;

/// The vector without its `signing` block, changed by `edit`, written pretty into `dir/pack`.
fn pack_with(dir: &Path, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let pack = dir.join("pack");
    std::fs::create_dir_all(&pack).unwrap();
    let mut m: Value = serde_json::from_str(VECTOR).unwrap();
    m.as_object_mut().unwrap().remove("signing");
    edit(&mut m);
    std::fs::write(pack.join("pack.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    pack
}

fn key(dir: &Path) -> String {
    let keys = ok_json(&run(&["keygen", s(&dir.join("k"))]));
    keys["privateKey"].as_str().unwrap().to_owned()
}

/// The refusal's code and `details.path`.
fn code_path(e: &Value) -> (&str, &str) {
    (e["error"].as_str().unwrap_or_default(), e["details"]["path"].as_str().unwrap_or_default())
}

/// Item 8: each float spelling a double rounds is refused by `pack sign` (both recipes) and
/// `pack publish` with `number_not_signable` and its pointer; nothing is written, and
/// `validate` says so first. Before the fix `pack sign` wrote `9007199254740992` (and
/// `0.3`, `123456789012345680000`) into pack.json and exited 0.
#[test]
fn numbers_spelled_as_floats_that_signing_would_round_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let key = key(dir.path());
    let pointer = "/chains/0/dag/nodes/0/config/n";
    for number in ["9007199254740993.0", "9007199254740993e0", "0.30000000000000000001", "123456789012345678e3"] {
        let case = dir.path().join(number);
        let pack = pack_with(&case, |m| m["chains"][0]["dag"]["nodes"][0]["typeId"] = "core.identity".into());
        // Spliced in as text: a JSON library would round it on the way in.
        let text = std::fs::read_to_string(pack.join("pack.json")).unwrap();
        let text = text.replacen("\"value\":", &format!("\"n\": {number},\n \"value\":"), 1);
        std::fs::write(pack.join("pack.json"), &text).unwrap();

        let report = String::from_utf8(run(&["validate", "--json", s(&pack)]).stdout).unwrap();
        assert!(report.contains("number_not_signable") && report.contains(pointer), "{number}: {report}");

        for key_id in [None, Some("k-1")] {
            let mut args = vec!["pack", "sign", s(&pack), "--key", &key];
            args.extend(key_id.map(|id| ["--key-id", id]).into_iter().flatten());
            let e = envelope(&run(&args));
            assert_eq!(code_path(&e), ("number_not_signable", pointer), "{number} {key_id:?}: {e}");
            assert!(e["message"].as_str().unwrap().contains(number), "{e}");
            assert_eq!(std::fs::read_to_string(pack.join("pack.json")).unwrap(), text, "{number}: pack.json kept");
            assert!(!pack.join("keys").exists(), "{number}: no signature written");
        }
        let reg = case.join("reg");
        let e = envelope(&run(&["pack", "publish", s(&pack), "--registry", s(&reg), "--key", &key, "--key-id", "k-1"]));
        assert_eq!(code_path(&e), ("number_not_signable", pointer), "publish {number}: {e}");
        assert!(!reg.exists(), "a refused publish leaves no registry folder");
    }
    // The same values spelled so a double holds them exactly sign as before.
    let pack = pack_with(&dir.path().join("exact"), |m| {
        m["chains"][0]["dag"]["nodes"][0]["typeId"] = "core.identity".into();
    });
    let text = std::fs::read_to_string(pack.join("pack.json")).unwrap();
    std::fs::write(pack.join("pack.json"), text.replacen("\"value\":", "\"n\": [0.3, 2.50, 1e21],\n \"value\":", 1))
        .unwrap();
    ok_json(&run(&["pack", "sign", s(&pack), "--key", &key]));
    let signed = std::fs::read_to_string(pack.join("pack.json")).unwrap();
    assert!(signed.contains("\"n\":[0.3,2.5,1e+21]"), "{signed}");
}

/// Item 9: a pack valid under v1 rules that every host would refuse once signed as v2
/// (`^1.0.0`, the OpenWOP app's export; an unpinned or range-pinned typeId) is refused by
/// `pack sign --key-id` and by `pack publish` into a v2 registry, before anything is
/// written. Before the fix both succeeded, and install then refused the version
/// everywhere.
#[test]
fn v2_signing_and_publishing_refuse_packs_hosts_would_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let key = key(dir.path());
    type Edit = fn(&mut Value);
    let cases: [(&str, Edit, &str, &str); 4] = [
        // As the OpenWOP app exports it: `^1.0.0`, typeIds unpinned (v1 forbids the pin).
        (
            "caret",
            |m| {
                m["engines"]["openwop"] = "^1.0.0".into();
                m["chains"][0]["dag"]["nodes"][0]["typeId"] = "core.identity".into();
            },
            "pack_engine_unsupported",
            "/engines/openwop",
        ),
        (
            "above",
            |m| {
                m["engines"]["openwop"] = ">=3.0.0 <4.0.0".into();
                m["chains"][0]["dag"]["nodes"][0]["typeId"] = "core.identity".into();
            },
            "pack_engine_unsupported",
            "/engines/openwop",
        ),
        (
            "unpinned",
            |m| m["chains"][0]["dag"]["nodes"][0]["typeId"] = "core.identity".into(),
            "validation_error",
            "/chains/0/dag/nodes/0/typeId",
        ),
        (
            "range",
            |m| m["chains"][0]["dag"]["nodes"][0]["typeId"] = "core.identity@^1.0.0".into(),
            "validation_error",
            "/chains/0/dag/nodes/0/typeId",
        ),
    ];
    for (label, edit, code, pointer) in cases {
        let case = dir.path().join(label);
        let pack = pack_with(&case, edit);
        let before = std::fs::read(pack.join("pack.json")).unwrap();
        if label != "range" {
            // Unsigned, the pack is v1, and v1 rules accept it (a pinned typeId is not v1).
            ok_json(&run(&["validate", "--json", s(&pack)]));
        }
        let e = envelope(&run(&["pack", "sign", s(&pack), "--key", &key, "--key-id", "k-1"]));
        assert_eq!(code_path(&e), (code, pointer), "sign {label}: {e}");
        assert_eq!(std::fs::read(pack.join("pack.json")).unwrap(), before, "sign {label}: pack.json kept");
        assert!(!pack.join("keys").exists(), "sign {label}: no signature written");

        let reg = case.join("reg");
        let e = envelope(&run(&["pack", "publish", s(&pack), "--registry", s(&reg), "--key", &key, "--key-id", "k-1"]));
        assert_eq!(code_path(&e), (code, pointer), "publish {label}: {e}");
        assert!(!reg.exists(), "publish {label}: a refused publish leaves no registry folder");
    }
    // The vector itself signs, publishes and installs.
    let pack = pack_with(&dir.path().join("good"), |_| {});
    ok_json(&run(&["pack", "sign", s(&pack), "--key", &key, "--key-id", "k-1"]));
    let reg = dir.path().join("good/reg");
    let published =
        ok_json(&run(&["pack", "publish", s(&pack), "--registry", s(&reg), "--key", &key, "--key-id", "k-1"]));
    assert_eq!(published["tree"], "v2", "{published}");
    let cache = dir.path().join("cache");
    ok_json(&run(&["install", "community.example.tiles@0.1.0", "--registry", s(&reg), "--dir", s(&cache)]));
}

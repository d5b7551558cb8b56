//! Tells the tests what this machine can run, so a test that cannot run is listed as ignored
//! (with its reason) instead of passing without checking anything:
//! - `chainsmith_corpus`: the shared corpus is at `../shared/corpus` beside the checkout (or
//!   under `$CHAINSMITH_SHARED`);
//! - `chainsmith_display`: Xvfb and xdotool are on `PATH` (the real-window crash test);
//! - `chainsmith_registry_tools`: python3, openssl and node are on `PATH` (registry interop
//!   tests; node reads the keys `keygen` writes as the OpenWOP CLI would);
//! - `chainsmith_node`: Node.js 18 or later is on `PATH` as `node` (the OpenWOP client's
//!   verification recipe, `tests/tools/openwop_verify.mjs`);
//! - `chainsmith_openwop_registry`: `$CHAINSMITH_OPENWOP_REGISTRY` names a checkout of the
//!   OpenWOP registry's served tree (the folder holding `.well-known/openwop-registry.json`,
//!   `registry/` in github.com/openwop/openwop-registry): every real version is verified
//!   against the reference recipe (tests/registry_write.rs). It is not in the shared corpus;
//!   `CHAINSMITH_REQUIRE_OPENWOP_REGISTRY=1` makes its absence fail the build.
//!
//! CI sets `CHAINSMITH_REQUIRE_CORPUS=1`, `CHAINSMITH_REQUIRE_DISPLAY_TESTS=1`,
//! `CHAINSMITH_REQUIRE_REGISTRY_TOOLS=1` and `CHAINSMITH_REQUIRE_NODE=1`; then an absence
//! fails the build instead of ignoring the tests.

use std::path::PathBuf;

fn main() {
    println!(
        "cargo::rustc-check-cfg=cfg(chainsmith_corpus, chainsmith_display, chainsmith_registry_tools, chainsmith_node, chainsmith_openwop_registry)"
    );
    println!("cargo::rerun-if-changed=build.rs");
    for var in [
        "CHAINSMITH_SHARED",
        "CHAINSMITH_REQUIRE_CORPUS",
        "CHAINSMITH_REQUIRE_DISPLAY_TESTS",
        "CHAINSMITH_REQUIRE_REGISTRY_TOOLS",
        "CHAINSMITH_REQUIRE_NODE",
        "CHAINSMITH_OPENWOP_REGISTRY",
        "CHAINSMITH_REQUIRE_OPENWOP_REGISTRY",
        "PATH",
    ] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let required = |var: &str| std::env::var(var).as_deref() == Ok("1");

    let shared = std::env::var_os("CHAINSMITH_SHARED").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("../shared")
    });
    let vectors = shared.join("corpus/vectors");
    if vectors.is_dir() {
        println!("cargo::rustc-cfg=chainsmith_corpus");
        // Seen again if the corpus goes away or changes.
        println!("cargo::rerun-if-changed={}", vectors.display());
    } else if required("CHAINSMITH_REQUIRE_CORPUS") {
        panic!("CHAINSMITH_REQUIRE_CORPUS=1, but the shared corpus is not at {}", vectors.display());
    }

    let on_path = |tool: &str| {
        std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
    };
    let missing: Vec<&str> = ["Xvfb", "xdotool"].into_iter().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        println!("cargo::rustc-cfg=chainsmith_display");
    } else if required("CHAINSMITH_REQUIRE_DISPLAY_TESTS") {
        panic!("CHAINSMITH_REQUIRE_DISPLAY_TESTS=1, but {} not on PATH", missing.join(" and "));
    }

    let missing: Vec<&str> = ["python3", "openssl", "node"].into_iter().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        println!("cargo::rustc-cfg=chainsmith_registry_tools");
    } else if required("CHAINSMITH_REQUIRE_REGISTRY_TOOLS") {
        panic!("CHAINSMITH_REQUIRE_REGISTRY_TOOLS=1, but {} not on PATH", missing.join(" and "));
    }

    // The recipe script uses what Node 18 has (Ed25519 in node:crypto, `??`, `?.`).
    let node_major = std::process::Command::new("node")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|v| v.trim().trim_start_matches('v').split('.').next()?.parse::<u32>().ok());
    match node_major {
        Some(major) if major >= 18 => println!("cargo::rustc-cfg=chainsmith_node"),
        found if required("CHAINSMITH_REQUIRE_NODE") => {
            panic!("CHAINSMITH_REQUIRE_NODE=1, but node 18 or later is not on PATH (found major {found:?})")
        }
        _ => {}
    }

    let registry = std::env::var_os("CHAINSMITH_OPENWOP_REGISTRY").map(PathBuf::from);
    match registry.filter(|r| r.join(".well-known/openwop-registry.json").is_file()) {
        Some(r) => {
            println!("cargo::rustc-cfg=chainsmith_openwop_registry");
            println!("cargo::rerun-if-changed={}", r.join(".well-known/openwop-registry.json").display());
        }
        None if required("CHAINSMITH_REQUIRE_OPENWOP_REGISTRY") => panic!(
            "CHAINSMITH_REQUIRE_OPENWOP_REGISTRY=1, but $CHAINSMITH_OPENWOP_REGISTRY names no folder with \
             .well-known/openwop-registry.json"
        ),
        None => {}
    }
}

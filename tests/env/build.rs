//! Probes the test environment: the shared corpus beside the checkout, and the tools some
//! tests run (Xvfb and xdotool; python3, openssl and node; Node 18+). The answers are cfgs of
//! this proc-macro crate only, which only the tests depend on: a change of `PATH` (an IDE, a
//! Python wrapper, a CI step) re-runs this probe and recompiles the tests, never the library
//! or the binaries.
//!
//! `$CHAINSMITH_OPENWOP_REGISTRY` may name a checkout of the OpenWOP registry's served tree
//! (the folder holding `.well-known/openwop-registry.json`); it is not in the shared corpus,
//! and the test that verifies every real version in it against the reference recipe needs it.
//!
//! `CHAINSMITH_REQUIRE_CORPUS=1`, `CHAINSMITH_REQUIRE_DISPLAY_TESTS=1`,
//! `CHAINSMITH_REQUIRE_REGISTRY_TOOLS=1` and `CHAINSMITH_REQUIRE_NODE=1` (CI sets them) turn an
//! absence into a build failure instead of ignored tests.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_corpus, has_display, has_registry_tools, has_node, has_openwop_registry)");
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

    // tests/env is two folders below the checkout; the corpus is at ../shared beside it.
    let shared = std::env::var_os("CHAINSMITH_SHARED").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("../../../shared")
    });
    let vectors = shared.join("corpus/vectors");
    if vectors.is_dir() {
        println!("cargo::rustc-cfg=has_corpus");
        println!("cargo::rerun-if-changed={}", vectors.display());
    } else if required("CHAINSMITH_REQUIRE_CORPUS") {
        panic!("CHAINSMITH_REQUIRE_CORPUS=1, but the shared corpus is not at {}", vectors.display());
    }

    let on_path = |tool: &str| {
        std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
    };
    let missing: Vec<&str> = ["Xvfb", "xdotool"].into_iter().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        println!("cargo::rustc-cfg=has_display");
    } else if required("CHAINSMITH_REQUIRE_DISPLAY_TESTS") {
        panic!("CHAINSMITH_REQUIRE_DISPLAY_TESTS=1, but {} not on PATH", missing.join(" and "));
    }

    let missing: Vec<&str> = ["python3", "openssl", "node"].into_iter().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        println!("cargo::rustc-cfg=has_registry_tools");
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
        Some(major) if major >= 18 => println!("cargo::rustc-cfg=has_node"),
        found if required("CHAINSMITH_REQUIRE_NODE") => {
            panic!("CHAINSMITH_REQUIRE_NODE=1, but node 18 or later is not on PATH (found major {found:?})")
        }
        _ => {}
    }

    let registry = std::env::var_os("CHAINSMITH_OPENWOP_REGISTRY").map(PathBuf::from);
    match registry.filter(|r| r.join(".well-known/openwop-registry.json").is_file()) {
        Some(r) => {
            println!("cargo::rustc-cfg=has_openwop_registry");
            println!("cargo::rerun-if-changed={}", r.join(".well-known/openwop-registry.json").display());
        }
        None if required("CHAINSMITH_REQUIRE_OPENWOP_REGISTRY") => panic!(
            "CHAINSMITH_REQUIRE_OPENWOP_REGISTRY=1, but $CHAINSMITH_OPENWOP_REGISTRY names no folder with \
             .well-known/openwop-registry.json"
        ),
        None => {}
    }
}

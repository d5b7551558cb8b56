//! The layering rule of docs/ARCHITECTURE.md, read off the source: the top-level modules of
//! `src/` import one another (`crate::x` paths, in `use` lines and inline) without a cycle,
//! the leaves import nothing above the foundation, and only `app/` names a GUI crate.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules every other may use and that use nothing but each other.
const FOUNDATION: [&str; 2] = ["error", "fsio"];
/// The shared grammar every layer needs: they may use the foundation and nothing else.
const LEAVES: [&str; 7] = ["grammar", "range", "ids", "jcs", "tarball", "host", "words"];
const GUI_CRATES: [&str; 4] = ["egui", "eframe", "rfd", "winit"];

type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<PathBuf>>>;

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level module a file belongs to (`src/pack/load.rs` → `pack`), or `None` for the
/// crate roots and the binaries, which sit above every module.
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main" | "bin")).then(|| name.to_owned())
}

/// The code of a file without its whole-line comments (doc links name modules too).
fn code_lines(text: &str) -> String {
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

fn ident_at(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// Every top-level module a piece of code names through `crate::`: `crate::x::…` and each
/// first segment of a `crate::{x::…, y, …}` group, however nested.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue; // `$crate::` or a longer identifier ending in `crate`
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut segment_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => segment_start = true,
                    c if c.is_whitespace() => {}
                    _ if segment_start && depth == 1 => {
                        out.insert(ident_at(&group[i..]).to_owned());
                        segment_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident_at(rest).to_owned());
        }
    }
    out
}

fn import_graph() -> (BTreeSet<String>, Graph) {
    let files = common::files_under(&src(), "rs");
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(f)).collect();
    let mut graph = Graph::new();
    for file in &files {
        let Some(from) = module_of(file) else { continue };
        let code = code_lines(&std::fs::read_to_string(file).unwrap());
        for to in crate_paths(&code) {
            if to != from && modules.contains(&to) {
                graph.entry(from.clone()).or_default().entry(to).or_default().insert(file.clone());
            }
        }
    }
    (modules, graph)
}

/// Tarjan's bookkeeping, kept on the heap: the walk is iterative.
#[derive(Default)]
struct Tarjan<'g> {
    index: BTreeMap<&'g str, usize>,
    low: BTreeMap<&'g str, usize>,
    stack: Vec<&'g str>,
    on_stack: BTreeSet<&'g str>,
}

impl<'g> Tarjan<'g> {
    fn enter(&mut self, v: &'g str) {
        let n = self.index.len();
        self.index.insert(v, n);
        self.low.insert(v, n);
        self.stack.push(v);
        self.on_stack.insert(v);
    }

    fn lower(&mut self, v: &'g str, to: usize) {
        let low = self.low[v].min(to);
        self.low.insert(v, low);
    }
}

/// The strongly connected groups of more than one module, each sorted.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&str> = graph.keys().chain(graph.values().flatten()).map(String::as_str).collect();
    let successors = |v: &str| -> Vec<&str> { graph.get(v).into_iter().flatten().map(String::as_str).collect() };
    let mut t = Tarjan::default();
    let mut groups = Vec::new();
    for &root in &nodes {
        if t.index.contains_key(root) {
            continue;
        }
        // Each frame: a module and the successors it has still to look at.
        t.enter(root);
        let mut work = vec![(root, successors(root))];
        while let Some((v, pending)) = work.last_mut() {
            let v = *v;
            if let Some(w) = pending.pop() {
                if !t.index.contains_key(w) {
                    t.enter(w);
                    work.push((w, successors(w)));
                } else if t.on_stack.contains(w) {
                    t.lower(v, t.index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                t.lower(parent, t.low[v]);
            }
            if t.low[v] == t.index[v] {
                let mut group = Vec::new();
                while let Some(w) = t.stack.pop() {
                    t.on_stack.remove(w);
                    group.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    groups.push(group);
                }
            }
        }
    }
    groups
}

fn module_edges(graph: &Graph) -> BTreeMap<String, BTreeSet<String>> {
    graph.iter().map(|(from, tos)| (from.clone(), tos.keys().cloned().collect())).collect()
}

#[test]
fn the_top_level_modules_import_one_another_without_a_cycle() {
    let (modules, graph) = import_graph();
    assert!(modules.len() >= 20, "the source walk found only {modules:?}");
    let groups = cycles(&module_edges(&graph));
    let explain: Vec<String> = groups
        .iter()
        .map(|group| {
            let members: BTreeSet<&String> = group.iter().collect();
            let mut lines = vec![format!("cycle {}:", group.join(" ↔ "))];
            for from in group {
                for (to, files) in graph.get(from).into_iter().flatten() {
                    if members.contains(to) {
                        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
                        lines.push(format!("  {from} → {to} in {}", names.join(", ")));
                    }
                }
            }
            lines.join("\n")
        })
        .collect();
    assert!(groups.is_empty(), "{}", explain.join("\n"));
}

#[test]
fn the_leaves_import_nothing_above_the_foundation() {
    let (modules, graph) = import_graph();
    for leaf in FOUNDATION.iter().chain(&LEAVES) {
        assert!(modules.contains(*leaf), "src/ has no module `{leaf}`");
    }
    for leaf in LEAVES {
        for (to, files) in graph.get(leaf).into_iter().flatten() {
            assert!(FOUNDATION.contains(&to.as_str()), "leaf `{leaf}` imports `{to}` ({files:?})");
        }
    }
    for (to, files) in graph.get("fsio").into_iter().flatten() {
        assert_eq!(to, "error", "the foundation's fsio imports `{to}` ({files:?})");
    }
    assert!(!graph.contains_key("error"), "error imports {:?}", graph.get("error"));
}

#[test]
fn only_the_editor_module_names_a_gui_crate() {
    for file in common::files_under(&src(), "rs") {
        if module_of(&file).as_deref() == Some("app") || file.starts_with(src().join("bin")) {
            continue;
        }
        let code = code_lines(&std::fs::read_to_string(&file).unwrap());
        for krate in GUI_CRATES {
            for pattern in [format!("use {krate}::"), format!(" {krate}::"), format!("({krate}::")] {
                assert!(!code.contains(&pattern), "{} names `{krate}` outside app/", file.display());
            }
        }
    }
}

#[test]
fn the_path_reader_and_the_cycle_finder_see_what_is_there() {
    let named = crate_paths(
        "use crate::{error::{Error, code}, pack::Chain,\n  ids};\nlet x = crate::range::Range::parse(s); mycrate::no;",
    );
    assert_eq!(named, ["error", "ids", "pack", "range"].map(String::from).into());
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    assert!(cycles(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
    assert_eq!(cycles(&graph(&[("a", "b"), ("b", "a")])), vec![vec!["a".to_string(), "b".to_string()]]);
    assert_eq!(
        cycles(&graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e"), ("e", "d")])),
        vec![vec!["d".to_string(), "e".to_string()], vec!["a".to_string(), "b".to_string(), "c".to_string()]]
    );
}

/// A test that drives the editor needs the GUI crates: without `required-features = ["gui"]`
/// the no-GUI build (`cargo clippy --no-default-features --all-targets`) fails to compile it.
#[test]
fn every_test_that_uses_the_editor_is_built_only_with_the_gui_feature() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let gated: BTreeSet<String> = manifest
        .split("[[test]]")
        .skip(1)
        .filter(|entry| entry.contains("required-features = [\"gui\"]"))
        .filter_map(|entry| {
            entry.lines().find_map(|l| l.trim().strip_prefix("name = ")).map(|n| n.trim_matches('"').to_owned())
        })
        .collect();
    let mut ungated = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let uses_gui = ["use egui", "egui_kittest", "chainsmith::app"].iter().any(|u| text.contains(u));
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        // This file names them to look for them.
        if uses_gui && !gated.contains(&name) && name != "architecture" {
            ungated.push(name);
        }
    }
    assert!(ungated.is_empty(), "tests that use the editor without required-features = [\"gui\"]: {ungated:?}");
}

//! Peak memory of the editor's model on a large workflow: writes a synthetic N-node workflow
//! (default 100,000) and a 1,000-node chain pack, then does what the editor does with them —
//! opens the workflow, lints it as the lint worker does (on its own copy), previews the
//! insert (expansion and dry-run placement), inserts the chain as one undo step, lints
//! again, autosaves the recovery file, undoes, redoes and saves — printing the process's peak
//! resident set size (VmHWM) after each step, so the step that raised it shows. Then, with the
//! insert undone, Extract as chain of every node (the dialog's rows, its preview, Confirm into
//! a new pack), each step from a peak started again at the resident size it begins with.
//!
//! `cargo run --release --example workflow_rss [-- NODES [DIR [lean]]]` (Linux: reads
//! /proc/self/status). `lean` writes nodes of only id, type, name and position, and edges of
//! only id and ends (about 155 bytes per node and edge, as in issue 12's 16 MB workflow)
//! instead of nodes with a config and an input as well (about 310). With DIR, the workflow
//! (`big.json`) and the pack (`pack.json`) are left there, so the CLI can be measured on
//! the same bytes:
//! `/usr/bin/time -v chainsmith inline DIR/big.json DIR/pack.json --chain rss.chain --set t=x -o DIR/out.json`.

use chainsmith::catalog::Trust;
use chainsmith::editor::document::Document;
use chainsmith::editor::extraction::ExtractForm;
use chainsmith::editor::files::{Opened, open_path};
use chainsmith::editor::pack_doc::PackDocument;
use chainsmith::editor::preview::{self, Placement};
use chainsmith::editor::recovery::Recovery;
use chainsmith::pack::{LoadOptions, load_path};
use chainsmith::workflow::{ExportMode, Workflow};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// The allocator the `chainsmith` binary (and so the editor) runs with.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap_or("VmHWM: 0 kB");
    line.split_whitespace().nth(1).and_then(|n| n.parse::<f64>().ok()).unwrap_or(0.0) / 1024.0
}

/// Start a new peak: the kernel sets VmHWM back to the current resident size (Linux 4.0+).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn report(step: &str, started: Instant, file_mib: f64) {
    let peak = peak_mib();
    println!(
        "{step:<44} peak RSS {peak:>7.1} MiB ({:>4.1}x the file)  {:>7.1} ms",
        peak / file_mib,
        started.elapsed().as_secs_f64() * 1e3
    );
}

/// The workflow, written node by node so generating it leaves no big document behind.
fn write_workflow(path: &Path, n: usize, lean: bool) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    write!(out, r#"{{"id": "big", "name": "Big", "version": "1.0.0", "nodes": ["#).unwrap();
    for i in 0..n {
        let mut node = json!({"id": format!("w{i}"), "typeId": "core.ai.callPrompt", "name": format!("Node {i}"),
            "position": {"x": (i % 100) * 320, "y": (i / 100) * 140}});
        if !lean {
            node["config"] =
                json!({"systemPrompt": format!("You handle step {i} of the pipeline."), "temperature": 0.2});
            node["inputs"] = json!({"in": {"type": "connection", "nodeId": format!("w{}", i.saturating_sub(1)), "outputKey": "output"}});
        }
        write!(out, "{}{node}", if i == 0 { "" } else { ",\n" }).unwrap();
    }
    write!(out, r#"], "edges": ["#).unwrap();
    for i in 1..n {
        let edge =
            json!({"id": format!("e{i}"), "sourceNodeId": format!("w{}", i - 1), "targetNodeId": format!("w{i}")});
        write!(out, "{}{edge}", if i == 1 { "" } else { ",\n" }).unwrap();
    }
    write!(out, r#"], "triggers": [], "variables": [], "metadata": {{}}, "settings": {{}}}}"#).unwrap();
    out.flush().unwrap();
}

/// A pack with one 1,000-node chain, `rss.chain`, taking one text parameter `t`.
fn write_pack(path: &Path) {
    let nodes: Vec<Value> = (0..1_000)
        .map(|i| json!({"id": format!("c{i}"), "typeId": "core.identity", "config": {"t": "{{params.t}}"}}))
        .collect();
    let edges: Vec<Value> = (1..1_000).map(|i| json!({"from": format!("c{}", i - 1), "to": format!("c{i}")})).collect();
    let manifest = json!({"name": "vendor.rss.pack", "version": "1.0.0", "kind": "workflow-chain", "engines": {"openwop": "*"},
        "chains": [{"chainId": "rss.chain", "version": "1.0.0", "label": "R", "description": "d",
            "parameters": {"type": "object", "properties": {"t": {"type": "string"}}},
            "dag": {"nodes": nodes, "edges": edges}}]});
    std::fs::write(path, manifest.to_string()).unwrap();
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let temp = tempfile::tempdir().unwrap();
    let dir = args.next().map_or_else(|| temp.path().to_path_buf(), std::path::PathBuf::from);
    let lean = args.next().as_deref() == Some("lean");
    std::fs::create_dir_all(&dir).unwrap();
    let (wf_path, pack_path) = (dir.join("big.json"), dir.join("pack.json"));

    let t = Instant::now();
    write_workflow(&wf_path, n, lean);
    write_pack(&pack_path);
    let file_mib = std::fs::metadata(&wf_path).unwrap().len() as f64 / 1048576.0;
    report(&format!("wrote {n} nodes ({file_mib:.1} MiB)"), t, file_mib);

    let t = Instant::now();
    let Ok(Opened::Workflow(wf)) = open_path(&wf_path) else { panic!("the workflow opens") };
    let mut doc = Document::new(*wf, Some(wf_path.clone()));
    let pack = load_path(&pack_path, LoadOptions::default()).packs.pop().unwrap();
    report("opened the workflow and the pack", t, file_mib);

    // The lint worker copies the shared snapshot and lints the copy.
    let lint = |doc: &Document| {
        let copy = Workflow::clone(&doc.snapshot());
        chainsmith::editor::lint::findings(&copy, None).len()
    };
    let t = Instant::now();
    let found = lint(&doc);
    report(&format!("linted a copy ({found} findings)"), t, file_mib);

    let t = Instant::now();
    let trust = Trust::default();
    let chain = pack.chain("rss.chain").unwrap();
    let expansion_id = preview::fresh_expansion_id(chain, doc.workflow()).unwrap();
    let values = json!({"t": "x"}).as_object().unwrap().clone();
    let exp = preview::expand_preview(&trust, &pack, chain, doc.workflow(), &values, &expansion_id, true).unwrap();
    let placement = Placement::Insert { at: (0.0, 20_000.0), on_edge: None, after: None };
    let ghost = preview::place(&trust, doc.workflow(), &exp, &placement).unwrap().unwrap();
    report(&format!("previewed the insert ({} ghosts)", ghost.nodes.len()), t, file_mib);

    let t = Instant::now();
    let req = preview::request(&trust, &pack, "rss.chain", values, &expansion_id, &[], &placement);
    doc.inline(req).unwrap();
    report(&format!("inserted the chain ({} nodes)", doc.workflow().node_count()), t, file_mib);

    let t = Instant::now();
    let found = lint(&doc);
    report(&format!("linted a copy again ({found} findings)"), t, file_mib);

    let t = Instant::now();
    let mut recovery = Recovery::new(Some(dir.join("recovery.json")));
    recovery.tick(&doc.snapshot(), doc.path.as_deref(), doc.revision(), doc.is_dirty(), Instant::now()).unwrap();
    recovery.settle(std::time::Duration::from_secs(600)).unwrap();
    report("autosaved the recovery file", t, file_mib);

    let t = Instant::now();
    doc.undo().unwrap();
    doc.redo().unwrap();
    report("undid and redid the insert", t, file_mib);

    let t = Instant::now();
    doc.workflow().save(&dir.join("saved.json"), ExportMode::Faithful).unwrap();
    report("saved", t, file_mib);

    // Extract as chain, every node selected, into a new pack, as the dialog does: its rows,
    // its live preview, then Confirm. The peak starts again at each of these steps (after
    // the insert is undone), so each shows its own.
    doc.undo().unwrap();
    reset_peak();
    let t = Instant::now();
    let all: Vec<String> =
        doc.workflow().nodes_in_order().iter().map(|ix| doc.workflow().graph[*ix].id().to_owned()).collect();
    let mut form = ExtractForm::new(doc.workflow(), all);
    report(&format!("extract dialog: {} value rows", form.rows.len()), t, file_mib);

    reset_peak();
    let t = Instant::now();
    form.refresh(doc.workflow(), None);
    let shown = form.preview().and_then(|p| p.as_ref().ok()).map_or(0, |p| p.chain.nodes().len());
    report(&format!("extract dialog: previewed ({shown} nodes)"), t, file_mib);

    reset_peak();
    let t = Instant::now();
    let mut pack_doc = PackDocument::new(ExtractForm::new_pack("vendor.rss.extracted", "1.0.0"));
    let (index, _) = form.confirm(&mut pack_doc, doc.workflow()).unwrap();
    drop(form);
    report(&format!("extract dialog: confirmed (chain {index} in the pack)"), t, file_mib);
}

//! Issue 36 item 7: how much memory `diff` of two versions of a 20,000-node chain and
//! `upgrade` of a 20,000-node instance with 2,000 hand edits hold at their peak (the inputs
//! of `scripts/instance-bench.py`), relative to the bytes they read: the packs, and for
//! `upgrade` the workflow too. The product rule is 20x. Counted in the process allocation
//! by allocation (tests/common/counting.rs), so the figure is the same on every run. The
//! library calls are the ones the commands make, in their order.

mod common;

use common::counting::peak_of;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[global_allocator]
static ALLOCATOR: common::counting::Counting = common::counting::Counting;

/// One measurement at a time: the counters are the whole process's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The bench's size.
const N: usize = 20_000;

/// The bench's pack: one `N`-node chain in a line; `retries` added to every node's config
/// in the second version, so every node changes.
fn pack(dir: &Path, version: &str, retries: bool) -> PathBuf {
    let nodes: Vec<Value> = (0..N)
        .map(|i| {
            let mut config = json!({"value": "{{params.text}}", "i": i});
            if retries {
                config["retries"] = json!(1);
            }
            json!({"id": format!("n{i}"), "typeId": "vendor.me.step", "config": config})
        })
        .collect();
    let edges: Vec<Value> = (1..N).map(|i| json!({"from": format!("n{}", i - 1), "to": format!("n{i}")})).collect();
    let chain = json!({"chainId": "big.chain", "version": version, "label": "Big", "description": "A long chain.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string", "default": "hi"}}},
        "dag": {"nodes": nodes, "edges": edges}});
    let manifest = json!({"name": "vendor.me.big", "version": version, "kind": "workflow-chain",
        "description": "Big.", "license": "MIT", "engines": {"openwop": ">=1.0.0 <2.0.0"}, "chains": [chain]});
    let file = dir.join(format!("{version}.json"));
    std::fs::write(&file, serde_json::to_vec(&manifest).unwrap()).unwrap();
    file
}

fn size(p: &Path) -> u64 {
    std::fs::metadata(p).unwrap().len()
}

fn ratio(peak: usize, input: u64) -> f64 {
    peak as f64 / input as f64
}

/// `chainsmith diff OLD NEW --json` (src/cli/diff.rs): each side read and told a pack, the
/// two compared, the JSON written out as it is made. The bytes written.
fn diff_command(old: &Path, new: &Path) -> usize {
    use chainsmith::diff::{Side, load_side};
    let pack = |path: &Path| match load_side(path.to_str().unwrap(), None).unwrap() {
        Side::Pack(p) => p,
        Side::Workflow(_) => panic!("{} is a pack", path.display()),
    };
    let (a, b) = (pack(old), pack(new));
    let d = chainsmith::diff::pack::diff_packs(&a.manifest, &b.manifest, None);
    let mut out = Counted(0);
    serde_json::to_writer(&mut out, &d).unwrap();
    out.0 + 1
}

/// A writer that only counts (the command writes to stdout).
struct Counted(usize);

impl std::io::Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Two versions of the chain compared, every node changed. The peak was 37.8x the two packs
/// before the fix (each pack file parsed twice, every node and edge copied to be compared,
/// each change holding copies of both versions of its node, the output built as one value
/// and then as text), and is 13.6x since: the two packs as loaded, and the second one's load.
#[test]
fn diffing_two_versions_holds_under_20_times_the_packs() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (pack(dir.path(), "1.0.0", false), pack(dir.path(), "1.1.0", true));
    let input = size(&old) + size(&new);
    // The process's one-off costs (the embedded schemas compiled) go first.
    diff_command(&old, &old);
    let (written, peak) = peak_of(|| diff_command(&old, &new));
    // Each change holds both versions of a node: more than the packs' nodes themselves.
    assert!(written as u64 > input, "every node is listed as changed ({written} bytes)");
    eprintln!("diff: peak {peak} bytes for {input} bytes of packs ({:.1}x)", ratio(peak, input));
    assert!(
        ratio(peak, input) < 20.0,
        "diff peaked at {peak} bytes, {:.1}x the {input} bytes of packs",
        ratio(peak, input)
    );
}

/// The bench's workflow: the old chain inlined whole under expansionId `b001`, then a hand
/// edit on every tenth node (`config.i` negated), written as compact JSON.
fn edited_workflow(dir: &Path, old: &Path) -> PathBuf {
    use chainsmith::catalog::Trust;
    use chainsmith::inline::{ExpansionIdChoice, InlineRequest};
    use chainsmith::workflow::{ExportMode, Workflow};
    let trust = Trust::default();
    let p = chainsmith::pack::load_path(old, Default::default()).packs.remove(0);
    let mut wf = Workflow::new("Big");
    let mut req = InlineRequest::new(&trust, &p, "big.chain", Default::default());
    req.expansion_id = ExpansionIdChoice::Given("b001".into());
    chainsmith::inline::inline(&mut wf, req).unwrap();
    let mut doc = wf.to_json(ExportMode::Faithful);
    for n in doc["nodes"].as_array_mut().unwrap().iter_mut().step_by(10) {
        let i = n["config"]["i"].as_i64().unwrap();
        n["config"]["i"] = json!(-i);
    }
    let file = dir.join("wf.json");
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    file
}

/// `chainsmith upgrade WF --pack OLD --pack NEW --all -o OUT --json` (src/cli/upgrade.rs):
/// the workflow read, the packs loaded, every instance re-expanded at the newest version
/// keeping the user's edits, the result saved. The edits kept, counted.
fn upgrade_command(wf_file: &Path, packs: &[PathBuf], out: &Path) -> usize {
    use chainsmith::catalog::Trust;
    use chainsmith::inline::{Destination, ExpansionIdChoice, InlineRequest};
    use chainsmith::instance::{Resolutions, upgrade};
    use chainsmith::workflow::{ExportMode, Workflow};
    let bytes = chainsmith::fsio::read_limited(wf_file, chainsmith::workflow::MAX_WORKFLOW_BYTES, "x").unwrap();
    let doc: Value = chainsmith::fsio::parse_json("validation_error", wf_file, &bytes).unwrap();
    drop(bytes);
    let packs: Vec<_> = packs.iter().flat_map(|p| chainsmith::pack::load_path(p, Default::default()).packs).collect();
    assert!(chainsmith::workflow::app_instance::AppInstance::recognise(&doc).is_none());
    let mut wf = Workflow::from_json(doc).unwrap();
    let res = Resolutions::default();
    let trust = Trust::default();
    let mut kept = 0;
    for inst in upgrade::select(&wf, None, true).unwrap() {
        let key = inst.key();
        let pack = upgrade::target(&key, &inst.chain_id, &packs, None).unwrap();
        let chain = pack.chain(&inst.chain_id).unwrap();
        let values = upgrade::carried_values(&inst.params, chain, Default::default());
        let mut req = InlineRequest::new(&trust, pack, &inst.chain_id, values);
        req.expansion_id = ExpansionIdChoice::Given(inst.expansion_id.clone());
        req.external = &packs;
        req.destination = Destination::Reparameterise { key: key.clone(), resolutions: res.clone() };
        let done = chainsmith::inline::inline(&mut wf, req).unwrap();
        assert_eq!(done.instance.chain_version, "1.1.0");
        kept += done.edits.len();
    }
    wf.save(out, ExportMode::Faithful).unwrap();
    kept
}

/// The instance re-expanded at the new version, every node changed by it and every tenth by
/// hand too (different members, so no conflict). The peak was 26.4x the packs and the
/// workflow before the fix (both expansions made into workflow nodes and edges whole, every
/// updated node held as an object, owned keys for every edge, the workflow's bytes held to
/// the end), and is 13.7x since: the packs, the workflow and the two expansions.
#[test]
fn upgrading_an_instance_holds_under_20_times_the_packs_and_workflow() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let packs = [pack(dir.path(), "1.0.0", false), pack(dir.path(), "1.1.0", true)];
    let wf = edited_workflow(dir.path(), &packs[0]);
    let input = size(&packs[0]) + size(&packs[1]) + size(&wf);
    let out = dir.path().join("out.json");
    let (kept, peak) = peak_of(|| upgrade_command(&wf, &packs, &out));
    // Node 0's hand edit is -0, which is 0: no edit.
    assert_eq!(kept, N / 10 - 1, "one hand edit on every tenth node but the first");
    let saved: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let nodes = saved["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), N);
    let negative = nodes.iter().filter(|n| n["config"]["i"].as_i64().unwrap() < 0).count();
    assert_eq!(negative, N / 10 - 1, "the hand edits are in the saved workflow");
    assert!(nodes.iter().all(|n| n["config"]["retries"] == 1), "the new version's member is in every node");
    eprintln!("upgrade: peak {peak} bytes for {input} bytes of packs and workflow ({:.1}x)", ratio(peak, input));
    assert!(
        ratio(peak, input) < 20.0,
        "upgrade peaked at {peak} bytes, {:.1}x the {input} bytes of packs and workflow",
        ratio(peak, input)
    );
}

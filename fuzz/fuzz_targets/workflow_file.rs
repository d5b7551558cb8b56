#![no_main]
//! Arbitrary bytes as a workflow file: loading answers with a workflow or an error, never a
//! panic, and a file read as it is parsed loads as the same bytes read whole do. What loads is linted, laid out for a splice, exported both ways, and the
//! faithful export loads back with the same nodes and edges.

use chainsmith::expand::{ExpandOptions, expand};
use chainsmith::pack::bundled;
use chainsmith::params::Form;
use chainsmith::workflow::{ExportMode, SpliceOptions, Workflow, splice};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    // Read from a file, member by member as it is parsed: what loads is what a whole-value
    // read of the same bytes builds.
    let file = std::env::temp_dir().join(format!("chainsmith-fuzz-workflow-{}.json", std::process::id()));
    std::fs::write(&file, data).expect("the temporary file is writable");
    let loaded = Workflow::load(&file);
    let _ = std::fs::remove_file(&file);
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        assert!(loaded.is_err(), "bytes that are not JSON do not load");
        return;
    };
    if let Ok(loaded) = &loaded {
        let whole = Workflow::from_json(value.clone()).expect("what loads from a file loads as a value");
        assert_eq!(loaded.to_json(ExportMode::Faithful), whole.to_json(ExportMode::Faithful));
    }
    let Ok(mut wf) = Workflow::from_json(value) else { return };
    let _ = wf.lint(ExportMode::Faithful);
    let _ = wf.bounds();
    let _ = wf.instances();
    let strict = wf.to_json(ExportMode::StrictSchema);
    assert!(strict.is_object(), "a strict export is an object");
    let again = Workflow::from_json(wf.to_json(ExportMode::Faithful)).expect("a faithful export loads back");
    assert_eq!(again.node_count(), wf.node_count());
    assert_eq!(again.graph.edge_count(), wf.graph.edge_count());
    // A chain spliced into a hostile workflow: ids avoid what is there, or it is refused.
    let packs = bundled().packs;
    let Some(pack) = packs.iter().find(|p| p.chain("support.triage").is_some()) else { return };
    let form = Form::from_schema(pack.chain("support.triage").expect("found above").parameters());
    let taken = |id: &str| wf.contains_node(id);
    let opts = ExpandOptions { expansion_id: Some("f0zz".into()), taken_ids: Some(&taken), ..Default::default() };
    let Ok(exp) = expand(pack, "support.triage", form.initial_values(), &opts) else { return };
    if splice(&mut wf, &exp, &SpliceOptions::default()).is_ok() {
        Workflow::from_json(wf.to_json(ExportMode::Faithful)).expect("a spliced workflow loads back");
    }
});

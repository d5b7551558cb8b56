#![no_main]
//! Arbitrary bytes as a `pack.json`: loading (parse, schema, semantic checks, lints) must
//! answer with a pack or an error, never panic. Whatever loads without the schema check is
//! then expanded chain by chain, spliced into a new workflow and exported, so hostile
//! manifests reach every later stage too.

use chainsmith::catalog::HostProfile;
use chainsmith::expand::{ExpandOptions, expand};
use chainsmith::pack::{LoadOptions, load_bytes};
use chainsmith::params::Form;
use chainsmith::workflow::{ExportMode, SpliceOptions, Workflow, splice};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let source = Path::new("fuzz/pack.json");
    let _ = load_bytes(source, data, LoadOptions::default());
    let Ok(pack) = load_bytes(source, data, LoadOptions { skip_schema: true }) else { return };
    let opts =
        ExpandOptions { expansion_id: Some("f0zz".into()), host: HostProfile::permissive(), ..Default::default() };
    for chain in &pack.chains {
        let form = Form::from_schema(chain.parameters());
        let Ok(exp) = expand(&pack, chain.chain_id(), form.initial_values(), &opts) else { continue };
        let mut wf = Workflow::new("fuzz");
        if splice(&mut wf, &exp, &SpliceOptions::default()).is_ok() {
            let text = serde_json::to_vec(&wf.to_json(ExportMode::Faithful)).expect("a workflow serialises");
            assert!(serde_json::from_slice::<serde_json::Value>(&text).is_ok(), "export re-parses");
        }
    }
});

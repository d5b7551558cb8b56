#![no_main]
//! Arbitrary parameter schemas and values: the form model, text parsing for each field,
//! schema compilation and validation must answer, never panic or hang. The input is
//! `SCHEMA\nVALUE`; a schema line that is not JSON is used as a JSON string.

use chainsmith::pack::Chain;
use chainsmith::params::{Field, FieldKind, Form, check, resolve};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

fn visit(fields: &[Field], text: &str) {
    for f in fields {
        let _ = f.parse_text(text);
        let _ = f.initial_value();
        if let FieldKind::Object(inner) = &f.kind {
            visit(inner, text);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (schema_text, value_text) = text.split_once('\n').unwrap_or((&text, ""));
    let schema = serde_json::from_str(schema_text).unwrap_or_else(|_| Value::String(schema_text.to_owned()));
    let value = serde_json::from_str(value_text).unwrap_or_else(|_| Value::String(value_text.to_owned()));
    let form = Form::from_schema(&schema);
    visit(&form.fields, value_text);
    let chain = Chain::new(
        0,
        json!({"chainId": "fuzz.form", "version": "1.0.0", "label": "F", "description": "D", "parameters": schema,
               "dag": {"nodes": [{"id": "a", "typeId": "core.x"}], "edges": []}}),
    );
    let _ = check(&chain, &value);
    let _ = resolve(&chain, form.initial_values());
    if let Value::Object(m) = value {
        let _ = resolve(&chain, m);
    }
});

#![no_main]
//! Arbitrary bytes as JSON to sign (RFC 8785). Whatever chainsmith parses strictly is the
//! data serde_json reads; its canonical bytes are the second serialiser's (`jcs_oracle`),
//! re-parse to the same data, are canonical again (idempotent) and pass the one-pass check;
//! and the one-pass check accepts exactly the inputs that are their own canonical form.

use chainsmith::registry::jcs;
use chainsmith_fuzz::jcs_oracle;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let canonical = jcs::canonicalize(data);
    assert_eq!(
        jcs::is_canonical(data),
        canonical.as_deref() == Ok(data),
        "the one-pass canonical check and canonicalisation disagree"
    );
    let Ok(value) = jcs::parse_strict(data) else { return };
    let plain: serde_json::Value = serde_json::from_slice(data).expect("what parses strictly is JSON to serde_json");
    // serde_json's own reader (with `arbitrary_precision`) turns an object with this one
    // member name into a number; chainsmith's reader keeps it an object, as JSON says.
    let marker = jcs_oracle::has_number_marker(&value);
    assert!(marker || jcs_oracle::same_data(&value, &plain), "strict parsing changed the data");
    let Ok(out) = canonical else { return };
    let text = std::str::from_utf8(&out).expect("canonical JSON is UTF-8");
    assert_eq!(Some(text), jcs_oracle::canonical(&value).as_deref(), "the two RFC 8785 serialisers disagree");
    let back: serde_json::Value = serde_json::from_slice(&out).expect("canonical bytes re-parse");
    assert!(marker || jcs_oracle::same_data(&value, &back), "canonical bytes carry other data");
    let strict = jcs::parse_strict(&out).expect("canonical bytes parse strictly again");
    assert!(jcs_oracle::same_data(&value, &strict), "canonical bytes carry other data (strict reading)");
    assert_eq!(jcs::canonicalize(&out).as_deref(), Ok(&out[..]), "canonicalisation is idempotent");
    assert!(jcs::is_canonical(&out), "canonical bytes pass the one-pass check");
});

//! The text grammar every layer reads the same way: `{{params.x}}` / `<<params.x>>` tokens
//! and their near misses (`token`), JavaScript's `String()` of JSON values (`jsstring`),
//! and URL percent-escapes (`percent_decode`).
//! A leaf: it depends on nothing else in the crate.

pub mod jsstring;
pub mod token;

/// A URL path segment or `file:` path with its `%XX` escapes decoded; `None` for an escape
/// that is cut short or not hex, or bytes that are not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

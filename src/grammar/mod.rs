//! The text grammar every layer reads the same way: `{{params.x}}` / `<<params.x>>` tokens
//! and their near misses (`token`), and JavaScript's `String()` of JSON values (`jsstring`).
//! A leaf: it depends on nothing else in the crate.

pub mod jsstring;
pub mod token;

//! Text that looks like a parameter token inside a value that is not one. The token grammar
//! has no escape (chain-packs A10), so such text in an extracted chain is substituted (or at
//! least looks substitutable) on expansion and does not come back as it was.

use crate::error::{Finding, code};
use serde_json::{Map, Value};

/// Every substitutable string of a node (`config`, `inputs`, `compensation.inputMapping`)
/// holding `{{params.` or `<<params.`, with its pointer inside the node (built only for those).
pub(super) fn strings(node: &Map<String, Value>) -> Vec<(String, &str)> {
    let mut out = Vec::new();
    for (ptr, v) in [
        ("/config", node.get("config")),
        ("/inputs", node.get("inputs")),
        ("/compensation/inputMapping", node.get("compensation").and_then(|c| c.get("inputMapping"))),
    ] {
        if let Some(v) = v {
            crate::json_walk::strings(v, ptr, |at, s| {
                if s.contains("{{params.") || s.contains("<<params.") {
                    out.push((at.pointer(), s));
                }
            });
        }
    }
    out
}

/// The warning for one such string; `details.pointer` is the pointer inside the node.
pub(super) fn finding(pointer: &str, node_id: &str, node_pointer: &str, text: &str) -> Finding {
    let message = if crate::grammar::token::tokens(text).is_empty() {
        format!(
            "node \"{node_id}\" {node_pointer} holds text that looks like a parameter token but is not one; \
             expansion keeps it as literal text"
        )
    } else {
        format!(
            "node \"{node_id}\" {node_pointer} holds a parameter token, which expansion will substitute: tokens \
             have no escape, so this value will not come back unchanged (promote the whole value instead)"
        )
    };
    Finding::warning(code::TOKEN_LIKE_TEXT, pointer, message).with("nodeId", node_id).with("pointer", node_pointer)
}

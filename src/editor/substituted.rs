//! A node's expanded JSON as pretty text in spans, each marked with what it is: plain JSON,
//! an object key, or a value substituted from a parameter (by the parameter's name). The
//! insert preview draws each span in its colour; joined, the spans are the JSON itself.

use crate::expand::jsstring::js_string;
use crate::expand::token::tokens;
use serde_json::{Map, Value};

/// What a span of the text is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Span {
    Plain,
    Key,
    /// Substituted from this parameter.
    Param(String),
}

/// Pretty JSON of `new`, in spans, with the spans that came from parameters marked. `orig`
/// is the same place in the chain's fragment before substitution; `values` the parameter
/// values substituted.
pub fn spans(orig: Option<&Value>, new: &Value, values: &Map<String, Value>) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    render(&mut out, orig, new, values, 0);
    out
}

fn render(out: &mut Vec<(String, Span)>, orig: Option<&Value>, new: &Value, values: &Map<String, Value>, depth: usize) {
    let plain = |out: &mut Vec<(String, Span)>, text: &str| out.push((text.to_owned(), Span::Plain));
    let pad = "  ".repeat(depth + 1);
    let close_pad = "  ".repeat(depth);
    if let Some(Value::String(s)) = orig {
        let found = tokens(s);
        if !found.is_empty() {
            // A whole-string token keeps the parameter's type: the value is written as JSON.
            if found.len() == 1 && found[0].start == 0 && found[0].end == s.len() {
                out.push((compact(new), Span::Param(found[0].name.to_owned())));
                return;
            }
            plain(out, "\"");
            let mut last = 0;
            for t in &found {
                plain(out, &escape(&s[last..t.start]));
                let inserted = values.get(t.name).map(js_string).unwrap_or_default();
                out.push((escape(&inserted), Span::Param(t.name.to_owned())));
                last = t.end;
            }
            plain(out, &escape(&s[last..]));
            plain(out, "\"");
            return;
        }
    }
    match new {
        Value::Object(m) if !m.is_empty() => {
            plain(out, "{\n");
            for (i, (k, v)) in m.iter().enumerate() {
                plain(out, &pad);
                out.push((compact(&Value::String(k.clone())), Span::Key));
                plain(out, ": ");
                render(out, orig.and_then(|o| o.get(k)), v, values, depth + 1);
                plain(out, if i + 1 < m.len() { ",\n" } else { "\n" });
            }
            plain(out, &format!("{close_pad}}}"));
        }
        Value::Array(items) if !items.is_empty() => {
            plain(out, "[\n");
            for (i, v) in items.iter().enumerate() {
                plain(out, &pad);
                render(out, orig.and_then(|o| o.get(i)), v, values, depth + 1);
                plain(out, if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            plain(out, &format!("{close_pad}]"));
        }
        other => plain(out, &compact(other)),
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).expect("JSON values serialise")
}

/// A piece of a JSON string literal, escaped, without the quotes.
fn escape(s: &str) -> String {
    let quoted = compact(&Value::String(s.to_owned()));
    quoted[1..quoted.len() - 1].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_spans_are_the_json_and_mark_each_substituted_value() {
        let orig =
            json!({"url": "https://x/{{params.queue}}?n={{params.n}}", "n": "{{params.n}}", "keep": [1, "a\"b"]});
        let values = json!({"queue": "bil\"ling", "n": 25}).as_object().unwrap().clone();
        let new = json!({"url": "https://x/bil\"ling?n=25", "n": 25, "keep": [1, "a\"b"]});
        let out = spans(Some(&orig), &new, &values);
        let text: String = out.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), new);
        let of = |name: &str| -> Vec<&str> {
            out.iter().filter(|(_, s)| *s == Span::Param(name.into())).map(|(t, _)| t.as_str()).collect()
        };
        // Inside a string the value is escaped as JSON text; a whole-string token is the value.
        assert_eq!(of("queue"), ["bil\\\"ling"]);
        assert_eq!(of("n"), ["25", "25"]);
        let keys: Vec<&str> = out.iter().filter(|(_, s)| *s == Span::Key).map(|(t, _)| t.as_str()).collect();
        assert_eq!(keys, ["\"url\"", "\"n\"", "\"keep\""]);
    }
}

//! The parameter form as data: one [`Field`] per declared property, with the widget kind,
//! labels, constraints and default the editor needs. The CLI uses the same model to read
//! `--set NAME=VALUE`.

use super::ParamError;
use crate::error::pointer_join;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    Text,
    Number,
    Integer,
    Boolean,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    Text,
    MultilineText,
    Enum(Vec<Value>),
    Number,
    Integer,
    Boolean,
    /// An array whose items are scalars: rows to add, remove and reorder.
    Array(ScalarKind),
    /// An object with declared properties: a nested group.
    Object(Vec<Field>),
    /// Anything else (open-ended objects, mixed arrays, untyped): edited as JSON text.
    Raw,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    /// JSON pointer of the value inside the parameter object (matches validation paths).
    pub pointer: String,
    pub kind: FieldKind,
    pub title: String,
    pub description: String,
    pub default: Option<Value>,
    pub required: bool,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_minimum: Option<f64>,
    pub exclusive_maximum: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<String>,
    pub format: Option<String>,
    /// `x-openwop-sensitive`, `writeOnly` or `format: password`.
    pub sensitive: bool,
    /// `x-openwop-form.kind`, when the hint names a known widget.
    pub hint: Option<String>,
    pub nullable: bool,
}

impl Field {
    /// An example of the field's `format` for its empty text box.
    pub fn format_hint(&self) -> Option<String> {
        let hint = match self.format.as_deref()? {
            "uri" | "url" => "https://…",
            "email" => "name@example.com",
            "date-time" => "2025-01-31T09:00:00Z",
            "date" => "2025-01-31",
            other => other,
        };
        Some(hint.to_owned())
    }

    /// The field's numeric bounds in words (`≥ 1, < 10`).
    pub fn bounds_hint(&self) -> Option<String> {
        let lo = self.minimum.map(|m| format!("≥ {m}")).or(self.exclusive_minimum.map(|m| format!("> {m}")));
        let hi = self.maximum.map(|m| format!("≤ {m}")).or(self.exclusive_maximum.map(|m| format!("< {m}")));
        match (lo, hi) {
            (None, None) => None,
            (Some(a), None) => Some(a),
            (None, Some(b)) => Some(b),
            (Some(a), Some(b)) => Some(format!("{a}, {b}")),
        }
    }

    /// The value a fresh form starts with: the default, else an empty value of the kind.
    pub fn initial_value(&self) -> Option<Value> {
        if let Some(d) = &self.default {
            return Some(d.clone());
        }
        match &self.kind {
            FieldKind::Boolean if self.required => Some(Value::Bool(false)),
            FieldKind::Array(_) if self.required => Some(Value::Array(Vec::new())),
            FieldKind::Object(fields) if self.required => {
                let mut m = Map::new();
                for f in fields {
                    if let Some(v) = f.initial_value() {
                        m.insert(f.name.clone(), v);
                    }
                }
                Some(Value::Object(m))
            }
            FieldKind::Enum(options) if self.required => options.first().cloned(),
            _ => None,
        }
    }

    /// Read text typed for this field (CLI `--set`, text boxes): JSON when it parses and
    /// fits, plain text for text-like fields otherwise.
    pub fn parse_text(&self, text: &str) -> Result<Value, String> {
        let parsed = crate::fsio::json::from_str(text);
        let textual = matches!(self.kind, FieldKind::Text | FieldKind::MultilineText)
            || matches!(&self.kind, FieldKind::Enum(opts) if opts.iter().any(Value::is_string));
        match parsed {
            Ok(v) if !textual || v.is_string() => Ok(v),
            _ if textual => Ok(Value::String(text.to_owned())),
            Ok(v) => Ok(v),
            Err(e) => Err(match &self.kind {
                FieldKind::Number => format!("expected a number, got \"{text}\""),
                FieldKind::Integer => format!("expected an integer, got \"{text}\""),
                FieldKind::Boolean => format!("expected true or false, got \"{text}\""),
                FieldKind::Enum(options) => format!(
                    "expected one of {}, got \"{text}\"",
                    options.iter().map(Value::to_string).collect::<Vec<_>>().join(", ")
                ),
                FieldKind::Array(_) => format!("expected a JSON array such as [\"a\", \"b\"], got \"{text}\""),
                FieldKind::Object(_) => format!("expected a JSON object such as {{\"k\": \"v\"}}, got \"{text}\""),
                _ => format!("\"{text}\" is not valid JSON ({})", crate::fsio::json_error_text(&e)),
            }),
        }
    }
}

/// The form for a chain's `parameters` schema.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Form {
    pub fields: Vec<Field>,
}

impl Form {
    pub fn from_schema(schema: &Value) -> Self {
        Self { fields: fields_of(schema, "") }
    }

    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The starting values of a new form (defaults and required empties).
    pub fn initial_values(&self) -> Map<String, Value> {
        self.fields.iter().filter_map(|f| Some((f.name.clone(), f.initial_value()?))).collect()
    }
}

fn fields_of(schema: &Value, base: &str) -> Vec<Field> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required: HashSet<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    props
        .iter()
        .map(|(name, sub)| field(name, sub, pointer_join(base, name), required.contains(&name.as_str())))
        .collect()
}

/// A label for a property without a `title`: `senderEmail` → "Sender email",
/// `max_retries` → "Max retries", `apiURL` → "Api URL" (all-capital words stay as they are).
pub fn humanise(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '-' || c == ' ' || c == '.' {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        // A word starts at a capital after a small letter or digit (`senderEmail`), and at
        // the last capital of a run that a small letter follows (`URLPath` → URL, Path).
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase() || p.is_ascii_digit() || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        let acronym = w.chars().count() > 1 && w.chars().all(|c| !c.is_lowercase());
        let w = if acronym { w.clone() } else { w.to_lowercase() };
        if i == 0 {
            let mut cs = w.chars();
            out.extend(cs.next().map(|c| c.to_uppercase().collect::<String>()));
            out.push_str(cs.as_str());
        } else {
            out.push(' ');
            out.push_str(&w);
        }
    }
    if out.is_empty() { name.to_owned() } else { out }
}

const KNOWN_HINTS: [&str; 7] =
    ["text", "textarea", "string-list", "prompt-picker", "provider-picker", "model-picker", "credential-picker"];

fn field(name: &str, s: &Value, pointer: String, required: bool) -> Field {
    let num = |k: &str| s.get(k).and_then(Value::as_f64);
    let uint = |k: &str| s.get(k).and_then(Value::as_u64);
    let text = |k: &str| s.get(k).and_then(Value::as_str).map(str::to_owned);
    let (ty, nullable) = primary_type(s);
    let format = text("format");
    let hint = s
        .pointer("/x-openwop-form/kind")
        .and_then(Value::as_str)
        .filter(|k| KNOWN_HINTS.contains(k))
        .map(str::to_owned);
    let kind = if let Some(options) = s.get("enum").and_then(Value::as_array) {
        FieldKind::Enum(options.clone())
    } else if let Some(c) = s.get("const") {
        FieldKind::Enum(vec![c.clone()])
    } else {
        match ty.as_deref() {
            Some("string") => {
                if is_multiline(name, s, hint.as_deref()) {
                    FieldKind::MultilineText
                } else {
                    FieldKind::Text
                }
            }
            Some("number") => FieldKind::Number,
            Some("integer") => FieldKind::Integer,
            Some("boolean") => FieldKind::Boolean,
            Some("array") => match s.get("items").map(primary_type) {
                Some((Some(t), _)) if s["items"].get("enum").is_none() => match t.as_str() {
                    "string" => FieldKind::Array(ScalarKind::Text),
                    "number" => FieldKind::Array(ScalarKind::Number),
                    "integer" => FieldKind::Array(ScalarKind::Integer),
                    "boolean" => FieldKind::Array(ScalarKind::Boolean),
                    _ => FieldKind::Raw,
                },
                _ if hint.as_deref() == Some("string-list") => FieldKind::Array(ScalarKind::Text),
                _ => FieldKind::Raw,
            },
            Some("object") if s.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty()) => {
                FieldKind::Object(fields_of(s, &pointer))
            }
            _ => FieldKind::Raw,
        }
    };
    Field {
        name: name.to_owned(),
        pointer,
        kind,
        title: text("title").unwrap_or_else(|| humanise(name)),
        description: text("description").unwrap_or_default(),
        default: s.get("default").cloned(),
        required,
        minimum: num("minimum"),
        maximum: num("maximum"),
        exclusive_minimum: num("exclusiveMinimum"),
        exclusive_maximum: num("exclusiveMaximum"),
        min_length: uint("minLength"),
        max_length: uint("maxLength"),
        pattern: text("pattern"),
        sensitive: s.get("x-openwop-sensitive") == Some(&Value::Bool(true))
            || s.get("writeOnly") == Some(&Value::Bool(true))
            || format.as_deref() == Some("password"),
        format,
        hint,
        nullable,
    }
}

/// The first non-null `type`, and whether `null` is allowed.
fn primary_type(s: &Value) -> (Option<String>, bool) {
    match s.get("type") {
        Some(Value::String(t)) => (Some(t.clone()), t == "null"),
        Some(Value::Array(ts)) => {
            let names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            (names.iter().find(|t| **t != "null").map(|t| (*t).to_owned()), names.contains(&"null"))
        }
        _ if s.get("properties").is_some() => (Some("object".into()), false),
        _ => (None, false),
    }
}

/// Long free text gets a multi-line editor: an explicit hint, a large `maxLength`, or a
/// name that says it holds prose.
fn is_multiline(name: &str, s: &Value, hint: Option<&str>) -> bool {
    if hint == Some("textarea") {
        return true;
    }
    if s.get("maxLength").and_then(Value::as_u64).is_some_and(|m| m > 200) {
        return true;
    }
    if s.get("format").is_some() {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    ["prompt", "template", "instructions", "body", "markdown", "notes"].iter().any(|w| lower.contains(w))
}

// The form's values and validation errors, by field pointer: what a form's UI shows where.

/// The value of a number typed as text: a JSON number when it reads as one, else the text
/// itself, which the schema then refuses with its own message. Empty text unsets the value.
pub fn typed_number(text: &str) -> Option<Value> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    match serde_json::from_str::<Value>(t) {
        Ok(v @ Value::Number(_)) => Some(v),
        _ => Some(Value::String(text.to_owned())),
    }
}

/// Attach each validation error to the deepest field it concerns. A `required` error is
/// about the object holding the missing member; it goes to the missing fields themselves.
pub fn map_errors(
    fields: &[Field],
    errors: &[ParamError],
    values: &Map<String, Value>,
) -> HashMap<String, Vec<String>> {
    let mut all = Vec::new();
    flatten(fields, "", &mut all);
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for e in errors {
        if e.keyword == "required" {
            for (parent, f) in &all {
                if *parent == e.path && f.required && value_at(values, &f.pointer).is_none() {
                    out.entry(f.pointer.clone()).or_default().push(format!("{} is required", f.title));
                }
            }
            continue;
        }
        let owner = all
            .iter()
            .map(|(_, f)| f)
            .filter(|f| e.path == f.pointer || e.path.starts_with(&format!("{}/", f.pointer)))
            .max_by_key(|f| f.pointer.len());
        if let Some(f) = owner {
            out.entry(f.pointer.clone()).or_default().push(e.message.clone());
        }
    }
    out
}

/// The summary's lines, each with the field it leads to: a missing member by its field's
/// title ("Item is required (/item)"), another error after its field's title, or after its
/// path when no field holds it; the JSON pointer at fault last. Said once each, in the order
/// of the errors.
pub fn summary_entries(fields: &[Field], errors: &[ParamError], values: &Map<String, Value>) -> Vec<(String, String)> {
    let mut all = Vec::new();
    flatten(fields, "", &mut all);
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut push = |text: String, field: String| {
        if !entries.iter().any(|(t, f)| *t == text && *f == field) {
            entries.push((text, field));
        }
    };
    for e in errors {
        if e.keyword == "required" {
            let missing = all
                .iter()
                .filter(|(parent, f)| *parent == e.path && f.required && value_at(values, &f.pointer).is_none());
            for (_, f) in missing {
                push(format!("{} is required ({})", f.title, f.pointer), f.pointer.clone());
            }
            continue;
        }
        match owner_field(fields, e, values).and_then(|p| all.iter().find(|(_, f)| f.pointer == p)) {
            Some((_, f)) => push(format!("{}: {} ({})", f.title, e.message, e.path), f.pointer.clone()),
            None => push(format!("{}: {}", if e.path.is_empty() { "/" } else { &e.path }, e.message), String::new()),
        }
    }
    entries
}

/// The field an error entry should lead to: the first missing field for `required`, else the
/// deepest field whose pointer holds the error's path.
pub fn owner_field(fields: &[Field], e: &ParamError, values: &Map<String, Value>) -> Option<String> {
    let mut all = Vec::new();
    flatten(fields, "", &mut all);
    if e.keyword == "required" {
        return all
            .iter()
            .find(|(parent, f)| *parent == e.path && f.required && value_at(values, &f.pointer).is_none())
            .map(|(_, f)| f.pointer.clone());
    }
    all.iter()
        .map(|(_, f)| f)
        .filter(|f| e.path == f.pointer || e.path.starts_with(&format!("{}/", f.pointer)))
        .max_by_key(|f| f.pointer.len())
        .map(|f| f.pointer.clone())
}

fn flatten<'a>(fields: &'a [Field], parent: &str, out: &mut Vec<(String, &'a Field)>) {
    for f in fields {
        out.push((parent.to_owned(), f));
        if let FieldKind::Object(children) = &f.kind {
            flatten(children, &f.pointer, out);
        }
    }
}

fn tokens_of(pointer: &str) -> Vec<String> {
    pointer.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~")).collect()
}

/// The value at a JSON pointer into `values`.
pub fn value_at<'a>(values: &'a Map<String, Value>, pointer: &str) -> Option<&'a Value> {
    let mut parts = tokens_of(pointer).into_iter();
    let mut cur = values.get(&parts.next()?)?;
    for p in parts {
        cur = cur.get(&p)?;
    }
    Some(cur)
}

/// Set (or remove) the value at a JSON pointer, creating the objects on the way.
pub fn set_value_at(values: &mut Map<String, Value>, pointer: &str, value: Option<Value>) {
    let parts = tokens_of(pointer);
    let Some((last, path)) = parts.split_last() else { return };
    let mut cur = values;
    for p in path {
        let slot = cur.entry(p.clone()).or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        cur = slot.as_object_mut().expect("made an object above");
    }
    match value {
        Some(v) => {
            cur.insert(last.clone(), v);
        }
        None => {
            cur.remove(last);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_summary_names_fields_by_their_titles_and_every_missing_one() {
        let schema = json!({"type": "object", "required": ["item", "owner"], "properties": {
            "item": {"type": "string", "title": "Item"},
            "owner": {"type": "string", "title": "Owner"},
            "retries": {"type": "integer", "title": "Retries", "maximum": 3}}});
        let form = Form::from_schema(&schema);
        let errors = vec![
            ParamError {
                path: String::new(),
                keyword: "required".into(),
                message: "\"item\" is a required property".into(),
            },
            ParamError {
                path: String::new(),
                keyword: "required".into(),
                message: "\"owner\" is a required property".into(),
            },
            ParamError {
                path: "/retries".into(),
                keyword: "maximum".into(),
                message: "9 is greater than the maximum of 3".into(),
            },
            ParamError { path: "/other".into(), keyword: "type".into(), message: "not a string".into() },
        ];
        let values = json!({"retries": 9}).as_object().unwrap().clone();
        let entries = summary_entries(&form.fields, &errors, &values);
        let said: Vec<(&str, &str)> = entries.iter().map(|(t, f)| (t.as_str(), f.as_str())).collect();
        assert_eq!(
            said,
            [
                ("Item is required (/item)", "/item"),
                ("Owner is required (/owner)", "/owner"),
                ("Retries: 9 is greater than the maximum of 3 (/retries)", "/retries"),
                ("/other: not a string", ""),
            ]
        );
    }

    fn form() -> Form {
        Form::from_schema(&json!({
        "type": "object", "required": ["title", "flag", "tags"],
        "properties": {
            "title": {"type": "string", "title": "Title", "description": "Shown on top", "minLength": 1},
            "systemPrompt": {"type": "string"},
            "tone": {"type": "string", "enum": ["calm", "loud"], "default": "calm"},
            "ratio": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
            "count": {"type": ["integer", "null"], "maximum": 10, "default": 3},
            "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "mixed": {"type": "array", "items": {"type": "object"}},
            "owner": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            "blob": {"type": "object"},
            "untyped": {},
            "secret": {"type": "string", "x-openwop-sensitive": true},
            "site": {"type": "string", "format": "uri", "x-openwop-form": {"kind": "text"}}
        }}))
    }

    #[test]
    fn kinds_follow_the_schema() {
        let f = form();
        let kind = |n: &str| f.field(n).unwrap().kind.clone();
        assert_eq!(kind("title"), FieldKind::Text);
        assert_eq!(kind("systemPrompt"), FieldKind::MultilineText);
        assert_eq!(kind("tone"), FieldKind::Enum(vec![json!("calm"), json!("loud")]));
        assert_eq!(kind("ratio"), FieldKind::Number);
        assert_eq!(kind("count"), FieldKind::Integer);
        assert_eq!(kind("flag"), FieldKind::Boolean);
        assert_eq!(kind("tags"), FieldKind::Array(ScalarKind::Text));
        assert_eq!(kind("mixed"), FieldKind::Raw);
        assert_eq!(kind("blob"), FieldKind::Raw);
        assert_eq!(kind("untyped"), FieldKind::Raw);
        let FieldKind::Object(inner) = kind("owner") else { panic!("owner is a group") };
        assert_eq!(inner[0].pointer, "/owner/name");
        assert!(inner[0].required);
    }

    #[test]
    fn labels_bounds_and_flags() {
        let f = form();
        let title = f.field("title").unwrap();
        assert_eq!((title.title.as_str(), title.description.as_str(), title.required), ("Title", "Shown on top", true));
        assert_eq!(title.min_length, Some(1));
        let ratio = f.field("ratio").unwrap();
        assert_eq!((ratio.minimum, ratio.exclusive_maximum), (Some(0.0), Some(1.0)));
        assert!(f.field("count").unwrap().nullable);
        assert!(f.field("secret").unwrap().sensitive);
        let site = f.field("site").unwrap();
        assert_eq!((site.format.as_deref(), site.hint.as_deref()), (Some("uri"), Some("text")));
    }

    #[test]
    fn initial_values_use_defaults_and_required_empties() {
        let v = Value::Object(form().initial_values());
        assert_eq!(v, json!({"tone": "calm", "count": 3, "flag": false, "tags": []}));
    }

    #[test]
    fn parse_text_prefers_json_but_keeps_text_fields_textual() {
        let f = form();
        assert_eq!(f.field("title").unwrap().parse_text("42").unwrap(), json!("42"));
        assert_eq!(f.field("title").unwrap().parse_text("\"q\"").unwrap(), json!("q"));
        assert_eq!(f.field("title").unwrap().parse_text("hello world").unwrap(), json!("hello world"));
        assert_eq!(f.field("count").unwrap().parse_text("7").unwrap(), json!(7));
        assert_eq!(f.field("count").unwrap().parse_text("seven").unwrap_err(), "expected an integer, got \"seven\"");
        assert_eq!(f.field("tags").unwrap().parse_text("[\"a\"]").unwrap(), json!(["a"]));
    }

    #[test]
    fn names_without_a_title_are_humanised() {
        for (name, want) in [
            ("senderEmail", "Sender email"),
            ("max_retries", "Max retries"),
            ("queueName", "Queue name"),
            ("URLPath", "URL path"),
            ("apiURL", "Api URL"),
            ("retry2Count", "Retry2 count"),
            ("x", "X"),
            ("__", "__"),
        ] {
            assert_eq!(humanise(name), want, "{name}");
        }
        let f = Form::from_schema(&json!({"type": "object", "properties": {"senderEmail": {"type": "string"}}}));
        assert_eq!(f.field("senderEmail").unwrap().title, "Sender email");
    }

    #[test]
    fn pointers_set_and_get_nested_values() {
        let mut v = Map::new();
        set_value_at(&mut v, "/owner/email", Some(json!("a@b.c")));
        set_value_at(&mut v, "/a~1b", Some(json!(1)));
        assert_eq!(Value::Object(v.clone()), json!({"owner": {"email": "a@b.c"}, "a/b": 1}));
        assert_eq!(value_at(&v, "/owner/email"), Some(&json!("a@b.c")));
        set_value_at(&mut v, "/owner/email", None);
        assert_eq!(value_at(&v, "/owner/email"), None);
    }

    #[test]
    fn errors_land_on_the_fields_they_concern() {
        let form = Form::from_schema(&json!({"type": "object", "required": ["name"],
            "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
                           "owner": {"type": "object", "required": ["email"], "properties": {"email": {"type": "string"}}}}}));
        let errors = vec![
            ParamError {
                path: String::new(),
                keyword: "required".into(),
                message: "\"name\" is a required property".into(),
            },
            ParamError { path: "/tags/1".into(), keyword: "type".into(), message: "3 is not a string".into() },
            ParamError { path: "/owner".into(), keyword: "required".into(), message: "\"email\" is required".into() },
        ];
        let values = json!({"tags": ["a", 3], "owner": {}}).as_object().unwrap().clone();
        let map = map_errors(&form.fields, &errors, &values);
        assert_eq!(map["/name"], ["Name is required"]);
        assert_eq!(map["/tags"], ["3 is not a string"]);
        assert_eq!(map["/owner/email"], ["Email is required"]);
    }

    #[test]
    fn typed_numbers_are_kept_as_typed() {
        assert_eq!(typed_number("3"), Some(json!(3)));
        assert_eq!(typed_number(" 2.5 "), Some(json!(2.5)));
        assert_eq!(typed_number("abc"), Some(json!("abc")));
        assert_eq!(typed_number("1."), Some(json!("1.")));
        assert_eq!(typed_number("  "), None);
    }

    #[test]
    fn hints_show_a_format_example_and_the_bounds_in_words() {
        let form = Form::from_schema(&json!({"type": "object", "properties": {
            "site": {"type": "string", "format": "uri"},
            "when": {"type": "string", "format": "ipv4"},
            "n": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10},
            "m": {"type": "number", "maximum": 5},
            "free": {"type": "number"}}}));
        let field = |name: &str| form.fields.iter().find(|f| f.pointer == format!("/{name}")).unwrap();
        assert_eq!(field("site").format_hint().as_deref(), Some("https://…"));
        assert_eq!(field("when").format_hint().as_deref(), Some("ipv4"), "an unknown format names itself");
        assert_eq!(field("n").format_hint(), None);
        assert_eq!(field("n").bounds_hint().as_deref(), Some("≥ 1, < 10"));
        assert_eq!(field("m").bounds_hint().as_deref(), Some("≤ 5"));
        assert_eq!(field("free").bounds_hint(), None);
    }
}

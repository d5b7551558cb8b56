//! A form being filled in, without its widgets: the values as typed, the text typed into
//! number and JSON fields, which fields were touched, the validation errors mapped to their
//! fields, and the problem summary. The editor's chain parameter form, node config form and
//! update review draw it; the owner validates the values and hands the errors over with
//! [`FormFields::set_errors`].

use super::form::{Form, set_value_at, summary_entries, typed_number, value_at};
use super::{FieldKind, ParamError, map_errors};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

pub struct FormFields {
    form: Form,
    values: Map<String, Value>,
    /// Text typed into number and JSON fields, by pointer, kept as typed: `2.5` in an
    /// integer field, or JSON that does not parse yet.
    typed: HashMap<String, String>,
    parse_errors: HashMap<String, String>,
    touched: HashSet<String>,
    /// Set when submitting was reached for: every error shows.
    show_all: bool,
    errors: Vec<ParamError>,
    /// Field pointer → its messages.
    field_errors: HashMap<String, Vec<String>>,
    /// A field to focus and scroll to on the next frame (an error summary entry was clicked).
    focus: Option<String>,
    /// A value changed since the owner last validated.
    stale: bool,
    /// Offer "Make parameter…" on each field's label (the inspector's node config form).
    pub offer_promotion: bool,
    /// The field whose "Make parameter…" was chosen, until the owner takes it.
    promoted: Option<String>,
    /// Enter was pressed in a one-line field (the owner submits).
    entered: bool,
}

/// What the problem summary under a form says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Summary {
    /// Nothing is wrong.
    Valid,
    /// Nothing was touched yet: the required fields still empty, by title, rather than a
    /// list of errors the user has not caused.
    Untouched(Vec<String>),
    /// What is wrong: each entry's text (`path  message`) and the pointer of the field it
    /// leads to (empty when none does).
    Problems(Vec<(String, String)>),
}

impl FormFields {
    pub fn new(form: Form, values: Map<String, Value>) -> Self {
        Self {
            form,
            values,
            typed: HashMap::new(),
            parse_errors: HashMap::new(),
            touched: HashSet::new(),
            show_all: false,
            errors: Vec::new(),
            field_errors: HashMap::new(),
            focus: None,
            stale: true,
            offer_promotion: false,
            promoted: None,
            entered: false,
        }
    }

    pub fn form(&self) -> &Form {
        &self.form
    }

    /// The values as typed (an invalid one included).
    pub fn values(&self) -> &Map<String, Value> {
        &self.values
    }

    /// Put the keyboard focus in the first field (into objects, to their first member), so
    /// the form is filled in from the keyboard alone.
    pub fn focus_first(&mut self) {
        let mut fields = &self.form.fields;
        while let Some(first) = fields.first() {
            match &first.kind {
                FieldKind::Object(children) if !children.is_empty() => fields = children,
                _ => {
                    self.focus = Some(first.pointer.clone());
                    return;
                }
            }
        }
    }

    /// Whether the field at `pointer` is to take the focus now; it does so once.
    pub fn take_focus(&mut self, pointer: &str) -> bool {
        let here = self.focus.as_deref() == Some(pointer);
        if here {
            self.focus = None;
        }
        here
    }

    /// Go to the field at `pointer` (a summary entry was clicked): every error shows.
    pub fn go_to(&mut self, pointer: String) {
        self.focus = Some(pointer);
        self.show_all = true;
    }

    /// Enter was pressed in a one-line field: the owner submits.
    pub fn enter(&mut self) {
        self.entered = true;
    }

    /// Whether Enter was pressed in a one-line field since the last call.
    pub fn take_entered(&mut self) -> bool {
        std::mem::take(&mut self.entered)
    }

    /// "Make parameter…" was chosen on the field at `pointer`.
    pub fn promote(&mut self, pointer: String) {
        self.promoted = Some(pointer);
    }

    /// The pointer of the field whose "Make parameter…" was chosen, once.
    pub fn take_promotion(&mut self) -> Option<String> {
        self.promoted.take()
    }

    /// The user edited or left the field at `pointer`: its errors show from now on.
    pub fn touch(&mut self, pointer: &str) {
        if !self.touched.contains(pointer) {
            self.touched.insert(pointer.to_owned());
        }
    }

    /// A widget set the field at `pointer` (`None`: unset it).
    pub fn set(&mut self, pointer: &str, value: Option<Value>) {
        set_value_at(&mut self.values, pointer, value);
        self.touch(pointer);
        self.stale = true;
    }

    /// The text typed into the number or JSON field (or array item) at `pointer`, while the
    /// form keeps it as typed.
    pub fn typed(&self, pointer: &str) -> Option<&str> {
        self.typed.get(pointer).map(String::as_str)
    }

    /// Text typed into a number field: kept as typed; the value is the number it reads as,
    /// else the text, which the schema refuses with its own message (`None`: empty, unset).
    pub fn type_number(&mut self, pointer: &str, text: String) -> Option<Value> {
        let value = typed_number(&text);
        self.typed.insert(pointer.to_owned(), text);
        value
    }

    /// Text typed into a JSON field: what to set the value to (`Some(None)`: unset, for an
    /// empty box), or nothing while the text does not parse, which is kept and reported.
    pub fn type_json(&mut self, pointer: &str, text: String) -> Option<Option<Value>> {
        if text.trim().is_empty() {
            self.parse_errors.remove(pointer);
            self.typed.remove(pointer);
            return Some(None);
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => {
                self.parse_errors.remove(pointer);
                self.typed.remove(pointer);
                Some(Some(v))
            }
            Err(e) => {
                self.parse_errors.insert(pointer.to_owned(), format!("not valid JSON: {e}"));
                self.typed.insert(pointer.to_owned(), text);
                self.stale = true;
                None
            }
        }
    }

    /// The rows of the array at `pointer` moved: texts typed into its items would stick to
    /// the wrong row.
    pub fn forget_typed_items(&mut self, pointer: &str) {
        let prefix = format!("{pointer}/");
        self.typed.retain(|k, _| !k.starts_with(&prefix));
    }

    /// Whether a value changed since the last [`FormFields::set_errors`].
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// The validation errors of the current values; each is shown under the field it concerns.
    pub fn set_errors(&mut self, errors: Vec<ParamError>) {
        self.field_errors = map_errors(&self.form.fields, &errors, &self.values);
        self.errors = errors;
        self.stale = false;
    }

    /// The messages to show under the field at `pointer`: none until it was touched or
    /// every error shows.
    pub fn shown_errors(&self, pointer: &str) -> Vec<String> {
        if !self.show_all && !self.touched.contains(pointer) {
            return Vec::new();
        }
        let mut shown = self.field_errors.get(pointer).cloned().unwrap_or_default();
        shown.extend(self.parse_errors.get(pointer).cloned());
        shown
    }

    /// The parameters whose values are invalid (a field of theirs has an error), by name.
    pub fn invalid_params(&self) -> HashSet<String> {
        let with_errors = self.field_errors.iter().filter(|(_, e)| !e.is_empty()).map(|(p, _)| p);
        with_errors
            .chain(self.parse_errors.keys())
            .filter_map(|p| p.strip_prefix('/')?.split('/').next())
            .map(str::to_owned)
            .collect()
    }

    /// Schema errors, or text in a JSON field that does not parse.
    pub fn has_problems(&self) -> bool {
        !self.errors.is_empty() || !self.parse_errors.is_empty()
    }

    /// Show the errors of every field (a submit was reached for while invalid).
    pub fn reveal(&mut self) {
        self.show_all = true;
    }

    /// What the summary under the form says.
    pub fn summary(&self) -> Summary {
        if !self.has_problems() {
            return Summary::Valid;
        }
        if !self.show_all && self.touched.is_empty() {
            let required =
                self.form.fields.iter().filter(|f| f.required && value_at(&self.values, &f.pointer).is_none());
            return Summary::Untouched(required.map(|f| f.title.clone()).collect());
        }
        let mut entries = summary_entries(&self.form.fields, &self.errors, &self.values);
        for (ptr, msg) in &self.parse_errors {
            entries.push((format!("{ptr}: {msg}"), ptr.clone()));
        }
        Summary::Problems(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields() -> FormFields {
        let schema = json!({"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "title": "Name"},
            "count": {"type": "integer"},
            "extra": {"type": "object"},
            "group": {"type": "object", "properties": {"inner": {"type": "string"}}}}});
        FormFields::new(Form::from_schema(&schema), Map::new())
    }

    fn required_missing() -> ParamError {
        ParamError { path: String::new(), keyword: "required".into(), message: "name is required".into() }
    }

    #[test]
    fn errors_show_once_a_field_is_touched_or_every_one_is_revealed() {
        let mut f = fields();
        f.set_errors(vec![required_missing()]);
        assert!(f.has_problems() && !f.is_stale());
        assert_eq!(f.shown_errors("/name"), Vec::<String>::new());
        assert_eq!(f.summary(), Summary::Untouched(vec!["Name".into()]));
        f.touch("/name");
        assert_eq!(f.shown_errors("/name"), ["Name is required"]);
        assert_eq!(f.summary(), Summary::Problems(vec![("Name is required (/name)".into(), "/name".into())]));
        let mut g = fields();
        g.set_errors(vec![required_missing()]);
        g.reveal();
        assert_eq!(g.shown_errors("/name"), ["Name is required"]);
        assert_eq!(g.invalid_params(), HashSet::from(["name".to_owned()]));
    }

    #[test]
    fn typed_text_is_kept_and_json_that_does_not_parse_is_a_problem() {
        let mut f = fields();
        f.set_errors(Vec::new());
        assert_eq!(f.summary(), Summary::Valid);
        assert_eq!(f.type_number("/count", "2.5".into()), Some(json!(2.5)));
        assert_eq!(f.typed("/count"), Some("2.5"));
        assert_eq!(f.type_number("/count", "abc".into()), Some(json!("abc")), "left to the schema to refuse");
        assert_eq!(f.type_number("/count", " ".into()), None, "empty unsets");
        assert_eq!(f.type_json("/extra", "{\"a\":".into()), None);
        assert!(f.has_problems() && f.is_stale());
        assert!(f.shown_errors("/extra").is_empty(), "not touched yet");
        f.touch("/extra");
        assert!(f.shown_errors("/extra")[0].starts_with("not valid JSON"));
        assert_eq!(f.invalid_params(), HashSet::from(["extra".to_owned()]));
        assert_eq!(f.type_json("/extra", "{\"a\": 1}".into()), Some(Some(json!({"a": 1}))));
        assert_eq!(f.typed("/extra"), None);
        assert_eq!(f.type_json("/extra", "  ".into()), Some(None));
        f.set("/extra", Some(json!({"a": 1})));
        assert_eq!(f.values()["extra"], json!({"a": 1}));
        f.set_errors(Vec::new());
        assert!(!f.has_problems());
    }

    #[test]
    fn focus_goes_to_the_first_leaf_once_and_summary_links_reveal_everything() {
        let schema = json!({"type": "object", "properties": {
            "group": {"type": "object", "properties": {"inner": {"type": "string"}}}, "last": {"type": "string"}}});
        let mut f = FormFields::new(Form::from_schema(&schema), Map::new());
        f.focus_first();
        assert!(!f.take_focus("/group"));
        assert!(f.take_focus("/group/inner"));
        assert!(!f.take_focus("/group/inner"), "once");
        f.go_to("/last".into());
        assert!(f.take_focus("/last"));
        f.set_errors(vec![ParamError { path: "/last".into(), keyword: "type".into(), message: "bad".into() }]);
        assert_eq!(f.shown_errors("/last"), ["bad"], "a link reveals every error");
    }

    #[test]
    fn enter_promotion_and_moved_rows_are_taken_once() {
        let mut f = fields();
        f.enter();
        assert!(f.take_entered() && !f.take_entered());
        f.promote("/name".into());
        assert_eq!(f.take_promotion().as_deref(), Some("/name"));
        assert_eq!(f.take_promotion(), None);
        f.type_number("/list/0", "1".into());
        f.type_number("/listing", "2".into());
        f.forget_typed_items("/list");
        assert_eq!((f.typed("/list/0"), f.typed("/listing")), (None, Some("2")));
    }
}

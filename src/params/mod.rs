//! Parameter values: schema defaults, validation with the chain's compiled validator, and
//! the form model the editor draws (data only; no widgets here).

mod fields;
mod form;

pub use fields::{FormFields, Summary};
pub use form::{Field, FieldKind, Form, ScalarKind, map_errors, owner_field, set_value_at, typed_number, value_at};

use crate::error::{Error, code};
use crate::schemas::UserSchema;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// What the parameter checks read of a chain: its id and place (for messages), its
/// `parameters` schema and that schema compiled. `pack::Chain` implements it, so this module
/// sits below `pack` and knows nothing of packs.
pub trait ParameterSchema {
    fn chain_id(&self) -> &str;
    /// JSON pointer of the chain in its pack.
    fn pointer(&self) -> String;
    fn parameters(&self) -> &Value;
    /// The compiled `parameters` schema, or why it does not compile.
    fn validator(&self) -> Result<&Arc<UserSchema>, &str>;

    /// Declared parameter properties (name → subschema).
    fn parameter_properties(&self) -> Option<&Map<String, Value>> {
        self.parameters().get("properties").and_then(Value::as_object)
    }
}

/// One failed constraint in a parameter object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    /// JSON pointer into the parameter object (`""` for the object itself).
    pub path: String,
    pub keyword: String,
    pub message: String,
}

impl ParamError {
    pub fn to_json(&self) -> Value {
        json!({"path": self.path, "keyword": self.keyword, "message": self.message})
    }
}

/// Fill absent properties from their schema `default`, recursing into present objects.
pub fn apply_defaults(schema: &Value, values: &mut Map<String, Value>) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return };
    for (name, sub) in props {
        match values.get_mut(name) {
            None => {
                if let Some(d) = sub.get("default") {
                    values.insert(name.clone(), d.clone());
                }
            }
            Some(Value::Object(inner)) => apply_defaults(sub, inner),
            Some(_) => {}
        }
    }
}

/// The violations of the chain's `parameters` schema by `values`, bounded as
/// [`crate::schemas::UserSchema::violations`] says.
pub fn check(chain: &impl ParameterSchema, values: &Value) -> Result<Vec<ParamError>, Error> {
    let validator = chain.validator().map_err(|msg| {
        Error::new(
            code::PARAMETERS_SCHEMA_INVALID,
            format!("chain {} has a `parameters` block that is not a valid JSON Schema: {msg}", chain.chain_id()),
        )
        .with("chainId", chain.chain_id())
        .with("path", format!("{}/parameters", chain.pointer()))
    })?;
    Ok(validator
        .violations(values)
        .into_iter()
        .map(|v| ParamError { path: v.pointer, keyword: v.keyword, message: v.message })
        .collect())
}

/// Violations by the `default`s of the top-level parameters, each checked against its own
/// property schema (constraints on the whole object, such as `required`, aside). Pointers
/// are into the defaults object (`/name/...`).
pub fn default_violations(chain: &impl ParameterSchema) -> Vec<crate::schemas::Violation> {
    let Some(props) = chain.parameter_properties() else { return Vec::new() };
    let defaults: Map<String, Value> =
        props.iter().filter_map(|(k, s)| Some((k.clone(), s.get("default")?.clone()))).collect();
    let Value::Object(root) = chain.parameters() else { return Vec::new() };
    if defaults.is_empty() {
        return Vec::new();
    }
    // Only `properties` applies to the defaults object, with whatever its `$ref`s may name.
    let keep = ["$schema", "$id", "$defs", "definitions", "properties"];
    // A schema with nothing else that constrains an object says the same of the defaults
    // as that part of it: its validator, compiled once for the chain, is asked, and no
    // second schema (as large as the parameter list) is copied and compiled.
    let says_nothing_else = |(k, v): (&String, &Value)| {
        keep.contains(&k.as_str())
            || matches!(k.as_str(), "title" | "description" | "$comment" | "examples" | "default" | "deprecated")
            || (k == "type" && v.as_str() == Some("object"))
    };
    if root.iter().all(says_nothing_else)
        && let Ok(validator) = chain.validator()
    {
        return validator.violations(&Value::Object(defaults));
    }
    let schema: Map<String, Value> =
        root.iter().filter(|(k, _)| keep.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
    match crate::schemas::compile(&Value::Object(schema)) {
        Ok(schema) => schema.violations(&Value::Object(defaults)),
        // A schema that does not compile is reported as parameters_schema_invalid.
        Err(_) => Vec::new(),
    }
}

/// Whether `parameters` is a schema that certainly compiles and says nothing of its
/// defaults but their JSON types, and every default has its type: the common shape, and
/// what extraction writes (`{"type": "object", "properties": {"p": {"type": "string",
/// "default": "x"}}}`). Loading then needs no compiled validator to know it has nothing to
/// report: compiling one for 8,000 parameters was a fifth of extracting them, and 8.5 MB
/// at the peak. Any other keyword, or a default that is not plainly of its type, says
/// false, and the compiled validator decides as before.
pub fn defaults_plainly_hold(parameters: &Value) -> bool {
    /// Keywords that constrain nothing, with the type the meta-schema gives them.
    fn annotation_ok(key: &str, v: &Value) -> bool {
        match key {
            "title" | "description" | "$comment" => v.is_string(),
            "examples" => v.is_array(),
            "deprecated" | "readOnly" | "writeOnly" => v.is_boolean(),
            _ => false,
        }
    }
    fn has_type(v: &Value, ty: &str) -> bool {
        match ty {
            "string" => v.is_string(),
            "number" => v.is_number(),
            "integer" => v.as_i64().is_some() || v.as_u64().is_some(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            "array" => v.is_array(),
            "object" => v.is_object(),
            _ => false,
        }
    }
    let Value::Object(root) = parameters else { return false };
    let mut properties = None;
    for (k, v) in root {
        let ok = match k.as_str() {
            "type" => v.as_str() == Some("object"),
            "properties" => {
                properties = v.as_object();
                properties.is_some()
            }
            "required" => v.as_array().is_some_and(|names| {
                let mut seen = std::collections::HashSet::new();
                names.iter().all(|n| n.as_str().is_some_and(|n| seen.insert(n)))
            }),
            k => annotation_ok(k, v),
        };
        if !ok {
            return false;
        }
    }
    properties.into_iter().flatten().all(|(_, property)| {
        let Value::Object(p) = property else { return false };
        let ty = match p.get("type") {
            None => None,
            Some(Value::String(t))
                if ["string", "number", "integer", "boolean", "null", "array", "object"].contains(&t.as_str()) =>
            {
                Some(t.as_str())
            }
            Some(_) => return false,
        };
        p.iter().all(|(k, v)| k == "type" || k == "default" || annotation_ok(k, v))
            && p.get("default").is_none_or(|d| ty.is_none_or(|t| has_type(d, t)))
    })
}

/// Apply defaults, then validate; refuse with `chain_parameter_invalid` listing every error.
pub fn resolve(chain: &impl ParameterSchema, supplied: Map<String, Value>) -> Result<Map<String, Value>, Error> {
    let (values, errors) = with_defaults_checked(chain, supplied)?;
    if errors.is_empty() {
        return Ok(values);
    }
    Err(invalid(chain.chain_id(), &errors))
}

/// What is wrong with `values` as typed once their defaults are applied: the checks a form
/// shows, through the same route as [`resolve`].
pub fn violations(chain: &impl ParameterSchema, values: &Map<String, Value>) -> Result<Vec<ParamError>, Error> {
    Ok(with_defaults_checked(chain, values.clone())?.1)
}

fn with_defaults_checked(
    chain: &impl ParameterSchema,
    supplied: Map<String, Value>,
) -> Result<(Map<String, Value>, Vec<ParamError>), Error> {
    let as_value = Value::Object(prepare(chain, supplied, Values::Preview)?);
    let errors = check(chain, &as_value)?;
    let Value::Object(values) = as_value else { unreachable!("built as an object") };
    Ok((values, errors))
}

/// How supplied values become the values a chain expands with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// Exactly as supplied: no defaults, no checks (the reference library's own contract).
    AsGiven,
    /// Defaults applied, not checked: a preview of values still being typed.
    Preview,
    /// Defaults applied, then checked against the chain's schema ([`resolve`]).
    Checked,
}

/// The one route by which supplied values get their defaults (and, when `how` says so,
/// their checks) on the way into an expansion.
pub fn prepare(
    chain: &impl ParameterSchema,
    supplied: Map<String, Value>,
    how: Values,
) -> Result<Map<String, Value>, Error> {
    match how {
        Values::AsGiven => Ok(supplied),
        Values::Preview => {
            let mut values = supplied;
            apply_defaults(chain.parameters(), &mut values);
            Ok(values)
        }
        Values::Checked => resolve(chain, supplied),
    }
}

/// The `chain_parameter_invalid` refusal for a list of errors.
pub fn invalid(chain_id: &str, errors: &[ParamError]) -> Error {
    let summary: Vec<String> =
        errors.iter().map(|e| format!("{}: {}", if e.path.is_empty() { "/" } else { &e.path }, e.message)).collect();
    Error::new(code::CHAIN_PARAMETER_INVALID, format!("parameters for {chain_id} are invalid: {}", summary.join("; ")))
        .with("chainId", chain_id)
        .with("path", errors.first().map(|e| e.path.clone()).unwrap_or_default())
        .with("errors", errors.iter().map(ParamError::to_json).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::OnceLock;

    /// A chain's parameter schema alone, compiled on first use as `pack::Chain` does.
    struct Schema {
        parameters: Value,
        compiled: OnceLock<Result<Arc<UserSchema>, String>>,
    }

    impl ParameterSchema for Schema {
        fn chain_id(&self) -> &str {
            "c"
        }
        fn pointer(&self) -> String {
            "/chains/0".into()
        }
        fn parameters(&self) -> &Value {
            &self.parameters
        }
        fn validator(&self) -> Result<&Arc<UserSchema>, &str> {
            self.compiled.get_or_init(|| crate::schemas::compile(&self.parameters)).as_ref().map_err(String::as_str)
        }
    }

    fn chain(parameters: Value) -> Schema {
        Schema { parameters, compiled: OnceLock::new() }
    }

    #[test]
    fn defaults_fill_only_absent_values() {
        let schema = json!({"properties": {"a": {"default": 1}, "b": {"default": 2},
            "o": {"type": "object", "properties": {"x": {"default": "dx"}}}}});
        let mut v = json!({"b": null, "o": {}}).as_object().unwrap().clone();
        apply_defaults(&schema, &mut v);
        assert_eq!(Value::Object(v), json!({"b": null, "o": {"x": "dx"}, "a": 1}));
    }

    #[test]
    fn every_error_is_reported_with_path_and_keyword() {
        let c = chain(json!({"type": "object", "required": ["name", "n"],
            "properties": {"name": {"type": "string", "minLength": 3}, "n": {"type": "integer", "maximum": 5},
                           "mail": {"type": "string", "format": "email"},
                           "tags": {"type": "array", "items": {"type": "string"}}}}));
        let err = resolve(&c, json!({"name": "ab", "mail": "nope", "tags": ["ok", 3]}).as_object().unwrap().clone())
            .unwrap_err();
        assert_eq!(err.code, code::CHAIN_PARAMETER_INVALID);
        let errs = err.details["errors"].as_array().unwrap();
        let pairs: Vec<(String, String)> = errs
            .iter()
            .map(|e| (e["path"].as_str().unwrap().to_owned(), e["keyword"].as_str().unwrap().to_owned()))
            .collect();
        for want in [("", "required"), ("/name", "minLength"), ("/mail", "format"), ("/tags/1", "type")] {
            assert!(pairs.contains(&(want.0.to_owned(), want.1.to_owned())), "{want:?} not in {pairs:?}");
        }
    }

    #[test]
    fn defaults_are_validated_too() {
        let c = chain(json!({"type": "object", "properties": {"n": {"type": "integer", "default": "x"}}}));
        let err = resolve(&c, Map::new()).unwrap_err();
        assert_eq!(err.details["path"], "/n");
    }

    #[test]
    fn defaults_are_checked_against_their_own_property_schemas() {
        let c = chain(json!({"type": "object", "required": ["other"], "$defs": {"small": {"maximum": 3}},
            "properties": {"n": {"$ref": "#/$defs/small", "default": 5}, "ok": {"type": "string", "default": "x"},
                           "list": {"type": "array", "items": {"type": "integer"}, "default": [1, "two"]},
                           "other": {"type": "string"}}}));
        let got: Vec<(String, String)> = default_violations(&c).into_iter().map(|v| (v.pointer, v.keyword)).collect();
        assert_eq!(got, [("/n".to_owned(), "maximum".to_owned()), ("/list/1".to_owned(), "type".to_owned())]);
        let fine = chain(json!({"type": "object", "properties": {"n": {"type": "integer", "default": 1}}}));
        assert!(default_violations(&fine).is_empty());
    }

    /// Where the plain check says there is nothing to report, the compiled validator agrees:
    /// the schema compiles and no default violates it. Every property type against a
    /// default of every JSON kind, with annotations of the right and wrong types, and root
    /// keywords that do and do not constrain the defaults.
    #[test]
    fn the_plain_check_only_ever_agrees_with_the_validator() {
        let types = [None, Some("string"), Some("number"), Some("integer"), Some("boolean"), Some("null")];
        let more_types = [Some("array"), Some("object"), Some("bogus")];
        let defaults = [
            json!("x"),
            json!(1),
            json!(1.5),
            json!(2.0),
            json!(true),
            json!(null),
            json!([1]),
            json!({"a": 1}),
            json!(18446744073709551616u128 as f64),
            serde_json::from_str::<Value>("18446744073709551616").unwrap(),
        ];
        let extras = [
            json!({}),
            json!({"title": "T"}),
            json!({"title": 5}),
            json!({"examples": [1]}),
            json!({"deprecated": "no"}),
            json!({"minLength": 1}),
            json!({"format": "email"}),
        ];
        let roots = [
            json!({"type": "object"}),
            json!({}),
            json!({"required": ["p"]}),
            json!({"required": ["p", "p"]}),
            json!({"required": "p"}),
            json!({"type": "array"}),
            json!({"additionalProperties": false}),
            json!({"description": "d"}),
        ];
        let mut plain = 0;
        for ty in types.iter().chain(&more_types) {
            for default in &defaults {
                for extra in &extras {
                    for root in &roots {
                        let mut prop = extra.clone();
                        if let Some(t) = ty {
                            prop["type"] = json!(t);
                        }
                        prop["default"] = default.clone();
                        let mut schema = root.clone();
                        schema["properties"] = json!({"p": prop, "q": {"type": "string"}});
                        if !defaults_plainly_hold(&schema) {
                            continue;
                        }
                        plain += 1;
                        let c = chain(schema.clone());
                        assert!(c.validator().is_ok(), "{schema}");
                        assert!(default_violations(&c).is_empty(), "{schema}: {:?}", default_violations(&c));
                    }
                }
            }
        }
        assert!(plain > 100, "only {plain} schemas were plain");
        let extracted = json!({"type": "object", "properties": {"p0": {"type": "string", "default": "value 0"}}});
        assert!(defaults_plainly_hold(&extracted));
        assert!(!defaults_plainly_hold(
            &json!({"type": "object", "properties": {"n": {"type": "integer", "default": "x"}}})
        ));
    }

    #[test]
    fn valid_values_pass_with_defaults_applied() {
        let c = chain(json!({"type": "object", "properties": {"n": {"type": "integer", "default": 3}}}));
        assert_eq!(Value::Object(resolve(&c, Map::new()).unwrap()), json!({"n": 3}));
    }

    #[test]
    fn invalid_parameter_schema_is_reported_not_panicked() {
        let c = chain(json!({"type": 12}));
        assert_eq!(check(&c, &json!({})).unwrap_err().code, code::PARAMETERS_SCHEMA_INVALID);
    }
}

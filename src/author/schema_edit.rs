//! A chain's parameter schema edited property by property, as a pack view's form edits it:
//! the keywords the form shows are set or cleared and every other keyword is kept. Renaming
//! a parameter renames its tokens in the fragment, and removing a used one writes its default
//! back where its tokens were, so the chain keeps expanding to the same nodes.

use super::is_param_name;
use crate::error::{Error, Result, code};
use crate::grammar::jsstring::js_string;
use crate::grammar::token::{Spelling, tokens};
use serde_json::{Map, Value, json};

/// The JSON-Schema types a parameter may have (`null` too: promoting a null infers it).
pub const PARAM_TYPES: [&str; 7] = ["string", "number", "integer", "boolean", "array", "object", "null"];

/// One parameter as the form shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParamSpec {
    pub name: String,
    /// `type`, when it is a single type name.
    pub type_name: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub default: Option<Value>,
    pub enum_values: Option<Vec<Value>>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub pattern: Option<String>,
    pub format: Option<String>,
    /// Listed in `parameters.required`.
    pub required: bool,
    /// `x-openwop-sensitive: true`.
    pub sensitive: bool,
}

impl ParamSpec {
    fn read(name: &str, prop: &Value, required: bool) -> Self {
        let text = |k: &str| prop.get(k).and_then(Value::as_str).map(str::to_owned);
        Self {
            name: name.to_owned(),
            type_name: text("type"),
            title: text("title"),
            description: text("description"),
            default: prop.get("default").cloned(),
            enum_values: prop.get("enum").and_then(Value::as_array).cloned(),
            minimum: prop.get("minimum").and_then(Value::as_f64),
            maximum: prop.get("maximum").and_then(Value::as_f64),
            pattern: text("pattern"),
            format: text("format"),
            required,
            sensitive: prop.get("x-openwop-sensitive") == Some(&Value::Bool(true)),
        }
    }

    /// `prop` with this spec's keywords set or removed; other keywords stay as they were.
    fn write(&self, mut prop: Map<String, Value>) -> Map<String, Value> {
        let mut set = |key: &str, v: Option<Value>| match v {
            Some(v) => {
                prop.insert(key.to_owned(), v);
            }
            None => {
                prop.shift_remove(key);
            }
        };
        set("type", self.type_name.clone().map(Value::String));
        set("title", self.title.clone().map(Value::String));
        set("description", self.description.clone().map(Value::String));
        set("default", self.default.clone());
        set("enum", self.enum_values.clone().map(Value::Array));
        set("minimum", self.minimum.map(number));
        set("maximum", self.maximum.map(number));
        set("pattern", self.pattern.clone().map(Value::String));
        set("format", self.format.clone().map(Value::String));
        set("x-openwop-sensitive", self.sensitive.then_some(Value::Bool(true)));
        prop
    }
}

/// The chain's parameters in declaration order.
pub fn param_specs(chain: &Value) -> Vec<ParamSpec> {
    let required = required_names(chain);
    chain
        .pointer("/parameters/properties")
        .and_then(Value::as_object)
        .map(|props| props.iter().map(|(k, p)| ParamSpec::read(k, p, required.contains(k))).collect())
        .unwrap_or_default()
}

fn required_names(chain: &Value) -> Vec<String> {
    chain
        .pointer("/parameters/required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// `chain` with parameter `old` (a new one when `None`) set to `spec`. A new name must follow
/// the token grammar and be free; renaming renames every token of the old name.
pub fn set_param(chain: &Value, old: Option<&str>, spec: &ParamSpec) -> Result<Value> {
    let name = spec.name.as_str();
    let refuse = |msg: String| Error::new(code::INVALID_REQUEST, msg).with("param", name);
    if !is_param_name(name) {
        return Err(refuse(format!(
            "\"{name}\" cannot be a parameter name: use letters, digits and _, starting with a letter or _ \
             (tokens write it as {{{{params.{name}}}}} and read only such names)"
        )));
    }
    if let Some(t) = spec.type_name.as_deref().filter(|t| !PARAM_TYPES.contains(t)) {
        return Err(refuse(format!("\"{t}\" is not a parameter type: choose one of {}", PARAM_TYPES.join(", "))));
    }
    let mut chain = chain.clone();
    let Some(obj) = chain.as_object_mut() else { return Err(refuse("a chain is a JSON object".into())) };
    let produced = obj.get("producedVariables").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if produced.iter().any(|pv| pv.get("name").and_then(Value::as_str) == Some(name)) {
        return Err(refuse(format!(
            "\"{name}\" is a produced variable of this chain, and a parameter may not share its name: choose \
             another name"
        )));
    }
    let params = obj.entry("parameters").or_insert_with(|| json!({"type": "object"}));
    if !params.is_object() {
        *params = json!({"type": "object"});
    }
    let params = params.as_object_mut().expect("object");
    let props = params.entry("properties").or_insert_with(|| json!({}));
    if !props.is_object() {
        *props = json!({});
    }
    let props = props.as_object_mut().expect("object");
    if old != Some(name) && props.contains_key(name) {
        return Err(refuse(format!(
            "the chain already has a parameter \"{name}\": choose another name, or edit that one"
        )));
    }
    let existing = match old {
        Some(o) => match props.get(o) {
            Some(Value::Object(p)) => p.clone(),
            Some(_) => Map::new(),
            None => return Err(refuse(format!("the chain has no parameter \"{o}\"")).with("param", o)),
        },
        None => Map::new(),
    };
    let written = Value::Object(spec.write(existing));
    match old {
        // Renamed in place, so the form keeps its order.
        Some(o) if o != name => {
            let at = props.keys().position(|k| k == o).expect("checked above");
            props.shift_remove(o);
            props.shift_insert(at, name.to_owned(), written);
        }
        _ => {
            props.insert(name.to_owned(), written);
        }
    }
    let mut required: Vec<Value> = params
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter(|r| r.as_str() != old && r.as_str() != Some(name)).cloned().collect())
        .unwrap_or_default();
    if spec.required {
        required.push(Value::String(name.to_owned()));
    }
    if required.is_empty() {
        params.shift_remove("required");
    } else {
        params.insert("required".into(), Value::Array(required));
    }
    if let Some(o) = old.filter(|o| *o != name) {
        rewrite_tokens(&mut chain, o, |spelling| Some(Value::String(token_text(spelling, name))));
    }
    Ok(chain)
}

/// `chain` without parameter `name`. Its tokens are replaced by its default (typed for a
/// whole-value token, as text inside other text), exactly what expanding with the default did;
/// a used parameter without a default is refused.
pub fn remove_param(chain: &Value, name: &str) -> Result<Value> {
    let spec = param_specs(chain).into_iter().find(|p| p.name == name).ok_or_else(|| {
        Error::new(code::INVALID_REQUEST, format!("the chain has no parameter \"{name}\"")).with("param", name)
    })?;
    let mut chain = chain.clone();
    let uses = rewrite_tokens(&mut chain.clone(), name, |_| None);
    match (&spec.default, uses) {
        (_, 0) => {}
        (Some(default), _) => {
            rewrite_tokens(&mut chain, name, |_| Some(default.clone()));
        }
        (None, n) => {
            return Err(Error::new(
                code::INVALID_REQUEST,
                format!(
                    "parameter \"{name}\" is used by {} and has no default to put in their place",
                    crate::words::count(n, "token", "tokens")
                ),
            )
            .with("param", name)
            .with("uses", n));
        }
    }
    let params = chain.get_mut("parameters").and_then(Value::as_object_mut).expect("the parameter was found");
    if let Some(props) = params.get_mut("properties").and_then(Value::as_object_mut) {
        props.shift_remove(name);
    }
    if let Some(req) = params.get_mut("required").and_then(Value::as_array_mut) {
        req.retain(|r| r.as_str() != Some(name));
        if req.is_empty() {
            params.shift_remove("required");
        }
    }
    Ok(chain)
}

/// A bound as JSON: an integer when whole, as hand-written schemas have it.
fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 { json!(v as i64) } else { json!(v) }
}

fn token_text(spelling: Spelling, name: &str) -> String {
    match spelling {
        Spelling::Braces => format!("{{{{params.{name}}}}}"),
        Spelling::Angles => format!("<<params.{name}>>"),
    }
}

/// Replace every token naming `name` in the chain's substitutable strings: a whole-value
/// token by `with`'s value, an embedded one by its text. `with` returning `None` only counts.
/// Returns how many tokens were found.
fn rewrite_tokens(chain: &mut Value, name: &str, with: impl Fn(Spelling) -> Option<Value>) -> usize {
    let mut count = 0;
    let Some(nodes) = chain.pointer_mut("/dag/nodes").and_then(Value::as_array_mut) else { return 0 };
    for node in nodes {
        for key in ["/config", "/inputs", "/compensation/inputMapping"] {
            if let Some(v) = node.pointer_mut(key) {
                walk(v, name, &with, &mut count);
            }
        }
    }
    count
}

fn walk(v: &mut Value, name: &str, with: &impl Fn(Spelling) -> Option<Value>, count: &mut usize) {
    match v {
        Value::String(s) => {
            let found: Vec<_> =
                tokens(s).into_iter().filter(|t| t.name == name).map(|t| (t.start, t.end, t.spelling)).collect();
            if found.is_empty() {
                return;
            }
            *count += found.len();
            if let [(0, end, spelling)] = found.as_slice()
                && *end == s.len()
            {
                if let Some(new) = with(*spelling) {
                    *v = new;
                }
                return;
            }
            let mut out = String::with_capacity(s.len());
            let mut last = 0;
            for (start, end, spelling) in &found {
                let Some(new) = with(*spelling) else { return };
                out.push_str(&s[last..*start]);
                out.push_str(&js_string(&new));
                last = *end;
            }
            out.push_str(&s[last..]);
            *s = out;
        }
        Value::Array(items) => items.iter_mut().for_each(|x| walk(x, name, with, count)),
        Value::Object(m) => m.values_mut().for_each(|x| walk(x, name, with, count)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain() -> Value {
        json!({"chainId": "c", "version": "1.0.0", "label": "L", "description": "d",
            "parameters": {"type": "object", "required": ["q"], "properties": {
                "q": {"type": "string", "default": "news", "x-openwop-form": {"kind": "text"}},
                "n": {"type": "integer", "default": 3, "minimum": 1}}},
            "dag": {"nodes": [{"id": "a", "typeId": "core.x", "config": {
                "t": "About {{params.q}} and <<params.q>>", "q": "{{params.q}}", "n": "{{params.n}}", "k": "{{params.qq}}"}}]}})
    }

    #[test]
    fn specs_read_the_form_keywords() {
        let specs = param_specs(&chain());
        assert_eq!(specs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["q", "n"]);
        assert!(specs[0].required && !specs[1].required);
        assert_eq!((specs[1].minimum, specs[1].default.clone()), (Some(1.0), Some(json!(3))));
    }

    #[test]
    fn renaming_keeps_position_other_keywords_and_every_token() {
        let mut spec = param_specs(&chain()).remove(0);
        spec.name = "topic".into();
        spec.title = Some("Topic".into());
        spec.pattern = Some("^[a-z]+$".into());
        spec.sensitive = true;
        let c = set_param(&chain(), Some("q"), &spec).unwrap();
        let props = c["parameters"]["properties"].as_object().unwrap();
        assert_eq!(props.keys().collect::<Vec<_>>(), ["topic", "n"]);
        assert_eq!(
            props["topic"],
            json!({"type": "string", "default": "news", "x-openwop-form": {"kind": "text"},
            "title": "Topic", "pattern": "^[a-z]+$", "x-openwop-sensitive": true})
        );
        assert_eq!(c["parameters"]["required"], json!(["topic"]));
        assert_eq!(
            c["dag"]["nodes"][0]["config"],
            json!({"t": "About {{params.topic}} and <<params.topic>>",
            "q": "{{params.topic}}", "n": "{{params.n}}", "k": "{{params.qq}}"})
        );
    }

    #[test]
    fn new_parameters_and_refusals() {
        let spec = ParamSpec {
            name: "flag".into(),
            type_name: Some("boolean".into()),
            default: Some(json!(false)),
            ..Default::default()
        };
        let c = set_param(&chain(), None, &spec).unwrap();
        assert_eq!(c["parameters"]["properties"]["flag"], json!({"type": "boolean", "default": false}));
        for (old, name, ty) in
            [(None, "n", None), (None, "a-b", None), (Some("ghost"), "x", None), (None, "x", Some("date"))]
        {
            let spec = ParamSpec { name: name.into(), type_name: ty.map(str::to_owned), ..Default::default() };
            let err = set_param(&chain(), old, &spec).unwrap_err();
            assert_eq!(err.code, code::INVALID_REQUEST, "{name}");
        }
    }

    #[test]
    fn removing_writes_the_default_back() {
        let c = remove_param(&chain(), "q").unwrap();
        assert_eq!(c["dag"]["nodes"][0]["config"]["t"], "About news and news");
        assert_eq!(c["dag"]["nodes"][0]["config"]["q"], "news");
        assert!(c["parameters"].get("required").is_none());
        let c = remove_param(&c, "n").unwrap();
        assert_eq!(c["dag"]["nodes"][0]["config"]["n"], 3, "a whole-value token gets the typed default");
        let mut no_default = chain();
        no_default["parameters"]["properties"]["n"].as_object_mut().unwrap().remove("default");
        assert_eq!(remove_param(&no_default, "n").unwrap_err().details["uses"], 1);
    }
}

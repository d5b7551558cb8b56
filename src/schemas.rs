//! The seed JSON Schemas, embedded at build time and compiled once per process.
//!
//! Nothing is fetched at run time: cross-file `$ref`s resolve against the embedded set,
//! and the three refs the seed does not ship (`agent-ref`, `prompt-ref`, `agent-manifest`)
//! resolve to `{}`.

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, Keyword, PatternOptions, Retrieve, Uri, Validator};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

/// One embedded schema document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Schema {
    ChainManifest,
    NodeManifest,
    WorkflowDefinition,
    PackLockfile,
    CompactToolDescriptor,
    ToolDescriptor,
    MiRuntimeToolContract,
    ErrorEnvelope,
    CompensationPolicy,
    DispatchConfig,
    MockAgentConfig,
}

const ALL: [Schema; 11] = [
    Schema::ChainManifest,
    Schema::NodeManifest,
    Schema::WorkflowDefinition,
    Schema::PackLockfile,
    Schema::CompactToolDescriptor,
    Schema::ToolDescriptor,
    Schema::MiRuntimeToolContract,
    Schema::ErrorEnvelope,
    Schema::CompensationPolicy,
    Schema::DispatchConfig,
    Schema::MockAgentConfig,
];

impl Schema {
    pub fn source(self) -> &'static str {
        match self {
            Schema::ChainManifest => include_str!("../assets/schemas/workflow-chain-pack-manifest.schema.json"),
            Schema::NodeManifest => include_str!("../assets/schemas/node-pack-manifest.schema.json"),
            Schema::WorkflowDefinition => include_str!("../assets/schemas/workflow-definition.schema.json"),
            Schema::PackLockfile => include_str!("../assets/schemas/pack-lockfile.schema.json"),
            Schema::CompactToolDescriptor => include_str!("../assets/schemas/compact-tool-descriptor.schema.json"),
            Schema::ToolDescriptor => include_str!("../assets/schemas/tool-descriptor.schema.json"),
            Schema::MiRuntimeToolContract => include_str!("../assets/schemas/miruntime-tool-contract.schema.json"),
            Schema::ErrorEnvelope => include_str!("../assets/schemas/error-envelope.schema.json"),
            Schema::CompensationPolicy => include_str!("../assets/schemas/compensation-policy.schema.json"),
            Schema::DispatchConfig => include_str!("../assets/schemas/dispatch-config.schema.json"),
            Schema::MockAgentConfig => include_str!("../assets/schemas/core-conformance-mock-agent-config.schema.json"),
        }
    }

    fn file_name(self) -> &'static str {
        match self {
            Schema::ChainManifest => "workflow-chain-pack-manifest.schema.json",
            Schema::NodeManifest => "node-pack-manifest.schema.json",
            Schema::WorkflowDefinition => "workflow-definition.schema.json",
            Schema::PackLockfile => "pack-lockfile.schema.json",
            Schema::CompactToolDescriptor => "compact-tool-descriptor.schema.json",
            Schema::ToolDescriptor => "tool-descriptor.schema.json",
            Schema::MiRuntimeToolContract => "miruntime-tool-contract.schema.json",
            Schema::ErrorEnvelope => "error-envelope.schema.json",
            Schema::CompensationPolicy => "compensation-policy.schema.json",
            Schema::DispatchConfig => "dispatch-config.schema.json",
            Schema::MockAgentConfig => "core-conformance-mock-agent-config.schema.json",
        }
    }

    /// The parsed document (parsed once).
    pub fn document(self) -> &'static Value {
        static DOCS: OnceLock<Vec<Value>> = OnceLock::new();
        let docs = DOCS.get_or_init(|| {
            ALL.iter().map(|s| serde_json::from_str(s.source()).expect("embedded schema is valid JSON")).collect()
        });
        &docs[ALL.iter().position(|s| *s == self).expect("listed")]
    }

    /// The compiled validator (compiled on first use, then shared).
    pub fn validator(self) -> &'static Validator {
        static VALIDATORS: [OnceLock<Validator>; ALL.len()] = [const { OnceLock::new() }; ALL.len()];
        let slot = &VALIDATORS[ALL.iter().position(|s| *s == self).expect("listed")];
        slot.get_or_init(|| {
            options()
                .build(self.document())
                .unwrap_or_else(|e| panic!("embedded schema {} compiles: {e}", self.file_name()))
        })
    }

    /// The violations of `instance` (at most [`MAX_LISTED_VIOLATIONS`] listed, see
    /// [`collect_violations`]).
    pub fn violations(self, instance: &Value) -> Vec<Violation> {
        collect_violations(self.validator(), instance)
    }
}

/// One schema violation, flattened for reporting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub pointer: String,
    pub keyword: String,
    pub message: String,
}

/// Most violations listed for one document; the ones after are counted in a last entry
/// with keyword [`OMITTED_KEYWORD`].
pub const MAX_LISTED_VIOLATIONS: usize = 100;

/// Keyword of the entry that stands for violations not listed.
pub const OMITTED_KEYWORD: &str = "x-chainsmith-omitted";

/// The violations of `instance`: validity is checked first (no error is built for a valid
/// document), then the first [`MAX_LISTED_VIOLATIONS`] distinct violations are listed and
/// the rest counted in one last entry. For schemas chainsmith embeds; user schemas go
/// through [`UserSchema::violations`], which also bounds the enumeration itself.
pub fn collect_violations(validator: &Validator, instance: &Value) -> Vec<Violation> {
    if validator.is_valid(instance) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut listed = HashSet::new();
    let mut omitted = 0usize;
    for e in validator.iter_errors(instance) {
        if out.len() == MAX_LISTED_VIOLATIONS {
            omitted += 1;
            continue;
        }
        let v = Violation {
            pointer: e.instance_path().as_str().to_owned(),
            keyword: e.kind().keyword().to_owned(),
            message: violation_message(&e),
        };
        if listed.insert((v.pointer.clone(), v.keyword.clone(), v.message.clone())) {
            out.push(v);
        }
    }
    if omitted > 0 {
        out.push(Violation {
            pointer: String::new(),
            keyword: OMITTED_KEYWORD.into(),
            message: format!("{omitted} more violations are not listed (at most {MAX_LISTED_VIOLATIONS} are)"),
        });
    }
    out
}

/// A compiled user schema (chain `parameters`, node config schemas), with what bounds the
/// cost of listing its violations.
#[derive(Debug)]
pub struct UserSchema {
    validator: Validator,
    /// Subschema applications one instance value can cause, `$ref`s followed
    /// ([`unfolded_size`]); `None` for recursive or unresolvable references.
    unfolded: Option<u64>,
}

/// Most subschema applications (unfolded size × values in the instance) spent listing
/// violations; past it one summary violation is reported instead. The validator's error
/// list is built whole before the first error can be read, so this bounds its size.
pub const MAX_SCHEMA_APPLICATIONS: u64 = 200_000;
/// Most pointer bytes (unfolded size × the pointer lengths of all instance values) the
/// errors' instance paths may take together.
const MAX_POINTER_BYTES: u64 = 64 * 1024 * 1024;

impl UserSchema {
    pub fn validator(&self) -> &Validator {
        &self.validator
    }

    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// The violations of `instance`, in bounded work and memory: none for a valid value;
    /// the first [`MAX_LISTED_VIOLATIONS`] when listing them stays within
    /// [`MAX_SCHEMA_APPLICATIONS`]; else one violation at the root that says why the
    /// individual ones are not listed. (A schema whose `allOf`s reference one definition
    /// twice, 18 levels deep, has 2^18 errors for one wrong value.)
    pub fn violations(&self, instance: &Value) -> Vec<Violation> {
        if self.validator.is_valid(instance) {
            return Vec::new();
        }
        let (values, pointer_bytes) = instance_size(instance);
        let affordable = self.unfolded.is_some_and(|w| {
            w.saturating_mul(values) <= MAX_SCHEMA_APPLICATIONS && w.saturating_mul(pointer_bytes) <= MAX_POINTER_BYTES
        });
        if affordable {
            return collect_violations(&self.validator, instance);
        }
        let why = match self.unfolded {
            None => "its `$ref`s are recursive or not local".to_owned(),
            Some(w) => format!("it unfolds into {w} subschema checks per value, over {values} values"),
        };
        vec![Violation {
            pointer: String::new(),
            keyword: "schema".into(),
            message: format!(
                "the value does not satisfy the schema; its individual violations are not listed because {why} \
                 (listing is limited to {MAX_SCHEMA_APPLICATIONS} checks)"
            ),
        }]
    }
}

/// How many values `instance` holds, and the total length of their JSON pointers.
fn instance_size(instance: &Value) -> (u64, u64) {
    let (mut values, mut bytes) = (0u64, 0u64);
    let mut stack = vec![(instance, 0u64)];
    while let Some((v, len)) = stack.pop() {
        values += 1;
        bytes = bytes.saturating_add(len);
        match v {
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    stack.push((x, len + 1 + (i.checked_ilog10().unwrap_or(0) as u64 + 1)));
                }
            }
            Value::Object(m) => stack.extend(m.iter().map(|(k, x)| (x, len + 1 + k.len() as u64))),
            _ => {}
        }
    }
    (values, bytes)
}

/// Keywords whose value is one subschema, an array of them, or a map of them, applied to
/// the instance (or its members). `$defs` is not among them: it applies only through `$ref`.
const APPLICATORS: [&str; 20] = [
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "items",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];

/// How many subschema applications (plus possible errors of `required`-like keywords) one
/// instance value can meet, with every `$ref` replaced by its target: the schema's size as
/// a tree. Linear in the schema (each subschema is sized once). `None` when a `$ref` is
/// recursive, not a local JSON pointer, or resolved under a nested `$id`.
pub fn unfolded_size(root: &Value) -> Option<u64> {
    use std::collections::HashMap;
    enum Task<'a> {
        Enter(&'a Value),
        Exit(&'a Value),
    }
    let id = |v: &Value| v as *const Value as usize;
    let mut size: HashMap<usize, u64> = HashMap::new();
    let mut open: HashSet<usize> = HashSet::new();
    let mut stack = vec![Task::Enter(root)];
    while let Some(task) = stack.pop() {
        match task {
            Task::Enter(node) => {
                if size.contains_key(&id(node)) {
                    continue;
                }
                if !open.insert(id(node)) {
                    return None;
                }
                stack.push(Task::Exit(node));
                for child in subschemas_of(root, node)? {
                    stack.push(Task::Enter(child));
                }
            }
            Task::Exit(node) => {
                open.remove(&id(node));
                let mut total = own_size(node);
                for child in subschemas_of(root, node)? {
                    total = total.saturating_add(*size.get(&id(child)).unwrap_or(&0));
                }
                size.insert(id(node), total);
            }
        }
    }
    size.get(&id(root)).copied()
}

/// 1 for the schema, plus one per name of `required`/`dependentRequired` (each can fail
/// on its own).
fn own_size(node: &Value) -> u64 {
    let Some(obj) = node.as_object() else { return 1 };
    let names = |v: &Value| v.as_array().map_or(0, |a| a.len() as u64);
    let mut n = 1 + obj.get("required").map_or(0, names);
    if let Some(Value::Object(dr)) = obj.get("dependentRequired") {
        n += dr.values().map(names).sum::<u64>();
    }
    n
}

/// The subschemas `node` applies directly, its `$ref` target included.
fn subschemas_of<'a>(root: &'a Value, node: &'a Value) -> Option<Vec<&'a Value>> {
    let mut out = Vec::new();
    let Some(obj) = node.as_object() else { return Some(out) };
    let schema_like = |v: &&Value| v.is_object() || v.is_boolean();
    for key in APPLICATORS {
        match obj.get(key) {
            Some(Value::Object(m))
                if matches!(key, "properties" | "patternProperties" | "dependentSchemas" | "dependencies") =>
            {
                out.extend(m.values().filter(schema_like));
            }
            Some(Value::Array(items)) => out.extend(items.iter().filter(schema_like)),
            Some(v) if schema_like(&v) => out.push(v),
            _ => {}
        }
    }
    if obj.contains_key("$dynamicRef") || obj.contains_key("$recursiveRef") {
        return None;
    }
    if !std::ptr::eq(node, root) && obj.contains_key("$id") {
        return None;
    }
    if let Some(reference) = obj.get("$ref") {
        let target = match reference.as_str()? {
            "#" => root,
            r => root.pointer(r.strip_prefix('#').filter(|p| p.starts_with('/') && !p.contains('%'))?)?,
        };
        out.push(target);
    }
    Some(out)
}

/// Longest violation message kept, in bytes.
const MAX_MESSAGE_BYTES: usize = 500;

/// A violation's message, shortened: jsonschema quotes the offending value, which may be
/// megabytes long and would otherwise be repeated in every report of it.
pub fn violation_message(e: &jsonschema::ValidationError) -> String {
    let mut text = match e.kind() {
        // jsonschema names at most three options ("… or 4 other candidates"); a pack author
        // needs all of them to pick one.
        ValidationErrorKind::Enum { options } => {
            let allowed: Vec<String> = options.as_array().into_iter().flatten().map(Value::to_string).collect();
            format!("{} is not one of the allowed values: {}", e.instance(), allowed.join(", "))
        }
        // "[] has less than 1 item" said what the schema saw, not what is missing.
        ValidationErrorKind::MinItems { limit } if e.instance().as_array().is_some_and(Vec::is_empty) => {
            let needed = crate::words::count(*limit as usize, "item", "items");
            format!("this list is empty and needs at least {needed}: add {}", if *limit == 1 { "one" } else { "them" })
        }
        _ => e.to_string(),
    };
    if text.len() > MAX_MESSAGE_BYTES {
        let cut = (0..=MAX_MESSAGE_BYTES).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        let total = text.len();
        text.truncate(cut);
        text.push_str(&format!("… ({total} bytes in full)"));
    }
    text
}

/// Compiled-program cap for one `pattern` / `patternProperties` regex (the `regex` crate
/// default is 10 MiB); a larger pattern does not compile.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Validation options shared by every validator chainsmith builds: draft 2020-12,
/// formats asserted, linear-time regexes, embedded-only reference resolution.
///
/// Patterns run on the `regex` crate's linear-time engine. The backtracking engine, even
/// with a backtrack limit, spends its whole budget once per string (about 10 ms at
/// 200,000 steps), so one array of many crafted strings kept validation busy for minutes.
/// Lookaround and backreferences, which are outside JSON Schema's interoperable regex
/// subset, therefore do not compile.
pub fn options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .with_pattern_options(PatternOptions::regex().size_limit(REGEX_SIZE_LIMIT))
        .with_retriever(EmbeddedRetriever)
        .with_keyword("uniqueItems", |_: &_, value: &Value, _| -> Result<Box<dyn for<'i> Keyword<'i>>, _> {
            Ok(Box::new(UniqueItems { enabled: value == &Value::Bool(true) }))
        })
}

/// Resolves `$ref`s to the embedded seed schemas by file name; refuses everything else.
struct EmbeddedRetriever;

impl Retrieve for EmbeddedRetriever {
    fn retrieve(&self, uri: &Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let path = uri.path().as_str();
        let file = path.rsplit('/').next().unwrap_or(path);
        if let Some(schema) = ALL.iter().find(|s| s.file_name() == file) {
            return Ok(schema.document().clone());
        }
        if matches!(file, "agent-ref.schema.json" | "prompt-ref.schema.json" | "agent-manifest.schema.json") {
            return Ok(Value::Object(Default::default()));
        }
        Err(format!("schema reference {uri} is not embedded; chainsmith never fetches schemas").into())
    }
}

/// `uniqueItems`, replacing jsonschema's own, which hashes every number through `f64`:
/// distinct integers past 2^53 then share a hash bucket and are compared pair by pair, so
/// 80,000 of them took minutes. Here each item becomes a [`Canonical`] key in which numbers
/// are exact, and is hashed once.
struct UniqueItems {
    enabled: bool,
}

impl<'i> Keyword<'i> for UniqueItems {
    fn validate(&self, instance: &'i Value) -> Result<(), jsonschema::ValidationError<'i>> {
        match self.first_repeat(instance) {
            None => Ok(()),
            Some((first, again)) => Err(jsonschema::ValidationError::custom(format!(
                "items {first} and {again} are equal; the array must hold unique items"
            ))),
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        self.first_repeat(instance).is_none()
    }
}

impl UniqueItems {
    /// The positions of the first item that repeats an earlier one.
    fn first_repeat(&self, instance: &Value) -> Option<(usize, usize)> {
        let items = instance.as_array().filter(|_| self.enabled)?;
        let mut seen = std::collections::HashMap::with_capacity(items.len());
        items.iter().enumerate().find_map(|(i, item)| seen.insert(Canonical::of(item), i).map(|first| (first, i)))
    }
}

/// A JSON value as JSON Schema equality sees it: numbers by exact value (`1` = `1.0` =
/// `10e-1`, `0` = `-0.0`, however many digits), object members in any order.
#[derive(PartialEq, Eq, Hash)]
enum Canonical<'a> {
    Null,
    Bool(bool),
    Number(Decimal),
    String(&'a str),
    Array(Vec<Canonical<'a>>),
    /// Members sorted by name.
    Object(Vec<(&'a str, Canonical<'a>)>),
}

impl<'a> Canonical<'a> {
    /// Recursion is bounded by the nesting limit every parsed document has.
    fn of(v: &'a Value) -> Self {
        match v {
            Value::Null => Self::Null,
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => Self::Number(Decimal::of(&n.to_string())),
            Value::String(s) => Self::String(s),
            Value::Array(items) => Self::Array(items.iter().map(Self::of).collect()),
            Value::Object(m) => {
                let mut members: Vec<(&str, Canonical)> = m.iter().map(|(k, v)| (k.as_str(), Self::of(v))).collect();
                members.sort_unstable_by(|a, b| a.0.cmp(b.0));
                Self::Object(members)
            }
        }
    }
}

/// A JSON number's exact value: its significant digits (no leading or trailing zeros) and
/// the power of ten of the last one. Numbers are kept as their text (exact numbers), so this
/// reads the text rather than a lossy `f64`.
#[derive(PartialEq, Eq, Hash)]
enum Decimal {
    Zero,
    Value {
        negative: bool,
        digits: String,
        exponent: i128,
    },
    /// Text that is not a plain JSON number (not produced by a parser), compared as is.
    Text(String),
}

impl Decimal {
    fn of(text: &str) -> Self {
        let (negative, rest) = text.strip_prefix('-').map_or((false, text), |r| (true, r));
        let (mantissa, exp) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], rest[i + 1..].trim_start_matches('+')),
            None => (rest, "0"),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let Ok(exp) = exp.parse::<i128>() else { return Self::Text(text.to_owned()) };
        if !(whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit())) {
            return Self::Text(text.to_owned());
        }
        let digits = format!("{whole}{fraction}");
        let digits = digits.trim_start_matches('0');
        let significant = digits.trim_end_matches('0');
        if significant.is_empty() {
            return Self::Zero;
        }
        let exponent = exp - fraction.len() as i128 + (digits.len() - significant.len()) as i128;
        Self::Value { negative, digits: significant.to_owned(), exponent }
    }
}

/// Compile a user-supplied schema (chain `parameters`, node config schemas).
pub fn compile(schema: &Value) -> Result<Arc<UserSchema>, String> {
    let validator = options().build(schema).map_err(|e| match e.kind() {
        ValidationErrorKind::Format { format } if format == "regex" => format!(
            "{e} at {}: chainsmith runs patterns on a linear-time engine, so lookaround, backreferences \
             and patterns compiling past {REGEX_SIZE_LIMIT} bytes are not supported",
            e.schema_path().as_str()
        ),
        _ => e.to_string(),
    })?;
    Ok(Arc::new(UserSchema { validator, unfolded: unfolded_size(schema) }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_embedded_schema_compiles() {
        for s in ALL {
            let _ = s.validator();
        }
    }

    #[test]
    fn envelope_schema_accepts_error_envelopes() {
        let env = crate::error::Error::new("chain_not_found", "x").with("chainId", "c").envelope();
        assert!(Schema::ErrorEnvelope.violations(&env).is_empty());
        assert!(!Schema::ErrorEnvelope.violations(&json!({"message": "no code"})).is_empty());
    }

    #[test]
    fn long_messages_are_shortened_on_a_char_boundary() {
        let v = compile(&json!({"type":"integer"})).unwrap();
        let found = v.violations(&json!("é".repeat(10_000)));
        assert!(found[0].message.len() < MAX_MESSAGE_BYTES + 40, "{}", found[0].message);
        assert!(found[0].message.ends_with("bytes in full)"), "{}", found[0].message);
        assert_eq!(v.violations(&json!("short"))[0].message, "\"short\" is not of type \"integer\"");
    }

    #[test]
    fn an_empty_list_says_what_it_needs() {
        let v = compile(&json!({"type": "array", "minItems": 1})).unwrap();
        assert_eq!(v.violations(&json!([]))[0].message, "this list is empty and needs at least 1 item: add one");
        let two = compile(&json!({"type": "array", "minItems": 2})).unwrap();
        assert_eq!(two.violations(&json!([]))[0].message, "this list is empty and needs at least 2 items: add them");
        assert_eq!(two.violations(&json!([1]))[0].message, "[1] has less than 2 items");
    }

    #[test]
    fn unique_items_compares_exact_values() {
        let v = compile(&json!({"uniqueItems": true})).unwrap();
        for dup in [
            json!([1, 1.0]),
            json!([0, -0.0]),
            json!([{"a": 1, "b": [2]}, {"b": [2.0], "a": 1}]),
            json!(["x", null, "x"]),
            json!([18446744073709551615u64, 18446744073709551615u64]),
        ] {
            assert!(!v.is_valid(&dup), "{dup}");
        }
        // Distinct integers that one double cannot tell apart stay distinct.
        for unique in [
            json!([9007199254740993u64, 9007199254740992u64]),
            json!([9223372036854775808u64, 9223372036854775809u64]),
            json!([-9223372036854775808i64, -9223372036854775807i64]),
            json!([1, "1", [1], {"1": 1}, true, null]),
            json!({"not": "an array"}),
        ] {
            assert!(v.is_valid(&unique), "{unique}");
        }
        // Parsed text, numbers exact: equal values however written, distinct ones however long.
        let parsed = |t: &str| serde_json::from_str::<Value>(t).unwrap();
        for dup in ["[1e2, 100]", "[10.0e1, 100]", "[1.5, 15e-1]", "[0.1, 0.10]", "[-0, 0e5]", "[2E+3, 2000.000]"] {
            assert!(!v.is_valid(&parsed(dup)), "{dup}");
        }
        for unique in ["[123456789012345678901234567890, 123456789012345678901234567891]", "[1e400, 1e401]", "[-1, 1]"]
        {
            assert!(v.is_valid(&parsed(unique)), "{unique}");
        }
        let errors = v.violations(&json!([1, 2, 3, 2]));
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].keyword, "uniqueItems");
        assert!(errors[0].message.contains("items 1 and 3"), "{}", errors[0].message);
        assert!(compile(&json!({"uniqueItems": false})).unwrap().is_valid(&json!([1, 1])));
    }

    #[test]
    fn enum_messages_list_every_allowed_value() {
        let v = compile(&json!({"enum": ["low", "normal", "high", "urgent", "critical"]})).unwrap();
        assert_eq!(
            v.violations(&json!("medium"))[0].message,
            r#""medium" is not one of the allowed values: "low", "normal", "high", "urgent", "critical""#
        );
    }

    #[test]
    fn catastrophic_patterns_run_in_linear_time_or_do_not_compile() {
        // Nested quantifiers are harmless on the linear-time engine; a backtracker takes 2^n steps.
        let v = compile(&json!({"type":"string","pattern":"^(a+)+$"})).unwrap();
        assert!(!v.is_valid(&json!(format!("{}b", "a".repeat(100_000)))));
        assert!(v.is_valid(&json!("aaaa")));
        let pp = compile(&json!({"patternProperties":{"^(a|aa)+$":{"type":"integer"}}})).unwrap();
        assert!(!pp.is_valid(&json!({"aaaa": "x"})));
        assert!(pp.is_valid(&json!({format!("{}b", "a".repeat(100_000)): "x"})));
        for pattern in ["^(a+)+\\1$", "^((?=a)a+)+$", "(?<!x)y"] {
            let err = compile(&json!({"properties":{"v":{"pattern": pattern}}})).unwrap_err();
            assert!(err.contains("linear-time engine") && err.contains("/properties/v/pattern"), "{err}");
        }
        let err = compile(&json!({"patternProperties":{"(a)\\1":{}}})).unwrap_err();
        assert!(err.contains("linear-time engine"), "{err}");
    }
}

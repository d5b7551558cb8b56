//! JavaScript `String()` text of JSON values.
//!
//! Embedded parameter tokens render exactly as the reference host (JavaScript) renders
//! them, so an exported workflow is byte-identical to what other hosts produce.

use serde_json::{Number, Value};
use std::borrow::Cow;

/// `String(value)` as JavaScript computes it for a value parsed from JSON.
pub fn js_string(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s),
        Value::Number(n) => Cow::Owned(js_number(n)),
        Value::Bool(true) => Cow::Borrowed("true"),
        Value::Bool(false) => Cow::Borrowed("false"),
        Value::Null => Cow::Borrowed("null"),
        Value::Object(_) => Cow::Borrowed("[object Object]"),
        Value::Array(items) => {
            // Array.prototype.join: null (and undefined) elements become empty text.
            let mut out = String::new();
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if !item.is_null() {
                    out.push_str(&js_string(item));
                }
            }
            Cow::Owned(out)
        }
    }
}

/// Largest integer a JavaScript number holds exactly.
const MAX_SAFE: u64 = (1 << 53) - 1;

/// `Number.prototype.toString()` of a JSON number (which JavaScript holds as a double).
pub fn js_number(n: &Number) -> String {
    if let Some(u) = n.as_u64()
        && u <= MAX_SAFE
    {
        return u.to_string();
    }
    if let Some(i) = n.as_i64()
        && i.unsigned_abs() <= MAX_SAFE
    {
        return i.to_string();
    }
    js_f64(n.as_f64().unwrap_or(f64::NAN))
}

/// ECMAScript Number::toString(10) for a double.
pub fn js_f64(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    let sign = if x < 0.0 { "-" } else { "" };
    // Rust's `{:e}` yields the shortest round-tripping digits, as ECMAScript requires.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("LowerExp always has an exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32;
    let n = exp.parse::<i32>().expect("integer exponent") + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        format!("{int}.{frac}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let e_sign = if e < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at(1);
        if rest.is_empty() {
            format!("{first}e{e_sign}{}", e.abs())
        } else {
            format!("{first}.{rest}e{e_sign}{}", e.abs())
        }
    };
    format!("{sign}{body}")
}

/// Rewrite a parsed number the way `JSON.stringify` would print it: an integral double
/// in the safe range becomes an integer (`1.0` → `1`).
pub fn js_normalise_number(n: &Number) -> Number {
    js_integral(n).unwrap_or_else(|| n.clone())
}

/// The integer a fractional-looking number is in JavaScript (`1.0` is `1`); `None` when it
/// stays as written, so callers change nothing (and copy nothing) for most numbers.
pub fn js_integral(n: &Number) -> Option<Number> {
    let f = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0 && f.abs() <= MAX_SAFE as f64)?;
    Some(if f < 0.0 { Number::from(f as i64) } else { Number::from(f as u64) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn s(v: Value) -> String {
        js_string(&v).into_owned()
    }

    #[test]
    fn scalars() {
        assert_eq!(s(json!("x")), "x");
        assert_eq!(s(json!(true)), "true");
        assert_eq!(s(json!(null)), "null");
        assert_eq!(s(json!({"a":1})), "[object Object]");
        assert_eq!(s(json!({})), "[object Object]");
    }

    #[test]
    fn arrays_join_recursively_and_blank_nulls() {
        assert_eq!(s(json!(["a", "b"])), "a,b");
        assert_eq!(s(json!([1, [2, [3, null]], null, {"k":1}])), "1,2,3,,,[object Object]");
        assert_eq!(s(json!([])), "");
        assert_eq!(s(json!([null])), "");
    }

    #[test]
    fn numbers_follow_ecmascript() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (-0.0, "0"),
            (0.1, "0.1"),
            (1.5, "1.5"),
            (-2.25, "-2.25"),
            (123456789.0, "123456789"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5e21, "1.5e+21"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (0.000123, "0.000123"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (0.1 + 0.2, "0.30000000000000004"),
        ];
        for (x, want) in cases {
            assert_eq!(js_f64(*x), *want, "{x}");
        }
    }

    #[test]
    fn integers_beyond_safe_range_lose_precision_like_javascript() {
        let n: Number = serde_json::from_str("12345678901234567890").unwrap();
        assert_eq!(js_number(&n), "12345678901234567000");
        let n: Number = serde_json::from_str("-9007199254740993").unwrap();
        assert_eq!(js_number(&n), "-9007199254740992");
        let n: Number = serde_json::from_str("9007199254740991").unwrap();
        assert_eq!(js_number(&n), "9007199254740991");
    }

    #[test]
    fn normalise_drops_integral_fraction() {
        let n: Number = serde_json::from_str("30000.0").unwrap();
        assert_eq!(json!(js_normalise_number(&n)).to_string(), "30000");
        let n: Number = serde_json::from_str("-2.0").unwrap();
        assert_eq!(json!(js_normalise_number(&n)).to_string(), "-2");
        let n: Number = serde_json::from_str("2.5").unwrap();
        assert_eq!(json!(js_normalise_number(&n)).to_string(), "2.5");
    }
}

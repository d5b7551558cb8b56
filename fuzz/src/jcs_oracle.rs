//! A second RFC 8785 serialiser, written from the RFC (members sorted by UTF-16 code units,
//! `JSON.stringify` string escapes, ECMAScript `Number::toString` for numbers), sharing no
//! code with `serde_json_canonicalizer`. Numbers are taken as the doubles a JavaScript
//! reader makes of them.

use serde_json::Value;

/// The canonical text of `value`, or `None` for a number with no finite double.
pub fn canonical(value: &Value) -> Option<String> {
    let mut out = String::new();
    write(value, &mut out)?;
    Some(out)
}

fn write(value: &Value, out: &mut String) -> Option<()> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&es_number(n.as_f64().filter(|f| f.is_finite())?)),
        Value::String(s) => string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out)?;
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(k, out);
                out.push(':');
                write(v, out)?;
            }
            out.push('}');
        }
    }
    Some(())
}

/// `JSON.stringify` of a string: `"` `\` and the C0 controls escaped, nothing else.
fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// ECMAScript `Number::toString(x)` (ECMA-262 §6.1.6.1.20) from the shortest round-trip
/// digits, which Rust's `{:e}` gives.
pub fn es_number(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if x < 0.0 {
        return format!("-{}", es_number(-x));
    }
    // The shortest length, then the closest decimal of that length (exact rounding, ties to
    // even): where two shortest texts both read back as x, ECMAScript takes the closer, and
    // of two equally close the even one; `{:e}` alone may give the other.
    let shortest = format!("{x:e}");
    let length = shortest.split_once('e').expect("{:e} has an exponent").0.replace('.', "").len();
    let sci = format!("{x:.*e}", length - 1);
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i64;
    // x = 0.digits × 10^n
    let n = exp.parse::<i64>().expect("an integer exponent") + 1;
    if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let sign = if e < 0 { '-' } else { '+' };
        if k == 1 {
            format!("{digits}e{sign}{}", e.abs())
        } else {
            format!("{}.{}e{sign}{}", &digits[..1], &digits[1..], e.abs())
        }
    }
}

/// Whether two values are the same JSON data to a JavaScript reader: numbers as doubles,
/// members by name (order aside).
pub fn same_data(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_data(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_data(v, w)))
        }
        _ => a == b,
    }
}

/// Whether an object of `value` has the member name serde_json's `arbitrary_precision`
/// reader takes for a number (however the name was escaped in the text).
pub fn has_number_marker(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(has_number_marker),
        Value::Object(m) => m.iter().any(|(k, v)| k == "$serde_json::private::Number" || has_number_marker(v)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::es_number;

    #[test]
    // The fuzzer's input text, with more digits than the double keeps, on purpose.
    #[allow(clippy::excessive_precision)]
    fn ecmascript_number_text() {
        // Values and texts from RFC 8785 Appendix B.
        for (x, text) in [
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (333333333.3333333, "333333333.3333333"),
            (-5e-324, "-5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (9007199254740992.0, "9007199254740992"),
            (295147905179352830000.0, "295147905179352830000"),
            (4.5, "4.5"),
            (0.002, "0.002"),
            // Two 17-digit texts read back as this double; Node and Python print the even one.
            (2222222222222266.33, "2222222222222266.2"),
            (1938000118939380.2, "1938000118939380.2"),
        ] {
            assert_eq!(es_number(x), text);
        }
    }
}

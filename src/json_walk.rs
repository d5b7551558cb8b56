//! Visiting every value of a JSON document in document order, with its JSON pointer built
//! only when asked for.
//!
//! Building a pointer string for every leaf costs the sum of all path lengths: one 2 MB
//! key over an array of 100,000 empty strings asked for 200 GB. Here a visitor sees a
//! [`Location`] (the steps from the root, borrowed) and renders the pointer only for what it
//! reports. The walk is iterative, so depth cannot overflow the stack.

use serde_json::Value;

/// One step from a container to a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Where a visited value is: a base pointer plus the steps below it.
#[derive(Debug, Clone, Copy)]
pub struct Location<'a, 'w> {
    base: &'w str,
    steps: &'w [Step<'a>],
}

impl<'a> Location<'a, '_> {
    /// The JSON pointer (RFC 6901), built now.
    pub fn pointer(&self) -> String {
        let mut out = String::from(self.base);
        for step in self.steps {
            out.push('/');
            match step {
                Step::Key(k) if k.contains(['~', '/']) => out.push_str(&crate::error::pointer_token(k)),
                Step::Key(k) => out.push_str(k),
                Step::Index(i) => out.push_str(&i.to_string()),
            }
        }
        out
    }

    /// The object key this value is the member of, when it is one.
    pub fn key(&self) -> Option<&'a str> {
        match self.steps.last() {
            Some(Step::Key(k)) => Some(k),
            _ => None,
        }
    }
}

enum Frame<'a> {
    Array(std::iter::Enumerate<std::slice::Iter<'a, Value>>),
    Object(serde_json::map::Iter<'a>),
}

fn frame(v: &Value) -> Option<Frame<'_>> {
    match v {
        Value::Array(items) => Some(Frame::Array(items.iter().enumerate())),
        Value::Object(m) => Some(Frame::Object(m.iter())),
        _ => None,
    }
}

/// Visit `root` and every value inside it, parents before children, members in document
/// order. `visit` returns whether to walk into the value it was shown (ignored for scalars).
/// `base` prefixes every pointer.
pub fn walk<'a>(root: &'a Value, base: &str, mut visit: impl FnMut(&Location<'a, '_>, &'a Value) -> bool) {
    let mut steps: Vec<Step<'a>> = Vec::new();
    let mut frames: Vec<Frame<'a>> = Vec::new();
    if visit(&Location { base, steps: &steps }, root) {
        frames.extend(frame(root));
    }
    // Every frame but the root's was entered through the step on top of `steps`.
    while let Some(top) = frames.last_mut() {
        let next = match top {
            Frame::Array(items) => items.next().map(|(i, v)| (Step::Index(i), v)),
            Frame::Object(members) => members.next().map(|(k, v)| (Step::Key(k.as_str()), v)),
        };
        let Some((step, value)) = next else {
            frames.pop();
            steps.pop();
            continue;
        };
        steps.push(step);
        if visit(&Location { base, steps: &steps }, value)
            && let Some(f) = frame(value)
        {
            frames.push(f);
            continue;
        }
        steps.pop();
    }
}

/// Visit every string inside `root` (document order) with its location.
pub fn strings<'a>(root: &'a Value, base: &str, mut visit: impl FnMut(&Location<'a, '_>, &'a str)) {
    walk(root, base, |at, v| {
        if let Value::String(s) = v {
            visit(at, s);
        }
        true
    });
}

/// The children of an array or object, handed out mutably in document order.
enum ChildrenMut<'a> {
    Array(std::slice::IterMut<'a, Value>),
    Object(serde_json::map::ValuesMut<'a>),
}

impl<'a> ChildrenMut<'a> {
    fn of(v: &'a mut Value) -> Option<Self> {
        match v {
            Value::Array(items) => Some(Self::Array(items.iter_mut())),
            Value::Object(m) => Some(Self::Object(m.values_mut())),
            _ => None,
        }
    }

    fn nth(&mut self, n: usize) -> Option<&'a mut Value> {
        match self {
            Self::Array(items) => items.nth(n),
            Self::Object(values) => values.nth(n),
        }
    }
}

/// Call `visit` on the value at each path below `root` (a path is the member or item index
/// at each level). Paths must come in document order; one that does not, or that leads
/// nowhere, is skipped. Only the containers on the paths are entered, and each container's
/// children are stepped through at most once, so the work is linear in what the paths name.
pub fn at_paths<'p>(root: &mut Value, paths: impl Iterator<Item = &'p [u32]>, mut visit: impl FnMut(&mut Value)) {
    // `open[d]` steps through the children of the container at `taken[..d]`, and remembers
    // the index it handed out last.
    let Some(children) = ChildrenMut::of(root) else { return };
    let mut open: Vec<(ChildrenMut<'_>, Option<u32>)> = vec![(children, None)];
    let mut taken: Vec<u32> = Vec::new();
    for path in paths {
        let Some((&leaf, parents)) = path.split_last() else { continue };
        let shared = taken.iter().zip(parents).take_while(|(a, b)| a == b).count();
        open.truncate(shared + 1);
        taken.truncate(shared);
        for (depth, &index) in path.iter().enumerate().skip(shared) {
            let Some((children, last)) = open.last_mut() else { break };
            let skip = match *last {
                None => index,
                Some(prev) if index > prev => index - prev - 1,
                Some(_) => break,
            };
            *last = Some(index);
            let Some(child) = children.nth(skip as usize) else { break };
            if index == leaf && depth + 1 == path.len() {
                visit(child);
            } else if let Some(grand) = ChildrenMut::of(child) {
                open.push((grand, None));
                taken.push(index);
            } else {
                break;
            }
        }
    }
}

/// Give back the room `value`'s containers and strings hold beyond their contents. A map
/// that grew by inserts (a parsed object, one built member by member) holds about twice
/// its members' slots; a small object rebuilt at its size takes about half the memory. The
/// walk is iterative, and each map is rebuilt once, moving its members (no copies).
pub fn shrink_to_fit(value: &mut Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => s.shrink_to_fit(),
            Value::Array(items) => {
                items.shrink_to_fit();
                stack.extend(items.iter_mut());
            }
            Value::Object(m) => {
                *m = std::mem::take(m).into_iter().collect();
                stack.extend(m.values_mut());
            }
            _ => {}
        }
    }
}

/// `v[key]` when `v` is an object that has it. serde_json's map hashes the key (SipHash)
/// on every lookup; for the few members a node, edge or config object has, comparing the
/// keys in order is several times faster, and the checks look up members of every node.
pub fn member<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    const SCAN: usize = 12;
    match v {
        Value::Object(m) if m.len() <= SCAN => m.iter().find(|(k, _)| k.as_str() == key).map(|(_, x)| x),
        Value::Object(m) => m.get(key),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shrinking_keeps_the_value_and_its_member_order() {
        let text = r#"{"z":{"b":[1,"x",{"q":null}],"a":2.50},"y":"s","x":[[],{}],"w":{"k":12345678901234567890}}"#;
        let mut v: Value = serde_json::from_str(text).unwrap();
        let before = v.clone();
        shrink_to_fit(&mut v);
        assert_eq!(v, before);
        assert_eq!(serde_json::to_string(&v).unwrap(), text, "members in order, numbers as written");
        // Nesting is walked with a stack of its own (serde_json's clone, comparison and drop
        // recurse, so the test stays at a depth they survive).
        let mut deep = json!(0);
        for _ in 0..300 {
            deep = json!({"k": [deep]});
        }
        let copy = deep.clone();
        shrink_to_fit(&mut deep);
        assert_eq!(crate::fsio::nesting(&deep), 600);
        assert!(deep == copy);
    }

    #[test]
    fn at_paths_visits_each_path_once_in_order() {
        let mut doc = json!({"a": [1, {"b": "x", "c": ["y", "z"]}], "d": "w", "e": {"f": "v"}});
        let paths: [&[u32]; 5] = [&[0, 0], &[0, 1, 1, 0], &[0, 1, 1, 1], &[1], &[2, 0]];
        let mut seen = Vec::new();
        at_paths(&mut doc, paths.into_iter(), |v| {
            seen.push(v.clone());
            *v = json!("!");
        });
        assert_eq!(seen, [json!(1), json!("y"), json!("z"), json!("w"), json!("v")]);
        assert_eq!(doc, json!({"a": ["!", {"b": "x", "c": ["!", "!"]}], "d": "!", "e": {"f": "!"}}));
    }

    #[test]
    fn at_paths_skips_paths_out_of_order_or_nowhere() {
        let mut doc = json!({"a": ["p", "q"], "b": "r"});
        let paths: [&[u32]; 5] = [&[0, 1], &[0, 0], &[0, 5], &[1, 0], &[1]];
        let mut seen = Vec::new();
        at_paths(&mut doc, paths.into_iter(), |v| seen.push(v.clone()));
        // [0, 0] comes after [0, 1]; [0, 5] names no item; "r" has no children.
        assert_eq!(seen, [json!("q")]);
    }

    #[test]
    fn pointers_follow_document_order_and_escape_keys() {
        let doc = json!({"a": [1, {"b/c": "x", "d~": ["y"]}], "e": "z"});
        let mut seen = Vec::new();
        walk(&doc, "/root", |at, _| {
            seen.push(at.pointer());
            true
        });
        assert_eq!(
            seen,
            [
                "/root",
                "/root/a",
                "/root/a/0",
                "/root/a/1",
                "/root/a/1/b~1c",
                "/root/a/1/d~0",
                "/root/a/1/d~0/0",
                "/root/e"
            ]
        );
        let mut strings_at = Vec::new();
        strings(&doc, "", |at, s| strings_at.push((at.pointer(), s, at.key())));
        assert_eq!(
            strings_at,
            [
                ("/a/1/b~1c".to_owned(), "x", Some("b/c")),
                ("/a/1/d~0/0".to_owned(), "y", None),
                ("/e".to_owned(), "z", Some("e"))
            ]
        );
    }

    #[test]
    fn member_finds_keys_in_small_and_large_objects() {
        let small = json!({"a": 1, "b": 2});
        assert_eq!((member(&small, "b"), member(&small, "c")), (Some(&json!(2)), None));
        let large: serde_json::Map<String, Value> = (0..40).map(|i| (format!("k{i}"), json!(i))).collect();
        let large = Value::Object(large);
        assert_eq!((member(&large, "k39"), member(&large, "k40")), (Some(&json!(39)), None));
        assert_eq!(member(&json!([1]), "0"), None);
    }

    #[test]
    fn a_value_not_entered_is_skipped_with_its_members() {
        let doc = json!({"skip": {"x": 1}, "keep": {"y": 2}});
        let mut seen = Vec::new();
        walk(&doc, "", |at, _| {
            seen.push(at.pointer());
            at.key() != Some("skip")
        });
        assert_eq!(seen, ["", "/skip", "/keep", "/keep/y"]);
    }

    #[test]
    fn depth_does_not_overflow_the_stack() {
        let mut deep = json!("leaf");
        for _ in 0..100_000 {
            deep = Value::Array(vec![deep]);
        }
        let mut leaves = 0;
        strings(&deep, "", |_, _| leaves += 1);
        assert_eq!(leaves, 1);
        // Dropping a value this deep recurses in serde_json itself; leak it instead.
        std::mem::forget(deep);
    }
}

//! JSON text exactly as `serde_json::to_writer_pretty` writes it (two-space indent), with
//! the large arrays of an object rendered on two threads: an expansion's nodes are most of
//! its output, and rendering them is as much work as parsing them.

use serde::Serialize;
use serde_json::ser::Formatter;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Elements rendered as one piece of work; an array of fewer than two runs is rendered
/// where it stands.
const RUN_ELEMENTS: usize = 128;
/// Rendered runs waiting for their turn to be written, at most: the output is streamed,
/// never held whole.
const MAX_WAITING_RUNS: usize = 8;

/// serde_json's pretty formatter, starting `level` indents in, so that a value rendered on
/// its own lines up with the document it is written into.
struct Indented {
    level: usize,
    has_value: bool,
}

impl Indented {
    fn at(level: usize) -> Self {
        Self { level, has_value: false }
    }

    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            indent(w, self.level)?;
        }
        w.write_all(bracket)
    }

    fn next_line<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        indent(w, self.level)
    }
}

impl Formatter for Indented {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.next_line(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.next_line(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

fn indent<W: ?Sized + Write>(w: &mut W, level: usize) -> io::Result<()> {
    (0..level).try_for_each(|_| w.write_all(b"  "))
}

/// `value` rendered at `level` (its brackets' indent).
fn write_value<W: Write, T: Serialize + ?Sized>(out: &mut W, value: &T, level: usize) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, Indented::at(level));
    value.serialize(&mut serializer).map_err(io::Error::other)
}

/// Where an object's members go: a serde map, or [`Object`]'s writer, which renders array
/// members on two threads. Output types list their members once, against this.
pub(crate) trait Members {
    type Error;
    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Self::Error>;
    /// An array member: its elements may be rendered on another thread.
    fn array<T: Serialize + Sync>(&mut self, key: &str, items: &[T]) -> Result<(), Self::Error>;
}

impl<M: serde::ser::SerializeMap> Members for M {
    type Error = M::Error;
    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), M::Error> {
        self.serialize_entry(key, value)
    }
    fn array<T: Serialize + Sync>(&mut self, key: &str, items: &[T]) -> Result<(), M::Error> {
        self.serialize_entry(key, items)
    }
}

/// A pretty JSON object written member by member, starting at the top level.
pub(crate) struct Object<'w, W: Write> {
    out: &'w mut W,
    first: bool,
}

impl<'w, W: Write> Object<'w, W> {
    pub(crate) fn begin(out: &'w mut W) -> io::Result<Self> {
        out.write_all(b"{")?;
        Ok(Self { out, first: true })
    }

    fn key(&mut self, key: &str) -> io::Result<()> {
        self.out.write_all(if self.first { b"\n  " } else { b",\n  " })?;
        self.first = false;
        serde_json::to_writer(&mut *self.out, key)?;
        self.out.write_all(b": ")
    }

    pub(crate) fn end(self) -> io::Result<()> {
        self.out.write_all(if self.first { b"}" } else { b"\n}" })
    }
}

impl<W: Write> Members for Object<'_, W> {
    type Error = io::Error;
    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> io::Result<()> {
        self.key(key)?;
        write_value(self.out, value, 1)
    }
    fn array<T: Serialize + Sync>(&mut self, key: &str, items: &[T]) -> io::Result<()> {
        self.key(key)?;
        write_array(self.out, items, 1)
    }
}

/// `items` as a pretty array whose brackets sit at `level`. Runs of elements are rendered by
/// this thread and a helper, whichever is free, and written in order as soon as each is
/// next; a helper that cannot be started only means this thread renders every run.
fn write_array<W: Write, T: Serialize + Sync>(out: &mut W, items: &[T], level: usize) -> io::Result<()> {
    if items.len() < 2 * RUN_ELEMENTS {
        return write_value(out, items, level);
    }
    let runs: Vec<&[T]> = items.chunks(RUN_ELEMENTS).collect();
    let next_run = AtomicUsize::new(0);
    let take = || Some(next_run.fetch_add(1, Ordering::Relaxed)).filter(|&k| k < runs.len());
    let render = |k: usize| -> io::Result<Vec<u8>> {
        let mut text = Vec::with_capacity(runs[k].len() * 256);
        for (i, item) in runs[k].iter().enumerate() {
            text.extend_from_slice(if k == 0 && i == 0 { b"\n" } else { b",\n" });
            indent(&mut text, level + 1)?;
            write_value(&mut text, item, level + 1)?;
        }
        Ok(text)
    };
    out.write_all(b"[")?;
    std::thread::scope(|scope| -> io::Result<()> {
        let (done, rendered) = std::sync::mpsc::sync_channel::<(usize, io::Result<Vec<u8>>)>(MAX_WAITING_RUNS);
        let (take, render) = (&take, &render);
        let helper = std::thread::Builder::new().spawn_scoped(scope, move || {
            while let Some(k) = take() {
                if done.send((k, render(k))).is_err() {
                    break;
                }
            }
        });
        let mut waiting: BTreeMap<usize, io::Result<Vec<u8>>> = BTreeMap::new();
        let mut next_out = 0;
        while next_out < runs.len() {
            waiting.extend(rendered.try_iter());
            if let Some(text) = waiting.remove(&next_out) {
                out.write_all(&text?)?;
                next_out += 1;
            } else if let Some(k) = (waiting.len() < MAX_WAITING_RUNS).then(take).flatten() {
                waiting.insert(k, render(k));
            } else {
                let (k, text) = rendered.recv().map_err(|_| io::Error::other("the rendering thread stopped"))?;
                waiting.insert(k, text);
            }
        }
        drop(rendered);
        if let Ok(helper) = helper {
            helper.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
        Ok(())
    })?;
    out.write_all(b"\n")?;
    indent(out, level)?;
    out.write_all(b"]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn pretty(value: &Value) -> String {
        serde_json::to_string_pretty(value).unwrap()
    }

    fn written(members: &[(&str, Value)]) -> String {
        let mut out = Vec::new();
        let mut object = Object::begin(&mut out).unwrap();
        for (key, value) in members {
            match value {
                Value::Array(items) => object.array(key, items).unwrap(),
                other => object.member(key, other).unwrap(),
            }
        }
        object.end().unwrap();
        String::from_utf8(out).unwrap()
    }

    fn node(i: usize) -> Value {
        json!({"id": format!("n{i}"), "config": {"list": [1, [], {}, [2, {"deep": [i]}]], "empty": {}},
            "name": "quote \" and \\ and \u{1F600}", "n": 1.5})
    }

    #[test]
    fn an_object_of_every_shape_is_written_as_serde_json_writes_it() {
        let cases: Vec<Vec<(&str, Value)>> = vec![
            vec![],
            vec![("a", json!(1))],
            vec![("empty", json!([])), ("obj", json!({})), ("s", json!("x"))],
            vec![("few", Value::Array((0..3).map(node).collect())), ("after", json!({"k": [true, null]}))],
            // 2.5 runs: a full run each for the two threads and a short last one.
            vec![("nodes", Value::Array((0..320).map(node).collect())), ("edges", Value::Array(vec![]))],
        ];
        for members in cases {
            let expected = pretty(&Value::Object(members.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()));
            assert_eq!(written(&members), expected);
        }
    }

    #[test]
    fn many_runs_come_out_in_order_whichever_thread_renders_them() {
        let nodes: Vec<Value> = (0..RUN_ELEMENTS * 40 + 3).map(node).collect();
        let text = written(&[("nodes", Value::Array(nodes.clone()))]);
        assert_eq!(text, pretty(&json!({"nodes": nodes})));
    }

    #[test]
    fn a_write_error_is_returned_not_swallowed() {
        struct Full(usize);
        impl Write for Full {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                if self.0 < buf.len() {
                    return Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"));
                }
                self.0 -= buf.len();
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let nodes: Vec<Value> = (0..RUN_ELEMENTS * 20).map(node).collect();
        let mut out = Full(10_000);
        let mut object = Object::begin(&mut out).unwrap();
        let err = object.array("nodes", &nodes).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }
}

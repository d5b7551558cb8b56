#!/usr/bin/env python3
"""Structure figures of src/ (issue 35's "done when"): the fields of the editor's `App`,
imports from app/mod.rs by app/'s children, the largest files, the functions over 100
lines, and the GUI-free lines left in app/ (see `gui_free_functions`). A text scan, not a parser: comments and strings are blanked before braces are
matched, which is enough for rustfmt-formatted code.

    python3 scripts/structure-report.py [--top N] [--limit LINES]
"""

import argparse
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))


def rust_files():
    for folder, _, names in os.walk(ROOT):
        for name in sorted(names):
            if name.endswith(".rs"):
                yield os.path.normpath(os.path.join(folder, name))


def rel(path):
    return os.path.relpath(path, os.path.join(ROOT, ".."))


def blank(text):
    """The text with comments, strings and char literals replaced by spaces (newlines kept),
    so braces inside them do not count."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            # A char literal ('x', '\n', '\u{..}'), not a lifetime ('a).
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def functions(path):
    """(name, first line, line count) of every fn with a body, nested ones included."""
    code = blank(open(path, encoding="utf-8").read())
    found = []
    for m in FN.finditer(code):
        # The body's brace: the first `{` after the signature, unless a `;` ends it first.
        j = m.end()
        depth = 0
        while j < len(code):
            ch = code[j]
            if ch in "([<":
                depth += 1
            elif ch in ")]>":
                depth -= 1 if ch != ">" or code[j - 1] != "-" else 0
            elif ch == ";" and depth <= 0:
                j = -1
                break
            elif ch == "{" and depth <= 0:
                break
            j += 1
        if j < 0 or j >= len(code):
            continue
        start, level, k = j, 0, j
        while k < len(code):
            if code[k] == "{":
                level += 1
            elif code[k] == "}":
                level -= 1
                if level == 0:
                    break
            k += 1
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, k) + 1
        found.append((m.group(1), first, last - first + 1))
    return found


def app_fields():
    """The fields of `pub struct App`, wherever under src/app/ it is defined."""
    for path in rust_files():
        if not path.startswith(os.path.join(ROOT, "app") + os.sep):
            continue
        code = blank(open(path, encoding="utf-8").read())
        m = re.search(r"\bpub struct App\s*\{", code)
        if m:
            break
    else:
        return None
    depth, k = 1, m.end()
    body_start = k
    while depth:
        depth += {"{": 1, "}": -1}.get(code[k], 0)
        k += 1
    body = code[body_start:k - 1]
    # Fields at the struct's own level: `name:` after a comma or the start, outside <...>/(...).
    fields, level, token = [], 0, ""
    for part in re.split(r"([<>(){}\[\],])", body):
        if part and part in "<({[":
            level += 1
        elif part and part in ">)}]":
            level -= 1
        elif part == ",":
            continue
        elif level == 0:
            fm = re.match(r"\s*(?:pub(?:\([^)]*\))?\s+)?([a-z_][a-z0-9_]*)\s*:", part)
            if fm:
                fields.append(fm.group(1))
    return fields


def mod_items():
    """Names defined at the top level of src/app/mod.rs (not its child modules)."""
    path = os.path.join(ROOT, "app", "mod.rs")
    code = blank(open(path, encoding="utf-8").read())
    names = set()
    for m in re.finditer(
        r"^(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|fn|trait|type|const|static)\s+([A-Za-z_][A-Za-z0-9_]*)",
        code,
        re.M,
    ):
        names.add(m.group(1))
    return names


def imports_from_app_mod():
    """(file, line, text) of each import by a child of app/ of a name defined in app/mod.rs:
    `use super::{..}` in a direct child, `use super::super::` deeper, or `crate::app::NAME`.
    Unit tests' `use super::*` is their own module, not app/mod.rs, and is skipped."""
    defined = mod_items()
    app = os.path.join(ROOT, "app")
    hits = []
    for path in rust_files():
        if not path.startswith(app + os.sep) or path == os.path.join(app, "mod.rs"):
            continue
        depth = os.path.relpath(path, app).count(os.sep)  # 0: app/x.rs, 1: app/x/y.rs
        up = "super::" * (depth + 1 if not path.endswith("mod.rs") else depth)
        text = blank(open(path, encoding="utf-8").read())
        lines = text.splitlines()
        # Unit tests (`#[cfg(test)] mod tests`) name their own parent with `super::`.
        tests = next((i for i, l in enumerate(lines) if l.strip().startswith("#[cfg(test)]")), len(lines))
        for no, line in enumerate(lines[:tests], 1):
            names = []
            # Inline paths (`super::Action::Run`) as well as `use` lines.
            if up and not re.match(r"\s*(pub(\([^)]*\))?\s+)?use\s", line):
                names += re.findall(r"(?<![A-Za-z0-9_:])" + re.escape(up) + r"([A-Za-z_][A-Za-z0-9_]*)", line)
            for m in re.finditer(r"\bcrate::app::([A-Za-z_][A-Za-z0-9_]*)", line):
                names.append(m.group(1))
            if up and re.match(r"\s*(pub(\([^)]*\))?\s+)?use\s+" + re.escape(up), line):
                rest = line.split(up, 1)[1]
                if not rest.startswith("super::"):
                    names += re.findall(r"[A-Za-z_][A-Za-z0-9_]*", rest.split("::")[0] if "{" not in rest.split("::")[0] else rest)
            bad = sorted({n for n in names if n in defined})
            if bad:
                hits.append((rel(path), no, ", ".join(bad)))
    return hits


GUI_CRATES = ("egui", "eframe", "epaint", "emath", "rfd", "winit", "egui_kittest")
# The names egui code gives its handles: a function using one draws or reads input.
GUI_HANDLES = ("ui", "ctx", "painter", "response", "resp")


def gui_free_functions():
    """(lines, file, first line, name) of each function in app/ that touches no GUI: outside
    unit tests, not nested in another function, naming no GUI crate path (`egui::`), no
    item its file imports from a GUI crate (`Ui`, `Rect`, ...), no GUI handle (`ui`, `ctx`,
    `painter`, `response`), and calling no function of its own file that does (a name
    match, repeated until nothing changes). What is left is logic that could live below
    app/, where a unit test needs no GUI."""
    app = os.path.join(ROOT, "app") + os.sep
    found = []  # [file, name, first, last, text, touches]
    for path in rust_files():
        if not path.startswith(app):
            continue
        code = blank(open(path, encoding="utf-8").read())
        lines = code.splitlines()
        imported = set()
        for m in re.finditer(r"\buse\s+(?:::)?(?:%s)::([^;]*);" % "|".join(GUI_CRATES), code, re.S):
            imported |= set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", m.group(1)))
        imported -= {"self", "as"}
        names = sorted(imported | set(GUI_HANDLES))
        gui = re.compile(r"\b(?:%s)::|\b(?:%s)\b" % ("|".join(GUI_CRATES), "|".join(map(re.escape, names))))
        tests = next((i for i, l in enumerate(lines) if l.strip().startswith("#[cfg(test)]")), len(lines))
        spans = [(name, first, first + n - 1) for name, first, n in functions(path)]
        for name, first, last in spans:
            if first > tests or any(f2 < first and last <= l2 for _, f2, l2 in spans):
                continue
            text = "\n".join(lines[first - 1:last])
            found.append([rel(path), name, first, last, text, bool(gui.search(text))])
    touching = {(f[0], f[1]) for f in found if f[5]}
    changed = True
    while changed:
        changed = False
        for f in found:
            if f[5]:
                continue
            body = f[4].split("{", 1)[1] if "{" in f[4] else ""
            if {(f[0], n) for n in re.findall(r"\b([a-z_][a-z0-9_]*)\s*\(", body)} & touching:
                f[5] = True
                touching.add((f[0], f[1]))
                changed = True
    return sorted(((f[3] - f[2] + 1, f[0], f[2], f[1]) for f in found if not f[5]), reverse=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=10, help="how many of the largest files to list")
    ap.add_argument("--limit", type=int, default=100, help="report functions longer than this")
    args = ap.parse_args()

    fields = app_fields()
    print(f"App fields: {len(fields) if fields is not None else 'App not found'}")
    if fields:
        print("  " + ", ".join(fields))

    hits = imports_from_app_mod()
    print(f"imports from app/mod.rs by app/'s children: {len(hits)}")
    for f, no, names in hits:
        print(f"  {f}:{no}: {names}")

    sizes = sorted(((sum(1 for _ in open(p, encoding="utf-8")), rel(p)) for p in rust_files()), reverse=True)
    over = sum(1 for n, _ in sizes if n > 1000)
    print(f"largest src files (lines); {over} over 1,000:")
    for n, p in sizes[: args.top]:
        print(f"  {n:6d}  {p}")

    long = sorted(
        ((n, rel(p), name, line) for p in rust_files() for name, line, n in functions(p) if n > args.limit),
        reverse=True,
    )
    print(f"functions over {args.limit} lines: {len(long)}")
    for n, p, name, line in long:
        print(f"  {n:6d}  {p}:{line}  {name}")

    free = gui_free_functions()
    print(f"GUI-free lines in app/: {sum(n for n, *_ in free)} in {len(free)} functions; the largest:")
    for n, p, line, name in free[: args.top]:
        print(f"  {n:6d}  {p}:{line}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

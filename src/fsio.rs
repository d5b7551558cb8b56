//! File access with limits: bounded reads, and writes that never leave a half-written
//! file behind.

use crate::error::{Error, Result, code};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

pub mod contained;
pub mod json;

/// Write `bytes` to `path` atomically: a temporary file in the same folder, flushed and
/// synced, then renamed over the target. On any failure the old file is left intact.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, &mut |w| w.write_all(bytes))
}

/// The user's home folder: `HOME`, else `USERPROFILE` (Windows), an empty one skipped.
pub fn home_folder() -> Option<PathBuf> {
    ["HOME", "USERPROFILE"].iter().filter_map(std::env::var_os).find(|h| !h.is_empty()).map(PathBuf::from)
}

/// `.NAME.WHAT-PID-RANDOM`: a hidden name for a file staged (or kept) beside `name`,
/// unique to this process and call.
fn hidden_sibling(name: &std::ffi::OsStr, what: &str) -> std::ffi::OsString {
    let mut out = std::ffi::OsString::from(".");
    out.push(name);
    out.push(format!(".{what}-{}-{:08x}", std::process::id(), rand::random::<u32>()));
    out
}

/// Writes the content of one file to its temporary name; it is buffered and synced after.
pub type Writer<'a> = dyn FnMut(&mut dyn Write) -> std::io::Result<()> + 'a;

/// [`write_atomic`] with the content produced by `write` as it goes, so a large file is
/// never held whole in memory.
pub fn write_atomic_with(path: &Path, write: &mut Writer<'_>) -> Result<()> {
    let staged = Staged::write(path, write)?;
    staged.commit()
}

/// Write several files all or nothing: every file is staged first, then each is renamed
/// into place; if one rename fails, the files already replaced get their old content back
/// (and new ones are removed), so a reader never sees a mix of old and new.
pub fn write_all_atomic(files: &[(&Path, &[u8])]) -> Result<()> {
    let mut writers: Vec<Box<Writer<'_>>> = files
        .iter()
        .map(|(_, bytes)| Box::new(move |w: &mut dyn Write| w.write_all(bytes)) as Box<Writer<'_>>)
        .collect();
    let mut with: Vec<(&Path, &mut Writer<'_>)> =
        files.iter().zip(writers.iter_mut()).map(|((path, _), w)| (*path, w.as_mut())).collect();
    write_all_atomic_with(&mut with)
}

/// [`write_all_atomic`] with each file's content produced by its writer as it goes.
pub fn write_all_atomic_with(files: &mut [(&Path, &mut Writer<'_>)]) -> Result<()> {
    let mut staged = Vec::with_capacity(files.len());
    for (path, write) in files.iter_mut() {
        match Staged::write(path, *write) {
            Ok(s) => staged.push(s),
            Err(e) => {
                staged.iter().for_each(Staged::discard);
                return Err(e);
            }
        }
    }
    // Old content is kept as a hard link (a copy where links are not possible) until all
    // renames succeeded.
    let mut backups: Vec<Option<PathBuf>> = Vec::with_capacity(staged.len());
    for s in &staged {
        if !s.target.exists() {
            backups.push(None);
            continue;
        }
        let backup = s.sibling("bak");
        let kept = std::fs::hard_link(&s.target, &backup).or_else(|_| std::fs::copy(&s.target, &backup).map(drop));
        if let Err(e) = kept {
            backups.iter().flatten().for_each(|b| drop(std::fs::remove_file(b)));
            staged.iter().for_each(Staged::discard);
            return Err(Error::new(code::IO_ERROR, format!("could not keep a copy of {}: {e}", s.target.display()))
                .with("path", s.target.display().to_string()));
        }
        backups.push(Some(backup));
    }
    for (i, s) in staged.iter().enumerate() {
        if let Err(e) = s.rename() {
            for (done, backup) in staged[..i].iter().zip(&backups) {
                match backup {
                    Some(b) => drop(std::fs::rename(b, &done.target)),
                    None => drop(std::fs::remove_file(&done.target)),
                }
            }
            backups[i..].iter().flatten().for_each(|b| drop(std::fs::remove_file(b)));
            staged[i..].iter().for_each(Staged::discard);
            return Err(e);
        }
    }
    backups.iter().flatten().for_each(|b| drop(std::fs::remove_file(b)));
    if let Some(s) = staged.first() {
        s.sync_dir();
    }
    Ok(())
}

/// A file written to a temporary name beside its target, not yet renamed into place.
struct Staged {
    target: PathBuf,
    tmp: PathBuf,
    dir: PathBuf,
}

impl Staged {
    fn write(path: &Path, write: &mut Writer<'_>) -> Result<Self> {
        // Saving through a symbolic link writes its target, as editors do: renaming over the
        // link would replace it with a file and leave the target stale.
        let resolved = std::fs::symlink_metadata(path)
            .is_ok_and(|m| m.file_type().is_symlink())
            .then(|| std::fs::canonicalize(path).ok())
            .flatten();
        let path = resolved.as_deref().unwrap_or(path);
        let fail = |what: &str, e: std::io::Error| {
            Error::new(code::IO_ERROR, format!("could not {what} {}: {e}", path.display()))
                .with("path", path.display().to_string())
        };
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if path.file_name().is_none() {
            return Err(Error::new(code::INVALID_REQUEST, format!("{} names no file", path.display()))
                .with("path", path.display().to_string()));
        }
        let staged = Self { target: path.to_path_buf(), tmp: PathBuf::new(), dir };
        let staged = Self { tmp: staged.sibling("tmp"), ..staged };
        let result = (|| {
            let f = std::fs::File::create(&staged.tmp).map_err(|e| fail("create a temporary file beside", e))?;
            // The replacement keeps the old file's permissions (a private file stays private).
            if let Ok(old) = std::fs::metadata(path) {
                f.set_permissions(old.permissions()).map_err(|e| fail("copy the permissions of", e))?;
            }
            let mut out = std::io::BufWriter::new(f);
            write(&mut out).and_then(|()| out.flush()).map_err(|e| fail("write", e))?;
            out.get_ref().sync_all().map_err(|e| fail("sync", e))
        })();
        match result {
            Ok(()) => Ok(staged),
            Err(e) => {
                staged.discard();
                Err(e)
            }
        }
    }

    /// A hidden name beside the target, unique to this process and call.
    fn sibling(&self, what: &str) -> PathBuf {
        self.dir.join(hidden_sibling(self.target.file_name().unwrap_or_default(), what))
    }

    fn rename(&self) -> Result<()> {
        std::fs::rename(&self.tmp, &self.target).map_err(|e| {
            Error::new(code::IO_ERROR, format!("could not replace {}: {e}", self.target.display()))
                .with("path", self.target.display().to_string())
        })
    }

    fn commit(self) -> Result<()> {
        let result = self.rename();
        if result.is_err() {
            self.discard();
        } else {
            self.sync_dir();
        }
        result
    }

    /// Make the rename itself durable; not every platform lets a folder be opened.
    fn sync_dir(&self) {
        if let Ok(d) = std::fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
    }

    fn discard(&self) {
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Read a whole file, refusing folders, devices, FIFOs and files over `limit` bytes
/// (reported with `too_large_code` and the limit) before reading anything.
pub fn read_limited(path: &Path, limit: u64, too_large_code: &'static str) -> Result<Vec<u8>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, &e))?;
    if meta.is_dir() {
        return Err(Error::new(code::INVALID_REQUEST, format!("{} is a folder, not a file", path.display()))
            .with("path", path.display().to_string()));
    }
    // A device or FIFO has no length to check, and reading it may never end (/dev/zero
    // filled memory) or never start (opening a FIFO waits for a writer).
    if !meta.is_file() {
        return Err(Error::new(code::INVALID_REQUEST, format!("{} is not a regular file", path.display()))
            .with("path", path.display().to_string()));
    }
    let too_large = |size: String| {
        Error::new(too_large_code, format!("{} is {size} bytes; the limit is {limit} bytes", path.display()))
            .with("path", path.display().to_string())
            .with("limit", limit)
    };
    if meta.len() > limit {
        return Err(too_large(meta.len().to_string()));
    }
    // The file may grow after the check: read at most one byte past the limit.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
        .map_err(|e| Error::io(path, &e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(format!("more than {limit}")));
    }
    Ok(bytes)
}

/// serde_json's nesting limit, which its own error message does not name.
pub const MAX_JSON_NESTING: usize = 127;

/// How many arrays and objects are nested at the deepest point of `value` (a scalar is 0),
/// counted as the parser counts against [`MAX_JSON_NESTING`]. Iterative, so any depth is safe.
pub fn nesting(value: &serde_json::Value) -> usize {
    use serde_json::Value;
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, above)) = stack.pop() {
        match v {
            Value::Array(items) => {
                deepest = deepest.max(above + 1);
                stack.extend(items.iter().map(|x| (x, above + 1)));
            }
            Value::Object(m) => {
                deepest = deepest.max(above + 1);
                stack.extend(m.values().map(|x| (x, above + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// A JSON syntax error as text, naming the nesting limit when that is what stopped parsing.
pub fn json_error_text(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if text.starts_with("recursion limit exceeded") {
        format!("{text}: nesting is limited to {MAX_JSON_NESTING} levels")
    } else {
        text
    }
}

/// The refusal of a file that is not valid JSON: `code`, the file and where it broke.
pub fn invalid_json_error(code: &'static str, path: &Path, e: &serde_json::Error) -> Error {
    Error::new(code, format!("{}: not valid JSON: {}", path.display(), json_error_text(e)))
        .with("path", path.display().to_string())
        .with("line", e.line())
        .with("column", e.column())
}

/// A user's JSON file, read as written ([`json::from_slice`]); a refusal carries `code`,
/// names the file and where it broke, and says so when the file starts with a byte order mark.
pub fn parse_json(code: &'static str, path: &Path, bytes: &[u8]) -> Result<serde_json::Value> {
    json::from_slice(bytes).map_err(|e| json_file_error(code, path, bytes, &e))
}

/// [`invalid_json_error`] for a file whose bytes are at hand: a file that starts with a
/// UTF-8 byte order mark is refused as that (code [`code::JSON_UTF8_BOM`]), not as "expected
/// value at line 1 column 1".
pub fn json_file_error(code: &'static str, path: &Path, bytes: &[u8], e: &serde_json::Error) -> Error {
    if bytes.starts_with(json::UTF8_BOM) {
        return Error::new(
            code::JSON_UTF8_BOM,
            format!(
                "{}: not valid JSON: the file starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON \
                 text must not have; save it as UTF-8 without a BOM",
                path.display()
            ),
        )
        .with("path", path.display().to_string())
        .with("line", 1)
        .with("column", 1);
    }
    invalid_json_error(code, path, e)
}

/// Pretty JSON with a final newline, as chainsmith writes every JSON file.
pub fn to_pretty_json(value: &serde_json::Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_pretty_json(&mut out, value).expect("a JSON value always serialises");
    out
}

/// [`to_pretty_json`] written to `w` as it is produced.
pub fn write_pretty_json(w: &mut dyn Write, value: &impl serde::Serialize) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, value)
        .map_err(|e| std::io::Error::new(e.io_error_kind().unwrap_or(std::io::ErrorKind::Other), e))?;
    w.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn several_files_are_written_all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        std::fs::write(&a, b"old a").unwrap();
        write_all_atomic(&[(&a, b"new a"), (&b, b"new b")]).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"new a");
        assert_eq!(std::fs::read(&b).unwrap(), b"new b");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no temporary or backup file left");

        // The second target is a folder, so its rename fails after the first succeeded: the
        // first file gets its old content back and nothing else is left behind.
        let c = dir.path().join("c");
        std::fs::create_dir(&c).unwrap();
        std::fs::write(c.join("inside"), b"x").unwrap();
        let err = write_all_atomic(&[(&a, b"newer a"), (&c, b"c")]).unwrap_err();
        assert_eq!(err.code, code::IO_ERROR);
        assert_eq!(std::fs::read(&a).unwrap(), b"new a");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3, "a, b and the folder c only");
    }

    #[cfg(unix)]
    #[test]
    fn saves_write_through_links_and_keep_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.json");
        std::fs::write(&target, b"old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no temporary file left");
    }

    #[test]
    fn reads_are_bounded_and_only_of_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.json");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read_limited(&p, 5, code::INVALID_REQUEST).unwrap(), b"12345");
        let err = read_limited(&p, 4, code::PACK_MANIFEST_INVALID).unwrap_err();
        assert_eq!((err.code, err.details["limit"].as_u64()), (code::PACK_MANIFEST_INVALID, Some(4)));
        assert_eq!(read_limited(dir.path(), 5, code::IO_ERROR).unwrap_err().code, code::INVALID_REQUEST);
        #[cfg(unix)]
        {
            let err = read_limited(Path::new("/dev/zero"), 5, code::IO_ERROR).unwrap_err();
            assert!(err.message.ends_with("is not a regular file"), "{}", err.message);
        }
    }

    #[test]
    fn nesting_errors_name_the_limit() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(serde_json::from_str::<serde_json::Value>(&nested(MAX_JSON_NESTING)).is_ok());
        let e = serde_json::from_str::<serde_json::Value>(&nested(MAX_JSON_NESTING + 1)).unwrap_err();
        assert!(json_error_text(&e).ends_with("nesting is limited to 127 levels"), "{}", json_error_text(&e));
        let e = serde_json::from_str::<serde_json::Value>("[1,").unwrap_err();
        assert_eq!(json_error_text(&e), e.to_string());
    }

    #[test]
    fn nesting_counts_containers_as_the_parser_does() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for n in [0, 1, 5, MAX_JSON_NESTING] {
            let text = if n == 0 { "3".to_owned() } else { nested(n) };
            assert_eq!(nesting(&serde_json::from_str(&text).unwrap()), n);
        }
        let v = serde_json::json!({"a": [1, {"b": []}], "c": {}});
        assert_eq!(nesting(&v), 4);
    }

    #[test]
    fn failure_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.json");
        std::fs::write(&p, b"old").unwrap();
        // A target that is a non-empty folder cannot be replaced by a file.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(blocked.join("x"), b"x").unwrap();
        let err = write_atomic(&blocked, b"new").unwrap_err();
        assert_eq!(err.code, code::IO_ERROR);
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "temporary file removed");
        let missing = dir.path().join("no/such/dir/f.json");
        assert_eq!(write_atomic(&missing, b"x").unwrap_err().code, code::IO_ERROR);
    }
}

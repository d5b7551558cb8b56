//! The index cache: one body and its validators (`ETag`, `Last-Modified`) per URL, under
//! `$XDG_CACHE_HOME/chainsmith/registry-http` (else `~/.cache/chainsmith/registry-http`).
//! A file is named by the SHA-256 of its URL; its validators record the SHA-256 of the body,
//! so a copy that is not the one written (a crash mid-write, an edit) is a miss. That makes
//! syncing to disk unneeded: files are written under a fresh name and renamed into place.
//! Only the response a server sent is kept: trust is decided again on every use.

use crate::error::Result;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The validators of a cached body are small.
const MAX_META_BYTES: u64 = 64 * 1024;

/// The cache folder for this user.
pub fn default_folder() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| crate::fsio::home_folder().map(|h| h.join(".cache")))?;
    Some(base.join("chainsmith").join("registry-http"))
}

/// One cached body.
#[derive(Debug, Clone)]
pub struct Entry {
    pub body: Vec<u8>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// When it was last fetched or confirmed, seconds since the epoch.
    pub stored_at: u64,
}

fn key(url: &str) -> String {
    digest(url.as_bytes())
}

fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Write `bytes` to a new file beside `path` and rename it over `path` (never through a
/// link: the new name is created, and a rename replaces the link itself).
fn replace(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!("tmp{}-{:x}", std::process::id(), rand::random::<u64>()));
    let written =
        std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp).and_then(|mut f| f.write_all(bytes));
    let renamed = written.and_then(|()| std::fs::rename(&tmp, path));
    renamed.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        crate::error::Error::io(path, &e)
    })
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl Entry {
    /// The cached copy of `url`, when there is one within `limit` bytes.
    pub fn read(dir: &Path, url: &str, limit: u64) -> Option<Self> {
        let k = key(url);
        let code = crate::error::code::INVALID_REQUEST;
        let meta: Value = serde_json::from_slice(
            &crate::fsio::read_limited(&dir.join(format!("{k}.json")), MAX_META_BYTES, code).ok()?,
        )
        .ok()?;
        if meta.get("url").and_then(Value::as_str) != Some(url) {
            return None;
        }
        let body = crate::fsio::read_limited(&dir.join(format!("{k}.body")), limit, code).ok()?;
        if meta.get("sha256").and_then(Value::as_str) != Some(digest(&body).as_str()) {
            return None;
        }
        let text = |f: &str| meta.get(f).and_then(Value::as_str).map(str::to_owned);
        Some(Self {
            body,
            etag: text("etag"),
            last_modified: text("lastModified"),
            stored_at: meta.get("storedAt").and_then(Value::as_u64).unwrap_or(0),
        })
    }

    /// Keep `body` for `url` (the body first: validators never describe a body not there).
    pub fn write(
        dir: &Path,
        url: &str,
        body: &[u8],
        etag: Option<String>,
        last_modified: Option<String>,
    ) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| crate::error::Error::io(dir, &e))?;
        let k = key(url);
        replace(&dir.join(format!("{k}.body")), body)?;
        Self::write_meta(dir, url, &digest(body), etag, last_modified)
    }

    /// The same body confirmed by the server now: only its validators are rewritten.
    pub fn touch(&self, dir: &Path, url: &str) -> Result<()> {
        Self::write_meta(dir, url, &digest(&self.body), self.etag.clone(), self.last_modified.clone())
    }

    fn write_meta(
        dir: &Path,
        url: &str,
        sha256: &str,
        etag: Option<String>,
        last_modified: Option<String>,
    ) -> Result<()> {
        let meta =
            json!({"url": url, "sha256": sha256, "etag": etag, "lastModified": last_modified, "storedAt": now()});
        replace(&dir.join(format!("{}.json", key(url))), meta.to_string().as_bytes())
    }

    pub fn age(&self) -> Option<Duration> {
        now().checked_sub(self.stored_at).map(Duration::from_secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_misses() {
        let dir = tempfile::tempdir().unwrap();
        let url = "https://packs.example.test/v2/index.json";
        assert!(Entry::read(dir.path(), url, 100).is_none());
        Entry::write(dir.path(), url, b"{}", Some("\"e1\"".into()), None).unwrap();
        let e = Entry::read(dir.path(), url, 100).unwrap();
        assert_eq!((e.body.as_slice(), e.etag.as_deref()), (&b"{}"[..], Some("\"e1\"")));
        assert!(e.age().unwrap() < Duration::from_secs(60));
        // Over the caller's limit, or another URL: a miss.
        assert!(Entry::read(dir.path(), url, 1).is_none());
        assert!(Entry::read(dir.path(), "https://packs.example.test/v1/index.json", 100).is_none());
        // A body that is not the one written is a miss.
        let body = dir.path().join(format!("{}.body", key(url)));
        std::fs::write(&body, b"{ }").unwrap();
        assert!(Entry::read(dir.path(), url, 100).is_none());
    }
}

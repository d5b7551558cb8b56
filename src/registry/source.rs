//! Where a registry's bytes come from: a folder mirroring its HTTP tree, or its URL. A
//! source only reads: it is given a registry path already checked by `Registry` (segments
//! from the discovery document's templates, never `.` or `..`), and answers with the bytes,
//! or `None` when the registry has nothing there. Every decision (the tree, the keys,
//! integrity, signatures) stays in `layout` and `verify`, the same for both.

use crate::error::Result;
use crate::net::{Body, Client, NetOptions};
use std::path::PathBuf;

pub trait Source: std::fmt::Debug + Send + Sync {
    /// The bytes at a registry path (`/v2/index.json`), at most `limit` (else an error with
    /// `too_large_code`), or `None` when there is nothing there.
    fn read(&self, path: &str, limit: u64, too_large_code: &'static str, kind: Body) -> Result<Option<Vec<u8>>>;
    /// Where a registry path is, for messages and error details: a file or a URL.
    fn locate(&self, path: &str) -> String;
}

/// A registry folder.
#[derive(Debug)]
pub struct Folder {
    pub root: PathBuf,
}

impl Folder {
    pub fn file(&self, path: &str) -> PathBuf {
        let mut out = self.root.clone();
        out.extend(path.split('/').filter(|s| !s.is_empty()));
        out
    }
}

impl Source for Folder {
    fn read(&self, path: &str, limit: u64, too_large_code: &'static str, _: Body) -> Result<Option<Vec<u8>>> {
        let file = self.file(path);
        if !file.is_file() {
            return Ok(None);
        }
        crate::fsio::read_limited(&file, limit, too_large_code).map(Some)
    }

    fn locate(&self, path: &str) -> String {
        self.file(path).display().to_string()
    }
}

/// A registry by URL: each path is appended to the base URL, one percent-encoded segment at
/// a time (the templates' `{name}` and `{version}` are single segments).
#[derive(Debug)]
pub struct Http {
    /// The base, without a trailing slash.
    pub base: String,
    pub client: Client,
}

impl Http {
    pub fn new(base: &str, opts: NetOptions) -> Result<Self> {
        let client = Client::new(opts);
        let url = client.check_url(base)?;
        if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() || url.password().is_some() {
            return Err(crate::net::unreachable(base, "a registry URL has no query, fragment or credentials"));
        }
        Ok(Self { base: url.as_str().trim_end_matches('/').to_owned(), client })
    }
}

fn encode_segment(seg: &str) -> String {
    let mut out = String::with_capacity(seg.len());
    for b in seg.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Source for Http {
    fn read(&self, path: &str, limit: u64, too_large_code: &'static str, kind: Body) -> Result<Option<Vec<u8>>> {
        self.client.get(&self.locate(path), limit, too_large_code, kind)
    }

    fn locate(&self, path: &str) -> String {
        let mut url = self.base.clone();
        for seg in path.split('/').filter(|s| !s.is_empty()) {
            url.push('/');
            url.push_str(&encode_segment(seg));
        }
        url
    }
}

/// Whether a `--registry` value is a URL rather than a folder.
pub fn is_url(text: &str) -> bool {
    let lower = text.get(..8).unwrap_or(text).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_built_one_encoded_segment_at_a_time() {
        let opts = NetOptions { cache_dir: None, ..NetOptions::default() };
        let http = Http::new("https://packs.example.test/mirror/", opts.clone()).unwrap();
        assert_eq!(
            http.locate("/v2/packs/a.b/-/1.0.0+b 1.tgz"),
            "https://packs.example.test/mirror/v2/packs/a.b/-/1.0.0%2Bb%201.tgz"
        );
        assert!(Http::new("https://u:p@packs.example.test/", opts.clone()).is_err());
        assert!(Http::new("http://packs.example.test/", opts).is_err());
        assert!(is_url("HTTPS://x") && is_url("http://127.0.0.1:1") && !is_url("./http:/x") && !is_url("reg"));
    }
}

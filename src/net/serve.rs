//! `chainsmith serve DIR`: a registry folder over HTTP, read-only, with the rewrites a
//! static host applies for the OpenWOP registry: `/.well-known/openwop-registry` is the
//! `.json` file, a folder answers with its `index.json`, and a path without its `.json`
//! finds the file with it. `ETag` / `If-None-Match` make index revalidation cheap.
//!
//! Nothing outside DIR is ever served: a request path is decoded, and any `.`, `..`, empty
//! or backslash segment refuses it; the file found is then resolved (`canonicalize`) and
//! must still lie under DIR's own resolved path, so no symbolic link leads out. Only GET
//! and HEAD are answered, request targets are bounded, and a fixed pool of workers serves.

use crate::error::{Error, Result, code};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Longest request target answered.
const MAX_TARGET_BYTES: usize = 4096;
/// Requests served at once.
pub const WORKERS: usize = 4;

/// A bound server over one folder.
pub struct Server {
    root: PathBuf,
    http: tiny_http::Server,
}

impl Server {
    /// Bind `addr` (`127.0.0.1:0` picks a free port) for the registry folder `dir`.
    pub fn bind(dir: &Path, addr: &str) -> Result<Self> {
        let root = dir.canonicalize().map_err(|e| Error::io(dir, &e))?;
        if !root.is_dir() {
            return Err(Error::new(code::INVALID_REQUEST, format!("{} is not a folder", dir.display()))
                .with("path", dir.display().to_string()));
        }
        let cannot =
            |e: String| Error::new(code::INVALID_REQUEST, format!("cannot listen on {addr}: {e}")).with("addr", addr);
        let listener = std::net::TcpListener::bind(addr).map_err(|e| cannot(e.to_string()))?;
        no_delay(&listener);
        let http = tiny_http::Server::from_listener(listener, None).map_err(|e| cannot(e.to_string()))?;
        Ok(Self { root, http })
    }

    /// The address bound, as `http://IP:PORT`.
    pub fn url(&self) -> String {
        match self.http.server_addr().to_ip() {
            Some(a) => format!("http://{a}"),
            None => String::new(),
        }
    }

    /// Serve until the process ends; one JSON line per request goes to `log`.
    pub fn run(&self, log: &(dyn Fn(&str) + Sync)) {
        std::thread::scope(|s| {
            for _ in 0..WORKERS {
                s.spawn(|| {
                    while let Ok(request) = self.http.recv() {
                        let (status, line) = self.answer(request);
                        log(&format!("{{\"status\":{status},{line}}}"));
                    }
                });
            }
        });
    }

    /// Answer one request; the status and the log fields.
    fn answer(&self, request: tiny_http::Request) -> (u16, String) {
        let target = request.url().to_owned();
        let method = request.method().clone();
        let shown: String = target.chars().take(200).collect();
        let fields = format!("\"method\":{},\"path\":{}", serde_json::json!(method.as_str()), serde_json::json!(shown));
        let header = |name: &str| {
            request
                .headers()
                .iter()
                .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
                .map(|h| h.value.as_str().to_owned())
        };
        let if_none_match = header("if-none-match");
        let status = if !matches!(method, tiny_http::Method::Get | tiny_http::Method::Head) {
            respond(request, tiny_http::Response::empty(405).with_header(text_header("Allow", "GET, HEAD")))
        } else if target.len() > MAX_TARGET_BYTES {
            respond(request, tiny_http::Response::empty(414))
        } else {
            match self.find(&target) {
                Some((path, file, meta)) => {
                    let etag = etag(&meta);
                    if if_none_match
                        .as_deref()
                        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"))
                    {
                        respond(request, tiny_http::Response::empty(304).with_header(text_header("ETag", &etag)))
                    } else {
                        let response = tiny_http::Response::from_file(file)
                            .with_header(text_header("Content-Type", content_type(&path)))
                            .with_header(text_header("ETag", &etag))
                            .with_header(text_header("Cache-Control", "no-cache"));
                        respond(request, response)
                    }
                }
                None => respond(request, tiny_http::Response::empty(404)),
            }
        };
        (status, fields)
    }

    /// The file a request target names, after the static host's rewrites.
    fn find(&self, target: &str) -> Option<(PathBuf, File, std::fs::Metadata)> {
        let path = target.split(['?', '#']).next().unwrap_or_default();
        let mut rel = PathBuf::new();
        let segments: Vec<&str> = path.split('/').skip(1).collect();
        for (i, raw) in segments.iter().enumerate() {
            let seg = crate::grammar::percent_decode(raw)?;
            // A trailing slash names the folder itself.
            if seg.is_empty() && i + 1 == segments.len() {
                continue;
            }
            if seg.is_empty() || seg == "." || seg == ".." || seg.contains(['/', '\\', '\0']) {
                return None;
            }
            rel.push(seg);
        }
        let base = self.root.join(&rel);
        let mut candidates = vec![base.join("index.json")];
        if !rel.as_os_str().is_empty() {
            candidates.insert(0, base.clone());
            let mut with_json = base.into_os_string();
            with_json.push(".json");
            candidates.push(with_json.into());
        }
        candidates.into_iter().find_map(|c| self.open_inside(&c))
    }

    /// A regular file at `path` whose resolved location is under the root.
    fn open_inside(&self, path: &Path) -> Option<(PathBuf, File, std::fs::Metadata)> {
        let real = path.canonicalize().ok()?;
        if !real.starts_with(&self.root) {
            return None;
        }
        let file = File::open(&real).ok()?;
        let meta = file.metadata().ok()?;
        meta.is_file().then_some((real, file, meta))
    }
}

/// TCP_NODELAY on the listener, which Linux hands to every accepted connection: the server
/// writes a response's head and body separately, and on a kept-alive connection Nagle's
/// algorithm held the body for the client's delayed ACK (about 40 ms a request).
fn no_delay(listener: &std::net::TcpListener) {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let on: libc::c_int = 1;
        // SAFETY: a valid socket descriptor and a c_int option of the size given.
        unsafe {
            libc::setsockopt(
                listener.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_NODELAY,
                (&on as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
}

fn respond<R: std::io::Read>(request: tiny_http::Request, response: tiny_http::Response<R>) -> u16 {
    let status = response.status_code().0;
    // A client that went away is no error of the server's.
    let _ = request.respond(response);
    status
}

fn text_header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("header names and values are ASCII")
}

fn etag(meta: &std::fs::Metadata) -> String {
    let modified = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
    format!("\"{:x}-{:x}\"", meta.len(), modified)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => "application/json",
        Some("tgz") => "application/gzip",
        Some("pub" | "pem" | "md" | "txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Write one log line; a closed stderr stops nothing.
pub fn log_to_stderr(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_and_rewrite_as_a_static_host() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("reg");
        std::fs::create_dir_all(root.join(".well-known")).unwrap();
        std::fs::create_dir_all(root.join("v2/packs/a.b.c")).unwrap();
        std::fs::write(root.join(".well-known/openwop-registry.json"), "{}").unwrap();
        std::fs::write(root.join("v2/packs/a.b.c/index.json"), "[]").unwrap();
        std::fs::write(dir.path().join("secret"), "no").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("link")).unwrap();
        let server = Server::bind(&root, "127.0.0.1:0").unwrap();
        let found = |t: &str| server.find(t).map(|(p, ..)| p.strip_prefix(&server.root).unwrap().to_owned());
        assert_eq!(found("/.well-known/openwop-registry").unwrap(), Path::new(".well-known/openwop-registry.json"));
        assert_eq!(found("/v2/packs/a.b.c").unwrap(), Path::new("v2/packs/a.b.c/index.json"));
        assert_eq!(found("/v2/packs/a.b.c/").unwrap(), Path::new("v2/packs/a.b.c/index.json"));
        assert_eq!(found("/v2/packs/a%2Eb.c/index.json?x=1").unwrap(), Path::new("v2/packs/a.b.c/index.json"));
        for bad in [
            "/../secret",
            "/v2/../../secret",
            "/%2e%2e/secret",
            "/v2%2f..%2f..%2fsecret",
            "/link",
            "//secret",
            "/v2/packs/a.b.c/%zz",
        ] {
            assert!(server.find(bad).is_none(), "{bad}");
        }
    }
}

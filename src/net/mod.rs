//! The network, kept to two jobs and away from every decision about registries: a blocking
//! HTTPS client for reading a registry by URL (`Client`), and a read-only HTTP server for a
//! registry folder (`serve`). What a fetched body means, and whether it is trusted, is
//! decided by `registry` exactly as for files.
//!
//! The client's rules: HTTPS, or plain HTTP only to a loopback host or with `allow_http`;
//! connect and read timeouts; a size limit on every body, enforced while reading; at most
//! `MAX_REDIRECTS` redirects, never from HTTPS to HTTP; bodies asked for as indexes are kept
//! in a cache under the user's cache folder and revalidated with `If-None-Match` /
//! `If-Modified-Since`, and `offline` answers from that cache alone.

pub mod cache;
pub mod serve;

use crate::error::{Error, Result, code};
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

/// Redirects followed for one request.
pub const MAX_REDIRECTS: usize = 5;

/// How the client may use the network.
#[derive(Debug, Clone)]
pub struct NetOptions {
    /// Plain HTTP to hosts other than loopback.
    pub allow_http: bool,
    /// Answer from the cache only; no connection is opened.
    pub offline: bool,
    pub connect_timeout: Duration,
    /// The longest wait for the next bytes of a response.
    pub read_timeout: Duration,
    /// The cache folder (`None`: no cache, every index is fetched whole).
    pub cache_dir: Option<PathBuf>,
    /// A cached discovery document younger than this is used without asking the server
    /// (`None`: always revalidate). Only read commands that decide nothing about trust set
    /// it; indexes are always revalidated.
    pub fresh_for: Option<Duration>,
    /// Certificates (DER) trusted for HTTPS besides Mozilla's roots: a private registry's
    /// own CA (`--ca-file`, `CHAINSMITH_CA_FILE`).
    pub extra_roots: Vec<Vec<u8>>,
}

impl Default for NetOptions {
    fn default() -> Self {
        Self {
            allow_http: false,
            offline: false,
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            cache_dir: cache::default_folder(),
            fresh_for: None,
            extra_roots: Vec::new(),
        }
    }
}

/// The environment variable naming a CA file, for every command that reads a registry by
/// URL and for the editor.
pub const CA_FILE_ENV: &str = "CHAINSMITH_CA_FILE";

/// The largest CA file read: a bundle of every public root is about 250 KiB.
const MAX_CA_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The certificates of a PEM file (`-----BEGIN CERTIFICATE-----` blocks), as DER. A file
/// that cannot be read, or holds no certificate, is `invalid_request` naming it.
pub fn load_ca_file(path: &std::path::Path) -> Result<Vec<Vec<u8>>> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;
    let shown = path.display().to_string();
    let refuse =
        |why: String| Error::new(code::INVALID_REQUEST, format!("CA file {shown}: {why}")).with("path", shown.as_str());
    let bytes =
        crate::fsio::read_limited(path, MAX_CA_FILE_BYTES, code::INVALID_REQUEST).map_err(|e| refuse(e.message))?;
    let certs: Vec<Vec<u8>> = CertificateDer::pem_slice_iter(&bytes)
        .map(|c| c.map(|c| c.as_ref().to_vec()))
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| refuse(format!("not PEM ({e})")))?;
    if certs.is_empty() {
        return Err(refuse("no -----BEGIN CERTIFICATE----- block".into()));
    }
    Ok(certs)
}

/// The CA file `CHAINSMITH_CA_FILE` names, if set.
pub fn ca_from_env() -> Result<Vec<Vec<u8>>> {
    match std::env::var_os(CA_FILE_ENV).filter(|v| !v.is_empty()) {
        Some(path) => load_ca_file(std::path::Path::new(&path)),
        None => Ok(Vec::new()),
    }
}

/// ureq's own TLS setup (rustls on ring, TLS 1.2 and 1.3, Mozilla's roots) with `extra`
/// trusted too. A certificate rustls cannot use as a root is skipped, as ureq skips them.
// ring is deprecated in rustls for lacking post-quantum key exchange; it is what ureq uses
// for every other connection (aws-lc-rs needs cmake), and one provider keeps both alike.
#[allow(deprecated)]
fn tls_with(extra: &[Vec<u8>]) -> std::sync::Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    roots.add_parsable_certificates(extra.iter().map(|c| rustls_pki_types::CertificateDer::from(c.clone())));
    let config = rustls::ClientConfig::builder_with_provider(rustls::crypto::ring::default_provider().into())
        .with_protocol_versions(&[&rustls::version::TLS12, &rustls::version::TLS13])
        .expect("ring supports TLS 1.2 and 1.3")
        .with_root_certificates(roots)
        .with_no_client_auth();
    std::sync::Arc::new(config)
}

/// How a body is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// The discovery document: cached, and revalidated unless fresh (`fresh_for`).
    Discovery,
    /// An index: cached and always revalidated.
    Index,
    /// Anything else (manifests, tarballs, signatures, keys): always fetched whole.
    Fetch,
}

/// `pack_registry_unreachable` for `url`.
pub fn unreachable(url: &str, cause: impl std::fmt::Display) -> Error {
    let cause = cause.to_string();
    Error::new(code::PACK_REGISTRY_UNREACHABLE, format!("{url}: {cause}")).with("url", url).with("cause", cause)
}

/// Whether a URL's host is this machine.
fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// A blocking client bound to one set of options.
#[derive(Debug)]
pub struct Client {
    agent: ureq::Agent,
    opts: NetOptions,
}

impl Client {
    pub fn new(opts: NetOptions) -> Self {
        let mut builder = ureq::AgentBuilder::new();
        if !opts.extra_roots.is_empty() {
            builder = builder.tls_config(tls_with(&opts.extra_roots));
        }
        let agent = builder
            .timeout_connect(opts.connect_timeout)
            .timeout_read(opts.read_timeout)
            // Redirects are followed here (`get`), where their scheme can be checked.
            .redirects(0)
            .user_agent(concat!("chainsmith/", env!("CARGO_PKG_VERSION")))
            .build();
        Self { agent, opts }
    }

    pub fn options(&self) -> &NetOptions {
        &self.opts
    }

    /// Whether the client may open `url` at all.
    pub fn check_url(&self, text: &str) -> Result<url::Url> {
        let url = url::Url::parse(text).map_err(|e| unreachable(text, format!("not a URL ({e})")))?;
        match url.scheme() {
            "https" => Ok(url),
            "http" if self.opts.allow_http || is_loopback(&url) => Ok(url),
            "http" => Err(unreachable(
                text,
                "plain HTTP is refused for a host other than loopback (use https://, or --allow-http)",
            )
            .with("reason", "insecure_scheme")),
            other => Err(unreachable(text, format!("the scheme \"{other}\" is not HTTP(S)"))),
        }
    }

    /// Where a redirect from `from` may go: HTTPS stays HTTPS, and the target passes
    /// `check_url` like any other.
    pub fn redirect(&self, from: &url::Url, location: &str) -> Result<url::Url> {
        let next = from.join(location).map_err(|e| unreachable(from.as_str(), format!("redirect: {e}")))?;
        if from.scheme() == "https" && next.scheme() != "https" {
            return Err(unreachable(from.as_str(), format!("redirected from HTTPS to {next}; refused"))
                .with("reason", "redirect_downgrade"));
        }
        self.check_url(next.as_str()).map_err(|e| e.with("redirectedFrom", from.as_str()))
    }

    /// The body at `url`, at most `limit` bytes (else `too_large_code`), or `None` when the
    /// server has none (404, 410).
    pub fn get(&self, url: &str, limit: u64, too_large_code: &'static str, body: Body) -> Result<Option<Vec<u8>>> {
        let cached = match (body, &self.opts.cache_dir) {
            (Body::Discovery | Body::Index, Some(dir)) => cache::Entry::read(dir, url, limit),
            _ => None,
        };
        if self.opts.offline {
            return match cached {
                Some(entry) => Ok(Some(entry.body)),
                None => Err(unreachable(url, "offline, and the cache has no copy").with("reason", "offline")),
            };
        }
        if let (Body::Discovery, Some(entry), Some(fresh)) = (body, &cached, self.opts.fresh_for)
            && entry.age().is_some_and(|age| age < fresh)
        {
            return Ok(Some(entry.body.clone()));
        }
        let fetched = self.fetch(url, limit, too_large_code, cached.as_ref())?;
        match fetched {
            Fetched::NotModified => {
                let Some(entry) = cached else { return Ok(None) };
                // Confirmed now: a discovery document's freshness starts again.
                if let (Body::Discovery, Some(dir)) = (body, &self.opts.cache_dir) {
                    let _ = entry.touch(dir, url);
                }
                Ok(Some(entry.body))
            }
            Fetched::Body { bytes, etag, last_modified } => {
                if let (Body::Discovery | Body::Index, Some(dir), Some(b)) = (body, &self.opts.cache_dir, &bytes) {
                    // A cache that cannot be written costs a refetch, never the answer.
                    let _ = cache::Entry::write(dir, url, b, etag, last_modified);
                }
                Ok(bytes)
            }
        }
    }

    fn fetch(
        &self,
        start: &str,
        limit: u64,
        too_large_code: &'static str,
        cached: Option<&cache::Entry>,
    ) -> Result<Fetched> {
        let mut url = self.check_url(start)?;
        for _ in 0..=MAX_REDIRECTS {
            let mut request = self.agent.get(url.as_str());
            if let Some(entry) = cached {
                if let Some(etag) = &entry.etag {
                    request = request.set("If-None-Match", etag);
                }
                if let Some(date) = &entry.last_modified {
                    request = request.set("If-Modified-Since", date);
                }
            }
            let response = match request.call() {
                Ok(r) => r,
                Err(ureq::Error::Status(404 | 410, _)) => {
                    return Ok(Fetched::Body { bytes: None, etag: None, last_modified: None });
                }
                Err(ureq::Error::Status(status, r)) => {
                    return Err(
                        unreachable(url.as_str(), format!("HTTP {status} {}", r.status_text())).with("status", status)
                    );
                }
                Err(ureq::Error::Transport(t)) => {
                    // ureq names the URL first; the error names it once, in `url`.
                    let text = t.to_string();
                    let cause = t.url().and_then(|u| text.strip_prefix(&format!("{u}: "))).unwrap_or(&text);
                    return Err(unreachable(url.as_str(), cause));
                }
            };
            match response.status() {
                304 if cached.is_some() => return Ok(Fetched::NotModified),
                301 | 302 | 303 | 307 | 308 => {
                    let location = response
                        .header("location")
                        .ok_or_else(|| unreachable(url.as_str(), "a redirect without a Location"))?;
                    url = self.redirect(&url, location)?;
                    continue;
                }
                200 => {}
                status => {
                    return Err(unreachable(url.as_str(), format!("unexpected HTTP {status}")).with("status", status));
                }
            }
            let too_large = |size: String| {
                Error::new(too_large_code, format!("{url} is {size} bytes; the limit is {limit} bytes"))
                    .with("url", url.as_str())
                    .with("limit", limit)
            };
            if let Some(len) = response.header("content-length").and_then(|l| l.trim().parse::<u64>().ok())
                && len > limit
            {
                return Err(too_large(len.to_string()));
            }
            let etag = response.header("etag").map(str::to_owned);
            let last_modified = response.header("last-modified").map(str::to_owned);
            let declared = response.header("content-length").and_then(|l| l.trim().parse::<u64>().ok());
            let mut bytes = Vec::new();
            response
                .into_reader()
                .take(limit + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| unreachable(url.as_str(), format!("reading the body: {e}")))?;
            if bytes.len() as u64 > limit {
                return Err(too_large(format!("more than {limit}")));
            }
            // A body cut short is a failed fetch, not a smaller file.
            if declared.is_some_and(|d| d != bytes.len() as u64) {
                return Err(unreachable(
                    url.as_str(),
                    format!("the body ended after {} of {} bytes", bytes.len(), declared.unwrap_or_default()),
                ));
            }
            return Ok(Fetched::Body { bytes: Some(bytes), etag, last_modified });
        }
        Err(unreachable(start, format!("more than {MAX_REDIRECTS} redirects")).with("reason", "too_many_redirects"))
    }
}

enum Fetched {
    NotModified,
    Body { bytes: Option<Vec<u8>>, etag: Option<String>, last_modified: Option<String> },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_only_to_loopback_or_when_allowed() {
        let strict = Client::new(NetOptions { cache_dir: None, ..NetOptions::default() });
        assert!(strict.check_url("https://packs.example.test/").is_ok());
        assert!(strict.check_url("http://127.0.0.1:9/").is_ok());
        assert!(strict.check_url("http://[::1]:9/").is_ok());
        assert!(strict.check_url("http://localhost/").is_ok());
        let err = strict.check_url("http://packs.example.test/").unwrap_err();
        assert_eq!(
            (err.code, err.details["reason"].as_str()),
            (code::PACK_REGISTRY_UNREACHABLE, Some("insecure_scheme"))
        );
        assert!(strict.check_url("ftp://127.0.0.1/").is_err());
        let loose = Client::new(NetOptions { allow_http: true, cache_dir: None, ..NetOptions::default() });
        assert!(loose.check_url("http://packs.example.test/").is_ok());
        // Never from HTTPS to HTTP, even where plain HTTP is allowed.
        let from = url::Url::parse("https://packs.example.test/v2/index.json").unwrap();
        for client in [&strict, &loose] {
            let err = client.redirect(&from, "http://127.0.0.1/v2/index.json").unwrap_err();
            assert_eq!(err.details["reason"].as_str(), Some("redirect_downgrade"));
            assert_eq!(
                client.redirect(&from, "/mirror/index.json").unwrap().as_str(),
                "https://packs.example.test/mirror/index.json"
            );
        }
    }

    #[test]
    fn offline_without_a_copy_is_unreachable() {
        let dir = tempfile::tempdir().unwrap();
        let offline = NetOptions { offline: true, cache_dir: Some(dir.path().into()), ..NetOptions::default() };
        let err = Client::new(offline)
            .get("https://packs.example.test/v2/index.json", 10, code::INVALID_REQUEST, Body::Index)
            .unwrap_err();
        assert_eq!((err.code, err.details["reason"].as_str()), (code::PACK_REGISTRY_UNREACHABLE, Some("offline")));
    }
}

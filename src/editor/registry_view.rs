//! The Registry window's model: a registry (a folder, or an `https://` URL) opened for
//! browsing (interop §2), its packs listed with the state of what an install would take, a
//! filter over them, and the two things a version can be used for: installed into the
//! OpenWOP install cache (the same code as `chainsmith install`) or opened as a pack (its
//! tarball, verified first, as `chainsmith verify` verifies it).
//!
//! Nothing here blocks the caller on the disk or the network: opening and listing a
//! registry (one tarball verified per pack) runs on a thread of its own, and so does each
//! Install or Open (a job). The window polls for the answers. Cancelling drops the answer:
//! the request in flight ends on its own thread (the network timeouts bound it) and what
//! it brings is thrown away, so a cancelled pack never reaches the palette.

use crate::error::{Error, Result, code};
use crate::net::NetOptions;
use crate::pack::Pack;
use crate::registry::{InstallOptions, Installed, PackListing, Registry, cache_base, install, list, open_version};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

/// Where the listing of the open registry is.
pub enum Listing {
    /// No registry chosen yet (or its listing was cancelled).
    None,
    /// The thread opening and listing it has not answered yet.
    Loading {
        answer: Receiver<Result<(Registry, Vec<PackListing>)>>,
        started: Instant,
    },
    /// Listed; `took` is the wall time from opening to the answer.
    Ready {
        packs: Vec<PackListing>,
        took: Duration,
    },
    Failed(Error),
}

/// What the last Install or Open did, for the window to show.
#[derive(Debug, Clone)]
pub enum Outcome {
    Installed(Box<Installed>),
    Opened { name: String, version: String, chains: usize },
    Refused { what: String, error: Error },
    Cancelled { what: String },
}

/// What a finished job brought.
pub enum Done {
    Installed(Box<Installed>),
    /// The verified pack, for the palette.
    Opened(Box<Pack>),
}

impl Done {
    /// The status line it leaves.
    pub fn status(&self) -> String {
        match self {
            Done::Installed(done) => format!("Installed {}@{} to {}", done.name, done.version, done.tarball.display()),
            Done::Opened(pack) => format!(
                "Opened {}@{} from the registry ({})",
                pack.name(),
                pack.version(),
                crate::words::count(pack.chains.len(), "chain", "chains")
            ),
        }
    }
}

/// An Install or Open running on its own thread.
pub struct Job {
    /// `Install NAME@VERSION` or `Open NAME@VERSION`.
    pub what: String,
    pub started: Instant,
    answer: Receiver<Result<Done>>,
}

/// A registry being browsed.
pub struct RegistryView {
    registry: Option<Registry>,
    /// The folder or URL asked for, as given.
    location: Option<String>,
    pub listing: Listing,
    /// Case-insensitive; matches a pack's name, kind or description.
    pub filter: String,
    /// The text of the window's URL field.
    pub url: String,
    /// The install cache base; `None` uses OpenWOP's default (`$OPENWOP_CONFIG_HOME` or the
    /// home folder, then `.openwop/packs`).
    pub install_dir: Option<PathBuf>,
    pub outcome: Option<Outcome>,
    job: Option<Job>,
}

impl Default for RegistryView {
    fn default() -> Self {
        Self {
            registry: None,
            location: None,
            listing: Listing::None,
            filter: String::new(),
            url: String::new(),
            install_dir: None,
            outcome: None,
            job: None,
        }
    }
}

/// How the editor reads a registry by URL: the command line's defaults (HTTPS, plain HTTP to
/// loopback only, the index cache), with the CA file `CHAINSMITH_CA_FILE` names trusted too.
pub fn net_options() -> Result<NetOptions> {
    Ok(NetOptions { extra_roots: crate::net::ca_from_env()?, ..NetOptions::default() })
}

/// Run `work` on a named thread; its answer arrives on the receiver (a failure to start
/// the thread arrives there too).
fn spawn<T: Send + 'static>(name: &str, work: impl FnOnce() -> Result<T> + Send + 'static) -> Receiver<Result<T>> {
    let (tx, answer) = channel();
    let failed = tx.clone();
    // The receiver may be gone (cancelled, or another registry chosen): nothing to tell.
    let spawned = std::thread::Builder::new().name(name.into()).spawn(move || drop(tx.send(work())));
    if let Err(e) = spawned {
        let _ = failed.send(Err(Error::new(code::IO_ERROR, format!("starting the {name} thread: {e}"))));
    }
    answer
}

impl RegistryView {
    /// The listing's state in one line, for the window's header.
    pub fn summary(&self) -> String {
        match &self.listing {
            Listing::None if self.location().is_some() => "Listing cancelled".to_owned(),
            Listing::None => "Choose a registry folder or URL to list its packs".to_owned(),
            Listing::Loading { .. } => "Listing and verifying…".to_owned(),
            Listing::Ready { packs, took } => {
                let shown = self.visible().len();
                let ms = took.as_secs_f64() * 1000.0;
                format!("{shown} of {} packs (listed and verified in {ms:.0} ms)", packs.len())
            }
            Listing::Failed(_) => "The registry could not be listed".to_owned(),
        }
    }

    /// The folder or URL being browsed.
    pub fn location(&self) -> Option<&str> {
        self.location.as_deref()
    }

    /// Open a registry folder and list it in the background.
    pub fn open(&mut self, root: &Path) {
        self.open_location(&root.display().to_string(), NetOptions::default());
    }

    /// Open a registry, a URL or a folder, and list it, all in the background: a registry
    /// that cannot be read fails the listing (`pack_registry_unreachable`).
    pub fn open_location(&mut self, location: &str, net: NetOptions) {
        self.outcome = None;
        self.registry = None;
        self.location = Some(location.to_owned());
        let text = location.to_owned();
        let answer = spawn("registry-listing", move || {
            let registry = Registry::open_location(&text, &net)?;
            let packs = list(&registry)?;
            Ok((registry, packs))
        });
        self.listing = Listing::Loading { answer, started: Instant::now() };
    }

    /// Open the URL in the window's field (trimmed), with the editor's network options.
    pub fn open_url(&mut self) {
        let url = self.url.trim().to_owned();
        match net_options() {
            Ok(net) => self.open_location(&url, net),
            Err(e) => {
                self.location = Some(url);
                self.registry = None;
                self.listing = Listing::Failed(e);
            }
        }
    }

    /// Take the listing thread's answer if it has come; whether the listing is still loading.
    pub fn poll(&mut self) -> bool {
        let Listing::Loading { answer, started } = &self.listing else { return false };
        match answer.try_recv() {
            Err(TryRecvError::Empty) => return true,
            Ok(Ok((registry, packs))) => {
                self.listing = Listing::Ready { packs, took: started.elapsed() };
                self.registry = Some(registry);
            }
            Ok(Err(e)) => self.listing = Listing::Failed(e),
            Err(TryRecvError::Disconnected) => {
                // Only a panic in the listing ends the thread without an answer.
                let at = self.location.clone().unwrap_or_default();
                self.listing = Listing::Failed(
                    Error::new(code::IO_ERROR, format!("listing {at} stopped before it answered")).with("path", at),
                );
            }
        }
        false
    }

    pub fn is_loading(&self) -> bool {
        matches!(self.listing, Listing::Loading { .. })
    }

    /// Stop waiting for the listing; the registry stays unopened.
    pub fn cancel_listing(&mut self) {
        if self.is_loading() {
            self.listing = Listing::None;
            self.registry = None;
        }
    }

    /// Every listed pack, in index order.
    pub fn packs(&self) -> &[PackListing] {
        match &self.listing {
            Listing::Ready { packs, .. } => packs,
            _ => &[],
        }
    }

    /// The listed packs the filter matches.
    pub fn visible(&self) -> Vec<&PackListing> {
        let needle = self.filter.trim().to_lowercase();
        self.packs()
            .iter()
            .filter(|p| {
                needle.is_empty()
                    || [&p.name, &p.kind, &p.description].iter().any(|t| t.to_lowercase().contains(&needle))
            })
            .collect()
    }

    /// The cache base an install writes under.
    pub fn install_base(&self) -> Option<PathBuf> {
        cache_base(self.install_dir.as_deref())
    }

    /// The Install or Open in flight.
    pub fn job(&self) -> Option<&Job> {
        self.job.as_ref()
    }

    /// Why the job just asked for could not start (no registry, no install folder), for the
    /// status bar; nothing while a job runs (the view itself says a second one waits).
    pub fn refused_to_start(&self) -> Option<Error> {
        match (&self.job, &self.outcome) {
            (None, Some(Outcome::Refused { error, .. })) => Some(error.clone()),
            _ => None,
        }
    }

    /// Start installing `name@version` as `chainsmith install` would. One job at a time: a
    /// second is refused while one runs.
    pub fn start_install(&mut self, name: &str, version: &str, opts: InstallOptions) {
        let what = format!("Install {name}@{version}");
        let base = self.install_base().ok_or_else(|| {
            Error::new(code::INVALID_REQUEST, "no install folder: choose one, or set OPENWOP_CONFIG_HOME or HOME")
        });
        let spec = format!("{name}@{version}");
        self.start(what, base, move |reg, base| {
            install(&reg, &spec, &base, opts).map(|d| Done::Installed(Box::new(d)))
        });
    }

    /// Start fetching `name@version`, verifying it and loading the pack its tarball holds
    /// (its `source` is the tarball's file or URL).
    pub fn start_open(&mut self, name: &str, version: &str) {
        let what = format!("Open {name}@{version}");
        let (name, version) = (name.to_owned(), version.to_owned());
        self.start(what, Ok(()), move |reg, ()| {
            open_version(&reg, &name, &version).map(|(_, pack)| Done::Opened(Box::new(pack)))
        });
    }

    fn start<A: Send + 'static>(
        &mut self,
        what: String,
        arg: Result<A>,
        work: impl FnOnce(Registry, A) -> Result<Done> + Send + 'static,
    ) {
        if let Some(job) = &self.job {
            let error = Error::new(code::INVALID_REQUEST, format!("{} is still running; wait, or cancel it", job.what));
            self.outcome = Some(Outcome::Refused { what, error });
            return;
        }
        let ready = self.registry().cloned().and_then(|reg| arg.map(|a| (reg, a)));
        match ready {
            Ok((reg, arg)) => {
                let answer = spawn("registry-job", move || work(reg, arg));
                self.outcome = None;
                self.job = Some(Job { what, started: Instant::now(), answer });
            }
            Err(error) => self.outcome = Some(Outcome::Refused { what, error }),
        }
    }

    /// Take the job's answer if it has come (`None` while it runs): the outcome is recorded,
    /// and what it brought handed over (an opened pack is for the palette).
    pub fn poll_job(&mut self) -> Option<Result<Done>> {
        let job = self.job.as_ref()?;
        let answer = match job.answer.try_recv() {
            Err(TryRecvError::Empty) => return None,
            Ok(answer) => answer,
            Err(TryRecvError::Disconnected) => {
                Err(Error::new(code::IO_ERROR, format!("{} stopped before it answered", job.what)))
            }
        };
        let what = self.job.take().map(|j| j.what).unwrap_or_default();
        self.outcome = Some(match &answer {
            Ok(Done::Installed(done)) => Outcome::Installed(done.clone()),
            Ok(Done::Opened(pack)) => {
                let (name, version) = (pack.name().to_owned(), pack.version().to_owned());
                Outcome::Opened { name, version, chains: pack.chains.len() }
            }
            Err(error) => Outcome::Refused { what, error: error.clone() },
        });
        Some(answer)
    }

    /// Stop waiting for the job: its answer, when it comes, is dropped.
    pub fn cancel_job(&mut self) {
        if let Some(job) = self.job.take() {
            self.outcome = Some(Outcome::Cancelled { what: job.what });
        }
    }

    fn registry(&self) -> Result<&Registry> {
        self.registry.as_ref().ok_or_else(|| Error::new(code::INVALID_REQUEST, "no registry is open"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Check, publish::publish};
    use ed25519_dalek::SigningKey;
    use serde_json::json;

    /// The pack signed under a registry key is v2, whose typeIds are pinned.
    fn pinned(dir: PathBuf) -> PathBuf {
        let text = std::fs::read_to_string(dir.join("pack.json")).unwrap();
        std::fs::write(dir.join("pack.json"), text.replace("\"core.identity\"", "\"core.identity@1.0.0\"")).unwrap();
        dir
    }

    fn pack_dir(root: &Path, name: &str, version: &str, description: &str) -> PathBuf {
        let dir = root.join(format!("{name}-{version}"));
        std::fs::create_dir_all(&dir).unwrap();
        let m = json!({"name": name, "version": version, "kind": "workflow-chain", "description": description,
            "engines": {"openwop": ">=1.0.0"},
            "chains": [{"chainId": format!("{name}.c"), "version": "1.0.0", "label": "C", "description": "d",
                "parameters": {"type": "object", "properties": {}},
                "dag": {"nodes": [{"id": "a", "typeId": "core.identity"}]}}]});
        std::fs::write(dir.join("pack.json"), m.to_string()).unwrap();
        dir
    }

    fn loaded(view: &mut RegistryView) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while view.poll() {
            assert!(Instant::now() < deadline, "the listing never answered");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Poll until the job answers (the caller's thread is never held by the job itself).
    fn finished(view: &mut RegistryView) -> Option<Done> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let polled = Instant::now();
            let done = view.poll_job();
            assert!(polled.elapsed() < Duration::from_millis(100), "polling waited on the job");
            if let Some(done) = done {
                return done.ok();
            }
            assert!(Instant::now() < deadline, "the job never answered");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn lists_in_the_background_filters_installs_and_opens() {
        let root = tempfile::tempdir().unwrap();
        let reg = root.path().join("reg");
        let key = SigningKey::from_bytes(&[5u8; 32]);
        publish(&pinned(pack_dir(root.path(), "vendor.acme.mail", "1.0.0", "Send mail")), &reg, Some((&key, "k1")))
            .unwrap();
        publish(&pack_dir(root.path(), "vendor.acme.crm", "2.0.0", "Customer records"), &reg, None).unwrap();
        let mut view = RegistryView { install_dir: Some(root.path().join("cache")), ..RegistryView::default() };
        view.open(&reg);
        loaded(&mut view);
        assert!(matches!(view.listing, Listing::Ready { .. }));
        assert!(view.summary().starts_with("2 of 2 packs (listed and verified in "), "{}", view.summary());
        let names: Vec<&str> = view.packs().iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["vendor.acme.crm", "vendor.acme.mail"], "the index lists packs by name");
        assert_eq!(view.packs()[1].check, Check::Verified { version: "1.0.0".into(), key_id: "k1".into() });
        view.filter = "CUSTOMER".into();
        assert_eq!(view.visible().iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["vendor.acme.crm"]);
        assert!(view.summary().starts_with("1 of 2 packs"), "{}", view.summary());

        view.start_install("vendor.acme.mail", "1.0.0", InstallOptions::default());
        let Some(Done::Installed(done)) = finished(&mut view) else { panic!("installed: {:?}", view.outcome) };
        let tarball = root.path().join("cache/vendor.acme.mail/1.0.0/1.0.0.tgz");
        assert_eq!(done.tarball, tarball);
        assert!(tarball.is_file());
        view.start_open("vendor.acme.crm", "2.0.0");
        let Some(Done::Opened(pack)) = finished(&mut view) else { panic!("opened: {:?}", view.outcome) };
        assert_eq!((pack.name(), pack.chains.len()), ("vendor.acme.crm", 1));
        assert!(matches!(view.outcome, Some(Outcome::Opened { chains: 1, .. })));

        // A version the registry does not have is refused with the registry's code.
        view.start_install("vendor.acme.mail", "9.9.9", InstallOptions::default());
        assert!(view.refused_to_start().is_none(), "it started; the registry refuses it later");
        assert!(finished(&mut view).is_none());
        let Some(Outcome::Refused { error, .. }) = &view.outcome else { panic!("refused") };
        assert_eq!(error.code, code::PACK_VERSION_NOT_FOUND);
        // A tampered tarball is not opened.
        let tgz = Registry::open(&reg).unwrap().tarball_path("vendor.acme.crm", "2.0.0").unwrap();
        std::fs::write(&tgz, b"tampered").unwrap();
        view.start_open("vendor.acme.crm", "2.0.0");
        assert!(finished(&mut view).is_none());
        let Some(Outcome::Refused { error, .. }) = &view.outcome else { panic!("refused") };
        assert_eq!(error.code, code::PACK_INTEGRITY_FAILURE);
    }

    /// A server for `reg` whose tarballs take `delay` to start answering; one thread per
    /// connection, so a slow answer holds up no other.
    fn slow_server(reg: PathBuf, delay: Duration) -> String {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                let reg = reg.clone();
                std::thread::spawn(move || {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") && matches!(stream.read(&mut byte), Ok(1)) {
                        head.push(byte[0]);
                    }
                    let head = String::from_utf8_lossy(&head).into_owned();
                    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    if path.ends_with(".tgz") {
                        std::thread::sleep(delay);
                    }
                    let answer = match std::fs::read(reg.join(path.trim_start_matches('/'))) {
                        Ok(b) => {
                            [format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", b.len()).into_bytes(), b].concat()
                        }
                        Err(_) => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec(),
                    };
                    let _ = stream.write_all(&answer);
                });
            }
        });
        url
    }

    #[test]
    fn a_url_is_listed_and_opened_off_the_callers_thread_and_cancelling_drops_the_answer() {
        let root = tempfile::tempdir().unwrap();
        let reg = root.path().join("reg");
        let key = SigningKey::from_bytes(&[5u8; 32]);
        publish(&pinned(pack_dir(root.path(), "vendor.acme.mail", "1.0.0", "Send mail")), &reg, Some((&key, "k1")))
            .unwrap();
        let delay = Duration::from_millis(600);
        let url = slow_server(reg, delay);
        let mut view = RegistryView::default();
        let net = NetOptions { cache_dir: None, ..NetOptions::default() };
        let opened = Instant::now();
        view.open_location(&url, net);
        assert!(opened.elapsed() < delay / 2, "opening waited for the server");
        loaded(&mut view);
        assert_eq!(view.location(), Some(url.as_str()));
        assert_eq!(view.packs()[0].check, Check::Verified { version: "1.0.0".into(), key_id: "k1".into() });

        // Cancelled while the server sleeps: the outcome says so at once, and the pack that
        // arrives later is dropped.
        view.start_open("vendor.acme.mail", "1.0.0");
        assert!(view.poll_job().is_none() && view.job().is_some());
        view.cancel_job();
        assert!(view.job().is_none());
        assert!(matches!(&view.outcome, Some(Outcome::Cancelled { what }) if what == "Open vendor.acme.mail@1.0.0"));
        std::thread::sleep(delay + Duration::from_millis(300));
        assert!(view.poll_job().is_none());

        view.start_open("vendor.acme.mail", "1.0.0");
        let started = Instant::now();
        let Some(Done::Opened(pack)) = finished(&mut view) else { panic!("opened: {:?}", view.outcome) };
        assert!(started.elapsed() >= delay, "the answer came after the server's delay");
        assert_eq!(pack.source, PathBuf::from(format!("{url}/v2/packs/vendor.acme.mail/-/1.0.0.tgz")));
        // One job at a time.
        view.start_open("vendor.acme.mail", "1.0.0");
        view.start_install("vendor.acme.mail", "1.0.0", InstallOptions::default());
        let Some(Outcome::Refused { error, .. }) = &view.outcome else { panic!("refused") };
        assert_eq!(error.code, code::INVALID_REQUEST);
        view.cancel_job();
    }

    #[test]
    fn a_folder_that_is_no_registry_fails_with_its_code() {
        let mut view = RegistryView::default();
        view.open(Path::new("/nonexistent/registry"));
        loaded(&mut view);
        let Listing::Failed(e) = &view.listing else { panic!("failed") };
        assert_eq!(e.code, code::PACK_REGISTRY_UNREACHABLE);
        let empty = tempfile::tempdir().unwrap();
        view.open(empty.path());
        loaded(&mut view);
        let Listing::Failed(e) = &view.listing else { panic!("failed") };
        assert_eq!(e.code, code::PACK_REGISTRY_UNREACHABLE);
    }

    #[test]
    fn a_job_that_cannot_start_says_why_for_the_status_bar() {
        let mut view = RegistryView::default();
        assert!(view.refused_to_start().is_none());
        view.start_open("vendor.acme.crm", "2.0.0");
        assert!(view.job().is_none());
        let e = view.refused_to_start().expect("no registry is open");
        assert_eq!((e.code, e.message.as_str()), (code::INVALID_REQUEST, "no registry is open"));
    }

    #[test]
    fn a_finished_job_says_what_it_brought() {
        let pack = crate::pack::load_path(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/subchain/packs/two-level.json"),
            crate::pack::LoadOptions::default(),
        )
        .packs
        .remove(0);
        let chains = pack.chains.len();
        let status = Done::Opened(Box::new(pack)).status();
        assert!(
            status.starts_with("Opened ") && status.ends_with(&format!("from the registry ({chains} chains)")),
            "{status}"
        );
    }
}

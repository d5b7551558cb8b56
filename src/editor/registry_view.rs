//! The Registry window's model: a registry folder opened for browsing (interop §2), its packs
//! listed with the state of what an install would take, a filter over them, and the two
//! things a version can be used for: installed into the OpenWOP install cache (the same code
//! as `chainsmith install`) or opened as a pack (its tarball, verified first).
//!
//! Listing verifies one tarball per pack (integrity, then the signature), which takes far
//! longer than a frame on a registry of real size, so it runs on a thread of its own and the
//! window polls for the answer; installing or opening one version stays on the caller's
//! thread.

use crate::error::{Error, Result, code};
use crate::pack::{LoadOptions, Pack, load_bytes};
use crate::registry::{InstallOptions, Installed, PackListing, Registry, cache_base, install, list, verify};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

/// Where the listing of the open registry is.
pub enum Listing {
    /// No registry chosen yet.
    None,
    /// The listing thread has not answered yet.
    Loading {
        answer: Receiver<Result<Vec<PackListing>>>,
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
}

/// A registry folder being browsed.
pub struct RegistryView {
    registry: Option<Registry>,
    pub listing: Listing,
    /// Case-insensitive; matches a pack's name, kind or description.
    pub filter: String,
    /// The install cache base; `None` uses OpenWOP's default (`$OPENWOP_CONFIG_HOME` or the
    /// home folder, then `.openwop/packs`).
    pub install_dir: Option<PathBuf>,
    pub outcome: Option<Outcome>,
}

impl Default for RegistryView {
    fn default() -> Self {
        Self { registry: None, listing: Listing::None, filter: String::new(), install_dir: None, outcome: None }
    }
}

impl RegistryView {
    /// The folder being browsed.
    pub fn root(&self) -> Option<&Path> {
        self.registry.as_ref().map(|r| r.root.as_path())
    }

    /// Open a registry folder and start listing it in the background. A folder that is not
    /// a registry fails at once (`pack_registry_unreachable`).
    pub fn open(&mut self, root: &Path) {
        self.outcome = None;
        match Registry::open(root) {
            Ok(registry) => {
                let (tx, answer) = channel();
                let for_thread = registry.clone();
                let spawned = std::thread::Builder::new()
                    .name("registry-listing".into())
                    // The receiver may be gone (another folder was chosen): nothing to tell.
                    .spawn(move || drop(tx.send(list(&for_thread))));
                self.listing = match spawned {
                    Ok(_) => Listing::Loading { answer, started: Instant::now() },
                    Err(e) => Listing::Failed(Error::io(root, &e)),
                };
                self.registry = Some(registry);
            }
            Err(e) => {
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
            Ok(Ok(packs)) => self.listing = Listing::Ready { packs, took: started.elapsed() },
            Ok(Err(e)) => self.listing = Listing::Failed(e),
            Err(TryRecvError::Disconnected) => {
                // Only a panic in the listing ends the thread without an answer.
                let root = self.root().map(|r| r.display().to_string()).unwrap_or_default();
                self.listing = Listing::Failed(
                    Error::new(code::IO_ERROR, format!("listing {root} stopped before it answered")).with("path", root),
                );
            }
        }
        false
    }

    pub fn is_loading(&self) -> bool {
        matches!(self.listing, Listing::Loading { .. })
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

    /// Install `name@version` as `chainsmith install` would, recording the outcome.
    pub fn install(&mut self, name: &str, version: &str, opts: InstallOptions) -> Option<&Installed> {
        let what = format!("Install {name}@{version}");
        let result = self.registry().and_then(|reg| {
            let base = self.install_base().ok_or_else(|| {
                Error::new(code::INVALID_REQUEST, "no install folder: choose one, or set OPENWOP_CONFIG_HOME or HOME")
            })?;
            install(reg, &format!("{name}@{version}"), &base, opts)
        });
        self.outcome = Some(match result {
            Ok(done) => Outcome::Installed(Box::new(done)),
            Err(error) => Outcome::Refused { what, error },
        });
        match &self.outcome {
            Some(Outcome::Installed(done)) => Some(done),
            _ => None,
        }
    }

    /// The pack in `name@version`'s tarball, after its integrity and signature check out; its
    /// `source` is the registry's tarball path.
    pub fn open_version(&mut self, name: &str, version: &str) -> Option<Pack> {
        let result = self.registry().and_then(|reg| {
            let verified = verify(reg, name, version)?;
            let path = reg.tarball_path(name, version)?;
            let manifest = verified.archive.manifest().ok_or_else(|| {
                Error::new(code::PACK_MANIFEST_INVALID, format!("{}: the tarball has no pack.json", path.display()))
                    .with("path", path.display().to_string())
            })?;
            load_bytes(&path, manifest, LoadOptions::default())
        });
        match result {
            Ok(pack) => {
                let chains = pack.chains.len();
                self.outcome = Some(Outcome::Opened { name: name.to_owned(), version: version.to_owned(), chains });
                Some(pack)
            }
            Err(error) => {
                self.outcome = Some(Outcome::Refused { what: format!("Open {name}@{version}"), error });
                None
            }
        }
    }

    fn registry(&self) -> Result<&Registry> {
        self.registry.as_ref().ok_or_else(|| Error::new(code::INVALID_REQUEST, "no registry folder is open"))
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
        let names: Vec<&str> = view.packs().iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["vendor.acme.crm", "vendor.acme.mail"], "the index lists packs by name");
        assert_eq!(view.packs()[1].check, Check::Verified { version: "1.0.0".into(), key_id: "k1".into() });
        view.filter = "CUSTOMER".into();
        assert_eq!(view.visible().iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["vendor.acme.crm"]);

        let done = view.install("vendor.acme.mail", "1.0.0", InstallOptions::default()).unwrap();
        let tarball = root.path().join("cache/vendor.acme.mail/1.0.0/1.0.0.tgz");
        assert_eq!(done.tarball, tarball);
        assert!(tarball.is_file());
        let pack = view.open_version("vendor.acme.crm", "2.0.0").unwrap();
        assert_eq!((pack.name(), pack.chains.len()), ("vendor.acme.crm", 1));
        assert!(matches!(view.outcome, Some(Outcome::Opened { chains: 1, .. })));

        // A version the registry does not have is refused with the registry's code.
        assert!(view.install("vendor.acme.mail", "9.9.9", InstallOptions::default()).is_none());
        let Some(Outcome::Refused { error, .. }) = &view.outcome else { panic!("refused") };
        assert_eq!(error.code, code::PACK_VERSION_NOT_FOUND);
        // A tampered tarball is not opened.
        let tgz = Registry::open(&reg).unwrap().tarball_path("vendor.acme.crm", "2.0.0").unwrap();
        std::fs::write(&tgz, b"tampered").unwrap();
        assert!(view.open_version("vendor.acme.crm", "2.0.0").is_none());
        let Some(Outcome::Refused { error, .. }) = &view.outcome else { panic!("refused") };
        assert_eq!(error.code, code::PACK_INTEGRITY_FAILURE);
    }

    #[test]
    fn a_folder_that_is_no_registry_fails_with_its_code() {
        let mut view = RegistryView::default();
        view.open(Path::new("/nonexistent/registry"));
        let Listing::Failed(e) = &view.listing else { panic!("failed") };
        assert_eq!(e.code, code::PACK_REGISTRY_UNREACHABLE);
        let empty = tempfile::tempdir().unwrap();
        view.open(empty.path());
        loaded(&mut view);
        let Listing::Failed(e) = &view.listing else { panic!("failed") };
        assert_eq!(e.code, code::PACK_REGISTRY_UNREACHABLE);
    }
}

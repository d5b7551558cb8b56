//! How a publish changes the registry folder: under the folder's lock, every file is
//! staged in a hidden folder of the registry root, then moved into place one by one, all
//! or nothing.
//!
//! Every write is made name by name from one handle on the registry root
//! ([`Folder`]), never through a symbolic link: a link below the root, whether a folder
//! such as `v2` or a file such as an index, and whether the default layout or an endpoint
//! template leads through it, is refused with `symlink_refused` before anything changes
//! ([`check_links`]); one put there while publishing is refused or replaced by the move,
//! never written through. The root itself is the caller's choice and may be reached
//! through a link.

use crate::error::{Error, Result, code};
use crate::fsio::contained::Folder;
use crate::registry::layout::Registry;
use std::path::{Component, Path, PathBuf};

/// The registry's lock file, present only while a publish holds it.
pub const LOCK_FILE: &str = ".chainsmith-publish.lock";
/// Staging folders in the registry root start with this.
const STAGING_PREFIX: &str = ".chainsmith-staging-";

/// A file of the registry: the names leading to it from the root.
pub(super) struct Target {
    segments: Vec<String>,
}

impl Target {
    /// `path`, which the registry's layout made from `root` and single segments.
    pub fn new(root: &Path, path: &Path) -> Result<Self> {
        let outside = || {
            Error::new(code::INVALID_REQUEST, format!("{} is not a file inside {}", path.display(), root.display()))
                .with("path", path.display().to_string())
        };
        let rel = path.strip_prefix(root).map_err(|_| outside())?;
        let segments = rel
            .components()
            .map(|c| match c {
                Component::Normal(s) => s.to_str().map(str::to_owned),
                _ => None,
            })
            .collect::<Option<Vec<String>>>()
            .filter(|s| !s.is_empty())
            .ok_or_else(outside)?;
        Ok(Self { segments })
    }

    fn name(&self) -> &str {
        self.segments.last().map_or("", String::as_str)
    }

    fn folders(&self) -> &[String] {
        &self.segments[..self.segments.len() - 1]
    }
}

/// The registry folder's advisory lock (`LOCK_FILE` in its root, `flock` on unix): held
/// for the whole read-modify-write of a publish, so parallel publishes into one folder
/// queue instead of losing each other's index rows. The holder removes the file when it
/// is done, so no trace is left; a waiter that then gets the lock on the removed file
/// sees that the name no longer names it and tries again. The handle on the root it
/// holds is the one every write of the publish is made from.
pub(super) struct RegistryLock {
    file: std::fs::File,
    pub root: Folder,
}

impl RegistryLock {
    pub fn acquire(root: &Path) -> Result<Self> {
        loop {
            // Opened again each time: a failed publish that held the lock before may have
            // removed the folder it had made.
            let folder = Folder::create(root)?;
            let file = folder.open_file(LOCK_FILE)?;
            let path = root.join(LOCK_FILE);
            file.lock().map_err(|e| Error::io(&path, &e))?;
            if folder.names(LOCK_FILE, &file) {
                return Ok(Self { file, root: folder });
            }
        }
    }

    pub fn release(self) {
        self.root.remove_file(LOCK_FILE);
        drop(self.file);
    }
}

/// Staging folders left by a publish that crashed; none can be in use while the lock is held.
pub(super) fn remove_stale_staging(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for e in entries.flatten() {
        // The entry's own type: a link named like a staging folder is not followed.
        if e.file_name().to_string_lossy().starts_with(STAGING_PREFIX) && e.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Refused with `symlink_refused` when a link stands anywhere on the way to a target, or
/// at the target: checked for every target before a byte of the registry changes.
pub(super) fn check_links(root: &Folder, targets: &[&Target]) -> Result<()> {
    'targets: for target in targets {
        let mut dir = root.try_clone()?;
        for name in target.folders() {
            if dir.kind(name)?.is_none() {
                continue 'targets;
            }
            dir = dir.child(name, false)?;
        }
        dir.refuse_link(target.name())?;
    }
    Ok(())
}

/// A hidden folder in the registry root (so moves out of it stay on one file system)
/// holding the new files at their registry-relative paths, and the old files' backups.
pub(super) struct Staging {
    folder: Folder,
    dir: PathBuf,
}

impl Staging {
    pub fn new(root: &Folder) -> Result<Self> {
        let name = format!("{STAGING_PREFIX}{}-{:08x}", std::process::id(), rand::random::<u32>());
        let (folder, made) = root.child_made(&name)?;
        let dir = folder.path().to_path_buf();
        if !made {
            let e = std::io::Error::from(std::io::ErrorKind::AlreadyExists);
            return Err(Error::io(&dir, &e));
        }
        Ok(Self { folder, dir })
    }

    /// The staged copy of the registry: its files at their registry-relative paths.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The staging folder a target's staged copy is in.
    fn folder_of(&self, target: &Target, create: bool) -> Result<Folder> {
        let mut dir = self.folder.try_clone()?;
        for name in target.folders() {
            dir = dir.child(name, create)?;
        }
        Ok(dir)
    }

    /// Write each file's bytes under the staging folder, dropping them once written (the
    /// staged copy is what is verified); returns the targets in order, for [`commit`].
    pub fn stage(&self, writes: Vec<(Target, Vec<u8>)>) -> Result<Vec<Target>> {
        let mut targets = Vec::with_capacity(writes.len());
        for (target, bytes) in writes {
            self.folder_of(&target, true)?.write(target.name(), &bytes)?;
            targets.push(target);
        }
        Ok(targets)
    }

    /// A listed key's file, copied beside the staged files so the staged version verifies
    /// against it (it is not moved into the registry).
    pub fn borrow_key(&self, reg: &Registry, staged: &Registry, key_id: &str) -> Result<()> {
        let (Some(entry), Some(staged_entry)) = (reg.key(key_id), staged.key(key_id)) else { return Ok(()) };
        let to = Target::new(&self.dir, &staged.public_key_path(staged_entry)?)?;
        let folder = self.folder_of(&to, true)?;
        if folder.kind(to.name())?.is_some() {
            return Ok(());
        }
        let from = reg.public_key_path(entry)?;
        let bytes = crate::fsio::read_limited(&from, 64 * 1024, code::INVALID_REQUEST)?;
        folder.write(to.name(), &bytes).map(drop)
    }

    pub fn remove(self) {
        drop(self.folder);
        // Not followed if it were a link: `remove_dir_all` removes a link, not its target.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Move the staged files into place in `targets` order. A file replaced is kept first as a
/// hard link in the staging folder; on any failure every move done is undone (old files
/// back, new ones and new folders removed), so the folder is as it was. Each move is
/// atomic and its folder synced before the next, so a crash leaves the old state or the
/// new one for every reader: nothing finds the version before its manifest is in place,
/// nothing resolves it before the pack index lists it, and a retry of the same publish
/// finishes one interrupted after its manifest (`check_new_version`).
pub(super) fn commit(root: &Folder, staging: &Staging, targets: &[Target]) -> Result<()> {
    let mut made: Vec<(Folder, String)> = Vec::new();
    let mut done: Vec<(Folder, &str, Option<String>)> = Vec::new();
    for (i, target) in targets.iter().enumerate() {
        match move_into_place(root, staging, i, target, &mut made) {
            Ok((dir, backup)) => done.push((dir, target.name(), backup)),
            Err(e) => {
                for (dir, name, backup) in done.iter().rev() {
                    match backup {
                        Some(b) => drop(staging.folder.move_to(b, dir, name)),
                        None => dir.remove_file(name),
                    }
                }
                for (parent, name) in made.iter().rev() {
                    parent.remove_empty_dir(name);
                }
                return Err(e);
            }
        }
    }
    Ok(())
}

/// One step of [`commit`]: the folder the target is in, and the backup of the file
/// replaced, if one was there. Folders this step makes are added to `made`.
fn move_into_place(
    root: &Folder,
    staging: &Staging,
    step: usize,
    target: &Target,
    made: &mut Vec<(Folder, String)>,
) -> Result<(Folder, Option<String>)> {
    let mut dir = root.try_clone()?;
    for name in target.folders() {
        let (child, new) = dir.child_made(name)?;
        if new {
            made.push((dir, name.clone()));
        }
        dir = child;
    }
    let name = target.name();
    dir.refuse_link(name)?;
    let backup = match dir.kind(name)? {
        Some(_) => {
            let b = format!(".old-{step}");
            dir.hard_link(name, &staging.folder, &b)?;
            Some(b)
        }
        None => None,
    };
    if let Err(e) = staging.folder_of(target, false).and_then(|from| from.move_to(name, &dir, name)) {
        if let Some(b) = &backup {
            staging.folder.remove_file(b);
        }
        return Err(e);
    }
    dir.sync();
    Ok((dir, backup))
}

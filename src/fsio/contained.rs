//! Writes confined to a folder that someone else may control (a pack folder, the install
//! cache). The folder is opened once; every folder below it and every file in them is
//! reached from that handle, one name at a time, without following symbolic links. Checking
//! a path for links and then writing it by name leaves a window in which a link can be put
//! in place; here there is none: a link met on the way is refused, and one swapped in
//! after the check is replaced by the rename, never written through.
//!
//! Unix only does this with handles (`openat`, `renameat`); elsewhere each write checks the
//! path for links first, which narrows the window but cannot close it.

use crate::error::{Error, Result, code};
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A folder opened for confined writes.
#[derive(Debug)]
pub struct Folder {
    path: PathBuf,
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
}

/// What a name in a folder is, links not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Folder,
    Link,
    Other,
}

fn link_refused(path: &Path) -> Error {
    Error::new(
        code::SYMLINK_REFUSED,
        format!("{} is a symbolic link; chainsmith does not write through links here", path.display()),
    )
    .with("path", path.display().to_string())
}

/// One path segment: not empty, no separator, not `.` or `..`, no NUL.
fn check_segment(dir: &Path, name: &str) -> Result<()> {
    let bad = name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']);
    if bad {
        return Err(Error::new(code::INVALID_REQUEST, format!("\"{name}\" is not a single file name"))
            .with("path", dir.join(name).display().to_string()));
    }
    Ok(())
}

impl Folder {
    /// Open `path`, which the caller chose (it may itself be reached through a link); an
    /// empty path is the current folder, and the paths written below it stay relative.
    pub fn open(path: &Path) -> Result<Self> {
        let at = if path.as_os_str().is_empty() { Path::new(".") } else { path };
        imp::open(at).map(|fd| Self {
            path: path.to_path_buf(),
            #[cfg(unix)]
            fd,
        })
    }

    /// [`Self::open`], creating `path` and its parents first when missing.
    pub fn create(path: &Path) -> Result<Self> {
        if !path.as_os_str().is_empty() {
            std::fs::create_dir_all(path).map_err(|e| Error::io(path, &e))?;
        }
        Self::open(path)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder `name` inside this one, created when missing and `create`; refused with
    /// `symlink_refused` when it is a link.
    pub fn child(&self, name: &str, create: bool) -> Result<Folder> {
        check_segment(&self.path, name)?;
        let path = self.path.join(name);
        imp::child(self, name, &path, create).map(|fd| Folder {
            path,
            #[cfg(unix)]
            fd,
        })
    }

    /// Refused with `symlink_refused` when `name` in this folder is a link (before reading
    /// what a write will replace, say).
    pub fn refuse_link(&self, name: &str) -> Result<()> {
        check_segment(&self.path, name)?;
        if imp::is_link(self, name) { Err(link_refused(&self.path.join(name))) } else { Ok(()) }
    }

    /// What `name` in this folder is, links not followed; `None` when nothing is there.
    pub fn kind(&self, name: &str) -> Result<Option<Kind>> {
        check_segment(&self.path, name)?;
        Ok(imp::kind(self, name))
    }

    /// The folder `name` inside this one, created when missing; `true` when this call made
    /// it. Refused with `symlink_refused` when it is a link.
    pub fn child_made(&self, name: &str) -> Result<(Folder, bool)> {
        check_segment(&self.path, name)?;
        let path = self.path.join(name);
        let made = imp::make_dir(self, name, &path)?;
        let folder = imp::child(self, name, &path, false).map(|fd| Folder {
            path,
            #[cfg(unix)]
            fd,
        })?;
        Ok((folder, made))
    }

    /// Another handle on the same folder.
    pub fn try_clone(&self) -> Result<Folder> {
        Ok(Folder {
            path: self.path.clone(),
            #[cfg(unix)]
            fd: self.fd.try_clone().map_err(|e| Error::io(&self.path, &e))?,
        })
    }

    /// Give the file `name` a second name `to_name` in the folder `to`, as a hard link (a
    /// link at `name` is linked itself, never followed).
    pub fn hard_link(&self, name: &str, to: &Folder, to_name: &str) -> Result<()> {
        check_segment(&self.path, name)?;
        check_segment(&to.path, to_name)?;
        imp::hard_link(self, name, to, to_name).map_err(|e| Error::io(&self.path.join(name), &e))
    }

    /// Move `name` in this folder to `to_name` in the folder `to` (one file system): atomic,
    /// and what was at `to_name`, a link included, is replaced, never written through.
    pub fn move_to(&self, name: &str, to: &Folder, to_name: &str) -> Result<()> {
        check_segment(&self.path, name)?;
        check_segment(&to.path, to_name)?;
        imp::rename(self, OsStr::new(name), to, to_name).map_err(|e| Error::io(&to.path.join(to_name), &e))
    }

    /// Remove the file (or link) `name`; nothing there is not an error.
    pub fn remove_file(&self, name: &str) {
        if check_segment(&self.path, name).is_ok() {
            imp::remove(self, OsStr::new(name));
        }
    }

    /// Remove the folder `name` if it is empty.
    pub fn remove_empty_dir(&self, name: &str) {
        if check_segment(&self.path, name).is_ok() {
            imp::remove_dir(self, name);
        }
    }

    /// Open the file `name` for reading and writing, created when missing; a link there is
    /// refused (`symlink_refused`), never followed.
    pub fn open_file(&self, name: &str) -> Result<std::fs::File> {
        check_segment(&self.path, name)?;
        let path = self.path.join(name);
        imp::open_file(self, name).map_err(|e| match e.raw_os_error() {
            #[cfg(unix)]
            Some(libc::ELOOP) => link_refused(&path),
            _ if imp::kind(self, name) == Some(Kind::Link) => link_refused(&path),
            _ => Error::io(&path, &e),
        })
    }

    /// Whether `name` in this folder is the very file `file` has open (not a link to it, not
    /// a file put there since).
    pub fn names(&self, name: &str, file: &std::fs::File) -> bool {
        check_segment(&self.path, name).is_ok() && imp::same_file(self, name, file)
    }

    /// Make the changes to this folder's names durable.
    pub fn sync(&self) {
        imp::sync(self);
    }

    /// Write `bytes` to `name` in this folder atomically: a temporary file beside it,
    /// synced, then renamed over it. A link at `name` is refused, never followed; an
    /// existing file's permissions carry over. Returns the file's path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf> {
        self.refuse_link(name)?;
        let target = self.path.join(name);
        let tmp = super::hidden_sibling(OsStr::new(name), "tmp");
        let fail = |what: &str, e: std::io::Error| {
            Error::new(code::IO_ERROR, format!("could not {what} {}: {e}", target.display()))
                .with("path", target.display().to_string())
        };
        let mut file = imp::create_new(self, &tmp, name).map_err(|e| fail("create a temporary file beside", e))?;
        let written = (|| {
            file.write_all(bytes).map_err(|e| fail("write", e))?;
            file.sync_all().map_err(|e| fail("sync", e))?;
            imp::rename(self, &tmp, self, name).map_err(|e| fail("replace", e))
        })();
        if let Err(e) = written {
            imp::remove(self, &tmp);
            return Err(e);
        }
        imp::sync(self);
        Ok(target)
    }
}

#[cfg(unix)]
mod imp {
    use super::{Folder, Kind, link_refused};
    use crate::error::{Error, Result};
    use std::ffi::{CString, OsStr};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    fn c_name(name: impl AsRef<OsStr>) -> std::io::Result<CString> {
        CString::new(name.as_ref().as_bytes()).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))
    }

    fn owned(fd: libc::c_int) -> std::io::Result<OwnedFd> {
        if fd < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            // SAFETY: a descriptor the system just returned, owned by nobody else.
            Ok(unsafe { OwnedFd::from_raw_fd(fd) })
        }
    }

    const DIR_FLAGS: libc::c_int = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;

    pub fn open(path: &Path) -> Result<OwnedFd> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| Error::io(path, &std::io::Error::from(std::io::ErrorKind::InvalidInput)))?;
        // SAFETY: a NUL-terminated path and constant flags.
        owned(unsafe { libc::open(c.as_ptr(), DIR_FLAGS) }).map_err(|e| Error::io(path, &e))
    }

    /// `lstat` of `name` in the folder: its mode, `None` when there is nothing there.
    fn mode_of(dir: &Folder, name: &str) -> Option<libc::mode_t> {
        let c = c_name(name).ok()?;
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: a valid descriptor, a NUL-terminated name, and room for the answer.
        let rc = unsafe { libc::fstatat(dir.fd.as_raw_fd(), c.as_ptr(), st.as_mut_ptr(), libc::AT_SYMLINK_NOFOLLOW) };
        // SAFETY: filled in when the call succeeded.
        (rc == 0).then(|| unsafe { st.assume_init() }.st_mode)
    }

    pub fn is_link(dir: &Folder, name: &str) -> bool {
        mode_of(dir, name).is_some_and(|m| m & libc::S_IFMT == libc::S_IFLNK)
    }

    pub fn kind(dir: &Folder, name: &str) -> Option<Kind> {
        mode_of(dir, name).map(|m| match m & libc::S_IFMT {
            libc::S_IFREG => Kind::File,
            libc::S_IFDIR => Kind::Folder,
            libc::S_IFLNK => Kind::Link,
            _ => Kind::Other,
        })
    }

    /// `mkdirat`: whether the folder was made (false: something is there already).
    pub fn make_dir(dir: &Folder, name: &str, path: &Path) -> Result<bool> {
        let c = c_name(name).map_err(|e| Error::io(path, &e))?;
        // SAFETY: a valid descriptor and a NUL-terminated name.
        if unsafe { libc::mkdirat(dir.fd.as_raw_fd(), c.as_ptr(), 0o777) } == 0 {
            return Ok(true);
        }
        let err = std::io::Error::last_os_error();
        if err.kind() == std::io::ErrorKind::AlreadyExists { Ok(false) } else { Err(Error::io(path, &err)) }
    }

    pub fn hard_link(from: &Folder, name: &str, to: &Folder, to_name: &str) -> std::io::Result<()> {
        let (a, b) = (c_name(name)?, c_name(to_name)?);
        // SAFETY: valid descriptors and NUL-terminated names; flags 0: a link is not followed.
        if unsafe { libc::linkat(from.fd.as_raw_fd(), a.as_ptr(), to.fd.as_raw_fd(), b.as_ptr(), 0) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    pub fn remove_dir(dir: &Folder, name: &str) {
        if let Ok(c) = c_name(name) {
            // SAFETY: a valid descriptor and a NUL-terminated name.
            unsafe { libc::unlinkat(dir.fd.as_raw_fd(), c.as_ptr(), libc::AT_REMOVEDIR) };
        }
    }

    pub fn open_file(dir: &Folder, name: &str) -> std::io::Result<std::fs::File> {
        let c = c_name(name)?;
        let flags = libc::O_RDWR | libc::O_CREAT | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: a valid descriptor, a NUL-terminated name, constant flags and mode.
        owned(unsafe { libc::openat(dir.fd.as_raw_fd(), c.as_ptr(), flags, 0o666 as libc::c_uint) })
            .map(std::fs::File::from)
    }

    pub fn same_file(dir: &Folder, name: &str, file: &std::fs::File) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Ok(c) = c_name(name) else { return false };
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: a valid descriptor, a NUL-terminated name, and room for the answer.
        let rc = unsafe { libc::fstatat(dir.fd.as_raw_fd(), c.as_ptr(), st.as_mut_ptr(), libc::AT_SYMLINK_NOFOLLOW) };
        if rc != 0 {
            return false;
        }
        // SAFETY: filled in when the call succeeded.
        let st = unsafe { st.assume_init() };
        #[allow(clippy::useless_conversion, reason = "dev_t and ino_t are narrower than u64 on some systems")]
        file.metadata().is_ok_and(|m| m.dev() == u64::from(st.st_dev) && m.ino() == u64::from(st.st_ino))
    }

    pub fn child(dir: &Folder, name: &str, path: &Path, create: bool) -> Result<OwnedFd> {
        let c = c_name(name).map_err(|e| Error::io(path, &e))?;
        if create {
            // SAFETY: a valid descriptor and a NUL-terminated name.
            if unsafe { libc::mkdirat(dir.fd.as_raw_fd(), c.as_ptr(), 0o777) } != 0 {
                let err = std::io::Error::last_os_error();
                if err.kind() != std::io::ErrorKind::AlreadyExists {
                    return Err(Error::io(path, &err));
                }
            }
        }
        // SAFETY: as above; O_NOFOLLOW makes a link at `name` fail instead of being followed.
        let fd = unsafe { libc::openat(dir.fd.as_raw_fd(), c.as_ptr(), DIR_FLAGS | libc::O_NOFOLLOW) };
        owned(fd).map_err(|e| {
            // A link fails the open with ELOOP or ENOTDIR. ENOTDIR on what is a folder by the
            // time it is looked at means a link was there and has been swapped out again.
            let swapped =
                || mode_of(dir, name).is_some_and(|m| matches!(m & libc::S_IFMT, libc::S_IFLNK | libc::S_IFDIR));
            match e.raw_os_error() {
                Some(libc::ELOOP) => link_refused(path),
                Some(libc::ENOTDIR) if swapped() => link_refused(path),
                _ => Error::io(path, &e),
            }
        })
    }

    /// A new file `tmp` that nothing else names, with the permissions `like` has when it
    /// is a regular file.
    pub fn create_new(dir: &Folder, tmp: &OsStr, like: &str) -> std::io::Result<std::fs::File> {
        let c = c_name(tmp)?;
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: a valid descriptor, a NUL-terminated name, constant flags and mode.
        let fd = owned(unsafe { libc::openat(dir.fd.as_raw_fd(), c.as_ptr(), flags, 0o666 as libc::c_uint) })?;
        let file = std::fs::File::from(fd);
        if let Some(mode) = mode_of(dir, like).filter(|m| m & libc::S_IFMT == libc::S_IFREG) {
            use std::os::unix::fs::PermissionsExt;
            #[allow(clippy::useless_conversion, reason = "mode_t is narrower than u32 on some systems")]
            file.set_permissions(std::fs::Permissions::from_mode(u32::from(mode) & 0o7777))?;
        }
        Ok(file)
    }

    pub fn rename(dir: &Folder, from: &OsStr, to_dir: &Folder, to: &str) -> std::io::Result<()> {
        let (from, to) = (c_name(from)?, c_name(to)?);
        // SAFETY: valid descriptors and NUL-terminated names; renameat replaces a link at
        // `to` with the file rather than following it.
        if unsafe { libc::renameat(dir.fd.as_raw_fd(), from.as_ptr(), to_dir.fd.as_raw_fd(), to.as_ptr()) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    pub fn remove(dir: &Folder, name: &OsStr) {
        if let Ok(c) = c_name(name) {
            // SAFETY: a valid descriptor and a NUL-terminated name.
            unsafe { libc::unlinkat(dir.fd.as_raw_fd(), c.as_ptr(), 0) };
        }
    }

    /// Make the rename durable.
    pub fn sync(dir: &Folder) {
        // SAFETY: a valid descriptor.
        unsafe { libc::fsync(dir.fd.as_raw_fd()) };
    }
}

#[cfg(not(unix))]
mod imp {
    use super::{Folder, Kind, link_refused};
    use crate::error::{Error, Result};
    use std::ffi::OsStr;
    use std::path::Path;

    pub fn open(path: &Path) -> Result<()> {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => Err(Error::io(path, &std::io::Error::from(std::io::ErrorKind::NotADirectory))),
            Err(e) => Err(Error::io(path, &e)),
        }
    }

    pub fn is_link(dir: &Folder, name: &str) -> bool {
        std::fs::symlink_metadata(dir.path.join(name)).is_ok_and(|m| m.file_type().is_symlink())
    }

    pub fn kind(dir: &Folder, name: &str) -> Option<Kind> {
        let m = std::fs::symlink_metadata(dir.path.join(name)).ok()?;
        let t = m.file_type();
        Some(if t.is_symlink() {
            Kind::Link
        } else if t.is_dir() {
            Kind::Folder
        } else if t.is_file() {
            Kind::File
        } else {
            Kind::Other
        })
    }

    pub fn make_dir(dir: &Folder, name: &str, path: &Path) -> Result<bool> {
        if is_link(dir, name) {
            return Err(link_refused(path));
        }
        match std::fs::create_dir(path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(Error::io(path, &e)),
        }
    }

    pub fn hard_link(from: &Folder, name: &str, to: &Folder, to_name: &str) -> std::io::Result<()> {
        std::fs::hard_link(from.path.join(name), to.path.join(to_name))
    }

    pub fn remove_dir(dir: &Folder, name: &str) {
        let _ = std::fs::remove_dir(dir.path.join(name));
    }

    pub fn open_file(dir: &Folder, name: &str) -> std::io::Result<std::fs::File> {
        if is_link(dir, name) {
            return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
        }
        std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(dir.path.join(name))
    }

    /// Elsewhere an open file cannot be removed or replaced, so the name still names it.
    pub fn same_file(dir: &Folder, name: &str, _file: &std::fs::File) -> bool {
        kind(dir, name) == Some(Kind::File)
    }

    pub fn child(dir: &Folder, name: &str, path: &Path, create: bool) -> Result<()> {
        if is_link(dir, name) {
            return Err(link_refused(path));
        }
        if create && let Err(e) = std::fs::create_dir(path) {
            if e.kind() != std::io::ErrorKind::AlreadyExists {
                return Err(Error::io(path, &e));
            }
        }
        open(path)
    }

    pub fn create_new(dir: &Folder, tmp: &OsStr, like: &str) -> std::io::Result<std::fs::File> {
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(dir.path.join(tmp))?;
        if let Ok(old) = std::fs::metadata(dir.path.join(like)) {
            file.set_permissions(old.permissions())?;
        }
        Ok(file)
    }

    pub fn rename(dir: &Folder, from: &OsStr, to_dir: &Folder, to: &str) -> std::io::Result<()> {
        std::fs::rename(dir.path.join(from), to_dir.path.join(to))
    }

    pub fn remove(dir: &Folder, name: &OsStr) {
        let _ = std::fs::remove_file(dir.path.join(name));
    }

    pub fn sync(_dir: &Folder) {}
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn writes_replace_files_and_leave_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let folder = Folder::open(dir.path()).unwrap();
        let keys = folder.child("keys", true).unwrap();
        keys.write("a.sig", b"one").unwrap();
        assert_eq!(keys.write("a.sig", b"two").unwrap(), dir.path().join("keys/a.sig"));
        assert_eq!(std::fs::read(dir.path().join("keys/a.sig")).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(dir.path().join("keys")).unwrap().count(), 1, "no temporary file left");
        assert_eq!(folder.child("keys", false).unwrap().path(), dir.path().join("keys"));
        assert_eq!(folder.child("..", true).unwrap_err().code, code::INVALID_REQUEST);
        // The current folder, named by an empty path: what is written below it stays relative.
        assert_eq!(Folder::open(Path::new("")).unwrap().path().join("keys"), Path::new("keys"));
        assert_eq!(folder.write("a/b", b"x").unwrap_err().code, code::INVALID_REQUEST);
    }

    #[test]
    fn permissions_of_the_replaced_file_carry_over() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("private");
        std::fs::write(&file, b"old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        Folder::open(dir.path()).unwrap().write("private", b"new").unwrap();
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn links_are_refused_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), b"keep").unwrap();
        symlink(outside.path(), dir.path().join("keys")).unwrap();
        symlink(outside.path().join("secret"), dir.path().join("file")).unwrap();
        let folder = Folder::open(dir.path()).unwrap();
        assert_eq!(folder.child("keys", true).unwrap_err().code, code::SYMLINK_REFUSED);
        assert_eq!(folder.write("file", b"x").unwrap_err().code, code::SYMLINK_REFUSED);
        assert_eq!(std::fs::read(outside.path().join("secret")).unwrap(), b"keep");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
    }

    #[test]
    fn made_folders_links_moves_and_lock_files() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let folder = Folder::open(dir.path()).unwrap();
        let (a, made) = folder.child_made("a").unwrap();
        assert!(made && !folder.child_made("a").unwrap().1, "made once");
        a.write("f", b"1").unwrap();
        a.hard_link("f", &folder, "g").unwrap();
        folder.move_to("g", &a, "h").unwrap();
        assert_eq!(std::fs::read(dir.path().join("a/h")).unwrap(), b"1");
        assert_eq!((folder.kind("g").unwrap(), a.kind("h").unwrap()), (None, Some(Kind::File)));
        let lock = folder.open_file("lock").unwrap();
        assert!(folder.names("lock", &lock));
        folder.remove_file("lock");
        assert!(!folder.names("lock", &lock), "removed: the name no longer names the open file");
        symlink(outside.path().join("lock"), dir.path().join("lock")).unwrap();
        symlink(outside.path(), dir.path().join("l")).unwrap();
        assert_eq!(folder.open_file("lock").unwrap_err().code, code::SYMLINK_REFUSED);
        assert_eq!(folder.child_made("l").unwrap_err().code, code::SYMLINK_REFUSED);
        assert_eq!(folder.kind("l").unwrap(), Some(Kind::Link));
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing made where the links point");
        folder.remove_empty_dir("a");
        assert!(dir.path().join("a").is_dir(), "a folder with files stays");
    }

    /// The race the handle closes: the folder is swapped for a link after it was opened.
    /// Writes still land in the folder that was checked, not where the link points.
    #[test]
    fn a_folder_swapped_for_a_link_after_opening_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let folder = Folder::open(dir.path()).unwrap();
        let keys = folder.child("keys", true).unwrap();
        std::fs::rename(dir.path().join("keys"), dir.path().join("moved")).unwrap();
        symlink(outside.path(), dir.path().join("keys")).unwrap();
        keys.write("pack.json.sig", b"sig").unwrap();
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written outside");
        assert_eq!(std::fs::read(dir.path().join("moved/pack.json.sig")).unwrap(), b"sig");
    }
}

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
            imp::rename(self, &tmp, name).map_err(|e| fail("replace", e))
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
    use super::{Folder, link_refused};
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

    pub fn rename(dir: &Folder, from: &OsStr, to: &str) -> std::io::Result<()> {
        let (from, to) = (c_name(from)?, c_name(to)?);
        let fd = dir.fd.as_raw_fd();
        // SAFETY: a valid descriptor and NUL-terminated names; renameat replaces a link at
        // `to` with the file rather than following it.
        if unsafe { libc::renameat(fd, from.as_ptr(), fd, to.as_ptr()) } == 0 {
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
    use super::{Folder, link_refused};
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

    pub fn rename(dir: &Folder, from: &OsStr, to: &str) -> std::io::Result<()> {
        std::fs::rename(dir.path.join(from), dir.path.join(to))
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

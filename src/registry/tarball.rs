//! Pack tarballs (interop §2.3): reading any registry `.tgz` into memory, and writing the
//! deterministic one a registry serves.
//!
//! Reading is bounded (compressed size, unpacked size, entry count) and accepts regular
//! files only: links, devices and paths that leave the archive are refused. Both layouts
//! are read: `pack.json` at the root (what registries publish) and npm's `package/` folder.
//!
//! Writing follows the registry's own packer byte for byte: USTAR headers, files sorted by
//! path, mode 0644, uid/gid 0, empty owner names, mtime 0, names of at most 100 bytes, two
//! zero blocks at the end; gzip at level 9 with header mtime 0 and OS byte 0xFF.

use crate::error::{Error, Result, code};
use flate2::{Compression, GzBuilder, read::GzDecoder};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path};

/// Largest `.tgz` read; registry packs are kilobytes.
pub const MAX_TARBALL_BYTES: u64 = 32 * 1024 * 1024;
/// Largest unpacked archive (a gzip bomb stops here).
pub const MAX_UNPACKED_BYTES: u64 = 64 * 1024 * 1024;
/// Most entries one archive may hold.
pub const MAX_ENTRIES: usize = 10_000;
/// USTAR's `name` field; the registry refuses pax and GNU long names.
pub const MAX_NAME_BYTES: usize = 100;

/// The files of one pack archive, by relative path (`/`-separated).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackArchive {
    pub files: BTreeMap<String, Vec<u8>>,
}

impl PackArchive {
    /// Unpack gzip'd tar bytes in memory.
    pub fn from_tgz(gz: &[u8]) -> std::result::Result<Self, String> {
        let mut tar = Vec::new();
        GzDecoder::new(gz)
            .take(MAX_UNPACKED_BYTES + 1)
            .read_to_end(&mut tar)
            .map_err(|e| format!("not a gzip'd tarball: {e}"))?;
        if tar.len() as u64 > MAX_UNPACKED_BYTES {
            return Err(format!("unpacks to more than {MAX_UNPACKED_BYTES} bytes"));
        }
        let mut archive = tar::Archive::new(tar.as_slice());
        let mut files = BTreeMap::new();
        let entries = archive.entries().map_err(|e| format!("not a tarball: {e}"))?;
        for (n, entry) in entries.enumerate() {
            if n >= MAX_ENTRIES {
                return Err(format!("holds more than {MAX_ENTRIES} entries"));
            }
            let mut entry = entry.map_err(|e| format!("unreadable tar entry: {e}"))?;
            let raw_path = entry.path().map_err(|e| format!("unreadable entry name: {e}"))?.into_owned();
            let kind = entry.header().entry_type();
            if kind.is_dir() {
                continue;
            }
            if !(kind.is_file() || kind == tar::EntryType::Continuous) {
                return Err(format!(
                    "entry {} is not a regular file ({kind:?}); a pack holds files only",
                    raw_path.display()
                ));
            }
            let rel = relative_name(&raw_path)?;
            let mut data = Vec::new();
            entry.read_to_end(&mut data).map_err(|e| format!("entry {rel}: {e}"))?;
            if files.insert(rel.clone(), data).is_some() {
                return Err(format!("entry {rel} appears twice"));
            }
        }
        // npm-style archives keep everything under `package/`.
        if !files.contains_key("pack.json") && files.keys().all(|k| k.starts_with("package/")) {
            files = files.into_iter().map(|(k, v)| (k["package/".len()..].to_owned(), v)).collect();
        }
        Ok(Self { files })
    }

    /// Read and unpack a `.tgz` file.
    pub fn read(path: &Path) -> Result<Self> {
        let gz = crate::fsio::read_limited(path, MAX_TARBALL_BYTES, code::PACK_MANIFEST_INVALID)?;
        Self::from_tgz(&gz).map_err(|msg| {
            Error::new(code::PACK_MANIFEST_INVALID, format!("{}: {msg}", path.display()))
                .with("path", path.display().to_string())
        })
    }

    pub fn file(&self, name: &str) -> Option<&[u8]> {
        self.files.get(name).map(Vec::as_slice)
    }

    /// The archive's `pack.json`.
    pub fn manifest(&self) -> Option<&[u8]> {
        self.file("pack.json")
    }
}

/// `a/./b` → `a/b`; absolute paths and `..` are refused.
fn relative_name(path: &Path) -> std::result::Result<String, String> {
    let mut parts = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(p) => {
                parts.push(p.to_str().ok_or_else(|| format!("entry name {} is not UTF-8", path.display()))?)
            }
            Component::CurDir => {}
            _ => return Err(format!("entry {} leaves the archive (absolute path or `..`)", path.display())),
        }
    }
    if parts.is_empty() {
        return Err("an entry has an empty name".into());
    }
    Ok(parts.join("/"))
}

/// Whether a path names a gzip'd tarball by its extension (`.tgz`, `.tar.gz`).
pub fn is_tarball_path(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_ascii_lowercase();
    name.ends_with(".tgz") || name.ends_with(".tar.gz")
}

/// The deterministic registry tarball of `files` (relative `/` paths → bytes).
pub fn build(files: &BTreeMap<String, Vec<u8>>) -> Result<Vec<u8>> {
    let fail = |msg: String| Error::new(code::INVALID_REQUEST, msg);
    let mut builder = tar::Builder::new(Vec::new());
    // BTreeMap order is byte order, which for the ASCII names a pack may hold is the
    // registry packer's sort order.
    for (name, data) in files {
        if name.len() > MAX_NAME_BYTES || name.is_empty() || !name.is_ascii() {
            return Err(fail(format!("\"{name}\" must be 1-{MAX_NAME_BYTES} ASCII bytes to fit a USTAR name"))
                .with("path", name.as_str()));
        }
        let mut header = tar::Header::new_ustar();
        header.set_path(name).map_err(|e| fail(format!("{name}: {e}")))?;
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(0);
        header.set_cksum();
        builder.append(&header, data.as_slice()).map_err(|e| fail(format!("{name}: {e}")))?;
    }
    let tar = builder.into_inner().map_err(|e| fail(format!("tar: {e}")))?;
    let mut gz = GzBuilder::new().mtime(0).operating_system(0xFF).write(Vec::new(), Compression::best());
    std::io::Write::write_all(&mut gz, &tar).map_err(|e| fail(format!("gzip: {e}")))?;
    gz.finish().map_err(|e| fail(format!("gzip: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
        list.iter().map(|(k, v)| ((*k).to_owned(), v.as_bytes().to_vec())).collect()
    }

    #[test]
    fn built_archives_read_back_and_are_deterministic() {
        let f = files(&[("pack.json", "{}"), ("README.md", "# r\n"), ("keys/pack.json.sig", "s")]);
        let a = build(&f).unwrap();
        assert_eq!(a, build(&f).unwrap());
        // gzip header: no flags, mtime 0, XFL 2 (best), OS 0xFF.
        assert_eq!(a[..10], [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff]);
        assert_eq!(PackArchive::from_tgz(&a).unwrap().files, f);
        let long = files(&[(&"x".repeat(101), "")]);
        assert!(build(&long).is_err());
    }

    #[test]
    fn package_folder_layout_is_unwrapped() {
        let a = build(&files(&[("package/pack.json", "{}"), ("package/LICENSE", "l")])).unwrap();
        let read = PackArchive::from_tgz(&a).unwrap();
        assert_eq!(read.manifest(), Some(&b"{}"[..]));
        assert_eq!(read.file("LICENSE"), Some(&b"l"[..]));
    }

    fn raw_tar(name: &[u8], kind: tar::EntryType, data: &[u8]) -> Vec<u8> {
        let mut h = tar::Header::new_gnu();
        h.as_old_mut().name[..name.len()].copy_from_slice(name);
        h.set_entry_type(kind);
        h.set_size(data.len() as u64);
        h.set_cksum();
        let mut b = tar::Builder::new(Vec::new());
        b.append(&h, data).unwrap();
        let mut gz = GzBuilder::new().write(Vec::new(), Compression::fast());
        std::io::Write::write_all(&mut gz, &b.into_inner().unwrap()).unwrap();
        gz.finish().unwrap()
    }

    #[test]
    fn hostile_archives_are_refused() {
        assert!(PackArchive::from_tgz(b"not gzip").is_err());
        let escape = raw_tar(b"../evil", tar::EntryType::Regular, b"x");
        assert!(PackArchive::from_tgz(&escape).unwrap_err().contains("leaves the archive"));
        let abs = raw_tar(b"/etc/x", tar::EntryType::Regular, b"x");
        assert!(PackArchive::from_tgz(&abs).is_err());
        let link = raw_tar(b"pack.json", tar::EntryType::Symlink, b"");
        assert!(PackArchive::from_tgz(&link).unwrap_err().contains("regular file"));
        // A gzip bomb: far more zeros than the limit, compressed to almost nothing.
        let mut gz = GzBuilder::new().write(Vec::new(), Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..=(MAX_UNPACKED_BYTES >> 20) {
            std::io::Write::write_all(&mut gz, &zeros).unwrap();
        }
        let bomb = gz.finish().unwrap();
        assert!(PackArchive::from_tgz(&bomb).unwrap_err().contains("more than"));
    }
}

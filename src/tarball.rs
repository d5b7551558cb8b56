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
use flate2::{Compression, GzBuilder};
use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::Path;

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

/// Why an archive was refused: a stable `reason` (reported as `details.reason`) and a
/// message naming the entry at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub reason: &'static str,
    pub message: String,
}

impl Refusal {
    fn new(reason: &'static str, message: impl Into<String>) -> Self {
        Self { reason, message: message.into() }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl PackArchive {
    /// Unpack gzip'd tar bytes in memory. Every reader must see the same files, so what
    /// other tools would read differently is refused: a second gzip member or any bytes
    /// after the gzip stream (`tar -xzf`, Python and Node read on), bytes after the tar's
    /// end, a path twice, pax and GNU extension headers (they rename the next entry), links,
    /// devices, and names that leave the archive.
    pub fn from_tgz(gz: &[u8]) -> std::result::Result<Self, Refusal> {
        if !gz.starts_with(&GZIP_MAGIC) {
            return Err(Refusal::new("not_gzip", "not a gzip'd tarball (no gzip header)"));
        }
        // The tar is read as it is inflated, so memory follows the files kept, not the
        // unpacked size a hostile archive claims (a few KiB of zeros inflate to the limit).
        let mut decoder = flate2::bufread::GzDecoder::new(gz);
        let mut stream = Bounded { inner: &mut decoder, left: MAX_UNPACKED_BYTES, exceeded: false };
        let read = read_entries(&mut stream);
        if read.is_err() && !stream.exceeded {
            // Inflate the rest of the member (bounded, kept nowhere) so that a second member
            // is reported as such even when the first ended mid-entry.
            if let Err(e) = std::io::copy(&mut stream, &mut std::io::sink())
                && !stream.exceeded
                && read.as_ref().is_err_and(|r| r.reason == "not_tar")
            {
                return Err(Refusal::new("not_gzip", format!("not a gzip'd tarball: {e}")));
            }
        }
        if stream.exceeded {
            return Err(Refusal::new("too_large", format!("unpacks to more than {MAX_UNPACKED_BYTES} bytes")));
        }
        // The bufread decoder consumes exactly its member: what is left follows it.
        let rest = decoder.into_inner();
        if rest.starts_with(&GZIP_MAGIC) {
            return Err(Refusal::new(
                "gzip_members",
                "the tarball holds a second gzip member, which other tools would unpack as well",
            ));
        }
        let mut files = read?;
        if !rest.is_empty() {
            return Err(Refusal::new("trailing_data", format!("{} bytes follow the gzip stream", rest.len())));
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
        Self::from_tgz(&gz).map_err(|refusal| {
            Error::new(code::PACK_MANIFEST_INVALID, format!("{}: {refusal}", path.display()))
                .with("path", path.display().to_string())
                .with("reason", refusal.reason)
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

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// A reader that refuses to yield more than `left` bytes: past that it fails (and says so
/// in `exceeded`) instead of stopping quietly, so a cut-off archive is never taken as whole.
struct Bounded<R> {
    inner: R,
    left: u64,
    exceeded: bool,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            // One byte more tells the end of the stream from an archive over the limit.
            let mut probe = [0u8; 1];
            if self.inner.read(&mut probe)? == 0 {
                return Ok(0);
            }
            self.exceeded = true;
            return Err(std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                format!("unpacks to more than {MAX_UNPACKED_BYTES} bytes"),
            ));
        }
        let room = usize::try_from(self.left).unwrap_or(usize::MAX).min(buf.len());
        let n = self.inner.read(&mut buf[..room])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// The files of the tar read from `stream`; only zero blocks may follow its end.
fn read_entries(stream: &mut impl Read) -> std::result::Result<BTreeMap<String, Vec<u8>>, Refusal> {
    let mut archive = tar::Archive::new(stream);
    let mut files = BTreeMap::new();
    // Case-folded names: two entries that one file system would write to one file.
    let mut folded = HashSet::new();
    let unreadable = |e: std::io::Error| Refusal::new("not_tar", format!("not a tarball: {e}"));
    // Raw: extension headers come back as entries of their own, to be refused.
    let entries = archive.entries().map_err(unreadable)?.raw(true);
    for (n, entry) in entries.enumerate() {
        if n >= MAX_ENTRIES {
            return Err(Refusal::new("too_many_entries", format!("holds more than {MAX_ENTRIES} entries")));
        }
        let mut entry = entry.map_err(unreadable)?;
        let header = entry.header();
        let kind = header.entry_type();
        let raw_path = String::from_utf8_lossy(field(&header.as_bytes()[..100])).into_owned();
        if kind.is_pax_global_extensions()
            || kind.is_pax_local_extensions()
            || kind.is_gnu_longname()
            || kind.is_gnu_longlink()
        {
            return Err(Refusal::new(
                "entry_not_file",
                format!(
                    "entry {raw_path} is a {kind:?} extension header; a pack tarball is plain USTAR (names of at most {MAX_NAME_BYTES} bytes)"
                ),
            ));
        }
        if let Some((reason, why)) = read_differently(header) {
            let shown = String::from_utf8_lossy(field(&header.as_bytes()[..100])).into_owned();
            return Err(Refusal::new(reason, format!("entry {shown} {why}")));
        }
        let Some(rel) = entry_name(header.as_bytes(), kind.is_dir())? else { continue };
        if kind.is_dir() {
            continue;
        }
        if !(kind.is_file() || kind == tar::EntryType::Continuous) {
            return Err(Refusal::new(
                "entry_not_file",
                format!("entry {rel} is not a regular file ({kind:?}); a pack holds files only"),
            ));
        }
        let mut data = Vec::new();
        entry.read_to_end(&mut data).map_err(|e| Refusal::new("not_tar", format!("entry {rel}: {e}")))?;
        if !folded.insert(rel.to_lowercase()) {
            return Err(Refusal::new("duplicate_entry", format!("entry {rel} appears twice")));
        }
        files.insert(rel, data);
    }
    // A file that is also a folder above another file: extraction fails at one of them.
    for name in files.keys() {
        if let Some(above) = name.match_indices('/').map(|(i, _)| &name[..i]).find(|a| files.contains_key(*a)) {
            return Err(Refusal::new("entry_name_invalid", format!("entry {name} is below the file {above}")));
        }
    }
    let rest = archive.into_inner();
    let mut block = [0u8; 8192];
    loop {
        let n = rest.read(&mut block).map_err(unreadable)?;
        if n == 0 {
            return Ok(files);
        }
        if block[..n].iter().any(|b| *b != 0) {
            return Err(Refusal::new(
                "trailing_data",
                "bytes other than zero blocks follow the end of the tar archive",
            ));
        }
    }
}

/// What GNU tar 1.34 or Python's tarfile read differently from the tar crate (found by the
/// fuzz targets' second reading): a folder's data (they read it as further entries), and a
/// size that is not plain octal or base-256 (GNU reads a leading `+` as base-64).
fn read_differently(h: &tar::Header) -> Option<(&'static str, String)> {
    let size = &h.as_old().size;
    let octal = |f: &[u8]| {
        let digits = f.iter().skip_while(|b| **b == b' ').take_while(|b| (b'0'..=b'7').contains(*b)).count();
        let spaces = f.iter().take_while(|b| **b == b' ').count();
        digits > 0 && f[spaces + digits..].iter().all(|b| *b == b' ' || *b == 0)
    };
    if size[0] != 0x80 && !octal(size) {
        return Some((
            "entry_not_file",
            format!("has a size field ({:?}) that tools read differently", String::from_utf8_lossy(size)),
        ));
    }
    let bytes = h.entry_size().unwrap_or(0);
    if h.entry_type().is_dir() && bytes > 0 {
        return Some((
            "entry_not_file",
            format!("is a folder carrying {bytes} bytes, which GNU tar and Python read as further entries"),
        ));
    }
    None
}

/// A NUL-terminated header field's bytes.
fn field(bytes: &[u8]) -> &[u8] {
    bytes.iter().position(|b| *b == 0).map_or(bytes, |end| &bytes[..end])
}

/// The relative `/` path of an entry, read from its raw header so that every reader agrees
/// on it; `None` for the archive's root folder (`./`, which `tar -C DIR .` writes). One
/// leading `./` is dropped (`./pack.json` is `pack.json` to tar, Python and the OpenWOP
/// client alike). Refused (`entry_name_invalid`), because tools read them differently or
/// they leave the archive: a name in the USTAR `prefix` field (GNU tar and Python join it
/// in, the OpenWOP client reads the name field alone), a file name ending in `/` (GNU tar
/// and Python read a folder), empty or `.` segments past the leading `./`, `\`, `..`,
/// absolute and non-UTF-8 names.
fn entry_name(header: &[u8; 512], is_dir: bool) -> std::result::Result<Option<String>, Refusal> {
    let raw = field(&header[..100]);
    let shown = String::from_utf8_lossy(raw);
    let bad = |why: &str| Refusal::new("entry_name_invalid", format!("entry {shown} {why}"));
    if !field(&header[345..500]).is_empty() {
        return Err(bad("has a USTAR name prefix, which tools join to its name differently"));
    }
    let name = std::str::from_utf8(raw).map_err(|_| bad("has a name that is not UTF-8"))?;
    if name.starts_with('/') {
        return Err(bad("leaves the archive (absolute path)"));
    }
    let name = name.strip_prefix("./").unwrap_or(name);
    let name = match name.strip_suffix('/') {
        Some(folder) if is_dir => folder,
        Some(_) => return Err(bad("is a file whose name ends with `/`, which GNU tar and Python read as a folder")),
        None => name,
    };
    if name.is_empty() || (is_dir && name == ".") {
        return if is_dir { Ok(None) } else { Err(bad("has an empty name")) };
    }
    for segment in name.split('/') {
        match segment {
            ".." => return Err(bad("leaves the archive (`..`)")),
            "" | "." => return Err(bad("has an empty or `.` path segment, which tools read differently")),
            s if s.contains('\\') => return Err(bad("has a `\\` in its name, a separator to some tools")),
            _ => {}
        }
    }
    Ok(Some(name.to_owned()))
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
        assert!(PackArchive::from_tgz(&escape).unwrap_err().reason == "entry_name_invalid");
        let abs = raw_tar(b"/etc/x", tar::EntryType::Regular, b"x");
        assert!(PackArchive::from_tgz(&abs).is_err());
        let link = raw_tar(b"pack.json", tar::EntryType::Symlink, b"");
        assert!(PackArchive::from_tgz(&link).unwrap_err().reason == "entry_not_file");
        // A gzip bomb: far more zeros than the limit, compressed to almost nothing.
        let mut gz = GzBuilder::new().write(Vec::new(), Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..=(MAX_UNPACKED_BYTES >> 20) {
            std::io::Write::write_all(&mut gz, &zeros).unwrap();
        }
        let bomb = gz.finish().unwrap();
        assert!(PackArchive::from_tgz(&bomb).unwrap_err().reason == "too_large");
    }

    /// One gzip'd tar of raw USTAR entries `(name, type, data)`, as a `tar -C DIR .` writes.
    fn ustar(entries: &[(&[u8], tar::EntryType, &[u8])]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (name, kind, data) in entries {
            let mut h = tar::Header::new_ustar();
            h.as_old_mut().name[..name.len()].copy_from_slice(name);
            h.set_entry_type(*kind);
            h.set_size(data.len() as u64);
            h.set_cksum();
            b.append(&h, *data).unwrap();
        }
        gzip(&b.into_inner().unwrap())
    }

    /// The OpenWOP registry's `core.openwop.examples@1.0.0` and `vendor.openwop.rust-hello@1.0.0`
    /// were packed from inside their folders: a `./` root entry and `./`-prefixed names.
    #[test]
    fn dot_slash_entries_are_the_files_tar_and_python_read() {
        use tar::EntryType::{Directory, Regular};
        let a = ustar(&[
            (b"./", Directory, b""),
            (b"./pack.json", Regular, b"{}"),
            (b"./schemas/", Directory, b""),
            (b"./schemas/a.json", Regular, b"[]"),
            (b".", Directory, b""),
        ]);
        assert_eq!(PackArchive::from_tgz(&a).unwrap().files, files(&[("pack.json", "{}"), ("schemas/a.json", "[]")]));
    }

    /// Names another reader takes for something else are refused, not guessed at.
    #[test]
    fn names_tools_read_differently_are_refused() {
        use tar::EntryType::{Directory, Regular};
        let old_regular = tar::EntryType::new(0);
        let cases: [(&[u8], tar::EntryType); 10] = [
            // GNU tar and Python read a folder; this reader used to read pack.json.
            (b"pack.json/", Regular),
            (b"pack.json/", old_regular),
            (b"./", Regular),
            (b".//pack.json", Regular),
            (b"././pack.json", Regular),
            (b"schemas/./a.json", Regular),
            (b"schemas//a.json", Regular),
            (b"schemas\\a.json", Regular),
            (b"../x/", Directory),
            (b"/", Directory),
        ];
        for (name, kind) in cases {
            let a = ustar(&[(b"pack.json", Regular, b"{}"), (name, kind, b"")]);
            let refusal = PackArchive::from_tgz(&a).unwrap_err();
            assert_eq!(refusal.reason, "entry_name_invalid", "{}: {refusal}", String::from_utf8_lossy(name));
        }
        // A USTAR prefix: GNU tar and Python read `x/pack.json`, the OpenWOP client `pack.json`.
        let mut h = tar::Header::new_ustar();
        h.as_old_mut().name[..9].copy_from_slice(b"pack.json");
        h.as_ustar_mut().unwrap().prefix[0] = b'x';
        h.set_size(2);
        h.set_cksum();
        let mut b = tar::Builder::new(Vec::new());
        b.append(&h, &b"{}"[..]).unwrap();
        let refusal = PackArchive::from_tgz(&gzip(&b.into_inner().unwrap())).unwrap_err();
        assert_eq!(refusal.reason, "entry_name_invalid", "{refusal}");
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut gz = GzBuilder::new().write(Vec::new(), Compression::fast());
        std::io::Write::write_all(&mut gz, bytes).unwrap();
        gz.finish().unwrap()
    }

    fn ungzip(gz: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(gz).read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn anything_another_reader_would_see_differently_is_refused() {
        let good = build(&files(&[("pack.json", "{\"a\":1}")])).unwrap();
        let tar = ungzip(&good);
        // The tar split over two gzip members: `tar -xzf` reads both.
        let split = [gzip(&tar[..512]), gzip(&tar[512..])].concat();
        assert_eq!(PackArchive::from_tgz(&split).unwrap_err().reason, "gzip_members");
        let appended = [good.clone(), b"junk".to_vec()].concat();
        assert_eq!(PackArchive::from_tgz(&appended).unwrap_err().reason, "trailing_data");
        // A second archive after the first one's end blocks.
        let other = ungzip(&build(&files(&[("pack.json", "{\"a\":2}")])).unwrap());
        let after_end = gzip(&[tar.clone(), other].concat());
        assert_eq!(PackArchive::from_tgz(&after_end).unwrap_err().reason, "trailing_data");
        // Zero padding after the end (GNU tar pads to 10 KiB records) is fine.
        let padded = gzip(&[tar.clone(), vec![0u8; 10240]].concat());
        assert!(PackArchive::from_tgz(&padded).is_ok());
        let twice = raw_tar(b"pack.json", tar::EntryType::Regular, b"{}");
        let twice_tar = ungzip(&twice);
        let dup = gzip(&[&twice_tar[..1024], &ungzip(&raw_tar(b"Pack.json", tar::EntryType::Regular, b"{}"))].concat());
        assert_eq!(PackArchive::from_tgz(&dup).unwrap_err().reason, "duplicate_entry");
        let pax = raw_tar(b"PaxHeaders/pack.json", tar::EntryType::XHeader, b"");
        assert_eq!(PackArchive::from_tgz(&pax).unwrap_err().reason, "entry_not_file");
        let long = raw_tar(b"././@LongLink", tar::EntryType::GNULongName, b"");
        assert_eq!(PackArchive::from_tgz(&long).unwrap_err().reason, "entry_not_file");
        let hard = raw_tar(b"pack.json", tar::EntryType::Link, b"");
        assert_eq!(PackArchive::from_tgz(&hard).unwrap_err().reason, "entry_not_file");
    }
}

//! What the fuzz targets share: independent readings to compare chainsmith's verdicts with,
//! and the scratch registry folder the registry targets write their input into.

pub mod jcs_oracle;
pub mod registry_oracle;
pub mod tar_oracle;

use std::path::PathBuf;

/// Separates the parts of a multi-part input (`a SEP b SEP c`); absent parts are empty.
pub const SEP: &[u8] = b"\0--\0";

/// The first `n` parts of `data`, split at [`SEP`]; the last part takes the rest.
pub fn parts(data: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(n);
    let mut rest = data;
    while out.len() + 1 < n {
        match rest.windows(SEP.len()).position(|w| w == SEP) {
            Some(i) => {
                out.push(&rest[..i]);
                rest = &rest[i + SEP.len()..];
            }
            None => break,
        }
    }
    out.push(rest);
    out.resize(n, &[][..]);
    out
}

/// `parts` joined back: how seeds are written.
pub fn join(parts: &[&[u8]]) -> Vec<u8> {
    parts.join(SEP)
}

/// The verdict on a `.tgz` must agree with the second reading: every archive chainsmith
/// accepts unpacks, in GNU tar and Python, to exactly the files chainsmith read, and what it
/// read is written back by its own packer to an archive that reads the same.
pub fn check_archive(gz: &[u8]) {
    use chainsmith::registry::tarball;
    let Ok(archive) = tarball::PackArchive::from_tgz(gz) else { return };
    match tar_oracle::read_tgz(gz) {
        Ok(files) => assert!(
            files == archive.files,
            "chainsmith read {:?}, tar and Python extract {:?}",
            archive.files.keys(),
            files.keys()
        ),
        Err(why) => panic!("chainsmith accepted an archive other tools read differently: {why}"),
    }
    if let Ok(rebuilt) = tarball::build(&archive.files) {
        let again = tarball::PackArchive::from_tgz(&rebuilt).expect("chainsmith reads what it packs");
        assert_eq!(again.files, archive.files, "a packed archive reads back the same");
    }
}

/// An empty folder for this process (in memory when /dev/shm exists), emptied on every call.
pub fn scratch(target: &str) -> PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
    let dir = base.join(format!("chainsmith-fuzz-{target}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a writable scratch folder");
    dir
}

/// Write `bytes` at `path`, making its folders; a path the input made unwritable (a folder
/// where a file goes) is skipped, as a registry missing that file.
pub fn put(path: &std::path::Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let _ = std::fs::write(path, bytes);
}

//! A second reading of pack tarballs, written from the formats' own rules (POSIX ustar, GNU
//! tar 1.34 and Python 3.11 `tarfile`), sharing no code with chainsmith's reader (which uses
//! the `tar` crate). It answers with the files those tools extract, or `Err` when the
//! archive is one they would extract differently from each other (such an archive must be
//! refused). The gzip layer is flate2's multi-member decoder: `tar -xzf`, `gzip -d` and
//! Node's zlib read every member.

use std::collections::BTreeMap;
use std::io::Read;

/// More than chainsmith's unpacked limit (64 MiB): the oracle never stops first.
const UNPACK_LIMIT: u64 = 65 * 1024 * 1024;

/// Every member inflated and concatenated, as `tar -xzf` reads a `.tgz`.
pub fn gunzip_all(gz: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(gz).take(UNPACK_LIMIT).read_to_end(&mut out).map_err(|e| format!("gzip: {e}"))?;
    Ok(out)
}

/// The files of a `.tgz` with npm's `package/` folder unwrapped as chainsmith unwraps it
/// (interop §2.3 reads both layouts).
pub fn read_tgz(gz: &[u8]) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut files = read_tar(&gunzip_all(gz)?)?;
    if !files.contains_key("pack.json") && files.keys().all(|k| k.starts_with("package/")) {
        files = files.into_iter().map(|(k, v)| (k["package/".len()..].to_owned(), v)).collect();
    }
    Ok(files)
}

/// A NUL-terminated header field.
fn nts(field: &[u8]) -> &[u8] {
    field.iter().position(|b| *b == 0).map_or(field, |i| &field[..i])
}

/// A numeric header field as GNU tar's `from_header` and Python's `nti` both read it:
/// base-256 when the top bit is set, else optional spaces, octal digits, then only spaces
/// or NULs. GNU reads a leading `+`/`-` as its old base-64, so that is ambiguous.
fn number(field: &[u8]) -> Result<u64, String> {
    if field[0] == 0x80 {
        let mut n: u64 = 0;
        for b in &field[1..] {
            n = n.checked_mul(256).and_then(|n| n.checked_add(u64::from(*b))).ok_or("base-256 overflow")?;
        }
        return Ok(n);
    }
    if field[0] & 0x80 != 0 {
        return Err("negative base-256 number".into());
    }
    let mut i = 0;
    while i < field.len() && field[i] == b' ' {
        i += 1;
    }
    let start = i;
    let mut n: u64 = 0;
    while i < field.len() && (b'0'..=b'7').contains(&field[i]) {
        n = n.checked_mul(8).and_then(|n| n.checked_add(u64::from(field[i] - b'0'))).ok_or("octal overflow")?;
        i += 1;
    }
    if i == start {
        return Err(format!("no octal digits in {field:?}"));
    }
    // GNU stops at a NUL or space after the digits; Python and the tar crate cut at the first
    // NUL and then want only spaces: they agree up to a NUL, and on spaces up to one.
    let rest = &field[i..];
    let tail = rest.iter().position(|b| *b == 0).map_or(rest, |z| &rest[..z]);
    if tail.iter().any(|b| *b != b' ') {
        return Err(format!("junk after the octal digits in {field:?}"));
    }
    Ok(n)
}

/// The checksum must match the unsigned or the signed byte sum (GNU and Python take either).
fn checksum_ok(h: &[u8]) -> Result<(), String> {
    let want = number(&h[148..156])?;
    let (mut unsigned, mut signed) = (0u64, 0i64);
    for (i, b) in h.iter().enumerate() {
        let b = if (148..156).contains(&i) { b' ' } else { *b };
        unsigned += u64::from(b);
        signed += i64::from(b as i8);
    }
    if want == unsigned || i64::try_from(want).is_ok_and(|w| w == signed) {
        Ok(())
    } else {
        Err("bad header checksum".into())
    }
}

/// The files GNU tar and Python extract from a plain tar, when they agree.
pub fn read_tar(tar: &[u8]) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut pos = 0usize;
    while pos < tar.len() {
        let h = tar.get(pos..pos + 512).ok_or("a header cut short")?;
        if h.iter().all(|b| *b == 0) {
            // The end: both tools stop at the first zero block.
            break;
        }
        checksum_ok(h)?;
        let kind = h[156];
        let name = nts(&h[0..100]);
        let prefix = nts(&h[345..500]);
        // GNU joins the prefix for POSIX headers (magic "ustar\0", any version); Python
        // whenever the prefix is non-empty and the type is not a GNU extension.
        let gnu_name = if &h[257..263] == b"ustar\0" && !prefix.is_empty() {
            [prefix, b"/", name].concat()
        } else {
            name.to_vec()
        };
        let python_name =
            if !prefix.is_empty() && !b"LKS".contains(&kind) { [prefix, b"/", name].concat() } else { name.to_vec() };
        if gnu_name != python_name {
            return Err("GNU tar and Python join the name prefix differently".into());
        }
        let size = number(&h[124..136])?;
        let data_start = pos + 512;
        let padded = size.div_ceil(512).checked_mul(512).ok_or("size overflow")?;
        let end = usize::try_from(padded).ok().and_then(|p| data_start.checked_add(p)).ok_or("size overflow")?;
        let name = String::from_utf8(gnu_name).map_err(|_| "a name that is not UTF-8")?;
        match kind {
            b'0' | 0 | b'7' => {
                // GNU extracts a "regular file" named with a trailing slash as a folder.
                if name.ends_with('/') {
                    return Err(format!("regular file {name:?} is a folder to GNU tar"));
                }
                let data = tar.get(data_start..data_start + size as usize).ok_or("file data cut short")?;
                let path = extracted_path(&name)?;
                if files.contains_key(&path) {
                    return Err(format!("{path} twice (the last one wins on extraction)"));
                }
                files.insert(path, data.to_vec());
            }
            // GNU tar and Python do not skip a folder's data: they read it as headers.
            b'5' if size == 0 => {
                extracted_path(&name).or_else(|e| if is_dot(&name) { Ok(String::new()) } else { Err(e) })?;
            }
            b'5' => return Err(format!("folder {name:?} carries {size} bytes, which tools read as entries")),
            other => return Err(format!("entry {name:?} of type {:?} is not a file or folder", other as char)),
        }
        pos = end;
    }
    // A path that is a file and also a folder above another file: extraction fails at one.
    for path in files.keys() {
        let mut at = path.as_str();
        while let Some(i) = at.rfind('/') {
            at = &at[..i];
            if files.contains_key(at) {
                return Err(format!("{at} is a file and a folder"));
            }
        }
    }
    Ok(files)
}

fn is_dot(name: &str) -> bool {
    name.split('/').all(|s| s.is_empty() || s == ".")
}

/// Where GNU tar writes an entry: empty and `.` segments dropped; absolute names and `..`
/// refused (GNU strips a leading `/` and skips `..` members; either way not this path).
fn extracted_path(name: &str) -> Result<String, String> {
    if name.starts_with('/') {
        return Err(format!("absolute name {name:?}"));
    }
    let mut parts = Vec::new();
    for seg in name.split('/') {
        match seg {
            "" | "." => {}
            ".." => return Err(format!("{name:?} leaves the archive")),
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        return Err(format!("{name:?} names no file"));
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(number(b"0000012\0"), Ok(10));
        assert_eq!(number(b"  12 \0\0\0"), Ok(10));
        assert!(number(b"+0000012").is_err());
        assert!(number(b"12x\0").is_err());
        assert_eq!(number(b"011301\0`"), Ok(0o11301));
        assert!(number(b"12 x\0").is_err());
        assert!(number(b"\0\0\0\0").is_err());
    }
}

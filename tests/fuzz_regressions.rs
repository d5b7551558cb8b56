//! Inputs the fuzz targets (fuzz/) found, kept as tests: each once got a verdict that an
//! independent reading of the same bytes contradicts.

use chainsmith::registry::PackArchive;
use std::io::Write;

/// A ustar header block, written field by field (POSIX.1-1988), with its checksum.
fn header(name: &str, typeflag: u8, size: usize) -> Vec<u8> {
    let mut h = vec![0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    h[100..108].copy_from_slice(b"0000644\0");
    h[108..116].copy_from_slice(b"0000000\0");
    h[116..124].copy_from_slice(b"0000000\0");
    h[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
    h[136..148].copy_from_slice(b"00000000000\0");
    h[156] = typeflag;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|b| u32::from(*b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    h
}

fn file(name: &str, data: &[u8]) -> Vec<u8> {
    let mut out = header(name, b'0', data.len());
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

fn tgz(tar: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(tar).unwrap();
    gz.finish().unwrap()
}

/// A folder entry whose size field covers a hidden `pack.json`: GNU tar 1.34 and Python 3.11
/// do not skip a folder's data, so they extract the hidden file last (it wins), while the tar
/// crate skipped it and chainsmith verified only the first `pack.json`. Found by the
/// `tar_entries` target's agreement check (seed `folder-with-data`).
#[test]
fn a_folder_entry_carrying_data_is_refused() {
    let hidden = file("pack.json", br#"{"evil":1}"#);
    let mut tar = file("pack.json", br#"{"name":"vendor.acme.x","version":"1.0.0"}"#);
    tar.extend(header("d/", b'5', hidden.len()));
    tar.extend(&hidden);
    tar.extend([0u8; 1024]);
    let refusal = PackArchive::from_tgz(&tgz(&tar)).expect_err("tools read a second pack.json in it");
    assert_eq!(refusal.reason, "entry_not_file", "{refusal}");
    assert!(refusal.message.contains("d") && refusal.message.contains(&hidden.len().to_string()), "{refusal}");
    // A folder entry without data is still fine.
    let mut plain = header("d/", b'5', 0);
    plain.extend(file("pack.json", b"{}"));
    plain.extend([0u8; 1024]);
    assert!(PackArchive::from_tgz(&tgz(&plain)).is_ok());
}

/// Header fields GNU tar 1.34 and Python 3.11 read differently from the tar crate, each
/// checked against both tools when found (`tar_entries` seeds of the same names).
#[test]
fn headers_other_tools_read_differently_are_refused() {
    let data = br#"{"name":"vendor.acme.x","version":"1.0.0"}"#;
    let with = |at: usize, bytes: &[u8]| {
        let mut entry = file("pack.json", data);
        entry[at..at + bytes.len()].copy_from_slice(bytes);
        // The checksum again, over the edited header.
        entry[148..156].copy_from_slice(b"        ");
        let sum: u32 = entry[..512].iter().map(|b| u32::from(*b)).sum();
        entry[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        entry.extend([0u8; 1024]);
        PackArchive::from_tgz(&tgz(&entry)).map(|a| a.files.keys().cloned().collect::<Vec<_>>())
    };
    // GNU tar reads a leading `+` as its old base-64 (another size); the tar crate as octal.
    assert_eq!(with(124, b"+0000000052\0").unwrap_err().reason, "entry_not_file");
    // "ustar\0" with another version: GNU and Python extract sub/pack.json, the tar crate pack.json.
    assert_eq!(with(263, b"  ").map_err(|r| r.reason), Ok(vec!["pack.json".to_owned()]), "no prefix: no ambiguity");
    let mut tar = file("pack.json", data);
    tar[263..265].copy_from_slice(b"  ");
    tar[345..348].copy_from_slice(b"sub");
    tar[148..156].copy_from_slice(b"        ");
    let sum: u32 = tar[..512].iter().map(|b| u32::from(*b)).sum();
    tar[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    tar.extend([0u8; 1024]);
    assert_eq!(PackArchive::from_tgz(&tgz(&tar)).unwrap_err().reason, "entry_name_invalid");
    // A file and a file below it: GNU tar fails to extract the second.
    let mut both = file("a", b"1");
    both.extend(file("a/b", b"2"));
    both.extend([0u8; 1024]);
    assert_eq!(PackArchive::from_tgz(&tgz(&both)).unwrap_err().reason, "entry_name_invalid");
    // The plain octal sizes every packer writes still read.
    assert_eq!(with(124, b"00000000052\0").map_err(|r| r.reason), Ok(vec!["pack.json".to_owned()]));
    assert_eq!(with(124, b"     52 \0\0\0\0").map_err(|r| r.reason), Ok(vec!["pack.json".to_owned()]));
}

/// A double that is an integer beyond 2^53 but spelled as a float (`1e20`) parsed strictly,
/// and its canonical bytes (`100000000000000000000`) were refused by the same reader: a pack
/// `pack sign` signed could not be verified. Found by the `jcs` target's idempotence check.
#[test]
fn numbers_whose_canonical_text_is_an_unsafe_integer_are_refused() {
    use chainsmith::registry::jcs;
    for text in ["1e20", "1.5e17", "-9007199254740994.0", "123456789012345678e3"] {
        let doc = format!(r#"{{"a":[{text}]}}"#);
        let refusal = jcs::parse_strict_located(doc.as_bytes()).expect_err(text);
        assert_eq!((refusal.pointer.as_str(), refusal.number), ("/a/0", true), "{text}: {refusal}");
    }
    // Integers in range, doubles with a fraction, and 1e21 (written with an exponent) stay.
    for text in ["9007199254740991.0", "1e15", "1e21", "1.5e300", "0.1"] {
        let doc = format!(r#"{{"a":{text}}}"#);
        let canonical = jcs::canonicalize(doc.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(jcs::canonicalize(&canonical).as_deref(), Ok(&canonical[..]), "{text}");
    }
}

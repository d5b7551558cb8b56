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

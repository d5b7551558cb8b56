#![no_main]
//! Arbitrary bytes as the tar inside a pack tarball (gzip'd here, so every mutation reaches
//! the tar reader). Whatever chainsmith accepts must unpack to the same files in GNU tar and
//! Python, as the second reading in `tar_oracle` reads them; what it refuses is never a panic.

use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|tar: &[u8]| {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(tar).expect("gzip in memory");
    chainsmith_fuzz::check_archive(&gz.finish().expect("gzip in memory"));
});

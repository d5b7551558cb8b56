#![no_main]
//! Arbitrary bytes as a pack tarball (`.tgz`): gzip members, headers, trailers and what
//! follows them. Whatever chainsmith accepts must be what `tar -xzf` reads (every member
//! inflated, then GNU tar and Python's reading of the tar): same files, same bytes.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|gz: &[u8]| chainsmith_fuzz::check_archive(gz));

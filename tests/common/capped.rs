//! Run the real `chainsmith` binary under an address-space cap (RLIMIT_AS), so a test proves
//! a memory bound: past the cap an allocation fails and the process aborts instead of
//! answering with its exit code and envelope.

use std::ffi::OsStr;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Output, Stdio};

/// One mebibyte.
pub const MIB: u64 = 1024 * 1024;

/// The address space the binary needs to start and answer a trivial command (code, shared
/// libraries, thread stacks, allocator arenas), measured by [`baseline_cap`].
fn fits(cap: u64) -> bool {
    run_capped(cap, &["--version"], None).status.success()
}

/// The smallest cap (to 16 MiB) under which `chainsmith --version` succeeds: the fixed cost
/// of the process, which a test adds its own allowance to.
pub fn baseline_cap() -> u64 {
    static BASELINE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *BASELINE.get_or_init(|| {
        let (mut lo, mut hi) = (16 * MIB, 4096 * MIB);
        assert!(fits(hi), "chainsmith --version fails even with a 4 GiB address space");
        while hi - lo > 16 * MIB {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) { hi = mid } else { lo = mid }
        }
        hi
    })
}

/// Run `chainsmith ARGS` with at most `cap` bytes of address space, optionally in `dir`.
pub fn run_capped<S: AsRef<OsStr>>(cap: u64, args: &[S], dir: Option<&Path>) -> Output {
    let mut cmd = super::cli::bin();
    cmd.args(args).stdin(Stdio::null());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: cap as libc::rlim_t, rlim_max: cap as libc::rlim_t };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().expect("chainsmith starts")
}

/// Run with the process's fixed cost plus `allowance` bytes; the outcome says which.
pub fn run_with_allowance<S: AsRef<OsStr>>(allowance: u64, args: &[S], dir: Option<&Path>) -> Output {
    run_capped(baseline_cap() + allowance, args, dir)
}

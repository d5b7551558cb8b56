//! What both binaries do before their work: the allocator, the command line parsed, the
//! memory settings of the memory-bound commands, then the subcommand or the editor.

use std::path::PathBuf;
use std::process::ExitCode;

/// A workflow is millions of small objects (every member name, string and number is its own
/// allocation); mimalloc packs them without the system allocator's per-allocation header
/// and 32-byte minimum, which held about a third more than the objects themselves.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Run the subcommand, or `editor` with the files to open when none is given.
pub fn main(editor: fn(Vec<PathBuf>) -> ExitCode) -> ExitCode {
    let args = match super::parse() {
        Ok(args) => args,
        Err(code) => return code,
    };
    match args.command {
        Some(command) => {
            if command.memory_bound() {
                keep_memory_lean();
            }
            super::run(command)
        }
        None => editor(args.files),
    }
}

/// mimalloc option numbers (`mi_option_e` in the bundled v2 `mimalloc.h`; the Rust binding
/// names only some of them). A unit test checks the number against the option's default and
/// its neighbours'.
mod mi_option {
    pub const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
}

/// For the memory-bound commands: memory freed is given back to the system at once rather
/// than after mimalloc's delay (10 ms, x10 for its arenas), and no transparent huge pages
/// (mimalloc asks for them; a partly used 2 MiB page is resident whole). `chain extract` of
/// 8,000 nodes peaked ~9 MiB lower; these commands gain nothing from either.
fn keep_memory_lean() {
    // SAFETY: setting an option is a store into mimalloc's option table.
    unsafe { libmimalloc_sys::mi_option_set(mi_option::PURGE_DELAY, 0) };
    #[cfg(target_os = "linux")]
    disable_huge_pages();
}

/// The editor stays open for hours with a workflow of small objects spread over its heap.
/// Transparent huge pages (mimalloc asks for them, and the GL driver's heap gets them too)
/// kept partly used 2 MiB pages resident: the app with a 100,000-node workflow peaked 14 to
/// 20 MiB higher with them, and no frame time changed without them. The fast commands keep
/// them: a short run faults in its memory faster with them (`expand` about a fifth faster).
#[cfg(target_os = "linux")]
pub fn disable_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE only sets a flag on this process; the call takes no
    // pointers. Failure (an old kernel) leaves huge pages on, which is only more memory.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::mi_option;

    /// The number names the option it is meant to: it and its neighbours read their defaults.
    #[test]
    fn mimalloc_option_numbers_read_their_defaults() {
        // SAFETY: reading an option has no preconditions.
        let get = |o| unsafe { libmimalloc_sys::mi_option_get(o) };
        // eager_commit_delay (1), purge_delay (10), use_numa_nodes (0), in that order.
        let around: Vec<_> = (mi_option::PURGE_DELAY - 1..=mi_option::PURGE_DELAY + 1).map(get).collect();
        assert_eq!(around, [1, 10, 0]);
    }
}

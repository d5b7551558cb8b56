//! When the editor started, for the lines `CHAINSMITH_TRACE_STARTUP` prints: scripts that
//! measure the cold start or wait for the files given at start read them.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

static STARTED: OnceLock<Instant> = OnceLock::new();

/// The editor starts now (the first call counts).
pub fn mark() {
    STARTED.get_or_init(Instant::now);
}

/// How long ago the editor started, when [`mark`] was called.
pub fn elapsed() -> Option<Duration> {
    STARTED.get().map(Instant::elapsed)
}

/// Whether the start is traced.
pub fn traced() -> bool {
    std::env::var_os("CHAINSMITH_TRACE_STARTUP").is_some()
}

/// The files given at start are open (their packs checked and in the palette): a line for
/// scripts that wait for them and for measuring, when tracing the start.
pub fn trace_files_open() {
    if let Some(t) = elapsed()
        && traced()
    {
        eprintln!("chainsmith: files open {:.1} ms after start", t.as_secs_f64() * 1000.0);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_start_is_the_first_mark() {
        super::mark();
        let first = super::elapsed().expect("marked");
        std::thread::sleep(std::time::Duration::from_millis(5));
        super::mark();
        // A second mark does not restart the clock.
        assert!(super::elapsed().unwrap() >= first + std::time::Duration::from_millis(5));
    }
}

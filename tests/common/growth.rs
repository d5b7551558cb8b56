//! Growth-ratio checks: the same work timed at three sizes, each twice the last, must grow
//! near-linearly. Nothing is compared with a wall-clock limit, only sizes with each other
//! on the same machine in the same moment.
//!
//! Timings are noisy on a shared machine, and noise only ever adds time. So the sizes are
//! timed in turn (n, 2n, 4n, n, 2n, 4n, …) and each keeps its fastest run over all attempts;
//! a measurement that looks superlinear gets more runs before the test fails. Quadratic work
//! fails every attempt: even its fastest runs cost about 4× per doubling, and the bound is 3×.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

static MACHINE: Mutex<()> = Mutex::new(());

/// Held while timing, and by any heavy test in the same binary: tests run in parallel
/// threads, and a neighbour streaming through memory slows the largest size most (it
/// needs the cache the most), which reads as superlinear growth.
pub fn exclusive() -> MutexGuard<'static, ()> {
    MACHINE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Largest accepted cost of doubling the input (linear: 2; quadratic: 4).
pub const MAX_DOUBLING_RATIO: f64 = 3.0;
const RUNS: usize = 3;
const ATTEMPTS: usize = 5;

/// Build inputs of sizes `base`, `2·base` and `4·base` with `make` (not timed), time
/// `work` on each, and assert that each doubling costs less than [`MAX_DOUBLING_RATIO`]
/// times the size before. Returns the fastest times, for the report.
pub fn assert_near_linear<T>(label: &str, base: usize, make: impl Fn(usize) -> T, work: impl Fn(&T)) -> [Duration; 3] {
    let sizes = [base, 2 * base, 4 * base];
    let inputs: Vec<T> = sizes.iter().map(|n| make(*n)).collect();
    let _alone = exclusive();
    // Warm lazy statics, and let the allocator grow to the largest size once, so later runs
    // do not pay for fresh pages at some sizes and not at others.
    work(&inputs[2]);
    // Kept across attempts: a run slowed by another test's burst is outvoted by any later one.
    let mut best = [Duration::MAX; 3];
    for attempt in 1..=ATTEMPTS {
        for _ in 0..RUNS {
            for (slot, input) in inputs.iter().enumerate() {
                let started = Instant::now();
                work(input);
                best[slot] = best[slot].min(started.elapsed());
            }
        }
        let ratios = [ratio(best[1], best[0]), ratio(best[2], best[1])];
        eprintln!(
            "growth {label} (attempt {attempt}): sizes {sizes:?} took {:?}; doubling ratios {:.2} and {:.2}",
            best, ratios[0], ratios[1]
        );
        if ratios.iter().all(|r| *r < MAX_DOUBLING_RATIO) {
            return best;
        }
    }
    panic!(
        "{label}: work grows faster than linearly: sizes {sizes:?} took {best:?} \
         (each doubling must cost less than {MAX_DOUBLING_RATIO}×)"
    );
}

fn ratio(bigger: Duration, smaller: Duration) -> f64 {
    bigger.as_secs_f64() / smaller.as_secs_f64().max(1e-9)
}

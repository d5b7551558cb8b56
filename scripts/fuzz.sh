#!/usr/bin/env bash
# Coverage-guided fuzzing of every fuzz target on stable Rust, one after the other, under nice.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     (default: 60 seconds, every target)
#
# The targets are built with SanitizerCoverage (inline 8-bit counters, PC table, compare
# tracing: what libFuzzer's feedback reads) for an explicit --target, so the flags reach only
# the target's code and not build scripts, in fuzz/target-cov/ (not the normal cache). Each
# target starts from its checked-in seeds (fuzz/seeds/<target>/) and its own corpus
# (fuzz/corpus/<target>/, where new inputs go). libFuzzer runs in fork mode so a crash is
# saved (fuzz/artifacts/<target>/) and fuzzing goes on. Prints, per target: executions,
# executions per second, corpus size before and after, and the distinct findings.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
[ $# -gt 0 ] && shift
triple=x86_64-unknown-linux-gnu
all_targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^chainsmith')
targets=${*:-$all_targets}

export CARGO_TARGET_DIR="$PWD/fuzz/target-cov"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
# FUZZ_BIN_DIR: fuzz binaries built (instrumented) elsewhere; nothing is built then.
bin_dir=${FUZZ_BIN_DIR:-$CARGO_TARGET_DIR/$triple/release}
if [ -z "${FUZZ_BIN_DIR:-}" ]; then
  echo "== building instrumented targets in fuzz/target-cov"
  nice -n 10 cargo build --release --manifest-path fuzz/Cargo.toml --target "$triple" --bins
fi

count() { find "$1" -type f 2>/dev/null | wc -l; }
printf '%-17s %12s %9s %15s %9s\n' target executions exec/s corpus findings > fuzz/last-run.txt.tmp
for t in $targets; do
  corpus=fuzz/corpus/$t artifacts=fuzz/artifacts/$t seeds=fuzz/seeds/$t
  mkdir -p "$corpus" "$artifacts" "$seeds"
  before=$(count "$corpus")
  log=fuzz/artifacts/$t.log
  touch "$log.start"
  echo "== $t: ${seconds}s from $(count "$seeds") seeds and $before corpus inputs"
  # Fork mode (one job) restarts the fuzzing process after a crash instead of stopping.
  nice -n 10 "$bin_dir/$t" "$corpus" "$seeds" -artifact_prefix="$artifacts/" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=4096 -max_len=65536 -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
    -ignore_ooms=1 -print_final_stats=1 >"$log" 2>&1 || true
  # The last progress line of the fork loop carries the total executions ("#N:").
  execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  rate=$(( ${execs:-0} / seconds ))
  after=$(count "$corpus")
  # A finding is a distinct panic message of a saved crash input (replayed here; the fork
  # loop does not always copy the child's log), or a timeout or out-of-memory input.
  crashes=$(find "$artifacts" -type f -name 'crash-*' -newer "$log.start" | head -200)
  findings=$( (for f in $crashes; do "$bin_dir/$t" "$f" 2>&1 | grep -A1 "panicked at" | grep -vE "panicked at|^--$" | head -1; done; \
    find "$artifacts" -type f \( -name 'timeout-*' -o -name 'oom-*' \) -newer "$log.start" | sed 's|.*/\([a-z]*\)-.*|libFuzzer \1|') | sort -u)
  nfind=$(printf '%s' "$findings" | grep -c . || true)
  printf '%-17s %12s %9s %15s %9s\n' "$t" "${execs:-0}" "$rate" "$before -> $after" "$nfind" | tee -a fuzz/last-run.txt.tmp
  [ -n "$findings" ] && printf '%s\n' "$findings" | sed "s/^/    $t: /" | tee -a fuzz/last-run.txt.tmp
  true
done
mv fuzz/last-run.txt.tmp fuzz/last-run.txt
echo "== summary (fuzz/last-run.txt; crash inputs in fuzz/artifacts/<target>/, logs in fuzz/artifacts/<target>.log)"
cat fuzz/last-run.txt

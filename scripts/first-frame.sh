#!/usr/bin/env bash
# Whole-process start-up of the editor as a user meets it: from exec to the first drawn
# frame on screen (tessellated, painted and swapped), under Xvfb, release build, with the
# files given opened (read on a thread after that frame), then to "files open".
#
#   scripts/first-frame.sh [RUNS] [FILE...]     (default: 7 runs of the corpus registry folder)
#   SCREEN=1000x700 scripts/first-frame.sh      (default 1440x900)
#
# Prints each run and the medians. Needs xvfb. A fresh settings folder per run: nothing is
# reopened from an earlier start.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}
shift || true
FILES=("$@")
if [ ${#FILES[@]} -eq 0 ]; then
    FILES=("$(realpath -m "${CHAINSMITH_SHARED:-$PWD/../shared}/corpus/registry/packs")")
fi
BIN=${CHAINSMITH_BIN:-$PWD/target/release/chainsmith-editor}
[ -n "${CHAINSMITH_BIN:-}" ] || cargo build --release --quiet --bin chainsmith-editor
SCREEN=${SCREEN:-1440x900}
SCRATCH=$(mktemp -d)
export DISPLAY=${FIRST_FRAME_DISPLAY:-:73}
Xvfb "$DISPLAY" -screen 0 "${SCREEN}x24" -nolisten tcp >"$SCRATCH/xvfb.log" 2>&1 &
XVFB=$!
trap 'kill $XVFB 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
sleep 1

shown=()
opened=()
for run in $(seq 1 "$RUNS"); do
    home=$SCRATCH/home$run
    mkdir -p "$home/run" && chmod 700 "$home/run"
    log=$SCRATCH/run$run.log
    t0=$(date +%s.%N)
    HOME=$home XDG_DATA_HOME=$home/data XDG_CONFIG_HOME=$home/config XDG_RUNTIME_DIR=$home/run \
        CHAINSMITH_TRACE_STARTUP=1 "$BIN" "${FILES[@]}" 2>"$log" &
    app=$!
    for _ in $(seq 1 600); do
        grep -q "files open" "$log" && grep -q "first frame shown" "$log" && break
        sleep 0.05
    done
    kill "$app" 2>/dev/null || true
    wait "$app" 2>/dev/null || true
    # The app prints the wall clock when the frame after the first drawn one begins, and
    # how long after main "files open" came; both are turned into time since exec.
    s=$(sed -n 's/.*first frame shown [0-9.]* ms after start (unix \([0-9.]*\)).*/\1/p' "$log" | head -1)
    main_shown=$(sed -n 's/.*first frame shown \([0-9.]*\) ms after start.*/\1/p' "$log" | head -1)
    files=$(sed -n 's/.*files open \([0-9.]*\) ms after start.*/\1/p' "$log" | head -1)
    [ -n "$s" ] && [ -n "$files" ] || { echo "run $run: no trace"; cat "$log"; exit 1; }
    exec_shown=$(python3 -c "print(f'{($s - $t0) * 1000:.1f}')")
    # "files open" is measured from main; the time before main is the same start-up.
    exec_files=$(python3 -c "print(f'{$exec_shown - $main_shown + $files:.1f}')")
    drawn=$(sed -n 's/.*first frame \([0-9.]*\) ms after start.*/\1/p' "$log" | head -1)
    echo "run $run: first frame on screen ${exec_shown} ms after exec; files open ${exec_files} ms" \
        "(from main: UI pass done ${drawn}, on screen ${main_shown}, files open ${files})"
    shown+=("$exec_shown")
    opened+=("$exec_files")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "median of $RUNS at $SCREEN: first frame on screen $(median "${shown[@]}") ms, files open $(median "${opened[@]}") ms"

#!/usr/bin/env bash
# Screenshots of the editor's main states: the release build runs under Xvfb and is
# driven with real pointer and keyboard input (xdotool); `import` grabs the screen.
#
#   scripts/screenshots.sh [OUT_DIR]     (default: target/screenshots)
#
# Needs: xvfb, xdotool, imagemagick (apt-get install xvfb xdotool imagemagick).
# Coordinates assume the default layout of a first start at 1440x900 (fresh settings).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/screenshots}
mkdir -p "$OUT"
for tool in Xvfb xdotool import; do
    command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install xvfb xdotool imagemagick" >&2; exit 1; }
done

cargo build --release --quiet
cargo build --release --quiet --example frame_time
BIN=$PWD/target/release/chainsmith

SCRATCH=$(mktemp -d)
export HOME=$SCRATCH XDG_DATA_HOME=$SCRATCH/data XDG_CONFIG_HOME=$SCRATCH/config XDG_RUNTIME_DIR=$SCRATCH/run
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
export DISPLAY=:71
Xvfb "$DISPLAY" -screen 0 1440x900x24 -nolisten tcp >"$SCRATCH/xvfb.log" 2>&1 &
XVFB=$!
APP=
cleanup() {
    [ -n "$APP" ] && kill "$APP" 2>/dev/null || true
    kill "$XVFB" 2>/dev/null || true
    rm -rf "$SCRATCH"
}
trap cleanup EXIT
sleep 1

start_app() {
    CHAINSMITH_TRACE_STARTUP=1 "$BIN" "$@" 2>>"$SCRATCH/app.log" &
    APP=$!
    xdotool search --sync --name chainsmith >/dev/null
    sleep 2
    grep -h "first frame" "$SCRATCH/app.log" | tail -1 || true
}
stop_app() {
    kill "$APP" 2>/dev/null || true
    wait "$APP" 2>/dev/null || true
    APP=
    rm -rf "$XDG_DATA_HOME"
}
shot() {
    sleep "${2:-0.6}"
    import -window root "$OUT/$1.png"
    echo "wrote $OUT/$1.png"
}
# Press at ($1,$2), move in steps to ($3,$4); release unless $5 is "hold".
drag() {
    xdotool mousemove "$1" "$2" mousedown 1
    for i in $(seq 1 12); do
        xdotool mousemove $(( $1 + ($3 - $1) * i / 12 )) $(( $2 + ($4 - $2) * i / 12 ))
        sleep 0.03
    done
    [ "${5:-}" = hold ] || xdotool mouseup 1
}
click() { xdotool mousemove "$1" "$2" click 1; sleep 0.3; }
type_text() { xdotool key ctrl+a; xdotool type --delay 30 "$1"; }
focus() { xdotool windowfocus --sync "$(xdotool search --pid "$APP" | head -1)"; }

# 1. First start: bundled packs, empty workflow.
start_app
focus
shot 01-start

# 2. Dragging a tile: the drop preview follows the pointer.
drag 74 306 620 300 hold
shot 02-drag-tile
xdotool mouseup 1

# 3-4. The form: an invalid value is outlined and explained, Insert stays off; then fixed.
sleep 0.8
click 767 529
xdotool type --delay 25 "Bad Queue"
shot 03-form-invalid
type_text billing
shot 04-form-valid

# 5. Inserted: the chain instance, its frame, and the inspector.
click 611 813
shot 05-inserted

# 6-7. A second chain dropped onto an edge splices between its ends.
drag 74 180 651 233 hold
shot 06-drop-on-edge
xdotool mouseup 1
sleep 0.8
shot 07-splice-form
click 798 651
xdotool type --delay 25 "weekly"
sleep 0.3
click 643 813
xdotool key f
shot 08-spliced
stop_app

# 9-10. A large workflow: everything in view, then zoomed in around the pointer.
target/release/examples/frame_time --write "$SCRATCH/large.json" 5000
start_app "$SCRATCH/large.json"
focus
shot 09-large-5000 1.5
xdotool mousemove 760 460
for _ in $(seq 1 9); do xdotool keydown ctrl click 4 keyup ctrl; sleep 0.05; done
shot 10-large-zoomed
stop_app

echo "cold start (window, release): $(grep -h 'first frame' "$SCRATCH/app.log" | head -1)"

#!/usr/bin/env bash
# Screenshots of the editor's main states: the release build runs under Xvfb and is
# driven with real pointer and keyboard input (xdotool); `import` grabs the screen.
#
#   scripts/screenshots.sh [OUT_DIR]     (default: target/screenshots)
#   SHOTS="registry fallback" scripts/screenshots.sh    (only these groups; default: all of
#       form fallback registry corpus authoring registry-window app node-types commands
#       quick-add canvas large newcomer registry-url upgrade shell forms zoom words)
#   SCREEN=1000x700 scripts/screenshots.sh    (the screen, and the editor's window, this size;
#       default 1440x900)
#
# Needs: xvfb, xdotool, imagemagick (apt-get install xvfb xdotool imagemagick).
# Coordinates of the older groups assume the default layout of a first start at 1440x900
# (fresh settings); the newcomer group runs at any size (its files are named with it). The
# registry shots need the shared corpus (../shared/corpus or $CHAINSMITH_SHARED).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/screenshots}
mkdir -p "$OUT"
for tool in Xvfb xdotool import; do
    command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install xvfb xdotool imagemagick" >&2; exit 1; }
done

SHOTS=${SHOTS:-form fallback registry corpus authoring registry-window app node-types commands quick-add canvas large newcomer registry-url upgrade shell forms zoom words}
SCREEN=${SCREEN:-1440x900}
SCREEN_W=${SCREEN%x*}
SCREEN_H=${SCREEN#*x}
want() { [[ " $SHOTS " == *" $1 "* ]]; }

# CHAINSMITH_BIN runs another build (a debug one, to find coordinates) and skips the
# large-workflow shots, which need the release example.
if [ -n "${CHAINSMITH_BIN:-}" ]; then
    BIN=$CHAINSMITH_BIN
else
    cargo build --release --quiet --bin chainsmith-editor
    if want large; then cargo build --release --quiet --example frame_time; fi
    BIN=$PWD/target/release/chainsmith-editor
fi
# Normalised: the editor shows the folders it opened as given.
CORPUS=$(realpath -m "${CHAINSMITH_SHARED:-$PWD/../shared}/corpus")
[ -d "$CORPUS/registry/packs" ] || echo "no corpus at $CORPUS: registry shots skipped" >&2

SCRATCH=$(mktemp -d)
export HOME=$SCRATCH XDG_DATA_HOME=$SCRATCH/data XDG_CONFIG_HOME=$SCRATCH/config XDG_RUNTIME_DIR=$SCRATCH/run
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
export DISPLAY=${SCREENSHOT_DISPLAY:-:71}
Xvfb "$DISPLAY" -screen 0 "${SCREEN}x24" -nolisten tcp >"$SCRATCH/xvfb.log" 2>&1 &
XVFB=$!
APP=
cleanup() {
    [ -n "$APP" ] && kill "$APP" 2>/dev/null || true
    kill "$XVFB" 2>/dev/null || true
    rm -rf "$SCRATCH"
}
trap cleanup EXIT
sleep 1

# Start the editor on the files given, wait for its first frame and the files, give it the
# keyboard.
start_app() {
    local before
    before=$(grep -c "first frame" "$SCRATCH/app.log" 2>/dev/null || true)
    CHAINSMITH_TRACE_STARTUP=1 "$BIN" "$@" 2>>"$SCRATCH/app.log" &
    APP=$!
    local opened
    opened=$(grep -c "files open" "$SCRATCH/app.log" 2>/dev/null || true)
    # No window manager: the window is made the screen's size (it asks for 1440x900).
    xdotool windowsize --sync "$(xdotool search --sync --name chainsmith | head -1)" "$SCREEN_W" "$SCREEN_H"
    # Wait for this start's first frame, then for the files it opens (read after the first
    # frame; 140 packs take a while on a busy machine).
    for _ in $(seq 1 120); do
        [ "$(grep -c "first frame" "$SCRATCH/app.log" || true)" -gt "${before:-0}" ] && break
        sleep 0.5
    done
    if [ $# -gt 0 ]; then
        for _ in $(seq 1 240); do
            [ "$(grep -c "files open" "$SCRATCH/app.log" || true)" -gt "${opened:-0}" ] && break
            sleep 0.5
        done
    fi
    sleep 2
    grep -h "first frame" "$SCRATCH/app.log" | tail -1 || true
    xdotool windowfocus --sync "$(xdotool search --pid "$APP" | head -1)"
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
# Pauses at both ends: on a busy machine a press, the moves and the release can reach the
# editor in one frame, which is a click, not a drag.
drag() {
    xdotool mousemove "$1" "$2"
    sleep 0.3
    xdotool mousedown 1
    sleep 0.2
    for i in $(seq 1 12); do
        xdotool mousemove $(( $1 + ($3 - $1) * i / 12 )) $(( $2 + ($4 - $2) * i / 12 ))
        sleep 0.05
    done
    sleep 0.3
    [ "${5:-}" = hold ] || xdotool mouseup 1
}
# Hover first: a press in the frame that also moves the pointer there can miss the button.
click() { xdotool mousemove "$1" "$2"; sleep 0.3; xdotool click 1; sleep 0.3; }
# A slower click, for what the app answers with a window or a re-expansion.
press() { xdotool mousemove "$1" "$2"; sleep 0.8; xdotool mousedown 1; sleep 0.2; xdotool mouseup 1; sleep 1.2; }
# Run the command palette's entry $1 (typed $2 ms a key; default 60).
palette() {
    xdotool key ctrl+k
    sleep 0.5
    xdotool type --delay "${2:-60}" "$1"
    sleep 0.5
    xdotool key Return
}
type_text() { xdotool key ctrl+a; xdotool type --delay 30 "$1"; }
# Quick-add (opened by key $1) the Triage queue chain, fill its queue with the keyboard, shot
# the form ($2), insert, fit, shot the result ($3).
quick_add_triage() {
    xdotool key "$1"
    sleep 0.5
    xdotool type --delay 120 "queue"
    sleep 0.5
    xdotool key Return
    sleep 1.5
    xdotool type --delay 120 "billing"
    shot "$2" 2.0
    xdotool key Return
    sleep 1
    xdotool key f
    shot "$3" 1.5
}

if want form; then
    # 1. First start: bundled packs, empty workflow.
    start_app
    shot 01-start

    # 2. Dragging a tile: the drop preview follows the pointer.
    drag 74 390 620 300 hold
    shot 02-drag-tile
    xdotool mouseup 1

    # 3-4. The docked form: an invalid value is outlined and explained, Insert stays off; then fixed.
    sleep 1.5
    click 492 616
    xdotool type --delay 25 "Bad Queue"
    shot 03-form-invalid
    type_text billing
    shot 04-form-valid

    # 5. A number typed wrong stays as typed and is flagged with the schema's message.
    # Three wheel notches (about 77 px each under X) bring Batch size up beside its bounds.
    xdotool mousemove 480 700
    for _ in $(seq 1 3); do xdotool click 5; sleep 0.3; done
    sleep 1
    click 370 679
    type_text 2.5
    shot 05-form-invalid-number 2.0
    type_text 25
    sleep 0.5

    # 6. Inserted: the chain instance, its frame, and the inspector.
    click 331 849
    sleep 1
    xdotool key f
    shot 06-inserted

    # 7-9. A second chain dropped onto an edge splices between its ends.
    drag 74 232 568 474 hold
    shot 07-drop-on-edge
    xdotool mouseup 1
    sleep 1.5
    shot 08-splice-form
    # The Sheet field, the last one above the form's fixed-height problem summary.
    click 492 744
    xdotool type --delay 25 "weekly"
    sleep 0.3
    click 331 849
    # Fit once the form has closed and the canvas has its full height again.
    sleep 1
    xdotool key f
    shot 09-spliced
    stop_app
fi

if want fallback; then
    # 10. No desktop portal: Ctrl+S opens the in-app file dialog (the status bar says so).
    CHAINSMITH_FILE_DIALOG=in-app start_app
    xdotool key ctrl+s
    shot 10-fallback-file-dialog 1.0
    stop_app
fi

if want registry && [ -d "$CORPUS/registry/packs" ]; then
    # 11. The real registry opened: 140 packs, blocked tiles marked, samples grouped apart.
    start_app "$CORPUS/registry/packs"
    shot 11-registry 1.5
    # 12. A blocked tile dropped on the canvas explains itself: each missing typeId, where
    # it is used, and a way forward.
    click 150 72
    xdotool type --delay 20 "starters.webhook-notify"
    sleep 0.8
    drag 74 252 620 300
    shot 12-blocked-details 1.0
    stop_app

    # 13. A real node type with many ports: the card grows to fit them.
    MANY=$(python3 - "$CORPUS/registry/packs" <<'PY'
import json, os, sys
best = ("", 0)
root = sys.argv[1]
for d in sorted(os.listdir(root)):
    m = json.load(open(os.path.join(root, d, "pack.json")))
    for n in m.get("nodes") or []:
        ref = n.get("inputSchemaRef")
        try:
            props = json.load(open(os.path.join(root, d, ref))).get("properties", {}) if ref else {}
        except (OSError, ValueError):
            props = {}
        if len(props) > best[1]:
            best = (n["typeId"], len(props))
print(best[0])
PY
)
    cat >"$SCRATCH/many.json" <<JSON
{"id": "many-ports", "name": "Many ports", "version": "1.0.0",
 "nodes": [{"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
           {"id": "many", "typeId": "$MANY", "name": "$MANY", "position": {"x": 360, "y": 0}, "config": {}, "inputs": {}},
           {"id": "end", "typeId": "core.end", "name": "End", "position": {"x": 720, "y": 60}, "config": {}, "inputs": {}}],
 "edges": [{"id": "e1", "sourceNodeId": "start", "targetNodeId": "many"},
           {"id": "e2", "sourceNodeId": "many", "targetNodeId": "end", "condition": {"type": "truthy", "left": "\$.ok"}}],
 "triggers": [], "variables": [], "metadata": {}, "settings": {}}
JSON
    start_app "$CORPUS/registry/packs" "$SCRATCH/many.json"
    xdotool key f
    shot 13-many-ports 1.5
    stop_app
fi

if want corpus && [ -d "$CORPUS/registry/packs" ]; then
    # 40-42. A real workflow from the corpus (three registry chains inlined by the CLI, one
    # after another), before and after Arrange → Tidy (Shift+Alt+T).
    echo '{"subChains": true}' >"$SCRATCH/host.json"
    SRC=(--new "Corpus workflow")
    for chain in openwop-app.kicktodo.challenge-factory app-builder.design it-support.incident-triage; do
        python3 -c 'import json, sys; v = json.load(open(sys.argv[1])); json.dump(v["params"], open(sys.argv[2], "w")); print(v["pack"])' \
            "$CORPUS/vectors/$chain.json" "$SCRATCH/params.json" >"$SCRATCH/pack-path"
        "$BIN" inline "${SRC[@]}" "$CORPUS/$(cat "$SCRATCH/pack-path")" --chain "$chain" --params "$SCRATCH/params.json" \
            --host "$SCRATCH/host.json" --registry "$CORPUS/registry/packs" -o "$SCRATCH/corpus.json" >/dev/null 2>&1
        SRC=("$SCRATCH/corpus.json")
    done
    start_app "$CORPUS/registry/packs" "$SCRATCH/corpus.json"
    xdotool key f
    shot 40-corpus-before-tidy 1.5
    xdotool key shift+alt+t
    shot 41-corpus-after-tidy 1.0
    # Zoomed in on the tidied workflow: ten wheel notches, at most 15% each.
    xdotool mousemove 560 440
    for _ in $(seq 1 10); do xdotool keydown ctrl click 4 keyup ctrl; sleep 0.05; done
    shot 42-corpus-tidy-zoomed 1.0
    stop_app
fi

if want authoring; then
    # 16-17. Authoring: a selection extracted as a chain (values ticked to become parameters,
    # the edges that cross the selection, the tile and its form previewed), then the pack view
    # with a minimum above the parameter's default flagged by the live form preview.
    cat >"$SCRATCH/feeds.json" <<'JSON'
{"id": "feeds", "name": "Feeds", "version": "1.0.0",
 "nodes": [
  {"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
  {"id": "fetch", "typeId": "vendor.chainsmith.http-request", "name": "Fetch feed", "position": {"x": 320, "y": 0},
   "config": {"url": "https://news.example/feed", "retries": 3, "followRedirects": true}, "inputs": {}},
  {"id": "classify", "typeId": "vendor.chainsmith.classify", "name": "Classify items", "position": {"x": 680, "y": 0},
   "config": {"labels": ["urgent", "later"], "threshold": 0.7}, "inputs": {}},
  {"id": "append", "typeId": "vendor.chainsmith.sheet-append", "name": "Append rows", "position": {"x": 1040, "y": 0},
   "config": {"sheet": "Inbox log"}, "inputs": {}}],
 "edges": [{"id": "e0", "sourceNodeId": "start", "targetNodeId": "fetch"},
           {"id": "e1", "sourceNodeId": "fetch", "targetNodeId": "classify"},
           {"id": "e2", "sourceNodeId": "classify", "targetNodeId": "append"}],
 "triggers": [], "variables": [], "metadata": {}, "settings": {}}
JSON
    # A press held a moment: a busy machine can drop a press and release that arrive together.
    press() { xdotool mousemove "$1" "$2"; sleep 0.8; xdotool mousedown 1; sleep 0.2; xdotool mouseup 1; sleep 1.2; }
    start_app "$SCRATCH/feeds.json"
    press 760 300
    xdotool key ctrl+a
    sleep 0.5
    # Shift+click Start off the selection, then Extract as chain… from the inspector.
    xdotool mousemove 390 461; sleep 0.5; xdotool keydown shift; press 390 461; xdotool keyup shift
    press 1299 91
    press 29 300
    press 29 326
    xdotool mousemove 1300 600
    shot 16-extract-dialog 1.5
    press 59 607
    # View → Pack view (the last entry of the View menu).
    press 153 12
    press 174 302
    press 482 333
    press 677 427
    xdotool type --delay 40 "Attempts"
    sleep 0.5; xdotool key Return; sleep 1
    press 677 596
    xdotool type --delay 40 "5"
    sleep 0.5; xdotool key Return; sleep 1
    xdotool mousemove 1300 600
    shot 17-pack-view 1.5
    stop_app
fi

if want registry-window && [ -d "$CORPUS/registry/packs" ]; then
    # 30-31. The Registry window on a registry folder: every corpus pack (tarballs and indexes
    # written by tests/tools/make_registry.py, unsigned) plus a bundled sample published and
    # signed by chainsmith; opening the folder opens the window. Then filtered to the sample,
    # which verified, and installed into the OpenWOP cache.
    python3 tests/tools/make_registry.py --corpus "$CORPUS/registry/packs" "$SCRATCH/reg"
    "$BIN" keygen "$SCRATCH/key" >/dev/null
    mkdir -p "$SCRATCH/sample"
    # A v2 registry takes only node types pinned to a version: the bundled sample's are
    # pinned to the bundled node pack's.
    python3 - "$SCRATCH/sample/pack.json" <<'PY'
import json, sys
version = json.load(open("packs/vendor.chainsmith.nodes/pack.json"))["version"]
pack = json.load(open("packs/vendor.chainsmith.support-desk/pack.json"))
def pin(value):
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "typeId" and isinstance(item, str) and item.startswith("vendor.chainsmith.") and "@" not in item:
                value[key] = f"{item}@{version}"
            else:
                pin(item)
    elif isinstance(value, list):
        for item in value:
            pin(item)
pin(pack)
json.dump(pack, open(sys.argv[1], "w"), indent=2)
PY
    "$BIN" pack publish "$SCRATCH/sample" --registry "$SCRATCH/reg" --key "$SCRATCH/key.private.pem" \
        --key-id sample-key >/dev/null 2>&1
    start_app "$SCRATCH/reg"
    shot 30-registry-window 1.5
    press 456 277
    type_text chainsmith
    press 1079 387
    xdotool mousemove 1300 850
    shot 31-registry-installed 1.0
    stop_app
fi

if want app; then
    # 32-34. A workflow written the way the OpenWOP app writes it, one node edited by hand: one
    # chain instance in a frame; Edit → "Re-parameterise app workflow…" (or a double-click on the
    # frame) shows the hand edit, and selects its node, before new values re-expand it under the
    # app's expansionId.
    python3 - "$SCRATCH/triage-app.json" <<'PY'
import json, sys
doc = json.load(open("tests/fixtures/app/ticket-triage.app-workflow.json"))
doc["nodes"][1]["config"]["note"] = "escalate VIP tickets first"
json.dump(doc, open(sys.argv[1], "w"), indent=2)
PY
    start_app tests/fixtures/app/ticket-triage.json "$SCRATCH/triage-app.json"
    shot 32-app-instance
    press 54 12
    press 148 370
    xdotool mousemove 1300 300
    shot 33-app-reparam-hand-edits 1.5
    press 684 661
    type_text sales
    press 504 805
    shot 34-app-reparameterised 1.0
    stop_app
fi

if want node-types; then
    # 18-21. Single node types: a type with many typed ports dragged from the palette's Catalog
    # section inserts one node; its config form flags invalid values with the schema's
    # messages; a wire between ports whose types do not fit is refused, the reason at the pointer.
    mkdir -p "$SCRATCH/router/schemas"
    cat >"$SCRATCH/router/pack.json" <<'JSON'
{"name": "vendor.demo.routing", "version": "1.0.0", "description": "A node type with many typed ports.",
 "engines": {"openwop": ">=1.0.0 <2.0.0"}, "runtime": {"language": "javascript", "entry": "dist/index.js"},
 "nodes": [{"typeId": "vendor.demo.router", "version": "1.0.0", "label": "Router", "category": "logic", "role": "pure",
            "configSchemaRef": "schemas/config.json", "inputSchemaRef": "schemas/input.json",
            "outputSchemaRef": "schemas/output.json"}]}
JSON
    cat >"$SCRATCH/router/schemas/config.json" <<'JSON'
{"type": "object", "required": ["mode", "fallback"], "additionalProperties": false, "properties": {
  "mode": {"type": "string", "enum": ["round-robin", "weighted", "first-match"], "description": "How a route is picked"},
  "weights": {"type": "array", "items": {"type": "number", "minimum": 0}},
  "maxHops": {"type": "integer", "minimum": 1, "maximum": 16},
  "target": {"type": "string", "format": "uri"},
  "fallback": {"type": "object", "required": ["queue"],
               "properties": {"queue": {"type": "string", "minLength": 1}, "delayMs": {"type": "integer", "minimum": 0}}},
  "strict": {"type": "boolean", "default": true}}}
JSON
    cat >"$SCRATCH/router/schemas/input.json" <<'JSON'
{"type": "object", "additionalProperties": false, "properties": {
  "text": {"type": "string"}, "score": {"type": "number"}, "count": {"type": "integer"}, "flags": {"type": "array"},
  "meta": {"type": "object"}, "enabled": {"type": "boolean"}, "when": {"type": "string", "format": "date-time"},
  "anything": {}}}
JSON
    cat >"$SCRATCH/router/schemas/output.json" <<'JSON'
{"type": "object", "additionalProperties": false, "properties": {
  "routed": {"type": "object"}, "label": {"type": "string"}, "confidence": {"type": "number"},
  "attempts": {"type": "integer"}, "errors": {"type": "array"}, "ok": {"type": "boolean"}}}
JSON
    cat >"$SCRATCH/typed.json" <<'JSON'
{"id": "typed-ports", "name": "Typed ports", "version": "1.0.0",
 "nodes": [{"id": "classify", "typeId": "vendor.chainsmith.classify", "name": "Classify ticket",
            "position": {"x": 0, "y": 0}, "config": {"labels": ["billing", "outage"]}, "inputs": {}}],
 "edges": [], "triggers": [], "variables": [], "metadata": {}, "settings": {}}
JSON
    start_app "$SCRATCH/router" "$SCRATCH/typed.json"
    sleep 1
    click 150 72
    sleep 0.5
    xdotool type --delay 30 "router"
    sleep 0.8
    xdotool mousemove 60 230
    sleep 0.4
    drag 60 230 760 180 hold
    shot 18-drag-node-type
    xdotool mouseup 1
    sleep 1
    shot 19-node-type-many-ports
    click 1195 392
    xdotool type --delay 30 "40"
    sleep 0.8
    click 1270 466
    xdotool type --delay 30 "not a uri"
    xdotool mousemove 700 700
    shot 20-config-form-invalid
    # Onto the classifier's boolean "urgent" output, then a wire to the router's integer "count".
    xdotool mousemove 800 490
    sleep 0.3
    xdotool mousemove 810 480
    sleep 0.5
    xdotool mousedown 1
    sleep 0.3
    # A first small move stays on the port, so the drag starts there and not on the card.
    xdotool mousemove 813 480
    sleep 0.1
    xdotool mousemove 816 480
    sleep 0.1
    for i in $(seq 1 12); do
        xdotool mousemove $(( 816 + (769 - 816) * i / 12 )) $(( 480 + (259 - 480) * i / 12 ))
        sleep 0.05
    done
    shot 21-port-incompatible
    xdotool mouseup 1
    sleep 0.5
    stop_app
fi

if want commands; then
    # 50-53. The command registry: the command palette (Ctrl+K) searching commands, chains and
    # node types; quick-add (Tab) at the pointer on the canvas, and the keyboard going straight
    # into the chain's form; Help → Keyboard shortcuts (F1) listing the registry.
    start_app
    # The pointer off the palette: a row under it is highlighted beside the chosen one.
    xdotool mousemove 1300 850
    xdotool key ctrl+k
    sleep 0.5
    xdotool type --delay 120 "tri"
    shot 50-command-palette 2.0
    xdotool key Escape
    xdotool mousemove 700 420
    sleep 0.5
    xdotool key Tab
    sleep 0.5
    xdotool type --delay 120 "queue"
    shot 51-quick-add 2.0
    xdotool key Return
    sleep 1.5
    xdotool type --delay 120 "billing"
    shot 52-quick-add-form-by-keyboard 2.0
    xdotool key Return
    sleep 1.5
    xdotool key F1
    shot 53-keyboard-shortcuts 2.0
    stop_app
fi

if want quick-add; then
    # 54-56. On a two-node workflow: the palette ranks the command whose label is typed first
    # ("tidy"); with Start selected, quick-add (Tab) wires the chain after it, as a new branch
    # below Start → Done, and Done makes room.
    cat >"$SCRATCH/two.json" <<'JSON'
{"id": "two", "name": "Two nodes", "version": "1.0.0",
 "nodes": [{"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
           {"id": "done", "typeId": "core.end", "name": "Done", "position": {"x": 400, "y": 0}, "config": {}, "inputs": {}}],
 "edges": [{"id": "go", "sourceNodeId": "start", "targetNodeId": "done"}],
 "triggers": [], "variables": [], "metadata": {}, "settings": {}}
JSON
    start_app "$SCRATCH/two.json"
    xdotool key ctrl+k
    sleep 0.5
    xdotool type --delay 120 "tidy"
    shot 54-palette-tidy 1.5
    xdotool key Escape
    click 498 456
    quick_add_triage Tab 55-quick-add-after-node 56-inserted-after-node
    stop_app

    # 57-58. A back edge (Check → Retry, a loop under the cards) selected and
    # spliced with quick-add (Space): the chain takes Retry's place and the rest moves right,
    # so the edges out of the chain run forward into Retry.
    cat >"$SCRATCH/back.json" <<'JSON'
{"id": "back", "name": "Back edge", "version": "1.0.0",
 "nodes": [{"id": "t", "typeId": "core.noop", "name": "Retry", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
           {"id": "m", "typeId": "core.noop", "name": "Middle", "position": {"x": 320, "y": 0}, "config": {}, "inputs": {}},
           {"id": "s", "typeId": "core.noop", "name": "Check", "position": {"x": 640, "y": 0}, "config": {}, "inputs": {}}],
 "edges": [{"id": "back", "sourceNodeId": "s", "targetNodeId": "t"}],
 "triggers": [], "variables": [], "metadata": {}, "settings": {}}
JSON
    start_app "$SCRATCH/back.json"
    # The back edge where its loop runs under the gap between Retry and Middle.
    click 580 513
    quick_add_triage space 57-splice-back-edge-form 58-spliced-back-edge
    stop_app
fi

if want canvas; then
    # 59-66. The canvas as a newcomer reads it (issue 25, items 5-10), at whatever size this
    # screen is (its size ends each name): cards keep type and ports when zoomed out, Fit
    # shows a small workflow at 1:1 when it fits, labels of parallel edges stack apart, Tidy
    # after a splice into a chain keeps every edge running forward, the in-app dialog offers
    # to make a missing folder, arrow keys walk the selection, a drop onto a frame lands
    # beside it, and a 20,000-node workflow opens legible at its entry.
    SIZE=$(xdotool getdisplaygeometry | tr ' ' x)
    python3 - "$SCRATCH" <<'PY'
import json, sys
out = sys.argv[1]
def node(i, x, y, t="core.noop", name=None):
    return {"id": i, "typeId": t, "name": name or i, "position": {"x": x, "y": y}, "config": {}, "inputs": {}}
def doc(name, nodes, edges):
    return {"id": name.lower().replace(" ", "-"), "name": name, "version": "1.0.0", "nodes": nodes,
            "edges": edges, "triggers": [], "variables": [], "metadata": {}, "settings": {}}
def edge(i, a, b, **kw):
    return dict({"id": i, "sourceNodeId": a, "targetNodeId": b}, **kw)
five = [node(f"step{k}", k * 310, 0, "vendor.chainsmith.classify", f"Step {k}") for k in range(5)]
json.dump(doc("Five steps", five, [edge(f"e{k}", f"step{k}", f"step{k+1}") for k in range(4)]),
          open(f"{out}/five.json", "w"))
pair = [node("classify", 0, 0, "vendor.chainsmith.classify", "Classify"),
        node("notify", 310, 0, "vendor.chainsmith.http-request", "Notify")]
cond = lambda t, left: {"type": t, "left": left}
labels = [edge("urgent", "classify", "notify", sourceOutput="urgent", condition=cond("truthy", "output.urgent")),
          edge("calm", "classify", "notify", sourceOutput="label", condition=cond("falsy", "output.urgent")),
          edge("vip", "classify", "notify", sourceOutput="urgent", condition=cond("truthy", "output.vip"))]
json.dump(doc("Parallel edges", pair, labels), open(f"{out}/labels.json", "w"))
# 20,000 nodes as Tidy lays out long chains: 50 rows of 400.
big = [node(f"n{i}", (i % 400) * 310, (i // 400) * 136, "core.noop", f"Step {i}") for i in range(20000)]
big_edges = [edge(f"e{i}", f"n{i-1}", f"n{i}") for i in range(1, 20000) if i % 400]
json.dump(doc("Twenty thousand", big, big_edges), open(f"{out}/large-20000.json", "w"))
PY
    PACK=packs/vendor.chainsmith.support-desk
    "$BIN" inline --new "Spliced" "$PACK" --chain support.triage --set queueName=billing \
        --expansion-id t001 --at 0,0 -o "$SCRATCH/one.json" >/dev/null 2>&1
    ENTRY=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); e=[e for e in d["edges"] if e["sourceNodeId"].endswith("fetch")][0]; print(e["sourceNodeId"], e["targetNodeId"])' "$SCRATCH/one.json")
    # shellcheck disable=SC2086
    "$BIN" inline "$SCRATCH/one.json" "$PACK" --chain support.triage --set queueName=refunds \
        --expansion-id t002 --between $ENTRY --at 300,0 -o "$SCRATCH/spliced.json" >/dev/null 2>&1

    # 59-60. Five cards open fitted (at 1:1 when the canvas holds them, else at 75% round
    # the first card when whole they would be too small to read), type and port names shown
    # down to 50%; one step further out (under 50% they are left out).
    start_app "$SCRATCH/five.json"
    shot "59-fit-five-$SIZE"
    read -r CW CH < <(xdotool getdisplaygeometry)
    # The toolbar's "−" (one step out) sits right of Fit at the canvas's top left.
    click 357 38
    shot "60-cards-zoomed-out-$SIZE"
    # 61. Arrow keys: Right twice from the card nearest the middle of the view walks
    # downstream along the edges (the inspector names the node reached).
    xdotool key f
    sleep 0.5
    for _ in 1 2; do xdotool key Right; sleep 0.3; done
    shot "61-arrow-keys-$SIZE"
    stop_app

    # 62. Three conditional edges between the same two cards: labels stack clear of the text.
    start_app "$SCRATCH/labels.json"
    shot "62-parallel-labels-$SIZE"
    stop_app

    # 63. Triage spliced into the first edge of another Triage instance, then Tidy: the
    # spliced frame sits inside its host's and every edge runs left to right.
    start_app "$SCRATCH/spliced.json"
    xdotool key shift+alt+t
    shot "63-tidy-after-splice-$SIZE" 1.0
    # 64. Quick-add over the frame: the new instance lands beside it, not on top of it.
    xdotool key f
    sleep 0.5
    xdotool mousemove $((CW / 2)) $((CH / 2))
    quick_add_triage space "64a-drop-on-frame-form-$SIZE" "64-drop-on-frame-$SIZE"
    stop_app

    # 65. Saving into a folder that does not exist: the in-app dialog stays and offers it.
    export CHAINSMITH_FILE_DIALOG=in-app
    start_app "$SCRATCH/five.json"
    xdotool key ctrl+shift+s
    sleep 1
    type_text "new-folder/five.json"
    xdotool key Return
    shot "65-dialog-missing-folder-$SIZE"
    xdotool key Escape
    stop_app
    unset CHAINSMITH_FILE_DIALOG

    # 66. 20,000 nodes open at a legible zoom round the entry, the minimap showing the whole.
    start_app "$SCRATCH/large-20000.json"
    shot "66-large-opens-at-entry-$SIZE" 2.0
    stop_app
fi

if want newcomer; then
    # n01-n16, at any $SCREEN (names end with it): what a newcomer meets (issue 25). The
    # side panels take at most a share of the window, so coordinates scale with it.
    S=$SCREEN
    PAL=$(( SCREEN_W * 24 / 100 ))
    # The banner's first button: its text wraps to one line more in the narrower palette.
    if [ "$SCREEN_W" -ge 1400 ]; then FIX_Y=214; else FIX_Y=255; fi
    # Below 800 points high the banner starts folded to its title (at y 191): the first tile
    # sits higher, and the fix shows once the title is clicked.
    if [ "$SCREEN_H" -lt 800 ]; then FOLDED=1; TILE_Y=345; else FOLDED=0; TILE_Y=$(( FIX_Y + 190 )); fi
    cat >"$SCRATCH/loops.json" <<'JSON'
{"id": "loops", "name": "Loops", "version": "1.0.0",
 "nodes": [{"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {},
            "capabilities": ["side-effectful"]},
           {"id": "a-node-with-a-rather-long-identifier", "typeId": "core.noop", "name": "A node whose name is long enough to be cut in the inspector",
            "position": {"x": 360, "y": 0}, "config": {}, "inputs": {}},
           {"id": "done", "typeId": "core.end", "name": "Done", "position": {"x": 720, "y": 0}, "config": {}, "inputs": {}}],
 "edges": [{"id": "go", "sourceNodeId": "start", "targetNodeId": "a-node-with-a-rather-long-identifier"},
           {"id": "on", "sourceNodeId": "a-node-with-a-rather-long-identifier", "targetNodeId": "done"}],
 "triggers": [], "variables": [], "metadata": {}, "settings": {}}
JSON
    python3 - "$SCRATCH/loops.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
# Forty conditions without `left`: forty warnings for the findings list.
for i in range(40):
    doc["edges"].append({"id": f"self{i}", "sourceNodeId": "done", "targetNodeId": "done", "condition": {"type": "truthy"}})
json.dump(doc, open(sys.argv[1], "w"))
PY
    if [ -d "$CORPUS/registry/packs" ]; then
        # n01. The real registry and a workflow: the layout at this size, the banner that
        # counts blocked chains with its fixes.
        start_app "$CORPUS/registry/packs" "$SCRATCH/loops.json"
        xdotool key f
        shot "n01-registry-layout-$S" 1.5
        # n02. A click on a blocked tile (searched for) opens its explanation with its fixes.
        click $(( PAL / 2 )) 72
        xdotool type --delay 20 "webhook-notify"
        sleep 1
        click $(( PAL / 2 )) ${NEWCOMER_TILE_Y:-$TILE_Y}
        shot "n02-blocked-explained-$S" 1.0
        # n03. Esc closes it; the banner's first fix (declare feature.*) unblocks most chains.
        xdotool key Escape
        click $(( PAL / 2 )) 72
        xdotool key ctrl+a BackSpace
        sleep 0.5
        xdotool mousemove 600 400; sleep 0.5
        [ "$FOLDED" = 1 ] && press $(( PAL / 3 )) 191
        press $(( PAL / 3 )) ${NEWCOMER_FIX_Y:-$FIX_Y}
        shot "n03-banner-fix-applied-$S" 1.5
        stop_app
    fi
    # n04-n05. Counts in words; a click on the count lists the findings, the list's top edge
    # dragged up makes it taller (it scrolls).
    start_app "$SCRATCH/loops.json"
    xdotool key f
    sleep 1
    click $(( SCREEN_W - 340 )) $(( SCREEN_H - 12 ))
    shot "n04-findings-list-$S" 1.0
    LIST_TOP=$(( SCREEN_H - 26 - 220 ))
    drag $(( SCREEN_W / 2 )) $(( LIST_TOP + 2 )) $(( SCREEN_W / 2 )) $(( LIST_TOP - 160 ))
    xdotool mousemove $(( SCREEN_W / 2 )) $(( SCREEN_H - 100 ))
    for _ in $(seq 1 5); do xdotool click 5; sleep 0.1; done
    shot "n05-findings-list-resized-$S" 1.0
    click $(( SCREEN_W - 340 )) $(( SCREEN_H - 12 ))
    # n06. A card's marks explained on hover; the inspector's cut text whole on hover.
    xdotool key ctrl+a
    sleep 0.3
    xdotool key Escape
    xdotool key f
    sleep 1
    xdotool mousemove ${NEWCOMER_CARD_X:-$(( PAL + 60 ))} $(( SCREEN_H / 2 + 15 ))
    shot "n06-card-marks-tooltip-$S" 1.5
    stop_app
    # n07-n09. Quick-add marks blocked chains; the Triage form at this size, an invalid value
    # highlighted apart in the preview, then inserted without warnings.
    if [ -d "$CORPUS/registry/packs" ]; then
        start_app "$CORPUS/registry/packs" "$SCRATCH/loops.json"
    else
        start_app "$SCRATCH/loops.json"
    fi
    xdotool mousemove $(( SCREEN_W / 2 )) $(( SCREEN_H / 3 ))
    sleep 0.5
    xdotool key Tab
    sleep 0.5
    xdotool type --delay 80 "sign-off"
    shot "n07-quick-add-blocked-$S" 1.5
    xdotool key Escape
    sleep 0.5
    xdotool key Tab
    sleep 0.5
    xdotool type --delay 80 "triage queue"
    sleep 1
    xdotool key Return
    sleep 1.5
    xdotool type --delay 60 "Bad Queue"
    shot "n08-form-invalid-$S" 2.0
    xdotool key ctrl+a
    xdotool type --delay 60 "billing"
    # Tab walks the fields; the focused one is scrolled into view.
    for _ in $(seq 1 8); do xdotool key Tab; sleep 0.2; done
    shot "n09-form-tabbed-$S" 1.5
    stop_app
    # n10-n11. Keyboard shortcuts (F1) over Settings: Esc closes the top one first.
    start_app
    xdotool key F1
    sleep 1
    shot "n10-shortcuts-open-$S" 1.0
    xdotool key Escape
    shot "n11-after-esc-$S" 1.0
    stop_app
    # n12-n13. A status message belongs to its action: the refusal of a missing file, then
    # Select all and Copy replace it with their own result.
    start_app "$SCRATCH/loops.json" "$SCRATCH/gone.json"
    shot "n12-status-refusal-$S" 1.0
    xdotool mousemove $(( SCREEN_W / 2 )) $(( SCREEN_H / 3 ))
    xdotool key ctrl+a ctrl+c
    shot "n13-status-next-action-$S" 1.0
    # n14. Both side panels shut (Ctrl+B, Ctrl+Alt+B): the canvas takes the window, Fit.
    xdotool key Escape ctrl+b ctrl+alt+b
    sleep 0.5
    xdotool key f
    shot "n14-panels-shut-$S" 1.5
    stop_app
    # n15-n16. The pack view (from the command palette) on a copy of a bundled pack: one
    # column below 1100 points, three above; then "Generate key…" in the in-app dialog, which
    # lists .pem files and has "New folder". Its pack box and the opened pack (the fourth
    # entry, after the three bundled ones) sit where the window puts them at each size.
    # The pack view sits below the menu bar at the left, whatever the size.
    PV=(190 72 190 202 868 82)
    cp -r packs/vendor.chainsmith.support-desk "$SCRATCH/support-desk"
    export CHAINSMITH_FILE_DIALOG=in-app
    start_app "$SCRATCH/support-desk"
    palette "Pack view"
    sleep 1
    press "${PV[0]}" "${PV[1]}"
    press "${PV[2]}" "${PV[3]}"
    shot "n15-pack-view-$S" 1.0
    press "${PV[4]}" "${PV[5]}"
    shot "n16-generate-key-$S" 1.0
    xdotool key Escape
    stop_app
    unset CHAINSMITH_FILE_DIALOG
fi

if want registry-url && [ -d "$CORPUS/registry/packs" ]; then
    # u01-u03, at any $SCREEN (names end with it): the Registry window browsing a registry by
    # URL (issue 38 item 4). The corpus registry (every corpus pack, unsigned, written by
    # tests/tools/make_registry.py) plus the bundled sample published and signed, served by
    # `chainsmith serve`; File › Registry… by the command palette; the URL typed and opened:
    # listing in the background (progress, Cancel), listed, then the sample opened into the
    # palette after its fetch and verification.
    S=$SCREEN
    python3 tests/tools/make_registry.py --corpus "$CORPUS/registry/packs" "$SCRATCH/ureg"
    "$BIN" keygen "$SCRATCH/ukey" >/dev/null
    mkdir -p "$SCRATCH/usample"
    # Signed into the v2 tree, whose typeIds are pinned.
    python3 - packs/vendor.chainsmith.support-desk/pack.json "$SCRATCH/usample/pack.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for chain in m["chains"]:
    for node in chain["dag"]["nodes"]:
        node["typeId"] += "@1.0.0"
json.dump(m, open(sys.argv[2], "w"), indent=2)
PY
    "$BIN" pack publish "$SCRATCH/usample" --registry "$SCRATCH/ureg" --key "$SCRATCH/ukey.private.pem" \
        --key-id sample-key >/dev/null 2>&1
    "$BIN" serve "$SCRATCH/ureg" --addr 127.0.0.1:0 >"$SCRATCH/serve.out" 2>/dev/null &
    SERVE=$!
    for _ in $(seq 1 40); do [ -s "$SCRATCH/serve.out" ] && break; sleep 0.25; done
    URL=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["url"])' "$SCRATCH/serve.out")
    start_app
    palette "Registry" 80
    sleep 1
    # The window is centred, 900x560 at most: its URL field is on its third row.
    WX=$(( (SCREEN_W - 900) / 2 )); [ "$WX" -lt 0 ] && WX=0
    WY=$(( (SCREEN_H - 560) / 2 )); [ "$WY" -lt 0 ] && WY=0
    click $(( WX + 250 )) $(( WY + 76 ))
    xdotool type --delay 20 "$URL"
    xdotool key Return
    shot "u01-registry-url-listing-$S" 0.3
    sleep 4
    xdotool mousemove $(( SCREEN_W - 20 )) $(( SCREEN_H - 20 ))
    shot "u02-registry-url-listed-$S" 1.0
    click $(( WX + 200 )) $(( WY + 135 ))
    type_text "chainsmith.support"
    sleep 0.8
    # Open on the one row left: fetched, verified, and its chains in the palette.
    press $(( WX + 868 )) $(( WY + 245 ))
    xdotool mousemove $(( SCREEN_W - 20 )) $(( SCREEN_H - 20 ))
    shot "u03-registry-url-opened-$S" 1.5
    stop_app
    kill "$SERVE" 2>/dev/null || true
fi

if want upgrade; then
    # u01-u02, at any $SCREEN (names end with it): a Triage queue instance at 1.0.0 whose
    # Classify threshold was set by hand, with support-desk 1.1.0 open (issue 36): the
    # frame's update badge, then "Review update…" (old and new expansion side by side).
    S=$SCREEN
    CLI=$(dirname "$BIN")/chainsmith
    [ -x "$CLI" ] || cargo build --quiet --bin chainsmith
    python3 - "$SCRATCH" <<'PY'
import json, os, sys
out = sys.argv[1]
m = json.load(open("packs/vendor.chainsmith.support-desk/pack.json"))
m["version"] = "1.1.0"
chain = next(c for c in m["chains"] if c["chainId"] == "support.triage")
chain["version"] = "1.1.0"
dag = chain["dag"]
dag["nodes"][0]["config"]["timeoutMs"] = 30000
dag["nodes"] = [n for n in dag["nodes"] if n["id"] != "page"]
dag["nodes"].append({"id": "audit", "typeId": "vendor.chainsmith.sheet-append", "name": "Audit",
                     "position": {"x": 930, "y": 170}, "config": {"sheet": "audit", "columns": ["id"]}, "inputs": {}})
dag["edges"] = [e for e in dag["edges"] if e["to"] != "page.payload"] + [{"from": "log.done", "to": "audit.row"}]
os.makedirs(f"{out}/support-desk-1.1.0", exist_ok=True)
json.dump(m, open(f"{out}/support-desk-1.1.0/pack.json", "w"), indent=2)
json.dump({"id": "p", "name": "Support", "version": "1.0.0", "nodes": [], "edges": []}, open(f"{out}/up-parent.json", "w"))
PY
    "$CLI" inline "$SCRATCH/up-parent.json" packs/vendor.chainsmith.support-desk --chain support.triage \
        --set queueName=billing --expansion-id t001 -o "$SCRATCH/up.json" >/dev/null
    python3 - "$SCRATCH/up.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
next(n for n in doc["nodes"] if n["id"].endswith("_classify"))["config"]["threshold"] = 0.9
json.dump(doc, open(sys.argv[1], "w"), indent=2)
PY
    start_app "$SCRATCH/support-desk-1.1.0" "$SCRATCH/up.json"
    xdotool key f
    shot "u01-update-badge-$S" 1.5
    # A click in the fitted frame selects the instance; the command palette opens the review.
    PAL=$(( SCREEN_W * 24 / 100 ))
    click $(( (PAL + SCREEN_W * 77 / 100) / 2 )) $(( SCREEN_H / 2 ))
    palette "Review update" 40
    shot "u02-review-update-$S" 2.5
    stop_app
fi

if want shell; then
    # s01-s15, at any $SCREEN (names end with it): the editor's shell as a newcomer works in
    # it (issue 37). No desktop portal under Xvfb: every file question is the in-app dialog.
    S=$SCREEN
    export CHAINSMITH_FILE_DIALOG=in-app
    # Windows placed from the window's middle: the Registry window (900x560) and the in-app
    # file dialog (640x440).
    CX=$(( SCREEN_W / 2 )); CY=$(( SCREEN_H / 2 ))
    RX=$(( CX - 450 )); RY=$(( CY - 280 ))
    # Type a folder into the in-app folder picker (its folder field has the focus).
    dialog_folder() {
        sleep 1
        type_text "$1"
        xdotool key Return
        sleep 0.5
    }
    if [ -d "$CORPUS/registry/packs" ]; then
        # s01. The File menu: what each open command expects, the two exports by their use.
        start_app
        click 20 12
        shot "s01-file-menu-$S" 1.0
        # s02-s03. File › Registry…, then its folder picker: it starts in the home folder and
        # says what a registry folder has.
        xdotool key Escape
        palette "Registry"
        shot "s02-registry-window-$S" 1.0
        press $(( RX + 230 )) $(( RY + 51 ))
        shot "s03-registry-picker-at-home-$S" 1.0
        # s04. The real registry folder chosen: it holds packs, so they open as a pack folder
        # and the status says so; at 1000x700 the blocked-chains banner starts folded.
        dialog_folder "$CORPUS/registry"
        # "Choose this folder": the dialog's height settles a frame late, by up to 18 points.
        press $(( CX + 187 )) $(( CY + 175 ))
        sleep 4
        shot "s04-registry-opened-as-pack-folder-$S" 1.5
        stop_app
    fi
    # s05-s07. The pack view stays between the menu bar and the status bar and shows what
    # its buttons did: a new key pair, then the public key picked to sign with by mistake.
    mkdir -p "$SCRATCH/acme"
    cat >"$SCRATCH/acme/pack.json" <<'JSON'
{"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain", "engines": {"openwop": ">=1.0.0"},
 "dependencies": {"vendor.chainsmith.nodes": "^1.0.0"},
 "chains": [{"chainId": "acme.classify", "version": "1.0.0", "label": "Classify a ticket", "description": "One classifier.",
             "parameters": {"type": "object"},
             "dag": {"nodes": [{"id": "a", "typeId": "vendor.chainsmith.classify", "config": {}}], "edges": []}},
            {"chainId": "acme.composes", "version": "1.0.0", "label": "Composes", "description": "A sub-chain.",
             "parameters": {"type": "object"}, "subChains": [{"ref": "acme.classify"}],
             "dag": {"nodes": [{"id": "a", "typeId": "core.subWorkflow", "config": {"subChainRef": "acme.classify"}}], "edges": []}}]}
JSON
    start_app "$SCRATCH/acme"
    palette "Pack view"
    sleep 1
    # Its pack box, then the opened pack (after the three bundled chain packs).
    press 190 72
    press 190 202
    shot "s05-pack-view-between-bars-$S" 1.0
    press 868 82
    type_text signer
    xdotool key Return
    shot "s06-pack-view-key-generated-$S" 1.0
    press 778 82
    type_text signer.public.pem
    xdotool key Return
    shot "s07-pack-view-public-key-picked-$S" 1.0
    # s08. The blocked tile's explanation (a click on its code), and once its fix is applied,
    # "Insert now".
    xdotool key Escape
    sleep 0.5
    click $(( SCREEN_W * 12 / 100 )) 72
    xdotool type --delay 40 "Composes"
    sleep 1
    press 100 330
    shot "s08-why-blocked-$S" 1.0
    # Its fix, in the window (which sits beside the palette): retitled, with "Insert now".
    PALW=$(( SCREEN_W * 24 / 100 )); [ "$PALW" -gt 290 ] && PALW=290
    press $(( PALW + 75 )) 182
    shot "s08b-why-insert-now-$S" 1.0
    stop_app
    # s09-s10. "Save changes?" takes the keyboard: the arrows leave the selection behind it
    # as it was, Esc cancels it.
    cat >"$SCRATCH/two.json" <<'JSON'
{"id": "two", "name": "Two nodes", "version": "1.0.0",
 "nodes": [{"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
           {"id": "finish", "typeId": "core.end", "name": "Finish", "position": {"x": 600, "y": 0}, "config": {}, "inputs": {}}],
 "edges": [{"id": "go", "sourceNodeId": "start", "targetNodeId": "finish"}],
 "triggers": [], "variables": [], "metadata": {}, "settings": {}}
JSON
    start_app "$SCRATCH/two.json"
    xdotool mousemove $(( CX )) $(( CY + 120 ))
    xdotool key ctrl+a ctrl+d
    sleep 0.5
    xdotool key ctrl+n
    sleep 0.5
    xdotool key Right Down Left Up
    shot "s09-save-changes-$S" 1.0
    xdotool key Escape
    shot "s10-save-changes-esc-$S" 1.0
    # s11. Help: the version, the documentation, where settings and the recovery file live.
    xdotool key F1
    shot "s11-help-$S" 1.0
    xdotool key Escape
    # s12. Save as, New folder: its name field has the focus, typing goes there.
    xdotool key ctrl+shift+s
    sleep 1
    press $(( CX - 180 )) $(( CY + 175 ))
    xdotool type --delay 40 "drafts"
    shot "s12-new-folder-focused-$S" 1.0
    # The first Esc leaves the name field, the second closes the dialog.
    xdotool key Escape
    sleep 0.3
    xdotool key Escape
    # s13. A search that matches nothing: no empty group headers, a line that says what to do.
    click $(( SCREEN_W * 12 / 100 )) 72
    xdotool type --delay 40 "no-such-tile"
    shot "s13-search-matches-nothing-$S" 1.0
    stop_app
    # s14. An error: its dismiss button before its text, the counts whole beside it.
    start_app "$SCRATCH/two.json" "$SCRATCH/a-workflow-file-with-a-long-name-that-is-gone.json"
    shot "s14-error-dismiss-$S" 1.0
    stop_app
    # s15. One problems count: an export's own warning is part of its message; the count at
    # the right is the workflow's. (A condition without `left`: one warning.)
    sed 's/"targetNodeId": "finish"}/"targetNodeId": "finish", "condition": {"type": "truthy"}}/' \
        "$SCRATCH/two.json" >"$SCRATCH/warn.json"
    start_app "$SCRATCH/warn.json"
    click 20 12
    click 150 262
    sleep 1
    xdotool key Return
    shot "s15-export-warning-in-its-message-$S" 1.5
    stop_app
    unset CHAINSMITH_FILE_DIALOG
fi

if want forms; then
    # f01-f04, at 1000x700 or 1600x1000 (names end with the size; coordinates are where
    # the editor puts these widgets at these two sizes): issue 37 items 6, 10, 11.
    S=$SCREEN
    if [ "$SCREEN_W" -ge 1400 ]; then BIG=1; else BIG=0; fi
    cat >"$SCRATCH/feeds.json" <<'JSON'
{"id": "feeds", "name": "Feeds", "version": "1.0.0",
 "nodes": [
  {"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
  {"id": "support_triage_d869_fetch", "typeId": "vendor.chainsmith.http-request", "name": "Fetch feed", "position": {"x": 320, "y": 0},
   "config": {"url": "https://feeds.example.test/a/rather/long/path/to/the/feed.xml?with=query&and=more", "retries": 3,
              "headers": {"X-Feed-Authorization-Token": "a-long-token-value-for-the-feed-server"}}, "inputs": {}},
  {"id": "support_triage_d869_log", "typeId": "vendor.chainsmith.sheet-append", "name": "Append rows", "position": {"x": 640, "y": 0},
   "config": {"sheet": "The quarterly log sheet of every feed we read"}, "inputs": {}}],
 "edges": [{"id": "e1", "sourceNodeId": "start", "targetNodeId": "support_triage_d869_fetch"},
           {"id": "e2", "sourceNodeId": "support_triage_d869_fetch", "targetNodeId": "support_triage_d869_log"}],
 "triggers": [], "variables": [], "metadata": {}, "settings": {}}
JSON
    # f01. Extract as chain on the two nodes with long ids, every value ticked: the values
    # table and the preview side by side, nothing drawn over anything.
    start_app "$SCRATCH/feeds.json"
    xdotool key ctrl+a
    sleep 0.5
    palette "Extract as chain"
    sleep 1.5
    for y in 300 359 418 477; do press 32 "$y"; done
    xdotool mousemove $(( SCREEN_W - 20 )) $(( SCREEN_H - 60 ))
    shot "f01-extract-dialog-$S" 1.5
    stop_app
    # f02. A tile whose insert would be warned: its badge, and the reason in its tooltip.
    mkdir -p "$SCRATCH/tiles"
    cat >"$SCRATCH/tiles/pack.json" <<'JSON'
{"name": "vendor.acme.tiles", "version": "1.0.0", "kind": "workflow-chain", "engines": {"openwop": ">=1.0.0"},
 "dependencies": {"vendor.chainsmith.nodes": "^1.0.0"},
 "chains": [{"chainId": "acme.dispatch", "version": "1.0.0", "label": "Dispatch all", "description": "Fan the work out.",
   "parameters": {"type": "object"},
   "dag": {"nodes": [{"id": "d", "typeId": "core.dispatch", "config": {"fanOutPolicy": "parallel"}}], "edges": []}}]}
JSON
    start_app "$SCRATCH/tiles"
    if [ "$BIG" = 1 ]; then TILE_Y=260; else TILE_Y=288; fi
    xdotool mousemove 160 "$TILE_Y"
    shot "f02-tile-predicted-warning-$S" 2.0
    stop_app
    # f03-f04. Messages by titles: a wire that closes a loop, then the findings list.
    cat >"$SCRATCH/loop.json" <<'JSON'
{"id": "w", "name": "W", "version": "1.0.0",
 "nodes": [
  {"id": "support_triage_d869_decide", "typeId": "core.noop", "name": "Decision", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
  {"id": "support_triage_d869_queue", "typeId": "core.noop", "name": "Fetch queue", "position": {"x": 600, "y": 0}, "config": {}, "inputs": {}}],
 "edges": [{"id": "e1", "sourceNodeId": "support_triage_d869_queue", "targetNodeId": "support_triage_d869_decide",
            "condition": {"type": "truthy"}}],
 "triggers": [], "variables": [], "metadata": {}, "settings": {}}
JSON
    start_app "$SCRATCH/loop.json"
    xdotool key f
    sleep 1
    # Decision's output port, Fetch queue's input port, the "1 warning" count (as fitted).
    if [ "$BIG" = 1 ]; then PORT=(601 514 958 514 1267 987); else PORT=(399 363 581 363 667 687); fi
    drag "${PORT[0]}" "${PORT[1]}" "${PORT[2]}" "${PORT[3]}"
    xdotool mousemove $(( SCREEN_W / 2 )) $(( SCREEN_H - 200 ))
    shot "f03-loop-message-$S" 1.0
    click "${PORT[4]}" "${PORT[5]}"
    shot "f04-findings-by-title-$S" 1.0
fi

if want words; then
    # w01-w02, at 1000x700 or 1600x1000 (names end with the size; coordinates are where the
    # editor puts these widgets at these two sizes): refusals in the user's words (issue 37
    # item 11), the message first and its code after it.
    S=$SCREEN
    if [ "$SCREEN_W" -ge 1400 ]; then BIG=1; else BIG=0; fi
    # w01. The pack view: Sign… on a new pack that has no file yet.
    start_app
    focus
    xdotool key ctrl+k
    sleep 0.5
    xdotool type --delay 60 "Pack view"
    sleep 0.5
    xdotool key Return
    sleep 1.5
    # New pack, then Sign… (the toolbar sits at the same place at both sizes).
    press 371 82
    press 776 82
    xdotool mousemove $(( SCREEN_W / 2 )) $(( SCREEN_H - 40 ))
    shot "w01-pack-view-sign-unsaved-$S" 1.0
    stop_app
    # w02. Publish the workflow as a tool with a tool id that has no scope and the tier
    # lowered to read: the inline error and the findings, message first.
    cat >"$SCRATCH/feeds.json" <<'JSON'
{"id": "feeds", "name": "Feeds", "version": "1.0.0",
 "nodes": [
  {"id": "start", "typeId": "core.start", "name": "Start", "position": {"x": 0, "y": 0}, "config": {}, "inputs": {}},
  {"id": "support_triage_d869_fetch", "typeId": "vendor.chainsmith.http-request", "name": "Fetch feed", "position": {"x": 320, "y": 0},
   "config": {"url": "https://feeds.example.test/feed.xml"}, "inputs": {}},
  {"id": "support_triage_d869_log", "typeId": "vendor.chainsmith.sheet-append", "name": "Append rows", "position": {"x": 640, "y": 0},
   "config": {"sheet": "Log"}, "inputs": {}}],
 "edges": [{"id": "e1", "sourceNodeId": "start", "targetNodeId": "support_triage_d869_fetch"},
           {"id": "e2", "sourceNodeId": "support_triage_d869_fetch", "targetNodeId": "support_triage_d869_log"}],
 "triggers": [], "variables": [], "metadata": {}, "settings": {}}
JSON
    start_app "$SCRATCH/feeds.json"
    focus
    xdotool key ctrl+k
    sleep 0.5
    xdotool type --delay 60 "Publish workflow"
    sleep 0.5
    xdotool key Return
    sleep 1.5
    # The Tool id field, then a tool id without its scope.
    if [ "$BIG" = 1 ]; then press 547 232; else press 265 82; fi
    type_text "triage"
    sleep 0.5
    xdotool mousemove $(( SCREEN_W / 2 )) $(( SCREEN_H - 10 ))
    shot "w02-publish-refusal-$S" 1.0
    stop_app
fi

if want zoom && [ -d "$CORPUS/registry/packs" ]; then
    # z1-z6, at any $SCREEN (names end with it): real corpus chains after Fit and after Tidy
    # (issue 37, items 3 and 4). Titles keep a readable size zoomed out, Fit stops at 40% on
    # the entry (again: everything), and no wire runs through a card it does not join.
    SIZE=$(xdotool getdisplaygeometry | tr ' ' x)
    read -r CW CH < <(xdotool getdisplaygeometry)
    REG=$CORPUS/registry/packs
    # The pointer rests on empty canvas (bottom left), where it shows no tooltip.
    away() { xdotool mousemove $((CW * 27 / 100)) $((CH * 85 / 100)); sleep 0.3; }
    "$BIN" inline --new "Inbox triage" "$REG/core.openwop.workflows.inbox" --chain inbox.triage \
        --set emailText=hello --set replyToAddress=a@b.test --expansion-id z001 --at 0,0 \
        -o "$SCRATCH/inbox.json" >/dev/null 2>&1
    "$BIN" inline --new "App builder" "$REG/vendor.openwop.app-builder.workflows" --chain app-builder.design \
        --set idea=notes --expansion-id z002 --at 0,0 -o "$SCRATCH/app-builder.json" >/dev/null 2>&1
    # z1. Inbox triage as the chain places it, after Fit: "Needs a reply?" → "Triage note"
    # bends round the two cards between them instead of running under them.
    start_app "$SCRATCH/inbox.json"
    away
    xdotool key f
    shot "z1-inbox-fit-$SIZE"
    # z2. After Tidy (which fits again).
    xdotool key shift+alt+t
    shot "z2-inbox-tidy-$SIZE" 1.0
    stop_app
    # z3. Ten cards: Fit stops at 40% on the entry, the minimap showing the rest.
    start_app "$SCRATCH/app-builder.json"
    away
    xdotool key f
    shot "z3-app-builder-fit-$SIZE"
    # z4. Fit again: every card, the titles kept at a readable size on screen.
    xdotool key f
    shot "z4-app-builder-fit-again-$SIZE"
    # z5. Tidy (it fits: 40% on the entry at 1000x700): no wire through a card.
    xdotool key shift+alt+t
    shot "z5-app-builder-tidy-$SIZE" 1.0
    # z6. Fit again: the whole chain as Tidy laid it out.
    xdotool key f
    shot "z6-app-builder-tidy-whole-$SIZE" 1.0
    stop_app
    # z7. Seven steps out from Fit (15% at 1000x700, 17% at 1600x1000) with the toolbar's −
    # (a step of 1.15 each; wheel notches reaching a busy editor in one frame count as one):
    # each card keeps its title alone, cut to its width, and the frame its title (issue 37,
    # item 3).
    case $SIZE in
        1000x700) MINUS=(307 38) ;;
        1600x1000) MINUS=(357 38) ;;
        *) MINUS=() ;;
    esac
    if [ ${#MINUS[@]} -eq 2 ]; then
        start_app "$SCRATCH/app-builder.json"
        focus
        away
        xdotool key f
        for _ in $(seq 1 7); do click "${MINUS[@]}"; done
        away
        shot "z7-app-builder-zoomed-out-$SIZE" 1.0
        stop_app
    fi
    # z8-z10. Decision → Fetch queue after Fit (z8); Fetch queue dragged up level with
    # Decision, held (z9): the wire bends round Summarize while the drag goes on, where it
    # ran straight through it until the drop (issue 37, item 4); dropped (z10).
    node() { printf '{"id":"%s","typeId":"core.noop","name":"%s","position":{"x":%s,"y":%s},"config":{},"inputs":{}}' "$@"; }
    printf '{"id":"drag","name":"Drag","version":"1","nodes":[%s,%s,%s],"edges":[%s]}' \
        "$(node decision Decision 0 0)" "$(node summarize Summarize 400 0)" "$(node fetch "Fetch queue" 800 400)" \
        '{"id":"e1","sourceNodeId":"decision","targetNodeId":"fetch"}' >"$SCRATCH/drag.json"
    start_app "$SCRATCH/drag.json"
    focus
    away
    xdotool key f
    shot "z8-drag-before-$SIZE" 1.0
    # Fetch queue's title bar, and Decision's height (Fit: 45% at 1000x700, 88% at 1600x1000).
    case $SIZE in
        1000x700) GRAB=(668 442 668 262) ;;
        1600x1000) GRAB=(1129 658 1129 306) ;;
        *) GRAB=() ;;
    esac
    if [ ${#GRAB[@]} -eq 4 ]; then
        drag "${GRAB[@]}" hold
        shot "z9-mid-drag-$SIZE" 0.8
        xdotool mouseup 1
        away
        shot "z10-dropped-$SIZE" 1.0
    fi
    stop_app
fi

if want large && [ -z "${CHAINSMITH_BIN:-}" ]; then
    # 14-15. A large workflow: everything in view, then zoomed in around the pointer.
    target/release/examples/frame_time --write "$SCRATCH/large.json" 5000
    start_app "$SCRATCH/large.json"
    shot 14-large-5000 1.5
    xdotool mousemove 760 460
    for _ in $(seq 1 9); do xdotool keydown ctrl click 4 keyup ctrl; sleep 0.05; done
    shot 15-large-zoomed
    stop_app
fi

echo "cold start (window, release): $(grep -h 'first frame' "$SCRATCH/app.log" | head -1)"

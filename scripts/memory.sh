#!/usr/bin/env bash
# Whole-process peak memory of the memory-bound commands (issue 24, item 16), each next to
# floors measured on exactly the same bytes: the program doing nothing (`--version`, a
# one-node extract), Python's `json.load` and Node's `JSON.parse` of the input, and for
# `verify` the reference client's install recipe (tests/tools/openwop_verify.mjs, on Node)
# checking the very version chainsmith verifies.
#
# usage: scripts/memory.sh [OUT] [NODES...]     (default OUT /tmp/cs-memory, NODES 2000 8000)
# env:   RUNS (default 5; the median is printed), BIN (default: builds target/release/chainsmith)
# needs: /usr/bin/time, python3; node is optional (its columns read "-" without it).
#
# "peak" is /usr/bin/time's maximum resident set size (KiB; MB here = 10^6 bytes) and the
# ratio is peak over the bytes the command reads. For `verify` that is the version manifest
# and the tarball; Python and Node parse the manifest, the JSON part of it. Inputs come from scripts/big-inputs.py.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/cs-memory}
shift || true
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(2000 8000); fi
runs=${RUNS:-5}
if [ -z "${BIN:-}" ]; then
    (cd "$root" && cargo build --release --bin chainsmith >&2)
    BIN=$root/target/release/chainsmith
fi
command -v node >/dev/null && have_node=1 || have_node=0
mkdir -p "$out"

# Median peak (KiB) of $runs runs of the command; `setup` runs before each.
peak_after() {
    local setup=$1 all=()
    shift
    for _ in $(seq "$runs"); do
        eval "$setup"
        /usr/bin/time -o "$out/time" -f %M "$@" >/dev/null 2>"$out/err" || {
            echo "failed: $* (see $out/err)" >&2
            exit 1
        }
        all+=("$(tail -n1 "$out/time")")
    done
    printf '%s\n' "${all[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}
peak() { peak_after : "$@"; }
mb() { python3 -c "print(f'{$1 * 1024 / 1e6:.1f}')"; }
mb_of_bytes() { python3 -c "print(f'{$1 / 1e6:.2f}')"; }
ratio() { python3 -c "print(f'{$1 * 1024 / $2:.1f}')"; }
row() { # what, input bytes, chainsmith KiB, python KiB, node KiB, reference KiB
    local cells="| $1 | $(mb_of_bytes "$2") MB | $(mb "$3") MB ($(ratio "$3" "$2")×)"
    for k in "$4" "$5" "$6"; do
        if [ "$k" = - ]; then cells+=" | -"; else cells+=" | $(mb "$k") MB ($(ratio "$k" "$2")×)"; fi
    done
    echo "$cells |"
}
py_load() { peak python3 -c 'import json, sys; json.load(open(sys.argv[1], "rb"))' "$1"; }
node_parse() {
    if [ $have_node = 1 ]; then peak node -e 'JSON.parse(require("fs").readFileSync(process.argv[1]))' "$1"; else echo -; fi
}

echo '{"id":"one","name":"One","version":"1.0.0","nodes":[{"id":"a","typeId":"core.noop","name":"A"}],"edges":[]}' >"$out/one.json"
[ -f "$out/key.private.pem" ] || "$BIN" keygen "$out/key" >/dev/null
echo "chainsmith: $BIN ($("$BIN" --version)); $runs runs each, median"
echo
echo "| floor | peak |"
echo "|---|---:|"
echo "| \`chainsmith --version\` | $(mb "$(peak "$BIN" --version)") MB |"
one=$(peak_after "rm -rf '$out/p1'" "$BIN" chain extract "$out/one.json" --pack "$out/p1" --pack-name vendor.one.x --chain-id one.x --label X)
echo "| \`chainsmith chain extract\` of one node | $(mb "$one") MB |"
echo "| \`python3 -c pass\` | $(mb "$(peak python3 -c pass)") MB |"
[ $have_node = 1 ] && echo "| \`node -e ''\` | $(mb "$(peak node -e '')") MB |"
echo
echo "| command | input | chainsmith | Python json.load of the input | Node JSON.parse of the input | reference recipe (Node) |"
echo "|---|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
    dir=$out/n$n
    [ -f "$dir/wf.json" ] || python3 "$root/scripts/big-inputs.py" "$dir" "$n" >/dev/null
    mapfile -t params <"$dir/params.txt"
    wf=$(stat -c %s "$dir/wf.json")
    x=$(peak_after "rm -rf '$dir/x'" "$BIN" chain extract "$dir/wf.json" --pack "$dir/x" --pack-name vendor.big.x \
        --chain-id big.x --label X "${params[@]}")
    py=$(py_load "$dir/wf.json")
    nd=$(node_parse "$dir/wf.json")
    row "\`chain extract\`, $n nodes" "$wf" "$x" "$py" "$nd" -

    manifest=$(stat -c %s "$dir/pack/pack.json")
    if [ "$manifest" -gt 16777216 ]; then
        echo "| \`pack sign\`, \`pack publish\`, \`verify\`, $n nodes | $(mb_of_bytes "$manifest") MB | refused: pack.json is over the 16 MiB limit | | | |"
        continue
    fi
    s=$(peak_after "rm -rf '$dir/s'; cp -r '$dir/pack' '$dir/s'" "$BIN" pack sign --key "$out/key.private.pem" --key-id test-key "$dir/s")
    p=$(peak_after "rm -rf '$dir/reg' '$dir/s'; cp -r '$dir/pack' '$dir/s'" "$BIN" pack publish --registry "$dir/reg" \
        --key "$out/key.private.pem" --key-id test-key "$dir/s")
    py=$(py_load "$dir/pack/pack.json")
    nd=$(node_parse "$dir/pack/pack.json")
    row "\`pack sign --key-id\`, $n nodes" "$manifest" "$s" "$py" "$nd" -
    row "\`pack publish --key --key-id\`, $n nodes" "$manifest" "$p" "$py" "$nd" -

    # The last publish above left its registry in place: verify what it wrote.
    version=$dir/reg/v2/packs/vendor.bigmem.pack/-/1.0.0
    read_bytes=$(($(stat -c %s "$version.json") + $(stat -c %s "$version.tgz")))
    v=$(peak "$BIN" verify --registry "$dir/reg" vendor.bigmem.pack@1.0.0)
    ref=-
    [ $have_node = 1 ] && ref=$(peak node "$root/tests/tools/openwop_verify.mjs" "$dir/reg" vendor.bigmem.pack@1.0.0)
    py=$(py_load "$version.json")
    nd=$(node_parse "$version.json")
    row "\`verify\`, $n nodes" "$read_bytes" "$v" "$py" "$nd" "$ref"
done

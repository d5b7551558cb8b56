#!/usr/bin/env python3
"""Issue 36 item 7: `diff` of two versions of an N-node chain, and `upgrade` of an N-node
instance that carries hand edits, whole process, median of RUNS, with peak memory.

usage: python3 scripts/instance-bench.py PATH/TO/chainsmith [NODES] [RUNS]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

B = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
root = tempfile.mkdtemp()


def pack(version, extra):
    nodes = [{"id": f"n{i}", "typeId": "vendor.me.step", "config": {"value": "{{params.text}}", "i": i, **extra}}
             for i in range(N)]
    edges = [{"from": f"n{i}", "to": f"n{i + 1}"} for i in range(N - 1)]
    chain = {"chainId": "big.chain", "version": version, "label": "Big", "description": "A long chain.",
             "parameters": {"type": "object", "properties": {"text": {"type": "string", "default": "hi"}}},
             "dag": {"nodes": nodes, "edges": edges}}
    d = os.path.join(root, version)
    os.makedirs(d)
    with open(os.path.join(d, "pack.json"), "w") as f:
        json.dump({"name": "vendor.me.big", "version": version, "kind": "workflow-chain", "description": "Big.",
                   "license": "MIT", "engines": {"openwop": ">=1.0.0 <2.0.0"}, "chains": [chain]}, f)
    return os.path.join(d, "pack.json")


def timed(args):
    """Wall seconds and peak resident MB (10^6 bytes) of one whole process."""
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", B, *args], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"{args[0]} failed: {p.stderr[-2000:]}")
    return wall, int(p.stderr.strip().splitlines()[-1]) * 1024 / 1e6


old, new = pack("1.0.0", {}), pack("1.1.0", {"retries": 1})
wf = os.path.join(root, "wf.json")
subprocess.run([B, "inline", "--new", "Big", old, "--chain", "big.chain", "--expansion-id", "b001", "-o", wf],
               check=True, capture_output=True)
with open(wf) as f:
    doc = json.load(f)
for n in doc["nodes"][::10]:  # a hand edit on every tenth node
    n["config"]["i"] = -n["config"]["i"]
with open(wf, "w") as f:
    json.dump(doc, f)
packs = sum(os.path.getsize(p) for p in (old, new))
out = os.path.join(root, "out.json")
# What each command reads: the two packs, and for upgrade the workflow too.
for label, args, read in [("diff", ["diff", old, new, "--json"], packs),
                          ("upgrade", ["upgrade", wf, "--pack", old, "--pack", new, "--all", "-o", out, "--json"],
                           packs + os.path.getsize(wf))]:
    runs = [timed(args) for _ in range(RUNS)]
    peak = max(r[1] for r in runs)
    print(f"{label} {N} nodes: median {statistics.median(r[0] for r in runs):.2f} s, "
          f"peak {peak:.0f} MB, {peak / (read / 1e6):.1f}x the {read / 1e6:.1f} MB it reads")
with open(out) as f:
    kept = sum(1 for n in json.load(f)["nodes"][::10] if n["config"]["i"] <= 0)
print(f"hand edits kept after upgrade: {kept} of {len(doc['nodes'][::10])}")

#!/usr/bin/env python3
"""Placement of a dropped chain (docs/limits.md): `chainsmith inline --at 0,0` of a chain of K
nodes all at (0, 0) onto a workflow of K unconnected nodes stacked in one column, whole
process, median wall time of RUNS for each K.

usage: python3 scripts/placement-bench.py PATH/TO/chainsmith [RUNS] [K...]
       (defaults: 3 runs; K = 2500 5000 10000 20000)
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
SIZES = [int(k) for k in sys.argv[3:]] or [2500, 5000, 10000, 20000]
root = tempfile.mkdtemp(prefix="placement-bench-")


def inputs(k):
    """The column workflow and the chain pack for K; returns their paths."""
    wf = {"id": "col", "name": "Column", "version": "1.0.0", "triggers": [], "variables": [],
          "metadata": {}, "settings": {}, "edges": [],
          "nodes": [{"id": f"p{j}", "typeId": "core.noop", "name": f"P{j}", "position": {"x": 0, "y": 136 * j}}
                    for j in range(k)]}
    nodes = [{"id": f"c{i}", "typeId": "core.noop", "position": {"x": 0, "y": 0}} for i in range(k)]
    edges = [{"from": f"c{i - 1}", "to": f"c{i}"} for i in range(1, k)]
    pack = {"name": "vendor.place.chain", "version": "1.0.0", "kind": "workflow-chain", "engines": {"openwop": "*"},
            "chains": [{"chainId": "place.chain", "version": "1.0.0", "label": "P", "description": "d",
                        "parameters": {"type": "object", "properties": {}}, "dag": {"nodes": nodes, "edges": edges}}]}
    paths = (os.path.join(root, f"wf-{k}.json"), os.path.join(root, f"pack-{k}.json"))
    for path, doc in zip(paths, (wf, pack)):
        with open(path, "w") as f:
            json.dump(doc, f)
    return paths


print("K (chain = column)\tmedian wall time")
for k in SIZES:
    wf, pack = inputs(k)
    out = os.path.join(root, f"out-{k}.json")
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        done = subprocess.run([BIN, "inline", wf, pack, "--chain", "place.chain", "--at", "0,0", "--expansion-id",
                               "x1", "-o", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            sys.exit(f"K={k}: chainsmith inline failed:\n{done.stderr.decode()}")
    print(f"{k}\t{statistics.median(times):.2f} s", flush=True)
shutil.rmtree(root)

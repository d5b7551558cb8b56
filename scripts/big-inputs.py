#!/usr/bin/env python3
"""Large inputs for measuring `chain extract`, `pack sign`, `pack publish` and `verify`
(issue 24 items 15 and 16). Writes into OUT (default /tmp/cs-big), never into the repo:

  OUT/wf.json       a workflow of N nodes (default 8,000), each with a few config values,
                    wired as a line; ~1.6 MB for 8,000 nodes
  OUT/params.txt    one `--param pN=nN:/config/v` argument pair per node, one word a line
                    (use: xargs -a OUT/params.txt chainsmith chain extract ...)
  OUT/pack/pack.json  a chain pack with one chain of N nodes (~4.95 MB for 8,000 nodes)

Usage: scripts/big-inputs.py [OUT] [N]
"""
import json
import os
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/cs-big"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 8000
os.makedirs(os.path.join(out, "pack"), exist_ok=True)

nodes = [
    {
        "id": f"n{i}",
        "typeId": "core.noop",
        "name": f"Step {i}",
        "position": {"x": 300 * (i % 40), "y": 136 * (i // 40)},
        "config": {"v": f"value {i}", "timeoutMs": 1000 + i},
    }
    for i in range(n)
]
edges = [{"id": f"e{i}", "sourceNodeId": f"n{i - 1}", "targetNodeId": f"n{i}"} for i in range(1, n)]
wf = {"id": "big", "name": "Big", "version": "1.0.0", "triggers": [], "variables": [], "metadata": {},
      "settings": {}, "nodes": nodes, "edges": edges}
with open(os.path.join(out, "wf.json"), "w") as f:
    json.dump(wf, f)
with open(os.path.join(out, "params.txt"), "w") as f:
    for i in range(n):
        f.write(f"--param\np{i}=n{i}:/config/v\n")

long = "Summarise the ticket {{params.topic}} in the tone of the team; " * 3
chain_nodes = [
    {
        "id": f"n{i}",
        "typeId": "core.noop",
        "name": f"Step {i}",
        "config": {"prompt": long, "index": i, "tags": ["x", "y", "z"], "options": {"retries": 2, "mode": "fast"}},
    }
    for i in range(n)
]
chain_edges = [{"from": f"n{i - 1}", "to": f"n{i}"} for i in range(1, n)]
pack = {"name": "vendor.bigmem.pack", "version": "1.0.0", "kind": "workflow-chain", "engines": {"openwop": "*"},
        "description": "generated for memory measurements",
        "chains": [{"chainId": "big.chain", "version": "1.0.0", "label": "Big", "description": "generated",
                    "parameters": {"type": "object", "properties": {"topic": {"type": "string", "default": "t"}}},
                    "dag": {"nodes": chain_nodes, "edges": chain_edges}}]}
with open(os.path.join(out, "pack", "pack.json"), "w") as f:
    json.dump(pack, f, indent=1)
for name in ["wf.json", "pack/pack.json"]:
    print(name, os.path.getsize(os.path.join(out, name)))

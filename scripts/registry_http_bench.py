#!/usr/bin/env python3
"""Issue 38 item 6: `install` by URL (from `chainsmith serve` on 127.0.0.1) against the same
install from the folder, whole process, paired runs (order alternating), medians.

usage: python3 scripts/registry_http_bench.py PATH/TO/chainsmith RUNS
"""
import json, os, subprocess, sys, time, statistics, tempfile, shutil
B = sys.argv[1]
root = tempfile.mkdtemp()
def run(*a, **kw):
    return subprocess.run([B, *a], capture_output=True, check=True, **kw)
key = json.loads(run("keygen", f"{root}/me").stdout)["privateKey"]
reg = f"{root}/reg"
for v in ["1.0.0", "1.1.0"]:
    d = f"{root}/src-{v}"; os.makedirs(d)
    json.dump({"name": "vendor.me.tiles", "version": v, "kind": "workflow-chain", "description": "Echo tiles.",
        "license": "MIT", "engines": {"openwop": ">=1.0.0 <3.0.0"},
        "chains": [{"chainId": "tiles.echo", "version": v, "label": "Echo", "description": "Say it back.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string", "default": "hi"}}},
            "dag": {"nodes": [{"id": "say", "typeId": "core.identity@1.0.0", "config": {"value": "{{params.text}}"}}]}}]}, open(f"{d}/pack.json", "w"))
    run("pack", "publish", d, "--registry", reg, "--key", key, "--key-id", "me-1")
srv = subprocess.Popen([B, "serve", reg, "--addr", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
url = json.loads(srv.stdout.readline())["url"]
env = dict(os.environ, XDG_CACHE_HOME=f"{root}/cache")
def t(registry, i):
    out = f"{root}/inst-{i}"
    s = time.perf_counter()
    subprocess.run([B, "install", "vendor.me.tiles", "--registry", registry, "--dir", out], check=True, capture_output=True, env=env)
    e = time.perf_counter() - s
    shutil.rmtree(out)
    return e
n = int(sys.argv[2]); ratios=[]; us=[]; ds=[]
t(url, "w"); t(reg, "w2")
for i in range(n):
    # alternate order within a pair
    if i % 2: d = t(reg, f"d{i}"); u = t(url, f"u{i}")
    else: u = t(url, f"u{i}"); d = t(reg, f"d{i}")
    us.append(u); ds.append(d); ratios.append(u/d)
srv.kill()
print(json.dumps({"runs": n, "median_url_ms": round(statistics.median(us)*1000,2), "median_folder_ms": round(statistics.median(ds)*1000,2), "median_paired_ratio": round(statistics.median(ratios),3)}))

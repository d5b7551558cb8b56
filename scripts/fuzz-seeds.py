#!/usr/bin/env python3
"""Write the seed corpora of the registry fuzz targets to fuzz/seeds/<target>/.

Seeds are every hostile case the tests build: the registries of tests/tools/make_registry.py
and make_hostile.py (built fresh here with Python and OpenSSL), the pack and workflow files of
tests/hostile/, the numbers the JCS tests refuse, and tar and gzip layouts the tar tests
build in code, restated here byte by byte. Multi-part seeds join their parts with the
separator the targets split at (fuzz/src/lib.rs: SEP).

Usage: python3 scripts/fuzz-seeds.py   (from the repository root; replaces fuzz/seeds/)
"""

import gzip
import hashlib
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fuzz" / "seeds"
SEP = b"\0--\0"


def write(target, name, data):
    d = SEEDS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def gz(data, **kw):
    return gzip.compress(data, mtime=0, **kw)


def header(name, kind=tarfile.REGTYPE, size=0, fmt=tarfile.USTAR_FORMAT, **fields):
    ti = tarfile.TarInfo(name)
    ti.type, ti.size, ti.mode = kind, size, 0o644
    for k, v in fields.items():
        setattr(ti, k, v)
    return ti.tobuf(format=fmt)


def pad(b):
    return b + b"\0" * (-len(b) % 512)


def entry(name, data=b"", kind=tarfile.REGTYPE, **kw):
    return header(name, kind, len(data) if kind == tarfile.REGTYPE else kw.pop("size", 0), **kw) + pad(data)


def patch(h, offset, value):
    """A header with `value` at `offset` and its checksum recomputed (unsigned sum)."""
    h = bytearray(h)
    h[offset : offset + len(value)] = value
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


END = b"\0" * 1024
PACK = b'{"name":"vendor.acme.x","version":"1.0.0"}'


def hostile_tars():
    """Tar layouts the tar tests build in code, and the ones other tools read differently."""
    t = {}
    t["plain"] = entry("pack.json", PACK) + entry("README.md", b"# r\n") + END
    t["dot-entries"] = entry("./", kind=tarfile.DIRTYPE) + entry("./pack.json", PACK) + END
    t["package-folder"] = entry("package/pack.json", PACK) + entry("package/LICENSE", b"l") + END
    t["dotdot"] = entry("../evil", b"x") + END
    t["absolute"] = entry("/etc/x", b"x") + END
    t["symlink"] = header("pack.json", tarfile.SYMTYPE, linkname="/etc/passwd") + END
    t["hardlink"] = header("pack.json", tarfile.LNKTYPE, linkname="other") + END
    t["fifo"] = header("pack.json", tarfile.FIFOTYPE) + END
    t["chardev"] = header("pack.json", tarfile.CHRTYPE) + END
    t["pax"] = entry("PaxHeaders/pack.json", b"", tarfile.XHDTYPE) + entry("pack.json", PACK) + END
    t["gnu-longname"] = entry("././@LongLink", b"", tarfile.GNUTYPE_LONGNAME) + entry("pack.json", PACK) + END
    t["duplicate"] = entry("pack.json", PACK) + entry("pack.json", b"{}") + END
    t["duplicate-case"] = entry("pack.json", PACK) + entry("Pack.json", b"{}") + END
    t["after-end"] = entry("pack.json", PACK) + END + entry("pack.json", b"{}") + END
    t["zero-padded"] = entry("pack.json", PACK) + b"\0" * 10240
    t["no-end"] = entry("pack.json", PACK)
    # A folder whose size covers a hidden entry: GNU tar and Python read it, the tar crate skips it.
    hidden = entry("pack.json", b'{"evil":1}')
    t["folder-with-data"] = entry("pack.json", PACK) + header("d/", tarfile.DIRTYPE, len(hidden)) + hidden + END
    # Names and numbers tools read differently.
    t["prefix"] = header("pack.json", size=len(PACK)) + pad(PACK) + END
    t["prefix"] = patch(t["prefix"][:512], 345, b"sub") + t["prefix"][512:]
    v7 = header("pack.json", size=len(PACK), fmt=tarfile.GNU_FORMAT)
    t["gnu-magic-prefix-bytes"] = patch(v7, 345, b"junk") + pad(PACK) + END
    t["ustar-version-blank"] = patch(patch(header("x.json", size=len(PACK)), 345, b"pack"), 263, b"  ") + pad(PACK) + END
    t["size-plus"] = patch(header("pack.json", size=len(PACK)), 124, b"+0000000052\0") + pad(PACK) + END
    t["size-base256"] = patch(header("pack.json", size=len(PACK)), 124, b"\x80" + b"\0" * 10 + bytes([len(PACK)])) + pad(PACK) + END
    # A regular file named "pack.json/": GNU tar reads a folder (issue 33 item 4).
    t["regular-trailing-slash"] = patch(header("pack.json/", size=len(PACK)), 156, b"0") + pad(PACK) + END
    t["file-and-folder"] = entry("a", b"1") + entry("a/b", b"2") + END
    t["contiguous"] = patch(header("pack.json", size=len(PACK)), 156, b"7") + pad(PACK) + END
    return t


def jcs_cases():
    cases = [
        b'{"a":{"c":"x","d":2.5},"b":[true,null,false]}',
        b'{"b":1,"a":2}',
        b'{"a":1,"a":1}',
        b'{"x":{"b":1,"b":1}}',
        b'{"":[],"a":[[],{}]}',
        rb'["\u001f","\u0000","\b\f\n\r\t","\"\\","/","\u00e9","\u001F","\/","\u0008","\u007f","\u2028"]',
        b'{"$serde_json::private::Number":"5"}',
        b'{"x":{"a~b":1,"a~b":2}}',
        b'{ "b": [ true, null ], "a": { "d": 2.50, "c": "x" } }',
        b'{"version": "1.0.0", "a": {"big": 18446744073709551616, "x/y": [1, 1e-400]}, "c": -1e400}',
        b'{"\xf0\x9f\x98\x80":1,"\xef\xbd\xa1":2,"\xc3\xa9":3,"a":4}',
        rb'"\ud800"',
        b"{} x",
        b"[" * 127 + b"]" * 127,
        b"[" * 128 + b"]" * 128,
    ]
    for n in [
        "9007199254740991", "9007199254740992", "-9007199254740992", "9007199254740993",
        "18446744073709551616", "-123456789012345678901234567890", "12345678901234567890",
        "1e400", "1e-400", "1e21", "1e20", "1e-7", "0.000001", "-0", "-0.0", "0.1", "4.50",
        "333333333.33333329", "5e-324", "1.7976931348623157e308", "9007199254740993.0",
        "9007199254740993e0", "0.30000000000000000001", "123456789012345678e3", "1E+2", "2.5e-7",
    ]:
        cases.append(('{"n":%s}' % n).encode())
    return cases


def main():
    # Inputs the fuzzers found (`found-*`, copied from fuzz/artifacts/ by hand) are kept.
    for f in SEEDS.glob("*/*"):
        if not f.name.startswith("found-"):
            f.unlink()
    work = pathlib.Path(tempfile.mkdtemp(prefix="chainsmith-seeds-"))
    try:
        for script in ["make_registry.py", "make_hostile.py"]:
            subprocess.run([sys.executable, str(ROOT / "tests/tools" / script), str(work / script)],
                           check=True, stdout=subprocess.DEVNULL)
        tars = hostile_tars()
        for name, tar in tars.items():
            write("tar_entries", name, tar)
            write("gzip_members", name + ".tgz", gz(tar))
        # Gzip layouts: two members, bytes after the stream, the optional header fields.
        plain = tars["plain"]
        write("gzip_members", "two-members.tgz", gz(plain[:512]) + gz(plain[512:]))
        write("gzip_members", "trailing-junk.tgz", gz(plain) + b"junk")
        write("gzip_members", "trailing-zeros.tgz", gz(plain) + b"\0" * 8)
        write("gzip_members", "empty-second-member.tgz", gz(plain) + gz(b""))
        body = zlib.compressobj(9, zlib.DEFLATED, -15)
        deflated = body.compress(plain) + body.flush()
        trailer = (zlib.crc32(plain) & 0xFFFFFFFF).to_bytes(4, "little") + (len(plain) & 0xFFFFFFFF).to_bytes(4, "little")
        flagged = bytes([0x1F, 0x8B, 8, 0x1E, 0, 0, 0, 0, 2, 0xFF]) + b"\x03\0abc" + b"pack.tgz\0" + b"comment\0"
        flagged += (zlib.crc32(flagged) & 0xFFFF).to_bytes(2, "little")
        write("gzip_members", "header-fields.tgz", flagged + deflated + trailer)

        docs, versions = [], []
        for reg in sorted(work.glob("*/*/.well-known/openwop-registry.json")):
            base = reg.parent.parent
            doc = reg.read_bytes()
            docs.append((base.name, doc))
            rel = str(base.relative_to(work)).replace("make_", "").replace(".py", "")
            for tgz in sorted(base.rglob("*.tgz")):
                label = f"{rel}/{tgz.relative_to(base)}".replace("/", "_")
                write("gzip_members", label, tgz.read_bytes())
                try:
                    raw = gzip.decompress(tgz.read_bytes())
                except Exception:
                    continue
                write("tar_entries", label.removesuffix(".tgz") + ".tar", raw)
                try:
                    with tarfile.open(fileobj=io.BytesIO(raw)) as t:
                        for m in t.getmembers():
                            if m.isreg() and m.name.endswith("pack.json"):
                                write("jcs", label.removesuffix(".tgz") + ".json", t.extractfile(m).read())
                except tarfile.TarError:
                    pass
                manifest = tgz.with_suffix(".json")
                if not manifest.is_file():
                    continue
                m = json.loads(manifest.read_bytes())
                sig = tgz.with_suffix(".sig")
                key_id = (m.get("signing") or {}).get("keyId") or (m.get("signing") or {}).get("publicKeyRef") or "good-1"
                key = base / "keys" / f"{key_id}.pub"
                parts = [f'{m.get("name")}@{m.get("version")}'.encode(), doc, manifest.read_bytes(), tgz.read_bytes(),
                         sig.read_bytes() if sig.is_file() else b"", key.read_bytes() if key.is_file() else b""]
                write("version_manifest", label.removesuffix(".tgz"), SEP.join(parts))
            index = base / ("v2" if b'"v2"' in doc else "v1") / "index.json"
            for pack_index in sorted(base.rglob("index.json")):
                if pack_index == index:
                    continue
                pack = json.loads(pack_index.read_bytes())
                for spec in ["", "@latest", "@^1.0.0", "@>=2.0.0-0", "@1.0.0"]:
                    parts = [doc, index.read_bytes() if index.is_file() else b"", pack_index.read_bytes(),
                             f'{pack.get("name", "vendor.acme.all")}{spec}'.encode()]
                    label = f"{rel}_{pack.get('name', 'all')}{spec.replace('@', '_at_')}".replace("/", "_")
                    write("registry_index", label, SEP.join(parts))
        # A folder without a discovery document: the legacy tree.
        tiles = work / "make_registry.py/v2reg/v2/packs/vendor.acme.tiles/index.json"
        write("registry_index", "legacy", SEP.join([b"", b'{"packs":[{"name":"vendor.acme.tiles"}]}', tiles.read_bytes(), b"vendor.acme.tiles"]))
        yanked = json.dumps({"latest": "1.0.0", "versions": [{"version": "1.0.0", "yanked": True}, {"version": "1.0.0"}, {"version": "2.0.0-rc.1"}]})
        write("registry_index", "yank-twice", SEP.join([b"", b"{}", yanked.encode(), b"vendor.acme.tiles"]))

        for label, doc in docs:
            for name, version, url in [("vendor.acme.tiles", "1.0.0", "/v2/index.json"),
                                       ("..", ".", "https://registry.example.test/v2/../x"),
                                       ("a/b", "1.0.0", "https://other.example/x"), ("x", "1", "/keys/../../etc")]:
                write("discovery", f"{label}_{len(name)}_{len(url)}", SEP.join([doc, name.encode(), version.encode(), url.encode()]))
        for label, endpoints in [
            ("templates-escape", {"v2": {k: "/{name}/../{version}" for k in ["registryIndex", "packMetadata", "versionManifest", "versionTarball", "versionSignature"]}}),
            ("templates-absolute", {"registryIndex": "https://elsewhere.example/index.json", "packMetadata": "{name}{version}", "publicKey": "../keys/{keyId}"}),
            ("v2-partial", {"v2": {"registryIndex": "/v2/index.json"}, "v1": {"registryIndex": "/v1/i.json"}}),
            ("keys", {}),
        ]:
            doc = json.dumps({"url": "https://r.example/", "endpoints": endpoints, "signingKeys": [
                {"keyId": "../k", "status": "active"}, {"keyId": "k2", "publicKeyUrl": "https://r.example/keys/k2.pub"},
                {"keyId": "k3", "publicKeyUrl": "/keys/./k3"}, {"keyId": 5}]}).encode()
            write("discovery", label, SEP.join([doc, b"vendor.acme.x", b"1.0.0", b"https://r.example//keys/x"]))

        for i, case in enumerate(jcs_cases()):
            write("jcs", f"case-{i:02}", case)
        for f in sorted((ROOT / "tests/hostile/packs").glob("*.json")):
            if f.stat().st_size <= 64 * 1024:
                write("jcs", "hostile-" + f.name, f.read_bytes())
        # The older targets: the bundled packs and the hostile files of tests/hostile/.
        packs = sorted(ROOT.glob("packs/*/pack.json"))
        small_hostile = [f for f in sorted((ROOT / "tests/hostile/packs").glob("*.json")) if f.stat().st_size <= 64 * 1024]
        for f in packs + small_hostile:
            write("load_pack", f"{f.parent.name}_{f.name}", f.read_bytes())
        for f in packs:
            write("large_manifest", f.parent.name, f.read_bytes())
        for f in packs + sorted((ROOT / "tests/hostile/workflows").glob("*.json")):
            write("workflow_file", f"{f.parent.name}_{f.name}", f.read_bytes())
        for f in sorted((ROOT / "tests/hostile/params").glob("*")):
            for chain in range(3):
                write("expand_params", f"{chain}_{f.name}", bytes([chain]) + f.read_bytes())
        write("expand_params", "billing", b'\0{"queueName":"billing","maxTickets":3}')
        write("form_validate", "pattern", b'{"type":"object","properties":{"v":{"type":"string","pattern":"^a+$"}}}\n{"v":"aa"}')
        write("lockfile", "one-pack", b'{"lockfileVersion":1,"packs":[{"name":"vendor.chainsmith.nodes","version":"1.0.0","integrity":"sha512-AA=="}]}')
        for f in sorted(SEEDS.glob("version_manifest/*")):
            name, _doc, _manifest, tgz, _sig, key = f.read_bytes().split(SEP)
            try:
                with tarfile.open(fileobj=io.BytesIO(gzip.decompress(tgz))) as t:
                    files = {m.name.removeprefix("./"): t.extractfile(m).read() for m in t.getmembers() if m.isreg()}
            except Exception:
                continue
            if "pack.json" in files and "keys/pack.json.sig" in files:
                write("signature", f.name, key + b"\0" + files["keys/pack.json.sig"] + b"\0" + files["pack.json"])
    finally:
        shutil.rmtree(work)
    total = sum(f.stat().st_size for f in SEEDS.rglob("*") if f.is_file())
    counts = {d.name: len(list(d.iterdir())) for d in sorted(SEEDS.iterdir())}
    print(json.dumps({"seeds": counts, "bytes": total}))


if __name__ == "__main__":
    main()

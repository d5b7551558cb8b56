#!/usr/bin/env python3
"""Build hostile OpenWOP registry folders with tools independent of chainsmith.

Every tarball is made here with Python's tarfile, gzip and zlib (or by concatenating gzip
members by hand), every key and signature with OpenSSL (helpers of make_registry.py).
Each hostile version has a correct `integrity` (an attacker controls the whole upload),
and its signed pack.json is genuine: what is wrong is only what chainsmith must refuse.
tests/registry.rs runs this.

usage: make_hostile.py OUT

OUT/hostile   v2 registry; keys good-1 (vendor.acme.*, active) and old-1 (vendor.acme.*,
              revoked):
  vendor.acme.split 1.0.0     signed tar split over two gzip members; the second carries
                              another pack.json, which `tar -xzf`, Python and Node's zlib read
  vendor.acme.dup 1.0.0       one member, pack.json twice (the second one unsigned)
  vendor.acme.after 1.0.0     a second tar archive after the first one's end blocks
  vendor.acme.pax 1.0.0       pax-format tarball (a pax header before pack.json)
  vendor.acme.hex 1.0.0       integrity written as sha256:<hex>
  vendor.acme.revoked 1.0.0   signed by the revoked key old-1
OUT/noname    v2 registry whose templates lack {name}: one unsigned vendor.acme.x 1.0.0
OUT/private/<keyId>.pem      the private keys
OUT/expected.json            what Python, tar and Node made of the split tarball
"""

import base64
import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_registry import (SCHEME, Registry, canonical, chain_pack, discovery, keyed_root, make_key, sign,  # noqa: E402
                           sri, tgz, write, write_json)


def tar_entry(name, data):
    """One USTAR header and its data blocks, as tarfile writes them."""
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    info.mtime = 0
    header = info.tobuf(format=tarfile.USTAR_FORMAT)
    padding = b"\0" * (-len(data) % 512)
    return header + data + padding


END = b"\0" * 1024


def gz(data):
    return gzip.compress(data, compresslevel=9, mtime=0)


def signed_files(name, private, scratch, key_id="good-1"):
    manifest = chain_pack(name, "1.0.0")
    manifest["signing"] = {"keyId": key_id, "scheme": SCHEME}
    body = canonical(manifest)
    return manifest, body, sign(private, body, scratch)


def evil_body(name):
    evil = chain_pack(name, "1.0.0")
    evil["description"] = "EVIL: not what was signed"
    return canonical(evil)


def publish_raw(reg, manifest, archive, signature, integrity=None, key_id="good-1"):
    """Publish prepared tarball bytes (Registry.publish builds its own)."""
    name, version = manifest["name"], manifest["version"]
    version_manifest = dict(manifest)
    version_manifest["integrity"] = integrity or sri(archive)
    write(reg.path(reg.url("tgz", name, version)), archive)
    write_json(reg.path(reg.url("json", name, version)), version_manifest)
    if signature is not None:
        write(reg.path(reg.url("sig", name, version)), signature)
    row = {"version": version, "manifestUrl": reg.url("json", name, version),
           "tarballUrl": reg.url("tgz", name, version), "integrity": version_manifest["integrity"],
           "yanked": False}
    if signature is not None:
        row["signatureUrl"] = reg.url("sig", name, version)
        row["signingKeyId"] = key_id
    reg.packs.setdefault(name, []).append(row)


def what_others_read(archive, scratch):
    """pack.json as Python's tarfile and GNU tar -xzf see it, and the tar Node's zlib unpacks."""
    path = os.path.join(scratch, "probe.tgz")
    with open(path, "wb") as f:
        f.write(archive)
    with tarfile.open(path) as tar:
        python = tar.extractfile(tar.getmember("pack.json")).read()
    out = tempfile.mkdtemp(dir=scratch)
    subprocess.run(["tar", "-xzf", path, "-C", out], check=True, capture_output=True)
    with open(os.path.join(out, "pack.json"), "rb") as f:
        gnu = f.read()
    node = subprocess.run(
        ["node", "-e", "process.stdout.write(require('zlib').gunzipSync(require('fs').readFileSync(process.argv[1])))",
         path], check=True, capture_output=True).stdout
    return python, gnu, node


def main(out):
    scratch = os.path.join(out, "scratch")
    os.makedirs(scratch, exist_ok=True)
    good_private, good_public = make_key(out, "good-1")
    old_private, old_public = make_key(out, "old-1")
    expected = {}

    root = os.path.join(out, "hostile")
    keyed_root(root, "v2", [("good-1", ["vendor.acme.*"], "active", good_public),
                            ("old-1", ["vendor.acme.*"], "revoked", old_public)])
    reg = Registry(root, "v2")

    # The signed tar split over two gzip members; the second adds an unsigned pack.json.
    manifest, body, sig = signed_files("vendor.acme.split", good_private, scratch)
    first = tar_entry("keys/pack.json.sig", sig) + tar_entry("pack.json", body)
    second = tar_entry("pack.json", evil_body("vendor.acme.split")) + END
    archive = gz(first) + gz(second)
    python, gnu, node = what_others_read(archive, scratch)
    expected["split"] = {"pythonReadsEvil": b"EVIL" in python, "tarReadsEvil": b"EVIL" in gnu,
                         "nodeZlibReadsEvil": b"EVIL" in node,
                         "firstMemberIsSigned": gzip.GzipFile(fileobj=io.BytesIO(gz(first))).read() == first}
    publish_raw(reg, manifest, archive, sig)

    # pack.json twice in one member.
    manifest, body, sig = signed_files("vendor.acme.dup", good_private, scratch)
    tar = tar_entry("keys/pack.json.sig", sig) + tar_entry("pack.json", body) \
        + tar_entry("pack.json", evil_body("vendor.acme.dup")) + END
    publish_raw(reg, manifest, gz(tar), sig)

    # A second archive after the first one's end-of-archive blocks (`tar -i` reads it).
    manifest, body, sig = signed_files("vendor.acme.after", good_private, scratch)
    tar = tar_entry("keys/pack.json.sig", sig) + tar_entry("pack.json", body) + END \
        + tar_entry("pack.json", evil_body("vendor.acme.after")) + END
    publish_raw(reg, manifest, gz(tar), sig)

    # pax format: an extended header before pack.json (the registry refuses pax).
    manifest, body, sig = signed_files("vendor.acme.pax", good_private, scratch)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data in (("keys/pack.json.sig", sig), ("pack.json", body)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            info.pax_headers = {"comment": "pax"}
            t.addfile(info, io.BytesIO(data))
    publish_raw(reg, manifest, gz(raw.getvalue()), sig)

    # A sound tarball whose integrity is the hex form.
    manifest, body, sig = signed_files("vendor.acme.hex", good_private, scratch)
    archive = tgz({"pack.json": body, "keys/pack.json.sig": sig})
    publish_raw(reg, manifest, archive, sig, integrity="sha256:" + hashlib.sha256(archive).hexdigest())

    # Signed by the revoked key.
    manifest, body, sig = signed_files("vendor.acme.revoked", old_private, scratch, key_id="old-1")
    publish_raw(reg, manifest, tgz({"pack.json": body, "keys/pack.json.sig": sig}), sig, key_id="old-1")
    reg.finish({})

    # Templates without {name}: every pack lands on the same paths.
    root = os.path.join(out, "noname")
    doc = discovery("v2", [])
    doc["endpoints"]["v2"] = {
        "registryIndex": "/v2/index.json",
        "packMetadata": "/v2/all/index.json",
        "versionManifest": "/v2/all/-/{version}.json",
        "versionTarball": "/v2/all/-/{version}.tgz",
        "versionSignature": "/v2/all/-/{version}.sig",
    }
    write_json(os.path.join(root, ".well-known", "openwop-registry.json"), doc)
    manifest = chain_pack("vendor.acme.x", "1.0.0", pinned=False)
    archive = tgz({"pack.json": canonical(manifest)})
    write(os.path.join(root, "v2/all/-/1.0.0.tgz"), archive)
    write_json(os.path.join(root, "v2/all/-/1.0.0.json"), dict(manifest, integrity=sri(archive)))

    write_json(os.path.join(out, "expected.json"), expected)


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""Build OpenWOP registry folders with tools independent of chainsmith.

Python's json, hashlib, base64, tarfile and gzip write every document and tarball;
OpenSSL makes the Ed25519 keys and signatures. tests/registry.rs runs this and checks
what chainsmith makes of the result.

usage: make_registry.py OUT
       make_registry.py --corpus PACKS OUT

--corpus: OUT is one v2 registry holding every PACKS/<name>/pack.json (with its schemas/
and LICENSE) unsigned, as it is, each under its own `kind` (none: `node`); the editor's
Registry window lists it (tests/ui_interop.rs).

OUT/v2reg   discovery document with v2 endpoints, keys good-1 (vendor.acme.*) and
            rogue-1 (vendor.rogue.*):
            vendor.acme.tiles 1.0.0, 1.2.0 (deprecated), 1.3.0 (yanked; index `latest`),
              2.0.0-rc.1 (prerelease), all signed ed25519-canonical-json by good-1
            vendor.acme.tampered 1.0.0   tarball changed after its integrity was taken
            vendor.acme.forged 1.0.0     claims good-1, signed with rogue-1's private key
            vendor.other.tiles 1.0.0     signed by good-1, outside its namespaces
OUT/v1reg   discovery document with flat (v1) endpoints only, key good-1:
            vendor.acme.legacy 1.0.0     v1 `manual` signature, publicKeyRef = key id
OUT/package-layout.tgz   a pack under npm's package/ folder
OUT/expected.json        integrities computed here, and good-1's (and rogue-1's) signature
                         over vendor.acme.tiles@1.0.0's tarball, for the test to compare
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

SCHEME = "ed25519-canonical-json"


def canonical(value):
    # RFC 8785 for this data: ASCII keys, integers and strings only.
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def openssl(*args, data=None):
    return subprocess.run(["openssl", *args], input=data, check=True, capture_output=True).stdout


def make_key(folder, key_id):
    private = os.path.join(folder, "private", key_id + ".pem")
    os.makedirs(os.path.dirname(private), exist_ok=True)
    openssl("genpkey", "-algorithm", "ed25519", "-out", private)
    public = openssl("pkey", "-in", private, "-pubout")
    return private, public


def sign(private, data, scratch):
    path = os.path.join(scratch, "to-sign.bin")
    with open(path, "wb") as f:
        f.write(data)
    return openssl("pkeyutl", "-sign", "-inkey", private, "-rawin", "-in", path)


def tgz(files, prefix=""):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name in sorted(files):
            info = tarfile.TarInfo(prefix + name)
            info.size = len(files[name])
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            tar.addfile(info, io.BytesIO(files[name]))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9, mtime=0) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def sri(data):
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode("ascii")


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def write_json(path, value):
    write(path, (json.dumps(value, indent=2) + "\n").encode("utf-8"))


def chain_pack(name, version, pinned=True):
    type_id = "core.identity@1.0.0" if pinned else "core.identity"
    return {
        "name": name,
        "version": version,
        "kind": "workflow-chain",
        "description": "Echo tiles for registry tests.",
        "license": "MIT",
        "keywords": ["echo"],
        "engines": {"openwop": ">=1.0.0 <3.0.0"},
        "chains": [{
            "chainId": "tiles.echo",
            "version": version,
            "label": "Echo",
            "description": "Say it back.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string", "default": "hello"}}},
            "dag": {"nodes": [{"id": "say", "typeId": type_id, "config": {"value": "{{params.text}}"}}]},
        }],
    }


class Registry:
    def __init__(self, root, tree):
        self.root = root
        self.tree = tree
        self.packs = {}

    def url(self, kind, name, version=None):
        base = "/%s/packs/%s" % (self.tree, name)
        return base + "/index.json" if kind == "index" else "%s/-/%s.%s" % (base, version, kind)

    def path(self, url):
        return os.path.join(self.root, url.lstrip("/"))

    def publish(self, manifest, files, signature, extra=None, tamper=False, signing_key_id=None):
        name, version = manifest["name"], manifest["version"]
        packed = dict(files)
        if signature is not None:
            packed["keys/pack.json.sig"] = signature
        archive = tgz(packed)
        integrity = sri(archive)
        if tamper:
            # Same length, one byte changed inside the compressed stream.
            mid = len(archive) // 2
            archive = archive[:mid] + bytes([archive[mid] ^ 0xFF]) + archive[mid + 1:]
        version_manifest = dict(manifest)
        version_manifest["integrity"] = integrity
        version_manifest.update(extra or {})
        write(self.path(self.url("tgz", name, version)), archive)
        write_json(self.path(self.url("json", name, version)), version_manifest)
        if signature is not None:
            write(self.path(self.url("sig", name, version)), signature)
        row = {
            "version": version,
            "manifestUrl": self.url("json", name, version),
            "tarballUrl": self.url("tgz", name, version),
            "integrity": integrity,
            "yanked": bool((extra or {}).get("yanked", False)),
            "versionDeprecated": bool((extra or {}).get("versionDeprecated", False)),
        }
        if signature is not None:
            row["signatureUrl"] = self.url("sig", name, version)
            row["signingKeyId"] = signing_key_id
        self.packs.setdefault(name, []).append(row)
        return integrity

    def finish(self, latest, kinds=None):
        index_rows = []
        for name, rows in sorted(self.packs.items()):
            kind = (kinds or {}).get(name, "workflow-chain")
            write_json(self.path(self.url("index", name)), {
                "name": name, "kind": kind, "latest": latest.get(name, rows[-1]["version"]),
                "versions": rows, "deprecated": False,
            })
            index_rows.append({"name": name, "kind": kind, "latestVersion": latest.get(name, rows[-1]["version"])})
        write_json(os.path.join(self.root, self.tree, "index.json"),
                   {"registryVersion": "1.0.0", "packCount": len(index_rows), "packs": index_rows})


def discovery(tree, keys):
    endpoints = {"publicKey": "/keys/{keyId}.pub"}
    templates = {
        "registryIndex": "/%s/index.json" % tree,
        "packMetadata": "/%s/packs/{name}/index.json" % tree,
        "versionManifest": "/%s/packs/{name}/-/{version}.json" % tree,
        "versionTarball": "/%s/packs/{name}/-/{version}.tgz" % tree,
        "versionSignature": "/%s/packs/{name}/-/{version}.sig" % tree,
    }
    if tree == "v2":
        endpoints["v2"] = templates
    else:
        endpoints.update(templates)
    return {
        "registryVersion": "1.0.0", "name": "test registry", "url": "https://registry.example.test",
        "endpoints": endpoints,
        "signingKeys": [
            {"keyId": k, "algorithm": "ed25519", "publicKeyUrl": "/keys/%s.pub" % k,
             "permittedNamespaces": ns, "status": status}
            for k, ns, status in keys
        ],
    }


def keyed_root(root, tree, keys):
    """`root` as a registry of `tree`: its discovery document lists `keys` (keyId, namespaces,
    status, public PEM), and each public key is written under keys/."""
    write_json(os.path.join(root, ".well-known", "openwop-registry.json"), discovery(tree, [k[:3] for k in keys]))
    for key_id, _, _, public in keys:
        write(os.path.join(root, "keys", key_id + ".pub"), public)


def main(out):
    scratch = os.path.join(out, "scratch")
    os.makedirs(scratch, exist_ok=True)
    good_private, good_public = make_key(out, "good-1")
    rogue_private, rogue_public = make_key(out, "rogue-1")
    expected = {}

    # The v2 registry.
    root = os.path.join(out, "v2reg")
    keyed_root(root, "v2", [("good-1", ["vendor.acme.*"], "active", good_public),
                            ("rogue-1", ["vendor.rogue.*"], "rotated", rogue_public)])
    reg = Registry(root, "v2")

    def v2(name, version, private, key_id="good-1", extra=None, tamper=False):
        manifest = chain_pack(name, version)
        manifest["signing"] = {"keyId": key_id, "scheme": SCHEME}
        body = canonical(manifest)
        files = {"pack.json": body, "README.md": b"# tiles\n", "LICENSE": b"MIT\n"}
        integrity = reg.publish(manifest, files, sign(private, body, scratch), extra, tamper, key_id)
        expected["%s@%s" % (name, version)] = {"integrity": integrity, "packJsonBytes": len(body)}

    v2("vendor.acme.tiles", "1.0.0", good_private)
    v2("vendor.acme.tiles", "1.2.0", good_private, extra={"versionDeprecated": True, "deprecationReason": "use 2.x"})
    v2("vendor.acme.tiles", "1.3.0", good_private, extra={"yanked": True, "yankedReason": "broken"})
    v2("vendor.acme.tiles", "2.0.0-rc.1", good_private)
    v2("vendor.acme.tampered", "1.0.0", good_private, tamper=True)
    v2("vendor.acme.forged", "1.0.0", rogue_private)
    v2("vendor.other.tiles", "1.0.0", good_private)
    reg.finish({"vendor.acme.tiles": "1.3.0"})
    # A lockfile's recorded signature covers the tarball (node-packs §7.3).
    with open(reg.path(reg.url("tgz", "vendor.acme.tiles", "1.0.0")), "rb") as f:
        archive = f.read()
    public_der = base64.b64encode(openssl("pkey", "-in", good_private, "-pubout", "-outform", "DER")).decode("ascii")
    for label, private in (("tarballSignature", good_private), ("rogueTarballSignature", rogue_private)):
        value = base64.b64encode(sign(private, archive, scratch)).decode("ascii")
        expected[label] = {"algorithm": "ed25519", "publicKey": public_der, "value": value}

    # The v1 registry: flat endpoints, the v1 manual recipe.
    root = os.path.join(out, "v1reg")
    keyed_root(root, "v1", [("good-1", ["vendor.acme.*"], "active", good_public)])
    reg = Registry(root, "v1")
    manifest = chain_pack("vendor.acme.legacy", "1.0.0", pinned=False)
    manifest["signing"] = {"method": "manual", "publicKeyRef": "good-1", "signatureRef": "keys/pack.json.sig"}
    body = canonical(manifest)
    integrity = reg.publish(manifest, {"pack.json": body}, sign(good_private, body, scratch), signing_key_id="good-1")
    expected["vendor.acme.legacy@1.0.0"] = {"integrity": integrity, "packJsonBytes": len(body)}
    reg.finish({})

    # npm's package/ layout.
    body = canonical(chain_pack("vendor.acme.npm", "1.0.0", pinned=False))
    write(os.path.join(out, "package-layout.tgz"), tgz({"pack.json": body, "README.md": b"r\n"}, prefix="package/"))

    write_json(os.path.join(out, "expected.json"), expected)


def main_corpus(packs, out):
    write_json(os.path.join(out, ".well-known", "openwop-registry.json"), discovery("v2", []))
    reg = Registry(out, "v2")
    kinds = {}
    for entry in sorted(os.listdir(packs)):
        folder = os.path.join(packs, entry)
        manifest_path = os.path.join(folder, "pack.json")
        if not os.path.isfile(manifest_path):
            continue
        with open(manifest_path, "rb") as f:
            body = f.read()
        manifest = json.loads(body)
        files = {"pack.json": body}
        if os.path.isfile(os.path.join(folder, "LICENSE")):
            with open(os.path.join(folder, "LICENSE"), "rb") as f:
                files["LICENSE"] = f.read()
        schemas = os.path.join(folder, "schemas")
        if os.path.isdir(schemas):
            for name in sorted(os.listdir(schemas)):
                with open(os.path.join(schemas, name), "rb") as f:
                    files["schemas/" + name] = f.read()
        reg.publish(manifest, files, None)
        kinds[manifest["name"]] = manifest.get("kind", "node")
    reg.finish({}, kinds)


if __name__ == "__main__":
    if sys.argv[1] == "--corpus":
        main_corpus(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1])

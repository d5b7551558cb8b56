#!/usr/bin/env python3
"""A v1 registry folder whose tarballs are packed the way `tar -czf X.tgz -C DIR .` packs a
folder, as the OpenWOP registry's core.openwop.examples@1.0.0 and
vendor.openwop.rust-hello@1.0.0 are: a `./` root entry, `./`-prefixed names, folder entries.
Python's tarfile, gzip and json and OpenSSL write everything (helpers from make_registry.py);
tests/registry_write.rs runs chainsmith and the OpenWOP client's recipe on it.

usage: make_packed_registry.py OUT

OUT/reg  discovery document with flat (v1) endpoints, key team-1 (vendor.acme.*):
  vendor.acme.dotted 1.0.0   `./` entries; the legacy `method: "ed25519"` signature over the
                             whole tarball, the version manifest shaped as the real ones
                             (the packed pack.json plus publishedAt, tarballUrl,
                             signatureUrl, signing, integrity, deprecated, yanked)
  vendor.acme.dotted 1.1.0   `./` entries; the v1 `manual` signature over pack.json
  vendor.acme.slashed 1.0.0  `manual`, its pack.json stored as a regular file entry named
                             `pack.json/` (GNU tar and Python read a folder there)
OUT/expected.json  {"NAME@VERSION": {"integrity"}} computed here
"""

import io
import json
import os
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_registry import canonical, chain_pack, keyed_root, make_key, sign, sri, write, write_json  # noqa: E402

import gzip  # noqa: E402


def packed(entries):
    """A gzip'd USTAR tar of (name, bytes or None for a folder) in the order given."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in entries:
            info = tarfile.TarInfo(name)
            info.uname = info.gname = "staff"
            info.mtime = 1778457180
            if data is None:
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
            else:
                info.mode = 0o644
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def main(out):
    scratch = os.path.join(out, "scratch")
    os.makedirs(scratch, exist_ok=True)
    private, public = make_key(out, "team-1")
    root = os.path.join(out, "reg")
    keyed_root(root, "v1", [("team-1", ["vendor.acme.*"], "active", public)])
    expected = {}
    rows = {}

    def publish(name, version, archive, signing, manifest, signature):
        base = "/v1/packs/%s/-/%s" % (name, version)
        served = dict(manifest)
        served.update({"publishedAt": "2026-05-11T02:33:00Z", "tarballUrl": base + ".tgz",
                       "signatureUrl": base + ".sig", "signing": signing, "integrity": sri(archive),
                       "deprecated": False, "yanked": False})
        write(os.path.join(root, base.lstrip("/") + ".tgz"), archive)
        write(os.path.join(root, base.lstrip("/") + ".sig"), signature)
        write_json(os.path.join(root, base.lstrip("/") + ".json"), served)
        rows.setdefault(name, []).append({
            "version": version, "manifestUrl": base + ".json", "tarballUrl": base + ".tgz",
            "signatureUrl": base + ".sig", "signingMethod": signing["method"], "signingKeyId": "team-1",
            "integrity": served["integrity"], "deprecated": False, "yanked": False})
        expected["%s@%s" % (name, version)] = {"integrity": served["integrity"]}

    # The legacy recipe: the pack.json packed carries no signing block; the signature covers
    # the whole tarball.
    manifest = chain_pack("vendor.acme.dotted", "1.0.0", pinned=False)
    body = json.dumps(manifest, indent=2).encode("utf-8")
    archive = packed([("./", None), ("./pack.json", body), ("./LICENSE", b"MIT\n"), ("./README.md", b"# dotted\n")])
    legacy = {"method": "ed25519", "keyId": "team-1", "publicKeyUrl": "/keys/team-1.pub"}
    publish("vendor.acme.dotted", "1.0.0", archive, legacy, manifest, sign(private, archive, scratch))

    manual = {"method": "manual", "publicKeyRef": "team-1", "signatureRef": "keys/pack.json.sig"}

    def manual_pack(name, version, layout):
        manifest = chain_pack(name, version, pinned=False)
        manifest["signing"] = manual
        body = canonical(manifest)
        signature = sign(private, body, scratch)
        # A folder entry's bytes are None.
        files = {"pack.json": body, "README.md": b"# r\n", "keys/pack.json.sig": signature, "/": None}
        archive = packed([(entry, files[file]) for entry, file in layout])
        publish(name, version, archive, manual, manifest, signature)

    manual_pack("vendor.acme.dotted", "1.1.0", [("./", "/"), ("./pack.json", "pack.json"),
                                                 ("./README.md", "README.md"), ("./keys/", "/"),
                                                 ("./keys/pack.json.sig", "keys/pack.json.sig")])
    # Nothing else unusual: before, this archive's `pack.json/` was read as its pack.json.
    manual_pack("vendor.acme.slashed", "1.0.0", [("pack.json/", "pack.json"), ("README.md", "README.md"),
                                                  ("keys/pack.json.sig", "keys/pack.json.sig")])

    index_rows = []
    for name, versions in sorted(rows.items()):
        latest = versions[-1]["version"]
        write_json(os.path.join(root, "v1", "packs", name, "index.json"),
                   {"name": name, "kind": "workflow-chain", "latest": latest, "versions": versions,
                    "deprecated": False})
        index_rows.append({"name": name, "kind": "workflow-chain", "latestVersion": latest})
    write_json(os.path.join(root, "v1", "index.json"),
               {"registryVersion": "1.0.0", "packCount": len(index_rows), "packs": index_rows})
    write_json(os.path.join(out, "expected.json"), expected)


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""Whether a registry version's served manifest says something its signed pack.json does not.

    served_vs_packed.py REGISTRY_ROOT NAME@VERSION

Reads `v1/packs/NAME/-/VERSION.json` and the `pack.json` inside `VERSION.tgz` with Python's
own tarfile (as `tar` would extract it), drops the members a registry may add or change
after signing (integrity, yank and deprecation markers, publication URLs and time; a signing
block only the served manifest carries), and prints {"differs": bool, "members": [...]}:
the top-level members whose values differ. Independent of chainsmith.
"""
import json
import sys
import tarfile
from pathlib import Path

REGISTRY_MEMBERS = {
    "integrity", "yanked", "yankedReason", "versionDeprecated", "deprecated", "deprecationReason",
    "supersededBy", "advisoryUrl", "publishedAt", "manifestUrl", "tarballUrl", "signatureUrl", "sbomUrl",
}


def main() -> None:
    root, spec = Path(sys.argv[1]), sys.argv[2]
    name, version = spec.rsplit("@", 1)
    folder = root / "v1" / "packs" / name / "-"
    served = json.loads((folder / f"{version}.json").read_text())
    with tarfile.open(folder / f"{version}.tgz", "r:gz") as tar:
        member = next(m for m in tar.getmembers() if m.isfile() and m.name.lstrip("./") == "pack.json")
        packed = json.loads(tar.extractfile(member).read())
    if "signing" not in packed:
        served.pop("signing", None)
    keys = (set(served) | set(packed)) - REGISTRY_MEMBERS
    differs = sorted(k for k in keys if served.get(k) != packed.get(k))
    print(json.dumps({"differs": bool(differs), "members": differs}))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Counts over the shared corpus that tests compare chainsmith against, computed here from
the raw JSON (standard library only) so no expected number is copied from chainsmith's output.

usage: scripts/corpus-counts.py [--shared ../shared]   (prints JSON; the committed copy is
tests/fixtures/corpus-counts.json, and .ci/run checks the two agree)
       scripts/corpus-counts.py --openwop-registry DIR   (prints only the counts below)

- nodePacks: registry manifests whose `kind` is not "workflow-chain" (a missing kind means a
  node pack, node-packs-and-lockfiles §1);
- nodeTypeIds: distinct `nodes[].typeId` over those packs;
- chains: `chains[]` entries of the registry's and the examples' workflow-chain packs;
- chainsResolving: chains whose every `dag.nodes[].typeId` and `compensation.nodeTypeId` is
  either `core.*` (reserved, always resolvable) or one of nodeTypeIds;
- unresolvedTypeIds: distinct typeIds of chains that are neither;
- declaredWriters: chains that declare a write effect: `side-effectful` in `capabilities`, or
  a node with `compensation` or `irreversibleEffect: true`;
- vectors / vectorsWithSettingsCompensation: conformance vectors, and those whose expected
  output carries settingsCompensation;
- vectorsWithProducedVariables: vectors whose chain declares `producedVariables`;
- wholeValueParameters: per vector's chain, the distinct parameter names of strings that are
  exactly one token (`{{params.NAME}}` or `<<params.NAME>>`, NAME `[A-Za-z_][A-Za-z0-9_]*`)
  in a node's `config`, `inputs` or `compensation.inputMapping`, summed over the vectors;
- chainPacks / registryChainPacks: workflow-chain manifests (`pack.json`) anywhere in the
  corpus, and in the registry;
- chainsWithSideEffectfulTypes: with each registry node type's effect taken from its
  `capabilities` (`side-effectful` writes, else pure; the last manifest in path order wins),
  chains having a node of a writing type.

With --openwop-registry DIR (a checkout of the OpenWOP registry's served tree, the folder
holding `.well-known/openwop-registry.json`; not part of the shared corpus), read through
the flat (v1) endpoint templates of its discovery document:
- openwopRegistryVersions: `versions[]` rows of the packs its registry index lists;
- openwopRegistrySignedVersions: those whose version manifest carries `signing` and whose
  tarball and signature files are there.
"""
import argparse
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
WHOLE_TOKEN = re.compile(r"\{\{params\.([A-Za-z_][A-Za-z0-9_]*)\}\}|<<params\.([A-Za-z_][A-Za-z0-9_]*)>>")


def whole_value_names(value, out):
    """Collect the names of strings in `value` that are exactly one token."""
    if isinstance(value, str):
        m = WHOLE_TOKEN.fullmatch(value)
        if m:
            out.add(m.group(1) or m.group(2))
    elif isinstance(value, list):
        for v in value:
            whole_value_names(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            whole_value_names(v, out)



def registry_counts(root: pathlib.Path) -> dict:
    endpoints = json.loads((root / ".well-known/openwop-registry.json").read_text())["endpoints"]

    def path(template: str, **values: str) -> pathlib.Path:
        for key, value in values.items():
            template = template.replace("{" + key + "}", value)
        return root / template.lstrip("/")

    versions = signed = 0
    for pack in json.loads(path(endpoints["registryIndex"]).read_text())["packs"]:
        name = pack["name"]
        for row in json.loads(path(endpoints["packMetadata"], name=name).read_text()).get("versions", []):
            versions += 1
            at = {"name": name, "version": row["version"]}
            manifest = path(endpoints["versionManifest"], **at)
            signed += (
                manifest.is_file()
                and "signing" in json.loads(manifest.read_text())
                and path(endpoints["versionTarball"], **at).is_file()
                and path(endpoints["versionSignature"], **at).is_file()
            )
    return {"openwopRegistryVersions": versions, "openwopRegistrySignedVersions": signed}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    ap.add_argument("--openwop-registry", type=pathlib.Path)
    args = ap.parse_args()
    if args.openwop_registry:
        print(json.dumps(registry_counts(args.openwop_registry), indent=2))
        return
    corpus = pathlib.Path(args.shared) / "corpus"
    registry = sorted((corpus / "registry/packs").glob("*/pack.json"))
    manifests = [json.loads(p.read_text()) for p in registry]
    node_packs = [m for m in manifests if m.get("kind") != "workflow-chain"]
    type_ids = {n["typeId"] for m in node_packs for n in m.get("nodes", []) if isinstance(n.get("typeId"), str)}
    chain_packs = [m for m in manifests if m.get("kind") == "workflow-chain"]
    chain_packs += [json.loads(p.read_text()) for p in sorted((corpus / "examples").glob("*/pack.json"))]
    chains = [c for m in chain_packs for c in m.get("chains", [])]
    resolving, unresolved, writers = 0, set(), 0
    for c in chains:
        nodes = c.get("dag", {}).get("nodes", [])
        used = {n.get("typeId") for n in nodes} | {n["compensation"].get("nodeTypeId") for n in nodes if isinstance(n.get("compensation"), dict)}
        missing = {t for t in used if isinstance(t, str) and not t.startswith("core.") and t not in type_ids}
        resolving += not missing
        unresolved |= missing
        declared = "side-effectful" in (c.get("capabilities") or []) or any(
            "compensation" in n or n.get("irreversibleEffect") is True for n in nodes)
        writers += declared
    vectors = sorted((corpus / "vectors").rglob("*.json"))
    with_policy = sum("settingsCompensation" in json.loads(v.read_text()).get("expected", {}) for v in vectors)
    with_produced, whole_value = 0, 0
    for v in vectors:
        vector = json.loads(v.read_text())
        pack = json.loads((corpus / vector["pack"]).read_text())
        chain = next(c for c in pack["chains"] if c["chainId"] == vector["chainId"])
        with_produced += "producedVariables" in chain
        names = set()
        for n in chain["dag"]["nodes"]:
            for part in (n.get("config"), n.get("inputs"), (n.get("compensation") or {}).get("inputMapping")):
                whole_value_names(part, names)
        whole_value += len(names)
    all_chain_packs = [p for p in sorted(corpus.rglob("pack.json")) if json.loads(p.read_text()).get("kind") == "workflow-chain"]
    effects = {}
    for p in sorted((corpus / "registry/packs").rglob("pack.json")):
        for n in json.loads(p.read_text()).get("nodes", []):
            if isinstance(n.get("typeId"), str) and isinstance(n.get("capabilities"), list):
                effects[n["typeId"]] = "write" if "side-effectful" in n["capabilities"] else "pure"
    by_types_writers = sum(any(effects.get(n.get("typeId")) == "write" for n in c.get("dag", {}).get("nodes", []))
                           for c in chains)
    print(json.dumps({
        "nodePacks": len(node_packs),
        "nodeTypeIds": len(type_ids),
        "chains": len(chains),
        "chainsResolving": resolving,
        "unresolvedTypeIds": len(unresolved),
        "declaredWriters": writers,
        "vectors": len(vectors),
        "vectorsWithSettingsCompensation": with_policy,
        "vectorsWithProducedVariables": with_produced,
        "wholeValueParameters": whole_value,
        "chainPacks": len(all_chain_packs),
        "registryChainPacks": sum(m.get("kind") == "workflow-chain" for m in manifests),
        "chainsWithSideEffectfulTypes": by_types_writers,
    }, indent=2))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Independent check of `chainsmith inline --strict-schema` over every corpus chain.

For each conformance vector (../shared/corpus/vectors/**/*.json: the chain's defaults plus a
plausible value for every other declared parameter, see the corpus README), runs

    chainsmith inline --new "Strict check" PACK --chain ID --params PARAMS \
        --host tests/fixtures/host-permissive.json --strict-schema -o OUT

and validates OUT with Python `jsonschema` (Draft 2020-12), not chainsmith's validator,
against the seed WorkflowDefinition schema from ../shared/schemas plus the RFC 0151/0157 node
fields written out below (the same fields assets/schemas/README.md lists).

usage: scripts/strict-export-check.py [--bin target/debug/chainsmith] [--shared ../shared]
Prints "valid: N/M" and every failing pointer; exits 1 unless all are valid.
"""
import argparse
import copy
import json
import pathlib
import subprocess
import sys
import tempfile

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = pathlib.Path(__file__).resolve().parent.parent


def schema(shared: pathlib.Path) -> dict:
    wd = json.loads((shared / "schemas/workflow-definition.schema.json").read_text())
    policy = json.loads((shared / "schemas/compensation-policy.schema.json").read_text())
    for key in ("$schema", "$id", "title"):
        policy.pop(key, None)
    node = wd["$defs"]["WorkflowNode"]
    # RFC 0151/0157: the inverse action of a node, and the mark of an effect without one.
    node["properties"]["compensation"] = {
        "type": "object",
        "required": ["nodeTypeId"],
        "properties": {
            "nodeTypeId": {"type": "string", "minLength": 1, "pattern": "^[a-z][a-zA-Z0-9._-]*$"},
            "inputMapping": {"type": "object"},
            "retry": {
                "type": "object",
                "properties": {
                    "maxAttempts": {"type": "integer", "minimum": 1},
                    "backoffMs": {"type": "integer", "minimum": 0},
                },
                "additionalProperties": False,
            },
            "requiresApproval": {"type": "boolean"},
            "waiveRequiresApproval": {"type": "boolean"},
        },
        "additionalProperties": False,
    }
    node["properties"]["irreversibleEffect"] = {"type": "boolean"}
    node["if"] = {"properties": {"irreversibleEffect": {"const": True}}, "required": ["irreversibleEffect"]}
    node["then"] = {"not": {"required": ["compensation"]}}
    wd["$defs"]["WorkflowSettings"].setdefault("properties", {})["compensation"] = policy
    return wd


def validator(shared: pathlib.Path) -> Draft202012Validator:
    wd = schema(shared)
    base = wd["$id"].rsplit("/", 1)[0]
    # Outside the seed: accepted unchecked, as chainsmith does (assets/schemas/README.md).
    empty = Resource.from_contents({}, default_specification=DRAFT202012)
    registry = Registry().with_resources(
        (f"{base}/{name}", empty) for name in ("agent-ref.schema.json", "prompt-ref.schema.json")
    )
    Draft202012Validator.check_schema(wd)
    return Draft202012Validator(wd, registry=registry)


def pointer(path) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "target/debug/chainsmith"))
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    args = ap.parse_args()
    shared = pathlib.Path(args.shared)
    corpus = shared / "corpus"
    check = validator(shared)
    vectors = sorted((corpus / "vectors").rglob("*.json"))
    valid, failures = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for path in vectors:
            vector = json.loads(path.read_text())
            params = pathlib.Path(tmp, "params.json")
            params.write_text(json.dumps(vector["params"]))
            out = pathlib.Path(tmp, "out.json")
            out.unlink(missing_ok=True)
            run = subprocess.run(
                [args.bin, "inline", "--new", "Strict check", str(corpus / vector["pack"]),
                 "--chain", vector["chainId"], "--params", str(params),
                 "--host", str(ROOT / "tests/fixtures/host-permissive.json"),
                 "--strict-schema", "-o", str(out)],
                capture_output=True, text=True)
            name = path.relative_to(corpus / "vectors")
            if run.returncode != 0:
                last = run.stderr.strip().splitlines()[-1:] or [""]
                failures.append(f"{name}: exit {run.returncode}: {last[0]}")
                continue
            errors = sorted(check.iter_errors(json.loads(out.read_text())), key=lambda e: list(e.absolute_path))
            if errors:
                failures.extend(f"{name}: {pointer(e.absolute_path)}: {e.message[:160]}" for e in errors)
            else:
                valid += 1
    for f in failures:
        print(f)
    print(f"valid: {valid}/{len(vectors)}")
    return 0 if valid == len(vectors) and vectors else 1


if __name__ == "__main__":
    sys.exit(main())

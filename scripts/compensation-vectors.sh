#!/usr/bin/env bash
# Regenerates tests/fixtures/compensation/vectors.json by running the OpenWOP reference
# expander (openwop-examples examples/hosts/in-memory/src/workflow-chain-expansion.ts, read
# from a local checkout given as $1) over tests/fixtures/compensation/cases.json.
# Needs node >= 20 and npm (esbuild is fetched by npx to strip the TypeScript types).
set -euo pipefail
ref_ts=${1:?usage: scripts/compensation-vectors.sh PATH/TO/workflow-chain-expansion.ts}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npx --yes esbuild@0.24.0 "$ref_ts" --format=esm --platform=node --log-level=warning --outfile="$tmp/reference.mjs"
node scripts/compensation-vectors.mjs "$tmp/reference.mjs" tests/fixtures/compensation/cases.json \
  > tests/fixtures/compensation/vectors.json
echo "wrote tests/fixtures/compensation/vectors.json"

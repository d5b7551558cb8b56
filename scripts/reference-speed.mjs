#!/usr/bin/env node
// `chainsmith expand` against the OpenWOP reference expander on plain Node, whole process,
// on the whole_process bench's 5,000-node chain. The reference (openwop-examples
// examples/hosts/in-memory/src/workflow-chain-expansion.ts) is not part of this repository:
// pass its file. Each side reads the pack, parses it, expands `bench.heavy` with
// topic=billing (the reference gets the schema's defaults by hand: it applies none) and
// pretty-prints the result (to /dev/null, as benches/whole_process.rs does); 15 alternating
// pairs after 3 warm-up pairs, medians.
//
//   cargo build --release && cargo bench --bench whole_process -- --write /tmp/bench-pack.json
//   node scripts/reference-speed.mjs --reference PATH/workflow-chain-expansion.ts --pack /tmp/bench-pack.json
//
// Needs node >= 20 and npx (esbuild is fetched by npx to turn the TypeScript into a module).

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const reference = opt('--reference');
const pack = opt('--pack');
const chainsmith = opt('--chainsmith', join(repo, 'target', 'release', 'chainsmith'));
if (!reference || !pack) {
  console.error('usage: reference-speed.mjs --reference PATH/workflow-chain-expansion.ts --pack PACK.json [--chainsmith BIN]');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'chainsmith-reference-'));
execFileSync('npx', ['--yes', 'esbuild@0.24.0', reference, '--format=esm', '--platform=node',
  '--log-level=warning', `--outfile=${join(dir, 'reference.mjs')}`], { stdio: 'inherit' });
writeFileSync(join(dir, 'run.mjs'), `
import { readFileSync, writeSync } from 'node:fs';
import { expandChain } from './reference.mjs';
const chain = JSON.parse(readFileSync(process.argv[2], 'utf8')).chains.find((c) => c.chainId === 'bench.heavy');
const params = { topic: 'billing', count: 12, tags: ['a', 'b'] };
const out = expandChain(chain, { expansionId: 'b3nc', params, isTypeIdResolvable: () => true });
writeSync(1, JSON.stringify(out, null, 2) + '\\n');
`);

const sides = {
  chainsmith: [chainsmith, ['expand', pack, '--chain', 'bench.heavy', '--set', 'topic=billing', '--expansion-id', 'b3nc']],
  reference: [process.execPath, [join(dir, 'run.mjs'), pack]],
};
const time = ([cmd, argv]) => {
  const started = process.hrtime.bigint();
  const run = spawnSync(cmd, argv, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (run.status !== 0) throw new Error(`${cmd} failed`);
  return Number(process.hrtime.bigint() - started) / 1e6;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (let i = 0; i < 3; i++) Object.values(sides).forEach(time);
const taken = { chainsmith: [], reference: [], ratio: [] };
for (let i = 0; i < 15; i++) {
  const c = time(sides.chainsmith);
  const r = time(sides.reference);
  taken.chainsmith.push(c);
  taken.reference.push(r);
  taken.ratio.push(r / c);
}
console.log(`chainsmith expand ${median(taken.chainsmith).toFixed(1)} ms, reference on node ${process.version} ` +
  `${median(taken.reference).toFixed(1)} ms: chainsmith ${median(taken.ratio).toFixed(2)}x faster (median of pair ratios)`);

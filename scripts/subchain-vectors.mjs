#!/usr/bin/env node
// Generates the sub-chain co-expansion vectors in tests/fixtures/subchain/vectors/ by running
// the OpenWOP reference `expandChainTree` (openwop/openwop
// conformance/src/lib/workflow-chain-expansion.ts) over the cases below. The reference is not
// part of this repository: pass its file with --reference. See tests/fixtures/subchain/README.md.
//
//   node scripts/subchain-vectors.mjs --reference PATH/workflow-chain-expansion.ts [--corpus DIR]
//
// Needs node >= 20 and npx (esbuild is fetched by npx to turn the TypeScript into a module).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const referencePath = opt('--reference');
if (!referencePath) {
  console.error('usage: subchain-vectors.mjs --reference PATH/workflow-chain-expansion.ts [--corpus DIR]');
  process.exit(2);
}
const corpus = resolve(opt('--corpus', join(repo, '..', 'shared', 'corpus')));

// Transpile the reference as it is (types stripped, nothing else changed) and import it.
const out = join(mkdtempSync(join(tmpdir(), 'subchain-ref-')), 'reference.mjs');
execFileSync('npx', ['--yes', 'esbuild@0.24.2', resolve(referencePath), '--format=esm', '--platform=node', `--outfile=${out}`], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
const ref = await import(pathToFileURL(out).href);
const referenceSha256 = createHash('sha256').update(readFileSync(referencePath)).digest('hex');

const fixture = (name) => `tests/fixtures/subchain/packs/${name}.json`;
const kicktodo = 'corpus:registry/packs/core.openwop.workflows.kicktodo-challenge-factory/pack.json';
const readPack = (p) => JSON.parse(readFileSync(p.startsWith('corpus:') ? join(corpus, p.slice(7)) : join(repo, p), 'utf8'));

// Every case: the pack, the root chain, and what the host supplies. Params are complete for the
// root's schema, so a host that applies defaults first sees the same values.
const cases = [
  { name: 'two-level', pack: fixture('two-level'), chainId: 'vendor.test.parent', params: { topic: 'billing', limit: 3 } },
  { name: 'two-level-tenant', pack: fixture('two-level'), chainId: 'vendor.test.parent', tenant: 'Acme Corp/EU',
    params: { topic: 'billing', limit: 3 } },
  { name: 'three-level', pack: fixture('three-level'), chainId: 'vendor.test.top', params: { topic: 'maps', limit: 5 } },
  { name: 'shared-child', pack: fixture('shared'), chainId: 'vendor.test.fanout', params: { topic: 'audit' } },
  { name: 'params-in-child', pack: fixture('params'), chainId: 'vendor.test.caller',
    params: { topic: 'rust', limit: 40, tags: ['a', 'b'] } },
  { name: 'camel-case-child', pack: fixture('camel'), chainId: 'vendor.test.planDay', params: {} },
  { name: 'cycle', pack: fixture('cycle'), chainId: 'vendor.test.ping', params: {} },
  { name: 'cycle-depth-first', pack: fixture('cycle'), chainId: 'vendor.test.ping', maxDepth: 1, params: {} },
  { name: 'too-deep', pack: fixture('deep'), chainId: 'vendor.test.level0', maxDepth: 2, params: {} },
  { name: 'deep-at-limit', pack: fixture('deep'), chainId: 'vendor.test.level0', maxDepth: 4, params: {} },
  { name: 'undeclared-ref', pack: fixture('unresolved'), chainId: 'vendor.test.undeclared', params: {} },
  { name: 'declared-ref-missing', pack: fixture('unresolved'), chainId: 'vendor.test.missing', params: {} },
  { name: 'undeclared-ref-in-child', pack: fixture('unresolved'), chainId: 'vendor.test.deep-undeclared', params: {} },
  { name: 'external-ref', pack: fixture('uses-external'), external: [fixture('external-lib')],
    chainId: 'vendor.test.host-chain', params: { topic: 'lib' } },
  { name: 'kicktodo-challenge-factory', pack: kicktodo, chainId: 'openwop-app.kicktodo.challenge-factory', tenant: 'tenant-a',
    params: { candidateId: 'cand-1', topic: 'Rust ownership', audience: 'developers', authorSubject: 'user-7',
              provider: 'anthropic', model: 'claude-sonnet-4-6', checkpointEvery: '3' } },
];

const fragment = (f) => ({ nodes: f.nodes, edges: f.edges, idMap: Object.fromEntries(f.idMap) });
mkdirSync(join(repo, 'tests/fixtures/subchain/vectors'), { recursive: true });
for (const c of cases) {
  const tenant = c.tenant ?? 'local';
  const maxDepth = c.maxDepth ?? 8;
  const expansionId = c.expansionId ?? 't0k3';
  const root = readPack(c.pack).chains.find((ch) => ch.chainId === c.chainId);
  // The reference's one map of chains by chainId: the pack's own chains plus the external
  // chains the host resolved.
  const siblingChains = new Map();
  for (const p of [c.pack, ...(c.external ?? [])]) for (const ch of readPack(p).chains) siblingChains.set(ch.chainId, ch);
  const vector = {
    description: `expandChainTree(${c.chainId}) — ${c.name}`,
    pack: c.pack,
    ...(c.external ? { externalPacks: c.external } : {}),
    chainId: c.chainId,
    expansionId,
    tenant,
    maxDepth,
    params: c.params,
    generatedBy: { reference: 'openwop/openwop conformance/src/lib/workflow-chain-expansion.ts expandChainTree', referenceSha256 },
  };
  try {
    const tree = ref.expandChainTree(root, {
      parentExpansionId: expansionId, tenantId: tenant, params: c.params, isTypeIdResolvable: () => true, siblingChains, maxDepth,
    });
    vector.expected = {
      parent: fragment(tree.parent),
      children: tree.children.map((ch) => ({ workflowId: ch.childWorkflowId, chainId: ch.chainId, ...fragment(ch.fragment) })),
      subChainWorkflowIds: tree.children.map((ch) => ch.childWorkflowId),
    };
  } catch (e) {
    if (!e.code) throw e;
    const details = {};
    for (const k of ['chainId', 'ref', 'maxDepth']) if (e[k] !== undefined) details[k] = e[k];
    vector.expectedError = { code: e.code, message: e.message, details };
  }
  writeFileSync(join(repo, `tests/fixtures/subchain/vectors/${c.name}.json`), JSON.stringify(vector, null, 2) + '\n');
  console.log(`${c.name}: ${vector.expected ? `${vector.expected.children.length} children` : vector.expectedError.code}`);
}

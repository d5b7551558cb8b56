#!/usr/bin/env node
// What `openwop packs install NAME[@SPEC]` accepts, checked on a registry FOLDER that stands
// for the registry's HTTP tree, or read by URL as the reference CLI reads it (Node's built-in
// fetch): an independent re-statement (node:crypto, node:zlib, node:fs, fetch only) of the
// reference CLI's install recipe, for chainsmith's tests to run on what `chainsmith pack
// publish` writes and what `chainsmith serve` serves.
//
// usage: node openwop_verify.mjs REGISTRY_DIR|URL NAME[@SPEC]... [--tree v1|v2]
//
// Prints one JSON line per spec, in order (several specs share one process: Node starts
// slowly). Accepted: {"accepted":true,"name","version","tree","integrity","keyId","recipe"}
// Refused: {"accepted":false,"spec","step","message"} where step is one of discovery,
// resolve, fetch, integrity, signature. Exit 0 when every spec is accepted, else 1.
// Usage errors exit 2.
//
// The recipe, as the reference CLI reads a registry:
// - Discovery: `/.well-known/openwop-registry.json`. No document: the legacy `/v1/...`
//   templates. Otherwise `endpoints.v2` when it names all five templates (or --tree v2),
//   else the flat templates overlaid by `endpoints.v1`; the chosen tree must name all
//   five. `publicKey` always comes from the flat map.
// - Every path is a template filled with one URI-encoded segment per parameter.
// - Version: an exact semver is a pin (the index is not read); none or `latest` is the
//   index's `latest` unless it is yanked, else the highest unyanked stable, else the
//   highest unyanked prerelease; a range is the highest unyanked match.
// - Integrity: `sha256-` + base64 of the tarball's SHA-256 must equal the manifest's
//   `integrity` (the reference skips the check when the manifest has none; so does this).
// - v1: the key id is `signing.keyId` or `signing.publicKeyRef`; the 64-byte signature is
//   served at `versionSignature`; the key at the flat `publicKey` template; method `manual`
//   signs the tarball's `pack.json` bytes, any other (or none) the whole tarball.
// - v2: `signing` has no v1 field and `scheme` is ed25519-canonical-json; `keyId` is in the
//   discovery document's `signingKeys[]` and one of its `permittedNamespaces` covers the
//   name; the tarball's `pack.json` is NAME@VERSION, names the same key if it names one,
//   and is its own RFC 8785 form; the signature is 64 bytes; Ed25519 verifies over the
//   packed bytes with the key at `publicKeyUrl` (else the `publicKey` template).

import { createHash, createPublicKey, verify as edVerify } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const TEMPLATES = ['registryIndex', 'packMetadata', 'versionManifest', 'versionTarball', 'versionSignature'];
const LEGACY = {
  registryIndex: '/v1/index.json',
  packMetadata: '/v1/packs/{name}/index.json',
  versionManifest: '/v1/packs/{name}/-/{version}.json',
  versionTarball: '/v1/packs/{name}/-/{version}.tgz',
  versionSignature: '/v1/packs/{name}/-/{version}.sig',
  publicKey: '/keys/{keyId}.pub',
};
const V2_SCHEME = 'ed25519-canonical-json';

class Refusal extends Error {
  constructor(step, message) {
    super(message);
    this.step = step;
  }
}

async function main(argv) {
  const args = [...argv];
  let tree;
  const at = args.indexOf('--tree');
  if (at >= 0) {
    tree = args[at + 1];
    args.splice(at, 2);
    if (tree !== 'v1' && tree !== 'v2') usage('--tree takes v1 or v2');
  }
  if (args.length < 2) usage('expected REGISTRY_DIR|URL NAME[@SPEC]...');
  const [root, ...specs] = args;
  let code = 0;
  for (const spec of specs) {
    try {
      const verdict = await install(root, spec, tree);
      process.stdout.write(JSON.stringify({ accepted: true, ...verdict }) + '\n');
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      process.stdout.write(JSON.stringify({ accepted: false, spec, step: err.step, message: err.message }) + '\n');
      code = 1;
    }
  }
  return code;
}

function usage(why) {
  process.stderr.write(`openwop_verify.mjs: ${why}\nusage: node openwop_verify.mjs REGISTRY_DIR|URL NAME[@SPEC]... [--tree v1|v2]\n`);
  process.exit(2);
}

// ── the folder as an HTTP tree ───────────────────────────────────────────────

class Folder {
  constructor(root) {
    this.root = root;
    this.origin = null;
  }

  // The path of a path or URL as the registry serves it; a URL on another origin is refused.
  pathname(path) {
    if (path.startsWith('/')) return path;
    const url = new URL(path);
    if (this.origin === null || url.origin !== this.origin) {
      throw new Refusal('fetch', `${path} is not on this registry`);
    }
    return url.pathname;
  }

  // A path or URL as the registry serves it; `null` when it would be a 404.
  async bytes(path) {
    const pathname = this.pathname(path);
    const segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (segments.some((s) => s === '.' || s === '..' || s.includes('/'))) {
      throw new Refusal('fetch', `${path} leaves the registry`);
    }
    const file = join(this.root, ...segments);
    if (!existsSync(file) || !statSync(file).isFile()) return null;
    return readFileSync(file);
  }

  async require(path, step) {
    const body = await this.bytes(path);
    if (body === null) throw new Refusal(step, `HTTP 404 for ${path}`);
    return body;
  }

  async json(path, step) {
    const body = await this.require(path, step);
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      throw new Refusal(step, `${path} is not JSON`);
    }
  }
}

// ── the registry by URL ──────────────────────────────────────────────────────

// The same reads over HTTP(S): a path is appended to the base URL; an absolute URL on the
// discovery document's own origin is read from the base too (the base mirrors it), any
// other is refused. 404 and 410 are "not there"; any other failure refuses at `fetch`.
class Http extends Folder {
  constructor(base) {
    super(null);
    this.base = base.replace(/\/+$/, '');
  }

  async bytes(path) {
    const url = this.base + this.pathname(path);
    let res;
    try {
      res = await fetch(url, { redirect: 'follow' });
    } catch (err) {
      throw new Refusal('fetch', `${url}: ${err.cause?.message ?? err.message}`);
    }
    if (res.status === 404 || res.status === 410) return null;
    if (!res.ok) throw new Refusal('fetch', `HTTP ${res.status} for ${url}`);
    return Buffer.from(await res.arrayBuffer());
  }
}

function onlyStrings(value) {
  const out = {};
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) if (typeof v === 'string' && !k.startsWith('_')) out[k] = v;
  }
  return out;
}

async function openRegistry(folder, forced) {
  const doc = await folder.bytes('/.well-known/openwop-registry.json');
  let parsed = null;
  if (doc !== null) {
    try {
      parsed = JSON.parse(doc.toString('utf8'));
    } catch {
      throw new Refusal('discovery', 'the discovery document is not JSON');
    }
  }
  if (!parsed || typeof parsed.endpoints !== 'object' || parsed.endpoints === null) {
    if (forced === 'v2') throw new Refusal('discovery', 'no discovery document endpoints, so no v2 tree');
    return { tree: 'v1', endpoints: { ...LEGACY }, signingKeys: null };
  }
  if (typeof parsed.url === 'string') folder.origin = new URL(parsed.url).origin;
  const flat = onlyStrings(parsed.endpoints);
  const v2 = onlyStrings(parsed.endpoints.v2);
  const v2Whole = TEMPLATES.every((k) => k in v2);
  let tree;
  let templates;
  if (forced === 'v2' || (forced === undefined && v2Whole)) {
    if (!v2Whole) throw new Refusal('discovery', 'the discovery document names no v2 tree');
    tree = 'v2';
    templates = v2;
  } else {
    tree = 'v1';
    templates = { ...flat, ...onlyStrings(parsed.endpoints.v1) };
  }
  const missing = TEMPLATES.filter((k) => !(k in templates));
  if (missing.length > 0) throw new Refusal('discovery', `the ${tree} tree names no ${missing.join(', ')}`);
  return {
    tree,
    endpoints: { ...templates, publicKey: flat.publicKey ?? LEGACY.publicKey },
    signingKeys: Array.isArray(parsed.signingKeys) ? parsed.signingKeys : null,
  };
}

function fill(registry, key, params) {
  const template = registry.endpoints[key];
  return template.replace(/\{([A-Za-z]+)\}/g, (_, p) => {
    if (params[p] === undefined) throw new Refusal('fetch', `${key} needs {${p}}`);
    return encodeURIComponent(params[p]);
  });
}

// ── versions ─────────────────────────────────────────────────────────────────

const SEMVER = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parse(text) {
  const m = SEMVER.exec(String(text).trim());
  return m ? { nums: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] } : null;
}

function compare(a, b) {
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i] < y.nums[i] ? -1 : 1;
  if (!x.pre.length || !y.pre.length) return (x.pre.length ? -1 : 0) + (y.pre.length ? 1 : 0);
  for (let i = 0; ; i++) {
    if (i === x.pre.length || i === y.pre.length) return x.pre.length - y.pre.length;
    const [p, q] = [x.pre[i], y.pre[i]];
    if (p === q) continue;
    const [pn, qn] = [/^\d+$/.test(p), /^\d+$/.test(q)];
    if (pn && qn) return Number(p) < Number(q) ? -1 : 1;
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
}

// One comparator as [lowest allowed, lowest excluded] bounds with inclusivity; partial
// versions and x/X/* wildcards widen to the range they name.
function comparator(text) {
  const m = /^(\^|~|>=|<=|>|<|=)?v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(-[0-9A-Za-z.-]+)?$/.exec(text);
  if (!m) throw new Refusal('resolve', `unsupported range comparator "${text}"`);
  const op = m[1] ?? '';
  const parts = [m[2], m[3], m[4]];
  const given = parts.findIndex((p) => p === undefined || /^[xX*]$/.test(p));
  const exact = given === -1 ? 3 : given;
  const n = parts.map((p, i) => (i < exact ? Number(p) : 0));
  const floor = `${n[0]}.${n[1]}.${n[2]}${m[5] ?? ''}`;
  const bump = (i) => n.map((v, j) => (j < i ? v : j === i ? v + 1 : 0)).join('.');
  let ceiling = null;
  if (op === '^') {
    const first = n.findIndex((v) => v !== 0);
    const at = first === -1 || first >= exact ? Math.max(exact - 1, 0) : first;
    ceiling = bump(at);
  } else if (op === '~') {
    ceiling = bump(exact >= 2 ? 1 : 0);
  } else if (op === '' || op === '=') {
    if (exact === 0) return () => true;
    if (exact < 3) ceiling = bump(exact - 1);
    else return (v) => compare(v, floor) === 0;
  }
  if (ceiling !== null) {
    const below = `${ceiling}-0`;
    return (v) => compare(v, floor) >= 0 && compare(v, below) < 0;
  }
  const tests = { '>=': (c) => c >= 0, '>': (c) => c > 0, '<=': (c) => c <= 0, '<': (c) => c < 0 };
  return (v) => tests[op](compare(v, floor));
}

function satisfies(version, range) {
  const v = parse(version);
  if (!v) return false;
  return range.split('||').some((alternative) => {
    const items = alternative.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split(/\s+/).filter(Boolean);
    if (v.pre.length && !items.some((c) => c.includes('-'))) return false;
    return items.every((c) => comparator(c)(version));
  });
}

async function resolve(folder, registry, name, spec) {
  if (spec && parse(spec)) return spec.trim();
  const index = await folder.json(fill(registry, 'packMetadata', { name }), 'resolve');
  const rows = Array.isArray(index.versions) ? index.versions : [];
  const open = rows.filter((r) => r && typeof r.version === 'string' && parse(r.version) && !r.yanked).map((r) => r.version);
  const highest = (list) => [...list].sort(compare).pop();
  if (!spec || spec === 'latest') {
    const named = rows.find((r) => r && r.version === index.latest);
    if (typeof index.latest === 'string' && (rows.length === 0 || (named && !named.yanked))) return index.latest;
    const best = highest(open.filter((v) => parse(v).pre.length === 0)) ?? highest(open);
    if (!best) throw new Refusal('resolve', `${name} has no unyanked version`);
    return best;
  }
  const best = highest(open.filter((v) => satisfies(v, spec)));
  if (!best) throw new Refusal('resolve', `no unyanked version of ${name} satisfies "${spec}"`);
  return best;
}

// ── the tarball ──────────────────────────────────────────────────────────────

function packedManifest(tgz) {
  let tar;
  try {
    tar = gunzipSync(tgz);
  } catch (err) {
    throw new Refusal('signature', `the tarball does not gunzip: ${err.message}`);
  }
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    const nameField = header.subarray(0, 100);
    const nul = nameField.indexOf(0);
    const name = nameField.subarray(0, nul === -1 ? 100 : nul).toString('utf8');
    if (name === '') break;
    const size = parseInt(header.subarray(124, 136).toString('ascii').replace(/\0/g, '').trim(), 8) || 0;
    const type = String.fromCharCode(header[156]);
    if (type === 'x' || type === 'g' || type === 'L') {
      throw new Refusal('signature', 'the tarball uses extended (pax/GNU) headers');
    }
    if (name === 'pack.json' || name === './pack.json') return tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Refusal('signature', 'the tarball has no pack.json');
}

// RFC 8785 for what JSON.parse returns: keys sorted by UTF-16 code units (the default
// sort), strings and numbers as ECMAScript writes them.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function covers(entry, name) {
  if (typeof entry !== 'string') return false;
  if (!entry.endsWith('.*')) return entry === name;
  const prefix = entry.slice(0, -1);
  return name.length > prefix.length && name.startsWith(prefix);
}

function checkSignature(ok, sig, key, bytes, what) {
  if (sig.length !== 64) throw new Refusal('signature', `the signature is ${sig.length} bytes, not 64`);
  let publicKey;
  try {
    publicKey = createPublicKey(key.toString('utf8'));
  } catch (err) {
    throw new Refusal('signature', `the public key does not parse: ${err.message}`);
  }
  if (!edVerify(null, bytes, publicKey, sig)) throw new Refusal('signature', `Ed25519 does not verify over ${what}`);
  return ok;
}

async function verifyV1(folder, registry, name, version, manifest, tgz) {
  const signing = manifest.signing ?? {};
  const keyId = signing.keyId ?? signing.publicKeyRef;
  if (!keyId) throw new Refusal('signature', 'the version manifest names no signing key');
  const sig = await folder.require(fill(registry, 'versionSignature', { name, version }), 'signature');
  const key = await folder.require(fill(registry, 'publicKey', { keyId }), 'signature');
  const method = signing.method ?? 'ed25519';
  const manual = method === 'manual';
  const bytes = manual ? packedManifest(tgz) : tgz;
  return checkSignature({ keyId, recipe: method }, sig, key, bytes, manual ? 'pack.json' : 'the tarball');
}

async function verifyV2(folder, registry, name, version, manifest, tgz) {
  const signing = manifest.signing;
  if (!signing || typeof signing !== 'object') throw new Refusal('signature', 'the version manifest is not signed');
  const legacy = ['method', 'publicKeyRef', 'signatureRef'].filter((k) => k in signing);
  if (legacy.length) throw new Refusal('signature', `a v2 signing block carries v1 fields: ${legacy.join(', ')}`);
  if (signing.scheme !== V2_SCHEME) throw new Refusal('signature', `scheme ${JSON.stringify(signing.scheme)}`);
  const keyId = signing.keyId;
  if (typeof keyId !== 'string' || keyId === '') throw new Refusal('signature', 'signing.keyId is missing');
  if (!registry.signingKeys) throw new Refusal('signature', 'the registry lists no signingKeys[]');
  const entry = registry.signingKeys.find((k) => k && k.keyId === keyId);
  if (!entry) throw new Refusal('signature', `key ${keyId} is not in signingKeys[]`);
  const namespaces = Array.isArray(entry.permittedNamespaces) ? entry.permittedNamespaces : [];
  if (!namespaces.some((ns) => covers(ns, name))) throw new Refusal('signature', `key ${keyId} may not sign ${name}`);
  const packed = packedManifest(tgz);
  let inner;
  try {
    inner = JSON.parse(packed.toString('utf8'));
  } catch {
    throw new Refusal('signature', 'the packed pack.json is not JSON');
  }
  if (inner?.name !== name || inner?.version !== version) {
    throw new Refusal('signature', `the packed pack.json is ${inner?.name}@${inner?.version}`);
  }
  if (inner?.signing?.keyId !== undefined && inner.signing.keyId !== keyId) {
    throw new Refusal('signature', `the packed pack.json names key ${inner.signing.keyId}`);
  }
  if (canonical(inner) !== packed.toString('utf8')) throw new Refusal('signature', 'the packed pack.json is not canonical');
  const sig = await folder.require(fill(registry, 'versionSignature', { name, version }), 'signature');
  const keyPath = typeof entry.publicKeyUrl === 'string' && entry.publicKeyUrl !== ''
    ? entry.publicKeyUrl
    : fill(registry, 'publicKey', { keyId });
  const key = await folder.require(keyPath, 'signature');
  return checkSignature({ keyId, recipe: V2_SCHEME }, sig, key, packed, 'pack.json');
}

async function install(root, spec, forced) {
  const at = spec.lastIndexOf('@');
  const [name, requested] = at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, undefined];
  const folder = /^https?:\/\//i.test(root) ? new Http(root) : new Folder(root);
  const registry = await openRegistry(folder, forced);
  const version = await resolve(folder, registry, name, requested);
  const manifest = await folder.json(fill(registry, 'versionManifest', { name, version }), 'fetch');
  const tgz = await folder.require(fill(registry, 'versionTarball', { name, version }), 'fetch');
  const integrity = 'sha256-' + createHash('sha256').update(tgz).digest('base64');
  if (manifest.integrity && manifest.integrity !== integrity) {
    throw new Refusal('integrity', `the manifest says ${manifest.integrity}, the tarball hashes to ${integrity}`);
  }
  const check = registry.tree === 'v2' ? verifyV2 : verifyV1;
  const signed = await check(folder, registry, name, version, manifest, tgz);
  return { name, version, tree: registry.tree, integrity, ...signed };
}

process.exitCode = await main(process.argv.slice(2));

/**
 * Generated attack on the canonical request (issue 35, done-means 2): known create and scale requests,
 * mutated — query keys, trailing and doubled slashes, percent-encoded segments, key case and Unicode
 * folds (ſ → s, K → k), duplicate keys, method overrides in the query and the body, numbers spelled
 * otherwise, keys escaped, unknown keys — each applied under a budget through the one apply path
 * against the emulator. Every mutation must end one of three ways:
 *
 *   - refused as invalid (exit 2) with nothing sent, not even a token request;
 *   - refused as unpriced (exit 3, budget_unpriced) with no change sent;
 *   - priced exactly as the base request, then run as exactly the base request (one change sent, its
 *     method and path the base's, no query), and the account's burn moved by exactly the price.
 *
 * Never priced lower, never run as another method. Each mutation alone on each base, then seeded random
 * combinations (MUTATION_SEED=<n> replays a run; MUTATION_N sets how many).
 */
import { allProviders } from '../../../engine/providers/index.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID, EMULATOR_DEMO_IDS, startEmulator, type Emulator } from '../../../emulator/index.js';
import { AssistantError } from '../../../engine/core/errors.js';
import { checkForPreview } from '../../../engine/core/plan/check.js';
import type { PlanBackend } from '../../../engine/core/plan/backend.js';
import type { CanonicalRequest, ChangePrice } from '../../../engine/core/provider.js';
import { createGpuCloudClient } from '../../../engine/providers/gpucloud/client.js';
import { burnGpuCloud } from '../../../engine/providers/gpucloud/cost.js';
import type { GpuCloudClient } from '../../../engine/providers/gpucloud/types.js';
import { requestTarget } from '../../../engine/providers/gpucloud/request.js';
import { applyPlan } from '../../../machines/apply/index.js';
import { pricePlan } from '../../../machines/apply/price.js';
import { mulberry32 } from '../../support/random.js';
import { tempDir } from '../../support/temp.js';

const PROVIDERS = await allProviders();
const SEED = process.env.MUTATION_SEED ? Number(process.env.MUTATION_SEED) >>> 0 : 0x35_35_35;
const RANDOM_N = process.env.MUTATION_N ? Number(process.env.MUTATION_N) : 80;
console.log(`money.mutations: seed ${SEED} (MUTATION_SEED=${SEED} to replay), ${RANDOM_N} random combinations`);

// ------------------------------------------------------------------------------------------ JSON as written

/** A JSON value as text is written: objects as key/value pairs (so a key can repeat), numbers as written. */
type J = null | boolean | string | { num: string } | J[] | { pairs: [string, J][] };
const isPairs = (v: J): v is { pairs: [string, J][] } => typeof v === 'object' && v !== null && !Array.isArray(v) && 'pairs' in v;

function toJ(v: unknown): J {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return { num: String(v) };
  if (Array.isArray(v)) return v.map(toJ);
  return { pairs: Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, toJ(x)]) };
}

/** Serialises `j`; `key` writes a key (a mutation may escape it), numbers as written. */
function write(j: J, key: (k: string) => string = (k) => JSON.stringify(k)): string {
  if (j === null || typeof j === 'boolean' || typeof j === 'string') return JSON.stringify(j);
  if (Array.isArray(j)) return `[${j.map((x) => write(x, key)).join(',')}]`;
  if ('num' in j) return j.num;
  return `{${j.pairs.map(([k, v]) => `${key(k)}:${write(v, key)}`).join(',')}}`;
}

const clone = (j: J): J => JSON.parse(JSON.stringify(j)) as J;

/** Every object of `j` (depth first), so a mutation can pick one. */
function objects(j: J, out: { pairs: [string, J][] }[] = []): { pairs: [string, J][] }[] {
  if (Array.isArray(j)) j.forEach((x) => objects(x, out));
  else if (isPairs(j)) {
    out.push(j);
    j.pairs.forEach(([, v]) => objects(v, out));
  }
  return out;
}

// ------------------------------------------------------------------------------------------ requests

interface Req {
  method: string;
  path: string;
  body?: J;
  /** How keys are written (a mutation may escape them). */
  key?: (k: string) => string;
}

const H = { image: 'ubuntu-24.04-cuda-12.8-open-docker', description: '', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] };
const BASES: Record<string, Req> = {
  'instance create': { method: 'POST', path: '/v1/instances', body: toJ({ instance_type: '1V100.6V', ...H, hostname: 'mut-i', location_code: 'FIN-01', os_volume: { name: 'os', size: 120 }, volumes: [{ name: 'data', size: 200, type: 'HDD' }] }) },
  'volume create': { method: 'POST', path: '/v1/volumes', body: toJ({ type: 'NVMe', name: 'mut-v', size: 300, location_code: 'FIN-01' }) },
  'cluster create': { method: 'POST', path: '/v1/clusters', body: toJ({ cluster_type: '16H100', image: 'ubuntu-24.04-cuda-13.0-cluster', hostname: 'mut-c', description: '', location_code: 'FIN-03', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID], shared_volume: { name: 'sfs', size: 2000 } }) },
  'container create': {
    method: 'POST',
    path: '/v1/container-deployments',
    body: toJ({ name: 'mut-web', is_spot: false, compute: { name: 'H100', size: 2 }, scaling: { min_replica_count: 0, max_replica_count: 3 }, containers: [{ image: 'ghcr.io/me/web:1.0', exposed_port: 8080 }] }),
  },
  'job create': {
    method: 'POST',
    path: '/v1/job-deployments',
    body: toJ({ name: 'mut-job', compute: { name: 'H100', size: 1 }, scaling: { max_replica_count: 4, queue_message_ttl_seconds: 300, deadline_seconds: 3600 }, containers: [{ image: 'ghcr.io/me/job:1.0', exposed_port: 8080 }] }),
  },
  'container scale-up': { method: 'PATCH', path: '/v1/container-deployments/web/scaling', body: toJ({ max_replica_count: 6 }) },
  'container type change': { method: 'PATCH', path: '/v1/container-deployments/web', body: toJ({ compute: { name: 'H200', size: 1 } }) },
  'container spot switch': { method: 'PATCH', path: '/v1/container-deployments/web', body: toJ({ is_spot: false }) },
  'job scale-up': { method: 'PATCH', path: '/v1/job-deployments/nightly/scaling', body: toJ({ max_replica_count: 5 }) },
  'volume resize': { method: 'PUT', path: '/v1/volumes', body: toJ({ action: 'resize', id: EMULATOR_DEMO_IDS.volume, size: 800 }) },
};

type Mutation = { name: string; apply: (r: Req, rnd: () => number) => Req | undefined };
const pick = <T>(xs: readonly T[], rnd: () => number): T => xs[Math.floor(rnd() * xs.length)]!;
const withBody = (r: Req, f: (body: J, rnd: () => number) => J | undefined) => (rnd: () => number) => (r.body === undefined ? undefined : ((b) => (b === undefined ? undefined : { ...r, body: b }))(f(clone(r.body), rnd)));
/** Applies `f` to one object of the body that has keys, chosen at random. */
const onObject = (f: (o: { pairs: [string, J][] }, rnd: () => number) => void) => (body: J, rnd: () => number) => {
  const objs = objects(body).filter((o) => o.pairs.length);
  if (!objs.length) return undefined;
  f(pick(objs, rnd), rnd);
  return body;
};
const foldLetters = (k: string) => k.replace(/s/g, '\u017F').replace(/k/g, '\u212A');

const MUTATIONS: Mutation[] = [
  { name: 'query ?utm=1', apply: (r) => ({ ...r, path: `${r.path}?utm=1` }) },
  { name: 'query ?_method=DELETE', apply: (r) => ({ ...r, path: `${r.path}?_method=DELETE` }) },
  { name: 'query ?X-HTTP-Method-Override=DELETE', apply: (r) => ({ ...r, path: `${r.path}?X-HTTP-Method-Override=DELETE` }) },
  { name: 'query ?timeout=0', apply: (r) => ({ ...r, path: `${r.path}?timeout=0` }) },
  { name: 'trailing slash', apply: (r) => ({ ...r, path: `${r.path}/` }) },
  { name: 'two trailing slashes', apply: (r) => ({ ...r, path: `${r.path}//` }) },
  { name: 'doubled slash inside', apply: (r) => ({ ...r, path: r.path.replace('/v1/', '/v1//') }) },
  { name: 'percent-encoded route letter', apply: (r) => ({ ...r, path: r.path.replace(/\/v1\/(\w)/, (_m, c: string) => `/v1/%${c.charCodeAt(0).toString(16)}`) }) },
  { name: 'percent-encoded ID letter', apply: (r) => (r.path.split('/').length > 3 ? { ...r, path: r.path.replace(/^(\/v1\/[^/]+\/)(\w)/, (_m, a: string, c: string) => `${a}%${c.charCodeAt(0).toString(16).toUpperCase()}`) } : undefined) },
  { name: 'upper-case route word', apply: (r) => ({ ...r, path: r.path.replace(/^\/v1\/(\w)/, (_m, c: string) => `/v1/${c.toUpperCase()}`) }) },
  { name: 'upper-case ID', apply: (r) => (r.path.split('/').length > 3 ? { ...r, path: r.path.replace(/^(\/v1\/[^/]+\/)([^/]+)/, (_m, a: string, id: string) => `${a}${id.toUpperCase()}`) } : undefined) },
  { name: 'method in lower case', apply: (r) => ({ ...r, method: r.method.toLowerCase() }) },
  { name: 'method padded and mixed case', apply: (r) => ({ ...r, method: ` ${r.method[0]}${r.method.slice(1).toLowerCase()} ` }) },
  { name: 'keys upper-cased', apply: (r, rnd) => withBody(r, onObject((o) => (o.pairs = o.pairs.map(([k, v]) => [k.toUpperCase(), v]))))(rnd) },
  { name: 'keys folded with ſ and K', apply: (r, rnd) => withBody(r, onObject((o) => (o.pairs = o.pairs.map(([k, v]) => [foldLetters(k), v]))))(rnd) },
  { name: 'one key in title case', apply: (r, rnd) => withBody(r, onObject((o, g) => { const i = Math.floor(g() * o.pairs.length); o.pairs[i]![0] = o.pairs[i]![0].replace(/(^|_)(\w)/g, (_m, a: string, c: string) => `${a}${c.toUpperCase()}`); }))(rnd) },
  { name: 'a key repeated', apply: (r, rnd) => withBody(r, onObject((o, g) => { const [k, v] = pick(o.pairs, g); o.pairs.push([k, typeof v === 'object' && v !== null && 'num' in v ? { num: String(Number(v.num) * 10) } : v]); }))(rnd) },
  { name: 'a key repeated in another case', apply: (r, rnd) => withBody(r, onObject((o, g) => { const [k, v] = pick(o.pairs, g); o.pairs.push([k.toUpperCase(), typeof v === 'object' && v !== null && 'num' in v ? { num: String(Number(v.num) * 10) } : v]); }))(rnd) },
  { name: 'a key repeated with ſ/K', apply: (r, rnd) => withBody(r, onObject((o, g) => { const withFold = o.pairs.filter(([k]) => /[sk]/.test(k)); if (!withFold.length) return; const [k, v] = pick(withFold, g); o.pairs.push([foldLetters(k), typeof v === 'object' && v !== null && 'num' in v ? { num: String(Number(v.num) * 10) } : v]); }))(rnd) },
  { name: 'body key _method', apply: (r, rnd) => withBody(r, onObject((o) => void o.pairs.push(['_method', 'DELETE'])))(rnd) },
  { name: 'body key X-HTTP-Method-Override', apply: (r, rnd) => withBody(r, onObject((o) => void o.pairs.push(['X-HTTP-Method-Override', 'DELETE'])))(rnd) },
  { name: 'keys written with \\u escapes', apply: (r) => (r.body === undefined ? undefined : { ...r, key: (k) => `"${[...k].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"` }) },
  { name: 'numbers as 1e2 forms', apply: (r, rnd) => withBody(r, (b) => { for (const o of objects(b)) for (const p of o.pairs) if (typeof p[1] === 'object' && p[1] !== null && 'num' in p[1]) p[1] = { num: `${Number(p[1].num) / 10}e1` }; void rnd; return b; })(rnd) },
  { name: 'numbers with .0', apply: (r, rnd) => withBody(r, (b) => { for (const o of objects(b)) for (const p of o.pairs) if (typeof p[1] === 'object' && p[1] !== null && 'num' in p[1]) p[1] = { num: `${p[1].num}.0` }; void rnd; return b; })(rnd) },
  { name: 'a number as a string', apply: (r, rnd) => withBody(r, (b, g) => { const nums = objects(b).flatMap((o) => o.pairs.filter((p) => typeof p[1] === 'object' && p[1] !== null && 'num' in p[1])); if (!nums.length) return undefined; const p = pick(nums, g); p[1] = (p[1] as { num: string }).num; return b; })(rnd) },
  { name: 'an unknown key', apply: (r, rnd) => withBody(r, onObject((o) => void o.pairs.push(['count', { num: '8' }])))(rnd) },
  { name: 'keys in reverse order', apply: (r, rnd) => withBody(r, (b) => { for (const o of objects(b)) o.pairs.reverse(); void rnd; return b; })(rnd) },
];

// ------------------------------------------------------------------------------------------ the rig

let emu: Emulator;
let client: GpuCloudClient;
const home = tempDir('assistant-mutations-');

test.before(async () => {
  emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  // The client's own rate limits (60 a minute per path) would make this test wait, not test anything.
  client = createGpuCloudClient({ baseUrl: emu.url, credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret }, fetch: emu.fetch, retry: { delaysMs: [1] }, rateLimit: { perProject: 1e9, perPath: 1e9 } });
});
test.after(async () => {
  await client.close?.();
  await emu.close();
});

const backend = (): PlanBackend => ({
  providers: PROVIDERS,
  predefined: { DEFAULT_SSH_KEY_ID: EMULATOR_DEFAULT_SSH_KEY_ID, DEFAULT_LOCATION: 'FIN-01' },
  runContext: () => ({ client: async () => client, signal: new AbortController().signal }),
});

/** The demo account plus a spot container deployment `web` (H100 ×1, up to 2 replicas) and a job `nightly` (H100 ×1, up to 2). */
async function freshAccount(): Promise<void> {
  emu.reset();
  const container = [{ image: 'ghcr.io/me/web:1.0', exposed_port: 8080 }];
  await client.request({ method: 'POST', path: '/v1/container-deployments', body: JSON.stringify({ name: 'web', is_spot: true, compute: { name: 'H100', size: 1 }, scaling: { min_replica_count: 1, max_replica_count: 2 }, containers: container }), signal: new AbortController().signal });
  await client.request({ method: 'POST', path: '/v1/job-deployments', body: JSON.stringify({ name: 'nightly', compute: { name: 'H100', size: 1 }, scaling: { max_replica_count: 2, queue_message_ttl_seconds: 300, deadline_seconds: 3600 }, containers: container }), signal: new AbortController().signal });
}

const planOf = (r: Req) => ({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', r.method, r.path, ...(r.body === undefined ? [] : [write(r.body, r.key)])], reason: 'a mutated request' }] });
const burn = async () => (await burnGpuCloud((args) => client.request({ method: 'GET', path: args[2]!, signal: new AbortController().signal }).then((res) => res.data))).per_hour;

interface Priced {
  request: CanonicalRequest;
  price: ChangePrice;
}

async function priceOf(r: Req): Promise<Priced | { invalid: string }> {
  const { validation, previewable } = checkForPreview(planOf(r), { providers: PROVIDERS, predefined: backend().predefined });
  if (!previewable) return { invalid: validation.problems.map((p) => p.message).join('; ') };
  const priced = await pricePlan(backend(), previewable);
  return { request: previewable.requests[0]!, price: priced.prices.get(0)!.price };
}

const basePrices = new Map<string, Priced>();
const tally = { invalid: 0, unpriced: 0, same: 0 };

/** One mutated request, judged as the header says. */
async function judge(baseName: string, label: string, r: Req): Promise<void> {
  const started = performance.now();
  try {
    await judgeOnce(baseName, label, r);
  } finally {
    if (process.env.MUTATION_DEBUG) console.log(`${(performance.now() - started).toFixed(0)} ms  ${baseName} + ${label}`);
  }
}

async function judgeOnce(baseName: string, label: string, r: Req): Promise<void> {
  await freshAccount();
  const base = basePrices.get(baseName)!;
  const what = `${baseName} + ${label}: ${r.method} ${r.path} ${r.body === undefined ? '' : write(r.body, r.key)}`;
  const p = await priceOf(r);
  const before = await burn();
  const sentBefore = emu.requests().length;
  let outcome: Awaited<ReturnType<typeof applyPlan>> | AssistantError;
  try {
    outcome = await applyPlan(planOf(r), { backend: backend(), home, destroyer: false, mode: 'fresh', budget: { max: 1e6, from: 'test' } });
  } catch (err) {
    if (!(err instanceof AssistantError)) throw err;
    outcome = err;
  }
  const changes = emu.requests().slice(sentBefore).filter((q) => q.method !== 'GET' && !q.path.includes('oauth2'));
  if ('invalid' in p) {
    assert.ok(outcome instanceof AssistantError && outcome.exitCode === 2, `${what}: invalid, so exit 2 (${p.invalid})`);
    assert.is(emu.requests().length, sentBefore, `${what}: nothing sent, not even a read`);
    tally.invalid++;
    return;
  }
  if (p.price.price === 'unpriced') {
    assert.ok(outcome instanceof AssistantError && outcome.code === 'budget_unpriced' && outcome.exitCode === 3, `${what}: unpriced (${p.price.why}), so refused under a budget`);
    assert.equal(changes, [], `${what}: no change sent`);
    tally.unpriced++;
    return;
  }
  // Priced: exactly as the base, and run as exactly the base.
  assert.equal([p.request.method, p.request.path, p.request.route, p.request.query], [base.request.method, base.request.path, base.request.route, base.request.query], `${what}: the same request as the base`);
  assert.equal(p.price.price, base.price.price, what);
  if (p.price.price === 'priced' && base.price.price === 'priced') assert.ok(Math.abs(p.price.per_hour - base.price.per_hour) < 1e-12, `${what}: priced ${p.price.per_hour}, the base ${base.price.per_hour}`);
  assert.ok(!(outcome instanceof AssistantError), `${what}: ${outcome instanceof AssistantError ? outcome.message : ''}`);
  const status = (outcome as { report: { status: string } }).report.status;
  assert.is(changes.length, 1, `${what}: one change sent`);
  assert.equal([changes[0]!.method, changes[0]!.path, changes[0]!.query], [base.request.method, requestTarget(base.request), ''], `${what}: sent as the base`);
  await settled();
  const after = await burn();
  // A value the server rejects (a port as a string) changes nothing: the burn stays.
  const expected = status !== 'succeeded' ? 0 : base.price.price === 'priced' ? base.price.per_hour : 0;
  assert.ok(Math.abs(after - before - expected) < 1e-9, `${what}: ${status}; the burn moved by ${after - before}, the price said ${expected}`);
  tally.same++;
}

/** Waits until what the run made has settled (a new instance gets its volumes when it is placed): read until nothing is ordered or provisioning. */
async function settled(): Promise<void> {
  const signal = new AbortController().signal;
  for (let look = 0; look < 500; look++) {
    const lists = await Promise.all(['/v1/instances', '/v1/clusters'].map((path) => client.request({ method: 'GET', path, signal }).then((r) => r.data as { status?: string }[])));
    if (!lists.flat().some((x) => ['new', 'ordered', 'provisioning', 'validating'].includes(String(x?.status)))) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error('the emulator never placed what the run made');
}

test('each base request is priced, runs, and moves the burn by exactly its price', async () => {
  for (const [name, r] of Object.entries(BASES)) {
    await freshAccount();
    const p = await priceOf(r);
    assert.ok(!('invalid' in p), `${name}: ${'invalid' in p ? p.invalid : ''}`);
    if ('invalid' in p) continue;
    assert.is(p.price.price, 'priced', `${name}: ${JSON.stringify(p.price)}`);
    assert.ok(p.price.price === 'priced' && p.price.per_hour > 0, `${name} adds to the burn`);
    basePrices.set(name, p);
    await judge(name, 'as written', r);
  }
});

test('every mutation alone, on every base: refused, or priced and run exactly as the base', async () => {
  for (const [name, r] of Object.entries(BASES)) {
    const rnd = mulberry32(SEED);
    for (const m of MUTATIONS) {
      const mutated = m.apply(r, rnd);
      if (mutated) await judge(name, m.name, mutated);
    }
  }
});

test('seeded random combinations of two or three mutations', async () => {
  const rnd = mulberry32(SEED ^ 0x9e3779b9);
  const names = Object.keys(BASES);
  for (let i = 0; i < RANDOM_N; i++) {
    const name = pick(names, rnd);
    let r: Req | undefined = BASES[name]!;
    const applied: string[] = [];
    for (let n = 2 + Math.floor(rnd() * 2); n > 0 && r; n--) {
      const m = pick(MUTATIONS, rnd);
      const next: Req | undefined = m.apply(r, rnd);
      if (next) {
        r = next;
        applied.push(m.name);
      }
    }
    if (r) await judge(name, `#${i} ${applied.join(' + ')}`, r);
  }
  console.log(`money.mutations: ${tally.invalid} refused as invalid, ${tally.unpriced} refused as unpriced, ${tally.same} priced and run as the base`);
  assert.ok(tally.invalid > 0 && tally.same > 0, 'every outcome was reached');
});

test.run();

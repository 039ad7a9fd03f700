/**
 * Creates at the speed the limits allow (issue 9 §4): a plan of 50 instance creates through
 * applyPlan (journal, lock, name reservations, duplicate-name pre-flight, exactly-once guards) against
 * 50 plain client POSTs of the same bodies, under the default limits' ratio with a short window on client AND emulator
 * (60 per method+path and 500 per project per 1 s window instead of per minute).
 * Target: ≤ 1.2× the plain POSTs, and at most one list GET of the kind per run.
 * For reference it also times the old shape: the client's own snapshot list before every create.
 */
import { EMULATOR_DEFAULT_SSH_KEY_ID, startEmulator, type Emulator } from '../emulator/index.js';
import { createGpuCloudClient } from '../engine/providers/gpucloud/client.js';
import { createDedupeFor } from '../engine/providers/gpucloud/dedupe.js';
import type { GpuCloudClient } from '../engine/providers/gpucloud/types.js';
import { builds, importFrom, median, rows, tempDir, type Build } from './fixtures.js';
import { cpuMs, pairedResult, type PairedResult } from './pairs.js';

type ApplyPlan = (plan: unknown, opts: Record<string, unknown>) => Promise<{ report: { status: string; error?: unknown } }>;

type ClientOf = typeof createGpuCloudClient;
type DedupeOf = typeof createDedupeFor;

/**
 * A build's apply path, its providers and its own gpucloud client (and create guard): the client shares
 * modules with the apply path (the secrets registry the journal's redaction reads, the limiter), so
 * a build measured with another build's client would not do the work it does in its own CLI. Both sides
 * of a pair use the build's client.
 */
async function applyOf(b: Build): Promise<{ applyPlan: ApplyPlan; providers: unknown; reservations?: (home: string) => unknown; createClient: ClientOf; dedupe: DedupeOf }> {
  // The one apply module (machines/apply/); a baseline built before it had machines/apply-plan.js.
  const { applyPlan } = await importFrom<{ applyPlan: ApplyPlan }>(b, 'machines/apply/index.js').catch(() => importFrom<{ applyPlan: ApplyPlan }>(b, 'machines/apply-plan.js'));
  const { PROVIDERS } = await importFrom<{ PROVIDERS: unknown }>(b, 'engine/providers/index.js');
  // The names a CLI apply reserves (this machine's store, as without Redis): each build its own.
  const store = await importFrom<{ fileReservations?: (home: string) => unknown }>(b, 'engine/core/plan/reservations.js').catch(() => ({ fileReservations: undefined }));
  const { createGpuCloudClient: createClient } = await importFrom<{ createGpuCloudClient: ClientOf }>(b, 'engine/providers/gpucloud/client.js').catch(() => ({ createGpuCloudClient }));
  const { createDedupeFor: dedupe } = await importFrom<{ createDedupeFor: DedupeOf }>(b, 'engine/providers/gpucloud/dedupe.js').catch(() => ({ createDedupeFor }));
  return { applyPlan, providers: PROVIDERS, reservations: store.fileReservations, createClient, dedupe };
}

const CREATES = 50;
const LIMITS = { perProject: 500, perPath: 60, windowMs: 1000 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The create body of the bench's instances. */
export const createBody = (hostname: string) =>
  JSON.stringify({ instance_type: 'CPU.4V.16G', image: 'ubuntu-24.04', hostname, description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID] });

const names = (run: string) => Array.from({ length: CREATES }, (_, i) => `bench-${run}-${i}`);

const listsOf = (emu: Emulator, from: number) => emu.requests().slice(from).filter((r) => r.method === 'GET' && r.path === '/v1/instances').length;

async function timeApply(emu: Emulator, client: GpuCloudClient, run: string, a: Awaited<ReturnType<typeof applyOf>>): Promise<{ ms: number; lists: number }> {
  const plan = { version: 1, provider: 'gpucloud', commands: names(run).map((n) => ({ args: ['gpucloud-api', 'POST', '/v1/instances', createBody(n)], reason: `create ${n}` })) };
  const home = tempDir();
  const signal = new AbortController().signal;
  const from = emu.requests().length;
  const started = performance.now();
  const out = await a.applyPlan(plan, { backend: { predefined: {}, providers: a.providers, reservations: a.reservations?.(home), runContext: () => ({ client: async () => client, signal }) }, home, destroyer: false, mode: 'new' });
  const ms = performance.now() - started;
  // The home is removed when the bench exits (tempDir), not here: its file calls would count to the run.
  if (out.report.status !== 'succeeded') throw new Error(`bench plan ${out.report.status}: ${JSON.stringify(out.report.error)}`);
  return { ms, lists: listsOf(emu, from) };
}

/**
 * Plain POSTs: a guard with an empty snapshot means the client sends nothing but the POSTs. With
 * `oldShape`, every create is preceded by two lists, as before (the journal's and the client's snapshot).
 */
async function timePosts(client: GpuCloudClient, run: string, oldShape = false, dedupe: DedupeOf = createDedupeFor): Promise<number> {
  const started = performance.now();
  for (const n of names(run)) {
    const guard = oldShape ? undefined : dedupe('POST', '/v1/instances', createBody(n));
    guard?.restoreSnapshot([]);
    if (oldShape) await client.request({ method: 'GET', path: '/v1/instances' });
    await client.request({ method: 'POST', path: '/v1/instances', body: createBody(n), createGuard: guard });
  }
  return performance.now() - started;
}

export async function runCreatesBench(repeats = 7): Promise<void> {
  const results = await createsOfBuilds(builds(), repeats);
  createsRows(results, "50 creates through the apply path / 50 plain POSTs", 1.2);
}

/** The rows of one creates measure: the wall ratio (the target's), the CPU ratio and what a create adds. */
export function createsRows(results: Record<string, CreatesResult>, measure: string, target: number): void {
  const labels = Object.keys(results);
  const last = results[labels.at(-1)!]!;
  const each = (f: (r: CreatesResult) => string) => Object.fromEntries(labels.map((l) => [l, f(results[l]!)]));
  rows.push({ measure, values: each((r) => `${r.ratio.toFixed(2)}×`), target: `≤ ${target}×`, met: last.ratio <= target });
  rows.push({ measure: `  the same, CPU time (this process: client, emulator, apply path)`, values: each((r) => `${r.cpuRatio.toFixed(2)}×`), target: '—' });
  rows.push({ measure: `  the same, added per create: wall / CPU`, values: each((r) => `${r.addedUs.toFixed(0)} / ${r.addedCpuUs.toFixed(0)} µs`), target: '—' });
}

/** One build's creates measure: applyPlan against plain POSTs, per create. */
export type CreatesResult = PairedResult;

/** The slow file system stand-in's counters when it is preloaded (bench/slow-fs.ts), without installing it. */
const slowFs = () => (globalThis as { __benchSlowFs?: { sync: number; async: number; blockedMs: number } }).__benchSlowFs;

/** One build's measure, alone (see createsOfBuilds). */
export async function createsOf(b: Build, repeats: number): Promise<number> {
  return (await createsOfBuilds([b], repeats))[b.label]!.ratio;
}

/**
 * 50 creates through each build's applyPlan against 50 plain POSTs, every build in the same process
 * against the same emulator, taking turns: each repetition runs, for every build in a rotating order, a
 * pair (applyPlan and the plain POSTs back to back, which first alternating), so both sides of a ratio
 * and both builds see the same moment's load. On a shared machine a plain POST takes 2–15 ms by the
 * moment, and what the apply path adds (its CPU, and on the slow stand-in a fixed time per file call)
 * does not grow with it: a ratio of medians taken minutes apart swings with the load, a pair's ratio
 * much less. CPU time is reported beside wall time: the load inflates it far less.
 */
export async function createsOfBuilds(bs: readonly Build[], repeats: number): Promise<Record<string, CreatesResult>> {
  const applies = await Promise.all(bs.map((b) => applyOf(b)));
  const emu = await startEmulator({ seed: 'empty', rateLimit: LIMITS, lifecycleMs: 60_000 });
  emu.setBalance(1e9);
  try {
    const clients = applies.map((a) => a.createClient({ baseUrl: emu.url, credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret }, rateLimit: LIMITS }));
    for (const client of clients) await client.request({ method: 'GET', path: '/v1/balance' }); // token and socket warm
    // Each measurement starts with empty windows (a full window's wait would otherwise land on the next
    // one) and an empty project, so the one list a run takes is the size of a real project's, not of
    // every instance the earlier repeats made.
    const settle = async () => {
      emu.reset();
      emu.setBalance(1e9);
      for (const client of clients) await client.request({ method: 'GET', path: '/v1/balance' }); // re-authenticates if the reset dropped the token
      await sleep(LIMITS.windowMs + 200);
    };
    interface Sample {
      ms: number;
      cpu: number;
      fsMs: number;
      fsCalls: number;
    }
    const per = bs.map(() => ({ plan: [] as Sample[], posts: [] as Sample[], maxLists: 0 }));
    const measure = async (f: () => Promise<number | { ms: number; lists: number }>): Promise<Sample & { lists: number }> => {
      const fs0 = slowFs();
      const [blocked, calls] = [fs0?.blockedMs ?? 0, (fs0?.sync ?? 0) + (fs0?.async ?? 0)];
      const c0 = cpuMs();
      const r = await f();
      const cpu = cpuMs() - c0;
      const fs1 = slowFs();
      const out = typeof r === 'number' ? { ms: r, lists: 0 } : r;
      return { ...out, cpu, fsMs: (fs1?.blockedMs ?? 0) - blocked, fsCalls: (fs1?.sync ?? 0) + (fs1?.async ?? 0) - calls };
    };
    // One unmeasured pair per build first: what a create loads is loaded, the sockets are warm.
    for (const [j, a] of applies.entries()) {
      await timeApply(emu, clients[j]!, `w${j}`, a);
      await timePosts(clients[j]!, `w${j}`, false, a.dedupe);
    }
    await settle();
    for (let i = 0; i < repeats; i++) {
      for (let k = 0; k < bs.length; k++) {
        const j = (i + k) % bs.length;
        const planFirst = (i + k) % 2 === 0;
        for (const which of planFirst ? ['plan', 'posts'] : ['posts', 'plan']) {
          if (which === 'plan') {
            const r = await measure(() => timeApply(emu, clients[j]!, `p${i}-${j}`, applies[j]!));
            per[j]!.plan.push(r);
            per[j]!.maxLists = Math.max(per[j]!.maxLists, r.lists);
          } else per[j]!.posts.push(await measure(() => timePosts(clients[j]!, `r${i}-${j}`, false, applies[j]!.dedupe)));
          await settle();
        }
      }
    }
    const old = await timePosts(clients.at(-1)!, 'old', true);
    const results: Record<string, CreatesResult> = {};
    for (const [j, b] of bs.entries()) {
      const { plan, posts, maxLists } = per[j]!;
      const r: CreatesResult = pairedResult(plan, posts, CREATES);
      results[b.label] = r;
      const p = median(plan.map((x) => x.ms));
      const q = median(posts.map((x) => x.ms));
      console.log(`creates [${b.label}]: ${CREATES} instance creates, limits ${LIMITS.perPath}/path and ${LIMITS.perProject}/project per ${LIMITS.windowMs} ms on client and emulator (${repeats} pairs${bs.length > 1 ? ', builds taking turns' : ''}; medians)`);
      console.log(`  ${CREATES} plain client POSTs           ${q.toFixed(1).padStart(8)} ms wall ${median(posts.map((x) => x.cpu)).toFixed(1).padStart(8)} ms CPU`);
      console.log(`  applyPlan (journal, lock, checks)   ${p.toFixed(1).padStart(8)} ms wall ${median(plan.map((x) => x.cpu)).toFixed(1).padStart(8)} ms CPU   list GETs per run: ${maxLists}`);
      if (slowFs()) console.log(`  slow fs in applyPlan: ${median(plan.map((x) => x.fsCalls))} calls, ${median(plan.map((x) => x.fsMs)).toFixed(1)} ms blocked (plain POSTs: ${median(posts.map((x) => x.fsCalls))} calls)`);
      console.log(`  ratio (median of pairs) ${r.ratio.toFixed(3)}× wall, ${r.cpuRatio.toFixed(3)}× CPU; ratio of medians ${(p / q).toFixed(3)}×; added per create ${r.addedUs.toFixed(0)} µs wall, ${r.addedCpuUs.toFixed(0)} µs CPU  (target ≤ 1.2×: ${r.ratio <= 1.2 ? 'met' : 'MISSED'}; at most 1 list per kind: ${maxLists <= 1 ? 'met' : 'MISSED'})`);
      console.log(`  each pair (ms, applyPlan/POSTs): ${plan.map((x, i) => `${x.ms.toFixed(0)}/${posts[i]!.ms.toFixed(0)}`).join(', ')}`);
    }
    console.log(`  for reference, the old shape (two lists before every create): ${old.toFixed(1)} ms`);
    return results;
  } finally {
    await emu.close();
  }
}

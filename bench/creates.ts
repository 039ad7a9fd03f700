/**
 * Creates at the speed the limits allow (issue 9 §4): a plan of 50 instance creates through
 * applyPlan (journal, lock, name reservations, duplicate-name pre-flight, exactly-once guards) against
 * 50 plain client POSTs of the same bodies, under the default limits' ratio with a short window on client AND emulator
 * (60 per method+path and 500 per project per 1 s window instead of per minute).
 * Target: ≤ 1.2× the plain POSTs, and at most one list GET of the kind per run.
 * For reference it also times the old shape: the client's own snapshot list before every create.
 */
import { rmSync } from 'node:fs';
import { EMULATOR_DEFAULT_SSH_KEY_ID, startEmulator, type Emulator } from '../emulator/index.js';
import { createGpuCloudClient } from '../engine/providers/gpucloud/client.js';
import { createDedupeFor } from '../engine/providers/gpucloud/dedupe.js';
import type { GpuCloudClient } from '../engine/providers/gpucloud/types.js';
import { builds, importFrom, median, rows, tempDir, type Build } from './fixtures.js';

type ApplyPlan = (plan: unknown, opts: Record<string, unknown>) => Promise<{ report: { status: string; error?: unknown } }>;

/** A build's apply path and its providers (this build's client is used for every build). */
async function applyOf(b: Build): Promise<{ applyPlan: ApplyPlan; providers: unknown; reservations?: (home: string) => unknown }> {
  // The one apply module (machines/apply/); a baseline built before it had machines/apply-plan.js.
  const { applyPlan } = await importFrom<{ applyPlan: ApplyPlan }>(b, 'machines/apply/index.js').catch(() => importFrom<{ applyPlan: ApplyPlan }>(b, 'machines/apply-plan.js'));
  const { PROVIDERS } = await importFrom<{ PROVIDERS: unknown }>(b, 'engine/providers/index.js');
  // The names a CLI apply reserves (this machine's store, as without Redis): each build its own.
  const store = await importFrom<{ fileReservations?: (home: string) => unknown }>(b, 'engine/core/plan/reservations.js').catch(() => ({ fileReservations: undefined }));
  return { applyPlan, providers: PROVIDERS, reservations: store.fileReservations };
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
  rmSync(home, { recursive: true, force: true });
  if (out.report.status !== 'succeeded') throw new Error(`bench plan ${out.report.status}: ${JSON.stringify(out.report.error)}`);
  return { ms, lists: listsOf(emu, from) };
}

/**
 * Plain POSTs: a guard with an empty snapshot means the client sends nothing but the POSTs. With
 * `oldShape`, every create is preceded by two lists, as before (the journal's and the client's snapshot).
 */
async function timePosts(client: GpuCloudClient, run: string, oldShape = false): Promise<number> {
  const started = performance.now();
  for (const n of names(run)) {
    const guard = oldShape ? undefined : createDedupeFor('POST', '/v1/instances', createBody(n));
    guard?.restoreSnapshot([]);
    if (oldShape) await client.request({ method: 'GET', path: '/v1/instances' });
    await client.request({ method: 'POST', path: '/v1/instances', body: createBody(n), createGuard: guard });
  }
  return performance.now() - started;
}

export async function runCreatesBench(repeats = 5): Promise<void> {
  const values: Record<string, string> = {};
  let met: boolean | undefined;
  for (const b of builds()) {
    const ratio = await createsOf(b, repeats);
    values[b.label] = `${ratio.toFixed(2)}×`;
    met = ratio <= 1.2;
  }
  rows.push({ measure: '50 creates through the apply path / 50 plain POSTs', values, target: '≤ 1.2×', met });
}

export async function createsOf(b: Build, repeats: number): Promise<number> {
  const a = await applyOf(b);
  const emu = await startEmulator({ seed: 'empty', rateLimit: LIMITS, lifecycleMs: 60_000 });
  emu.setBalance(1e9);
  try {
    const client = createGpuCloudClient({ baseUrl: emu.url, credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret }, rateLimit: LIMITS });
    await client.request({ method: 'GET', path: '/v1/balance' }); // token and socket warm
    const plan: number[] = [];
    const posts: number[] = [];
    let maxLists = 0;
    // Each measurement starts with empty windows (a full window's wait would otherwise land on the next
    // one) and an empty project, so the one list a run takes is the size of a real project's, not of
    // every instance the earlier repeats made.
    const settle = async () => {
      emu.reset();
      emu.setBalance(1e9);
      await client.request({ method: 'GET', path: '/v1/balance' }); // re-authenticates if the reset dropped the token
      await sleep(LIMITS.windowMs + 200);
    };
    await settle();
    for (let i = 0; i < repeats; i++) {
      const first = i % 2 === 0 ? 'plan' : 'posts';
      for (const which of first === 'plan' ? ['plan', 'posts'] : ['posts', 'plan']) {
        if (which === 'plan') {
          const r = await timeApply(emu, client, `p${i}`, a);
          plan.push(r.ms);
          maxLists = Math.max(maxLists, r.lists);
        } else posts.push(await timePosts(client, `r${i}`));
        await settle();
      }
    }
    const old = await timePosts(client, 'old', true);
    const p = median(plan);
    const r = median(posts);
    const ratio = p / r;
    console.log(`creates [${b.label}]: ${CREATES} instance creates, limits ${LIMITS.perPath}/path and ${LIMITS.perProject}/project per ${LIMITS.windowMs} ms on client and emulator (median of ${repeats}, interleaved)`);
    console.log(`  ${CREATES} plain client POSTs           ${r.toFixed(1).padStart(8)} ms`);
    console.log(`  applyPlan (journal, lock, checks)   ${p.toFixed(1).padStart(8)} ms   list GETs per run: ${maxLists}`);
    console.log(`  ratio ${ratio.toFixed(3)}×  (target ≤ 1.2×: ${ratio <= 1.2 ? 'met' : 'MISSED'}; at most 1 list per kind: ${maxLists <= 1 ? 'met' : 'MISSED'})`);
    console.log(`  each run (ms): applyPlan ${plan.map((x) => x.toFixed(0)).join(', ')}; POSTs ${posts.map((x) => x.toFixed(0)).join(', ')}`);
    console.log(`  for reference, the old shape (two lists before every create): ${old.toFixed(1)} ms`);
    return ratio;
  } finally {
    await emu.close();
  }
}

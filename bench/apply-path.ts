/**
 * The apply path per step (issue 40 item 2), on this machine's file system and on a slow one: a
 * 1,000-step GET plan through applyPlan (lock, journal, checks, the run machine) against a plain loop of
 * the same client.request calls, and 50 creates through applyPlan against 50 plain POSTs (creates.ts).
 * Each kind of file system runs in a child process of its own; the slow one is this machine's with
 * BENCH_SLOW_FS_US (default 500 µs) added to every `fs` call by the preload bench/slow-fs.ts (a stand-in
 * for a network or virtualised file system, where per-call file work shows). Target ≤ 1.1× on both
 * (1,000 steps) and ≤ 1.2× (50 creates; ≤ 1.1× on the slow one). The slow child also counts the file
 * calls per create step and per read step (fsCallsPerStep), which the load does not change.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../emulator/index.js';
import { createGpuCloudClient } from '../engine/providers/gpucloud/client.js';
import type { GpuCloudClient } from '../engine/providers/gpucloud/types.js';
import { createsRows, type CreatesResult } from './creates.js';
import { cpuMs, pairedResult, type PairedResult } from './pairs.js';
import { builds, importFrom, median, rows, tempDir, type Build } from './fixtures.js';

type ApplyPlan = (plan: unknown, opts: Record<string, unknown>) => Promise<{ report: { status: string; error?: unknown } }>;

const SLOW_US = Number(process.env.BENCH_SLOW_FS_US ?? 500);
/** Pairs of the creates measure per build (each pair ~3 s: two runs and two 1.2 s settles). */
const CREATE_PAIRS = Number(process.env.BENCH_CREATE_PAIRS ?? 7);
const GET_PATHS = ['/v1/balance', '/v1/locations', '/v1/instance-types'];

const getPlan = (steps: number, run: string) => ({
  version: 1,
  provider: 'gpucloud',
  // A plan of its own each run (its journal would otherwise refuse nothing, but starts from its own file).
  summary: run,
  commands: Array.from({ length: steps }, (_, i) => ({ args: ['gpucloud-api', 'GET', GET_PATHS[i % GET_PATHS.length]!], reason: `step ${i}` })),
});

/** A build's apply path with its own client, which shares modules with it (see creates.ts applyOf); both sides of a pair use it. */
async function applyOf(b: Build): Promise<{ applyPlan: ApplyPlan; providers: unknown; createClient: typeof createGpuCloudClient }> {
  const { applyPlan } = await importFrom<{ applyPlan: ApplyPlan }>(b, 'machines/apply/index.js');
  const { PROVIDERS } = await importFrom<{ PROVIDERS: unknown }>(b, 'engine/providers/index.js');
  const { createGpuCloudClient: createClient } = await importFrom<{ createGpuCloudClient: typeof createGpuCloudClient }>(b, 'engine/providers/gpucloud/client.js').catch(() => ({ createGpuCloudClient }));
  return { applyPlan, providers: PROVIDERS, createClient };
}

async function timeApply(a: Awaited<ReturnType<typeof applyOf>>, client: GpuCloudClient, steps: number, run: string): Promise<number> {
  const signal = new AbortController().signal;
  const home = tempDir();
  const started = performance.now();
  const out = await a.applyPlan(getPlan(steps, run), { backend: { predefined: {}, providers: a.providers, runContext: () => ({ client: async () => client, signal }) }, home, destroyer: false, mode: 'new' });
  const ms = performance.now() - started;
  if (out.report.status !== 'succeeded') throw new Error(`bench plan ${out.report.status}: ${JSON.stringify(out.report.error)}`);
  return ms;
}

async function timeLoop(client: GpuCloudClient, steps: number): Promise<number> {
  const signal = new AbortController().signal;
  const started = performance.now();
  for (let i = 0; i < steps; i++) await client.request({ method: 'GET', path: GET_PATHS[i % GET_PATHS.length]!, signal });
  return performance.now() - started;
}

/** One build's 1,000-step measure: applyPlan against the plain loop, per step. */
export type ThousandResult = PairedResult;

/**
 * 1,000 GETs through each build's applyPlan vs the plain loop, medians of `runs` repetitions: every build
 * in this process against one emulator, taking turns (a pair per build per repetition, in a rotating
 * order, which side first alternating), so the builds and the two sides of a ratio see the same load.
 */
async function thousandSteps(bs: readonly Build[], steps = 1000, runs = 9): Promise<Record<string, ThousandResult>> {
  const applies = await Promise.all(bs.map((b) => applyOf(b)));
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  try {
    const clients = applies.map((a) => a.createClient({ baseUrl: emu.url, credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret }, rateLimit: { perProject: 1e9, perPath: 1e9 } }));
    for (let w = 0; w < 2; w++) {
      for (const [j, a] of applies.entries()) {
        await timeLoop(clients[j]!, steps);
        await timeApply(a, clients[j]!, steps, `warm-${w}-${j}`);
      }
    }
    const per = bs.map(() => ({ apply: [] as { ms: number; cpu: number }[], loop: [] as { ms: number; cpu: number }[] }));
    const timed = async (f: () => Promise<number>) => {
      const c0 = cpuMs();
      const ms = await f();
      return { ms, cpu: cpuMs() - c0 };
    };
    for (let i = 0; i < runs; i++) {
      for (let k = 0; k < bs.length; k++) {
        const j = (i + k) % bs.length;
        const applyFirst = (i + k) % 2 === 0;
        if (applyFirst) per[j]!.apply.push(await timed(() => timeApply(applies[j]!, clients[j]!, steps, `run-${i}-${j}`)));
        per[j]!.loop.push(await timed(() => timeLoop(clients[j]!, steps)));
        if (!applyFirst) per[j]!.apply.push(await timed(() => timeApply(applies[j]!, clients[j]!, steps, `run-${i}-${j}`)));
      }
    }
    const results: Record<string, ThousandResult> = {};
    for (const [j, b] of bs.entries()) {
      const { apply, loop } = per[j]!;
      const r: ThousandResult = pairedResult(apply, loop, steps);
      results[b.label] = r;
      const e = median(apply.map((x) => x.ms));
      const l = median(loop.map((x) => x.ms));
      console.log(
        `  [${b.label}] ${steps}-step GET plan (${runs} pairs${bs.length > 1 ? ', builds taking turns' : ''}): plain loop ${l.toFixed(1)} ms (${((l / steps) * 1000).toFixed(0)} µs/step), applyPlan ${e.toFixed(1)} ms (${((e / steps) * 1000).toFixed(0)} µs/step); ` +
          `pairs ${r.ratio.toFixed(3)}× wall, ${r.cpuRatio.toFixed(3)}× CPU; added per step ${r.addedUs.toFixed(0)} µs wall, ${r.addedCpuUs.toFixed(0)} µs CPU`,
      );
    }
    return results;
  } finally {
    await emu.close();
  }
}

/**
 * File calls per step (through the slow stand-in's counter, which sees every `fs` call): the calls of a
 * long plan minus those of a short one, per extra step, so the run's fixed calls (lock, journal open,
 * first name's file) drop out. Creates reserve their names as a CLI apply does. Independent of the load.
 */
async function fsCallsPerStep(b: Build): Promise<{ create: number; read: number }> {
  const { slowFsCalls } = await import('./slow-fs.js');
  const { createBody } = await import('./creates.js');
  const a = await applyOf(b);
  const store = await importFrom<{ fileReservations?: (home: string) => unknown }>(b, 'engine/core/plan/reservations.js').catch(() => ({ fileReservations: undefined }));
  const emu = await startEmulator({ seed: 'empty', rateLimit: false, lifecycleMs: 60_000 });
  emu.setBalance(1e9);
  try {
    const client = a.createClient({ baseUrl: emu.url, credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret }, rateLimit: { perProject: 1e9, perPath: 1e9 } });
    const signal = new AbortController().signal;
    const calls = async (plan: unknown) => {
      const home = tempDir();
      const before = slowFsCalls.sync + slowFsCalls.async;
      const out = await a.applyPlan(plan, { backend: { predefined: {}, providers: a.providers, reservations: store.fileReservations?.(home), runContext: () => ({ client: async () => client, signal }) }, home, destroyer: false, mode: 'new' });
      if (out.report.status !== 'succeeded') throw new Error(`fs-calls plan ${out.report.status}: ${JSON.stringify(out.report.error)}`);
      return slowFsCalls.sync + slowFsCalls.async - before;
    };
    const createPlan = (n: number, run: string) => ({ version: 1, provider: 'gpucloud', commands: Array.from({ length: n }, (_, i) => ({ args: ['gpucloud-api', 'POST', '/v1/instances', createBody(`fs-${run}-${i}`)], reason: `create ${i}` })) });
    await calls(createPlan(2, `${b.label}-warm`)); // loads what a create loads
    await calls(getPlan(2, `${b.label}-warm`));
    const create = ((await calls(createPlan(50, `${b.label}-50`))) - (await calls(createPlan(10, `${b.label}-10`)))) / 40;
    const read = ((await calls(getPlan(1000, `${b.label}-fs-1000`))) - (await calls(getPlan(100, `${b.label}-fs-100`)))) / 900;
    console.log(`  [${b.label}] fs calls per step: ${create.toFixed(2)} per create (with its name reserved), ${read.toFixed(3)} per read`);
    return { create, read };
  } finally {
    await emu.close();
  }
}

/** What the child measured, per build label. */
interface ChildResult {
  thousand: Record<string, ThousandResult>;
  creates: Record<string, CreatesResult>;
  fsCalls?: { sync: number; async: number; blockedMs: number };
  perStep?: Record<string, { create: number; read: number }>;
}

async function child(): Promise<void> {
  const slow = process.env.BENCH_SLOW_FS_US && Number(process.env.BENCH_SLOW_FS_US) > 0;
  const { createsOfBuilds } = await import('./creates.js');
  const result: ChildResult = { thousand: await thousandSteps(builds()), creates: await createsOfBuilds(builds(), CREATE_PAIRS) };
  if (slow) {
    result.fsCalls = { ...(await import('./slow-fs.js')).slowFsCalls };
    result.perStep = {};
    for (const b of builds()) result.perStep[b.label] = await fsCallsPerStep(b);
  }
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

function runChild(slowUs: number): Promise<ChildResult> {
  const args = [...(slowUs > 0 ? ['--import', new URL('./slow-fs.js', import.meta.url).href] : []), fileURLToPath(import.meta.url), '--child'];
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, args, { env: { ...process.env, BENCH_SLOW_FS_US: String(slowUs) }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      for (const line of d.split('\n')) if (line && !line.startsWith('RESULT ')) process.stdout.write(line + '\n');
    });
    c.on('error', reject);
    c.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line) reject(new Error(`apply-path bench child exited ${code}`));
      else resolve(JSON.parse(line.slice('RESULT '.length)) as ChildResult);
    });
  });
}

export async function runApplyPathBench(): Promise<void> {
  for (const slowUs of [0, SLOW_US]) {
    const fsName = slowUs ? `slow fs (+${slowUs} µs per fs call)` : "this machine's fs";
    console.log(`apply path per step, ${fsName}:`);
    const r = await runChild(slowUs);
    if (r.fsCalls) console.log(`  fs calls through the slow stand-in in that process: ${r.fsCalls.sync} sync, ${r.fsCalls.async} async, ${r.fsCalls.blockedMs.toFixed(0)} ms blocked in sync calls`);
    const labels = Object.keys(r.thousand);
    const each = (f: (t: ThousandResult) => string) => Object.fromEntries(labels.map((l) => [l, f(r.thousand[l]!)]));
    rows.push({ measure: `1,000-step plan through applyPlan / plain loop, ${fsName}`, values: each((t) => `${t.ratio.toFixed(2)}×`), target: '≤ 1.1×', met: r.thousand[labels.at(-1)!]!.ratio <= 1.1 });
    rows.push({ measure: '  the same, CPU time / added per step: wall, CPU', values: each((t) => `${t.cpuRatio.toFixed(2)}× / ${t.addedUs.toFixed(0)}, ${t.addedCpuUs.toFixed(0)} µs`), target: '—' });
    createsRows(r.creates, `50 creates through applyPlan / 50 plain POSTs, ${fsName}`, slowUs ? 1.1 : 1.2);
    if (r.perStep) {
      const per = r.perStep;
      const labels = Object.keys(per);
      rows.push({ measure: 'fs calls per create step through applyPlan (name reserved; journal)', values: Object.fromEntries(labels.map((l) => [l, per[l]!.create.toFixed(2)])), target: 'fewer' });
      rows.push({ measure: 'fs calls per read step through applyPlan', values: Object.fromEntries(labels.map((l) => [l, per[l]!.read.toFixed(3)])), target: '0' });
    }
  }
}

if (process.argv.includes('--child')) await child();
else if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  await runApplyPathBench();
  (await import('./fixtures.js')).printRows(builds().map((b) => b.label));
}

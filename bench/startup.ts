/**
 * Start-up (issue 25): fresh processes, timed from spawn to exit, interleaved run by run so machine
 * noise hits every case alike; medians. Against an emulator served by this process over loopback HTTP
 * (rate limits off), side by side with the plain Node script an integration without this tool would be:
 * the token POST and the GET with fetch. Also the modules each command loads (counted, not timed).
 *
 *   gpucloud list instances -o json  vs the plain script   target ≤ 1.2× (issue 40)
 *   1-step ask --apply --plan-file    vs the plain script   target ≤ 1.3× (issue 40)
 *   --sandbox gpucloud list instances vs node -e 0          target ≤ 3×
 *
 * The CLI keeps its token between runs (~/.assistant/tokens), as it does for a user; the plain script
 * fetches one every time. The cold row (a fresh HOME each run: token fetched, directories made) shows
 * what that is worth.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binOf, builds, childEnv, countModules, median, rows, tempDir, timeNodeAsync, type Build } from './fixtures.js';
import { startEmulator } from '../emulator/index.js';

const PLAIN = `
const base = process.env.GPUCLOUD_BASE_URL;
const t = await fetch(base + '/v1/oauth2/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: process.env.GPUCLOUD_CLIENT_ID, client_secret: process.env.GPUCLOUD_CLIENT_SECRET }) });
const { access_token } = await t.json();
const r = await fetch(base + '/v1/instances', { headers: { Authorization: 'Bearer ' + access_token } });
if (r.status !== 200) process.exit(1);
process.stdout.write(await r.text());
`;

interface Case {
  name: string;
  build?: Build;
  /** Arguments and stdin of one run (`run` is the run's index). */
  args: (run: number) => { args: string[]; env: Record<string, string>; input?: string };
}

export async function runStartupBench(runs = 11): Promise<void> {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1 });
  try {
    const dir = tempDir();
    const plain = join(dir, 'plain.mjs');
    writeFileSync(plain, PLAIN);
    const api = { GPUCLOUD_BASE_URL: emu.url, GPUCLOUD_CLIENT_ID: emu.clientId, GPUCLOUD_CLIENT_SECRET: emu.clientSecret };
    const home = (b: Build, what: string) => {
      const h = join(tempDir(), `${b.label}-${what}`);
      return h;
    };
    const cases: Case[] = [
      { name: 'node -e 0', args: () => ({ args: ['-e', '0'], env: childEnv({ HOME: dir }) }) },
      { name: 'plain script (token POST + GET, fetch)', args: () => ({ args: [plain], env: childEnv({ HOME: dir, ...api }) }) },
    ];
    for (const b of builds()) {
      const listHome = home(b, 'list');
      const applyHome = home(b, 'apply');
      const sandboxHome = home(b, 'sandbox');
      const planDir = tempDir();
      cases.push(
        { name: 'assistant --version', build: b, args: () => ({ args: [binOf(b), '--version'], env: childEnv({ HOME: dir }) }) },
        { name: 'gpucloud list instances -o json', build: b, args: () => ({ args: [binOf(b), 'gpucloud', 'list', 'instances', '-o', 'json'], env: childEnv({ HOME: listHome, ...api }) }) },
        { name: 'gpucloud list instances -o json (cold: fresh HOME)', build: b, args: () => ({ args: [binOf(b), 'gpucloud', 'list', 'instances', '-o', 'json'], env: childEnv({ HOME: tempDir(), ...api }) }) },
        {
          name: '1-step ask --apply --plan-file',
          build: b,
          args: (run) => {
            // A plan of its own each run: the journal refuses to apply one plan twice.
            const file = join(planDir, `plan-${run}-${Math.random().toString(36).slice(2)}.json`);
            writeFileSync(file, JSON.stringify({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/instances'], reason: `bench ${file}` }] }));
            return { args: [binOf(b), 'ask', '--apply', '--plan-file', file], env: childEnv({ HOME: applyHome, ...api }) };
          },
        },
        { name: '--sandbox gpucloud list instances', build: b, args: () => ({ args: [binOf(b), '--sandbox', 'gpucloud', 'list', 'instances', '-o', 'json'], env: childEnv({ HOME: sandboxHome }) }) },
      );
    }
    const key = (c: Case) => `${c.build?.label ?? ''}|${c.name}`;
    const samples = new Map<string, number[]>(cases.map((c) => [key(c), []]));
    const once = async (c: Case, run: number) => {
      const { args, env, input } = c.args(run);
      const r = await timeNodeAsync(args, env, input);
      if (r.code !== 0) throw new Error(`bench command failed (exit ${r.code}): ${args.join(' ')}\n${r.stderr}`);
      return r.ms;
    };
    for (const c of cases) await once(c, -1); // warm the file cache, the token caches, the sandbox state
    for (let run = 0; run < runs; run++) for (const c of cases) samples.get(key(c))!.push(await once(c, run));
    const m = (c: Case | string, b?: Build) => median(samples.get(typeof c === 'string' ? `${b?.label ?? ''}|${c}` : key(c))!);

    console.log(`start-up: fresh processes, median of ${runs} interleaved runs (ms), emulator over loopback HTTP`);
    for (const c of cases) console.log(`  ${(c.build ? `[${c.build.label}] ` : '').padEnd(9)}${c.name.padEnd(52)} ${m(c).toFixed(1).padStart(7)}`);
    const plainMs = m('plain script (token POST + GET, fetch)');
    const nodeMs = m('node -e 0');
    const row = (measure: string, target: number, caseName: string, baseName: string, baseMs: number) => {
      const values: Record<string, string> = {};
      let met: boolean | undefined;
      for (const b of builds()) {
        const ms = m(caseName, b);
        values[b.label] = `${(ms / baseMs).toFixed(2)}× (${ms.toFixed(0)} vs ${baseMs.toFixed(0)} ms)`;
        met = ms / baseMs <= target;
      }
      rows.push({ measure: `${measure} / ${baseName}`, values, target: `≤ ${target}×`, met });
    };
    row('gpucloud list instances -o json', 1.2, 'gpucloud list instances -o json', 'plain script', plainMs);
    row('1-step ask --apply --plan-file', 1.3, '1-step ask --apply --plan-file', 'plain script', plainMs);
    row('--sandbox gpucloud list instances', 3, '--sandbox gpucloud list instances', 'node -e 0', nodeMs);
    row('(cold) gpucloud list instances, fresh HOME', 1.3, 'gpucloud list instances -o json (cold: fresh HOME)', 'plain script', plainMs);

    // What each command loads (counted once per build; built-in node: modules left out).
    console.log('modules loaded (ES + CommonJS, node: built-ins left out)');
    for (const b of builds()) {
      const planFile = join(tempDir(), 'count.json');
      writeFileSync(planFile, JSON.stringify({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/instances'], reason: 'count' }] }));
      const counted: [string, string[], Record<string, string>][] = [
        ['--version', [binOf(b), '--version'], childEnv({ HOME: tempDir() })],
        ['gpucloud list instances', [binOf(b), 'gpucloud', 'list', 'instances', '-o', 'json'], childEnv({ HOME: tempDir(), ...api })],
        ['ask --apply (1 step)', [binOf(b), 'ask', '--apply', '--plan-file', planFile], childEnv({ HOME: tempDir(), ...api })],
        ['--sandbox gpucloud list instances', [binOf(b), '--sandbox', 'gpucloud', 'list', 'instances', '-o', 'json'], childEnv({ HOME: tempDir() })],
      ];
      for (const [name, args, env] of counted) {
        const n = await countModules(args, env);
        console.log(`  [${b.label}] ${name.padEnd(36)} ${String(n.esm).padStart(4)} ES + ${String(n.cjs).padStart(3)} CommonJS = ${n.esm + n.cjs}`);
        const r = rows.find((x) => x.measure === `modules: ${name}`) ?? rows[rows.push({ measure: `modules: ${name}`, values: {}, target: '-' }) - 1]!;
        r.values[b.label] = `${n.esm} ES + ${n.cjs} CJS`;
      }
    }
  } finally {
    await emu.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  await runStartupBench(Number(process.env.BENCH_RUNS) || undefined);
  (await import('./fixtures.js')).printRows(builds().map((b) => b.label));
}

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { historyProject } from '../../engine/producers/ai/history.js';
import { gpucloudCost } from '../../engine/providers/gpucloud/cost-capability.js';
import type { Config } from '../../schemas/config.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

/**
 * `cost trend` and `cost anomalies` over simulated days: the test writes the snapshot history a user
 * would have recorded on earlier days into the CLI's HOME, then runs the CLI against the emulator.
 * Hand-computed from the demo seed (emulator/fixtures.ts): demo-cpu (CPU.4V.16G, 0.0279/h, offline,
 * still billing) and its 50 GB NVMe OS volume (0.20/GB/month ÷ 720 h) are 9 days old; demo-data
 * (500 GB NVMe) 5 days; demo-a100 (1.29/h) and its 100 GB OS volume 2 days.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);
const OLDEST_BURN = 0.0279 + (0.2 * 50) / 720; // demo-cpu + its OS volume: all that existed 6 and 7 days ago

function writeHistory(home: string, lines: (Record<string, unknown> | string)[]): string {
  const dir = join(home, '.assistant', 'cost');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'snapshots.jsonl');
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}
const snap = (at: number, hourly: number, balance: number, extra: Record<string, unknown> = {}) => ({ at: new Date(at).toISOString(), provider: 'gpucloud', currency: 'usd', balance, hourly_cost: hourly, resources: 3, ...extra });

test('cost trend: days covered by snapshots are measured (burn held until the next snapshot), earlier days reconstructed from creation times', async () => {
  await withEmulator(async ({ env }) => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const home = tempHome();
    const file = writeHistory(home, [
      snap(today - 5 * DAY, 1.0, 100),
      snap(today - 4 * DAY - 6 * HOUR, 99, 99, { account: 'sandbox' }), // another account: never counted
      '{"at": "torn line after a kill -9',
      snap(today - 4 * DAY + 12 * HOUR, 3.0, 80),
      snap(today - 3 * DAY, 0.5, 50),
    ]);
    const r = await runCli(['cost', 'trend', '--start', day(today - 7 * DAY), '--end', day(today - DAY), '-o', 'json'], { env, home });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: 1 line\(s\) of ~\/\.assistant\/cost\/snapshots\.jsonl are not snapshots/);
    const t = JSON.parse(r.stdout);
    assert.equal([t.start, t.end, t.provider, t.currency], [day(today - 7 * DAY), day(today - DAY), 'gpucloud', 'usd']);
    const expected = [
      { date: day(today - 7 * DAY), cost: 24 * OLDEST_BURN, basis: 'reconstructed', snapshots: 0, balance_end: null },
      { date: day(today - 6 * DAY), cost: 24 * OLDEST_BURN, basis: 'reconstructed', snapshots: 0, balance_end: null },
      { date: day(today - 5 * DAY), cost: 24 * 1.0, basis: 'measured', snapshots: 1, balance_end: 100 },
      { date: day(today - 4 * DAY), cost: 12 * 1.0 + 12 * 3.0, basis: 'measured', snapshots: 1, balance_end: 80 },
      { date: day(today - 3 * DAY), cost: 24 * 0.5, basis: 'measured', snapshots: 1, balance_end: 50 },
      { date: day(today - 2 * DAY), cost: 24 * 0.5, basis: 'measured', snapshots: 0, balance_end: null },
      { date: day(today - 1 * DAY), cost: 24 * 0.5, basis: 'measured', snapshots: 0, balance_end: null },
    ];
    assert.is(t.days.length, expected.length);
    t.days.forEach((d: Record<string, any>, i: number) => {
      const e = expected[i]!;
      assert.equal([d.date, d.basis, d.snapshots, d.balance_end, d.hours], [e.date, e.basis, e.snapshots, e.balance_end, 24], JSON.stringify(d));
      close(d.cost, e.cost, `${e.date} cost`);
      close(d.average_hourly, e.cost / 24, `${e.date} per hour`);
    });
    close(t.total, expected.reduce((s, e) => s + e.cost, 0), 'total');
    assert.match(t.based_on, /measured: recorded snapshots/);
    assert.match(t.based_on, /reconstructed: the resources that exist now/);
    // The trend's own reading was recorded too: history grows by one line per cost command.
    assert.is(readFileSync(file, 'utf8').trim().split('\n').length, 6);
  });
});

test('cost trend table says what each day is based on; a day half before the first snapshot is mixed; future days are left out with a note', async () => {
  await withEmulator(async ({ env }) => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const home = tempHome();
    writeHistory(home, [snap(today - 3 * DAY + 18 * HOUR, 2.0, 40)]);
    // Three days ago only demo-cpu, its OS volume and demo-data (500 GB NVMe) existed all day.
    const rebuiltBurn = OLDEST_BURN + (0.2 * 500) / 720;
    const mixedCost = 18 * rebuiltBurn + 6 * 2.0;
    const r = await runCli(['cost', 'trend', '--start', day(today - 3 * DAY), '--end', day(today + 3 * DAY), '-o', 'json'], { env, home });
    assert.is(r.code, 0, r.stderr);
    const t = JSON.parse(r.stdout);
    assert.equal(t.days.map((d: { date: string }) => d.date), [day(today - 3 * DAY), day(today - 2 * DAY), day(today - DAY), day(today)]);
    const mixed = t.days[0];
    assert.is(mixed.basis, 'mixed');
    close(mixed.measured_hours, 6, 'measured hours');
    close(mixed.cost, mixedCost, 'mixed day');
    close(t.days[1].cost, 48, 'two days ago');
    close(t.days[2].cost, 48, 'yesterday');
    assert.ok(t.days[3].hours <= 24 && t.days[3].hours > 0, String(t.days[3].hours));
    assert.match(r.stderr, /note: days after today \(\d{4}-\d{2}-\d{2}\) are left out/);
    const table = await runCli(['cost', 'trend', '--start', day(today - 3 * DAY), '--end', day(today - DAY)], { env: { ...env, COLUMNS: '200' }, home });
    assert.is(table.code, 0, table.stderr);
    assert.match(table.stdout, new RegExp(`${day(today - 3 * DAY)}\\s+${mixedCost.toFixed(2)}\\s+24\\.0\\s+${(mixedCost / 24).toFixed(4)}\\s+mixed\\s+1\\s+40\\.00`));
    assert.match(table.stdout, new RegExp(`${day(today - DAY)}\\s+48\\.00\\s+24\\.0\\s+2\\.0000\\s+measured\\s+0\\s+-`));
    assert.ok(table.stdout.includes(`Total:    ${(mixedCost + 96).toFixed(2)} USD (${day(today - 3 * DAY)} to ${day(today - DAY)})`), table.stdout);
    assert.match(table.stdout, /Based on: measured: recorded snapshots/);
  });
});

test('a history that cannot be written still answers the figures (warning); one that cannot be read fails trend clearly; a snapshot dated in the future is ignored', async () => {
  await withEmulator(async ({ env }) => {
    const blocked = tempHome();
    mkdirSync(join(blocked, '.assistant', 'cost', 'snapshots.jsonl'), { recursive: true });
    const s = await runCli(['cost', 'summary', '-o', 'json'], { env, home: blocked });
    assert.is(s.code, 0, s.stderr);
    assert.ok(JSON.parse(s.stdout).hourly_cost > 0);
    assert.match(s.stderr, /warning: the cost snapshot was not recorded \(EISDIR\)/);
    const t = await runCli(['cost', 'trend'], { env, home: blocked });
    assert.is(t.code, 1, t.stderr);
    assert.match(t.stderr, /error: snapshots_unreadable: cannot read the cost history .*: EISDIR/);

    const today = Math.floor(Date.now() / DAY) * DAY;
    const home = tempHome();
    writeHistory(home, [snap(today - 2 * DAY, 1.0, 10), snap(today + 400 * DAY, 500, 10)]);
    const r = await runCli(['cost', 'trend', '--start', day(today - 2 * DAY), '--end', day(today - DAY), '-o', 'json'], { env, home });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: 1 snapshot\(s\) dated in the future are ignored/);
    assert.equal(JSON.parse(r.stdout).days.map((d: { cost: number }) => d.cost), [24, 24]);
  });
});

test('cost trend refuses dates that are not YYYY-MM-DD calendar days, or a start after the end, with exit 2 and nothing sent', async () => {
  await withEmulator(async ({ emu, env }) => {
    for (const [args, message] of [
      [['--start', '2026-02-30'], /--start must be a date written YYYY-MM-DD \(got "2026-02-30"\)/],
      [['--end', '2026-1-5'], /--end must be a date written YYYY-MM-DD \(got "2026-1-5"\)/],
      [['--start', 'yesterday'], /--start must be a date/],
      [['--start', '2026-11-10', '--end', '2026-11-01'], /--start 2026-11-10 is after --end 2026-11-01/],
      [['--start', '2020-01-01', '--end', '2026-01-01'], /the trend covers at most 366 days/],
    ] as const) {
      const r = await runCli(['cost', 'trend', ...args], { env });
      assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^error: usage: /);
      assert.match(r.stderr, message);
    }
    assert.is(emu.requests().length, 0, 'nothing sent');
  });
});

test('cost anomalies: a GPU instance running for days, an offline instance still billing, a day whose burn jumped over 2x, a volume costing over 5x the others; each with its reason and figures', async () => {
  await withEmulator(async ({ env }) => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const home = tempHome();
    writeHistory(home, [snap(today - 3 * DAY, 1.0, 90), snap(today - 2 * DAY, 3.0, 66), snap(today - DAY, 3.5, 0)]);
    const r = await runCli(['cost', 'anomalies', '-o', 'json'], { env, home });
    assert.is(r.code, 0, r.stderr);
    const found = JSON.parse(r.stdout) as { kind: string; subject: string; reason: string; figures: Record<string, any> }[];
    assert.equal(found.map((a) => `${a.kind} ${a.subject}`).sort(), [
      'burn_jump day ' + day(today - 2 * DAY), // 3.0 after 1.0 (3x); 3.5 after 3.0 is not a jump, and days before the first snapshot are not compared
      'cost_outlier volume demo-data',
      'long_running_gpu instance demo-a100',
      'offline_billing instance demo-cpu',
    ]);
    const by = (kind: string) => found.find((a) => a.kind === kind)!;
    const jump = by('burn_jump');
    assert.equal([jump.figures.previous_date, jump.figures.previous_hourly, jump.figures.hourly, jump.figures.factor, jump.figures.threshold_factor], [day(today - 3 * DAY), 1, 3, 3, 2]);
    assert.match(jump.reason, /rose 3\.0× from 1\.0000 USD\/hour on .* to 3\.0000 USD\/hour \(more than 2×\)/);
    const gpu = by('long_running_gpu');
    assert.is(gpu.figures.hourly_cost, 1.29);
    assert.ok(gpu.figures.hours_running >= 48 && gpu.figures.hours_running < 49, String(gpu.figures.hours_running));
    close(gpu.figures.cost_so_far, gpu.figures.hours_running * 1.29, 'so far');
    assert.match(gpu.reason, /GPU instance running for 2\.0 days since it was created \(over 24 h\), 1\.2900 USD\/hour/);
    const off = by('offline_billing');
    close(off.figures.daily_cost, 0.0279 * 24, 'offline per day');
    assert.match(off.reason, /shutdown keeps billing, only delete stops it/);
    const vol = by('cost_outlier');
    const others = ((0.2 * 100) / 720 + (0.2 * 50) / 720) / 2; // median of the two OS volumes
    close(vol.figures.median_of_others, others, 'median of the other volumes');
    close(vol.figures.factor, (0.2 * 500) / 720 / others, 'outlier factor');
    assert.match(vol.reason, /6\.7× the median of the other 2 volumes/);
    for (const a of found) assert.ok(a.reason.length > 20 && typeof a.figures === 'object', JSON.stringify(a));
    const table = await runCli(['cost', 'anomalies'], { env: { ...env, COLUMNS: '60' }, home });
    assert.is(table.code, 0, table.stderr);
    assert.match(table.stdout, /^long_running_gpu: instance demo-a100 \([0-9a-f-]{36}\)\n {2}GPU instance running for 2\.0 days/m);
    assert.is(table.stdout.match(/^\S+: /gm)?.length, 4, table.stdout);
  });
});

test('cost anomalies on an account with nothing billing and no history finds none', async () => {
  await withEmulator(
    async ({ env }) => {
      const r = await runCli(['cost', 'anomalies', '-o', 'json'], { env });
      assert.is(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout), []);
      const t = await runCli(['cost', 'anomalies'], { env });
      assert.is(t.stdout, 'No anomalies.\n');
    },
    { seed: 'empty' },
  );
});

test('gpucloud snapshots keep the account key they had before cost was a capability (the conversation history\'s key)', () => {
  const cases: { config: Config; env: Record<string, string>; sandbox: boolean }[] = [
    { config: {} as Config, env: {}, sandbox: true },
    { config: {} as Config, env: {}, sandbox: false },
    { config: { gpucloud: { default_project_id: ' p-1 ' } } as Config, env: { GPUCLOUD_PROJECT_ID: 'p-env' }, sandbox: false },
    { config: {} as Config, env: { GPUCLOUD_PROJECT_ID: '  ', GPUCLOUD_BASE_URL: 'https://api.example//' }, sandbox: false },
    { config: { gpucloud: { base_url: 'http://127.0.0.1:9/v1/' } } as Config, env: { GPUCLOUD_BASE_URL: 'https://other' }, sandbox: false },
  ];
  for (const c of cases) {
    const before = historyProject({ projectId: c.config.gpucloud?.default_project_id ?? c.env.GPUCLOUD_PROJECT_ID, baseUrl: c.config.gpucloud?.base_url ?? c.env.GPUCLOUD_BASE_URL, sandbox: c.sandbox });
    assert.is(gpucloudCost.live!.account(c), before, JSON.stringify(c));
  }
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EMULATOR_DEFAULT_SSH_KEY_ID, type Emulator } from '../../emulator/index.js';
import { emulatorClient } from '../../emulator/test-client.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

/**
 * Hand-computed from the emulator's fixtures (emulator/seed.ts prices, emulator/fixtures.ts demo account):
 * instance types 1A100.22V 1.29/h, CPU.4V.16G 0.0279/h, 1V100.6V 0.39/h (spot 0.14/h); volume types per GB
 * and month NVMe 0.20, HDD 0.05, NVMe_Shared 0.28 (/720 h); cluster type 16H100 30.24/h.
 */
const GB_HOUR = (perGbMonth: number, gb: number) => (perGbMonth * gb) / 720;
const EXPECTED: Record<string, number> = {
  'demo-a100': 1.29, // seeded, running
  'demo-cpu': 0.0279, // seeded, offline: shutdown keeps billing
  'OS-demo-a100': GB_HOUR(0.2, 100),
  'OS-demo-cpu': GB_HOUR(0.2, 50),
  'demo-data': GB_HOUR(0.2, 500), // seeded, detached: still billed
  'cost-run': 0.39, // created below, on demand
  'cost-spot': 0.14, // created below, spot
  'OS-cost-run': GB_HOUR(0.2, 100),
  'OS-cost-spot': GB_HOUR(0.2, 100),
  'cost-hdd': GB_HOUR(0.05, 200),
  'cost-cluster': 30.24,
  'cost-sfs (of cluster cost-cluster)': GB_HOUR(0.28, 1000),
};
const BURN = Object.values(EXPECTED).reduce((a, b) => a + b, 0);
const BALANCE = 250;

async function createResources(emu: Emulator): Promise<void> {
  const api = emulatorClient(emu);
  const instance = (hostname: string, spot: boolean) => ({
    instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID], is_spot: spot,
  });
  for (const [path, body] of [
    ['/v1/instances', instance('cost-run', false)],
    ['/v1/instances', instance('cost-spot', true)],
    ['/v1/volumes', { type: 'HDD', name: 'cost-hdd', size: 200, location_code: 'FIN-01' }],
    ['/v1/clusters', { cluster_type: '16H100', image: 'ubuntu-24.04-cuda-13.0-cluster', hostname: 'cost-cluster', description: '', location_code: 'FIN-01', ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID], shared_volume: { name: 'cost-sfs', size: 1000 } }],
  ] as const) {
    const r = await api.call('POST', path, body);
    assert.ok(r.status < 300, `${path}: ${r.status} ${r.text}`);
  }
  emu.setBalance(BALANCE);
  // lifecycleMs is 1: await (not sleep) until both instances and the cluster report running, so the CLI sees them billing.
  for (let i = 0; i < 1000; i++) {
    const inst = (await api.call('GET', '/v1/instances')).json as { hostname: string; status: string }[];
    const cl = (await api.call('GET', '/v1/clusters')).json as { status: string }[];
    if (inst.filter((x) => x.hostname.startsWith('cost-')).every((x) => x.status === 'running') && cl.every((x) => x.status === 'running')) return;
  }
  assert.unreachable('the new resources never reached running');
}

const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);

test('cost summary prices every billable resource from the live catalogue: running, offline, spot, volumes, a cluster and its shared volume', async () => {
  await withEmulator(async ({ emu, env }) => {
    await createResources(emu);
    const before = Date.now();
    const r = await runCli(['cost', 'summary', '-o', 'json'], { env });
    assert.is(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.is(s.provider, 'gpucloud');
    assert.is(s.currency, 'usd');
    const byName = Object.fromEntries(s.resources.map((x: { name: string; hourly_cost: number }) => [x.name, x.hourly_cost]));
    assert.equal(Object.keys(byName).sort(), Object.keys(EXPECTED).sort());
    for (const [name, price] of Object.entries(EXPECTED)) close(byName[name], price, name);
    for (const x of s.resources) assert.ok(['instance', 'volume', 'cluster'].includes(x.kind) && typeof x.id === 'string' && x.id.length > 0, JSON.stringify(x));
    assert.is(s.resources.find((x: { name: string }) => x.name === 'cost-spot').spot, true);
    close(s.hourly_cost, BURN, 'hourly_cost');
    close(s.monthly_forecast, BURN * 720, 'monthly_forecast');
    assert.is(s.balance, BALANCE);
    close(s.runway_hours, BALANCE / BURN, 'runway_hours');
    const until = Date.parse(s.runway_until);
    assert.ok(until >= before + (BALANCE / BURN) * 3_600_000 - 1000, s.runway_until);
    assert.match(s.based_on, /live prices from the gpucloud catalogue/);
    assert.match(s.based_on, /offline \(shut-down\) instances still bill/);
  });
});

test('cost summary table shows each resource, the burn, the balance and the runway, and what the figures are based on', async () => {
  await withEmulator(async ({ emu, env }) => {
    await createResources(emu);
    const r = await runCli(['cost', 'summary'], { env: { ...env, COLUMNS: '200' } });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /cost-cluster\s+16H100\s+running\s+30\.2400/);
    assert.match(r.stdout, /cost-spot\s+1V100\.6V \(spot\)\s+running\s+0\.1400/);
    assert.match(r.stdout, /demo-cpu\s+CPU\.4V\.16G\s+offline\s+0\.0279/);
    assert.ok(r.stdout.includes(`Burn:     ${BURN.toFixed(4)} USD/hour`), r.stdout);
    assert.ok(r.stdout.includes(`Balance:  ${BALANCE.toFixed(2)} USD`), r.stdout);
    assert.ok(r.stdout.includes(`(${(BALANCE / BURN).toFixed(1)} h), until `), r.stdout);
    assert.match(r.stdout, /Based on: live prices/);
  });
});

test('cost detail sorts by cost, age or name and shows how long each resource has run and what it cost so far', async () => {
  await withEmulator(async ({ emu, env }) => {
    await createResources(emu);
    const byCost = JSON.parse((await runCli(['cost', 'detail', '-o', 'json'], { env })).stdout);
    assert.is(byCost.resources[0].name, 'cost-cluster');
    const costs = byCost.resources.map((x: { hourly_cost: number }) => x.hourly_cost);
    assert.equal(costs, [...costs].sort((a: number, b: number) => b - a));
    const byAge = JSON.parse((await runCli(['cost', 'detail', '--sort-by', 'age', '-o', 'json'], { env })).stdout);
    // Seeded: demo-cpu and its OS volume 9 days old, demo-data 5 days, demo-a100 2 days.
    assert.equal(byAge.resources.slice(0, 3).map((x: { name: string }) => x.name), ['demo-cpu', 'OS-demo-cpu', 'demo-data']);
    const cpu = byAge.resources[0];
    assert.ok(cpu.hours_running >= 216 && cpu.hours_running < 217, String(cpu.hours_running));
    close(cpu.cost_so_far, cpu.hours_running * 0.0279, 'demo-cpu cost so far');
    const byName = JSON.parse((await runCli(['cost', 'detail', '--sort-by', 'name', '-o', 'json'], { env })).stdout);
    const names = byName.resources.map((x: { name: string }) => x.name);
    assert.equal(names, [...names].sort((a: string, b: string) => a.localeCompare(b)));
    const table = await runCli(['cost', 'detail', '--sort-by', 'age', '-o', 'table'], { env: { ...env, COLUMNS: '200' } });
    assert.match(table.stdout, /RUNNING FOR\s+COST SO FAR/);
    assert.match(table.stdout, /demo-cpu\s+CPU\.4V\.16G\s+offline\s+0\.0279\s+9\.0 d\s+6\.0\d/);
    const bad = await runCli(['cost', 'detail', '--sort-by', 'price'], { env });
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /^error: invalid_input: --sort-by: expected cost, age or name/m);
  });
});

test('every cost table row carries the ID (kept whole in a narrow terminal) that a later command takes to act on it', async () => {
  await withEmulator(async ({ emu, env }) => {
    await createResources(emu);
    for (const [sub, width] of [['summary', '200'], ['detail', '200'], ['summary', '50'], ['detail', '50']] as const) {
      const r = await runCli(['cost', sub], { env: { ...env, COLUMNS: width } });
      assert.is(r.code, 0, r.stderr);
      const rows = r.stdout.slice(0, r.stdout.indexOf('\n\n')).split('\n').slice(1);
      assert.ok(rows.length >= 5, r.stdout);
      for (const row of rows) assert.match(row, /^[0-9a-f-]{36}\s+\S/, `${sub} at ${width} columns: ${row}`);
      assert.match(r.stdout, /^ID\s+.*NAME\s+.*STATUS/m, `the name and status are kept too at ${width} columns`);
    }
    const table = (await runCli(['cost', 'summary'], { env: { ...env, COLUMNS: '200' } })).stdout;
    const id = /^([0-9a-f-]{36})\s+instance\s+demo-cpu\s/m.exec(table)?.[1];
    assert.ok(id, table);
    const got = await runCli(['gpucloud', 'get', 'instance', id!, '-o', 'json'], { env });
    assert.is(got.code, 0, got.stderr);
    assert.is(JSON.parse(got.stdout).hostname, 'demo-cpu');
    const anomalies = await runCli(['cost', 'anomalies'], { env });
    assert.match(anomalies.stdout, new RegExp(`^offline_billing: instance demo-cpu \\(${id}\\)$`, 'm'));
  });
});

test('cost forecast projects the burn to month end and gives the date the balance runs out', async () => {
  await withEmulator(async ({ emu, env }) => {
    await createResources(emu);
    const r = await runCli(['cost', 'forecast', '-o', 'json'], { env });
    assert.is(r.code, 0, r.stderr);
    const f = JSON.parse(r.stdout);
    const asOf = Date.parse(f.as_of);
    const d = new Date(asOf);
    const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    assert.is(f.month_end, new Date(monthEnd).toISOString());
    close(f.hours_to_month_end, (monthEnd - asOf) / 3_600_000, 'hours to month end');
    close(f.cost_to_month_end, BURN * f.hours_to_month_end, 'cost to month end');
    close(f.balance_at_month_end, BALANCE - BURN * f.hours_to_month_end, 'balance at month end');
    close(f.runway_hours, BALANCE / BURN, 'runway');
    assert.is(f.runway_until, new Date(asOf + (BALANCE / BURN) * 3_600_000).toISOString());
    assert.is(f.runs_out_before_month_end, BALANCE / BURN < f.hours_to_month_end);
  });
});

test('cost export writes CSV or JSON by extension that parse back to the same figures, and refuses other extensions with exit 2', async () => {
  await withEmulator(async ({ emu, env }) => {
    await createResources(emu);
    const home = tempHome();
    const csv = await runCli(['cost', 'export', '--output', 'cost.csv'], { env, home });
    assert.is(csv.code, 0, csv.stderr);
    assert.is(csv.stdout, '');
    const lines = readFileSync(join(home, 'cost.csv'), 'utf8').trim().split(/\r\n/);
    const header = lines[0]!.split(',');
    assert.equal(header.slice(0, 4), ['kind', 'id', 'name', 'type']);
    const rows = lines.slice(1).map((l) => l.split(','));
    assert.is(rows.length, Object.keys(EXPECTED).length);
    const at = (f: string) => header.indexOf(f);
    const fromCsv = Object.fromEntries(rows.map((c) => [c[at('name')]!, Number(c[at('hourly_cost')])]));
    for (const [name, price] of Object.entries(EXPECTED)) close(fromCsv[name]!, price, `csv ${name}`);
    const json = await runCli(['cost', 'export', '--output=cost.JSON'], { env, home });
    assert.is(json.code, 0, json.stderr);
    const s = JSON.parse(readFileSync(join(home, 'cost.JSON'), 'utf8'));
    close(s.hourly_cost, BURN, 'json hourly_cost');
    const before = emu.requests().length;
    const txt = await runCli(['cost', 'export', '--output', 'cost.txt'], { env, home });
    assert.is(txt.code, 2);
    assert.match(txt.stderr, /error: usage: cannot export to "cost\.txt": the file must end in \.csv or \.json/);
    assert.is(emu.requests().length, before, 'nothing sent');
    const noDir = await runCli(['cost', 'export', '--output', 'missing/cost.csv'], { env, home });
    assert.is(noDir.code, 2);
    assert.match(noDir.stderr, /error: usage: cannot export to "missing\/cost\.csv": the folder .* does not exist/);
    assert.is(emu.requests().length, before, 'nothing sent');
  });
});

test('cost export CSV quotes commas and quotes and defuses a name a spreadsheet would run as a formula', async () => {
  await withEmulator(async ({ emu, env }) => {
    const name = '=HYPERLINK("http://x","a,b")';
    const made = await emulatorClient(emu).call('POST', '/v1/volumes', { type: 'HDD', name, size: 40, location_code: 'FIN-01' });
    assert.is(made.status, 202, made.text);
    const home = tempHome();
    const r = await runCli(['cost', 'export', '--output', 'c.csv'], { env, home });
    assert.is(r.code, 0, r.stderr);
    const text = readFileSync(join(home, 'c.csv'), 'utf8');
    assert.ok(text.includes(`,"'=HYPERLINK(""http://x"",""a,b"")",HDD,`), text);
  });
});

test('every cost command records a snapshot (time, balance, burn) in ~/.assistant/cost, readable only by the user', async () => {
  await withEmulator(async ({ emu, env }) => {
    await createResources(emu);
    const home = tempHome();
    for (const cmd of [['summary'], ['detail'], ['forecast'], ['export', '--output', 'c.json']]) {
      const r = await runCli(['cost', ...cmd], { env, home });
      assert.is(r.code, 0, r.stderr);
    }
    const file = join(home, '.assistant', 'cost', 'snapshots.jsonl');
    assert.is(statSync(file).mode & 0o777, 0o600);
    const snaps = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.is(snaps.length, 4);
    for (const s of snaps) {
      assert.is(s.provider, 'gpucloud');
      assert.is(s.balance, BALANCE);
      close(s.hourly_cost, BURN, 'snapshot burn');
      assert.ok(Number.isFinite(Date.parse(s.at)));
    }
  });
});

test('an account with nothing billing has zero burn and no runway limit (not a division by zero)', async () => {
  await withEmulator(
    async ({ env }) => {
      const r = await runCli(['cost', 'summary', '-o', 'json'], { env });
      assert.is(r.code, 0, r.stderr);
      const s = JSON.parse(r.stdout);
      assert.equal([s.hourly_cost, s.monthly_forecast, s.runway_hours, s.runway_until, s.resources], [0, 0, null, null, []]);
      const t = await runCli(['cost', 'forecast'], { env });
      assert.match(t.stdout, /Runs out:\s+never at this burn \(nothing bills\)/);
    },
    { seed: 'empty' },
  );
});

test('cost with an unknown provider is a usage error listing the providers that can, and sends nothing', async () => {
  await withEmulator(async ({ emu, env }) => {
    const r = await runCli(['cost', 'summary', '--provider', 'cloud_z'], { env });
    assert.is(r.code, 2);
    assert.match(r.stderr, /error: usage: cost for provider "cloud_z" is not available yet: providers with cost figures are gpucloud, cloud_a, cloud_b or cloud_c\n/);
    assert.match(r.stderr, /hint: cost summary works for --provider gpucloud, cloud_a, cloud_b or cloud_c/);
    // cloud_a's bill has services, not resources with an age (issue 39 item 6: its detail is by usage type).
    const d = await runCli(['cost', 'detail', '--provider', 'cloud_a', '--sort-by', 'age'], { env });
    assert.is(d.code, 2);
    assert.match(d.stderr, /error: usage: --sort-by age needs live figures: cloud_a's bill has services, not resources with an age\n/);
    assert.match(d.stderr, /hint: assistant cost detail --provider cloud_a --sort-by cost\|name/);
    assert.is(emu.requests().length, 0);
  });
});

test.run();

/**
 * `cost summary|forecast|trend|detail|export|tags|anomalies --provider cloud_a`: `aws ce get-cost-and-usage` read steps run by the
 * real aws CLI against moto, whose Cost Explorer answers from a queue seeded through
 * POST /moto-api/static/ce/cost-and-usage-results (one result per distinct request, in order; the same
 * request again gets the same result). Every figure is hand-computed from the seed. detail, export,
 * tags and anomalies (issue 39 item 6) read the same call grouped by usage type, by tag and by service.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome } from '../../support/cli.js';
import { motoSuite, type RunningMoto } from '../../support/moto.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const motoTest = motoSuite(test);

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);
const cost = (amount: string) => ({ UnblendedCost: { Amount: amount, Unit: 'USD' } });
const dayRow = (date: number, groups: [string, string][] | undefined, total: string | undefined, estimated: boolean) => ({
  TimePeriod: { Start: day(date), End: day(date + DAY) },
  Total: total === undefined ? {} : cost(total),
  Groups: (groups ?? []).map(([k, v]) => ({ Keys: [k], Metrics: cost(v) })),
  Estimated: estimated,
});

async function seed(m: RunningMoto, results: unknown[]): Promise<void> {
  const res = await fetch(`${m.url}/moto-api/static/ce/cost-and-usage-results`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ results }) });
  assert.ok(res.ok, `seeding moto: HTTP ${res.status}`);
}

const now = new Date();
const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
const monthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
// The month to date as Cost Explorer reports it by service: EC2 10.50 + 12.00, S3 1.25.
const MONTH = { ResultsByTime: [dayRow(monthStart, [['Amazon EC2', '10.5'], ['Amazon S3', '1.25']], undefined, false), dayRow(monthStart + DAY, [['Amazon EC2', '12']], undefined, true)], DimensionValueAttributes: [] };
const MTD = 10.5 + 12 + 1.25;
const DAILY = MTD / 2;

motoTest('cost summary --provider cloud_a: month to date by service from Cost Explorer, the average burn, no balance or runway', async (m) => {
  await seed(m, [MONTH]);
  const r = await runCli(['cost', 'summary', '--provider', 'cloud_a', '-o', 'json'], { env: m.env, home: tempHome() });
  assert.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal([s.provider, s.currency, s.balance, s.runway_hours, s.period], ['cloud_a', 'usd', null, null, { start: day(monthStart), end: day(monthStart + DAY), days: 2 }]);
  close(s.month_to_date, MTD, 'month to date');
  close(s.daily_cost, DAILY, 'per day');
  close(s.hourly_cost, DAILY / 24, 'per hour');
  close(s.monthly_forecast, (DAILY / 24) * 720, '30 days');
  assert.equal(s.resources.map((x: { kind: string; name: string }) => `${x.kind} ${x.name}`), ['service Amazon EC2', 'service Amazon S3']);
  close(s.resources[0].cost_so_far, 22.5, 'EC2 so far');
  close(s.resources[0].hourly_cost, 22.5 / 2 / 24, 'EC2 per hour');
  assert.match(s.based_on, /AWS Cost Explorer \(get-cost-and-usage, UnblendedCost, daily\)/);
  const t = await runCli(['cost', 'summary', '--provider', 'cloud_a'], { env: { ...m.env, COLUMNS: '120' }, home: tempHome() });
  assert.is(t.code, 0, t.stderr);
  assert.match(t.stdout, /^Amazon EC2\s+22\.50\s+0\.4688$/m);
  assert.ok(t.stdout.includes(`Month to date: ${MTD.toFixed(2)} USD (${day(monthStart)} to ${day(monthStart + DAY)}, 2 day(s))`), t.stdout);
});

motoTest('cost forecast --provider cloud_a projects the month end from the average daily cost (get-cost-forecast is not used), and says so', async (m) => {
  await seed(m, [MONTH]);
  const r = await runCli(['cost', 'forecast', '--provider', 'cloud_a', '-o', 'json'], { env: m.env, home: tempHome() });
  assert.is(r.code, 0, r.stderr);
  const f = JSON.parse(r.stdout);
  const remaining = (monthEnd - (monthStart + 2 * DAY)) / DAY; // the days after the last one reported
  assert.equal([f.days_counted, f.days_remaining, f.month_end], [2, remaining, new Date(monthEnd).toISOString()]);
  close(f.cost_to_month_end, DAILY * remaining, 'to month end');
  close(f.month_end_total, MTD + DAILY * remaining, 'month-end total');
  assert.match(f.method, /get-cost-forecast is not used/);
});

motoTest('cost trend --provider cloud_a: the daily series as billed (or estimated) by AWS within the range; bad dates are refused before aws runs', async (m) => {
  const today = Math.floor(Date.now() / DAY) * DAY;
  await seed(m, [
    { ResultsByTime: [dayRow(today - 5 * DAY, undefined, '100', false), dayRow(today - 2 * DAY, undefined, '5', false), dayRow(today - DAY, undefined, '7.25', true)], DimensionValueAttributes: [] },
  ]);
  const r = await runCli(['cost', 'trend', '--provider', 'cloud_a', '--start', day(today - 2 * DAY), '--end', day(today - DAY), '-o', 'json'], { env: m.env, home: tempHome() });
  assert.is(r.code, 0, r.stderr);
  const t = JSON.parse(r.stdout);
  assert.equal(t.days.map((d: { date: string; cost: number; basis: string }) => [d.date, d.cost, d.basis]), [
    [day(today - 2 * DAY), 5, 'billed'],
    [day(today - DAY), 7.25, 'estimated'],
  ]);
  close(t.total, 12.25, 'total');
  assert.is(t.provider, 'cloud_a');
  const bad = await runCli(['cost', 'trend', '--provider', 'cloud_a', '--start', '2026-13-01'], { env: m.env, home: tempHome() });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--start must be a date written YYYY-MM-DD/);
});

const usageRow = (date: number, groups: [string, string, string][], estimated: boolean) => ({
  TimePeriod: { Start: day(date), End: day(date + DAY) },
  Total: {},
  Groups: groups.map(([service, usage, v]) => ({ Keys: [service, usage], Metrics: cost(v) })),
  Estimated: estimated,
});
// The month to date by service and usage type: EC2 box usage 10 + 12, EC2 EBS 0.5, S3 storage 1.25.
const USAGE = {
  ResultsByTime: [
    usageRow(monthStart, [['Amazon EC2', 'BoxUsage:g5.xlarge', '10'], ['Amazon EC2', 'EBS:VolumeUsage.gp3', '0.5'], ['Amazon S3', 'TimedStorage-ByteHrs', '1.25']], false),
    usageRow(monthStart + DAY, [['Amazon EC2', 'BoxUsage:g5.xlarge', '12']], true),
  ],
  DimensionValueAttributes: [],
};

motoTest('cost detail --provider cloud_a: the month to date by service and usage type from Cost Explorer, sorted by cost or name', async (m) => {
  await seed(m, [USAGE]);
  const r = await runCli(['cost', 'detail', '--provider', 'cloud_a', '-o', 'json'], { env: m.env, home: tempHome() });
  assert.is(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout);
  assert.equal([d.provider, d.sort_by, d.period], ['cloud_a', 'cost', { start: day(monthStart), end: day(monthStart + DAY), days: 2 }]);
  assert.equal(d.rows.map((x: { service: string; usage_type: string; cost_so_far: number }) => [x.service, x.usage_type, x.cost_so_far]), [
    ['Amazon EC2', 'BoxUsage:g5.xlarge', 22],
    ['Amazon S3', 'TimedStorage-ByteHrs', 1.25],
    ['Amazon EC2', 'EBS:VolumeUsage.gp3', 0.5],
  ]);
  close(d.rows[0].hourly_cost, 22 / 2 / 24, 'box usage per hour');
  close(d.month_to_date, 23.75, 'month to date');
  const byName = await runCli(['cost', 'detail', '--provider', 'cloud_a', '--sort-by', 'name', '-o', 'json'], { env: m.env, home: tempHome() });
  assert.is(byName.code, 0, byName.stderr);
  assert.equal(JSON.parse(byName.stdout).rows.map((x: { usage_type: string }) => x.usage_type), ['BoxUsage:g5.xlarge', 'EBS:VolumeUsage.gp3', 'TimedStorage-ByteHrs']);
  const t = await runCli(['cost', 'detail', '--provider', 'cloud_a'], { env: { ...m.env, COLUMNS: '120' }, home: tempHome() });
  assert.is(t.code, 0, t.stderr);
  assert.match(t.stdout, /^Amazon EC2\s+BoxUsage:g5\.xlarge\s+22\.00\s+0\.4583$/m);
  assert.ok(t.stdout.includes('Month to date: 23.75 USD'), t.stdout);
});

motoTest('cost export --provider cloud_a writes the month by service and usage type as CSV and JSON', async (m) => {
  await seed(m, [USAGE]);
  const home = tempHome();
  const csv = join(home, 'aws.csv');
  const r = await runCli(['cost', 'export', '--provider', 'cloud_a', '--output', csv], { env: m.env, home });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /wrote 3 service and usage type rows \(23\.75 USD month to date\)/);
  const lines = readFileSync(csv, 'utf8').split('\r\n');
  assert.equal(lines.slice(0, 2), ['service,usage_type,cost_so_far,hourly_cost', `Amazon EC2,BoxUsage:g5.xlarge,22,${22 / 2 / 24}`]);
  assert.is(lines.length, 5, 'header, 3 rows and the final CRLF');
  const json = join(home, 'aws.json');
  const j = await runCli(['cost', 'export', '--provider', 'cloud_a', '--output', json], { env: m.env, home });
  assert.is(j.code, 0, j.stderr);
  const doc = JSON.parse(readFileSync(json, 'utf8'));
  assert.equal([doc.provider, doc.rows.length, doc.month_to_date], ['cloud_a', 3, 23.75]);
});

motoTest('cost tags --provider cloud_a groups the month by the tag value Cost Explorer records (key$value; key$ is untagged, shown last)', async (m) => {
  const tagRow = (date: number, groups: [string, string][]) => ({ TimePeriod: { Start: day(date), End: day(date + DAY) }, Total: {}, Groups: groups.map(([k, v]) => ({ Keys: [k], Metrics: cost(v) })), Estimated: false });
  await seed(m, [{ ResultsByTime: [tagRow(monthStart, [['team$', '30'], ['team$ml', '4'], ['team$web', '1']]), tagRow(monthStart + DAY, [['team$ml', '20'], ['team$', '2']])], DimensionValueAttributes: [] }]);
  const r = await runCli(['cost', 'tags', '--provider', 'cloud_a', '--key', 'team', '-o', 'json'], { env: m.env, home: tempHome() });
  assert.is(r.code, 0, r.stderr);
  const t = JSON.parse(r.stdout);
  assert.equal(t.groups.map((g: { value: string | null; month_to_date: number }) => [g.value, g.month_to_date]), [['ml', 24], ['web', 1], [null, 32]]);
  close(t.groups[0].monthly_forecast, (24 / 2 / 24) * 720, 'ml per 30 days');
  assert.equal([t.key, t.month_to_date], ['team', 57]);
  const table = await runCli(['cost', 'tags', '--provider', 'cloud_a', '--key', 'team'], { env: { ...m.env, COLUMNS: '120' }, home: tempHome() });
  assert.match(table.stdout, /^\(untagged\)\s+32\.00/m);
});

motoTest('cost tags --provider cloud_a refuses a key that would add fields to the CLI shorthand, and nothing reaches Cost Explorer', async (m) => {
  const one = { ResultsByTime: [dayRow(monthStart, [['team$ml', '3']], undefined, false)], DimensionValueAttributes: [] };
  await seed(m, [one]);
  const bad = await runCli(['cost', 'tags', '--provider', 'cloud_a', '--key', 'team,Type=DIMENSION'], { env: m.env, home: tempHome() });
  assert.is(bad.code, 2, bad.stderr);
  const injected = await runCli(['cost', 'tags', '--provider', 'cloud_a', '--key', 'team,cost-center'], { env: m.env, home: tempHome() });
  assert.is(injected.code, 2, injected.stderr);
  assert.match(injected.stderr, /error: usage: "team,cost-center" is not an AWS tag key Cost Explorer can group by/);
  // moto hands its seeded results out in order, one per new request: had either been sent, it would have taken the seed.
  const good = await runCli(['cost', 'tags', '--provider', 'cloud_a', '--key', 'team', '-o', 'json'], { env: m.env, home: tempHome() });
  assert.is(good.code, 0, good.stderr);
  assert.equal(JSON.parse(good.stdout).groups.map((g: { value: string }) => g.value), ['ml']);
});

motoTest('cost anomalies --provider cloud_a: a day whose bill, or a service whose cost, more than doubles (by at least 1 USD) over the day before', async (m) => {
  const today = Math.floor(Date.now() / DAY) * DAY;
  await seed(m, [
    {
      ResultsByTime: [
        dayRow(today - 3 * DAY, [['Amazon EC2', '10'], ['Amazon S3', '0.10']], undefined, false),
        dayRow(today - 2 * DAY, [['Amazon EC2', '11'], ['Amazon S3', '0.30']], undefined, false), // S3 triples by 0.20: noise
        dayRow(today - DAY, [['Amazon EC2', '30'], ['Amazon S3', '0.30']], undefined, true),
      ],
      DimensionValueAttributes: [],
    },
  ]);
  const r = await runCli(['cost', 'anomalies', '--provider', 'cloud_a', '-o', 'json'], { env: m.env, home: tempHome() });
  assert.is(r.code, 0, r.stderr);
  const found = JSON.parse(r.stdout);
  assert.equal(found.map((a: { kind: string; subject: string }) => `${a.kind} ${a.subject}`), [`burn_jump day ${day(today - DAY)}`, 'service_jump service Amazon EC2']);
  close(found[1].figures.factor, 30 / 11, 'EC2 factor');
  assert.match(found[1].reason, /estimated: the day is not closed yet/);
  const t = await runCli(['cost', 'anomalies', '--provider', 'cloud_a'], { env: m.env, home: tempHome() });
  assert.match(t.stdout, /^service_jump: service Amazon EC2\n  Amazon EC2's daily cost rose 2\.7× from 11\.00 USD/m);
});

test.run();

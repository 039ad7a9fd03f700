/**
 * `cost summary|forecast|trend --provider cloud_a`: `aws ce get-cost-and-usage` read steps run by the
 * real aws CLI against moto, whose Cost Explorer answers from a queue seeded through
 * POST /moto-api/static/ce/cost-and-usage-results (one result per distinct request, in order; the same
 * request again gets the same result). Every figure is hand-computed from the seed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, tempHome } from './support/cli.js';
import { motoSuite, type RunningMoto } from './support/moto.js';

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

test.run();

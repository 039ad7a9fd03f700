/**
 * `cost summary|trend|forecast|detail|export|tags|anomalies --provider cloud_b` (issue 39 item 6): the
 * Cloud Billing export in BigQuery through `bq query`, run by the CLI child against a recording stand-in
 * `bq` on PATH that answers as bq does (`--format=json`: an array of rows, every value a string) or
 * fails as bq does when the account may not run jobs or read the table. Figures are hand-computed from
 * the canned rows; the exact argv bq got is asserted.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bqVerb } from '../../../engine/providers/cloud_b/provider.js';
import { billingQueryArgs, billingSql } from '../../../engine/providers/cloud_b/cost.js';
import { runCli, tempHome } from '../../support/cli.js';
import { planFile } from '../../support/moto.js';
import { standIn } from '../../support/standin.js';
import { tempDir } from '../../support/temp.js';

const TABLE = 'billing-admin.billing_export.gcp_billing_export_v1_01A2B3_C4D5E6_F7A8B9';
const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);
const now = new Date();
const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
const today = Math.floor(Date.now() / DAY) * DAY;

function config(table: string | null = TABLE, project = 'my-proj'): string {
  const file = join(tempDir('cost-b-cfg-'), 'config.yaml');
  writeFileSync(file, `infra:\n  cloud_b:\n    project_id: ${project}\n${table ? `    billing_export_table: ${JSON.stringify(table)}\n` : ''}`, { mode: 0o600 });
  return file;
}

const run = (args: string[], bq: { path: string }, cfg = config(), env: Record<string, string> = {}) =>
  runCli(['--config', cfg, ...args], { env: { PATH: bq.path, ...env }, home: tempHome() });

// bq --format=json: every value a string. Compute Engine 10.50 + 12.00 (after credits), Cloud Storage 1.25.
const BY_SERVICE = [
  { day: day(monthStart), service: 'Compute Engine', currency: 'USD', cost: '10.5' },
  { day: day(monthStart), service: 'Cloud Storage', currency: 'USD', cost: '1.25' },
  { day: day(monthStart + DAY), service: 'Compute Engine', currency: 'USD', cost: '12' },
];
const MTD = 23.75;

test('cost summary --provider cloud_b: bq runs the billing export query by service (dates as query parameters, bytes capped, in the configured project); the month by service', async () => {
  const bq = standIn('bq', [{ match: 'service.description AS service', stdout: BY_SERVICE }]);
  const r = await run(['cost', 'summary', '--provider', 'cloud_b', '-o', 'json'], bq);
  assert.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal([s.provider, s.currency, s.balance, s.runway_hours, s.period], ['cloud_b', 'usd', null, null, { start: day(monthStart), end: day(monthStart + DAY), days: 2 }]);
  close(s.month_to_date, MTD, 'month to date');
  assert.equal(s.resources.map((x: { name: string; cost_so_far: number }) => [x.name, x.cost_so_far]), [['Compute Engine', 22.5], ['Cloud Storage', 1.25]]);
  assert.match(s.based_on, /Cloud Billing export to BigQuery \(bq query, cost \+ credits/);
  const sql =
    "SELECT FORMAT_DATE('%F', DATE(usage_start_time)) AS day, service.description AS service, currency, SUM(cost) + SUM(IFNULL((SELECT SUM(c.amount) FROM UNNEST(credits) AS c), 0)) AS cost " +
    `FROM \`${TABLE}\` WHERE usage_start_time >= TIMESTAMP(@start) AND usage_start_time < TIMESTAMP(@end) GROUP BY day, service, currency ORDER BY day`;
  assert.equal(bq.calls(), [
    ['--project_id=my-proj', 'query', '--nouse_legacy_sql', '--format=json', '--max_rows=100000', '--maximum_bytes_billed=10000000000', `--parameter=start:DATE:${day(monthStart)}`, `--parameter=end:DATE:${day(today + DAY)}`, sql],
  ]);
  const t = await run(['cost', 'summary', '--provider', 'cloud_b'], bq, config(), { COLUMNS: '120' });
  assert.is(t.code, 0, t.stderr);
  assert.match(t.stdout, /^Compute Engine\s+22\.50\s+0\.4688$/m);
  assert.ok(t.stdout.includes(`Month to date: ${MTD.toFixed(2)} USD (${day(monthStart)} to ${day(monthStart + DAY)}, 2 day(s))`), t.stdout);
  assert.ok(t.stdout.includes('Burn:     0.4948 USD/hour on average (11.88 per day, 356.25 per 30 days)'), t.stdout);
});

test('cost trend and forecast --provider cloud_b: the days as exported (today and yesterday estimated); the month end at the average', async () => {
  const bq = standIn('bq', [
    {
      match: 'query',
      stdout: [
        { day: day(today - 3 * DAY), currency: 'USD', cost: '4' },
        { day: day(today - 2 * DAY), currency: 'USD', cost: '5' },
        { day: day(today - DAY), currency: 'USD', cost: '2.5' },
        { day: day(today - DAY), currency: 'USD', cost: '-0.5' }, // a credit row of its own
      ],
    },
  ]);
  const r = await run(['cost', 'trend', '--provider', 'cloud_b', '--start', day(today - 2 * DAY), '--end', day(today - DAY), '-o', 'json'], bq);
  assert.is(r.code, 0, r.stderr);
  const t = JSON.parse(r.stdout);
  assert.equal(t.days.map((d: { date: string; cost: number; basis: string }) => [d.date, d.cost, d.basis]), [
    [day(today - 2 * DAY), 5, 'billed'],
    [day(today - DAY), 2, 'estimated'],
  ]);
  assert.not.ok(bq.calls()[0]!.some((a) => a.includes('service.description')), 'the trend reads the total per day');
  const f = await run(['cost', 'forecast', '--provider', 'cloud_b', '-o', 'json'], bq);
  assert.is(f.code, 0, f.stderr);
  const fc = JSON.parse(f.stdout);
  assert.match(fc.method, /Google's budget forecasts are not used/);
  close(fc.daily_average, fc.month_to_date / fc.days_counted, 'daily average');
});

test('cost tags and detail --provider cloud_b: by the value of a label (the key a query parameter, untagged last) and by service and SKU', async () => {
  const bq = standIn('bq', [
    { match: '--parameter=label_key::team', stdout: [{ day: day(monthStart), label: 'ml', currency: 'USD', cost: '20' }, { day: day(monthStart), label: '', currency: 'USD', cost: '3' }, { day: day(monthStart), label: 'web', currency: 'USD', cost: '1' }] },
    { match: 'sku.description AS usage', stdout: [{ day: day(monthStart), service: 'Compute Engine', usage: 'N2 Instance Core running in Americas', currency: 'USD', cost: '9' }, { day: day(monthStart), service: 'Cloud Storage', usage: 'Standard Storage US Multi-region', currency: 'USD', cost: '0.5' }] },
  ]);
  const r = await run(['cost', 'tags', '--provider', 'cloud_b', '--key', 'team', '-o', 'json'], bq);
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).groups.map((g: { value: string | null; month_to_date: number }) => [g.value, g.month_to_date]), [['ml', 20], ['web', 1], [null, 3]]);
  assert.ok(bq.calls()[0]!.at(-1)!.includes('WHERE l.key = @label_key'), 'the key is a query parameter, never in the SQL text');
  const d = await run(['cost', 'detail', '--provider', 'cloud_b', '-o', 'json'], bq);
  assert.is(d.code, 0, d.stderr);
  assert.equal(JSON.parse(d.stdout).rows.map((x: { service: string; usage_type: string; cost_so_far: number }) => [x.service, x.usage_type, x.cost_so_far]), [
    ['Compute Engine', 'N2 Instance Core running in Americas', 9],
    ['Cloud Storage', 'Standard Storage US Multi-region', 0.5],
  ]);
  const bad = await run(['cost', 'tags', '--provider', 'cloud_b', '--key', "team'--"], bq);
  assert.is(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /is not a Google Cloud label key/);
  assert.is(bq.calls().length, 2, 'the refused key sent nothing');
});

test('cost --provider cloud_b without an export table, or with one that is not a plain table name: exit 2, how to set it up, bq never runs', async () => {
  const bq = standIn('bq', [{ match: 'query', stdout: BY_SERVICE }]);
  const none = await run(['cost', 'summary', '--provider', 'cloud_b'], bq, config(null));
  assert.is(none.code, 2, none.stderr);
  assert.match(none.stderr, /error: usage: cost --provider cloud_b reads the Cloud Billing export in BigQuery, and infra\.cloud_b\.billing_export_table is not set/);
  assert.match(none.stderr, /Billing export/);
  const injected = await run(['cost', 'summary', '--provider', 'cloud_b'], bq, config('p-1234.ds.t` WHERE 1=1; DROP TABLE x; --'));
  assert.is(injected.code, 2, injected.stderr);
  assert.match(injected.stderr, /is not a BigQuery table written <project>\.<dataset>\.<table>/);
  assert.equal(bq.calls(), []);
});

test('cost --provider cloud_b without billing access: which permission is missing and the role that grants it (jobs in the project, the export table); exit 1', async () => {
  const noJobs = standIn('bq', [{ match: 'query', stderr: "BigQuery error in query operation: Error processing job 'my-proj:bqjob_r1a2b3_0000018c': Access Denied: Project my-proj: User does not have bigquery.jobs.create permission in project my-proj.", exit: 1 }]);
  const r = await run(['cost', 'summary', '--provider', 'cloud_b'], noJobs);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /^error: billing_access_denied: the Google account may not run BigQuery queries in project my-proj: it lacks bigquery\.jobs\.create$/m);
  assert.match(r.stderr, /BigQuery Job User role \(roles\/bigquery\.jobUser\)/, r.stderr);
  const noTable = standIn('bq', [{ match: 'query', stderr: `BigQuery error in query operation: Access Denied: Table billing-admin:billing_export.gcp_billing_export_v1_01A2B3_C4D5E6_F7A8B9: User does not have permission to query table billing-admin:billing_export.gcp_billing_export_v1_01A2B3_C4D5E6_F7A8B9, or perhaps it does not exist.`, exit: 1 }]);
  const t = await run(['cost', 'trend', '--provider', 'cloud_b'], noTable);
  assert.is(t.code, 1, t.stderr);
  assert.match(t.stderr, /error: billing_access_denied: the Google account may not read the billing export table billing-admin:billing_export\.gcp_billing_export_v1_01A2B3_C4D5E6_F7A8B9: it lacks bigquery\.tables\.getData/);
  assert.match(t.stderr, /BigQuery Data Viewer role \(roles\/bigquery\.dataViewer\)/);
  const missing = standIn('bq', [{ match: 'query', stderr: 'BigQuery error in query operation: Not found: Table billing-admin:billing_export.gcp_billing_export_v1_x was not found in location US', exit: 2 }]);
  const m = await run(['cost', 'summary', '--provider', 'cloud_b'], missing);
  assert.is(m.code, 1, m.stderr);
  assert.match(m.stderr, /error: billing_export_not_found: the billing export table billing-admin:billing_export\.gcp_billing_export_v1_x does not exist/);
});

test('bq steps: only the exact billing query is a read; other SQL, another command, an extra flag or a changed parameter is refused outright, --destroyer or not, and bq never runs', async () => {
  const q = billingQueryArgs({ table: TABLE, start: '2026-11-01', endExclusive: '2026-11-29', group: { by: 'service' } });
  assert.is(bqVerb.classify(['bq', ...q]).effect, 'read');
  assert.is(bqVerb.classify(['bq', ...billingQueryArgs({ table: TABLE, start: '2026-11-01', endExclusive: '2026-11-29', group: { by: 'tag', key: 'cost-center' } })]).effect, 'read');
  const swapSql = (sql: string) => [...q.slice(0, -1), sql];
  const forms = [
    swapSql(`DELETE FROM \`${TABLE}\` WHERE true`),
    swapSql(billingSql({ table: TABLE, group: { by: 'service' } }).replace('ORDER BY day', 'ORDER BY day; DROP TABLE x')),
    swapSql(`SELECT * FROM \`${TABLE}\``),
    q.map((a) => (a.startsWith('--maximum_bytes_billed') ? '--maximum_bytes_billed=1000000000000000' : a)),
    q.filter((a) => !a.startsWith('--maximum_bytes_billed')),
    [...q.slice(0, 1), '--destination_table=other.t', ...q.slice(1)],
    ['--apilog=/tmp/bq.log', ...q],
    ['rm', '-f', '-t', TABLE],
    ['query', `DROP TABLE \`${TABLE}\``],
  ];
  for (const args of forms) assert.ok(bqVerb.classify(['bq', ...args]).refused?.length, args.join(' '));
  const bq = standIn('bq');
  const file = planFile(forms.map((args) => ({ args: ['bq', ...args], reason: 'not the billing query' })), 'cloud_b');
  const r = await run(['ask', '--apply', '--destroyer', '--plan-file', file], bq);
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /bq steps run only the Cloud Billing export query the cost commands write/);
  assert.equal(bq.calls(), []);
  const read = planFile([{ args: ['bq', ...q], reason: 'costs' }], 'cloud_b');
  const ok = await run(['ask', '--apply', '-o', 'json', '--plan-file', read], bq);
  assert.is(ok.code, 0, ok.stderr);
  assert.equal(bq.calls(), [['--project_id=my-proj', ...q]]);
});

test.run();

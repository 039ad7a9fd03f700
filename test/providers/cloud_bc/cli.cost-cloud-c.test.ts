/**
 * `cost summary|trend|forecast|detail|export|tags|anomalies --provider cloud_c` (issue 39 item 6): Cost
 * Management's query API through `az rest --method post`, run by the CLI child against a recording
 * stand-in `az` on PATH that answers in the API's shape (`properties.columns` / `rows`, UsageDate as
 * yyyymmdd, `nextLink` for more pages) or fails as az does when the account has no billing access.
 * Every figure is hand-computed from the canned rows; the exact argv az got is asserted.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCommand } from '../../../engine/core/kits/cli/argv.js';
import { AZ_SYNTAX, isCostQuery } from '../../../engine/providers/cloud_c/destroyer.js';
import { azVerb } from '../../../engine/providers/cloud_c/provider.js';
import { cliInThisProcess, runCli, tempHome } from '../../support/cli.js';
import { planFile } from '../../support/moto.js';
import { standIn, type CannedResponse } from '../../support/standin.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const SUB = '0b1f6471-1bf0-4dda-aec3-cb9272f09590';
const QUERY_URL = `https://management.azure.com/subscriptions/${SUB}/providers/Microsoft.CostManagement/query?api-version=2023-03-01`;
const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const usageDate = (ms: number) => Number(day(ms).replace(/-/g, ''));
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);

const now = new Date();
const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
const today = Math.floor(Date.now() / DAY) * DAY;

function config(subscription: string | null = SUB): string {
  const file = join(tempDir('cost-c-cfg-'), 'config.yaml');
  writeFileSync(file, subscription ? `infra:\n  cloud_c:\n    subscription_id: ${subscription}\n` : 'infra: {}\n', { mode: 0o600 });
  return file;
}

/** A query answer as Cost Management writes it: columns, then rows in the columns' order. */
const answer = (groupColumns: string[], rows: (string | number)[][], nextLink: string | null = null) => ({
  id: `subscriptions/${SUB}/providers/Microsoft.CostManagement/query/00000000-0000-0000-0000-000000000001`,
  name: '00000000-0000-0000-0000-000000000001',
  type: 'Microsoft.CostManagement/query',
  properties: {
    nextLink,
    columns: [{ name: 'Cost', type: 'Number' }, { name: 'UsageDate', type: 'Number' }, ...groupColumns.map((name) => ({ name, type: 'String' })), { name: 'Currency', type: 'String' }],
    rows,
  },
});

// The month to date by service: Virtual Machines 10.50 + 12.00, Storage 1.25 (EUR, as Azure bills this subscription).
const BY_SERVICE = answer(['ServiceName'], [
  [10.5, usageDate(monthStart), 'Virtual Machines', 'EUR'],
  [1.25, usageDate(monthStart), 'Storage', 'EUR'],
  [12, usageDate(monthStart + DAY), 'Virtual Machines', 'EUR'],
]);
const MTD = 10.5 + 1.25 + 12;

const run = (args: string[], az: { path: string }, cfg = config(), env: Record<string, string> = {}) =>
  runCli(['--config', cfg, ...args], { env: { PATH: az.path, ...env }, home: tempHome() });

test('cost summary --provider cloud_c: az rest POSTs the daily ActualCost query by service to Cost Management; the month by service, the average burn, no balance', async () => {
  const az = standIn('az', [{ match: '"name":"ServiceName"', stdout: BY_SERVICE }]);
  const r = await run(['cost', 'summary', '--provider', 'cloud_c', '-o', 'json'], az);
  assert.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal([s.provider, s.currency, s.balance, s.runway_hours, s.period], ['cloud_c', 'eur', null, null, { start: day(monthStart), end: day(monthStart + DAY), days: 2 }]);
  close(s.month_to_date, MTD, 'month to date');
  close(s.hourly_cost, MTD / 2 / 24, 'per hour');
  assert.equal(s.resources.map((x: { name: string; cost_so_far: number }) => [x.name, x.cost_so_far]), [['Virtual Machines', 22.5], ['Storage', 1.25]]);
  assert.match(s.based_on, /Azure Cost Management \(query API, ActualCost, daily, through az rest\)/);
  // The exact request: no --subscription (az rest has none; the URL names the scope), JSON output.
  const body = {
    type: 'ActualCost',
    timeframe: 'Custom',
    timePeriod: { from: `${day(monthStart)}T00:00:00+00:00`, to: `${day(today)}T23:59:59+00:00` },
    dataset: { granularity: 'Daily', aggregation: { totalCost: { name: 'Cost', function: 'Sum' } }, grouping: [{ type: 'Dimension', name: 'ServiceName' }] },
  };
  assert.equal(az.calls(), [['rest', '--method', 'post', '--url', QUERY_URL, '--body', JSON.stringify(body), '--output', 'json']]);
  const t = await run(['cost', 'summary', '--provider', 'cloud_c'], az, config(), { COLUMNS: '120' });
  assert.is(t.code, 0, t.stderr);
  assert.match(t.stdout, /^Virtual Machines\s+22\.50\s+0\.4688$/m);
  assert.ok(t.stdout.includes(`Month to date: ${MTD.toFixed(2)} EUR (${day(monthStart)} to ${day(monthStart + DAY)}, 2 day(s))`), t.stdout);
});

test("cost summary --provider cloud_c without a configured subscription queries az's current one ({subscriptionId}); a subscription that is not a GUID is refused before az runs", async () => {
  const az = standIn('az', [{ match: 'ServiceName', stdout: BY_SERVICE }]);
  const r = await run(['cost', 'summary', '--provider', 'cloud_c', '-o', 'json'], az, config(null));
  assert.is(r.code, 0, r.stderr);
  assert.is(az.calls()[0]![4], 'https://management.azure.com/subscriptions/{subscriptionId}/providers/Microsoft.CostManagement/query?api-version=2023-03-01');
  const bad = await run(['cost', 'summary', '--provider', 'cloud_c'], az, config('my-sub/../x'));
  assert.is(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /error: usage: infra\.cloud_c\.subscription_id "my-sub\/\.\.\/x" is not a subscription ID/);
  assert.is(az.calls().length, 1, 'nothing more was sent');
});

test('cost trend --provider cloud_c: the days as Azure reports them within the range, today and yesterday estimated; pages are followed through nextLink', async () => {
  const rows = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => [i + 1, usageDate(today - (from + i) * DAY), 'USD'] as (string | number)[]);
  const next = `${QUERY_URL}&$skiptoken=AQAAAA%3D%3D`;
  const az = standIn('az', [
    { match: '$skiptoken=AQAAAA', stdout: answer([], rows(0, 1)) },
    { match: 'Microsoft.CostManagement/query', stdout: answer([], rows(2, 4), next) },
  ]);
  const r = await run(['cost', 'trend', '--provider', 'cloud_c', '--start', day(today - 3 * DAY), '--end', day(today - DAY), '-o', 'json'], az);
  assert.is(r.code, 0, r.stderr);
  const t = JSON.parse(r.stdout);
  // rows(2, 4): today-2 → 1, today-3 → 2, today-4 → 3 (left out: before --start); rows(0, 1): today → 1 (after --end), today-1 → 2.
  assert.equal(t.days.map((d: { date: string; cost: number; basis: string }) => [d.date, d.cost, d.basis]), [
    [day(today - 3 * DAY), 2, 'billed'],
    [day(today - 2 * DAY), 1, 'billed'],
    [day(today - DAY), 2, 'estimated'],
  ]);
  close(t.total, 5, 'total');
  const calls = az.calls();
  assert.is(calls.length, 2);
  assert.is(calls[1]![4], next, 'the second page is the nextLink, as Azure wrote it');
  assert.is(calls[1]![6], calls[0]![6], 'with the same query body');
});

test('cost tags and detail --provider cloud_c: by the tag value (rows of no or another tag key are untagged, shown last) and by service and meter', async () => {
  const d0 = usageDate(monthStart);
  const az = standIn('az', [
    { match: '"type":"TagKey"', stdout: answer(['TagKey', 'TagValue'], [[20, d0, 'team', 'ml', 'USD'], [3, d0, '', '', 'USD'], [1, d0, 'Team', 'web', 'USD'], [2, d0, 'env', 'prod', 'USD']]) },
    { match: '"name":"Meter"', stdout: answer(['ServiceName', 'Meter'], [[9, d0, 'Virtual Machines', 'D4s v5', 'USD'], [0.5, d0, 'Storage', 'P10 Disks', 'USD'], [3, d0, 'Virtual Machines', 'D2s v5', 'USD']]) },
  ]);
  const r = await run(['cost', 'tags', '--provider', 'cloud_c', '--key', 'team', '-o', 'json'], az);
  assert.is(r.code, 0, r.stderr);
  const t = JSON.parse(r.stdout);
  assert.equal(t.groups.map((g: { value: string | null; month_to_date: number }) => [g.value, g.month_to_date]), [['ml', 20], ['web', 1], [null, 5]]);
  assert.equal(JSON.parse(az.calls()[0]![6]!).dataset.grouping, [{ type: 'TagKey', name: 'team' }]);
  const d = await run(['cost', 'detail', '--provider', 'cloud_c', '-o', 'json'], az);
  assert.is(d.code, 0, d.stderr);
  assert.equal(JSON.parse(d.stdout).rows.map((x: { service: string; usage_type: string; cost_so_far: number }) => [x.service, x.usage_type, x.cost_so_far]), [
    ['Virtual Machines', 'D4s v5', 9],
    ['Virtual Machines', 'D2s v5', 3],
    ['Storage', 'P10 Disks', 0.5],
  ]);
  const home = tempHome();
  const csv = join(home, 'azure.csv');
  const e = await runCli(['--config', config(), 'cost', 'export', '--provider', 'cloud_c', '--output', csv], { env: { PATH: az.path }, home });
  assert.is(e.code, 0, e.stderr);
  assert.equal(readFileSync(csv, 'utf8').split('\r\n').slice(0, 2), ['service,usage_type,cost_so_far,hourly_cost', `Virtual Machines,D4s v5,9,${9 / 24}`]);
  const bad = await run(['cost', 'tags', '--provider', 'cloud_c', '--key', 'a/b'], az);
  assert.is(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /"a\/b" is not an Azure tag name/);
  assert.is(az.calls().length, 3, 'the refused key sent nothing');
});

test("cost --provider cloud_c without billing access: the missing permission and the role that grants it, not the caller's identity; exit 1", async () => {
  const stderr = `ERROR: (AuthorizationFailed) The client 'alice@contoso.example' with object id '6a1c2f44-0000-4a4a-9d0b-000000000042' does not have authorization to perform action 'Microsoft.CostManagement/query/action' over scope '/subscriptions/${SUB}' or the scope is invalid. If access was recently granted, please refresh your credentials.\nCode: AuthorizationFailed`;
  const az = standIn('az', [{ match: 'rest', stderr, exit: 1 }]);
  const r = await run(['cost', 'summary', '--provider', 'cloud_c'], az);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.stdout, '');
  assert.match(r.stderr, new RegExp(`^error: billing_access_denied: the Azure account may not read costs: it lacks Microsoft\\.CostManagement/query/action on /subscriptions/${SUB}$`, 'm'));
  assert.match(r.stderr, /Cost Management Reader/);
  assert.not.match(r.stderr, /alice@contoso|6a1c2f44/);
  const forbidden = standIn('az', [{ match: 'rest', stderr: `ERROR: Forbidden({"error":{"code":"AuthorizationFailed","message":"The client 'alice@contoso.example' with object id 'x' does not have authorization to perform action 'Microsoft.CostManagement/query/action' over scope '/subscriptions/${SUB}' or the scope is invalid."}})`, exit: 1 }]);
  const f = await run(['cost', 'trend', '--provider', 'cloud_c'], forbidden);
  assert.is(f.code, 1, f.stderr);
  assert.match(f.stderr, /error: billing_access_denied: .*Microsoft\.CostManagement\/query\/action on \/subscriptions\//);
});

test('only Cost Management\'s query is a read among az rest calls: every other method, host, path or option needs --destroyer, decided from the canonical URL', () => {
  const parse = (args: string[]) => parseCommand(args, AZ_SYNTAX);
  const q = (url: string, ...more: string[]) => ['rest', '--method', 'post', '--url', url, '--body', '{}', ...more];
  const reads = [
    q(QUERY_URL),
    q('https://management.azure.com/subscriptions/{subscriptionId}/providers/Microsoft.CostManagement/query?api-version=2023-03-01'),
    q(`https://management.azure.com/subscriptions/${SUB}/resourceGroups/rg-1/providers/Microsoft.CostManagement/query?api-version=2023-03-01&$skiptoken=AQ%3D%3D`),
    ['rest', '-m', 'POST', '-u', QUERY_URL, '-b', '{}', '--output', 'json'],
  ];
  const notReads = [
    ['rest', '--method', 'get', '--url', QUERY_URL],
    ['rest', '--url', QUERY_URL, '--body', '{}'], // az rest's default method is GET
    ['rest', '--method', 'post', '--url', QUERY_URL.replace('/query', '/exports/e1/run'), '--body', '{}'],
    ['rest', '--method', 'post', '--url', QUERY_URL.replace('management.azure.com', 'management.azure.com.example.net'), '--body', '{}'],
    ['rest', '--method', 'post', '--url', QUERY_URL.replace('https://', 'http://'), '--body', '{}'],
    ['rest', '--method', 'post', '--url', QUERY_URL.replace('management.azure.com', 'management.azure.com:8443'), '--body', '{}'],
    ['rest', '--method', 'post', '--url', QUERY_URL.replace(`/subscriptions/${SUB}`, `/subscriptions/${SUB}/../../subscriptions/${SUB}`), '--body', '{}'],
    ['rest', '--method', 'post', '--url', QUERY_URL.replace('/query', '/query/..%2F..%2Fexports'), '--body', '{}'],
    ['rest', '--method', 'post', '--url', `${QUERY_URL}&api-version=2019-01-01`, '--body', '{}'],
    ['rest', '--method', 'post', '--url', `${QUERY_URL}#x`, '--body', '{}'],
    ['rest', '--method', 'post', '--url', QUERY_URL, '--body', '{}', '--headers', 'Authorization=Bearer x'],
    ['rest', '--method', 'post', '--url', QUERY_URL, '--body', '{}', '--resource', 'https://vault.azure.net'],
    ['rest', '--meth', 'post', '--url', QUERY_URL, '--body', '{}'],
    ['rest', '--method', 'post', '--method', 'delete', '--url', QUERY_URL, '--body', '{}'],
    ['rest', '--method', 'post', '--url', '<URL>', '--body', '{}'],
    ['rest', '--method', 'post', '--url', '/subscriptions/x/providers/Microsoft.CostManagement/query?api-version=2023-03-01', '--body', '{}'],
  ];
  for (const args of reads) {
    assert.ok(isCostQuery(parse(args)), args.join(' '));
    assert.is(azVerb.classify(['az', ...args]).effect, 'read', args.join(' '));
  }
  for (const args of notReads) {
    assert.not.ok(isCostQuery(parse(args)), args.join(' '));
    assert.is.not(azVerb.classify(['az', ...args]).effect, 'read', args.join(' '));
  }
});

test('a plan of az rest calls: the cost query runs without --destroyer, any other az rest is refused (exit 3) and az is never called', async () => {
  const az = standIn('az', [{ match: 'query', stdout: BY_SERVICE }]);
  const other = planFile([{ args: ['az', 'rest', '--method', 'post', '--url', QUERY_URL.replace('/query', '/exports/e1/run'), '--body', '{}'], reason: 'runs an export' }], 'cloud_c');
  const refused = await run(['ask', '--apply', '--plan-file', other], az);
  assert.is(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /destructive: az rest: not known to be safe/);
  assert.equal(az.calls(), []);
  const read = planFile([{ args: ['az', 'rest', '--method', 'post', '--url', QUERY_URL, '--body', '{"type":"ActualCost","timeframe":"MonthToDate"}'], reason: 'costs' }], 'cloud_c');
  const ok = await run(['ask', '--apply', '-o', 'json', '--plan-file', read], az);
  assert.is(ok.code, 0, ok.stderr);
  assert.is(az.calls().length, 1);
});

test.run();

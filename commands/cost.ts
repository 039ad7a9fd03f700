/**
 * `assistant cost summary|detail|trend|forecast|anomalies|tags|export`. Thin wiring: the provider is
 * chosen by the registry (machines/cost/cost.ts costProvider: who has a `cost` capability that answers the
 * command) → its live figures (read and priced through the one executor; every reading records a
 * snapshot) or its bill per day → engine/producers/cost/ derives trend, anomalies and tag groups → renderer.
 */
import { stat, writeFile } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import type { CostResource, CostSummary } from '../engine/core/capabilities.js';
import { costForecast, sortResources, type CostSort } from '../engine/producers/cost/live.js';
import { readSnapshots } from '../engine/producers/cost/snapshots.js';
import { costTrend, dayOf, MAX_TREND_DAYS, parseDay, type CostTrend } from '../engine/producers/cost/trend.js';
import { ANOMALY_DAYS, findAnomalies, type Anomaly } from '../engine/producers/cost/anomalies.js';
import { costByTag } from '../engine/producers/cost/tags.js';
import { costProvider, readBilledDays, readLiveCost, type CostCommand, type CostProvider } from '../machines/cost/cost.js';
import { billedAnomalies, billedDetail, billedForecast, billedSummary, billedTags, billedTrendDays, monthToDate, type BilledDetailRow } from '../engine/producers/cost/billed.js';
import { PROVIDERS } from '../engine/providers/index.js';
import { OperationError, UsageError } from '../engine/core/errors.js';
import type { Colors } from '../engine/core/render/color.js';
import { type Column, columnsOf } from '../engine/core/render/columns.js';
import type { CommandContext } from './context.js';
import { runGroup } from './group.js';
import { withSession, type Session } from './session.js';
import { autostopSaved, type AutostopSaved } from '../machines/autostop/saved.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { formatAmount, formatRate } from '../engine/core/render/money.js';

/** The flag every cost subcommand takes; the commands that need live figures say so in its help. */
const PROVIDER = { provider: flag.text().option('--provider <name>', providerHelp()) } satisfies FlagSpec;
const LIVE_PROVIDER = { provider: flag.text().option('--provider <name>', providerHelp(true)) } satisfies FlagSpec;

/** What each subcommand's flags are; their options types are derived from it. */
const FLAGS = {
  summary: PROVIDER,
  detail: { ...LIVE_PROVIDER, sortBy: flag.oneOf(['cost', 'age', 'name'] as const satisfies readonly CostSort[]).option('--sort-by <key>', 'cost | age | name', { default: 'cost' }) },
  // Days, checked by trendRange (YYYY-MM-DD, in order, a bounded range).
  trend: { ...PROVIDER, start: flag.text().option('--start <date>', 'First day, YYYY-MM-DD (default: 6 days before --end)'), end: flag.text().option('--end <date>', 'Last day, YYYY-MM-DD (default: today)') },
  anomalies: LIVE_PROVIDER,
  tags: { ...LIVE_PROVIDER, key: flag.text().option('--key <tag>', 'The tag key, e.g. team (API tags, else key=value words in the description)') },
  forecast: PROVIDER,
  export: { ...LIVE_PROVIDER, output: flag.path().option('--output <file>', 'File to write (.csv or .json)') },
} satisfies Record<string, FlagSpec>;

type ProviderOpt = OptionsOf<typeof PROVIDER>;
type Options<K extends keyof typeof FLAGS> = OptionsOf<(typeof FLAGS)[K]>;

/** What `assistant cost --help` says after the commands. */
const FOOTER =
  "A provider's figures are live (what bills now at its prices, with the balance and runway: gpucloud's catalogue prices, where offline instances still bill) or its own bill per day (cloud_a's AWS Cost Explorer: summary, trend and forecast by service, detail and export by usage type, anomalies day to day, tags by the tag's value). Global flags: -o table|json|yaml, --sandbox, --config <path>.";

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('cost', argv, ctx, { footer: FOOTER, flags: FLAGS }, (cli, start) => {
    withFlags(cli.command('summary', 'What the account burns per hour, on what, the balance and how long it lasts'), FLAGS.summary)
      .example('  assistant cost summary')
      .example('  assistant cost summary -o json | jq .runway_hours')
      .action((o: ProviderOpt) => start(() => liveOrBilled(ctx, 'summary', o, (s, session) => summary(ctx, s, session))));
    withFlags(cli.command('detail', 'Every billable resource: hourly cost, how long it has run and what it cost so far'), FLAGS.detail)
      .example('  assistant cost detail --sort-by age')
      .action((o: Options<'detail'>) => start(() => detailCost(ctx, o)));
    withFlags(cli.command('trend', 'Daily cost between two dates (UTC): measured from recorded snapshots, else reconstructed'), FLAGS.trend)
      .example('  assistant cost trend --start 2026-11-01 --end 2026-11-23')
      .action((o: Options<'trend'>) => start(() => trend(ctx, o)));
    withFlags(cli.command('anomalies', 'Resources and days whose cost departs from the usual, each with its reason'), FLAGS.anomalies)
      .example('  assistant cost anomalies -o json')
      .action((o: ProviderOpt) => start(() => anomaliesCost(ctx, o)));
    withFlags(cli.command('tags', 'Cost grouped by the value of one tag (untagged as its own group)'), FLAGS.tags)
      .example('  assistant cost tags --key team')
      .action((o: Options<'tags'>) => start(() => tags(ctx, o)));
    withFlags(cli.command('forecast', 'Month-end projection and the date the balance runs out at the current burn'), FLAGS.forecast)
      .action((o: ProviderOpt) => start(() => liveOrBilled(ctx, 'forecast', o, (s) => forecast(ctx, s))));
    withFlags(cli.command('export', 'Write every billable resource and the totals to a file: .csv or .json'), FLAGS.export)
      .example('  assistant cost export --output cost.csv')
      .action((o: Options<'export'>) => start(() => exportCost(ctx, o)));
  });
}

/**
 * The --provider help: the providers with a `cost` capability, from the manifest (nothing loads to
 * register the flags). Which of them answer a command that needs live figures is known only once
 * their capabilities load: an unfit one is refused then, with the list of those that fit.
 */
function providerHelp(live = false): string {
  const names = PROVIDERS.namesWith('cost');
  return live ? `Provider with live figures (default: the first of ${names.join(', ')} that has them)` : `Provider (${names.join(', ')}; default: ${names[0] ?? 'none'})`;
}

/** `--provider` as typed (commands/flag-text.ts keeps a number-like value the text it was). */
const providerName = (o: ProviderOpt): string | undefined => o.provider;

/** detail: every billable resource priced now, or a bill's month to date by service and usage type. */
async function detailCost(ctx: CommandContext, o: Options<'detail'>): Promise<number> {
  const provider = await costProvider('detail', providerName(o));
  const { sortBy } = o;
  if (provider.cost.live) return withCost(ctx, 'detail', o, (s) => detail(ctx, s, sortBy));
  if (sortBy === 'age') throw new UsageError(`--sort-by age needs live figures: ${provider.name}'s bill has services, not resources with an age`, { hint: `assistant cost detail --provider ${provider.name} --sort-by cost|name` });
  return withSession(ctx, async (session) => {
    const d = await billedDetailOf(ctx, session, provider, sortBy);
    const cur = d.currency.toUpperCase();
    const rows = d.rows.map((r) => ({ service: r.service, usage: r.usage_type, mtd: money(r.cost_so_far), hourly: rate(r.hourly_cost) }));
    const columns = columnsOf([['SERVICE', 'service', 10], ['USAGE TYPE', 'usage', 9], ['MONTH TO DATE', 'mtd', 10], ['PER HOUR (AVG)', 'hourly', 7]]);
    const body = () => (rows.length ? ctx.out.table(rows, columns, { keep: 'service' }) : 'No cost recorded this month.\n');
    ctx.out.value(d, { table: () => `${body()}\nMonth to date: ${money(d.month_to_date)} ${cur} (${d.period.start} to ${d.period.end}, ${d.period.days} day(s))\nBased on: ${d.based_on}\n` });
    return 0;
  });
}

/** A bill's month to date by service and usage type (detail and export). */
async function billedDetailOf(ctx: CommandContext, session: Session, provider: CostProvider, sortBy: 'cost' | 'name') {
  const now = Date.now();
  const m = monthToDate(now);
  const { days, currency } = await readBilledDays(session, provider, { start: m.start, endExclusive: m.endExclusive, group: { by: 'usage' } }, ctx.signal);
  return billedDetail(provider.name, provider.cost.billed!.basis, days, currency, now, sortBy);
}

/** anomalies: from live figures and the recorded snapshots, or from a bill by service over the last ANOMALY_DAYS days. */
async function anomaliesCost(ctx: CommandContext, o: ProviderOpt): Promise<number> {
  const provider = await costProvider('anomalies', providerName(o));
  if (provider.cost.live) return withCost(ctx, 'anomalies', o, (s, session, account) => anomalies(ctx, s, session, account));
  return withSession(ctx, async (session) => {
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const { days, currency } = await readBilledDays(session, provider, { start: dayOf(today - (ANOMALY_DAYS - 1) * DAY_MS), endExclusive: dayOf(today + DAY_MS), group: { by: 'service' } }, ctx.signal);
    showAnomalies(ctx, billedAnomalies(days, currency));
    return 0;
  });
}

/** Reads and prices the account of the chosen provider, records a snapshot, then hands the summary to `show`. */
async function withCost(ctx: CommandContext, command: CostCommand, o: ProviderOpt, show: (s: CostSummary, session: Session, account: string) => number | Promise<number>): Promise<number> {
  const provider = await costProvider(command, providerName(o));
  return withSession(ctx, async (session) => {
    const { summary, account } = await readCost(ctx, session, provider);
    return show(summary, session, account);
  });
}

/** summary and forecast: live figures where the provider has them, else its bill for the month to date. */
async function liveOrBilled(ctx: CommandContext, command: 'summary' | 'forecast', o: ProviderOpt, show: (s: CostSummary, session: Session) => number | Promise<number>): Promise<number> {
  const provider = await costProvider(command, providerName(o));
  if (!provider.cost.live) return billedCost(ctx, provider, command);
  return withSession(ctx, async (session) => show((await readCost(ctx, session, provider)).summary, session));
}

async function readCost(ctx: CommandContext, session: Session, provider: CostProvider): Promise<{ summary: CostSummary; account: string }> {
  const r = await readLiveCost(session, provider, { home: ctx.home, env: ctx.env, sandbox: ctx.globals.sandbox, signal: ctx.signal, warn: (m) => ctx.io.stderr.write(`warning: ${m}\n`) });
  for (const u of r.summary.unpriced) ctx.io.stderr.write(`warning: ${u}; it is left out of the totals\n`);
  return r;
}

/** The recorded history of this account, after the reading just recorded; a damaged line is skipped with a warning. */
async function history(ctx: CommandContext, s: CostSummary, account: string) {
  const { snapshots, skipped } = await readSnapshots(ctx.home, s.provider, account);
  if (skipped) ctx.io.stderr.write(`warning: ${skipped} line(s) of ~/.assistant/cost/snapshots.jsonl are not snapshots; they are skipped\n`);
  return snapshots;
}

const DAY_MS = 86_400_000;

/** --start/--end as midnights UTC; checked before anything is sent. */
function trendRange(o: { start?: string; end?: string }, now: number): { start: number; end: number } {
  const date = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const ms = parseDay(v);
    if (ms === undefined) throw new UsageError(`--${name} must be a date written YYYY-MM-DD (got "${v}")`, { hint: 'assistant cost trend --start 2026-11-01 --end 2026-11-23' });
    return ms;
  };
  const end = date('end', o.end) ?? Math.floor(now / DAY_MS) * DAY_MS;
  const start = date('start', o.start) ?? end - 6 * DAY_MS;
  if (start > end) throw new UsageError(`--start ${dayOf(start)} is after --end ${dayOf(end)}`, { hint: 'give the earlier date as --start' });
  if ((end - start) / DAY_MS + 1 > MAX_TREND_DAYS) throw new UsageError(`the trend covers at most ${MAX_TREND_DAYS} days (got ${(end - start) / DAY_MS + 1})`, { hint: 'choose a shorter range' });
  return { start, end };
}

async function trend(ctx: CommandContext, o: Options<'trend'>): Promise<number> {
  const provider = await costProvider('trend', providerName(o));
  const range = trendRange(o, Date.now());
  if (!provider.cost.live) return billedTrend(ctx, provider, range);
  return withSession(ctx, async (session) => {
    const { summary: s, account } = await readCost(ctx, session, provider);
    const t = costTrend({ provider: s.provider, currency: s.currency, snapshots: await history(ctx, s, account), resources: s.resources, ...range, now: Date.parse(s.as_of) });
    for (const n of t.notes) ctx.io.stderr.write(`note: ${n}\n`);
    // On a terminal, unless a table is asked for (-o table), the figures as charts (issue 31 §4).
    const chart = ctx.io.stdoutIsTTY ? (await import('../engine/producers/charts/cost-trend.js')).renderTrendChart : undefined;
    ctx.out.value(t, { table: () => trendTable(ctx, t), unasked: chart && (() => chart(t, { columns: ctx.out.columns, color: ctx.out.colors, now: s })) });
    return 0;
  });
}

async function anomalies(ctx: CommandContext, s: CostSummary, _session: Session, account: string): Promise<number> {
  const now = Date.parse(s.as_of);
  const end = Math.floor(now / DAY_MS) * DAY_MS;
  const t = costTrend({ provider: s.provider, currency: s.currency, snapshots: await history(ctx, s, account), resources: s.resources, start: end - (ANOMALY_DAYS - 1) * DAY_MS, end, now });
  showAnomalies(ctx, findAnomalies(s.resources, t.days, s.currency));
  return 0;
}

function showAnomalies(ctx: CommandContext, found: Anomaly[]): void {
  // One block per finding: the reasons are sentences, which a table would cut on a narrow terminal.
  // The resource's ID goes with its name: it is what a later command (gpucloud action delete <id>) takes.
  const blocks = found.map((a) => `${a.kind}: ${a.subject}${typeof a.figures.id === 'string' ? ` (${a.figures.id})` : ''}\n  ${a.reason}\n`).join('');
  ctx.out.value(found, { table: found.length ? blocks : 'No anomalies.\n' });
}

async function tags(ctx: CommandContext, o: Options<'tags'>): Promise<number> {
  const provider = await costProvider('tags', providerName(o));
  const key = o.key?.trim() ?? '';
  if (!key || key.length > 63 || /[\s=]/.test(key)) {
    throw new UsageError(o.key === undefined ? 'cost tags needs --key <tag>' : `--key must be a tag key of 1 to 63 characters without blanks or "=" (got "${o.key}")`, { hint: 'assistant cost tags --key team' });
  }
  if (!provider.cost.live) return billedTagsCost(ctx, provider, key);
  return withSession(ctx, async (session) => {
    const s = (await readCost(ctx, session, provider)).summary;
    const t = costByTag(s.resources, key, { provider: s.provider, currency: s.currency, as_of: s.as_of });
    const rows = t.groups.map((g) => ({ value: g.value ?? '(untagged)', count: String(g.resources.length), hourly: rate(g.hourly_cost), monthly: money(g.monthly_forecast), names: g.resources.map((r) => r.name).join(', ') }));
    const columns: Column[] = [
      { header: key.toUpperCase(), path: 'value', priority: 10 },
      { header: 'RESOURCES', path: 'count', priority: 7 },
      { header: 'PER HOUR', path: 'hourly', priority: 9 },
      { header: 'PER 30 DAYS', path: 'monthly', priority: 8 },
      { header: 'NAMES', path: 'names', priority: 3 },
    ];
    const body = () => (rows.length ? ctx.out.table(rows, columns, { keep: 'value' }) : 'No billable resources.\n');
    ctx.out.value(t, { table: () => `${body()}\nTotal:    ${rate(t.hourly_cost)} ${t.currency.toUpperCase()}/hour\nBased on: ${t.based_on}\n` });
    return 0;
  });
}

/** tags of a provider's bill: the month to date by the tag's value, as the provider groups it. */
async function billedTagsCost(ctx: CommandContext, provider: CostProvider, key: string): Promise<number> {
  return withSession(ctx, async (session) => {
    const now = Date.now();
    const m = monthToDate(now);
    const { days, currency } = await readBilledDays(session, provider, { start: m.start, endExclusive: m.endExclusive, group: { by: 'tag', key } }, ctx.signal);
    const t = billedTags(provider.name, provider.cost.billed!.basis, key, days, currency, now);
    const rows = t.groups.map((g) => ({ value: g.value ?? '(untagged)', mtd: money(g.month_to_date), hourly: rate(g.hourly_cost), monthly: money(g.monthly_forecast) }));
    const columns: Column[] = [
      { header: key.toUpperCase(), path: 'value', priority: 10 },
      { header: 'MONTH TO DATE', path: 'mtd', priority: 9 },
      { header: 'PER HOUR (AVG)', path: 'hourly', priority: 7 },
      { header: 'PER 30 DAYS', path: 'monthly', priority: 8 },
    ];
    const body = () => (rows.length ? ctx.out.table(rows, columns, { keep: 'value' }) : 'No cost recorded this month.\n');
    ctx.out.value(t, { table: () => `${body()}\nMonth to date: ${money(t.month_to_date)} ${t.currency.toUpperCase()} (${t.period.start} to ${t.period.end}, ${t.period.days} day(s))\nBased on: ${t.based_on}\n` });
    return 0;
  });
}

/** summary or forecast of a provider's bill: the month to date, by service. */
async function billedCost(ctx: CommandContext, provider: CostProvider, what: 'summary' | 'forecast'): Promise<number> {
  const basis = provider.cost.billed!.basis;
  return withSession(ctx, async (session) => {
    const now = Date.now();
    const m = monthToDate(now);
    const { days, currency } = await readBilledDays(session, provider, { start: m.start, endExclusive: m.endExclusive, group: { by: 'service' } }, ctx.signal);
    const doc = what === 'summary' ? billedSummary(provider.name, basis, days, currency, now) : billedForecast(provider.name, basis, days, currency, now, provider.cost.billed!.forecastNote);
    const cur = currency.toUpperCase();
    if (what === 'forecast') {
      const f = doc as ReturnType<typeof billedForecast>;
      ctx.out.value(f, {
        table: [
          `Month to date:    ${money(f.month_to_date)} ${cur} over ${f.days_counted} day(s), ${money(f.daily_average)} per day on average`,
          `To month end:     ${money(f.cost_to_month_end)} ${cur} over ${f.days_remaining} more day(s) (until ${day(f.month_end)})`,
          `Month-end total:  ${money(f.month_end_total)} ${cur}`,
          `Method:   ${f.method}`,
          `Based on: ${f.based_on}`,
        ].join('\n') + '\n',
      });
      return 0;
    }
    const sm = doc as ReturnType<typeof billedSummary>;
    const rows = sm.resources.map((r) => ({ service: r.name, mtd: money(r.cost_so_far), hourly: rate(r.hourly_cost) }));
    const columns = columnsOf([['SERVICE', 'service', 10], ['MONTH TO DATE', 'mtd', 9], ['PER HOUR (AVG)', 'hourly', 8]]);
    const body = () => (rows.length ? ctx.out.table(rows, columns, { keep: 'service' }) : 'No cost recorded this month.\n');
    ctx.out.value(sm, {
      table: () =>
        `${body()}\nMonth to date: ${money(sm.month_to_date)} ${cur} (${sm.period.start} to ${sm.period.end}, ${sm.period.days} day(s))\nBurn:     ${rate(sm.hourly_cost)} ${cur}/hour on average (${money(sm.daily_cost)} per day, ${money(sm.monthly_forecast)} per 30 days)\nBased on: ${sm.based_on}\n`,
    });
    return 0;
  });
}

async function billedTrend(ctx: CommandContext, provider: CostProvider, range: { start: number; end: number }): Promise<number> {
  return withSession(ctx, async (session) => {
    const now = Date.now();
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const end = Math.min(range.end, today);
    const notes = end < range.end ? [`days after today (${dayOf(now)}) are left out: they have not happened yet`] : [];
    const { days, currency } = end < range.start ? { days: [], currency: 'usd' } : await readBilledDays(session, provider, { start: dayOf(range.start), endExclusive: dayOf(end + DAY_MS) }, ctx.signal);
    const inRange = billedTrendDays(days.filter((d) => d.date >= dayOf(range.start) && d.date <= dayOf(end)));
    const t: CostTrend = { provider: provider.name, currency, start: dayOf(range.start), end: dayOf(range.end), as_of: new Date(now).toISOString(), based_on: `${provider.cost.billed!.basis}; billed: a closed day, estimated: ${provider.name} has not closed it yet`, total: inRange.reduce((s, d) => s + d.cost, 0), days: inRange, notes };
    for (const n of notes) ctx.io.stderr.write(`note: ${n}\n`);
    ctx.out.value(t, { table: () => trendTable(ctx, t) });
    return 0;
  });
}

function trendTable(ctx: CommandContext, t: CostTrend): string {
  const rows = t.days.map((d) => ({ date: d.date, cost: money(d.cost), hours: d.hours.toFixed(1), hourly: d.average_hourly === null ? '-' : rate(d.average_hourly), basis: d.basis, snapshots: String(d.snapshots), balance: money(d.balance_end) }));
  const columns = columnsOf([
    ['DAY (UTC)', 'date', 10], ['COST', 'cost', 9], ['HOURS', 'hours', 4], ['PER HOUR', 'hourly', 6], ['BASED ON', 'basis', 8], ['SNAPSHOTS', 'snapshots', 3],
    ['BALANCE', 'balance', 5],
  ]);
  const body = rows.length ? ctx.out.table(rows, columns, { keep: 'date' }) : 'No days in the range.\n';
  return `${body}\nTotal:    ${money(t.total)} ${t.currency.toUpperCase()} (${t.start} to ${t.end})\nBased on: ${t.based_on}\n`;
}

// Prices through the one formatter (engine/core/render/money.ts): amounts in cents, rates to 4 decimals.
const money = (v: number | null | undefined): string => (v === null || v === undefined ? '-' : formatAmount(v));
const rate = (v: number | null | undefined): string => (v === null || v === undefined ? '-' : formatRate(v));
const hoursFigure = (h: number): string => h.toFixed(1);
const hoursText = (h: number | null | undefined): string => (h === null || h === undefined ? '-' : h >= 48 ? `${(h / 24).toFixed(1)} d` : `${h.toFixed(1)} h`);
const day = (iso: string | null): string => (iso ? iso.slice(0, 16).replace('T', ' ') + ' UTC' : '-');

function resourceRows(resources: readonly CostResource[], withAge: boolean): Record<string, string>[] {
  return resources.map((r) => ({
    kind: r.kind,
    name: r.name,
    type: r.type + (r.spot ? ' (spot)' : '') + (r.size_gb !== undefined ? ` ${r.size_gb} GB` : ''),
    status: r.status,
    hourly: rate(r.hourly_cost),
    ...(withAge ? { age: hoursText(r.hours_running), so_far: money(r.cost_so_far) } : {}),
    id: r.id,
  }));
}

// The ID comes first and is always shown whole: it is what `gpucloud get|action` and `ask` take to act
// on a row (a name may be shared by two resources).
const COLUMNS: Column[] = [
  { header: 'ID', path: 'id', priority: 10 },
  { header: 'KIND', path: 'kind', priority: 8 },
  { header: 'NAME', path: 'name', priority: 10 },
  { header: 'TYPE', path: 'type', priority: 6 },
  { header: 'STATUS', path: 'status', format: 'status', priority: 5 },
  { header: 'PER HOUR', path: 'hourly', priority: 9 },
];
const AGE_COLUMNS: Column[] = [...COLUMNS, { header: 'RUNNING FOR', path: 'age', priority: 7 }, { header: 'COST SO FAR', path: 'so_far', priority: 7 }];

function totals(s: CostSummary): string {
  const cur = s.currency.toUpperCase();
  return [
    `Burn:     ${rate(s.hourly_cost)} ${cur}/hour (${money(s.daily_cost)} per day, ${money(s.monthly_forecast)} per 30 days)`,
    `Balance:  ${money(s.balance)} ${cur}`,
    `Runway:   ${s.runway_hours === null ? 'unlimited (nothing bills)' : `${hoursText(s.runway_hours)} (${hoursFigure(s.runway_hours)} h), until ${day(s.runway_until)}`}`,
    `Based on: ${s.based_on}`,
  ].join('\n') + '\n';
}

function table(ctx: CommandContext, rows: Record<string, string>[], columns: Column[]): string {
  if (rows.length === 0) return 'No billable resources.\n';
  return ctx.out.table(rows, columns, { keep: 'id', essential: ['name'] });
}

async function summary(ctx: CommandContext, s: CostSummary, session: Session): Promise<number> {
  const saved = await autostopSaved(session, ctx.home, s.provider, Date.parse(s.as_of), ctx.signal);
  const doc = saved ? { ...s, autostop_saved: saved } : s;
  ctx.out.value(doc, { table: () => table(ctx, resourceRows(s.resources, false), COLUMNS) + '\n' + totals(s) + (saved ? savedLines(s, saved) : '') });
  return 0;
}

/** "Auto-stop saved": the total, what it saves now, and one line per hibernation. */
function savedLines(s: CostSummary, saved: AutostopSaved): string {
  const cur = s.currency.toUpperCase();
  const now = saved.periods.filter((p) => p.still_hibernated).length;
  const lines = [
    '',
    `Auto-stop saved: ${money(saved.total)} ${cur} by hibernating idle instances${now ? `; saving ${rate(saved.per_hour_now)} ${cur}/hour now (${now} hibernated)` : ''}`,
    ...saved.periods.map((p) => `  ${p.name} (${p.type}): ${hoursText(p.hours)} hibernated from ${p.hibernated_at.slice(0, 16).replace('T', ' ')}Z${p.still_hibernated ? ', still' : ` to ${p.until.slice(0, 16).replace('T', ' ')}Z`}, at ${rate(p.price_per_hour)}/hour: ${money(p.saved)} ${cur}`),
  ];
  return lines.join('\n') + '\n';
}

function detail(ctx: CommandContext, s: CostSummary, sortBy: string): number {
  const resources = sortResources(s.resources, sortBy as CostSort);
  ctx.out.value({ ...s, sort_by: sortBy, resources }, { table: () => table(ctx, resourceRows(resources, true), AGE_COLUMNS) + '\n' + totals(s) });
  return 0;
}

function forecast(ctx: CommandContext, s: CostSummary): number {
  const f = costForecast(s, Date.parse(s.as_of));
  const cur = f.currency.toUpperCase();
  ctx.out.value(f, {
    table: [
      `Burn:                 ${rate(f.hourly_cost)} ${cur}/hour`,
      `To month end:         ${money(f.cost_to_month_end)} ${cur} over ${f.hours_to_month_end.toFixed(1)} h (until ${day(f.month_end)})`,
      `Balance now:          ${money(f.balance)} ${cur}`,
      `Balance at month end: ${money(f.balance_at_month_end)} ${cur}${f.runs_out_before_month_end ? ' (runs out before)' : ''}`,
      `Runs out:             ${f.runway_until ? `${day(f.runway_until)} (in ${hoursText(f.runway_hours)})` : 'never at this burn (nothing bills)'}`,
      `Based on: ${f.based_on}`,
    ].join('\n') + '\n',
  });
  return 0;
}

const CSV_FIELDS = ['kind', 'id', 'name', 'type', 'status', 'spot', 'size_gb', 'hourly_cost', 'created_at', 'hours_running', 'cost_so_far'] as const;

/** RFC 4180 quoting; a leading = + - @ is prefixed with ' so a spreadsheet never runs a name as a formula. */
function csvCell(v: unknown): string {
  if (v === undefined || v === null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const BILLED_CSV_FIELDS = ['service', 'usage_type', 'cost_so_far', 'hourly_cost'] as const;

/** A bill's month to date by service and usage type as CSV (same quoting as the live export). */
export function billedCsv(rows: readonly BilledDetailRow[]): string {
  const lines = [BILLED_CSV_FIELDS.join(',')];
  for (const r of rows) lines.push(BILLED_CSV_FIELDS.map((f) => csvCell(r[f])).join(','));
  return lines.join('\r\n') + '\r\n';
}

async function write(file: string, text: string): Promise<void> {
  await writeFile(file, text).catch((err: NodeJS.ErrnoException) => {
    throw new OperationError('write_failed', `cannot write "${file}": ${err.code ?? err.message}`, { hint: 'check the path and its permissions', cause: err });
  });
}

export function costCsv(s: CostSummary): string {
  const lines = [CSV_FIELDS.join(',')];
  for (const r of s.resources) lines.push(CSV_FIELDS.map((f) => csvCell((r as unknown as Record<string, unknown>)[f])).join(','));
  return lines.join('\r\n') + '\r\n';
}

async function exportCost(ctx: CommandContext, o: Options<'export'>): Promise<number> {
  const provider = await costProvider('export', providerName(o));
  const file = o.output;
  if (!file) throw new UsageError('cost export needs --output <file> (.csv or .json)', { hint: 'assistant cost export --output cost.csv' });
  const ext = extname(file).toLowerCase();
  if (ext !== '.csv' && ext !== '.json') throw new UsageError(`cannot export to "${file}": the file must end in .csv or .json`, { hint: 'assistant cost export --output cost.csv' });
  // A folder that does not exist is a typo: say so before anything is sent.
  const dir = dirname(resolve(file));
  const isDir = await stat(dir).then((st) => st.isDirectory(), () => false);
  if (!isDir) throw new UsageError(`cannot export to "${file}": the folder ${dir} does not exist`, { hint: 'create the folder or choose another --output path' });
  if (!provider.cost.live) {
    return withSession(ctx, async (session) => {
      const d = await billedDetailOf(ctx, session, provider, 'cost');
      await write(file, ext === '.csv' ? billedCsv(d.rows) : JSON.stringify(d, null, 2) + '\n');
      ctx.io.stderr.write(`wrote ${d.rows.length} service and usage type rows (${money(d.month_to_date)} ${d.currency.toUpperCase()} month to date) to ${file}\n`);
      return 0;
    });
  }
  return withSession(ctx, async (session) => {
    const s = (await readCost(ctx, session, provider)).summary;
    await write(file, ext === '.csv' ? costCsv(s) : JSON.stringify(s, null, 2) + '\n');
    ctx.io.stderr.write(`wrote ${s.resources.length} resources (${rate(s.hourly_cost)} ${s.currency.toUpperCase()}/hour) to ${file}\n`);
    return 0;
  });
}

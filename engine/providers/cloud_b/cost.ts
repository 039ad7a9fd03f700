/**
 * cloud_b (Google Cloud) cost from the Cloud Billing export to BigQuery: `bq query` read steps
 * (provider cloud_b, through the one executor) on the table named by `infra.cloud_b.billing_export_table`.
 *
 * Why the export and not the Billing Budgets API: Google has no API that answers "what did this cost per
 * day" besides the export (the console's reports read it internally); `gcloud billing budgets list`
 * gives a budget's amount and thresholds, never the spend. Anyone who reads GCP costs outside the
 * console has the export turned on, so it is what a real setup has; without it the command says how
 * to turn it on (exit 2, nothing sent).
 *
 * The SQL is ours, built here from typed parameters (the table from config, checked; the dates and
 * the label key as query parameters, never spliced into the text). bq's allowlist (bq.ts) lets a
 * step through only when its argv is exactly what `billingQueryArgs` writes for some parameters:
 * by construction, a bq step of a plan can only be this SELECT. Each query is capped by
 * `--maximum_bytes_billed` (BigQuery bills bytes scanned; the cap makes a read's price bounded).
 */
import { USAGE_KEY_SEPARATOR, type BilledCost, type BilledDay, type BilledGroup } from '../../core/capabilities.js';
import { UsageError } from '../../core/errors.js';
import { amountOf, readBill, stillSettling, type BillingDenial } from '../../core/kits/cli/billing.js';
import type { Config } from '../../../schemas/config.js';
import type { Plan } from '../../../schemas/plan.js';

/** At most 10 GB billed a query (about 0.06 USD on demand; the first TiB a month is free). */
export const MAX_BYTES_BILLED = 10_000_000_000;
/** bq prints 100 rows unless told; days × services × SKUs of a month fit well under this. */
export const MAX_ROWS = 100_000;

export const CLOUD_B_BASIS = 'the Cloud Billing export to BigQuery (bq query, cost + credits, per usage day in UTC); Google bills afterwards, so there is no balance or runway; per hour = the average daily cost / 24';
export const CLOUD_B_FORECAST_NOTE = "Google's budget forecasts are not used";

/** `project.dataset.table`: a project ID (optionally domain-scoped), a dataset and a table name. */
const TABLE = /^(?:[a-z0-9.-]+:)?[a-z][a-z0-9-]{4,28}[a-z0-9]\.[A-Za-z0-9_]{1,1024}\.[A-Za-z0-9_]{1,1024}$/;
/** A Google Cloud label key: lower case letters, digits, `_` and `-`, starting with a letter, at most 63. */
const LABEL_KEY = /^[a-z][a-z0-9_-]{0,62}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface BillingQuery {
  table: string;
  start: string;
  endExclusive: string;
  group?: BilledGroup;
}

export const EXPORT_HINT =
  'turn on "Detailed usage cost" or "Standard usage cost" export to BigQuery in the console (Billing → Billing export), then set infra.cloud_b.billing_export_table: <project>.<dataset>.gcp_billing_export_v1_<ACCOUNT_ID> in ~/.assistant.yaml';

/** The export table from config, checked (it is written into the SQL: only a plain table name passes). */
export function exportTable(config: Config): string {
  const table = config.infra?.cloud_b?.billing_export_table;
  if (!table) throw new UsageError('cost --provider cloud_b reads the Cloud Billing export in BigQuery, and infra.cloud_b.billing_export_table is not set', { hint: EXPORT_HINT });
  if (!TABLE.test(table)) {
    throw new UsageError(`infra.cloud_b.billing_export_table "${table}" is not a BigQuery table written <project>.<dataset>.<table> (letters, digits, _ and -)`, { hint: EXPORT_HINT });
  }
  return table;
}

/** The grouping's columns: what each row is keyed by besides its day. */
function groupColumns(group: BilledGroup | undefined): string[] {
  if (!group) return [];
  if (group.by === 'service') return ['service.description AS service'];
  if (group.by === 'usage') return ['service.description AS service', 'sku.description AS usage'];
  return ["IFNULL((SELECT l.value FROM UNNEST(labels) AS l WHERE l.key = @label_key LIMIT 1), '') AS label"];
}

const GROUP_NAMES: Record<BilledGroup['by'], string[]> = { service: ['service'], usage: ['service', 'usage'], tag: ['label'] };

/** The SQL: net cost (cost plus its credits, which are negative) per usage day, grouped as asked. */
export function billingSql(q: Pick<BillingQuery, 'table' | 'group'>): string {
  const cols = groupColumns(q.group);
  const by = ['day', ...(q.group ? GROUP_NAMES[q.group.by] : []), 'currency'];
  return [
    `SELECT FORMAT_DATE('%F', DATE(usage_start_time)) AS day, ${[...cols, 'currency'].join(', ')},`,
    'SUM(cost) + SUM(IFNULL((SELECT SUM(c.amount) FROM UNNEST(credits) AS c), 0)) AS cost',
    `FROM \`${q.table}\``,
    'WHERE usage_start_time >= TIMESTAMP(@start) AND usage_start_time < TIMESTAMP(@end)',
    `GROUP BY ${by.join(', ')}`,
    'ORDER BY day',
  ].join(' ');
}

/** The argv after `bq` of one billing query: the only form bq.ts lets a plan run. */
export function billingQueryArgs(q: BillingQuery): string[] {
  if (!TABLE.test(q.table) || !DATE.test(q.start) || !DATE.test(q.endExclusive)) throw new UsageError('not a billing query');
  if (q.group?.by === 'tag' && !LABEL_KEY.test(q.group.key)) {
    throw new UsageError(`"${q.group.key}" is not a Google Cloud label key (lower case letters, digits, _ and -, starting with a letter, at most 63)`, { hint: 'assistant cost tags --provider cloud_b --key team' });
  }
  return [
    'query',
    '--nouse_legacy_sql',
    '--format=json',
    `--max_rows=${MAX_ROWS}`,
    `--maximum_bytes_billed=${MAX_BYTES_BILLED}`,
    `--parameter=start:DATE:${q.start}`,
    `--parameter=end:DATE:${q.endExclusive}`,
    ...(q.group?.by === 'tag' ? [`--parameter=label_key::${q.group.key}`] : []),
    billingSql(q),
  ];
}

/**
 * The parameters of a step's argv when it is exactly a billing query, else undefined: the table,
 * dates and label key are read back from the argv, the query is written again from them, and only an
 * identical argv counts. Nothing is recognised from how the SQL looks.
 */
export function asBillingQuery(args: readonly string[]): BillingQuery | undefined {
  const param = (name: string) => args.find((a) => a.startsWith(`--parameter=${name}:`))?.split(':').slice(2).join(':');
  const start = param('start');
  const endExclusive = param('end');
  const sql = args[args.length - 1] ?? '';
  const table = /FROM `([^`]*)`/.exec(sql)?.[1];
  if (!start || !endExclusive || !table) return undefined;
  const key = param('label_key');
  const groups: (BilledGroup | undefined)[] = [undefined, { by: 'service' }, { by: 'usage' }, ...(key !== undefined ? [{ by: 'tag' as const, key }] : [])];
  for (const group of groups) {
    const q: BillingQuery = { table, start, endExclusive, group };
    let expected: string[];
    try {
      expected = billingQueryArgs(q);
    } catch {
      return undefined;
    }
    if (expected.length === args.length && expected.every((a, i) => a === args[i])) return q;
  }
  return undefined;
}

const groupWords = (group: BilledGroup | undefined): string =>
  !group ? '' : group.by === 'service' ? ' by service' : group.by === 'usage' ? ' by service and SKU' : ` by the value of label ${group.key}`;

export function billingQueryPlan(q: BillingQuery): Plan {
  return {
    version: 1,
    provider: 'cloud_b',
    commands: [{ args: ['bq', ...billingQueryArgs(q)], reason: `cost: daily cost and credits from ${q.start} to ${q.endExclusive} (exclusive)${groupWords(q.group)}, from the billing export` }],
  };
}

/** The days of a billing query's rows (bq prints every value as a string), keyed by the group. */
export function parseBillingRows(data: unknown, group: BilledGroup | undefined, now: number): { days: BilledDay[]; currency: string } {
  const rows = Array.isArray(data) ? (data as Record<string, unknown>[]) : [];
  const byDay = new Map<string, BilledDay>();
  let currency: string | undefined;
  for (const r of rows) {
    const date = typeof r?.day === 'string' && DATE.test(r.day) ? r.day : undefined;
    if (!date) continue;
    const n = amountOf(r.cost);
    if (typeof r.currency === 'string' && r.currency) currency ??= r.currency;
    const day = byDay.get(date) ?? { date, cost: 0, estimated: stillSettling(date, now), services: {} };
    byDay.set(date, day);
    day.cost += n;
    if (group) {
      const key = GROUP_NAMES[group.by].map((c) => (typeof r[c] === 'string' ? (r[c] as string) : '')).map((v) => (group.by === 'tag' ? v : v || '(unknown)')).join(USAGE_KEY_SEPARATOR);
      day.services[key] = (day.services[key] ?? 0) + n;
    }
  }
  return { days: [...byDay.values()].sort((a, b) => a.date.localeCompare(b.date)), currency: (currency ?? 'USD').toLowerCase() };
}

/** BigQuery's refusals as bq prints them (`BigQuery error in query operation: … Access Denied: …`). */
const DENIALS: readonly BillingDenial[] = [
  {
    test: /Access Denied: Project ([\w.:-]+): User does not have (bigquery\.jobs\.create) permission/i,
    message: (m) => `the Google account may not run BigQuery queries in project ${m[1]}: it lacks ${m[2]}`,
    hint: 'ask for the BigQuery Job User role (roles/bigquery.jobUser) on that project, or set infra.cloud_b.project_id to a project where you have it',
  },
  {
    test: /Access Denied: Table ([\w.:-]+): User does not have (?:permission to query table|bigquery\.tables\.getData)/i,
    message: (m) => `the Google account may not read the billing export table ${m[1]}: it lacks bigquery.tables.getData`,
    hint: 'ask for the BigQuery Data Viewer role (roles/bigquery.dataViewer) on the export dataset (Billing Account Viewer alone does not open the export)',
  },
  {
    test: /Not found: (?:Table|Dataset) ([\w.:-]+)/i,
    message: (m) => `the billing export table ${m[1]} does not exist (or the account cannot see it)`,
    hint: EXPORT_HINT,
    code: 'billing_export_not_found',
  },
];

/** cloud_b's bill (its `cost` capability's `billed`): the billing export's net cost per day. */
export const cloudBBilled: BilledCost = {
  basis: CLOUD_B_BASIS,
  forecastNote: CLOUD_B_FORECAST_NOTE,
  groups: ['usage', 'tag'],
  async days(read, period, ctx) {
    const plan = billingQueryPlan({ table: exportTable(ctx.config), ...period });
    const [data] = await readBill(() => read(plan), DENIALS);
    return parseBillingRows(data, period.group, Date.now());
  },
};

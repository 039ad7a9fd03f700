/**
 * Short answers without a model (sandbox `ask` and the `builtin` provider): balance, counts of
 * instances by status, lists of names. The kind of each result is found from its request path in the
 * resource catalogue, so every listable kind gets an answer.
 */
import { KINDS, normalizeApiPath, type KindSpec } from '../gpucloud/catalogue.js';
import { containsTerm } from '../routing/match.js';
import { costSummary, sortResources } from '../gpucloud/cost.js';

export interface StepResult {
  /** The plan step's args (`["gpucloud-api", METHOD, PATH, BODY?]`); or method/path given directly. */
  args?: string[];
  method?: string;
  path?: string;
  /** Catalogue kind, when the caller already knows it. */
  kind?: string;
  /** Parsed response body. */
  data: unknown;
}

const MAX_NAMES = 20;
const STATUS_WORDS = ['running', 'offline', 'provisioning', 'ordered', 'hibernated', 'hibernating', 'error', 'discontinued', 'new', 'attached', 'detached'];

function kindOfPath(path: string): { spec: KindSpec; single: boolean } | undefined {
  const clean = normalizeApiPath(path);
  const list = KINDS.find((k) => k.path === clean);
  if (list) return { spec: list, single: false };
  for (const k of KINDS) {
    if (!k.getPath) continue;
    const re = new RegExp(`^${k.getPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('\\{id\\}', '[^/]+')}$`);
    if (re.test(clean)) return { spec: k, single: true };
  }
  return undefined;
}

function field(record: unknown, path: string): unknown {
  let v: unknown = record;
  for (const part of path.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

function nameOf(spec: KindSpec, record: unknown): string {
  const n = spec.nameField ? field(record, spec.nameField) : undefined;
  const id = field(record, spec.idField) ?? field(record, 'id');
  return String(n ?? id ?? '?');
}

function plural(n: number, singular: string, pluralWord: string): string {
  return `${n} ${n === 1 ? singular : pluralWord}`;
}

function listNames(names: string[]): string {
  return names.length > MAX_NAMES ? `${names.slice(0, MAX_NAMES).join(', ')} and ${names.length - MAX_NAMES} more` : names.join(', ');
}

function money(value: unknown, currency: unknown): string {
  const n = typeof value === 'number' ? value : Number(value);
  const c = typeof currency === 'string' ? currency.toUpperCase() : '';
  return `${Number.isFinite(n) ? n.toFixed(2) : String(value)}${c ? ` ${c}` : ''}`;
}

/** Hourly prices: cents, or four decimals below 0.10 so a 0.0279 CPU node does not read as 0.03. */
function hourly(value: unknown, currency: unknown): string {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 && n < 0.1 ? `${n.toFixed(4)}${typeof currency === 'string' ? ` ${currency.toUpperCase()}` : ''}` : money(value, currency);
}

function answerList(question: string, spec: KindSpec, records: unknown[]): string {
  const word = spec.kind.replace(/-/g, ' ');
  const singular = spec.singular.replace(/-/g, ' ');
  if (!records.length) return `You have no ${word}.`;
  const statuses = records.map((r) => field(r, 'status')).filter((s): s is string => typeof s === 'string');
  const askedStatus = STATUS_WORDS.find((s) => containsTerm(question, s));
  if (askedStatus && statuses.length) {
    const matching = records.filter((r) => field(r, 'status') === askedStatus);
    if (!matching.length) return `None of your ${plural(records.length, singular, word)} is ${askedStatus}.`;
    return `${plural(matching.length, singular, word)} ${matching.length === 1 ? 'is' : 'are'} ${askedStatus}: ${listNames(matching.map((r) => nameOf(spec, r)))}.`;
  }
  const lines: string[] = [];
  if (statuses.length) {
    const counts = new Map<string, number>();
    for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
    const parts = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([s, n]) => `${n} ${s}`);
    lines.push(`You have ${plural(records.length, singular, word)}: ${parts.join(', ')}.`);
  } else {
    lines.push(`${plural(records.length, singular, word)}.`.replace(/^./, (c) => c.toUpperCase()));
  }
  if (/\bhow many\b/i.test(question)) return lines[0]!;
  if (spec.kind === 'instances' || spec.kind === 'clusters') {
    for (const r of records.slice(0, MAX_NAMES)) {
      const details = [field(r, spec.kind === 'instances' ? 'instance_type' : 'cluster_type'), field(r, 'location'), field(r, 'status')].filter((x) => typeof x === 'string');
      lines.push(`- ${nameOf(spec, r)}${details.length ? ` (${details.join(', ')})` : ''}`);
    }
    if (records.length > MAX_NAMES) lines.push(`- … and ${records.length - MAX_NAMES} more`);
  } else {
    lines.push(listNames(records.map((r) => nameOf(spec, r))));
  }
  return lines.join('\n');
}

function answerOne(question: string, result: StepResult): string {
  const method = (result.method ?? result.args?.[1] ?? 'GET').toUpperCase();
  const path = result.path ?? result.args?.[2] ?? '';
  const found = path ? kindOfPath(path) : undefined;
  const spec = found?.spec ?? (result.kind ? KINDS.find((k) => k.kind === result.kind) : undefined);
  const data = result.data;
  if (method !== 'GET') {
    const id = typeof data === 'string' ? data : field(data, 'id');
    const what = spec?.singular.replace(/-/g, ' ') ?? 'request';
    if (method === 'POST') return `Created ${what}${typeof id === 'string' && id ? ` ${id}` : ''}.`;
    let action: unknown;
    try {
      const body = result.args?.[3] ? JSON.parse(result.args[3]) : undefined;
      action = field(body, 'action') ?? field(field(body, 'actions'), '0.action');
    } catch {
      action = undefined;
    }
    return `Done: ${typeof action === 'string' ? `${action} ` : ''}${what}${method === 'DELETE' ? ' deleted' : ''}.`;
  }
  if (!spec) return typeof data === 'string' ? data : JSON.stringify(data);
  if (spec.kind === 'balance') return `Your balance is ${money(field(data, 'amount'), field(data, 'currency'))}.`;
  if (Array.isArray(data)) return answerList(question, spec, data);
  const details = ['status', 'instance_type', 'cluster_type', 'location', 'ip']
    .map((k) => [k, field(data, k)] as const)
    .filter(([, v]) => typeof v === 'string' && v)
    .map(([k, v]) => `${k.replace('_', ' ')} ${v}`);
  return `${spec.singular.replace(/-/g, ' ')} ${nameOf(spec, data)}${details.length ? `: ${details.join(', ')}` : ''}.`;
}

function specOf(result: StepResult): KindSpec | undefined {
  const path = result.path ?? result.args?.[2];
  return (path ? kindOfPath(path)?.spec : undefined) ?? (result.kind ? KINDS.find((k) => k.kind === result.kind) : undefined);
}

/**
 * Availability names types per location; the prices are in the types read with it (the catalogue's
 * `readWith`). Answers "what GPUs are available in FIN-01 and what do they cost" with both, limited
 * to the locations the question names.
 */
function answerAvailability(question: string, spec: KindSpec, data: unknown, types: StepResult | undefined): string | undefined {
  const per = spec.rowsPer;
  if (!per || !Array.isArray(data)) return undefined;
  const typeSpec = types ? specOf(types) : undefined;
  const priced = new Map<string, Record<string, unknown>>();
  if (typeSpec && Array.isArray(types?.data)) for (const t of types.data as Record<string, unknown>[]) priced.set(String(t[typeSpec.idField]), t);
  const all = data as Record<string, unknown>[];
  const named = all.filter((r) => typeof r.location_code === 'string' && containsTerm(question, r.location_code));
  const locations = named.length ? named : all;
  if (!locations.length) return `No ${per.as.replace(/_/g, ' ')}s are available anywhere right now.`;
  const lines: string[] = [];
  for (const loc of locations) {
    const list = Array.isArray(loc[per.field]) ? (loc[per.field] as unknown[]).map(String) : [];
    if (!list.length) {
      lines.push(`Nothing is available in ${String(loc.location_code)} right now.`);
      continue;
    }
    lines.push(`Available in ${String(loc.location_code)} (${plural(list.length, 'type', 'types')}):`);
    for (const name of list) {
      const t = priced.get(name);
      if (!t) {
        lines.push(`- ${name}`);
        continue;
      }
      const gpu = field(t, 'gpu.description') ?? field(t, 'model');
      const spot = field(t, 'spot_price');
      const price = `${hourly(field(t, 'price_per_hour'), field(t, 'currency'))}/hour`;
      const spotText = spot !== undefined && spot !== null && spot !== '' ? `, spot ${hourly(spot, field(t, 'currency'))}/hour` : '';
      lines.push(`- ${name}${typeof gpu === 'string' && gpu ? ` (${gpu})` : ''}: ${price}${spotText}`);
    }
  }
  return lines.join('\n');
}

/** A short plain-text answer to `question` from the results of a plan's steps (no model involved). */
export function answerFromResults(question: string, results: StepResult[]): string {
  const useful = results.filter((r) => r.args?.[0] !== 'gpucloud-wait');
  // Results read only to price another kind's answer are folded into that answer, not listed again.
  const folded = new Set<StepResult>();
  const parts: string[] = [];
  for (const r of useful) {
    if (folded.has(r)) continue;
    const spec = specOf(r);
    const companion = spec?.readWith?.length ? useful.find((o) => o !== r && spec.readWith!.includes(specOf(o)?.kind ?? '')) : undefined;
    const combined = spec ? answerAvailability(question, spec, r.data, companion) : undefined;
    if (combined !== undefined) {
      if (companion) folded.add(companion);
      parts.push(combined);
      continue;
    }
    parts.push(answerOne(question, r));
  }
  return parts.length ? parts.join('\n') : 'Nothing to report.';
}

const TOP_SPENDERS = 3;
const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/**
 * "What am I spending per hour", "how long will my balance last": the burn, what it goes on, the
 * balance and the runway, from the same reads and the same pricing as `cost summary`
 * (engine/gpucloud/cost.ts). `results` are the context reads, each with its catalogue kind.
 */
export function answerCost(results: readonly { kind?: string; data: unknown }[], now = Date.now()): string {
  const of = (kind: string) => results.find((r) => r.kind === kind)?.data;
  const s = costSummary(
    { instances: of('instances'), volumes: of('volumes'), clusters: of('clusters'), balance: of('balance'), instanceTypes: of('instance-types'), volumeTypes: of('volume-types'), clusterTypes: of('cluster-types') },
    now,
  );
  const cur = s.currency.toUpperCase();
  const balance = s.balance === null ? undefined : `${s.balance.toFixed(2)} ${cur}`;
  if (s.hourly_cost <= 0) return `Nothing bills right now (0 ${cur} per hour)${balance ? `; your balance of ${balance} is not being drawn down` : ''}.`;
  const lines = [
    `You are spending ${s.hourly_cost.toFixed(4)} ${cur} per hour (${s.daily_cost.toFixed(2)} per day, ${s.monthly_forecast.toFixed(2)} per 30 days) on ${plural(s.resources.length, 'billable resource', 'billable resources')}.`,
  ];
  const top = sortResources(s.resources, 'cost').slice(0, TOP_SPENDERS);
  lines.push(`Most of it: ${top.map((r) => `${r.kind} ${r.name} ${hourly(r.hourly_cost ?? 0, s.currency)}/hour`).join(', ')}.`);
  const offline = s.resources.filter((r) => r.kind === 'instance' && r.status === 'offline');
  if (offline.length) lines.push(`${plural(offline.length, 'offline instance still bills', 'offline instances still bill')} (shutdown keeps billing, only delete stops it): ${listNames(offline.map((r) => r.name))}.`);
  if (balance && s.runway_hours !== null && s.runway_until) {
    lines.push(`Your balance of ${balance} lasts ${s.runway_hours.toFixed(1)} hours (${(s.runway_hours / 24).toFixed(1)} days) at this rate, until ${when(s.runway_until)}.`);
  }
  if (s.unpriced.length) lines.push(`Not counted (no price known): ${s.unpriced.join('; ')}.`);
  return lines.join('\n');
}

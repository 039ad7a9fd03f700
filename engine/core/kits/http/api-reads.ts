/**
 * An HTTP integration's catalogue of reads (vps_a, vps_b, cloud_d), in the shape of the CLI clouds'
 * catalogues (engine/core/kits/cli/reads.ts): question words → a read-only request → named records. From it come
 * the provider's context reads for `ask` and its answers without a model (counts, states, names), plus
 * what only HTTP reads have: a result cut at the page or byte bound (said in the answer, never hidden)
 * and prices (a total per hour and per month when the question asks what things cost).
 */
import type { ContextResult, ProviderCapabilities, RouteWord } from '../../capabilities.js';
import { cliReadCatalogue, type CliReadSpec, type CliRecord } from '../cli/reads.js';
import { formatAmount } from '../../render/money.js';

/** A record with what it costs, when the service says (price per hour and per month, in `currency`). */
export interface PricedRecord extends CliRecord {
  hourly?: number;
  monthly?: number;
  currency?: string;
}

export interface ApiReadSpec extends Omit<CliReadSpec, 'records'> {
  /** The records are what the account pays for (a cost question gets their total); a price list has none. */
  billed?: boolean;
  /** The records of the items read (every page, every region; a response that is not a list is one item). */
  records(items: readonly unknown[]): PricedRecord[];
}

/** A step's data: the items, and why the list is incomplete when the client stopped at a bound. */
export function unwrapPaged(data: unknown): { items: unknown; truncated?: string } {
  if (data && typeof data === 'object' && !Array.isArray(data) && 'truncated' in data && 'items' in data) {
    const d = data as { items: unknown; truncated: unknown };
    return { items: d.items, truncated: typeof d.truncated === 'string' ? d.truncated : 'the list was cut' };
  }
  return { items: data };
}

const COST_WORDS = /\b(cost|costs|costing|price|prices|priced|pricing|spend|spending|bill|billing|expensive|cheap|cheapest|per month|monthly|hourly|burn)\b/i;

const SYMBOL: Record<string, string> = { USD: '$', EUR: '€' };
const money = (n: number, currency: string) => (SYMBOL[currency] ? `${SYMBOL[currency]}${formatAmount(n)}` : `${formatAmount(n)} ${currency}`);

export interface ApiCapabilitySpec {
  provider: string;
  /** The label of its data in the prompt (`the vps_a account`). */
  label: string;
  prompt?: string;
  /** The words that route a question to it by name; by default the provider's name alone. */
  names?: readonly string[];
  specific: readonly RouteWord[];
  generic?: readonly RouteWord[];
  reads: readonly ApiReadSpec[];
  /** Lines after a read's list (cloud_d: the count per region), from the read's steps and all its items. */
  summary?(spec: ApiReadSpec, steps: readonly (readonly string[])[], items: readonly unknown[]): string[];
  /** Extra context reads chosen from the question and config (cloud_d: one per region named). */
  expand?(spec: ApiReadSpec, question: string, config: import('../../../../schemas/config.js').Config): string[][];
}

/** Routing, context reads and answers (with cut lists and costs said) from a catalogue of API reads. */
export function apiCapabilities(spec: ApiCapabilitySpec): Pick<ProviderCapabilities, 'routing' | 'reads' | 'answer'> {
  const catalogue = cliReadCatalogue(spec.reads.map((r) => ({ ...r, records: (data: unknown) => r.records(asItems(unwrapPaged(data).items)) })));
  const specOf = (args: readonly string[]) => spec.reads.find((r) => r.service === catalogue.readOf(args)?.service);
  return {
    routing: { names: spec.names ?? [spec.provider], specific: spec.specific, generic: spec.generic },
    reads: {
      label: spec.label,
      prompt: spec.prompt,
      contextReads(question, { config }) {
        const reads = catalogue.readsFor(question);
        const commands = reads.flatMap((r) => {
          const all = spec.expand?.(spec.reads.find((x) => x.service === r.service)!, question, config) ?? [r.args];
          return all.map((args) => ({ args: [...args], reason: `context: ${r.label}` }));
        });
        const kinds = reads.flatMap((r) => (spec.expand?.(spec.reads.find((x) => x.service === r.service)!, question, config) ?? [r.args]).map(() => `${spec.provider}/${r.service}`));
        return { commands, kinds };
      },
    },
    answer: {
      answer(question, results) {
        return answerFrom(spec, catalogue, specOf, question, results);
      },
    },
  };
}

function answerFrom(
  spec: ApiCapabilitySpec,
  catalogue: ReturnType<typeof cliReadCatalogue>,
  specOf: (args: readonly string[]) => ApiReadSpec | undefined,
  question: string,
  results: readonly ContextResult[],
): string | undefined {
  const known = results.filter((r) => specOf(r.args));
  if (!known.length) return undefined;
  // One list per read spec even when a read ran once per region (cloud_d): the records are merged.
  const merged = new Map<ApiReadSpec, { args: readonly string[]; steps: (readonly string[])[]; items: unknown[]; truncated: string[] }>();
  for (const r of known) {
    const s = specOf(r.args)!;
    const { items, truncated } = unwrapPaged(r.data);
    const m = merged.get(s) ?? { args: s.args, steps: [], items: [], truncated: [] };
    m.steps.push(r.args);
    m.items.push(...asItems(items));
    if (truncated) m.truncated.push(truncated);
    merged.set(s, m);
  }
  const parts: string[] = [];
  const asksCost = COST_WORDS.test(question);
  for (const [s, m] of merged) {
    // Nothing read because the first page was over the bound: not "you have none".
    if (!m.items.length && m.truncated.length) {
      parts.push(`(Incomplete: ${spec.provider} ${s.label} could not be read: ${m.truncated.join('; ')}.)`);
      continue;
    }
    parts.push(...catalogue.answer(question, [{ args: m.args, data: m.items }]));
    parts.push(...(spec.summary?.(s, m.steps, m.items) ?? []));
    if (asksCost && s.billed) {
      const records = s.records(m.items);
      const priced = records.filter((x) => x.monthly !== undefined || x.hourly !== undefined);
      if (priced.length) {
        const currency = priced[0]!.currency ?? 'USD';
        const monthly = priced.reduce((a, x) => a + (x.monthly ?? (x.hourly ?? 0) * 730), 0);
        const hourly = priced.reduce((a, x) => a + (x.hourly ?? (x.monthly ?? 0) / 730), 0);
        const unpriced = records.length - priced.length;
        parts.push(`Total: ${money(monthly, currency)} per month (${money(hourly, currency)} per hour) for ${priced.length} ${priced.length === 1 ? s.singular : s.label}${unpriced ? `; ${unpriced} without a price` : ''}.`);
      }
    }
    for (const t of m.truncated) parts.push(`(Incomplete: ${spec.provider} ${s.label}: ${t}; the list above is not the whole account.)`);
  }
  return parts.join('\n') || undefined;
}

const asItems = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]);

/**
 * A CLI cloud's catalogue of reads (cloud_a `aws`, cloud_b `gcloud`, cloud_c `az`): for each service,
 * the words that ask about it, the read-only step that lists it, and how its JSON output becomes named
 * records. From one catalogue come a provider's context reads for `ask` (which reads a question needs)
 * and its answers without a model (counts, states, names), so a cloud adds a table, not code.
 */
import { containsTerm, TermMatcher } from '../../routing/match.js';

/** One resource as the answers and reports show it. */
export interface CliRecord {
  name: string;
  /** The state or status as the service reports it (`running`, `available`, `ACTIVE`…). */
  state?: string;
  detail?: string;
}

export interface CliReadSpec {
  /** Short service key (`ec2`), also the record kind in the AI prompt (`cloud_a/ec2`). */
  service: string;
  /** What the records are, plural (`EC2 instances`). */
  label: string;
  singular: string;
  /** Question words that select this read (whole words, case-insensitive). */
  words: string[];
  /** The step: `[tool, …]`, read-only. */
  args: string[];
  /** Read by default when only the flag or the provider's name chose the provider. */
  byDefault: boolean;
  /** Whether the service is global rather than per region. */
  global?: boolean;
  records(data: unknown): CliRecord[];
}

/**
 * One catalogue row: the service key, what one record is called (the plural adds an "s" unless
 * `label` says otherwise), the question words, the read-only step and how its output becomes records.
 * A provider's reads.ts is a list of these and nothing else.
 */
export function cliRead<F extends CliReadSpec['records'] | ((items: readonly unknown[]) => CliRecord[]) = CliReadSpec['records']>(
  service: string,
  singular: string,
  words: string[],
  args: string[],
  records: F,
  opts: { byDefault?: boolean; global?: boolean; label?: string } = {},
): Omit<CliReadSpec, 'records'> & { records: F } {
  return { service, label: opts.label ?? `${singular}s`, singular, words, args, byDefault: opts.byDefault ?? false, ...(opts.global ? { global: true } : {}), records };
}

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
/** A number, or a number written as a string (prices in JSON are often strings); else undefined. */
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() && Number.isFinite(Number(v)) ? Number(v) : undefined);
/** The last segment of an ARN, URL or resource path: the name an ID-only list stands for. */
export const lastSegment = (s: string) => s.replace(/\/+$/, '').split(/[/:]/).pop() || s;

/** The reads whose question words a question uses (whole words, case-insensitive), in table order. */
export function readsNamedBy<T extends { words: readonly string[] }>(reads: readonly T[]): (question: string) => Set<T> {
  const matcher = new TermMatcher(reads.flatMap((r) => r.words.map((w) => ({ term: w, data: r }))));
  return (question) => new Set(matcher.match(question).map((m) => m.data));
}

/** How every catalogue picks: the reads a question's words choose (in table order), else the default ones. */
export function readsChooser<T extends { words: readonly string[]; byDefault: boolean }>(reads: readonly T[]): (question: string, also?: Iterable<T>) => T[] {
  const named = readsNamedBy(reads);
  return (question, also = []) => {
    const chosen = named(question);
    for (const r of also) chosen.add(r);
    const picked = reads.filter((r) => chosen.has(r));
    return picked.length ? picked : reads.filter((r) => r.byDefault);
  };
}

/** The targets a question is about (connections, workspaces): those it names, else the default, else the only one, else all (at most 5). */
export function targetsFor(question: string, names: readonly string[], defaultName: string | undefined): string[] {
  const named = names.filter((n) => containsTerm(question, n));
  if (named.length) return named;
  if (defaultName) return [defaultName];
  if (names.length) return names.slice(0, 5);
  return ['default'];
}

export interface CliReadCatalogue {
  reads: readonly CliReadSpec[];
  /** The reads a question asks for (in catalogue order), or the default set; `keywords` (service → words, from config) adds words. */
  readsFor(question: string, keywords?: Record<string, string[]>): CliReadSpec[];
  /** The entry of a step's args. */
  readOf(args: readonly string[]): CliReadSpec | undefined;
  /** One paragraph per known step result: how many, in which state, which names. */
  answer(question: string, results: readonly { args: readonly string[]; data: unknown }[]): string[];
}

const MAX_NAMES = 20;

/** Names and tags are the user's text: control characters (a terminal escape in a tag) never reach the terminal. */
export const printable = (s: string): string => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

/** A list's lines, at most `max` of them, then `- … and N more`. */
export function capped(lines: readonly string[], max = MAX_NAMES): string[] {
  return lines.length > max ? [...lines.slice(0, max), `- … and ${lines.length - max} more`] : [...lines];
}

/** `- name (detail, state)`, printable. */
export function recordLine(r: CliRecord): string {
  const extra = [r.detail, r.state].filter(Boolean).join(', ');
  return printable(`- ${r.name}${extra ? ` (${extra})` : ''}`);
}

/**
 * The state a question names among the records' states ("which instances are running"), or one of
 * its words (`stateWords`: `failed` → `ERROR`); undefined when it names none. Shared by every
 * catalogue (CLI and HTTP) so that they narrow alike.
 */
export function askedState(question: string, records: readonly CliRecord[], stateWords: Record<string, string[]> = {}): string | undefined {
  const states = [...new Set(records.map((x) => x.state).filter((s): s is string => Boolean(s)))];
  return states.find((s) => containsTerm(question, s) || (stateWords[s] ?? []).some((w) => containsTerm(question, w)));
}

/** One list's paragraph: `<head>.` for a "how many" question, else `<head>:` and the names (at most 20). */
export function listParagraph(question: string, head: string, shown: readonly CliRecord[]): string {
  if (/\bhow many\b/i.test(question)) return `${head}.`;
  return [`${head}:`, ...capped(shown.map(recordLine))].join('\n');
}

export function cliReadCatalogue(reads: readonly CliReadSpec[]): CliReadCatalogue {
  const choose = readsChooser(reads);
  const readOf = (args: readonly string[]) => reads.find((s) => s.args.length <= args.length && s.args.every((a, i) => args[i] === a));
  return {
    reads,
    readOf,
    readsFor(question, keywords) {
      // `keywords` (service → words, from config) adds words to a service.
      const extra = Object.entries(keywords ?? {}).flatMap(([service, words]) => {
        const spec = reads.find((s) => s.service === service.toLowerCase());
        return spec && new TermMatcher([service, ...(words ?? [])].map((w) => ({ term: w.toLowerCase(), data: spec }))).match(question).length ? [spec] : [];
      });
      return choose(question, extra);
    },
    answer(question, results) {
      const parts: string[] = [];
      for (const r of results) {
        const spec = readOf(r.args);
        if (!spec) continue;
        const records = spec.records(r.data);
        if (!records.length) {
          parts.push(`You have no ${spec.label}.`);
          continue;
        }
        // "which instances are running": only those in the state the question names.
        const asked = askedState(question, records);
        const shown = asked ? records.filter((x) => x.state === asked) : records;
        parts.push(listParagraph(question, `${shown.length} ${shown.length === 1 ? spec.singular : spec.label}${asked ? ` ${asked}` : ''}`, shown));
      }
      return parts;
    },
  };
}

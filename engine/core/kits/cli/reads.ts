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

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
/** The last segment of an ARN, URL or resource path: the name an ID-only list stands for. */
export const lastSegment = (s: string) => s.replace(/\/+$/, '').split(/[/:]/).pop() || s;

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
const printable = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

function line(r: CliRecord): string {
  const extra = [r.detail, r.state].filter(Boolean).join(', ');
  return printable(`- ${r.name}${extra ? ` (${extra})` : ''}`);
}

export function cliReadCatalogue(reads: readonly CliReadSpec[]): CliReadCatalogue {
  const matcher = new TermMatcher(reads.flatMap((spec) => spec.words.map((w) => ({ term: w, data: spec }))));
  const readOf = (args: readonly string[]) => reads.find((s) => s.args.length <= args.length && s.args.every((a, i) => args[i] === a));
  return {
    reads,
    readOf,
    readsFor(question, keywords) {
      const chosen = new Set(matcher.match(question).map((m) => m.data));
      for (const [service, words] of Object.entries(keywords ?? {})) {
        const spec = reads.find((s) => s.service === service.toLowerCase());
        if (spec && new TermMatcher([service, ...(words ?? [])].map((w) => ({ term: w.toLowerCase(), data: spec }))).match(question).length) chosen.add(spec);
      }
      const picked = reads.filter((s) => chosen.has(s));
      return picked.length ? picked : reads.filter((s) => s.byDefault);
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
        const states = [...new Set(records.map((x) => x.state).filter((s): s is string => Boolean(s)))];
        const asked = states.find((s) => containsTerm(question, s));
        const shown = asked ? records.filter((x) => x.state === asked) : records;
        const head = `${shown.length} ${shown.length === 1 ? spec.singular : spec.label}${asked ? ` ${asked}` : ''}`;
        if (/\bhow many\b/i.test(question)) {
          parts.push(`${head}.`);
          continue;
        }
        const body = shown.slice(0, MAX_NAMES).map(line);
        if (shown.length > MAX_NAMES) body.push(`- … and ${shown.length - MAX_NAMES} more`);
        parts.push([`${head}:`, ...body].join('\n'));
      }
      return parts;
    },
  };
}

/**
 * An HTTP integration's catalogue of reads for `ask` (notes, appplatform, edge): for each thing users
 * ask about, the question words that choose it, the read-only request steps that fetch it (built from
 * the config: a database, a team, a zone), and how the answer becomes named records — the shape
 * engine/core/kits/cli/reads.ts gives the CLI clouds. From it come the provider's context reads and its answers
 * without a model (counts, states, names), which also say when the toolkit cut a listing short.
 */
import type { Config } from '../../../../schemas/config.js';
import type { PlanCommand } from '../../../../schemas/plan.js';
import type { ContextResult, ProviderCapabilities, RoutingCapability } from '../../capabilities.js';
import { askedState, listParagraph, readsChooser, type CliRecord } from '../cli/reads.js';
import { containsTerm } from '../../routing/match.js';

/** A record with tags a question can narrow to (`production`, `proxied`). */
export type TaggedRecord = CliRecord & { tags?: string[] };

export interface HttpReadSpec {
  /** Short key (`pages`); the kind of its last step is `<provider>/<key>`. */
  key: string;
  label: string;
  singular: string;
  /** Question words that choose this read (whole words, case-insensitive). */
  words: string[];
  /** Read when the question names none of the reads' words. */
  byDefault: boolean;
  /**
   * The steps: the last one fetches what is answered; earlier ones look up what it needs (a zone id).
   * None: the read cannot be made (no zone named or configured); the default reads stand in.
   */
  commands(config: Config, question: string): PlanCommand[];
  records(data: unknown): TaggedRecord[];
  /** Question words that narrow to records with a tag (`production` → target production). */
  tagWords?: Record<string, string[]>;
  /** Question words that narrow to records whose name contains a text (`runbooks` → titles with "runbook"). */
  nameWords?: Record<string, string[]>;
  /** Question words that mean a state (`failed` → `ERROR`). */
  stateWords?: Record<string, string[]>;
  /** Records sorted for the answer (newest first…), when the API does not already. */
  sort?(a: CliRecord, b: CliRecord): number;
}

/**
 * Qualifiers the built-in answers do not evaluate (time windows, comparisons, content, reasons): a
 * question with one is declined rather than answered with the whole list.
 */
const UNANSWERABLE = /\b(today|yesterday|tomorrow|this (week|month|year)|last (week|month|year|\d+ \w+)|past \w+|since|ago|before|after|older than|newer than|between|why|how long|how much|most|least|more than|fewer than|less than|at least|at most|mention|mentions|mentioning|about|contain|contains|containing|compare|cost|costs)\b/i;

/** The toolkit marks a listing it stopped reading: `{ items, truncated }` instead of the items. */
export function unwrapTruncated(data: unknown): { data: unknown; truncated?: string } {
  if (data && typeof data === 'object' && !Array.isArray(data) && typeof (data as { truncated?: unknown }).truncated === 'string') {
    return { data: (data as { items?: unknown }).items, truncated: (data as { truncated: string }).truncated };
  }
  return { data };
}

export interface HttpCatalogueSpec {
  provider: string;
  /** The label of its data in the prompt (`the workspace notes (notes)`). */
  label: string;
  prompt?: string;
  routing: RoutingCapability;
  reads: readonly HttpReadSpec[];
}

/** Routing, context reads and answers for an HTTP integration from its catalogue. */
export function httpReadCapabilities(spec: HttpCatalogueSpec): Pick<ProviderCapabilities, 'routing' | 'reads' | 'answer'> {
  const readsFor = readsChooser(spec.reads);
  const kindOf = (r: HttpReadSpec) => `${spec.provider}/${r.key}`;
  return {
    routing: spec.routing,
    reads: {
      label: spec.label,
      prompt: spec.prompt,
      contextReads(question, { config }) {
        const commands: PlanCommand[] = [];
        const kinds: string[] = [];
        const chosen = readsFor(question).filter((r) => r.commands(config, question).length);
        for (const r of chosen.length ? chosen : spec.reads.filter((x) => x.byDefault)) {
          const steps = r.commands(config, question);
          steps.forEach((c, i) => {
            commands.push(c);
            kinds.push(i === steps.length - 1 ? kindOf(r) : `${kindOf(r)}-lookup`);
          });
        }
        return { commands, kinds };
      },
    },
    answer: {
      answer(question, results: readonly ContextResult[]) {
        if (UNANSWERABLE.test(question)) return undefined;
        const parts: string[] = [];
        for (const r of spec.reads) {
          const result = results.find((x) => x.kind === kindOf(r));
          if (!result) continue;
          const { data, truncated } = unwrapTruncated(result.data);
          const tagged = r.records(data);
          // "which production deployments…": only the records with the tags the question names.
          const tags = Object.entries(r.tagWords ?? {}).filter(([, words]) => words.some((w) => containsTerm(question, w))).map(([t]) => t);
          const names = Object.entries(r.nameWords ?? {}).filter(([, words]) => words.some((w) => containsTerm(question, w))).map(([n]) => n);
          const named = names.length ? tagged.filter((x) => names.some((n) => x.name.toLowerCase().includes(n))) : tagged;
          const records = tags.length ? named.filter((x) => tags.some((t) => x.tags?.includes(t))) : named;
          if (r.sort) records.sort(r.sort);
          const cut = truncated ? ` (${spec.provider}: ${truncated}; the answer covers those)` : '';
          if (!records.length) {
            parts.push(truncated ? `${spec.provider}: no ${r.label} could be read (${truncated}).` : `You have no ${tags.length ? `${tags.join(' ')} ` : ''}${r.label}${names.length ? ` with "${names.join('" or "')}" in the name` : ''}.`);
            continue;
          }
          // "which deployments failed": only those in the state the question names (or a word for it).
          const asked = askedState(question, records, r.stateWords);
          const shown = asked ? records.filter((x) => x.state === asked) : records;
          const about = names.length ? ` with "${names.join('" or "')}" in the name` : '';
          parts.push(listParagraph(question, `${shown.length} ${tags.length ? `${tags.join(' ')} ` : ''}${shown.length === 1 ? r.singular : r.label}${about}${asked ? ` ${asked}` : ''}${cut}`, shown));
        }
        return parts.length ? parts.join('\n') : undefined;
      },
    },
  };
}

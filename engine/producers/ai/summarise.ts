/**
 * Automatic summarisation of a context that would make the prompt too large (SPEC 2.5/8:
 * ai.max_prompt_chars, ai.chunk_chars, ai.max_chunks). Below the limit the context is passed through
 * untouched and the provider is not called. Above it, the records are chunked (chunking.ts), each kept
 * chunk is summarised with the question in mind, and the summaries are merged in order with a note of
 * what was left out.
 */
import { AI_DEFAULTS } from '../../../schemas/config.js';
import { planChunks } from './chunking.js';
import type { AiProvider } from './provider.js';

export interface SummariseOptions {
  provider: AiProvider;
  question: string;
  records: readonly string[];
  /** The ai section of the config (only the three size keys are read). */
  ai?: { max_prompt_chars?: number; chunk_chars?: number; max_chunks?: number };
  /** Characters of the rest of the prompt (instructions, question), counted against max_prompt_chars. */
  overheadChars?: number;
  signal?: AbortSignal;
  /** Progress for stderr: "summarising part 2 of 6". */
  onProgress?: (event: { part: number; of: number; chunkIndex: number; total: number }) => void;
}

export interface SummariseResult {
  /** The context to put into the prompt (the records themselves when no summarisation was needed). */
  context: string;
  summarised: boolean;
  /** Chunks made and chunks summarised. */
  totalChunks: number;
  keptChunks: number[];
  droppedChunks: number[];
  /** Human-readable notes (what was dropped, that the context is a summary). */
  notes: string[];
}

const SUMMARY_SYSTEM =
  'You condense infrastructure data for a later question. Keep every identifier, name, status, type, location, price and number that could matter for the question; drop repetition. Answer with the condensed facts only, no preamble.';

export async function summariseContext(options: SummariseOptions): Promise<SummariseResult> {
  const maxPrompt = options.ai?.max_prompt_chars ?? AI_DEFAULTS.max_prompt_chars;
  const chunkChars = options.ai?.chunk_chars ?? AI_DEFAULTS.chunk_chars;
  const maxChunks = options.ai?.max_chunks ?? AI_DEFAULTS.max_chunks;
  const joined = options.records.join('\n');
  if (joined.length + (options.overheadChars ?? 0) <= maxPrompt) {
    return { context: joined, summarised: false, totalChunks: 0, keptChunks: [], droppedChunks: [], notes: [] };
  }

  const plan = planChunks(options.records, { chunkChars, maxChunks });
  const summaries: string[] = [];
  for (const [i, chunk] of plan.kept.entries()) {
    options.onProgress?.({ part: i + 1, of: plan.kept.length, chunkIndex: chunk.index, total: plan.total });
    const { text } = await options.provider.chat({
      system: SUMMARY_SYSTEM,
      messages: [
        {
          role: 'user',
          content: `Question the data will be used for: ${options.question}\n\nPart ${chunk.index + 1} of ${plan.total} of the data (records ${chunk.firstRecord + 1}-${chunk.lastRecord + 1}):\n${chunk.text}`,
        },
      ],
      temperature: 0,
      signal: options.signal,
    });
    summaries.push(`## Part ${chunk.index + 1} of ${plan.total} (records ${chunk.firstRecord + 1}-${chunk.lastRecord + 1})\n${text.trim()}`);
  }

  const notes = [`The data (${joined.length} characters, ${options.records.length} records) was larger than ai.max_prompt_chars (${maxPrompt}); it was split into ${plan.total} parts and summarised.`];
  if (plan.dropped.length) {
    notes.push(
      `${plan.dropped.length} of ${plan.total} parts (${plan.droppedRecords} records, ${plan.droppedChars} characters) were not summarised because ai.max_chunks is ${maxChunks}: parts ${plan.dropped.map((i) => i + 1).join(', ')}. Answers about them may be incomplete.`,
    );
  }
  let context = `${notes.join('\n')}\n\n${summaries.join('\n\n')}`;
  const budget = maxPrompt - (options.overheadChars ?? 0);
  if (context.length > budget && budget > 0) {
    // Summaries that are still too long are shortened evenly rather than dropping the last parts.
    const per = Math.max(200, Math.floor((budget - notes.join('\n').length - 2) / summaries.length) - 2);
    notes.push(`The summaries were still too long and were shortened to about ${per} characters each.`);
    context = `${notes.join('\n')}\n\n${summaries.map((s) => (s.length > per ? `${cutAt(s, per)}…` : s)).join('\n\n')}`;
  }
  return { context, summarised: true, totalChunks: plan.total, keptChunks: plan.kept.map((c) => c.index), droppedChunks: plan.dropped, notes };
}

/** Cuts text to at most `n` code units without splitting a surrogate pair. */
function cutAt(text: string, n: number): string {
  if (text.length <= n) return text;
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

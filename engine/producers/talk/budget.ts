/**
 * How much of the conversation goes with a turn: the earlier turns, newest kept, oldest dropped
 * first, within a token budget derived from the model's context window. Tokens are estimated (about
 * four characters each, plus a few per message): every provider tokenises differently and none of
 * their tokenisers ships offline for all ten, so the estimate errs on the generous side and the
 * budget leaves most of the window to the system prompt, the fetched context and the answer.
 */
import type { ChatMessage } from '../ai/provider.js';

/** Characters per token for the estimate (English and JSON average about 4; code and IDs fewer). */
const CHARS_PER_TOKEN = 3.5;
/** Role markers and separators each message costs. */
const TOKENS_PER_MESSAGE = 4;
/** Share of the context window the earlier turns may take. */
const HISTORY_SHARE = 0.25;
/** When the model is not known: a window any current chat model has. */
export const DEFAULT_CONTEXT_TOKENS = 8_192;

/** Context windows of model families (prefix of the model name, lower case), largest match wins. */
const CONTEXT_WINDOWS: [RegExp, number][] = [
  [/^(gpt-4\.1|gpt-5)/, 1_000_000],
  [/^(gpt-4o|gpt-4-turbo|o1|o3|o4)/, 128_000],
  [/^gpt-4/, 8_192],
  [/^gpt-3\.5/, 16_385],
  [/claude/, 200_000],
  [/gemini/, 1_000_000],
  [/^deepseek/, 64_000],
  [/^command/, 128_000],
  [/minimax/i, 200_000],
  [/llama-?3\.[1-3]|llama3\.[1-3]/, 128_000],
  [/llama/, 8_192],
  [/mistral|mixtral/, 32_000],
  [/qwen/, 32_000],
];

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function messageTokens(m: ChatMessage): number {
  return estimateTokens(m.content) + TOKENS_PER_MESSAGE;
}

/** The context window of a model (tokens), from its name; `override` (`--context-tokens`) wins. */
export function contextWindow(model: string | undefined, override?: number): number {
  if (override) return override;
  const name = (model ?? '').toLowerCase().replace(/^[a-z0-9-]+\//, ''); // "openai/gpt-4.1-mini" → "gpt-4.1-mini"
  for (const [pattern, tokens] of CONTEXT_WINDOWS) if (pattern.test(name)) return tokens;
  return DEFAULT_CONTEXT_TOKENS;
}

/** The tokens the earlier turns may take with this model. */
export function historyBudget(model: string | undefined, override?: number): number {
  return Math.floor(contextWindow(model, override) * HISTORY_SHARE);
}

/**
 * The newest messages that fit in `budget` tokens, oldest first. Messages go in question/answer
 * pairs: a pair is kept or dropped whole, so the model never sees an answer without its question.
 */
export function trimToBudget(messages: readonly ChatMessage[], budget: number): { messages: ChatMessage[]; dropped: number } {
  const pairs: ChatMessage[][] = [];
  for (const m of messages) {
    if (m.role === 'user' || !pairs.length) pairs.push([m]);
    else pairs[pairs.length - 1]!.push(m);
  }
  const kept: ChatMessage[][] = [];
  let used = 0;
  for (let i = pairs.length - 1; i >= 0; i--) {
    const cost = pairs[i]!.reduce((n, m) => n + messageTokens(m), 0);
    if (used + cost > budget) break;
    used += cost;
    kept.unshift(pairs[i]!);
  }
  const flat = kept.flat();
  return { messages: flat, dropped: messages.length - flat.length };
}

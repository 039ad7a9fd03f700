/**
 * The one interface every AI provider adapter implements, and the request/response shapes.
 * Adapters live in engine/producers/ai/providers/; `resolveAiProvider` (engine/producers/ai/resolve.ts) picks one from config.
 */
import type { AiProviderKind } from '../../../schemas/config.js';

export type { AiProviderKind };

/** How a provider is asked for JSON: a schema (structured output), any JSON object, or only by the prompt. */
export type JsonMode = 'schema' | 'object' | 'prompt';

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  system?: string;
  messages: ChatMessage[];
  /** Ask for JSON matching this schema (structured output / JSON mode where the provider has it). */
  json?: { schema: object; name: string };
  /** Stream tokens as they arrive. Setting `onToken` implies streaming. */
  stream?: boolean;
  onToken?: (token: string) => void;
  signal?: AbortSignal;
  /** Omitted automatically for reasoning models that reject it. */
  temperature?: number;
  maxTokens?: number;
}

export interface ChatResult {
  text: string;
  /** The model that answered (after auto-detection). */
  model: string;
}

export interface AiProvider {
  /** Provider value, e.g. `openai`, `anthropic`, `builtin`. */
  readonly name: AiProviderKind;
  /** Profile the provider was resolved from (`ai.providers.<profile>`), or the provider value. */
  readonly profile: string;
  /** Model name; for auto-detected models it is filled after the first call. */
  readonly model: string;
  chat(req: ChatRequest): Promise<ChatResult>;
  /** Short human description for --debug, never with secrets: `openai (gpt-4o-mini) at https://…`. */
  describe(): string;
}

/** Settings of the call policy shared by all adapters (retries, 429 handling, timeouts). */
export interface AiCallPolicy {
  /** Per attempt; for streams it is the longest silence between two tokens. */
  timeoutMs: number;
  /** How many 429 answers are waited out before AiRateLimitedError. */
  max429Retries: number;
  /** Longest single wait a Retry-After may ask for; a longer one fails at once. */
  maxRetryAfterMs: number;
  /** Waits used when a 429 carries no Retry-After (its length does not extend max429Retries). */
  rateLimitBackoffMs: number[];
  /** Waits after 5xx / network failures; its length is the retry budget. */
  serverRetryDelaysMs: number[];
}

export const DEFAULT_AI_CALL_POLICY: AiCallPolicy = {
  timeoutMs: 120_000,
  max429Retries: 3,
  maxRetryAfterMs: 60_000,
  rateLimitBackoffMs: [1_000, 2_000, 4_000],
  serverRetryDelaysMs: [1_000, 3_000],
};

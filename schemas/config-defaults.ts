/**
 * The configuration's constants and defaults, without zod: commands that find no config file (and the
 * credential resolvers) use these, and never need the schema library loaded. schemas/config.ts
 * re-exports them.
 */

/** AI provider kinds, in SPEC order; the first is the fallback when `ai.default_provider` is omitted. */
export const AI_PROVIDER_KINDS = [
  'openai',
  'anthropic',
  'gemini-api',
  'gemini',
  'bedrock',
  'deepseek',
  'cohere',
  'minimax',
  'github-models',
  'assistant-cloud',
] as const;
/** `builtin` is the offline rule-based planner; accepted wherever a provider kind is. */
export const AI_PROVIDER_VALUES = [...AI_PROVIDER_KINDS, 'builtin'] as const;
export type AiProviderKind = (typeof AI_PROVIDER_VALUES)[number];
export const DEFAULT_AI_PROVIDER: AiProviderKind = AI_PROVIDER_KINDS[0];

export const AI_DEFAULTS = { max_prompt_chars: 120_000, chunk_chars: 120_000, max_chunks: 6 } as const;
export const RATE_LIMIT_DEFAULTS = { per_project: 500, per_path: 60, window_ms: 60_000 } as const;
export const CLOUD_D_DEFAULT_REGION = 'ap-singapore';

/**
 * Keys that hold secrets wherever they appear in the file. The loader registers their values for
 * redaction, `config show` masks them, and a group/world-readable file holding one gets a warning.
 */
export const SECRET_KEY_NAMES: ReadonlySet<string> = new Set([
  'client_secret',
  'api_key',
  'token',
  'auth_token',
  'integration_token',
  'api_token',
  'secret_key',
  'router_api_key',
  'password',
]);
export function isSecretKey(key: string): boolean {
  return SECRET_KEY_NAMES.has(key.toLowerCase());
}

/** What ConfigSchema makes of an empty file: every section absent, defaults applied (test/core/config.defaults.test.ts compares). */
export function emptyConfigValue() {
  return { ai: { ...AI_DEFAULTS } };
}

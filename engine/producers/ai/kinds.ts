/**
 * What the assistant knows about each AI provider value: wire protocol, default endpoint and model,
 * well-known key environment variables and how structured output is asked for.
 * Default model names are choices of this tool (SPEC 2.5 leaves them open); override them with
 * `model:` in a profile or `--<provider>-model`.
 */
import type { AiProviderKind } from '../../../schemas/config.js';
import type { JsonMode } from './provider.js';

export type Protocol = 'openai' | 'anthropic' | 'bedrock' | 'vertex' | 'builtin';

export interface ProviderKindInfo {
  protocol: Protocol;
  /** Human name for messages. */
  title: string;
  /** Default API base URL (OpenAI-compatible and Anthropic protocols). */
  baseUrl?: string;
  /** Default model; empty means auto-detected from the provider's model list. */
  defaultModel: string;
  /** Well-known environment variables holding the key, in order (resolution step 4). */
  keyEnv: string[];
  /** The provider authenticates without a key from the user (ADC, AWS profile, gh CLI). */
  keyless?: boolean;
  initialJsonMode: JsonMode;
}

export const PROVIDER_KINDS: Record<AiProviderKind, ProviderKindInfo> = {
  openai: {
    protocol: 'openai',
    title: 'OpenAI (or any OpenAI-compatible server via local_model_inference_url)',
    baseUrl: 'https://api.openai.com/v1',
    defaultModel: 'gpt-4o-mini',
    keyEnv: ['OPENAI_API_KEY'],
    initialJsonMode: 'schema',
  },
  anthropic: {
    protocol: 'anthropic',
    title: 'Anthropic',
    baseUrl: 'https://api.anthropic.com',
    defaultModel: '',
    keyEnv: ['ANTHROPIC_API_KEY'],
    initialJsonMode: 'schema',
  },
  'gemini-api': {
    protocol: 'openai',
    title: 'Gemini API (AI Studio key)',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai/',
    defaultModel: 'gemini-2.5-flash',
    keyEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    initialJsonMode: 'schema',
  },
  gemini: {
    protocol: 'vertex',
    title: 'Gemini on the cloud model platform (application-default credentials)',
    defaultModel: 'gemini-2.5-flash',
    keyEnv: [],
    keyless: true,
    initialJsonMode: 'schema',
  },
  bedrock: {
    protocol: 'bedrock',
    title: 'cloud_a managed model service (Converse API)',
    defaultModel: 'anthropic.claude-3-haiku-20240307-v1:0',
    keyEnv: [],
    keyless: true,
    initialJsonMode: 'schema',
  },
  deepseek: {
    protocol: 'openai',
    title: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com/v1',
    defaultModel: 'deepseek-chat',
    keyEnv: ['DEEPSEEK_API_KEY'],
    initialJsonMode: 'object',
  },
  cohere: {
    protocol: 'openai',
    title: 'Cohere (compatibility API)',
    baseUrl: 'https://api.cohere.ai/compatibility/v1',
    defaultModel: 'command-a-03-2025',
    keyEnv: ['CO_API_KEY', 'COHERE_API_KEY'],
    initialJsonMode: 'schema',
  },
  minimax: {
    protocol: 'openai',
    title: 'MiniMax',
    baseUrl: 'https://api.minimax.io/v1',
    defaultModel: 'MiniMax-M2',
    keyEnv: ['MINIMAX_API_KEY'],
    initialJsonMode: 'prompt',
  },
  'github-models': {
    protocol: 'openai',
    title: 'GitHub Models (token from `gh auth token`)',
    baseUrl: 'https://models.github.ai/inference',
    defaultModel: 'openai/gpt-4.1-mini',
    keyEnv: ['GITHUB_TOKEN', 'GH_TOKEN'],
    keyless: true,
    initialJsonMode: 'schema',
  },
  'assistant-cloud': {
    protocol: 'openai',
    title: 'assistant cloud',
    defaultModel: '',
    keyEnv: ['ASSISTANT_CLOUD_API_KEY'],
    initialJsonMode: 'schema',
  },
  builtin: {
    protocol: 'builtin',
    title: 'built-in deterministic planner (offline, no model)',
    defaultModel: 'builtin-planner',
    keyEnv: [],
    keyless: true,
    initialJsonMode: 'prompt',
  },
};

export function isProviderKind(value: string): value is AiProviderKind {
  return Object.prototype.hasOwnProperty.call(PROVIDER_KINDS, value);
}

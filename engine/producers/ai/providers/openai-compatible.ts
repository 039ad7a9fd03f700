/**
 * Adapter for every OpenAI-compatible chat-completions endpoint, through the openai SDK:
 * openai (and local servers), gemini-api, deepseek, cohere, minimax, github-models, assistant-cloud,
 * and gemini on the cloud model platform (whose key is an ADC access token, see vertex.ts).
 */
import type OpenAI from 'openai';
import type { AiProviderKind } from '../../../../schemas/config.js';
import { AssistantError } from '../../../core/errors.js';
import { secretFetch, secretOrigins } from '../../../core/kits/http/secret-origins.js';
import { isReasoningModel, parseRetryAfter, type AttemptOptions, type Failure, type JsonMode, type Transport } from '../call-policy.js';
import { AiNotConfiguredError } from '../errors.js';
import type { ChatRequest } from '../provider.js';

/** The key a local OpenAI-compatible server that takes none is given: a placeholder, not a secret. */
export const NO_KEY = 'not-needed';

export interface OpenAiConnection {
  baseURL: string;
  /** Static key or a function asked before each request (ADC tokens, `gh auth token`). */
  apiKey: string | (() => Promise<string>);
  /** Extra headers some endpoints want. */
  headers?: Record<string, string>;
  organization?: string;
  project?: string;
}

export interface OpenAiCompatibleOptions {
  name: AiProviderKind;
  profile: string;
  /** Empty → the first model of GET /models is used. */
  model: string;
  initialJsonMode: JsonMode;
  /** Built lazily: some providers need a network call (project id, gh token) to know it. */
  connect: () => Promise<OpenAiConnection>;
  /** Shown before the connection is known. */
  endpointLabel: string;
  fetchImpl?: typeof fetch;
  /** Hard SDK timeout; the policy's own timer normally fires first. */
  sdkTimeoutMs: number;
}

/** Drops `$schema` (some servers choke on it) without touching the rest of the schema. */
export function cleanSchema(schema: object): Record<string, unknown> {
  const { $schema: _drop, ...rest } = schema as Record<string, unknown>;
  return rest;
}

const TEMPERATURE_REJECTED = /temperature/i;
const RESPONSE_FORMAT_REJECTED = /response_format|json_schema|json_object|structured output|response format/i;

export class OpenAiCompatibleTransport implements Transport {
  readonly name: AiProviderKind;
  readonly profile: string;
  readonly initialJsonMode: JsonMode;
  private currentModel: string;
  private client?: Promise<{ client: OpenAI; baseURL: string }>;
  private baseURL?: string;
  private detecting?: Promise<string>;

  constructor(private readonly opts: OpenAiCompatibleOptions) {
    this.name = opts.name;
    this.profile = opts.profile;
    this.initialJsonMode = opts.initialJsonMode;
    this.currentModel = opts.model;
  }

  model(): string {
    return this.currentModel;
  }

  endpoint(): string {
    return this.baseURL ?? this.opts.endpointLabel;
  }

  private getClient(): Promise<{ client: OpenAI; baseURL: string }> {
    this.client ??= this.opts.connect().then(async (conn) => {
      this.baseURL = conn.baseURL;
      // A key goes to the endpoint's origin only, never after a redirect (secret-origins.ts); a local
      // server that takes no key gets the placeholder, which is no secret.
      const send = conn.apiKey === NO_KEY ? this.opts.fetchImpl : secretFetch(secretOrigins(`the ${this.name} API key`, [conn.baseURL], { setting: `ai.providers.${this.profile}.base_url` }), this.opts.fetchImpl);
      const OpenAI = await loadSdk();
      const client = new OpenAI({
        apiKey: conn.apiKey,
        baseURL: conn.baseURL,
        organization: conn.organization ?? null,
        project: conn.project ?? null,
        maxRetries: 0,
        timeout: this.opts.sdkTimeoutMs,
        fetch: send,
        defaultHeaders: conn.headers,
        logLevel: 'off',
      });
      return { client, baseURL: conn.baseURL };
    });
    // A failed connect (no gh, no ADC) must not be cached forever.
    this.client.catch(() => (this.client = undefined));
    return this.client;
  }

  private async ensureModel(client: OpenAI, signal: AbortSignal): Promise<string> {
    if (this.currentModel) return this.currentModel;
    this.detecting ??= (async () => {
      const page = await client.models.list({ signal });
      const first = page.data[0]?.id;
      if (!first) {
        throw new AiNotConfiguredError(`the AI provider ${this.name} at ${this.endpoint()} lists no models`, {
          hint: `set a model with --${this.name}-model <name> or ai.providers.${this.profile}.model`,
        });
      }
      this.currentModel = first;
      return first;
    })();
    this.detecting.catch(() => (this.detecting = undefined));
    return this.detecting;
  }

  async send(req: ChatRequest, opts: AttemptOptions): Promise<string> {
    const { client } = await this.getClient();
    const model = await this.ensureModel(client, opts.signal);
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
    if (req.system) messages.push({ role: 'system', content: req.system });
    for (const m of req.messages) messages.push({ role: m.role, content: m.content });

    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = { model, messages };
    if (opts.temperature !== undefined) body.temperature = opts.temperature;
    if (req.maxTokens !== undefined) {
      if (isReasoningModel(model)) body.max_completion_tokens = req.maxTokens;
      else body.max_tokens = req.maxTokens;
    }
    if (req.json && opts.jsonMode === 'schema') {
      body.response_format = {
        type: 'json_schema',
        json_schema: { name: req.json.name.replace(/[^A-Za-z0-9_-]/g, '_'), schema: cleanSchema(req.json.schema), strict: false },
      };
    } else if (req.json && opts.jsonMode === 'object') {
      body.response_format = { type: 'json_object' };
    }

    if (!opts.stream) {
      const res = await client.chat.completions.create(body, { signal: opts.signal });
      return res.choices[0]?.message?.content ?? '';
    }
    const stream = await client.chat.completions.create({ ...body, stream: true }, { signal: opts.signal });
    let text = '';
    for await (const chunk of stream) {
      const token = chunk.choices[0]?.delta?.content;
      if (token) {
        text += token;
        opts.onToken?.(token);
      }
    }
    return text;
  }

  classify(err: unknown): Failure {
    return classifyOpenAiError(err);
  }
}

/** The SDK is loaded on first use: commands that never call a model (the built-in planner, the sandbox) skip its ~50 ms load. */
let sdk: typeof OpenAI | undefined;
async function loadSdk(): Promise<typeof OpenAI> {
  return (sdk ??= (await import('openai')).default);
}

function classifyOpenAiError(err: unknown): Failure {
  if (err instanceof AssistantError) return { kind: 'passthrough', error: err };
  // Without the SDK loaded, no error can be one of its classes.
  const OpenAI = sdk;
  if (OpenAI) {
    if (err instanceof OpenAI.APIUserAbortError) return { kind: 'abort' };
    if (err instanceof OpenAI.APIConnectionTimeoutError) return { kind: 'timeout', message: err.message };
    if (err instanceof OpenAI.APIConnectionError) {
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof AssistantError) return { kind: 'passthrough', error: cause };
      return { kind: 'network', message: cause instanceof Error ? `${err.message} (${cause.message})` : err.message };
    }
    if (err instanceof OpenAI.APIError) {
      const status = err.status ?? 0;
      const message = err.message;
      if (status === 429) return { kind: 'rate_limit', message, retryAfterMs: parseRetryAfter(err.headers) };
      if (status === 401 || status === 403) return { kind: 'auth', message, status };
      if (status === 404) return { kind: 'not_found', message, status };
      if (status === 400 || status === 422) {
        if (TEMPERATURE_REJECTED.test(message)) return { kind: 'unsupported', param: 'temperature', message };
        if (RESPONSE_FORMAT_REJECTED.test(message)) return { kind: 'unsupported', param: 'response_format', message };
        return { kind: 'bad_request', message, status };
      }
      if (status >= 500) return { kind: 'server', message, status };
      return { kind: 'bad_request', message, status };
    }
    if (err instanceof OpenAI.OpenAIError) {
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof AssistantError) return { kind: 'passthrough', error: cause };
      return { kind: 'bad_request', message: err.message };
    }
  }
  if ((err as { name?: string })?.name === 'AbortError') return { kind: 'abort' };
  return { kind: 'network', message: err instanceof Error ? err.message : String(err) };
}

/**
 * Anthropic Messages API adapter (@anthropic-ai/sdk). An empty model is auto-detected from the
 * provider's model list (newest first). Structured output is a forced tool call whose input schema is
 * the requested JSON schema, which every tool-capable model supports.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { AiProviderKind } from '../../../../schemas/config.js';
import { AssistantError } from '../../../core/errors.js';
import { secretFetch, secretOrigins } from '../../../core/kits/http/secret-origins.js';
import { parseRetryAfter, type AttemptOptions, type Failure, type JsonMode, type Transport } from '../call-policy.js';
import { AiNotConfiguredError } from '../errors.js';
import type { ChatRequest } from '../provider.js';
import { cleanSchema } from './openai-compatible.js';

type AnthropicModule = typeof import('@anthropic-ai/sdk');

export interface AnthropicOptions {
  profile: string;
  model: string;
  apiKey: string;
  baseURL: string;
  fetchImpl?: typeof fetch;
  sdkTimeoutMs: number;
}

const DEFAULT_MAX_TOKENS = 4096;

let sdk: Promise<AnthropicModule> | undefined;
function loadSdk(): Promise<AnthropicModule> {
  sdk ??= import('@anthropic-ai/sdk');
  return sdk;
}

/** Picks a model from the list: the newest Sonnet if there is one, else the first (newest) model. */
export function pickAnthropicModel(ids: string[]): string | undefined {
  return ids.find((id) => /sonnet/i.test(id)) ?? ids[0];
}

export class AnthropicTransport implements Transport {
  readonly name: AiProviderKind = 'anthropic';
  readonly profile: string;
  readonly initialJsonMode: JsonMode = 'schema';
  private currentModel: string;
  private client?: Promise<Anthropic>;
  private detecting?: Promise<string>;
  private mod?: AnthropicModule;

  constructor(private readonly opts: AnthropicOptions) {
    this.profile = opts.profile;
    this.currentModel = opts.model;
  }

  model(): string {
    return this.currentModel;
  }
  endpoint(): string {
    return this.opts.baseURL;
  }

  private getClient(): Promise<Anthropic> {
    this.client ??= loadSdk().then((mod) => {
      this.mod = mod;
      // The key goes to the configured endpoint's origin only, never after a redirect (secret-origins.ts).
      const origins = secretOrigins('the anthropic API key', [this.opts.baseURL], { setting: `ai.providers.${this.profile}.base_url` });
      return new mod.default({
        apiKey: this.opts.apiKey,
        baseURL: this.opts.baseURL,
        maxRetries: 0,
        timeout: this.opts.sdkTimeoutMs,
        fetch: secretFetch(origins, this.opts.fetchImpl),
        logLevel: 'off',
      });
    });
    return this.client;
  }

  private async ensureModel(client: Anthropic, signal: AbortSignal): Promise<string> {
    if (this.currentModel) return this.currentModel;
    this.detecting ??= (async () => {
      const ids: string[] = [];
      const page = await client.models.list({ limit: 100 }, { signal });
      for (const m of page.data) ids.push(m.id);
      const picked = pickAnthropicModel(ids);
      if (!picked) {
        throw new AiNotConfiguredError('the AI provider anthropic lists no models for this key', {
          hint: 'set a model with --anthropic-model <name> or ai.providers.anthropic.model',
        });
      }
      this.currentModel = picked;
      return picked;
    })();
    this.detecting.catch(() => (this.detecting = undefined));
    return this.detecting;
  }

  async send(req: ChatRequest, opts: AttemptOptions): Promise<string> {
    const client = await this.getClient();
    const model = await this.ensureModel(client, opts.signal);
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model,
      max_tokens: req.maxTokens ?? DEFAULT_MAX_TOKENS,
      messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
    };
    if (req.system) params.system = req.system;
    // This SDK's Messages API has no temperature parameter any more; the request is sent without it.
    const toolName = req.json ? req.json.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) : undefined;
    if (req.json && opts.jsonMode !== 'prompt' && toolName) {
      params.tools = [
        {
          name: toolName,
          description: 'Return the result as the input of this tool.',
          input_schema: cleanSchema(req.json.schema) as Anthropic.Tool.InputSchema,
        },
      ];
      params.tool_choice = { type: 'tool', name: toolName };
    }

    if (!opts.stream) {
      const msg = await client.messages.create(params, { signal: opts.signal });
      let text = '';
      for (const block of msg.content) {
        if (block.type === 'tool_use') return JSON.stringify(block.input);
        if (block.type === 'text') text += block.text;
      }
      return text;
    }
    const stream = await client.messages.create({ ...params, stream: true }, { signal: opts.signal });
    let text = '';
    let toolJson = '';
    for await (const event of stream) {
      if (event.type !== 'content_block_delta') continue;
      if (event.delta.type === 'text_delta') {
        text += event.delta.text;
        opts.onToken?.(event.delta.text);
      } else if (event.delta.type === 'input_json_delta') {
        toolJson += event.delta.partial_json;
        opts.onToken?.(event.delta.partial_json);
      }
    }
    return toolJson || text;
  }

  classify(err: unknown): Failure {
    if (err instanceof AssistantError) return { kind: 'passthrough', error: err };
    const mod = this.mod;
    if (!mod) return { kind: 'network', message: err instanceof Error ? err.message : String(err) };
    if (err instanceof mod.APIUserAbortError) return { kind: 'abort' };
    if (err instanceof mod.APIConnectionTimeoutError) return { kind: 'timeout', message: err.message };
    if (err instanceof mod.APIConnectionError) {
      // Refused by the key's origin check (secret-origins.ts) before anything was sent.
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof AssistantError) return { kind: 'passthrough', error: cause };
      return { kind: 'network', message: err.message };
    }
    if (err instanceof mod.APIError) {
      const status = err.status ?? 0;
      const message = err.message;
      if (status === 429) return { kind: 'rate_limit', message, retryAfterMs: parseRetryAfter(err.headers as Headers | undefined) };
      if (status === 401 || status === 403) return { kind: 'auth', message, status };
      if (status === 404) return { kind: 'not_found', message, status };
      if (status === 400 && /temperature/i.test(message)) return { kind: 'unsupported', param: 'temperature', message };
      if (status === 400 && /tool_choice|tools?\b|input_schema/i.test(message)) return { kind: 'unsupported', param: 'response_format', message };
      if (status >= 500) return { kind: 'server', message, status };
      return { kind: 'bad_request', message, status };
    }
    if ((err as { name?: string })?.name === 'AbortError') return { kind: 'abort' };
    return { kind: 'network', message: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * cloud_a managed model service adapter: the Bedrock Converse / ConverseStream API with credentials of
 * the named CLI profile (`cloud_a_profile`) in `region`. Structured output is a forced tool call.
 * The SDK's own retries are off; the shared policy handles throttling with a visible message.
 */
import type { BedrockRuntimeClient, ContentBlock, ConverseCommandInput, Message } from '@aws-sdk/client-bedrock-runtime';
import type { AiProviderKind } from '../../../../schemas/config.js';
import { AssistantError } from '../../../core/errors.js';
import type { AttemptOptions, Failure, JsonMode, Transport } from '../call-policy.js';
import type { ChatRequest } from '../provider.js';
import { cleanSchema } from './openai-compatible.js';

type BedrockModule = typeof import('@aws-sdk/client-bedrock-runtime');

export interface BedrockOptions {
  profile: string;
  model: string;
  region: string;
  /** Named profile of the cloud_a CLI config; default credential chain when absent. */
  awsProfile?: string;
  /** Endpoint override (tests, VPC endpoints). */
  endpoint?: string;
}

const DEFAULT_MAX_TOKENS = 4096;

export class BedrockTransport implements Transport {
  readonly name: AiProviderKind = 'bedrock';
  readonly profile: string;
  readonly initialJsonMode: JsonMode = 'schema';
  private client?: Promise<{ client: BedrockRuntimeClient; mod: BedrockModule }>;

  constructor(private readonly opts: BedrockOptions) {
    this.profile = opts.profile;
  }

  model(): string {
    return this.opts.model;
  }
  endpoint(): string {
    return this.opts.endpoint ?? `bedrock-runtime.${this.opts.region}`;
  }

  private getClient() {
    this.client ??= (async () => {
      const mod = await import('@aws-sdk/client-bedrock-runtime');
      const credentials = this.opts.awsProfile
        ? (await import('@aws-sdk/credential-providers')).fromIni({ profile: this.opts.awsProfile })
        : undefined;
      const client = new mod.BedrockRuntimeClient({
        region: this.opts.region,
        credentials,
        maxAttempts: 1,
        ...(this.opts.endpoint ? { endpoint: this.opts.endpoint } : {}),
      });
      return { client, mod };
    })();
    return this.client;
  }

  async send(req: ChatRequest, opts: AttemptOptions): Promise<string> {
    const { client, mod } = await this.getClient();
    const messages: Message[] = req.messages.map((m) => ({ role: m.role, content: [{ text: m.content }] }));
    const input: ConverseCommandInput = {
      modelId: this.opts.model,
      messages,
      inferenceConfig: { maxTokens: req.maxTokens ?? DEFAULT_MAX_TOKENS, ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}) },
    };
    if (req.system) input.system = [{ text: req.system }];
    const toolName = req.json?.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
    if (req.json && opts.jsonMode !== 'prompt' && toolName) {
      input.toolConfig = {
        tools: [{ toolSpec: { name: toolName, description: 'Return the result as the input of this tool.', inputSchema: { json: cleanSchema(req.json.schema) as never } } }],
        toolChoice: { tool: { name: toolName } },
      };
    }
    if (!opts.stream) {
      const out = await client.send(new mod.ConverseCommand(input), { abortSignal: opts.signal });
      const blocks: ContentBlock[] = out.output?.message?.content ?? [];
      let text = '';
      for (const b of blocks) {
        if (b.toolUse) return JSON.stringify(b.toolUse.input);
        if (b.text) text += b.text;
      }
      return text;
    }
    const out = await client.send(new mod.ConverseStreamCommand(input), { abortSignal: opts.signal });
    let text = '';
    let toolJson = '';
    for await (const event of out.stream ?? []) {
      const delta = event.contentBlockDelta?.delta;
      if (delta?.text) {
        text += delta.text;
        opts.onToken?.(delta.text);
      } else if (delta?.toolUse?.input) {
        toolJson += delta.toolUse.input;
        opts.onToken?.(delta.toolUse.input);
      }
    }
    return toolJson || text;
  }

  classify(err: unknown): Failure {
    if (err instanceof AssistantError) return { kind: 'passthrough', error: err };
    const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number }; $retryable?: unknown };
    const name = e?.name ?? '';
    const message = e?.message ?? String(err);
    const status = e?.$metadata?.httpStatusCode;
    if (name === 'AbortError') return { kind: 'abort' };
    if (name === 'ThrottlingException' || name === 'TooManyRequestsException' || status === 429) return { kind: 'rate_limit', message };
    if (
      ['AccessDeniedException', 'UnrecognizedClientException', 'ExpiredTokenException', 'CredentialsProviderError', 'InvalidSignatureException'].includes(name) ||
      status === 401 ||
      status === 403
    ) {
      return { kind: 'auth', message, status };
    }
    if (name === 'ResourceNotFoundException' || status === 404) return { kind: 'not_found', message, status };
    if (name === 'ValidationException' && /temperature/i.test(message)) return { kind: 'unsupported', param: 'temperature', message };
    if (name === 'ValidationException' && /tool/i.test(message)) return { kind: 'unsupported', param: 'response_format', message };
    if (name === 'ModelTimeoutException') return { kind: 'timeout', message };
    if ((status ?? 0) >= 500 || name === 'ServiceUnavailableException' || name === 'InternalServerException') return { kind: 'server', message, status };
    if (status) return { kind: 'bad_request', message, status };
    return { kind: 'network', message };
  }
}

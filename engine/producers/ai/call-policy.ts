/**
 * One call policy for every adapter: timeouts (abort + clear error), the AI provider's 429 with
 * Retry-After (bounded), 5xx/network retries, dropping `temperature` for models that reject it and
 * stepping down from JSON-schema output to JSON mode to plain prompting when a server refuses it.
 * Adapters only send one attempt and classify their SDK's errors into a `Failure`.
 */
import { AssistantError, InterruptedError } from '../../core/errors.js';
import { abortReason } from '../../core/deadline.js';
import { AiAuthError, AiRateLimitedError, AiRequestError, AiTimeoutError } from './errors.js';
import { configHint } from './hints.js';
import type { AiCallPolicy, AiProvider, AiProviderKind, ChatRequest, ChatResult, JsonMode } from './provider.js';

/** How structured output is asked for: schema-constrained, JSON mode, or only by the prompt. */
export type { JsonMode };

export interface AttemptOptions {
  signal: AbortSignal;
  temperature?: number;
  jsonMode: JsonMode;
  /** Called for every streamed token (already wired to the inactivity timer). */
  onToken?: (token: string) => void;
  stream: boolean;
}

export type Failure =
  | { kind: 'rate_limit'; message: string; retryAfterMs?: number }
  | { kind: 'auth'; message: string; status?: number }
  | { kind: 'unsupported'; param: 'temperature' | 'response_format'; message: string }
  | { kind: 'server'; message: string; status?: number }
  | { kind: 'network'; message: string }
  | { kind: 'timeout'; message: string }
  | { kind: 'abort' }
  | { kind: 'not_found'; message: string; status?: number }
  | { kind: 'bad_request'; message: string; status?: number }
  | { kind: 'passthrough'; error: AssistantError };

export interface Transport {
  readonly name: AiProviderKind;
  readonly profile: string;
  /** Current model name (may change after auto-detection). */
  model(): string;
  /** Where requests go, for describe() and messages. */
  endpoint(): string;
  /** Structured-output capability to start with. */
  readonly initialJsonMode: JsonMode;
  /** Sends one attempt and returns the full text. */
  send(req: ChatRequest, opts: AttemptOptions): Promise<string>;
  classify(err: unknown): Failure;
}

/** Model names that reject `temperature` (o1/o3/o4 and gpt-5 families, with or without a publisher prefix). */
export function isReasoningModel(model: string): boolean {
  const base = model.toLowerCase().split('/').pop() ?? '';
  return /^o\d+(?:$|[-.])/.test(base) || /^gpt-5(?:$|[-.])/.test(base);
}

/** Parses Retry-After (seconds or HTTP date) and retry-after-ms into milliseconds. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const NEXT_JSON_MODE: Record<JsonMode, JsonMode | undefined> = { schema: 'object', object: 'prompt', prompt: undefined };

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${Math.round(ms / 1000)} s`;
}

/** An AiProvider that runs a Transport under the shared policy. */
export class PolicyProvider implements AiProvider {
  private jsonMode: JsonMode;
  private temperatureRejected = false;

  constructor(
    private readonly transport: Transport,
    private readonly policy: AiCallPolicy,
    private readonly debug?: (line: string) => void,
  ) {
    this.jsonMode = transport.initialJsonMode;
  }

  get name(): AiProviderKind {
    return this.transport.name;
  }
  get profile(): string {
    return this.transport.profile;
  }
  get model(): string {
    return this.transport.model();
  }

  describe(): string {
    const model = this.transport.model() || '(model auto-detected on first use)';
    const profile = this.transport.profile !== this.transport.name ? ` profile ${this.transport.profile}` : '';
    return `${this.transport.name} (${model})${profile} at ${this.transport.endpoint()}`;
  }

  private label(): string {
    const model = this.transport.model();
    return `AI provider ${this.transport.name}${model ? ` (model ${model})` : ''}`;
  }

  private timeoutError(stalled: boolean, cause?: unknown): AiTimeoutError {
    return new AiTimeoutError(
      `the ${this.label()} did not answer within ${seconds(this.policy.timeoutMs)}${stalled ? ' (the stream stalled)' : ''}`,
      { hint: 'try again, use a faster model (--<provider>-model), or raise the timeout (--timeout <seconds>)', cause },
    );
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    const stream = Boolean(req.stream || req.onToken);
    let temperature = req.temperature;
    let rateLimited = 0;
    let serverFailures = 0;
    for (;;) {
      if (temperature !== undefined && (this.temperatureRejected || isReasoningModel(this.transport.model()))) temperature = undefined;
      if (req.signal?.aborted) throw abortReason(req.signal);
      let emitted = false;
      const ctl = new AbortController();
      let timedOut = false;
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          timedOut = true;
          ctl.abort(new Error('AI provider timeout'));
        }, this.policy.timeoutMs);
      };
      const onCallerAbort = () => ctl.abort(req.signal?.reason);
      req.signal?.addEventListener('abort', onCallerAbort, { once: true });
      arm();
      try {
        const text = await this.transport.send(req, {
          signal: ctl.signal,
          temperature,
          jsonMode: req.json ? this.jsonMode : 'prompt',
          stream,
          onToken: (t) => {
            emitted = true;
            arm();
            req.onToken?.(t);
          },
        });
        // Some SDK streams end quietly when aborted instead of throwing: check why the attempt ended.
        if (req.signal?.aborted) throw abortReason(req.signal, { while: 'waiting for the AI provider' });
        if (timedOut) throw this.timeoutError(emitted);
        return { text, model: this.transport.model() };
      } catch (err) {
        if (err instanceof AiTimeoutError || err instanceof InterruptedError || (req.signal?.aborted && err === req.signal.reason)) throw err;
        if (req.signal?.aborted) throw abortReason(req.signal, { while: 'waiting for the AI provider', cause: err });
        if (timedOut) throw this.timeoutError(emitted, err);
        const failure = this.transport.classify(err);
        this.debug?.(`ai: attempt failed: ${failure.kind}${'message' in failure ? `: ${failure.message}` : ''}`);
        switch (failure.kind) {
          case 'passthrough':
            throw failure.error;
          case 'abort':
            throw abortReason(req.signal, { while: 'waiting for the AI provider', cause: err });
          case 'timeout':
            throw new AiTimeoutError(`the ${this.label()} did not answer in time: ${failure.message}`, {
              hint: 'try again, use a faster model, or raise the timeout (--timeout <seconds>)',
              cause: err,
            });
          case 'unsupported':
            if (emitted) break;
            if (failure.param === 'temperature' && temperature !== undefined && !this.temperatureRejected) {
              this.temperatureRejected = true;
              this.debug?.('ai: the model rejects temperature; retrying without it');
              continue;
            }
            if (failure.param === 'response_format' && req.json && NEXT_JSON_MODE[this.jsonMode]) {
              this.jsonMode = NEXT_JSON_MODE[this.jsonMode]!;
              this.debug?.(`ai: structured output refused; retrying with json mode "${this.jsonMode}"`);
              continue;
            }
            break;
          case 'rate_limit': {
            if (emitted) break;
            const wait = failure.retryAfterMs ?? this.policy.rateLimitBackoffMs[Math.min(rateLimited, this.policy.rateLimitBackoffMs.length - 1)] ?? 1000;
            if (rateLimited >= this.policy.max429Retries || wait > this.policy.maxRetryAfterMs) {
              const why =
                wait > this.policy.maxRetryAfterMs
                  ? `it asks to wait ${seconds(wait)}, longer than the ${seconds(this.policy.maxRetryAfterMs)} the assistant waits`
                  : `still rate-limited after ${rateLimited} ${rateLimited === 1 ? 'retry' : 'retries'}`;
              throw new AiRateLimitedError(
                `the ${this.label()} rate-limited the request (HTTP 429; ${why}). This is the AI provider's rate limit, not gpucloud's: ${failure.message}`,
                {
                  hint: `wait and retry, lower your request rate, or switch AI provider/profile (--ai-profile <name>); check the quota of your ${this.transport.name} account`,
                  cause: err,
                },
              );
            }
            rateLimited++;
            this.debug?.(`ai: AI provider 429; waiting ${wait} ms (retry ${rateLimited}/${this.policy.max429Retries})`);
            await abortableSleep(wait, req.signal);
            continue;
          }
          case 'server':
          case 'network': {
            if (emitted || serverFailures >= this.policy.serverRetryDelaysMs.length) {
              const status = failure.kind === 'server' ? failure.status : undefined;
              throw new AiRequestError(`the ${this.label()} failed: ${failure.message}`, {
                status,
                hint: failure.kind === 'network' ? `check the network and the endpoint ${this.transport.endpoint()}` : 'the AI provider has a problem; try again later',
                cause: err,
              });
            }
            const wait = this.policy.serverRetryDelaysMs[serverFailures++]!;
            await abortableSleep(wait, req.signal);
            continue;
          }
          case 'auth':
            throw new AiAuthError(`the ${this.label()} rejected the credentials: ${failure.message}`, {
              hint: configHint(this.transport.name, this.transport.profile),
              cause: err,
            });
          case 'not_found':
            throw new AiRequestError(`the ${this.label()} answered not found (is the model name right?): ${failure.message}`, {
              status: failure.status,
              hint: `set another model with --${this.transport.name}-model <name> or ai.providers.${this.transport.profile}.model`,
              cause: err,
            });
          case 'bad_request':
            break;
        }
        const message = 'message' in failure ? failure.message : String(err);
        throw new AiRequestError(`the ${this.label()} refused the request: ${message}`, {
          status: 'status' in failure ? failure.status : undefined,
          cause: err,
        });
      } finally {
        if (timer) clearTimeout(timer);
        req.signal?.removeEventListener('abort', onCallerAbort);
      }
    }
  }
}

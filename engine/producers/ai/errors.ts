/**
 * Errors of the AI layer. They all say "AI provider" in their message so nobody mistakes an AI
 * provider's 429 or timeout for one of gpucloud's, and each carries a hint with a config snippet.
 */
import { AssistantError, ExitCode, type AssistantErrorOptions } from '../../core/errors.js';

/** Base class: an AI provider call failed (exit 1). */
export class AiError extends AssistantError {
  constructor(code: string, message: string, options: AssistantErrorOptions = {}, exitCode: typeof ExitCode.failed | typeof ExitCode.invalidInput = ExitCode.failed) {
    super(code, message, exitCode, options);
  }
}

/** No usable provider configuration (missing key, missing base URL, `builtin` asked to chat): a configuration error, exit 2. */
export class AiNotConfiguredError extends AiError {
  constructor(message: string, options: AssistantErrorOptions = {}) {
    super('ai_not_configured', message, options, ExitCode.invalidInput);
  }
}

/** The AI provider rejected the credentials (401/403). */
export class AiAuthError extends AiError {
  constructor(message: string, options: AssistantErrorOptions = {}) {
    super('ai_auth', message, options);
  }
}

/** The AI provider kept answering 429 after the retry budget was used. Not gpucloud's limit. */
export class AiRateLimitedError extends AiError {
  constructor(message: string, options: AssistantErrorOptions = {}) {
    super('ai_rate_limited', message, options);
  }
}

/** The AI provider did not answer (or stopped streaming) within the timeout. */
export class AiTimeoutError extends AiError {
  constructor(message: string, options: AssistantErrorOptions = {}) {
    super('ai_timeout', message, options);
  }
}

/** Any other failed AI provider request (bad request, unknown model, 5xx after retries, network). */
export class AiRequestError extends AiError {
  readonly status?: number;
  constructor(message: string, options: AssistantErrorOptions & { status?: number } = {}) {
    super('ai_request_failed', message, options);
    this.status = options.status;
  }
}

/**
 * Error types that carry their own exit code (DESIGN.md §2) and a hint for the user.
 * Anything that is not an AssistantError is a bug and is reported as such by the CLI.
 */
export const ExitCode = {
  ok: 0,
  failed: 1,
  invalidInput: 2,
  refused: 3,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface AssistantErrorOptions {
  hint?: string;
  cause?: unknown;
  details?: unknown;
}

export class AssistantError extends Error {
  readonly code: string;
  readonly exitCode: ExitCodeValue;
  readonly hint?: string;
  readonly details?: unknown;

  constructor(code: string, message: string, exitCode: ExitCodeValue, options: AssistantErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
    this.hint = options.hint;
    this.details = options.details;
  }
}

/** Bad flags, arguments or input documents; nothing was sent (exit 2). */
export class UsageError extends AssistantError {
  constructor(message: string, options: AssistantErrorOptions = {}) {
    super('usage', message, ExitCode.invalidInput, options);
  }
}

/** A malformed config file, plan or other input document; nothing was sent (exit 2). */
export class InvalidInputError extends AssistantError {
  constructor(code: string, message: string, options: AssistantErrorOptions = {}) {
    super(code, message, ExitCode.invalidInput, options);
  }
}

/** Refused for safety: destructive without --destroyer, declined confirmation (exit 3). */
export class SafetyRefusal extends AssistantError {
  constructor(message: string, options: AssistantErrorOptions = {}) {
    super('refused', message, ExitCode.refused, options);
  }
}

/** The operation was interrupted (SIGINT / abort); completed work is kept (exit 130). */
export class InterruptedError extends AssistantError {
  constructor(message = 'interrupted', options: AssistantErrorOptions = {}) {
    super('interrupted', message, ExitCode.interrupted, options);
  }
}

/** A generic failure of the operation itself (exit 1). */
export class OperationError extends AssistantError {
  constructor(code: string, message: string, options: AssistantErrorOptions = {}) {
    super(code, message, ExitCode.failed, options);
  }
}

export function isAbortError(err: unknown): boolean {
  return (
    err instanceof InterruptedError ||
    (typeof err === 'object' && err !== null && (err as { name?: string }).name === 'AbortError')
  );
}

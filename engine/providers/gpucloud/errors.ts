import { AssistantError, ExitCode } from '../../core/errors.js';

/** Hints for every error code of the wire reference (§3) and SPEC 7.2. */
export const GPUCLOUD_ERROR_HINTS: Record<string, string> = {
  invalid_request: 'the request was rejected as invalid; check the fields named in the message',
  unauthorized_request:
    'credentials expired or of the wrong scope (cloud-api-v1); create new API credentials in the console and run `assistant credentials test gpucloud`',
  insufficient_funds: 'add credit to your gpucloud account before retrying (`assistant gpucloud balance` shows it)',
  forbidden_action: 'the action is not allowed in the resource\'s current state; check its status with `assistant gpucloud get`',
  not_found: 'no such resource; list what exists with `assistant gpucloud list <kind>`',
  server_error: 'gpucloud had an internal error; retry later',
  service_unavailable:
    'capacity is probably exhausted for this GPU type in this location; try another location (`assistant gpucloud list availability`)',
  rate_limit_exceeded: 'gpucloud rate limit hit and the retry budget is used up; wait a minute and retry',
  network_error: 'could not reach gpucloud; check your network and GPUCLOUD_BASE_URL',
  bad_response: 'gpucloud answered with something the client could not read; retry, or report a bug with --debug output',
  partial_failure: 'some resources failed the action; the per-resource results say which',
};

/**
 * The token endpoint fails for its own reasons: a 503 there means the auth service is down, not that
 * GPU capacity is exhausted, so its hints differ from the API's.
 */
const TOKEN_ENDPOINT_HINTS: Record<string, string> = {
  server_error: 'the gpucloud authentication service had an internal error; retry later',
  service_unavailable: 'the gpucloud authentication service is unavailable right now (not a capacity problem); retry in a few minutes',
  rate_limit_exceeded: 'too many token requests; wait a minute and retry',
  invalid_scope:
    'these credentials cannot get a cloud-api-v1 token (older credentials were issued another scope); create new Cloud API credentials in the console and run `assistant credentials test gpucloud`',
};

/** DNS failures cannot be fixed by retrying; the host name is usually mistyped. */
export const DNS_FAILURE_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'EAI_AGAIN']);
const DNS_HINT =
  'the gpucloud host name could not be resolved: check GPUCLOUD_BASE_URL / gpucloud.base_url (and GPUCLOUD_AUTH_URL / gpucloud.auth_url) for a typo, and your DNS';

export interface GpuCloudErrorInit {
  status: number;
  code: string;
  message: string;
  method?: string;
  path?: string;
  retryAfterMs?: number;
  attempts?: number;
  details?: unknown;
  cause?: unknown;
  /** Overrides the code's usual hint. */
  hint?: string;
}

/** A typed error decoded from a gpucloud error body `{code, message}` (exit 1). */
export class GpuCloudError extends AssistantError {
  readonly status: number;
  readonly method?: string;
  readonly path?: string;
  readonly attempts?: number;

  constructor(init: GpuCloudErrorInit) {
    super(init.code, init.message, ExitCode.failed, {
      hint: init.hint ?? GPUCLOUD_ERROR_HINTS[init.code],
      cause: init.cause,
      details: init.details,
    });
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.attempts = init.attempts;
  }
}

export class InvalidRequestError extends GpuCloudError {}
export class UnauthorizedError extends GpuCloudError {}
export class InsufficientFundsError extends GpuCloudError {}
export class ForbiddenActionError extends GpuCloudError {}
export class NotFoundError extends GpuCloudError {}
export class ServerError extends GpuCloudError {}
export class ServiceUnavailableError extends GpuCloudError {}
export class RateLimitExceededError extends GpuCloudError {}
/** Connection reset, DNS failure, timeout: no HTTP status (status 0). */
export class NetworkError extends GpuCloudError {
  constructor(init: GpuCloudErrorInit) {
    const errno = (init.details as { errno?: unknown } | undefined)?.errno;
    super({ ...init, hint: init.hint ?? (typeof errno === 'string' && DNS_FAILURE_CODES.has(errno) ? DNS_HINT : undefined) });
  }
}
/** A 2xx whose body the client could not interpret. */
export class BadResponseError extends GpuCloudError {}
/** A 207 multi-status (or 202 with results) where at least one resource failed. */
export class PartialFailureError extends GpuCloudError {}

const BY_CODE: Record<string, new (init: GpuCloudErrorInit) => GpuCloudError> = {
  invalid_request: InvalidRequestError,
  invalid_scope: InvalidRequestError,
  unsupported_grant_type: InvalidRequestError,
  invalid_grant: InvalidRequestError,
  unauthorized_request: UnauthorizedError,
  insufficient_funds: InsufficientFundsError,
  forbidden_action: ForbiddenActionError,
  not_found: NotFoundError,
  server_error: ServerError,
  service_unavailable: ServiceUnavailableError,
  rate_limit_exceeded: RateLimitExceededError,
};

/** The wire reference's error code for each HTTP status (§3); the emulator answers with the same table. */
export const ERROR_CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthorized_request',
  402: 'insufficient_funds',
  403: 'forbidden_action',
  404: 'not_found',
  429: 'rate_limit_exceeded',
  500: 'server_error',
  503: 'service_unavailable',
};

/** Decodes an HTTP error response into the matching typed error. */
export function decodeGpuCloudError(
  status: number,
  body: unknown,
  context: { method?: string; path?: string; attempts?: number; tokenEndpoint?: boolean } = {},
): GpuCloudError {
  const obj = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const code =
    typeof obj.code === 'string' && obj.code
      ? obj.code
      : (ERROR_CODE_BY_STATUS[status] ?? (status >= 500 ? 'server_error' : 'invalid_request'));
  const message =
    typeof obj.message === 'string' && obj.message
      ? obj.message
      : typeof body === 'string' && body.trim()
        ? body.trim().slice(0, 300)
        : `HTTP ${status}`;
  const Ctor = BY_CODE[code] ?? (status >= 500 ? ServerError : GpuCloudError);
  const { tokenEndpoint, ...where } = context;
  const hint = tokenEndpoint ? TOKEN_ENDPOINT_HINTS[code] : undefined;
  return new Ctor({ status, code, message, ...where, details: obj.details, hint });
}

/**
 * The emulator's own error table: the codes and messages gpucloud answers with, by HTTP status, as the
 * wire reference (/work/shared/reference/gpucloud-api.md §3) documents them. The emulator is the
 * server: it keeps its table rather than borrowing the client's (engine/providers/gpucloud/errors.ts), so the
 * client is tested against the wire format, not against itself. test/providers/gpucloud/emulator.error-table.test.ts
 * checks that the two tables agree on every code, so they cannot drift apart unnoticed.
 */

/** Every error code of the wire format, with the status it comes with. */
export const WIRE_ERRORS = {
  invalid_request: 400,
  unauthorized_request: 401,
  insufficient_funds: 402,
  forbidden_action: 403,
  not_found: 404,
  // Not in any official source (the reference says so); the emulator answers it with Retry-After.
  rate_limit_exceeded: 429,
  server_error: 500,
  service_unavailable: 503,
} as const satisfies Record<string, number>;

export type WireErrorCode = keyof typeof WIRE_ERRORS;

/** The code a status answers with, for the statuses the wire format names. */
export const CODE_BY_STATUS: Readonly<Record<number, WireErrorCode>> = Object.fromEntries(Object.entries(WIRE_ERRORS).map(([code, status]) => [status, code as WireErrorCode]));

/** A status without a code of its own: a 5xx is a server error, anything else an invalid request. */
export function codeForStatus(status: number): string {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'server_error' : 'invalid_request');
}

const MESSAGE_BY_STATUS: Record<number, string> = {
  400: 'Bad request',
  401: 'Invalid or expired access token',
  402: 'Insufficient funds',
  403: 'Action is not allowed',
  404: 'Not found',
  408: 'Request timeout',
  429: 'Rate limit exceeded',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service temporarily unavailable',
  504: 'Gateway timeout',
};

export function messageForStatus(status: number): string {
  return MESSAGE_BY_STATUS[status] ?? `HTTP ${status}`;
}

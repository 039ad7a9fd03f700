/** Replies, API errors and the wire helpers shared by every route. */
import { closeIfBodyUnread } from '../engine/core/request-body.js';
import type { ServerResponse } from 'node:http';
import { codeForStatus, messageForStatus } from './errors.js';

/** What a handler answers; `json` and `text` are exclusive, neither means an empty body. */
export interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** Thrown by handlers; becomes `{code, message}` with `status`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}



// The error table is the emulator's own (./errors.ts); re-exported for the routes that take it from here.
export { codeForStatus, messageForStatus };

export const badRequest = (message: string): ApiError => new ApiError(400, 'invalid_request', message);
export const unauthorized = (message = 'Invalid or expired access token'): ApiError =>
  new ApiError(401, 'unauthorized_request', message);
export const insufficientFunds = (message: string): ApiError => new ApiError(402, 'insufficient_funds', message);
export const forbidden = (message: string): ApiError => new ApiError(403, 'forbidden_action', message);
export const notFound = (message: string): ApiError => new ApiError(404, 'not_found', message);
export const unavailable = (message: string): ApiError => new ApiError(503, 'service_unavailable', message);

export const json = (status: number, value: unknown, headers?: Record<string, string>): Reply => ({
  status,
  json: value,
  headers,
});
export const text = (status: number, value: string): Reply => ({ status, text: value });
export const empty = (status: number): Reply => ({ status });

/**
 * A bulk action as the API answers it: each item applied in turn, an API error kept as that item's row
 * (any other error is a bug and propagates); 202 when every item succeeded, else 207 with a row per item,
 * `row` naming the item (`{ action, id }`) before its status.
 */
export function bulkReply<T>(items: readonly T[], apply: (item: T) => void, row: (item: T) => Record<string, unknown>): Reply {
  const results = items.map((item) => {
    try {
      apply(item);
      return { ...row(item), status: 'success', statusCode: 202 };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return { ...row(item), status: 'error', error: err.message, statusCode: err.status };
    }
  });
  return results.every((r) => r.status === 'success') ? empty(202) : json(207, results);
}

export function errorReply(status: number, code: string, message: string, headers?: Record<string, string>): Reply {
  return { status, json: { code, message }, headers };
}

export function fromError(err: ApiError): Reply {
  return errorReply(err.status, err.code, err.message, err.headers);
}

/** A reply's headers (with an exact Content-Length) and body, as they go on the wire. */
export function replyWire(reply: Reply): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = { ...(reply.headers ?? {}) };
  let body = '';
  if (reply.json !== undefined) {
    body = JSON.stringify(reply.json);
    headers['Content-Type'] = 'application/json; charset=utf-8';
  } else if (reply.text !== undefined) {
    body = reply.text;
    headers['Content-Type'] = 'text/plain; charset=utf-8';
  }
  headers['Content-Length'] = String(Buffer.byteLength(body));
  return { headers, body };
}

export function sendReply(res: ServerResponse, reply: Reply): void {
  const { headers, body } = replyWire(reply);
  res.writeHead(reply.status, { ...headers, ...closeIfBodyUnread(res) });
  res.end(body);
}

/**
 * cloud_d's client: one signed POST per action (TC3-HMAC-SHA256, engine/core/kits/http/tc3-sign.ts) to
 * `https://<service>.tencentcloudapi.com/` (or the configured base URL), with the HTTP toolkit's
 * guarantees kept here too: the command's deadline on every request and wait, a bounded number of pages
 * (Offset/Limit against TotalCount) and bytes (the result says when it was cut), no redirects, no clear
 * text off this machine. The API answers errors with HTTP 200 and `Response.Error`: AuthFailure.* is
 * `unauthorized`, RequestLimitExceeded is waited out (Retry-After when sent, else 1, 2, 4 s), anything
 * else is one line with its code and the request id.
 */
import { isLoopbackHost } from '../../core/loopback.js';
import { secretFetch, secretOrigins } from '../../core/kits/http/secret-origins.js';
import { abortReason } from '../../core/deadline.js';
import { OperationError, UsageError } from '../../core/errors.js';
import { obj } from '../../core/kits/cli/reads.js';
import { tc3Authorization, TC3_CONTENT_TYPE } from '../../core/kits/http/tc3-sign.js';
import type { CloudDCredentials } from './credentials.js';
import { readBounded } from '../../core/kits/http/body.js';
import { sleep } from '../../core/kits/http/sleep.js';

/** The API version of each service this build may call (the X-TC-Version header). */
export const CLOUD_D_SERVICES: Record<string, string> = { cvm: '2017-03-12', cbs: '2017-03-12', vpc: '2017-03-12', lighthouse: '2020-03-24' };

export interface CloudDClient {
  call(service: string, action: string, body: string, region: string | undefined, signal: AbortSignal): Promise<{ data: unknown; truncated?: string }>;
  credentials: Pick<CloudDCredentials, 'region' | 'source'>;
}

export interface CloudDClientOptions {
  /** All services at one URL (config `cloud_d.base_url`, ASSISTANT_CLOUD_D_BASE_URL, or the sandbox's fake). */
  baseUrl?: string;
  timeoutMs?: number;
  debug?: (line: string) => void;
  maxPages?: number;
  maxBytes?: number;
  /** Seconds since the epoch (tests pin the clock). */
  now?: () => number;
}

const MAX_RETRY_AFTER_S = 120;

function endpoint(service: string, baseUrl: string | undefined): URL {
  const raw = baseUrl ?? `https://${service}.tencentcloudapi.com`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`cloud_d: base_url "${raw}" is not a URL`, { hint: 'set cloud_d.base_url (or ASSISTANT_CLOUD_D_BASE_URL) to https://…' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`cloud_d: base_url must be http(s) (got ${url.protocol})`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`cloud_d: base_url ${url.origin} is plain HTTP to another host, and API keys are configured: the signed requests would travel in clear; nothing was sent`, {
      hint: 'use https:// for cloud_d.base_url (plain http is allowed only to this machine)',
    });
  }
  return new URL('/', url);
}

/** The one array member named `…Set` of a response (InstanceSet, RegionSet), with its name. */
function setOf(response: Record<string, unknown>): string | undefined {
  const keys = Object.keys(response).filter((k) => /Set$/.test(k) && Array.isArray(response[k]));
  return keys.length === 1 ? keys[0] : undefined;
}

export function cloudDClient(creds: CloudDCredentials, opts: CloudDClientOptions = {}): CloudDClient {
  const maxPages = opts.maxPages ?? 10;
  const maxBytes = opts.maxBytes ?? 5 * 1024 * 1024;
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  // Refuse a clear-text base URL at connect time, before any request is signed.
  if (opts.baseUrl) endpoint('cvm', opts.baseUrl);

  async function once(service: string, action: string, body: string, region: string | undefined, signal: AbortSignal, budget: { bytes: number }): Promise<{ response?: Record<string, unknown>; cut?: boolean }> {
    const version = CLOUD_D_SERVICES[service];
    if (!version) throw new UsageError(`cloud_d: unknown service "${service}" (known: ${Object.keys(CLOUD_D_SERVICES).join(', ')})`);
    const url = endpoint(service, opts.baseUrl);
    for (let attempt = 0; ; attempt++) {
      const timestamp = now();
      const headers: Record<string, string> = {
        'content-type': TC3_CONTENT_TYPE,
        'x-tc-action': action,
        'x-tc-version': version,
        'x-tc-timestamp': String(timestamp),
        authorization: tc3Authorization({ secretId: creds.secretId, secretKey: creds.secretKey, service, host: url.hostname, body, timestamp }),
        ...(region ? { 'x-tc-region': region } : {}),
      };
      opts.debug?.(`cloud_d: POST ${url.origin}/ ${service} ${action}${region ? ` (${region})` : ''} ${body.slice(0, 200)}`);
      const perRequest = AbortSignal.any([signal, AbortSignal.timeout(opts.timeoutMs ?? 30_000)]);
      let res: Response;
      try {
        res = await secretFetch(secretOrigins('the cloud_d API keys', [url]))(url, { method: 'POST', headers, body, signal: perRequest });
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        throw new OperationError('http_unreachable', `cloud_d: ${url.origin} did not answer (${(err as Error).message})`, { hint: 'check cloud_d.base_url and the network' });
      }
      const { text, cut } = await readBounded(res, budget, (err) => {
        if (signal.aborted) throw abortReason(signal);
        throw new OperationError('http_unreachable', `cloud_d: ${url.origin} stopped answering in the middle of a response (${err.message})`, { hint: 'check cloud_d.base_url and the network' });
      });
      if (res.status >= 300 && res.status < 400) throw new OperationError('http_redirect_refused', `cloud_d: the server answered ${res.status} (a redirect); redirects are not followed`, { hint: "set cloud_d.base_url to the API's own address" });
      if (cut) return { cut };
      let response: Record<string, unknown> | undefined;
      try {
        response = obj(obj(JSON.parse(text)).Response);
      } catch {
        response = undefined;
      }
      const error = response && obj(response.Error);
      const code = typeof error?.Code === 'string' ? error.Code : undefined;
      const limited = res.status === 429 || (code !== undefined && code.startsWith('RequestLimitExceeded'));
      if (limited && attempt < 3) {
        const header = res.headers.get('retry-after');
        const after = header === null ? Number.NaN : Number(header);
        const waitS = Number.isFinite(after) && after >= 0 ? Math.min(after, MAX_RETRY_AFTER_S) : 2 ** attempt;
        opts.debug?.(`cloud_d: rate limited (${code ?? res.status}); waiting ${waitS} s`);
        await sleep(waitS * 1000, signal);
        continue;
      }
      if (limited) throw new OperationError('rate_limited', `cloud_d: ${action}: still rate limited after waiting three times (${code ?? res.status})`, { hint: 'try again later' });
      const requestId = typeof response?.RequestId === 'string' ? ` (RequestId ${response.RequestId})` : '';
      const message = typeof error?.Message === 'string' ? error.Message.slice(0, 300) : '';
      if (code?.startsWith('AuthFailure') || res.status === 401 || res.status === 403) {
        throw new OperationError('unauthorized', `cloud_d: ${code ?? res.status}: ${message || 'the API keys were not accepted'}${requestId}`, {
          hint: `check the cloud_d API keys (${creds.source}); \`assistant credentials test cloud_d\` checks them`,
        });
      }
      if (code) throw new OperationError('cloud_d_error', `cloud_d: ${service} ${action}${region ? ` in ${region}` : ''}: ${code}: ${message}${requestId}`);
      if (!response || res.status >= 400) throw new OperationError('http_error', `cloud_d: ${service} ${action} answered ${res.status}: ${text.slice(0, 200)}`);
      return { response };
    }
  }

  return {
    credentials: { region: creds.region, source: creds.source },
    async call(service, action, body, stepRegion, signal) {
      // A step without a region reads the configured one (cloud_d.region, default ap-singapore).
      const region = stepRegion ?? creds.region;
      const budget = { bytes: maxBytes };
      const first = await once(service, action, body, region, signal, budget);
      if (first.cut) return { data: null, truncated: `the answer was larger than ${maxBytes} bytes and was not read` };
      const response = first.response!;
      const set = setOf(response);
      // Offset/Limit paging: only a Describe with a TotalCount and one …Set list, only with an object body.
      let request: Record<string, unknown>;
      try {
        request = obj(JSON.parse(body || '{}'));
      } catch {
        request = {};
      }
      if (!set || typeof response.TotalCount !== 'number' || !/^Describe/.test(action)) return { data: response };
      const items = [...(response[set] as unknown[])];
      const total = response.TotalCount;
      const start = typeof request.Offset === 'number' ? request.Offset : 0;
      let pages = 1;
      let last = items.length;
      let truncated: string | undefined;
      while (start + items.length < total && last > 0) {
        if (pages >= maxPages) {
          truncated = `only the first ${maxPages} pages (${items.length} of ${total} items) were read`;
          break;
        }
        const next = JSON.stringify({ ...request, Offset: start + items.length, Limit: typeof request.Limit === 'number' ? request.Limit : last });
        const page = await once(service, action, next, region, signal, budget);
        if (page.cut) {
          truncated = `stopped at ${maxBytes} bytes (${items.length} of ${total} items read)`;
          break;
        }
        const more = page.response?.[set];
        last = Array.isArray(more) ? more.length : 0;
        items.push(...(Array.isArray(more) ? more : []));
        pages++;
      }
      return { data: items, truncated };
    },
  };
}

/**
 * HTTPS to a Kubernetes API server with a kubeconfig context's credentials: the cluster CA (or, with
 * `insecure-skip-tls-verify`, none, said in a warning), the client certificate and key, `tls-server-name`
 * for servers reached by IP, and a bearer token (static, token file or `exec` plugin). One agent per
 * context, built on first use. No kubectl binary is needed.
 */
import { q } from '../../core/render/quote.js';
import { Agent, request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { AssistantError, InvalidInputError, OperationError } from '../../core/errors.js';
import { redactText } from '../../core/redact.js';
import { abortReason, bearerToken, forgetExecToken, resolveTarget, type Kubeconfig, type KubeTarget } from '../../core/kubeconfig/kubeconfig.js';

export interface KubeRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/namespaces/default/pods?limit=500`. */
  path: string;
  body?: string;
  contentType?: string;
  signal?: AbortSignal;
}

export interface KubeResponse {
  status: number;
  /** Parsed JSON, or the text for non-JSON answers (pod logs). */
  data: unknown;
}

/** The API answered with an error status; `status` and the Kubernetes `reason` are kept for callers. */
export class KubeApiError extends OperationError {
  constructor(
    code: string,
    message: string,
    readonly status: number,
    readonly reason: string | undefined,
    hint?: string,
  ) {
    super(code, message, { hint });
  }
}

export interface KubeClientOptions {
  kubeconfig: Kubeconfig;
  env: Record<string, string | undefined>;
  timeoutMs?: number;
  debug?: (line: string) => void;
  warn?: (message: string) => void;
}

interface Connection {
  target: KubeTarget;
  agent: Agent | undefined;
  url: URL;
}

export class KubeClient {
  private readonly connections = new Map<string, Connection>();

  constructor(private readonly opts: KubeClientOptions) {}

  target(context: string): KubeTarget {
    return this.connection(context).target;
  }

  private connection(context: string): Connection {
    let c = this.connections.get(context);
    if (c) return c;
    const target = resolveTarget(this.opts.kubeconfig, context);
    const url = new URL(target.cluster.server);
    let agent: Agent | undefined;
    if (url.protocol === 'https:') {
      const insecure = Boolean(target.cluster.insecureSkipTlsVerify);
      if (insecure) this.opts.warn?.(`context ${q(context)} sets insecure-skip-tls-verify: the API server's certificate is not verified`);
      agent = new Agent({
        keepAlive: true,
        ca: target.cluster.caData,
        cert: target.user.certData,
        key: target.user.keyData,
        rejectUnauthorized: !insecure,
        // Verifies the certificate against this name (and sends it as SNI) when the server is an IP.
        servername: target.cluster.tlsServerName,
      });
    }
    c = { target, agent, url };
    this.connections.set(context, c);
    return c;
  }

  async request(context: string, req: KubeRequest): Promise<KubeResponse> {
    const first = await this.send(context, req);
    // A cached exec token may have been revoked before its expiry: ask the plugin once more.
    if (first.res.statusCode === 401 && this.connection(context).target.user.exec) {
      forgetExecToken(this.connection(context).target.user.exec!);
      return this.finish(context, req, await this.send(context, req));
    }
    return this.finish(context, req, first);
  }

  /** Streams a response body (pod logs with follow) to `onText` until the server closes it or `signal` aborts. */
  async stream(context: string, req: KubeRequest, onText: (text: string) => void): Promise<void> {
    const { res } = await this.send(context, req, true);
    if ((res.statusCode ?? 0) >= 400) {
      const text = await readAll(res);
      throw apiError(res.statusCode ?? 0, text, req);
    }
    res.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      res.on('data', (d: string) => onText(d));
      res.on('end', () => resolve());
      res.on('error', (e) => (req.signal?.aborted ? resolve() : reject(e)));
      res.on('aborted', () => resolve());
      req.signal?.addEventListener('abort', () => {
        res.destroy();
        resolve();
      }, { once: true });
    });
  }

  close(): void {
    for (const c of this.connections.values()) c.agent?.destroy();
  }

  private async finish(context: string, req: KubeRequest, { res, text }: { res: IncomingMessage; text: string }): Promise<KubeResponse> {
    const status = res.statusCode ?? 0;
    this.opts.debug?.(`k8s ${context}: ${req.method} ${req.path} -> ${status}`);
    if (status >= 400) throw apiError(status, text, req);
    const type = String(res.headers['content-type'] ?? '');
    if (type.includes('json') && text) {
      try {
        return { status, data: JSON.parse(text) };
      } catch {
        throw new OperationError('invalid_response', `the API server answered ${req.method} ${req.path} with malformed JSON`);
      }
    }
    return { status, data: text };
  }

  private async send(context: string, req: KubeRequest, streaming = false): Promise<{ res: IncomingMessage; text: string }> {
    const conn = this.connection(context);
    const token = await bearerToken(conn.target.user, this.opts.env, req.signal);
    const headers: Record<string, string> = { Accept: 'application/json, */*', 'User-Agent': 'assistant' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (req.body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(req.body));
    }
    const base = conn.url.pathname.replace(/\/+$/, '');
    const options = {
      method: req.method,
      hostname: conn.url.hostname.replace(/^\[|\]$/g, ''),
      port: conn.url.port || (conn.url.protocol === 'https:' ? 443 : 80),
      path: base + req.path,
      headers,
      agent: conn.agent,
      signal: req.signal,
      timeout: streaming ? undefined : this.opts.timeoutMs ?? 30_000,
    };
    return new Promise((resolve, reject) => {
      const r = (conn.url.protocol === 'https:' ? httpsRequest : httpRequest)(options, (res) => {
        if (streaming) return resolve({ res, text: '' });
        readAll(res).then((text) => resolve({ res, text }), reject);
      });
      r.on('timeout', () => r.destroy(new OperationError('timeout', `the API server of ${q(context)} did not answer ${req.method} ${req.path} within ${(options.timeout ?? 0) / 1000} s`)));
      r.on('error', (err) => reject(abortReason(req.signal, networkError(err, context, conn.target))));
      if (req.body !== undefined) r.write(req.body);
      r.end();
    });
  }
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (d: Buffer) => chunks.push(d));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME|ALTNAME|SSL|EPROTO/;

function networkError(err: unknown, context: string, target: KubeTarget): unknown {
  if (err instanceof AssistantError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e.name === 'AbortError') return err;
  const server = target.cluster.server;
  if (TLS_CODES.test(String(e.code ?? '')) || /certificate|altnames|TLS/i.test(e.message)) {
    return new OperationError('tls_failed', `TLS verification of ${server} (context ${q(context)}) failed: ${redactText(e.message)}`, {
      hint: target.cluster.tlsServerName
        ? `the server certificate must be signed by the kubeconfig's CA and name ${target.cluster.tlsServerName} (tls-server-name)`
        : "the server certificate must be signed by the kubeconfig's certificate-authority; when the server is reached by IP, set tls-server-name to a name in its certificate",
    });
  }
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') {
    return new InvalidInputError('unreachable', `the API server host of context ${q(context)} (${server}) does not resolve`, { hint: 'check the server address in the kubeconfig' });
  }
  return new OperationError('unreachable', `cannot reach the API server of context ${q(context)} (${server}): ${e.code ?? e.message}`, {
    hint: 'check that the cluster is running and reachable from here',
  });
}

/** A Kubernetes `Status` answer as an error with the server's message. */
function apiError(status: number, text: string, req: KubeRequest): KubeApiError {
  let message = '';
  let reason: string | undefined;
  try {
    const body = JSON.parse(text) as { message?: string; reason?: string };
    message = body.message ?? '';
    reason = body.reason;
  } catch {
    message = text.trim().slice(0, 300);
  }
  const what = `${req.method} ${req.path.split('?')[0]}`;
  const detail = message ? `: ${redactText(message)}` : '';
  if (status === 401) return new KubeApiError('unauthorized', `the API server refused the credentials (${what})${detail}`, status, reason, 'the token or client certificate of this context is not accepted; refresh the kubeconfig');
  if (status === 403) return new KubeApiError('forbidden', `not allowed: ${what}${detail}`, status, reason, 'the kubeconfig user lacks RBAC permission for this');
  if (status === 404) return new KubeApiError('not_found', `not found: ${what}${detail}`, status, reason);
  if (status === 409) return new KubeApiError('conflict', `conflict: ${what}${detail}`, status, reason);
  if (status === 422 || status === 400) return new KubeApiError('invalid', `the API server rejected ${what}${detail}`, status, reason);
  return new KubeApiError('api_error', `${what} failed with HTTP ${status}${detail}`, status, reason);
}

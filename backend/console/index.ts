/**
 * The read-only web console at /ui (issue 41 item 2), served by `backend serve` on the same listener
 * (so the same TLS, bind and Host/Origin rules apply: engine/core/kits/serve/guard.ts runs first).
 *
 * - Sign-in exchanges an API key for a short-lived session cookie (./sessions.ts); failed sign-ins count
 *   in the same throttle and audit log as failed API calls.
 * - Every page is HTML rendered here, with no script at all: CSP `default-src 'none'` with only the
 *   console's own stylesheet and forms; every page works without JavaScript.
 * - Read-only by construction: the only POST routes are sign-in and sign-out; nothing here calls the
 *   credential store's writes; the live and drift pages reach a cloud only through read plans (./live.ts,
 *   ./drift.ts: a stored plan is compared, never run).
 * - Cross-site requests are refused: the cookie is SameSite=Strict, a foreign Origin is refused by the
 *   guard, and a request a browser marks `Sec-Fetch-Site: cross-site|same-site` is refused here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLarge, closeIfBodyUnread, readRequestBody } from '../../engine/core/request-body.js';
import { RunIdSchema } from '../../schemas/backend-api.js';
import type { RunHistory } from '../runs.js';
import type { CredentialStore, Principal } from '../store.js';
import type { AuthThrottle } from '../throttle.js';
import { STYLE } from './html.js';
import { readDrift } from './drift.js';
import { readLive, type LiveSettings } from './live.js';
import { driftPage, livePage, messagePage, runPage, runsPage, signInPage } from './pages.js';
import { ConsoleSessions, cookieValue, SESSION_COOKIE } from './sessions.js';

const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const SIGN_IN_BODY_BYTES = 4096;
const PAGE_SIZE = 50;

export interface ConsoleOptions {
  store: CredentialStore;
  runs: RunHistory;
  throttle: AuthThrottle;
  /** Served over TLS: the cookie is Secure. */
  secure: boolean;
  sessionSeconds: number;
  /** How the live and drift pages reach the clouds (the server's configuration, the bound on a read, the drift page's cap). */
  live: LiveSettings;
}

export type ConsoleHandler = (req: IncomingMessage, res: ServerResponse, url: URL, parts: string[], address: string) => Promise<void>;

/** When each request reached the console: its response says how long the server took (Server-Timing; the bench reads it). */
const arrived = new WeakMap<ServerResponse, number>();

function send(res: ServerResponse, status: number, body: string, type = 'text/html; charset=utf-8', headers: Record<string, string> = {}): void {
  const since = arrived.get(res);
  res.writeHead(status, {
    ...(since === undefined ? {} : { 'server-timing': `console;dur=${(performance.now() - since).toFixed(1)}` }),
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    // Not `no-referrer`: under it a browser sends `Origin: null` with the sign-in form's POST, which the
    // guard rightly refuses (a sandboxed frame sends the same); `same-origin` keeps the console's own
    // origin on its own requests and still sends nothing to another site.
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    ...closeIfBodyUnread(res),
    ...headers,
  });
  res.end(body);
}

const redirect = (res: ServerResponse, to: string, headers: Record<string, string> = {}) => send(res, 303, '', 'text/plain', { location: to, ...headers });

const whoOf = (p: Principal) => ({ tenant: p.tenant, who: p.label || p.prefix });

export function createConsole(opts: ConsoleOptions): ConsoleHandler {
  const sessions = new ConsoleSessions(opts.sessionSeconds);
  const cookie = (value: string, maxAge: number) =>
    `${SESSION_COOKIE}=${value}; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${opts.secure ? '; Secure' : ''}`;

  /** The signed-in principal, if the session is live and its key still is (a revoked key ends its sessions). */
  const principalOf = async (req: IncomingMessage): Promise<Principal | undefined> => {
    const id = cookieValue(req.headers.cookie, SESSION_COOKIE);
    const p = sessions.find(id);
    if (!p) return undefined;
    if (!(await opts.store.keyIsLive(p.prefix))) {
      sessions.close(id);
      return undefined;
    }
    return p;
  };

  return async (req, res, url, parts, address) => {
    arrived.set(res, performance.now());
    const method = req.method ?? 'GET';
    const site = String(req.headers['sec-fetch-site'] ?? '');
    if (site === 'cross-site' || site === 'same-site') {
      req.resume();
      return send(res, 403, messagePage('Refused', 'A request from another site is refused.'));
    }
    const route = parts.slice(1).join('/');
    if (method === 'GET' && route === 'style.css') return send(res, 200, STYLE, 'text/css; charset=utf-8', { 'cache-control': 'max-age=300' });
    if (method === 'POST' && route === 'sign-in') return signIn(req, res, address);
    if (method === 'POST' && route === 'sign-out') {
      req.resume();
      sessions.close(cookieValue(req.headers.cookie, SESSION_COOKIE));
      return redirect(res, '/ui', { 'set-cookie': cookie('', 0) });
    }
    if (method !== 'GET' && method !== 'HEAD') {
      req.resume();
      return send(res, 405, messagePage('Not allowed', 'The console only reads.'), undefined, { allow: 'GET' });
    }
    const who = await principalOf(req);
    if (route === '') return who ? redirect(res, '/ui/runs') : send(res, 200, signInPage());
    if (!who) return redirect(res, '/ui', { 'set-cookie': cookie('', 0) });
    if (route === 'runs' || route === 'live' || route === 'drift') {
      const wanted = url.searchParams.get('env');
      const env = wanted && who.envs.includes(wanted) ? wanted : who.envs.includes('production') ? 'production' : who.envs[0]!;
      if (wanted && wanted !== env) return send(res, 403, messagePage('Not allowed', `This key may read ${who.envs.join(', ')}, not ${wanted}.`, whoOf(who)));
      if (route === 'drift') {
        const view = await readDrift(opts.store, opts.runs, who, env, address, opts.live);
        return send(res, 200, driftPage({ who: whoOf(who), env, envs: who.envs, ...view }));
      }
      if (route === 'live') {
        const providers = await readLive(opts.store, who, env, address, opts.live);
        return send(res, 200, livePage({ who: whoOf(who), env, envs: who.envs, providers }));
      }
      const before = url.searchParams.get('before') ?? undefined;
      const runs = await opts.runs.list(who.tenant, who.envs, { env, limit: PAGE_SIZE + 1, before: before && !Number.isNaN(Date.parse(before)) ? before : undefined });
      const [trend, byProvider] = await Promise.all([opts.runs.trend(who.tenant, env, 30), opts.runs.burnByProvider(who.tenant, env)]);
      const shown = runs.slice(0, PAGE_SIZE);
      return send(res, 200, runsPage({ who: whoOf(who), env, envs: who.envs, runs: shown, next: runs.length > PAGE_SIZE ? shown[shown.length - 1]!.started_at : undefined, trend, byProvider }));
    }
    if (parts.length === 3 && parts[1] === 'runs' && RunIdSchema.safeParse(parts[2]).success) {
      const run = await opts.runs.get(who.tenant, who.envs, parts[2]!);
      if (!run) return send(res, 404, messagePage('Not found', 'No such run in your history.', whoOf(who)));
      return send(res, 200, runPage(whoOf(who), run, await opts.runs.previous(who.tenant, run)));
    }
    return send(res, 404, messagePage('Not found', 'No such page.', whoOf(who)));
  };

  async function signIn(req: IncomingMessage, res: ServerResponse, address: string): Promise<void> {
    const wait = opts.throttle.waitFor(address);
    if (wait > 0) {
      req.resume();
      return send(res, 429, signInPage(`Too many failed sign-ins from this address; try again in ${Math.ceil(wait / 1000)} s.`), undefined, { 'retry-after': String(Math.ceil(wait / 1000)) });
    }
    if (!/^application\/x-www-form-urlencoded\b/i.test(String(req.headers['content-type'] ?? ''))) {
      req.resume();
      return send(res, 415, signInPage('Sign in with the form.'));
    }
    let body: Buffer;
    try {
      body = await readRequestBody(req, SIGN_IN_BODY_BYTES);
    } catch (err) {
      if (err instanceof BodyTooLarge) return send(res, 413, signInPage('That is not an API key.'));
      throw err;
    }
    const key = new URLSearchParams(body.toString('utf8')).get('key')?.trim() ?? '';
    const result = await opts.store.authenticate(key);
    if (!result.ok) {
      opts.throttle.failed(address);
      await opts.store.authFailed(address, result.reason, result.prefix);
      return send(res, 401, signInPage(result.reason === 'revoked' ? 'This API key was revoked.' : 'Unknown API key.'));
    }
    const id = sessions.open(result.principal);
    return redirect(res, '/ui/runs', { 'set-cookie': cookie(id, opts.sessionSeconds) });
  }
}

/**
 * The HTTP(S) server under every server we ship (mcp, box serve, backend serve): listening, time and
 * connection bounds, and a graceful stop. Routes and the guard (guard.ts) are the server's own.
 *
 * Slow clients (slowloris): a connection is *unproven* until a request on it passes the server's guard
 * (`prove`). An unproven connection is closed after `unprovenMs`, and there may be at most
 * `maxUnprovenPerAddress` of them per client address and `maxConnections` connections in all; a new
 * connection over a limit closes the *oldest unproven* one instead of being refused, so hundreds of
 * half-sent requests cannot lock out a client that sends a whole request with its token: its
 * connection takes the place of the oldest idler, and once it is proven it is out of reach of the
 * eviction. Only when every connection is proven is a new one refused.
 *
 * Everyone: headers within `headersTimeoutMs`, a whole request (upload included) within
 * `requestTimeoutMs`, idle keep-alive connections closed after 5 s; Node checks these every second.
 */
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { listenError } from '../../listen.js';

export interface ServeLimits {
  /** Headers of a request must arrive within this (default 10 s). */
  headersTimeoutMs?: number;
  /** A whole request, body included (default 30 s). */
  requestTimeoutMs?: number;
  /** A connection that no request has proven yet is closed after this (default 10 s). */
  unprovenMs?: number;
  /**
   * Unproven connections per client address at most (default 128). A connection is unproven from its
   * accept until its first request is parsed, so an agent opening 50 connections at once has 50 unproven
   * ones for a moment: the bound must stay above what one legitimate client opens in one go.
   */
  maxUnprovenPerAddress?: number;
  /** Connections at most (default 512). */
  maxConnections?: number;
}

export const SERVE_DEFAULTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, unprovenMs: 10_000, maxUnprovenPerAddress: 128, maxConnections: 512 } as const;

export interface ServeOptions {
  host: string;
  port: number;
  tls?: { cert: Buffer; key: Buffer };
  limits?: ServeLimits;
  handler: RequestListener;
  log?: (line: string) => void;
}

export interface Served {
  server: Server;
  port: number;
  /** `http(s)://host:port` (IPv6 in brackets). */
  url: string;
  /** This request passed the guard: its connection is no longer unproven. */
  prove(req: IncomingMessage): void;
  /** Requests being answered now. */
  inFlight(): number;
  /** Connections open now, and how many of them are unproven (for tests and --debug). */
  connections(): { open: number; unproven: number };
  /** Stops taking connections and closes the idle ones; requests in flight go on. */
  stopAccepting(): void;
  /**
   * Stops taking connections, lets requests in flight finish for up to `drainMs`, then closes every
   * connection; resolves when the server is closed. Safe to call twice.
   */
  stop(drainMs?: number): Promise<void>;
}

interface Tracked {
  address: string;
  timer: NodeJS.Timeout;
}

export async function serve(opts: ServeOptions): Promise<Served> {
  const limits = { ...SERVE_DEFAULTS, ...definedOnly(opts.limits ?? {}) };
  const options = { connectionsCheckingInterval: 1_000, headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, keepAliveTimeout: 5_000 };
  let inFlight = 0;
  let onIdle: (() => void) | undefined;
  const handler: RequestListener = (req, res) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (inFlight === 0) onIdle?.();
    });
    opts.handler(req, res);
  };
  const server: Server = opts.tls ? createHttpsServer({ ...options, cert: opts.tls.cert, key: opts.tls.key, handshakeTimeout: limits.unprovenMs }, handler) : createHttpServer(options, handler);
  server.maxHeadersCount = 100;

  // Every connection, oldest first; the unproven ones also per address (Map keeps insertion order).
  const open = new Set<Socket>();
  const unproven = new Map<Socket, Tracked>();
  const byAddress = new Map<string, Set<Socket>>();
  const forget = (socket: Socket): void => {
    const t = unproven.get(socket);
    if (!t) return;
    clearTimeout(t.timer);
    unproven.delete(socket);
    const mine = byAddress.get(t.address);
    mine?.delete(socket);
    if (mine?.size === 0) byAddress.delete(t.address);
  };
  const evict = (socket: Socket | undefined): boolean => {
    if (!socket) return false;
    forget(socket);
    socket.destroy();
    return true;
  };
  const onConnection = (socket: Socket): void => {
    const address = (socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
    const mine = byAddress.get(address);
    if (mine && mine.size >= limits.maxUnprovenPerAddress) evict(mine.values().next().value);
    if (open.size >= limits.maxConnections && !evict(unproven.keys().next().value)) {
      opts.log?.(`connection from ${address} refused: ${open.size} connections, all proven`);
      socket.destroy();
      return;
    }
    open.add(socket);
    const timer = setTimeout(() => evict(socket), limits.unprovenMs);
    timer.unref();
    unproven.set(socket, { address, timer });
    if (mine && byAddress.has(address)) mine.add(socket);
    else byAddress.set(address, new Set([socket]));
    socket.once('close', () => {
      forget(socket);
      open.delete(socket);
    });
  };
  // For TLS the socket requests arrive on is the TLS socket: track that one (the handshake is bounded by handshakeTimeout).
  server.on(opts.tls ? 'secureConnection' : 'connection', onConnection);

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, opts.host, opts.port)));
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = opts.host.includes(':') && !opts.host.startsWith('[') ? `[${opts.host}]` : opts.host;

  let closed: Promise<void> | undefined;
  const stopAccepting = (): void => {
    closed ??= new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
  };
  let stopping: Promise<void> | undefined;
  const stop = async (drainMs = 10_000): Promise<void> => {
    stopAccepting();
    if (inFlight > 0 && drainMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, drainMs);
        onIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    server.closeAllConnections();
    for (const s of open) s.destroy();
    await closed;
  };

  return {
    server,
    port,
    url: `${opts.tls ? 'https' : 'http'}://${hostInUrl}:${port}`,
    prove: (req) => forget(req.socket),
    inFlight: () => inFlight,
    stopAccepting,
    connections: () => ({ open: open.size, unproven: unproven.size }),
    stop: (drainMs) => (stopping ??= stop(drainMs)),
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

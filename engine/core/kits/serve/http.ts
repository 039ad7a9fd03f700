/**
 * The HTTP(S) server under every server we ship (mcp, box serve, backend serve): listening, time and
 * connection bounds, and a graceful stop. Routes and the guard (guard.ts) are the server's own.
 *
 * Slow clients (slowloris): a connection is *unproven* until a request on it passes the server's guard
 * (`prove`). An unproven connection is closed after `unprovenMs`, and there may be at most
 * `maxUnprovenPerAddress` of them per client address and `maxConnections` connections in all; over a
 * limit the *oldest unproven idler* is closed instead of refusing anyone, so hundreds of half-sent
 * requests cannot lock out a client that sends a whole request with its token: once proven, its
 * connection takes the place of the oldest idlers of its address and is out of reach of the eviction.
 * Only when every connection is proven or busy is a new one refused.
 *
 * An idler is an unproven connection with no request being answered: a request whose head arrived is
 * never cut (its time is bounded by `requestTimeoutMs`; a backend request waiting for its key to be
 * checked is one). Within an address, a connection the server has read nothing from is no idler
 * either: a client opening 100 connections at once has sent none of its requests when the server
 * accepts them (or the server, busy with the first, has not read them yet); closing those to make room
 * lost legitimate stores (backend durability: 100 concurrent stores from one client). Silent
 * connections are closed by the unproven timer, or as the oldest unproven when the server is full.
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
  /** Unproven connections per client address at most (default 32; see idlers above). */
  maxUnprovenPerAddress?: number;
  /** Connections at most (default 512). */
  maxConnections?: number;
}

export const SERVE_DEFAULTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, unprovenMs: 10_000, maxUnprovenPerAddress: 32, maxConnections: 512 } as const;

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
  // Connections with a request being answered: never evicted (their time is bounded by requestTimeout).
  const busy = new Map<Socket, number>();
  const handler: RequestListener = (req, res) => {
    inFlight++;
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      inFlight--;
      const left = (busy.get(socket) ?? 1) - 1;
      if (left > 0) busy.set(socket, left);
      else busy.delete(socket);
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
  /**
   * The oldest idler among `sockets`: unproven, no request being answered, and (unless `silentToo`) it
   * sent something: a half-sent head, or a request that proved nothing. A connection the server has
   * read nothing from may hold a whole request the server has not got to yet (pglite's queries run on
   * the event loop: a burst of 100 requests waits seconds to be read); only the overall limit and the
   * unproven timer close those.
   */
  const oldestIdler = (sockets: Iterable<Socket>, silentToo = false): Socket | undefined => {
    for (const s of sockets) {
      if (unproven.has(s) && !busy.has(s) && (silentToo || s.bytesRead > 0)) return s;
    }
    return undefined;
  };
  /** Closes the oldest idlers of `address` until at most `keep` unproven connections of it are left. */
  const trim = (address: string, keep: number): void => {
    const mine = byAddress.get(address);
    while (mine && mine.size > keep && evict(oldestIdler(mine)));
  };
  const onConnection = (socket: Socket): void => {
    const address = (socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
    const mine = byAddress.get(address);
    if (mine && mine.size >= limits.maxUnprovenPerAddress) evict(oldestIdler(mine));
    if (open.size >= limits.maxConnections && !evict(oldestIdler(unproven.keys(), true))) {
      opts.log?.(`connection from ${address} refused: ${open.size} connections, all proven or answering a request`);
      socket.destroy();
      return;
    }
    open.add(socket);
    // A request being answered is bounded by requestTimeout: look again once it is done.
    const expire = (): void => {
      if (!busy.has(socket)) return void evict(socket);
      const t = unproven.get(socket);
      if (t) (t.timer = setTimeout(expire, limits.unprovenMs)).unref();
    };
    const timer = setTimeout(expire, limits.unprovenMs);
    timer.unref();
    unproven.set(socket, { address, timer });
    if (mine && byAddress.has(address)) mine.add(socket);
    else byAddress.set(address, new Set([socket]));
    socket.once('close', () => {
      forget(socket);
      open.delete(socket);
      busy.delete(socket);
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
    prove: (req) => {
      const address = unproven.get(req.socket)?.address;
      forget(req.socket);
      // A client that proved itself takes the place of the oldest idlers of its address.
      if (address !== undefined) trim(address, limits.maxUnprovenPerAddress);
    },
    inFlight: () => inFlight,
    stopAccepting,
    connections: () => ({ open: open.size, unproven: unproven.size }),
    stop: (drainMs) => (stopping ??= stop(drainMs)),
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

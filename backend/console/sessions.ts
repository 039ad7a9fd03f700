/**
 * Console sessions: an API key is exchanged once, at sign-in, for a random session id (256 bits) that
 * the browser keeps in an HttpOnly, SameSite=Strict cookie (Secure under TLS). The key itself is never
 * stored, neither in the browser nor here: the server keeps the key's principal and prefix, and
 * checks on every request that the key was not revoked since. Only the SHA-256 of a session id is kept,
 * so a memory dump does not hand out live cookies. Sessions live in this process's memory: a restart
 * signs everyone out, and each of several servers has its own (sign in again after a failover).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Principal } from '../store.js';

export const SESSION_COOKIE = 'asb_console';
/** A session lasts this long from sign-in, whatever is done with it (ASSISTANT_BACKEND_UI_SESSION_SECONDS). */
export const DEFAULT_SESSION_SECONDS = 30 * 60;
const MAX_SESSIONS = 10_000;

interface Held {
  principal: Principal;
  expiresAt: number;
}

const digest = (id: string) => createHash('sha256').update(id).digest('hex');

export class ConsoleSessions {
  private readonly held = new Map<string, Held>();

  constructor(readonly ttlSeconds: number) {}

  /** A new session for a principal; returns the id the cookie carries. */
  open(principal: Principal): string {
    this.sweep();
    if (this.held.size >= MAX_SESSIONS) this.held.delete(this.held.keys().next().value!);
    const id = randomBytes(32).toString('base64url');
    this.held.set(digest(id), { principal, expiresAt: Date.now() + this.ttlSeconds * 1000 });
    return id;
  }

  /** The principal of a live session, or undefined (unknown, forged, expired: all the same to the caller). */
  find(id: string | undefined): Principal | undefined {
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
    const key = digest(id);
    const held = this.held.get(key);
    if (!held) return undefined;
    if (held.expiresAt <= Date.now()) {
      this.held.delete(key);
      return undefined;
    }
    return held.principal;
  }

  close(id: string | undefined): void {
    if (id) this.held.delete(digest(id));
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, v] of this.held) if (v.expiresAt <= now) this.held.delete(k);
  }
}

export function sessionSecondsFrom(env: Record<string, string | undefined>): number {
  const n = Number(env.ASSISTANT_BACKEND_UI_SESSION_SECONDS);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 12 * 3600) : DEFAULT_SESSION_SECONDS;
}

/** The cookie named `name` from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

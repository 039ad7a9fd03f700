/**
 * Sliding-window rate limits (SPEC 8): per project (every authenticated /v1 request) and per
 * method + path without query. Only accepted requests occupy a slot, so Retry-After is exact.
 */
import type { RateLimitOptions } from './types.js';

export type LimitResult = { ok: true } | { ok: false; retryAfterSec: number; message: string };

export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly cfg: RateLimitOptions) {}

  check(method: string, path: string, now: number): LimitResult {
    const project = this.window('project', now);
    const route = this.window(`${method} ${path}`, now);
    let waitMs = 0;
    let message = '';
    const windowSec = Math.max(1, Math.round(this.cfg.windowMs / 1000));
    if (project.length >= this.cfg.perProject) {
      waitMs = Math.max(waitMs, project[project.length - this.cfg.perProject] + this.cfg.windowMs - now);
      message = `Rate limit exceeded: at most ${this.cfg.perProject} requests per ${windowSec} seconds per project`;
    }
    if (route.length >= this.cfg.perPath) {
      waitMs = Math.max(waitMs, route[route.length - this.cfg.perPath] + this.cfg.windowMs - now);
      message = `Rate limit exceeded: at most ${this.cfg.perPath} requests per ${windowSec} seconds for ${method} ${path}`;
    }
    if (message) return { ok: false, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)), message };
    project.push(now);
    route.push(now);
    return { ok: true };
  }

  reset(): void {
    this.hits.clear();
  }

  private window(key: string, now: number): number[] {
    let list = this.hits.get(key);
    if (!list) {
      list = [];
      this.hits.set(key, list);
    }
    const cutoff = now - this.cfg.windowMs;
    let drop = 0;
    while (drop < list.length && list[drop] <= cutoff) drop++;
    if (drop) list.splice(0, drop);
    return list;
  }
}

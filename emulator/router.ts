/** The route table: `{method, path, handler}` rows, matched in order (first match wins). */
import type { Reply } from './http.js';
import type { Store } from './state.js';
import type { ResolvedOptions } from './types.js';

export interface Ctx {
  method: string;
  /** Normalised path without query. */
  path: string;
  query: URLSearchParams;
  params: Record<string, string>;
  /** Parsed JSON (or form) body; undefined when the body is empty. */
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  now: number;
  store: Store;
  opts: ResolvedOptions;
}

export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

export interface RouteDef {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Template with `{param}` segments, e.g. `/v1/instances/{id}`. */
  path: string;
  handler: Handler;
  /** Bearer token and rate limits apply unless false (the token endpoint). */
  auth?: boolean;
}

interface Compiled {
  route: RouteDef;
  re: RegExp;
  names: string[];
}

export interface RouteMatch {
  route: RouteDef;
  params: Record<string, string>;
}

export class Router {
  private readonly compiled: Compiled[];

  constructor(routes: RouteDef[]) {
    this.compiled = routes.map((route) => {
      const names: string[] = [];
      const pattern = route.path
        .split('/')
        .map((seg) => {
          const m = /^\{(\w+)\}$/.exec(seg);
          if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(m[1]);
          return '([^/]+)';
        })
        .join('/');
      return { route, re: new RegExp(`^${pattern}$`), names };
    });
  }

  match(method: string, path: string): RouteMatch | undefined {
    for (const c of this.compiled) {
      if (c.route.method !== method) continue;
      const m = c.re.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      c.names.forEach((n, i) => {
        params[n] = safeDecode(m[i + 1]);
      });
      return { route: c.route, params };
    }
    return undefined;
  }

  /** Every template, for tests. */
  paths(): string[] {
    return this.compiled.map((c) => `${c.route.method} ${c.route.path}`);
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Folds repeated slashes and drops a trailing slash. */
export function normalizePath(pathname: string): string {
  let p = pathname.replace(/\/{2,}/g, '/');
  if (p.length > 1) p = p.replace(/\/+$/, '');
  return p || '/';
}

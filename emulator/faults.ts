/** Injected faults: matched in insertion order, each counting down its `times`. */
import { codeForStatus, errorReply, messageForStatus, type Reply } from './http.js';
import type { FaultSpec } from './types.js';

export class FaultList {
  private faults: { spec: FaultSpec; left: number }[] = [];

  add(spec: FaultSpec): void {
    if (!spec || typeof spec.path !== 'string' || !spec.path) throw new Error('fault needs a path');
    const times = spec.times ?? 1;
    this.faults.push({ spec: { ...spec }, left: times < 0 ? Infinity : times });
  }

  clear(): void {
    this.faults = [];
  }

  size(): number {
    return this.faults.length;
  }

  /** Takes the first matching fault (consuming one use), if any. */
  take(method: string, path: string): FaultSpec | undefined {
    for (let i = 0; i < this.faults.length; i++) {
      const f = this.faults[i];
      if (f.left <= 0) continue;
      if (f.spec.method && f.spec.method.toUpperCase() !== method) continue;
      if (!pathMatches(f.spec.path, path)) continue;
      f.left--;
      if (f.left <= 0) this.faults.splice(i, 1);
      return f.spec;
    }
    return undefined;
  }
}

function pathMatches(pattern: string, path: string): boolean {
  const p = pattern.split('?')[0];
  if (p.endsWith('*')) return path.startsWith(p.slice(0, -1));
  return p === path || p.replace(/\/+$/, '') === path;
}

/** What the fault answers instead of (or after) the real handler. Undefined: only a delay. */
export function faultReply(f: FaultSpec): Reply | 'reset' | undefined {
  if (f.reset) return 'reset';
  if (f.status === undefined && (f.delayMs || f.until)) return undefined;
  const status = f.status ?? 500;
  const headers: Record<string, string> = {};
  if (f.retryAfter !== undefined) headers['Retry-After'] = String(f.retryAfter);
  return errorReply(status, f.code ?? codeForStatus(status), f.message ?? messageForStatus(status), headers);
}

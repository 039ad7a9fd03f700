/**
 * Kubernetes resource quantities (`250m`, `1.5`, `123456Ki`, `1Gi`, `2e3`, `12345n`) as plain numbers:
 * cores for CPU, bytes for memory. Undefined for text that is not a quantity.
 */
const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export function parseQuantity(text: unknown): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  if (typeof text !== 'string') return undefined;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/.exec(text.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[2]) return Number(m[1] + m[2]);
  return base * SUFFIX[m[3] ?? '']!;
}

/** Cores as kubectl top shows them: `250m` below 10 cores, whole cores above. */
export function formatCores(cores: number): string {
  return cores < 10 ? `${Math.round(cores * 1000)}m` : `${Math.round(cores)}`;
}

/** Bytes as `512Mi` / `3.2Gi`. */
export function formatBytes(bytes: number): string {
  const units = ['Ki', 'Mi', 'Gi', 'Ti'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 || unit < 2 ? Math.round(value) : value.toFixed(1)}${units[unit]}`;
}

/** `30s`, `10m`, `2h`, `1h30m`, `1d` as seconds; undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (!/^(\d+(?:\.\d+)?[smhd])+$/.test(t)) return undefined;
  let total = 0;
  for (const [, n, u] of t.matchAll(/(\d+(?:\.\d+)?)([smhd])/g)) total += Number(n) * { s: 1, m: 60, h: 3600, d: 86_400 }[u as 's' | 'm' | 'h' | 'd'];
  return total > 0 ? Math.ceil(total) : undefined;
}

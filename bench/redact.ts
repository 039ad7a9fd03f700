/**
 * Redaction benchmark (issue 10 §4): redactValue over 3,000 instance records, as the MCP server does
 * for every list result, versus the previous deep-copy walk (kept here verbatim for comparison). A few
 * secrets are registered, as in a real process (client secret, access and refresh token, an AI key).
 * Median of interleaved repeats; also the retained heap of one result.
 *
 * Then the masker and the sanitiser (issue 36 §6): maskSecretLooking over the same records (what the
 * CLI's tables and MCP's results pay), and maskSecretsInText, redactText and stripControls over single
 * 200 KB lines without a blank, shaped to make a backtracking pattern go quadratic. BENCH_REDACT_FROM=
 * <a dist/ directory> times that build's masker beside this one (the sanitiser is new: this build's only).
 */
import { maskSecretLooking, maskSecretsInText, redactText, redactValue, registerSecret } from '../engine/core/redact.js';
import { stripControls } from '../engine/core/render/sanitise.js';

const SECRET_KEY = /(client_secret|clientSecret|access_token|refresh_token|api_key|apiKey|auth_token|authToken|router_api_key|secret_key|password|token)/i;

/** The implementation before copy-on-write: a deep copy of every record. */
function deepCopyRedact<T>(value: T): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') return key && SECRET_KEY.test(key) && v ? '***' : redactText(v);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x, k)]));
    }
    return v;
  };
  return walk(value) as T;
}

function instance(i: number) {
  const hex = i.toString(16).padStart(12, '0');
  return {
    id: `0b6e4c1a-2f3d-4e5a-9b8c-${hex}`,
    hostname: `train-node-${i}`,
    description: `training node ${i}`,
    status: i % 3 ? 'running' : 'offline',
    ip: `203.0.${(i >> 8) & 255}.${i & 255}`,
    instance_type: '1A100.22V',
    cpu: { description: '22 CPU', number_of_cores: 22 },
    gpu: { description: '1x A100 SXM4 80GB', number_of_gpus: 1 },
    memory: { description: '120GB RAM', size_in_gigabytes: 120 },
    gpu_memory: { description: '80GB GPU RAM', size_in_gigabytes: 80 },
    storage: { description: 'Dynamic' },
    os_volume_id: `1c7f5d2b-3a4e-4f6b-8c9d-${hex}`,
    volume_ids: [`4fac8a5e-6d7b-4c9e-9fc0-${hex}`],
    ssh_key_ids: ['7d4b1c2e-0f3a-4b5c-8d6e-9f0a1b2c3d4e'],
    startup_script_id: null,
    location: 'FIN-01',
    image: 'ubuntu-24.04-cuda-12.8-open-docker',
    os_name: 'Ubuntu 24.04',
    price_per_hour: '1.29',
    is_spot: false,
    contract: 'PAY_AS_YOU_GO',
    pricing: 'FIXED_PRICE',
    created_at: '2026-11-01T10:00:00.000Z',
    tags: [{ key: 'team', value: 'ml' }],
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export function runRedactBench(): void {
  for (const s of ['bench-client-secret-0123456789', 'bench-access-token-abcdefghijkl', 'bench-refresh-token-mnopqrstuv', 'sk-bench-ai-key-0123456789']) registerSecret(s);
  const records = Array.from({ length: 3000 }, (_, i) => instance(i));
  const time = (fn: () => unknown) => {
    const t = performance.now();
    fn();
    return performance.now() - t;
  };
  // Warm up both, then interleave so machine noise hits both alike.
  for (let i = 0; i < 5; i++) {
    deepCopyRedact(records);
    redactValue(records);
  }
  const before: number[] = [];
  const after: number[] = [];
  for (let i = 0; i < 21; i++) {
    before.push(time(() => deepCopyRedact(records)));
    after.push(time(() => redactValue(records)));
  }
  const b = median(before);
  const a = median(after);
  const same = redactValue(records) === records;
  console.log(
    `redact 3,000 instance records (median of 21): deep copy ${b.toFixed(1)} ms vs copy-on-write ${a.toFixed(1)} ms ` +
      `(${(b / a).toFixed(1)}× faster); nothing to mask → the same array is returned: ${same}`,
  );
}

type Masker = { maskSecretLooking: typeof maskSecretLooking; maskSecretsInText: typeof maskSecretsInText; redactText: typeof redactText; registerSecret: typeof registerSecret };

/** Lines of 200 KB without a blank: the shapes that make a pattern with nested stars backtrack. */
export function hostileLines(): [string, string][] {
  const n = 200_000;
  return [
    ['letters', 'a'.repeat(n)],
    ['KEY repeated', 'KEY'.repeat(n / 3)],
    ['key_ repeated, then =', 'key_'.repeat(n / 4) + '=x'],
    ['dotted words with :// and @', 'a.'.repeat(n / 2) + '://x@y'],
    ['base64 blob', Buffer.from('x'.repeat((n * 3) / 4)).toString('base64')],
    ['password and quotes', "password '".repeat(n / 10)],
    ['dollar quotes', 'PASSWORD $a$'.repeat(n / 12)],
    ['set_config cut short', "set_config('".repeat(n / 12)],
    ['E-strings cut short', "password E'\\".repeat(n / 12)],
    ['upper-case words with =', 'A_KEY_'.repeat(n / 6) + '='],
    ['escape sequences', 'ab\u001b[1mcd'.repeat(n / 8)],
  ];
}

export async function runMaskerBench(): Promise<void> {
  const time = (fn: () => unknown) => {
    const t = performance.now();
    fn();
    return performance.now() - t;
  };
  const builds: [string, Masker][] = [['this build', { maskSecretLooking, maskSecretsInText, redactText, registerSecret }]];
  const from = process.env.BENCH_REDACT_FROM;
  if (from) builds.unshift([`${from}`, (await import(`${from.replace(/\/$/, '')}/engine/core/redact.js`)) as Masker]);
  const records = Array.from({ length: 3000 }, (_, i) => ({ ...instance(i), startup_script: i % 50 ? null : `#!/bin/sh\nexport HF_TOKEN=hf_${'x'.repeat(30)}\necho ${i}` }));
  for (const [label, m] of builds) {
    m.registerSecret('bench-client-secret-0123456789');
    for (let i = 0; i < 3; i++) m.maskSecretLooking(records);
    const table = median(Array.from({ length: 11 }, () => time(() => m.maskSecretLooking(records))));
    console.log(`masker (${label}): maskSecretLooking over 3,000 instance records ${table.toFixed(1)} ms (median of 11)`);
    for (const [name, line] of hostileLines()) {
      const mask = median(Array.from({ length: 3 }, () => time(() => m.maskSecretsInText(line))));
      const redact = median(Array.from({ length: 3 }, () => time(() => m.redactText(line))));
      console.log(`  200 KB line, ${name}: maskSecretsInText ${mask.toFixed(1)} ms, redactText ${redact.toFixed(1)} ms`);
    }
  }
  for (const [name, line] of hostileLines()) {
    const strip = median(Array.from({ length: 3 }, () => time(() => stripControls(line))));
    console.log(`  200 KB line, ${name}: stripControls ${strip.toFixed(1)} ms`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runRedactBench();
  await runMaskerBench();
}

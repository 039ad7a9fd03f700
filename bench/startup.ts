/**
 * Start-up benchmark (issue: foundation): median wall time of `assistant --version` and of a sandbox list,
 * side by side with `node -e 0` in the same run. Target: --version within 1.5× of node -e 0.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = new URL('../../bin/assistant.js', import.meta.url).pathname;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(args: string[], env: NodeJS.ProcessEnv): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'ignore'] });
  if (r.status !== 0) throw new Error(`benchmark command failed: node ${args.join(' ')}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export function runStartupBench(runs = 21): void {
  const home = mkdtempSync(join(tmpdir(), 'assistant-bench-'));
  const env = { ...process.env, HOME: home, NO_COLOR: '1' };
  const cases: [string, string[]][] = [
    ['node -e 0', ['-e', '0']],
    ['assistant --version', [bin, '--version']],
    ['assistant --sandbox gpucloud list instances -o json', [bin, '--sandbox', 'gpucloud', 'list', 'instances', '-o', 'json']],
  ];
  for (const [, args] of cases) time(args, env); // warm the file cache
  const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  // Interleave the cases so machine noise hits them alike.
  for (let i = 0; i < runs; i++) for (const [name, args] of cases) samples.get(name)!.push(time(args, env));
  const base = median(samples.get('node -e 0')!);
  console.log(`startup (median of ${runs} runs, interleaved)`);
  for (const [name] of cases) {
    const m = median(samples.get(name)!);
    console.log(`  ${name.padEnd(52)} ${m.toFixed(1).padStart(7)} ms   ${(m / base).toFixed(2)}× node -e 0`);
  }
  const ratio = median(samples.get('assistant --version')!) / base;
  console.log(`  --version target ≤ 1.50×: ${ratio <= 1.5 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}×)`);
}

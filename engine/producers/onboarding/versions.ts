/**
 * Is a tool on PATH, where, and which version: each probe runs the tool's version command with an
 * allowlisted environment, bounded in time; a few at once (gcloud and az start a Python each).
 */
import { childEnvironment } from '../../core/process/child-env.js';
import { findOnPath } from './platform.js';
import { runChild } from '../../core/process/run-child.js';
import type { ToolSpec } from './tools.js';

export interface ToolProbe {
  name: string;
  found: boolean;
  path?: string;
  version?: string;
  minVersion?: string;
  /** Whether the version meets the minimum; null when there is none or the version is unknown. */
  versionOk: boolean | null;
  problem?: string;
}

/** `aws-cli/2.15.0 Python/3.11`, `OpenSSH_9.2p1`, `Client Version: v1.31.0` → the first dotted number. */
export function parseVersion(text: string): string | undefined {
  // Not inside a longer number (`x86_64`, `1.2.3.4` dates): a digit or dot may not come right before it.
  const m = /(?<![\d.])(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (!m) return undefined;
  return [m[1], m[2], m[3]].filter((x) => x !== undefined).join('.');
}

/** Numeric comparison of dotted versions (missing parts are 0): negative, zero or positive. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export interface ProbeOptions {
  env: Record<string, string | undefined>;
  timeoutMs: number;
  signal?: AbortSignal;
  debug?: (line: string) => void;
}

export async function probeTool(tool: ToolSpec, opts: ProbeOptions): Promise<ToolProbe> {
  const path = findOnPath(tool.name, opts.env);
  const minVersion = tool.minVersion?.version;
  if (!path) return { name: tool.name, found: false, versionOk: null, ...(minVersion ? { minVersion } : {}) };
  // The tool's own settings directories are kept (gcloud reads CLOUDSDK_CONFIG to start at all); no secrets.
  const env = childEnvironment(opts.env, { prefixes: ['CLOUDSDK_', 'AZURE_CONFIG_DIR'], set: { CLOUDSDK_CORE_DISABLE_PROMPTS: '1', AWS_PAGER: '' } });
  const run = await runChild(path, tool.versionArgs, { env, timeoutMs: opts.timeoutMs, signal: opts.signal, keepBytes: 16 * 1024 });
  opts.debug?.(`onboarding: ${tool.name} ${tool.versionArgs.join(' ')} -> ${run.timedOut ? 'timed out' : `exit ${run.code}`} in ${run.ms} ms`);
  const out: ToolProbe = { name: tool.name, found: true, path, versionOk: null, ...(minVersion ? { minVersion } : {}) };
  if (run.timedOut) return { ...out, problem: `\`${tool.name} ${tool.versionArgs.join(' ')}\` gave no answer within ${Math.round(opts.timeoutMs / 1000)} s` };
  if (run.notFound) return { ...out, problem: `cannot run ${path} (${run.startError ?? 'not executable'})` };
  const version = parseVersion(`${run.stdout}\n${run.stderr}`);
  if (!version) return { ...out, problem: `\`${tool.name} ${tool.versionArgs.join(' ')}\` printed no version${run.code ? ` (exit ${run.code})` : ''}` };
  out.version = version;
  if (minVersion) {
    out.versionOk = compareVersions(version, minVersion) >= 0;
    if (!out.versionOk) out.problem = `version ${version} is older than ${minVersion}: ${tool.minVersion!.why}`;
  }
  return out;
}

/** Probes every tool, at most `concurrency` at once, in the order given. */
export async function probeTools(tools: readonly ToolSpec[], opts: ProbeOptions, concurrency = 4): Promise<ToolProbe[]> {
  const results: ToolProbe[] = new Array(tools.length);
  let next = 0;
  const worker = async () => {
    while (next < tools.length) {
      const i = next++;
      results[i] = await probeTool(tools[i]!, opts);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tools.length) }, worker));
  return results;
}

/**
 * Runs a local install plan the user has seen and accepted: shared setup first (apt's package lists),
 * then each tool's steps in order, one tool at a time (package managers hold locks). Every step is
 * bounded in time and its output kept; the first failing step stops that tool (the others go on), and
 * the result says for every tool what was and was not installed, with the failing step's last lines.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { InstallPlan, InstallResult, InstallStep, ToolPlan } from '../../../schemas/onboarding.js';
import { AssistantError } from '../../core/errors.js';
import { maskSecretsInText, redactText } from '../../core/redact.js';
import { childEnvironment } from '../../core/process/child-env.js';
import { tempRoot } from '../../core/process/temp-root.js';
import { downloadVerified } from './download.js';
import { stepText } from './render.js';
import { failureLine, lastLines, runChild } from '../../core/process/run-child.js';
import { extractBinary, placeExecutable } from './unpack.js';

export interface ExecuteOptions {
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  /** One line per step for people (stderr). */
  progress?: (line: string) => void;
  debug?: (line: string) => void;
  fetchImpl?: typeof fetch;
  /** Lines of a failing step's output shown (default 15). */
  tailLines?: number;
}

class StepFailed extends Error {
  constructor(
    message: string,
    readonly output: string[] = [],
  ) {
    super(message);
  }
}

/** The environment of install steps: the package managers' own settings, never our secrets. */
function installEnv(env: Record<string, string | undefined>): Record<string, string> {
  return childEnvironment(env, {
    prefixes: ['HOMEBREW_', 'npm_config_', 'NPM_CONFIG_', 'PIP_', 'PIPX_', 'APT_', 'SUDO_ASKPASS'],
    set: { DEBIAN_FRONTEND: 'noninteractive', HOMEBREW_NO_ENV_HINTS: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1' },
  });
}

async function runStep(step: InstallStep, work: string, opts: ExecuteOptions): Promise<void> {
  if (step.kind === 'exec') {
    const [command, ...args] = step.argv;
    const run = await runChild(command!, args, {
      env: installEnv(opts.env),
      timeoutMs: step.timeout_s * 1000,
      signal: opts.signal,
      ownGroup: !step.sudo,
      keepBytes: 64 * 1024,
    });
    opts.debug?.(`onboarding: ${step.argv.join(' ')} -> ${run.timedOut ? 'timed out' : `exit ${run.code}`} in ${run.ms} ms`);
    if (run.aborted) throw opts.signal.reason ?? new Error('interrupted');
    if (run.code !== 0) {
      const tail = lastLines(`${run.stdout}\n${run.stderr}`, opts.tailLines ?? 15);
      throw new StepFailed(`\`${stepText(step)}\` failed: ${failureLine(run, step.timeout_s * 1000)}`, tail);
    }
    return;
  }
  if (step.kind === 'download') {
    try {
      await downloadVerified({ url: step.url, sha256: step.sha256, size: step.size, file: join(work, 'artefact'), signal: opts.signal, timeoutMs: step.timeout_s * 1000, fetchImpl: opts.fetchImpl });
    } catch (err) {
      if (opts.signal.aborted) throw err;
      throw new StepFailed(err instanceof AssistantError ? `${err.code}: ${err.message}` : (err as Error).message);
    }
    return;
  }
  try {
    const file = await extractBinary(join(work, 'artefact'), step.format, step.binary, work);
    await placeExecutable(file, step.dest);
  } catch (err) {
    throw new StepFailed(err instanceof AssistantError ? `${err.code}: ${err.message}` : (err as Error).message);
  }
}

async function runSteps(label: string, steps: InstallStep[], opts: ExecuteOptions): Promise<void> {
  // Downloads and unpacking happen in a private directory removed afterwards, whatever happened.
  const work = await mkdtemp(join(tempRoot(opts.env), 'assistant-install-'));
  try {
    for (const [i, step] of steps.entries()) {
      opts.progress?.(`${label} [${i + 1}/${steps.length}] ${stepText(step).split('\n')[0]}`);
      await runStep(step, work, opts);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Executes the plan. A failed step is in the results, never thrown; an interrupt or --timeout stops
 * the run and the results say what was installed before it (the caller checks its signal afterwards).
 */
export async function executePlan(plan: InstallPlan, opts: ExecuteOptions): Promise<InstallResult[]> {
  const results: InstallResult[] = [];
  const failedSetup = new Map<string, string>();
  for (const s of plan.setup) {
    try {
      await runSteps(s.method, s.steps, opts);
    } catch (err) {
      if (!(err instanceof StepFailed) && !opts.signal.aborted) throw err;
      failedSetup.set(s.method, err instanceof StepFailed ? err.message : 'stopped before it');
    }
  }
  for (const [i, t] of plan.tools.entries()) {
    try {
      results.push(await installTool(t, failedSetup, opts));
    } catch (err) {
      if (!opts.signal.aborted) throw err;
      // Interrupted (Ctrl-C, --timeout): the report still says what was and was not installed.
      const why = err instanceof AssistantError ? err.message : 'interrupted';
      results.push({ tool: t.tool, status: 'not-installed', method: t.method, error: `stopped: ${why}` });
      for (const rest of plan.tools.slice(i + 1)) results.push({ tool: rest.tool, status: 'not-installed', method: rest.method, error: 'not attempted: stopped before it' });
      break;
    }
  }
  for (const s of plan.skipped) results.push({ tool: s.tool, status: 'skipped', ...(s.path ? { path: s.path } : {}), ...(s.version ? { version: s.version } : {}), error: s.reason });
  for (const u of plan.unavailable) results.push({ tool: u.tool, status: 'not-installed', error: `${u.reason}; install it by hand: ${u.manual}` });
  return results;
}

async function installTool(t: ToolPlan, failedSetup: Map<string, string>, opts: ExecuteOptions): Promise<InstallResult> {
  const setupProblem = failedSetup.get(t.method);
  if (setupProblem) return { tool: t.tool, status: 'not-installed', method: t.method, error: `not attempted: ${setupProblem}` };
  try {
    await runSteps(t.tool, t.steps, opts);
    return { tool: t.tool, status: 'installed', method: t.method, ...(t.version ? { version: t.version } : {}) };
  } catch (err) {
    if (!(err instanceof StepFailed)) throw err;
    return { tool: t.tool, status: 'failed', method: t.method, error: maskSecretsInText(redactText(err.message)), ...(err.output.length ? { output: err.output } : {}) };
  }
}

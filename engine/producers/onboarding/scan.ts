/**
 * `onboarding scan`: which tools are installed (and in which version), where each provider's
 * credentials would come from, with `--check` whether they are accepted, which AI providers are
 * configured and answer, and the next steps as exact commands. The scan itself changes nothing.
 * What a provider's credentials are, and how they are checked, is its own `credentials` capability,
 * asked of the registry; the assistant's own keys (the backend's, the talk agent's) follow them.
 */
import type { Config } from '../../../schemas/config.js';
import { ONBOARDING_SCHEMA_VERSION, type NextStepReport, type ProviderReport, type ScanReport, type ToolReport } from '../../../schemas/onboarding.js';
import { UsageError } from '../../core/errors.js';
import { maskSecretsInText, redactText } from '../../core/redact.js';
import type { CheckResult, CredentialSource, PlanReader, SourceInput } from '../../core/capabilities.js';
import { tidyPath } from '../../core/credential-sources.js';
import { clean } from '../../core/process/run-child.js';
import { checkAi, scanAi } from './ai.js';
import { scanEntries, type ScanEntry } from './scan-entries.js';
import type { Platform } from './platform.js';
import { TOOLS, toolsOf, type ToolSpec } from './tools.js';
import { probeTools, type ToolProbe } from './versions.js';

export interface ScanOptions {
  config: Config;
  configPath: string;
  configExists: boolean;
  configProblem?: string;
  env: Record<string, string | undefined>;
  home: string;
  platform: Platform;
  /** --provider: only these providers (and their tools). */
  providers?: string[];
  /** --check: verify every configured provider. */
  check: boolean;
  /** Providers verified even without --check (--require). */
  alsoCheck?: string[];
  /** Per probe and per check. */
  probeTimeoutMs: number;
  checkTimeoutMs: number;
  signal: AbortSignal;
  plans: PlanReader;
  debug?: (line: string) => void;
  /** Progress for people (stderr), e.g. "checking cloud_a…". */
  progress?: (line: string) => void;
  fetchImpl?: typeof fetch;
  /** The rows to scan (from scanEntries(); the command has them already to check its flags). */
  entries?: readonly ScanEntry[];
}

/** Validates a --provider / --require list against the providers the scan knows. */
export function parseProviderList(value: string | string[] | undefined, flag: string, entries: readonly ScanEntry[]): string[] | undefined {
  if (value === undefined) return undefined;
  const names = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter(Boolean);
  const known = entries.map((e) => e.provider);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length) {
    throw new UsageError(`${flag}: unknown provider${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')}`, { hint: `providers: ${known.join(', ')}` });
  }
  if (names.length === 0) throw new UsageError(`${flag} needs a provider name`, { hint: `providers: ${known.join(', ')}` });
  return [...new Set(names)];
}

export async function runScan(opts: ScanOptions): Promise<ScanReport> {
  const input: SourceInput = { config: opts.config, configPath: opts.configPath, env: opts.env, home: opts.home, os: opts.platform.os };
  const entries = opts.entries ?? (await scanEntries());
  const selected = opts.providers ? entries.filter((p) => opts.providers!.includes(p.provider)) : entries;

  // Tools: all of them for a full scan, else those of the selected providers.
  const tools: readonly ToolSpec[] = opts.providers ? TOOLS.filter((t) => opts.providers!.some((p) => t.providers[p])) : TOOLS;
  opts.progress?.(`looking for ${tools.length} tools…`);
  const probes = await probeTools(tools, { env: opts.env, timeoutMs: opts.probeTimeoutMs, signal: opts.signal, debug: opts.debug });
  const probeOf = new Map(probes.map((p) => [p.name, p]));
  const toolPath = (name: string) => probeOf.get(name)?.path;

  const reports = await Promise.all(selected.map((p) => providerReport(p, input, probeOf)));

  // Checks, in parallel, each bounded in time.
  const toCheck = selected.filter((p, i) => p.scan.check && reports[i]!.configured && (opts.check || opts.alsoCheck?.includes(p.provider)));
  if (toCheck.length) opts.progress?.(`checking ${toCheck.map((p) => p.provider).join(', ')}…`);
  const ai = scanAi(input);
  await Promise.all([
    ...toCheck.map(async (p) => {
      const report = reports[selected.indexOf(p)]!;
      const started = Date.now();
      const result = await bounded(opts, (signal) =>
        p.scan.check!({ ...input, sources: report.sources.map((s) => ({ ...s })), signal, timeoutMs: opts.checkTimeoutMs, plans: opts.plans, toolPath, debug: opts.debug }),
      );
      report.checked = true;
      report.authenticated = result.authenticated;
      if (result.identity) report.identity = clean(result.identity);
      report.detail = clean(result.detail);
      report.check_ms = Date.now() - started;
      opts.debug?.(`onboarding: check ${p.provider}: ${report.authenticated === null ? 'could not tell' : report.authenticated ? 'authenticated' : 'not authenticated'} (${report.detail}) in ${report.check_ms} ms`);
    }),
    opts.check && !opts.providers ? checkAi(ai.resolved, { input, signal: opts.signal, timeoutMs: opts.checkTimeoutMs, toolPath, fetchImpl: opts.fetchImpl, debug: opts.debug }) : Promise.resolve(),
  ]);
  for (const r of reports) r.ready = r.configured && r.tools_ok && (r.checked && r.checkable ? r.authenticated === true : true);

  const toolReports: ToolReport[] = probes.map((p) => toolReport(p, tools.find((t) => t.name === p.name)!));
  const report: ScanReport = {
    schema_version: ONBOARDING_SCHEMA_VERSION,
    platform: { os: opts.platform.os, arch: opts.platform.arch, package_managers: opts.platform.managers, root: opts.platform.root, injected: opts.platform.injected },
    config: { path: tidyPath(opts.configPath, opts.home), exists: opts.configExists, ...(opts.configProblem ? { problem: opts.configProblem } : {}) },
    checked: opts.check,
    tools: toolReports,
    providers: reports,
    ai: { providers: opts.providers ? [] : ai.entries, problems: opts.providers ? [] : ai.problems },
    next_steps: [],
  };
  report.next_steps = nextSteps(report, input, selected, Boolean(opts.providers));
  return report;
}

/** Runs a check with its own time limit; a check that overruns is reported as "no answer", and its work is aborted. */
async function bounded(opts: ScanOptions, fn: (signal: AbortSignal) => Promise<CheckResult>): Promise<CheckResult> {
  const controller = new AbortController();
  const signal = AbortSignal.any([opts.signal, controller.signal]);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('check timed out'));
      resolve({ authenticated: null, detail: `no answer within ${Math.round(opts.checkTimeoutMs / 1000)} s` });
    }, opts.checkTimeoutMs);
  });
  try {
    return await Promise.race([
      fn(signal).catch((err: unknown): CheckResult => {
        if (opts.signal.aborted) throw err;
        return { authenticated: null, detail: err instanceof Error ? err.message : String(err) };
      }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function providerReport(p: ScanEntry, input: SourceInput, probes: Map<string, ToolProbe>): Promise<ProviderReport> {
  let sources: CredentialSource[] = [];
  let problem: string | undefined;
  try {
    sources = await p.sources(input);
  } catch (err) {
    problem = maskSecretsInText(redactText((err as Error).message));
  }
  const used = sources.find((s) => s.used);
  const tools = toolsOf(p.provider).map(({ tool, need }) => {
    const probe = probes.get(tool.name);
    return { name: tool.name, need, found: Boolean(probe?.found), version_ok: probe?.versionOk ?? null };
  });
  const usable = (t: (typeof tools)[number]) => t.found && t.version_ok !== false;
  const oneOf = tools.filter((t) => t.need === 'one-of');
  const toolsOk = tools.filter((t) => t.need === 'required').every(usable) && (oneOf.length === 0 || oneOf.some(usable));
  return {
    provider: p.provider,
    title: p.scan.title,
    configured: sources.some((s) => s.present),
    ...(used ? { source: { kind: used.kind, where: used.where } } : {}),
    sources,
    tools,
    tools_ok: toolsOk,
    checkable: Boolean(p.scan.check),
    checked: false,
    authenticated: null,
    ...(problem ? { detail: problem } : {}),
    ready: false,
  };
}

function toolReport(p: ToolProbe, spec: ToolSpec): ToolReport {
  return {
    name: p.name,
    title: spec.title,
    found: p.found,
    ...(p.path ? { path: p.path } : {}),
    ...(p.version ? { version: p.version } : {}),
    ...(p.minVersion ? { min_version: p.minVersion } : {}),
    version_ok: p.versionOk,
    ...(p.problem ? { problem: p.problem } : {}),
    providers: spec.providers,
  };
}

/** The next steps, most useful first: missing tools, credentials to set up, logins to renew, then a check. */
function nextSteps(report: ScanReport, input: SourceInput, selected: readonly ScanEntry[], narrowed: boolean): NextStepReport[] {
  const steps: NextStepReport[] = [];
  const byName = new Map(selected.map((p) => [p.provider, p]));
  const interesting = report.providers.filter((r) => r.configured || narrowed || r.provider === 'gpucloud');

  // Tools the interesting providers need and lack, in one install command.
  const missing = new Set<string>();
  const outdated = new Set<string>();
  for (const r of interesting) {
    const oneOf = r.tools.filter((t) => t.need === 'one-of');
    for (const t of r.tools) {
      if (t.need === 'required' && !t.found) missing.add(t.name);
      if (t.found && t.version_ok === false) outdated.add(t.name);
    }
    if (oneOf.length && !oneOf.some((t) => t.found)) missing.add(oneOf[0]!.name);
  }
  if (missing.size) {
    const list = [...missing];
    steps.push({ why: `install what ${list.length > 1 ? 'these providers need' : 'a configured provider needs'} (${list.join(', ')}); the plan is shown before anything runs`, command: `assistant onboarding install ${list.join(' ')}` });
  }
  if (outdated.size) {
    const list = [...outdated];
    const why = report.tools.filter((t) => outdated.has(t.name)).map((t) => t.problem).filter(Boolean).join('; ');
    steps.push({ why: `update ${list.join(', ')}: ${why}`, command: `assistant onboarding install --force ${list.join(' ')}` });
  }

  for (const r of interesting) {
    const p = byName.get(r.provider)!;
    if (!r.configured) {
      for (const s of p.scan.setup(input)) steps.push({ provider: r.provider, ...s });
    } else if (r.checked && r.authenticated === false) {
      for (const s of p.scan.login?.(input, r.sources) ?? []) steps.push({ provider: r.provider, ...s });
    }
  }
  const unchecked = report.providers.filter((r) => r.configured && r.checkable && !r.checked);
  if (unchecked.length) {
    steps.push({
      why: `verify the credentials of ${unchecked.map((r) => r.provider).join(', ')} (read-only: a token and the balance, who-am-i calls)`,
      command: `assistant onboarding scan --check${narrowed ? ` --provider ${unchecked.map((r) => r.provider).join(',')}` : ''}`,
    });
  }
  if (!narrowed) {
    const ai = report.ai.providers;
    if (!ai.some((a) => a.configured && a.kind !== 'builtin')) {
      steps.push({ why: 'ask questions with an AI provider: export a key (or configure ai.providers in ~/.assistant.yaml; see examples/assistant.example.yaml)', command: 'export OPENAI_API_KEY=<API_KEY>' });
      steps.push({ why: 'or try plans without a model, against the local emulator', command: 'assistant --sandbox ask --maker "create a 1V100.6V instance called train-1 in FIN-01"' });
    }
  }
  return steps;
}

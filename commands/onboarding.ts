/**
 * `assistant onboarding scan` and `assistant onboarding install`: from a fresh laptop to a working setup.
 * Thin wiring: the scan, the recipe table, the plan compiler and the installer are in engine/producers/onboarding/.
 */
import { Writable } from 'node:stream';
import { createInterface } from 'node:readline/promises';
import { emptyConfig, type Config } from '../schemas/config.js';
import type { InstallPlan, InstallReport } from '../schemas/onboarding.js';
import { ONBOARDING_SCHEMA_VERSION } from '../schemas/onboarding.js';
import { resolveConfigPath } from '../engine/core/config/load.js';
import { loadConfig } from '../engine/providers/config.js';
import { AssistantError, ExitCode, SafetyRefusal, UsageError } from '../engine/core/errors.js';
import { redactText } from '../engine/core/redact.js';
import type { PlanReader } from '../engine/core/capabilities.js';
import { executePlan } from '../engine/producers/onboarding/install.js';
import { compilePlan, loadRecipeFile, type PlanRequest } from '../engine/producers/onboarding/plan.js';
import { detectPlatform, hostArch, hostOs } from '../engine/producers/onboarding/platform.js';
import { renderInstallReport, renderPlan, renderScan } from '../engine/producers/onboarding/render.js';
import { parseProviderList, runScan } from '../engine/producers/onboarding/scan.js';
import { scanEntries } from '../engine/producers/onboarding/scan-entries.js';
import { toolNames, toolsOf, toolSpec } from '../engine/producers/onboarding/tools.js';
import { probeTools } from '../engine/producers/onboarding/versions.js';
import { readPlan } from '../machines/apply/reads.js';
import { stderrColors, warn, withChanges, type CommandContext } from './context.js';
import { createOutput, type Output } from './output.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { runGroup } from './group.js';
import { withSession } from './session.js';

const PROBE_TIMEOUT_MS = 15_000;
const DEFAULT_CHECK_TIMEOUT_S = 20;

/** Flags both subcommands take (each says what for). --provider (and scan's --require) may be given again or comma-separated. */
const providers = (help: string) => flag.list(flag.text()).option('--provider <list>', help);
const format = () => flag.oneOf(['table', 'json', 'yaml']).option('--format <format>', 'table, json or yaml (same as -o)');
const platform = (help: string) => flag.text().option('--platform <os/arch>', help);

/** What each subcommand's flags are (in --help order); their options types are derived from it. */
const FLAGS = {
  scan: {
    provider: providers('Only these providers, comma-separated (e.g. gpucloud,cloud_a)'),
    check: flag.bool().option('--check', "Verify each configured provider's credentials, read-only and in parallel"),
    require: flag.list(flag.text()).option('--require <list>', 'Exit 1 unless these providers are ready (checks them; for CI)'),
    /** 20 or 20s. */
    checkTimeout: flag.duration().option('--check-timeout <seconds>', `Time limit of each check (default ${DEFAULT_CHECK_TIMEOUT_S})`),
    format: format(),
    platform: platform('Plan for another machine, e.g. linux/arm64 (default: this one)'),
  },
  install: {
    provider: providers('Install the tools of these providers (comma-separated)'),
    dryRun: flag.bool().option('--dry-run', 'Print the plan (table, or -o json) and run nothing'),
    force: flag.bool().option('--force', 'Install even when the tool is already on PATH'),
    prefix: flag.path().option('--prefix <dir>', 'Where downloaded tools go: <dir>/bin (default ~/.local)'),
    recipes: flag.path().option('--recipes <file>', 'Your own recipes (JSON, schemas/onboarding-recipes.v1.schema.json), tried first'),
    format: format(),
    platform: platform('Plan for another machine, e.g. darwin/arm64 (with --dry-run)'),
  },
} satisfies Record<string, FlagSpec>;

type ScanFlags = OptionsOf<typeof FLAGS.scan>;
type InstallFlags = OptionsOf<typeof FLAGS.install>;
type CommonFlags = Pick<ScanFlags & InstallFlags, 'provider' | 'format' | 'platform'>;

/** What `assistant onboarding --help` says after the commands. */
const footer = () =>
  `Tools: ${toolNames().join(', ')}\nExit codes: scan 0 when it ran (1 with --require and a provider not ready); install 0 all installed, 1 some not, 2 unknown tool or no terminal to ask on without --yes, 3 declined.`;

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('onboarding', argv, ctx, { footer: footer(), flags: FLAGS }, (cli, start) => {
    withFlags(cli.command('scan', 'Which tools and credentials are set up (names and paths, never values), and the next steps'), FLAGS.scan)
      .example('  assistant onboarding scan')
      .example('  assistant onboarding scan --check')
      .example('  assistant onboarding scan --provider gpucloud,cloud_a --format json')
      .example('  assistant onboarding scan --require gpucloud,k8s        # CI: exit 1 unless both work')
      .action((flags: ScanFlags) => start(() => scan(ctx, flags)));
    withFlags(cli.command('install [...tools]', 'Install missing tools: a plan of exact commands is shown before anything runs'), FLAGS.install)
      .example('  assistant onboarding install                     # the missing tools of the providers you configured')
      .example('  assistant onboarding install kubectl terraform --dry-run')
      .example('  assistant onboarding install --provider cloud_a --yes')
      .example('  assistant onboarding install gh --prefix ~/tools --force')
      .action((tools: string[], flags: InstallFlags) => start(() => install(ctx, ctx.interrupt, tools, flags)));
  });
}

/** The output sink: the command's own, or one for --format (the same choice as -o, kept for scripts that use it). */
function outputFor(ctx: CommandContext, flags: CommonFlags): Output {
  const f = flags.format;
  if (f === undefined) return ctx.out;
  if (ctx.out.explicit && ctx.out.format !== f) throw new UsageError(`--format ${f} and -o ${ctx.out.format} disagree`);
  return createOutput(ctx.io, f, true);
}

/** The config as far as it can be read: a broken config is reported by the scan, not fatal to it. */
async function readConfig(ctx: CommandContext): Promise<{ config: Config; path: string; exists: boolean; problem?: string }> {
  try {
    const loaded = await loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
    for (const w of loaded.warnings) warn(ctx, w);
    return { config: loaded.config, path: loaded.path, exists: loaded.exists };
  } catch (err) {
    if (!(err instanceof AssistantError) || err.exitCode !== ExitCode.invalidInput || err.code === 'config_not_found') throw err;
    const problem = redactText(err.message.split('\n')[0] ?? err.message);
    warn(ctx, `the config cannot be used (${problem}); scanning with defaults`);
    return { config: emptyConfig(), path: resolveConfigPath(ctx.globals.config, ctx.home), exists: true, problem };
  }
}

/** The providers' checks that read through the plan executor (gpucloud's: a fresh token and the balance, like `credentials test`). */
function planReader(ctx: CommandContext, checkTimeoutS: number): PlanReader {
  return {
    async read(plan, provider, signal) {
      // The session's own notices (config warnings, already printed by the scan) are dropped; debug lines are kept.
      const stderr = new Writable({
        write(chunk: Buffer | string, _enc, cb) {
          const text = String(chunk);
          if (text.startsWith('debug:')) ctx.io.stderr.write(text);
          cb();
        },
      });
      // Each request (the token's included, which the gpucloud client does not let a caller abort) is
      // bounded by a quarter of the check's time, so its retries end about when the check gives up.
      const perRequestS = Math.max(0.5, checkTimeoutS / 4);
      const checkCtx = withChanges(ctx, { signal, io: { ...ctx.io, stderr, stderrIsTTY: false }, globals: { ...ctx.globals, timeout: perRequestS } });
      return withSession(
        checkCtx,
        async (session) => {
          const results = await readPlan(session, plan, { signal });
          return { results, source: redactText(await session.credentialSource(provider)) };
        },
        { freshCredentials: true, overallDeadline: false },
      );
    },
  };
}


async function scan(ctx: CommandContext, flags: ScanFlags): Promise<number> {
  const out = outputFor(ctx, flags);
  const entries = await scanEntries();
  const providers = parseProviderList(flags.provider, '--provider', entries);
  const required = parseProviderList(flags.require, '--require', entries);
  const checkTimeoutS = flags.checkTimeout ?? DEFAULT_CHECK_TIMEOUT_S;
  const platform = detectPlatform(ctx.env, flags.platform);
  const cfg = await readConfig(ctx);
  const progress = ctx.io.stderrIsTTY && !out.structured ? (line: string) => ctx.io.stderr.write(`${line}\n`) : undefined;
  const report = await runScan({
    config: cfg.config,
    configPath: cfg.path,
    configExists: cfg.exists,
    configProblem: cfg.problem,
    env: ctx.env,
    home: ctx.home,
    platform,
    providers: providers && required ? [...new Set([...providers, ...required])] : providers,
    check: Boolean(flags.check),
    alsoCheck: required,
    probeTimeoutMs: PROBE_TIMEOUT_MS,
    checkTimeoutMs: checkTimeoutS * 1000,
    signal: ctx.signal,
    plans: planReader(ctx, checkTimeoutS),
    debug: ctx.debug.callback,
    progress,
    entries,
  });
  if (ctx.signal.aborted) throw ctx.signal.reason;
  out.value(report, { table: (colors) => renderScan(report, out.table, colors) });
  if (required) {
    const notReady = report.providers.filter((r) => required.includes(r.provider) && !r.ready);
    if (notReady.length) {
      const why = notReady.map((r) => `${r.provider} (${!r.configured ? 'not configured' : !r.tools_ok ? 'tools missing' : r.authenticated === false ? 'not authenticated' : r.detail ?? 'not verified'})`);
      ctx.io.stderr.write(`${stderrColors(ctx).red('error:')} not_ready: ${why.join('; ')}\nhint: follow the next steps above, then run the scan again\n`);
      return ExitCode.failed;
    }
  }
  return ExitCode.ok;
}

// ---------------------------------------------------------------------------------------------

async function install(ctx: CommandContext, interrupt: AbortSignal, named: string[], flags: InstallFlags): Promise<number> {
  const out = outputFor(ctx, flags);
  const unknown = named.filter((t) => !toolSpec(t));
  if (unknown.length) {
    throw new UsageError(`unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')}`, { hint: `tools: ${toolNames().join(', ')}` });
  }
  const providers = parseProviderList(flags.provider, '--provider', await scanEntries());
  const extra = flags.recipes ? loadRecipeFile(resolveConfigPath(flags.recipes, ctx.home)) : undefined;
  const platform = detectPlatform(ctx.env, flags.platform);
  const debug = ctx.debug.callback;

  // What to install: the named tools; else the tools of --provider; else what configured providers lack.
  let requests: PlanRequest[];
  if (named.length) {
    requests = [...new Set(named)].map((tool) => ({ tool, reason: 'named' }));
  } else if (providers) {
    requests = providers.flatMap((p) => toolsOf(p).map(({ tool }) => ({ tool: tool.name, reason: `--provider ${p}` })));
    requests = requests.filter((r, i) => requests.findIndex((x) => x.tool === r.tool) === i);
  } else {
    requests = await missingForConfigured(ctx, platform, debug);
    if (requests.length === 0) {
      ctx.io.stderr.write('nothing to install: every configured provider has the tools it needs (name tools to install others; `assistant onboarding scan` shows what is set up)\n');
      // People have the line above; a program gets an empty report.
      const empty = compilePlan([], { platform, env: ctx.env, home: ctx.home, prefix: flags.prefix, force: false, probes: new Map() });
      const report: InstallReport = { schema_version: ONBOARDING_SCHEMA_VERSION, results: [], bin_dir: empty.bin_dir, bin_dir_on_path: empty.bin_dir_on_path };
      out.value(report, { table: '' });
      return ExitCode.ok;
    }
  }

  const specs = requests.map((r) => toolSpec(r.tool)!);
  const probes = await probeTools(specs, { env: ctx.env, timeoutMs: PROBE_TIMEOUT_MS, signal: ctx.signal, debug });
  const plan = compilePlan(requests, { platform, env: ctx.env, home: ctx.home, prefix: flags.prefix, force: Boolean(flags.force), probes: new Map(probes.map((p) => [p.name, p])), extra });

  if (flags.dryRun) {
    out.value(plan, { table: (colors) => renderPlan(plan, colors) });
    return ExitCode.ok;
  }
  if (plan.tools.length === 0) {
    const report: InstallReport = { schema_version: ONBOARDING_SCHEMA_VERSION, results: await executePlan(plan, { env: ctx.env, signal: ctx.signal }), bin_dir: plan.bin_dir, bin_dir_on_path: plan.bin_dir_on_path };
    out.value(report, { table: (colors) => renderInstallReport(report, colors) });
    return report.results.some((r) => r.status === 'not-installed') ? ExitCode.failed : ExitCode.ok;
  }

  ctx.io.stderr.write(renderPlan(plan, stderrColors(ctx)));
  if (platform.injected && (platform.os !== hostOs() || platform.arch !== hostArch())) {
    warn(ctx, `this plan is for ${platform.os}/${platform.arch} (--platform) and this machine is ${hostOs()}/${hostArch()}: what it downloads will not run here`);
  }
  // The question waits for the person, not for --timeout: only Ctrl-C ends it.
  await confirm({ ...ctx, signal: interrupt }, plan);

  const report = await runInstall(ctx, plan, debug);
  out.value(report, { table: (colors) => renderInstallReport(report, colors) });
  if (ctx.signal.aborted) throw ctx.signal.reason;
  return report.results.every((r) => r.status === 'installed' || r.status === 'skipped') ? ExitCode.ok : ExitCode.failed;
}

/** The one question: `Install 3 tools (2 need sudo)? [y/N]`. --yes skips it; no terminal and no --yes: exit 2. */
async function confirm(ctx: CommandContext, plan: InstallPlan): Promise<void> {
  if (ctx.globals.yes) return;
  const n = plan.tools.length;
  const sudo = plan.tools.filter((t) => t.needs_sudo).length;
  const question = `Install ${n} tool${n === 1 ? '' : 's'}${sudo ? ` (${sudo} need${sudo === 1 ? 's' : ''} sudo)` : ''}? [y/N] `;
  if (!ctx.io.stdinIsTTY) {
    throw new UsageError(`installing needs your confirmation and there is no terminal to ask on; nothing was run`, {
      hint: 'read the plan above, then rerun with --yes (or --dry-run to only print it)',
    });
  }
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr });
  let answer: string;
  try {
    answer = await rl.question(question, { signal: ctx.signal });
  } finally {
    rl.close();
  }
  if (!/^y(es)?$/i.test(answer.trim())) throw new SafetyRefusal('not confirmed; nothing was installed');
}

/** Runs the plan, then scans the tools again (the bin directory included) for the report. */
async function runInstall(ctx: CommandContext, plan: InstallPlan, debug: ((line: string) => void) | undefined): Promise<InstallReport> {
  const results = await executePlan(plan, {
    env: ctx.env,
    signal: ctx.signal,
    progress: (line) => ctx.io.stderr.write(`${line}\n`),
    debug,
  });
  const pathSep = plan.platform.os === 'windows' ? ';' : ':';
  const rescanEnv = { ...ctx.env, PATH: [plan.bin_dir, ctx.env.PATH ?? ''].join(pathSep) };
  const installed = results.filter((r) => r.status === 'installed').map((r) => toolSpec(r.tool)!);
  // The re-scan runs even after an interrupt (briefly): the report must say what is there now.
  const probes = await probeTools(installed, { env: rescanEnv, timeoutMs: ctx.signal.aborted ? 5_000 : PROBE_TIMEOUT_MS, debug });
  for (const p of probes) {
    const r = results.find((x) => x.tool === p.name)!;
    if (p.path) r.path = p.path;
    if (p.version) r.version = p.version;
    if (!p.found) {
      r.status = 'failed';
      r.error = `the installer reported success but ${p.name} is not on PATH${plan.tools.find((t) => t.tool === p.name)?.note ? ` (${plan.tools.find((t) => t.tool === p.name)!.note})` : ''}`;
    }
  }
  return { schema_version: ONBOARDING_SCHEMA_VERSION, results, bin_dir: plan.bin_dir, bin_dir_on_path: plan.bin_dir_on_path };
}

/** The required tools (one of each "one-of" group) that configured providers lack, or that are too old. */
async function missingForConfigured(ctx: CommandContext, platform: ReturnType<typeof detectPlatform>, debug: ((line: string) => void) | undefined): Promise<PlanRequest[]> {
  const cfg = await readConfig(ctx);
  const report = await runScan({
    config: cfg.config,
    configPath: cfg.path,
    configExists: cfg.exists,
    env: ctx.env,
    home: ctx.home,
    platform,
    check: false,
    probeTimeoutMs: PROBE_TIMEOUT_MS,
    checkTimeoutMs: DEFAULT_CHECK_TIMEOUT_S * 1000,
    signal: ctx.signal,
    plans: planReader(ctx, DEFAULT_CHECK_TIMEOUT_S),
    debug,
  });
  const out: PlanRequest[] = [];
  for (const r of report.providers.filter((p) => p.configured)) {
    const oneOf = r.tools.filter((t) => t.need === 'one-of');
    for (const t of r.tools) {
      if (t.need === 'required' && !t.found) out.push({ tool: t.name, reason: `${r.provider} needs it` });
    }
    if (oneOf.length && !oneOf.some((t) => t.found)) out.push({ tool: oneOf[0]!.name, reason: `${r.provider} needs it (or ${oneOf.slice(1).map((t) => t.name).join(', ')})` });
  }
  return out.filter((r, i) => out.findIndex((x) => x.tool === r.tool) === i);
}

/**
 * `assistant deploy <repo_url>`: clone (engine/producers/deploy/clone.ts), analyse (analyse.ts), then the chosen
 * provider's `deploy` capability (engine/core/capabilities.ts; the registry says who has one and which
 * targets) reads what exists and compiles a plan; print the plan, or apply it with `--apply` through the
 * one apply path (machines/apply/: journal, lock, gate, progress; `--dry-run`: the cost preview).
 * Flag parsing, questions and output only.
 */
import { readPlan } from '../machines/apply/index.js';
import type { CapableProvider } from '../engine/providers/index.js';
import { providersWith, providerWith } from '../engine/providers/index.js';
import { describeStack, analyseRepo, type Stack } from '../engine/producers/deploy/analyse.js';
import { publicUrl, remoteHost, remoteKind, repoName, withClone } from '../engine/producers/deploy/clone.js';
import { isLoopbackHost, NotInSandbox } from '../engine/core/hermetic.js';
import { readEnvFile } from '../engine/producers/deploy/env-file.js';
import { slugName } from '../engine/core/kits/deploy/names.js';
import type { DeployCompiled } from '../engine/core/capabilities.js';
import type { EnvValue } from '../engine/core/deploy-types.js';
import { ExitCode, InvalidInputError, OperationError, UsageError } from '../engine/core/errors.js';
import { loadConfig } from '../engine/providers/config.js';
import { registerSecret } from '../engine/core/redact.js';
import { warn, type CommandContext } from './context.js';
import { applyInSession, dryRunInSession } from './apply.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { runGroup } from './group.js';
import { policyFromFlags } from '../engine/core/kits/autostop/policy.js';
import { askLine } from './prompt.js';
import { armConfigDeadline, withSession, type Session } from './session.js';
import { planForWriting, planText } from '../engine/core/plan/writer.js';

/** What `deploy`'s flags are (their help names the deployers the registry knows); DeployFlags is derived from it. */
const flagTable = (deployers: readonly Deployer[]) =>
  ({
    deploy: {
      ref: flag.text().option('--ref <ref>', 'Branch, tag or full commit sha to deploy (default: the default branch)'),
      name: flag.text().option('--name <name>', 'Deployment name (default: the repository name, slugified)'),
      target: flag.text().option('--target <target>', targetHelp(deployers)),
      provider: flag.text().option('--provider <name>', `${or(deployers.map((d, i) => (i === 0 ? `${d.name} (default)` : d.name)))}`),
      ami: flag.text().option('--ami <id>', `${providerFlagOwners(deployers, 'ami')} --target vm: the AMI (default: the current Ubuntu 24.04 from SSM)`),
      location: flag.text().option('--location <code>', 'Location (default: gpucloud.default_location)'),
      port: flag.port().option('--port <port>', 'The port the service listens on (when the analysis finds none or several)'),
      start: flag.text().option('--start <command>', 'The start command (when the analysis finds none)'),
      instanceType: flag.text().option('--instance-type <type>', 'Instance type instead of the cheapest available that fits'),
      image: flag.text().option('--image <image>', 'Prebuilt container image (registry/name:tag) for target container'),
      envFile: flag.path().option('--env-file <path>', 'NAME=value lines; names that look secret (KEY, TOKEN, PASSWORD, …) become gpucloud secrets, never inlined'),
      minReplicas: flag.int(0, 65535).option('--min-replicas <n>', 'Container target: fewest replicas (default 1)'),
      maxReplicas: flag.int(1, 65535).option('--max-replicas <n>', 'Container target: most replicas (default 3)'),
      healthPath: flag.text().option('--health-path <path>', 'Container target: health check path (default /)'),
      // Checked with the policy (engine/core/kits/autostop/policy.ts), which says what goes with what.
      autostop: flag.text().option('--autostop <idle-time>', 'Instance target: stop the instance after this long with idle GPUs and no logins, e.g. 30m (docs/autostop.md)'),
      autostopAction: flag.text().option('--autostop-action <action>', 'With --autostop: shutdown (default; a shut-down gpucloud instance still bills), hibernate (releases the machine, keeps the volumes; the check needs autostop.allow_hibernate) or delete (the check needs autostop.allow_delete)'),
      apply: flag.bool().option('--apply', 'Apply the plan (journal, progress, report with the URL)'),
      dryRun: flag.bool().option('--dry-run', 'With --apply: send only GETs; show each step, what it costs, availability and the balance'),
      resume: flag.bool().option('--resume', 'With --apply: continue an interrupted deploy of the same plan'),
      fresh: flag.bool().option('--fresh', 'With --apply: start the same plan again from its first step'),
    },
  }) satisfies Record<string, FlagSpec>;

type DeployFlags = OptionsOf<ReturnType<typeof flagTable>['deploy']>;

type Deployer = CapableProvider<'deploy'>;

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  // Who can deploy, and where: the registry's answer (their light capability modules only).
  const deployers = await providersWith('deploy');
  const flags = flagTable(deployers);
  return runGroup('deploy', ['deploy', ...argv], ctx, { flags }, (cli, start) => {
    withFlags(
      cli
        .command('deploy <repo_url>', 'Deploy a repository to gpucloud: clone, analyse, print the plan (or apply it with --apply)')
        .usage('<repo_url> [--target instance|container] [--name n] [--location l] [--port p] [--apply]'),
      flags.deploy,
    )
      .example('  assistant deploy https://github.com/me/api.git > plan.json')
      .example('  assistant deploy https://github.com/me/api.git --location FIN-01 --apply')
      .example('  assistant deploy git@github.com:me/llm.git --ref v1.2 --instance-type 1A100.22V --apply --dry-run')
      .example('  assistant deploy https://github.com/me/llm.git --autostop 30m --apply   # stopped after 30 idle minutes')
      .example('  assistant deploy ./web --target container --image ghcr.io/me/web:1.4 --env-file prod.env --apply')
      .action((url: string | number, opts: DeployFlags) => start(() => deploy(ctx, deployers, url, opts)));
  });
}

const joined = (word: string) => (xs: readonly string[]): string => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} ${word} ${xs[xs.length - 1]}` : (xs[0] ?? 'none'));
const or = joined('or');
const and = joined('and');

/** `gpucloud: instance (default) or container (default with a prebuilt image or --image); cloud_a: …`, from each provider's capability. */
function targetHelp(deployers: readonly Deployer[]): string {
  return deployers
    .map(({ name, capabilities: { deploy } }) => {
      const plain = deploy.defaultTarget({});
      const withImage = deploy.defaultTarget({ image: 'image' });
      const label = (t: string) => (t === plain ? `${t} (default)` : t === withImage ? `${t} (default with a prebuilt image or --image)` : t);
      return `${name}: ${or(deploy.targets.map((t) => label(t.name)))}`;
    })
    .join('; ');
}

/** The providers that take a provider flag (`ami`). */
const providerFlagOwners = (deployers: readonly Deployer[], flag: string): string => or(deployers.filter((d) => d.capabilities.deploy.flags?.includes(flag)).map((d) => `--provider ${d.name}`));

/** Provider flags as typed, by option name (only `ami` so far). */
const providerOptions = (opts: DeployFlags): Record<string, string | undefined> => ({ ami: opts.ami });

async function deploy(ctx: CommandContext, deployers: readonly Deployer[], rawUrl: string | number, opts: DeployFlags): Promise<number> {
  const url = String(rawUrl);
  const chosen = opts.provider === undefined ? deployers[0] : deployers.find((d) => d.name === opts.provider);
  if (!chosen) throw new UsageError(`unknown --provider "${opts.provider}" (deploy supports ${and(deployers.map((d) => d.name))})`);
  const { name: provider, capabilities: { deploy: deployer } } = chosen;
  const targets = deployer.targets.map((t) => t.name);
  if (opts.target !== undefined && !targets.includes(opts.target)) throw new UsageError(`--target must be ${targets.join(' or ')} for ${provider} (got "${opts.target}")`);
  for (const [flag, value] of Object.entries(providerOptions(opts))) {
    if (value !== undefined && !deployer.flags?.includes(flag)) throw new UsageError(`--${flag} goes with ${providerFlagOwners(deployers, flag)} --target vm`);
  }
  if (opts.dryRun && !opts.apply) throw new UsageError('--dry-run goes with --apply', { hint: 'assistant deploy <repo_url> --apply --dry-run' });
  if (opts.start !== undefined && /[\u0000-\u001f]/.test(opts.start)) throw new UsageError('--start must be one line');
  const portFlag = opts.port;
  const minReplicas = opts.minReplicas ?? 1;
  const maxReplicas = opts.maxReplicas ?? Math.max(3, minReplicas);
  if (minReplicas > maxReplicas) throw new UsageError('--min-replicas is larger than --max-replicas');
  const autostop = policyFromFlags(opts.autostop, opts.autostopAction);
  const healthPath = opts.healthPath ?? '/';
  if (!healthPath.startsWith('/')) throw new UsageError('--health-path must start with /');
  // Read the env file before anything is fetched: its secret values are registered for redaction at once.
  const env: EnvValue[] = opts.envFile ? readEnvFile(opts.envFile) : [];

  const { config } = await loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
  // The clone and the analysis count against the command's one deadline too.
  armConfigDeadline(ctx, config);
  const token = config.repohost?.token ?? ctx.env.REPOHOST_TOKEN ?? undefined;
  if (token) registerSecret(token);
  const cleanUrl = publicUrl(url);
  // --sandbox is hermetic: a repository on another host is not fetched (one on this machine is).
  const host = remoteHost(url);
  if (ctx.globals.sandbox && host !== undefined && !isLoopbackHost(host)) {
    throw new NotInSandbox(`cloning ${cleanUrl} would reach ${host}`, 'deploy a repository on this machine (a path or file://…) in the sandbox, or run without --sandbox');
  }
  if (cleanUrl !== url) throw new UsageError('the repository URL carries credentials; they would end up in the plan', { hint: 'remove them from the URL and set repohost.token in the config (or REPOHOST_TOKEN)' });

  // The code host's own credentials capability says where git may carry its token.
  const tokenOrigins = token ? ((await providerWith('credentials', 'repohost'))?.capabilities.credentials.gitOrigins?.({ config, env: ctx.env }) ?? []) : [];
  return withClone({ url, ref: opts.ref || undefined, token, tokenOrigins, signal: ctx.signal, tmpRoot: ctx.env.ASSISTANT_DEPLOY_TMPDIR, env: ctx.env }, async ({ dir, sha }) => {
    const stack = analyseRepo(dir);
    const image = opts.image ?? stack.image;
    // Each provider says its default (cloud_a: its container service, SPEC 4.2; gpucloud: an instance unless an image is named).
    const target = opts.target ?? deployer.defaultTarget({ image });
    const spec = deployer.targets.find((t) => t.name === target);
    // A provider whose default is none of its own targets is a bug of that provider, said as one.
    if (!spec) throw new OperationError('deploy_target_unknown', `${provider}'s deploy capability chose the target "${target}", which it does not offer (${targets.join(', ')})`, { hint: `pass --target ${targets[0] ?? '<target>'}` });
    if (autostop && !spec.autostop) {
      const where = deployers.flatMap((d) => d.capabilities.deploy.targets.filter((t) => t.autostop).map((t) => `a ${d.name} ${t.name} (--target ${t.name})`));
      throw new UsageError(`--autostop is for ${or(where)}`, { hint: 'containers scale with --min-replicas/--max-replicas instead' });
    }
    // With -o json|yaml the analysis is part of the document on stdout.
    if (!ctx.out.structured) ctx.io.stderr.write(`analysis of ${cleanUrl}:\n${describeStack(stack, sha)}\n`);
    // In the sandbox the instance is the emulator's: a repository on this machine is all it may use.
    if (opts.apply && spec.runsSource && !ctx.globals.sandbox) refuseUnshippable(url, target);
    // An instance runs the code itself: it needs a start command unless docker or compose starts it.
    const needsStart = spec.runsSource && !opts.start && (!stack.runtime || ((stack.runtime === 'python' || stack.runtime === 'node') && !stack.start));
    const resolvedStart = opts.start ?? (needsStart ? await settle(ctx, stack, 'start') : stack.start);
    const port = portFlag ?? (await settle(ctx, stack, 'port'));
    const name = slugName(opts.name ?? repoName(cleanUrl));
    if (opts.name !== undefined && name !== opts.name) warn(ctx, `--name "${opts.name}" is used as "${name}" (lower-case letters, digits and dashes)`);
    const unset = stack.env.filter((e) => !env.some((v) => v.name === e.name)).map((e) => e.name);
    if (unset.length) warn(ctx, `the repository reads ${unset.join(', ')} (its env example) and ${opts.envFile ? '--env-file does not set them' : 'no --env-file sets them'}`);

    const request = { name, url: cleanUrl, sha, stack: { ...stack, runtime: stack.runtime ?? ('shell' as const) }, port, start: resolvedStart, image, env, minReplicas, maxReplicas, healthPath, privateRepo: Boolean(token) };
    return withSession(ctx, async (session) => {
      // The provider compiles; what it reads goes through the executor, what it compiles through the one apply path (emit).
      const compiled = await deployer.compile(
        { ...request, target, location: opts.location, instanceType: opts.instanceType, autostop, options: providerOptions(opts) },
        { read: (plan) => readPlan(session, plan, { signal: ctx.signal }), predefined: session.predefined },
      );
      return emit(ctx, session, compiled, { ...stack, commit: sha, port, start: resolvedStart, target }, opts);
    });
  });
}

/** Prints the plan (or {stack, plan}), or applies it. */
async function emit(ctx: CommandContext, session: Session, compiled: DeployCompiled, stack: Record<string, unknown>, opts: DeployFlags): Promise<number> {
  ctx.io.stderr.write(`${compiled.mode === 'create' ? 'plan' : compiled.mode === 'update' ? 'update plan' : 'already deployed'}: ${compiled.plan.summary}\n`);
  for (const note of [compiled.plan.notes ?? []].flat()) ctx.io.stderr.write(`note: ${note}\n`);
  if (opts.apply) return applyDeploy(ctx, session, compiled, opts);
  // People get the plan document itself (to save and apply); -o json|yaml the analysis with it.
  ctx.out.value({ stack: { ...stack, chosen: compiled.chosen }, plan: planForWriting(compiled.plan) }, { table: planText(compiled.plan) });
  return ExitCode.ok;
}

/** The port or start command the analysis could not settle: asked on a terminal, refused in a pipe naming the flag. */
async function settle(ctx: CommandContext, stack: Stack, what: 'port'): Promise<number>;
async function settle(ctx: CommandContext, stack: Stack, what: 'start'): Promise<string>;
async function settle(ctx: CommandContext, stack: Stack, what: 'port' | 'start'): Promise<number | string> {
  if (what === 'port' && stack.port !== undefined) return stack.port;
  const problem =
    what === 'port'
      ? stack.portCandidates.length > 1
        ? `the repository names several ports (${stack.portCandidates.join(', ')}) and deploy cannot tell which one the service listens on`
        : 'no port found (no EXPOSE, compose ports, framework default or listen call)'
      : stack.language
        ? `no start command found for this ${stack.language}${stack.framework ? `/${stack.framework}` : ''} repository`
        : 'nothing to run found: no requirements.txt, pyproject.toml, package.json, Dockerfile or compose file';
  const flag = what === 'port' ? '--port' : '--start';
  if (!ctx.io.stdinIsTTY || !ctx.io.stderrIsTTY) {
    throw new InvalidInputError(what === 'port' ? 'port_unknown' : 'start_unknown', `${problem}; nothing was sent`, {
      hint: `say it with ${flag} ${what === 'port' ? '<port>' : '"<command>"'}`,
    });
  }
  ctx.io.stderr.write(`${problem}.\n`);
  const answer = await askLine(ctx, what === 'port' ? 'Port the service listens on:' : 'Command that starts the service:', (a) =>
    what === 'port' ? (/^\d+$/.test(a) && Number(a) > 0 && Number(a) < 65536 ? undefined : 'a port is a number from 1 to 65535') : /[\u0000-\u001f]/.test(a) ? 'one line, please' : undefined,
  );
  return what === 'port' ? Number(answer) : answer;
}

/**
 * An instance or VM fetches the repository itself (its startup script clones the URL): a local path or
 * file:// URL is on this machine only, so deploying it would bill for an instance that can never start
 * the service. Refused (exit 2) before anything is priced or sent; a container target ships an image
 * instead and needs no fetch.
 */
function refuseUnshippable(url: string, target: string): void {
  const kind = remoteKind(url);
  if (kind === 'local' || kind === 'file') {
    throw new InvalidInputError('repository_unreachable', `${url} is a path on this machine: the ${target} clones the repository itself and cannot fetch it from here; nothing was priced or sent`, {
      hint: 'push it to a repository host and deploy that URL, or deploy a prebuilt image with --target container --image <registry/name:tag>',
    });
  }
}

/** --apply (and --dry-run) through the one apply module, with the secrets bound for this run only. */
async function applyDeploy(ctx: CommandContext, session: Session, compiled: DeployCompiled, opts: DeployFlags): Promise<number> {
  const flags = {
    destroyer: false,
    resume: Boolean(opts.resume),
    fresh: Boolean(opts.fresh),
    secretBindings: compiled.secretBindings,
    resumeWith: 'assistant deploy <repo_url> --apply',
    extra: (report: { bindings: Record<string, string> }) => ({ url: compiled.url.replace(/<([A-Z_]+)>/g, (whole, k: string) => report.bindings[k] ?? whole) }),
  };
  if (opts.dryRun) return dryRunInSession(ctx, session, compiled.plan, flags);
  return applyInSession(ctx, session, compiled.plan, flags);
}

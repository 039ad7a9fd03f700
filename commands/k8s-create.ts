/**
 * `assistant k8s create gpucloud|eks|gke|kubeadm <name>` and `k8s delete gpucloud <name>`: each compiles
 * to one plan (engine/producers/k8s-create/) and goes through the apply path of `ask --apply` (validation, gate,
 * journal, `--resume`, progress, exit codes); `--plan` prints the plan instead, `--dry-run` previews it.
 * The compiled plan is kept in ~/.assistant/k8s/ so `--resume` continues exactly the plan that started,
 * even if the catalogue (availability) changed since.
 */
import { readFileSync } from 'node:fs';
import { ensurePrivateDir, writePrivateFile } from '../engine/core/private-file.js';
import { join } from 'node:path';
import { PlanSchema, type Plan } from '../schemas/plan.js';
import { ExitCode, InvalidInputError, SafetyRefusal, UsageError } from '../engine/core/errors.js';
import { planHash, RunJournal } from '../engine/core/plan/journal.js';
import { SANDBOX_SCOPE } from '../engine/core/plan/backend.js';
import { compileGpuCloudCreate, DEFAULT_SHARED_VOLUME_GB } from '../engine/producers/k8s-create/gpucloud.js';
import { compileEksCreate } from '../engine/producers/k8s-create/eks.js';
import { compileGkeCreate } from '../engine/producers/k8s-create/gke.js';
import { compileKubeadmCreate } from '../engine/producers/k8s-create/kubeadm.js';
import { compileKubeadmMachines, isWorkerCount, workerCount } from '../engine/producers/k8s-create/kubeadm-machines.js';
import { requireClusterName, type CatalogueRead } from '../engine/producers/k8s-create/common.js';
import { forgetSandboxCluster, sandboxKubeconfig } from '../engine/producers/sandbox/sandbox.js';
import { assertContextFree, kubeconfigPathFor } from '../engine/core/kubeconfig/kubeconfig-write.js';
import { expandHome } from '../engine/core/kubeconfig/kubeconfig.js';
import { planConsent, readPlan, readResult } from '../machines/apply/index.js';
import { PROVIDER_MANIFEST, providersWith, providerWith, type CapableProvider } from '../engine/providers/index.js';
import { placeholdersIn } from '../engine/core/plan/bindings.js';
import { applyInSession, dryRunInSession } from './apply.js';
import { warn, type CommandContext } from './context.js';
import { runGroup } from './group.js';
import { confirmByTyping } from './prompt.js';
import { withSession, type Session } from './session.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { formatAmount } from '../engine/core/render/money.js';
import { planText } from '../engine/core/plan/writer.js';

/** The flags every create takes (after its own, in --help). */
const COMMON = {
  plan: flag.bool().option('--plan', 'Print the plan (JSON) on stdout; nothing is created'),
  dryRun: flag.bool().option('--dry-run', 'Show the steps and what they cost; only reads are sent'),
  resume: flag.bool().option('--resume', 'Continue the unfinished run of this cluster plan (the plan kept when it started)'),
  fresh: flag.bool().option('--fresh', 'Start the plan again although it ran before'),
} satisfies FlagSpec;

const useContext = () => flag.bool().option('--use-context', 'Make <name> the current kubeconfig context');

/**
 * What each create's flags are (kubeadm's help names the machine makers the registry knows); its options
 * type is derived from the table. Counts (`--nodes`, `--shared-volume`, kubeadm's `--workers <n|ips>`)
 * stay text: the compilers check them, for the MCP tools too.
 */
const flagTable = (makers: readonly CapableProvider<'machines'>[]) =>
  ({
    gpucloud: {
      clusterType: flag.text().option('--cluster-type <code>', 'Cluster type (default: the cheapest available in the location)'),
      location: flag.text().option('--location <code>', 'Location (default: gpucloud.default_location, else where the type is available)'),
      image: flag.text().option('--image <image>', 'Cluster image (default: the one labelled for Kubernetes)'),
      sharedVolume: flag.text().option('--shared-volume <GB>', `Size of the cluster's shared file system (default ${DEFAULT_SHARED_VOLUME_GB} GB, the smallest; the API alone would make 30000 GB)`),
      useContext: useContext(),
      // Seconds, from `90`, `30m` or `1h30m`.
      waitTimeout: flag.duration(86_400).option('--wait-timeout <duration>', 'How long to wait for the cluster to run: 1800, 30m, 1h (default 30m)'),
      pollInterval: flag.duration(86_400).option('--poll-interval <duration>', 'How often to ask while waiting: 10, 10s (default 10s)'),
      ...COMMON,
    },
    eks: {
      nodes: flag.text().option('--nodes <n>', 'Worker nodes (default 2)'),
      workers: flag.text().option('--workers <n>', 'Same as --nodes'),
      nodeType: flag.text().option('--node-type <type>', 'Instance type of the nodes (default t3.medium)'),
      roleArn: flag.text().option('--role-arn <arn>', 'IAM role of the control plane (default: the plan makes it and the node role, as eksctl does; needs --destroyer)'),
      nodeRoleArn: flag.text().option('--node-role-arn <arn>', 'IAM role of the nodes (default: --role-arn)'),
      subnets: flag.text().option('--subnets <ids>', 'Comma-separated subnet IDs, two zones at least (default: the plan makes a VPC with public and private subnets in two zones)'),
      region: flag.text().option('--region <region>', "Region (default: kubernetes.clusters.<name>.region, else the profile's)"),
      profile: flag.text().option('--profile <name>', 'cloud_a profile (default: kubernetes.clusters.<name>.profile)'),
      destroyer: flag.bool().option('--destroyer', 'Permit the steps that change permissions or routing: the IAM roles and route tables the plan makes without --role-arn/--subnets'),
      ...COMMON,
    },
    gke: {
      nodes: flag.text().option('--nodes <n>', 'Nodes (default 3)'),
      workers: flag.text().option('--workers <n>', 'Same as --nodes'),
      nodeType: flag.text().option('--node-type <type>', 'Machine type (default e2-standard-4)'),
      gcpProject: flag.text().option('--gcp-project <id>', 'Project (required)'),
      location: flag.text().option('--location <zone|region>', "Zone or region (default: gcloud's configured one)"),
      ...COMMON,
    },
    kubeadm: {
      workers: flag.text().option('--workers <n|ips>', 'A count: create the control plane and <n> worker machines; or comma-separated worker hosts to join (with --host)'),
      host: flag.text().option('--host <ip>', 'The control-plane host you already have (with --workers <ip,…>)'),
      provider: flag.text().option('--provider <name>', `Who makes the machines: ${makers.map((m, i) => `${m.name}${i === 0 ? ' (default)' : ''}: ${m.capabilities.machines.about}`).join('; ')}`),
      instanceType: flag.text().option('--instance-type <type>', `Instance type of the machines it creates (default: ${byMaker(makers, (d) => d.instanceType)})`),
      location: flag.text().option('--location <code>', `Location of the machines it creates (default: ${byMaker(makers, (d) => d.location)})`),
      image: flag.text().option('--image <image>', `OS image of the machines it creates, Ubuntu (default: ${byMaker(makers, (d) => d.image)})`),
      sshFrom: flag.text().option('--ssh-from <cidr>', `Where SSH and the Kubernetes API may be reached from, for machines with a firewall (required with ${makers.filter((m) => m.capabilities.machines.needsCallerCidr).map((m) => `--provider ${m.name}`).join(', ') || 'none'}), e.g. 203.0.113.7/32`),
      useContext: useContext(),
      ...COMMON,
    },
  }) satisfies Record<string, FlagSpec>;

type Flags = ReturnType<typeof flagTable>;

/** `k8s delete gpucloud`'s flags. */
const DELETE_FLAGS = {
  gpucloud: {
    plan: flag.bool().option('--plan', 'Print the plan (JSON) on stdout; nothing is deleted'),
    dryRun: flag.bool().option('--dry-run', 'Show the step; only reads are sent'),
  },
} satisfies Record<string, FlagSpec>;

type CommonOptions = OptionsOf<typeof COMMON>;

/** An empty value is no value (`--location ""` leaves the default). */
const str = (v: string | undefined): string | undefined => (v === '' ? undefined : v);

/** Reads through the executor (a one-step read plan), as the dry-run preview does. */
function catalogueRead(session: Session): CatalogueRead {
  return (args) => readResult(session, { version: 1, provider: 'gpucloud', commands: [{ args, reason: 'read the catalogue to compile the plan' }] });
}

/** `argv` is what follows `assistant k8s create`. */
export async function runK8sCreate(ctx: CommandContext, argv: string[]): Promise<number> {
  // Who can make machines for kubeadm: the registry's answer (their light capability modules only).
  const machineMakers = await providersWith('machines');
  const flags = flagTable(machineMakers);
  return runGroup('k8s create', argv, ctx, { flags }, (cli, start) => {
    withFlags(cli.command('gpucloud <name>', 'Kubernetes on a gpucloud Instant Cluster: create it, wait until it runs, merge its kubeconfig as context <name>'), flags.gpucloud)
      .example('  assistant k8s create gpucloud gpu-k8s --dry-run                 # what it creates and costs per hour')
      .example('  assistant k8s create gpucloud gpu-k8s --plan')
      .example('  assistant k8s create gpucloud gpu-k8s --cluster-type 16H100 --location FIN-01 --use-context')
      .action((name: string, opts: OptionsOf<Flags['gpucloud']>) => start(() => createGpuCloud(ctx, name, opts)));
    withFlags(cli.command('eks <name>', 'An EKS cluster with one node group (cloud_a CLI steps)'), flags.eks)
      .example('  assistant k8s create eks e1 --nodes 3 --node-type m5.large --dry-run     # the VPC, roles and cluster it makes, priced')
      .example('  assistant k8s create eks e1 --nodes 3 --node-type m5.large --destroyer')
      .example('  assistant k8s create eks e1 --role-arn arn:aws:iam::123456789012:role/eks --subnets subnet-0a1,subnet-0b2')
      .action((name: string, opts: OptionsOf<Flags['eks']>) =>
      start(() =>
        withSession(ctx, async (session) => {
          const configured = session.config.kubernetes?.clusters?.[name];
          const plan = savedFor(ctx, `eks-${name}`, opts) ?? await compileEksCreate({
            name,
            nodes: opts.nodes ?? opts.workers,
            nodeType: str(opts.nodeType),
            roleArn: str(opts.roleArn),
            nodeRoleArn: str(opts.nodeRoleArn),
            subnets: str(opts.subnets),
            region: str(opts.region) ?? configured?.region,
            profile: str(opts.profile) ?? configured?.profile,
            kubeconfig: session.config.kubernetes?.kubeconfig ? expandHome(session.config.kubernetes.kubeconfig, ctx.home) : undefined,
          }, (args) => readResult(session, { version: 1, provider: 'cloud_a', commands: [{ args, reason: 'read the zones to compile the plan' }] }));
          // Roles and routing the plan makes change who may do what and where traffic goes: --destroyer (the dry run says which steps).
          return applyCompiled(ctx, session, `eks-${name}`, plan, opts, { what: `Create EKS cluster ${name}`, expected: name, priced: true, irreversible: false }, Boolean(opts.destroyer));
        }),
      ),
    );
    withFlags(cli.command('gke <name>', 'A GKE cluster (cloud_b CLI steps)'), flags.gke).action((name: string, opts: OptionsOf<Flags['gke']>) =>
      start(() =>
        withSession(ctx, async (session) => {
          const plan = savedFor(ctx, `gke-${name}`, opts) ?? compileGkeCreate({ name, nodes: opts.nodes ?? opts.workers, nodeType: str(opts.nodeType), gcpProject: str(opts.gcpProject), location: str(opts.location) });
          return applyCompiled(ctx, session, `gke-${name}`, plan, opts, { what: `Create GKE cluster ${name}`, expected: name });
        }),
      ),
    );
    withFlags(
      cli.command('kubeadm <name>', 'Kubernetes with kubeadm: on new machines (--workers <n>, gpucloud instances or --provider\'s), or on hosts you reach as root over SSH (--host)'),
      flags.kubeadm,
    )
      .example('  assistant k8s create kubeadm lab --workers 2 --dry-run            # the 3 machines it creates and what they cost')
      .example('  assistant k8s create kubeadm lab --workers 2 --provider cloud_a --ssh-from 203.0.113.7/32 --dry-run')
      .example('  assistant k8s create kubeadm lab --host 10.0.0.5 --workers 10.0.0.6,10.0.0.7')
      .action((name: string, opts: OptionsOf<Flags['kubeadm']>) => start(() => createKubeadm(ctx, name, opts, machineMakers)));
  });
}


async function createGpuCloud(ctx: CommandContext, name: string, opts: OptionsOf<Flags['gpucloud']>): Promise<number> {
  requireClusterName(name, 'gpucloud');
  return withSession(ctx, async (session) => {
    const plan =
      savedFor(ctx, `gpucloud-${name}`, opts) ??
      (await compileGpuCloudCreate(
        {
          name,
          clusterType: str(opts.clusterType),
          location: str(opts.location),
          image: str(opts.image),
          sharedVolumeGb: opts.sharedVolume,
          // The sandbox kubeconfig is the sandbox's own: the cluster just made is the one to use next.
          useContext: Boolean(opts.useContext) || ctx.globals.sandbox,
          defaultLocation: session.predefined.DEFAULT_LOCATION,
          waitTimeoutS: opts.waitTimeout,
          pollIntervalS: opts.pollInterval,
        },
        catalogueRead(session),
      ));
    if (!opts.plan && !opts.dryRun) {
      if (!session.predefined.DEFAULT_SSH_KEY_ID) {
        throw new InvalidInputError('no_default_ssh_key', 'the cluster needs an SSH key and gpucloud.default_ssh_key_id is not set; nothing was sent', {
          hint: "list your keys with 'assistant gpucloud list ssh-keys' and set gpucloud.default_ssh_key_id",
        });
      }
      await checkPreflights(session, plan, name, opts);
    }
    const code = await applyCompiled(ctx, session, `gpucloud-${name}`, plan, opts, { what: `Create Instant Cluster ${name}`, after: `delete it with 'assistant k8s delete gpucloud ${name}'`, expected: name, priced: true });
    if (code === ExitCode.ok && ctx.globals.sandbox && !opts.plan && !opts.dryRun) {
      ctx.io.stderr.write(`sandbox: context ${name} was merged into ${sandboxKubeconfig(ctx.home)} (not your kubeconfig) and is its current context; the sandbox's Kubernetes API stand-in answers for it: try 'assistant --sandbox k8s get nodes'\n`);
    }
    return code;
  });
}

/** kubeadm on machines the plan creates (`--workers <n>` without --host), or on hosts you have (`--host`). */
async function createKubeadm(ctx: CommandContext, name: string, opts: OptionsOf<Flags['kubeadm']>, makers: readonly CapableProvider<'machines'>[]): Promise<number> {
  const makes = opts.host === undefined && isWorkerCount(opts.workers);
  if (!makes && opts.host !== undefined && isWorkerCount(opts.workers)) {
    throw new UsageError('--workers is a count only when the plan creates the machines; with --host it takes worker addresses', { hint: 'assistant k8s create kubeadm lab --workers 2 (new machines), or --host 10.0.0.5 --workers 10.0.0.6,10.0.0.7' });
  }
  const forMachines = (['instanceType', 'location', 'image', 'provider', 'sshFrom'] as const).filter((k) => opts[k] !== undefined);
  if (!makes && forMachines.length) {
    throw new UsageError('--provider, --instance-type, --location, --image and --ssh-from are for the machines --workers <n> creates, not for --host', { hint: 'assistant k8s create kubeadm lab --workers 2 --instance-type CPU.4V.16G' });
  }
  const maker = makes ? machineMaker(makers, str(opts.provider)) : undefined;
  if (maker && opts.sshFrom !== undefined && !maker.capabilities.machines.needsCallerCidr) {
    throw new UsageError(`--ssh-from opens a firewall, and ${maker.name}'s machines have none to open (${maker.capabilities.machines.about})`, { hint: `leave --ssh-from out, or choose a provider whose machines have one: ${makers.filter((m) => m.capabilities.machines.needsCallerCidr).map((m) => `--provider ${m.name}`).join(', ') || 'none'}` });
  }
  return withSession(ctx, async (session) => {
    const plan =
      savedFor(ctx, `kubeadm-${name}`, opts) ??
      (maker
        ? await compileKubeadmMachines(
            {
              name,
              workers: opts.workers,
              instanceType: str(opts.instanceType),
              location: str(opts.location),
              image: str(opts.image),
              callerCidr: str(opts.sshFrom),
              // Only for a provider that puts the key on the machines itself: the others need no key to compile.
              sshPublicKey: maker.capabilities.machines.needsSshPublicKey ? await sshPublicKey(session) : undefined,
              useContext: Boolean(opts.useContext),
            },
            maker.capabilities.machines,
            { read: (p) => readPlan(session, p, { signal: ctx.signal }), predefined: session.predefined },
          )
        : compileKubeadmCreate({ name, host: str(opts.host), workers: str(opts.workers), useContext: Boolean(opts.useContext) }));
    if (!opts.plan && !opts.dryRun) {
      // A predefined value the machines need (gpucloud's SSH key ID) said plainly before anything is sent.
      if (placeholdersIn(JSON.stringify(plan.commands)).includes('DEFAULT_SSH_KEY_ID') && !session.predefined.DEFAULT_SSH_KEY_ID) {
        throw new InvalidInputError('no_default_ssh_key', 'the machines need an SSH key and gpucloud.default_ssh_key_id is not set; nothing was sent', {
          hint: "list your keys with 'assistant gpucloud list ssh-keys' and set gpucloud.default_ssh_key_id",
        });
      }
      await checkPreflights(session, plan, name, opts);
    }
    return maker
      ? applyCompiled(ctx, session, `kubeadm-${name}`, plan, opts, { what: `Create ${workerCount(opts.workers) + 1} instances and install Kubernetes (kubeadm) as cluster ${name}`, after: `${maker.name}; delete the instances to stop the bill: the plan's notes say how`, expected: name, priced: true })
      : applyCompiled(ctx, session, `kubeadm-${name}`, plan, opts, { what: `Install Kubernetes (kubeadm) as cluster ${name} on the given hosts`, expected: name });
  });
}

/** Each machine maker's default for a flag, for --help (`gpucloud: …; cloud_a: …`). */
const byMaker = (makers: readonly CapableProvider<'machines'>[], pick: (d: CapableProvider<'machines'>['capabilities']['machines']['defaults']) => string) =>
  makers.map((m) => `${m.name}: ${pick(m.capabilities.machines.defaults)}`).join('; ');

/** The provider `--provider` names (default: the first that makes machines), or a usage error naming those that can. */
function machineMaker(makers: readonly CapableProvider<'machines'>[], wanted: string | undefined): CapableProvider<'machines'> {
  const chosen = wanted === undefined ? makers[0] : makers.find((m) => m.name === wanted);
  if (chosen) return chosen;
  const can = makers.map((m) => m.name).join(', ');
  throw new UsageError(wanted === undefined ? 'no provider of this build makes machines' : `--provider ${wanted} cannot make machines for kubeadm`, { hint: `providers that can: ${can || 'none'} (e.g. --provider ${makers[0]?.name ?? 'gpucloud'})` });
}

/** The public key line of the key the SSH steps log in with, from the ssh provider (its session client is the settings). */
const sshPublicKey = async (session: Session): Promise<string> => (await providerWith('preflight', 'ssh'))!.capabilities.preflight.publicKey!(await session.runContext().client('ssh'));

/**
 * What must hold before a cluster is paid for: each provider whose steps the plan runs passes its
 * preflight (ssh: the key that fetches the kubeconfig is readable), and the context name its steps
 * write is free (or the same cluster's). The providers come from the steps' verbs, not from the plan's
 * `provider` field (a saved plan could leave one out). A resumed run skips the name check: its own merge
 * may already have happened.
 */
async function checkPreflights(session: Session, plan: Plan, name: string, opts: CommonOptions): Promise<void> {
  const verbs = new Set(plan.commands.map((c) => c.args[0]));
  const running = new Set(PROVIDER_MANIFEST.filter((e) => e.verbs.some((v) => verbs.has(v))).map((e) => e.name));
  for (const provider of await providersWith('preflight')) {
    if (!running.has(provider.name)) continue;
    // The provider's session client: for ssh, the configured key and kubeconfig, or in the sandbox its stand-in's.
    const { kubeconfigPath } = provider.capabilities.preflight.check(await session.runContext().client(provider.name));
    if (!opts.resume && kubeconfigPath) assertContextFree(kubeconfigPath, name);
  }
}

const planDir = (ctx: CommandContext) => join(ctx.home, '.assistant', 'k8s');

/** With --resume: the plan kept when this cluster's run started, so the same plan (and journal) continues. */
function savedFor(ctx: CommandContext, key: string, opts: CommonOptions): Plan | undefined {
  if (!opts.resume) return undefined;
  try {
    return JSON.parse(readFileSync(join(planDir(ctx), `${key}.plan.json`), 'utf8')) as Plan;
  } catch {
    return undefined;
  }
}

/**
 * The kept plan is what --resume continues: a new run with other flags must not replace the plan of a
 * run that is still unfinished (its cluster may exist already), unless asked to with --fresh.
 */
function refuseIfAnotherUnfinished(ctx: CommandContext, key: string, plan: Plan): void {
  const raw = savedFor(ctx, key, { resume: true });
  // Journals are keyed by the plan as validation parses it (schema key order), so hash that form.
  const kept = raw && PlanSchema.safeParse(raw).data;
  if (!kept || planHash(kept) === planHash(PlanSchema.parse(plan))) return;
  const state = RunJournal.forPlan(ctx.home, kept, ctx.globals.sandbox ? SANDBOX_SCOPE : undefined).load();
  if (!state || state.finished) return;
  throw new SafetyRefusal(`an unfinished run of this cluster's plan exists (${state.completed.size} of ${state.steps} steps done) with other settings; starting another could create a second cluster`, {
    hint: `continue it with --resume, or start over with --fresh (its plan: ${join(planDir(ctx), `${key}.plan.json`)})`,
  });
}

/** Kept exactly as it runs (not through the plan writer): --resume must find this plan's journal by its hash. */
function keepPlan(ctx: CommandContext, key: string, plan: Plan): string {
  ensurePrivateDir(planDir(ctx));
  const file = join(planDir(ctx), `${key}.plan.json`);
  writePrivateFile(file, JSON.stringify(plan, null, 2) + '\n');
  return file;
}

interface Confirmation {
  what: string;
  /** What the user types to confirm (the cluster name). */
  expected: string;
  /** Said after the price (how to undo it). */
  after?: string;
  /** Show what it costs per hour (from the same prices as --dry-run) in the question, or on stderr with --yes. */
  priced?: boolean;
  /** Says "This cannot be undone" (default: when --destroyer is given, a deletion's case). */
  irreversible?: boolean;
}

/**
 * What the plan asks for, step by step from its requests (machines/apply/consent.ts), and what its
 * changes add per hour: "30.26 USD/hour (21787.20 per 30 days)" (undefined when they add nothing).
 */
async function consentOf(ctx: CommandContext, session: Session, plan: Plan): Promise<{ lines: string[]; price?: string }> {
  const consent = await planConsent(session, plan, { signal: ctx.signal });
  const total = consent.steps.reduce((s, c) => s + (c.price?.price === 'priced' ? Math.max(0, c.price.per_hour) : 0), 0);
  const unknown = consent.steps.some((c) => c.price?.price === 'unpriced') ? ', plus what could not be priced' : '';
  const cur = consent.currency.toUpperCase();
  const lines = [`About to apply ${consent.steps.length} step(s):`, ...consent.lines];
  return { lines, price: total > 0 ? `${formatAmount(total)} ${cur}/hour (${formatAmount(total * 720)} per 30 days${unknown})` : undefined };
}

/** --plan prints; --dry-run previews; else confirm (unless --yes or resuming) and apply like `ask --apply`. */
async function applyCompiled(ctx: CommandContext, session: Session, key: string, plan: Plan, opts: CommonOptions, confirmation: Confirmation, destroyer = false): Promise<number> {
  if (opts.plan) {
    ctx.out.text(planText(plan));
    return ExitCode.ok;
  }
  if (opts.dryRun) return dryRunInSession(ctx, session, plan, { destroyer });
  if (!opts.resume) {
    const consent = await consentOf(ctx, session, plan);
    ctx.io.stderr.write(consent.lines.join('\n') + '\n');
    const price = confirmation.priced ? consent.price : undefined;
    const what = `${confirmation.what}${price ? ` at ${price}` : ''}${confirmation.after ? ` (${confirmation.after})` : ''}`;
    if (price && ctx.globals.yes) ctx.io.stderr.write(`${what}: billed until you delete it\n`);
    await confirmByTyping(ctx, what, confirmation.expected, confirmation.irreversible ?? destroyer ? 'This cannot be undone.' : 'It is billed until you delete it; review it first with --plan or --dry-run.');
  }
  if (!opts.resume && !opts.fresh) refuseIfAnotherUnfinished(ctx, key, plan);
  const file = keepPlan(ctx, key, plan);
  ctx.io.stderr.write(`plan kept in ${file} (continue it with --resume, or: assistant ask --apply --resume --plan-file ${file})\n`);
  return applyInSession(ctx, session, plan, { destroyer, resume: Boolean(opts.resume), fresh: Boolean(opts.fresh), resumeWith: 'assistant k8s create …' });
}

/** `argv` is what follows `assistant k8s delete`. */
export async function runK8sDelete(ctx: CommandContext, argv: string[]): Promise<number> {
  return runGroup('k8s delete', argv, ctx, { flags: DELETE_FLAGS }, (cli, start) => {
    withFlags(cli.command('gpucloud <name>', 'Delete (discontinue) the Instant Cluster <name>: a destructive plan, confirmed by typing the name (--yes skips)'), DELETE_FLAGS.gpucloud)
      .action((name: string, opts: OptionsOf<typeof DELETE_FLAGS.gpucloud>) =>
        start(() =>
          withSession(ctx, async (session) => {
            requireClusterName(name, 'gpucloud');
            const read = (plan: Plan) => readResult(session, plan);
            const record = await (await providerWith('records', 'gpucloud'))!.capabilities.records.resolve(read, 'clusters', name);
            const id = String(record.id);
            const plan: Plan = {
              version: 1,
              provider: 'gpucloud',
              summary: `delete Instant Cluster ${name} (${id})`,
              commands: [{ args: ['gpucloud-api', 'PUT', '/v1/clusters', JSON.stringify({ actions: [{ action: 'discontinue', id }] })], reason: `discontinue (delete) Instant Cluster ${name}` }],
            };
            const code = await applyCompiled(ctx, session, `delete-gpucloud-${name}`, plan, { ...opts, fresh: true }, { what: `Discontinue (delete) Instant Cluster ${name} (${id}) and everything on it`, expected: name }, true);
            if (code === ExitCode.ok && !opts.plan && !opts.dryRun) {
              if (ctx.globals.sandbox) {
                // The sandbox's kubeconfig and API stand-in are its own: the cluster's context and objects go with it.
                const removed = await forgetSandboxCluster(ctx.home, name);
                ctx.io.stderr.write(`sandbox: ${removed ? `context ${name} was removed from ${sandboxKubeconfig(ctx.home)}` : `no context ${name} in ${sandboxKubeconfig(ctx.home)}`}; the stand-in's objects of ${name} are gone\n`);
              } else {
                const path = kubeconfigPathFor(session.config, ctx.env, ctx.home);
                const kubectl = `KUBECONFIG=${path} kubectl config`;
                ctx.io.stderr.write(`its kubeconfig context is kept in ${path}; remove it with: ${kubectl} delete-context ${name}; ${kubectl} delete-cluster ${name}; ${kubectl} delete-user ${name}\n`);
              }
            }
            return code;
          }),
        ),
      );
  });
}

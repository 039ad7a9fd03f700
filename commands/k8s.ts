/**
 * `assistant k8s create|deploy|delete|get|logs|stats|ask`. Thin wiring: flags → cluster and namespace →
 * a plan of k8s steps (engine/providers/k8s/plans.ts) → the one executor (applies through the same path as
 * `ask --apply`) → renderers. `create` belongs to commands/k8s-create.ts.
 */
import { q } from '../engine/core/render/quote.js';
import { loadConfig } from '../engine/providers/config.js';
import { ExitCode, InvalidInputError, OperationError, UsageError } from '../engine/core/errors.js';
import { KubeApiError, type KubeClient } from '../engine/providers/k8s/client.js';
import { findK8sKind, type K8sKind } from '../engine/providers/k8s/kinds.js';
import { contextFor } from '../engine/core/kubeconfig/kubeconfig.js';
import { sandboxedConfig } from '../engine/producers/sandbox/sandbox.js';
import { deletePlan, deployPlan, listPlan, logPath, logsPlan, statsPlan } from '../engine/providers/k8s/plans.js';
import { formatBytes, formatCores } from '../engine/providers/k8s/quantity.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { clusterRow, nodeRows, podRows, sortRows, statsColumns, type StatsRow } from '../engine/providers/k8s/stats.js';
import type { Plan } from '../schemas/plan.js';
import type { Config } from '../schemas/config.js';
import { askCluster } from '../machines/k8s/k8s-ask.js';
import { cliAskContext, cliAskObserver } from './ask-observer.js';
import { readPlan, readResult } from '../machines/apply/index.js';
import { applyInput, dryRunInput } from './apply.js';
import type { CommandContext } from './context.js';
import { runGroup } from './group.js';
import { createAnswerPrinter, createPhaseSpinner } from './progress.js';
import { withSession } from './session.js';
import { planText } from '../engine/core/plan/writer.js';

/** Where a command reads or writes: every subcommand's flags end with these. */
const WHERE = {
  cluster: flag.text().option('--cluster <name>', 'Cluster: kubernetes.clusters.<name> in config, or a kubeconfig context (default: kubernetes.default_context, else the current context)'),
  namespace: flag.text().option('-n, --namespace <ns>', "Namespace (default: kubernetes.default_namespace, else the context's)"),
  profile: flag.text().option('--profile <name>', "The aws profile an eks cluster's credential plugin (aws eks get-token) uses (default: kubernetes.clusters.<name>.profile)"),
  region: flag.text().option('--region <region>', "The region that plugin uses (default: kubernetes.clusters.<name>.region)"),
} satisfies FlagSpec;
/** The commands that read may also read every namespace (`-A`), each saying what of it. */
const allNamespaces = (help: string) => flag.bool().option('-A, --all-namespaces', help);
const READ_WHERE = { allNamespaces: allNamespaces('Every namespace'), ...WHERE } satisfies FlagSpec;

/** What each subcommand's flags are (in --help order); their options types are derived from it. */
const FLAGS = {
  deploy: {
    name: flag.text().option('--name <name>', 'Name of the Deployment and Service'),
    port: flag.port().option('--port <port>', 'Container port, also the Service port'),
    replicas: flag.int(0, 10_000).option('--replicas <n>', 'Replicas', { default: 1 }),
    /** Seconds. */
    rolloutTimeout: flag.int(1, 86_400).option('--rollout-timeout <s>', 'Seconds the rollout may take', { default: 600 }),
    plan: flag.bool().option('--plan', 'Print the plan (JSON) and send nothing'),
    dryRun: flag.bool().option('--dry-run', 'Show the steps (with the kubectl equivalents) and send only reads'),
    destroyer: flag.bool().option('--destroyer', 'Permit destructive steps (--replicas 0)'),
    resume: flag.bool().option('--resume', 'Continue an unfinished run of the same deploy'),
    fresh: flag.bool().option('--fresh', 'Start the same deploy again from its first step'),
    ...WHERE,
  },
  delete: {
    destroyer: flag.bool().option('--destroyer', 'Permit the deletion'),
    plan: flag.bool().option('--plan', 'Print the plan (JSON) and send nothing'),
    ...WHERE,
  },
  get: READ_WHERE,
  /** `since` in seconds. */
  logs: {
    tail: flag.int(0, 10_000_000).option('--tail <n>', 'Only the last n lines'),
    since: flag.duration().option('--since <duration>', 'Only lines newer than this (30s, 10m, 2h)'),
    follow: flag.bool().option('-f, --follow', 'Stream new lines until Ctrl-C or the pod ends'),
    container: flag.text().option('-c, --container <name>', 'The container (pods with several)'),
    ...WHERE,
  },
  stats: { allNamespaces: allNamespaces('Pods of every namespace'), sortBy: flag.oneOf(['cpu', 'memory']).option('--sort-by <field>', 'cpu or memory (highest first)'), ...WHERE },
  ask: {
    allNamespaces: allNamespaces('Read every namespace'),
    aiProfile: flag.text().option('--ai-profile <name>', 'AI provider profile; "builtin" answers without a model'),
    newConversation: flag.bool().option('--new-conversation', "Forget this cluster's earlier questions first"),
    history: flag.bool().option('--no-history', 'Neither use nor record the conversation'),
    agentTrace: flag.bool().option('--agent-trace', "Print the ask flow's state transitions on stderr"),
    ...WHERE,
  },
} satisfies Record<string, FlagSpec>;

type Where = OptionsOf<typeof READ_WHERE>;
type DeployFlags = OptionsOf<typeof FLAGS.deploy>;
type DeleteFlags = OptionsOf<typeof FLAGS.delete>;
type LogFlags = OptionsOf<typeof FLAGS.logs>;
type StatsFlags = OptionsOf<typeof FLAGS.stats>;
type AskFlags = OptionsOf<typeof FLAGS.ask>;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function checkLabel(value: string, what: string): string {
  if (!DNS_LABEL.test(value) || value.length > 63) {
    throw new UsageError(`${what} ${q(value)} is not a valid Kubernetes name`, { hint: 'use at most 63 lower-case letters, digits and "-", starting and ending with a letter or digit' });
  }
  return value;
}

/** The cluster's context and the namespaces a command reads (undefined: all) or writes into. */
/** The aws profile and region of a cluster's credential plugin: the flags, else the cluster's config entry. */
interface ClusterAuth {
  profile?: string;
  region?: string;
}

async function target(ctx: CommandContext, where: Where): Promise<{ config: Config; context: string; readNs: string | undefined; writeNs: string; auth: ClusterAuth }> {
  const loaded = (await loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env })).config;
  // In the sandbox the clusters are the sandbox kubeconfig's (the ones `--sandbox k8s create` made).
  const config = ctx.globals.sandbox ? sandboxedConfig(loaded, ctx.home) : loaded;
  const { context, kubeconfig } = ctx.globals.sandbox ? sandboxContext(config, ctx, where.cluster) : contextFor(config, ctx.env, ctx.home, where.cluster);
  const fromContext = kubeconfig.contexts.get(context)?.value.namespace;
  const contextNs = typeof fromContext === 'string' && fromContext ? fromContext : 'default';
  const flagNs = where.namespace ? checkLabel(where.namespace, 'namespace') : undefined;
  const configured = config.kubernetes?.default_namespace;
  // kubernetes.default_namespace: "" reads every namespace (SPEC); unset follows the context, like kubectl.
  const readNs = where.allNamespaces ? undefined : flagNs ?? (configured !== undefined ? configured.trim() || undefined : contextNs);
  const writeNs = flagNs ?? (configured?.trim() || contextNs);
  const entry = where.cluster ? config.kubernetes?.clusters?.[where.cluster] : undefined;
  const entryAuth = entry && entry.type !== 'existing' ? { profile: entry.profile, region: entry.region } : {};
  const auth = { profile: where.profile ?? entryAuth.profile, region: where.region ?? entryAuth.region };
  return { config, context, readNs, writeNs, auth };
}

/** The sandbox kubeconfig's context; with none yet, the hint says how the sandbox makes one. */
function sandboxContext(config: Config, ctx: CommandContext, cluster: string | undefined): ReturnType<typeof contextFor> {
  try {
    return contextFor(config, ctx.env, ctx.home, cluster);
  } catch (err) {
    if (!(err instanceof InvalidInputError) || err.code !== 'no_kubeconfig') throw err;
    throw new InvalidInputError('no_kubeconfig', `the sandbox has no cluster yet (its kubeconfig: ${config.kubernetes?.kubeconfig})`, {
      hint: 'create one: assistant --sandbox k8s create gpucloud demo --yes',
    });
  }
}

/** Whether a producer's plan runs as new, resumed or again: a finished run of the same command runs again (it was asked for now). */
/** What `assistant k8s --help` says after the commands. */
const FOOTER =
  'Global flags: -o table|json|yaml, --yes, --debug, --timeout <s>, --config <path>. Credentials come from the kubeconfig (kubernetes.kubeconfig, KUBECONFIG, ~/.kube/config).';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  if (argv[0] === 'create') return clusterCommand('create', argv.slice(1), ctx);
  if (argv[0] === 'delete' && argv[1] === 'gpucloud') return clusterCommand('delete', argv.slice(1), ctx);
  return runGroup('k8s', argv, ctx, { footer: FOOTER, flags: FLAGS }, (cli, start) => {
    cli.command('create [...args]', 'Create a cluster (gpucloud, eks, gke, kubeadm) as a plan');
    withFlags(cli.command('deploy <image>', 'Deploy an image: a Deployment and a Service, applied as a plan; waits until the rollout is available'), FLAGS.deploy)
      .example('  assistant k8s deploy nginx:1.27 --name web --port 80 --replicas 2')
      .example('  assistant k8s deploy nginx:1.27 --name web --port 80 --plan > deploy.json')
      .action((image: string, o: DeployFlags) => start(() => deploy(ctx, image, o)));
    withFlags(cli.command('delete <kind> <name>', 'Delete a deployment or service (a destructive plan: needs --destroyer); `k8s delete gpucloud <name>` deletes an Instant Cluster'), FLAGS.delete)
      .example('  assistant k8s delete deployment web --destroyer')
      .example('  assistant k8s delete gpucloud my-k8s       # an Instant Cluster: confirmed by typing its name')
      .action((kind: string, name: string, o: DeleteFlags) => start(() => remove(ctx, kind, name, o)));
    withFlags(cli.command('get <kind>', 'List pods, deployments, services, nodes, events or namespaces'), FLAGS.get)
      .example('  assistant k8s get pods -n default')
      .example('  assistant k8s get deployments -A -o json')
      .action((kind: string, o: Where) => start(() => get(ctx, kind, o)));
    withFlags(cli.command('logs <pod>', "A pod's logs"), FLAGS.logs)
      .example('  assistant k8s logs web-7d4b9c-x2x9z --tail 100 --since 10m')
      .action((pod: string, o: LogFlags) => start(() => logs(ctx, pod, o)));
    withFlags(cli.command('stats <what>', 'CPU and memory of nodes, pods or the whole cluster, from metrics-server'), FLAGS.stats)
      .example('  assistant k8s stats nodes --sort-by cpu')
      .example('  assistant k8s stats pods --all-namespaces --sort-by memory')
      .action((what: string, o: StatsFlags) => start(() => stats(ctx, what, o)));
    withFlags(cli.command('ask [...question]', 'Answer a question about the cluster from its nodes, pods, deployments, services and events'), FLAGS.ask)
      .example('  assistant k8s ask "which pods are restarting?" --cluster prod')
      .action((question: string[], o: AskFlags) => start(() => ask(ctx, question.join(' '), o)));
  });
}

/** `k8s create` and `k8s delete gpucloud` belong to commands/k8s-create.ts (loaded only when used). */
async function clusterCommand(verb: 'create' | 'delete', argv: string[], ctx: CommandContext): Promise<number> {
  const { runK8sCreate, runK8sDelete } = await import('./k8s-create.js');
  return verb === 'create' ? runK8sCreate(ctx, argv) : runK8sDelete(ctx, argv);
}

async function deploy(ctx: CommandContext, image: string, o: DeployFlags): Promise<number> {
  if (!o.name) throw new UsageError('--name is required', { hint: 'assistant k8s deploy <image> --name <name> --port <port> [--replicas <n>]' });
  if (o.port === undefined) throw new UsageError('--port is required', { hint: 'assistant k8s deploy <image> --name <name> --port <port> [--replicas <n>]' });
  if (!image.trim() || /\s/.test(image)) throw new UsageError(`${q(image)} is not an image reference`);
  const name = checkLabel(o.name, '--name');
  const port = o.port;
  const replicas = o.replicas;
  const timeoutS = o.rolloutTimeout;
  const { context, writeNs, auth } = await target(ctx, o);
  const plan = deployPlan({ context, namespace: writeNs, name, image, port, replicas, timeoutS });
  if (o.plan) {
    ctx.out.text(planText(plan));
    return ExitCode.ok;
  }
  const flags = { destroyer: Boolean(o.destroyer), resume: Boolean(o.resume), fresh: Boolean(o.fresh), resumeWith: 'assistant k8s deploy …', ...auth };
  return o.dryRun ? dryRunInput(ctx, plan, flags) : applyInput(ctx, plan, flags);
}

function requireKind(name: string, allowed: readonly string[]): K8sKind {
  const kind = findK8sKind(name);
  if (!kind || !allowed.includes(kind.resource)) throw new UsageError(`unknown kind ${q(name)}`, { hint: `kinds: ${allowed.join(', ')}` });
  return kind;
}

async function remove(ctx: CommandContext, kindName: string, name: string, o: DeleteFlags): Promise<number> {
  const kind = requireKind(kindName, ['deployments', 'services']);
  const { context, writeNs, auth } = await target(ctx, o);
  const plan = deletePlan(context, kind, writeNs, checkLabel(name, kind.singular));
  if (o.plan) {
    ctx.out.text(planText(plan));
    return ExitCode.ok;
  }
  return applyInput(ctx, plan, { destroyer: Boolean(o.destroyer), ...auth });
}

async function get(ctx: CommandContext, kindName: string, o: Where): Promise<number> {
  const kind = requireKind(kindName, ['pods', 'deployments', 'services', 'nodes', 'events', 'namespaces']);
  const { context, readNs, auth } = await target(ctx, o);
  const data = await withSession(ctx, (s) => readResult(s, listPlan(context, kind, kind.namespaced ? readNs : undefined)), auth);
  const items = ((data as { items?: Record<string, any>[] })?.items ?? []).map(kind.row);
  const columns = readNs && kind.namespaced ? kind.columns.filter((c) => c.path !== 'namespace') : kind.columns;
  // JSON and YAML are the API's list as returned; the table shows the kind's rows.
  ctx.out.value(data, { table: () => ctx.out.table(items, columns, { keep: 'name' }) });
  return ExitCode.ok;
}

async function logs(ctx: CommandContext, pod: string, o: LogFlags): Promise<number> {
  const tail = o.tail;
  // The API takes whole seconds.
  const sinceSeconds = o.since === undefined ? undefined : Math.ceil(o.since);
  const container = o.container === undefined ? undefined : checkLabel(o.container, '--container');
  const { context, writeNs, auth } = await target(ctx, o);
  const options = { tail, sinceSeconds, container };
  checkLabel(pod, 'pod');
  if (!o.follow) {
    const text = await withSession(ctx, (s) => readResult(s, logsPlan(context, writeNs, pod, options)), auth);
    ctx.out.text(String(text ?? ''));
    return ExitCode.ok;
  }
  // A followed log is one long response streamed as it comes; a plan step returns a whole answer, so
  // this read goes to the provider's client directly (same kubeconfig credentials, nothing changed).
  return withSession(ctx, async (session) => {
    const client = (await session.runContext().client('k8s')) as KubeClient;
    const out = ctx.out.stream({ lines: true });
    await client.stream(context, { method: 'GET', path: logPath(writeNs, pod, { ...options, follow: true }), signal: ctx.signal }, (text) => out.write(text)).finally(() => out.end());
    return ctx.signal.aborted ? ExitCode.interrupted : ExitCode.ok;
  }, auth);
}

const METRICS_HINT =
  'install metrics-server: kubectl apply -f https://github.com/kubernetes-sigs/metrics-server/releases/latest/download/components.yaml (wait a minute for the first metrics)';

async function stats(ctx: CommandContext, what: string, o: StatsFlags): Promise<number> {
  if (what !== 'nodes' && what !== 'pods' && what !== 'cluster') throw new UsageError(`unknown stats ${q(what)}`, { hint: 'use nodes, pods or cluster' });
  const { context, readNs, auth } = await target(ctx, o);
  const results = await withSession(ctx, (s) => readPlan(s, statsPlan(context, what, readNs)), auth).catch((err: unknown) => {
    if (err instanceof KubeApiError && err.status === 404 && err.message.includes('metrics.k8s.io')) {
      throw new OperationError('metrics_unavailable', `the cluster ${q(context)} serves no metrics API (metrics.k8s.io): metrics-server is not installed or not ready`, { hint: METRICS_HINT });
    }
    throw err;
  });
  const rows: StatsRow[] = what === 'pods' ? podRows(results[0]) : what === 'nodes' ? nodeRows(results[0], results[1]) : [clusterRow(context, results[0], results[1])];
  const sorted = sortRows(rows, o.sortBy);
  const percent = (n: number | undefined) => (n === undefined ? '-' : `${Math.round(n)}%`);
  const shown = sorted.map((r) => ({ ...r, cpu: formatCores(r.cpu_cores), memory: formatBytes(r.memory_bytes), cpu_pct: percent(r.cpu_percent), memory_pct: percent(r.memory_percent) }));
  ctx.out.value(what === 'cluster' ? sorted[0] : sorted, { table: () => ctx.out.table(shown, statsColumns(what), { keep: 'name' }) });
  return ExitCode.ok;
}

async function ask(ctx: CommandContext, question: string, o: AskFlags): Promise<number> {
  if (!question.trim()) throw new UsageError('no question given', { hint: 'assistant k8s ask "which pods are not running?"' });
  const { context, readNs, auth } = await target(ctx, o);
  return withSession(ctx, async (session) => {
    const spinner = o.agentTrace ? undefined : createPhaseSpinner(ctx.io);
    const out = createAnswerPrinter(ctx.out, spinner);
    const phases = { gatheringContext: `reading cluster ${context}`, answering: 'writing the answer' };
    const result = await askCluster(
      {
        question,
        cluster: context,
        namespace: readNs,
        history: o.history !== false,
        newConversation: Boolean(o.newConversation),
        context: cliAskContext(ctx, session, { profile: o.aiProfile }),
      },
      { observe: cliAskObserver(ctx, { phases, spinner, out: ctx.out.structured ? undefined : out, agentTrace: Boolean(o.agentTrace), debug: ctx.debug.callback }) },
    ).finally(() => spinner?.stop());
    const doc = { question, cluster: context, namespace: readNs ?? null, answer: result.answer, ai_provider: result.provider, model: result.model, summarised: result.summarised, context_chars: result.contextChars };
    // People got the answer as it streamed (or get it whole now); programs get the document.
    ctx.out.value(doc, { table: '', withTable: () => out.finish(result.answer) });
    return ExitCode.ok;
  }, auth);
}

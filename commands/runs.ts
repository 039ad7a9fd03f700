/**
 * `assistant runs list|show <id>`: the team's run history kept by the backend (issue 41) — who applied
 * which plan, when, what it created and what it costs. Runs this machine queued while the backend was
 * down are sent first (within a few seconds), so a run just made is in the list.
 */
import { loadConfig } from '../engine/providers/config.js';
import { backendClient, resolveBackendSettings, type BackendClient } from '../engine/core/config/backend-store.js';
import { RunOutbox } from '../engine/core/config/run-outbox.js';
import { InvalidInputError, UsageError } from '../engine/core/errors.js';
import type { Column } from '../engine/core/render/columns.js';
import { RunIdSchema, type RunDetail } from '../schemas/backend-api.js';
import { warn, type CommandContext } from './context.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { runGroup } from './group.js';

const LIST_COLUMNS: Column[] = [
  { header: 'ID', path: 'id' },
  { header: 'STARTED', path: 'started_at', priority: 2 },
  { header: 'ENV', path: 'env', priority: 3 },
  { header: 'WHO', path: 'who' },
  { header: 'KIND', path: 'kind', priority: 3 },
  { header: 'STATUS', path: 'status', format: 'status' },
  { header: 'RESOURCES', path: 'resources', priority: 2 },
  { header: '$/H CHANGE', path: 'hourly_change', format: 'price', priority: 1 },
  { header: 'SUMMARY', path: 'summary', priority: 1 },
];

/** What `runs list`'s flags are; its options type is derived from it. */
const FLAGS = {
  list: {
    all: flag.bool().option('--all', 'Every env the API key may use, not only the configured one'),
    limit: flag.int(1, 500).option('--limit <n>', 'At most n runs (default 50, at most 500)'),
    plan: flag.text().option('--plan <hash>', 'Only the runs of this plan (its hash, as `runs show` prints it)'),
  },
} satisfies Record<string, FlagSpec>;

type Flags = OptionsOf<typeof FLAGS.list>;

/** What `assistant runs --help` says after the commands. */
const FOOTER = 'Runs are reported by every apply and dry run when a backend API key is configured (ASSISTANT_BACKEND_API_KEY or backend.api_key);\n' +
  'a run made while the backend was down is queued in ~/.assistant/run-outbox/ and sent later, once.';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('runs', argv, ctx, { footer: FOOTER, flags: FLAGS }, (cli, start) => {
    withFlags(cli.command('list', "The team's runs, newest first: who, when, status, what they created and the hourly change"), FLAGS.list)
      .example('  assistant runs list')
      .example('  assistant runs list --all -o json | jq ".[] | select(.status==\\"refused\\")"')
      .action((o: Flags) => start(() => listCommand(ctx, o)));
    cli
      .command('show <id>', 'One run: its plan, each step\'s canonical request and outcome, the resources and the priced change')
      .example('  assistant runs show run_3f2a…')
      .example('  assistant runs show run_3f2a… -o json')
      .action((id: string) => start(() => showCommand(ctx, id)));
  });
}

/** The configured backend's client, after sending what this machine has queued for it. */
async function client(ctx: CommandContext): Promise<BackendClient> {
  const { config, warnings } = await loadConfig({ path: ctx.globals.config, home: ctx.home, env: ctx.env });
  for (const w of warnings) warn(ctx, w);
  const timeoutMs = (ctx.globals.timeout ?? config.timeout ?? 30) * 1000;
  const backend = backendClient(config, ctx.env, { signal: ctx.signal, timeoutMs, debug: ctx.debug.callback });
  const settings = resolveBackendSettings(config, ctx.env);
  // Here the queue is what the user asked about: it gets the command's whole timeout, not the apply's few seconds.
  await new RunOutbox({ home: ctx.home, settings: { ...settings, apiKey: settings.apiKey! }, signal: ctx.signal, budgetMs: timeoutMs, warn: (m) => warn(ctx, m), debug: ctx.debug.callback }).flush();
  return backend;
}

async function listCommand(ctx: CommandContext, o: Flags): Promise<number> {
  const backend = await client(ctx);
  const runs = await backend.listRuns({ env: o.all ? 'all' : backend.env, limit: o.limit, plan: o.plan });
  ctx.out.records(runs, LIST_COLUMNS, { keep: 'id', empty: `No runs in ${o.all ? 'any env' : `env ${backend.env}`} of ${backend.url}.\n` });
  return 0;
}

async function showCommand(ctx: CommandContext, id: string): Promise<number> {
  if (!RunIdSchema.safeParse(id).success) throw new UsageError(`"${id}" is not a run id`, { hint: "see 'assistant runs list'" });
  const backend = await client(ctx);
  const run = await backend.getRun(id);
  if (!run) throw new InvalidInputError('run_not_found', `no run ${id} in the history of ${backend.url}`, { hint: "see 'assistant runs list --all'" });
  ctx.out.value(run, { table: () => renderRun(run) });
  return 0;
}

function renderRun(run: RunDetail): string {
  const r = run.record;
  const change = run.hourly_change === null ? 'not priced' : `${run.hourly_change >= 0 ? '+' : ''}${run.hourly_change.toFixed(4)} ${run.currency ?? ''}/h`.trim();
  const lines = [
    `run ${run.id}  ${r.kind === 'dry_run' ? 'dry run' : 'apply'}  ${run.status} (exit ${run.exit_code})`,
    `env ${run.env}, by ${run.who} (key ${run.key_prefix}), ${run.started_at} → ${run.finished_at}`,
    `plan ${run.plan_hash.slice(0, 16)}${r.summary ? `: ${r.summary}` : ''}`,
    `hourly change: ${change}`,
  ];
  if (r.error) lines.push(`error: ${r.error.code}: ${r.error.message}`);
  if (r.steps.length) {
    lines.push('', 'steps:');
    for (const s of r.steps) lines.push(`  ${s.index + 1}. [${s.status}${s.http_status ? ` ${s.http_status}` : ''}] ${s.effect}: ${s.request}${s.error ? ` — ${s.error.code}: ${s.error.message}` : ''}`);
  }
  if (r.resources.length) {
    lines.push('', 'resources:');
    for (const x of r.resources) lines.push(`  ${x.effect} ${x.provider}${x.kind ? ` ${x.kind}` : ''}${x.name ? ` "${x.name}"` : ''}${x.id ? ` id ${x.id}` : ''}`);
  }
  return lines.join('\n') + '\n';
}

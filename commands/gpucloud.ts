/**
 * `assistant gpucloud list|get|balance|action|emulate`. Thin wiring: flags → static plan (engine/providers/gpucloud/static-plans)
 * → the apply module (reads, or applyPlan for actions) → renderer. No HTTP here.
 */
import { KINDS, type Column } from '../engine/providers/gpucloud/catalogue.js';
import { AmbiguousNameError, requireKind } from '../engine/providers/gpucloud/lookup.js';
import { gpucloudRecords } from '../engine/providers/gpucloud/records.js';
import { INSTANCE_ACTIONS, instanceActionPlan, listPlan } from '../engine/providers/gpucloud/static-plans.js';
import { classifyRequest } from '../engine/providers/gpucloud/verbs/api.js';
import { UsageError } from '../engine/core/errors.js';
import { maskSecretLooking } from '../engine/core/redact.js';
import { renderKindTable, renderRecord } from '../engine/core/render/records.js';
import { stderrColors, type CommandContext } from './context.js';
import { runGroup } from './group.js';
// Reads only: a list or get loads none of the apply machinery (start-up is benchmarked).
import { readPlan, readResult } from '../machines/apply/reads.js';
import { getRecord, listRecords } from '../machines/records/records.js';
import { withSession, type Session } from './session.js';
// Constants only: types.ts loads nothing of the emulator itself.
import { EMULATOR_DEFAULT_CLIENT_ID, EMULATOR_DEFAULT_CLIENT_SECRET, EMULATOR_SECRET_ENV } from '../emulator/types.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { formatAmount } from '../engine/core/render/money.js';

/** What each subcommand's flags are, coerced at the cac boundary (commands/flag-coerce.ts); the options types derive from it. */
const FLAGS = {
  list: { matrix: flag.bool().option('--matrix', 'availability, cluster-availability: types × locations with prices (-o json: the matrix)') },
  emulate: {
    listen: flag.text().option('--listen <host:port>', 'Address to listen on', { default: '127.0.0.1:8787' }),
    state: flag.path().option('--state <file>', 'Persist emulator state to this file'),
    seed: flag.oneOf(['demo', 'empty']).option('--seed <seed>', 'demo or empty', { default: 'demo' }),
  },
} satisfies Record<string, FlagSpec>;

type EmulateOptions = OptionsOf<typeof FLAGS.emulate>;

/** What `assistant gpucloud --help` says after the commands. */
const FOOTER =
  'Global flags: -o table|json|yaml, --sandbox, --yes, --debug, --config <path>. -o json prints the API\'s JSON unmodified.';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  const kindList = KINDS.map((k) => k.kind).join(', ');
  return runGroup('gpucloud', argv, ctx, { footer: FOOTER, flags: FLAGS }, (cli, start) => {
    withFlags(cli.command('list <kind>', `List resources. Kinds: ${kindList}`), FLAGS.list)
      .example('  assistant gpucloud list instances')
      .example('  assistant gpucloud list instance-types -o json | jq ".[].instance_type"')
      .example('  assistant gpucloud list availability --matrix')
      .action((kind: string, opts: OptionsOf<typeof FLAGS.list>) => start(() => withSession(ctx, (s) => (opts.matrix ? matrix(ctx, s, kind) : list(ctx, s, kind)))));
    cli
      .command('get <kind> <id_or_name>', 'Fetch one resource by ID or by hostname/name (instance, cluster, volume, …)')
      .example('  assistant gpucloud get instance train-1')
      .example('  assistant gpucloud get cluster 3f0c…-… -o json')
      .action((kind: string, id: string) => start(() => withSession(ctx, (s) => get(ctx, s, kind, id))));
    cli
      .command('balance', 'Show the account balance (a human line on stderr, the raw JSON on stdout; -o table|json|yaml: only that on stdout)')
      .action(() => start(() => withSession(ctx, (s) => balance(ctx, s))));
    cli
      .command('action <action> <id_or_hostname>', `Run an instance action: ${INSTANCE_ACTIONS.join(', ')}`)
      .example('  assistant gpucloud action shutdown train-1')
      .example('  assistant gpucloud action delete train-1 --yes')
      .action((action: string, id: string) => start(() => withSession(ctx, (s) => act(ctx, s, action, id))));
    withFlags(cli.command('emulate', 'Run the gpucloud emulator in the foreground (for trying the tool and for tests)'), FLAGS.emulate)
      .example('  assistant gpucloud emulate --listen 127.0.0.1:8787')
      .example(
        `  GPUCLOUD_BASE_URL=http://127.0.0.1:8787 GPUCLOUD_CLIENT_ID=${EMULATOR_DEFAULT_CLIENT_ID} GPUCLOUD_CLIENT_SECRET=${EMULATOR_DEFAULT_CLIENT_SECRET} assistant gpucloud list instances`,
      )
      .example(
        `  (default credentials: client_id ${EMULATOR_DEFAULT_CLIENT_ID}, client_secret ${EMULATOR_DEFAULT_CLIENT_SECRET}; set ${EMULATOR_SECRET_ENV} to choose the secret)`,
      )
      .action((opts: EmulateOptions) => start(() => emulate(ctx, opts)));
  });
}

// The records use case the MCP list and get tools call too (its own provider's capability, imported directly: nothing else loads).
async function list(ctx: CommandContext, session: Session, kindName: string): Promise<number> {
  const { kind, data } = await listRecords(gpucloudRecords, (plan) => readResult(session, plan), kindName);
  ctx.out.records(data, kind);
  return 0;
}

/** `list availability --matrix`: instance (or cluster) types × locations with prices, read through one read-only plan. */
async function matrix(ctx: CommandContext, session: Session, kind: string): Promise<number> {
  const spec = requireKind(kind);
  if (spec.kind !== 'availability' && spec.kind !== 'cluster-availability') {
    throw new UsageError(`--matrix shows availability and cluster-availability, not ${spec.kind}`, { hint: 'assistant gpucloud list availability --matrix' });
  }
  const { buildMatrix, matrixPlan, renderMatrix } = await import('../engine/producers/charts/availability-matrix.js');
  const m = buildMatrix(spec.kind, await readPlan(session, matrixPlan(spec.kind), { signal: ctx.signal }));
  ctx.out.value(m, { table: () => renderMatrix(m, ctx.out.table) });
  return 0;
}

/** The records use case's get; an ambiguous name also lists the matches, with their IDs, on stderr (exit 2). */
async function resolveRecord(ctx: CommandContext, session: Session, kindName: string, idOrName: string): Promise<Record<string, unknown>> {
  try {
    return (await getRecord(gpucloudRecords, (plan) => readResult(session, plan), kindName, idOrName)).record;
  } catch (err) {
    if (err instanceof AmbiguousNameError) ctx.io.stderr.write(renderKindTable(err.matches, err.spec, ctx.io.columns, stderrColors(ctx)));
    throw err;
  }
}

async function get(ctx: CommandContext, session: Session, kind: string, idOrName: string): Promise<number> {
  const record = await resolveRecord(ctx, session, kind, idOrName);
  // One record has too many fields for a row: by default it is shown as YAML (nested fields stay
  // readable), masked like a table since nobody asked for the raw data; an explicit -o table gives a
  // FIELD / VALUE view, an explicit -o json|yaml the raw record.
  ctx.out.value(record, { unasked: () => renderRecord(maskSecretLooking(record), 'yaml') });
  return 0;
}

async function balance(ctx: CommandContext, session: Session): Promise<number> {
  const spec = requireKind('balance');
  const data = (await readResult(session, listPlan(spec))) as { amount?: number | string; currency?: string };
  // On a terminal the balance is a table like every other command's output (issue 38 §2). Into a pipe
  // or a file, SPEC 4.2's contract holds for the scripts that rely on it: a human line on stderr and
  // the raw JSON on stdout. An explicit -o prints only that format on stdout (a table with -o table).
  ctx.out.records(data, spec, {
    unasked: ctx.io.stdoutIsTTY ? undefined : () => {
      const amount = Number(data?.amount);
      ctx.io.stderr.write(`Balance: ${Number.isFinite(amount) ? formatAmount(amount) : String(data?.amount)} ${String(data?.currency ?? '').toUpperCase()}\n`);
      return JSON.stringify(data) + '\n';
    },
  });
  return 0;
}

const ACTION_COLUMNS: Column[] = [
  { header: 'ACTION', path: 'action', priority: 8 },
  { header: 'ID', path: 'id', priority: 9 },
  { header: 'HOSTNAME', path: 'hostname', priority: 7 },
  { header: 'STATUS', path: 'status', priority: 6 },
];

async function act(ctx: CommandContext, session: Session, action: string, idOrHostname: string): Promise<number> {
  const normalized = action.trim().toLowerCase().replace(/-/g, '_');
  if (!(INSTANCE_ACTIONS as readonly string[]).includes(normalized)) {
    throw new UsageError(`unknown instance action "${action}"`, { hint: `actions: ${INSTANCE_ACTIONS.join(', ')}` });
  }
  const record = await resolveRecord(ctx, session, 'instances', idOrHostname);
  const id = String(record.id);
  const hostname = String(record.hostname ?? id);
  const plan = instanceActionPlan(normalized, id, hostname);
  const destructive = classifyRequest('PUT', '/v1/instances', plan.commands[0]!.args[3]).effect === 'destroy';
  // The prompt (readline) loads only for an action that asks: a list or get never does.
  if (destructive) await (await import('./prompt.js')).confirmByTyping(ctx, `${normalized} instance ${hostname} (${id})`, hostname);
  // Through the one apply module like every change (journal, deadline); an action repeats harmlessly.
  const { applyWith } = await import('./apply.js');
  const outcome = await applyWith(ctx, session, plan, { destroyer: destructive });
  if (outcome.report.status !== 'succeeded') throw outcome.error;
  ctx.io.stderr.write(`${normalized}: ${hostname} (${id}) accepted\n`);
  // The stderr line is for people; an explicit -o also puts the result on stdout for scripts.
  ctx.out.records([{ action: normalized, id, hostname, status: 'accepted' }], ACTION_COLUMNS, { keep: 'id', unasked: '' });
  return 0;
}

async function emulate(ctx: CommandContext, opts: EmulateOptions): Promise<number> {
  const { listenError, parseListen } = await import('../engine/core/listen.js');
  const { host, port } = parseListen(opts.listen, '127.0.0.1:8787');
  const { runEmulatorForeground } = await import('../emulator/index.js');
  const emulator = await runEmulatorForeground({ host, port, stateFile: opts.state, seed: opts.seed }, (line) => ctx.io.stderr.write(line + '\n')).catch(
    (err: NodeJS.ErrnoException) => {
      throw listenError(err, host, port);
    },
  );
  await new Promise<void>((resolve) => ctx.interrupt.addEventListener('abort', () => resolve(), { once: true }));
  await emulator.close();
  return 0;
}

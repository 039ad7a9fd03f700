/**
 * `assistant autostop check|resume|script`: idle auto-stop of gpucloud instances (docs/autostop.md).
 * Thin wiring: the check is machines/autostop/check.ts, the resume machines/autostop/resume.ts; the watcher and
 * policies are engine/core/kits/autostop/.
 */
import { ExitCode } from '../engine/core/errors.js';
import { AUTOSTOP_ACTIONS, parseIdleDuration, type AutostopAction } from '../engine/core/kits/autostop/policy.js';
import { renderCheckTable, summaryLine } from '../engine/producers/autostop/render.js';
import { watcherScript } from '../engine/core/kits/autostop/watcher.js';
import { runAutostopCheck } from '../machines/autostop/check.js';
import { resumeInstance, type ResumeResult } from '../machines/autostop/resume.js';
import { warn, type CommandContext } from './context.js';
import { runGroup } from './group.js';
import { createPhaseSpinner } from './progress.js';
import { withSession } from './session.js';
import { flag, withFlags, type FlagSpec, type OptionsOf } from './flag-spec.js';
import { columnsOf } from '../engine/core/render/columns.js';

/** What each subcommand's flags are, coerced at the cac boundary (commands/flag-coerce.ts); the options types derive from it. */
const FLAGS = {
  check: { dryRun: flag.bool().option('--dry-run', 'Read and decide only: say what would be stopped, send nothing') },
  script: { action: flag.oneOf(AUTOSTOP_ACTIONS).option('--action <action>', 'shutdown, hibernate or delete (what the policy marker records)', { default: 'shutdown' }) },
} satisfies Record<string, FlagSpec>;

/** What `assistant autostop --help` says after the commands. */
const FOOTER = [
  'Instances get auto-stop when they are created with it: `ask --maker --autostop 30m …`, `deploy … --autostop 30m`, or a plan',
  'create step with "autostop": {"idle_minutes": 30, "action": "shutdown"}. Their startup script installs a watcher that records',
  'idleness (GPU utilisation, logins); `autostop check` reads it over SSH (gpucloud.ssh_key_path) and acts through the account.',
  'Unreachable or unreadable instances are reported and never changed. Exit 0: all decided; 1: an instance could not be read',
  'or an action failed; 3: a hibernate or delete was refused (set autostop.allow_hibernate / allow_delete: true in the config',
  'that runs the check). On gpucloud a shut-down instance still bills: --autostop-action hibernate releases the machine and',
  'keeps its volumes (the volumes still bill), and `autostop resume <instance>` brings it back.',
].join('\n');

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('autostop', argv, ctx, { footer: FOOTER, flags: FLAGS }, (cli, start) => {
    withFlags(cli.command('check', 'Stop the instances whose GPUs and logins have been idle longer than their auto-stop policy'), FLAGS.check)
      .example('  assistant autostop check                    # one table row per instance with auto-stop')
      .example('  assistant autostop check --dry-run -o json')
      .example('  */5 * * * * assistant autostop check --timeout 240 >>~/autostop.log 2>&1   # crontab')
      .action((o: OptionsOf<typeof FLAGS.check>) => start(() => check(ctx, Boolean(o.dryRun))));
    cli
      .command('resume <instance>', 'Bring back an instance auto-stop stopped (restore a hibernated one, start a shut-down one), exactly once, and wait until it runs')
      .example('  assistant autostop resume train-1')
      .example('  assistant autostop resume 5cca3591-cdf1-4765-ad9a-d9fe2c86a7f2 -o json')
      .action((instance: string) => start(() => resume(ctx, instance)));
    withFlags(cli.command('script <idle-time>', 'Print the startup script that installs the watcher (for plans written by hand)'), FLAGS.script)
      .example('  assistant autostop script 30m > watcher.sh')
      .example('  assistant autostop script 1h --action hibernate > watcher.sh')
      .action((idle: string, o: OptionsOf<typeof FLAGS.script>) => start(async () => script(ctx, idle, o.action)));
  });
}

async function check(ctx: CommandContext, dryRun: boolean): Promise<number> {
  return withSession(ctx, async (session) => {
    const spinner = createPhaseSpinner(ctx.io);
    const result = await runAutostopCheck(session, {
      home: ctx.home,
      dryRun,
      onProgress: (text) => (spinner ? spinner.phase(text) : ctx.debug(`autostop: ${text}`)),
    }).finally(() => spinner?.stop());
    ctx.out.value(result, {
      // A terminal gets its width (DETAIL goes first); a log file or pipe gets every column.
      table: () => renderCheckTable(result.instances, ctx.out.table),
      withTable: () => {
        ctx.io.stderr.write(summaryLine(result.instances, dryRun) + '\n');
        if (result.timed_out) warn(ctx, 'the check ran out of time before every instance was done (see the rows marked "not finished"); give it longer with --timeout');
        if (result.exit_code === ExitCode.refused) {
          for (const action of ['delete', 'hibernate'] as const) {
            if (result.instances.some((r) => r.decision === 'refused' && r.policy?.action === action)) ctx.io.stderr.write(`hint: to let the check ${action}, set autostop.allow_${action}: true in this config (docs/autostop.md)\n`);
          }
        }
      },
    });
    return result.exit_code;
  });
}

const RESUME_COLUMNS = columnsOf([['ID', 'id', 10], ['HOSTNAME', 'hostname', 9], ['BEFORE', 'status_before', 7], ['AFTER', 'status_after', 8], ['SENT', 'sent_text', 8], ['DETAIL', 'detail', 2]]);

async function resume(ctx: CommandContext, instance: string): Promise<number> {
  return withSession(ctx, async (session) => {
    const spinner = createPhaseSpinner(ctx.io);
    const result: ResumeResult = await resumeInstance(session, {
      home: ctx.home,
      instance,
      onProgress: (text) => (spinner ? spinner.phase(text) : ctx.debug(`autostop resume: ${text}`)),
    }).finally(() => spinner?.stop());
    ctx.out.value(result, {
      // As the check's table: a terminal gets its width, a log file or pipe every column.
      table: () => ctx.out.table([{ ...result, sent_text: result.sent ?? '-' }], RESUME_COLUMNS, { keep: 'id' }),
      withTable: () => {
        if (result.missing_volumes.length || !result.volumes.same) warn(ctx, result.detail);
      },
    });
    return ExitCode.ok;
  });
}

function script(ctx: CommandContext, idle: string, action: AutostopAction): number {
  ctx.out.text(watcherScript({ idle_minutes: parseIdleDuration(idle, 'assistant autostop script'), action }));
  return ExitCode.ok;
}

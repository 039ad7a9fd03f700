/**
 * `assistant autostop check|script`: idle auto-stop of gpucloud instances (README "Idle auto-stop").
 * Thin wiring: the check itself is machines/autostop.ts; the watcher and policies are engine/producers/autostop/.
 */
import { ExitCode } from '../engine/core/errors.js';
import { parseIdleDuration } from '../engine/producers/autostop/policy.js';
import { renderCheckTable, summaryLine } from '../engine/producers/autostop/render.js';
import { watcherScript } from '../engine/producers/autostop/watcher.js';
import { runAutostopCheck } from '../machines/autostop.js';
import { warn, type CommandContext } from './context.js';
import { runGroup } from './group.js';
import { createPhaseSpinner } from './progress.js';
import { withSession } from './session.js';
import { flag, type FlagSpec } from './flag-spec.js';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup(
    'autostop',
    argv,
    ctx,
    (cli, start) => {
      cli
        .command('check', 'Stop the instances whose GPUs and logins have been idle longer than their auto-stop policy')
        .option('--dry-run', 'Read and decide only: say what would be stopped, send nothing')
        .example('  assistant autostop check                    # one table row per instance with auto-stop')
        .example('  assistant autostop check --dry-run -o json')
        .example('  */5 * * * * assistant autostop check --timeout 240 >>~/autostop.log 2>&1   # crontab')
        .action((o: { dryRun?: boolean }) => start(() => check(ctx, Boolean(o.dryRun))));
      cli
        .command('script <idle-time>', 'Print the startup script that installs the watcher (for plans written by hand)')
        .option('--action <action>', 'shutdown or delete (what the policy marker records)', { default: 'shutdown' })
        .example('  assistant autostop script 30m > watcher.sh')
        .action((idle: string, o: { action: 'shutdown' | 'delete' }) => start(async () => script(ctx, idle, o.action)));
    },
    [
      'Instances get auto-stop when they are created with it: `ask --maker --autostop 30m …`, `deploy … --autostop 30m`, or a plan',
      'create step with "autostop": {"idle_minutes": 30, "action": "shutdown"}. Their startup script installs a watcher that records',
      'idleness (GPU utilisation, logins); `autostop check` reads it over SSH (gpucloud.ssh_key_path) and acts through the account.',
      'Unreachable or unreadable instances are reported and never changed. Exit 0: all decided; 1: an instance could not be read',
      'or an action failed; 3: a delete was refused (set autostop.allow_delete: true in the config that runs the check).',
      'Note: on gpucloud a shut-down instance still bills (only delete stops billing).',
    ].join('\n'),
    FLAGS,
  );
}

/** What the flags are, coerced at the cac boundary (commands/flag-coerce.ts). */
const FLAGS: Record<string, FlagSpec> = { script: { action: flag.oneOf(['shutdown', 'delete']) } };

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
      table: (colors) => renderCheckTable(result.instances, ctx.io.stdoutIsTTY ? ctx.out.columns : Math.max(ctx.out.columns, 240), colors),
      withTable: () => {
        ctx.io.stderr.write(summaryLine(result.instances, dryRun) + '\n');
        if (result.timed_out) warn(ctx, 'the check ran out of time before every instance was done (see the rows marked "not finished"); give it longer with --timeout');
        if (result.exit_code === ExitCode.refused) ctx.io.stderr.write('hint: to let the check delete, set autostop.allow_delete: true in this config (README "Idle auto-stop")\n');
      },
    });
    return result.exit_code;
  });
}

function script(ctx: CommandContext, idle: string, action: 'shutdown' | 'delete'): number {
  ctx.out.text(watcherScript({ idle_minutes: parseIdleDuration(idle, 'assistant autostop script'), action }));
  return ExitCode.ok;
}

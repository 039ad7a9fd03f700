/**
 * `assistant sandbox reset|path`: the sandbox's state as a thing of its own. Everything `--sandbox` keeps
 * (the emulator's resources, its tokens, the runs applied there, its kubeconfig and SSH keys) lives in one
 * folder, so starting over is removing it: nothing of the real cloud's state is touched.
 */
import { existsSync, rmSync } from 'node:fs';
import { sandboxDir } from '../engine/producers/sandbox/sandbox.js';
import type { CommandContext } from './context.js';
import { runGroup } from './group.js';

/** What `assistant sandbox --help` says after the commands. */
const FOOTER =
  'The sandbox (--sandbox) is a local emulator of gpucloud and stand-ins for the other providers; nothing it does leaves this machine.';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('sandbox', argv, ctx, { footer: FOOTER}, (cli, start) => {
    cli
      .command('reset', "Start the sandbox over: its resources, runs, tokens, kubeconfig and SSH keys are removed (the real cloud's state is not touched)")
      .example('  assistant sandbox reset')
      .example('  assistant --sandbox gpucloud list instances     # the demo resources again')
      .action(() => start(async () => reset(ctx)));
    cli
      .command('path', 'Print the folder the sandbox keeps its state in')
      .example('  assistant sandbox path')
      .action(() => start(async () => {
        ctx.out.value({ path: sandboxDir(ctx.home) }, { table: `${sandboxDir(ctx.home)}\n` });
        return 0;
      }));
  });
}

function reset(ctx: CommandContext): number {
  const dir = sandboxDir(ctx.home);
  const existed = existsSync(dir);
  rmSync(dir, { recursive: true, force: true });
  ctx.out.value({ path: dir, removed: existed }, { table: existed ? `sandbox reset: removed ${dir}; the next --sandbox command starts with the demo resources\n` : `the sandbox is already fresh (${dir} does not exist)\n` });
  return 0;
}

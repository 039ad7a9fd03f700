/**
 * `assistant k8s`: for now only `create` and `delete` (commands/k8s-create.ts); the rest of the group
 * (ask, deploy, logs, stats) comes with its own module and keeps this dispatch.
 */
import { UsageError } from '../engine/errors.js';
import type { CommandContext } from './context.js';
import { runK8sCreate, runK8sDelete } from './k8s-create.js';

const HELP = `Usage:
  assistant k8s create gpucloud|eks|gke|kubeadm <name> [flags]   create a cluster as one plan (--plan prints it)
  assistant k8s delete gpucloud <name>                           delete an Instant Cluster (confirmed by typing its name)

Run 'assistant k8s create --help' for the flags of each type.
`;

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'create') return runK8sCreate(ctx, rest);
  if (sub === 'delete') return runK8sDelete(ctx, rest);
  if (!sub || sub === '--help' || sub === '-h' || sub === 'help') {
    ctx.io.stdout.write(HELP);
    return 0;
  }
  throw new UsageError(`unknown subcommand "${sub}" for "assistant k8s"`, { hint: "run 'assistant k8s --help' (subcommands: create, delete)" });
}

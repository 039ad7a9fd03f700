/**
 * `assistant credentials test gpucloud`: requests a fresh token (never the cached one), calls the balance
 * path through the executor and says where the credentials came from.
 */
import { findKind } from '../engine/gpucloud/catalogue.js';
import { listPlan } from '../engine/gpucloud/static-plans.js';
import { UsageError } from '../engine/errors.js';
import { renderRecord } from '../engine/render/records.js';
import type { CommandContext } from './context.js';
import { runGroup } from './group.js';
import { readPlan } from '../machines/apply/reads.js';
import { withSession } from './session.js';

export async function run(argv: string[], ctx: CommandContext): Promise<number> {
  return runGroup('credentials', argv, ctx, (cli, start) => {
    cli
      .command('test <provider>', 'Check that credentials work (gpucloud: calls the balance path)')
      .example('  assistant credentials test gpucloud')
      .action((provider: string) => start(() => test(ctx, provider)));
  });
}

async function test(ctx: CommandContext, provider: string): Promise<number> {
  if (provider !== 'gpucloud') throw new UsageError(`credentials test supports gpucloud (got "${provider}")`);
  return withSession(ctx, async (session) => {
    const source = await session.credentialSource('gpucloud');
    const [balance] = (await readPlan(session, listPlan(findKind('balance')!))) as [{ amount?: unknown; currency?: string }];
    if (ctx.globals.output !== 'table') {
      ctx.io.stdout.write(renderRecord({ provider: 'gpucloud', ok: true, source, balance }, ctx.globals.output));
      return 0;
    }
    ctx.io.stdout.write(`gpucloud credentials work (source: ${source}); balance ${String(balance?.amount)} ${String(balance?.currency ?? '').toUpperCase()}\n`);
    return 0;
    // A cached token proves nothing about the secret: always have the token endpoint check it.
  }, { freshCredentials: true });
}

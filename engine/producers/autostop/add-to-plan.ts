/**
 * `--autostop` on a maker's plan (`ask --maker`, built-in planner or AI): every instance create gets the
 * `autostop` field and a startup script that installs the watcher. A create without a script gets the
 * shared watcher-only script (reused when the account has it with this exact content, else created by
 * a step before the first create); a script the plan itself creates gets the watcher added in front.
 * An existing script chosen by ID cannot be changed (gpucloud stores scripts as written): refused.
 */
import type { Plan, PlanCommand } from '../../../schemas/plan.js';
import { UsageError } from '../../core/errors.js';
import { withNotes } from '../../core/plan/notes.js';
import { hibernationBlocker } from '../../providers/gpucloud/hibernation.js';
import { isPostTo } from '../../providers/gpucloud/autostop-check.js';
import { describePolicy, policyOfScript, type AutostopPolicy } from '../../core/kits/autostop/policy.js';
import { watcherScript, watcherScriptName, withWatcher } from '../../core/kits/autostop/watcher.js';

const PLACEHOLDER = /^<([A-Z][A-Z0-9_]*)>$/;

/** A script of the account as listed (`GET /v1/scripts`). */
export interface ExistingScript {
  id?: unknown;
  name?: unknown;
  script?: unknown;
}

function parseBody(command: PlanCommand): Record<string, unknown> {
  return JSON.parse(command.args[3] ?? '{}') as Record<string, unknown>;
}

function withBody(command: PlanCommand, body: Record<string, unknown>): PlanCommand {
  return { ...command, args: [...command.args.slice(0, 3), JSON.stringify(body)] };
}

function unusedBinding(plan: Plan, base: string): string {
  const used = new Set(plan.commands.flatMap((c) => Object.keys(c.produces ?? {})));
  let name = base;
  for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
  return name;
}

/** What the plan's note adds per action: the opt-in a destroyer action needs where the check runs, and what it saves. */
const ACTION_NOTES: Record<AutostopPolicy['action'], string> = {
  shutdown: '; a shut-down gpucloud instance still bills, so this saves nothing: --autostop-action hibernate releases the machine and keeps its volumes',
  hibernate: '; hibernating needs autostop.allow_hibernate: true in the config of whatever runs the check, and `assistant autostop resume <hostname>` brings an instance back with the same volumes',
  delete: '; deleting needs autostop.allow_delete: true in the config of whatever runs the check',
};

export function addAutostop(plan: Plan, policy: AutostopPolicy, scripts: readonly ExistingScript[]): Plan {
  const commands = [...plan.commands];
  const creates = commands.flatMap((c, i) => (isPostTo(c.args, '/v1/instances') ? [i] : []));
  if (creates.length === 0) {
    throw new UsageError('--autostop arranges the auto-stop of instances this plan creates, and it creates none', { hint: 'ask for an instance, e.g. "create a 1V100.6V instance called train-1"' });
  }
  const sharedName = watcherScriptName(policy);
  const sharedScript = watcherScript(policy);
  const existing = scripts.find((s) => s.name === sharedName && s.script === sharedScript && typeof s.id === 'string');
  let sharedRef: string | undefined = existing ? String(existing.id) : undefined;
  let sharedStep: PlanCommand | undefined;
  const changedScripts = new Set<number>();

  for (const i of creates) {
    const create = commands[i]!;
    const body = parseBody(create);
    const hostname = typeof body.hostname === 'string' ? body.hostname : 'the instance';
    const blocker = policy.action === 'hibernate' ? hibernationBlocker(body) : undefined;
    if (blocker) throw new UsageError(`${hostname} cannot use auto-stop by hibernation: ${blocker}`, { hint: 'use --autostop-action shutdown, or delete (which keeps its data volumes)' });
    const scriptId = body.startup_script_id;
    if (scriptId === undefined || scriptId === null || scriptId === '') {
      if (!sharedRef) {
        const binding = unusedBinding(plan, 'AUTOSTOP_SCRIPT_ID');
        sharedRef = `<${binding}>`;
        sharedStep = {
          args: ['gpucloud-api', 'POST', '/v1/scripts', JSON.stringify({ name: sharedName, script: sharedScript })],
          reason: `startup script that installs the auto-stop watcher (${describePolicy(policy)}; it records idleness and stops nothing itself)`,
          produces: { [binding]: '$.id' },
        };
      }
      body.startup_script_id = sharedRef;
    } else {
      const ref = typeof scriptId === 'string' ? PLACEHOLDER.exec(scriptId) : null;
      const producer = ref ? commands.findIndex((c, j) => j < i && c.produces && ref[1]! in c.produces && isPostTo(c.args, '/v1/scripts')) : -1;
      if (producer === -1) {
        throw new UsageError(`${hostname} starts with an existing startup script (${String(scriptId)}), which cannot be changed to install the auto-stop watcher`, {
          hint: 'leave the startup script out of the request, or add the watcher to a new script of your own (docs/autostop.md)',
        });
      }
      if (!changedScripts.has(producer)) {
        const scriptBody = parseBody(commands[producer]!);
        const text = typeof scriptBody.script === 'string' ? scriptBody.script : '';
        const recorded = policyOfScript(text);
        if (recorded && (!('policy' in recorded) || recorded.policy.idle_minutes !== policy.idle_minutes || recorded.policy.action !== policy.action)) {
          throw new UsageError(`the startup script of ${hostname} already has an auto-stop watcher with another policy`, { hint: 'ask for one auto-stop policy' });
        }
        if (!recorded) commands[producer] = withBody(commands[producer]!, { ...scriptBody, script: withWatcher(text, policy) });
        changedScripts.add(producer);
      }
    }
    commands[i] = { ...withBody(create, body), autostop: policy, reason: `${create.reason} (auto-stop: ${describePolicy(policy)})` };
  }
  if (sharedStep) commands.splice(creates[0]!, 0, sharedStep);
  const note = `auto-stop: ${describePolicy(policy)}, once \`assistant autostop check\` runs (cron, CI or \`assistant mcp\` with autostop.check_every)${ACTION_NOTES[policy.action]}`;
  return withNotes({ ...plan, commands }, [note]);
}

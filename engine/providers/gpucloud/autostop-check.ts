/**
 * The static checks of a create step's `autostop` (schemas/plan.ts), for the gpucloud-api verb: the
 * step must create an instance, and the instance's startup script must install the watcher with the
 * same policy, so that what the plan says is what the instance will do. A script created earlier in the
 * plan is checked here; an existing script (a literal ID) is the producer's to have checked. A policy of
 * hibernate on an instance that cannot hibernate (spot, long-term) is refused here, at plan time.
 */
import type { AutostopPolicy } from '../../../schemas/plan.js';
import { parseStrictJson } from '../../core/plan/strict-json.js';
import type { ArgProblem } from '../../core/provider.js';
import { canonicalPath } from './destroyer.js';
import { hibernationBlocker } from './hibernation.js';
import { describePolicy, policyOfScript } from '../../core/kits/autostop/policy.js';
import { watcherSection } from '../../core/kits/autostop/watcher.js';

const PLACEHOLDER = /^<([A-Z][A-Z0-9_]*)>$/;

/** Whether args are `gpucloud-api POST <path>` (canonically). */
export function isPostTo(args: readonly string[], path: string): boolean {
  if (args[0] !== 'gpucloud-api' || (args[1] ?? '').trim().toUpperCase() !== 'POST') return false;
  const canon = canonicalPath(args[2] ?? '');
  return canon.ok && canon.path === path;
}

function bodyOf(args: readonly string[]): Record<string, unknown> | undefined {
  if (args[3] === undefined) return undefined;
  const parsed = parseStrictJson(args[3]);
  return 'value' in parsed && parsed.value && typeof parsed.value === 'object' && !Array.isArray(parsed.value) ? (parsed.value as Record<string, unknown>) : undefined;
}

export function checkAutostop(args: readonly string[], policy: AutostopPolicy, earlier: readonly { args: string[]; produces?: Record<string, string> }[]): ArgProblem[] {
  if (!isPostTo(args, '/v1/instances')) return [{ field: 'autostop', message: 'autostop goes only on an instance create (gpucloud-api POST /v1/instances)' }];
  const body = bodyOf(args);
  if (!body) return []; // the body's own problems are checkArgs'
  const blocker = policy.action === 'hibernate' ? hibernationBlocker(body) : undefined;
  if (blocker) {
    return [{ field: 'autostop', message: `${String(body.hostname ?? 'this instance')} cannot use auto-stop by hibernation: ${blocker}; use action shutdown, or delete (which keeps its data volumes)` }];
  }
  const scriptId = body.startup_script_id;
  const hint = 'add the watcher with `assistant ask --maker --autostop 30m …` or `assistant deploy … --autostop 30m` (docs/autostop.md)';
  if (typeof scriptId !== 'string' || scriptId === '') {
    return [{ field: 'autostop', message: `autostop needs the watcher in the instance's startup script, and this create has no startup_script_id; ${hint}` }];
  }
  const placeholder = PLACEHOLDER.exec(scriptId);
  if (!placeholder) return []; // an existing script: the producer that chose it read it
  const name = placeholder[1]!;
  const producer = [...earlier].reverse().find((c) => c.produces && name in c.produces);
  if (!producer) return []; // unbound: the validator says so
  if (!isPostTo(producer.args, '/v1/scripts')) {
    return [{ field: 'autostop', message: `startup_script_id <${name}> is not produced by a script create (POST /v1/scripts), so the watcher cannot be checked; ${hint}` }];
  }
  const script = bodyOf(producer.args)?.script;
  if (typeof script !== 'string') return [{ field: 'autostop', message: `the script that produces <${name}> has no script text; ${hint}` }];
  const recorded = policyOfScript(script);
  if (!recorded) return [{ field: 'autostop', message: `the startup script that produces <${name}> does not install the auto-stop watcher; ${hint}` }];
  if ('problem' in recorded) return [{ field: 'autostop', message: `the startup script that produces <${name}>: ${recorded.problem}` }];
  if (recorded.policy.idle_minutes !== policy.idle_minutes || recorded.policy.action !== policy.action) {
    return [{ field: 'autostop', message: `the startup script's watcher says "${describePolicy(recorded.policy)}" but autostop says "${describePolicy(policy)}"` }];
  }
  if (!script.includes(watcherSection(policy))) {
    return [{ field: 'autostop', message: `the startup script that produces <${name}> has the auto-stop marker but not this assistant's watcher (edited?); ${hint}` }];
  }
  return [];
}

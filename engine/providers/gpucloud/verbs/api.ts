import { substituteBody, substitutePath } from '../../../core/plan/bindings.js';
import { parseStrictJson } from '../../../core/plan/strict-json.js';
import type { ArgProblem, StepClass, StepVerb } from '../../../core/provider.js';
import { kindAtPath } from '../catalogue.js';
import { createDedupeFor } from '../dedupe.js';
import { canonicalPath, destructiveReasons, show } from '../destroyer.js';
import { checkAlternatives, createWithFailover } from '../failover.js';
import type { GpuCloudClient } from '../types.js';
import { checkAutostop } from '../../../producers/autostop/plan-check.js';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** `["gpucloud-api", METHOD, "/v1/...", "<json body>"?]` (SPEC 2.4). */
export const gpucloudApi: StepVerb<GpuCloudClient> = {
  verb: 'gpucloud-api',

  checkArgs(args) {
    const problems: ArgProblem[] = [];
    if (args.length < 3 || args.length > 4) {
      problems.push({ field: 'args', message: `gpucloud-api takes a method, a path and an optional JSON body (got ${args.length - 1} arguments)` });
      return problems;
    }
    const [, method, path, body] = args as [string, string, string, string | undefined];
    if (!METHODS.has(method.trim().toUpperCase())) problems.push({ field: 'args[1]', message: `unknown HTTP method "${method}" (use GET, POST, PUT, PATCH or DELETE)` });
    if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) problems.push({ field: 'args[2]', message: 'the path must be relative to the API origin, e.g. /v1/instances' });
    else {
      // The gate classifies the canonical form; a path without one is refused here (exit 2), not guessed at.
      const canon = canonicalPath(path);
      if (!canon.ok) problems.push({ field: 'args[2]', message: `invalid path ${show(path)}: ${canon.problem}` });
    }
    if (body !== undefined) {
      if (method.trim().toUpperCase() === 'GET') problems.push({ field: 'args[3]', message: 'a GET request cannot carry a body' });
      const parsed = parseStrictJson(body);
      if ('problem' in parsed) problems.push({ field: 'args[3]', message: `the body is ${parsed.problem.startsWith('not valid JSON') ? parsed.problem : `ambiguous: ${parsed.problem}`}` });
    }
    return problems;
  },

  classify(args) {
    return classifyRequest(args[1] ?? '', args[2] ?? '', args[3]);
  },

  substitute(args, bindings) {
    const [verb, method, path, body] = args;
    const out = [verb!, method!, substitutePath(path!, bindings)];
    if (body !== undefined) out.push(substituteBody(body, bindings));
    return out;
  },

  async run(args, ctx) {
    const [, rawMethod, path, body] = args as [string, string, string, string | undefined];
    const method = rawMethod.trim().toUpperCase();
    const client = await ctx.client();
    // A create with alternatives fails over to the next choice when one has no capacity (failover.ts).
    if (ctx.alternatives?.length && method === 'POST' && body !== undefined) return createWithFailover(client, path, body, ctx.alternatives, ctx);
    // A journaled run already listed the kind: hand its snapshot to the client, which then needs no list of its own.
    const createGuard = ctx.existingIds ? createDedupeFor(method, path, body) : undefined;
    if (createGuard?.needsSnapshot) createGuard.restoreSnapshot([...ctx.existingIds!]);
    const res = await client.request({ method, path, body, signal: ctx.signal, createGuard, onWait: ctx.waiting });
    return { status: res.status, data: res.data, attempts: res.attempts, deduplicated: res.deduplicated };
  },

  describe(args) {
    return `${(args[1] ?? '').toUpperCase()} ${args[2] ?? ''}`;
  },

  // Idle auto-stop of an instance create: its startup script installs the watcher (engine/producers/autostop/).
  checkAutostop,
  checkAlternatives,

  detail(args) {
    if (args[3] === undefined) return undefined;
    try {
      return JSON.parse(args[3]);
    } catch {
      return args[3];
    }
  },
};

/**
 * What a request does, from its parsed parts only: the destroyer rule first (engine/providers/gpucloud/destroyer.ts),
 * then reads, creates of a catalogue kind (with the name from the body), and any other write as an update.
 */
export function classifyRequest(method: string, path: string, body: string | undefined): StepClass {
  const kind = kindAtPath(path)?.singular;
  const reasons = destructiveReasons(method, path, body);
  if (reasons.length) return { effect: 'destroy', kind, reasons };
  const verb = method.trim().toUpperCase();
  if (verb === 'GET' || verb === 'HEAD') return { effect: 'read', kind, reasons: [] };
  const create = createDedupeFor(verb, path, body);
  if (create) return { effect: 'create', kind: create.kind.singular, name: create.name, nameAt: `args[3].${create.kind.nameField}`, reasons: [] };
  return { effect: 'update', kind, reasons: [] };
}

import { substituteBody, substitutePath } from '../../../core/plan/bindings.js';
import type { ArgProblem, CanonicalRequest, StepClass, StepVerb } from '../../../core/provider.js';
import { kindAtPath } from '../catalogue.js';
import { createDedupeOf } from '../dedupe.js';
import { destructiveReasonsOf } from '../destroyer.js';
import { checkAlternatives, createWithFailover } from '../failover.js';
import { canonicalRequest, requestBody, requestTarget } from '../request.js';
import type { GpuCloudClient } from '../types.js';
import { checkAutostop } from '../autostop-check.js';

/** `["gpucloud-api", METHOD, "/v1/...", "<json body>"?]` (SPEC 2.4). */
export const gpucloudApi: StepVerb<GpuCloudClient> = {
  verb: 'gpucloud-api',

  checkArgs(args) {
    const problems: ArgProblem[] = [];
    if (args.length < 3 || args.length > 4) {
      problems.push({ field: 'args', message: `gpucloud-api takes a method, a path and an optional JSON body (got ${args.length - 1} arguments)` });
      return problems;
    }
    const path = args[2]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) problems.push({ field: 'args[2]', message: 'the path must be relative to the API origin, e.g. /v1/instances' });
    // Everything else about the request's form is its canonical form's business (../request.ts).
    return problems;
  },

  canonical: canonicalRequest,

  classify(args, request) {
    if (request) return classifyCanonical(request);
    const canon = canonicalRequest(args);
    if (!canon.ok) {
      return { effect: 'destroy', kind: kindAtPath(args[2] ?? '')?.singular, reasons: [`${canon.field === 'args[3]' ? 'the body' : 'the request'} cannot be classified (${canon.problem}); treated as destructive`] };
    }
    return classifyCanonical(canon.request);
  },

  substitute(args, bindings) {
    const [verb, method, path, body] = args;
    const out = [verb!, method!, substitutePath(path!, bindings)];
    if (body !== undefined) out.push(substituteBody(body, bindings));
    return out;
  },

  async run(args, ctx) {
    // What was checked and priced is what is sent: the canonical request, spelled one way.
    const request = ctx.request ?? canonicalOrThrow(args);
    const { method } = request;
    const path = requestTarget(request);
    const body = requestBody(request);
    const client = await ctx.client();
    // A create with alternatives fails over to the next choice when one has no capacity (failover.ts).
    if (ctx.alternatives?.length && method === 'POST' && body !== undefined) return createWithFailover(client, request, ctx.alternatives, ctx);
    // The create's guard, from the canonical request; a journaled run already listed the kind: hand its
    // snapshot to the guard, which then needs no list of its own (else the client takes one).
    const createGuard = createDedupeOf(request);
    if (ctx.existingIds && createGuard?.needsSnapshot) createGuard.restoreSnapshot([...ctx.existingIds]);
    const res = await client.request({ method, path, body, signal: ctx.signal, createGuard, onWait: ctx.waiting });
    return { status: res.status, data: res.data, attempts: res.attempts, deduplicated: res.deduplicated };
  },

  describe(args, request) {
    if (request) return `${request.method} ${request.path}${request.query.length ? `?${request.query.map(([k, v]) => `${k}=${v}`).join('&')}` : ''}`;
    return `${(args[1] ?? '').toUpperCase()} ${args[2] ?? ''}`;
  },

  // Idle auto-stop of an instance create: its startup script installs the watcher (engine/core/kits/autostop/; the checks are ../autostop-check.ts).
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

/** A step the run was handed without its canonical request (a caller outside the apply path): made here, or refused. */
function canonicalOrThrow(args: readonly string[]): CanonicalRequest {
  const canon = canonicalRequest(args);
  if (!canon.ok) throw new Error(`internal: a gpucloud-api step without a canonical form reached the run (${canon.problem})`);
  return canon.request;
}

/**
 * What a canonical request does: the destroyer rule first (engine/providers/gpucloud/destroyer.ts), then
 * reads, creates of a catalogue kind (with the name from the folded body), and any other write as an update.
 */
export function classifyCanonical(request: CanonicalRequest): StepClass {
  const kind = kindAtPath(request.path)?.singular;
  const reasons = destructiveReasonsOf(request);
  if (reasons.length) return { effect: 'destroy', kind, reasons };
  if (request.method === 'GET') return { effect: 'read', kind, reasons: [] };
  const create = createDedupeOf(request);
  if (create) return { effect: 'create', kind: create.kind.singular, name: create.name, nameAt: `args[3].${create.kind.nameField}`, reasons: [] };
  return { effect: 'update', kind, reasons: [] };
}

/** What a raw request does (commands that build one step themselves): its canonical form's class, or destructive when it has none. */
export function classifyRequest(method: string, path: string, body: string | undefined): StepClass {
  return gpucloudApi.classify(['gpucloud-api', method, path, ...(body === undefined ? [] : [body])]);
}

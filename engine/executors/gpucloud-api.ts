import { canonicalPath, destructiveReasons, show } from '../plan/destroyer.js';
import { parseStrictJson } from '../plan/strict-json.js';
import { substituteBody, substitutePath } from '../plan/bindings.js';
import type { ArgProblem, StepExecutor } from './types.js';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** `["gpucloud-api", METHOD, "/v1/...", "<json body>"?]` (SPEC 2.4). */
export const gpucloudApi: StepExecutor = {
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

  destructive(args) {
    return destructiveReasons(args[1] ?? '', args[2] ?? '', args[3]);
  },

  substitute(args, bindings) {
    const [verb, method, path, body] = args;
    const out = [verb!, method!, substitutePath(path!, bindings)];
    if (body !== undefined) out.push(substituteBody(body, bindings));
    return out;
  },

  async run(args, ctx) {
    const [, method, path, body] = args as [string, string, string, string | undefined];
    const client = await ctx.gpucloud();
    const res = await client.request({ method: method.trim().toUpperCase(), path, body, signal: ctx.signal, createGuard: ctx.createGuard });
    return { status: res.status, data: res.data, attempts: res.attempts, deduplicated: res.deduplicated };
  },

  describe(args) {
    return `${(args[1] ?? '').toUpperCase()} ${args[2] ?? ''}`;
  },
};

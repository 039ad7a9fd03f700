/**
 * A plan document as people write it → the one form the engine validates, hashes and runs (issue 39 §1, §9).
 *
 * Two things are read here, once, at the boundary, so that nothing downstream sees more than one form:
 * - **Request bodies written as JSON objects.** A step's body may be a JSON object (or array) instead of
 *   a JSON string inside `args`, so a checked-in plan diffs like code. It becomes the JSON text of that
 *   value here: both forms validate, hash and apply alike.
 * - **The original tool's plans** (unless `strict`). Its maker writes `createdAt`, `capabilities`,
 *   command-level `stdin`, leaves `reason` or `version` out, and names providers and verbs by vendor
 *   (`verda`, `verda-api`, `aws`). Keys that change nothing are dropped (or renamed), names are mapped
 *   from the manifest's `formerly` rows, and each change is said in one warning. What would change what
 *   runs is still an error: a non-empty `stdin` (the engine feeds no step a standard input).
 *
 * Our own makers and `plan convert` write the strict form (engine/core/plan/writer.ts); `--strict` (CI)
 * refuses everything lenient.
 */
import type { PlanProblem } from './validate.js';

/** Names a provider had in the original tool: the provider (`verda`) and its step verbs (`verda-api`). */
export interface FormerNames {
  /** Former provider name → provider name. */
  providers: ReadonlyMap<string, string>;
  /** Former step verb → step verb. */
  verbs: ReadonlyMap<string, string>;
}

export interface PlanDocument {
  /** The plan in the engine's form (still to be validated). */
  plan: unknown;
  /** What was read leniently, one line each. */
  warnings: string[];
  /** What cannot be read even leniently (exit 2). */
  problems: PlanProblem[];
}

/** Top-level keys of the original tool's plans that change nothing here: dropped (createdAt kept as created_at). */
const ORIGINAL_TOP_KEYS = ['createdAt', 'capabilities'] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads a parsed plan document. Never throws: what is wrong goes into `problems` (or is left for the
 * schema to report), so a caller reports everything at once.
 */
export function readPlanDocument(input: unknown, opts: { strict?: boolean; former?: FormerNames } = {}): PlanDocument {
  const warnings: string[] = [];
  const problems: PlanProblem[] = [];
  if (!isRecord(input)) return { plan: input, warnings, problems };
  const plan: Record<string, unknown> = { ...input };
  const commands = Array.isArray(plan.commands) ? plan.commands : undefined;
  if (commands) plan.commands = commands.map((c, index) => (isRecord(c) && Array.isArray(c.args) ? { ...c, args: c.args.map(bodyAsText) } : c));
  if (opts.strict) return { plan, warnings, problems };

  const lenient: string[] = [];
  if (plan.version === undefined) {
    plan.version = 1;
    lenient.push('no "version" (read as 1)');
  }
  for (const key of ORIGINAL_TOP_KEYS) {
    if (!(key in plan)) continue;
    if (key === 'createdAt' && plan.created_at === undefined && typeof plan.createdAt === 'string') {
      plan.created_at = plan.createdAt;
      lenient.push('"createdAt" (kept as created_at)');
    } else lenient.push(`"${key}" (ignored)`);
    delete plan[key];
  }
  const former = opts.former;
  let emptyBodies = 0;
  if (former) {
    const renamed = new Set<string>();
    const mapName = (name: unknown) => {
      const to = typeof name === 'string' ? former.providers.get(name) : undefined;
      if (to) renamed.add(`provider "${name}" → "${to}"`);
      return to ?? name;
    };
    plan.provider = Array.isArray(plan.provider) ? plan.provider.map(mapName) : mapName(plan.provider);
    if (Array.isArray(plan.commands)) {
      plan.commands = plan.commands.map((c) => {
        if (!isRecord(c) || !Array.isArray(c.args) || typeof c.args[0] !== 'string') return c;
        const to = former.verbs.get(c.args[0]);
        if (!to) return c;
        renamed.add(`verb "${c.args[0]}" → "${to}"`);
        // The original writes "" for "no body" (its prompt: "{json-body-or-empty-string}"); here a body is left out.
        const args = c.args.length === 4 && c.args[3] === '' ? c.args.slice(1, 3) : c.args.slice(1);
        if (args.length < c.args.length - 1) emptyBodies++;
        return { ...c, args: [to, ...args] };
      });
    }
    lenient.push(...renamed);
    if (emptyBodies) lenient.push(`an empty body "" on ${emptyBodies} step(s) (left out)`);
  }
  let derived = 0;
  let stdinDropped = 0;
  if (Array.isArray(plan.commands)) {
    plan.commands = plan.commands.map((c, index) => {
      if (!isRecord(c)) return c;
      const command = { ...c };
      if ('stdin' in command) {
        if (command.stdin === '' || command.stdin === null) {
          delete command.stdin;
          stdinDropped++;
        } else {
          problems.push({ kind: 'schema', index, field: 'stdin', message: 'a step with a standard input is not supported here: the engine gives no step a standard input, so this step would not run as written' });
        }
      }
      if (command.reason === undefined && Array.isArray(command.args) && command.args.every((a) => typeof a === 'string')) {
        command.reason = reasonFromRequest(command.args as string[]);
        derived++;
      }
      return command;
    });
  }
  if (stdinDropped) lenient.push(`an empty "stdin" on ${stdinDropped} step(s) (ignored)`);
  if (derived) lenient.push(`no "reason" on ${derived} step(s) (derived from the request)`);
  if (lenient.length) {
    warnings.push(`read in the original tool's form: ${lenient.join('; ')}. \`assistant plan convert\` writes it in this tool's form; --strict refuses it`);
  }
  return { plan, warnings, problems };
}

/** A body written as a JSON object or array becomes its JSON text; anything else is left for the schema. */
export function bodyAsText(arg: unknown): unknown {
  return typeof arg === 'object' && arg !== null ? JSON.stringify(arg) : arg;
}

/** A step's reason when its author gave none: what it sends, shortened (`gpucloud-api PUT /v1/instances`). */
export function reasonFromRequest(args: readonly string[]): string {
  const words = args.filter((a) => !/^\s*[[{]/.test(a)).join(' ');
  const text = words.length > 100 ? `${words.slice(0, 99)}…` : words;
  return `(no reason given) ${text}`;
}

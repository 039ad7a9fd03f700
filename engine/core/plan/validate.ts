import type { Plan, PlanCommand } from '../../../schemas/plan.js';
import { PREDEFINED_BINDINGS } from '../../../schemas/plan-bindings.js';
import { planSchema, planShape } from './shape.js';
import type { CanonicalRequest, Provider, ProviderSet, StepClass } from '../provider.js';
import { placeholdersIn } from './bindings.js';
import { jsonPathProblem } from './produces.js';

// Which step creates a named resource: here, with the validation that asks it of every plan, and not
// in names.ts (the run's name checks, journal and reservations), so that a read loads none of those.
/** A create step whose provider can look its name up. */
export interface NamedCreate {
  index: number;
  provider: Provider<any>;
  kind: string;
  name: string;
  nameAt?: string;
  /** Where it acts (provider.names.scopeOf): its kind is listed there. */
  scope?: string[];
}

/** The named create of a step, from its classification (undefined for anything else). */
export function namedCreate(providers: ProviderSet, index: number, args: readonly string[], cls: StepClass | undefined): NamedCreate | undefined {
  if (cls?.effect !== 'create' || !cls.kind || !cls.name) return undefined;
  const provider = providers.verb(args[0] ?? '')?.provider;
  if (!provider?.names) return undefined;
  const scope = provider.names.scopeOf?.(args);
  return { index, provider, kind: cls.kind, name: cls.name, nameAt: cls.nameAt, ...(scope?.length ? { scope } : {}) };
}

export interface PlanProblem {
  /** Command index (0-based) when the problem belongs to one command. */
  index?: number;
  field?: string;
  message: string;
  kind: 'schema' | 'unbound' | 'destructive';
  /** A step that may never run from a plan (StepClass.refused); its kind is `destructive` (exit 3). */
  refused?: true;
}

export interface ValidationResult {
  ok: boolean;
  plan?: Plan;
  problems: PlanProblem[];
  /** Per command: what it does (read, create, update, destroy), computed once from its canonical request (or args). */
  classes: StepClass[];
  /** Per command: its canonical request, made once (undefined for verbs without one, and for invalid steps). */
  requests: (CanonicalRequest | undefined)[];
  /** Per command: why it is destructive ([] when it is not); the `destroy` reasons of `classes`. */
  destructive: string[][];
}

export interface ValidateOptions {
  /** The providers whose verbs a plan may use. */
  providers: ProviderSet;
  destroyer: boolean;
  /** Names of bindings predefined from config (only these may be used without being produced). */
  predefined?: Iterable<string>;
}

/**
 * Whole-plan static validation (DESIGN.md §1): schema, the plan's providers, each verb's own argument
 * rules, every placeholder bound before use, and the classification of every step (from which the
 * destroyer gate reads). Nothing is sent.
 */
export function validatePlan(input: unknown, opts: ValidateOptions): ValidationResult {
  // zod (PlanSchema) only for a plan that is not plainly valid: engine/core/plan/shape.ts.
  const shaped = planShape(input);
  const parsed = shaped ? ({ success: true, data: shaped } as const) : planSchema().safeParse(input);
  const problems: PlanProblem[] = parsed.success ? [] : parsed.error.issues.map(schemaProblem);
  const classes: StepClass[] = [];
  const requests: (CanonicalRequest | undefined)[] = [];
  const bound = new Set<string>(opts.predefined ?? []);
  // Commands are checked even when the plan as a whole failed its schema, so one run reports every problem.
  const commands = parsed.success ? parsed.data.commands : usableCommands(input);
  const planProviders = providersNamed((input as { provider?: unknown })?.provider);
  for (const name of planProviders ?? []) {
    if (!opts.providers.provider(name)) {
      problems.push({ kind: 'schema', field: 'provider', message: `unknown provider ${JSON.stringify(name)} (known: ${opts.providers.names().join(', ')})` });
    }
  }

  commands.forEach((command, index) => {
    const known = command && opts.providers.verb(command.args[0]!);
    if (!command || !known) {
      if (command) {
        problems.push({ kind: 'schema', index, field: 'args[0]', message: `unknown step verb "${command.args[0]}" (known: ${opts.providers.verbs().join(', ')})` });
      }
      classes.push(UNKNOWN);
      requests.push(undefined);
      return;
    }
    const { provider, verb } = known;
    if (planProviders && !planProviders.includes(provider.name)) {
      problems.push({
        kind: 'schema',
        index,
        field: 'args[0]',
        message: `"${verb.verb}" belongs to provider "${provider.name}", which the plan does not name (provider: ${planProviders.map((p) => JSON.stringify(p)).join(', ') || 'none'}); add it to "provider"`,
      });
    }
    const argProblems = verb.checkArgs(command.args);
    for (const p of argProblems) problems.push({ kind: 'schema', index, ...p });
    // The one canonical form of the step's request (DESIGN §8): a form with more than one reading is invalid.
    const canon = argProblems.length ? undefined : verb.canonical?.(command.args);
    if (canon && !canon.ok) problems.push({ kind: 'schema', index, field: canon.field, message: canon.problem });
    const request = canon?.ok ? canon.request : undefined;
    requests.push(request);
    if (command.autostop) {
      const earlier = commands.slice(0, index).filter((c): c is PlanCommand => c !== undefined);
      const autostopProblems = verb.checkAutostop?.(command.args, command.autostop, earlier) ?? [{ field: 'autostop', message: `"${verb.verb}" steps take no autostop (only instance creates do)` }];
      for (const p of autostopProblems) problems.push({ kind: 'schema', index, ...p });
    }
    if (command.alternatives) {
      const altProblems = verb.checkAlternatives?.(command.args, command.alternatives, request) ?? [{ field: 'alternatives', message: `"${verb.verb}" steps take no alternatives` }];
      for (const p of altProblems) problems.push({ kind: 'schema', index, ...p });
    }
    command.args.forEach((arg, argIndex) => {
      for (const name of placeholdersIn(arg)) {
        if (!bound.has(name)) {
          const predefined = (PREDEFINED_BINDINGS as readonly string[]).includes(name);
          problems.push({
            kind: 'unbound',
            index,
            field: `args[${argIndex}]`,
            message:
              name === 'FILES'
                ? '<FILES> names a local file the plan reads: give its directory with --files DIR (an MCP agent cannot)'
                : predefined
                  ? `<${name}> is predefined from config but not set there (see README: predefined bindings)`
                  : `<${name}> is not produced by an earlier command`,
          });
        }
      }
    });
    for (const [name, path] of Object.entries(command.produces ?? {})) {
      const problem = typeof path === 'string' ? jsonPathProblem(path) : undefined;
      if (problem) problems.push({ kind: 'schema', index, field: `produces.${name}`, message: problem });
      bound.add(name);
    }
    const cls = verb.classify(command.args, request);
    classes.push(cls);
    if (cls.refused?.length) {
      // Never run from a plan (the user's files, a CLI's own configuration): --destroyer does not unlock it.
      problems.push({ kind: 'destructive', refused: true, index, field: 'args', message: `refused: ${cls.refused.join('; ')} (never run from a plan, --destroyer or not)` });
    } else if (cls.effect === 'destroy' && !opts.destroyer) {
      problems.push({ kind: 'destructive', index, field: 'args', message: `destructive: ${cls.reasons.join('; ')} (needs --destroyer)` });
    }
  });

  problems.push(...duplicateNameProblems(commands, classes, opts.providers));
  problems.sort((a, b) => (a.index ?? -1) - (b.index ?? -1));
  const destructive = classes.map((c) => (c.effect === 'destroy' ? c.reasons : []));
  return { ok: problems.length === 0, plan: parsed.success ? parsed.data : undefined, problems, classes, requests, destructive };
}

/** A command that could not be read: nothing is known of it (the plan is invalid anyway). */
const UNKNOWN: StepClass = { effect: 'read', reasons: [] };

/** `provider` as a list of names: one name, or a list for multi-provider plans; undefined when it is neither. */
function providersNamed(value: unknown): string[] | undefined {
  if (typeof value === 'string' && value) return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  return undefined;
}

type Issue = { code: string; path: PropertyKey[]; message: string; keys?: string[] };

function schemaProblem(issue: Issue): PlanProblem {
  const [first, index, ...rest] = issue.path;
  const inCommand = first === 'commands' && typeof index === 'number';
  const field = (inCommand ? rest : issue.path).map(String).join('.') || undefined;
  const message =
    issue.code === 'unrecognized_keys' && issue.keys
      ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`
      : issue.message;
  return { kind: 'schema', index: inCommand ? index : undefined, field, message };
}

/** The commands of an invalid plan whose args are a non-empty list of strings (others are undefined). */
function usableCommands(input: unknown): (PlanCommand | undefined)[] {
  const commands = (input as { commands?: unknown })?.commands;
  if (!Array.isArray(commands)) return [];
  return commands.map((c) => {
    const args = (c as { args?: unknown })?.args;
    // Array.from turns holes of a sparse array into undefined, which every() would otherwise skip.
    if (!Array.isArray(args) || args.length === 0 || !Array.from(args).every((a) => typeof a === 'string')) return undefined;
    const produces = (c as { produces?: unknown }).produces;
    const okProduces = produces && typeof produces === 'object' && !Array.isArray(produces) ? (produces as Record<string, string>) : undefined;
    return { args: args as string[], reason: '', produces: okProduces };
  });
}

/** One line per problem: `command 2 (args[3]): message`. */
export function formatProblems(problems: PlanProblem[]): string {
  return problems
    .map((p) => {
      const where = p.index !== undefined ? `command ${p.index}${p.field ? ` (${p.field})` : ''}` : p.field ? `plan (${p.field})` : 'plan';
      return `${where}: ${p.message}`;
    })
    .join('\n');
}

/** A plan that creates one name twice is invalid (it would pay for two resources of one name). */
export function duplicateNameProblems(commands: readonly ({ args: string[] } | undefined)[], classes: readonly StepClass[], providers: ProviderSet): PlanProblem[] {
  const seen = new Map<string, number>();
  const problems: PlanProblem[] = [];
  commands.forEach((command, index) => {
    const create = command && namedCreate(providers, index, command.args, classes[index]);
    if (!create || placeholdersIn(create.name).length) return;
    const key = `${create.provider.name}\u0000${create.kind}\u0000${create.name}`;
    const first = seen.get(key);
    if (first === undefined) return void seen.set(key, index);
    problems.push({
      kind: 'schema',
      index,
      field: create.nameAt ?? 'args',
      message: `creates ${create.kind} "${create.name}" again (command ${first} creates it too); names must be unique within a plan`,
    });
  });
  return problems;
}

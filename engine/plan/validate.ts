import { PlanSchema, PREDEFINED_BINDINGS, type Plan, type PlanCommand } from '../../schemas/plan.js';
import { executorFor, EXECUTORS } from '../executors/index.js';
import { placeholdersIn } from './bindings.js';
import { duplicateNameProblems } from './names.js';
import { jsonPathProblem } from './produces.js';

export interface PlanProblem {
  /** Command index (0-based) when the problem belongs to one command. */
  index?: number;
  field?: string;
  message: string;
  kind: 'schema' | 'unbound' | 'destructive';
}

export interface ValidationResult {
  ok: boolean;
  plan?: Plan;
  problems: PlanProblem[];
  /** Per command: why it is destructive ([] when it is not). */
  destructive: string[][];
}

export interface ValidateOptions {
  destroyer: boolean;
  /** Names of bindings predefined from config (only these may be used without being produced). */
  predefined?: Iterable<string>;
}

/**
 * Whole-plan static validation (DESIGN.md §1): schema, each verb's own argument rules, every
 * placeholder bound before use, and destroyer classification of every step. Nothing is sent.
 */
export function validatePlan(input: unknown, opts: ValidateOptions): ValidationResult {
  const parsed = PlanSchema.safeParse(input);
  const problems: PlanProblem[] = parsed.success ? [] : parsed.error.issues.map(schemaProblem);
  const destructive: string[][] = [];
  const bound = new Set<string>(opts.predefined ?? []);
  // Commands are checked even when the plan as a whole failed its schema, so one run reports every problem.
  const commands = parsed.success ? parsed.data.commands : usableCommands(input);

  commands.forEach((command, index) => {
    if (!command) {
      destructive.push([]);
      return;
    }
    const [verb] = command.args;
    const executor = executorFor(verb!);
    if (!executor) {
      problems.push({ kind: 'schema', index, field: 'args[0]', message: `unknown step verb "${verb}" (known: ${[...EXECUTORS.keys()].join(', ')})` });
      destructive.push([]);
      return;
    }
    for (const p of executor.checkArgs(command.args)) problems.push({ kind: 'schema', index, ...p });
    command.args.forEach((arg, argIndex) => {
      for (const name of placeholdersIn(arg)) {
        if (!bound.has(name)) {
          const predefined = (PREDEFINED_BINDINGS as readonly string[]).includes(name);
          problems.push({
            kind: 'unbound',
            index,
            field: `args[${argIndex}]`,
            message: predefined
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
    const reasons = executor.destructive(command.args);
    destructive.push(reasons);
    if (reasons.length && !opts.destroyer) {
      problems.push({ kind: 'destructive', index, field: 'args', message: `destructive: ${reasons.join('; ')} (needs --destroyer)` });
    }
  });

  problems.push(...duplicateNameProblems(commands));
  problems.sort((a, b) => (a.index ?? -1) - (b.index ?? -1));
  return { ok: problems.length === 0, plan: parsed.success ? parsed.data : undefined, problems, destructive };
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

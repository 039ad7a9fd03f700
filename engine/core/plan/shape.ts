/**
 * The plan schema's verdict without loading zod, for the plans that plainly satisfy it.
 *
 * zod is about 95 ES modules; loading them is most of its cost (about 57 ms of a 350 ms `gpucloud list`,
 * nearly all of it module loading, not validation). Every plan a command builds itself, and nearly every
 * plan a person or a model writes, is a plain JSON object that satisfies PlanSchema (schemas/plan.ts);
 * `planShape` recognises exactly those and returns what PlanSchema would (same keys, same order: the run
 * journal hashes the plan's JSON). Anything else, including anything it is not sure of, is left to
 * PlanSchema itself, loaded then (`planSchema()`), which also words the problems. So the schema stays the
 * authority: this check only ever says yes where PlanSchema says yes (test/core/plan.shape.test.ts compares
 * the two on thousands of generated plans and mutations). A change to PlanSchema needs the same change
 * here; until then plans using a new field are simply validated by zod.
 */
import type { Plan, PlanCommand } from '../../../schemas/plan.js';
import { BINDING_NAME } from '../../../schemas/plan-bindings.js';
import { loadJsonPath } from './produces.js';

const PLAN_KEYS = new Set(['version', 'provider', 'commands', 'question', 'summary', 'created_at', 'notes']);
const COMMAND_KEYS = new Set(['args', 'reason', 'produces']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function onlyKeys(o: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const k in o) if (!allowed.has(k)) return false;
  return Object.getOwnPropertySymbols(o).length === 0;
}

const isString = (v: unknown): v is string => typeof v === 'string';
function isStringArray(v: unknown): v is string[] {
  if (!Array.isArray(v)) return false;
  // By index, not every(): a hole is `undefined` to the schema.
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}
const isOptionalString = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';

function command(c: unknown): PlanCommand | undefined {
  if (!isPlainObject(c) || !onlyKeys(c, COMMAND_KEYS)) return undefined;
  const { args, reason, produces } = c;
  if (!isStringArray(args) || args.length < 1 || !isString(reason)) return undefined;
  const out: PlanCommand = { args: [...args], reason };
  if (produces !== undefined) {
    if (!isPlainObject(produces) || Object.getOwnPropertySymbols(produces).length) return undefined;
    const copy: Record<string, string> = {};
    for (const [name, path] of Object.entries(produces)) {
      if (!BINDING_NAME.test(name) || !isString(path) || path.length < 1) return undefined;
      copy[name] = path;
    }
    out.produces = copy;
  }
  return out;
}

/** The plan as PlanSchema would return it, when the input plainly satisfies it; undefined otherwise (ask PlanSchema). */
export function planShape(input: unknown): Plan | undefined {
  if (!isPlainObject(input) || !onlyKeys(input, PLAN_KEYS)) return undefined;
  const { version, provider, commands, question, summary, created_at, notes } = input;
  if (version !== 1) return undefined;
  let providerOut: Plan['provider'];
  if (isString(provider) && provider.length >= 1) providerOut = provider;
  else if (isStringArray(provider) && provider.length >= 1 && provider.every((p) => p.length >= 1)) providerOut = [...provider];
  else return undefined;
  if (!Array.isArray(commands) || commands.length < 1) return undefined;
  const commandsOut: PlanCommand[] = [];
  for (const c of commands) {
    const parsed = command(c);
    if (!parsed) return undefined;
    commandsOut.push(parsed);
  }
  if (!isOptionalString(question) || !isOptionalString(summary) || !isOptionalString(created_at)) return undefined;
  if (notes !== undefined && !isString(notes) && !isStringArray(notes)) return undefined;
  const plan: Plan = { version: 1, provider: providerOut, commands: commandsOut };
  if (question !== undefined) plan.question = question;
  if (summary !== undefined) plan.summary = summary;
  if (created_at !== undefined) plan.created_at = created_at;
  if (notes !== undefined) plan.notes = isString(notes) ? notes : [...notes];
  return plan;
}

type PlanSchemaType = typeof import('../../../schemas/plan.js').PlanSchema;
let schema: PlanSchemaType | undefined;

/**
 * Imports PlanSchema (and zod with it) the first time a plan needs it. Validation is synchronous, so it is
 * imported before, where the plan's providers are (ProviderSource.forPlan, through loadPlanChecks below).
 */
export async function loadPlanSchema(): Promise<void> {
  schema ??= (await import('../../../schemas/plan.js')).PlanSchema;
}

/** PlanSchema, imported by loadPlanSchema (an internal error otherwise: the surface skipped forPlan). */
export function planSchema(): PlanSchemaType {
  if (!schema) throw new Error('internal: PlanSchema is not loaded; a surface must await providers.forPlan(plan) before validating it');
  return schema;
}

/**
 * Imports what validating `input` needs besides its providers; `everything` for a source that validates
 * any plan (`all()`). validatePlan is synchronous and the two libraries it may need are kept off the
 * start-up path (test/core/startup.modules.test.ts): PlanSchema (zod) for a plan that does not plainly
 * fit it, jsonpath-plus for a command with `produces`. ProviderSource.forPlan calls this, and every
 * surface awaits forPlan before validating: "await providers.forPlan(plan), then validate" covers them
 * as it covers the providers. (Here, not in a module of its own: one module fewer at start-up.)
 */
export async function loadPlanChecks(input: unknown, everything = false): Promise<void> {
  await Promise.all([everything || !planShape(input) ? loadPlanSchema() : undefined, everything || hasProduces(input) ? loadJsonPath() : undefined]);
}

/** Whether any command of the input (read as loosely as validation reads it) has a `produces` map. */
function hasProduces(input: unknown): boolean {
  const commands = (input as { commands?: unknown } | null | undefined)?.commands;
  if (!Array.isArray(commands)) return false;
  return Array.from(commands).some((c) => {
    const produces = (c as { produces?: unknown } | null | undefined)?.produces;
    return Boolean(produces) && typeof produces === 'object';
  });
}

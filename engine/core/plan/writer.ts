/**
 * The plan writer (issue 39 §9): every plan this tool writes for people goes through here — a maker's
 * plan (`ask --maker`, `deploy`, `k8s … --plan`, talk's `/plan show|save`) and `plan convert` — so a
 * checked-in plan diffs like code: request bodies as JSON objects, two spaces, one field a line.
 *
 * What is written must read back (engine/core/plan/document.ts turns a body object into its JSON text)
 * to a plan that sends the same requests, so a body becomes an object only when reading it loses
 * nothing: no key twice, every number spelled as it reads back (`1.0`, `1e3`, `-0` or an integer past
 * 2^53 would be sent respelled or rounded), else it stays the string it was.
 *
 * Two orders, because the plan hash (the run journal's key, the history's plan hash) is the hash of the
 * body text as read:
 * - `sorted` (makers): keys in one order whatever order a maker or a model wrote them, spaces and
 *   escapes made plain, so the same plan always writes the same text. A body with two keys one field
 *   could take (`name` and `Name`: Go's decoder folds case and keeps the last) keeps its order, as the
 *   string it was: there the order is what the server reads.
 * - `kept` (`plan convert`): the plan's own order and spelling (only text that reads back identically
 *   becomes an object), so a converted plan has the hash, and finds the journal, of the plan it was.
 */
import { PlanCommandSchema, PlanSchema } from '../../../schemas/plan.js';
import { bodyAsText } from './document.js';
import { findDuplicateKey } from './strict-json.js';
import { goFoldName } from '../kits/http/go-json-keys.js';

/** How a body is written: a JSON object (reviewable in git) or a JSON string (the compact form). */
export type BodyForm = 'object' | 'string';

/** The order and spelling of a written body's keys (see the header). */
export type BodyKeys = 'sorted' | 'kept';

export interface WriteOptions {
  /** Default `object`. */
  body?: BodyForm;
  /** Default `sorted` (a maker's plan); `plan convert` keeps the plan's own. */
  keys?: BodyKeys;
}

type PlanLike = { commands: { args: readonly unknown[] }[] };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a value is a plan whose steps all have args (anything else is written as it is: it is not ours to reshape). */
function isPlanLike(plan: unknown): plan is PlanLike {
  return isRecord(plan) && Array.isArray(plan.commands) && plan.commands.every((c) => isRecord(c) && Array.isArray(c.args));
}

/** The plan with its bodies in the form asked for; the step verb (`args[0]`) and everything else unchanged. */
export function planForWriting<P>(plan: P, opts: WriteOptions = {}): P {
  if (!isPlanLike(plan)) return plan;
  const { body = 'object', keys = 'sorted' } = opts;
  const write = (arg: unknown): unknown => {
    try {
      const value = keys === 'sorted' ? sortedBody(arg) : keptBody(arg);
      return body === 'object' ? value : bodyAsText(value);
    } catch (err) {
      // Nested deeper than JSON.stringify goes (thousands of levels): it stays the text it was.
      if (err instanceof RangeError) return arg;
      throw err;
    }
  };
  const commands = plan.commands.map((c) => inSchemaOrder({ ...c, args: c.args.map((a, i) => (i === 0 ? a : write(a))) }, COMMAND_KEYS));
  return inSchemaOrder({ ...plan, commands }, PLAN_KEYS) as P;
}

/**
 * The plan's own keys in the schema's order (validation parses a plan into that order: `plan convert`
 * writes it so), keys the schema lacks after them: a maker's plan written, converted to strings and back
 * is the same text.
 */
const PLAN_KEYS = Object.keys(PlanSchema.shape);
const COMMAND_KEYS = Object.keys(PlanCommandSchema.shape);

function inSchemaOrder<T extends object>(value: T, order: readonly string[]): T {
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => rank(a) - rank(b))) as T;
}

/** The plan as a document: JSON, two spaces, bodies as `opts` says, a final newline. */
export function planText(plan: unknown, opts: WriteOptions = {}): string {
  return `${JSON.stringify(planForWriting(plan, opts), null, 2)}\n`;
}

/** `kept`: the text of an object or array becomes that value where its JSON text is exactly the text. */
function keptBody(arg: unknown): unknown {
  const value = jsonValue(arg);
  return value !== undefined && JSON.stringify(value) === arg ? value : arg;
}

/**
 * `sorted`: an object or array (or the text of one that reads without loss) with every object's keys
 * sorted; the text of an array only when it is spelled exactly as it reads (a step's text argument
 * like `[ "$x" ]` is a shell test, not a list).
 */
function sortedBody(arg: unknown): unknown {
  if (typeof arg === 'object' && arg !== null) return sortKeys(arg) ?? arg;
  const value = jsonValue(arg);
  if (value === undefined) return arg;
  const exact = JSON.stringify(value) === arg;
  if (!exact && (Array.isArray(value) || !readsWithoutLoss(arg as string))) return arg;
  return sortKeys(value) ?? arg;
}

/** The object or array a text argument is the JSON of, or undefined. */
function jsonValue(arg: unknown): object | undefined {
  if (typeof arg !== 'string' || !/^\s*[[{]/.test(arg)) return undefined;
  try {
    const value = JSON.parse(arg) as unknown;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** JSON text (that parsed) whose value, written again, says the same: no key twice, every number spelled as it reads back. */
function readsWithoutLoss(text: string): boolean {
  if (findDuplicateKey(text)) return false;
  // Outside its strings, valid JSON holds only numbers, literals and punctuation.
  const outsideStrings = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return (outsideStrings.match(NUMBER) ?? []).every((n) => JSON.stringify(Number(n)) === n);
}

/**
 * The value with every object's keys sorted (integer-like keys stay first, ascending: a JavaScript
 * object keeps them so), or undefined when one object has two keys Go's decoder would fold together.
 * Object.fromEntries makes own properties, so a `__proto__` key stays a key.
 */
function sortKeys(value: unknown): unknown {
  const folded = Symbol('folded');
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (!isRecord(v)) return v;
    const keys = Object.keys(v).sort();
    if (new Set(keys.map(goFoldName)).size !== keys.length) throw folded;
    return Object.fromEntries(keys.map((key) => [key, sort(v[key])]));
  };
  try {
    return sort(value);
  } catch (err) {
    if (err === folded) return undefined;
    throw err;
  }
}

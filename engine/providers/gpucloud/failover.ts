/**
 * Capacity failover for instance creates (issue 31 §1): a create step may list `alternatives`
 * (another instance type, location or spot choice), tried in order when a choice has no capacity.
 *
 * For each choice, in order:
 *   1. availability: `GET /v1/instance-availability/{type}?location_code=…[&is_spot=true]`; `false`
 *      passes it over without sending a create;
 *   2. the create, under the step's one create guard (its snapshot of the IDs the name had before);
 *      a 503 `service_unavailable` is a capacity failure, but the create might have happened: the
 *      guard looks the name up first, and a record that was not there before is ours (adopted);
 *   3. the new instance is watched until it leaves `new`/`ordered`: `no_capacity` passes the choice
 *      over (its record never ran and never bills; its ID joins the guard's "not ours" set).
 * Exactly once holds across choices because every choice creates the same name under the same guard,
 * and the journal's look-up after a kill (engine/core/plan/names.ts) sees the name whatever choice made it.
 * Any other failure (402, 400, a network error after the guard's own look-ups) ends the step as usual.
 */
import { InvalidInputError, OperationError } from '../../core/errors.js';
import type { AlternativeUsed, ArgProblem, CanonicalRequest, StepContext, StepResult } from '../../core/provider.js';
import type { PlanAlternative } from '../../../schemas/plan.js';
import { createDedupeOf, type CreateDedupe } from './dedupe.js';
import { canonicalRequest, requestTarget } from './request.js';
import { GpuCloudError } from './errors.js';
import { sleep } from './retry.js';
import type { GpuCloudClient } from './types.js';

/** The create path alternatives apply to, and the body fields an alternative may change. */
export const FAILOVER_PATH = '/v1/instances';
const FIELDS = ['instance_type', 'location_code', 'is_spot'] as const;
/** Statuses a new instance passes through before capacity is decided. */
const UNDECIDED = new Set(['new', 'ordered']);
/** How long a new instance is watched for `no_capacity` before it counts as placed. */
export const SETTLE_TIMEOUT_MS = 5 * 60_000;
const SETTLE_WAITS_MS = [250, 500, 1000, 2000];
/** The settle check's word for an instance that vanished (404) before it was placed. */
const GONE = '(gone)';

type Body = Record<string, unknown>;
export type ChoiceValues = Record<string, string | boolean>;

/** The canonical request's body, when it is a JSON object. */
function bodyOf(request: CanonicalRequest | undefined): Body | undefined {
  const v = request?.body;
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Body) : undefined;
}

/** The body a choice sends: the step's body with the alternative's fields (a spot switch adjusts a SPOT/PAY_AS_YOU_GO contract). */
export function choiceBody(body: Body, alt: PlanAlternative | undefined): Body {
  if (!alt) return body;
  const out: Body = { ...body };
  if (alt.instance_type !== undefined) out.instance_type = alt.instance_type;
  if (alt.location_code !== undefined) out.location_code = alt.location_code;
  if (alt.is_spot !== undefined) {
    out.is_spot = alt.is_spot;
    if (out.contract === 'SPOT' || out.contract === 'PAY_AS_YOU_GO') out.contract = alt.is_spot ? 'SPOT' : 'PAY_AS_YOU_GO';
  }
  return out;
}

/** What a choice creates with, for reports and progress: type, location and spot. */
export function choiceValues(body: Body): ChoiceValues {
  const out: ChoiceValues = {};
  for (const f of FIELDS) {
    const v = body[f];
    if (typeof v === 'string' || typeof v === 'boolean') out[f] = v;
  }
  if (body.contract === 'SPOT') out.is_spot = true;
  return out;
}

/** `1H100.80S.22V in FIN-03 (spot)` */
export function describeChoice(values: ChoiceValues): string {
  return `${String(values.instance_type ?? '?')} in ${String(values.location_code ?? '?')}${values.is_spot === true ? ' (spot)' : ''}`;
}

export function choiceName(index: number): string {
  return index === 0 ? 'the step as written' : `alternative ${index}`;
}

/** Every choice of a create step: the canonical body, then each alternative applied to it. */
export function choicesOf(request: CanonicalRequest, alternatives: readonly PlanAlternative[]): Body[] | undefined {
  const body = bodyOf(request);
  if (!body) return undefined;
  return [body, ...alternatives.map((a) => choiceBody(body, a))];
}

const PLACEHOLDER = /<[A-Z][A-Z0-9_]*>/;

/** The static checks of `alternatives` on a gpucloud-api step, from its canonical request (nothing is read). */
export function checkAlternatives(args: readonly string[], alternatives: readonly PlanAlternative[], request?: CanonicalRequest): ArgProblem[] {
  const canon = request ?? (() => {
    const c = canonicalRequest(args);
    return c.ok ? c.request : undefined;
  })();
  // A step without a canonical form is invalid already (its own problem says why).
  if (!canon) return [];
  if (canon.method !== 'POST' || canon.route !== FAILOVER_PATH) {
    return [{ field: 'alternatives', message: `alternatives apply to instance creates (POST ${FAILOVER_PATH}) only` }];
  }
  const body = bodyOf(canon);
  if (!body) return [{ field: 'alternatives', message: 'alternatives need the create body as a JSON object' }];
  const problems: ArgProblem[] = [];
  // Every choice creates the same name: it is how a create that may have happened is found again.
  if (typeof body.hostname !== 'string' || body.hostname === '') problems.push({ field: 'alternatives', message: 'a create with alternatives needs its hostname in the body (every choice creates that name)' });
  if (body.contract === 'LONG_TERM' && alternatives.some((a) => a.is_spot !== undefined)) {
    problems.push({ field: 'alternatives', message: 'a LONG_TERM contract cannot switch to or from spot' });
  }
  const seen = new Map<string, number>([[JSON.stringify(choiceValues(body)), 0]]);
  alternatives.forEach((alt, i) => {
    for (const f of ['instance_type', 'location_code'] as const) {
      const v = alt[f];
      if (v !== undefined && (PLACEHOLDER.test(v) || /\s/.test(v))) problems.push({ field: `alternatives[${i}].${f}`, message: `${f} must be a literal value (no placeholder, no blanks): ${JSON.stringify(v)}` });
    }
    const key = JSON.stringify(choiceValues(choiceBody(body, alt)));
    const same = seen.get(key);
    if (same !== undefined) {
      problems.push({ field: `alternatives[${i}]`, message: `repeats ${same === 0 ? 'the step as written' : `alternatives[${same - 1}]`} (${describeChoice(choiceValues(choiceBody(body, alt)))})` });
    } else seen.set(key, i + 1);
  });
  return problems;
}

function isCapacityError(err: unknown): boolean {
  return err instanceof GpuCloudError && err.status === 503;
}

function createdIdOf(data: unknown): string | undefined {
  if (typeof data === 'string' && data) return data;
  const id = data && typeof data === 'object' ? (data as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id ? id : undefined;
}

/**
 * Runs a create with alternatives (see the top of this file). Returns the step's result with
 * `alternative` saying which choice was made; throws `no_capacity` (exit 1) when none had capacity.
 */
export async function createWithFailover(
  client: GpuCloudClient,
  request: CanonicalRequest,
  alternatives: readonly PlanAlternative[],
  ctx: Pick<StepContext, 'signal' | 'waiting' | 'existingIds'>,
): Promise<StepResult> {
  const choices = choicesOf(request, alternatives);
  const path = requestTarget(request);
  const { signal } = ctx;
  const found = createDedupeOf(request);
  // Validation requires a hostname; a bound value can still make it empty: never send without a guard.
  if (!choices || !found) throw new InvalidInputError('invalid_plan', `the create with alternatives has no hostname to find it by once its placeholders are substituted; it was not sent`);
  const guard: CreateDedupe = found;
  if (ctx.existingIds) guard.restoreSnapshot([...ctx.existingIds]);
  const list = async (listPath: string) => (await client.request({ method: 'GET', path: listPath, signal, onWait: ctx.waiting })).data;
  // The guard's snapshot is taken once, before the first create: every choice is judged against it.
  if (!guard.hasSnapshot) await guard.snapshot(list);
  const tried: AlternativeUsed['tried'] = [];
  const passOver = (index: number, values: ChoiceValues, outcome: string) => {
    tried.push({ index, values, outcome });
    const next = index + 1 < choices.length ? `; trying ${choiceName(index + 1)}: ${describeChoice(choiceValues(choices[index + 1]!))}` : '';
    ctx.waiting({ reason: 'failover', waitMs: 0, message: `capacity: ${choiceName(index)} (${describeChoice(values)}) ${outcome}${next}` });
  };

  for (let index = 0; index < choices.length; index++) {
    const body = choices[index]!;
    const values = choiceValues(body);
    const available = await availability(client, values, ctx);
    if (available !== true) {
      passOver(index, values, available === false ? 'is not available' : available);
      continue;
    }
    let res: { status: number; data: unknown; attempts?: number; deduplicated?: boolean };
    try {
      res = await client.request({ method: 'POST', path, body: JSON.stringify(body), signal, createGuard: guard, onWait: ctx.waiting });
    } catch (err) {
      if (!isCapacityError(err)) throw err;
      // A 503 may still have created it: resolve that before any other choice is sent.
      const found = await guard.find(list);
      if (!found) {
        passOver(index, values, `answered ${(err as GpuCloudError).code} (no capacity)`);
        continue;
      }
      res = { status: 202, data: found.data, deduplicated: true };
    }
    const id = createdIdOf(res.data);
    const status = id ? await settledStatus(client, id, values, ctx) : undefined;
    if (status === 'no_capacity' || status === GONE) {
      guard.restoreSnapshot([...(guard.snapshotIds ?? []), id!]);
      passOver(index, values, status === GONE ? `was accepted, then disappeared before it was placed (instance ${id})` : `ended in no_capacity (instance ${id}, never ran)`);
      continue;
    }
    return { status: res.status, data: res.data, attempts: res.attempts, deduplicated: res.deduplicated, alternative: { index, values, tried } };
  }
  throw new OperationError('no_capacity', `no capacity for "${guard.name}" in any of its ${choices.length} choices: ${tried.map((t) => `${choiceName(t.index)} (${describeChoice(t.values)}) ${t.outcome}`).join('; ')}`, {
    hint: 'add alternatives (other locations, types or spot), see what is available with `assistant gpucloud list availability --matrix`, or try again later',
    details: { tried },
  });
}

/** true / false from the availability endpoint, or why the choice cannot be checked (an unknown type or location). */
async function availability(client: GpuCloudClient, v: ChoiceValues, ctx: Pick<StepContext, 'signal' | 'waiting'>): Promise<boolean | string> {
  const query = `location_code=${encodeURIComponent(String(v.location_code ?? ''))}${v.is_spot === true ? '&is_spot=true' : ''}`;
  try {
    const res = await client.request({ method: 'GET', path: `/v1/instance-availability/${encodeURIComponent(String(v.instance_type ?? ''))}?${query}`, signal: ctx.signal, onWait: ctx.waiting });
    return res.data === true || res.data === 'true';
  } catch (err) {
    // The catalogue does not know the type or location: that choice can never be made.
    if (err instanceof GpuCloudError && (err.status === 400 || err.status === 404)) return `cannot be checked (${err.code}: ${err.message})`;
    throw err;
  }
}

/** The status a new instance settles in (`no_capacity` or anything past ordering), watched with a bounded backoff. */
async function settledStatus(client: GpuCloudClient, id: string, values: ChoiceValues, ctx: Pick<StepContext, 'signal' | 'waiting'>): Promise<string | undefined> {
  const started = performance.now();
  for (let look = 0; ; look++) {
    const data = (
      await client.request({ method: 'GET', path: `/v1/instances/${encodeURIComponent(id)}`, signal: ctx.signal, onWait: ctx.waiting }).catch((err: unknown) => {
        // Accepted, then gone (a cloud may drop what it could not place): not placed.
        if (err instanceof GpuCloudError && err.status === 404) return { data: { status: GONE } };
        throw err;
      })
    ).data as { status?: unknown };
    const status = typeof data?.status === 'string' ? data.status : undefined;
    if (!status || !UNDECIDED.has(status)) return status;
    const left = SETTLE_TIMEOUT_MS - (performance.now() - started);
    // Still ordered after the bound: capacity was not refused; the plan's own wait steps take over.
    if (left <= 0) return status;
    const waitMs = Math.min(SETTLE_WAITS_MS[Math.min(look, SETTLE_WAITS_MS.length - 1)]!, left);
    ctx.waiting({ reason: 'poll', waitMs, message: `waiting for the new instance ${id} (${describeChoice(values)}) to be placed (status ${status})` });
    await sleep(waitMs, ctx.signal);
  }
}

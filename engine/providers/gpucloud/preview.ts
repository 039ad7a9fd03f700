/**
 * gpucloud's prices (DESIGN §8: priced or refused): one `ChangePrice` per change step, from its canonical
 * request and the live catalogue, read through the executor — the dry run's cost table, the budget
 * guard's "added" and what a person is asked to consent to all come from here. Each route a change can
 * take is priced (./price-creates.ts, ./price-changes.ts), proven free (deletes, stops, tags, secrets,
 * keys, scripts, renames) or unpriced with why (any route or action this provider does not know).
 */
import { substituteValue } from '../../core/plan/bindings.js';
import type { ChangePrice, CostLine, PlannedStep, PreviewRead, PricePreview, RequestFacts, StepPrice } from '../../core/provider.js';
import { choiceBody, choiceName } from './failover.js';
import { clusterCreateLines, instanceCreateLines, volumeCreateLines, type CreateLines } from './price-creates.js';
import { combine, free, priceClusterAction, priceDeploymentChange, priceDeploymentCreate, priceDeploymentResume, priceInstanceAction, priceVolumeAction, unpriced, type DeploymentKind } from './price-changes.js';
import { list, PriceReads, record, type Rec } from './price-reads.js';
import { segmentsOf } from './request.js';
import { requestFacts } from './request-facts.js';
import { formatAmount, formatRate } from '../../core/render/money.js';

/** Routes whose changes bill nothing: names, keys, scripts, secrets, tags, environment variables, lifecycle calls that stop. */
const FREE_ROUTES: Record<string, string> = {
  'POST /v1/sshkeys': 'an SSH key bills nothing',
  'POST /v1/ssh-keys': 'an SSH key bills nothing',
  'POST /v1/scripts': 'a startup script bills nothing',
  'POST /v1/secrets': 'a secret bills nothing',
  'POST /v1/file-secrets': 'a file secret bills nothing',
  'POST /v1/container-registry-credentials': 'registry credentials bill nothing',
  'POST /v1/instances/{id}/tags': 'a tag bills nothing',
  'POST /v1/volumes/{id}/tags': 'a tag bills nothing',
  'POST /v1/clusters/{id}/tags': 'a tag bills nothing',
  'POST /v1/container-deployments/{name}/environment-variables': 'environment variables bill nothing',
  'PATCH /v1/container-deployments/{name}/environment-variables': 'environment variables bill nothing',
  'POST /v1/container-deployments/{name}/pause': 'a paused deployment bills nothing',
  'POST /v1/job-deployments/{name}/pause': 'a paused deployment bills nothing',
  'POST /v1/container-deployments/{name}/restart': 'a restart runs what ran',
  'POST /v1/container-deployments/{name}/purge-queue': 'purging a queue adds nothing that bills',
  'POST /v1/job-deployments/{name}/purge-queue': 'purging a queue adds nothing that bills',
};

const DEPLOYMENT_BASES: Record<string, DeploymentKind> = { 'container-deployments': 'container', 'job-deployments': 'job' };

type Step = PlannedStep;

/** The price of one change step, from its canonical request. */
async function priceStep(step: Step, reads: PriceReads, predefined: Record<string, string>, warnings: string[]): Promise<ChangePrice> {
  const req = step.request;
  if (!req) return unpriced('the step has no canonical request');
  const route = `${req.method} ${req.route}`;
  if (req.method === 'DELETE') return free('a delete ends what bills');
  if (FREE_ROUTES[route]) return free(FREE_ROUTES[route]!);
  const body = (substituteValue(req.body, predefined) ?? {}) as unknown;
  const b = record(body);
  if (req.body !== undefined && !b) return unpriced(`the body of ${route} is not a JSON object`);
  const obj = b ?? {};
  const segments = segmentsOf(req);
  const kind = DEPLOYMENT_BASES[segments[1] ?? ''];
  const name = segments[2] ?? '';
  switch (route) {
    case 'POST /v1/instances': {
      // Every choice of a create with alternatives is priced; the most expensive one is counted.
      const choices = step.alternatives?.length ? [obj, ...step.alternatives.map((a) => choiceBody(obj, a))] : [obj];
      return fromCreates(await Promise.all(choices.map((c) => instanceCreateLines(step.index, c, reads))));
    }
    case 'POST /v1/clusters':
      return fromCreates([await clusterCreateLines(step.index, obj, reads)]);
    case 'POST /v1/volumes':
      return fromCreates([await volumeCreateLines(step.index, obj, reads)]);
    case 'PUT /v1/instances':
    case 'POST /v1/instances/action':
      return priceInstanceAction(step.index, obj, reads);
    case 'PUT /v1/volumes':
      return priceVolumeAction(step.index, obj, reads);
    case 'PUT /v1/clusters':
      return priceClusterAction(obj);
    case 'POST /v1/container-deployments':
    case 'POST /v1/job-deployments': {
      const price = await priceDeploymentCreate(step.index, kind!, obj, reads);
      if (price.price === 'priced') await markComputeAvailable(price.lines[0]!, obj, reads, warnings);
      const scaling = record(obj.scaling);
      if (kind === 'container' && price.price === 'priced' && scaling?.min_replica_count === 0) {
        warnings.push(`step ${step.index}: the container deployment scales to zero: ${formatRate(price.per_hour)}/hour is with ${String(scaling.max_replica_count)} replica(s) running; nothing is billed while none runs`);
      }
      return price;
    }
    case 'PATCH /v1/container-deployments/{name}':
    case 'PATCH /v1/job-deployments/{name}':
      if (obj.compute === undefined && obj.scaling === undefined && obj.is_spot === undefined) return free(`the change leaves compute, scaling and spot as they are`);
      return priceDeploymentChange(step.index, kind!, name, obj, reads, 'update');
    case 'PATCH /v1/container-deployments/{name}/scaling':
    case 'PATCH /v1/job-deployments/{name}/scaling':
      return priceDeploymentChange(step.index, kind!, name, { scaling: obj }, reads, 'scaling');
    case 'POST /v1/container-deployments/{name}/resume':
    case 'POST /v1/job-deployments/{name}/resume':
      return priceDeploymentResume(step.index, kind!, name, reads);
  }
  return unpriced(`gpucloud does not know what ${route} costs`);
}

/** The price of a create from its lines: every part priced, else unpriced with why. */
function fromCreates(made: CreateLines[]): ChangePrice {
  const bad = made.flatMap((m) => m.unpriced);
  if (bad.length) return unpriced([...new Set(bad)].join('; '));
  const lines = made.length > 1 ? countMostExpensiveChoice(made) : made[0]!.lines;
  return combine([{ price: 'priced', per_hour: lines.reduce((s, l) => s + (l.per_hour ?? 0), 0), lines }], 'nothing that bills');
}

/**
 * A create with alternatives makes one of its choices: the lines of the most expensive choice are
 * counted (totals, balance, budget guard), and its instance line lists every choice with its price.
 */
function countMostExpensiveChoice(made: CreateLines[]): CostLine[] {
  const total = (c: CreateLines) => c.lines.reduce((s, l) => s + (l.per_hour ?? Number.POSITIVE_INFINITY), 0);
  let worst = 0;
  made.forEach((c, i) => {
    if (total(c) > total(made[worst]!)) worst = i;
  });
  const instances = made.map((c, choice) => ({ choice, line: c.lines.find((l) => l.kind === 'instance') })).filter((x) => x.line);
  return made[worst]!.lines.map((l) =>
    l.kind !== 'instance'
      ? l
      : {
          ...l,
          note: [`the most expensive of ${made.length} choices (${choiceName(worst)}); the create makes the first one with capacity`, l.note].filter(Boolean).join('; '),
          choices: instances.map(({ choice, line }) => {
            const { step: _s, choices: _c, ...rest } = line!;
            return { choice, ...rest };
          }),
        },
  );
}

/** Availability of the instances and clusters the priced creates make, in their location, as warnings and `available`. */
async function markAvailability(changes: StepPrice[], reads: PriceReads, warnings: string[]): Promise<void> {
  for (const change of changes) {
    if (change.price.price !== 'priced') continue;
    for (const l of change.price.lines) {
      if (l.kind !== 'instance' && l.kind !== 'cluster') continue;
      const choices = l.choices ?? [];
      for (const ch of choices) ch.available = await available(l.kind, ch.type, ch.location, ch.spot === true, reads, warnings, l.step, ch.choice);
      if (choices.length) {
        l.available = choices.find((c) => c.type === l.type && c.location === l.location && Boolean(c.spot) === Boolean(l.spot))?.available;
        if (!choices.some((c) => c.available !== false)) warnings.push(`step ${l.step}: none of its ${choices.length} choices is available right now; the create would fail with no_capacity`);
        continue;
      }
      if (l.part) continue;
      l.available = await available(l.kind, l.type, l.location, l.spot === true, reads, warnings, l.step);
      if (l.available === false) warnings.push(`step ${l.step}: ${l.type}${l.spot ? ' (spot)' : ''} is not available in ${l.location} right now; the create would fail with service_unavailable (try another location)`);
    }
  }
}

/** Whether the serverless compute a deployment create asks for is offered now (`/v1/serverless-compute-resources`). */
async function markComputeAvailable(l: CostLine, body: Rec, reads: PriceReads, warnings: string[]): Promise<void> {
  const compute = record(body.compute);
  const rows = list(await reads.serverlessCompute());
  const row = rows.find((r) => r?.name === compute?.name && Number(r?.size) === Number(compute?.size));
  l.available = rows.length ? row?.is_available === true : undefined;
  if (l.available === false) warnings.push(`step ${l.step}: serverless compute ${l.type} x${String(compute?.size)} is not available right now; the create would fail with service_unavailable (pick another compute)`);
}

/** Whether a type is available in a location now; a choice of alternatives outside the catalogue says why it can never be made. */
async function available(kind: string, type: string, location: string | undefined, spot: boolean, reads: PriceReads, warnings: string[], step: number, choice?: number): Promise<boolean | undefined> {
  if (!location) return undefined;
  if (choice !== undefined && kind === 'instance') {
    const codes = list(await reads.locations()).map((r) => r?.code).filter((c): c is string => typeof c === 'string');
    if (codes.length && !codes.includes(location)) {
      warnings.push(`step ${step}: ${choiceName(choice)}: location "${location}" is not in the gpucloud catalogue (valid: ${codes.join(', ')}); that choice can never be made`);
      return false;
    }
  }
  const base = kind === 'instance' ? '/v1/instance-availability/' : '/v1/cluster-availability/';
  const v = await reads.get(`${base}${encodeURIComponent(type)}?location_code=${encodeURIComponent(location)}${spot ? '&is_spot=true' : ''}`);
  return typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : undefined;
}

/** gpucloud's share of a dry run: one price per change step, availability, facts for consent, and the balance. */
export async function previewGpuCloud(steps: readonly Step[], read: PreviewRead, predefined: Record<string, string>): Promise<PricePreview> {
  const reads = new PriceReads(read);
  const warnings: string[] = [];
  const changes: StepPrice[] = [];
  for (const step of steps) {
    if (step.class.effect === 'read') continue;
    const price = await priceStep(step, reads, predefined, warnings);
    const facts: RequestFacts | undefined = step.request ? await requestFacts(step, predefined, reads) : undefined;
    changes.push({ step: step.index, price, ...(facts ? { facts } : {}) });
  }
  await markAvailability(changes, reads, warnings);
  const totalPerHour = changes.reduce((s, c) => s + (c.price.price === 'priced' ? Math.max(0, c.price.per_hour) : 0), 0);
  const bal = record(await reads.balance());
  const amount = Number(bal?.amount);
  let balance: PricePreview['balance'];
  if (Number.isFinite(amount)) {
    const hours = totalPerHour > 0 ? amount / totalPerHour : undefined;
    balance = { amount, currency: String(bal?.currency ?? 'usd'), hours_covered: hours };
    if (hours !== undefined && hours < 24) {
      warnings.push(`the balance (${formatAmount(amount)} ${balance.currency.toUpperCase()}) covers only ${hours.toFixed(1)} hours of the new resources; add credit or they may be stopped`);
    }
  }
  for (const c of changes) if (c.price.price === 'unpriced') warnings.push(`step ${c.step}: no price is known: ${c.price.why}`);
  return { changes, balance, warnings };
}

export type { Rec };

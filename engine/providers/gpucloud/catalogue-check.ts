/**
 * Checks the creates of a plan against the live gpucloud catalogue (locations, instance types, OS
 * images, cluster types and cluster images), and picks an OS image that fits an instance type.
 * One check for both makers: the built-in planner refuses (exit 2) with the valid values, and the AI
 * maker sends the problems back to the model in its repair loop. A list the caller did not read (or
 * that came back empty) is not checked: no data is not proof that a value is wrong.
 */
import type { Plan, PlanAlternative } from '../../../schemas/plan.js';

/** The catalogue lists a maker reads (plain API records; see machines/make/make-plan.ts). */
export interface CatalogueLists {
  locations?: unknown[];
  instanceTypes?: unknown[];
  images?: unknown[];
  clusterTypes?: unknown[];
  clusterImages?: unknown[];
  [key: string]: unknown[] | undefined;
}

export interface CatalogueProblem {
  /** Command index in the plan. */
  index: number;
  /** Body field, e.g. location_code. */
  field: string;
  /** Error code for the built-in planner: unknown_location, unknown_instance_type, … */
  code: string;
  message: string;
  /** The values that would have been accepted. */
  valid: string[];
}

function str(record: unknown, key: string): string | undefined {
  const v = record && typeof record === 'object' ? (record as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? v : undefined;
}

function codes(records: unknown[] | undefined, key: string): string[] {
  return (records ?? []).map((r) => str(r, key)).filter((c): c is string => Boolean(c));
}

/** CPU-only types (CPU.4V.16G) have no GPU: CUDA images do not run on them. */
export function isCpuInstanceType(instanceType: string): boolean {
  return /^CPU\./i.test(instanceType);
}

function isGpuImage(imageType: string): boolean {
  return /\bcuda\b|-cuda-/i.test(imageType);
}

/**
 * OS images that run on `instanceType`: the type's `supported_os` when the catalogue gives it,
 * else by kind (no CUDA image on a CPU type, a CUDA image on a GPU type). Default image first.
 */
export function compatibleImages(instanceType: string, lists: CatalogueLists): string[] {
  const typeRecord = lists.instanceTypes?.find((t) => str(t, 'instance_type') === instanceType);
  const supported = (typeRecord as { supported_os?: unknown } | undefined)?.supported_os;
  // The catalogue's default first, then newest first (ubuntu-24.04 before ubuntu-22.04).
  const isDefault = (r: unknown) => Number((r as { is_default?: boolean }).is_default === true);
  const images = [...(lists.images ?? [])].sort((a, b) => isDefault(b) - isDefault(a) || (str(b, 'image_type') ?? '').localeCompare(str(a, 'image_type') ?? ''));
  const all = codes(images, 'image_type');
  if (Array.isArray(supported) && supported.length) {
    const allowed = new Set(supported.map(String));
    const listed = all.filter((i) => allowed.has(i));
    return listed.length ? listed : [...allowed];
  }
  const cpu = isCpuInstanceType(instanceType);
  return all.filter((i) => (cpu ? !isGpuImage(i) : isGpuImage(i)));
}

/** The image a create should use when the request names none: the first compatible one (default first). */
export function chooseImage(instanceType: string, lists: CatalogueLists): string | undefined {
  return compatibleImages(instanceType, lists)[0];
}

function body(args: string[]): Record<string, unknown> | undefined {
  if (args[0] !== 'gpucloud-api' || args[1] !== 'POST' || args[3] === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(args[3]);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // the plan validator reports bodies that are not JSON
  }
}

/** Placeholders are checked with their predefined value when known (<DEFAULT_LOCATION> → FIN-01), else skipped. */
function resolved(value: unknown, defaults: Record<string, string>): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^<([A-Z][A-Z0-9_]*)>$/.exec(value);
  return m ? defaults[m[1]!] : value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function oneOf(index: number, field: string, code: string, what: string, value: string | undefined, valid: string[], written?: unknown): CatalogueProblem[] {
  // Images may also be given by id; ids are not in these lists.
  if (value === undefined || !valid.length || valid.includes(value) || (field === 'image' && UUID.test(value))) return [];
  // A configured default (<DEFAULT_LOCATION>) that is wrong is a config problem: say where the value came from.
  const from = typeof written === 'string' && written !== value ? ` (the value of ${written})` : '';
  return [{ index, field, code, message: `${what} "${value}"${from} is not in the gpucloud catalogue (valid: ${valid.join(', ')})`, valid }];
}

/**
 * On-demand availability (GET /v1/instance-availability: `{location_code, availabilities}` per location):
 * a type sold out where the plan creates it would be refused by the API at that step. Spot capacity is
 * listed elsewhere and not checked here.
 */
function availabilityProblems(index: number, type: string, location: string, availability: unknown[] | undefined): CatalogueProblem[] {
  const entries = (availability ?? []).filter((a) => str(a, 'location_code'));
  const here = entries.find((a) => str(a, 'location_code') === location) as { availabilities?: unknown } | undefined;
  if (!here || !Array.isArray(here.availabilities) || here.availabilities.includes(type)) return [];
  const elsewhere = entries.filter((a) => Array.isArray((a as { availabilities?: unknown }).availabilities) && ((a as { availabilities: unknown[] }).availabilities).includes(type)).map((a) => str(a, 'location_code')!);
  return [
    {
      index,
      field: 'location_code',
      code: 'not_available',
      message: `${type} is not available in ${location} right now${elsewhere.length ? ` (available in: ${elsewhere.join(', ')})` : ' nor in any other location'}`,
      valid: elsewhere,
    },
  ];
}

/** Every create in `plan` whose location, type or image the catalogue does not have. */
export function catalogueProblems(plan: Pick<Plan, 'commands'> | unknown, lists: CatalogueLists, defaults: Record<string, string> = {}): CatalogueProblem[] {
  const locations = codes(lists.locations, 'code');
  const problems: CatalogueProblem[] = [];
  // The AI maker checks candidates the plan validator may still reject: anything malformed is skipped here.
  const commands = plan && typeof plan === 'object' && Array.isArray((plan as Plan).commands) ? (plan as Plan).commands : [];
  commands.forEach((command, index) => {
    const b = command && Array.isArray(command.args) ? body(command.args) : undefined;
    if (!b) return;
    const path = typeof command.args[2] === 'string' ? command.args[2].split('?')[0] : undefined;
    const location = resolved(b.location_code, defaults);
    if (path === '/v1/instances') {
      const type = resolved(b.instance_type, defaults);
      problems.push(...oneOf(index, 'location_code', 'unknown_location', 'location', location, locations, b.location_code));
      const typeProblems = oneOf(index, 'instance_type', 'unknown_instance_type', 'instance type', type, codes(lists.instanceTypes, 'instance_type'));
      problems.push(...typeProblems);
      const alternatives = Array.isArray(command.alternatives) ? command.alternatives : [];
      if (!alternatives.length && !typeProblems.length && type && location && b.is_spot !== true) problems.push(...availabilityProblems(index, type, location, lists.availability));
      if (alternatives.length) problems.push(...alternativeProblems(index, b, type, location, alternatives, lists, locations));
      const image = resolved(b.image, defaults);
      if (image !== undefined && !typeProblems.length && !UUID.test(image)) {
        const known = codes(lists.images, 'image_type');
        const imageProblems = oneOf(index, 'image', 'unknown_image', 'image', image, known);
        problems.push(...imageProblems);
        const fits = type ? compatibleImages(type, lists) : [];
        if (!imageProblems.length && type && known.length && !fits.includes(image)) {
          problems.push({ index, field: 'image', code: 'incompatible_image', message: `image "${image}" does not run on ${type} (valid for ${type}: ${fits.join(', ') || 'none'})`, valid: fits });
        }
      }
    } else if (path === '/v1/clusters') {
      problems.push(...oneOf(index, 'location_code', 'unknown_location', 'location', location, locations, b.location_code));
      problems.push(...oneOf(index, 'cluster_type', 'unknown_cluster_type', 'cluster type', resolved(b.cluster_type, defaults), codes(lists.clusterTypes, 'cluster_type')));
      problems.push(...oneOf(index, 'image', 'unknown_image', 'cluster image', resolved(b.image, defaults), codes(lists.clusterImages, 'image_type')));
    } else if (path === '/v1/volumes') {
      problems.push(...oneOf(index, 'location_code', 'unknown_location', 'location', location, locations, b.location_code));
    }
  });
  return problems;
}

/**
 * The alternatives of an instance create (issue 31): each choice's type, location and image against
 * the catalogue; on-demand availability is a problem only when no choice at all is available now.
 */
function alternativeProblems(index: number, b: Record<string, unknown>, type: string | undefined, location: string | undefined, alternatives: readonly PlanAlternative[], lists: CatalogueLists, locations: string[]): CatalogueProblem[] {
  const problems: CatalogueProblem[] = [];
  const types = codes(lists.instanceTypes, 'instance_type');
  const image = typeof b.image === 'string' && !UUID.test(b.image) && !/^<.*>$/.test(b.image) ? b.image : undefined;
  const choices: { type?: string; location?: string; spot: boolean }[] = [{ type, location, spot: b.is_spot === true }];
  alternatives.forEach((alt, i) => {
    const at = `alternatives[${i}]`;
    const altType = alt.instance_type ?? type;
    const altLocation = alt.location_code ?? location;
    if (alt.location_code !== undefined) problems.push(...oneOf(index, `${at}.location_code`, 'unknown_location', 'location', alt.location_code, locations));
    const typeProblems = alt.instance_type !== undefined ? oneOf(index, `${at}.instance_type`, 'unknown_instance_type', 'instance type', alt.instance_type, types) : [];
    problems.push(...typeProblems);
    if (image && altType && alt.instance_type !== undefined && !typeProblems.length && codes(lists.images, 'image_type').length) {
      const fits = compatibleImages(altType, lists);
      if (!fits.includes(image)) problems.push({ index, field: `${at}.instance_type`, code: 'incompatible_image', message: `image "${image}" does not run on ${altType} (valid for ${altType}: ${fits.join(', ') || 'none'})`, valid: fits });
    }
    choices.push({ type: altType, location: altLocation, spot: alt.is_spot ?? b.is_spot === true });
  });
  const entries = (lists.availability ?? []).filter((a) => str(a, 'location_code'));
  const onDemand = choices.filter((c) => !c.spot && c.type && c.location);
  // Spot capacity is listed elsewhere: with a spot choice nothing is known to be sold out.
  if (entries.length && onDemand.length === choices.length) {
    const availableNow = onDemand.some((c) => {
      const here = entries.find((a) => str(a, 'location_code') === c.location) as { availabilities?: unknown } | undefined;
      return !here || !Array.isArray(here.availabilities) || here.availabilities.includes(c.type);
    });
    if (!availableNow) problems.push({ index, field: 'alternatives', code: 'not_available', message: `none of the ${choices.length} choices is available right now`, valid: [] });
  }
  return problems;
}

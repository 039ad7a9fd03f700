/**
 * Sizes that cost money which a gpucloud create leaves to the API when the request names none (wire
 * reference §5 and §11, as the emulator imitates them), and the notes a maker's plan carries about them
 * (issue 39 item 8): a model or the built-in planner that leaves `os_volume.size` or a cluster's
 * `shared_volume.size` out has chosen the API's default, and the person applying the plan is told so
 * before anything is created. Read from the request body as written, never from the plan's words.
 */
import type { Plan } from '../../../schemas/plan.js';
import { parseStrictJson } from '../../core/plan/strict-json.js';
import { canonicalPath } from './destroyer.js';

/** The OS volume an instance gets when `os_volume.size` is not given (NVMe). */
export const API_OS_VOLUME_GB = { gpu: 100, cpu: 50 } as const;
/** The shared file system (NVMe_Shared) an Instant Cluster gets when `shared_volume.size` is not given. */
export const API_CLUSTER_SHARED_VOLUME_GB = 30000;
/** The smallest volume the API creates: what a cluster's shared volume is when the request does not need one. */
export const SMALLEST_VOLUME_GB = 40;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const obj = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const hasSize = (v: unknown) => obj(v)?.size !== undefined && obj(v)?.size !== null;

/** One note per create step of `plan` whose request leaves a size that costs money to the API. */
export function apiDefaultNotes(plan: Plan): string[] {
  const notes: string[] = [];
  plan.commands.forEach((c, step) => {
    const [verb, method, path, body] = c.args;
    if (verb !== 'gpucloud-api' || method?.trim().toUpperCase() !== 'POST' || body === undefined) return;
    const canon = canonicalPath(path ?? '');
    const parsed = parseStrictJson(body);
    const b = 'value' in parsed ? obj(parsed.value) : undefined;
    if (!canon.ok || !b) return;
    if (canon.path === '/v1/instances' && !hasSize(b.os_volume) && !(typeof b.image === 'string' && UUID.test(b.image))) {
      const cpu = typeof b.instance_type === 'string' && /^CPU\./i.test(b.instance_type);
      notes.push(
        `step ${step} (instance ${String(b.hostname ?? '')}): no OS volume size was given, so the API makes a ${cpu ? API_OS_VOLUME_GB.cpu : API_OS_VOLUME_GB.gpu} GB NVMe OS volume, billed until it is deleted; set os_volume.size to choose`,
      );
    }
    if (canon.path === '/v1/clusters' && !hasSize(b.shared_volume)) {
      notes.push(
        `step ${step} (Instant Cluster ${String(b.hostname ?? '')}): no shared volume size was given, so the API makes a ${API_CLUSTER_SHARED_VOLUME_GB} GB NVMe_Shared file system, billed until it is deleted; set shared_volume.size (at least ${SMALLEST_VOLUME_GB}) to choose`,
      );
    }
  });
  return notes;
}

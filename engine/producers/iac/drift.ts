/**
 * Drift between a terraform state and cloud_a, for the resource types whose live form the aws reads
 * show (the same catalogue reads as `ask`, run through the executor): S3 buckets by name, EC2
 * instances by ID with their tags. `missing`: in the state, not in the cloud; `extra`: in the cloud,
 * not in the state (unmanaged); `changed`: both, with different tags.
 */
import type { PlanReader } from '../../providers/cloud_a/read.js';
import { readEach } from '../../providers/cloud_a/read.js';
import type { TfResource } from './terraform.js';

export interface DriftItem {
  status: 'missing' | 'extra' | 'changed';
  type: string;
  /** The state address (`aws_s3_bucket.logs`), or the cloud's ID for an extra resource. */
  address: string;
  id: string;
  detail: string;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** How the live resources of one terraform type are read and keyed. */
interface DriftType {
  type: string;
  args: string[];
  /** id → tags (undefined when the read does not show tags). */
  live(data: unknown): Map<string, Record<string, string> | undefined>;
  idOf(values: Obj): string | undefined;
}

const tagsOf = (tags: unknown): Record<string, string> => Object.fromEntries(arr(tags).map(obj).map((t) => [String(t.Key), String(t.Value ?? '')]));

const DRIFT_TYPES: DriftType[] = [
  {
    type: 'aws_s3_bucket',
    args: ['aws', 's3api', 'list-buckets'],
    live: (data) => new Map(arr(obj(data).Buckets).map((b) => [str(obj(b).Name) ?? '?', undefined])),
    idOf: (v) => str(v.bucket) ?? str(v.id),
  },
  {
    type: 'aws_instance',
    args: ['aws', 'ec2', 'describe-instances', '--filters', 'Name=instance-state-name,Values=pending,running,stopping,stopped'],
    live: (data) =>
      new Map(arr(obj(data).Reservations).flatMap((r) => arr(obj(r).Instances).map((i) => [str(obj(i).InstanceId) ?? '?', tagsOf(obj(i).Tags)] as const))),
    idOf: (v) => str(v.id),
  },
];

export async function driftAgainstCloudA(resources: readonly TfResource[], read: PlanReader): Promise<{ items: DriftItem[]; checked: string[]; unread: string[] }> {
  const types = DRIFT_TYPES.filter((t) => resources.some((r) => r.type === t.type));
  const outcomes = await readEach(read, types.map((t) => t.args), 'drift against the terraform state (read only)');
  const items: DriftItem[] = [];
  const unread: string[] = [];
  types.forEach((t, i) => {
    const o = outcomes[i]!;
    if (!o.ok) return void unread.push(`${t.type}: ${o.message}`);
    const live = t.live(o.data);
    const inState = new Set<string>();
    for (const r of resources.filter((x) => x.type === t.type)) {
      const id = t.idOf(r.values);
      if (!id) continue;
      inState.add(id);
      if (!live.has(id)) {
        items.push({ status: 'missing', type: t.type, address: r.address, id, detail: 'in the state, not in the cloud' });
        continue;
      }
      const liveTags = live.get(id);
      const stateTags = obj(r.values.tags);
      if (liveTags) {
        const keys = [...new Set([...Object.keys(stateTags), ...Object.keys(liveTags)])].sort();
        const diff = keys.filter((k) => String(stateTags[k] ?? '') !== (liveTags[k] ?? '') && (k in stateTags || k in liveTags));
        if (diff.length) items.push({ status: 'changed', type: t.type, address: r.address, id, detail: `tags differ: ${diff.map((k) => `${k} ${JSON.stringify(stateTags[k] ?? null)} → ${JSON.stringify(liveTags[k] ?? null)}`).join(', ')}` });
      }
    }
    for (const id of live.keys()) if (!inState.has(id)) items.push({ status: 'extra', type: t.type, address: id, id, detail: 'in the cloud, not in the state' });
  });
  return { items, checked: types.map((t) => t.type), unread };
}

/**
 * The attributes the built-in answers read from a record ("the IP of demo-a100", "the cheapest type"):
 * where each lives in each kind's records, how it reads in a sentence, and how it ranks.
 */
import { KINDS } from '../../providers/gpucloud/catalogue.js';
import type { Period } from './amounts.js';
import { field, hourly, isRec, present, rateText, TYPE_FIELD, when, type Rec } from './answer-base.js';
import type { Attribute } from './question.js';

export interface AttributeSpec {
  label: string;
  /** The field of a record of this kind, or undefined when the kind has none. */
  path(kind: string): string | undefined;
  show(value: unknown, record: Rec): string;
}

const PRICE_FIELD: Record<string, string> = { instances: 'price_per_hour', clusters: 'price_per_hour', volumes: 'base_hourly_cost', 'instance-types': 'price_per_hour', 'cluster-types': 'price_per_hour', 'container-types': 'serverless_price' };

export const ATTRIBUTES: Record<Attribute, AttributeSpec> = {
  ip: { label: 'IP address', path: (k) => (k === 'instances' || k === 'clusters' ? 'ip' : undefined), show: String },
  status: { label: 'status', path: (k) => (['instances', 'clusters', 'volumes', 'containers', 'jobs'].includes(k) ? 'status' : undefined), show: String },
  type: { label: 'type', path: (k) => TYPE_FIELD[k], show: String },
  location: { label: 'location', path: (k) => (['instances', 'clusters', 'volumes'].includes(k) ? 'location' : undefined), show: String },
  price: { label: 'price', path: (k) => PRICE_FIELD[k], show: (v, r) => `${hourly(v, r.currency ?? 'usd')}/hour` },
  spot_price: { label: 'spot price', path: (k) => (k === 'instance-types' ? 'spot_price' : undefined), show: (v, r) => `${hourly(v, r.currency ?? 'usd')}/hour` },
  size: { label: 'size', path: (k) => (k === 'volumes' ? 'size' : undefined), show: (v) => `${String(v)} GB` },
  created: { label: 'creation time', path: (k) => (['instances', 'clusters', 'volumes', 'ssh-keys', 'scripts'].includes(k) ? 'created_at' : undefined), show: (v) => when(String(v)) },
  id: { label: 'ID', path: (k) => KINDS.find((s) => s.kind === k)?.idField, show: String },
  image: { label: 'image', path: (k) => (k === 'instances' || k === 'clusters' ? 'image' : undefined), show: (v) => (isRec(v) ? String(v.image_type ?? v.name ?? v.id) : String(v)) },
  gpus: { label: 'GPUs', path: (k) => (['instances', 'instance-types', 'clusters', 'cluster-types'].includes(k) ? 'gpu.number_of_gpus' : undefined), show: (v, r) => `${String(v)}${typeof field(r, 'gpu.description') === 'string' ? ` (${String(field(r, 'gpu.description'))})` : ''}` },
  memory: { label: 'memory', path: (k) => (['instances', 'instance-types', 'clusters', 'cluster-types'].includes(k) ? 'memory.size_in_gigabytes' : undefined), show: (v) => `${String(v)} GB` },
  name: { label: 'name', path: (k) => KINDS.find((s) => s.kind === k)?.nameField, show: String },
};

/** "demo-a100 costs 1.29 USD/hour.", "8A100.176V has 8 GPUs (8x A100 SXM4 80GB).", "demo-a100's IP address is …". */
export function attributeSentence(name: string, attribute: Attribute, value: unknown, record: Rec, period?: Period): string {
  // A catalogue price in the period asked besides the hourly one: "1.29 USD/hour (30.96 USD per day)".
  const inPeriod = (v: unknown, r: Rec) => (period && period !== 'hour' && Number.isFinite(Number(v)) ? rateText(Number(v), period, String(r.currency ?? 'usd')) : '');
  const spec = ATTRIBUTES[attribute];
  if (!present(value)) return `${name} has no ${spec.label}.`;
  switch (attribute) {
    case 'price': {
      const spot = record.spot_price;
      const extras = [inPeriod(value, record), present(spot) ? `spot ${hourly(spot, record.currency ?? 'usd')}/hour` : ''].filter(Boolean);
      return `${name} costs ${spec.show(value, record)}${extras.length ? ` (${extras.join('; ')})` : ''}.`;
    }
    case 'gpus':
      return `${name} has ${String(value)} GPU${Number(value) === 1 ? '' : 's'}${typeof field(record, 'gpu.description') === 'string' ? ` (${String(field(record, 'gpu.description'))})` : ''}.`;
    case 'memory':
      return `${name} has ${String(value)} GB of memory.`;
    case 'status':
      return `${name} is ${String(value)}.`;
    case 'location':
      return `${name} is in ${String(value)}.`;
    case 'created':
      return `${name} was created ${spec.show(value, record)}.`;
    case 'size':
      return `${name} is ${spec.show(value, record)}.`;
    default:
      return `${name}'s ${spec.label} is ${spec.show(value, record)}.`;
  }
}

/** A value as a superlative shows it: "8 GPUs", "500 GB", "0.39 USD/hour", "created 2026-11-23 19:20 UTC". */
export function rankedValue(attribute: Attribute, value: unknown, record: Rec): string {
  if (attribute === 'gpus') return `${String(value)} GPU${Number(value) === 1 ? '' : 's'}`;
  if (attribute === 'created') return `created ${when(String(value))}`;
  return ATTRIBUTES[attribute].show(value, record);
}

/** "The cheapest GPU instance type" or, for "most GPUs", "The GPU instance type with the most GPUs". */
export function rankedSubject(words: string, noun: string, own: boolean): string {
  const lead = own ? 'Your' : 'The';
  return /^(most|least|fewest|highest|lowest) (?!expensive|recent)/i.test(words) ? `${lead} ${noun} with the ${words.toLowerCase().replace(/\bgpus?\b/, 'GPUs')}` : `${lead} ${words.toLowerCase()} ${noun}`;
}

export function attributeValue(kind: string, attribute: Attribute, record: Rec): { has: boolean; value?: unknown } {
  const path = ATTRIBUTES[attribute].path(kind);
  if (!path) return { has: false };
  return { has: true, value: field(record, path) };
}

export function rank(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const n = Number(value);
    if (value.trim() !== '' && Number.isFinite(n)) return n;
    const t = Date.parse(value);
    if (Number.isFinite(t)) return t;
  }
  return Number.NaN;
}

/** What every `k8s create <type>` compiler shares: the name rule and the read function it gets. */
import { UsageError } from '../../core/errors.js';
import type { Plan } from '../../../schemas/plan.js';

/** Runs one read step through the executor (`["gpucloud-api", "GET", …]`) and returns its data. */
export type CatalogueRead = (args: string[]) => Promise<unknown>;

/** A cluster name: a valid hostname label and kubeconfig context name at once. */
const CLUSTER_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function requireClusterName(name: string | undefined, type: string): string {
  if (!name) throw new UsageError(`k8s create ${type} needs a cluster name`, { hint: `e.g. assistant k8s create ${type} my-cluster` });
  if (!CLUSTER_NAME.test(name)) {
    throw new UsageError(`"${name}" is not a usable cluster name: lower-case letters, digits and '-', at most 63, starting and ending with a letter or digit`);
  }
  return name;
}

export function positiveCount(value: unknown, flag: string, fallback: number, max = 1000): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`${flag} must be a whole number from 1 to ${max} (got "${String(value)}")`);
  return n;
}

/** `notes`: the defaults the command chose that cost money (issue 39 item 8), said in the plan and its dry run. */
export function planOf(provider: string[], summary: string, commands: Plan['commands'], notes: string[] = []): Plan {
  return { version: 1, provider: provider.length === 1 ? provider[0]! : provider, summary, commands, ...(notes.length ? { notes } : {}) };
}

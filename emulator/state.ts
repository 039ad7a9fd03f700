/**
 * Mutable emulator state: the records, lazy lifecycle (no timers: statuses advance from timestamps
 * whenever a request arrives), lazy billing, and persistence to the state file (tmp + rename).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CapacityTable } from './capacity.js';
import type { ResolvedOptions } from './types.js';
import { poolIp } from './addresses.js';

/** A future status change: at `at` (epoch ms) the status becomes `status`. */
export interface Step {
  status: string;
  at: number;
}

interface Scheduled {
  status: string;
  schedule: Step[];
}

export interface InstanceRec extends Scheduled {
  id: string;
  instance_type: string;
  image: string;
  hostname: string;
  description: string;
  location: string;
  created_at: string;
  /** `tags` of the create request (GO main 2026-08); absent in older state files. */
  tags?: { key: string; value: string }[];
  ssh_key_ids: string[];
  startup_script_id: string | null;
  os_volume_id: string | null;
  volume_ids: string[];
  ip: string | null;
  is_spot: boolean;
  contract: string;
  pricing: string;
  jupyter_token: string;
  price_per_hour: number;
  /** Size and name of the OS volume created when the instance first runs. */
  os_volume_spec: { name: string; size: number; on_spot_discontinue: string };
  billed_until: number;
}

export interface VolumeRec extends Scheduled {
  id: string;
  name: string;
  size: number;
  type: string;
  created_at: string;
  instance_id: string | null;
  location: string;
  is_os_volume: boolean;
  target: string | null;
  ssh_key_ids: string[];
  contract: string;
  on_spot_discontinue: string;
  /** For OS volumes: the image it was made from (reused when an instance boots from it). */
  source_image: string | null;
  /** Set while in the trash. */
  deleted_at: string | null;
}

export interface WorkerNodeRec {
  id: string;
  hostname: string;
  public_ip: string | null;
  private_ip: string;
}

export interface ClusterRec extends Scheduled {
  id: string;
  hostname: string;
  description: string;
  created_at: string;
  location: string;
  cluster_type: string;
  image: string;
  ip: string | null;
  price_per_hour: number;
  ssh_key_ids: string[];
  startup_script_id: string | null;
  contract: string;
  auto_rent_extension: boolean | null;
  turn_to_pay_as_you_go: boolean | null;
  extension_settings: string | null;
  long_term_period: string | null;
  worker_nodes: WorkerNodeRec[];
  shared_volumes: { id: string; name: string; mount_point: string; size_in_gigabytes: number }[];
  billed_until: number;
}

export interface ContainerRec {
  name: string;
  image: string;
  image_updated_at: string;
  exposed_port: number;
  [k: string]: unknown;
}

export interface DeploymentRec extends Scheduled {
  kind: 'container' | 'job';
  name: string;
  created_at: string;
  /** Everything else the client sent (compute, scaling, registry settings, is_spot, …). */
  spec: Record<string, unknown>;
  containers: ContainerRec[];
}

export interface SshKeyRec {
  id: string;
  name: string;
  key: string;
  fingerprint: string;
  created_at: string;
}

export interface ScriptRec {
  id: string;
  name: string;
  script: string;
  created_at: string;
}

export interface SecretRec {
  name: string;
  value: string;
  created_at: string;
}

export interface FileSecretRec {
  name: string;
  files: { file_name: string; base64_content: string }[];
  created_at: string;
}

export interface RegistryCredRec {
  name: string;
  type: string;
  fields: Record<string, string>;
  created_at: string;
}

export interface StateData {
  version: 1;
  balance: number;
  instances: InstanceRec[];
  volumes: VolumeRec[];
  clusters: ClusterRec[];
  deployments: DeploymentRec[];
  sshKeys: SshKeyRec[];
  scripts: ScriptRec[];
  secrets: SecretRec[];
  fileSecrets: FileSecretRec[];
  registryCreds: RegistryCredRec[];
  /** sha256(token) → expiry (epoch ms); tokens themselves are never stored. */
  tokens: { access: Record<string, number>; refresh: Record<string, number> };
  counters: { ip: number };
}

/** Statuses that cost money: shutdown keeps billing, only delete stops it (reference §5). */
const BILLABLE_INSTANCE = new Set(['running', 'offline']);
const BILLABLE_CLUSTER = new Set(['running']);

export const iso = (ms: number): string => new Date(ms).toISOString();

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

export class Store {
  data: StateData;
  /**
   * Something happened that the state file does not have yet and that a later start could not compute
   * again (a lifecycle step made IDs and addresses). Billing alone is not: it is computed from time.
   */
  dirty = false;
  /** The capacity switch of tests (capacity.ts); not persisted. */
  readonly capacity = new CapacityTable();

  constructor(
    private readonly opts: ResolvedOptions,
    private readonly seedFn: (opts: ResolvedOptions, now: number) => StateData,
  ) {
    const loaded = opts.stateFile ? loadStateFile(opts.stateFile) : undefined;
    this.data = loaded ?? seedFn(opts, opts.clock());
    if (!loaded) this.save();
  }

  /** Back to the seeded state; access tokens survive (a reset is not a logout). */
  reseed(): void {
    const tokens = this.data.tokens;
    this.data = this.seedFn(this.opts, this.opts.clock());
    this.data.tokens = tokens;
    this.capacity.clear();
    this.save();
  }

  save(): void {
    this.dirty = false;
    const file = this.opts.stateFile;
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${randomHex(4)}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.data, null, 1), { mode: 0o600 });
    renameSync(tmp, file);
  }

  /** The IP an instance gets when it runs: the test's (instanceIps, by hostname), else the next from the pool. */
  instanceIp(hostname: string): string {
    return this.opts.instanceIps?.[hostname] ?? this.nextPublicIp();
  }

  nextPublicIp(): string {
    return poolIp(this.opts, this.data.counters.ip++);
  }

  instance(id: string): InstanceRec | undefined {
    return this.data.instances.find((i) => i.id === id);
  }

  /** A live (not trashed) volume. */
  volume(id: string): VolumeRec | undefined {
    return this.data.volumes.find((v) => v.id === id && v.deleted_at === null);
  }

  /** Applies every due status change and debits the balance for billable time up to `now`. */
  advance(now: number): void {
    changed.value = false;
    let cost = 0;
    for (const inst of this.data.instances) {
      const ms = stepEntity(inst, now, BILLABLE_INSTANCE, inst.billed_until, (status, at) => this.onInstanceStatus(inst, status, at));
      inst.billed_until = Math.max(inst.billed_until, now);
      cost += inst.price_per_hour * this.hours(ms);
    }
    for (const c of this.data.clusters) {
      const ms = stepEntity(c, now, BILLABLE_CLUSTER, c.billed_until, (status) => {
        if (status === 'running') {
          c.ip ??= this.opts.clusterIp ?? this.nextPublicIp();
          for (const w of c.worker_nodes) w.public_ip ??= this.nextPublicIp();
        }
      });
      c.billed_until = Math.max(c.billed_until, now);
      cost += c.price_per_hour * this.hours(ms);
    }
    for (const v of this.data.volumes) stepEntity(v, now, new Set(), now, () => undefined);
    for (const d of this.data.deployments) stepEntity(d, now, new Set(), now, () => undefined);
    if (cost > 0 && this.opts.debit) this.data.balance = Math.round((this.data.balance - cost) * 1e6) / 1e6;
    if (changed.value) this.dirty = true;
  }

  private hours(ms: number): number {
    return (ms / 1000) * this.opts.timeScale;
  }

  private onInstanceStatus(inst: InstanceRec, status: string, at: number): void {
    if (status !== 'running') return;
    inst.ip ??= this.instanceIp(inst.hostname);
    if (!inst.os_volume_id) {
      const vol: VolumeRec = {
        id: randomUUID(),
        name: inst.os_volume_spec.name,
        size: inst.os_volume_spec.size,
        type: 'NVMe',
        status: 'attached',
        schedule: [],
        created_at: iso(at),
        instance_id: inst.id,
        location: inst.location,
        is_os_volume: true,
        target: 'vda',
        ssh_key_ids: [...inst.ssh_key_ids],
        contract: inst.is_spot ? 'SPOT' : 'PAY_AS_YOU_GO',
        on_spot_discontinue: inst.os_volume_spec.on_spot_discontinue,
        source_image: inst.image,
        deleted_at: null,
      };
      this.data.volumes.push(vol);
      inst.os_volume_id = vol.id;
    }
  }
}

/**
 * Applies due steps of one entity and returns the billable milliseconds between `billedFrom` and `now`
 * (time spent in a billable status).
 */
/** Set by stepEntity when a scheduled step was applied (Store.advance marks the store dirty then). */
const changed = { value: false };

function stepEntity(
  e: Scheduled,
  now: number,
  billable: Set<string>,
  billedFrom: number,
  onStatus: (status: string, at: number) => void,
): number {
  let t = billedFrom;
  let ms = 0;
  while (e.schedule.length && e.schedule[0].at <= now) {
    changed.value = true;
    const step = e.schedule.shift()!;
    if (billable.has(e.status) && step.at > t) ms += step.at - t;
    t = Math.max(t, step.at);
    e.status = step.status;
    onStatus(step.status, step.at);
  }
  if (billable.has(e.status) && now > t) ms += now - t;
  return ms;
}

function loadStateFile(file: string): StateData | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`gpucloud emulator: state file ${file} is not valid JSON (${(err as Error).message})`);
  }
  const data = parsed as Partial<StateData>;
  if (typeof data !== 'object' || data === null || data.version !== 1 || !Array.isArray(data.instances)) {
    throw new Error(`gpucloud emulator: state file ${file} has an unknown format`);
  }
  return data as StateData;
}

/**
 * The seeded account: fixed IDs tests can rely on. `empty` seeds one SSH key only; `demo` (default) also
 * seeds a running and an offline instance (each with its OS volume), one detached data volume, one
 * startup script and one secret.
 */
import { createHash } from 'node:crypto';
import { findInstanceType } from './seed.js';
import { iso, randomHex, type InstanceRec, type StateData, type VolumeRec } from './state.js';
import type { ResolvedOptions } from './types.js';
import { poolIp } from './addresses.js';

/** The SSH key present in every seed. */
export const EMULATOR_DEFAULT_SSH_KEY_ID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';

/** IDs and names of the `demo` seed. */
export const EMULATOR_DEMO_IDS = {
  sshKey: EMULATOR_DEFAULT_SSH_KEY_ID,
  /** `demo-a100`, 1A100.22V in FIN-01, status running, ip 203.0.113.10. */
  runningInstance: '0b6e4c1a-2f3d-4e5a-9b8c-7d6e5f4a3b21',
  runningInstanceOsVolume: '1c7f5d2b-3a4e-4f6b-8c9d-8e7f6a5b4c32',
  /** `demo-cpu`, CPU.4V.16G in FIN-01, status offline (shut down), ip 203.0.113.11. */
  offlineInstance: '2d8a6e3c-4b5f-4a7c-9dae-9f8a7b6c5d43',
  offlineInstanceOsVolume: '3e9b7f4d-5c6a-4b8d-8ebf-0a9b8c7d6e54',
  /** `demo-data`, 500 GB NVMe in FIN-01, detached. */
  volume: '4fac8a5e-6d7b-4c9e-9fc0-1bac9d8e7f65',
  /** `install-tools` startup script. */
  script: '5abd9b6f-7e8c-4daf-8ad1-2cbdae9f8a76',
  /** Name of the seeded generic secret. */
  secretName: 'hf-token',
} as const;

/** A syntactically valid ed25519 public key with a fixed body. */
function ed25519Key(comment: string): string {
  const type = Buffer.from('ssh-ed25519');
  const pub = createHash('sha256').update(comment).digest();
  const blob = Buffer.alloc(4 + type.length + 4 + pub.length);
  blob.writeUInt32BE(type.length, 0);
  type.copy(blob, 4);
  blob.writeUInt32BE(pub.length, 4 + type.length);
  pub.copy(blob, 8 + type.length);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}

/** OpenSSH-style SHA256 fingerprint of a public key line. */
export function sshFingerprint(key: string): string {
  const b64 = key.trim().split(/\s+/)[1] ?? '';
  return 'SHA256:' + createHash('sha256').update(Buffer.from(b64, 'base64')).digest('base64').replace(/=+$/, '');
}

export function seedState(opts: ResolvedOptions, now: number): StateData {
  const key = ed25519Key('emulator@gpucloud');
  const data: StateData = {
    version: 1,
    balance: opts.balance,
    instances: [],
    volumes: [],
    clusters: [],
    deployments: [],
    sshKeys: [
      {
        id: EMULATOR_DEFAULT_SSH_KEY_ID,
        name: 'emulator-default',
        key,
        fingerprint: sshFingerprint(key),
        created_at: iso(now - 30 * 86_400_000),
      },
    ],
    scripts: [],
    secrets: [],
    fileSecrets: [],
    registryCreds: [],
    tokens: { access: {}, refresh: {} },
    counters: { ip: 0 },
  };
  if (opts.seed === 'empty') return data;

  const ids = EMULATOR_DEMO_IDS;
  data.counters.ip = 2; // the pool's first two (203.0.113.10 and .11) are taken below
  const instance = (
    id: string,
    hostname: string,
    type: string,
    image: string,
    status: string,
    ip: string,
    osVolumeId: string,
    ageDays: number,
  ): InstanceRec => ({
    id,
    instance_type: type,
    image,
    hostname,
    description: `${hostname} (seeded)`,
    location: 'FIN-01',
    status,
    schedule: [],
    created_at: iso(now - ageDays * 86_400_000),
    ssh_key_ids: [EMULATOR_DEFAULT_SSH_KEY_ID],
    startup_script_id: null,
    os_volume_id: osVolumeId,
    volume_ids: [],
    ip,
    is_spot: false,
    contract: 'PAY_AS_YOU_GO',
    pricing: 'FIXED_PRICE',
    jupyter_token: randomHex(16),
    price_per_hour: findInstanceType(type)!.price,
    os_volume_spec: { name: `OS-${hostname}`, size: 100, on_spot_discontinue: 'keep_detached' },
    billed_until: now,
  });
  const volume = (id: string, name: string, size: number, instanceId: string | null, isOs: boolean, image: string | null, ageDays: number): VolumeRec => ({
    id,
    name,
    size,
    type: 'NVMe',
    status: instanceId ? 'attached' : 'detached',
    schedule: [],
    created_at: iso(now - ageDays * 86_400_000),
    instance_id: instanceId,
    location: 'FIN-01',
    is_os_volume: isOs,
    target: instanceId ? 'vda' : null,
    ssh_key_ids: isOs ? [EMULATOR_DEFAULT_SSH_KEY_ID] : [],
    contract: 'PAY_AS_YOU_GO',
    on_spot_discontinue: 'keep_detached',
    source_image: image,
    deleted_at: null,
  });

  data.instances.push(
    instance(ids.runningInstance, 'demo-a100', '1A100.22V', 'ubuntu-24.04-cuda-12.8-open-docker', 'running', poolIp(opts, 0), ids.runningInstanceOsVolume, 2),
    instance(ids.offlineInstance, 'demo-cpu', 'CPU.4V.16G', 'ubuntu-24.04', 'offline', poolIp(opts, 1), ids.offlineInstanceOsVolume, 9),
  );
  data.volumes.push(
    volume(ids.runningInstanceOsVolume, 'OS-demo-a100', 100, ids.runningInstance, true, 'ubuntu-24.04-cuda-12.8-open-docker', 2),
    volume(ids.offlineInstanceOsVolume, 'OS-demo-cpu', 50, ids.offlineInstance, true, 'ubuntu-24.04', 9),
    volume(ids.volume, 'demo-data', 500, null, false, null, 5),
  );
  data.scripts.push({
    id: ids.script,
    name: 'install-tools',
    script: '#!/bin/bash\nset -e\napt-get update\napt-get install -y htop nvtop tmux\n',
    created_at: iso(now - 20 * 86_400_000),
  });
  data.secrets.push({ name: ids.secretName, value: 'hf_demo_not_a_real_token', created_at: iso(now - 10 * 86_400_000) });
  return data;
}

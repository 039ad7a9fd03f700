/** Stored records → wire JSON, in the reference's field order. */
import { clusterHardware, findClusterType, findInstanceType, findVolumeType, hardware, osName } from './seed.js';
import type { ClusterRec, DeploymentRec, InstanceRec, Store, VolumeRec } from './state.js';
import { clone } from './validate.js';

export function renderInstance(i: InstanceRec): Record<string, unknown> {
  const t = findInstanceType(i.instance_type);
  const hw = t ? hardware(t) : {};
  return {
    id: i.id,
    instance_type: i.instance_type,
    image: i.image,
    os_name: osName(i.image),
    price_per_hour: i.price_per_hour,
    hostname: i.hostname,
    description: i.description,
    ip: i.ip,
    status: i.status,
    created_at: i.created_at,
    ssh_key_ids: [...i.ssh_key_ids],
    startup_script_id: i.startup_script_id,
    os_volume_id: i.os_volume_id,
    volume_ids: [...i.volume_ids],
    cpu: hw.cpu,
    gpu: hw.gpu,
    memory: hw.memory,
    gpu_memory: hw.gpu_memory,
    storage: hw.storage,
    location: i.location,
    is_spot: i.is_spot,
    contract: i.contract,
    pricing: i.pricing,
    jupyter_token: i.jupyter_token,
    tags: (i.tags ?? []).map((t) => ({ id: `${i.id.slice(0, 8)}-${t.key}`, key: t.key, value: t.value })),
  };
}

export function renderVolume(store: Store, v: VolumeRec): Record<string, unknown> {
  const vt = findVolumeType(v.type);
  const monthly = Math.round((vt?.ppm ?? 0) * v.size * 100) / 100;
  const inst = v.instance_id ? store.instance(v.instance_id) : undefined;
  const shared = vt?.shared ?? false;
  const pseudo = shared ? `/${v.name}-${v.id.slice(0, 8)}` : null;
  const server = `nfs.${v.location.toLowerCase()}.gpucloud.internal`;
  const out: Record<string, unknown> = {
    id: v.id,
    name: v.name,
    size: v.size,
    type: v.type,
    status: v.status,
    created_at: v.created_at,
    instance_id: v.instance_id,
    location: v.location,
    is_os_volume: v.is_os_volume,
    target: v.target,
    ssh_key_ids: [...v.ssh_key_ids],
    contract: v.contract,
    instances: inst
      ? [
          {
            id: inst.id,
            hostname: inst.hostname,
            ip: inst.ip,
            instance_type: inst.instance_type,
            status: inst.status,
            os_volume_id: inst.os_volume_id,
            auto_rental_extension: null,
          },
        ]
      : [],
    pseudo_path: pseudo,
    mount_command: pseudo ? `mount -t nfs -o nconnect=16 ${server}:${pseudo} /mnt/${v.name}` : null,
    create_directory_command: pseudo ? `mkdir -p /mnt/${v.name}` : null,
    filesystem_to_fstab_command: pseudo
      ? `grep -qxF '${server}:${pseudo} /mnt/${v.name} nfs defaults,nconnect=16 0 0' /etc/fstab || echo '${server}:${pseudo} /mnt/${v.name} nfs defaults,nconnect=16 0 0' | sudo tee -a /etc/fstab`
      : null,
    base_hourly_cost: Math.round((monthly / 730) * 10000) / 10000,
    monthly_price: monthly,
    currency: 'usd',
    long_term: null,
    tags: [],
  };
  if (v.deleted_at !== null) {
    out.deleted_at = v.deleted_at;
    out.is_permanently_deleted = false;
  }
  return out;
}

export function renderCluster(c: ClusterRec): Record<string, unknown> {
  const t = findClusterType(c.cluster_type);
  const hw = t ? clusterHardware(t) : {};
  return {
    id: c.id,
    hostname: c.hostname,
    description: c.description,
    status: c.status,
    created_at: c.created_at,
    location: c.location,
    cluster_type: c.cluster_type,
    image: c.image,
    os_name: osName(c.image),
    ip: c.ip,
    price_per_hour: c.price_per_hour,
    cpu: hw.cpu,
    gpu: hw.gpu,
    gpu_memory: hw.gpu_memory,
    memory: hw.memory,
    ssh_key_ids: [...c.ssh_key_ids],
    startup_script_id: c.startup_script_id,
    contract: c.contract,
    auto_rent_extension: c.auto_rent_extension,
    turn_to_pay_as_you_go: c.turn_to_pay_as_you_go,
    extension_settings: c.extension_settings,
    long_term_period: c.long_term_period,
    worker_nodes: c.worker_nodes.map((w) => ({ ...w, status: c.status })),
    shared_volumes: c.shared_volumes.map((s) => ({ ...s })),
    tags: [],
  };
}

export const ENDPOINT_BASE = 'https://containers.datacrunch.io';
/** With `localAddresses` (the sandbox): a loopback address where nothing answers (port 9, discard), never a vendor's host. */
export const LOCAL_ENDPOINT_BASE = 'http://127.0.0.1:9/containers';


/** A container or job deployment: the request echoed, images as `{image, last_updated_at}`. */
export function renderDeployment(d: DeploymentRec, opts: { localAddresses: boolean }): Record<string, unknown> {
  const spec = clone(d.spec);
  const containers = d.containers.map((c) => {
    const { image, image_updated_at, ...rest } = c;
    return { ...clone(rest), image: { image, last_updated_at: image_updated_at } };
  });
  const out: Record<string, unknown> = { name: d.name, ...spec, containers, endpoint_base_url: `${opts.localAddresses ? LOCAL_ENDPOINT_BASE : ENDPOINT_BASE}/${d.name}`, created_at: d.created_at };
  if (d.kind === 'job') out.created_by_user_id = EMULATOR_USER_ID;
  return out;
}

export const EMULATOR_USER_ID = '7bcea1d0-8f9a-4b0c-9d1e-3f2a4b5c6d87';

/**
 * The plans tests send most: gpucloud plans whose first step creates one instance (1V100.6V in FIN-01
 * with the default SSH key, unless said otherwise). The request body keeps the key order the CLI and
 * the model write (instance_type, image, hostname, description, location_code, ssh_key_ids).
 */
export interface PlanStep {
  args: string[];
  reason: string;
  produces?: Record<string, string>;
}

/** `{ version: 1, provider: 'gpucloud', commands }`. */
export const gpucloudPlan = (...commands: PlanStep[]) => ({ version: 1 as const, provider: 'gpucloud', commands });

export interface CreateInstanceOptions {
  /** The catalogue type (default 1V100.6V). */
  instanceType?: string;
  image?: string;
  description?: string;
  location?: string;
  /** The SSH key id, or a binding such as `<DEFAULT_SSH_KEY_ID>` (the default). */
  sshKey?: string;
  reason?: string;
  /** Bind the new instance's id as INSTANCE_ID. */
  produces?: boolean;
}

/** A step that creates one instance (1V100.6V unless said) called `hostname`. */
export function createInstanceStep(hostname: string, o: CreateInstanceOptions = {}): PlanStep {
  const body = { instance_type: o.instanceType ?? '1V100.6V', image: o.image ?? 'ubuntu-24.04-cuda-12.8-open-docker', hostname, description: o.description ?? '', location_code: o.location ?? 'FIN-01', ssh_key_ids: [o.sshKey ?? '<DEFAULT_SSH_KEY_ID>'] };
  return { args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify(body)], reason: o.reason ?? 'create', ...(o.produces ? { produces: { INSTANCE_ID: '$.id' } } : {}) };
}

/**
 * gpucloud's section of the config file (`gpucloud:`): its OAuth client and API origin (SPEC §5,
 * DESIGN §2), the predefined bindings' values, the key and port of cluster head nodes, its rate limits.
 */
import { z } from 'zod';
import { httpUrl, positiveInt, str, type ProviderConfigPart } from '../../../schemas/config.js';

export const RateLimitSchema = z.strictObject({
  per_project: positiveInt().optional(),
  per_path: positiveInt().optional(),
  window_ms: positiveInt().optional(),
  /** Share the limits across machines through Redis (redis://[:password@]host:port[/db]); ASSISTANT_REDIS_URL overrides. */
  redis_url: z.url({ protocol: /^rediss?$/, error: 'expected a redis:// or rediss:// URL' }).optional(),
});

export const GpuCloudConfigSchema = z.strictObject({
  client_id: str().optional(),
  client_secret: str().optional(),
  default_project_id: str().optional(),
  default_location: str().optional(),
  default_ssh_key_id: str().optional(),
  ssh_key_path: str().optional(),
  /** SSH port of cluster head nodes (ssh-kubeconfig, ssh-exec steps); default 22. */
  ssh_port: positiveInt().optional(),
  /** API origin; a trailing `/v1` is tolerated (DESIGN.md §2). */
  base_url: httpUrl().optional(),
  auth_url: httpUrl().optional(),
  rate_limit: RateLimitSchema.optional(),
  /** Profile (section) of `~/.gpucloud/credentials` to read; GPUCLOUD_PROFILE overrides it. */
  profile: str().optional(),
});

export type GpuCloudConfig = z.infer<typeof GpuCloudConfigSchema>;
export type RateLimitConfig = z.infer<typeof RateLimitSchema>;

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    gpucloud?: GpuCloudConfig;
  }
}

export const gpucloudConfig: ProviderConfigPart = { sections: { gpucloud: GpuCloudConfigSchema } };

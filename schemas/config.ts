import { z } from 'zod';

/**
 * The configuration file `~/.assistant.yaml` (SPEC.md §2.5, DESIGN.md §2).
 *
 * Every object is strict so that the loader learns about unknown keys; the loader turns those into
 * warnings (a typo must be visible) and everything else (wrong type, bad enum) into errors.
 * Keys whose YAML value is empty (`client_id:`) are treated as absent by the loader.
 */

// Constants and defaults live without zod (a command without a config file never loads zod).
import { AI_DEFAULTS, AI_PROVIDER_VALUES, CLOUD_D_DEFAULT_REGION, emptyConfigValue } from './config-defaults.js';
export {
  AI_DEFAULTS,
  AI_PROVIDER_KINDS,
  AI_PROVIDER_VALUES,
  CLOUD_D_DEFAULT_REGION,
  DEFAULT_AI_PROVIDER,
  isSecretKey,
  RATE_LIMIT_DEFAULTS,
  SECRET_KEY_NAMES,
  type AiProviderKind,
} from './config-defaults.js';

const str = () => z.string();
const httpUrl = () => z.url({ protocol: /^https?$/, error: 'expected an http(s) URL such as https://example.com' });
const positiveInt = () => z.int({ error: 'expected a whole number' }).positive('expected a number greater than 0');

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

export const AiProviderProfileSchema = z.strictObject({
  provider: z.enum(AI_PROVIDER_VALUES).optional(),
  model: str().optional(),
  api_key: str().optional(),
  api_key_env: str().optional(),
  local_model_inference_url: httpUrl().optional(),
  cloud_a_profile: str().optional(),
  region: str().optional(),
  base_url: httpUrl().optional(),
});

export const AiConfigSchema = z
  .strictObject({
    default_provider: z.enum(AI_PROVIDER_VALUES).optional(),
    max_prompt_chars: positiveInt().default(AI_DEFAULTS.max_prompt_chars),
    chunk_chars: positiveInt().default(AI_DEFAULTS.chunk_chars),
    max_chunks: positiveInt().default(AI_DEFAULTS.max_chunks),
    providers: z.record(z.string(), AiProviderProfileSchema).optional(),
  })
  .prefault({});

export const InfraConfigSchema = z.strictObject({
  default_provider: z.enum(['cloud_a', 'cloud_b', 'cloud_c']).optional(),
  default_environment: str().optional(),
  cloud_a: z
    .strictObject({
      environments: z
        .record(z.string(), z.strictObject({ profile: str().optional(), region: str().optional() }))
        .optional(),
    })
    .optional(),
  cloud_b: z.strictObject({ project_id: str().optional() }).optional(),
  cloud_c: z.strictObject({ subscription_id: str().optional() }).optional(),
});

export const RepoHostConfigSchema = z.strictObject({
  token: str().optional(),
  owner: str().optional(),
  repo: str().optional(),
  /** The API's address (GitHub Enterprise: https://host/api/v3); default https://api.github.com. */
  base_url: str().optional(),
});

export const ErrTrackerConfigSchema = z.strictObject({
  auth_token: str().optional(),
  org_slug: str().optional(),
  default_project: str().optional(),
  host: str().optional(),
  /** The API's address; overrides `host` (default https://sentry.io). */
  base_url: str().optional(),
});

export const IssueTrackerConfigSchema = z.strictObject({
  api_key: str().optional(),
  workspace_id: str().optional(),
  default_team: str().optional(),
  /** The GraphQL endpoint's origin; default https://api.linear.app. */
  base_url: str().optional(),
});

export const NotesConfigSchema = z.strictObject({
  integration_token: str().optional(),
  default_database_id: str().optional(),
  /** Another API address (a proxy, the local fake); ASSISTANT_NOTES_BASE_URL. */
  base_url: str().optional(),
});

export const AppPlatformConfigSchema = z.strictObject({
  api_token: str().optional(),
  workspace_id: str().optional(),
  /** Another API address (a proxy, the local fake); ASSISTANT_APPPLATFORM_BASE_URL. */
  base_url: str().optional(),
});

export const EdgeConfigSchema = z.strictObject({
  api_token: str().optional(),
  account_id: str().optional(),
  default_zone: str().optional(),
  /** Another API address (a proxy, the local fake); ASSISTANT_EDGE_BASE_URL. */
  base_url: str().optional(),
});

/** vps_a and vps_b; `base_url` (or ASSISTANT_VPS_A_BASE_URL / ASSISTANT_VPS_B_BASE_URL) for another endpoint. */
export const VpsConfigSchema = z.strictObject({ api_token: str().optional(), base_url: str().optional() });

export const CloudDConfigSchema = z.strictObject({
  secret_id: str().optional(),
  secret_key: str().optional(),
  region: str().default(CLOUD_D_DEFAULT_REGION),
  /** Every service at this URL instead of https://<service>.tencentcloudapi.com (or ASSISTANT_CLOUD_D_BASE_URL). */
  base_url: str().optional(),
});

export const AgentConfigSchema = z.strictObject({
  path: str().optional(),
  model: str().optional(),
  base_url: httpUrl().optional(),
  router_api_key: str().optional(),
  /**
   * What an agent's sandbox may read besides the system folders and its own program (its install
   * folder under your home, such as ~/.nvm; a folder it should see). `~` is your home.
   */
  read_only: z.array(str()).optional(),
  /** What it may also write (its own state folder, such as ~/.config/goose). */
  read_write: z.array(str()).optional(),
});

export const BackendConfigSchema = z.strictObject({
  api_key: str().optional(),
  env: z.enum(['testing', 'staging', 'production']).optional(),
  url: httpUrl().optional(),
  /** The backend of each env, used when `url` is not set (`backend.urls.production: https://…`). */
  urls: z.strictObject({ testing: httpUrl().optional(), staging: httpUrl().optional(), production: httpUrl().optional() }).optional(),
});

export const PostgresConfigSchema = z.strictObject({
  default_connection: str().optional(),
  connections: z
    .record(
      z.string(),
      z.strictObject({
        host: str().optional(),
        port: z.int({ error: 'expected a port number' }).min(1).max(65535).optional(),
        database: str().optional(),
        username: str().optional(),
      }),
    )
    .optional(),
});

export const TerraformConfigSchema = z.strictObject({
  default_workspace: str().optional(),
  workspaces: z.record(z.string(), z.strictObject({ path: str() })).optional(),
});

export const KubernetesClusterSchema = z
  .strictObject({
    type: z.enum(['eks', 'existing']),
    name: str().optional(),
    profile: str().optional(),
    region: str().optional(),
    context: str().optional(),
  })
  .superRefine((cluster, ctx) => {
    if (cluster.type === 'eks' && !cluster.name) {
      ctx.addIssue({ code: 'custom', path: ['name'], message: 'required when type is eks' });
    }
  });

export const KubernetesConfigSchema = z.strictObject({
  kubeconfig: str().optional(),
  default_context: str().optional(),
  default_namespace: str().optional(),
  clusters: z.record(z.string(), KubernetesClusterSchema).optional(),
});

/** Top-level `cloud_a` (question routing keywords), separate from `infra.cloud_a`. */
export const CloudAKeywordsConfigSchema = z.strictObject({
  service_keywords: z.record(z.string(), z.array(z.string())).optional(),
});

/** `autostop.check_every` in ms: `30s`, `10m`, `1h`, or a number of seconds; 1 s to 1 day, else undefined. */
export function checkIntervalMs(value: string | number): number | undefined {
  const m = typeof value === 'number' ? [String(value), String(value), 's'] : /^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h)?\s*$/i.exec(value);
  if (!m) return undefined;
  const unit = (m[2] ?? 's').toLowerCase()[0];
  const ms = Number(m[1]) * (unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : 1000);
  return Number.isFinite(ms) && ms >= 1000 && ms <= 86_400_000 ? ms : undefined;
}

export const ConfigSchema = z.strictObject({
  gpucloud: GpuCloudConfigSchema.optional(),
  ai: AiConfigSchema,
  infra: InfraConfigSchema.optional(),
  repohost: RepoHostConfigSchema.optional(),
  errtracker: ErrTrackerConfigSchema.optional(),
  issuetracker: IssueTrackerConfigSchema.optional(),
  notes: NotesConfigSchema.optional(),
  appplatform: AppPlatformConfigSchema.optional(),
  edge: EdgeConfigSchema.optional(),
  vps_a: VpsConfigSchema.optional(),
  vps_b: VpsConfigSchema.optional(),
  cloud_d: CloudDConfigSchema.optional(),
  agent: AgentConfigSchema.optional(),
  backend: BackendConfigSchema.optional(),
  postgres: PostgresConfigSchema.optional(),
  terraform: TerraformConfigSchema.optional(),
  kubernetes: KubernetesConfigSchema.optional(),
  cloud_a: CloudAKeywordsConfigSchema.optional(),
  /** Global operation timeout in seconds; `--timeout` overrides it. */
  timeout: positiveInt().optional(),
  /** Idle auto-stop (engine/producers/autostop/, `assistant autostop check`): what the check may do, and the MCP server's timer. */
  autostop: z
    .strictObject({
      /** `assistant mcp` runs the check this often (`10m`, `1h`, `30s`, or seconds; at least 1 s); no timer when unset. */
      check_every: z
        .union([z.string(), z.number()])
        .refine((v) => checkIntervalMs(v) !== undefined, 'expected a duration such as 10m, 1h or 30s (at least 1 s, at most 1 day)')
        .optional(),
      /** Let the check delete instances whose policy says delete (their creates' `autostop.action`); otherwise it refuses. */
      allow_delete: z.boolean({ error: 'expected true or false' }).optional(),
      /**
       * Let the check hibernate instances whose policy says hibernate (a destroyer action: the machine is
       * released); otherwise it refuses. The consent lives here, with whoever runs the check, as for delete.
       */
      allow_hibernate: z.boolean({ error: 'expected true or false' }).optional(),
      /** How long the check tries to reach each instance over SSH, in seconds (default 20). */
      ssh_timeout_seconds: positiveInt().max(600, 'at most 600 seconds').optional(),
    })
    .optional(),
  /** The budget guard (engine/core/plan/budget.ts): plans whose creates would push the burn above it are refused. */
  budget: z
    .strictObject({
      /** Hourly burn limit in the gpucloud account's currency; `--max-hourly-cost` overrides it. */
      max_hourly: z.number({ error: 'expected a number' }).positive('expected a number greater than 0').refine(Number.isFinite, 'expected a finite number').optional(),
    })
    .optional(),
});

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
export type GpuCloudConfig = z.infer<typeof GpuCloudConfigSchema>;
export type RateLimitConfig = z.infer<typeof RateLimitSchema>;
export type AiConfig = z.infer<typeof AiConfigSchema>;
export type AiProviderProfile = z.infer<typeof AiProviderProfileSchema>;
export type InfraConfig = z.infer<typeof InfraConfigSchema>;
export type RepoHostConfig = z.infer<typeof RepoHostConfigSchema>;
export type ErrTrackerConfig = z.infer<typeof ErrTrackerConfigSchema>;
export type IssueTrackerConfig = z.infer<typeof IssueTrackerConfigSchema>;
export type NotesConfig = z.infer<typeof NotesConfigSchema>;
export type AppPlatformConfig = z.infer<typeof AppPlatformConfigSchema>;
export type EdgeConfig = z.infer<typeof EdgeConfigSchema>;
export type VpsConfig = z.infer<typeof VpsConfigSchema>;
export type CloudDConfig = z.infer<typeof CloudDConfigSchema>;
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type BackendConfig = z.infer<typeof BackendConfigSchema>;
export type PostgresConfig = z.infer<typeof PostgresConfigSchema>;
export type TerraformConfig = z.infer<typeof TerraformConfigSchema>;
export type KubernetesConfig = z.infer<typeof KubernetesConfigSchema>;
export type KubernetesCluster = z.infer<typeof KubernetesClusterSchema>;
export type CloudAKeywordsConfig = z.infer<typeof CloudAKeywordsConfigSchema>;

/** The configuration of a missing or empty file: every section absent, defaults applied. */
export function emptyConfig(): Config {
  return emptyConfigValue();
}

/** Keys that may appear at `path` (object keys along the way; record entries as any name), for "did you mean" hints. */
export function knownKeysAt(path: ReadonlyArray<PropertyKey>): string[] {
  let schema: unknown = ConfigSchema;
  const unwrap = (s: unknown): { type: string; def: Record<string, unknown> } | undefined => {
    let cur = s as { _zod?: { def: Record<string, unknown> & { type: string } } } | undefined;
    for (let i = 0; i < 10 && cur?._zod; i++) {
      const def = cur._zod.def;
      if (['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch'].includes(def.type)) cur = def.innerType as typeof cur;
      else if (def.type === 'pipe') cur = def.in as typeof cur;
      else return { type: def.type, def };
    }
    return undefined;
  };
  for (const segment of path) {
    const node = unwrap(schema);
    if (!node) return [];
    if (node.type === 'object') schema = (node.def.shape as Record<string, unknown>)[String(segment)];
    else if (node.type === 'record') schema = node.def.valueType;
    else return [];
  }
  const node = unwrap(schema);
  return node?.type === 'object' ? Object.keys(node.def.shape as Record<string, unknown>) : [];
}

/** JSON Schema of the file as written (input side: defaults optional), for editors and docs. */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

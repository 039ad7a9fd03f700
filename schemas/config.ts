import { z } from 'zod';

/**
 * The configuration file `~/.assistant.yaml` (SPEC.md §2.5, DESIGN.md §2): its neutral sections (ai,
 * infra, agent, backend, kubernetes, timeout, autostop, budget) and the composition of the strict root
 * from them and every provider's own section. A provider's section lives in its folder
 * (engine/providers/<name>/config.ts: zod only, a ProviderConfigPart, and the section's type added to
 * ProviderConfigSections by module augmentation); engine/providers/config.ts composes the root from
 * the manifest's rows with composeConfigSchema. This file names no provider.
 *
 * Every object is strict so that the loader learns about unknown keys; the loader turns those into
 * warnings (a typo must be visible) and everything else (wrong type, bad enum) into errors.
 * Keys whose YAML value is empty (`client_id:`) are treated as absent by the loader.
 */

// Constants and defaults live without zod (a command without a config file never loads zod).
import { AI_DEFAULTS, AI_PROVIDER_VALUES, emptyConfigValue } from './config-defaults.js';
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

/** Field helpers the sections share (the providers' config modules use them too). */
export const str = () => z.string();
export const httpUrl = () => z.url({ protocol: /^https?$/, error: 'expected an http(s) URL such as https://example.com' });
export const positiveInt = () => z.int({ error: 'expected a whole number' }).positive('expected a number greater than 0');
/** A strict section whose keys are all optional strings (a token, an account, an address). */
export function optionalStrings<K extends string>(...keys: K[]): z.ZodObject<Record<K, z.ZodOptional<z.ZodString>>, z.core.$strict> {
  return z.strictObject(Object.fromEntries(keys.map((k) => [k, str().optional()])) as Record<K, z.ZodOptional<z.ZodString>>);
}

/** What a provider's config module (engine/providers/<name>/config.ts) adds to the file. */
export interface ProviderConfigPart {
  /** The top-level sections it owns, by key (`gpucloud`); each a strict object, optional in the file. */
  sections?: Readonly<Record<string, z.ZodType>>;
  /**
   * Its block under `infra` (`infra.cloud_a`): a cloud reached through its own CLI, which
   * `infra.default_provider` may name and `infra.default_environment` may select an environment of.
   */
  infra?: z.ZodType;
}

/**
 * The providers' sections, by key, as their config modules declare them (module augmentation:
 * `declare module '…/schemas/config.js' { interface ProviderConfigSections { gpucloud?: … } }`), so a
 * `Config` knows every section of this build while this file names none.
 */
export interface ProviderConfigSections {}
/** The providers' blocks under `infra`, declared the same way (`cloud_a?: …`). */
export interface InfraProviderSections {}

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

/** The kubeconfig the Kubernetes code of every wing reads (engine/core/kubeconfig/). */
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

/** `autostop.check_every` in ms: `30s`, `10m`, `1h`, or a number of seconds; 1 s to 1 day, else undefined. */
export function checkIntervalMs(value: string | number): number | undefined {
  const m = typeof value === 'number' ? [String(value), String(value), 's'] : /^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h)?\s*$/i.exec(value);
  if (!m) return undefined;
  const unit = (m[2] ?? 's').toLowerCase()[0];
  const ms = Number(m[1]) * (unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : 1000);
  return Number.isFinite(ms) && ms >= 1000 && ms <= 86_400_000 ? ms : undefined;
}

/** The sections of the file that belong to no provider (after the providers' own, in this order). */
const NeutralConfigSchema = z.strictObject({
  ai: AiConfigSchema,
  agent: AgentConfigSchema.optional(),
  backend: BackendConfigSchema.optional(),
  kubernetes: KubernetesConfigSchema.optional(),
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
      /** Hourly burn limit in the priced account's currency; `--max-hourly-cost` overrides it. */
      max_hourly: z.number({ error: 'expected a number' }).positive('expected a number greater than 0').refine(Number.isFinite, 'expected a finite number').optional(),
    })
    .optional(),
});

/** One object type of an intersection (a plain object type, as z.infer gives: it reads as a record too). */
type Flat<T> = { [K in keyof T]: T[K] };

/** `infra`: the clouds reached through their own CLIs; `default_provider` names one of those whose block is here. */
export type InfraConfig = Flat<{ default_provider?: string; default_environment?: string } & InfraProviderSections>;

export type Config = Flat<z.infer<typeof NeutralConfigSchema> & { infra?: InfraConfig } & ProviderConfigSections>;
export type AiConfig = z.infer<typeof AiConfigSchema>;
export type AiProviderProfile = z.infer<typeof AiProviderProfileSchema>;
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type BackendConfig = z.infer<typeof BackendConfigSchema>;
export type KubernetesConfig = z.infer<typeof KubernetesConfigSchema>;
export type KubernetesCluster = z.infer<typeof KubernetesClusterSchema>;

/** The strict root of the file, as composeConfigSchema makes it; it parses to a Config. */
export type ConfigSchemaType = z.ZodType<Config>;

/**
 * The strict root for these providers' parts, in the given order (the manifest's): each provider's
 * sections, then the neutral ones, with `infra` holding the providers' blocks. A key two providers
 * both claim is a mistake of the build, refused here.
 */
export function composeConfigSchema(parts: readonly { provider: string; part: ProviderConfigPart }[]): ConfigSchemaType {
  const sections: Record<string, z.ZodType> = {};
  const infra: Record<string, z.ZodType> = {};
  const owner = new Map<string, string>();
  const claim = (key: string, provider: string) => {
    const other = owner.get(key) ?? (key in NeutralConfigSchema.shape || key === 'infra' ? 'the neutral sections' : undefined);
    if (other) throw new Error(`config section ${key} of ${provider} is ${other}'s already`);
    owner.set(key, provider);
  };
  for (const { provider, part } of parts) {
    for (const [key, schema] of Object.entries(part.sections ?? {})) {
      claim(key, provider);
      sections[key] = schema.optional();
    }
    if (part.infra) infra[provider] = part.infra.optional();
  }
  const clouds = Object.keys(infra);
  const InfraSchema = z.strictObject({
    default_provider: (clouds.length ? z.enum(clouds as [string, ...string[]]) : z.never()).optional(),
    default_environment: str().optional(),
    ...infra,
  });
  return z.strictObject({ ...sections, ...NeutralConfigSchema.shape, infra: InfraSchema.optional() }) as unknown as ConfigSchemaType;
}

/** The configuration of a missing or empty file: every section absent, defaults applied. */
export function emptyConfig(): Config {
  return emptyConfigValue();
}


import { z } from 'zod';

/**
 * The credential backend's HTTP API, version 1 (`/v1/...`): names, request bodies and responses, shared
 * by the server (backend/) and the client (engine/core/config/backend-store.ts). The server is generic: it
 * stores any provider's fields; which fields a provider has is the provider's own `credentials`
 * capability (its `fields`).
 */

export const BACKEND_ENVS = ['testing', 'staging', 'production'] as const;
export type BackendEnv = (typeof BACKEND_ENVS)[number];
/** What a client without `backend.env` / ASSISTANT_BACKEND_ENV reads and writes. */
export const DEFAULT_BACKEND_ENV: BackendEnv = 'production';
export const DEFAULT_BACKEND_PORT = 8790;
export const DEFAULT_BACKEND_URL = `http://127.0.0.1:${DEFAULT_BACKEND_PORT}`;

export const EnvSchema = z.enum(BACKEND_ENVS, { error: `expected one of ${BACKEND_ENVS.join(', ')}` });
export const TenantSchema = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'a tenant is 1-63 characters: lower-case letters, digits, ".", "_", "-", starting with a letter or digit');
export const ProviderNameSchema = z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'a provider is 1-32 characters: lower-case letters, digits and "_", starting with a letter');
export const CredentialNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'a credential name is 1-63 characters: letters, digits, ".", "_", "-", starting with a letter or digit');

/** Per field value; a kubeconfig is the largest credential we expect (tens of KiB). */
export const MAX_FIELD_BYTES = 64 * 1024;
export const MAX_FIELDS = 16;
/** A request body at most (the server refuses larger ones with 413 before parsing). */
export const MAX_BODY_BYTES = 256 * 1024;

const FieldName = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'a field name is lower-case letters, digits and "_"');
const FieldValue = z
  .string()
  .min(1, 'a value cannot be empty')
  .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_FIELD_BYTES, `a value is at most ${MAX_FIELD_BYTES} bytes`);

export const StoreRequestSchema = z.strictObject({
  fields: z
    .record(FieldName, FieldValue)
    .refine((f) => Object.keys(f).length >= 1, 'at least one field')
    .refine((f) => Object.keys(f).length <= MAX_FIELDS, `at most ${MAX_FIELDS} fields`),
});
export type StoreRequest = z.infer<typeof StoreRequestSchema>;

export const CredentialSummarySchema = z.object({
  env: EnvSchema,
  provider: z.string(),
  name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CredentialSummary = z.infer<typeof CredentialSummarySchema>;

export const StoreResponseSchema = CredentialSummarySchema.extend({ created: z.boolean() });
export const CredentialResponseSchema = CredentialSummarySchema.extend({ fields: z.record(z.string(), z.string()) });
export type CredentialRecord = z.infer<typeof CredentialResponseSchema>;
export const ListResponseSchema = z.object({ credentials: z.array(CredentialSummarySchema) });
export const WhoamiResponseSchema = z.object({ tenant: z.string(), key_prefix: z.string() });
export const HealthResponseSchema = z.object({ status: z.literal('ok'), version: z.string(), storage: z.enum(['pglite', 'postgres']) });
export const ErrorResponseSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

// ---- run history (issue 41) --------------------------------------------------------------------------

/** A run's idempotency key: made once per run by the client, so a run sent twice is stored once. */
export const RunIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{7,63}$/, 'a run id is 8-64 letters, digits, "_" and "-"');
/** A run record's body at most: larger than a credential (a plan with its canonical requests). */
export const MAX_RUN_BODY_BYTES = 1024 * 1024;

const RunStepSchema = z.object({
  index: z.number().int().min(0),
  reason: z.string(),
  /** The step as the report shows it (masked). */
  request: z.string(),
  /** The canonical request the gate, pricer and name check read (DESIGN §8), masked; absent for verbs without one. */
  canonical: z
    .object({ method: z.string(), path: z.string(), query: z.array(z.tuple([z.string(), z.string()])), body: z.unknown().optional() })
    .optional(),
  effect: z.enum(['read', 'create', 'update', 'destroy']),
  status: z.enum(['succeeded', 'failed', 'not_run']),
  http_status: z.number().int().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

const RunResourceSchema = z.object({
  provider: z.string(),
  kind: z.string().optional(),
  name: z.string().optional(),
  id: z.string().optional(),
  effect: z.enum(['create', 'update', 'destroy']),
});

/** What a client reports about one run (apply, dry run or refusal); the server adds tenant, who and when it was received. */
export const RunRecordSchema = z.strictObject({
  kind: z.enum(['apply', 'dry_run']),
  /** succeeded | failed | cancelled (an apply that ran), refused (budget, gate, names: nothing sent), invalid (nothing sent), previewed (a dry run). */
  status: z.enum(['succeeded', 'failed', 'cancelled', 'refused', 'invalid', 'previewed']),
  exit_code: z.number().int(),
  started_at: z.string().datetime(),
  finished_at: z.string().datetime(),
  plan_hash: z.string().max(128),
  summary: z.string().max(2000).optional(),
  providers: z.array(z.string().max(64)).max(32),
  /** The priced change of the hourly burn; absent when it was not priced. */
  hourly_change: z.number().finite().optional(),
  currency: z.string().max(8).optional(),
  error: z.object({ code: z.string().max(200), message: z.string().max(4000) }).optional(),
  steps: z.array(RunStepSchema).max(1000),
  resources: z.array(RunResourceSchema).max(1000),
  /** The plan document, masked. */
  plan: z.unknown().optional(),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

export const RunSummarySchema = z.object({
  id: z.string(),
  env: EnvSchema,
  who: z.string(),
  key_prefix: z.string(),
  received_at: z.string(),
  kind: z.enum(['apply', 'dry_run']),
  status: z.string(),
  exit_code: z.number().int(),
  started_at: z.string(),
  finished_at: z.string(),
  plan_hash: z.string(),
  summary: z.string().nullable(),
  hourly_change: z.number().nullable(),
  currency: z.string().nullable(),
  resources: z.number().int(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;
export const RunDetailSchema = RunSummarySchema.omit({ resources: true }).extend({ tenant: z.string(), record: RunRecordSchema });
export type RunDetail = z.infer<typeof RunDetailSchema>;
export const RunListResponseSchema = z.object({ runs: z.array(RunSummarySchema) });
export const RunPutResponseSchema = z.object({ id: z.string(), created: z.boolean() });

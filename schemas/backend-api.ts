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

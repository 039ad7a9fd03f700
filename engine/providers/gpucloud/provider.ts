/**
 * gpucloud as a provider of the plan engine (engine/core/provider.ts): its two step verbs, its name lookup
 * for duplicate-name checks and exactly-once creates, its price preview, and how its client is built.
 */
import { join } from 'node:path';
import { resolveGpuCloudCredentialsWithBackend, resolveGpuCloudUrls, resolveRateLimit } from './credentials.js';
import { registerSecret } from '../../core/redact.js';
import { OperationError } from '../../core/errors.js';
import type { NamedRecord, NameLookup, Provider } from '../../core/provider.js';
import { findKind, listPathOf } from './catalogue.js';
import { createGpuCloudClient } from './client.js';
import { gpucloudCapabilities } from './capabilities.js';
import { createResponseFor } from './dedupe.js';
import { driftGpuCloud } from './drift.js';
import type { GpuCloudClient } from './types.js';
import { gpucloudApi } from './verbs/api.js';
import { gpucloudWait } from './verbs/wait.js';

const names: NameLookup<GpuCloudClient> = {
  async list(kind, client, signal) {
    const spec = findKind(kind);
    if (!spec?.nameField) return [];
    return names.fromList!(kind, (await client.request({ method: 'GET', path: listPathOf(spec), signal })).data);
  },

  listStep(kind) {
    const spec = findKind(kind);
    return spec?.nameField ? ['gpucloud-api', 'GET', listPathOf(spec)] : undefined;
  },

  fromList(kind, data) {
    const spec = findKind(kind);
    if (!spec?.nameField) return [];
    const out: NamedRecord[] = [];
    for (const r of Array.isArray(data) ? data : []) {
      const record = r as Record<string, unknown>;
      const name = record?.[spec.nameField];
      if (typeof name !== 'string') continue;
      // An instance that ended in no_capacity never ran and never bills: its name is free again (failover.ts).
      if (record.status === 'no_capacity') continue;
      out.push({ id: String(record[spec.idField] ?? ''), name, createdAt: typeof record.created_at === 'string' ? record.created_at : undefined, record });
    }
    return out;
  },

  createdId(kind, data) {
    if (typeof data === 'string' && data) return data;
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      const o = data as Record<string, unknown>;
      const v = o[findKind(kind)?.idField ?? 'id'] ?? o.id;
      if (typeof v === 'string' || typeof v === 'number') return String(v);
    }
    return undefined;
  },

  responseFor(kind, found) {
    const spec = findKind(kind);
    return spec ? createResponseFor(spec, found.id, found.record) : found.id;
  },
};

export const gpucloudProvider: Provider<GpuCloudClient> = {
  name: 'gpucloud',
  verbs: [gpucloudApi, gpucloudWait],
  names,
  // The pricing code loads when a dry run, a budget or a consent prices, not with every gpucloud command.
  preview: async (steps, read, predefined) => (await import('./preview.js')).previewGpuCloud(steps, read, predefined),
  burn: async (read) => (await import('./cost.js')).burnGpuCloud(read),
  capabilities: gpucloudCapabilities,
  drift: driftGpuCloud,

  async connect(opts) {
    if (opts.override) {
      const client = createGpuCloudClient({
        baseUrl: opts.override.baseUrl,
        credentials: { clientId: opts.override.credentials.clientId!, clientSecret: opts.override.credentials.clientSecret! },
        fetch: opts.override.fetch,
        tokenCacheDir: opts.override.tokenCacheDir,
        timeoutMs: opts.timeoutMs,
        debug: opts.debug,
      });
      return { client, source: 'sandbox emulator' };
    }
    if (opts.stored) {
      // The backend server's console, for one tenant: its stored OAuth client, the server's API URLs.
      const clientId = opts.stored.client_id?.trim();
      const clientSecret = opts.stored.client_secret?.trim();
      if (!clientId || !clientSecret) throw new OperationError('no_credentials', 'the stored gpucloud record lacks client_id or client_secret');
      registerSecret(clientSecret);
      const { baseUrl, authUrl } = resolveGpuCloudUrls(opts.config, opts.env);
      const client = createGpuCloudClient({
        baseUrl,
        authUrl,
        credentials: { clientId, clientSecret, projectId: opts.stored.project_id?.trim() || undefined },
        timeoutMs: opts.timeoutMs,
        debug: opts.debug,
      });
      return { client, source: 'backend (stored for the tenant)', close: async (how) => client.close?.(how) };
    }
    // SPEC 5 order; the backend store (step 4) only when a backend API key is configured.
    const creds = await resolveGpuCloudCredentialsWithBackend({ config: opts.config, env: opts.env, home: opts.home, configPath: opts.configPath, signal: opts.signal, debug: opts.debug, backendOnly: opts.backendOnly });
    for (const w of creds.warnings ?? []) opts.warn?.(w);
    opts.debug?.(`gpucloud credentials from ${creds.source} (${creds.sourceDetail})`);
    const { redisUrl, ...rateLimit } = resolveRateLimit(opts.config, opts.env);
    const client = createGpuCloudClient({
      baseUrl: creds.baseUrl,
      authUrl: creds.authUrl,
      credentials: { clientId: creds.clientId, clientSecret: creds.clientSecret, projectId: creds.projectId },
      rateLimit,
      // Every process of this project shares the limits (issue 12): this machine's record, or Redis.
      sharedLimits: { dir: join(opts.home, '.assistant', 'ratelimit'), redisUrl, warn: opts.warn },
      // Credentials fetched from the backend live in memory only: no token derived from them is cached on disk.
      tokenCacheDir: opts.freshCredentials || creds.source === 'backend' ? undefined : join(opts.home, '.assistant', 'tokens'),
      timeoutMs: opts.timeoutMs,
      debug: opts.debug,
    });
    return { client, source: `${creds.source} (${creds.sourceDetail})`, close: async (how) => client.close?.(how) };
  },
};

/**
 * Kubernetes as a provider of the plan engine (engine/core/provider.ts): `k8s-api` (one request to a
 * context's API server) and `k8s-wait` (a Deployment's rollout), the duplicate-name lookup of creates
 * (listing the collection a POST targets), and the client, built from the kubeconfig on first use.
 */
import type { NamedRecord, NameLookup, Provider } from '../../core/provider.js';
import { k8sCapabilities } from './capabilities.js';
import { KubeClient } from './client.js';
import { kubeconfigPaths, loadKubeconfig } from '../../core/kubeconfig/kubeconfig.js';
import { k8sApi, splitCollectionKind } from './verbs/api.js';
import { k8sWait } from './verbs/wait.js';

const names: NameLookup<KubeClient> = {
  async list(kind, client, signal) {
    const where = splitCollectionKind(kind);
    if (!where) return [];
    const data = (await client.request(where.context, { method: 'GET', path: where.path, signal })).data as { items?: unknown[] };
    const out: NamedRecord[] = [];
    for (const item of Array.isArray(data?.items) ? data.items : []) {
      const meta = (item as { metadata?: Record<string, unknown> })?.metadata;
      if (typeof meta?.name !== 'string') continue;
      out.push({ id: String(meta.uid ?? meta.name), name: meta.name, createdAt: typeof meta.creationTimestamp === 'string' ? meta.creationTimestamp : undefined, record: item });
    }
    return out;
  },

  createdId(_kind, data) {
    const meta = (data as { metadata?: Record<string, unknown> } | undefined)?.metadata;
    const id = meta?.uid ?? meta?.name;
    return typeof id === 'string' ? id : undefined;
  },

  responseFor(_kind, found) {
    return found.record;
  },
};

export const k8sProvider: Provider<KubeClient> = {
  name: 'k8s',
  verbs: [k8sApi, k8sWait],
  names,
  capabilities: k8sCapabilities,

  async connect(opts) {
    const paths = kubeconfigPaths(opts.config, opts.env, opts.home);
    const kubeconfig = loadKubeconfig(paths);
    // `--profile`/`--region` (or the cluster's config entry) are what an exec credential plugin such as
    // `aws eks get-token` reads from its environment; the kubeconfig's own exec env still wins.
    const env = { ...opts.env, ...(opts.profile ? { AWS_PROFILE: opts.profile } : {}), ...(opts.region ? { AWS_REGION: opts.region, AWS_DEFAULT_REGION: opts.region } : {}) };
    const client = new KubeClient({ kubeconfig, env, timeoutMs: opts.timeoutMs, debug: opts.debug, warn: opts.warn });
    return { client, source: `kubeconfig ${kubeconfig.files.join(', ') || paths.join(', ')}`, close: async () => client.close() };
  },
};

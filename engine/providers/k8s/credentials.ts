/**
 * k8s's `credentials` capability: the kubeconfig files as engine/core/kubeconfig/kubeconfig.ts finds
 * them and the context a command would use; `onboarding scan --check` asks that context's API server
 * (its /version, then a read that needs an identity).
 */
import { existsSync } from 'node:fs';
import type { CheckInput, CheckResult, CredentialSource, CredentialsCapability, SourceInput, SourceKind } from '../../core/capabilities.js';
import { markUsed, shortError, tidyPath } from '../../core/credential-sources.js';
import { contextFor, kubeconfigPaths, loadKubeconfig, selectContext } from '../../core/kubeconfig/kubeconfig.js';
import { childEnvironment } from '../../core/process/child-env.js';

function k8sSources(input: SourceInput): CredentialSource[] {
  const { config, env, home } = input;
  const paths = kubeconfigPaths(config, env, home);
  const kind: SourceKind = config.kubernetes?.kubeconfig?.trim() ? 'config' : (env.KUBECONFIG ?? '').trim() ? 'env' : 'file';
  const label = kind === 'config' ? 'kubernetes.kubeconfig: ' : kind === 'env' ? 'KUBECONFIG: ' : '';
  const sources: CredentialSource[] = paths.map((p) => {
    if (!existsSync(p)) return { kind, where: `${label}${tidyPath(p, home)}`, present: false, note: 'file not found' };
    try {
      const kc = loadKubeconfig([p]);
      const n = kc.contexts.size;
      return { kind, where: `${label}${tidyPath(p, home)}`, present: n > 0, note: n ? `${n} context${n === 1 ? '' : 's'}` : 'no contexts' };
    } catch (err) {
      return { kind, where: `${label}${tidyPath(p, home)}`, present: false, note: (err as Error).message };
    }
  });
  markUsed(sources);
  const used = sources.find((s) => s.used);
  if (used) {
    try {
      const kc = loadKubeconfig(paths);
      const ctx = selectContext(kc, paths, { kubernetes: config.kubernetes });
      used.note = `${used.note}; context "${ctx}"${config.kubernetes?.default_context ? ' (kubernetes.default_context)' : ' (current-context)'}`;
    } catch (err) {
      used.note = `${used.note}; ${(err as Error).message}`;
    }
  }
  return sources;
}

/** The API server of the context a command would use: its /version, then an authenticated read. */
async function checkK8s(input: CheckInput): Promise<CheckResult> {
  const { KubeApiError, KubeClient } = await import('./client.js');
  let context: string;
  let client: InstanceType<typeof KubeClient>;
  try {
    const found = contextFor(input.config, input.env, input.home);
    context = found.context;
    // exec credential plugins (aws eks get-token, gke-gcloud-auth-plugin) get their cloud's settings only.
    const env = childEnvironment(input.env, { prefixes: ['AWS_', 'CLOUDSDK_'], names: ['KUBECONFIG', 'GOOGLE_APPLICATION_CREDENTIALS', 'AZURE_CONFIG_DIR'] });
    client = new KubeClient({ kubeconfig: found.kubeconfig, env, timeoutMs: input.timeoutMs, debug: input.debug });
  } catch (err) {
    return { authenticated: false, detail: shortError(err) };
  }
  try {
    let version: string | undefined;
    try {
      const v = await client.request(context, { method: 'GET', path: '/version', signal: input.signal });
      const data = v.data as { gitVersion?: unknown } | undefined;
      if (typeof data?.gitVersion === 'string') version = data.gitVersion;
    } catch (err) {
      // /version is often open to anyone: only a refusal or an unreachable server ends the check here.
      if (!(err instanceof KubeApiError) || err.status === 401) throw err;
    }
    // Discovery and /version may be anonymous; listing one namespace needs an identity.
    try {
      await client.request(context, { method: 'GET', path: '/api/v1/namespaces?limit=1', signal: input.signal });
    } catch (err) {
      if (!(err instanceof KubeApiError) || err.status !== 403 || /system:anonymous/.test(err.message)) throw err;
    }
    return { authenticated: true, identity: `context "${context}"`, detail: `the API server accepted the credentials${version ? ` (Kubernetes ${version})` : ''}` };
  } catch (err) {
    if (input.signal.aborted) throw err;
    const refused = err instanceof KubeApiError && (err.status === 401 || err.status === 403);
    return { authenticated: refused ? false : null, identity: `context "${context}"`, detail: shortError(err) };
  } finally {
    client.close();
  }
}

export const k8sCredentials: CredentialsCapability = {
  sources: k8sSources,
  notStored: 'k8s kubeconfigs come later',
  scan: {
    title: 'k8s (Kubernetes API from a kubeconfig)',
    check: checkK8s,
    setup: () => [
      { why: 'k8s: create a cluster (its kubeconfig is merged for you)', command: 'assistant k8s create gpucloud <NAME> --plan' },
      { why: 'k8s: or point at an existing kubeconfig', command: 'export KUBECONFIG=<PATH>' },
    ],
    login: () => [{ why: "k8s: the API server refused this context's credentials; refresh the kubeconfig (e.g. `aws eks update-kubeconfig`) and check", command: 'kubectl auth whoami' }],
  },
};

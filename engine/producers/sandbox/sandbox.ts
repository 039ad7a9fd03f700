/**
 * `--sandbox`: what stands in for which provider. A provider with a `sandbox` capability (gpucloud's
 * emulator, the integrations' fakes) is stood in for by the local server it starts, its state in the
 * sandbox's directory (~/.assistant/sandbox/). The emulator's clusters get 127.0.0.1 as their public
 * IP, where `ssh` reaches the stand-in head node (head-node.ts) with the sandbox's own key, pins its
 * host key in the sandbox's own known_hosts and merges kubeconfig contexts into the sandbox's own
 * kubeconfig. So `k8s create gpucloud` completes in the sandbox, and nothing of the user's real SSH or
 * kubectl set-up is read or written.
 *
 * Kubernetes is the sandbox kubeconfig's clusters (sandboxedConfig), each served by the in-process
 * Kubernetes API stand-in (kube-api.ts) through the k8s provider's own client.
 *
 * The sandbox is hermetic (DESIGN §8, engine/core/hermetic.ts): every provider connects here, and one
 * without a stand-in (the clouds reached through their CLIs, PostgreSQL, terraform) is
 * refused with `not_in_sandbox` before its client exists, so no real CLI runs and nothing is sent.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { NotInSandbox } from '../../core/hermetic.js';
import type { ConnectOptions, Provider, ProviderClient } from '../../core/provider.js';
import type { Config } from '../../../schemas/config.js';
import type { SshSettings } from '../../providers/ssh/remote.js';
// ssh2's server: loaded when a sandbox step first reaches a head node, never for a gpucloud read.
import type { HeadNode } from './head-node.js';
import type { KubeApiStandIn } from './kube-api.js';

/** Where the sandbox keeps its state, under the home directory. */
export const sandboxDir = (home: string) => join(home, '.assistant', 'sandbox');
/** The kubeconfig the sandbox's clusters are merged into (never ~/.kube/config). */
export const sandboxKubeconfig = (home: string) => join(sandboxDir(home), 'kube', 'config');
/** Where the Kubernetes API stand-in keeps its clusters and token. */
export const sandboxKubeApiDir = (home: string) => join(sandboxDir(home), 'kube-api');

/**
 * The configuration as the sandbox sees it: Kubernetes is the sandbox's own kubeconfig (its clusters'
 * contexts, its current context), never the user's kubernetes settings, KUBECONFIG or ~/.kube/config.
 */
export function sandboxedConfig(config: Config, home: string): Config {
  return { ...config, kubernetes: { kubeconfig: sandboxKubeconfig(home) } };
}

export interface Sandbox {
  /** Whether the sandbox stands in for the provider of this name (given the provider, also by its `sandbox` capability). */
  standsInFor(name: string, provider?: Provider): boolean;
  /** The provider's stand-in; NotInSandbox (exit 3, nothing run or sent) for a provider without one. */
  connect(name: string, provider: Provider, options: ConnectOptions): Promise<ProviderClient<unknown>>;
  close(): Promise<void>;
}

type StandIn = (provider: Provider, options: ConnectOptions) => Promise<ProviderClient<unknown>>;

/** After `k8s delete gpucloud <name>` in the sandbox: its context leaves the sandbox kubeconfig and its objects the stand-in. */
export async function forgetSandboxCluster(home: string, name: string): Promise<boolean> {
  // Loaded here: a sandbox read takes no lock library (test/core/startup.modules.test.ts).
  const [{ forgetCluster }, { removeContext }] = await Promise.all([import('./kube-api.js'), import('../../core/kubeconfig/kubeconfig-write.js')]);
  forgetCluster(sandboxKubeApiDir(home), name);
  return removeContext(sandboxKubeconfig(home), name);
}

export function openSandbox(home: string): Sandbox {
  const dir = sandboxDir(home);
  const closers: (() => Promise<void>)[] = [];
  let headNode: Promise<HeadNode> | undefined;
  let kubeApi: Promise<KubeApiStandIn> | undefined;

  const standIns: Record<string, StandIn> = {
    ssh: async (provider, options) => {
      const real = (await provider.connect(options)) as ProviderClient<SshSettings>;
      headNode ??= import('./head-node.js').then(({ startHeadNode }) => startHeadNode(join(dir, 'ssh'), sandboxKubeApiDir(home))).then((node) => {
        closers.push(() => node.close());
        return node;
      });
      const node = await headNode;
      const knownHostsFile = join(dir, 'ssh', 'known_hosts');
      // Its port is new every run: pins of earlier runs would only pile up.
      rmSync(knownHostsFile, { force: true });
      // Every host is reached at the stand-in (the emulator's instances have documentation addresses, 203.0.113.x).
      const settings: SshSettings = { ...real.client, keyPath: node.clientKeyPath, port: node.port, reachAt: '127.0.0.1', knownHostsFile, kubeconfigPath: sandboxKubeconfig(home) };
      return { client: settings, source: `the sandbox's stand-in head node (127.0.0.1:${node.port}, key ${node.clientKeyPath})` };
    },
    // The sandbox kubeconfig's clusters, each served by the Kubernetes API stand-in (kube-api.ts): the
    // kubeconfig names https://127.0.0.1:6443 (the emulator's cluster IP), which this process reads as
    // the stand-in's port and the cluster's path there. The token is the kubeconfig's own.
    k8s: async (_provider, options) => {
      kubeApi ??= import('./kube-api.js').then(({ startKubeApi }) => startKubeApi(sandboxKubeApiDir(home))).then((api) => {
        closers.push(() => api.close());
        return api;
      });
      const api = await kubeApi;
      const path = sandboxKubeconfig(home);
      const { loadKubeconfig } = await import('../../core/kubeconfig/kubeconfig.js');
      const kubeconfig = loadKubeconfig([path]);
      for (const [name, entry] of kubeconfig.clusters) entry.value = { server: `${api.url}/clusters/${encodeURIComponent(name)}` };
      const { KubeClient } = await import('../../providers/k8s/client.js');
      const client = new KubeClient({ kubeconfig, env: {}, timeoutMs: options.timeoutMs, debug: options.debug, warn: options.warn });
      return { client, source: `the sandbox's Kubernetes API stand-in (${api.url}, kubeconfig ${path})`, close: async () => client.close() };
    },
  };

  // The provider's own stand-in (its `sandbox` capability), started on first use and closed with the sandbox.
  const byCapability: StandIn = async (provider, options) => {
    const fake = await provider.capabilities!.sandbox!.start(dir);
    closers.push(() => fake.close());
    return provider.connect({ ...options, override: { baseUrl: fake.baseUrl, credentials: fake.credentials, fetch: fake.fetch, tokenCacheDir: fake.tokenCacheDir } });
  };

  const standsInFor = (name: string, provider?: Provider) => name in standIns || Boolean(provider?.capabilities?.sandbox);
  return {
    standsInFor,
    connect: async (name, provider, options) => {
      if (!standsInFor(name, provider)) {
        throw new NotInSandbox(`the provider ${name} has no local stand-in`, `run the command without --sandbox to use ${name} for real (with your own credentials and endpoints)`);
      }
      return (standIns[name] ?? byCapability)(provider, options);
    },
    close: async () => {
      await Promise.all(closers.splice(0).map((close) => close()));
    },
  };
}

/**
 * The providers this build knows, by a small static manifest: each provider's name, the step verbs it
 * owns, and how to import its module. Nothing of a provider loads until a plan names it: a gpucloud list
 * never loads ssh2, the Kubernetes code or the cloud CLIs' rule tables (start-up is benchmarked, and
 * test/startup.modules.test.ts counts what a list loads).
 *
 * Surfaces (commands/, the MCP server) hand the registry to the plan engine as a ProviderSource; the
 * engine awaits `forPlan(plan)` and validates with the ProviderSet it gets, synchronously. The manifest
 * knows every verb without loading anything, so an unknown verb is still one clear validation error
 * listing the known ones. A new provider is one folder and one entry here (test/plan.providers.test.ts
 * checks each entry's verbs against its module).
 *
 * The manifest is a typed table meant to grow: what a provider can do besides running steps
 * (answer questions, make plans, cost, store credentials…) belongs in an entry, so that choosing a
 * provider for a job never needs its module loaded.
 */
import { ProviderSet, type KnownProviders, type Provider, type ProviderSource } from './provider.js';

export interface ProviderManifestEntry {
  /** The name plans use in `provider`. */
  readonly name: string;
  /** The step verbs (a command's `args[0]`) the provider owns; must match its module's verbs. */
  readonly verbs: readonly string[];
  /** Imports the provider's module (the first time; Node caches it). */
  readonly load: () => Promise<Provider<any>>;
}

/** In the order the providers are consulted (dry-run pricing goes provider by provider in this order). */
export const PROVIDER_MANIFEST: readonly ProviderManifestEntry[] = [
  { name: 'gpucloud', verbs: ['gpucloud-api', 'gpucloud-wait'], load: async () => (await import('./gpucloud/provider.js')).gpucloudProvider },
  { name: 'cloud_a', verbs: ['aws'], load: async () => (await import('./cloud_a/provider.js')).cloudAProvider },
  { name: 'cloud_b', verbs: ['gcloud'], load: async () => (await import('./cloud_b/provider.js')).cloudBProvider },
  { name: 'cloud_c', verbs: ['az'], load: async () => (await import('./cloud_c/provider.js')).cloudCProvider },
  { name: 'k8s', verbs: ['k8s-api', 'k8s-wait'], load: async () => (await import('./k8s/provider.js')).k8sProvider },
  { name: 'ssh', verbs: ['ssh-kubeconfig', 'ssh-exec'], load: async () => (await import('./ssh/provider.js')).sshProvider },
];

/** Loads providers by name on first use and hands out ProviderSets of the loaded ones. */
export class ProviderRegistry implements ProviderSource {
  private readonly known: KnownProviders;
  private readonly loading = new Map<string, Promise<Provider<any>>>();
  /** One set per combination of providers, so repeated plans of one shape share it. */
  private readonly sets = new Map<string, ProviderSet>();

  constructor(readonly manifest: readonly ProviderManifestEntry[]) {
    const verbs = new Map<string, string>();
    for (const entry of manifest) for (const verb of entry.verbs) verbs.set(verb, entry.name);
    this.known = { names: manifest.map((e) => e.name), verbs };
  }

  /** Every provider name the build knows, without loading any. */
  names(): string[] {
    return [...this.known.names];
  }

  /** Every step verb the build knows, without loading any. */
  verbs(): string[] {
    return [...this.known.verbs.keys()];
  }

  /** The provider that owns a step verb, by name (undefined for a verb nobody owns). */
  ownerOf(verb: string): string | undefined {
    return this.known.verbs.get(verb);
  }

  /** The providers named (unknown names are left out: validation reports them). */
  async load(names: Iterable<string>): Promise<ProviderSet> {
    const wanted = new Set<string>();
    for (const name of names) if (this.known.names.includes(name)) wanted.add(name);
    // In manifest order, whatever order they were asked for in.
    const ordered = this.known.names.filter((n) => wanted.has(n));
    const key = ordered.join(',');
    const cached = this.sets.get(key);
    if (cached) return cached;
    const list = await Promise.all(ordered.map((name) => this.provider(name)));
    const set = new ProviderSet(list, this.known);
    this.sets.set(key, set);
    return set;
  }

  /**
   * The providers a plan needs: those owning its steps' verbs and those its `provider` names. Any input
   * is accepted (validation has not run yet): what cannot be read as a plan loads nothing.
   */
  forPlan(input: unknown): Promise<ProviderSet> {
    return this.load(this.namedBy(input));
  }

  /** Every provider of the build (tests, the AI maker whose plans may use any verb). */
  all(): Promise<ProviderSet> {
    return this.load(this.known.names);
  }

  private provider(name: string): Promise<Provider<any>> {
    let p = this.loading.get(name);
    if (!p) {
      const entry = this.manifest.find((e) => e.name === name)!;
      p = entry.load();
      // A failed import is not cached: the next plan tries again (and reports the same error if it persists).
      p.catch(() => this.loading.delete(name));
      this.loading.set(name, p);
    }
    return p;
  }

  private namedBy(input: unknown): Set<string> {
    const names = new Set<string>();
    if (!input || typeof input !== 'object') return names;
    const { provider, commands } = input as { provider?: unknown; commands?: unknown };
    for (const p of Array.isArray(provider) ? provider : [provider]) if (typeof p === 'string') names.add(p);
    if (Array.isArray(commands)) {
      for (const command of commands) {
        const verb = (command as { args?: unknown } | null)?.args;
        const owner = Array.isArray(verb) && typeof verb[0] === 'string' ? this.known.verbs.get(verb[0]) : undefined;
        if (owner) names.add(owner);
      }
    }
    return names;
  }
}

/** This build's providers. */
export const PROVIDERS = new ProviderRegistry(PROVIDER_MANIFEST);

/** Every provider loaded (tests and tools that validate arbitrary plans synchronously). */
export function allProviders(): Promise<ProviderSet> {
  return PROVIDERS.all();
}

/**
 * The providers this build knows. A new provider is one folder and ONE ENTRY in PROVIDER_MANIFEST below:
 *   { name: 'x', verbs: ['x-api'], has: ['routing', 'reads'], load: async () => (await import('./x/provider.js')).xProvider },
 * (`has`: the keys of its `capabilities`; add `capabilities: async () => (await import('./x/capabilities.js')).xCapabilities`
 * when they live in a light module of their own, and `config: async () => (await import('./x/config.js')).xConfig` when it has a section
 * of the config file: engine/providers/config.ts composes the file's schema from them). docs/architecture.md says how;
 * test/core/providers.registry.test.ts checks every entry against its module.
 *
 * Nothing of a provider loads until something needs it: a plan that names it (`forPlan`), or a command
 * that asks who has a capability (`providersWith`). The manifest knows every verb and capability name
 * without loading anything, so an unknown verb is still one clear validation error listing the known
 * ones, and `ask` registers a flag per routable provider from the manifest alone. A gpucloud list never
 * loads ssh2, the Kubernetes code or the cloud CLIs' rule tables (test/core/startup.modules.test.ts counts it).
 *
 * Surfaces (commands/, the MCP server) hand the registry to the plan engine as a ProviderSource; the
 * engine awaits `forPlan(plan)` and validates with the ProviderSet it gets, synchronously.
 */
import type { ProviderConfigPart } from '../../schemas/config.js';
import type { ProviderCapabilities } from '../core/capabilities.js';
import { ProviderSet, type KnownProviders, type Provider, type ProviderSource } from '../core/provider.js';
import { loadJointAnswerers } from '../core/joint-answerers.js';
import { loadPlanChecks } from '../core/plan/shape.js';
import { isFrozenPlan } from '../core/plan/frozen.js';
import type { FormerNames } from '../core/plan/document.js';
import type { ProviderRouting } from '../core/routing/terms.js';

export type CapabilityName = keyof ProviderCapabilities;

export interface ProviderManifestEntry {
  /** The name plans use in `provider`. */
  readonly name: string;
  /** The step verbs (a command's `args[0]`) the provider owns; must match its module's verbs. */
  readonly verbs: readonly string[];
  /** The capabilities its module offers (the keys of its `capabilities`); must match its module. */
  readonly has?: readonly CapabilityName[];
  /** Imports the provider's module (the first time; Node caches it). */
  readonly load: () => Promise<Provider<any>>;
  /**
   * Imports only its capabilities, when they are a light module of their own (the same object the
   * provider's `capabilities` holds): choosing providers for a question then loads no step code.
   * Without it, capabilities come from the provider's module.
   */
  readonly capabilities?: () => Promise<ProviderCapabilities>;
  /**
   * What the original tool called it: its provider name in plans, flags and config (`verda`), and its step
   * verbs where they differ (`verda-api` → `gpucloud-api`). Plans, flags and config sections under those
   * names are read with a warning naming the new one (issue 39).
   */
  readonly formerly?: {
    readonly name: string;
    readonly verbs?: Readonly<Record<string, string>>;
    /** Keys of its config section the original tool named otherwise (`team_id` → `workspace_id`); `assistant migrate config` renames them. */
    readonly keys?: Readonly<Record<string, string>>;
  };
  /**
   * Its part of the config file (its section, its `infra` block), from its light config module. Imported
   * only when a config file is parsed: a command without one never loads zod.
   */
  readonly config?: () => Promise<ProviderConfigPart>;
}

/** In the order the providers are consulted (routing, dry-run pricing and flags go in this order). */
export const PROVIDER_MANIFEST: readonly ProviderManifestEntry[] = [
  { name: 'gpucloud', verbs: ['gpucloud-api', 'gpucloud-wait'], has: ['routing', 'maker', 'reads', 'answer', 'credentials', 'bindings', 'limits', 'sandbox', 'cost', 'deploy', 'machines', 'autostop', 'records'], formerly: { name: 'verda', verbs: { 'verda-api': 'gpucloud-api' } }, load: async () => (await import('./gpucloud/provider.js')).gpucloudProvider, capabilities: async () => (await import('./gpucloud/capabilities.js')).gpucloudCapabilities, config: async () => (await import('./gpucloud/config.js')).gpucloudConfig },
  { name: 'cloud_a', verbs: ['aws'], has: ['routing', 'reads', 'answer', 'maker', 'cost', 'deploy', 'machines', 'credentials', 'target'], formerly: { name: 'aws' }, load: async () => (await import('./cloud_a/provider.js')).cloudAProvider, capabilities: async () => (await import('./cloud_a/capabilities.js')).cloudACapabilities, config: async () => (await import('./cloud_a/config.js')).cloudAConfig },
  { name: 'cloud_b', verbs: ['gcloud', 'bq'], has: ['routing', 'reads', 'answer', 'cost', 'credentials'], formerly: { name: 'gcp' }, load: async () => (await import('./cloud_b/provider.js')).cloudBProvider, capabilities: async () => (await import('./cloud_b/capabilities.js')).cloudBCapabilities, config: async () => (await import('./cloud_b/config.js')).cloudBConfig },
  { name: 'cloud_c', verbs: ['az'], has: ['routing', 'reads', 'answer', 'cost', 'credentials'], formerly: { name: 'azure' }, load: async () => (await import('./cloud_c/provider.js')).cloudCProvider, capabilities: async () => (await import('./cloud_c/capabilities.js')).cloudCCapabilities, config: async () => (await import('./cloud_c/config.js')).cloudCConfig },
  { name: 'k8s', verbs: ['k8s-api', 'k8s-wait'], has: ['credentials', 'clusterAsk'], load: async () => (await import('./k8s/provider.js')).k8sProvider, capabilities: async () => (await import('./k8s/capabilities.js')).k8sCapabilities },
  { name: 'ssh', verbs: ['ssh-kubeconfig', 'ssh-exec'], has: ['credentials', 'preflight'], load: async () => (await import('./ssh/provider.js')).sshProvider, capabilities: async () => (await import('./ssh/capabilities.js')).sshCapabilities },
  { name: 'repohost', verbs: ['repohost-api'], has: ['routing', 'reads', 'answer', 'credentials', 'sandbox'], formerly: { name: 'github' }, load: async () => (await import('./repohost/provider.js')).repohostProvider, config: async () => (await import('./repohost/config.js')).repohostConfig },
  { name: 'errtracker', verbs: ['errtracker-api'], has: ['routing', 'reads', 'answer', 'credentials', 'sandbox'], formerly: { name: 'sentry' }, load: async () => (await import('./errtracker/provider.js')).errtrackerProvider, config: async () => (await import('./errtracker/config.js')).errtrackerConfig },
  { name: 'issuetracker', verbs: ['issuetracker-api'], has: ['routing', 'reads', 'answer', 'credentials', 'sandbox'], formerly: { name: 'linear' }, load: async () => (await import('./issuetracker/provider.js')).issuetrackerProvider, config: async () => (await import('./issuetracker/config.js')).issuetrackerConfig },
  { name: 'postgres', verbs: ['postgres-read', 'postgres-sql'], has: ['routing', 'reads', 'answer', 'credentials', 'classify'], formerly: { name: 'databases' }, load: async () => (await import('./postgres/provider.js')).postgresProvider, config: async () => (await import('./postgres/config.js')).postgresConfig },
  { name: 'terraform', verbs: ['terraform-read', 'terraform-apply'], has: ['routing', 'reads', 'answer', 'credentials', 'classify'], load: async () => (await import('./terraform/provider.js')).terraformProvider, config: async () => (await import('./terraform/config.js')).terraformConfig },
  { name: 'vps_a', verbs: ['vps-a-api'], has: ['routing', 'reads', 'answer', 'credentials', 'sandbox'], formerly: { name: 'digitalocean' }, load: async () => (await import('./vps_a/provider.js')).vpsAProvider, config: async () => (await import('./vps_a/config.js')).vpsAConfig },
  { name: 'vps_b', verbs: ['vps-b-api'], has: ['routing', 'reads', 'answer', 'credentials', 'sandbox'], formerly: { name: 'hetzner' }, load: async () => (await import('./vps_b/provider.js')).vpsBProvider, config: async () => (await import('./vps_b/config.js')).vpsBConfig },
  { name: 'cloud_d', verbs: ['cloud-d-api'], has: ['routing', 'reads', 'answer', 'credentials', 'sandbox'], formerly: { name: 'tencent' }, load: async () => (await import('./cloud_d/provider.js')).cloudDProvider, config: async () => (await import('./cloud_d/config.js')).cloudDConfig },
  { name: 'notes', verbs: ['notes-api'], has: ['routing', 'reads', 'answer', 'credentials', 'sandbox'], formerly: { name: 'notion' }, load: async () => (await import('./notes/provider.js')).notesProvider, config: async () => (await import('./notes/config.js')).notesConfig },
  { name: 'appplatform', verbs: ['appplatform-api'], has: ['routing', 'reads', 'answer', 'credentials', 'sandbox'], formerly: { name: 'vercel', keys: { team_id: 'workspace_id' } }, load: async () => (await import('./appplatform/provider.js')).appPlatformProvider, config: async () => (await import('./appplatform/config.js')).appPlatformConfig },
  { name: 'edge', verbs: ['edge-api'], has: ['routing', 'reads', 'answer', 'credentials', 'sandbox'], formerly: { name: 'cloudflare' }, load: async () => (await import('./edge/provider.js')).edgeProvider, config: async () => (await import('./edge/config.js')).edgeConfig },
];

/** A provider as a capability lookup answers it: its name and the capability asked for (no step code loaded). */
export interface CapableProvider<K extends CapabilityName> {
  name: string;
  capabilities: ProviderCapabilities & Required<Pick<ProviderCapabilities, K>>;
}

/** Loads providers by name on first use and hands out ProviderSets of the loaded ones. */
export class ProviderRegistry implements ProviderSource {
  private readonly entries: ProviderManifestEntry[];
  /** Live: registering a provider updates what every set handed out knows. */
  private readonly known: { names: string[]; verbs: Map<string, string> } & KnownProviders;
  private readonly loading = new Map<string, Promise<Provider<any>>>();
  private readonly capabilityLoads = new Map<string, Promise<ProviderCapabilities>>();
  /** One set per combination of providers, so repeated plans of one shape share it. */
  private readonly sets = new Map<string, ProviderSet>();
  /** The set of each frozen plan asked for (forPlan); forgotten whenever the sets are. */
  private frozenSets = new WeakMap<object, Promise<ProviderSet>>();

  constructor(manifest: readonly ProviderManifestEntry[]) {
    this.entries = [];
    this.known = { names: [], verbs: new Map() };
    for (const entry of manifest) this.addEntry(entry);
  }

  get manifest(): readonly ProviderManifestEntry[] {
    return this.entries;
  }

  /**
   * Adds a provider already loaded (a test's stand-in, a plugin): from then on plans may use its verbs,
   * and capability lookups find what it offers. Its name and verbs must be new.
   */
  register(provider: Provider<any>): void {
    const has = Object.keys(provider.capabilities ?? {}).filter((k) => provider.capabilities?.[k as CapabilityName] !== undefined) as CapabilityName[];
    this.add({ name: provider.name, verbs: provider.verbs.map((v) => v.verb), has, load: async () => provider });
  }

  /**
   * Adds a manifest row at run time (a provider folder found by a plugin, a test's own folder): the same
   * row PROVIDER_MANIFEST holds, loaded as lazily. Its name and verbs must be new; its config section
   * counts from the next config file read (engine/providers/config.ts).
   */
  add(entry: ProviderManifestEntry): void {
    this.addEntry(entry);
    this.sets.clear();
    this.frozenSets = new WeakMap();
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

  /** The original tool's names of the providers and their verbs (nothing is loaded). */
  formerNames(): FormerNames {
    const providers = new Map<string, string>();
    const verbs = new Map<string, string>();
    for (const e of this.entries) {
      if (!e.formerly) continue;
      providers.set(e.formerly.name, e.name);
      for (const [from, to] of Object.entries(e.formerly.verbs ?? {})) verbs.set(from, to);
    }
    return { providers, verbs };
  }

  /** The names of the providers that offer a capability, from the manifest (nothing is loaded). */
  namesWith(capability: CapabilityName): string[] {
    return this.entries.filter((e) => e.has?.includes(capability)).map((e) => e.name);
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
  async forPlan(input: unknown): Promise<ProviderSet> {
    // A frozen plan (engine/core/plan/frozen.ts: the same list plan on every MCP call) needs the same
    // set every time: its verbs, names and shape are read once, until a provider is added.
    if (!isFrozenPlan(input)) return this.setFor(input);
    const plan = input as object;
    let set = this.frozenSets.get(plan);
    if (!set) {
      set = this.setFor(input);
      this.frozenSets.set(plan, set);
      set.catch(() => this.frozenSets.delete(plan));
    }
    return set;
  }

  private async setFor(input: unknown): Promise<ProviderSet> {
    const [set] = await Promise.all([this.load(this.namedBy(input)), loadPlanChecks(input)]);
    return set;
  }

  /** Every provider of the build (tests, the AI maker whose plans may use any verb). */
  async all(): Promise<ProviderSet> {
    const [set] = await Promise.all([this.load(this.known.names), loadPlanChecks(undefined, true)]);
    return set;
  }

  /** The providers offering a capability, in manifest order, with their capabilities (light modules where there are). */
  async with<K extends CapabilityName>(capability: K): Promise<CapableProvider<K>[]> {
    const named = this.entries.filter((e) => e.has?.includes(capability));
    const found = await Promise.all(named.map(async (e) => ({ name: e.name, capabilities: await this.capabilitiesOf(e) })));
    const capable = found.filter((p) => p.capabilities[capability] !== undefined) as CapableProvider<K>[];
    await readyToAnswer(capability, capable);
    return capable;
  }

  /** One provider's capability, loading only its capabilities; undefined when it has not got it. */
  async one<K extends CapabilityName>(capability: K, name: string): Promise<CapableProvider<K> | undefined> {
    const entry = this.entries.find((e) => e.name === name && e.has?.includes(capability));
    if (!entry) return undefined;
    const capabilities = await this.capabilitiesOf(entry);
    if (capabilities[capability] === undefined) return undefined;
    const capable = { name, capabilities } as CapableProvider<K>;
    await readyToAnswer(capability, [capable]);
    return capable;
  }

  private capabilitiesOf(entry: ProviderManifestEntry): Promise<ProviderCapabilities> {
    let p = this.capabilityLoads.get(entry.name);
    if (!p) {
      p = entry.capabilities ? entry.capabilities() : this.provider(entry.name).then((provider) => provider.capabilities ?? {});
      p.catch(() => this.capabilityLoads.delete(entry.name));
      this.capabilityLoads.set(entry.name, p);
    }
    return p;
  }

  private addEntry(entry: ProviderManifestEntry): void {
    if (this.known.names.includes(entry.name)) throw new Error(`provider ${entry.name} is registered already`);
    for (const verb of entry.verbs) if (this.known.verbs.has(verb)) throw new Error(`step verb ${verb} belongs to ${this.known.verbs.get(verb)} already`);
    this.entries.push(entry);
    this.known.names.push(entry.name);
    for (const verb of entry.verbs) this.known.verbs.set(verb, entry.name);
  }

  private provider(name: string): Promise<Provider<any>> {
    let p = this.loading.get(name);
    if (!p) {
      const entry = this.entries.find((e) => e.name === name)!;
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

/**
 * An `answer` lookup loads the joint answerers its providers name (engine/core/joint-answerers.ts): their
 * synchronous `answer` then finds its parser, and no other lookup loads it.
 */
async function readyToAnswer(capability: CapabilityName, found: readonly { capabilities: ProviderCapabilities }[]): Promise<void> {
  if (capability !== 'answer') return;
  await loadJointAnswerers(found.flatMap((p) => (p.capabilities.answer?.joint ? [p.capabilities.answer.joint] : [])));
}

/** This build's providers. */
export const PROVIDERS = new ProviderRegistry(PROVIDER_MANIFEST);

/** Every provider loaded (tests and tools that validate arbitrary plans synchronously). */
export function allProviders(): Promise<ProviderSet> {
  return PROVIDERS.all();
}

/**
 * Registers a provider at run time (a test's stand-in, a plugin): from then on plans may use its verbs,
 * and the commands that ask "who can do X" (ask, credentials test) find its capabilities.
 */
export function registerProvider(provider: Provider<any>): void {
  PROVIDERS.register(provider);
}

/** The providers with a capability, in registry order (commands ask this instead of naming providers). */
export function providersWith<K extends CapabilityName>(capability: K): Promise<CapableProvider<K>[]> {
  return PROVIDERS.with(capability);
}

/** One provider with a capability (only its capabilities load), or undefined when it has not got it. */
export function providerWith<K extends CapabilityName>(capability: K, name: string): Promise<CapableProvider<K> | undefined> {
  return PROVIDERS.one(capability, name);
}

/** The providers questions can be routed to, with their words (engine/core/routing/). */
export async function providerRoutings(): Promise<ProviderRouting[]> {
  return (await providersWith('routing')).map((p) => ({ provider: p.name, routing: p.capabilities.routing }));
}

/**
 * The providers questions can be routed to and their `ask` flag (`--cloud-a`), from the manifest alone:
 * registering a command's flags loads no provider. A routing capability's own `flag` is checked against
 * this by test/core/providers.registry.test.ts.
 */
export function routableProviders(): { provider: string; flag: string }[] {
  return PROVIDERS.namesWith('routing').map((provider) => ({ provider, flag: askFlag(provider) }));
}

const askFlag = (provider: string) => provider.replace(/_/g, '-');

/** The original tool's `ask` flags of the routable providers that had another name there (`--aws` for `--cloud-a`). */
export function formerAskFlags(): { provider: string; flag: string; former: string }[] {
  return PROVIDERS.manifest.filter((e) => e.formerly && e.has?.includes('routing')).map((e) => ({ provider: e.name, flag: askFlag(e.name), former: e.formerly!.name }));
}

/**
 * The providers this build knows. Surfaces (commands/, the MCP server) hand this set to validation and
 * to every run; the plan core never imports it. A new provider is one folder and one line here.
 */
import { ProviderSet, type Provider } from './provider.js';
import type { ProviderCapabilities } from './capabilities.js';
import type { ProviderRouting } from './routing/terms.js';
import { gpucloudProvider } from './gpucloud/provider.js';
import { sshProvider } from './ssh/provider.js';
import { cloudAProvider } from './cloud_a/provider.js';
import { k8sProvider } from './k8s/provider.js';
import { cloudBProvider } from './cloud_b/provider.js';
import { cloudCProvider } from './cloud_c/provider.js';
import { postgresProvider } from './postgres/provider.js';
import { terraformProvider } from './terraform/provider.js';

export const PROVIDERS = new ProviderSet([gpucloudProvider, cloudAProvider, cloudBProvider, cloudCProvider, k8sProvider, sshProvider, postgresProvider, terraformProvider]);

/**
 * Registers a provider at run time (a test's stand-in, a plugin): from then on plans may use its verbs,
 * and the commands that ask "who can do X" (ask, credentials test) find its capabilities.
 */
export function registerProvider(provider: Provider<any>): void {
  PROVIDERS.add(provider);
}

/** The providers with a capability, in registry order (commands ask this instead of naming providers). */
export function providersWith<K extends keyof ProviderCapabilities>(capability: K): (Provider<any> & { capabilities: Required<Pick<ProviderCapabilities, K>> })[] {
  return PROVIDERS.list.filter((p) => p.capabilities?.[capability] !== undefined) as never;
}

/** The providers questions can be routed to, with their words (engine/routing/). */
export function providerRoutings(): ProviderRouting[] {
  return providersWith('routing').map((p) => ({ provider: p.name, routing: p.capabilities.routing }));
}

/**
 * The capabilities every CLI cloud gets from its read catalogue (engine/core/kits/cli/reads.ts): routing by its
 * names and service words, the context reads a question needs, and answers without a model. A cloud
 * supplies its names, its specific words and its catalogue.
 */
import type { Config } from '../../../../schemas/config.js';
import type { ProviderCapabilities, RouteWord } from '../../capabilities.js';
import type { CliReadCatalogue } from './reads.js';

export interface CliCapabilitySpec {
  /** `cloud_a/` etc.: the prefix of each read's label in the AI prompt. */
  provider: string;
  names: readonly string[];
  specific: readonly string[];
  catalogue: CliReadCatalogue;
  /** Words of the catalogue also route (generic: a word gpucloud declares first stays gpucloud's). */
  routeByResourceWords?: boolean;
  /** The label of its data in the prompt. */
  label: string;
  /** Extra service words from the config (service → words), for routing and for choosing reads. */
  keywords?(config: Config): Record<string, string[]> | undefined;
}

export function cliCapabilities(spec: CliCapabilitySpec): ProviderCapabilities {
  const generic: RouteWord[] = spec.routeByResourceWords ? spec.catalogue.reads.flatMap((r) => r.words) : [];
  return {
    routing: {
      names: spec.names,
      specific: spec.specific,
      generic,
      fromConfig: spec.keywords ? (config) => Object.entries(spec.keywords!(config) ?? {}).flatMap(([service, words]) => [service, ...(words ?? [])]) : undefined,
    },
    reads: {
      label: spec.label,
      contextReads(question, { config }) {
        const reads = spec.catalogue.readsFor(question, spec.keywords?.(config));
        return { commands: reads.map((r) => ({ args: [...r.args], reason: `context: ${r.label}` })), kinds: reads.map((r) => `${spec.provider}/${r.service}`) };
      },
    },
    answer: {
      answer(question, results) {
        const parts = spec.catalogue.answer(question, results);
        return parts.length ? parts.join('\n') : undefined;
      },
    },
  };
}

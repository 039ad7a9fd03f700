/**
 * The vocabulary of question routing, made from the providers' `routing` capabilities
 * (engine/core/capabilities.ts): routing names no provider of its own. Strength: a `name`, a `specific`
 * word or a pattern selects a provider outright; `generic` words ("instances", "volumes", "price")
 * select their providers only when no provider was named or implied outright, and a generic word
 * several providers declare belongs to the first of them in registry order.
 */
import type { Config } from '../../../schemas/config.js';
import type { RoutingCapability, RouteWord } from '../capabilities.js';
import type { TermSpec } from './match.js';

export type Strength = 'name' | 'specific' | 'generic';

export interface RouteTerm {
  provider: string;
  strength: Strength;
  /** What the term asks about in its provider (a gpucloud catalogue kind, …). */
  kind?: string;
}

/** A provider that can be asked about, with its words. */
export interface ProviderRouting {
  provider: string;
  routing: RoutingCapability;
}

/** The `ask` flag of a provider (`cloud-a` for `--cloud-a`). */
export function routingFlag(r: ProviderRouting): string {
  return r.routing.flag ?? r.provider.replace(/_/g, '-');
}

const wordOf = (w: RouteWord) => (typeof w === 'string' ? { term: w } : w);

/** All routing terms of these providers; `config` adds what a provider takes from it (its `fromConfig` words). */
export function routeTerms(routings: readonly ProviderRouting[], config?: Partial<Config>): TermSpec<RouteTerm>[] {
  const specs: TermSpec<RouteTerm>[] = [];
  const seen = new Set<string>();
  const add = (term: string, data: RouteTerm, pattern?: RegExp) => {
    const t = term.trim().toLowerCase();
    if (!t) return;
    const key = `${t}|${data.provider}|${data.kind ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    specs.push({ term: t, data, pattern });
  };
  for (const { provider, routing } of routings) {
    for (const n of routing.names) add(n, { provider, strength: 'name' });
    for (const w of routing.specific.map(wordOf)) add(w.term, { provider, strength: 'specific', kind: w.kind });
    for (const p of routing.patterns ?? []) add(p.label, { provider, strength: 'specific', kind: p.kind }, new RegExp(p.pattern.source, p.pattern.flags));
    for (const w of (config ? (routing.fromConfig?.(config as Config) ?? []) : []).map(wordOf)) add(w.term, { provider, strength: 'specific', kind: w.kind });
  }
  // Generic words after every provider's specific ones. A generic word two providers share ("instances")
  // belongs to the first in registry order (gpucloud's): the other is chosen by its own words ("ec2").
  // A later provider's generic word is skipped too when it is a single word that an earlier provider
  // uses in any of its words ("serverless" of "serverless containers"), or a phrase holding a technology
  // an earlier provider shares ("k8s clusters"); other phrases ("a records") are judged whole.
  const owner = new Map<string, string>();
  const earlierParts = new Set<string>();
  const earlierShared = new Set<string>();
  const partsOf = (t: string) => t.toLowerCase().split(/[\s_/-]+/).filter(Boolean);
  for (const { provider, routing } of routings) {
    if (routing.genericWhen && !(config && routing.genericWhen(config as Config))) continue;
    for (const w of (routing.generic ?? []).map(wordOf)) {
      const t = w.term.trim().toLowerCase();
      if ((owner.get(t) ?? provider) !== provider) continue;
      const parts = partsOf(t);
      if (!owner.has(t) && (parts.length === 1 ? earlierParts.has(parts[0]!) : parts.some((p) => earlierShared.has(p)))) continue;
      owner.set(t, provider);
      add(w.term, { provider, strength: 'generic', kind: w.kind });
    }
    const own = [...routing.names, ...routing.specific.map((w) => wordOf(w).term), ...(routing.generic ?? []).map((w) => wordOf(w).term), ...(routing.shared ?? [])];
    for (const t of own) for (const p of partsOf(t)) earlierParts.add(p);
    for (const t of routing.shared ?? []) for (const p of partsOf(t)) earlierShared.add(p);
  }
  return specs;
}

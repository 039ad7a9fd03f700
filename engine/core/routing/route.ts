/**
 * Question routing (SPEC 1, 4.2): which providers a question is about, and which things of theirs it
 * asks about (the kinds for its context). Explicit provider flags win over inference; several flags give
 * a combined view; nothing matched → `infra.default_provider`, or else the provider whose routing says it is
 * the default (else the first routable one). The vocabulary comes from the providers' `routing` capabilities.
 */
import type { Config } from '../../../schemas/config.js';
import { UsageError } from '../errors.js';
import { TermMatcher, type TermMatch } from './match.js';
import { routeTerms, routingFlag, type ProviderRouting, type RouteTerm } from './terms.js';

export type { ProviderRouting };

/** The config routing reads: `infra.default_provider`, and what each provider's routing takes from it (a part is enough). */
export type RoutingConfig = Partial<Config>;

export interface RouteReason {
  provider: string;
  /** Terms of the question that point at the provider, as written. */
  terms: string[];
  /** Why the provider was chosen when it was not by terms (flag, default). */
  note?: string;
}

export interface RouteDecision {
  providers: string[];
  reasons: RouteReason[];
  /** What the question asks about in the chosen providers (kinds), in question order. */
  kinds: string[];
  /** True when nothing in the question or flags chose a provider and the default was used. */
  defaulted: boolean;
}

export interface RouteOptions {
  /** Provider flags given on the command line, as provider names, e.g. ['gpucloud', 'cloud_a']. */
  flags?: string[];
  config?: RoutingConfig;
  /** The providers that can be asked about (the registry's `routing` capabilities), in registry order. */
  routings: readonly ProviderRouting[];
}

const matchers = new WeakMap<readonly ProviderRouting[], WeakMap<object, TermMatcher<RouteTerm>>>();
const NO_CONFIG = {};

function matcherFor(routings: readonly ProviderRouting[], config?: RoutingConfig): TermMatcher<RouteTerm> {
  let byConfig = matchers.get(routings);
  if (!byConfig) matchers.set(routings, (byConfig = new WeakMap()));
  const key = config ?? NO_CONFIG;
  let m = byConfig.get(key);
  if (!m) byConfig.set(key, (m = new TermMatcher(routeTerms(routings, config))));
  return m;
}

function uniq<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

/** The term matches of a question (exported for tests and for `assistant_route_question`). */
export function questionTerms(question: string, routings: readonly ProviderRouting[], config?: RoutingConfig): TermMatch<RouteTerm>[] {
  return matcherFor(routings, config).match(question);
}

export function routeQuestion(question: string, options: RouteOptions): RouteDecision {
  const { routings } = options;
  const known = routings.map((r) => r.provider);
  const flags = uniq((options.flags ?? []).map((f) => f.trim()).filter(Boolean));
  for (const f of flags) {
    if (!known.includes(f)) throw new UsageError(`unknown provider flag --${f.replace(/_/g, '-')}`, { hint: `provider flags: ${routings.map((r) => `--${routingFlag(r)}`).join(', ')}` });
  }
  const matches = questionTerms(question, routings, options.config);
  const termsOf = (provider: string, strengths?: string[]) =>
    uniq(matches.filter((m) => m.data.provider === provider && (!strengths || strengths.includes(m.data.strength))).map((m) => m.text));
  const kindsFor = (providers: string[]) => uniq(matches.filter((m) => providers.includes(m.data.provider) && m.data.kind).map((m) => m.data.kind!));

  if (flags.length) {
    return {
      providers: flags,
      reasons: flags.map((p) => ({ provider: p, terms: termsOf(p), note: `selected by the --${p.replace(/_/g, '-')} flag` })),
      kinds: kindsFor(flags),
      defaulted: false,
    };
  }

  // Providers named or implied by their own words, in order of first mention; else those of the generic words.
  const strong = uniq(matches.filter((m) => m.data.strength !== 'generic').map((m) => m.data.provider));
  const providers = strong.length ? strong : uniq(matches.map((m) => m.data.provider));
  if (providers.length) {
    return {
      providers,
      reasons: providers.map((p) => ({ provider: p, terms: termsOf(p) })),
      kinds: kindsFor(providers),
      defaulted: false,
    };
  }

  const configured = options.config?.infra?.default_provider;
  const declared = routings.find((r) => r.routing.default)?.provider ?? known[0];
  if (!declared) throw new UsageError('no provider can answer questions in this build');
  const fallback = configured && known.includes(configured) ? configured : declared;
  return {
    providers: [fallback],
    reasons: [
      {
        provider: fallback,
        terms: [],
        note: configured
          ? `no provider named or implied by the question; using infra.default_provider (${configured})`
          : `no provider named or implied by the question and infra.default_provider is not set; using ${fallback}`,
      },
    ],
    kinds: [],
    defaulted: true,
  };
}

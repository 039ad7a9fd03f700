/**
 * Question routing (SPEC 1, 4.2): which providers a question is about, and which gpucloud resource
 * kinds (for the context to fetch). Explicit provider flags win over inference; several flags give a
 * combined view; nothing matched → `infra.default_provider`, or gpucloud when that is unset.
 */
import { UsageError } from '../errors.js';
import { findKind } from '../gpucloud/catalogue.js';
import { TermMatcher, type TermMatch } from './match.js';
import { ROUTE_PROVIDERS, routeTerms, type RouteProvider, type RouteTerm } from './terms.js';

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
  /** gpucloud resource kinds the question is about (catalogue kind names), in question order. */
  kinds: string[];
  /** True when nothing in the question or flags chose a provider and the default was used. */
  defaulted: boolean;
}

/** The parts of the config routing reads (a full Config fits). */
export interface RoutingConfig {
  infra?: { default_provider?: string };
  cloud_a?: { service_keywords?: Record<string, string[]> };
}

export interface RouteOptions {
  /** Provider flags given on the command line, e.g. ['gpucloud', 'cloud_a']. */
  flags?: string[];
  config?: RoutingConfig;
}

const matcherCache = new WeakMap<object, TermMatcher<RouteTerm>>();
let plainMatcher: TermMatcher<RouteTerm> | undefined;

function matcherFor(config?: RoutingConfig): TermMatcher<RouteTerm> {
  const keywords = config?.cloud_a?.service_keywords;
  if (!keywords) return (plainMatcher ??= new TermMatcher(routeTerms()));
  let m = matcherCache.get(keywords);
  if (!m) {
    m = new TermMatcher(routeTerms(keywords));
    matcherCache.set(keywords, m);
  }
  return m;
}

function uniq<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

export function isRouteProvider(value: string): value is RouteProvider {
  return (ROUTE_PROVIDERS as readonly string[]).includes(value);
}

/** The term matches of a question (exported for tests and for `assistant_route_question`). */
export function questionTerms(question: string, config?: RoutingConfig): TermMatch<RouteTerm>[] {
  return matcherFor(config).match(question);
}

export function routeQuestion(question: string, options: RouteOptions = {}): RouteDecision {
  const flags = uniq((options.flags ?? []).map((f) => f.trim()).filter(Boolean));
  for (const f of flags) {
    if (!isRouteProvider(f)) throw new UsageError(`unknown provider flag --${f}`, { hint: `provider flags: ${ROUTE_PROVIDERS.map((p) => `--${p}`).join(', ')}` });
  }
  const matches = questionTerms(question, options.config);
  const termsOf = (provider: string, strengths?: string[]) =>
    uniq(matches.filter((m) => m.data.provider === provider && (!strengths || strengths.includes(m.data.strength))).map((m) => m.text));
  const kindsFor = (providers: string[]) =>
    providers.includes('gpucloud')
      ? uniq(matches.filter((m) => m.data.provider === 'gpucloud' && m.data.kind).flatMap((m) => [m.data.kind!, ...(findKind(m.data.kind!)?.readWith ?? [])]))
      : [];

  if (flags.length) {
    return {
      providers: flags,
      reasons: flags.map((p) => ({ provider: p, terms: termsOf(p), note: `selected by the --${p} flag` })),
      kinds: kindsFor(flags),
      defaulted: false,
    };
  }

  // Providers named or implied by their own words, in order of first mention; then gpucloud's resource
  // words; then the resource words of another provider's catalogue ("which buckets do I have").
  const strong = uniq(matches.filter((m) => m.data.strength === 'name' || m.data.strength === 'specific').map((m) => m.data.provider as string));
  let providers = strong;
  // Without a named provider, gpucloud's words and other catalogues' resource words each pick theirs:
  // "show my queues and my instances" is about both.
  if (!providers.length) providers = uniq(matches.filter((m) => m.data.provider === 'gpucloud' || m.data.strength === 'resource').map((m) => m.data.provider as string));
  if (providers.length) {
    return {
      providers,
      reasons: providers.map((p) => ({ provider: p, terms: termsOf(p, strong.includes(p) && p !== 'gpucloud' ? ['name', 'specific'] : undefined), ...(strong.includes(p) || p === 'gpucloud' ? {} : { note: `a resource word of ${p}'s catalogue` }) })),
      kinds: kindsFor(providers),
      defaulted: false,
    };
  }

  const configured = options.config?.infra?.default_provider;
  const fallback = configured && isRouteProvider(configured) ? configured : 'gpucloud';
  return {
    providers: [fallback],
    reasons: [
      {
        provider: fallback,
        terms: [],
        note: configured
          ? `no provider named or implied by the question; using infra.default_provider (${configured})`
          : 'no provider named or implied by the question and infra.default_provider is not set; using gpucloud',
      },
    ],
    kinds: [],
    defaulted: true,
  };
}

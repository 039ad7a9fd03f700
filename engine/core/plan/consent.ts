/**
 * What a person is asked to consent to before a plan is applied (DESIGN §8: consent from the request):
 * per change step, its method and path, what its canonical body asks for (kind, type, size, count or
 * replicas) and the price computed from it — never the plan's own words, which a model wrote. The plan's
 * `reason` comes after, as "the plan says: …", flagged when it names another type, size, count or price
 * than the request. One renderer for every surface: the CLI prompt, talk's /apply, the ACP permission
 * request, a box's answer and the MCP tools.
 */
import type { ChangePrice, RequestFacts, StepClass, StepPrice } from '../provider.js';
import { formatAmount, formatRate } from '../render/money.js';

export interface StepConsent {
  step: number;
  /** `POST /v1/instances`, from the canonical request. */
  request: string;
  effect: StepClass['effect'];
  kind?: string;
  /** What the request asks for, read from its body (empty for reads, and for providers that read no facts). */
  asks: string[];
  /** Its price (undefined for reads). */
  price?: ChangePrice;
  /** The plan's own words. */
  reason: string;
  /** Where those words name another type, size, count or price than the request. */
  mismatch: string[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `word` as a whole token of `text` (type names hold dots and digits: `1V100.6V` is not in `81V100.6V`). */
const names = (text: string, word: string) => new RegExp(`(?<![A-Za-z0-9._-])${escape(word)}(?![A-Za-z0-9_-]|\\.[A-Za-z0-9])`, 'i').test(text);

/**
 * Where the plan's words disagree with its request: a type of the catalogue the request does not ask
 * for, a size in GB or TB it does not ask for, a count of replicas or instances, or an hourly price
 * below the computed one.
 */
export function reasonMismatch(reason: string, facts: RequestFacts | undefined, price: ChangePrice | undefined): string[] {
  const out: string[] = [];
  if (facts) {
    const asked = new Set(facts.types.map((t) => t.toLowerCase()));
    const other = facts.known_types.filter((t) => !asked.has(t.toLowerCase()) && names(reason, t));
    if (other.length) out.push(`it names ${other.join(', ')}; the request asks for ${facts.types.join(', ') || 'no type'}`);
    if (facts.sizes_gb.length) {
      for (const m of reason.matchAll(/(?<![\w.])(\d+(?:\.\d+)?)\s*(GB|GiB|TB|TiB)\b/gi)) {
        const gb = Number(m[1]) * (/^t/i.test(m[2]!) ? 1000 : 1);
        if (!facts.sizes_gb.includes(gb)) out.push(`it says ${m[0]}; the request asks for ${facts.sizes_gb.map((s) => `${s} GB`).join(', ')}`);
      }
    }
    if (facts.counts.length) {
      for (const m of reason.matchAll(/(?<![\w.])(\d+)\s*(replicas?|instances?|nodes?|machines?|gpus?)\b/gi)) {
        if (/^gpu/i.test(m[2]!)) continue;
        if (!facts.counts.includes(Number(m[1]))) out.push(`it says ${m[0]}; the request asks for ${facts.counts.join(' to ')}`);
      }
    }
  }
  if (price?.price === 'priced') {
    for (const m of reason.matchAll(/(?:\$\s*)?(?<![\w.])(\d+(?:\.\d+)?)\s*(?:USD|EUR|\$)?\s*(?:\/|per\s+|an?\s+)\s*(?:h|hr|hour)\b/gi)) {
      const said = Number(m[1]);
      if (said < price.per_hour * 0.99 - 0.005) out.push(`it says ${m[0].trim()}; the request is priced at ${formatRate(price.per_hour)}/hour`);
    }
  }
  if (price?.price === 'free' || price?.price === 'unpriced') {
    // A reason that promises "free" or a price for a change no one priced is not taken at its word either.
    if (price.price === 'unpriced' && /\b(?:free|no cost|costs nothing|\d+(?:\.\d+)?\s*(?:\/|per\s+)\s*h(?:ou)?r?)\b/i.test(reason)) out.push(`it states a price; no price is known for the request`);
  }
  return out;
}

/** The consent of every step of a plan, from its classes, described requests and prices. */
export function stepConsents(
  steps: readonly { index: number; request: string; class: StepClass; reason: string }[],
  prices: ReadonlyMap<number, StepPrice>,
): StepConsent[] {
  return steps.map((s) => {
    const p = prices.get(s.index);
    const change = s.class.effect !== 'read';
    const price = change ? (p?.price ?? { price: 'unpriced', why: 'no provider priced it' }) : undefined;
    return {
      step: s.index,
      request: s.request,
      effect: s.class.effect,
      ...(s.class.kind ? { kind: s.class.kind } : {}),
      asks: change ? (p?.facts?.lines ?? []) : [],
      ...(price ? { price } : {}),
      reason: s.reason,
      mismatch: change ? reasonMismatch(s.reason, p?.facts, price) : [],
    };
  });
}

const money = (n: number, currency: string) => `${formatRate(n)} ${currency.toUpperCase()}/hour (${formatAmount(n * 720)} per 30 days)`;

/** One line for a price: what it costs, that it is free and why, or that it is not known and why. */
export function describePrice(price: ChangePrice, currency: string): string {
  if (price.price === 'priced') return price.per_hour < 0 ? `saves ${money(-price.per_hour, currency)}` : `adds ${money(price.per_hour, currency)}`;
  if (price.price === 'free') return `free (${price.why})`;
  return `NOT KNOWN (${price.why}); a budget refuses it without --allow-unpriced`;
}

/**
 * The consent as lines: per change step its request, what it asks for, its price, then the plan's words
 * (flagged when they disagree); reads in one line each. The same text on every surface.
 */
export function renderConsent(consents: readonly StepConsent[], currency: string): string[] {
  const lines: string[] = [];
  for (const c of consents) {
    if (c.effect === 'read') {
      lines.push(`  ${c.step}. ${c.request} (read)`);
      continue;
    }
    lines.push(`  ${c.step}. ${c.request} (${c.effect}${c.kind ? ` of ${c.kind}` : ''}${c.effect === 'destroy' ? ', DESTRUCTIVE' : ''})`);
    if (c.asks.length) lines.push(`     asks for: ${c.asks.join('; ')}`);
    if (c.price) lines.push(`     price: ${describePrice(c.price, currency)}`);
    lines.push(`     the plan says: ${c.reason}`);
    if (c.mismatch.length) lines.push(`     ! the plan's words do not match the request: ${c.mismatch.join('; ')}`);
  }
  const total = consents.reduce((s, c) => s + (c.price?.price === 'priced' ? Math.max(0, c.price.per_hour) : 0), 0);
  const unknown = consents.filter((c) => c.price?.price === 'unpriced').length;
  lines.push(`  in all: ${total > 0 ? `adds ${money(total, currency)}` : 'adds nothing that bills'}${unknown ? `, plus ${unknown} change(s) no price is known for` : ''}`);
  return lines;
}

/**
 * The money and number words of a question, for the built-in answers (question.ts): the period a rate
 * is asked for ("per day", "monthly"), a currency named ("USD", "$"), and comparisons with a number
 * ("more than 2 USD per hour", "at least 2 GPUs"). Only what reads one way is taken: a number with a
 * comma (1,000 or 2,5), a sign (-5), no finite value (1e999) or no unit is returned as a problem, so
 * the answerer declines rather than guess which number was meant.
 */

export type Period = 'hour' | 'day' | 'week' | 'month' | 'year';

/** Hours in each period, as `cost summary` counts them (a month is 30 days). */
export const PERIOD_HOURS: Record<Period, number> = { hour: 1, day: 24, week: 168, month: 720, year: 8760 };

/** How an answer names a period: "per day", "per 30 days" (the month `cost summary` counts). */
export const PERIOD_WORDS: Record<Period, string> = { hour: 'per hour', day: 'per day', week: 'per week', month: 'per 30 days', year: 'per 365 days' };

/** Words that name a period ("hours" in "how many hours will it last" is one too). */
export const PERIOD_OF: Record<string, Period> = {
  hour: 'hour', hours: 'hour', hourly: 'hour', hr: 'hour', hrs: 'hour',
  day: 'day', days: 'day', daily: 'day',
  week: 'week', weeks: 'week', weekly: 'week',
  month: 'month', months: 'month', monthly: 'month',
  year: 'year', years: 'year', yearly: 'year', annually: 'year', annual: 'year',
};

/** Currencies as people write them, by the code the API uses. */
const CURRENCY_OF: Record<string, string> = {
  $: 'usd', usd: 'usd', dollar: 'usd', dollars: 'usd',
  '€': 'eur', eur: 'eur', euro: 'eur', euros: 'eur',
  '£': 'gbp', gbp: 'gbp', pound: 'gbp', pounds: 'gbp',
};

export const currencyOf = (word: string): string | undefined => CURRENCY_OF[word.toLowerCase()];

export type Operator = 'gt' | 'lt' | 'ge' | 'le';

export const OPERATOR_WORDS: Record<Operator, string> = { gt: 'more than', lt: 'less than', ge: 'at least', le: 'at most' };

export interface Comparison {
  op: Operator;
  value: number;
  /** 'price': a rate (a currency, a period or a price word goes with it); 'gpus': "more than 2 GPUs"; undefined: no unit yet. */
  of?: 'price' | 'gpus';
  currency?: string;
  /** As written, for answers and declines ("more than 2 USD"). */
  text: string;
  start: number;
  end: number;
}

export interface AmountProblem {
  word: string;
  why: string;
}

/**
 * Comparison words. Not "over", "under", "above", "below": they are places and times as often as
 * amounts ("instances over there", "is my balance above 100?" stays a question they do not know).
 */
const COMPARATORS: [RegExp, Operator][] = [
  [/^(?:more|greater|higher|bigger|larger) than$/i, 'gt'],
  [/^(?:more expensive|pricier|dearer|costlier) than$/i, 'gt'],
  [/^(?:less|lower|fewer|smaller|cheaper) than$/i, 'lt'],
  [/^(?:at least|no less than|not less than)$/i, 'ge'],
  [/^(?:at most|no more than|not more than)$/i, 'le'],
];

const COMPARATOR = new RegExp(
  `(?<![\\p{L}\\p{N}_])(more expensive than|(?:no|not) (?:less|more) than|(?:more|greater|higher|bigger|larger|pricier|dearer|costlier|less|lower|fewer|smaller|cheaper) than|at least|at most)(?![\\p{L}\\p{N}_])`,
  'giu',
);

/** What may follow a comparator: a sign, a currency symbol, the number, a currency word, "GPUs". */
const AMOUNT = /^\s*(?<sign>[-+−–])?\s*(?<pre>[$€£])?\s*(?<num>\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?|\.\d+)(?=$|[\s$€£/?!),;:]|\.(?!\d))\s*(?<post>[$€£]|(?:usd|eur|gbp|dollars?|euros?|pounds?)(?![\p{L}\p{N}_]))?\s*(?<gpus>gpus?(?![\p{L}\p{N}_]))?/iu;

/** Comparisons in `text`, and the parts of them that cannot be read one way (declined). */
export function findComparisons(text: string): { comparisons: Comparison[]; problems: AmountProblem[] } {
  const comparisons: Comparison[] = [];
  const problems: AmountProblem[] = [];
  for (const m of text.matchAll(COMPARATOR)) {
    const words = m[1]!.replace(/\s+/g, ' ');
    const op = COMPARATORS.find(([re]) => re.test(words))?.[1];
    if (!op) continue;
    const start = m.index!;
    const after = text.slice(start + m[0].length);
    const a = AMOUNT.exec(after);
    if (!a?.groups) {
      problems.push({ word: words, why: 'no number follows it' });
      continue;
    }
    const g = a.groups;
    const written = `${words} ${a[0].trim()}`;
    const end = start + m[0].length + a[0].trimEnd().length;
    if (g.sign) {
      problems.push({ word: written, why: 'a signed amount (prices and counts are never below zero; write the number alone)' });
      continue;
    }
    if (g.num!.includes(',')) {
      problems.push({ word: written, why: 'a number with a comma reads two ways (1,000 or 1.000?); write it without one' });
      continue;
    }
    const value = Number(g.num);
    if (!Number.isFinite(value)) {
      problems.push({ word: written, why: 'the number is too large to compare' });
      continue;
    }
    const currency = g.pre ? currencyOf(g.pre) : g.post ? currencyOf(g.post) : undefined;
    if (g.gpus && currency) {
      problems.push({ word: written, why: 'it names a currency and GPUs' });
      continue;
    }
    const priced = /^(?:more expensive|pricier|dearer|costlier|cheaper)/i.test(words);
    const of = g.gpus ? 'gpus' : currency || priced ? 'price' : undefined;
    comparisons.push({ op, value, ...(of ? { of } : {}), ...(currency ? { currency } : {}), text: written, start, end });
  }
  return { comparisons, problems };
}

/** Whether `value` passes the comparison. */
export function compare(value: number, c: Pick<Comparison, 'op' | 'value'>): boolean {
  switch (c.op) {
    case 'gt':
      return value > c.value;
    case 'lt':
      return value < c.value;
    case 'ge':
      return value >= c.value;
    case 'le':
      return value <= c.value;
  }
}

/** "/hour", "/h", "/day": a period written after a slash (the word list drops the slash). */
export const SLASH_PERIOD = /\/\s*(hours?|hr|h|days?|d|weeks?|wk|months?|mo|years?|yr)(?![\p{L}\p{N}_])/giu;
const SLASH_PERIOD_OF: Record<string, Period> = { h: 'hour', hr: 'hour', d: 'day', wk: 'week', mo: 'month', yr: 'year' };
export const slashPeriod = (unit: string): Period | undefined => SLASH_PERIOD_OF[unit.toLowerCase()] ?? PERIOD_OF[unit.toLowerCase()];

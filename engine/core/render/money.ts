/**
 * How prices are written, everywhere (issue 38 §2): every table, the cost commands, dry runs, budgets,
 * consent texts and answers format money here, so one figure reads the same wherever it is shown.
 *
 * - A rate (per hour, or a unit price such as per GB-month) has 4 decimals: a 0.0279/hour instance
 *   read as 0.03 is 7% off, and a 500 GB volume's 0.1389/hour times 720 hours is a real sum.
 * - An amount (a balance, a total, a day's or 30 days' cost) has 2: cents.
 * - A rate in a sentence or a crowded cell (answers, the availability matrix) is short: cents, or 4
 *   decimals below 0.10, so it still never reads 0.0279 as 0.03.
 */

/** A rate: per hour, per GB-month (4 decimals). */
export function formatRate(n: number): string {
  return n.toFixed(4);
}

/** An amount of money: a balance, a total, a period's cost (2 decimals). */
export function formatAmount(n: number): string {
  return n.toFixed(2);
}

/** A rate kept short for a sentence or a matrix cell: cents, or 4 decimals below 0.10. */
export function formatShortRate(n: number): string {
  return n > 0 && n < 0.1 ? formatRate(n) : formatAmount(n);
}


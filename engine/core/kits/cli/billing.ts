/**
 * What the CLI providers' bills (cloud_b's BigQuery export, cloud_c's Cost Management query) share:
 * turning a CLI's "you may not read this" into the permission the account lacks, and which days the
 * cloud may still revise. The bill itself is read through the executor like any read step.
 */
import { AssistantError, OperationError } from '../../errors.js';

/** A CLI failure text meaning the account has no billing access, and what to grant. */
export interface BillingDenial {
  /** Matched against the failed step's message (the CLI's last stderr lines, redacted). */
  test: RegExp;
  /** One sentence naming the missing permission (never the caller's identity, which the CLI prints too). */
  message: (match: RegExpMatchArray) => string;
  /** Which role grants it, and where. */
  hint: string;
  /** The error code (default `billing_access_denied`). */
  code?: string;
}

/**
 * Runs a bill read; a CLI failure that one of `denials` recognises becomes `billing_access_denied`
 * (exit 1: the request was sent and refused) naming the missing permission and the role that grants it.
 * Any other failure is passed on as it is.
 */
export async function readBill<T>(read: () => Promise<T>, denials: readonly BillingDenial[]): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof AssistantError && err.code === 'cli_failed') {
      for (const d of denials) {
        const m = err.message.match(d.test);
        if (m) throw new OperationError(d.code ?? 'billing_access_denied', d.message(m), { hint: d.hint, cause: err });
      }
    }
    throw err;
  }
}

const DAY = 86_400_000;

/**
 * Whether the cloud may still add to a day's cost: today and yesterday (UTC). Both clouds write usage
 * hours after it happens (Google's export and Azure's Cost Management refresh several times a day),
 * so such a day is shown as `estimated`, like a day Cost Explorer has not closed.
 */
export function stillSettling(date: string, now: number): boolean {
  return Date.parse(`${date}T00:00:00Z`) >= Math.floor(now / DAY) * DAY - DAY;
}

/** A number from a CLI's JSON (bq prints every value as a string), 0 when it is none. */
export function amountOf(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : 0;
}

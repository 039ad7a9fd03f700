/**
 * What auto-stop records of a hibernation and what it saved, the same for every provider whose instances
 * hibernate: the ledger (engine/producers/autostop/ledger.ts) writes periods, and the provider's
 * `autostop` capability prices them against its own lists.
 */

/**
 * A time an instance spent hibernated by auto-stop (the ledger): from the
 * hibernate until the restore was sent, or, while none was, until now if the account still lists it
 * hibernated, else until the last time it was seen so (`seen_until`).
 */
export interface HibernationPeriod {
  id: string;
  name: string;
  type: string;
  /** The machine's price when it was hibernated (the instance record's price_per_hour). */
  price_per_hour: number | null;
  from: number;
  restored_at?: number;
  seen_until: number;
  /** Its OS volume: where the API deletes a hibernated instance, the volume kept detached is what is left of it. */
  os_volume_id?: string;
}

export interface HibernationSaving {
  id: string;
  name: string;
  type: string;
  hibernated_at: string;
  until: string;
  still_hibernated: boolean;
  hours: number;
  price_per_hour: number | null;
  saved: number | null;
}

/** What the hibernations saved: each period priced, the total, and what the ones still hibernated save per hour now. */
export interface HibernationSavings {
  periods: HibernationSaving[];
  total: number;
  per_hour_now: number;
}

/**
 * The capacity switch (issue 31): tests set, per instance type and location (and spot), what the
 * emulator does instead of its static availability table (seed.ts):
 * - `available`: the availability check says true and a create is placed;
 * - `sold_out`: the check says false and a create answers 503 service_unavailable;
 * - `lost`: the check says true but a create still answers 503 (capacity gone between the two);
 * - `no_capacity`: the check says true, the create is accepted (202) and the instance ends in
 *   `no_capacity` instead of provisioning (it never runs and never bills).
 * Not persisted: a reset or a restart forgets it.
 */
export const CAPACITY_MODES = ['available', 'sold_out', 'lost', 'no_capacity'] as const;
export type CapacityMode = (typeof CAPACITY_MODES)[number];

export interface CapacitySetting {
  instance_type: string;
  location_code: string;
  /** Default false: the on-demand capacity. */
  is_spot?: boolean;
  /** Omitted: back to the static table. */
  mode?: CapacityMode;
}

const key = (type: string, location: string, spot: boolean) => `${type}\u0000${location}\u0000${spot ? 'spot' : 'on-demand'}`;

export class CapacityTable {
  private readonly modes = new Map<string, CapacityMode>();

  set(s: CapacitySetting): void {
    const k = key(s.instance_type, s.location_code, s.is_spot === true);
    if (s.mode === undefined) this.modes.delete(k);
    else this.modes.set(k, s.mode);
  }

  get(type: string, location: string, spot: boolean): CapacityMode | undefined {
    return this.modes.get(key(type, location, spot));
  }

  clear(): void {
    this.modes.clear();
  }

  /** What the availability check answers: the switch, else the static table's answer. */
  checkSays(type: string, location: string, spot: boolean, table: boolean): boolean {
    const mode = this.get(type, location, spot);
    return mode === undefined ? table : mode !== 'sold_out';
  }

  /** Whether a create is placed (false: 503). */
  createPlaced(type: string, location: string, spot: boolean, table: boolean): boolean {
    const mode = this.get(type, location, spot);
    return mode === undefined ? table : mode === 'available' || mode === 'no_capacity';
  }
}

/**
 * Drift (issue 31 §3): a checked-in plan against the live cloud, per resource. Provider-neutral: each
 * provider with a `drift` hook (engine/core/provider.ts) says what the plan's steps leave behind and how
 * that compares with what its reads find now.
 */

/** `in_sync`: as the plan leaves it; `missing`: the plan makes it and it is not there; `different`:
 * there, but some field differs (or it is there and the plan deletes it); `unowned` (with --all): in
 * the project, and no step of the plan makes or acts on it. */
export type DriftState = 'in_sync' | 'missing' | 'different' | 'unowned';

export interface DriftDifference {
  field: string;
  plan: string;
  live: string;
}

export interface DriftEntry {
  provider: string;
  /** Singular kind (`instance`, `volume`). */
  kind: string;
  name?: string;
  /** The live resource's ID, when there is one. */
  id?: string;
  /** The plan step that makes or last acts on it. */
  step?: number;
  state: DriftState;
  differences: DriftDifference[];
  /** What else is worth knowing (still provisioning, several resources carry the name). */
  note?: string;
}

export interface DriftReport {
  /** True when any resource is not in sync (with --all, unowned ones count too). */
  drift: boolean;
  counts: Record<DriftState, number>;
  resources: DriftEntry[];
  /** Providers of the plan that cannot compare their resources (no drift hook). */
  not_checked: string[];
}

/** The exit code of `plan diff` when drift is found: distinct from 0, 1, 2, 3 and 130, for CI. */
export const DRIFT_EXIT_CODE = 4;

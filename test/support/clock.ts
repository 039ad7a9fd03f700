/**
 * A clock for the emulator (`startEmulator({ clock: clock.now })`) that runs in real time until a test
 * freezes it. Frozen, nothing the emulator derives from time moves (lifecycle steps, billing, token
 * expiry, rate windows) however slow the machine is; `advance` then steps it exactly.
 */
export interface TestClock {
  now: () => number;
  /** Stops time where it is. */
  freeze(): void;
  /** Moves time forward by `ms` (frozen or not). */
  advance(ms: number): void;
  /** Lets time run again from where it stood (the frozen interval never happened). */
  thaw(): void;
}

export function testClock(): TestClock {
  let offset = 0;
  let frozenAt: number | undefined;
  return {
    now: () => frozenAt ?? Date.now() + offset,
    freeze: () => {
      frozenAt ??= Date.now() + offset;
    },
    advance: (ms) => {
      if (frozenAt !== undefined) frozenAt += ms;
      else offset += ms;
    },
    thaw: () => {
      if (frozenAt === undefined) return;
      offset = frozenAt - Date.now();
      frozenAt = undefined;
    },
  };
}

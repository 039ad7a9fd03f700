/**
 * An emulator as a test file's fixture, for tests that drive it (or the client) directly rather than
 * through the CLI (support/cli.ts's withEmulator does that): one for the whole file, reset before each
 * test, or a fresh one per test on a frozen clock.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'uvu';
import { EMULATOR_DEFAULT_SSH_KEY_ID, startEmulator, type Emulator, type EmulatorOptions } from '../../emulator/index.js';
import { emulatorClient, type EmulatorTestClient } from '../../emulator/test-client.js';
import { testClock, type TestClock } from './clock.js';
import { tempDir } from './temp.js';

/** A config file (0600) whose gpucloud section names the emulator's defaults (FIN-01, its default SSH key), then `extra`. */
export function emulatorDefaultsConfig(extra = ''): string {
  const path = join(tempDir('emulator-cfg-'), 'c.yaml');
  writeFileSync(path, `gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n${extra}`, { mode: 0o600 });
  return path;
}

/** One emulator for the file: started before its tests, reset before each, closed after; `use` receives it. */
export function emulatorForFile(suite: Test, options: EmulatorOptions, use: (emu: Emulator) => void): void {
  let emu: Emulator | undefined;
  suite.before(async () => {
    emu = await startEmulator(options);
    use(emu);
  });
  suite.after(async () => {
    await emu?.close();
  });
  suite.before.each(() => emu?.reset());
}

export interface FrozenEmulator {
  emu: Emulator;
  c: EmulatorTestClient;
  clock: TestClock;
}

/**
 * A fresh emulator for each test on a clock that stands still unless the test steps it, so a state
 * asserted right after a create is the state at creation, however slow the machine is.
 */
export function emulatorPerTest(suite: Test, options: Omit<EmulatorOptions, 'clock'>, use: (w: FrozenEmulator) => void): void {
  let emu: Emulator | undefined;
  suite.before.each(async () => {
    const clock = testClock();
    clock.freeze();
    emu = await startEmulator({ ...options, clock: clock.now });
    use({ emu, c: emulatorClient(emu), clock });
  });
  suite.after.each(async () => {
    await emu?.close();
  });
}

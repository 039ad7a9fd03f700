/** Foreground runner for `assistant gpucloud emulate --listen host:port`. */
import { startEmulator } from './start.js';
import type { Emulator, EmulatorOptions } from './types.js';

/** Environment variable the foreground emulator reads its client secret from when none is passed. */
export const EMULATOR_SECRET_ENV = 'GPUCLOUD_EMULATOR_CLIENT_SECRET';

/**
 * Starts the emulator and prints one line:
 * `gpucloud emulator listening on <url> (client_id=<id>) …` plus how to point the CLI at it.
 * The client secret itself is never printed, only where it comes from.
 */
export async function runEmulatorForeground(opts: EmulatorOptions, log: (line: string) => void): Promise<Emulator> {
  const fromEnv = opts.clientSecret === undefined && !!process.env[EMULATOR_SECRET_ENV];
  const emu = await startEmulator({ ...opts, clientSecret: opts.clientSecret ?? process.env[EMULATOR_SECRET_ENV] ?? undefined });
  const secretHint = fromEnv
    ? `GPUCLOUD_CLIENT_SECRET=$${EMULATOR_SECRET_ENV}`
    : opts.clientSecret !== undefined
      ? 'GPUCLOUD_CLIENT_SECRET=<the secret you passed>'
      : `GPUCLOUD_CLIENT_SECRET=<the default emulator secret; set ${EMULATOR_SECRET_ENV} to choose one>`;
  log(
    `gpucloud emulator listening on ${emu.url} (client_id=${emu.clientId}) — use GPUCLOUD_BASE_URL=${emu.url} GPUCLOUD_CLIENT_ID=${emu.clientId} ${secretHint}`,
  );
  return emu;
}

/** Foreground runner for `assistant gpucloud emulate --listen host:port`. */
import { startEmulator } from './start.js';
import { EMULATOR_DEFAULT_CLIENT_SECRET, EMULATOR_SECRET_ENV, type Emulator, type EmulatorOptions } from './types.js';

export { EMULATOR_SECRET_ENV };

/**
 * Starts the emulator and prints one line:
 * `gpucloud emulator listening on <url> (client_id=<id>) …` plus how to point the CLI at it.
 * A chosen client secret is never printed, only where it comes from; the public default is.
 */
export async function runEmulatorForeground(opts: EmulatorOptions, log: (line: string) => void): Promise<Emulator> {
  const fromEnv = opts.clientSecret === undefined && !!process.env[EMULATOR_SECRET_ENV];
  const emu = await startEmulator({ ...opts, clientSecret: opts.clientSecret ?? process.env[EMULATOR_SECRET_ENV] ?? undefined });
  const secretHint = fromEnv
    ? `GPUCLOUD_CLIENT_SECRET=$${EMULATOR_SECRET_ENV}`
    : opts.clientSecret !== undefined
      ? 'GPUCLOUD_CLIENT_SECRET=<the secret you passed>'
      : // The default secret is public (README, --help) and opens only this local fake, so it is shown.
        `GPUCLOUD_CLIENT_SECRET=${EMULATOR_DEFAULT_CLIENT_SECRET}`;
  log(
    `gpucloud emulator listening on ${emu.url} (client_id=${emu.clientId}) — use GPUCLOUD_BASE_URL=${emu.url} GPUCLOUD_CLIENT_ID=${emu.clientId} ${secretHint}`,
  );
  return emu;
}

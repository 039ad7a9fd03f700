/**
 * gpucloud under `--sandbox`: the emulator (emulator/), in this process and without a socket, its state
 * in the sandbox's directory (state.json) so what a run creates is there in the next; the client keeps
 * the emulator's token there too. Plans get the emulator's own SSH key and location where the config
 * names none, so the sandbox works without a config file.
 */
import { join } from 'node:path';
import type { SandboxCapability } from '../../core/capabilities.js';

/** The emulator's location every sandbox plan defaults to. */
const SANDBOX_LOCATION = 'FIN-01';

export const gpucloudSandbox: SandboxCapability = {
  async start(dir) {
    // start.js, not the package index (which also loads the foreground runner of `gpucloud emulate`).
    const { startEmulator } = await import('../../../emulator/start.js');
    // In process, without a socket: the sandbox starts with nothing a read does not need (issue 25).
    const emulator = await startEmulator({ stateFile: join(dir, 'state.json'), seed: 'demo', clusterIp: '127.0.0.1', localAddresses: true, listen: false });
    return {
      baseUrl: emulator.url,
      credentials: { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
      fetch: emulator.fetch,
      tokenCacheDir: join(dir, 'tokens'),
      close: () => emulator.close(),
    };
  },
  async defaults() {
    const { EMULATOR_DEFAULT_SSH_KEY_ID } = await import('../../../emulator/fixtures.js');
    return { DEFAULT_SSH_KEY_ID: EMULATOR_DEFAULT_SSH_KEY_ID, DEFAULT_LOCATION: SANDBOX_LOCATION };
  },
};

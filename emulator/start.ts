/** Starts an emulator server and wraps it in the public `Emulator` handle. */
import { EmulatorServer } from './server.js';
import { resolveOptions, type Emulator, type EmulatorOptions } from './types.js';

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const resolved = resolveOptions(opts);
  const server = new EmulatorServer(resolved);
  if (opts.listen === false) server.inProcess();
  else await server.listen();
  return {
    url: server.url,
    port: server.port,
    clientId: resolved.clientId,
    clientSecret: resolved.clientSecret,
    addFault: (f) => server.addFault(f),
    clearFaults: () => server.faults.clear(),
    requests: () => server.requests(),
    stats: () => server.stats(),
    setBalance: (amount) => server.setBalance(amount),
    setCapacity: (setting) => server.setCapacity(setting),
    reset: () => server.reset(),
    close: () => server.close(),
    fetch: server.fetch,
  };
}

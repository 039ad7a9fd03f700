/**
 * The emulator in a process of its own, for benchmarks that split CPU time by part (issue 25): the
 * API's share of each call is then this process's CPU time, not mixed into the server's.
 * Parent side: startEmulatorProcess(); child side: this file run with fork().
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EmulatorOptions, FaultSpec } from '../emulator/index.js';

type ToChild = { type: 'cpu' } | { type: 'fault'; spec: FaultSpec } | { type: 'close' };
type FromChild = { type: 'ready'; url: string; clientId: string; clientSecret: string } | { type: 'cpu'; us: number } | { type: 'ok' } | { type: 'error'; message: string };

export interface EmulatorProcess {
  url: string;
  clientId: string;
  clientSecret: string;
  /** CPU time (user + system, µs) the emulator process has used so far. */
  cpuUs(): Promise<number>;
  addFault(spec: FaultSpec): Promise<void>;
  close(): Promise<void>;
}

function ask(child: ChildProcess, msg: ToChild): Promise<FromChild> {
  return new Promise((resolve) => {
    child.once('message', (m: FromChild) => resolve(m));
    child.send(msg);
  });
}

export async function startEmulatorProcess(opts: EmulatorOptions): Promise<EmulatorProcess> {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(opts)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ready = await new Promise<FromChild>((resolve, reject) => {
    child.once('message', (m: FromChild) => resolve(m));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`emulator process exited (${code})`)));
  });
  if (ready.type !== 'ready') throw new Error(`emulator process: ${JSON.stringify(ready)}`);
  return {
    url: ready.url,
    clientId: ready.clientId,
    clientSecret: ready.clientSecret,
    cpuUs: async () => ((await ask(child, { type: 'cpu' })) as { us: number }).us,
    addFault: async (spec) => void (await ask(child, { type: 'fault', spec })),
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ type: 'close' } satisfies ToChild);
      await exited;
    },
  };
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const { startEmulator } = await import('../emulator/index.js');
  const emu = await startEmulator(JSON.parse(process.argv[2] ?? '{}') as EmulatorOptions);
  const reply = (m: FromChild) => process.send!(m);
  process.on('message', (m: ToChild) => {
    if (m.type === 'cpu') {
      const u = process.cpuUsage();
      reply({ type: 'cpu', us: u.user + u.system });
    } else if (m.type === 'fault') {
      emu.addFault(m.spec);
      reply({ type: 'ok' });
    } else if (m.type === 'close') {
      void emu.close().then(() => process.exit(0));
    }
  });
  reply({ type: 'ready', url: emu.url, clientId: emu.clientId, clientSecret: emu.clientSecret });
}

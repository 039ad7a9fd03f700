/**
 * What the support servers (postgres, redis, moto, git) share to start: a free loopback port, a check
 * that something accepts connections on one, and where a program is on PATH.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';

/** A free TCP port on 127.0.0.1 (the OS picks one; it is closed again before it is used). */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * Starts a server on a free port, and on a fresh port again when it fails: the port is free when it is
 * picked, but anything on the machine (another test file's server, an outgoing connection) may take it
 * before a slow-starting server binds it. `start` must fail, not hang, when its server exits.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (attempt >= attempts) throw err;
    }
  }
}

/** Whether something on 127.0.0.1:`port` accepts a connection now. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/** The path of `program` on PATH, or undefined. */
export function onPath(program: string): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', program], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path ? path : undefined;
}

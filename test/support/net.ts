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

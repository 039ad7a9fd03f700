/**
 * A real `redis-server` (Debian package) on a free loopback port for the shared rate-limit tests.
 * Where redis-server is missing, the tests that need it skip visibly with the reason (redisMissing, and
 * test/support/skip.ts); CI installs it (.ci/run), so there they always run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accepts, onFreePort, onPath } from './net.js';

export interface RedisProcess {
  port: number;
  url: string;
  /** kill -9: the server vanishes mid-run. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

const findRedisServer = () => onPath('redis-server');

/** Why redis tests cannot run here (the skip reason), or undefined when redis-server is on PATH. */
export function redisMissing(): string | undefined {
  return findRedisServer() ? undefined : 'redis-server not installed (apt-get install -y redis-server; .ci/run does this)';
}

function redisServerPath(): string {
  const path = findRedisServer();
  if (!path) throw new Error(`${redisMissing()}: the shared rate-limit tests need it`);
  return path;
}

/** Starts redis-server without persistence; `password` sets requirepass (the URL carries it). */
export async function startRedis(opts: { password?: string } = {}): Promise<RedisProcess> {
  const bin = redisServerPath();
  return onFreePort((port) => startRedisOn(bin, port, opts));
}

async function startRedisOn(bin: string, port: number, opts: { password?: string }): Promise<RedisProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  if (opts.password) args.push('--requirepass', opts.password);
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < 200 && !(await accepts(port)); i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (child.exitCode !== null) throw new Error(`redis-server exited:\n${output}`);
  const auth = opts.password ? `:${encodeURIComponent(opts.password)}@` : '';
  const stopWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { port, url: `redis://${auth}127.0.0.1:${port}`, kill: () => stopWith('SIGKILL'), stop: () => stopWith('SIGTERM') };
}

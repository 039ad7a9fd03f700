/**
 * `--listen host:port` for the servers (`mcp`, `gpucloud emulate`): parsing the flag, and turning a
 * failed bind into an error the user can act on.
 */
import { OperationError, UsageError } from './errors.js';

/** `127.0.0.1:39393`, `localhost:8787`, `[::1]:39393`. */
export function parseListen(listen: string, example = '127.0.0.1:39393'): { host: string; port: number } {
  const m = /^\[?([^\]]*?)\]?:(\d{1,5})$/.exec(listen.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || !m[1] || port > 65535) throw new UsageError(`--listen must be host:port (got "${listen}")`, { hint: `e.g. --listen ${example}` });
  return { host: m[1], port };
}

/** A failed bind is the user's to fix (port taken, address not local), not a bug. */
export function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host}:${port}`;
  const why: Record<string, [string, string]> = {
    EADDRINUSE: ['address already in use', 'another process listens there; pick another port with --listen'],
    EACCES: ['permission denied', 'ports below 1024 need privileges; use a port above 1024'],
    EADDRNOTAVAIL: ['address not available on this machine', 'use 127.0.0.1, or an address of one of this machine\'s interfaces'],
  };
  const known = err.code ? why[err.code] : undefined;
  if (!known) return err;
  return new OperationError('listen_failed', `cannot listen on ${where}: ${known[0]}`, { hint: known[1], cause: err });
}

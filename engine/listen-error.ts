/**
 * Turning a server's failed bind into an error the user can act on (used by `mcp` and `gpucloud emulate`).
 */
import { OperationError } from './errors.js';

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

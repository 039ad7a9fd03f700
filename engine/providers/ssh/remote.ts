/**
 * One command on a host over SSH, as root, with the configured private key and a pinned host key
 * (engine/providers/ssh/known-hosts.ts). A host that does not answer yet (sshd on a fresh node starts after the
 * cloud says `running`) is an `SshUnreachable`, which the verbs turn into a retry; a changed host key or
 * a rejected key is final.
 */
import ssh2 from 'ssh2';
import { AssistantError, InterruptedError, InvalidInputError, OperationError } from '../../core/errors.js';
import { readPrivateKey } from './private-key.js';
import type { SshSettings } from './settings.js';
import { canonicalHost, checkHostKey, hostKeyChangedError, hostKeyFromBlob, type PinOutcome } from './known-hosts.js';

export type { SshSettings };

/** The host did not accept a connection (yet): refused, reset, timed out, no route. Retried within the step's timeout. */
export class SshUnreachable extends Error {}

export interface RemoteOutput {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  hostKey: PinOutcome;
}

/** Enough for any kubeconfig or install log; more is cut (the rest is not kept in memory). */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

export async function runRemote(settings: SshSettings, written: string, command: string, opts: { signal: AbortSignal; readyTimeoutMs: number }): Promise<RemoteOutput> {
  // Connected to and pinned under one name, however the plan wrote the address.
  const host = canonicalHost(written);
  const privateKey = readPrivateKey(settings);
  if (opts.signal.aborted) throw abortReason(opts.signal);
  const conn = new ssh2.Client();
  let pin: PinOutcome | undefined;
  return new Promise<RemoteOutput>((resolve, reject) => {
    let settled = false;
    const finish = (err: unknown, value?: RemoteOutput) => {
      if (settled) return;
      settled = true;
      opts.signal.removeEventListener('abort', onAbort);
      conn.end();
      if (err) reject(err);
      else resolve(value!);
    };
    const onAbort = () => finish(abortReason(opts.signal));
    opts.signal.addEventListener('abort', onAbort, { once: true });

    conn.on('error', (err: Error & { level?: string; code?: string }) => {
      if (pin?.pinned === 'changed') return finish(hostKeyChangedError(settings.knownHostsFile, host, settings.port, pin));
      if (err.level === 'client-authentication') {
        return finish(
          new OperationError('ssh_auth_failed', `${host} refused the key ${settings.keyPath} for root`, {
            hint: 'check that gpucloud.ssh_key_path is the private half of the SSH key the host was created with (gpucloud.default_ssh_key_id)',
          }),
        );
      }
      if (/passphrase|Cannot parse privateKey|Unsupported key format/i.test(err.message)) {
        return finish(new InvalidInputError('ssh_key_unusable', `cannot use the private key ${settings.keyPath}: ${err.message}`, { hint: 'use an unencrypted key file (OpenSSH or PEM format)' }));
      }
      finish(new SshUnreachable(`${host}:${settings.port}: ${err.code ?? err.message}`));
    });
    conn.on('close', () => finish(new SshUnreachable(`${host}:${settings.port}: the connection closed before the command ran`)));
    conn.on('ready', () => {
      conn.exec(command, (err, stream) => {
        if (err) return finish(new SshUnreachable(`${host}: ${err.message}`));
        const out: Buffer[] = [];
        const errOut: Buffer[] = [];
        let size = 0;
        const keep = (into: Buffer[]) => (chunk: Buffer) => {
          if (size >= MAX_OUTPUT_BYTES) return;
          size += chunk.length;
          into.push(chunk);
        };
        stream.on('data', keep(out));
        stream.stderr.on('data', keep(errOut));
        stream.on('close', (code: number | null) => {
          finish(undefined, { exitCode: code ?? null, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(errOut).toString('utf8'), hostKey: pin! });
        });
      });
    });

    try {
      conn.connect({
        host: settings.reachAt ?? host,
        port: settings.port,
        username: 'root',
        privateKey,
        readyTimeout: opts.readyTimeoutMs,
        hostVerifier: ((key: Buffer) => {
          try {
            pin = checkHostKey(settings.knownHostsFile, host, settings.port, hostKeyFromBlob(key));
          } catch (err) {
            // known_hosts unreadable or unwritable: no key is trusted without being pinned.
            finish(new OperationError('known_hosts_unwritable', `cannot pin the host key of ${host} in ${settings.knownHostsFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { hint: 'check the permissions of ~/.assistant' }));
            return false;
          }
          if (pin.pinned === 'new') {
            settings.notice(`pinned the host key of ${host}:${settings.port} (${pin.key.type} ${pin.key.fingerprint}) in ${settings.knownHostsFile}; a different key later is refused`);
          }
          return pin.pinned !== 'changed';
        }) as ssh2.SyncHostVerifier,
      });
    } catch (err) {
      // ssh2 throws synchronously for a key it cannot parse.
      const message = err instanceof Error ? err.message : String(err);
      finish(new InvalidInputError('ssh_key_unusable', `cannot use the private key ${settings.keyPath}: ${message}`, { hint: 'use an unencrypted key file (OpenSSH or PEM format)' }));
    }
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason instanceof AssistantError ? signal.reason : new InterruptedError();
}

/**
 * Host key pinning for SSH steps, in OpenSSH's known_hosts line format (`host key-type base64`, and
 * `[host]:port` for a port other than 22) so the file reads like ssh's own and `ssh-keygen -R` works on it.
 * The first key a host shows is pinned (trust on first use, like ssh's accept-new); any other key later
 * is refused: the step stops before anything is read from or sent to the host.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AssistantError, ExitCode } from '../../core/errors.js';

export interface HostKey {
  /** `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`, … (read from the key blob itself). */
  type: string;
  /** The SSH wire-format public key blob, base64 (what known_hosts stores). */
  base64: string;
  /** `SHA256:…` as `ssh-keygen -lf` prints it. */
  fingerprint: string;
}

export function knownHostsPath(home: string): string {
  return join(home, '.assistant', 'known_hosts');
}

/**
 * One name per host for pinning and connecting: IPv4 in any form the resolver accepts (`127.1`,
 * `0x7f000001`, `2130706433`, `0177.0.0.1`) becomes its dotted quad, IPv6 its compressed lower-case form
 * (an IPv4-mapped address its IPv4), a host name lower case without a trailing dot. Otherwise one host
 * written two ways would get two pins, and a changed key would pass as a "new" host.
 */
export function canonicalHost(host: string): string {
  const h = host.trim().replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (h.includes(':')) {
    try {
      const v6 = new URL(`http://[${h}]/`).hostname.slice(1, -1);
      const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
      if (!mapped) return v6;
      const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
      return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
    } catch {
      return h;
    }
  }
  if (/^[0-9a-fx.]+$/.test(h) && /^(?:0x|\d)/.test(h)) {
    try {
      const v4 = new URL(`http://${h}/`).hostname;
      if (/^\d+\.\d+\.\d+\.\d+$/.test(v4)) return v4;
    } catch {
      // Not an IPv4 address in any form: a name.
    }
  }
  return h;
}

/** The known_hosts name of a host: `host`, or `[host]:port` off port 22 (OpenSSH's convention), host canonical. */
export function hostToken(host: string, port: number): string {
  const name = canonicalHost(host);
  return port === 22 ? name : `[${name}]:${port}`;
}

/** A key as the server sent it (the raw blob: a length-prefixed type name, then the key's fields). */
export function hostKeyFromBlob(blob: Buffer): HostKey {
  const len = blob.length >= 4 ? blob.readUInt32BE(0) : 0;
  const type = len > 0 && len < 64 && blob.length >= 4 + len ? blob.subarray(4, 4 + len).toString('latin1') : 'unknown';
  return { type, base64: blob.toString('base64'), fingerprint: fingerprintOf(blob) };
}

export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The key pinned for `token`, if any (the first matching line wins, as in OpenSSH). */
export function pinnedKey(file: string, token: string): HostKey | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [hosts, type, base64] = line.split(/\s+/);
    if (!hosts || !type || !base64) continue;
    if (!hosts.split(',').includes(token)) continue;
    const blob = Buffer.from(base64, 'base64');
    return { type, base64, fingerprint: fingerprintOf(blob) };
  }
  return undefined;
}

export type PinOutcome = { pinned: 'new'; key: HostKey } | { pinned: 'match'; key: HostKey } | { pinned: 'changed'; key: HostKey; expected: HostKey };

/** Compares the key a host presented with the pinned one; pins it when the host is new. */
export function checkHostKey(file: string, host: string, port: number, presented: HostKey): PinOutcome {
  const token = hostToken(host, port);
  const expected = pinnedKey(file, token);
  if (!expected) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // One append of one whole line: two processes pinning different hosts at once never interleave.
    appendFileSync(file, `${token} ${presented.type} ${presented.base64}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    return { pinned: 'new', key: presented };
  }
  if (expected.base64 === presented.base64) return { pinned: 'match', key: presented };
  return { pinned: 'changed', key: presented, expected };
}

/** The refusal when a host shows another key than the pinned one (exit 3: nothing was read or sent). */
export function hostKeyChangedError(file: string, host: string, port: number, outcome: Extract<PinOutcome, { pinned: 'changed' }>): AssistantError {
  const token = hostToken(host, port);
  return new AssistantError(
    'host_key_changed',
    `the host key of ${token} changed: pinned ${outcome.expected.type} ${outcome.expected.fingerprint}, presented ${outcome.key.type} ${outcome.key.fingerprint}; ` +
      'someone may be intercepting the connection, or the host was rebuilt; nothing was read from it',
    ExitCode.refused,
    {
      hint: `if the host was rebuilt on purpose, remove its line from ${file} (ssh-keygen -R '${token}' -f ${file}) and run again (--resume continues the plan)`,
    },
  );
}

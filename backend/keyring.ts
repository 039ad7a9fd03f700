/**
 * Master keys: the keys that wrap every record's data key (backend/envelope.ts). They come from
 * ASSISTANT_BACKEND_MASTER_KEY (one or more base64 or hex 32-byte keys, comma-separated, the first
 * one primary) or from a key file (one key per line, the first primary; `#` comments), which the
 * server creates with mode 0600 on the first start of an empty database. The database records which
 * key is primary and which key wrapped each record (by id, a hash that reveals nothing of the key).
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { InvalidInputError } from '../engine/core/errors.js';

export const MASTER_KEY_ENV = 'ASSISTANT_BACKEND_MASTER_KEY';
export const KEY_BYTES = 32;

export interface MasterKey {
  id: string;
  key: Buffer;
}

export interface Keyring {
  /** Where the keys came from, for messages (`ASSISTANT_BACKEND_MASTER_KEY` or the file path). */
  source: string;
  file?: string;
  /** keys[0] is primary: new records are wrapped with it. */
  keys: MasterKey[];
}

export function defaultKeyFile(home: string): string {
  return join(home, '.assistant', 'backend-master.key');
}

export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update('assistant-backend master key id\0').update(key).digest('hex').slice(0, 16);
}

export function generateMasterKey(): MasterKey {
  const key = randomBytes(KEY_BYTES);
  return { id: masterKeyId(key), key };
}

function parseKey(text: string, where: string): MasterKey {
  const t = text.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(t)) key = Buffer.from(t, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) key = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (!key || key.length !== KEY_BYTES) {
    throw new InvalidInputError('invalid_master_key', `${where}: a master key is ${KEY_BYTES} random bytes as base64 (44 characters) or hex (64)`, {
      hint: 'generate one with: openssl rand -base64 32',
    });
  }
  return { id: masterKeyId(key), key };
}

function parseKeys(text: string, where: string, separator: RegExp): MasterKey[] {
  const keys = text
    .split(separator)
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((l) => parseKey(l, where));
  return keys.filter((k, i) => keys.findIndex((o) => o.id === k.id) === i);
}

export interface LoadKeyringOptions {
  env: Record<string, string | undefined>;
  file: string;
  /** The database holds no record yet: a missing key file is created (never when it holds data). */
  createIfMissing: boolean;
}

/** Reads the master keys; a missing or unreadable key is a clear error, never a silent new key. */
export function loadKeyring(opts: LoadKeyringOptions): Keyring & { created: boolean } {
  const fromEnv = opts.env[MASTER_KEY_ENV]?.trim();
  if (fromEnv) {
    const keys = parseKeys(fromEnv, MASTER_KEY_ENV, /,/);
    if (!keys.length) throw new InvalidInputError('invalid_master_key', `${MASTER_KEY_ENV} holds no key`);
    return { source: MASTER_KEY_ENV, keys, created: false };
  }
  let text: string;
  try {
    const st = statSync(opts.file);
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
      throw new InvalidInputError('insecure_master_key', `the master key file ${opts.file} is readable by other users`, {
        hint: `run: chmod 600 ${opts.file}`,
      });
    }
    text = readFileSync(opts.file, 'utf8');
  } catch (err) {
    if (err instanceof InvalidInputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new InvalidInputError('master_key_unreadable', `cannot read the master key file ${opts.file}: ${(err as Error).message}`);
    if (!opts.createIfMissing) {
      throw new InvalidInputError('master_key_missing', `the master key is missing: ${opts.file} does not exist and ${MASTER_KEY_ENV} is not set, but the database holds encrypted records`, {
        hint: `restore the key file (mode 0600) or set ${MASTER_KEY_ENV}; without the key the stored credentials cannot be read`,
      });
    }
    const key = generateMasterKey();
    writeKeyFile(opts.file, [key]);
    return { source: opts.file, file: opts.file, keys: [key], created: true };
  }
  const keys = parseKeys(text, opts.file, /\r?\n/);
  if (!keys.length) throw new InvalidInputError('invalid_master_key', `the master key file ${opts.file} holds no key`);
  return { source: opts.file, file: opts.file, keys, created: false };
}

/** Writes the key file atomically (temp file, fsync, rename), mode 0600; keys[0] is primary. */
export function writeKeyFile(file: string, keys: MasterKey[]): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    const lines = [
      '# assistant backend master keys (base64). The first line is primary; the others only unwrap records not yet re-wrapped.',
      '# Losing this file loses every stored credential. Keep a copy apart from the database backups.',
      ...keys.map((k) => k.key.toString('base64')),
    ];
    writeSync(fd, lines.join('\n') + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/**
 * Tenant API keys: `asb_<prefix>_<secret>`, the secret 32 random bytes (256 bits, base64url). Only the
 * SHA-256 of the whole key is stored (a key this random needs no slow hash: there is nothing to guess),
 * with the prefix, which is public and names the key in lists, audits and revocations.
 *
 * A key belongs to a tenant and to one or more envs (testing, staging, production), and its row
 * carries a MAC (HMAC-SHA256) over prefix, tenant, envs, hash and revocation under a key derived from
 * the master key (HKDF-SHA256, `keyMacKey`). Whoever can write the database but does not hold the
 * master key cannot add a key, widen one to another tenant or env, or bring a revoked one back: the
 * row fails its MAC and the server ignores it (and audits that it did).
 */
import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MasterKey } from './keyring.js';

export const KEY_SCHEME = 'asb';
const PREFIX_RE = /^[a-z0-9]{10}$/;
const KEY_RE = /^asb_([a-z0-9]{10})_([A-Za-z0-9_-]{43})$/;

export interface NewApiKey {
  key: string;
  prefix: string;
  hash: Buffer;
}

export function generateApiKey(): NewApiKey {
  // 10 characters of base36 from 8 random bytes: enough to never collide in one deployment.
  const prefix = BigInt('0x' + randomBytes(8).toString('hex')).toString(36).padStart(10, '0').slice(-10);
  const key = `${KEY_SCHEME}_${prefix}_${randomBytes(32).toString('base64url')}`;
  return { key, prefix, hash: hashApiKey(key) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** The prefix of a well-formed key, or undefined (the key is then refused without a lookup). */
export function parseApiKey(key: string): { prefix: string } | undefined {
  const m = KEY_RE.exec(key);
  return m ? { prefix: m[1]! } : undefined;
}

export function isKeyPrefix(value: string): boolean {
  return PREFIX_RE.test(value);
}

export function hashesMatch(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What a key row's MAC covers. */
export interface KeyRowFacts {
  prefix: string;
  tenant: string;
  /** Sorted, no duplicates (`canonicalEnvs`). */
  envs: readonly string[];
  hash: Buffer;
  revoked: boolean;
}

/** The envs of a key in the one order its MAC is computed over. */
export function canonicalEnvs(envs: readonly string[]): string[] {
  return [...new Set(envs)].sort();
}

/** The MAC key for API key rows, derived from a master key; never the master key itself. */
export function keyMacKey(master: MasterKey): Buffer {
  return Buffer.from(hkdfSync('sha256', master.key, Buffer.alloc(0), 'assistant-backend api_keys mac v1', 32));
}

/** The row's MAC; NUL and `,` occur in none of the fields, so the encoding is unambiguous. */
export function keyRowMac(master: MasterKey, row: KeyRowFacts): Buffer {
  const text = ['api_key/v1', row.prefix, row.tenant, canonicalEnvs(row.envs).join(','), row.hash.toString('hex'), row.revoked ? 'revoked' : 'live'].join('\0');
  return createHmac('sha256', keyMacKey(master)).update(text, 'utf8').digest();
}

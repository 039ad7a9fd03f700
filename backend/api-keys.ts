/**
 * Tenant API keys: `asb_<prefix>_<secret>`, the secret 32 random bytes (256 bits, base64url). Only the
 * SHA-256 of the whole key is stored (a key this random needs no slow hash: there is nothing to guess),
 * with the prefix, which is public and names the key in lists, audits and revocations.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

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

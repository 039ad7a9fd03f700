/**
 * Envelope encryption of one credential record with AES-256-GCM (node:crypto): a fresh random data key
 * encrypts the fields, and a master key wraps the data key. The record's identity (tenant, env,
 * provider, name) is additional authenticated data of both, so a sealed record copied to another
 * tenant or name, or altered by one bit, fails to open instead of decrypting to something.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { MasterKey } from './keyring.js';

const IV = 12;
const TAG = 16;

export interface RecordIdentity {
  tenant: string;
  env: string;
  provider: string;
  name: string;
}

export interface Sealed {
  masterKeyId: string;
  /** iv | tag | wrapped data key */
  wrappedKey: Buffer;
  /** iv | tag | encrypted JSON of the fields */
  payload: Buffer;
}

/** The record's identity as bytes; NUL cannot occur in any of the names, so the encoding is unambiguous. */
function aad(id: RecordIdentity, purpose: 'payload' | 'wrap', masterKeyId = ''): Buffer {
  return Buffer.from(['assistant-backend/v1', purpose, id.tenant, id.env, id.provider, id.name, masterKeyId].join('\0'), 'utf8');
}

function encrypt(key: Buffer, plaintext: Buffer, ad: Buffer): Buffer {
  const iv = randomBytes(IV);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(ad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

function decrypt(key: Buffer, sealed: Buffer, ad: Buffer): Buffer {
  if (sealed.length < IV + TAG) throw new Error('sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV));
  decipher.setAAD(ad);
  decipher.setAuthTag(sealed.subarray(IV, IV + TAG));
  return Buffer.concat([decipher.update(sealed.subarray(IV + TAG)), decipher.final()]);
}

export function seal(fields: Record<string, string>, id: RecordIdentity, master: MasterKey): Sealed {
  const dataKey = randomBytes(32);
  try {
    return {
      masterKeyId: master.id,
      payload: encrypt(dataKey, Buffer.from(JSON.stringify(fields), 'utf8'), aad(id, 'payload')),
      wrappedKey: encrypt(master.key, dataKey, aad(id, 'wrap', master.id)),
    };
  } finally {
    dataKey.fill(0);
  }
}

/** Thrown when a record does not open: altered, moved, or wrapped with another key. */
export class UnsealError extends Error {}

export function unwrapDataKey(sealed: Pick<Sealed, 'wrappedKey' | 'masterKeyId'>, id: RecordIdentity, master: MasterKey): Buffer {
  try {
    return decrypt(master.key, sealed.wrappedKey, aad(id, 'wrap', master.id));
  } catch {
    throw new UnsealError('its data key does not unwrap under its master key');
  }
}

export function open(sealed: Sealed, id: RecordIdentity, master: MasterKey): Record<string, string> {
  const dataKey = unwrapDataKey(sealed, id, master);
  try {
    return JSON.parse(decrypt(dataKey, sealed.payload, aad(id, 'payload')).toString('utf8')) as Record<string, string>;
  } catch {
    throw new UnsealError('its fields do not decrypt under its data key');
  } finally {
    dataKey.fill(0);
  }
}

/** The same data key wrapped by another master key (rotation); the payload is untouched. */
export function rewrap(sealed: Sealed, id: RecordIdentity, from: MasterKey, to: MasterKey): Sealed {
  const dataKey = unwrapDataKey(sealed, id, from);
  try {
    return { masterKeyId: to.id, payload: sealed.payload, wrappedKey: encrypt(to.key, dataKey, aad(id, 'wrap', to.id)) };
  } finally {
    dataKey.fill(0);
  }
}

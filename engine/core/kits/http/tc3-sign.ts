/**
 * TC3-HMAC-SHA256, the request signature of a Tencent-Cloud-style API (cloud_d): a canonical request
 * (method, path, query, the signed headers, the SHA-256 of the body) is hashed into a string to sign,
 * which is HMAC-ed with a key derived from the secret key, the UTC date, the service and `tc3_request`.
 * The fake (emulator/fakes/cloud_d.ts) verifies with the same function, so the two cannot drift apart
 * silently; the known-answer test pins it to the published algorithm.
 */
import { createHash, createHmac } from 'node:crypto';

export const TC3_ALGORITHM = 'TC3-HMAC-SHA256';
export const TC3_CONTENT_TYPE = 'application/json';
/** What the official SDKs sign: the content type and the host name (without a port). */
const SIGNED_HEADERS = 'content-type;host';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s, 'utf8').digest();

export interface Tc3Input {
  secretId: string;
  secretKey: string;
  /** `cvm`: the first label of the product's host name. */
  service: string;
  /** The host name requests go to (`cvm.tencentcloudapi.com`, `127.0.0.1` for a fake), without a port. */
  host: string;
  /** The Content-Type header as sent (default application/json). */
  contentType?: string;
  body: string;
  /** Seconds since the epoch. */
  timestamp: number;
}

/** The UTC date (YYYY-MM-DD) of a timestamp: part of the credential scope. */
export function tc3Date(timestamp: number): string {
  return new Date(timestamp * 1000).toISOString().slice(0, 10);
}

/** The hex signature of a POST / request. */
export function tc3Signature(i: Omit<Tc3Input, 'secretId'>): string {
  const canonical = ['POST', '/', '', `content-type:${i.contentType ?? TC3_CONTENT_TYPE}`, `host:${i.host}`, '', SIGNED_HEADERS, sha256(i.body)].join('\n');
  const date = tc3Date(i.timestamp);
  const scope = `${date}/${i.service}/tc3_request`;
  const toSign = [TC3_ALGORITHM, String(i.timestamp), scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(`TC3${i.secretKey}`, date), i.service), 'tc3_request');
  return createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
}

/** The Authorization header of a request. */
export function tc3Authorization(i: Tc3Input): string {
  return `${TC3_ALGORITHM} Credential=${i.secretId}/${tc3Date(i.timestamp)}/${i.service}/tc3_request, SignedHeaders=${SIGNED_HEADERS}, Signature=${tc3Signature(i)}`;
}

/** The parts of an Authorization header (for the fake's check), or undefined when it is not TC3. */
export function parseTc3Authorization(header: string): { secretId: string; date: string; service: string; signedHeaders: string; signature: string } | undefined {
  const m = /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([a-z0-9]+)\/tc3_request, SignedHeaders=([a-z;-]+), Signature=([0-9a-f]{64})$/.exec(header);
  return m ? { secretId: m[1]!, date: m[2]!, service: m[3]!, signedHeaders: m[4]!, signature: m[5]! } : undefined;
}

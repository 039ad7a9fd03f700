/**
 * The bearer token of a deployed box. `box manifest` generates it once per box name and keeps it in
 * `~/.assistant/box/<name>.token` (file 0600, folder 0700); the plan carries only its SHA-256, which
 * becomes a gpucloud secret that the container reads as ASSISTANT_BOX_TOKEN_SHA256. The box compares
 * the digest of the token a client presents with it (engine: box/auth.ts), so the token itself is in
 * no plan, journal, report or gpucloud secret, and a leaked plan opens nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';

/** Tokens start with this, so people (and secret scanners) can tell what they are. */
export const BOX_TOKEN_PREFIX = 'abx_';
/** 32 random bytes, base64url: 256 bits. */
const TOKEN_RE = /^abx_[A-Za-z0-9_-]{43}$/;

export const boxTokenDir = (home: string) => join(home, '.assistant', 'box');
export const boxTokenPath = (home: string, name: string) => join(boxTokenDir(home), `${name}.token`);

/** Hex SHA-256 of a token: what the box is configured with (ASSISTANT_BOX_TOKEN_SHA256). */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function generateBoxToken(): string {
  return BOX_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The token of box `name`: the one kept for it, or a new one (two manifests run at once agree on one
 * token: the loser of the race reads the winner's file).
 */
export function ensureBoxToken(home: string, name: string): { token: string; path: string; created: boolean } {
  const path = boxTokenPath(home, name);
  mkdirSync(boxTokenDir(home), { recursive: true, mode: 0o700 });
  chmodSync(boxTokenDir(home), 0o700);
  const token = generateBoxToken();
  let created = true;
  // Written whole to a temp file, then linked into place: link never replaces a file, and a reader never
  // sees a half-written token.
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, token + '\n', { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    created = false;
  } finally {
    rmSync(tmp, { force: true });
  }
  const kept = created ? token : readFileSync(path, 'utf8').trim();
  if (!TOKEN_RE.test(kept)) {
    throw new InvalidInputError('bad_token_file', `${path} does not hold a box token`, { hint: 'delete it to have a new one generated (the box deployed with the old one must then be deployed again)' });
  }
  registerSecret(kept);
  return { token: kept, path, created };
}

/**
 * The bearer token of a deployed box. `box manifest` generates it once per box name and keeps it in
 * `~/.assistant/box/<name>.token` (file 0600, folder 0700); the plan carries only its SHA-256, which
 * becomes a gpucloud secret that the container reads as ASSISTANT_BOX_TOKEN_SHA256. The box compares
 * the digest of the token a client presents with it (engine/core/kits/serve/token.ts), so the token itself is in
 * no plan, journal, report or gpucloud secret, and a leaked plan opens nothing.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ensureTokenFile, generateToken } from '../../core/kits/serve/token.js';

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
  return generateToken(BOX_TOKEN_PREFIX);
}

/**
 * The token of box `name`: the one kept for it, or a new one (two manifests run at once agree on one
 * token: the loser of the race reads the winner's file; engine/core/kits/serve/token.ts).
 */
export function ensureBoxToken(home: string, name: string): { token: string; path: string; created: boolean } {
  return ensureTokenFile(boxTokenPath(home, name), generateBoxToken, TOKEN_RE);
}
